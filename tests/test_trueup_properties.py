"""Properties of the deferral and true-up (Letter ¶2, ¶3; SPEC §5), on random histories."""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import date
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from projections.interpretations import resolve
from projections.timeline import build_timeline
from projections.trueup.report import build as true_up_report
from tests.support import build, ev, opened

DEAL = "ltr"
HOLDERS = ["DB Capital Investors, L.P.", "Sandler Capital Partners V, L.P.", "Benake L.P."]
CAMDENS = ["Camden Partners Strategic Fund II-A, L.P.", "Strategic Associates, L.P."]
DATES = ["2002-03-01", "2002-06-01", "2002-09-01", "2003-01-02", "2004-01-30", "2004-02-01",
         "2004-06-01"]
FORMULAS = ["weighted_average_broad", "weighted_average_narrow", "full_ratchet"]
#: seeded in CI; DEAL_LEDGER_LONG=N multiplies the examples for a long run
SETTINGS = settings(max_examples=60 * int(os.environ.get("DEAL_LEDGER_LONG", "1") or 1),
                    deadline=None, derandomize=True)


def e(type_: str, day: str, **data) -> dict:
    return ev(type_, day, deal=DEAL, **data)


def price(low: int, high: int):
    """A price with two decimals between low/100 and high/100."""
    return st.integers(low, high).map(lambda n: str(Decimal(n) / 100))


@st.composite
def histories(draw) -> list[dict]:
    objs = [opened(DEAL, "infocrossing-letter-2002", formula=draw(st.sampled_from(FORMULAS))),
            e("CapitalizationRecorded", "2002-02-01",
              common_outstanding=draw(st.integers(1_000_000, 50_000_000)))]
    if draw(st.booleans()):
        objs.append(e("CapitalizationRecorded", draw(st.sampled_from(DATES)),
                      common_outstanding=draw(st.integers(1_000_000, 50_000_000))))
    for _ in range(draw(st.integers(1, 2))):
        objs.append(e("CamdenWarrantsIssued", draw(st.sampled_from(["2002-02-01", *DATES[:3]])),
                      holder=draw(st.sampled_from(CAMDENS)),
                      warrants=draw(st.integers(10_000, 2_000_000)),
                      exercise_price=draw(price(50, 500)),
                      consideration=draw(st.sampled_from(["0", "1000.00", "250000.00"]))))
    names = []
    for i in range(draw(st.integers(1, 3))):
        name, holder = f"I-{i}", draw(st.sampled_from(HOLDERS))
        if draw(st.booleans()):
            objs.append(e("InstrumentRegistered", "2002-03-01", instrument=name, holder=holder,
                          kind="warrant", shares=draw(st.integers(1_000, 1_000_000)),
                          exercise_price=draw(price(100, 600))))
            kind = "WarrantsExercised"
        else:
            objs.append(e("InstrumentRegistered", "2002-03-01", instrument=name, holder=holder,
                          kind="preferred", quantity=draw(st.integers(1, 10_000)),
                          stated_value=draw(price(1_000, 100_000)),
                          conversion_price=draw(price(100, 600))))
            kind = "PreferredConverted"
        names.append(name)
        for _ in range(draw(st.integers(0, 2))):
            objs.append(e(kind, draw(st.sampled_from(DATES)), instrument=name,
                          fraction=draw(st.sampled_from(["0.25", "0.5", "1"])),
                          shares_issued=draw(st.integers(1, 1_000_000))))
    for _ in range(draw(st.integers(0, 4))):
        objs.append(e("CamdenWarrantsVested", draw(st.sampled_from(DATES)),
                      holder=draw(st.sampled_from(CAMDENS)),
                      warrants=draw(st.integers(1, 1_000_000))))
    if draw(st.booleans()):
        objs.append(e("CamdenWarrantsCancelled", draw(st.sampled_from(DATES)),
                      holder=draw(st.sampled_from(CAMDENS)),
                      warrants=draw(st.integers(1, 500_000))))
    if draw(st.booleans()):
        objs.append(e("AdjustmentRecorded", draw(st.sampled_from(DATES)),
                      instrument=draw(st.sampled_from([*names, "all"])),
                      new_price=draw(price(50, 600)), reason="other issuance"))
    if draw(st.booleans()):
        objs.append(e("TrueUpSharesIssued", draw(st.sampled_from(DATES)),
                      instrument=draw(st.sampled_from(names)),
                      shares=draw(st.integers(1, 20_000))))
    return objs


def report(events, **interpret) -> dict:
    return true_up_report(build_timeline(events, date(2010, 1, 1)), resolve(interpret))["true_up"]


@SETTINGS
@given(histories())
def test_prices_never_rise_through_camden_vesting(objs):
    t = report(build(objs))
    for change in t["adjustments"]:
        if change["cause"] == "CamdenWarrantsVested":
            assert Decimal(change["after"]) <= Decimal(change["before"])
    for row in t["instruments"]:
        if row["deferred_price_if_all_vest"] is not None:
            assert Decimal(row["deferred_price_if_all_vest"]) <= Decimal(row["price"])


