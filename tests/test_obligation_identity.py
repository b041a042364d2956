"""Issue 30, item 13: obligations keyed by what triggers them, the id of the triggering
event followed back through corrections to the first event of its correction chain
(``projections.obligations.identity``). Ordinal keys (``true-up/WK/1``) moved from the
2002-09-01 exercise to the 2002-06-01 one when the earlier was recorded late, and the
calendar's UIDs, the views' rows and the agenda's cache followed the wrong obligation.

* a late-recorded earlier trigger adds exactly one VEVENT and changes none of the others;
* a correction that moves a trigger's date changes only that VEVENT's date (and what
  states it) and raises its SEQUENCE, under the same UID.

Calendar facts: a Suspension Period's 45th day is its start + 44 (SPEC §4.3).
"""

from __future__ import annotations

from datetime import date, timedelta

from icalendar import Calendar

from ledger.events import parse_event
from ledger.store import Ledger
from projections.obligations.identity import correction_roots
from publishing.agenda import agenda_of
from publishing.icalendar_feed import calendar_file, feed
from tests.letter_support import CAMDEN, DB, DEAL, e
from tests.support import T0, build, d, ev, opened

LEHMAN = "Lehman Brothers Inc."
BASE = [opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
        ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-10-01"),
        ev("HoldersAdvised", "2004-07-14"), ev("HoldersAdvised", "2004-10-04")]
LATE_PERIOD = [ev("SuspensionStarted", "2005-12-01", material_transaction=False),
               ev("SuspensionEnded", "2005-12-10")]
# more than 360 days before it: no limit of the later period counts it
EARLY_PERIOD = [ev("SuspensionStarted", "2004-11-01", material_transaction=False),
                ev("SuspensionEnded", "2004-11-05")]


def vevents(data: bytes) -> dict:
    return {str(v["UID"]): v for v in Calendar.from_ical(data).walk("VEVENT")}


def changed(a, b) -> set[str]:
    """The properties of two VEVENTs that differ, but DTSTAMP (the latest recording)."""
    return {k for k in set(a) | set(b) if k != "DTSTAMP" and a.get(k) != b.get(k)}


def recorded(*sizes: int) -> list:
    """Batches of ``sizes`` events, a minute apart (a period's start and end in one)."""
    return [T0 + timedelta(minutes=k) for k, n in enumerate(sizes, 1) for _ in range(n)]


def test_a_late_earlier_suspension_adds_one_event_and_changes_no_other():
    before = vevents(feed({"rra": build(BASE + LATE_PERIOD, recorded=recorded(*[1] * 6, 2))},
                          as_of=d("2006-01-31")))
    after = vevents(feed({"rra": build(BASE + LATE_PERIOD + EARLY_PERIOD,
                                       recorded=recorded(*[1] * 6, 2, 2))},
                         as_of=d("2006-01-31")))
    # the late period's obligation is keyed by its SuspensionStarted, e7; the early one,
    # recorded after it, by e9: one more event, due 2004-11-01 + 44 = 2004-12-15
    [added] = set(after) - set(before)
    assert added == "end-suspension/e9@rra.deal-ledger"
    assert after[added]["DTSTART"].dt == date(2004, 12, 15)
    assert set(before) <= set(after)
    for uid in before:
        assert changed(before[uid], after[uid]) == set(), uid
    # due 2005-12-01 + 44 = 2006-01-14 (an ordinal key would now name the early period)
    assert after["end-suspension/e7@rra.deal-ledger"]["DTSTART"].dt == date(2006, 1, 14)


LETTER = [opened(DEAL, "infocrossing-letter-2002"),
          e("CapitalizationRecorded", "2002-02-01", common_outstanding=10_000_000),
          e("CamdenWarrantsIssued", "2002-02-01", holder=CAMDEN, warrants=1_000_000,
            exercise_price="2.00"),
          e("InstrumentRegistered", "2002-02-01", instrument="WK", holder=DB, kind="warrant",
            shares=200_000, exercise_price="3.00"),
          e("WarrantsExercised", "2002-09-01", instrument="WK", fraction="0.5",
            shares_issued=40_000),
          e("CamdenWarrantsVested", "2003-01-01", holder=CAMDEN, warrants=1_000_000)]
EARLIER = e("WarrantsExercised", "2002-06-01", instrument="WK", fraction="0.5",
            shares_issued=100_000)


