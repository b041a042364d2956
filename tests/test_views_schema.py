"""The views file as an analyst's database (issue 15 item 11), and incremental runs equal
to a rebuild on random histories (issue 17).

Keys, foreign keys, money in exact cents (checked against SPEC §8 example 1 by hand),
internal tables out of sight, the Datasette metadata written beside the file, the
migration of a file of the previous schema version, progress, and the pool of workers
giving the same tables as one process."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.errors import LedgerError
from ledger.events import parse_event
from ledger.store import Ledger
from publishing import readmodels, viewworkers
from publishing.demo import AS_OF, build_demo
from tests.support import ev, opened
from tests.test_views import dump, example_one, rows, views  # noqa: F401 (example_one: a fixture)

LONG = bool(os.environ.get("DEAL_LEDGER_LONG"))
PUBLIC = {"events", "deals", "defaults", "suspension_periods", "payments", "deadlines",
          "true_ups", "obligations"}
INTERNAL = {"_tracking", "_meta", "_dirty", "_deal_state", "_deal_written"}


def tables(out: Path) -> set[str]:
    return {r["name"] for r in rows(out, "SELECT name FROM sqlite_master WHERE type='table'")}


def test_internal_tables_start_with_an_underscore(example_one, tmp_path):
    out = tmp_path / "views.db"
    views(example_one, out, "--as-of", "2005-06-30")
    assert tables(out) == PUBLIC | INTERNAL


def test_keys_and_foreign_keys_are_declared_and_hold(tmp_path):
    db = str(tmp_path / "demo.db")
    build_demo(db)
    out = tmp_path / "views.db"
    views(db, out, "--as-of", AS_OF)
    conn = sqlite3.connect(out)
    try:
        def key(table):
            info = conn.execute(f"PRAGMA table_info({table})").fetchall()
            return [r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5])]

        def references(table):
            return {(r[3], r[2], r[4]) for r in conn.execute(
                f"PRAGMA foreign_key_list({table})")}

        assert key("payments") == ["deal", "payment_date", "holder"]
        assert key("deals") == ["deal"] and key("events") == ["seq"]
        for table in ("defaults", "suspension_periods", "deadlines", "true_ups"):
            assert key(table) == ["deal", "n"]
        for table in ("events", "defaults", "suspension_periods", "payments", "deadlines",
                      "true_ups"):
            assert ("deal", "deals", "deal") in references(table), table
        assert ("event", "events", "id") in references("true_ups")
        # every reference resolves (the demo has both kinds of deal)
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert conn.execute("SELECT count(*) FROM true_ups").fetchone()[0] > 0
        assert conn.execute("SELECT count(*) FROM payments").fetchone()[0] > 0
    finally:
        conn.close()


def test_money_is_exact_integer_cents_with_text_beside(example_one, tmp_path):
    out = tmp_path / "views.db"
    views(example_one, out, "--as-of", "2005-06-30")
    # 60,000,000 x 0.0025 x 16/360 = 6,666.67 (SPEC §8 example 1): 666,667 cents
    assert rows(out, "SELECT accrued_to_as_of, accrued_to_as_of_cents, paid_to_as_of, "
                     "paid_to_as_of_cents FROM deals") == [
        {"accrued_to_as_of": "6666.67", "accrued_to_as_of_cents": 666667,
         "paid_to_as_of": "0.00", "paid_to_as_of_cents": 0}]
    assert rows(out, "SELECT typeof(sum(amount_cents)) AS t, sum(amount_cents) AS s, "
                     "typeof(amount) AS a FROM payments") == [
        {"t": "integer", "s": 666667, "a": "text"}]


def test_datasette_metadata_is_written_beside_the_file(example_one, tmp_path):
    out = tmp_path / "views.db"
    summary = views(example_one, out, "--as-of", "2005-06-30")
    meta_file = tmp_path / "views.metadata.json"
    assert summary["metadata"] == str(meta_file)
    meta = json.loads(meta_file.read_text())
    described = meta["databases"]["views"]["tables"]   # Datasette names the file "views"
    conn = sqlite3.connect(out)
    try:
        for table in PUBLIC:
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            assert set(described[table]["columns"]) == set(columns), table
            assert all(described[table]["columns"].values()), table
            assert described[table]["description"] and not described[table].get("hidden")
    finally:
        conn.close()
    assert all(described[t]["hidden"] for t in INTERNAL)
    assert "cents" in described["payments"]["columns"]["amount_cents"]
    assert described["suspension_periods"]["units"] == {"days": "day"}


def test_a_deal_is_shown_by_a_short_label(example_one, tmp_path):
    # issue 31, item 12: Datasette labels a foreign key by the referenced table's "name"
    # column when it has one: each payments row showed the agreement's 120-character
    # title and stood ten lines tall. deals.label is short and Datasette is told to use it
    out = tmp_path / "views.db"
    views(example_one, out, "--as-of", "2005-06-30")
    meta = json.loads((tmp_path / "views.metadata.json").read_text())
    assert meta["databases"]["views"]["tables"]["deals"]["label_column"] == "label"
    conn = sqlite3.connect(out)
    try:
        [(deal, label, name)] = conn.execute("SELECT deal, label, name FROM deals").fetchall()
    finally:
        conn.close()
    assert label == f"{deal} (RRA)" and len(label) < 40 < len(name)


def test_a_file_of_the_previous_format_is_rebuilt(example_one, tmp_path):
    """Format 1 had ``meta``, ``dirty`` and ``tracking`` and no cents on ``deals``."""
    out, fresh = tmp_path / "views.db", tmp_path / "fresh.db"
    conn = sqlite3.connect(out)
    conn.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
        INSERT INTO meta VALUES ('format', 'deal-ledger views 1'), ('as_of', '2005-06-30');
        CREATE TABLE dirty (deal TEXT PRIMARY KEY);
        CREATE TABLE tracking (application_name TEXT, notification_id INTEGER,
                               PRIMARY KEY (application_name)) WITHOUT ROWID;
        INSERT INTO tracking VALUES ('Ledger', 4);
        CREATE TABLE deals (deal TEXT PRIMARY KEY, accrued_to_as_of TEXT);
        INSERT INTO deals VALUES ('ex1', '1.00');
        CREATE TABLE payments (deal TEXT, n INTEGER, amount TEXT, PRIMARY KEY (deal, n));
        CREATE INDEX payments_by_amount ON payments (amount);""")
    conn.commit()
    conn.close()
    summary = views(example_one, out, "--as-of", "2005-06-30")
    assert (summary["rebuilt"], summary["migrated_from"]) == (True, "deal-ledger views 1")
    assert (summary["events"], summary["deals"]) == (4, 1)
    assert tables(out) == PUBLIC | INTERNAL
    views(example_one, fresh, "--as-of", "2005-06-30")
    assert dump(out) == dump(fresh)
    again = views(example_one, out, "--as-of", "2005-06-30")   # now current: no rebuild
    assert (again["rebuilt"], again["migrated_from"], again["events"]) == (False, None, 0)


