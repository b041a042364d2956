"""The report (SPEC §7): one JSON object for a deal as of a date, as known at a time.

``report`` is a pure function of the deal's events and its arguments; the kind-specific
parts come from ``projections.registration`` and ``projections.trueup``.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Iterable, Mapping

from ledger.events import REGISTRATION_RIGHTS, Event, format_timestamp

from .interpretations import resolve
from .timeline import Timeline, build_timeline


def kind_report(timeline: Timeline, interpretations: Mapping[str, str]) -> dict[str, Any]:
    if timeline.kind == REGISTRATION_RIGHTS:
        from .registration.report import build
    else:
        from .trueup.report import build
    return build(timeline, interpretations)


def report(events: Iterable[Event], *, as_of: date, known_at: datetime | None = None,
           interpretations: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The SPEC §7 object for one deal's events."""
    in_force = resolve(interpretations)
    timeline = build_timeline(events, as_of, known_at)
    head = {
        "deal": timeline.deal,
        "kind": timeline.kind,
        "as_of": as_of.isoformat(),
        "known_at": format_timestamp(known_at) if known_at else None,
        "interpretations": in_force,
    }
    return {**head, **kind_report(timeline, in_force)}
