"""Issue 30, items 10 to 12: the Letter, against its words and SPEC §1, §5, §6, with the
arithmetic worked by hand.

10. ``same_day_adjustment``: an ``AdjustmentRecorded`` takes effect where it was recorded
    among its day's exercises, conversions and vestings (SPEC §1), not before them;
11. a true-up that cannot be computed (no capitalization for the weighted average) is
    ``unknown``, naming the fact to record, on the agenda and in the calendar, never
    ``discharged``;
12. ``later_camden_issuance``: Camden Warrants issued after 2002-02-01 are not deferred
    (Letter ¶5 "further issuance"), or, read by ¶2's definition, are.

One history throughout: 10,000,000 common shares outstanding (when recorded); W, DB
Capital's Warrant for 100,000 shares at 3.00 (aggregate 300,000); 1,000,000 Camden
Warrants at 2.00. A vesting of all of them: B = 1,000,000 x 2.00 / P.
"""

from __future__ import annotations

from datetime import date

from icalendar import Calendar

from projections.obligations.outlook import outlook
from publishing.agenda import agenda_of
from publishing.icalendar_feed import feed
from tests.letter_support import CAMDEN, DB, DEAL, e, one, report
from tests.support import build, d, opened

CAP = e("CapitalizationRecorded", "2002-02-01", common_outstanding=10_000_000)
ISSUED = e("CamdenWarrantsIssued", "2002-02-01", holder=CAMDEN, warrants=1_000_000,
           exercise_price="2.00")
W = e("InstrumentRegistered", "2002-02-01", instrument="W", holder=DB, kind="warrant",
      shares=100_000, exercise_price="3.00")
EXERCISED = e("WarrantsExercised", "2002-06-01", instrument="W", fraction="1",
              shares_issued=100_000)
TO_270 = e("AdjustmentRecorded", "2002-06-01", instrument="W", new_price="2.70",
           reason="other issuance")
VESTED = e("CamdenWarrantsVested", "2003-01-01", holder=CAMDEN, warrants=1_000_000)


def deal(*objs):
    return [opened(DEAL, "infocrossing-letter-2002"), *objs]


# ---------------------------------------------- 10. same-day adjustment, as recorded

EXERCISE_THEN_ADJUST = deal(CAP, ISSUED, W, EXERCISED, TO_270, VESTED)


def test_an_adjustment_recorded_after_a_same_day_exercise_takes_effect_after_it():
    # camden_only: x uses the Camden adjustment on top of the price at the exercise.
    # As recorded, W was exercised at 3.00 (100,000 shares: what 3.00 implies), then
    # adjusted: P' = 3.00 x (10,000,000 + 666,666.67) / 11,000,000 = (30M + 2M) / 11M =
    # 2.909090... -> 2.9091; x = 300,000 / 2.9091 = 103,124.67 -> 103,124; owed
    # 103,124 - 100,000 = 3,124
    rep = report(EXERCISE_THEN_ADJUST, trueup_adjustments="camden_only")
    assert rep["holders"][DB]["owed"] == 3_124
    [x] = rep["exercises"]
    assert (x["price_at_exercise"], x["implied_at_exercise"]) == ("3.00", 100_000)
    # the old rank (before_others): exercised at 2.70, P' = (27M + 2M) / 11M = 2.636363...
    # -> 2.6364, x = 300,000 / 2.6364 = 113,791.53 -> 113,791; owed 13,791
    old = report(EXERCISE_THEN_ADJUST, trueup_adjustments="camden_only",
                 same_day_adjustment="before_others")
    assert old["holders"][DB]["owed"] == 13_791


def test_no_false_shortfall_under_the_default():
    # trueup_adjustments = all: x after the vesting, W at 2.70 then (27M + 2M) / 11M =
    # 2.6364: x = 113,791, owed 13,791 either way; but before_others priced the exercise
    # at 2.70, implying 300,000 / 2.70 = 111,111 shares: a shortfall of 11,111 the
    # operator's order of the day does not have
    rep = report(EXERCISE_THEN_ADJUST)
    assert rep["holders"][DB]["owed"] == 13_791 and rep["discrepancies"] == []
    old = report(EXERCISE_THEN_ADJUST, same_day_adjustment="before_others")
    [short] = old["discrepancies"]
    assert (short["kind"], short["implied"], short["short"]) == (
        "shares_issued_below_price", 111_111, 11_111)


