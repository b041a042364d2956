"""Restatements: the figures of a report that changed between two states of knowledge of
the ledger, with the events that moved each one (SPEC §1: a report as known at a time).

A state of knowledge (``Knowledge``) is the events up to a seq (a checkpoint's size, a
pack's head) recorded by a time (``known_at``). ``restatements(events, as_of=...,
before=..., after=...)`` computes the report as of ``as_of`` from what each state knew
and lists every figure (``projections.figures``: the report's leaves, provenance left
out) whose value differs, old -> new, with its clause; and, replaying the events the
later state knows and the earlier did not, one recording moment at a time (a batch is
one moment), the moments that moved it and their events. A moment that records only
events dated after ``as_of`` (and no retraction) cannot move a figure and is skipped,
as ``projections.history`` skips it. Pure: the events are given, nothing reads the clock.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Iterable, Mapping, Sequence

from ledger import proofs
from ledger.stored import Event, format_timestamp, parse_timestamp

from .explain import explain
from .figures import ABSENT, FigureError, figure_paths
from .history import moments
from .interpretations import resolve
from .report import report
from .timeline import READ_ANY_DATE, retracted_ids

#: The report's own labels, not figures: they differ between any two reports.
LABELS = ("deal", "kind", "as_of", "known_at", "interpretations")


@dataclass(frozen=True)
class Knowledge:
    """What the ledger knew: its events up to ``seq`` (``None``: all) recorded by
    ``known_at`` (``None``: whenever)."""

    seq: int | None = None
    known_at: datetime | None = None

    def holds(self, e: Event) -> bool:
        return (self.seq is None or e.seq <= self.seq) and (
            self.known_at is None or e.recorded_at <= self.known_at)


def _figures(events: Sequence[Event], as_of: date, known_at: datetime | None,
             in_force: Mapping[str, str]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The report from ``events`` and its figures by path (none before the deal opens)."""
    retracted = retracted_ids(events)
    if not any(e.type == "DealOpened" and e.id not in retracted for e in events):
        return None, {}
    made = report(list(events), as_of=as_of, known_at=known_at, interpretations=in_force)
    figures = figure_paths({k: v for k, v in made.items() if k not in LABELS})
    return made, figures


def _brief(e: Event) -> dict[str, Any]:
    return {"id": e.id, "seq": e.seq, "type": e.type, "date": e.date.isoformat(),
            "recorded_at": format_timestamp(e.recorded_at), "recorded_by": e.recorded_by,
            "source": e.source,
            **({"retracts": e.data["event_id"]} if e.type == "EventRetracted" else {})}


def _clause(made: Mapping[str, Any] | None, path: str, events: Iterable[Event]) -> str | None:
    if made is None:
        return None
    try:
        return explain(made, path, list(events), depth=0)["explanation"].get("clause")
    except (FigureError, KeyError, TypeError, ValueError):
        return None


def restatements(events: Sequence[Event], *, as_of: date, before: Knowledge,
                 after: Knowledge, interpretations: Mapping[str, str] | None = None
                 ) -> dict[str, Any]:
    """Every figure of the report as of ``as_of`` that ``after`` knows otherwise than
    ``before`` did (module doc)."""
    in_force = resolve(interpretations)
    old_events = [e for e in events if before.holds(e)]
    new_events = [e for e in events if after.holds(e)]
    old_report, old = _figures(old_events, as_of, before.known_at, in_force)
    new_report, new = _figures(new_events, as_of, after.known_at, in_force)
    changed = sorted(p for p in {*old, *new} if old.get(p, ABSENT) != new.get(p, ABSENT))
    added = [e for e in new_events if not before.holds(e)]
    movers: dict[str, list[dict[str, Any]]] = {p: [] for p in changed}
    if changed:
        known = list(old_events)
        last = old
        for moment, batch in moments(added):
            known.extend(batch)
            if not any(e.date <= as_of or e.type in READ_ANY_DATE
                       or e.type == "EventRetracted" for e in batch):
                continue
            _, now = _figures(known, as_of, moment, in_force)
            for path in changed:
                if now.get(path, ABSENT) != last.get(path, ABSENT):
                    movers[path].append({"known_at": format_timestamp(moment),
                                         "before": _value(last.get(path, ABSENT)),
                                         "after": _value(now.get(path, ABSENT)),
                                         "events": [_brief(e) for e in batch]})
            last = now
    restated = []
    for path, paths in _entries(changed, old, new).items():
        was, now = _whole(old, path, paths), _whole(new, path, paths)
        restated.append({
            "figure": path,
            "status": "appeared" if was is ABSENT else "disappeared" if now is ABSENT
            else "changed",
            "before": _value(was), "after": _value(now),
            "clause": _clause(new_report if now is not ABSENT else old_report, path,
                              new_events if now is not ABSENT else old_events)
            or _own_clause(new if now is not ABSENT else old, path),
            "moved_by": _merged(movers, paths)})
    either = new_events or old_events
    return {"deal": either[0].deal if either else None, "as_of": as_of.isoformat(), "interpretations": in_force,
            "before": _knowledge(before, old_events), "after": _knowledge(after, new_events),
            "events_between": len(added), "restated": restated}