@SETTINGS
@given(histories(), st.sampled_from(["frozen", "to_vesting_date"]))
def test_owed_is_never_negative(objs, dividends):
    t = report(build(objs), trueup_dividends=dividends)
    for ex in t["exercises"]:
        assert ex["owed"] >= 0 and ex["outstanding"] >= 0
        assert all(s["owed"] >= 0 and s["earned"] >= 0 for s in ex["vestings"])
        if not ex["eligible"]:
            assert ex["owed"] == 0 and ex["vestings"] == []
    for h in t["holders"].values():
        assert min(h.values()) >= 0
        assert h["owed"] - h["issued"] == h["outstanding"] - h["over_issued"]


@SETTINGS
@given(cap=st.integers(100_000, 50_000_000), total=st.integers(2, 2_000_000),
       split=st.floats(0.01, 0.99), holder_price=price(100, 600), camden_price=price(50, 500),
       consideration=st.sampled_from(["0", "5000.00", "300000.00"]))
def test_broad_one_tranche_or_two_on_one_day_give_the_same_price(
        cap, total, split, holder_price, camden_price, consideration):
    first = min(total - 1, max(1, int(total * split)))

    def price_after(tranches: list[int]) -> Decimal:
        objs = [opened(DEAL, "infocrossing-letter-2002"),
                e("CapitalizationRecorded", "2002-02-01", common_outstanding=cap),
                e("CamdenWarrantsIssued", "2002-02-01", holder=CAMDENS[0], warrants=total,
                  exercise_price=camden_price, consideration=consideration),
                e("InstrumentRegistered", "2002-03-01", instrument="W-1", holder=HOLDERS[0],
                  kind="warrant", shares=100_000, exercise_price=holder_price)]
        objs += [e("CamdenWarrantsVested", "2002-09-01", holder=CAMDENS[0], warrants=n)
                 for n in tranches]
        return Decimal(report(build(objs))["instruments"][0]["price"])

    one, two = price_after([total]), price_after([first, total - first])
    assert one == two        # SPEC §5.2: one adjustment per vesting day, rounded once


@SETTINGS
@given(histories(), st.data())
def test_recording_order_matters_only_within_one_kind_of_one_day(objs, data):
    """SPEC §1: events of one day count in the order they were recorded. Any recording
    order that keeps, for each (date, kind), the same relative order of its events gives
    the same report: across days and kinds, ``seq`` decides nothing. (Under the default
    ``same_day_adjustment = as_recorded``, a day's adjustments, vestings, cancellations,
    exercises and conversions count in their recorded order with each other: one kind.)"""
    from ledger.dayorder import LETTER_DAY_ORDER, rank

    together = range(LETTER_DAY_ORDER["AdjustmentRecorded"],
                     LETTER_DAY_ORDER["WarrantsExercised"] + 1)

    def kind(type_: str) -> int:
        return together[0] if LETTER_DAY_ORDER.get(type_) in together else rank(type_)

    order = data.draw(st.permutations(range(len(objs))))
    group = {i: (o["date"], kind(o["type"])) for i, o in enumerate(objs)}
    # re-sort each (date, kind) group's members into their original relative order
    slots: dict[tuple, list[int]] = {}
    for i in order:
        slots.setdefault(group[i], []).append(i)
    for members in slots.values():
        members.sort(reverse=True)
    order = [slots[group[i]].pop() for i in order]

    def events_in(order_: list[int]):
        built = build([objs[i] for i in order_])   # seq and recorded_at follow order_
        return [replace(event, id=f"x{i}") for i, event in zip(order_, built)]

    assert report(events_in(list(range(len(objs))))) == report(events_in(order))


def _with_formula(objs: list[dict], formula: str) -> list[dict]:
    """The same history under another formula, without AdjustmentRecorded events."""
    opened_ = {**objs[0], "data": {**objs[0]["data"],
                                   "terms": {**objs[0]["data"]["terms"], "formula": formula}}}
    return [opened_] + [o for o in objs[1:] if o["type"] != "AdjustmentRecorded"]


@SETTINGS
@given(histories())
def test_full_ratchet_never_leaves_a_price_above_a_weighted_average(objs):
    """Full ratchet takes the lowest Camden price; a weighted average of P and Camden
    prices is never below it, and half-up rounding keeps the order (SPEC §5.2)."""
    prices = {f: {r["instrument"]: Decimal(r["price"])
                  for r in report(build(_with_formula(objs, f)))["instruments"]}
              for f in FORMULAS}
    for name, ratchet in prices["full_ratchet"].items():
        assert ratchet <= prices["weighted_average_broad"][name]
        assert ratchet <= prices["weighted_average_narrow"][name]


@SETTINGS
@given(histories())
def test_each_vesting_adds_its_increment_and_earned_never_falls(objs):
    """Letter ¶3 "from time to time": what an exercise has earned only grows, and the
    vestings' increments add up to it."""
    for ex in report(build(objs))["exercises"]:
        earned = [s["earned"] for s in ex["vestings"]]
        assert earned == sorted(earned)
        assert all(s["increment"] >= 0 for s in ex["vestings"])
        assert sum(s["increment"] for s in ex["vestings"]) == ex["owed"]
