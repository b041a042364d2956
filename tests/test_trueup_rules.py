"""The small rules of the true-up engine, one at a time: rounding, whole shares, the Camden
Warrants book, the order of one day's events."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from fractions import Fraction

from projections.trueup import camden, instruments
from projections.trueup.arithmetic import decimal_text, round_price, show, whole_shares
from projections.trueup.order import in_effect_order
from projections.trueup.trueup import eligible
from tests.support import build, ev, opened

CAMDEN = "Camden Partners Strategic Fund II-A, L.P."


def test_prices_round_half_up_and_shares_round_down():
    assert round_price(Fraction(292857, 100000), 4) == Decimal("2.9286")
    assert round_price(Fraction(29285, 10000) + Fraction(5, 10**5), 4) == Decimal("2.9286")
    assert round_price(Fraction(2, 3), 4) == Decimal("0.6667")
    assert whole_shares(Fraction(1024389, 10)) == 102438
    assert show(Fraction(2, 3)) == "0.666667…" and show(Fraction(1, 4)) == "0.25"
    assert decimal_text(Fraction(7, 10)) == "0.7" and decimal_text(Fraction(0)) == "0"


def test_a_warrant_keeps_its_aggregate_exercise_price():
    [reg] = build([ev("InstrumentRegistered", "2002-03-01", deal="ltr", instrument="W-1",
                      holder="DB Capital Investors, L.P.", kind="warrant", shares=100_000,
                      exercise_price="3.00")])
    w = instruments.registered(reg)
    assert w.aggregate == 300_000
    # 100,000 × 3.00 / 2.9286 = 102,438.0... and after a second adjustment the count is
    # taken from the aggregate, not from the rounded 102,438
    assert instruments.shares_held(instruments.repriced(w, Decimal("2.9286"))) == 102_438
    assert instruments.shares_held(instruments.repriced(w, Decimal("2.4722"))) == 121_349
    left, portion = instruments.exercised(w, Decimal("0.4"))
    assert portion == Fraction(2, 5) and left.remaining == Fraction(3, 5)
    left, portion = instruments.exercised(left, Decimal("0.5"))
    assert portion == Fraction(3, 10) and left.exercised_fraction == Fraction(7, 10)


def test_vesting_takes_the_earliest_issuance_cancelling_the_latest():
    events = build([
        ev("CamdenWarrantsIssued", "2002-02-01", deal="ltr", holder=CAMDEN, warrants=600_000,
           exercise_price="1.50"),
        ev("CamdenWarrantsIssued", "2002-04-01", deal="ltr", holder=CAMDEN, warrants=400_000,
           exercise_price="2.50", consideration="40000.00")])
    book = camden.issued(camden.issued((), events[0]), events[1])
    book, parts, short = camden.cancelled(book, CAMDEN, 400_000)
    assert [(p.issuance.event, p.warrants) for p in parts] == [("e2", 400_000)] and short == 0
    book, parts, short = camden.vested(book, CAMDEN, 700_000)
    assert [(p.issuance.event, p.warrants) for p in parts] == [("e1", 600_000)]
    assert short == 100_000 and camden.unvested(book) == ()
    half = camden.Tranche(book[1], 200_000)
    assert half.consideration == Fraction(20_000)      # 40,000 × 200,000 / 400,000


def test_one_days_events_take_effect_in_a_fixed_order_whatever_their_seq():
    objs = [opened("ltr", "infocrossing-letter-2002"),
            ev("WarrantsExercised", "2002-09-01", deal="ltr", instrument="W-1", fraction="1",
               shares_issued=1),
            ev("TrueUpSharesIssued", "2002-09-01", deal="ltr", instrument="W-1", shares=1),
            ev("CamdenWarrantsVested", "2002-09-01", deal="ltr", holder=CAMDEN, warrants=5),
            ev("CapitalizationRecorded", "2002-09-01", deal="ltr", common_outstanding=10),
            ev("AdjustmentRecorded", "2002-09-01", deal="ltr", instrument="all",
               new_price="1.00", reason="split")]
    kinds = [x.type for x in in_effect_order(build(objs),
                                             {"same_day_adjustment": "before_others"})]
    assert kinds == ["CapitalizationRecorded", "AdjustmentRecorded", "CamdenWarrantsVested",
                     "WarrantsExercised", "TrueUpSharesIssued"]
    # as_recorded (the default): the adjustment, recorded last, takes effect after the
    # vesting and the exercise (which the vesting_first reading takes after the vesting);
    # the capitalization still counts for the vesting, the true-up shares still come last
    kinds = [x.type for x in in_effect_order(build(objs))]
    assert kinds == ["CapitalizationRecorded", "CamdenWarrantsVested", "WarrantsExercised",
                     "AdjustmentRecorded", "TrueUpSharesIssued"]


def test_only_exercises_before_february_1_2004_are_eligible():
    cutoff = date(2004, 2, 1)
    assert eligible(date(2004, 1, 31), cutoff)
    assert not eligible(date(2004, 2, 1), cutoff)
