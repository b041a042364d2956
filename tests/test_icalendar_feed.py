"""Issue 16: the iCalendar file, parsed back; a correction that moves one deadline
changes only that event's date (and what is computed from it) and raises its SEQUENCE.
Calendar facts: 2004-10-28 Thu, Columbus Day 2004-10-11, 2004-11-10 Wed, 2004-11-12 Fri,
Veterans Day 2004-11-11, Thanksgiving 2004-11-25."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from icalendar import Calendar

from publishing.icalendar_feed import feed
from tests.cli_support import ok, refused, run
from ledger.store import Ledger
from tests.support import T0, build, d, ev, opened
from tests.test_agenda import _ledger

LEHMAN = "Lehman Brothers Inc."


def events_of(data: bytes) -> dict[str, object]:
    cal = Calendar.from_ical(data)
    out = {}
    for v in cal.walk("VEVENT"):
        uid = str(v["UID"])
        assert uid not in out, uid
        out[uid] = v
    return out


def test_round_trip_with_alarms_business_days_before(tmp_path):
    db, out = _ledger(tmp_path), str(tmp_path / "o.ics")
    assert "wrote" in ok(run("calendar", "--db", db, "--out", out, "--as-of", "2004-10-20",
                             "--remind", "10,5,1"))
    with open(out, "rb") as fh:
        found = events_of(fh.read())
    v = found["shelf-effective@a.deal-ledger"]
    # RRA §2(a)(ii): 120 days after 2004-06-30
    assert v["DTSTART"].dt == date(2004, 10, 28) and v["DTEND"].dt == date(2004, 10, 29)
    assert str(v["STATUS"]) == "CONFIRMED" and int(v["SEQUENCE"]) == 0
    assert "RRA §2(a)(ii)" in str(v["DESCRIPTION"]) and "upcoming" in str(v["DESCRIPTION"])
    # Business Days before Thu 2004-10-28: 1 -> Wed 10-27; 5 -> 27, 26, 25, 22, 21 ->
    # Thu 10-21; 10 -> 20, 19, 18, 15, 14 -> Thu 10-14; each at 09:00 in New York, on
    # daylight time until 2004-10-31 (UTC-4): 13:00 UTC (issue 31, item 13: it was 09:00
    # UTC, 5 a.m. in New York)
    triggers = sorted(a["TRIGGER"].dt for a in v.walk("VALARM"))
    assert triggers == [datetime(2004, 10, day, 13, tzinfo=timezone.utc)
                        for day in (14, 21, 27)]
    with Ledger(db, create=False) as ledger:   # b's default (i): its trigger, the opening
        opened_b = next(r["id"] for r in ledger.records() if r["deal"] == "b")
    assert {"file-shelf@a.deal-ledger", "file-shelf@b.deal-ledger",
            f"notify-trustee/(i)/{opened_b}@b.deal-ledger"} <= set(found)


def test_discharged_obligations_are_cancelled(tmp_path):
    db, out = _ledger(tmp_path), str(tmp_path / "o.ics")
    ok(run("calendar", "--db", db, "--out", out, "--as-of", "2007-01-01", "--deal", "b"))
    with open(out, "rb") as fh:
        found = events_of(fh.read())
    # b effective 2004-10-01: the Effectiveness Period ended on its 2nd anniversary
    v = found["keep-effective@b.deal-ledger"]
    assert v["DTSTART"].dt == date(2006, 10, 1) and str(v["STATUS"]) == "CANCELLED"
    assert all(u.endswith("@b.deal-ledger") for u in found)


def test_a_reminder_goes_off_at_nine_in_new_york_summer_and_winter():
    from publishing.icalendar_feed import alarm_time

    # EDT (UTC-4) on 2004-10-29; EST (UTC-5) from 2004-10-31: 09:00 is 13:00Z, then 14:00Z
    assert alarm_time(date(2004, 10, 29)) == datetime(2004, 10, 29, 13, tzinfo=timezone.utc)
    assert alarm_time(date(2004, 11, 1)) == datetime(2004, 11, 1, 14, tzinfo=timezone.utc)
    # 2005-01-18 (the Interest Payment Date of 2005-01-15, rolled): winter, 14:00Z
    assert alarm_time(date(2005, 1, 18)) == datetime(2005, 1, 18, 14, tzinfo=timezone.utc)


def test_an_empty_out_is_refused(tmp_path):
    # issue 31, item 7: `calendar --out ''` ended in `internal error: FileNotFoundError`
    db = _ledger(tmp_path)
    for out in ("", "  "):
        err = refused(run("calendar", "--db", db, "--out", out), 2)
        assert err == f"error: field '--out': give the calendar file's path, not {out!r}\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".ics")) == []


def test_bad_remind_writes_nothing(tmp_path):
    db, out = _ledger(tmp_path), tmp_path / "o.ics"
    refused(run("calendar", "--db", db, "--out", str(out), "--remind", "x"), 2)
    assert not out.exists()


def test_a_retraction_that_moves_a_deadline_changes_only_that_event():
    base = [opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
            ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-10-01"),
            ev("QuestionnaireRequested", "2004-11-10", holders=[LEHMAN])]
    fixed = base + [ev("EventRetracted", "2004-11-12", event_id="e5", reason="wrong date"),
                    ev("QuestionnaireRequested", "2004-11-12", holders=[LEHMAN])]
    # the retraction and its replacement in one batch, as ``correct`` records them
    at = [T0 + timedelta(minutes=k) for k in range(1, 6)] + [T0 + timedelta(minutes=6)] * 2
    before = events_of(feed({"rra": build(base)}, as_of=d("2004-11-20"), remind=(1,)))
    after = events_of(feed({"rra": build(fixed, recorded=at)}, as_of=d("2004-11-20"),
                           remind=(1,)))
    assert set(before) == set(after)
    moved = f"questionnaire/{LEHMAN}/e5@rra.deal-ledger"   # keyed by the first request
    # 20 Business Days after 2004-11-10 is 2004-12-10 (SPEC §8 example 3); after
    # 2004-11-12 (Fri): Nov 15-19 (5), 22-24 (8), 26 (9), 29-30 (11), Dec 1-3 (14),
    # 6-10 (19), 13 (20) -> 2004-12-13, a Monday
    assert before[moved]["DTSTART"].dt == date(2004, 12, 10)
    assert after[moved]["DTSTART"].dt == date(2004, 12, 13)
    assert (int(before[moved]["SEQUENCE"]), int(after[moved]["SEQUENCE"])) == (0, 1)
    for uid in before:
        changed = {k for k in set(before[uid]) | set(after[uid])
                   if k != "DTSTAMP" and before[uid].get(k) != after[uid].get(k)}
        if uid == moved:
            # the date, the sequence and the arithmetic that states the date
            assert changed <= {"DTSTART", "DTEND", "SEQUENCE", "DESCRIPTION"}, changed
            assert {"DTSTART", "SEQUENCE"} <= changed
        else:
            assert changed == set(), (uid, changed)
            assert [a.to_ical() for a in before[uid].walk("VALARM")] == \
                [a.to_ical() for a in after[uid].walk("VALARM")]


def test_an_obligation_a_correction_withdrew_is_cancelled_under_its_own_uid():
    # a review (stop 19): of two Suspension Periods the first was recorded in error and
    # withdrawn; with ordinal keys end-suspension/1 moved onto the second period and /2
    # vanished, so a calendar program kept showing both. Keyed by its SuspensionStarted,
    # the first is now CANCELLED under its own UID, its SEQUENCE one higher, and the
    # second is untouched
    periods = [ev("SuspensionStarted", "2005-03-01", material_transaction=False),
               ev("SuspensionEnded", "2005-03-20"),
               ev("SuspensionStarted", "2005-08-01", material_transaction=False),
               ev("SuspensionEnded", "2005-08-20")]
    base = [opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
            ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-10-01"), *periods]
    # the first period's start and end retracted in one batch (judged as a whole)
    fixed = base + [ev("EventRetracted", "2005-09-01", event_id=f"e{k}", reason="in error")
                    for k in (5, 6)]
    before = events_of(feed({"rra": build(base)}, as_of=d("2005-12-31")))
    after = events_of(feed({"rra": build(fixed)}, as_of=d("2005-12-31")))
    one, two = (f"end-suspension/{k}@rra.deal-ledger" for k in ("e5", "e7"))
    # each period's 45th day: 03-01 + 44 = 04-14, 08-01 + 44 = 09-14
    assert [(before[u]["DTSTART"].dt, str(before[u]["STATUS"])) for u in (one, two)] == [
        (date(2005, 4, 14), "CONFIRMED"), (date(2005, 9, 14), "CONFIRMED")]
    assert [(after[u]["DTSTART"].dt, str(after[u]["STATUS"]), int(after[u]["SEQUENCE"]))
            for u in (one, two)] == [(date(2005, 4, 14), "CANCELLED", 1),
                                     (date(2005, 9, 14), "CONFIRMED", 0)]
    assert set(after) == set(before)
