"""Letter ¶2 and ¶3 scenarios, each worked by hand from its own numbers (SPEC §5).

Every expected price is written out as the formula over the scenario's numbers:
A = recorded Common Stock outstanding (+ Camden Warrants vested since, broad),
B = (C × Camden exercise price + consideration for the C warrants) / P,
P' = P × (A + B) / (A + C), rounded half-up to 4 decimals; shares round down.
"""

from __future__ import annotations

import json
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

import pytest

from projections.interpretations import resolve
from projections.timeline import build_timeline
from projections.trueup.report import build as true_up_report
from tests.support import build, ev, opened

Q = Decimal("0.0001")
DB = "DB Capital Investors, L.P."
SANDLER = "Sandler Capital Partners V, L.P."
CAMDEN = "Camden Partners Strategic Fund II-A, L.P."
CAMDEN_B = "Camden Partners Strategic Fund II-B, L.P."
DEAL = "ltr"


def r4(value: Decimal) -> Decimal:
    return value.quantize(Q, ROUND_HALF_UP)


def floor(value: Decimal) -> int:
    return int(value)  # positive values: truncation is rounding down


def e(type_: str, day: str, **data) -> dict:
    return ev(type_, day, deal=DEAL, **data)


def base(camden_price: str = "1.50", consideration: str | None = None, **terms) -> list[dict]:
    """e1 DealOpened, e2 capitalization 10,000,000, e3 1,000,000 Camden Warrants, e4 W-1:
    DB Capital's Warrant for 100,000 shares at 3.00."""
    issued = {"holder": CAMDEN, "warrants": 1_000_000, "exercise_price": camden_price}
    if consideration is not None:
        issued["consideration"] = consideration
    return [opened(DEAL, "infocrossing-letter-2002", **terms),
            e("CapitalizationRecorded", "2002-02-01", common_outstanding=10_000_000),
            e("CamdenWarrantsIssued", "2002-02-01", **issued),
            e("InstrumentRegistered", "2002-03-01", instrument="W-1", holder=DB,
              kind="warrant", shares=100_000, exercise_price="3.00")]


def vest(day: str, warrants: int, holder: str = CAMDEN) -> dict:
    return e("CamdenWarrantsVested", day, holder=holder, warrants=warrants)


def preferred_converted_then_vesting() -> list[dict]:
    """1,000 Series A Preferred (stated value 100.00, conversion price 4.00: 25,000 shares)
    converted whole on 2002-06-01, before 500,000 Camden Warrants vest on 2002-09-01."""
    return base() + [
        e("InstrumentRegistered", "2002-03-01", instrument="P-1", holder=SANDLER,
          kind="preferred", quantity=1000, stated_value="100.00", conversion_price="4.00"),
        e("PreferredConverted", "2002-06-01", instrument="P-1", fraction="1",
          shares_issued=25_000),
        vest("2002-09-01", 500_000)]


def exercise(day: str, shares_issued: int, fraction: str = "1", instrument: str = "W-1") -> dict:
    return e("WarrantsExercised", day, instrument=instrument, fraction=fraction,
             shares_issued=shares_issued)


def exercised_then_vesting(camden_price: str) -> list[dict]:
    """W-1 (3.00) exercised whole on 2002-06-01 for 100,000 shares, a preferred P-1
    (conversion price 4.00) still held, then 500,000 Camden Warrants at ``camden_price``
    vest on 2002-09-01."""
    return base(camden_price=camden_price) + [
        e("InstrumentRegistered", "2002-03-01", instrument="P-1", holder=SANDLER,
          kind="preferred", quantity=1000, stated_value="100.00", conversion_price="4.00"),
        exercise("2002-06-01", 100_000),
        vest("2002-09-01", 500_000)]


def report(objs, as_of: str = "2010-01-01", **interpret) -> dict:
    timeline = build_timeline(build(objs), date.fromisoformat(as_of))
    out = true_up_report(timeline, resolve(interpret))
    json.dumps(out)  # JSON-ready
    return out["true_up"]


def one(rows: list[dict], **match) -> dict:
    found = [r for r in rows if all(r[k] == v for k, v in match.items())]
    assert len(found) == 1, (match, rows)
    return found[0]


# P1: the first vesting of 500,000 Camden Warrants at 1.50 against W-1 at 3.00
A1, C1 = 10_000_000, 500_000
B1 = Decimal(C1) * Decimal("1.50") / Decimal("3.00")              # 250,000
P1 = r4(Decimal("3.00") * (A1 + B1) / (A1 + C1))                   # 2.9286
X1 = floor(Decimal(100_000) * Decimal("3.00") / P1)                # 102,438


def test_hand_figures_are_what_they_say():
    assert B1 == 250_000 and P1 == Decimal("2.9286") and X1 == 102_438