def test_progress_reports_each_stage_to_its_total(tmp_path):
    db = str(tmp_path / "demo.db")
    build_demo(db)
    seen: dict[str, list[tuple[int, int | None]]] = {}
    with Ledger(db, create=False) as ledger:
        result = readmodels.views(ledger, str(tmp_path / "v.db"), as_of=date(2007, 12, 31),
                                  page=10, deals_per_commit=1,
                                  on_progress=lambda s, n, t: seen.setdefault(s, []).append(
                                      (n, t)))
    assert list(seen) == ["reading the log", "computing deals"]
    read = seen["reading the log"]
    assert len({t for _, t in read}) == 1 and sum(n for n, _ in read) == read[0][1]
    assert seen["computing deals"] == [(1, 2), (1, 2)] and result.deals == 2


def test_the_pool_of_workers_writes_what_one_process_writes(tmp_path, monkeypatch):
    db = str(tmp_path / "demo.db")
    build_demo(db)
    one, pool = str(tmp_path / "one.db"), str(tmp_path / "pool.db")
    monkeypatch.setattr(viewworkers, "POOL_MIN_DEALS", 0)     # deals computed by workers
    monkeypatch.setattr(readmodels, "STREAM_POOL_MIN", 0)    # the log decoded by workers
    with Ledger(db, create=False) as ledger:
        readmodels.views(ledger, one, as_of=date(2007, 12, 31), workers=1)
        readmodels.views(ledger, pool, as_of=date(2007, 12, 31), workers=2, page=7,
                         deals_per_commit=1)
    assert dump(Path(one)) == dump(Path(pool))


