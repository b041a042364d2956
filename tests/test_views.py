"""`deal-ledger views`: the read models as SQLite tables, kept up to date incrementally.

Hand-checked values (SPEC §8 example 1), incremental runs against a clean rebuild, a run
killed with SIGKILL in the middle of a rebuild, and refusals of bad input."""

from __future__ import annotations

import json
import marshal
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from datetime import date, timedelta
from pathlib import Path

import pytest

from tests.cli_support import run
from publishing.demo import AS_OF, LETTER, RRA, build_demo
from ledger.events import parse_event
from ledger.store import Ledger
from publishing import dealstate
from tests.support import ev, opened

TABLES = ("events", "deals", "defaults", "suspension_periods", "payments", "deadlines",
          "true_ups", "obligations", "_dirty", "_meta")
ROOT = Path(__file__).resolve().parents[1]


def state_rows(out) -> dict[str, list[list]]:
    """Each deal's state (``_deal_state``, publishing.dealstate): its parts' rows, in
    order. How the rows are cut into parts is the state's own business."""
    conn = sqlite3.connect(out)
    try:
        found: dict[str, list] = {}
        for deal, blob in conn.execute("SELECT deal, rows FROM _deal_state ORDER BY deal, part"):
            fmt, part = marshal.loads(blob)
            assert fmt == dealstate.FORMAT
            found.setdefault(deal, []).extend(part)
        return found
    finally:
        conn.close()


def event_rows(out) -> dict[str, list[list]]:
    """Each deal's ``events`` rows in the state's form, read plainly: what its state
    must hold."""
    conn = sqlite3.connect(out)
    try:
        found: dict[str, list] = {}
        for seq, id_, deal, type_, day, data, source, key, v, at, by, prev, hash_ in (
                conn.execute("SELECT seq, id, deal, type, date, data, source, key, v, "
                             "recorded_at, recorded_by, prev_hash, hash FROM events "
                             "ORDER BY deal, seq")):
            found.setdefault(deal, []).append(
                [id_, seq, type_, deal, day, json.loads(data), at, by, prev, hash_, source,
                 key, v])
        return found
    finally:
        conn.close()


def views(db: str, out: Path, *more: str) -> dict:
    result = run("views", "--db", db, "--out", str(out), "--json", *more)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def rows(out: Path, sql: str, params=()) -> list[dict]:
    conn = sqlite3.connect(out)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(sql, params)]
    finally:
        conn.close()


def dump(out: Path) -> dict[str, list[tuple]]:
    """Every read-model table, in a stable order, and the tracked position."""
    conn = sqlite3.connect(out)
    try:
        tables = {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr)
                  for t in TABLES}
        tables["tracking"] = conn.execute(
            "SELECT * FROM _tracking WHERE application_name = 'Ledger'").fetchall()
        return tables
    finally:
        conn.close()


def append(db: str, objs) -> None:
    with Ledger(db) as ledger:
        ledger.append([parse_event(o) for o in objs])


# ------------------------------------------------------- SPEC §8 example 1 by hand


@pytest.fixture
def example_one(sqlite_url):
    append(sqlite_url, [
        opened("ex1"),
        ev("NotesIssued", "2004-06-30", deal="ex1", holder="Lehman Brothers Inc.",
           principal="60000000"),
        ev("ShelfFiled", "2004-07-13", deal="ex1"),
        ev("ShelfEffective", "2004-11-15", deal="ex1")])
    return sqlite_url


