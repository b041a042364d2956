"""Readings of the letter (SPEC §6; issue 13): each switched against its default on a
scenario worked by hand; Camden Warrants issued after the agreement date; a shortfall at
the exercise, reported; and explanations that re-compute P' from data (defect 3)."""

from __future__ import annotations

from datetime import date

from projections.explain import explain
from projections.interpretations import REGISTRY
from projections.report import report as full_report
from tests.letter_support import CAMDEN, DB, DEAL, camden_137, e, one, report
from tests.support import build, opened



def base(camden_price: str = "1.50") -> list[dict]:
    """e1 opened, e2 capitalization 10,000,000, e3 1,000,000 Camden Warrants, e4 W-1: DB
    Capital's Warrant for 100,000 shares at 3.00 (aggregate 300,000)."""
    return [opened(DEAL, "infocrossing-letter-2002"),
            e("CapitalizationRecorded", "2002-02-01", common_outstanding=10_000_000),
            e("CamdenWarrantsIssued", "2002-02-01", holder=CAMDEN, warrants=1_000_000,
              exercise_price=camden_price),
            e("InstrumentRegistered", "2002-03-01", instrument="W-1", holder=DB,
              kind="warrant", shares=100_000, exercise_price="3.00")]


def test_the_letters_readings_are_registered_with_default_and_clause():
    rows = {n: (REGISTRY[n].default, REGISTRY[n].alternatives, REGISTRY[n].clause)
            for n in ("trueup_adjustments", "camden_tranche_order",
                      "same_day_vesting_and_exercise")}
    assert rows == {
        "trueup_adjustments": ("all", ("camden_only",), "Letter ¶3"),
        "camden_tranche_order": ("earliest_first", ("latest_first",),
                                 "Letter ¶2, Camden Warrant Agreement"),
        "same_day_vesting_and_exercise": ("vesting_first", ("exercise_first",), "Letter ¶3")}


# ------------------------------------------------------------------ trueup_adjustments


def split_after_exercise() -> list[dict]:
    """W-1 exercised whole on 2002-06-01 for 100,000 shares at 3.00; a 2-for-1 split
    (AdjustmentRecorded, W-1 to 1.50) on 2002-07-01; all 1,000,000 Camden Warrants, at
    1.00, vest on 2002-09-01."""
    return base(camden_price="1.00") + [
        e("WarrantsExercised", "2002-06-01", instrument="W-1", fraction="1",
          shares_issued=100_000),
        e("AdjustmentRecorded", "2002-07-01", instrument="W-1", new_price="1.50",
          reason="2-for-1 split"),
        e("CamdenWarrantsVested", "2002-09-01", holder=CAMDEN, warrants=1_000_000)]


def test_trueup_adjustments_a_split_after_the_exercise():
    literal = one(report(split_after_exercise())["exercises"], event="e5")
    camden_only = one(report(split_after_exercise(), trueup_adjustments="camden_only")
                      ["exercises"], event="e5")
    # all (the default, the words of ¶3): P = 1.50 after the split;
    # B = 1,000,000 × 1.00 / 1.50 = 666,666.67; P' = 1.50 × 10,666,666.67 / 11,000,000
    # = 16,000,000 / 11,000,000 = 1.454545… → 1.4545; x = 300,000 / 1.4545 = 206,256.4… →
    # 206,256 post-split shares, against y = 100,000 pre-split shares: owed 106,256
    assert (literal["vestings"][0]["price"], literal["entitled"], literal["owed"]) == \
        ("1.4545", 206_256, 106_256)
    # camden_only: the Camden adjustment on the price at the exercise, 3.00:
    # B = 1,000,000 × 1.00 / 3.00 = 333,333.33; P' = (30,000,000 + 1,000,000) / 11,000,000
    # = 2.818181… → 2.8182; x = 300,000 / 2.8182 = 106,450.9… → 106,450; owed 6,450
    assert (camden_only["vestings"][0]["price"], camden_only["entitled"],
            camden_only["owed"]) == ("2.8182", 106_450, 6_450)
    # the economic answer, y restated for the split (2 × 100,000 = 200,000):
    # 206,256 - 200,000 = 6,256; camden_only comes within 194 of it, the literal reading
    # is 100,000 shares (the split itself) above it
    assert literal["owed"] - 200_000 + 100_000 == 6_256
    assert camden_only["driven_by"]["P"] == "3.00" and camden_only["driven_by"]["P'"] == "2.8182"