def test_single_vesting_after_an_exercise():
    t = report(base() + [exercise("2002-06-01", 100_000), vest("2002-09-01", 500_000)])
    ex = one(t["exercises"], event="e5")
    assert ex["eligible"] is True
    assert ex["shares_issued"] == 100_000
    assert ex["entitled"] == X1
    assert ex["owed"] == X1 - 100_000
    assert t["holders"][DB] == {"owed": X1 - 100_000, "issued": 0,
                                "outstanding": X1 - 100_000, "over_issued": 0}
    assert ex["basis"]["clause"] == "Letter ¶3"
    assert ex["basis"]["events"] == ["e5", "e6"]
    assert ex["basis"]["interpretations"] == {
        "trueup_dividends": "frozen", "trueup_adjustments": "all",
        "same_day_vesting_and_exercise": "vesting_first"}
    assert ex["basis"]["arithmetic"].startswith(
        f"x = 100000 × 3.00 / {P1} = {X1} (rounded down); y = 100000; "
        f"owed = {X1} - 100000 = {X1 - 100_000}")
    change = one(t["adjustments"], event="e6", instrument="W-1")
    assert change["after"] == str(P1)
    basis = change["basis"]
    assert basis["clause"] == "Letter ¶2; Warrant Agreement Art. IV"
    assert basis["events"] == ["e6", "e3", "e2"]
    assert basis["inputs"]["A"] == A1 and basis["inputs"]["C"] == C1
    assert Decimal(basis["inputs"]["B"]) == B1
    assert basis["inputs"]["P"] == "3.00" and basis["inputs"]["P'"] == str(P1)
    assert basis["interpretations"] == {"trueup_dividends": "frozen",
                                        "camden_tranche_order": "earliest_first"}


def test_two_vestings_after_one_exercise_the_second_owes_the_increment():
    t = report(base() + [exercise("2002-06-01", 100_000), vest("2002-09-01", 500_000),
                         vest("2003-03-01", 300_000)])
    a2, c2 = A1 + 500_000, 300_000          # the first vesting is deemed outstanding
    b2 = Decimal(c2) * Decimal("1.50") / P1
    p2 = r4(P1 * (a2 + b2) / (a2 + c2))
    x2 = floor(Decimal(300_000) / p2)
    # by hand: P2 = (2.9286 × 10,500,000 + 300,000 × 1.50) / 10,800,000
    #             = (30,750,300 + 450,000) / 10,800,000 = 2.888916… → 2.8889;
    # x2 = 300,000 / 2.8889 = 103,845.75… → 103,845 (2.8889 × 103,846 = 300,000.69 > 300,000)
    assert (p2, x2) == (Decimal("2.8889"), 103_845)
    ex = one(t["exercises"], event="e5")
    first, second = ex["vestings"]
    assert (first["x"], first["owed"], first["earned"]) == (X1, X1 - 100_000, X1 - 100_000)
    assert first["increment"] == 2_438                 # 102,438 - 100,000
    assert second["price"] == "2.8889"
    assert second["x"] == 103_845
    # nothing issued yet: this vesting's x - y covers both; what it adds is the increment
    assert second["earned"] - first["earned"] == x2 - X1
    assert second["increment"] == 1_407                # 103,845 - 102,438
    assert ex["owed"] == 3_845                         # 2,438 + 1,407, not 2,438 + 3,845
    assert ex["owed"] == x2 - 100_000
    assert one(t["adjustments"], event="e7")["basis"]["inputs"]["A"] == a2


def test_a_true_up_issued_then_a_further_vesting_owes_only_the_increment():
    t = report(base() + [exercise("2002-06-01", 100_000), vest("2002-09-01", 500_000),
                         e("TrueUpSharesIssued", "2002-10-01", instrument="W-1",
                           shares=X1 - 100_000),
                         vest("2003-03-01", 300_000)])
    a2, c2 = A1 + 500_000, 300_000
    p2 = r4(P1 * (a2 + Decimal(c2) * Decimal("1.50") / P1) / (a2 + c2))
    x2 = floor(Decimal(300_000) / p2)
    assert x2 == 103_845                  # as in the test above: 300,000 / 2.8889
    ex = one(t["exercises"], event="e5")
    second = ex["vestings"][1]
    assert second["y"] == X1              # 100,000 at exercise + the true-up
    assert second["owed"] == x2 - X1 == 1_407   # 103,845 - (100,000 + 2,438)
    assert ex["true_up_shares"] == [{"event": "e7", "shares": 2_438}]
    assert (ex["owed"], ex["issued"], ex["outstanding"]) == (x2 - 100_000, X1 - 100_000,
                                                            x2 - X1)
    assert t["holders"][DB] == {"owed": x2 - 100_000, "issued": X1 - 100_000,
                                "outstanding": x2 - X1, "over_issued": 0}
    assert "e7" in ex["basis"]["events"]


def test_a_vesting_before_the_exercise_earns_no_true_up():
    t = report(base() + [vest("2002-09-01", 500_000), exercise("2002-10-01", X1)])
    ex = one(t["exercises"], event="e6")
    assert ex["price_at_exercise"] == str(P1)
    assert ex["implied_at_exercise"] == X1
    assert ex["vestings"] == [] and ex["owed"] == 0 and ex["entitled"] == X1
    assert t["discrepancies"] == []
    assert "nothing owed" in ex["basis"]["arithmetic"]


def test_the_cutoff_exercise_on_2004_02_01_earns_none_on_2004_01_30_earns():
    objs = base() + [
        e("InstrumentRegistered", "2002-03-01", instrument="W-2", holder=SANDLER,
          kind="warrant", shares=50_000, exercise_price="3.00"),
        exercise("2004-02-01", 100_000, instrument="W-1"),
        exercise("2004-01-30", 50_000, instrument="W-2"),
        vest("2004-06-01", 500_000)]
    t = report(objs)
    on_cutoff = one(t["exercises"], instrument="W-1")
    before = one(t["exercises"], instrument="W-2")
    assert on_cutoff["eligible"] is False and on_cutoff["owed"] == 0
    assert "not before 2004-02-01" in on_cutoff["basis"]["arithmetic"]
    x = floor(Decimal(50_000) * Decimal("3.00") / P1)
    # by hand: 150,000 / 2.9286 = 51,219.01… → 51,219 (2.9286 × 51,219 = 149,999.96)
    assert x == 51_219
    assert before["eligible"] is True and before["owed"] == x - 50_000 == 1_219
    assert t["holders"][DB]["owed"] == 0
    assert t["holders"][SANDLER]["owed"] == x - 50_000


