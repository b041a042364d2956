"""The deal's events as a computation sees them (SPEC §1).

``known_at`` keeps the events recorded at or before it, with the retractions recorded at
or before it; ``as_of`` keeps the events dated on or before it. What is left is ordered
by ``(date, seq)``. The calendar is the Fed schedule plus the overrides that remain.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Iterable, Mapping

from ledger.calendar import BusinessCalendar, Override
from ledger.events import Event


@dataclass(frozen=True)
class Timeline:
    deal: str
    kind: str
    terms: Mapping[str, Any]
    opened: Event
    events: tuple[Event, ...]          # live, dated <= as_of, ordered by (date, seq)
    as_of: date
    known_at: datetime | None
    calendar: BusinessCalendar
    retracted: frozenset[str]          # ids retracted as known at known_at
    by_id: Mapping[str, Event]         # every event known at known_at, retracted or not

    def of_type(self, *types: str) -> list[Event]:
        return [e for e in self.events if e.type in types]


def retracted_ids(events: Iterable[Event]) -> frozenset[str]:
    """Targets of effective retractions; a retraction that is itself retracted has none."""
    retractions = sorted((e for e in events if e.type == "EventRetracted"),
                         key=lambda e: e.seq, reverse=True)
    out: set[str] = set()
    for r in retractions:  # a retraction only targets an earlier-recorded event
        if r.id not in out:
            out.add(r.data["event_id"])
    return frozenset(out)


def build_timeline(events: Iterable[Event], as_of: date,
                   known_at: datetime | None = None) -> Timeline:
    """Filter and order one deal's events; ``ValueError`` if the deal was never opened."""
    known = [e for e in events if known_at is None or e.recorded_at <= known_at]
    retracted = retracted_ids(known)
    live = sorted((e for e in known if e.id not in retracted and e.type != "EventRetracted"),
                  key=lambda e: (e.date, e.seq))
    opened = next((e for e in live if e.type == "DealOpened"), None)
    if opened is None:
        raise ValueError("the deal has no DealOpened event known at that time")
    dated = tuple(e for e in live if e.date <= as_of)
    calendar = BusinessCalendar.from_overrides(
        Override(e.data["day"], e.data["business_day"], e.data["reason"], e.id)
        for e in dated if e.type == "CalendarDayDeclared")
    return Timeline(deal=opened.deal, kind=opened.data["kind"], terms=opened.data["terms"],
                    opened=opened, events=dated, as_of=as_of, known_at=known_at,
                    calendar=calendar, retracted=retracted,
                    by_id={e.id: e for e in known})
