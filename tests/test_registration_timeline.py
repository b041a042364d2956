"""The timeline the Registration Rights engine reads (SPEC §1): events ordered by
``(date, seq)``, only those dated on or before ``as_of``, only those recorded at or before
``known_at``, retracted events removed from the retraction's recorded_at on.

Every expected amount is worked by hand (30/360 US, SPEC §2) on the Infocrossing deal:
Lehman Brothers Inc. holds $60,000,000 from the Closing Date 2004-06-30."""

from datetime import timedelta
from decimal import Decimal

from projections.interpretations import resolve
from projections.registration.report import build as build_report
from projections.timeline import build_timeline
from tests.support import T0, build, d, ev
from tests.test_registration_support import LEHMAN, money, payment, rra

P = Decimal(60_000_000)


def run(events, as_of, known_at=None):
    return build_report(build_timeline(events, d(as_of), known_at), resolve())


def kinds(rep):
    return [(x["kind"], x["default_date"], x["accrual_from"], x["cured_on"])
            for x in rep["registration"]["defaults"]]


def at(seq):
    """Just after the event with sequence ``seq`` was recorded (``build`` records event
    ``seq`` at T0 + ``seq`` minutes)."""
    return T0 + timedelta(minutes=seq, seconds=30)


def test_a_filing_recorded_late_counts_on_its_own_date():
    # ShelfEffective (2004-11-15) recorded before ShelfFiled (2004-07-13): ordered by date,
    # the filing comes first, so this is SPEC §8 example 1 and no default (i)
    events = build(rra(ev("ShelfEffective", "2004-11-15"), ev("ShelfFiled", "2004-07-13")))
    rep = run(events, "2005-02-01")
    assert kinds(rep) == [("(ii)", "2004-10-28", "2004-10-29", "2004-11-15")]
    assert rep["registration"]["filed_on"] == "2004-07-13"
    # 30/360 [2004-10-29, 2004-11-15) = 30 + 15 - 29 = 16 days at 0.25%
    assert payment(rep, "2005-01-15")["amounts"] == {
        LEHMAN: money(P * Decimal("0.0025") * 16 / 360)} == {LEHMAN: "6666.67"}


def test_events_of_the_same_day_follow_their_sequence():
    objs = rra(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15"),
               ev("NotesTransferred", "2004-12-20", from_holder="A", to_holder="B",
                  principal="60000000"),
               ev("NotesTransferred", "2004-12-20", from_holder="B", to_holder="C",
                  principal="60000000"),
               holders={"A": "60000000"})
    # A -> B (seq 5) then B -> C (seq 6): C is the holder of record on 2005-01-01 and is
    # paid example 1's 60,000,000 × 0.25% × 16/360 = 6666.67
    rep = run(build(objs), "2005-02-01")
    assert payment(rep, "2005-01-15")["amounts"] == {"C": "6666.67"}
    assert rep["problems"] == []
    # recorded the other way round, B -> C comes first, when B holds nothing
    swapped = build(objs[:4] + [objs[5], objs[4]])
    rep = run(swapped, "2005-02-01")
    assert payment(rep, "2005-01-15")["amounts"] == {"B": "6666.67"}
    assert any("B holds 0 of the 60000000" in p for p in rep["problems"])


def test_as_of_keeps_only_events_dated_on_or_before_it():
    events = build(rra(ev("ShelfFiled", "2004-07-20"), ev("ShelfEffective", "2004-10-01")))
    # as of 2004-07-19 the filing has not happened: default (i) runs, accrual through as_of:
    # 30/360 [2004-07-16, 2004-07-20) = 4 days; 60,000,000 × 0.25% × 4/360 = 1666.666...
    rep = run(events, "2004-07-19")
    assert kinds(rep) == [("(i)", "2004-07-15", "2004-07-16", None)]
    assert rep["registration"]["in_default"] is True
    assert rep["additional_interest"]["accrued_to_as_of"] == money(
        P * Decimal("0.0025") * 4 / 360) == "1666.67"
    # as of 2004-07-20 it is cured that day: the same 4 days, nothing more
    rep = run(events, "2004-07-20")
    assert kinds(rep) == [("(i)", "2004-07-15", "2004-07-16", "2004-07-20")]
    assert rep["registration"]["in_default"] is False
    assert rep["additional_interest"]["accrued_to_as_of"] == "1666.67"


def test_known_at_keeps_only_events_recorded_by_then():
    # seq: 1 DealOpened, 2 NotesIssued, 3 ShelfFiled, 4 ShelfEffective
    events = build(rra(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15")))
    # known before the effectiveness was recorded: default (ii) from 2004-10-29 still runs
    # on 2005-01-01: 30/360 [2004-10-29, 2005-01-02) = 360 - 270 + (2 - 29) = 63 days;
    # 60,000,000 × 0.25% × 63/360 = 26250.00
    rep = run(events, "2005-01-01", known_at=at(3))
    assert kinds(rep) == [("(ii)", "2004-10-28", "2004-10-29", None)]
    assert rep["additional_interest"]["accrued_to_as_of"] == money(
        P * Decimal("0.0025") * 63 / 360) == "26250.00"
    # known after: example 1, cured 2004-11-15 (16 days, 6666.67)
    rep = run(events, "2005-01-01", known_at=at(4))
    assert kinds(rep) == [("(ii)", "2004-10-28", "2004-10-29", "2004-11-15")]
    assert rep["additional_interest"]["accrued_to_as_of"] == "6666.67"


def test_a_retracted_event_stops_counting_from_the_retractions_recorded_at():
    # seq: 1 DealOpened, 2 NotesIssued, 3 ShelfFiled 07-13 (a mistake), 4 ShelfEffective,
    # 5 EventRetracted e3, 6 ShelfFiled 07-20 (the right date), 7 EventRetracted e5
    objs = rra(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-10-01"),
               ev("EventRetracted", "2005-01-10", event_id="e3", reason="wrong date"),
               ev("ShelfFiled", "2004-07-20"),
               ev("EventRetracted", "2005-01-11", event_id="e5", reason="retracted by mistake"))
    events = build(objs)
    # before the retraction: filed in time, effective in time: no default
    assert kinds(run(events, "2005-02-01", known_at=at(4))) == []
    # retracted, not yet re-filed: the ShelfEffective of 2004-10-01 counts as the filing,
    # default (i) accrues 30/360 [2004-07-16, 2004-10-01) = 30*3 + (1 - 16) = 75 days
    rep = run(events, "2005-02-01", known_at=at(5))
    assert kinds(rep) == [("(i)", "2004-07-15", "2004-07-16", "2004-10-01")]
    assert payment(rep, "2005-01-15")["amounts"] == {
        LEHMAN: money(P * Decimal("0.0025") * 75 / 360)} == {LEHMAN: "31250.00"}
    # re-filed on 2004-07-20: 30/360 [2004-07-16, 2004-07-20) = 4 days: 1666.67
    rep = run(events, "2005-02-01", known_at=at(6))
    assert kinds(rep) == [("(i)", "2004-07-15", "2004-07-16", "2004-07-20")]
    assert payment(rep, "2005-01-15")["amounts"] == {LEHMAN: "1666.67"}
    # the retraction itself retracted: the 2004-07-13 filing counts again, the first filing
    # is the one that matters, and no default remains
    rep = run(events, "2005-02-01", known_at=at(7))
    assert kinds(rep) == []
    assert rep["registration"]["filed_on"] == "2004-07-13"
    # without known_at, everything recorded counts: as at seq 7
    assert run(events, "2005-02-01") == rep
