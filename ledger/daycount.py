"""Day counts for Additional Interest (SPEC §2): 30/360 US, ACT/360, ACT/365F, ACT/ACT-ISDA.

Fractions are exact (``fractions.Fraction``) so that sums over sub-periods lose nothing
until a payment is formed and rounded once.
"""

from __future__ import annotations

import calendar as _cal
from datetime import date
from fractions import Fraction

CONVENTIONS = ("30/360", "ACT/360", "ACT/365F", "ACT/ACT-ISDA")


def _last_of_february(d: date) -> bool:
    return d.month == 2 and d.day == _cal.monthrange(d.year, 2)[1]


def days_30_360(start: date, end: date) -> int:
    """30/360 US, the adjustments applied in the order SPEC §2 gives them."""
    y1, m1, d1 = start.year, start.month, start.day
    y2, m2, d2 = end.year, end.month, end.day
    if _last_of_february(start) and _last_of_february(end):
        d2 = 30
    if _last_of_february(start):
        d1 = 30
    if d2 == 31 and d1 >= 30:
        d2 = 30
    if d1 == 31:
        d1 = 30
    return 360 * (y2 - y1) + 30 * (m2 - m1) + (d2 - d1)


def day_count(convention: str, start: date, end: date) -> int:
    """The number of days the convention counts in ``[start, end)``."""
    if convention == "30/360":
        return days_30_360(start, end)
    if convention in CONVENTIONS:
        return (end - start).days
    raise ValueError(f"unknown day count {convention!r}; known: {', '.join(CONVENTIONS)}")


def year_fraction(convention: str, start: date, end: date) -> Fraction:
    """The exact fraction of a year the convention gives to ``[start, end)``."""
    if end < start:
        raise ValueError("end before start")
    if convention == "30/360":
        return Fraction(days_30_360(start, end), 360)
    if convention == "ACT/360":
        return Fraction((end - start).days, 360)
    if convention == "ACT/365F":
        return Fraction((end - start).days, 365)
    if convention == "ACT/ACT-ISDA":
        total = Fraction(0)
        cursor = start
        while cursor < end:
            year_end = date(cursor.year + 1, 1, 1)
            stop = min(end, year_end)
            length = 366 if _cal.isleap(cursor.year) else 365
            total += Fraction((stop - cursor).days, length)
            cursor = stop
        return total
    raise ValueError(f"unknown day count {convention!r}; known: {', '.join(CONVENTIONS)}")