def test_tables_hold_the_hand_worked_values_of_example_one(example_one, tmp_path):
    out = tmp_path / "views.db"
    summary = views(example_one, out, "--as-of", "2005-06-30")
    assert (summary["events"], summary["deals"], summary["seq"]) == (4, 1, 4)
    pay = rows(out, "SELECT * FROM payments WHERE deal = 'ex1' ORDER BY payment_date, holder")
    # 60,000,000 x 0.0025 x 16/360 = 6,666.67, for 2004-06-30..2005-01-15, paid on the
    # next Business Day after Sat Jan 15 and MLK Day Jan 17, to the holder of record Jan 1
    assert {k: pay[0][k] for k in ("payment_date", "paid_on", "record_date", "period_start",
                                   "period_end", "holder", "amount", "amount_cents", "paid",
                                   "status")} == {
        "payment_date": "2005-01-15", "paid_on": "2005-01-18", "record_date": "2005-01-01",
        "period_start": "2004-06-30", "period_end": "2005-01-15",
        "holder": "Lehman Brothers Inc.", "amount": "6666.67", "amount_cents": 666667,
        "paid": "0.00", "status": "due"}
    assert len(pay) == 1  # 2005-07-15 has no default days, so no Holder has an amount
    defaults = rows(out, "SELECT clause, default_date, accrual_from, accrual_until, cured_on "
                         "FROM defaults")
    assert defaults == [{"clause": "RRA §3(a)(ii)", "default_date": "2004-10-28",
                         "accrual_from": "2004-10-29", "accrual_until": "2004-11-15",
                         "cured_on": "2004-11-15"}]
    filing = rows(out, "SELECT due, status, met_on FROM deadlines WHERE clause = "
                       "'RRA §2(a)(i)'")
    assert filing == [{"due": "2004-07-15", "status": "met", "met_on": "2004-07-13"}]
    deal = rows(out, "SELECT * FROM deals")[0]
    assert (deal["kind"], deal["opened_on"], deal["events"], deal["in_default"],
            deal["accrued_to_as_of"], deal["as_of"]) == (
        "registration_rights", "2004-06-30", 4, 0, "6666.67", "2005-06-30")
    events = rows(out, "SELECT seq, type, data, retracted FROM events ORDER BY seq")
    assert [e["type"] for e in events] == ["DealOpened", "NotesIssued", "ShelfFiled",
                                           "ShelfEffective"]
    assert json.loads(events[1]["data"]) == {"holder": "Lehman Brothers Inc.",
                                             "principal": "60000000"}
    assert {e["retracted"] for e in events} == {0}
    assert rows(out, "SELECT count(*) AS n FROM true_ups") == [{"n": 0}]


def test_a_retraction_flags_its_target_and_changes_the_schedules(example_one, tmp_path):
    out = tmp_path / "views.db"
    views(example_one, out, "--as-of", "2005-06-30")
    effective = rows(out, "SELECT id FROM events WHERE type = 'ShelfEffective'")[0]["id"]
    result = run("retract", effective, "--reason", "entered in error", "--db", example_one)
    assert result.exit_code == 0, result.output
    summary = views(example_one, out, "--as-of", "2005-06-30")
    assert (summary["events"], summary["deals"]) == (1, 1)
    flags = rows(out, "SELECT type, retracted FROM events ORDER BY seq")
    assert [(f["type"], f["retracted"]) for f in flags] == [
        ("DealOpened", 0), ("NotesIssued", 0), ("ShelfFiled", 0), ("ShelfEffective", 1),
        ("EventRetracted", 0)]
    # never declared effective: default (ii) runs on from 2004-10-29, uncured
    assert rows(out, "SELECT accrual_from, cured_on FROM defaults") == [
        {"accrual_from": "2004-10-29", "cured_on": None}]


def test_true_ups_hold_the_hand_worked_values_of_one_exercise(sqlite_url, tmp_path):
    letter, camden = "letter", "Camden Partners Strategic Fund II-A, L.P."
    append(sqlite_url, [
        opened(letter, "infocrossing-letter-2002"),
        ev("CapitalizationRecorded", "2002-02-01", deal=letter, common_outstanding=6000000),
        ev("InstrumentRegistered", "2002-02-01", deal=letter, instrument="W-1",
           holder="DB Capital Investors, L.P.", kind="warrant", shares=100000,
           exercise_price="4.00"),
        ev("CamdenWarrantsIssued", "2002-02-01", deal=letter, holder=camden, warrants=150000,
           exercise_price="2.00"),
        ev("WarrantsExercised", "2003-03-03", deal=letter, instrument="W-1", fraction="1",
           shares_issued=100000),
        ev("CamdenWarrantsVested", "2003-09-30", deal=letter, holder=camden,
           warrants=150000)])
    out = tmp_path / "views.db"
    views(sqlite_url, out, "--as-of", "2005-01-01")
    # P' = 4.00 x (6,000,000 + 150,000 x 2.00 / 4.00) / (6,000,000 + 150,000)
    #    = 3.95121... -> 3.9512; x = 100,000 x 4.00 / 3.9512 = 101,235.07 -> 101,235
    assert rows(out, "SELECT instrument, date, eligible, shares_issued, entitled, owed, "
                     "issued, outstanding FROM true_ups") == [
        {"instrument": "W-1", "date": "2003-03-03", "eligible": 1, "shares_issued": 100000,
         "entitled": 101235, "owed": 1235, "issued": 0, "outstanding": 1235}]
    assert rows(out, "SELECT kind, true_up_owed, true_up_outstanding FROM deals") == [
        {"kind": "antidilution_deferral", "true_up_owed": 1235, "true_up_outstanding": 1235}]
    assert rows(out, "SELECT count(*) AS n FROM payments") == [{"n": 0}]


