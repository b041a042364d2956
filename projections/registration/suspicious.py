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

Only ended interest periods are judged: an amount still accruing is not yet owed. The
clauses named are the deal's own, from its terms (issue 33); the Infocrossing RRA's are
given above.
"""

from __future__ import annotations

from typing import Sequence

from ledger.registration_terms import RegistrationTerms, cite
from ledger.stored import Event

from .interest import amount_words
from .money import money
from .payments import Payment

#: the duty of the terms each notice type performs
NOTICE_DUTIES = {"TrusteeNotified": "trustee_notice", "HoldersAdvised": "advise_holders"}


def _ids(events: Sequence[Event]) -> str:
    return ", ".join(e.id for e in events)


def payment_problems(payments: Sequence[Payment], paid_events: Sequence[Event],
                     terms: RegistrationTerms) -> list[str]:
    """The payments above made to a Holder owed nothing, or more than it is owed, on an
    Interest Payment Date whose period has ended (module doc)."""
    by_id = {e.id: e for e in paid_events}
    damages = terms.damages.section
    record_holder = terms.citations.get("record_dates")
    holder_clause = cite(*([record_holder.section] if record_holder else []),
                         terms.payment.section)
    amount_clause = amount_words(terms)[0]
    not_entitled = (terms.payment.section if terms.payment.paid_to.startswith("questionnaire")
                    else f"{damages} last paragraph")
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
                           f"Registration Default [{damages}]")
            elif owed is None:
                out.append(f"{what}, but {holder} held no Transfer Restricted Securities on "
                           f"the record date {record}: it is not a Holder paid on that date "
                           f"[{holder_clause}]")
            elif not owed.entitlement.entitled:
                out.append(f"{what}, but {holder} was not entitled to Additional Interest "
                           f"on that date ({owed.entitlement.reason}) [{not_entitled}]")
            elif owed.amount == 0:
                out.append(f"{what}, on which nothing was owed to {holder} [{damages}]")
            elif paid > owed.amount:
                out.append(f"{what}, owed {money(owed.amount)}: overpaid by "
                           f"{money(paid - owed.amount)} [{amount_clause}]")
    return out


def repeated_notices(events: Sequence[Event], terms: RegistrationTerms) -> list[str]:
    """Each ``TrusteeNotified`` or ``HoldersAdvised`` about an event an earlier one of its
    type was about already (``events`` in timeline order)."""
    first: dict[tuple[str, str], Event] = {}
    out = []
    for e in events:
        if e.type not in NOTICE_DUTIES or "about" not in e.data:
            continue
        about = e.data["about"]
        earlier = first.setdefault((e.type, about), e)
        if earlier is not e:
            out.append(f"{e.type} {e.id} of {e.date}: a second notice about event {about}; "
                       f"{earlier.id} of {earlier.date} gave it already"
                       f"{_duty_clause(terms, e.type)}")
    return out



def _duty_clause(terms: RegistrationTerms, event_type: str) -> str:
    """`` [clause]`` of the duty a notice performs; nothing if the deal has no such duty."""
    duty = getattr(terms, NOTICE_DUTIES[event_type])
    return f" [{duty.section}]" if duty is not None else ""
