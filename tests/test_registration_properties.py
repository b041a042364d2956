"""Properties of the Registration Rights engine over random histories (hypothesis).

Histories put every event after the Closing Date on its own day, so that recording the
same events in another order cannot change what they mean (order within a day matters
only for events of the same day)."""

from __future__ import annotations

import dataclasses
import json
import random
from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.events import Event
from projections.interpretations import resolve
from projections.registration.interest import Accrual, Run
from projections.registration.report import build as build_report
from projections.timeline import build_timeline
from tests.support import T0, build, ev, opened

CLOSING = date(2004, 6, 30)
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def histories(draw):
    """(event objects, as_of, readings) for one random registration history."""
    used: set[date] = set()

    def free(day: date) -> date:
        while day in used or day <= CLOSING:
            day += timedelta(days=1)
        used.add(day)
        return day

    def at(day: date, type_: str, **data):
        return ev(type_, free(day).isoformat(), **data)

    holders = draw(st.lists(st.sampled_from(["A", "B", "C"]), min_size=1, max_size=3, unique=True))
    balance = {h: draw(st.integers(1, 40)) * 1_000_000 for h in holders}
    objs = [opened(day_count=draw(st.sampled_from(["30/360", "ACT/360", "ACT/365F",
                                                    "ACT/ACT-ISDA"])))]
    objs += [ev("NotesIssued", CLOSING.isoformat(), holder=h, principal=str(p))
             for h, p in balance.items()]
    filed = draw(st.none() | st.integers(5, 60))
    if filed is not None:
        objs.append(at(CLOSING + timedelta(days=filed), "ShelfFiled"))
        effective = draw(st.none() | st.integers(5, 150))
        if effective is not None:
            eff_day = CLOSING + timedelta(days=filed + effective)
            objs.append(at(eff_day, "ShelfEffective"))
            cursor = eff_day
            for _ in range(draw(st.integers(0, 5))):
                start = cursor + timedelta(days=draw(st.integers(1, 90)))
                length = draw(st.integers(1, 80))
                if draw(st.integers(0, 2)):
                    objs.append(at(start, "SuspensionStarted",
                                   material_transaction=draw(st.booleans())))
                    if length > 30 and draw(st.booleans()):
                        objs.append(at(start + timedelta(days=20), "SuspensionExtended"))
                    closing_type, data = "SuspensionEnded", {}
                else:
                    objs.append(at(start, "ShelfUnusable", reason="other"))
                    closing_type, data = "ShelfUsable", {"cure": "prospectus_supplement"}
                end = free(start + timedelta(days=length))
                objs.append(ev(closing_type, end.isoformat(), **data))
                cursor = end
    moves = sorted(draw(st.lists(st.tuples(st.integers(1, 1200), st.sampled_from(
        ["transfer", "shelf_sale", "convert", "retire"]), st.sampled_from(holders),
        st.sampled_from(["A", "B", "C", "D"]), st.integers(1, 4)), max_size=4)))
    for offset, kind, frm, to, quarters in moves:
        amount = balance.get(frm, 0) * quarters // 4 // 1000 * 1000
        if amount <= 0 or (kind in ("transfer", "shelf_sale") and to == frm):
            continue
        day = CLOSING + timedelta(days=offset)
        balance[frm] -= amount
        if kind in ("transfer", "shelf_sale"):
            balance[to] = balance.get(to, 0) + amount
            objs.append(at(day, "NotesTransferred", from_holder=frm, to_holder=to,
                           principal=str(amount), under_shelf=kind == "shelf_sale"))
        elif kind == "convert":
            objs.append(at(day, "NotesConverted", holder=frm, principal=str(amount),
                           shares=max(1, amount // 1536)))
        else:
            objs.append(at(day, "NotesRetired", holder=frm, principal=str(amount),
                           reason="redeemed"))
    if draw(st.booleans()):
        objs.append(at(CLOSING + timedelta(days=draw(st.integers(1, 300))),
                       "QuestionnaireRequested", holders="all"))
        for h in holders:
            if draw(st.booleans()):
                objs.append(at(CLOSING + timedelta(days=draw(st.integers(1, 400))),
                               "QuestionnaireDelivered", holder=h))
    if draw(st.booleans()):
        objs.append(at(date(2005, 1, 18), "AdditionalInterestPaid", payment_date="2005-01-15",
                       holder=holders[0], amount=str(draw(st.integers(1, 90000)))))
    as_of = CLOSING + timedelta(days=draw(st.integers(0, 1600)))
    readings = {name: draw(st.sampled_from(values)) for name, values in (
        ("default_date", ["last_compliant_day", "first_breach_day"]),
        ("overlapping_defaults", ["episode", "additive"]),
        ("conversion_forfeits", ["unpaid", "future_only"]),
        ("window_breach", ["usability_default", "report_only"]),
        ("default_after_effectiveness_period", ["ends", "continues"]))}
    return objs, as_of, readings


def run(events: list[Event], as_of: date, readings: dict) -> dict:
    return build_report(build_timeline(events, as_of), resolve(readings))


def amounts_of(rep):
    ai = rep["additional_interest"]
    for p in ai["payments"]:
        yield p["total"]
        yield from p["amounts"].values()
    yield ai["accrued_to_as_of"]
    yield from ai["by_holder"].values()


@SETTINGS
@given(histories())
def test_amounts_are_never_negative_and_add_up(history):
    objs, as_of, readings = history
    rep = run(build(objs), as_of, readings)
    assert json.loads(json.dumps(rep)) == rep          # JSON-ready: no Decimal, no date
    assert all(Decimal(a) >= 0 for a in amounts_of(rep))
    ai = rep["additional_interest"]
    assert sum(Decimal(p["total"]) for p in ai["payments"]) == Decimal(ai["accrued_to_as_of"])
    for p in ai["payments"]:
        assert sum(Decimal(v) for v in p["amounts"].values()) == Decimal(p["total"])


@SETTINGS
@given(histories())
def test_every_accrual_day_lies_inside_some_default(history):
    objs, as_of, readings = history
    rep = run(build(objs), as_of, readings)
    cutoff = as_of + timedelta(days=1)
    spans = [(date.fromisoformat(x["accrual_from"]),
              min(date.fromisoformat(x["accrual_until"]), cutoff) if x["accrual_until"] else cutoff)
             for x in rep["registration"]["defaults"]]
    for seg in rep["additional_interest"]["rate_segments"]:
        start, end = date.fromisoformat(seg["start"]), date.fromisoformat(seg["end"])
        assert start < end <= cutoff
        covering = [i for i in seg["defaults"] if spans[i][0] <= start and end <= spans[i][1]]
        assert covering, (seg, spans)
    if not rep["registration"]["defaults"]:
        assert rep["additional_interest"]["accrued_to_as_of"] == "0.00"


@SETTINGS
@given(histories(), st.sampled_from(["ACT/360", "ACT/365F", "ACT/ACT-ISDA"]), st.data())
def test_act_day_counts_add_up_over_any_split(history, convention, data):
    objs, as_of, readings = history
    rep = run(build(objs), as_of, readings)
    runs = [Run(date.fromisoformat(s["start"]), date.fromisoformat(s["end"]), Decimal(s["rate"]))
            for s in rep["additional_interest"]["rate_segments"]]
    accrual = Accrual(runs, convention)
    lo = CLOSING + timedelta(days=data.draw(st.integers(0, 1600)))
    hi = lo + timedelta(days=data.draw(st.integers(0, 800)))
    mid = lo + timedelta(days=data.draw(st.integers(0, (hi - lo).days)))

    def total(a, b):
        return accrual.factor(a, b)[0] or Fraction(0)

    assert total(lo, hi) == total(lo, mid) + total(mid, hi)


LATER = [("ShelfFiled", {}), ("ShelfEffective", {}),
         ("SuspensionStarted", {"material_transaction": True}),
         ("ShelfUnusable", {"reason": "stop_order"}), ("TrusteeNotified", {}),
         ("AdditionalInterestPaid", {"payment_date": "2005-01-15", "holder": "A", "amount": "5"}),
         ("NotesIssued", {"holder": "Z", "principal": "1000000"}),
         ("QuestionnaireRequested", {"holders": "all"})]


@SETTINGS
@given(histories(), st.sampled_from(LATER), st.integers(1, 400))
def test_an_event_dated_after_as_of_changes_nothing(history, later, days):
    objs, as_of, readings = history
    type_, data = later
    extra = ev(type_, (as_of + timedelta(days=days)).isoformat(), **data)
    assert run(build(objs), as_of, readings) == run(build(objs + [extra]), as_of, readings)


@SETTINGS
@given(histories(), st.randoms(use_true_random=False))
def test_the_report_does_not_depend_on_recording_order(history, rnd: random.Random):
    objs, as_of, readings = history
    events = build(objs)
    order = list(range(len(events)))
    rnd.shuffle(order)
    shuffled = [dataclasses.replace(events[i], seq=n + 1,
                                    recorded_at=T0 + timedelta(minutes=n + 1))
                for n, i in enumerate(order)]
    assert run(events, as_of, readings) == run(shuffled, as_of, readings)


MORE = [("conversion_forfeits", "unpaid", "future_only"),
        ("window_breach", "report_only", "usability_default"),
        ("default_after_effectiveness_period", "ends", "continues")]


@SETTINGS
@given(histories(), st.sampled_from(MORE))
def test_the_generous_reading_never_pays_a_holder_less(history, switch):
    """Each of these readings only adds accrual days (or keeps what would be forfeited),
    and rates never fall as an episode grows: no Holder gets less under the second."""
    objs, as_of, readings = history
    name, less, more = switch
    events = build(objs)
    low = run(events, as_of, {**readings, name: less})["additional_interest"]["by_holder"]
    high = run(events, as_of, {**readings, name: more})["additional_interest"]["by_holder"]
    for holder, amount in low.items():
        assert Decimal(high.get(holder, "0")) >= Decimal(amount)


# ------------------------------------------------------------------ day-by-day references
# The engine never loops over days; these tests do, reading the contract literally, and
# check that the engine's intervals say the same thing day by day.

ONE = timedelta(days=1)


def contract_rate(day: date, clock: date, reading: str) -> Fraction:
    """RRA §3(a)(i)-(iv), literally: 0.25% for days 1-90 of the clock (the days after the
    default date), then 1.00%; 3.00% from the 2nd anniversary of the Closing Date
    (2006-06-30), 2 points more on each anniversary from the 3rd; with
    ``first_90_days_always_quarter_point`` days 1-90 stay at 0.25%."""
    years = day.year - CLOSING.year - (1 if (day.month, day.day) < (6, 30) else 0)
    first = (day - clock).days < 90
    if years >= 2 and not (first and reading == "first_90_days_always_quarter_point"):
        return Fraction(3 + 2 * (years - 2))
    return Fraction(1, 4) if first else Fraction(1)


def default_days(rep: dict, as_of: date) -> set[date]:
    cutoff = as_of + ONE
    days: set[date] = set()
    for x in rep["registration"]["defaults"]:
        day = date.fromisoformat(x["accrual_from"])
        end = min(date.fromisoformat(x["accrual_until"]) if x["accrual_until"] else cutoff,
                  cutoff)
        while day < end:
            days.add(day)
            day += ONE
    return days


def daily_rates(days: set[date], reading: str) -> dict[date, Fraction]:
    """One rate clock per run of consecutive default days (SPEC §4.4 episodes)."""
    out, clock = {}, None
    for day in sorted(days):
        if clock is None or day - ONE not in days:
            clock = day
        out[day] = contract_rate(day, clock, reading)
    return out


READING_2ND = st.sampled_from(["calendar", "first_90_days_always_quarter_point"])


@SETTINGS
@given(histories(), READING_2ND)
def test_rate_segments_match_the_contract_day_by_day(history, second):
    objs, as_of, readings = history
    readings = {**readings, "overlapping_defaults": "episode",
                "rate_after_second_anniversary": second}
    rep = run(build(objs), as_of, readings)
    expected = daily_rates(default_days(rep, as_of), second)
    got: dict[date, Fraction] = {}
    for seg in rep["additional_interest"]["rate_segments"]:
        day, end = date.fromisoformat(seg["start"]), date.fromisoformat(seg["end"])
        while day < end:
            assert day not in got, "episode segments never overlap"
            got[day] = Fraction(Decimal(seg["rate"]))
            day += ONE
    assert got == expected


def suspended_by_day(rep: dict, as_of: date) -> list[tuple[date, date, bool]]:
    return [(date.fromisoformat(p["start"]),
             date.fromisoformat(p["end"]) if p["end"] else as_of + ONE,
             p["material_transaction"]) for p in rep["suspensions"]["periods"]]


@SETTINGS
@given(histories())
def test_suspension_totals_and_breaches_match_a_day_by_day_count(history):
    objs, as_of, readings = history
    rep = run(build(objs), as_of, readings)
    s = rep["suspensions"]
    spans = suspended_by_day(rep, as_of)
    first = min([a for a, _, _ in spans] + [as_of])
    n = (as_of - first).days + 1
    flags = [0] * n
    for a, b, _ in spans:
        for i in range((a - first).days, (b - first).days):
            flags[i] = 1
    prefix = [0]
    for f in flags:
        prefix.append(prefix[-1] + f)

    def trailing(i: int, window: int) -> int:      # the window ending on day index i
        return prefix[i + 1] - prefix[max(0, i + 1 - window)]

    assert (s["trailing_90"], s["trailing_360"]) == (trailing(n - 1, 90), trailing(n - 1, 360))
    assert s["max_90"] == max([trailing(i, 90) for i in range(n)] + [0])
    assert s["max_360"] == max([trailing(i, 360) for i in range(n)] + [0])
    # RRA §3(a)(iv)(B): every suspended day on which the 360 days ending then hold more
    # than 90; RRA §4(b)(i): every day of a period, before its own 45th (60th) day has
    # passed, on which the 90 days ending then hold more than 45 (60)
    aggregate = {first + timedelta(days=i) for i in range(n) if flags[i] and trailing(i, 360) > 90}
    window = set()
    for a, b, material in spans:
        own = a + timedelta(days=60 if material else 45)
        for i in range((a - first).days, (min(b, own) - first).days):
            if trailing(i, 90) > (60 if material else 45):
                window.add(first + timedelta(days=i))
    got = {"aggregate": set(), "window": set()}
    for b in s["breaches"]:
        if b["kind"] in got:
            day, last = date.fromisoformat(b["first_day"]), date.fromisoformat(b["last_day"])
            while day <= last:
                got[b["kind"]].add(day)
                day += ONE
    assert got == {"aggregate": aggregate, "window": window}


POSITION_MOVES = ("NotesTransferred", "NotesConverted", "NotesRetired", "QuestionnaireRequested",
                  "QuestionnaireDelivered")


@SETTINGS
@given(histories(), READING_2ND)
def test_amounts_match_a_day_by_day_sum_under_act_360(history, second):
    """With ACT/360 a sum over days equals the sum over sub-periods: each Holder's amount is
    principal × Σ (rate of the day / 360), rounded once (Holders who never move)."""
    objs, as_of, readings = history
    objs = [o for o in objs if o["type"] not in POSITION_MOVES]
    objs[0] = opened(day_count="ACT/360")
    readings = {**readings, "overlapping_defaults": "episode",
                "rate_after_second_anniversary": second}
    rep = run(build(objs), as_of, readings)
    rates = daily_rates(default_days(rep, as_of), second)
    principal = {o["data"]["holder"]: Fraction(o["data"]["principal"])
                 for o in objs if o["type"] == "NotesIssued"}
    cutoff = as_of + ONE
    for p in rep["additional_interest"]["payments"]:
        start = date.fromisoformat(p["period_start"])
        end = min(date.fromisoformat(p["period_end"]), cutoff)
        per_unit = sum((r for day, r in rates.items() if start <= day < end), Fraction(0)) / 36000
        for holder, q in principal.items():
            exact = q * per_unit
            cents = (exact * 200 + 1) // 2          # half-up to the cent
            assert Decimal(p["amounts"].get(holder, "0.00")) == Decimal(int(cents)) / 100