# ------------------------------------------------------- same_day_vesting_and_exercise


def exercise_on_the_vesting_day() -> list[dict]:
    """W-1 exercised whole on 2002-09-01 for 100,000 shares (its price before the vesting:
    3.00); 500,000 Camden Warrants at 1.50 vest the same day."""
    return base() + [
        e("WarrantsExercised", "2002-09-01", instrument="W-1", fraction="1",
          shares_issued=100_000),
        e("CamdenWarrantsVested", "2002-09-01", holder=CAMDEN, warrants=500_000)]


def test_same_day_vesting_and_exercise():
    # B = 500,000 × 1.50 / 3.00 = 250,000; P' = 3.00 × 10,250,000 / 10,500,000
    # = 2.928571… → 2.9286; 300,000 / 2.9286 = 102,438.02… → 102,438
    first = report(exercise_on_the_vesting_day())
    ex = one(first["exercises"], event="e5")
    # vesting_first: the exercise is at 2.9286 and implies 102,438; no true-up; the 2,438
    # not issued is a shortfall, reported, not owed under the letter
    assert (ex["price_at_exercise"], ex["implied_at_exercise"], ex["vestings"], ex["owed"]) \
        == ("2.9286", 102_438, [], 0)
    short = one(first["discrepancies"], kind="shares_issued_below_price")
    assert (short["short"], short["owed_under_letter"], short["owed_without_vesting"],
            short["later_vesting"]) == (2_438, 0, False, None)
    # exercise_first: the exercise is at 3.00 (100,000 shares, no shortfall) and the
    # same-day vesting earns x - y = 102,438 - 100,000 = 2,438
    later = report(exercise_on_the_vesting_day(), same_day_vesting_and_exercise="exercise_first")
    ex = one(later["exercises"], event="e5")
    assert (ex["price_at_exercise"], ex["implied_at_exercise"], ex["owed"]) == \
        ("3.00", 100_000, 2_438)
    assert later["discrepancies"] == []


# --------------------------------------------------------------- camden_tranche_order
# (worked in tests/test_trueup_scenarios.py::
#  test_camden_tranche_order_earliest_first_against_latest_first: 2.9381 against 2.9476)


# ------------------------------------------- Camden Warrants after the agreement date


def test_warrants_issued_after_the_camden_warrant_agreement_are_not_deferred():
    """Letter ¶2 names the Warrant Agreement dated as of February 1, 2002; ¶5: the letter
    is not "applicable to any further issuance". Warrants issued on 2002-04-01 are
    reported as not deferred and their vesting adjusts nothing."""
    objs = base() + [e("CamdenWarrantsIssued", "2002-04-01", holder=CAMDEN, warrants=400_000,
                       exercise_price="0.50"),
                     e("CamdenWarrantsVested", "2002-09-01", holder=CAMDEN, warrants=1_400_000)]
    t = report(objs)
    [row] = t["camden_not_deferred"]
    assert (row["event"], row["warrants"], row["clause"]) == ("e5", 400_000, "Letter ¶2, ¶5")
    # only the letter's 1,000,000 at 1.50 vest: B = 500,000; P' = 3.00 × 10,500,000 /
    # 11,000,000 = 2.863636… → 2.8636 (the 400,000 at 0.50 would have taken it lower)
    assert one(t["instruments"], instrument="W-1")["price"] == "2.8636"
    assert any("400000 of the 1400000" in p["problem"] for p in t["problems"])
    assert t["camden"][CAMDEN]["issued"] == 1_000_000


# ------------------------------------------------------------ a shortfall at exercise