def _own_clause(figures: Mapping[str, Any], path: str) -> str | None:
    """The clause a list entry names of itself (an obligation's ``clause``), for a
    figure with no explanation of its own."""
    entries = list(_prefixes(path))
    clause = figures.get(entries[-1] + ".clause") if entries else None
    return clause if isinstance(clause, str) else None


def _prefixes(path: str) -> Iterable[str]:
    """The list entries a figure's path passes through (each prefix ending at ``]``)."""
    at = path.find("]")
    while at >= 0:
        yield path[:at + 1]
        at = path.find("]", at + 1)


def _entries(changed: list[str], old: Mapping[str, Any], new: Mapping[str, Any]
             ) -> dict[str, list[str]]:
    """The changed figures by what changed: a figure of a list entry that one side has
    and the other lacks altogether is reported with its entry (a Registration Default
    that appeared is one restatement, not one per field), every other figure alone."""
    held = {side: {p for path in figures for p in _prefixes(path)}
            for side, figures in (("old", old), ("new", new))}
    out: dict[str, list[str]] = {}
    for path in changed:
        key = path
        if path not in old or path not in new:
            other = held["new" if path not in new else "old"]
            key = next((p for p in _prefixes(path) if p not in other), path)
        out.setdefault(key, []).append(path)
    return out


def _whole(figures: Mapping[str, Any], key: str, paths: list[str]) -> Any:
    """The value of ``key`` on one side: a figure's, or an entry's figures by their path
    within it (``ABSENT`` if it has none)."""
    if paths == [key]:
        return figures.get(key, ABSENT)
    found = {p[len(key):].lstrip("."): figures[p] for p in paths if p in figures}
    return found or ABSENT


def _merged(movers: Mapping[str, list[dict[str, Any]]], paths: list[str]
            ) -> list[dict[str, Any]]:
    """The moments that moved any of ``paths``, once each, in order (their before and
    after are the figure's own where ``paths`` is one figure)."""
    if len(paths) == 1:
        return movers[paths[0]]
    seen: dict[str, dict[str, Any]] = {}
    for path in paths:
        for moved in movers[path]:
            seen.setdefault(moved["known_at"], {"known_at": moved["known_at"],
                                                "events": moved["events"]})
    return [seen[k] for k in sorted(seen)]


def _value(value: Any) -> Any:
    return None if value is ABSENT else value


def _knowledge(k: Knowledge, events: Sequence[Event]) -> dict[str, Any]:
    return {"seq": k.seq, "known_at": format_timestamp(k.known_at) if k.known_at else None,
            "events": len(events), "last_seq": events[-1].seq if events else None}


# ------------------------------------------------------- an auditor pack's section


def pack_section(records: Sequence[Mapping[str, Any]], previous: Mapping[str, Any],
                 head_seq: int, known_at: datetime | None) -> dict[str, Any]:
    """``restatements.json`` of a pack: its figures as of the previous pack's day, as the
    previous pack knew them and as this one does (a pure function of the pack's events
    and ``previous``, so that ``verify --pack`` recomputes it)."""
    events = [Event.from_record(r) for r in records]
    before_known = parse_timestamp(previous["known_at"]) if previous.get("known_at") else None
    result = restatements(events, as_of=date.fromisoformat(previous["as_of"]),
                          before=Knowledge(previous["head_seq"], before_known),
                          after=Knowledge(head_seq, known_at),
                          interpretations=previous["interpretations"])
    return {"previous": dict(previous), **result}


def check_previous(data: bytes, head: Mapping[str, Any]) -> dict[str, Any] | str:
    """The ``previous`` a pack's ``restatements.json`` was made from (to make it again:
    ``verify --pack``), or what is wrong with it: its consistency proof from the
    previous head to this pack's must check against the two roots it names."""
    try:
        previous = json.loads(data)["previous"]
        c = previous["consistency"]
        ok = (c["from_size"] == previous["head_seq"] and c["to_size"] == head["seq"])
        why = proofs.verify_consistency(c["from_size"], c["to_size"],
                                        bytes.fromhex(c["from_root"]),
                                        bytes.fromhex(c["to_root"]),
                                        [bytes.fromhex(p) for p in c["proof"]])
    except (ValueError, KeyError, TypeError):
        return "is not a restatements document with its previous pack"
    if not ok:
        return "its consistency proof is not from the previous pack's head to this one's"
    if why is not None:
        return f"its consistency proof does not check: {why}"
    return previous
