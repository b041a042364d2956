"""The reference model of the Letter (``tests/reference/letter_model.py``) checked against
figures worked out by hand from SPEC §5 and the letter, so that the model that checks the
engine is itself checked."""

from __future__ import annotations

from decimal import Decimal

from tests.reference.letter_model import public, replay
from tests.support import build, d, ev, opened

DEAL = "letter"
W = "W-1"
HOLDER = "DB Capital Investors, L.P."
CAMDEN = "Camden Partners Strategic Fund II-A, L.P."


def letter(*objs, **terms):
    return [public(e) for e in build([opened(DEAL, "infocrossing-letter-2002", **terms),
                                      *objs])]


def warrant(shares=1_000_000, price="2.00", day="2002-02-01", name=W, holder=HOLDER):
    return ev("InstrumentRegistered", day, DEAL, instrument=name, holder=holder,
              kind="warrant", shares=shares, exercise_price=price)


def cap(n, day="2002-02-01"):
    return ev("CapitalizationRecorded", day, DEAL, common_outstanding=n)


def camden(warrants=1_000_000, price="1.00", day="2002-02-01", holder=CAMDEN, **kw):
    return ev("CamdenWarrantsIssued", day, DEAL, holder=holder, warrants=warrants,
              exercise_price=price, **kw)


def vest(warrants, day, holder=CAMDEN):
    return ev("CamdenWarrantsVested", day, DEAL, holder=holder, warrants=warrants)


def exercise(fraction, issued, day="2003-01-10", name=W):
    return ev("WarrantsExercised", day, DEAL, instrument=name, fraction=fraction,
              shares_issued=issued)


def test_partial_exercises_of_one_day_count_in_recorded_order():
    # issue 13, defect 1. P' = 2.00 × (10,000,000 + 1,000,000 × 1.00 / 2.00) / 11,000,000
    #    = 2.00 × 10,500,000 / 11,000,000 = 1.90909… → 1.9091
    # 0.5 first: x = 0.5 × 2,000,000 / 1.9091 = 523,807.03 → 523,807; owed 23,807
    # then 0.4 of the rest (0.2): x = 400,000 / 1.9091 = 209,522.81 → 209,522; owed 9,522
    m = replay(letter(warrant(), cap(10_000_000), camden(), exercise("0.5", 500_000),
                      exercise("0.4", 200_000), vest(1_000_000, "2003-06-01")), d("2003-12-31"))
    assert m.positions[W].price == Decimal("1.9091")
    assert [x.earned for x in m.exercises] == [23_807, 9_522]
    assert m.holders()[HOLDER] == {"owed": 33_329, "issued": 0, "outstanding": 33_329}


def test_equal_fractions_on_one_day():
    # 0.5 then 0.5 of the rest (0.25): 23,807 + (500,000 / 1.9091 = 261,903.51 → 261,903)
    #    - 250,000 = 11,903; 23,807 + 11,903 = 35,710
    m = replay(letter(warrant(), cap(10_000_000), camden(), exercise("0.5", 500_000),
                      exercise("0.5", 250_000), vest(1_000_000, "2003-06-01")), d("2003-12-31"))
    assert m.holders()[HOLDER]["owed"] == 35_710


def test_the_later_recorded_of_two_capitalizations_of_one_day_counts():
    # 9,500,000 then 10,000,000 on 2002-02-01: A = 10,000,000 → 1.9091 (9,500,000 would
    # give 2.00 × 10,000,000 / 10,500,000 = 1.90476… → 1.9048)
    m = replay(letter(warrant(), cap(9_500_000), cap(10_000_000), camden(),
                      vest(1_000_000, "2003-06-01")), d("2003-12-31"))
    assert m.positions[W].price == Decimal("1.9091")


def _two_tranches_or_one(*vestings):
    return replay(letter(warrant(1_000_000, "3.00"), cap(9_876_543),
                         camden(1_000_000, "1.37"), exercise("1", 1_000_000, "2002-06-03"),
                         *vestings), d("2003-12-31"))


