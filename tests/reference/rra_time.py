"""Time for the RRA reference model, written again (no ``ledger.calendar``,
``ledger.daycount``): the Business Day calendar (RRA §1; SPEC §2: the Fed schedule from
``holidays.financial_holidays("XFED")`` plus the overrides known), 30/360 US, and a day's
share of a year under each day count, day by day (see ``rra_model``'s docstring)."""

from __future__ import annotations

import calendar as _calendar
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

import holidays

ONE = timedelta(days=1)

# ----------------------------------------------------------------------- small things

def day_of(value: Any) -> date:
    return value if isinstance(value, date) else date.fromisoformat(value)


def money(value: Any) -> Decimal:
    return Decimal(str(value))


def anniversary(start: date, years: int) -> date:
    try:
        return start.replace(year=start.year + years)
    except ValueError:  # 29 February
        return start.replace(year=start.year + years, day=28)


def days360(start: date, end: date) -> int:
    """30/360 US as SPEC §2 writes it, the adjustments in its order."""
    def last_of_feb(d: date) -> bool:
        return d.month == 2 and d.day == _calendar.monthrange(d.year, 2)[1]
    d1, d2 = start.day, end.day
    if last_of_feb(start) and last_of_feb(end):
        d2 = 30
    if last_of_feb(start):
        d1 = 30
    if d2 == 31 and d1 >= 30:
        d2 = 30
    if d1 == 31:
        d1 = 30
    return 360 * (end.year - start.year) + 30 * (end.month - start.month) + (d2 - d1)


def day_fraction(convention: str, run_start: date, day: date) -> Fraction:
    """The part of a year ``convention`` gives to ``day`` inside a run of constant rate
    and principal that began on ``run_start`` (see the module docstring)."""
    if convention == "30/360":
        return Fraction(days360(run_start, day + ONE) - days360(run_start, day), 360)
    if convention == "ACT/360":
        return Fraction(1, 360)
    if convention == "ACT/365F":
        return Fraction(1, 365)
    if convention == "ACT/ACT-ISDA":
        return Fraction(1, 366 if _calendar.isleap(day.year) else 365)
    raise ValueError(convention)


def half_up(amount: Fraction) -> Decimal:
    """SPEC §2: one rounding, half-up, to the cent."""
    return (Decimal(amount.numerator) / Decimal(amount.denominator)).quantize(
        Decimal("0.01"), ROUND_HALF_UP) if amount else Decimal("0.00")


@lru_cache(maxsize=None)
def fed_holidays(year: int) -> frozenset[date]:
    return frozenset(holidays.financial_holidays("XFED", years=year))


@dataclass
class Calendar:
    """RRA §1 Business Day: the Fed schedule plus the overrides known (SPEC §2)."""

    overrides: dict[date, bool]

    def is_business_day(self, d: date) -> bool:
        if d in self.overrides:
            return self.overrides[d]
        return d.weekday() < 5 and d not in fed_holidays(d.year)

    def business_days_after(self, d: date, n: int) -> date:
        """The ``n``-th Business Day after ``d``."""
        while n:
            d += ONE
            if self.is_business_day(d):
                n -= 1
        return d

    def roll(self, d: date) -> date:
        while not self.is_business_day(d):
            d += ONE
        return d