def test_the_log_is_read_page_by_page(tmp_path, monkeypatch):
    """Never the whole log at once: each read of the log covers at most one page of
    notification ids, from the position reached, in order. (An empty file is filled by
    SQLite, ``publishing.logcopy``: here it is not, to read pages.)"""
    from publishing import logcopy, readmodels

    db = str(tmp_path / "demo.db")
    build_demo(db)
    monkeypatch.setattr(logcopy, "possible", lambda ledger: False)
    calls = []
    original = Ledger.log_range

    def spy(self, after, upto):
        calls.append((after, upto))
        return original(self, after, upto)

    monkeypatch.setattr(Ledger, "log_range", spy)
    with Ledger(db, create=False) as ledger:
        run_ = readmodels.views(ledger, str(tmp_path / "v.db"), as_of=date(2007, 12, 31),
                                page=10)
    assert run_.events == 58
    # the log's 83 notifications (58 events and 25 chain heads, one per batch) in
    # ceil(83 / 10) = 9 reads of 10 ids, the last of 3
    assert calls == [(a, min(a + 10, 83)) for a in range(0, 83, 10)]


def test_the_log_read_as_plain_json_and_through_the_librarys_mapper_agree(tmp_path):
    """Issue 17: the views decode the log's stored states as plain JSON (one call of the C
    decoder per page, ``Ledger.log_range``); a ledger whose library is configured with
    a compressor or a cipher goes through the library's mapper. Both give the same file,
    an event's ``extra`` stored fields included."""
    from publishing import readmodels

    db = str(tmp_path / "demo.db")
    build_demo(db)
    outs = []
    for direct in (True, False):
        out = tmp_path / f"v-{direct}.db"
        with Ledger(db, create=False) as ledger:
            ledger._direct = direct
            readmodels.views(ledger, str(out), as_of=date(2007, 12, 31), page=7)
        outs.append(dump(out))
    assert outs[0] == outs[1]
    assert len(outs[0]["events"]) == 58
    # every stored record carries deal_prev (the deal's own chain), kept as extra
    assert all(json.loads(row[14]).keys() == {"deal_prev"} for row in outs[0]["events"])


def test_clearing_a_deals_retraction_marks_does_not_visit_its_events(example_one, tmp_path):
    """Issue 17: a recomputed deal's ``retracted`` marks are cleared through a partial
    index of the retracted events, not by visiting each of the deal's events (3 ms a
    1,000-event deal, 3 s over 1,000 deals)."""
    out = tmp_path / "v.db"
    views(example_one, out, "--as-of", "2005-12-31")
    conn = sqlite3.connect(out)
    try:
        plan = conn.execute("EXPLAIN QUERY PLAN UPDATE events SET retracted = 0 "
                            "WHERE deal = ? AND retracted = 1", ("ex1",)).fetchall()
    finally:
        conn.close()
    assert "USING INDEX events_retracted" in " ".join(str(step[-1]) for step in plan)


# -------------------------------------------------------------- incremental = rebuild