def test_a_late_earlier_exercise_adds_one_event_and_keeps_the_others():
    before = vevents(feed({DEAL: build(LETTER)}, as_of=d("2003-06-01")))
    after = vevents(feed({DEAL: build(LETTER + [EARLIER])}, as_of=d("2003-06-01")))
    # the 2002-09-01 exercise (e5) keeps its event; the 2002-06-01 one (e7) adds its own
    assert set(before) == {"true-up/WK/e5@ltr.deal-ledger"}
    assert set(after) == set(before) | {"true-up/WK/e7@ltr.deal-ledger"}
    old, new = before["true-up/WK/e5@ltr.deal-ledger"], after["true-up/WK/e5@ltr.deal-ledger"]
    # still the 2002-09-01 exercise, still due from the vesting of 2003-01-01, same
    # SEQUENCE; only its shares move, as the exercise now takes half of what the earlier
    # one left: P' = 3.00 x (10,000,000 + 666,666.67) / 11,000,000 = 2.9091; alone,
    # x = 300,000 / 2.9091 = 103,124, owed 103,124 - 40,000 = 63,124; after the earlier,
    # x = 150,000 / 2.9091 = 51,562, owed 11,562
    assert "63124 shares" in str(old["DESCRIPTION"]).replace(",", "")
    assert "11562 shares" in str(new["DESCRIPTION"]).replace(",", "")
    assert "exercise of WK on 2002-09-01" in str(new["SUMMARY"]) == str(old["SUMMARY"])
    assert (new["DTSTART"].dt, int(new["SEQUENCE"])) == (date(2003, 1, 1), 0)
    assert "exercise of WK on 2002-06-01" in str(after["true-up/WK/e7@ltr.deal-ledger"]["SUMMARY"])
    # the agenda's line for it keeps its key too
    keys = {i["key"] for i in agenda_of({DEAL: build(LETTER + [EARLIER])},
                                        as_of=d("2003-06-01"))["items"]}
    assert keys == {"true-up/WK/e5", "true-up/WK/e7"}


def test_a_correction_moves_only_its_own_event_under_the_same_uid(tmp_path):
    db, out_before, out_after = (str(tmp_path / n) for n in ("l.db", "a.ics", "b.ics"))
    with Ledger(db) as ledger:
        ledger.append([parse_event(o) for o in BASE + LATE_PERIOD + EARLY_PERIOD])
        started = [r["id"] for r in ledger.records() if r["type"] == "SuspensionStarted"][0]
    calendar_file(Ledger(db, create=False), out_before, as_of=d("2006-01-31"))
    # `deal-ledger correct`: the retraction and its replacement in one batch
    with Ledger(db, create=False) as ledger:
        ledger.append([parse_event(ev("EventRetracted", "2005-12-01", event_id=started,
                                      reason="the notice went out on the 3rd")),
                       parse_event(ev("SuspensionStarted", "2005-12-03",
                                      material_transaction=False))])
    calendar_file(Ledger(db, create=False), out_after, as_of=d("2006-01-31"))
    before, after = (vevents(open(p, "rb").read()) for p in (out_before, out_after))
    assert set(before) == set(after)
    moved = f"end-suspension/{started}@rra.deal-ledger"
    # 2005-12-01 + 44 = 2006-01-14; corrected to 12-03: + 44 = 2006-01-16
    assert (before[moved]["DTSTART"].dt, after[moved]["DTSTART"].dt) == (
        date(2006, 1, 14), date(2006, 1, 16))
    assert (int(before[moved]["SEQUENCE"]), int(after[moved]["SEQUENCE"])) == (0, 1)
    for uid in before:
        if uid == moved:   # its date, its sequence, and the words that state its start
            assert {"DTSTART", "SEQUENCE"} <= changed(before[uid], after[uid]) <= {
                "DTSTART", "DTEND", "SEQUENCE", "SUMMARY", "DESCRIPTION"}
        else:
            assert changed(before[uid], after[uid]) == set(), uid


def test_a_chain_of_corrections_leads_back_to_its_first_event():
    one, two = T0 + timedelta(minutes=20), T0 + timedelta(minutes=30)
    objs = BASE + LATE_PERIOD + [
        ev("EventRetracted", "2005-12-01", event_id="e7", reason="wrong day"),
        ev("SuspensionStarted", "2005-12-03", material_transaction=False),      # e10
        ev("EventRetracted", "2005-12-01", event_id="e10", reason="wrong again"),
        ev("SuspensionStarted", "2005-12-02", material_transaction=False)]      # e12
    recorded = [T0 + timedelta(minutes=k) for k in range(1, 9)] + [one, one, two, two]
    events = build(objs, recorded=recorded)
    root = correction_roots({x.id: x for x in events})
    assert [root(i) for i in ("e7", "e10", "e12", "e8")] == ["e7", "e7", "e7", "e8"]
    # a retraction alone, or a new event in another batch, continues no chain
    apart = build(objs[:9] + objs[9:10])   # each recorded a minute apart
    assert correction_roots({x.id: x for x in apart})("e10") == "e10"
