"""The agenda (issue 16): across the deals of a ledger, what falls due in a window, what
is overdue and what is at risk, one line each with its clause, sorted by date.

``agenda(ledger, ...)`` reads the store once (every record, grouped by deal), computes
each deal's ``projections.obligations.outlook`` and returns a plain dict: ``items``
(each with ``date, deal, category, kind, key, state, clause, text, holder, amount``),
the window, and ``overdue`` (how many), which the CLI turns into its exit code.

Categories: ``overdue`` (an obligation violated and not cured on ``as_of``), ``due``
(pending, its due day in the window), ``at_risk`` (``outlook.Risk``: a default if
nothing is done by a day, suspension room, the next payment). Freshness: everything
is computed from the store as known at ``known_at``; the materialised views are not
read (a follow-up could read them when their recorded head equals the log's).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any, Iterable, Mapping

from ledger.events import Event

CATEGORY_ORDER = {"overdue": 0, "due": 1, "at_risk": 2}


def window_end(start: date, days: int | None, business_days: int | None, calendar) -> date:
    """``--days N``: ``start`` + N calendar days; ``--business-days N``: the N-th Business
    Day after ``start`` (RRA §1 Business Day, with the deal's overrides)."""
    if business_days is not None:
        return calendar.add_business_days(start, business_days)
    return start + timedelta(days=30 if days is None else days)


def deal_histories(ledger: Any, deals: Iterable[str] | None = None) -> dict[str, list[Event]]:
    """Every deal's events, read in one pass over the log (``deals``: only those)."""
    wanted = set(deals) if deals else None
    out: dict[str, list[Event]] = {}
    for record in ledger.records():
        deal = record.get("deal")
        if wanted is None or deal in wanted:
            out.setdefault(deal, []).append(Event.from_record(record))
    return out


def agenda_of(histories: Mapping[str, list[Event]], *, as_of: date, start: date | None = None,
              days: int | None = None, business_days: int | None = None,
              known_at: datetime | None = None,
              interpretations: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The agenda of the deals in ``histories`` (pure: no store)."""
    from projections.obligations.outlook import outlook
    from projections.timeline import retracted_ids

    start = start or as_of
    items: list[dict[str, Any]] = []
    end = None
    for deal in sorted(histories):
        events = histories[deal]
        known = [e for e in events if known_at is None or e.recorded_at <= known_at]
        dead = retracted_ids(known)
        if not any(e.type == "DealOpened" and e.id not in dead for e in known):
            continue  # not opened as known then
        o = outlook(events, as_of=as_of, start=start, known_at=known_at,
                    interpretations=interpretations)
        deal_end = window_end(start, days, business_days, o.timeline.calendar)
        end = deal_end if end is None else max(end, deal_end)
        for d in o.duties:
            if d.state == "violated":
                items.append(_item(deal, "overdue", d.violated_since or d.due, d))
            elif d.state == "due" and (d.due is None or d.due <= deal_end) or (
                    d.state == "upcoming" and d.due and start <= d.due <= deal_end):
                items.append(_item(deal, "due", d.due, d))
        for k in o.risks:
            if True:  # every risk: a default ahead, the room to suspend, the next payment
                items.append({"date": k.day.isoformat(), "deal": deal, "category": "at_risk",
                              "kind": k.kind, "key": k.key, "state": None,
                              "clause": k.clause, "text": k.text, "holder": k.holder,
                              "amount": k.amount, "days": k.days})
    items.sort(key=lambda i: (i["date"] or "", CATEGORY_ORDER[i["category"]], i["deal"], i["key"]))
    overdue = sum(1 for i in items if i["category"] == "overdue")
    return {"as_of": as_of.isoformat(), "from": start.isoformat(),
            "to": (end or window_end(start, days, business_days, _fed())).isoformat(),
            "known_at": None if known_at is None else known_at.isoformat(),
            "deals": sorted(histories), "overdue": overdue, "items": items}


def _fed():
    from ledger.calendar import FED

    return FED


def _item(deal: str, category: str, day: date | None, d) -> dict[str, Any]:
    text = d.obligation + (f" ({d.amount})" if d.amount is not None else "") + (
        f" ({d.shares} shares)" if d.shares else "") + (
        f": {'; '.join(d.triggered)}" if category == "overdue" and d.triggered else "")
    return {"date": day.isoformat() if day else None, "deal": deal, "category": category,
            "kind": d.kind, "key": d.key, "state": d.state, "clause": d.clause, "text": text,
            "holder": d.holder, "amount": None if d.amount is None else format(d.amount, "f"),
            "days": None}


def agenda(ledger: Any, *, deals: Iterable[str] | None = None, **options: Any) -> dict[str, Any]:
    """``agenda_of`` over the ledger's deals (or ``deals``); ``UsageError`` naming an
    unknown deal."""
    from ledger.errors import UsageError

    histories = deal_histories(ledger, deals)
    missing = sorted(set(deals or ()) - set(histories))
    if missing:
        known = ", ".join(sorted(deal_histories(ledger))) or "none"
        raise UsageError(f"no deal {missing[0]!r} in the ledger; known: {known}",
                         field="--deal")
    return agenda_of(histories, **options)


CSV_FIELDS = ("date", "deal", "category", "kind", "state", "clause", "text", "holder",
              "amount", "key")
