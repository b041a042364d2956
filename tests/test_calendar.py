"""Business days (RRA §1 "Business Day"; SPEC §2) on real dates.

In the manner of python-holidays' tests, every fact below is a real date, checked by
hand against the Federal Reserve's published holiday schedule (and the ``holidays``
package's XFED calendar) and a printed calendar: the weekday of each date is asserted
beside it so that a slip in the list shows up as a failing fact, not a wrong deadline.
"""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from ledger.calendar import FED, BusinessCalendar, Override

MON, TUE, WED, THU, FRI, SAT, SUN = range(7)


def d(text: str) -> date:
    return date.fromisoformat(text)


def weekday_of(text: str, weekday: int) -> date:
    day = d(text)
    assert day.weekday() == weekday, f"{text} is not the weekday the test says"
    return day


# --------------------------------------------------------------- SPEC §8 example 3


def test_twenty_business_days_after_2004_11_10():
    # Nov 11 (Thu, Veterans Day) and Nov 25 (Thu, Thanksgiving) are skipped:
    # Nov 12 = 1, 15-19 = 2..6, 22-24 = 7..9, 26 = 10, 29-30 = 11..12,
    # Dec 1-3 = 13..15, Dec 6-10 = 16..20.
    start = weekday_of("2004-11-10", WED)
    assert FED.add_business_days(start, 20) == weekday_of("2004-12-10", FRI)


def test_twenty_business_days_listed_one_by_one():
    expected = ["2004-11-12", "2004-11-15", "2004-11-16", "2004-11-17", "2004-11-18",
                "2004-11-19", "2004-11-22", "2004-11-23", "2004-11-24", "2004-11-26",
                "2004-11-29", "2004-11-30", "2004-12-01", "2004-12-02", "2004-12-03",
                "2004-12-06", "2004-12-07", "2004-12-08", "2004-12-09", "2004-12-10"]
    got = [FED.add_business_days(d("2004-11-10"), n).isoformat() for n in range(1, 21)]
    assert got == expected


def test_one_business_day_after_2005_01_14():
    # Sat 15, Sun 16, Mon 17 (Martin Luther King, Jr. Day) are not Business Days.
    start = weekday_of("2005-01-14", FRI)
    assert FED.add_business_days(start, 1) == weekday_of("2005-01-18", TUE)
    assert FED.next_business_day(start) == d("2005-01-18")


# ------------------------------------------------------------ the Fed's schedule


# (date, weekday, holiday-name fragment): weekdays the Fed is closed.
CLOSED = [
    ("2004-01-01", THU, "New Year"),
    ("2004-01-19", MON, "Martin Luther King"),
    ("2004-02-16", MON, "Washington"),
    ("2004-05-31", MON, "Memorial"),
    ("2004-07-05", MON, "Independence"),      # July 4, 2004 was a Sunday
    ("2004-09-06", MON, "Labor"),
    ("2004-10-11", MON, "Columbus"),          # open on NYSE, closed at the Fed
    ("2004-11-11", THU, "Veterans"),          # open on NYSE, closed at the Fed
    ("2004-11-25", THU, "Thanksgiving"),
    ("2005-01-17", MON, "Martin Luther King"),
    ("2005-02-21", MON, "Washington"),
    ("2005-05-30", MON, "Memorial"),
    ("2005-07-04", MON, "Independence"),
    ("2005-09-05", MON, "Labor"),
    ("2005-10-10", MON, "Columbus"),
    ("2005-11-11", FRI, "Veterans"),
    ("2005-11-24", THU, "Thanksgiving"),
    ("2005-12-26", MON, "Christmas"),         # Christmas 2005 was a Sunday
    ("2006-01-02", MON, "New Year"),          # New Year's Day 2006 was a Sunday
    ("2012-11-12", MON, "Veterans"),          # November 11, 2012 was a Sunday
    ("2017-01-02", MON, "New Year"),
    ("2022-06-20", MON, "Juneteenth"),        # June 19, 2022 was a Sunday
    ("2023-06-19", MON, "Juneteenth"),
    ("2025-06-19", THU, "Juneteenth"),
]

