"""Business days (RRA §1 "Business Day"; SPEC §2).

"A day other than a Saturday or Sunday or any day on which banking institutions in New
York City are authorized or obligated by law or executive order to close." The base is
the Federal Reserve's holiday schedule (``holidays.financial_holidays("XFED")``), to
which ``CalendarDayDeclared`` events add operator overrides. Every closed day can say
why: a weekend, the holiday's name, or the override event.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from typing import Iterable, Mapping

CLAUSE = "RRA §1 Business Day"


@lru_cache(maxsize=256)
def _fed_holidays(year: int) -> Mapping[date, str]:
    from . import fedholidays  # the library's table, precomputed (checked by the tests)

    if fedholidays.FIRST_YEAR <= year <= fedholidays.LAST_YEAR:
        return fedholidays.year(year)
    import holidays  # imported lazily: `deal-ledger --help` must not pay for it

    return dict(holidays.financial_holidays("XFED", years=year))


@dataclass(frozen=True)
class Override:
    day: date
    business_day: bool
    reason: str
    event_id: str | None = None


@dataclass(frozen=True)
class BusinessCalendar:
    """The Fed calendar plus overrides; immutable, so safe to share between projections."""

    overrides: Mapping[date, Override] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # (start, n) -> add_business_days(start, n): a pure function of the calendar,
        # asked again and again (every notice by mail, every deadline, every deal of a
        # portfolio on the Fed calendar); not a field: equality and repr ignore it
        object.__setattr__(self, "_added", {})

    @classmethod
    def from_overrides(cls, overrides: Iterable[Override]) -> "BusinessCalendar":
        """Later overrides of the same day win (pass them in (date, seq) order). With no
        overrides, the Fed calendar itself (``FED``, equal to a new one, and sharing what
        it has already worked out)."""
        table: dict[date, Override] = {}
        for o in overrides:
            table[o.day] = o
        return cls(table) if table else FED

    def closed_reason(self, day: date) -> str | None:
        """Why ``day`` is not a Business Day, or ``None`` if it is one."""
        o = self.overrides.get(day)
        if o is not None:
            if o.business_day:
                return None
            ref = f" (event {o.event_id})" if o.event_id else ""
            return f"declared closed: {o.reason}{ref}"
        if day.weekday() >= 5:
            return "Saturday" if day.weekday() == 5 else "Sunday"
        name = _fed_holidays(day.year).get(day)
        if name:
            return f"Federal Reserve holiday: {name}"
        return None

    def is_business_day(self, day: date) -> bool:
        """``closed_reason(day) is None``, without writing the reason (deadlines step
        through thousands of days)."""
        o = self.overrides.get(day)
        if o is not None:
            return o.business_day
        return day.weekday() < 5 and day not in _fed_holidays(day.year)

    def add_business_days(self, start: date, n: int) -> date:
        """The ``n``-th Business Day after ``start`` (``start`` itself never counts)."""
        if n < 0:
            raise ValueError("n must not be negative")
        added: dict[tuple[date, int], date] = self._added  # type: ignore[attr-defined]
        found = added.get((start, n))
        if found is None:
            if len(added) >= 200_000:   # bounded, for a long-lived process
                added.clear()
            found = added[(start, n)] = self._add_business_days(start, n)
        return found

    def _add_business_days(self, start: date, n: int) -> date:
        day = start
        count = 0
        while count < n:
            day += timedelta(days=1)
            if self.is_business_day(day):
                count += 1
        return day

    def roll_forward(self, day: date) -> date:
        """``day`` if a Business Day, else the next Business Day (payment dates)."""
        while not self.is_business_day(day):
            day += timedelta(days=1)
        return day

    def next_business_day(self, day: date) -> date:
        """The first Business Day strictly after ``day`` (courier notices, RRA §10(E))."""
        return self.add_business_days(day, 1)


FED = BusinessCalendar()