def test_a_partial_exercise_counts_only_the_exercised_part():
    t = report(base() + [exercise("2002-06-01", 40_000, fraction="0.4"),
                         vest("2002-09-01", 500_000),
                         exercise("2003-01-02", floor(Decimal(90_000) / P1), fraction="0.5")])
    first = one(t["exercises"], event="e5")
    x = floor(Decimal(40_000) * Decimal("3.00") / P1)
    # by hand: 120,000 / 2.9286 = 40,975.2… → 40,975; owed 975. The second exercise takes
    # 0.5 of the 0.6 left = 0.3: 90,000 / 2.9286 = 30,731.4… → 30,731, and 0.3 is left
    assert x == 40_975
    assert first["owed"] == x - 40_000 == 975
    assert first["basis"]["arithmetic"].startswith(f"x = 40000 × 3.00 / {P1} = {x}")
    second = one(t["exercises"], event="e7")      # 0.5 of the 60,000 left = 30,000 at 3.00
    assert second["implied_at_exercise"] == floor(Decimal(30_000) * Decimal("3.00") / P1)
    assert second["vestings"] == [] and second["owed"] == 0
    w1 = one(t["instruments"], instrument="W-1")
    assert w1["exercised_fraction"] == "0.7"
    assert w1["shares"] == floor(Decimal(30_000) * Decimal("3.00") / P1) == 30_731
    assert w1["price"] == str(P1)


def test_a_preferred_conversion():
    objs = preferred_converted_then_vesting()
    t = report(objs)
    b = Decimal(500_000) * Decimal("1.50") / Decimal("4.00")        # 187,500
    p = r4(Decimal("4.00") * (A1 + b) / (A1 + 500_000))             # 3.8810
    x = floor(Decimal(1000) * Decimal("100.00") / p)
    # by hand: 100,000 / 3.8810 = 25,766.55… → 25,766 (3.8810 × 25,766 = 99,997.8); owed 766
    assert (p, x) == (Decimal("3.8810"), 25_766)
    ex = one(t["exercises"], event="e6")
    assert ex["kind"] == "preferred" and ex["implied_at_exercise"] == 25_000
    assert ex["owed"] == x - 25_000
    assert ex["basis"]["arithmetic"].startswith(f"x = 1000 × 100.00 / {p} = {x}")
    assert one(t["adjustments"], instrument="P-1")["basis"]["clause"] == \
        "Letter ¶2; Certificate of Designations §12"
    assert t["holders"][SANDLER]["owed"] == x - 25_000


def test_a_camden_price_not_below_the_holders_price_adjusts_nothing():
    objs = exercised_then_vesting(camden_price="3.50")
    t = report(objs)
    w1 = one(t["adjustments"], instrument="W-1")
    assert w1["before"] == w1["after"] == "3.00"
    assert "not below P = 3.00: no adjustment" in w1["basis"]["arithmetic"]
    ex = one(t["exercises"], instrument="W-1")
    assert ex["vestings"][0]["x"] == 100_000 and ex["owed"] == 0
    # 3.50 is below the preferred's 4.00: that one adjusts
    b = Decimal(500_000) * Decimal("3.50") / Decimal("4.00")
    # by hand: B = 437,500; 4.00 × 10,437,500 / 10,500,000 = 3.976190… → 3.9762
    assert one(t["instruments"], instrument="P-1")["price"] == \
        str(r4(Decimal("4.00") * (A1 + b) / (A1 + 500_000))) == "3.9762"


def test_full_ratchet_against_weighted_average_on_the_same_history():
    history = [exercise("2002-06-01", 100_000), vest("2002-09-01", 500_000)]
    weighted = report(base() + history)
    ratchet = report(base(formula="full_ratchet") + history)
    assert one(weighted["exercises"], event="e5")["owed"] == X1 - 100_000
    # full ratchet: P' = min(3.00, 1.50) = 1.50, written to 4 decimals;
    # x = 300,000 / 1.50 = 200,000
    r = one(ratchet["exercises"], event="e5")
    assert r["vestings"][0]["price"] == "1.5000"
    assert r["owed"] == 200_000 - 100_000
    assert ratchet["formula"] == "full_ratchet"
    assert "min(3.00, 1.5000) = 1.5000" in one(ratchet["adjustments"], event="e6")["basis"]["arithmetic"]