def test_one_vesting_rounded_once():
    # issue 13, defect 2. B = 1,000,000 × 1.37 / 3.00 = 456,666.67
    # P' = 3.00 × (9,876,543 + 456,666.67) / 10,876,543 = 2.850136… → 2.8501
    # x = 3,000,000 / 2.8501 = 1,052,594.65 → 1,052,594; owed 1,052,594 - 1,000,000 = 52,594
    m = _two_tranches_or_one(vest(1_000_000, "2003-06-01"))
    assert m.positions[W].price == Decimal("2.8501")
    assert m.holders()[HOLDER]["owed"] == 52_594


def test_two_vestings_of_one_day_are_one_adjustment():
    # SPEC §5.2: C = 500,000 + 500,000, B = 228,333.33 + 228,333.33, rounded once: 2.8501,
    # owed 52,594 (rounded one by one: 2.9215 then 2.8502, 3,000,000 / 2.8502 = 1,052,557
    # → owed 52,557, 37 fewer)
    m = _two_tranches_or_one(vest(500_000, "2003-06-01"), vest(500_000, "2003-06-01"))
    assert m.positions[W].price == Decimal("2.8501")
    assert m.holders()[HOLDER]["owed"] == 52_594


def test_vestings_on_two_days_deem_the_first_outstanding():
    # day 1: B = 500,000 × 1.37 / 3.00 = 228,333.33;
    #   P1 = 3.00 × (9,876,543 + 228,333.33) / 10,376,543 = 2.92154… → 2.9215
    # day 2: A = 9,876,543 + 500,000 = 10,376,543; B = 500,000 × 1.37 / 2.9215 = 234,468.59
    #   P2 = 2.9215 × (10,376,543 + 234,468.59) / 10,876,543 = 2.850177 → 2.8502
    # x = 3,000,000 / 2.8502 = 1,052,557.7 → 1,052,557; owed 52,557
    m = _two_tranches_or_one(vest(500_000, "2003-06-01"), vest(500_000, "2003-06-02"))
    assert m.positions[W].price == Decimal("2.8502")
    assert m.exercises[0].steps[0].x == 3_000_000 * 10_000 // 29_215   # 1,026,869
    assert m.holders()[HOLDER]["owed"] == 52_557


def test_narrow_does_not_deem_vested_warrants_outstanding():
    # day 2 with A = 9,876,543: B = 234,468.59;
    #   P2 = 2.9215 × (9,876,543 + 234,468.59) / 10,376,543 = 2.846712… → 2.8467
    m = replay(letter(warrant(1_000_000, "3.00"), cap(9_876_543), camden(1_000_000, "1.37"),
                      vest(500_000, "2003-06-01"), vest(500_000, "2003-06-02"),
                      formula="weighted_average_narrow"), d("2003-12-31"))
    assert m.positions[W].price == Decimal("2.8467")


def test_full_ratchet_and_share_count():
    # P' = min(3.00, 1.37) = 1.37; shares = 1,000,000 × 3.00 / 1.37 = 2,189,781.02 → 2,189,781
    m = replay(letter(warrant(1_000_000, "3.00"), camden(1_000_000, "1.37"),
                      vest(1, "2003-06-01"), formula="full_ratchet"), d("2003-12-31"))
    assert m.instruments()[W] == {"price": Decimal("1.37"), "shares": 2_189_781,
                                  "holder": HOLDER}


def test_camden_price_not_below_p_adjusts_nothing_but_is_deemed_outstanding():
    # a 1,000,000 tranche at 2.50 does not adjust 2.00; the next day 1,000,000 at 1.00 with
    # A = 10,000,000 + 1,000,000: P' = 2.00 × (11,000,000 + 500,000) / 12,000,000
    #    = 1.916666… → 1.9167
    m = replay(letter(warrant(), cap(10_000_000), camden(1_000_000, "2.50"),
                      camden(1_000_000, "1.00", holder="Strategic Associates, L.P."),
                      vest(1_000_000, "2003-06-01"),
                      vest(1_000_000, "2003-06-02", holder="Strategic Associates, L.P.")),
               d("2003-12-31"))
    assert m.positions[W].price == Decimal("1.9167")