def test_an_adjustment_recorded_after_a_same_day_vesting_stands():
    # vested 2003-01-01 (3.00 -> 2.9091), then adjusted to 2.70 that day: W ends at 2.70;
    # before_others: 2.70 first, then (27M + 2M) / 11M = 2.6364
    objs = deal(CAP, ISSUED, W, VESTED, {**TO_270, "date": "2003-01-01"})
    assert one(report(objs)["instruments"], instrument="W")["price"] == "2.70"
    old = report(objs, same_day_adjustment="before_others")
    assert one(old["instruments"], instrument="W")["price"] == "2.6364"


# ----------------------------------------------- 11. a true-up not yet computable

NO_CAPITALIZATION = deal(ISSUED, W, EXERCISED, VESTED)


def test_a_true_up_without_a_capitalization_is_unknown_not_discharged():
    # 2.00 < 3.00: for any A > 0, P' = 3.00 x (A + 666,666.67) / (A + 1,000,000) < 3.00,
    # so x = 300,000 / P' > 100,000: shares are owed; how many needs A
    events = build(NO_CAPITALIZATION)
    o = outlook(events, as_of=d("2003-06-01"))
    [duty] = o.duties
    assert (duty.state, duty.due, duty.since, duty.shares) == (
        "unknown", date(2003, 1, 1), date(2003, 1, 1), None)
    assert "record the capitalization on or before 2003-01-01 to compute the true-up" in \
        duty.obligation
    assert "no CapitalizationRecorded is dated on or before 2003-01-01" in duty.explanation
    # on the agenda as something to do
    [item] = agenda_of({DEAL: events}, as_of=d("2003-06-01"))["items"]
    assert (item["category"], item["state"], item["due"]) == ("due", "unknown", "2003-01-01")
    assert "record the capitalization on or before 2003-01-01" in item["text"]
    # and in the calendar, on the vesting's day
    [v] = Calendar.from_ical(feed({DEAL: events}, as_of=d("2003-06-01"))).walk("VEVENT")
    assert v["DTSTART"].dt == date(2003, 1, 1) and str(v["STATUS"]) == "CONFIRMED"
    # the exercise says which vesting it cannot compute
    [x] = report(NO_CAPITALIZATION)["exercises"]
    assert x["unknown"] == [{"vesting": "e5", "date": "2003-01-01"}]


def test_recording_the_capitalization_computes_it():
    # A = 10,000,000: P' = 2.9091, x = 103,124, owed 3,124, due from the vesting
    [duty] = outlook(build(deal(CAP, ISSUED, W, EXERCISED, VESTED)),
                     as_of=d("2003-06-01")).duties
    assert (duty.state, duty.shares, duty.due) == ("due", 3_124, date(2003, 1, 1))


def test_a_full_ratchet_needs_no_capitalization():
    # full_ratchet: P' = min(3.00, 2.00) = 2.00, x = 300,000 / 2.00 = 150,000, owed 50,000
    objs = NO_CAPITALIZATION[:]
    objs[0] = opened(DEAL, "infocrossing-letter-2002", formula="full_ratchet")
    [duty] = outlook(build(objs), as_of=d("2003-06-01")).duties
    assert (duty.state, duty.shares) == ("due", 50_000)


# ------------------------------------------- 12. Camden Warrants issued later

LATER = deal(CAP, W, {**ISSUED, "date": "2002-06-01"}, EXERCISED, VESTED)


def test_camden_warrants_issued_later_are_not_deferred_by_default():
    # issued 2002-06-01, after the Camden Warrant Agreement of 2002-02-01: a further
    # issuance (Letter ¶5): the vesting adjusts nothing here; W stays at 3.00, no true-up
    rep = report(LATER)
    assert one(rep["instruments"], instrument="W")["price"] == "3.00"
    assert rep["holders"][DB]["owed"] == 0
    assert [n["event"] for n in rep["camden_not_deferred"]] == ["e4"]
    # deferred: Camden Warrants by ¶2's definition: P' = 2.9091, x = 300,000 / 2.9091 =
    # 103,124, owed 3,124
    alt = report(LATER, later_camden_issuance="deferred")
    assert one(alt["instruments"], instrument="W")["price"] == "2.9091"
    assert alt["holders"][DB]["owed"] == 3_124 and alt["camden_not_deferred"] == []