def test_cancelled_camden_warrants_never_adjust():
    objs = base() + [
        e("InstrumentRegistered", "2002-03-01", instrument="W-2", holder=SANDLER,
          kind="warrant", shares=50_000, exercise_price="3.00"),
        e("CamdenWarrantsCancelled", "2002-05-01", holder=CAMDEN, warrants=400_000),
        vest("2002-09-01", 600_000),
        vest("2002-10-01", 100_000)]       # none left to vest: adjusts nothing
    t = report(objs)
    p = r4(Decimal("3.00") * (A1 + Decimal(600_000) * Decimal("1.50") / Decimal("3.00"))
           / (A1 + 600_000))                                         # 2.9151
    w2 = one(t["instruments"], instrument="W-2")
    assert w2["price"] == str(p)
    assert w2["deferred_price_if_all_vest"] == str(p)   # nothing unvested is left
    assert t["camden"][CAMDEN] == {"issued": 1_000_000, "vested": 600_000,
                                   "cancelled": 400_000, "unvested": 0}
    assert [v["event"] for v in t["vestings"]] == ["e7"]
    assert any(pr["event"] == "e8" for pr in t["problems"])


def test_an_adjustment_recorded_between_vestings():
    t = report(base() + [exercise("2002-06-01", 100_000), vest("2002-09-01", 500_000),
                         e("AdjustmentRecorded", "2002-12-01", instrument="W-1",
                           new_price="2.50", reason="common stock issued below the price"),
                         vest("2003-03-01", 300_000)])
    a2, c2 = A1 + 500_000, 300_000
    b2 = Decimal(c2) * Decimal("1.50") / Decimal("2.50")            # 180,000
    p2 = r4(Decimal("2.50") * (a2 + b2) / (a2 + c2))                # 2.4722
    x2 = floor(Decimal(300_000) / p2)
    # by hand: (2.50 × 10,500,000 + 450,000) / 10,800,000 = 26,700,000 / 10,800,000
    #        = 2.472222… → 2.4722; x2 = 300,000 / 2.4722 = 121,349.4… → 121,349
    assert (p2, x2) == (Decimal("2.4722"), 121_349)
    ex = one(t["exercises"], event="e5")
    assert [s["event"] for s in ex["vestings"]] == ["e6", "e8"]    # the adjustment is no vesting
    assert ex["vestings"][1]["price"] == str(p2)
    assert ex["owed"] == x2 - 100_000
    recorded = one(t["adjustments"], event="e7")
    assert (recorded["cause"], recorded["before"], recorded["after"]) == \
        ("AdjustmentRecorded", str(P1), "2.50")


def test_shares_issued_below_the_price_in_force_is_a_discrepancy():
    t = report(base() + [vest("2002-09-01", 500_000), exercise("2002-10-01", 100_000),
                         vest("2003-03-01", 300_000)])
    d = one(t["discrepancies"], kind="shares_issued_below_price")
    assert (d["event"], d["price"], d["implied"], d["shares_issued"], d["short"]) == \
        ("e6", str(P1), X1, 100_000, X1 - 100_000)
    a2, c2 = A1 + 500_000, 300_000
    p2 = r4(P1 * (a2 + Decimal(c2) * Decimal("1.50") / P1) / (a2 + c2))
    x2 = floor(Decimal(300_000) / p2)
    # Letter ¶3: y is what was actually issued, so the later x - y includes the shortfall
    assert one(t["exercises"], event="e6")["owed"] == x2 - 100_000


def test_a_vesting_on_the_exercise_date_is_in_force_at_the_exercise():
    # the exercise is recorded first (lower seq), but the vesting of the same day applies
    t = report(base() + [exercise("2002-09-01", 100_000), vest("2002-09-01", 500_000)])
    ex = one(t["exercises"], event="e5")
    assert ex["price_at_exercise"] == str(P1) and ex["vestings"] == [] and ex["owed"] == 0
    assert one(t["discrepancies"], event="e5")["short"] == X1 - 100_000


def test_broad_and_narrow_two_tranches_on_one_day_are_one_adjustment():
    """SPEC §5.2: the vestings of one day are one adjustment, C and B summed, rounded once:
    300,000 and 200,000 on one day give exactly the one-tranche price P1, broad or narrow."""
    tranches = [vest("2002-09-01", 300_000), vest("2002-09-01", 200_000)]
    broad = report(base() + tranches)
    narrow = report(base(formula="weighted_average_narrow") + tranches)
    # C = 500,000, B = (300,000 + 200,000) × 1.50 / 3.00 = 250,000:
    # 3.00 × 10,250,000 / 10,500,000 = 2.928571… → 2.9286 = P1
    assert one(broad["instruments"], instrument="W-1")["price"] == str(P1) == "2.9286"
    assert one(narrow["instruments"], instrument="W-1")["price"] == "2.9286"
    [adj] = broad["adjustments"]
    assert adj["vestings"] == ["e5", "e6"] and adj["basis"]["inputs"]["C"] == 500_000
    assert [v["adjusted_with"] for v in broad["vestings"]] == ["e5", "e5"]


