"""Which obligation is which, across corrections (issue 30 item 13).

An obligation's ``key`` names what triggers it: the id of the triggering event (a
``SuspensionStarted``, a ``ShelfUnusable``, an exercise...), followed back through
corrections to the first event of its correction chain. A calendar's UID, a view's row
and the agenda's cache follow the key, so it must not move when the history does: a
late-recorded earlier event adds an obligation without renumbering the others (an
ordinal key, ``true-up/W/1``, moved from the 2002-09-01 exercise to the 2002-06-01 one),
and a correction that moves its trigger's date keeps it (the calendar raises SEQUENCE).

A *correction* is what ``deal-ledger correct`` records (SPEC §3.1 "To correct an event,
retract it and append the right one"): in one batch (one ``recorded_at``) of one deal,
an ``EventRetracted`` and a new event of the retracted event's type; the replacement
continues the chain of the event it replaces. Several in one batch are paired in
recorded order, each replacement with the first retraction before it of its type.
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping

from ledger.stored import Event


def correction_roots(by_id: Mapping[str, Event]) -> Callable[[str], str]:
    """``root(event_id)``: the first event of ``event_id``'s correction chain among the
    events ``by_id`` (every event known, retracted or not)."""
    events = list(by_id.values())
    if not any(e.type == "EventRetracted" for e in events):
        return _same
    batches: dict[tuple, list[Event]] = {}
    for e in events:
        batches.setdefault((e.deal, e.recorded_at), []).append(e)
    parent: dict[str, str] = {}
    for batch in batches.values():
        parent.update(_pairs(sorted(batch, key=lambda e: e.seq), by_id))
    if not parent:
        return _same

    def root(event_id: str) -> str:
        seen = {event_id}
        while event_id in parent and parent[event_id] not in seen:
            event_id = parent[event_id]
            seen.add(event_id)
        return event_id

    return root


def _pairs(batch: Iterable[Event], by_id: Mapping[str, Event]) -> dict[str, str]:
    """replacement id -> the id it replaces, within one batch."""
    open_: list[Event] = []   # retracted targets not yet replaced, in recorded order
    out: dict[str, str] = {}
    for e in batch:
        if e.type == "EventRetracted":
            target = by_id.get(e.data["event_id"])
            if target is not None:
                open_.append(target)
            continue
        found = next((t for t in open_ if t.type == e.type), None)
        if found is not None:
            open_.remove(found)
            out[e.id] = found.id
    return out


def _same(event_id: str) -> str:
    return event_id


def trigger_keys(prefix: str, triggers: Iterable[tuple[str, str]]) -> list[str]:
    """``prefix/group/trigger`` for each ``(group, trigger id)``; a second obligation of
    the same group and trigger (a default resumed after a permitted Suspension Period)
    gets ``/2``, and so on (``group`` empty: ``prefix/trigger``)."""
    seen: dict[tuple[str, str], int] = {}
    out = []
    for group, trigger in triggers:
        n = seen[(group, trigger)] = seen.get((group, trigger), 0) + 1
        head = f"{prefix}/{group}/{trigger}" if group else f"{prefix}/{trigger}"
        out.append(head if n == 1 else f"{head}/{n}")
    return out