def test_preferred_conversion_shares_and_cutoff():
    # 10,000 Shares × 100.00 stated value / 4.00 = 250,000 shares; half converted on
    # 2004-01-31 (eligible: before 2004-02-01), half on 2004-02-01 (not eligible).
    # vesting 1,000,000 at 1.00, A = 10,000,000: P' = 4.00 × (10,000,000 + 250,000)
    #    / 11,000,000 = 3.727272… → 3.7273; x = 500,000 / 3.7273 = 134,145.36 → 134,145;
    # owed 134,145 - 125,000 = 9,145; the 2004-02-01 conversion earns nothing.
    m = replay(letter(ev("InstrumentRegistered", "2002-02-01", DEAL, instrument="P-1",
                         holder=HOLDER, kind="preferred", quantity=10_000,
                         stated_value="100.00", conversion_price="4.00"),
                      cap(10_000_000), camden(),
                      ev("PreferredConverted", "2004-01-31", DEAL, instrument="P-1",
                         fraction="0.5", shares_issued=125_000),
                      ev("PreferredConverted", "2004-02-01", DEAL, instrument="P-1",
                         fraction="1", shares_issued=125_000),
                      vest(1_000_000, "2004-06-01")), d("2004-12-31"))
    assert [(x.eligible, x.earned) for x in m.exercises] == [(True, 9_145), (False, 0)]
    assert m.instruments()["P-1"]["shares"] == 0


def test_same_day_vesting_and_exercise_both_readings():
    # vesting 1,000,000 at 1.00 on the exercise day 2003-06-01 (P' = 1.9091 as above).
    # vesting_first: the exercise is at 1.9091: 2,000,000 / 1.9091 = 1,047,614 issued; owed 0.
    # exercise_first: the exercise is at 2.00 (1,000,000 issued), the vesting comes after:
    #   x = 1,047,614.0 → 1,047,614; owed 47,614.
    objs = (warrant(), cap(10_000_000), camden(), vest(1_000_000, "2003-06-01"))
    first = replay(letter(*objs, exercise("1", 1_047_614, "2003-06-01")), d("2003-12-31"))
    assert first.exercises[0].price == Decimal("1.9091")
    assert first.holders()[HOLDER]["owed"] == 0
    later = replay(letter(*objs, exercise("1", 1_000_000, "2003-06-01")), d("2003-12-31"),
                   {"same_day_vesting_and_exercise": "exercise_first"})
    assert later.exercises[0].price == Decimal("2.00")
    assert later.holders()[HOLDER]["owed"] == 2_000_000 * 10_000 // 19_091 - 1_000_000 == 47_614


def test_split_after_the_exercise_both_readings():
    # issue 13: a 2-for-1 split recorded after the exercise (2.00 → 1.00), then a vesting of
    # 100,000 at 0.50 with A = 10,000,000 (the split's new shares not recorded).
    # all: P' = 1.00 × (10,000,000 + 50,000) / 10,100,000 = 0.995049… → 0.9950;
    #   x = 2,000,000 / 0.9950 = 2,010,050.25 → 2,010,050; y = 1,000,000; owed 1,010,050
    # camden_only: from 2.00 at the exercise: B = 100,000 × 0.50 / 2.00 = 25,000;
    #   P' = 2.00 × 10,025,000 / 10,100,000 = 1.985148… → 1.9851;
    #   x = 2,000,000 / 1.9851 = 1,007,505.92 → 1,007,505; owed 7,505
    objs = (warrant(), cap(10_000_000), camden(100_000, "0.50"),
            exercise("1", 1_000_000, "2002-06-03"),
            ev("AdjustmentRecorded", "2002-07-01", DEAL, instrument="all", new_price="1.00",
               reason="2-for-1 split"),
            vest(100_000, "2003-06-01"))
    assert replay(letter(*objs), d("2003-12-31")).holders()[HOLDER]["owed"] == 1_010_050
    only = replay(letter(*objs), d("2003-12-31"), {"trueup_adjustments": "camden_only"})
    assert only.holders()[HOLDER]["owed"] == 7_505


def test_tranche_order_both_readings():
    # two issuances to one entity: 500,000 at 1.00 then 500,000 at 1.50; 500,000 vest.
    # earliest_first: B = 500,000 × 1.00 / 2.00 = 250,000;
    #   P' = 2.00 × 10,250,000 / 10,500,000 = 1.952380… → 1.9524
    # latest_first: B = 500,000 × 1.50 / 2.00 = 375,000;
    #   P' = 2.00 × 10,375,000 / 10,500,000 = 1.976190… → 1.9762
    objs = (warrant(), cap(10_000_000), camden(500_000, "1.00"), camden(500_000, "1.50"),
            vest(500_000, "2003-06-01"))
    assert replay(letter(*objs), d("2003-12-31")).positions[W].price == Decimal("1.9524")
    assert replay(letter(*objs), d("2003-12-31"),
                  {"camden_tranche_order": "latest_first"}).positions[W].price == Decimal("1.9762")


