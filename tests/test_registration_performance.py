"""A 20-year default with 1,000 Holders: amounts come from sub-periods of constant rate and
principal, never from a loop over days, so they compute in well under half a second."""

import time
from datetime import date

from projections.interpretations import resolve
from projections.registration.report import build as build_report
from projections.timeline import build_timeline
from tests.support import build, ev, opened

HOLDERS = 1000


def twenty_years_never_filed():
    objs = [opened()] + [ev("NotesIssued", "2004-06-30", holder=f"Holder {i:04d}",
                            principal="60000") for i in range(HOLDERS)]
    return build_timeline(build(objs), date(2024, 7, 1))


def best_of(runs, fn):
    best = None
    for _ in range(runs):
        start = time.process_time()
        result = fn()
        spent = time.process_time() - start
        best = spent if best is None else min(best, spent)
    return best, result


def test_twenty_year_default_with_a_thousand_holders_is_fast():
    timeline = twenty_years_never_filed()
    spent, rep = best_of(3, lambda: build_report(timeline, resolve()))
    payments = rep["additional_interest"]["payments"]
    # 2004-06-30 .. 2024-07-01: 40 Interest Payment Dates, the last one accruing
    assert len(payments) == 40 and payments[-1]["status"] == "accruing"
    assert all(len(p["amounts"]) == HOLDERS for p in payments)
    # each Holder holds 1/1000 of 60,000,000, every Holder's amount the same
    assert len(set(payments[10]["amounts"].values())) == 1
    # the whole report, a basis for each of the 40,000 amounts included
    assert spent < 1.0, f"report took {spent:.3f}s of CPU"


def test_amounts_alone_compute_in_well_under_half_a_second():
    from projections.registration import payments as pay_module
    from projections.registration.interest import holder_amounts

    timeline = twenty_years_never_filed()
    calls = []

    def timed(*args, **kwargs):
        start = time.process_time()
        out = holder_amounts(*args, **kwargs)
        calls.append(time.process_time() - start)
        return out

    original = pay_module.holder_amounts
    pay_module.holder_amounts = timed
    try:
        best = None
        for _ in range(3):
            calls.clear()
            build_report(timeline, resolve())
            best = sum(calls) if best is None else min(best, sum(calls))
    finally:
        pay_module.holder_amounts = original
    assert best < 0.5, f"amounts took {best:.3f}s of CPU"
