"""Day counts for Additional Interest (SPEC §2), each case worked by hand in the test.

30/360 US (SPEC §2): days = 360*(y2-y1) + 30*(m2-m1) + (d2-d1) after, in order:
  (1) d1 and d2 both the last day of February -> d2 = 30
  (2) d1 the last day of February             -> d1 = 30
  (3) d2 = 31 and d1 >= 30                    -> d2 = 30
  (4) d1 = 31                                 -> d1 = 30
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ledger.daycount import CONVENTIONS, day_count, days_30_360, year_fraction

ACT = ("ACT/360", "ACT/365F", "ACT/ACT-ISDA")


def d(text: str) -> date:
    return date.fromisoformat(text)


def cents(amount: Fraction) -> Decimal:
    """Round once, half-up, to the cent (SPEC §2)."""
    return (Decimal(amount.numerator) / Decimal(amount.denominator)).quantize(
        Decimal("0.01"), rounding=ROUND_HALF_UP)


# ------------------------------------------------------------------------- 30/360


@pytest.mark.parametrize("start, end, days, working", [
    # no adjustment
    ("2004-10-29", "2004-11-15", 16, "30*(11-10) + (15-29) = 30 - 14"),
    ("2005-04-15", "2005-04-20", 5, "0 + (20-15)"),
    ("2004-06-30", "2005-01-15", 195, "360*1 + 30*(1-6) + (15-30) = 360 - 150 - 15"),
    ("2004-01-15", "2004-03-31", 76, "d2 = 31 stays (d1 = 15 < 30): 30*2 + (31-15) = 60 + 16"),
    ("2008-02-28", "2008-03-31", 33, "Feb 28 is not the last day of Feb 2008 (leap year): "
                                     "d1 = 28, d2 = 31 stays: 30 + (31-28)"),
    ("2004-01-31", "2004-02-29", 29, "rule (4) only, the end being Feb-end does not count "
                                     "alone: d1 = 30, d2 = 29: 30 + (29-30)"),
    # rule (1) with (2): both last of February
    ("2007-02-28", "2008-02-29", 360, "d2 = 30 by (1), d1 = 30 by (2): 360 + 0 + 0"),
    ("2008-02-29", "2009-02-28", 360, "d2 = 30 by (1), d1 = 30 by (2): 360 + 0 + 0"),
    ("2004-02-29", "2005-02-28", 360, "d2 = 30 by (1), d1 = 30 by (2): 360"),
    ("2007-02-28", "2007-02-28", 0, "same day: d1 = d2 = 30"),
    # rule (2) alone, then (3) because d1 is now 30
    ("2007-02-28", "2007-08-31", 180, "d1 = 30 by (2); d2 = 31 and d1 >= 30 -> 30 by (3): 30*6 + 0"),
    ("2007-02-28", "2007-03-31", 30, "d1 = 30 by (2); d2 = 30 by (3): 30*1 + 0"),
    ("2007-02-28", "2007-03-15", 15, "d1 = 30 by (2): 30*1 + (15-30)"),
    ("2004-02-29", "2004-03-01", 1, "d1 = 30 by (2): 30*1 + (1-30)"),
    # rule (3) with (4)
    ("2004-01-31", "2004-03-31", 60, "d2 = 30 by (3) (d1 = 31 >= 30), d1 = 30 by (4): 30*2 + 0"),
    ("2004-04-30", "2004-05-31", 30, "d2 = 30 by (3) (d1 = 30): 30*1 + 0"),
    # rule (4) alone
    ("2004-03-31", "2004-04-15", 15, "d1 = 30 by (4): 30*1 + (15-30)"),
    ("2004-08-31", "2004-09-30", 30, "d1 = 30 by (4): 30*1 + (30-30)"),
])
def test_30_360_worked_by_hand(start, end, days, working):
    assert days_30_360(d(start), d(end)) == days, working
    assert day_count("30/360", d(start), d(end)) == days
    assert year_fraction("30/360", d(start), d(end)) == Fraction(days, 360)


def test_30_360_rule_order_matters():
    # If (3) were tried before (2), d1 would still be 28 when d2 = 31 is checked, and
    # 2007-02-28 -> 2007-08-31 would count 30*6 + (31-28) = 183, not 180.
    assert days_30_360(d("2007-02-28"), d("2007-08-31")) == 180


def test_spec_example_1_additional_interest():
    # SPEC §8 ex. 1: $60,000,000 at 0.25% from 2004-10-29 to 2004-11-15 exclusive.
    principal, rate = 60_000_000, Fraction(25, 10000)
    fraction = year_fraction("30/360", d("2004-10-29"), d("2004-11-15"))
    assert fraction == Fraction(16, 360)
    assert cents(principal * rate * fraction) == Decimal("6666.67")
    act = year_fraction("ACT/360", d("2004-10-29"), d("2004-11-15"))
    assert act == Fraction(17, 360)  # October 29, 30, 31 + November 1..14 = 3 + 14
    assert cents(principal * rate * act) == Decimal("7083.33")


def test_spec_example_2_suspension_default():
    # SPEC §8 ex. 2: accrual 2005-04-15 to 2005-04-20 exclusive: 5 days.
    fraction = year_fraction("30/360", d("2005-04-15"), d("2005-04-20"))
    assert cents(60_000_000 * Fraction(25, 10000) * fraction) == Decimal("2083.33")


# ------------------------------------------------------------------ ACT conventions


def test_act_360_counts_actual_days():
    assert day_count("ACT/360", d("2004-10-29"), d("2004-11-15")) == 17
    # a whole leap year: 366 actual days
    assert year_fraction("ACT/360", d("2004-01-01"), d("2005-01-01")) == Fraction(366, 360)


def test_act_365_fixed():
    assert year_fraction("ACT/365F", d("2004-01-01"), d("2005-01-01")) == Fraction(366, 365)
    assert year_fraction("ACT/365F", d("2005-01-01"), d("2006-01-01")) == 1
    # 2004-02-28 -> 2004-03-01 spans Feb 29: 2 actual days
    assert day_count("ACT/365F", d("2004-02-28"), d("2004-03-01")) == 2
    assert year_fraction("ACT/365F", d("2004-02-28"), d("2004-03-01")) == Fraction(2, 365)


def test_act_act_isda_across_a_year_end_into_a_leap_year():
    # 2003-11-01 -> 2004-01-01: November 30 + December 31 = 61 days of a 365-day year;
    # 2004-01-01 -> 2004-05-01: January 31 + February 29 + March 31 + April 30 = 121 days
    # of a 366-day year.
    assert year_fraction("ACT/ACT-ISDA", d("2003-11-01"), d("2004-05-01")) == (
        Fraction(61, 365) + Fraction(121, 366))
    assert day_count("ACT/ACT-ISDA", d("2003-11-01"), d("2004-05-01")) == 182


def test_act_act_isda_first_interest_period():
    # 2004-06-30 -> 2005-01-15: 2004 keeps June 30 + July..December = 1 + 184 = 185 days
    # (of 366); 2005 has January 1..14 = 14 days (of 365).
    assert year_fraction("ACT/ACT-ISDA", d("2004-06-30"), d("2005-01-15")) == (
        Fraction(185, 366) + Fraction(14, 365))


def test_act_act_isda_whole_years():
    assert year_fraction("ACT/ACT-ISDA", d("2004-01-01"), d("2005-01-01")) == 1
    assert year_fraction("ACT/ACT-ISDA", d("2003-01-01"), d("2006-01-01")) == 3
    # one day in a leap year and one in a common year
    assert year_fraction("ACT/ACT-ISDA", d("2004-12-31"), d("2005-01-02")) == (
        Fraction(1, 366) + Fraction(1, 365))


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_empty_period_is_zero(convention):
    assert year_fraction(convention, d("2004-11-15"), d("2004-11-15")) == 0
    assert day_count(convention, d("2004-11-15"), d("2004-11-15")) == 0


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_end_before_start_is_refused(convention):
    with pytest.raises(ValueError):
        year_fraction(convention, d("2004-11-15"), d("2004-10-29"))


@pytest.mark.parametrize("convention", ["30E/360", "ACT/365", "act/360", ""])
def test_unknown_convention_is_refused(convention):
    with pytest.raises(ValueError, match="unknown day count"):
        year_fraction(convention, d("2004-10-29"), d("2004-11-15"))
    with pytest.raises(ValueError, match="unknown day count"):
        day_count(convention, d("2004-10-29"), d("2004-11-15"))


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_fractions_are_exact(convention):
    assert isinstance(year_fraction(convention, d("2004-10-29"), d("2004-11-15")), Fraction)


# ------------------------------------------------------------------ properties

DAYS = st.dates(min_value=date(1990, 1, 1), max_value=date(2040, 12, 31))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ACT), DAYS, DAYS, DAYS)
def test_act_fractions_add_up_over_sub_periods(convention, x, y, z):
    # Additional Interest sums sub-periods [s, e) of one interest period (SPEC §4.4):
    # with an ACT convention splitting a period anywhere loses and gains nothing.
    a, b, c = sorted((x, y, z))
    assert year_fraction(convention, a, c) == (
        year_fraction(convention, a, b) + year_fraction(convention, b, c))


@settings(max_examples=300, deadline=None)
@given(DAYS, st.integers(min_value=0, max_value=4000))
def test_act_day_counts_are_calendar_days(start, length):
    end = start + timedelta(days=length)
    for convention in ACT:
        assert day_count(convention, start, end) == length
    assert year_fraction("ACT/360", start, end) == Fraction(length, 360)
    assert year_fraction("ACT/365F", start, end) == Fraction(length, 365)


@settings(max_examples=300, deadline=None)
@given(DAYS, DAYS)
def test_30_360_matches_the_formula_away_from_month_ends(x, y):
    # When neither date is the 31st or the end of February no rule applies, and the count
    # is the bare formula.
    a, b = sorted((x, y))
    def month_end(day):
        return (day + timedelta(days=1)).day == 1
    assume(not (month_end(a) or month_end(b)))
    assert days_30_360(a, b) == 360 * (b.year - a.year) + 30 * (b.month - a.month) + (b.day - a.day)
