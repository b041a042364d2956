"""Integrity (issue 11): whatever shape a batch has, the log stays one chain in seq order,
reports read exactly that chain, and every way of altering the store under the ledger is
caught by ``verify`` (naming the first bad seq), on SQLite and on PostgreSQL.

The hypothesis test appends random batches that interleave up to five deals and checks
after each batch what a user relies on: ``verify`` passes, ``log --json`` lists seq 1..N
in order, and each deal's report equals the report computed from its events as re-read
one by one from the log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ledger.store.chain import verify
from ledger.errors import RuleViolation
from ledger.events import Event, parse_event
from ledger.store import Ledger
from ledger.store.canonical import deal_id
from ledger.upcasting import upcast
from projections.report import report
from tests.db_access import Raw, RawChain, store_rows
from tests.support import ev, opened
from tests.test_bad_inputs import invoke

LONG = bool(os.environ.get("DEAL_LEDGER_LONG"))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _append(url, objs, **kw):
    with Ledger(url) as ledger:
        return ledger.append([parse_event(o, line=i + 1) for i, o in enumerate(objs)], **kw)


def _verify(url, expect=None):
    with Ledger(url, create=False) as ledger:
        return verify(ledger, expect)


def _log(url):
    result = invoke(["log", "--json", "--db", url])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def issued(deal, holder="H", principal="1000", day="2004-06-30"):
    return ev("NotesIssued", day, deal=deal, holder=holder, principal=principal)


# ------------------------------------------------------------ defect 1: batch shapes


def test_a_batch_interleaving_deals_is_stored_in_seq_order(store_url):
    # the repro: deals a and b open, then one batch: a, b, a
    _append(store_url, [opened("a"), opened("b")])
    done = _append(store_url, [issued("a", "A1"), issued("b", "B1"), issued("a", "A2")])
    assert [r["seq"] for r in done.records] == [3, 4, 5]
    v = _verify(store_url)
    assert v.ok and v.count == 5, v.line()
    log = _log(store_url)
    assert [r["seq"] for r in log] == [1, 2, 3, 4, 5]
    # seq is the order the lines were written in
    assert [(r["deal"], r["data"].get("holder")) for r in log[2:]] == \
        [("a", "A1"), ("b", "B1"), ("a", "A2")]
    # and the rows are stored in that order too: the notification log is the chain
    stored = [json.loads(state.decode())["record"]["seq"]
              for _, state, *_ in Raw(store_url).rows()]
    assert stored == [1, 2, 3, 4, 5]
    result = invoke(["verify", "--db", store_url])
    assert result.exit_code == 0 and result.stdout.startswith("ok: 5 events")


def test_a_ledger_written_grouped_by_deal_still_verifies_and_logs_in_seq_order(
        sqlite_url, monkeypatch):
    # Ledgers written before the fix hold an interleaved batch grouped by deal (seq 1, 3
    # of deal a, then seq 2 of deal b): nothing may be lost or re-hashed, so verify and
    # log read such a batch in seq order.
    import ledger.store.writing as store

    _append(sqlite_url, [opened("a"), opened("b")])
    monkeypatch.setattr(store, "_record_seq",
                        lambda e: (e.record["deal"], e.record["seq"]))  # the old layout
    _append(sqlite_url, [issued("b", "B1"), issued("a", "A1"), issued("b", "B2")])
    monkeypatch.undo()
    stored = [json.loads(state.decode()) for _, state, *_ in Raw(sqlite_url).rows()]
    assert [s["record"]["seq"] for s in stored] == [1, 2, 4, 3, 5]  # as the old code left it
    assert _verify(sqlite_url).ok
    assert [r["seq"] for r in _log(sqlite_url)] == [1, 2, 3, 4, 5]
    # and the next append continues the chain
    _append(sqlite_url, [issued("a", "A2")])
    v = _verify(sqlite_url)
    assert v.ok and v.count == 6


DEALS = ["d0", "d1", "d2", "d3", "d4"]


@st.composite
def batches(draw):
    """A history of batches over up to five deals: each deal is opened by the first
    batch that names it (its DealOpened comes first among its lines), and lines of
    different deals interleave in any order."""
    n_deals = draw(st.integers(1, 5))
    deals = DEALS[:n_deals]
    n_batches = draw(st.integers(1, 5))
    opened_deals: set[str] = set()
    out = []
    for _ in range(n_batches):
        lines = []
        for _ in range(draw(st.integers(1, 8))):
            deal = draw(st.sampled_from(deals))
            if deal not in opened_deals:
                opened_deals.add(deal)
                lines.append(opened(deal))
            holder = draw(st.sampled_from(["H0", "H1", "H2"]))
            cents = draw(st.integers(1, 10_000_000))
            lines.append(issued(deal, holder, f"{cents // 100}.{cents % 100:02d}",
                                day=draw(st.sampled_from(["2004-06-30", "2004-07-01",
                                                          "2004-12-31"]))))
        out.append(lines)
    return out


def _one_by_one(url, deal):
    """The deal's events re-read one by one from the log, not from its stream."""
    with Ledger(url, create=False) as ledger:
        return [Event.from_record(upcast(r)) for r in ledger.records() if r["deal"] == deal]