def test_a_second_run_reads_only_the_new_events_and_matches_a_rebuild(store_url, tmp_path):
    build_demo(store_url)
    out, fresh = tmp_path / "views.db", tmp_path / "fresh.db"
    first = views(store_url, out, "--as-of", AS_OF)
    assert (first["events"], first["deals"], first["seq"]) == (58, 2, 58)
    append(store_url, [
        ev("SuspensionStarted", "2006-01-10", deal=RRA, material_transaction=False),
        ev("SuspensionEnded", "2006-03-10", deal=RRA),
        ev("HoldersAdvised", "2006-01-11", deal=RRA)])
    second = views(store_url, out, "--as-of", AS_OF)
    assert (second["events"], second["deals"], second["seq"]) == (3, 1, 61)
    assert second["position"] > first["position"]
    third = views(store_url, out, "--as-of", AS_OF)
    assert (third["events"], third["deals"]) == (0, 0)
    views(store_url, fresh, "--as-of", AS_OF, "--rebuild")
    assert dump(out) == dump(fresh)
    # the 59-day suspension from 2006-01-10 passes its 45th day on 2006-02-23
    assert {"start": "2006-01-10", "end": "2006-03-10", "days": 59} in rows(
        out, "SELECT start, \"end\", days FROM suspension_periods")
    # rebuilding in place gives the same tables again
    again = views(store_url, out, "--as-of", AS_OF, "--rebuild")
    assert (again["events"], again["deals"], again["rebuilt"]) == (61, 2, True)
    assert dump(out) == dump(fresh)


def test_events_dated_after_the_as_of_move_counts_not_schedules(tmp_path):
    """The report as of a day ignores later-dated events (retractions aside): they are
    streamed and counted, and no deal is recomputed; the tables still equal a rebuild."""
    db = str(tmp_path / "demo.db")
    build_demo(db)
    out, fresh = tmp_path / "views.db", tmp_path / "fresh.db"
    views(db, out, "--as-of", AS_OF)
    append(db, [
        ev("NoticeSent", "2008-03-01", deal=RRA, to="Trustee", subject="late", method="mail"),
        ev("HoldersAdvised", "2008-03-02", deal=RRA),
        ev("AdditionalInterestPaid", "2008-03-03", deal=RRA, payment_date="2005-07-15",
           holder="Illustrative Fund A", amount="1527.78")])
    later = views(db, out, "--as-of", AS_OF)
    assert (later["events"], later["deals"]) == (3, 0)
    assert rows(out, "SELECT events, last_seq FROM deals WHERE deal = ?", (RRA,)) == [
        {"events": 35, "last_seq": 61}]  # the demo's 32 RRA events (58 in all) + 3
    views(db, fresh, "--as-of", AS_OF)
    assert dump(out) == dump(fresh)
    # a retraction counts whatever its date
    advised = rows(out, "SELECT id FROM events WHERE type = 'HoldersAdvised' AND "
                        "date = '2004-07-22'")[0]["id"]
    result = run("retract", advised, "--reason", "wrong day", "--date", "2008-04-01",
                 "--db", db)
    assert result.exit_code == 0, result.output
    retracted = views(db, out, "--as-of", AS_OF)
    assert (retracted["events"], retracted["deals"]) == (1, 1)
    views(db, fresh, "--as-of", AS_OF, "--rebuild")
    assert dump(out) == dump(fresh)
    # without the 2004-07-22 advice, the advice due 2004-07-27 (RRA §4(b)(iii)) was missed
    assert rows(out, "SELECT due, status FROM deadlines WHERE deal = ? AND obligation LIKE "
                     "'advise the selling Holders: the Prospectus was filed%'", (RRA,)) == [
        {"due": "2004-07-27", "status": "missed"}]


def test_another_as_of_recomputes_every_deal_without_rereading(tmp_path):
    db = str(tmp_path / "demo.db")
    build_demo(db)
    out, fresh = tmp_path / "views.db", tmp_path / "fresh.db"
    views(db, out, "--as-of", "2005-01-01")
    before = rows(out, "SELECT count(*) AS n FROM payments")[0]["n"]
    summary = views(db, out, "--as-of", AS_OF)
    assert (summary["events"], summary["deals"]) == (0, 2)
    assert rows(out, "SELECT value FROM _meta WHERE key = 'as_of'") == [{"value": AS_OF}]
    assert rows(out, "SELECT count(*) AS n FROM payments")[0]["n"] > before
    views(db, fresh, "--as-of", AS_OF)
    assert dump(out) == dump(fresh)


# ------------------------------------------------ each deal's state (_deal_state)