# (date, weekday, why it might look closed): weekdays that are Business Days.
OPEN = [
    ("2004-12-24", FRI, "Christmas 2004 was a Saturday: the Fed does not move it to Friday"),
    ("2004-12-31", FRI, "New Year's Day 2005 was a Saturday"),
    ("2010-12-31", FRI, "New Year's Day 2011 was a Saturday"),
    ("2021-12-24", FRI, "Christmas 2021 was a Saturday"),
    ("2021-12-31", FRI, "New Year's Day 2022 was a Saturday"),
    ("2023-11-10", FRI, "Veterans Day 2023 was a Saturday"),
    ("2020-07-03", FRI, "Independence Day 2020 was a Saturday"),
    ("2021-06-18", FRI, "Juneteenth 2021 (a Saturday), before the Fed observed it"),
    ("2021-06-21", MON, "the Monday after Juneteenth 2021"),
    ("2020-06-19", FRI, "Juneteenth before it was a federal holiday"),
    ("2005-03-25", FRI, "Good Friday: NYSE closed, banks open"),
    ("2004-04-09", FRI, "Good Friday 2004"),
    ("2004-06-11", FRI, "day of mourning for President Reagan: markets closed"),
    ("2007-01-02", TUE, "day of mourning for President Ford: markets closed"),
    ("2018-12-05", WED, "day of mourning for President G. H. W. Bush: markets closed"),
    ("2025-01-09", THU, "day of mourning for President Carter: markets closed"),
    ("2012-10-29", MON, "Hurricane Sandy: markets closed"),
    ("2012-10-30", TUE, "Hurricane Sandy: markets closed"),
    ("2004-11-26", FRI, "the day after Thanksgiving"),
    ("2005-01-18", TUE, "the day after MLK Day"),
    ("2001-09-12", WED, "no base-calendar closure after September 11 (an override's job)"),
]


@pytest.mark.parametrize("text, weekday, name", CLOSED)
def test_fed_holiday_is_closed(text, weekday, name):
    day = weekday_of(text, weekday)
    assert not FED.is_business_day(day)
    reason = FED.closed_reason(day)
    assert reason is not None and name in reason
    assert reason.startswith("Federal Reserve holiday: ")


@pytest.mark.parametrize("text, weekday, why", OPEN)
def test_weekday_is_a_business_day(text, weekday, why):
    day = weekday_of(text, weekday)
    assert FED.is_business_day(day), why
    assert FED.closed_reason(day) is None


@pytest.mark.parametrize("text, name", [("2004-12-25", "Saturday"), ("2005-01-01", "Saturday"),
                                        ("2005-01-15", "Saturday"), ("2021-06-19", "Saturday"),
                                        ("2004-07-04", "Sunday"), ("2005-12-25", "Sunday"),
                                        ("2022-06-19", "Sunday"), ("2005-01-16", "Sunday")])
def test_weekends_say_which_day(text, name):
    day = d(text)
    assert day.strftime("%A") == name
    assert FED.closed_reason(day) == name
    assert not FED.is_business_day(day)


def test_saturday_holiday_leaves_the_friday_open():
    # Christmas 2004 fell on Saturday, 2004-12-25: the Fed closes neither Friday 24th nor
    # Monday 27th, so the Business Day after Thursday 23rd is Friday 24th.
    assert FED.add_business_days(weekday_of("2004-12-23", THU), 1) == d("2004-12-24")
    assert FED.add_business_days(d("2004-12-24"), 1) == weekday_of("2004-12-27", MON)


def test_sunday_holiday_is_observed_on_monday():
    # Christmas 2005 fell on Sunday: Monday 2005-12-26 is closed.
    assert FED.add_business_days(weekday_of("2005-12-23", FRI), 1) == weekday_of("2005-12-27", TUE)


