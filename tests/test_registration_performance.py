"""A 20-year default with many Holders: Additional Interest comes from sub-periods of
constant rate and principal (SPEC §4.4 "Amount"), never from a loop over days, and the
day-count arithmetic is shared by the Holders rather than redone for each.

These tests check that shape without a clock: how many rate segments, accrual runs,
day-count fractions and principal steps the engine builds, and that those counts do not
grow with the number of days in the default or with the number of Holders. How fast it
is belongs to the benchmarks (``python -m benchmarks``), which print ratios against the
raw libraries measured in the same run.
"""

from datetime import date

import pytest

from projections.interpretations import resolve
from projections.registration import interest
from projections.registration.engine import compute
from projections.registration.report import build as build_report
from projections.timeline import build_timeline
from tests.support import build, ev, opened

PRINCIPAL = 60_000_000


def never_filed(holders: int, as_of: date):
    """RRA §2(a)(i): the shelf is never filed, so default (i) runs from 2004-07-16."""
    each = PRINCIPAL // holders
    objs = [opened()] + [ev("NotesIssued", "2004-06-30", holder=f"Holder {i:04d}",
                            principal=str(each)) for i in range(holders)]
    return build_timeline(build(objs), as_of)


def counting_year_fractions(monkeypatch):
    """Count the day-count fractions the accrual computes."""
    calls = []
    original = interest.year_fraction

    def counted(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(interest, "year_fraction", counted)
    return calls


def rate_changes_between(first: date, last: date) -> int:
    """Where RRA §3(a) can change the rate: day 91 of the episode and each anniversary of
    the Closing Date (2004-06-30) from the 2nd."""
    return 1 + sum(1 for year in range(2006, last.year + 1) if first < date(year, 6, 30) <= last)


@pytest.mark.parametrize("as_of", [date(2006, 7, 1), date(2014, 7, 1), date(2024, 7, 1)])
def test_rate_segments_follow_rate_changes_not_days(as_of):
    r = compute(never_filed(2, as_of), resolve())
    # never filed: default (i) from 2004-07-16 and, overlapping it, (ii) from 2004-10-29
    assert [d.kind for d in r.defaults] == ["(i)", "(ii)"]
    changes = rate_changes_between(date(2004, 7, 16), as_of)
    # a segment is cut only where the rate or the set of defaults changes
    assert len(r.segments) <= changes + 2 * len(r.defaults) + 1
    assert len(r.accrual.runs) <= changes + 1
    # the segments tile the accrual without gaps or overlaps
    assert all(a.end == b.start for a, b in zip(r.segments, r.segments[1:]))
    assert r.segments[0].start == date(2004, 7, 16)


def test_twenty_years_of_seven_thousand_days_is_about_twenty_pieces():
    r = compute(never_filed(2, date(2024, 7, 1)), resolve())
    days = (r.segments[-1].end - r.segments[0].start).days
    assert days > 7000
    # 0.25% (90 days), 1%, 3%, then +2 points on each anniversary from the 3rd to 2024
    # (one more cut where default (ii) joins): the counts follow the contract's rate
    # steps, three hundred times fewer than the days
    assert len(r.segments) <= 23
    assert len(r.accrual.runs) <= 21


def test_day_count_work_does_not_grow_with_the_holders(monkeypatch):
    calls = counting_year_fractions(monkeypatch)
    compute(never_filed(10, date(2024, 7, 1)), resolve())
    with_ten = len(calls)
    calls.clear()
    r = compute(never_filed(200, date(2024, 7, 1)), resolve())
    assert len(calls) == with_ten
    # one cached factor per window of days, shared by every Holder
    assert len(r.accrual.cache) <= 2 * len(r.payments)


def test_day_count_work_grows_with_periods_not_days(monkeypatch):
    calls = counting_year_fractions(monkeypatch)
    short = compute(never_filed(3, date(2006, 7, 1)), resolve())
    short_calls = len(calls)
    calls.clear()
    long = compute(never_filed(3, date(2024, 7, 1)), resolve())
    # each payment's window meets a few rate runs: fractions ~ periods x runs per period,
    # far below one per day (about 7,300 days)
    assert len(calls) <= 4 * len(long.payments) + len(long.accrual.runs)
    assert short_calls <= 4 * len(short.payments) + len(short.accrual.runs)


def test_each_holder_amount_is_one_principal_step_per_period():
    r = compute(never_filed(50, date(2024, 7, 1)), resolve())
    for p in r.payments:
        for a in p.amounts.values():
            assert len(a.steps) == 1          # constant principal: one sub-period sum


def test_the_whole_report_for_many_holders_over_twenty_years():
    holders = 200
    rep = build_report(never_filed(holders, date(2024, 7, 1)), resolve())
    payments = rep["additional_interest"]["payments"]
    # 2004-06-30 .. 2024-07-01: 40 Interest Payment Dates, the last one accruing
    assert len(payments) == 40 and payments[-1]["status"] == "accruing"
    assert all(len(p["amounts"]) == holders for p in payments)
    # every Holder holds the same principal, so every Holder's amount is the same
    assert len(set(payments[10]["amounts"].values())) == 1