def test_datasette_serves_the_file_with_its_metadata(example_one, tmp_path):
    """Datasette is optional (not a dependency): skipped where it is not installed."""
    pytest.importorskip("datasette", reason="datasette is not installed (optional)")
    out = tmp_path / "views.db"
    views(example_one, out, "--as-of", "2005-06-30")
    exe = Path(sys.executable).with_name("datasette")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "datasette"]
    got = subprocess.run([*cmd, str(out), "-m", str(tmp_path / "views.metadata.json"),
                          "--get", "/views/payments.json?_shape=array"],
                         capture_output=True, text=True, timeout=120)
    assert got.returncode == 0, got.stderr
    assert [(r["holder"], r["amount_cents"]) for r in json.loads(got.stdout)] == [
        ("Lehman Brothers Inc.", 666667)]
    def get(path: str) -> str:
        done = subprocess.run([*cmd, str(out), "-m", str(tmp_path / "views.metadata.json"),
                               "--get", path], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    listed = {t["name"]: t["hidden"] for t in json.loads(get("/views.json"))["tables"]}
    assert {t for t, hidden in listed.items() if not hidden} == PUBLIC
    assert INTERNAL <= {t for t, hidden in listed.items() if hidden}
    page = get("/views/payments")
    assert "Additional Interest (RRA §3(b)) per Holder" in page
    assert "Amount owed in US cents" in page          # the column's description


# ----------------------------------------------- incremental = rebuild, at random

HOLDERS = ("Holder A", "Holder B", "Holder C")
DEALS = ("rra-1", "rra-2")


@st.composite
def histories(draw):
    """Events for two RRA deals, in the order an operator might record them (dates
    anywhere from closing to 2008), some refused by the write-side rules (skipped)."""
    day = st.dates(date(2004, 6, 30), date(2008, 6, 30)).map(date.isoformat)
    kinds = st.sampled_from(["NotesIssued", "NotesTransferred", "ShelfFiled",
                             "ShelfEffective", "SuspensionStarted", "SuspensionEnded",
                             "HoldersAdvised", "TrusteeNotified", "NoticeSent",
                             "AdditionalInterestPaid", "ConsentGiven", "retract"])
    out = []
    for deal in DEALS:
        out.append(opened(deal))
        out.append(ev("NotesIssued", "2004-06-30", deal=deal, holder=HOLDERS[0],
                      principal="60000000"))
    for _ in range(draw(st.integers(1, 25))):
        kind, deal, when = draw(kinds), draw(st.sampled_from(DEALS)), draw(day)
        holder = draw(st.sampled_from(HOLDERS))
        if kind == "NotesIssued":
            out.append(ev(kind, when, deal=deal, holder=holder, principal="1000000"))
        elif kind == "NotesTransferred":
            out.append(ev(kind, when, deal=deal, from_holder=HOLDERS[0], to_holder=holder,
                          principal="1000000", under_shelf=draw(st.booleans())))
        elif kind == "SuspensionStarted":
            out.append(ev(kind, when, deal=deal, material_transaction=draw(st.booleans())))
        elif kind == "NoticeSent":
            out.append(ev(kind, when, deal=deal, to="Trustee", subject="s", method="mail"))
        elif kind == "AdditionalInterestPaid":
            out.append(ev(kind, when, deal=deal, payment_date="2005-01-15", holder=holder,
                          amount="100.00"))
        elif kind == "ConsentGiven":
            out.append(ev(kind, when, deal=deal, holder=holder, matter="waiver"))
        elif kind == "retract":
            out.append(("retract", draw(st.integers(0, 10_000)), when))
        else:
            out.append(ev(kind, when, deal=deal))
    runs = draw(st.lists(st.tuples(st.integers(0, len(out)),
                                   st.sampled_from(["2005-06-30", "2006-12-31", "2008-06-30"])),
                         min_size=1, max_size=4))
    return out, sorted(runs)


def _record(ledger: Ledger, item, recorded: list[tuple[str, str]]) -> None:
    """Append one drawn event (a retraction picks an earlier live one), skipping what
    the write-side rules refuse."""
    if isinstance(item, tuple):
        if not recorded:
            return
        _, pick, when = item
        target, deal = recorded[pick % len(recorded)]
        item = ev("EventRetracted", when, deal=deal, event_id=target, reason="drawn")
    try:
        result = ledger.append([parse_event(item)])
    except LedgerError:
        return
    recorded.extend((r["id"], r["deal"]) for r in result.records)


@settings(max_examples=300 if LONG else 25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(histories())
def test_incremental_runs_equal_a_rebuild_on_random_histories(tmp_path_factory, drawn):
    """Runs at random points of a random history, with the as-of moving between them
    (every deal recomputed), always end equal to one rebuild of the whole log."""
    history, runs = drawn
    work = tmp_path_factory.mktemp("hist")
    db, out, fresh = str(work / "l.db"), work / "v.db", work / "f.db"
    recorded: list[tuple[str, str]] = []
    done = 0
    with Ledger(db) as ledger:
        for upto, as_of in runs:
            for item in history[done:upto]:
                _record(ledger, item, recorded)
            done = max(done, upto)
            readmodels.views(ledger, str(out), as_of=date.fromisoformat(as_of), page=3,
                             workers=1)
        for item in history[done:]:
            _record(ledger, item, recorded)
        last = date.fromisoformat(runs[-1][1])
        readmodels.views(ledger, str(out), as_of=last, page=3, workers=1)
        readmodels.views(ledger, str(fresh), as_of=last, rebuild=True)
    assert dump(out) == dump(fresh)


def test_the_command_opens_one_progress_bar_per_stage(example_one, tmp_path, monkeypatch):
    """``views`` hands the library an ``on_progress`` that opens ``cli.progress`` bars
    (a rich bar on a terminal's stderr, nothing on a pipe), one per stage, each advanced
    to its total."""
    import contextlib

    from cli import progress as progress_module
    from tests.cli_support import run

    bars: list[list] = []

    @contextlib.contextmanager
    def recording(label, total=None, *, unit="events"):
        bar = [label, total, unit, 0]
        bars.append(bar)

        def advance(n=1):
            bar[3] += n
        yield advance

    monkeypatch.setattr(progress_module, "progress", recording)
    result = run("views", "--db", example_one, "--out", str(tmp_path / "v.db"),
                 "--as-of", "2005-06-30")
    assert result.exit_code == 0 and result.stderr == ""
    # 4 events and the chain's head: notification ids 1..5; one deal
    assert bars == [["reading the log", 5, "events", 5], ["computing deals", 1, "deals", 1]]


def test_the_obligations_table_holds_each_duty_with_its_state(example_one, tmp_path):
    """Issue 16 item 4: the report's obligations as a table, each with its clause's date
    worked out by hand (closing 2004-06-30; SPEC §8 example 1's facts)."""
    out = tmp_path / "views.db"
    views(example_one, out, "--as-of", "2005-06-30")
    got = {r["key"]: r for r in rows(out, "SELECT * FROM obligations WHERE deal = 'ex1'")}
    # RRA §2(a)(i): filed within 15 days of closing: 2004-06-30 + 15 = 2004-07-15; filed
    # 2004-07-13, so fulfilled that day
    assert (got["file-shelf"]["due"], got["file-shelf"]["state"],
            got["file-shelf"]["since"]) == ("2004-07-15", "fulfilled", "2004-07-13")
    # RRA §2(a)(ii): effective within 120 days: 2004-06-30 + 120 = 2004-10-28; violated
    # from the next day, cured by the effectiveness of 2004-11-15
    eff = got["shelf-effective"]
    assert (eff["due"], eff["state"], eff["violated_since"], eff["cured_on"]) == (
        "2004-10-28", "cured", "2004-10-29", "2004-11-15")
    # RRA §3(b): the Trustee is told within 2 Business Days of the default date
    # (Thu 2004-10-28): Fri 10-29, Mon 11-01; nothing recorded, so violated from 11-02
    [trustee] = [r for k, r in got.items() if k.startswith("notify-trustee/(ii)/")]
    assert (trustee["due"], trustee["state"]) == ("2004-11-01", "violated")
    # RRA §3(b): Lehman's Additional Interest for 2005-01-15 (a Saturday; Monday 01-17
    # is Martin Luther King Jr. Day, so paid Tuesday 2005-01-18):
    # 60,000,000 x 0.25% x 16/360 = 6,666.67 = 666,667 cents, unpaid
    pay = got["pay-additional-interest/2005-01-15/Lehman Brothers Inc."]
    assert (pay["due"], pay["state"], pay["amount"], pay["amount_cents"]) == (
        "2005-01-18", "violated", "6666.67", 666667)
    # RRA §2(a)(iii): effective for 2 years from 2004-11-15, still running on 2005-06-30
    assert (got["keep-effective"]["due"], got["keep-effective"]["state"]) == (
        "2006-11-15", "due")
    assert all(json.loads(r["events"]) for r in got.values())