def test_juneteenth_only_from_2022():
    assert FED.is_business_day(d("2021-06-18"))
    assert not FED.is_business_day(d("2022-06-20"))
    assert not FED.is_business_day(d("2023-06-19"))
    assert FED.add_business_days(weekday_of("2022-06-17", FRI), 1) == weekday_of("2022-06-21", TUE)


@pytest.mark.parametrize("year, closed_weekdays", [
    (2004, ["2004-01-01", "2004-01-19", "2004-02-16", "2004-05-31", "2004-07-05",
            "2004-09-06", "2004-10-11", "2004-11-11", "2004-11-25"]),
    (2005, ["2005-01-17", "2005-02-21", "2005-05-30", "2005-07-04", "2005-09-05",
            "2005-10-10", "2005-11-11", "2005-11-24", "2005-12-26"]),
    (2022, ["2022-01-17", "2022-02-21", "2022-05-30", "2022-06-20", "2022-07-04",
            "2022-09-05", "2022-10-10", "2022-11-11", "2022-11-24", "2022-12-26"]),
])
def test_whole_year_of_closed_weekdays(year, closed_weekdays):
    # The Fed's schedule for the year, weekdays only; nothing else closes.
    day, found = date(year, 1, 1), []
    while day.year == year:
        if day.weekday() < SAT and not FED.is_business_day(day):
            found.append(day.isoformat())
        day += timedelta(days=1)
    assert found == closed_weekdays


def test_business_days_in_2004_and_2005():
    # 2004: 366 days from a Thursday = 52 weeks + Thu, Fri = 262 weekdays, 9 holidays.
    # 2005: 365 days from a Saturday = 52 weeks + Sat = 260 weekdays, 9 holidays.
    def count(year):
        return sum(FED.is_business_day(date(year, 1, 1) + timedelta(days=n))
                   for n in range((date(year + 1, 1, 1) - date(year, 1, 1)).days))
    assert count(2004) == 262 - 9
    assert count(2005) == 260 - 9


# ----------------------------------------------------------------------- rolling


def test_roll_forward_over_a_weekend_and_mlk_day():
    # 2005-01-15 (an Interest Payment Date) is a Saturday; Jan 17 is MLK Day (SPEC §8 ex. 1).
    assert FED.roll_forward(weekday_of("2005-01-15", SAT)) == weekday_of("2005-01-18", TUE)


@pytest.mark.parametrize("text", ["2005-07-15", "2004-12-24", "2005-01-18"])
def test_roll_forward_keeps_a_business_day(text):
    assert FED.roll_forward(d(text)) == d(text)


def test_roll_forward_from_a_holiday():
    assert FED.roll_forward(d("2004-11-25")) == d("2004-11-26")
    assert FED.roll_forward(d("2005-12-25")) == d("2005-12-27")


def test_zero_business_days_is_the_day_itself():
    assert FED.add_business_days(d("2005-01-15"), 0) == d("2005-01-15")


def test_negative_business_days_are_refused():
    with pytest.raises(ValueError):
        FED.add_business_days(d("2005-01-14"), -1)


def test_start_day_never_counts():
    # RRA §3(a)(iii): "within five Business Days" of Monday 2004-11-15 ends Monday 11-22.
    assert FED.add_business_days(weekday_of("2004-11-15", MON), 5) == weekday_of("2004-11-22", MON)


# --------------------------------------------------------------------- overrides


def test_override_closes_a_day_and_names_reason_and_event():
    sandy = BusinessCalendar.from_overrides(
        [Override(d("2012-10-29"), False, "Hurricane Sandy: banks authorized to close", "e41"),
         Override(d("2012-10-30"), False, "Hurricane Sandy", "e42")])
    assert not sandy.is_business_day(d("2012-10-29"))
    reason = sandy.closed_reason(d("2012-10-29"))
    assert "Hurricane Sandy: banks authorized to close" in reason and "e41" in reason
    assert "e42" in sandy.closed_reason(d("2012-10-30"))
    # Friday 10-26 plus one Business Day skips the weekend and both closed days
    assert sandy.add_business_days(weekday_of("2012-10-26", FRI), 1) == weekday_of("2012-10-31", WED)
    # the base calendar is not changed
    assert FED.add_business_days(d("2012-10-26"), 1) == d("2012-10-29")