def test_a_shortfall_followed_by_a_vesting_is_counted_and_says_so():
    """W-1 exercised whole at 3.00 on 2002-06-01 but only 90,000 shares issued (100,000
    implied); 500,000 vest on 2002-09-01: x = 102,438 (above), y = 90,000."""
    objs = base() + [e("WarrantsExercised", "2002-06-01", instrument="W-1", fraction="1",
                       shares_issued=90_000),
                     e("CamdenWarrantsVested", "2002-09-01", holder=CAMDEN, warrants=500_000)]
    t = report(objs)
    d = one(t["discrepancies"], kind="shares_issued_below_price")
    # short = 100,000 - 90,000 = 10,000; owed = 102,438 - 90,000 = 12,438, of which the
    # 10,000 shortfall
    assert (d["short"], d["owed_under_letter"], d["in_true_up"], d["later_vesting"]) == \
        (10_000, 10_000, True, "e6")
    assert one(t["exercises"], event="e5")["owed"] == 12_438


# --------------------------------------------------- defect 3: explanations re-computed


def test_p_prime_is_recomputed_from_data_and_nothing_is_claimed_unchecked():
    """P 3.00, A 9,876,543, 1,000,000 Camden Warrants at 1.37: B = 1,370,000 / 3 has no
    exact decimal form, so the P' line cannot be re-read from its text; it is re-computed
    from the computation's exact inputs."""
    objs = camden_137(1_000_000)
    events = build(objs)
    rep = full_report(events, as_of=date(2003, 1, 1))
    adj = rep["true_up"]["adjustments"][0]
    text = adj["basis"]["arithmetic"]
    # the text holds a rounded B ("456666.666667…"): it is printed, never re-read
    assert "3.00 × (9876543 + 456666.666667…)" in text
    out = explain(rep, "true_up.adjustments[0].after", events)
    node = out["explanation"]
    # (3 × 9,876,543 + 1,370,000) / 10,876,543 = 30,999,629 / 10,876,543 = 2.850136… → 2.8501
    [data_check] = [c for c in node["checks"] if "computation data" in c["stated"]]
    assert data_check["ok"] and data_check["result"] == "2.8501"
    assert data_check["computed"].startswith("2.850136")
    assert out["arithmetic_unchecked"] == [] and out["arithmetic_checks_ok"] is True
    # the headline: what the exercise is owed shows A, B, C, P and P' of its vesting
    owed = explain(rep, "true_up.exercises[0].owed", events)
    assert "A 9876543" in owed["explanation"]["title"] and "P' 2.8501" in owed["explanation"]["title"]
    assert owed["arithmetic_unchecked"] == [] and owed["arithmetic_checks_ok"] is True
    driven = rep["true_up"]["exercises"][0]["driven_by"]
    assert (driven["A"], driven["C"], driven["P"], driven["P'"], driven["x"]) == \
        (9_876_543, 1_000_000, "3.00", "2.8501", 1_052_594)


def test_a_wrong_result_in_the_computation_data_is_caught():
    from projections.trueup.explain import recompute

    computation = {"operation": "weighted_average",
                   "exact": {"P": "3.00", "A": "9876543", "C": "1000000", "paid": "1370000"},
                   "rounding": {"mode": "half_up", "decimals": 4}, "result": "2.8502"}
    assert recompute(computation)[0]["ok"] is False
    assert recompute({**computation, "result": "2.8501"})[0]["ok"] is True
    wrong_b = {**computation, "result": "2.8501",
               "exact": {**computation["exact"], "B": "456666.67"}}   # 1,370,000 / 3 rounded
    assert recompute(wrong_b)[0]["ok"] is False


def test_bad_dividend_terms_are_refused_naming_the_term():
    import pytest

    from ledger.terms import TEMPLATES, validate_terms
    from ledger.values import FieldError

    terms = TEMPLATES["infocrossing-letter-2002"]["terms"]
    for bad, field in (({"rate": "0"}, "terms.preferred_dividends.rate"),
                       ({"rate": "101"}, "terms.preferred_dividends.rate"),
                       ({"day_count": "30/365"}, "terms.preferred_dividends.day_count"),
                       ({"frequency": "quarterly"}, "terms.preferred_dividends.frequency")):
        with pytest.raises(FieldError) as err:
            validate_terms("antidilution_deferral", {**terms, "preferred_dividends": bad})
        assert err.value.field == field
