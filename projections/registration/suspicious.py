"""Facts that are legal but suspicious (issue 31): the ledger records what happened, so
these are accepted, and the report says what looks wrong in its ``problems``, each with
the clause it is judged by and the events (``append`` warns of them as it writes).

* an ``AdditionalInterestPaid`` for an Interest Payment Date on which the Holder is owed
  nothing: no day of the interest period accrued (RRA §3(a): Additional Interest accrues
  only while a Registration Default lasts); the Holder held no Transfer Restricted
  Securities on the record date (RRA §3(b): it is paid to the Holders of record); the
  Holder was not entitled (RRA §3(a) last paragraph: its Questionnaire was not delivered
  in time); or its amount is zero (its Notes converted, say);
* an overpayment: a Holder paid more than it is owed for the date (RRA §3(a), §3(b));
* a second notice for the same trigger: a ``TrusteeNotified`` (RRA §3(b)) or
  ``HoldersAdvised`` (RRA §4(b)(iii)) whose ``about`` names the same event as an earlier
  one of its type (a notice that names no trigger is never judged a second one).

Only ended interest periods are judged: an amount still accruing is not yet owed.
"""

from __future__ import annotations

from typing import Sequence

from ledger.stored import Event

from .money import money
from .payments import Payment

NOTICE_CLAUSES = {"TrusteeNotified": "RRA §3(b)", "HoldersAdvised": "RRA §4(b)(iii)"}


def _ids(events: Sequence[Event]) -> str:
    return ", ".join(e.id for e in events)


def payment_problems(payments: Sequence[Payment], paid_events: Sequence[Event]) -> list[str]:
    """The payments above made to a Holder owed nothing, or more than it is owed, on an
    Interest Payment Date whose period has ended (module doc)."""
    by_id = {e.id: e for e in paid_events}
    out = []
    for p in payments:
        if p.status == "accruing" or not p.paid:
            continue
        day, record = p.period.payment_date, p.period.record_date
        for holder, paid in sorted(p.paid.items()):
            events = [by_id[i] for i in p.paid_events
                      if i in by_id and by_id[i].data["holder"] == holder]
            what = (f"AdditionalInterestPaid {_ids(events)}: {money(paid)} paid to {holder} "
                    f"for Interest Payment Date {day}")
            owed = p.amounts.get(holder)
            if not p.amounts:
                out.append(f"{what}, on which nothing was owed to anyone: no day of its "
                           f"interest period {p.period.start} to {p.period.end} was in a "
                           "Registration Default [RRA §3(a)]")
            elif owed is None:
                out.append(f"{what}, but {holder} held no Transfer Restricted Securities on "
                           f"the record date {record}: it is not a Holder paid on that date "
                           "[RRA §1 Record Holder, §3(b)]")
            elif not owed.entitlement.entitled:
                out.append(f"{what}, but {holder} was not entitled to Additional Interest "
                           f"on that date ({owed.entitlement.reason}) "
                           "[RRA §3(a) last paragraph]")
            elif owed.amount == 0:
                out.append(f"{what}, on which nothing was owed to {holder} [RRA §3(a)]")
            elif paid > owed.amount:
                out.append(f"{what}, owed {money(owed.amount)}: overpaid by "
                           f"{money(paid - owed.amount)} [RRA §3(a), §3(b)]")
    return out


def repeated_notices(events: Sequence[Event]) -> list[str]:
    """Each ``TrusteeNotified`` or ``HoldersAdvised`` about an event an earlier one of its
    type was about already (``events`` in timeline order)."""
    first: dict[tuple[str, str], Event] = {}
    out = []
    for e in events:
        if e.type not in NOTICE_CLAUSES or "about" not in e.data:
            continue
        about = e.data["about"]
        earlier = first.setdefault((e.type, about), e)
        if earlier is not e:
            out.append(f"{e.type} {e.id} of {e.date}: a second notice about event {about}; "
                       f"{earlier.id} of {earlier.date} gave it already "
                       f"[{NOTICE_CLAUSES[e.type]}]")
    return out