def test_broad_and_narrow_two_tranches_on_two_days():
    tranches = [vest("2002-09-01", 200_000), vest("2002-10-01", 300_000)]
    broad = report(base() + tranches)
    narrow = report(base(formula="weighted_average_narrow") + tranches)
    pa = r4(Decimal("3.00") * (A1 + Decimal(200_000) * Decimal("1.50") / Decimal("3.00"))
            / (A1 + 200_000))                                        # 2.9706
    a_broad = A1 + 200_000
    pb_broad = r4(pa * (a_broad + Decimal(300_000) * Decimal("1.50") / pa)
                  / (a_broad + 300_000))
    pb_narrow = r4(pa * (A1 + Decimal(300_000) * Decimal("1.50") / pa) / (A1 + 300_000))
    # by hand: 3.00 × (10,000,000 + 100,000) / 10,200,000 = 2.970588… → 2.9706; then
    # broad A = 10,200,000:
    #   (2.9706 × 10,200,000 + 450,000) / 10,500,000 = 30,750,120 / 10,500,000 = 2.928582… → 2.9286
    # narrow A = 10,000,000: (29,706,000 + 450,000) / 10,300,000 = 2.927766… → 2.9278
    assert (pa, pb_broad, pb_narrow) == (Decimal("2.9706"), Decimal("2.9286"), Decimal("2.9278"))
    assert one(broad["instruments"], instrument="W-1")["price"] == str(pb_broad)
    assert one(narrow["instruments"], instrument="W-1")["price"] == str(pb_narrow)
    assert pb_narrow < pb_broad
    narrow_basis = one(narrow["adjustments"], event="e6")["basis"]
    assert narrow_basis["inputs"]["A"] == A1 and "narrow" in narrow_basis["arithmetic"]


def test_the_adjustment_still_deferred_if_every_unvested_warrant_vested():
    t = report(base() + [vest("2002-09-01", 500_000)], as_of="2003-01-01")
    a, c = A1 + 500_000, 500_000
    deferred = r4(P1 * (a + Decimal(c) * Decimal("1.50") / P1) / (a + c))
    w1 = one(t["instruments"], instrument="W-1")
    assert w1["price"] == str(P1) and w1["shares"] == X1
    assert w1["deferred_price_if_all_vest"] == str(deferred)
    assert w1["deferred_shares_if_all_vest"] == floor(Decimal(300_000) / deferred)
    assert w1["exercised_fraction"] == "0"
    assert w1["deferred_basis"]["clause"] == "Letter ¶2; Warrant Agreement Art. IV"


def test_consideration_paid_for_the_camden_warrants_enters_b():
    t = report(base(consideration="100000.00") + [vest("2002-09-01", 500_000)])
    # consideration for the 500,000 vested of 1,000,000 issued: 50,000
    b = (Decimal(500_000) * Decimal("1.50") + Decimal("100000.00") * 500_000 / 1_000_000) \
        / Decimal("3.00")
    p = r4(Decimal("3.00") * (A1 + b) / (A1 + 500_000))             # 2.9333
    assert one(t["instruments"], instrument="W-1")["price"] == str(p)


def test_camden_tranche_order_earliest_first_against_latest_first():
    """SPEC §6 camden_tranche_order (Letter ¶2, Camden Warrant Agreement): CAMDEN holds two
    issuances of 2002-02-01, e3 (300,000 at 1.50, recorded first) and e4 (400,000 at 2.00);
    500,000 vest on 2002-09-01, one adjustment for the day (SPEC §5.2)."""
    objs = [opened(DEAL, "infocrossing-letter-2002"),
            e("CapitalizationRecorded", "2002-02-01", common_outstanding=10_000_000),
            e("CamdenWarrantsIssued", "2002-02-01", holder=CAMDEN, warrants=300_000,
              exercise_price="1.50"),
            e("CamdenWarrantsIssued", "2002-02-01", holder=CAMDEN, warrants=400_000,
              exercise_price="2.00"),
            e("InstrumentRegistered", "2002-03-01", instrument="W-1", holder=DB,
              kind="warrant", shares=100_000, exercise_price="3.00"),
            vest("2002-09-01", 500_000)]
    earliest = report(objs)
    latest = report(objs, camden_tranche_order="latest_first")
    # earliest_first: all of e3 (300,000 × 1.50 = 450,000) and 200,000 of e4 (× 2.00 =
    # 400,000): (3.00 × 10,000,000 + 850,000) / 10,500,000 = 30,850,000 / 10,500,000
    # = 2.938095… → 2.9381
    assert [(tr["issuance"], tr["warrants"]) for tr in earliest["vestings"][0]["tranches"]] == \
        [("e3", 300_000), ("e4", 200_000)]
    assert one(earliest["instruments"], instrument="W-1")["price"] == "2.9381"
    # latest_first: all of e4 (400,000 × 2.00 = 800,000) and 100,000 of e3 (× 1.50 =
    # 150,000): (30,000,000 + 950,000) / 10,500,000 = 2.947619… → 2.9476
    assert [(tr["issuance"], tr["warrants"]) for tr in latest["vestings"][0]["tranches"]] == \
        [("e4", 400_000), ("e3", 100_000)]
    assert one(latest["instruments"], instrument="W-1")["price"] == "2.9476"
    # what is left unvested differs too: 200,000 at 2.00 (earliest) or 200,000 at 1.50
    assert earliest["camden"][CAMDEN]["unvested"] == latest["camden"][CAMDEN]["unvested"] \
        == 200_000


