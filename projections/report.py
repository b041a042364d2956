"""The report (SPEC §7): one JSON object for a deal as of a date, as known at a time.

``report`` is a pure function of the deal's events and its arguments; the kind-specific
parts come from ``projections.registration`` and ``projections.trueup``.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Collection, Iterable, Mapping

from ledger.collector import paused
from ledger.stored import REGISTRATION_RIGHTS, Event, format_timestamp

from .interpretations import resolve
from .timeline import Timeline, build_timeline, pinned_readings


def kind_report(timeline: Timeline, interpretations: Mapping[str, str],
                bases: bool = True, sections: Collection[str] | None = None) -> dict[str, Any]:
    if timeline.kind == REGISTRATION_RIGHTS:
        from .registration.report import build

        return build(timeline, interpretations, bases=bases, sections=sections)
    from .trueup.report import build

    part = build(timeline, interpretations)
    return part if sections is None else {k: v for k, v in part.items() if k in sections}


def report(events: Iterable[Event], *, as_of: date, known_at: datetime | None = None,
           interpretations: Mapping[str, str] | None = None,
           bases: bool = True, sections: Collection[str] | None = None) -> dict[str, Any]:
    """The SPEC §7 object for one deal's events. ``bases=False`` leaves out the
    explanation of each Holder's amount per payment date (``basis: {}``), which costs as
    much as the amounts themselves, for callers that compare or tabulate figures only
    (what-if diffs, SQL views); everything else is the same. ``sections`` names the
    kind's top-level keys to make (the SQL views make only those their tables read); the
    others are left out, and the head (deal, kind, as_of, ...) is always there."""
    with paused():   # 40,000 Holder amounts in a 1,000-Holder deal: ledger.collector
        return _report(events, as_of, known_at, interpretations, bases, sections)


def _report(events: Iterable[Event], as_of: date, known_at: datetime | None,
            interpretations: Mapping[str, str] | None, bases: bool,
            sections: Collection[str] | None = None) -> dict[str, Any]:
    resolve(interpretations)   # an unknown name or value fails before any reading
    timeline = build_timeline(events, as_of, known_at)
    in_force = resolve(interpretations, pinned_readings(timeline))
    head = {
        "deal": timeline.deal,
        "kind": timeline.kind,
        "as_of": as_of.isoformat(),
        "known_at": format_timestamp(known_at) if known_at else None,
        "interpretations": in_force,
    }
    return {**head, **kind_report(timeline, in_force, bases, sections)}