def test_override_without_an_event_id():
    cal = BusinessCalendar.from_overrides([Override(d("2004-06-11"), False, "day of mourning")])
    assert cal.closed_reason(d("2004-06-11")) == "declared closed: day of mourning"


def test_override_opens_a_holiday():
    # An operator declares Veterans Day 2004 a Business Day: 20 Business Days after
    # 2004-11-10 then end one day earlier, on 2004-12-09.
    cal = BusinessCalendar.from_overrides([Override(d("2004-11-11"), True, "banks open", "e9")])
    assert cal.is_business_day(d("2004-11-11"))
    assert cal.closed_reason(d("2004-11-11")) is None
    assert cal.add_business_days(d("2004-11-10"), 20) == d("2004-12-09")
    assert not cal.is_business_day(d("2004-11-25"))


def test_override_opens_a_saturday():
    cal = BusinessCalendar.from_overrides([Override(d("2005-01-15"), True, "open", "e3")])
    assert cal.roll_forward(d("2005-01-15")) == d("2005-01-15")


def test_later_override_of_the_same_day_wins():
    closed_then_open = BusinessCalendar.from_overrides(
        [Override(d("2012-10-29"), False, "Sandy", "e1"), Override(d("2012-10-29"), True, "reopened", "e2")])
    assert closed_then_open.is_business_day(d("2012-10-29"))
    open_then_closed = BusinessCalendar.from_overrides(
        [Override(d("2012-10-29"), True, "reopened", "e2"), Override(d("2012-10-29"), False, "Sandy", "e3")])
    assert "e3" in open_then_closed.closed_reason(d("2012-10-29"))


def test_override_of_a_holiday_as_closed_names_the_override():
    cal = BusinessCalendar.from_overrides([Override(d("2005-01-17"), False, "also closed", "e5")])
    assert "e5" in cal.closed_reason(d("2005-01-17"))


def test_is_business_day_agrees_with_closed_reason_every_day_2004_to_2030():
    from ledger.calendar import BusinessCalendar, Override

    cal = BusinessCalendar.from_overrides([
        Override(date(2012, 10, 29), False, "Hurricane Sandy", "e1"),   # a Monday, closed
        Override(date(2005, 1, 17), True, "declared open", "e2")])       # MLK Day, opened
    day = date(2004, 1, 1)
    while day < date(2031, 1, 1):
        assert cal.is_business_day(day) == (cal.closed_reason(day) is None), day
        day += timedelta(days=1)
    assert not cal.is_business_day(date(2012, 10, 29))
    assert cal.is_business_day(date(2005, 1, 17))


def test_precomputed_fed_holidays_are_the_librarys_for_every_year_of_the_table():
    # issue 17: reports read the Federal Reserve's holidays from ledger.fedholidays, so
    # that they need not import the holidays package; it must be the library's table
    import holidays

    from ledger import fedholidays

    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    names = list(fedholidays.NAMES)
    want = []
    for year in range(fedholidays.FIRST_YEAR, fedholidays.LAST_YEAR + 1):
        library = dict(holidays.financial_holidays("XFED", years=year))
        for day, name in sorted(library.items()):
            if name not in names:
                names.append(name)
            want.append(f"{day:%Y%m%d}{digits[names.index(name)]}")
        assert fedholidays.year(year) == library, (
            f"{year} differs from holidays {holidays.__version__}; regenerate the table: "
            f"NAMES = {tuple(names)!r}; TABLE = {' '.join(want)!r}")
    assert fedholidays.TABLE.split() == want


def test_years_outside_the_table_come_from_the_library():
    from ledger import calendar, fedholidays

    year = fedholidays.LAST_YEAR + 1
    import holidays

    assert calendar._fed_holidays(year) == dict(holidays.financial_holidays("XFED", years=year))