def test_trueup_dividends_to_vesting_date_converts_the_accrued_dividends():
    """1,000 Shares, stated value 100.00 (100,000), at 4.00 converted whole on 2002-06-01
    (25,000 shares); 500,000 vest on 2002-09-01: P' = 3.8810 (test_a_preferred_conversion).
    The template's preferred_dividends: 8% a year of the stated value, 30/360."""
    objs = preferred_converted_then_vesting()
    frozen = report(objs)
    to_vesting = report(objs, trueup_dividends="to_vesting_date")
    f, v = one(frozen["exercises"], event="e6"), one(to_vesting["exercises"], event="e6")
    # frozen: x = 100,000 / 3.8810 = 25,766.55… → 25,766; owed 766
    assert (f["entitled"], f["owed"]) == (25_766, 766)
    # to_vesting_date: 30/360 days 2002-06-01 → 2002-09-01 = 3 × 30 = 90;
    # accrued = 100,000 × 8% × 90/360 = 2,000.00;
    # x = (100,000 + 2,000) / 3.8810 = 26,281.88… → 26,281; owed 26,281 - 25,000 = 1,281
    assert (v["entitled"], v["owed"]) == (26_281, 1_281)
    assert v["vestings"][0]["x"] == 26_281
    assert "(1000 × 100.00 + 2000 accrued dividends) / 3.8810 = 26281" in \
        v["basis"]["arithmetic"]
    assert v["basis"]["interpretations"]["trueup_dividends"] == "to_vesting_date"
    assert "8.00% a year of the stated value, 30/360" in v["basis"]["rule"]
    assert "anti-dilution only" in f["basis"]["rule"]
    assert to_vesting["notes"] and not frozen["notes"]
    # a deal without dividend terms, or whose accrued dividends do not convert: nothing
    # is added, and the rule says why
    for terms, why in ((None, "no preferred_dividends terms"),
                       ({"rate": "8.00", "day_count": "30/360", "convert_accrued": False},
                        "do not convert")):
        other = [opened(DEAL, "infocrossing-letter-2002", preferred_dividends=terms)] + objs[1:]
        w = one(report(other, trueup_dividends="to_vesting_date")["exercises"], event="e6")
        assert w["owed"] == 766 and why in w["basis"]["rule"]
    with pytest.raises(ValueError):
        true_up_report(build_timeline(build(objs), date(2010, 1, 1)),
                       {"trueup_dividends": "sometimes"})


def test_a_retracted_vesting_no_longer_counts():
    objs = base() + [exercise("2002-06-01", 100_000), vest("2002-09-01", 500_000),
                     e("EventRetracted", "2002-09-02", event_id="e6", reason="entered twice")]
    t = report(objs)
    assert one(t["exercises"], event="e5")["owed"] == 0
    assert one(t["instruments"], instrument="W-1")["price"] == "3.00"


def test_holders_add_up_their_instruments_and_unexercised_holders_show_zero():
    objs = base() + [
        e("InstrumentRegistered", "2002-03-01", instrument="P-1", holder=DB,
          kind="preferred", quantity=1000, stated_value="100.00", conversion_price="4.00"),
        e("InstrumentRegistered", "2002-03-01", instrument="W-2", holder=SANDLER,
          kind="warrant", shares=50_000, exercise_price="3.00"),
        exercise("2002-06-01", 100_000),
        e("PreferredConverted", "2002-06-01", instrument="P-1", fraction="1",
          shares_issued=25_000),
        vest("2002-09-01", 500_000)]
    t = report(objs)
    p_pref = r4(Decimal("4.00") * (A1 + Decimal(500_000) * Decimal("1.50") / Decimal("4.00"))
                / (A1 + 500_000))
    owed = (X1 - 100_000) + (floor(Decimal(100_000) / p_pref) - 25_000)
    assert t["holders"][DB]["owed"] == owed
    assert t["holders"][SANDLER] == {"owed": 0, "issued": 0, "outstanding": 0,
                                     "over_issued": 0}
    assert one(t["instruments"], instrument="W-1")["owed"] == X1 - 100_000


def test_a_true_up_beyond_what_is_owed_is_over_issued_and_counts_in_y():
    t = report(base() + [exercise("2002-06-01", 100_000), vest("2002-09-01", 500_000),
                         e("TrueUpSharesIssued", "2002-10-01", instrument="W-1", shares=5_000),
                         vest("2003-03-01", 300_000)])
    a2, c2 = A1 + 500_000, 300_000
    p2 = r4(P1 * (a2 + Decimal(c2) * Decimal("1.50") / P1) / (a2 + c2))
    x2 = floor(Decimal(300_000) / p2)
    ex = one(t["exercises"], event="e5")
    # the 5,000 shares are one issue: 2,438 against what was owed, 2,562 beyond it, both
    # credited to the only eligible exercise and listed once
    assert ex["true_up_shares"] == [{"event": "e7", "shares": 5_000}]
    assert ex["vestings"][1]["y"] == 105_000
    assert ex["vestings"][1]["owed"] == max(0, x2 - 105_000)
    assert ex["issued"] == 5_000
    over = one(t["discrepancies"], kind="true_up_over_issued")
    assert over["beyond_outstanding"] == 5_000 - (X1 - 100_000)
    h = t["holders"][DB]
    assert h["owed"] - h["issued"] == h["outstanding"] - h["over_issued"]


def test_adjustment_recorded_for_all_and_a_missing_capitalization():
    objs = [opened(DEAL, "infocrossing-letter-2002"),
            e("CamdenWarrantsIssued", "2002-02-01", holder=CAMDEN, warrants=1_000_000,
              exercise_price="1.50"),
            e("InstrumentRegistered", "2002-03-01", instrument="W-1", holder=DB,
              kind="warrant", shares=100_000, exercise_price="3.00"),
            e("InstrumentRegistered", "2002-03-01", instrument="W-2", holder=SANDLER,
              kind="warrant", shares=50_000, exercise_price="3.00"),
            e("AdjustmentRecorded", "2002-04-01", instrument="all", new_price="1.50",
              reason="2-for-1 split"),
            vest("2002-09-01", 500_000)]
    t = report(objs)
    w1 = one(t["instruments"], instrument="W-1")
    assert w1["price"] == "1.50" and w1["shares"] == 200_000   # 100,000 × 3.00 / 1.50
    assert one(t["instruments"], instrument="W-2")["shares"] == 100_000
    assert any("no capitalization" in p["problem"] for p in t["problems"])
    assert w1["deferred_price_if_all_vest"] is None