def _read_rows_spy(monkeypatch) -> list[tuple[str, int]]:
    """(deal, how many of its ``events`` rows were read) for each deal computed."""
    seen: list[tuple[str, int]] = []
    plain = dealstate.rows_of

    def spy(deal, found):
        seen.append((deal, len(found)))
        return plain(deal, found)

    monkeypatch.setattr(dealstate, "rows_of", spy)
    return seen


def test_a_deal_recomputed_after_new_events_reads_only_them(tmp_path, monkeypatch):
    """The state holds the deal's events: after one new event, the deal is recomputed
    from its state and that one ``events`` row, and the tables equal a rebuild's."""
    db = str(tmp_path / "demo.db")
    build_demo(db)
    out, fresh = tmp_path / "views.db", tmp_path / "fresh.db"
    views(db, out, "--as-of", AS_OF)
    assert {d: len(r) for d, r in state_rows(out).items()} == {RRA: 32, LETTER: 26}
    seen = _read_rows_spy(monkeypatch)
    append(db, [ev("HoldersAdvised", "2006-01-11", deal=RRA)])
    views(db, out, "--as-of", AS_OF)
    assert seen == [(RRA, 1)]      # 1 row read from events, 32 from the state
    views(db, fresh, "--as-of", AS_OF)
    assert dump(out) == dump(fresh)
    assert state_rows(out) == state_rows(fresh) == event_rows(out)


@pytest.mark.parametrize("spoil", [
    "DELETE FROM _deal_state WHERE deal = ? AND part = 0",    # a part missing
    "UPDATE _deal_state SET rows = x'00ff' WHERE deal = ?",   # a part that does not decode
    "UPDATE _deal_state SET events = events + 1 WHERE deal = ?",   # counts that do not fit
    "UPDATE _deal_state SET last_seq = last_seq - 1 WHERE deal = ?",   # nor seqs
    "DELETE FROM _deal_state WHERE deal = ?",                 # no state at all
])
def test_a_state_that_does_not_fit_is_read_again_from_events(tmp_path, monkeypatch, spoil):
    db = str(tmp_path / "demo.db")
    build_demo(db)
    out, fresh = tmp_path / "views.db", tmp_path / "fresh.db"
    monkeypatch.setattr(dealstate, "PART", 10)   # the demo's RRA deal in 4 parts
    views(db, out, "--as-of", AS_OF)
    conn = sqlite3.connect(out)
    assert conn.execute(spoil, (RRA,)).rowcount >= 1
    conn.commit()
    conn.close()
    seen = _read_rows_spy(monkeypatch)
    append(db, [ev("HoldersAdvised", "2006-01-11", deal=RRA)])
    views(db, out, "--as-of", AS_OF)
    assert seen == [(RRA, 33)]     # every row of the deal read again from events
    views(db, fresh, "--as-of", AS_OF)
    assert dump(out) == dump(fresh)
    assert state_rows(out) == state_rows(fresh) == event_rows(out)


# ------------------------------------ rows not rewritten when equal (_deal_written)


def watch_writes(out: Path) -> None:
    """Triggers in the view file that note each row deleted from or inserted into a
    per-deal table, in table ``test_writes`` (no table of the views')."""
    from publishing.viewtables import DEAL_TABLES

    conn = sqlite3.connect(out)
    try:
        conn.execute("CREATE TABLE test_writes (tbl TEXT, deal TEXT)")
        for t in DEAL_TABLES:
            for what, row in (("INSERT", "NEW"), ("DELETE", "OLD")):
                conn.execute(f'CREATE TRIGGER "test_{what}_{t.name}" AFTER {what} ON '
                             f'"{t.name}" BEGIN INSERT INTO test_writes VALUES '
                             f"('{t.name}', {row}.deal); END")
        conn.commit()
    finally:
        conn.close()


def writes(out: Path) -> set[tuple[str, str]]:
    """(table, deal) of every row written since ``watch_writes``, then forgets them."""
    conn = sqlite3.connect(out)
    try:
        found = set(conn.execute("SELECT tbl, deal FROM test_writes"))
        conn.execute("DELETE FROM test_writes")
        conn.commit()
        return found
    finally:
        conn.close()


