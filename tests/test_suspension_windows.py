"""``first_day_over`` (RRA §4(b)(i), §3(a)(iv)) against the day-by-day reading it bisects:
the first day of the period (before ``until``) whose trailing window holds more than the
limit. It counts in day numbers; ``trailing`` counts in dates."""

from __future__ import annotations

import random
from datetime import date, timedelta

from projections.registration.suspensions import SuspensionPeriod, first_day_over, trailing


def _walked(periods, period, window, limit, as_of, until=None):
    day, stop = period.start, period.stop(as_of)
    if until is not None:
        stop = min(stop, until)
    while day < stop:
        if trailing(periods, day, window, as_of) > limit:
            return day
        day += timedelta(days=1)
    return None


def test_first_day_over_is_the_first_day_walked():
    rng = random.Random(17)
    for _ in range(1500):
        periods, day = [], date(2004, 1, 1) + timedelta(days=rng.randrange(30))
        for _ in range(rng.randrange(1, 6)):
            start = day + timedelta(days=rng.randrange(0, 40))
            end = None if rng.random() < 0.2 else start + timedelta(days=rng.randrange(1, 120))
            periods.append(SuspensionPeriod(start, end, False, False, ()))
            if end is None:
                break
            day = end
        as_of = periods[-1].start + timedelta(days=rng.randrange(0, 200))
        for p in periods:
            for window, limit in ((90, 45), (90, 60), (360, 90),
                                  (rng.randrange(1, 50), rng.randrange(0, 40))):
                until = (None if rng.random() < 0.5
                         else p.start + timedelta(days=rng.randrange(-3, 100)))
                assert first_day_over(periods, p, window, limit, as_of, until) == \
                    _walked(periods, p, window, limit, as_of, until)