def test_spec_section_7_keys():
    t = report(base() + [exercise("2002-06-01", 100_000, fraction="0.5"),
                         vest("2002-09-01", 500_000)])
    assert set(t["holders"][DB]) >= {"owed", "issued", "outstanding"}
    assert set(t["instruments"][0]) >= {"instrument", "holder", "kind", "price", "shares",
                                        "exercised_fraction", "deferred_price_if_all_vest"}
    assert set(t["exercises"][0]) >= {"event", "instrument", "date", "eligible",
                                      "shares_issued", "entitled", "owed"}
    assert isinstance(t["instruments"][0]["price"], str)
    assert isinstance(t["instruments"][0]["shares"], int)
    assert t["exercises"][0]["date"] == "2002-06-01"


def test_the_deferred_what_if_vests_every_issuance_on_one_day():
    objs = base() + [e("CamdenWarrantsIssued", "2002-02-01", holder=CAMDEN_B, warrants=400_000,
                       exercise_price="2.00")]
    t = report(objs, as_of="2002-12-31")
    # the what-if vests e3 (1,000,000 at 1.50) and e5 (400,000 at 2.00) on as_of: one day,
    # one adjustment (SPEC §5.2): C = 1,400,000, B × P = 1,500,000 + 800,000 = 2,300,000;
    # (3.00 × 10,000,000 + 2,300,000) / 11,400,000 = 32,300,000 / 11,400,000 = 2.833333… → 2.8333
    pb = r4((Decimal("3.00") * A1 + 2_300_000) / (A1 + 1_400_000))
    w1 = one(t["instruments"], instrument="W-1")
    assert w1["price"] == "3.00"            # nothing has vested: nothing applies yet
    assert w1["deferred_price_if_all_vest"] == str(pb) == "2.8333"
    [part] = w1["deferred_basis"]["parts"]
    assert part["inputs"]["A"] == A1 and part["inputs"]["C"] == 1_400_000
    assert part["events"] == ["e3", "e5", "e2"]   # event ids only: the what-if is no event


# ---------------------------------------------------------------- worked by hand, literal


def test_a_camden_price_equal_to_the_holders_price_adjusts_nothing():
    """Not below P is no adjustment (SPEC §5.2): 3.00 against W-1 at 3.00."""
    objs = exercised_then_vesting(camden_price="3.00")
    t = report(objs)
    w1 = one(t["adjustments"], instrument="W-1")
    assert (w1["before"], w1["after"]) == ("3.00", "3.00")
    ex = one(t["exercises"], event="e6")
    # x = 100,000 × 3.00 / 3.00 = 100,000 = y: nothing owed
    assert (ex["vestings"][0]["x"], ex["vestings"][0]["y"], ex["owed"]) == (100_000, 100_000, 0)
    # P-1 at 4.00: B = 500,000 × 3.00 / 4.00 = 375,000;
    # P' = 4.00 × 10,375,000 / 10,500,000 = 41,500,000 / 10,500,000 = 3.952380… → 3.9524;
    # shares = 1,000 × 100.00 / 3.9524 = 25,301.08… → 25,301
    p1 = one(t["instruments"], instrument="P-1")
    assert (p1["price"], p1["shares"]) == ("3.9524", 25_301)


def test_full_ratchet_then_a_camden_price_above_the_ratcheted_price():
    """Two issuances: 1.50 (e3) and 2.00 (e5). Full ratchet to 1.50, then 2.00 is not
    below it; the weighted average on the same history keeps falling."""
    history = [e("CamdenWarrantsIssued", "2002-02-01", holder=CAMDEN_B, warrants=400_000,
                 exercise_price="2.00"),
               exercise("2002-06-01", 100_000),
               vest("2002-09-01", 500_000),
               vest("2003-03-01", 400_000, holder=CAMDEN_B)]
    ratchet = one(report(base(formula="full_ratchet") + history)["exercises"], event="e6")
    # min(3.00, 1.50) = 1.5000, x = 300,000 / 1.50 = 200,000; min(1.5000, 2.0000) = 1.5000
    assert [(s["price"], s["x"], s["increment"]) for s in ratchet["vestings"]] == \
        [("1.5000", 200_000, 100_000), ("1.5000", 200_000, 0)]
    assert ratchet["owed"] == 100_000
    broad = one(report(base() + history)["exercises"], event="e6")
    # first 2.9286, x 102,438 (P1, X1); then A = 10,500,000, C = 400,000 at 2.00:
    # (2.9286 × 10,500,000 + 800,000) / 10,900,000 = 31,550,300 / 10,900,000 = 2.894522… → 2.8945
    # x = 300,000 / 2.8945 = 103,644.84… → 103,644
    assert [(s["price"], s["x"]) for s in broad["vestings"]] == \
        [("2.9286", 102_438), ("2.8945", 103_644)]
    assert broad["owed"] == 3_644


