"""What a batch does to the deals it touches, before or as it is written (issue 31):
``append --dry-run`` (``preview``) and the warnings of an append (``warnings``).

``preview`` checks the batch against the real ledger exactly as ``append`` would
(``Ledger.check``: the same rules, seqs and ids, the deals as stored now), writes
nothing, and compares each touched deal's report before and after, money first
(``projections.impact``). ``warnings`` reads, after an append, the ``problems`` of each
touched deal's report that name an event just written: the facts the ledger accepted but
that look wrong (``projections.registration.suspicious``).
"""

from __future__ import annotations

from datetime import date
from typing import Any, Iterable, Mapping, Sequence

from ledger.stored import Event

#: the event types that can make a fact suspicious (``projections.registration.suspicious``)
SUSPICIOUS_TYPES = frozenset(("AdditionalInterestPaid", "TrusteeNotified", "HoldersAdvised"))


def _by_deal(records: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    out: dict[str, list[Mapping[str, Any]]] = {}
    for r in records:
        out.setdefault(r["deal"], []).append(r)
    return out


def _report(events: Sequence[Event], as_of: date) -> dict[str, Any] | None:
    """The deal's report as of ``as_of``, or ``None`` if it has no open deal."""
    from projections.report import report
    from projections.timeline import retracted_ids

    dead = retracted_ids(events)
    if not any(e.type == "DealOpened" and e.id not in dead for e in events):
        return None
    return report(events, as_of=as_of, bases=False)


def _judged_on(records: Sequence[Mapping[str, Any]], as_of: date | None) -> date:
    """The day a batch is judged on: ``as_of``, else the latest day it names (an event's
    date, or the Interest Payment Date a payment is for, whose period must have ended
    for the payment to be judged)."""
    if as_of is not None:
        return as_of
    days = [r["date"] for r in records]
    days += [r["data"]["payment_date"] for r in records
             if r["type"] == "AdditionalInterestPaid"]
    return date.fromisoformat(max(days))


def preview(ledger: Any, batch: Sequence[Any], *, as_of: date | None = None,
            user: str | None = None) -> dict[str, Any]:
    """What appending ``batch`` (``NewEvent``s) would do (module doc): ``{"already":
    [records] (a batch recorded already: a real append writes nothing), "count", "seqs":
    [first, last], "deals": [{deal, as_of, events, impact}], "warnings": [text]}``.
    ``LedgerError`` exactly as ``append`` would refuse it."""
    from projections.impact import impact
    from projections.whatif import diff, obligation_changes

    checked = ledger.check(batch, user=user)
    if checked.already:
        return {"already": list(checked.already), "count": 0, "seqs": None, "deals": [],
                "warnings": []}
    records = list(checked.records)
    deals = []
    warnings: list[str] = []
    new_ids = {r["id"] for r in records}
    for deal, mine in _by_deal(records).items():
        day = _judged_on(mine, as_of)
        before_events = ledger.deal_events(deal)
        after_events = before_events + [Event.from_record(r) for r in mine]
        before = _report(before_events, day)
        after = _report(after_events, day)
        deals.append({"deal": deal, "as_of": day.isoformat(), "events": len(mine),
                      "opened": before is None and after is not None,
                      "impact": impact(before, after, diff(before or {}, after or {}),
                                       obligation_changes(before or {}, after or {}))})
        warnings += _naming(after, new_ids)
    return {"already": [], "count": len(records),
            "seqs": [records[0]["seq"], records[-1]["seq"]], "deals": deals,
            "warnings": warnings}


def _naming(report: Mapping[str, Any] | None, ids: set[str]) -> list[str]:
    """The report's problems that name one of ``ids``."""
    return [p for p in (report or {}).get("problems", ()) if any(i in p for i in ids)]


def warnings(ledger: Any, records: Sequence[Mapping[str, Any]]) -> list[str]:
    """The problems an append just made (module doc): for each deal with a new event of a
    type that can be suspicious, or a reinstatement (which brings one back), its report as
    of the batch's day (``_judged_on``), the problems naming a new or reinstated event."""
    out: list[str] = []
    ids = {r["id"] for r in records}
    for deal, mine in _by_deal(records).items():
        back = {r["data"]["retraction_id"] for r in mine if r["type"] == "EventReinstated"}
        if not back and not any(r["type"] in SUSPICIOUS_TYPES for r in mine):
            continue
        events = ledger.deal_events(deal)
        named = ids | {e.data["event_id"] for e in events if e.id in back}
        out += _naming(_report(events, _judged_on(mine, None)), named)
    return out