def test_cancellation_takes_the_other_end():
    # earliest_first: cancelling 500,000 takes the latest issuance (1.50); the vesting then
    # takes the 1.00 one: 1.9524 as above. latest_first: the
    # cancellation takes the earliest (1.00), the vesting the 1.50: 1.9762.
    objs = (warrant(), cap(10_000_000), camden(500_000, "1.00"), camden(500_000, "1.50"),
            ev("CamdenWarrantsCancelled", "2002-06-01", DEAL, holder=CAMDEN, warrants=500_000),
            vest(500_000, "2003-06-01"))
    assert replay(letter(*objs), d("2003-12-31")).positions[W].price == Decimal("1.9524")
    assert replay(letter(*objs), d("2003-12-31"),
                  {"camden_tranche_order": "latest_first"}).positions[W].price == Decimal("1.9762")


def test_true_up_shares_issued_then_a_further_vesting():
    # vesting 1 (1.9091): owed 1,000,000 / 1.9091 → 523,807 - 500,000 = 23,807; 20,000 issued.
    # vesting 2 on another day, 1,000,000 at 1.00 more (second entity), A = 11,000,000:
    #   B = 1,000,000 / 1.9091 = 523,807.03; P'' = 1.9091 × 11,523,807.03 / 12,000,000
    #   = 1.833333… → 1.8333; x = 1,000,000 / 1.8333 = 545,464.45 → 545,464;
    #   y = 500,000 + 20,000; owed at vesting 2: 25,464; earned 45,464; outstanding 25,464
    m = replay(letter(warrant(), cap(10_000_000), camden(),
                      camden(holder="Strategic Associates, L.P."),
                      exercise("0.5", 500_000), vest(1_000_000, "2003-06-01"),
                      ev("TrueUpSharesIssued", "2003-07-01", DEAL, instrument=W, shares=20_000),
                      vest(1_000_000, "2003-08-01", holder="Strategic Associates, L.P.")),
               d("2003-12-31"))
    assert m.positions[W].price == Decimal("1.8333")
    assert [s[1:] for s in m.by_exercise()["e6"]["steps"]] == [(523_807, 500_000, 23_807),
                                                               (545_464, 520_000, 25_464)]
    assert m.holders()[HOLDER] == {"owed": 45_464, "issued": 20_000, "outstanding": 25_464}


def test_the_adjustment_still_deferred_is_one_adjustment():
    # 1,000,000 at 1.37 unvested in two issuances (two entities), none vested; if all vested
    # today: one day, one adjustment: 2.8501 (test_one_vesting_rounded_once);
    # shares = 3,000,000 / 2.8501 = 1,052,594.65 → 1,052,594
    m = replay(letter(warrant(1_000_000, "3.00"), cap(9_876_543), camden(500_000, "1.37"),
                      camden(500_000, "1.37", holder="Strategic Associates, L.P.")),
               d("2003-12-31"))
    assert m.if_all_vest() == {W: (Decimal("2.8501"), 1_052_594)}


def test_full_ratchet_camden_price_not_below_p_adjusts_nothing():
    # found by the differential test: a warrant at 2.4201, a Camden price of 2.4201 and
    # price_decimals 2. The Camden price is not below P: no adjustment (SPEC §5.2), the
    # price stays 2.4201 and 10,000 × 2.4201 / 2.4201 = 10,000 shares. (The engine rounds
    # the Camden price first, 2.4201 → 2.42, and sets P' = min(2.4201, 2.42) = 2.42.)
    m = replay(letter(warrant(10_000, "2.4201"), camden(50_000, "2.4201"),
                      vest(50_000, "2002-03-15"), formula="full_ratchet", price_decimals=2),
               d("2003-12-31"))
    assert m.instruments()[W] == {"price": Decimal("2.4201"), "shares": 10_000,
                                  "holder": HOLDER}