def _check_everything(url, appended_deals):
    v = _verify(url)
    assert v.ok, v.line()
    log = _log(url)
    assert [r["seq"] for r in log] == list(range(1, len(log) + 1))
    with Ledger(url, create=False) as ledger:
        for deal in appended_deals:
            from_stream = report(ledger.deal_events(deal), as_of=date(2005, 12, 31))
            from_log = report(_one_by_one(url, deal), as_of=date(2005, 12, 31))
            assert from_stream == from_log


@settings(max_examples=200 if LONG else 25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(history=batches())
def test_random_interleaved_batches_keep_one_chain(tmp_path_factory, history):
    url = str(tmp_path_factory.mktemp("h") / "ledger.db")
    seen = set()
    for batch in history:
        _append(url, batch)
        seen |= {line["deal"] for line in batch}
        _check_everything(url, seen)


def test_interleaved_batches_from_concurrent_writers(store_url):
    # four writers at once, each appending batches that interleave three deals
    _append(store_url, [opened(d) for d in DEALS[:3]])
    errors = []

    def writer(w):
        try:
            with Ledger(store_url) as ledger:
                for i in range(15):
                    lines = [issued(DEALS[(w + i + k) % 3], f"W{w}", f"{i + 1}.{k:02d}")
                             for k in range(3)]
                    ledger.append([parse_event(o) for o in lines], user=f"w{w}")
        except Exception as err:  # pragma: no cover - reported below
            errors.append(repr(err))

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    _check_everything(store_url, DEALS[:3])
    assert len(_log(store_url)) == 3 + 4 * 15 * 3


# ------------------------------------------- defect 2: what reports read is the chain


def _rra(url):
    """An RRA deal whose report depends on every event: seq 1 DealOpened, 2 NotesIssued,
    3 ShelfFiled, 4 ShelfEffective; and a second deal, b, at seq 5."""
    _append(url, [opened("rra"), ev("NotesIssued", "2004-06-30", holder="L",
                                    principal="60000000")])
    _append(url, [ev("ShelfFiled", "2004-07-13")])
    _append(url, [ev("ShelfEffective", "2004-11-15")])
    _append(url, [opened("b")])


class Tamper(Raw):
    """Edits of the event rows' columns, as a user with SQL access could make them."""

    def set(self, position, column, value):
        table, key = (("ledger_events", "notification_id") if self.pg
                      else ("stored_events", "rowid"))
        mark = "%s" if self.pg else "?"
        with self._conn() as c:
            c.execute(f"UPDATE {table} SET {column}={mark} WHERE {key}={mark}",
                      (value, position))

    def stream_id(self, deal):
        return str(deal_id(deal)) if self.pg else deal_id(deal).hex


def test_a_row_moved_to_another_stream_is_caught(store_url, tmp_path):
    # the repro: the ShelfEffective row (seq 4) moved to deal b's stream, so the
    # deal's report no longer sees it, while the chain, walked in log order, still holds
    _rra(store_url)
    raw = Tamper(store_url)
    pos = raw.rows()[3][0]
    raw.set(pos, "originator_id", raw.stream_id("b"))
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 4 and "another stream" in v.reason, v.line()
    head = _log_head_hash_before(store_url)
    assert not _verify(store_url, head).ok
    result = invoke(["verify", "--db", store_url])
    assert result.exit_code != 0 and "seq 4" in result.output
    # an auditor pack is not made from a ledger that does not verify
    result = invoke(["export", "rra", "--as-of", "2005-06-30", "--out",
                     str(tmp_path / "pack"), "--db", store_url])
    assert result.exit_code != 0 and "seq 4" in result.output
    assert not (tmp_path / "pack").exists()


def _log_head_hash_before(url):
    return RawChainHeads(url).last_hash()


class RawChainHeads(RawChain):
    def last_hash(self):
        state = self.rows()[-1][1]
        return json.loads(state.decode())["hash"]


def test_a_stream_position_changed_is_caught(store_url):
    _rra(store_url)
    raw = Tamper(store_url)
    rows = raw.rows()
    # give the ShelfFiled row (seq 3, version 3) version 7 of the same stream
    raw.set(rows[2][0], "originator_version", 7)
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 3 and "position 7" in v.reason, v.line()


def test_a_removed_chain_head_is_caught(store_url):
    _rra(store_url)
    heads = RawChain(store_url)
    first = heads.rows()[0][0]
    heads.delete(first)
    v = _verify(store_url)
    assert not v.ok and "chain head" in v.reason, v.line()


def test_a_chain_head_moved_into_the_future_is_caught_before_and_after_an_append(store_url):
    # a review (stop 19): verify checked a head's seq and hash but not its recorded_at,
    # which the next append takes as the floor of its own: a head set to 2099 passed, and
    # the next event was stamped 2099 for good (a report known at today's date then
    # leaves it out)
    _rra(store_url)
    heads = RawChain(store_url)
    pos, state, _, _ = heads.rows()[-1]
    head = json.loads(state.decode())
    assert head["seq"] == 5
    recorded = head["recorded_at"]
    head["recorded_at"] = "2099-01-01T00:00:00.000000Z"
    Tamper(store_url).set(pos, "state", json.dumps(head).encode())
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 5, v.line()
    assert "2099-01-01T00:00:00.000000Z" in v.reason and recorded in v.reason, v.line()
    _append(store_url, [ev("ShelfUnusable", "2006-03-01", deal="rra", reason="stop_order")])
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 5 and "the head was altered" in v.reason, v.line()
    result = invoke(["verify", "--db", store_url])
    assert result.exit_code != 0 and "seq 5" in result.output


def test_events_after_the_last_head_are_caught(store_url):
    _rra(store_url)
    heads = RawChain(store_url)
    heads.delete(heads.rows()[-1][0])
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 5 and "no chain head" in v.reason, v.line()


def test_a_row_of_an_unknown_kind_in_the_log_is_caught(store_url):
    _rra(store_url)
    raw = Tamper(store_url)
    raw.set(raw.rows()[2][0], "topic", "elsewhere:Something")
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 3 and "unknown kind" in v.reason, v.line()


# --------------------------------------------------------- defect 3: snapshots


def _big_deal(url):
    """A deal with more than 100 events (so a snapshot is taken): Holder H holds
    10,000,000 of Notes."""
    _append(url, [opened("rra"), ev("NotesIssued", "2004-06-30", holder="H",
                                    principal="10000000")])
    _append(url, [ev("NoticeSent", "2004-07-01", to="H", subject=f"n{i}", method="hand")
                  for i in range(120)])


class RawSnapshots:
    def __init__(self, url):
        self.url, self.pg = url, url.startswith("postgres")
        self.table = "ledger_snapshots" if self.pg else "stored_snapshots"

    def _conn(self):
        return Raw(self.url)._conn()

    def states(self):
        with self._conn() as c:
            return [(r[0], r[1], bytes(r[2])) for r in c.execute(
                f"SELECT originator_id, originator_version, state FROM {self.table}")]

    def set_state(self, originator_id, version, state):
        mark = "%s" if self.pg else "?"
        with self._conn() as c:
            c.execute(f"UPDATE {self.table} SET state={mark} WHERE originator_id={mark} "
                      f"AND originator_version={mark}", (state, originator_id, version))


def _forge(url, *, reseal):
    """Edit H's holding in the snapshot to 500,000,000.00 (cents in the guard state)."""
    from ledger.store.stream import seal

    snaps = RawSnapshots(url)
    (oid, version, state), = snaps.states()
    doc = json.loads(state.decode())
    state_doc = doc["state"] if "state" in doc else doc
    timeline = state_doc["guard"]["timelines"]["notes:H"]
    assert timeline["end"] == 1_000_000_000  # 10,000,000.00 in cents
    timeline["end"] = 50_000_000_000
    if reseal:
        state_doc["seal"] = seal(state_doc["guard"], state_doc["at"], version)
    snaps.set_state(oid, version, json.dumps(doc, separators=(",", ":")).encode())


CONVERT = ev("NotesConverted", "2005-01-03", holder="H", principal="500000000",
             shares=1)


def test_an_edited_snapshot_is_not_trusted_by_appends_and_verify_names_it(store_url):
    # the repro: a holding edited in the snapshot let a Holder of 10,000,000
    # convert 500,000,000; the write side now rebuilds from the events instead
    _big_deal(store_url)
    _forge(store_url, reseal=False)
    with pytest.raises(RuleViolation, match="holds 10,000,000.00 of Notes"):
        _append(store_url, [CONVERT])
    v = _verify(store_url)
    assert not v.ok and "snapshot" in v.reason and "altered" in v.reason, v.line()


def test_a_resealed_forged_snapshot_is_caught_by_verify(store_url):
    # someone who recomputes the seal too gets past the write side's cheap check; the
    # verify rebuilds the state from the events and names the snapshot
    _big_deal(store_url)
    _forge(store_url, reseal=True)
    v = _verify(store_url)
    assert not v.ok and "snapshot" in v.reason and "does not match" in v.reason, v.line()
    assert v.bad_seq is not None


def test_intact_snapshots_verify_and_are_used(store_url):
    _big_deal(store_url)
    assert _verify(store_url).ok
    with Ledger(store_url, create=False) as ledger:
        stream = ledger._from_snapshot("rra")
        assert stream is not None and stream.version == 122
    with pytest.raises(RuleViolation, match="holds 10,000,000.00 of Notes"):
        _append(store_url, [CONVERT])


# ------------------------------------------ defect 4: verify while others append


def _writers(url, n, seconds):
    code = (
        "import sys, time\n"
        "from ledger.store import Ledger\n"
        "from ledger.events import parse_event\n"
        "url, w, until = sys.argv[1], sys.argv[2], time.time() + float(sys.argv[3])\n"
        "n = 0\n"
        "with Ledger(url, create=False) as ledger:\n"
        "    while time.time() < until:\n"
        "        objs = [{'type': 'NotesIssued', 'deal': d, 'date': '2004-06-30',\n"
        "                 'data': {'holder': 'W' + w, 'principal': '1.00'}} for d in ('a', 'b')]\n"
        "        ledger.append([parse_event(o) for o in objs])\n"
        "        n += 1\n"
        "print(n)\n")
    return [subprocess.Popen([sys.executable, "-c", code, url, str(w), str(seconds)],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for w in range(n)]


def test_verify_under_four_writers_raises_no_false_alarm(store_url):
    _append(store_url, [opened("a"), opened("b")])
    procs = _writers(store_url, 4, 8 if not LONG else 60)
    runs, alarms = 0, []
    deadline = time.time() + (8 if not LONG else 60)
    while time.time() < deadline or runs < 5:
        v = _verify(store_url)
        runs += 1
        if not v.ok:
            alarms.append(v.line())
    appended = 0
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        appended += int(out.strip())
    assert alarms == []
    assert runs >= 5 and appended > 0
    v = _verify(store_url)
    assert v.ok and v.count == 2 + 2 * appended


# ------------------------------------------------- defect 5: a full disk


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MiB tmpfs: a disk that fills up. Needs root and mount (skips otherwise)."""
    where = tmp_path / "disk"
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def _fill(disk):
    """Fill the disk with a plain file; return its path."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    return filler


def test_a_full_disk_fails_at_once_with_exit_5_and_writes_nothing(small_disk, tmp_path):
    db = str(small_disk / "ledger.db")
    assert invoke(["init", "rra", "--template", "infocrossing-rra-2004", "--db", db]
                  ).exit_code == 0
    before = store_rows(db)
    # fill the disk with a plain file, leaving a little room
    filler = _fill(small_disk)
    os.truncate(filler, max(0, os.path.getsize(filler) - 8192))
    batch = tmp_path / "big.jsonl"
    batch.write_text("".join(json.dumps(issued("rra", f"Holder {i}", "1000")) + "\n"
                             for i in range(2000)))
    started = time.monotonic()
    result = invoke(["append", str(batch), "--db", db])
    elapsed = time.monotonic() - started
    assert result.exit_code == 5, result.output
    assert "full" in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert elapsed < 20  # not a minute of retries
    os.remove(filler)
    assert store_rows(db) == before
    assert _verify(db).ok


def _count(db: str) -> int:
    with Ledger(db, create=False) as ledger:
        return len(list(ledger.records()))


def test_init_on_a_full_disk_writes_nothing_and_works_once_there_is_room(small_disk):
    # The file init created may stay, without an event: a file is never removed on a
    # failure, as another writer may have written to it meanwhile (issue 29 item 1,
    # tests/test_nothing_lost.py); once there is room, init takes it as a new ledger
    _fill(small_disk)
    db = str(small_disk / "ledger.db")
    result = invoke(["init", "rra", "--template", "infocrossing-rra-2004", "--db", db])
    assert result.exit_code == 5, result.output
    assert "Traceback" not in result.output
    assert not os.path.exists(db) or os.path.getsize(db) == 0 or _count(db) == 0
    os.remove(small_disk / "filler")
    result = invoke(["init", "rra", "--template", "infocrossing-rra-2004", "--db", db])
    assert result.exit_code == 0, result.output
    assert _count(db) == 1


# ------------------------------------- the pack: a deal's events form a chain of their own


def test_a_pack_missing_an_event_of_its_deal_is_caught_offline(sqlite_url, tmp_path):
    # A pack made from a stream that lost a row (by an exporter that did not verify the
    # ledger first, or by hand) used to verify: the deal's events are not adjacent in the
    # log, so no prev_hash link between them could be checked. Each event's deal_prev
    # (the hash of the deal's event before it) closes that gap.
    from publishing.pack import build_pack, verify_pack

    _rra(sqlite_url)
    with Ledger(sqlite_url, create=False) as ledger:
        records = ledger.deal_records("rra")
        head = ledger.head()
    assert [r["deal_prev"] for r in records[1:]] == [r["hash"] for r in records[:-1]]
    for name, drop in (("whole", None), ("gap", 2)):
        kept = [r for r in records if r["seq"] != drop]
        files = build_pack(kept, {"seq": head.seq, "hash": head.hash,
                                  "recorded_at": head.recorded_at}, as_of=date(2005, 6, 30))
        out = tmp_path / name
        out.mkdir()
        for file, data in files.items():
            (out / file).write_bytes(data)
        verdict = verify_pack(str(out))
        if drop is None:
            assert verdict.ok, verdict.line()
        else:
            assert not verdict.ok and "seq 3: deal_prev" in verdict.line(), verdict.line()


def test_a_deal_folded_after_the_walk_is_held_to_its_snapshot_as_well(store_url, monkeypatch):
    # the walk takes a deal's guard state only while the states it holds stay within a
    # bound (ledger.store.refold); here one event: rra's state is taken (none was held),
    # rrb's is not, and rrb is folded after the walk from the same view and compared
    # there, as closely as a state held: its snapshot forged and re-sealed is named
    from ledger.store import chain, walk
    from ledger.store.canonical import deal_id
    from ledger.store.refold import refold
    from ledger.store.stream import seal

    monkeypatch.setattr(walk, "HELD_EVENTS", 1)
    monkeypatch.setattr(chain, "PAGE", 10)   # ten rows a page: both deals' states open
    after = []
    monkeypatch.setattr(walk, "refold", lambda *a: after.append(a[1]) or refold(*a))
    for deal in ("rra", "rrb"):
        _append(store_url, [opened(deal), ev("NotesIssued", "2004-06-30", holder="H",
                                             principal="10000000", deal=deal)])
    _append(store_url, [ev("NoticeSent", "2004-07-01", to="H", subject=f"n{i}",
                           method="hand", deal=deal) for i in range(120)
                        for deal in ("rra", "rrb")])
    assert _verify(store_url).ok
    assert len(after) == 1   # one deal was folded after the walk
    snaps = RawSnapshots(store_url)
    rrb = deal_id("rrb")
    (oid, version, state), = [s for s in snaps.states() if str(s[0]).replace("-", "")
                              == rrb.hex]
    doc = json.loads(state.decode())
    doc["state"]["guard"]["timelines"]["notes:H"]["end"] = 50_000_000_000
    doc["state"]["seal"] = seal(doc["state"]["guard"], doc["state"]["at"], version)
    snaps.set_state(oid, version, json.dumps(doc, separators=(",", ":")).encode())
    v = _verify(store_url)
    assert not v.ok and "snapshot of deal rrb" in v.reason and "does not match" in v.reason, \
        v.line()
    assert v.bad_seq == 244, v.line()   # rrb's 122nd event: 2 + 2 + 120 x 2
