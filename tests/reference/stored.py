"""Public event objects (SPEC §3) given the fields the store adds, the way
``tests.support.build`` gives them (ids ``e1, e2 ...`` by seq, recorded one minute apart
from 2026-01-01), so that the model and the engine read the very same history: each
object as ``log --json`` prints it once appended (its ``data`` normalised by the event
format, ``ledger.events.parse_event``: a deal's terms in the current schema, defaults
filled in), which is the public form a reader of the ledger sees."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Iterable

from ledger.events import parse_event

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def stored(objs: Iterable[dict[str, Any]], start_seq: int = 1) -> list[dict[str, Any]]:
    return [{**parse_event(obj).envelope(), "seq": start_seq + i, "id": f"e{start_seq + i}",
             "recorded_at": (T0 + timedelta(minutes=start_seq + i)).isoformat()}
            for i, obj in enumerate(objs)]