def test_a_deal_recomputed_to_the_same_rows_is_not_rewritten(tmp_path):
    """A notice moves none of the deal's schedule rows: they stay as written (same
    rowids), its deals row takes the new count, and the file equals a rebuild."""
    db = str(tmp_path / "demo.db")
    build_demo(db)
    out, fresh = tmp_path / "views.db", tmp_path / "fresh.db"
    views(db, out, "--as-of", AS_OF)
    watch_writes(out)
    append(db, [ev("HoldersAdvised", "2006-01-11", deal=RRA)])
    views(db, out, "--as-of", AS_OF)
    assert writes(out) == set()
    assert rows(out, "SELECT events FROM deals WHERE deal = ?", (RRA,)) == [{"events": 33}]
    views(db, fresh, "--as-of", AS_OF)
    assert dump(out) == dump(fresh)


def test_only_the_tables_whose_rows_changed_are_rewritten(example_one, tmp_path):
    """SPEC §8 example 1 as of 2005-06-30: paying the 2005-01-15 Additional Interest
    (6,666.67, see the first test) changes that payments row and the obligation to pay
    it: payments and obligations are rewritten, defaults and deadlines are not."""
    out, fresh = tmp_path / "views.db", tmp_path / "fresh.db"
    views(example_one, out, "--as-of", "2005-06-30")
    watch_writes(out)
    append(example_one, [ev("AdditionalInterestPaid", "2005-01-18", deal="ex1",
                            payment_date="2005-01-15", amount="6666.67",
                            holder="Lehman Brothers Inc.")])
    views(example_one, out, "--as-of", "2005-06-30")
    assert writes(out) == {("payments", "ex1"), ("obligations", "ex1")}
    assert rows(out, "SELECT paid, status FROM payments WHERE deal = 'ex1'") == [
        {"paid": "6666.67", "status": "paid"}]
    views(example_one, fresh, "--as-of", "2005-06-30")
    assert dump(out) == dump(fresh)


@pytest.mark.parametrize("spoil", [
    "UPDATE _deal_written SET digests = x'00ff' WHERE deal = ?",   # does not decode
    "DELETE FROM _deal_written WHERE deal = ?",                     # none
])
def test_without_a_usable_digest_every_table_is_rewritten(tmp_path, spoil):
    db = str(tmp_path / "demo.db")
    build_demo(db)
    out, fresh = tmp_path / "views.db", tmp_path / "fresh.db"
    views(db, out, "--as-of", AS_OF)
    watch_writes(out)
    conn = sqlite3.connect(out)
    assert conn.execute(spoil, (RRA,)).rowcount == 1
    held = {t for (t,) in conn.execute(
        "SELECT 'payments' FROM payments WHERE deal = ? UNION SELECT 'deadlines' FROM "
        "deadlines WHERE deal = ? UNION SELECT 'obligations' FROM obligations WHERE "
        "deal = ? UNION SELECT 'defaults' FROM defaults WHERE deal = ?", (RRA,) * 4)}
    conn.commit()
    conn.close()
    assert len(held) >= 3
    append(db, [ev("HoldersAdvised", "2006-01-11", deal=RRA)])
    views(db, out, "--as-of", AS_OF)
    assert {t for t, deal in writes(out) if deal == RRA} >= held
    views(db, fresh, "--as-of", AS_OF)
    assert dump(out) == dump(fresh)


# ------------------------------------------------------------- killed mid-rebuild