def test_a_partial_preferred_conversion():
    """A quarter of 1,000 Shares of 100.00 stated value at 4.00 converts into
    250 × 100.00 / 4.00 = 6,250 shares."""
    objs = base() + [
        e("InstrumentRegistered", "2002-03-01", instrument="P-1", holder=SANDLER,
          kind="preferred", quantity=1000, stated_value="100.00", conversion_price="4.00"),
        e("PreferredConverted", "2002-06-01", instrument="P-1", fraction="0.25",
          shares_issued=6_250),
        vest("2002-09-01", 500_000)]
    t = report(objs)
    # B = 500,000 × 1.50 / 4.00 = 187,500; P' = 4.00 × 10,187,500 / 10,500,000 = 3.880952… → 3.8810
    # x = 25,000 / 3.8810 = 6,441.63… → 6,441 (3.8810 × 6,442 = 25,001.4 > 25,000); owed 191
    ex = one(t["exercises"], event="e6")
    assert (ex["implied_at_exercise"], ex["vestings"][0]["price"], ex["entitled"], ex["owed"]) \
        == (6_250, "3.8810", 6_441, 191)
    assert ex["basis"]["arithmetic"].startswith("x = 250 × 100.00 / 3.8810 = 6441")
    # what is left: 750 Shares: 75,000 / 3.8810 = 19,324.9… → 19,324
    p1 = one(t["instruments"], instrument="P-1")
    assert (p1["exercised_fraction"], p1["price"], p1["shares"]) == ("0.25", "3.8810", 19_324)
    assert t["holders"][SANDLER] == {"owed": 191, "issued": 0, "outstanding": 191,
                                     "over_issued": 0}


def test_a_cancellation_between_an_exercise_and_the_vesting():
    """1,000,000 issued; 400,000 cancelled; 600,000 vest; W-1 exercised before."""
    objs = base() + [exercise("2002-04-01", 100_000),
                     e("CamdenWarrantsCancelled", "2002-05-01", holder=CAMDEN, warrants=400_000),
                     vest("2002-09-01", 600_000)]
    t = report(objs)
    # B = 600,000 × 1.50 / 3.00 = 300,000; P' = 3.00 × 10,300,000 / 10,600,000 = 2.915094… → 2.9151
    # x = 300,000 / 2.9151 = 102,912.4… → 102,912; owed 2,912. The cancelled 400,000 adjust
    # nothing, and nothing is left to defer.
    ex = one(t["exercises"], event="e5")
    assert (ex["vestings"][0]["price"], ex["entitled"], ex["owed"]) == ("2.9151", 102_912, 2_912)
    assert t["camden"][CAMDEN]["unvested"] == 0


def test_same_day_adjustments_for_all_and_for_one_instrument_go_by_seq():
    """A 2-for-1 split recorded for P-1 at 2.00 (e6) and then for "all" at 1.50 (e7) on the
    same day: SPEC §1, the later-recorded one stands, never an order from the data; one
    price for instruments at 3.00 and 4.00 is reported as a problem."""
    named = e("AdjustmentRecorded", "2002-04-01", instrument="P-1", new_price="2.00",
              reason="2-for-1 split")
    every = e("AdjustmentRecorded", "2002-04-01", instrument="all", new_price="1.50",
              reason="2-for-1 split")
    p1 = e("InstrumentRegistered", "2002-03-01", instrument="P-1", holder=SANDLER,
           kind="preferred", quantity=1000, stated_value="100.00", conversion_price="4.00")
    t = report(base() + [p1, named, every])
    # W-1: 300,000 / 1.50 = 200,000; P-1 at 1.50 (e7 last): 100,000 / 1.50 = 66,666.67 → 66,666
    assert (one(t["instruments"], instrument="W-1")["price"],
            one(t["instruments"], instrument="W-1")["shares"]) == ("1.50", 200_000)
    assert (one(t["instruments"], instrument="P-1")["price"],
            one(t["instruments"], instrument="P-1")["shares"]) == ("1.50", 66_666)
    problem = one(t["problems"], event="e7")
    assert "different prices (2.00, 3.00)" in problem["problem"]
    # recorded the other way round, P-1's own record (now last) stands:
    # 1,000 × 100.00 / 2.00 = 50,000
    t = report(base() + [p1, every, named])
    assert (one(t["instruments"], instrument="P-1")["price"],
            one(t["instruments"], instrument="P-1")["shares"]) == ("2.00", 50_000)


def test_an_adjustment_after_an_eligible_exercise_is_counted_in_x_and_flagged():
    """Letter ¶3 x counts "all anti-dilution adjustments"; a split after the exercise
    would need y restated, which the log cannot do: the figure stands and is flagged."""
    t = report(base() + [exercise("2002-06-01", 100_000),
                         e("AdjustmentRecorded", "2002-07-01", instrument="W-1",
                           new_price="1.50", reason="2-for-1 split"),
                         vest("2002-09-01", 500_000)])
    # after the split P = 1.50; the Camden price 1.50 is not below it: no adjustment;
    # x = 300,000 / 1.50 = 200,000; y = 100,000; owed 100,000 as the words read
    ex = one(t["exercises"], event="e5")
    assert (ex["vestings"][0]["x"], ex["vestings"][0]["y"], ex["owed"]) == \
        (200_000, 100_000, 100_000)
    problem = one(t["problems"], event="e6")
    assert "e5" in problem["problem"] and "not restated" in problem["problem"]
