"""The deal's events as a computation sees them (SPEC §1).

``known_at`` keeps the events recorded at or before it, with the retractions recorded at
or before it; ``as_of`` keeps the events dated on or before it. What is left is ordered
by ``(date, seq)``. The calendar is the Fed schedule plus the overrides known at
``known_at`` (SPEC §2), whatever their date: ``as_of`` does not filter them.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import date, datetime
from functools import cached_property
from itertools import chain
from operator import attrgetter
from typing import Any, Callable, Iterable, Iterator, Mapping, TypeVar

from ledger.calendar import BusinessCalendar, Override
from ledger.stored import Event

T = TypeVar("T")


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
        """The events of ``types``, in timeline order: what ``[e for e in events if e.type
        in types]`` gives, from an index by type made once (a projection that reads a few
        kinds of events then skips the thousands of others)."""
        index = self._by_type
        found = [index[t] for t in dict.fromkeys(types) if t in index]
        if not found:
            return []
        positions = found[0] if len(found) == 1 else sorted(chain.from_iterable(found))
        return list(map(self.events.__getitem__, positions))

    @cached_property
    def _by_type(self) -> dict[str, list[int]]:
        """Event type -> the positions in ``events`` of the events of that type."""
        out: dict[str, list[int]] = {}
        for i, kind in enumerate(map(_TYPE, self.events)):
            found = out.get(kind)
            if found is None:
                out[kind] = [i]
            else:
                found.append(i)
        return out


#: The event types a timeline reads whatever their date (``build_timeline``; ``as_of``
#: filters every other): the deal's opening, the calendar's overrides (SPEC §2: a closure
#: is a fact about its ``day``, not the day it was declared) and retractions. What decides
#: whether a new event can change a report as of a day (``history``, ``views``): a review
#: of stop 19 found both skipping a closure recorded, and dated, after ``as_of``.
READ_ANY_DATE = frozenset(("DealOpened", "CalendarDayDeclared", "EventRetracted",
                           "EventReinstated"))

#: The events that say which other events count (SPEC §3.1; issue 31: a retraction made
#: in error is withdrawn by an ``EventReinstated``): never facts of the deal themselves.
CORRECTIONS = frozenset(("EventRetracted", "EventReinstated"))


_PARSED: dict[tuple[Callable[..., Any], str], Any] = {}


def parsed_terms(raw: Mapping[str, Any], parse: Callable[[dict[str, Any]], T]) -> T:
    """``parse(dict(raw))`` of a deal's ``DealOpened`` terms (``ledger.terms``), remembered
    by the terms' text: the parsed terms are frozen models, every report of a deal parses
    the same terms, and a portfolio's deals mostly share their template's (validating
    them was a twentieth of an agenda line)."""
    key = (parse, repr(raw))
    found = _PARSED.get(key)
    if found is None:
        if len(_PARSED) >= 1024:   # bounded, for a long-lived process
            _PARSED.clear()
        found = _PARSED[key] = parse(dict(raw))
    return found


def retracted_ids(events: Iterable[Event]) -> frozenset[str]:
    """The events that do not count: the targets of the retractions that count, and
    the retractions withdrawn by an ``EventReinstated`` (a retraction withdrawn, or
    retracted in a ledger written before reinstatements, takes nothing out). Read
    latest first: a correction only names an earlier-recorded event, so by the time it
    is reached, whether it was itself withdrawn is known."""
    corrections = sorted((e for e in events if e.type in CORRECTIONS),
                         key=lambda e: e.seq, reverse=True)
    out: set[str] = set()
    for r in corrections:
        if r.id not in out:
            out.add(r.data["event_id"] if r.type == "EventRetracted"
                    else r.data["retraction_id"])
    return frozenset(out)


class _ById(Mapping[str, Event]):
    """``{id: event}`` of the events known, made on first use (a report never asks)."""

    __slots__ = ("_events", "_table")

    def __init__(self, events: list[Event]) -> None:
        self._events = events
        self._table: dict[str, Event] | None = None

    def _index(self) -> dict[str, Event]:
        if self._table is None:
            self._table = {e.id: e for e in self._events}
        return self._table

    def __getitem__(self, event_id: str) -> Event:
        return self._index()[event_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._index())

    def __len__(self) -> int:
        return len(self._index())

    def __repr__(self) -> str:
        return repr(self._index())


_TYPE = attrgetter("type")
_SEQ = attrgetter("seq")
_DATE = attrgetter("date")


def build_timeline(events: Iterable[Event], as_of: date,
                   known_at: datetime | None = None) -> Timeline:
    """Filter and order one deal's events; ``ValueError`` if the deal was never opened."""
    known = (list(events) if known_at is None
             else [e for e in events if e.recorded_at <= known_at])
    types = set(map(_TYPE, known))
    if "EventRetracted" in types:
        retracted = retracted_ids(known)
        live = [e for e in known if e.id not in retracted and e.type not in CORRECTIONS]
    else:   # nothing retracted: every event known is live (``known`` is our own list)
        retracted, live = frozenset(), known
    # (date, seq): by seq, then stably by date (two sorts on plain keys cost less than one
    # on (date, seq) tuples, and a deal read in log order is sorted by seq already)
    live.sort(key=_SEQ)
    live.sort(key=_DATE)
    opened = next((e for e in live if e.type == "DealOpened"), None)
    if opened is None:
        raise ValueError("the deal has no DealOpened event known at that time")
    dated = tuple(live[:bisect_right(live, as_of, key=_DATE)])   # dated <= as_of
    # SPEC §2: "the base calendar plus the overrides known at known_at", whatever the
    # override event's own date: a closure declared on 03-20 for 03-10 counts for a
    # deadline judged as of 03-16 (the calendar is a fact about 03-10, not about 03-20).
    calendar = BusinessCalendar.from_overrides(
        [Override(e.data["day"], e.data["business_day"], e.data["reason"], e.id)
         for e in live if e.type == "CalendarDayDeclared"]
        if "CalendarDayDeclared" in types else [])
    return Timeline(deal=opened.deal, kind=opened.data["kind"], terms=opened.data["terms"],
                    opened=opened, events=dated, as_of=as_of, known_at=known_at,
                    calendar=calendar, retracted=retracted, by_id=_ById(known))
