"""Calendar arithmetic the contract uses (SPEC §1).

"Within N days after X" and "N days after the date hereof" count calendar days from the
day after X; Business Days are the deal calendar's (``ledger.calendar``).
"""

from __future__ import annotations

from datetime import date, timedelta

ONE_DAY = timedelta(days=1)


def days_after(start: date, n: int) -> date:
    """SPEC §1: "15 days after 2004-06-30 is 2004-07-15"."""
    return start + timedelta(days=n)


def anniversary(start: date, years: int) -> date:
    """The ``years``-th anniversary of ``start`` (a 29 February falls on 28 February)."""
    try:
        return start.replace(year=start.year + years)
    except ValueError:
        return start.replace(year=start.year + years, day=28)


def span_days(start: date, end: date) -> int:
    """Calendar days in ``[start, end)``; zero when empty."""
    return max(0, (end - start).days)


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st ..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


ORDINAL_WORDS = ("zeroth", "first", "second", "third", "fourth", "fifth", "sixth",
                 "seventh", "eighth", "ninth", "tenth")


def ordinal_word(n: int) -> str:
    """first, second ... tenth, then 11th, 12th ..."""
    return ORDINAL_WORDS[n] if 0 <= n < len(ORDINAL_WORDS) else ordinal(n)


def unit_words(unit: str) -> str:
    """How a period's unit is written: ``days`` or ``Business Days``."""
    return "Business Days" if unit == "business" else "days"


def after(start: date, count: int, unit: str, calendar, roll: str = "none") -> date:
    """The day ``count`` days (``unit``: ``calendar`` or ``business``) after ``start``,
    moved to the next Business Day if ``roll`` is ``following`` and it is not one."""
    day = (calendar.add_business_days(start, count) if unit == "business"
           else days_after(start, count))
    return calendar.roll_forward(day) if roll == "following" else day


NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                "nine", "ten")


def number_word(n: int) -> str:
    """one, two ... ten, then 11, 12 ... (as the agreements write small numbers)."""
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)