def synthetic(deals: int, per_deal: int) -> list[dict]:
    """``deals`` valid RRA deals of ``per_deal`` events, interleaved 50 at a time."""
    holders = ["Holder A", "Holder B", "Holder C", "Holder D"]
    streams = []
    for d in range(deals):
        deal = f"deal-{d:03d}"
        objs = [opened(deal)] + [ev("NotesIssued", "2004-06-30", deal=deal, holder=h,
                                    principal="15000000") for h in holders]
        objs += [ev("ShelfFiled", "2004-07-13", deal=deal),
                 ev("ShelfEffective", "2004-11-15", deal=deal)]
        k = 0
        while len(objs) < per_deal:
            day = (date(2004, 11, 16) + timedelta(days=k // 3)).isoformat()
            kind = k % 5
            if kind == 0:
                objs.append(ev("NoticeSent", day, deal=deal, to="Trustee",
                               subject=f"notice {k}", method="hand"))
            elif kind == 1:
                objs.append(ev("NotesTransferred", day, deal=deal, from_holder=holders[k % 4],
                               to_holder=holders[(k + 1) % 4], principal="1000"))
            elif kind == 2:
                objs.append(ev("ConsentGiven", day, deal=deal, holder=holders[k % 4],
                               matter=f"matter {k % 3}"))
            elif kind == 3:
                objs.append(ev("TrusteeNotified", day, deal=deal))
            else:
                objs.append(ev("HoldersAdvised", day, deal=deal))
            k += 1
        streams.append(objs)
    out = []
    for start in range(0, per_deal, 50):
        for s in streams:
            out.extend(s[start:start + 50])
    return out


@pytest.fixture(scope="module")
def big_ledger(tmp_path_factory) -> str:
    """20 deals x 1,000 events = 20,000 events."""
    db = str(tmp_path_factory.mktemp("big") / "ledger.db")
    objs = synthetic(20, 1000)
    with Ledger(db) as ledger:
        for start in range(0, len(objs), 2000):
            ledger.append([parse_event(o) for o in objs[start:start + 2000]])
    return db


REBUILD = """
import sys
from datetime import date
from ledger.store import Ledger
from publishing.readmodels import views
with Ledger(sys.argv[1], create=False) as ledger:
    views(ledger, sys.argv[2], as_of=date(2006, 1, 1), rebuild=True, page=250,
            deals_per_commit=1)
"""


def progress(out: Path) -> tuple[int, int, int, int]:
    """(events streamed, tracked position, deals recomputed, deals waiting) as committed
    so far."""
    try:
        conn = sqlite3.connect(f"file:{out}?mode=ro", uri=True, timeout=1)
        try:
            tracked = conn.execute("SELECT notification_id FROM _tracking WHERE "
                                   "application_name = 'Ledger'").fetchone()
            done = conn.execute("SELECT count(*) FROM deals").fetchone()[0]
            waiting = conn.execute("SELECT count(*) FROM _dirty").fetchone()[0]
            streamed = conn.execute("SELECT count(*) FROM events").fetchone()[0]
            return streamed, (tracked[0] if tracked else 0), done, waiting
        finally:
            conn.close()
    except sqlite3.Error:
        return 0, 0, 0, 0


def kill_during(db: str, out: Path, phase: str) -> tuple[int, int, int, int]:
    """Start a rebuild in a subprocess and SIGKILL it once it is part way through
    ``phase`` ("streaming": some pages committed, not all; "recomputing": some deals
    recomputed, some not). Returns the progress it was killed at."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", REBUILD, db, str(out)], cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            streamed, tracked, done, waiting = progress(out)
            streaming = 0 < tracked and streamed < 20000
            recomputing = done > 0 and waiting > 0
            if (phase == "streaming" and streaming) or (phase == "recomputing" and recomputing):
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                return progress(out)
            if proc.poll() is not None:
                pytest.fail(f"the rebuild ended before it could be killed while {phase}")
            time.sleep(0.002)
        pytest.fail("the rebuild did not get going")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("phase", ["streaming", "recomputing"])
def test_a_rebuild_killed_midway_then_a_normal_run_matches_a_clean_rebuild(
        big_ledger, tmp_path, phase):
    out, clean = tmp_path / "views.db", tmp_path / "clean.db"
    views(big_ledger, clean, "--as-of", "2006-01-01", "--rebuild")
    assert rows(clean, "SELECT count(*) AS n FROM events") == [{"n": 20000}]
    streamed, tracked, done, waiting = kill_during(big_ledger, out, phase)
    if phase == "streaming":
        assert 0 < streamed < 20000 and 0 < tracked and done == 0
    else:
        assert 0 < done < 20 and waiting > 0
    resumed = views(big_ledger, out, "--as-of", "2006-01-01")
    if phase == "recomputing":
        assert resumed["events"] == 0 and resumed["deals"] == waiting
    else:
        assert resumed["events"] == 20000 - streamed and resumed["deals"] == 20
    assert dump(out) == dump(clean)


def test_a_thousand_new_events_in_one_deal_recompute_that_deal_only(big_ledger, tmp_path):
    """What makes the incremental run quick, checked by what it does, not by a clock (its
    time is measured by ``python -m benchmarks``, against the library, in the same run)."""
    db = str(tmp_path / "ledger.db")
    shutil.copy(big_ledger, db)
    out = tmp_path / "views.db"
    views(db, out, "--as-of", "2006-01-01")
    before = rows(out, "SELECT * FROM deals WHERE deal != 'deal-007' ORDER BY deal")
    more = [ev("NoticeSent", "2005-12-01", deal="deal-007", to="Trustee",
               subject=f"late notice {i}", method="mail") for i in range(1000)]
    append(db, more)
    summary = views(db, out, "--as-of", "2006-01-01")
    assert (summary["events"], summary["deals"], summary["seq"]) == (1000, 1, 21000)
    assert rows(out, "SELECT * FROM deals WHERE deal != 'deal-007' ORDER BY deal") == before
    assert rows(out, "SELECT events FROM deals WHERE deal = 'deal-007'") == [{"events": 2000}]


# ------------------------------------------------------------------------ bad input


def test_bad_input_is_one_line_naming_the_field(example_one, tmp_path):
    stranger = tmp_path / "stranger.db"
    conn = sqlite3.connect(stranger)
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()
    cases = [
        (("--out", example_one), "--out"),
        (("--out", str(stranger)), "--out"),
        (("--out", str(tmp_path / "no" / "such" / "views.db")), "--out"),
        (("--out", str(tmp_path / "v.db"), "--as-of", "2005-13-01"), "--as-of"),
        # SQLite's names for a temporary or in-memory database (found by test_fuzz)
        (("--out", ""), "--out"),
        (("--out", ":memory:"), "--out"),
    ]
    for args, field in cases:
        result = run("views", "--db", example_one, *args)
        assert result.exit_code == 2, (args, result.output)
        assert f"field '{field}'" in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert rows(stranger, "SELECT name FROM sqlite_master") == [{"name": "notes"}]


def test_views_of_another_ledger_are_refused_until_rebuilt(example_one, tmp_path):
    out = tmp_path / "views.db"
    views(example_one, out, "--as-of", "2005-06-30")
    other = str(tmp_path / f"other-{uuid.uuid4().hex[:6]}.db")
    build_demo(other)
    result = run("views", "--db", other, "--out", str(out), "--as-of", "2005-06-30")
    assert result.exit_code == 2
    assert "field '--out'" in result.output and "--rebuild" in result.output
    summary = views(other, out, "--as-of", "2005-06-30", "--rebuild")
    assert (summary["events"], summary["deals"]) == (58, 2)
    assert rows(out, "SELECT count(*) AS n FROM deals WHERE deal = 'ex1'") == [{"n": 0}]


def test_summary_line_for_people(example_one, tmp_path):
    out = tmp_path / "views.db"
    result = run("views", "--db", example_one, "--out", str(out), "--as-of", "2005-06-30")
    assert result.exit_code == 0
    assert result.output.strip() == (f"{out}: 4 event(s) processed, 1 deal(s) recomputed, "
                                     "position 4 (seq 4), as of 2005-06-30")


def test_a_commit_without_checkpoint_leaves_its_pages_in_the_log_until_the_next_commit(
        tmp_path):
    """``ReadModels.transaction(checkpoint=False)`` (the stream's last page): its commit
    does not copy the write-ahead log into the file, however big, and puts SQLite's
    automatic checkpoint back; the next commit copies it."""
    from publishing.readmodels import ReadModels

    path = str(tmp_path / "v.db")
    models = ReadModels(path)
    try:
        before = os.path.getsize(path)
        with models.writing() as (raw, _):
            pages = raw.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
        assert pages == 1000                                  # SQLite's default
        rows = [(f"k{i}", "x" * 3000) for i in range(1500)]   # 1,500 pages: past 1,000
        with models.transaction(checkpoint=False) as c:
            c.executemany("INSERT INTO _meta VALUES (?, ?)", rows)
        assert os.path.getsize(path) == before               # all of it still in the log
        assert os.path.getsize(path + "-wal") > 1500 * 3000
        with models.writing() as (raw, _):
            assert raw.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == pages
        with models.transaction() as c:
            c.execute("INSERT INTO _meta VALUES ('one', 'more')")
        assert os.path.getsize(path) > before + 1500 * 3000  # copied into the file
        assert dict(models.query("SELECT key, value FROM _meta WHERE key LIKE 'k%'")) == dict(rows)
    finally:
        models.close()
