"""Builders for tests: events in the public format turned into stored ``Event`` objects
without a store, so that projections can be tested as the pure functions they are."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Any, Iterable

from ledger.events import Event, format_timestamp, parse_event
from ledger.terms import TEMPLATES

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def opened(deal: str = "rra", template: str = "infocrossing-rra-2004",
           **term_overrides: Any) -> dict[str, Any]:
    """A ``DealOpened`` event object for ``template``, terms optionally changed."""
    t = TEMPLATES[template]
    terms = {**t["terms"], **term_overrides}
    return {"type": "DealOpened", "deal": deal, "date": t["date"].isoformat(),
            "data": {"kind": t["kind"], "name": t["name"], "terms": terms}}


def ev(type_: str, day: str, deal: str = "rra", **data: Any) -> dict[str, Any]:
    """One event object: ``ev("ShelfFiled", "2004-07-13")``."""
    return {"type": type_, "deal": deal, "date": day, "data": data}


def build(objs: Iterable[dict[str, Any]], *, start_seq: int = 1,
          recorded: Iterable[datetime] | None = None) -> list[Event]:
    """Validate each object as ``append`` would and give it store fields: ids ``e1``,
    ``e2``... (by seq), recorded_at one minute apart from 2026-01-01 unless given."""
    out = []
    times = list(recorded) if recorded is not None else None
    for i, obj in enumerate(objs):
        new = parse_event(obj, line=i + 1)
        seq = start_seq + i
        at = times[i] if times is not None else T0 + timedelta(minutes=seq)
        record = {**new.envelope(), "id": f"e{seq}", "seq": seq,
                  "recorded_at": format_timestamp(at), "recorded_by": "test",
                  "prev_hash": "", "hash": ""}
        out.append(Event.from_record(record))
    return out


def d(text: str) -> date:
    return date.fromisoformat(text)


def texts_as_once_accepted():
    """A context in which new text may hold control characters, as the store accepted
    before reasons, subjects and sources refused them (issue 29): for tests of how the
    store keeps and reads records written then, whatever bytes they hold."""
    from unittest import mock

    import ledger.values as values

    return mock.patch.object(values, "_control_characters", lambda text: None)


def keyed(objs: Iterable[dict[str, Any]], key: str, start_seq: int = 1) -> str:
    """An obligation key with its trigger named by type: ``end-suspension/#SuspensionStarted``
    (``#Type:n``: the n-th, from 0) becomes ``end-suspension/e7``, the id ``build`` gives
    that event of ``objs`` (keys name their trigger: projections.obligations.identity)."""
    import re

    objs = list(objs)

    def event_id(m: "re.Match[str]") -> str:
        n = int(m.group(2) or 0)
        places = [i for i, o in enumerate(objs) if o["type"] == m.group(1)]
        return f"e{start_seq + places[n]}"

    return re.sub(r"#([A-Za-z]+)(?::(\d+))?", event_id, key)


def first_ids(path: str) -> dict[tuple[str, str], str]:
    """The first event of each (deal, type) of the ledger at ``path``, and of each (deal,
    instrument) exercised or converted: the triggers obligation keys name."""
    from ledger.store import Ledger

    out: dict[tuple[str, str], str] = {}
    with Ledger(path, create=False) as ledger:
        for r in ledger.records():
            out.setdefault((r["deal"], r["type"]), r["id"])
            if r["type"] in ("WarrantsExercised", "PreferredConverted"):
                out.setdefault((r["deal"], r["data"]["instrument"]), r["id"])
    return out
