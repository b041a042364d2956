"""Several OS processes appending to one ledger at once, on SQLite and on PostgreSQL:
every event kept exactly once, seq gap-free, the chain valid, and the deal's rules hold
across writers (two operators cannot together convert more Notes than a holder has).

Writers queue on a lock (an ``flock`` beside a SQLite file, an advisory lock on
PostgreSQL) and the chain head's optimistic version check stays the guarantee; each
process keeps its deals' write-side state between appends and tops it up with what the
others stored, so one append costs the same at the 8,000th event as at the first."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter

import pytest

from ledger.store.chain import verify
from ledger.errors import LedgerBusy
from ledger.events import parse_event
from ledger.store import Ledger
from tests.support import ev, opened

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_workers(url: str, n_procs: int, n_each: int, *extra: str) -> list[str]:
    procs = [subprocess.Popen([sys.executable, "-m", "tests.concurrency_worker", url, str(w),
                               str(n_each), *extra], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for w in range(n_procs)]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=900)
        assert p.returncode == 0, err
        outs.append(out.strip())
    return outs


def _open(url):
    with Ledger(url) as ledger:
        ledger.append([parse_event(opened("rra")),
                       parse_event(ev("NotesIssued", "2004-06-30", holder="L",
                                      principal="5000"))])


@pytest.mark.parametrize("n_procs, n_each", [(2, 150), (8, 1000)])
def test_concurrent_appends_keep_every_event(store_url, n_procs, n_each):
    _open(store_url)
    started = time.monotonic()
    outs = run_workers(store_url, n_procs, n_each)
    elapsed = time.monotonic() - started
    assert outs == [f"appended={n_each} refused=0 busy=0"] * n_procs
    with Ledger(store_url, create=False) as ledger:
        records = list(ledger.records())
        v = verify(ledger)
        assert v.ok, v.line()
        assert ledger.head().seq == len(records)
    total = 2 + n_procs * n_each
    assert [r["seq"] for r in records] == list(range(1, total + 1))  # gap-free
    notices = [r for r in records if r["type"] == "NoticeSent"]
    keys = Counter(r.get("key") for r in notices)
    assert len(keys) == n_procs * n_each and set(keys.values()) == {1}  # exactly once
    assert Counter(r["recorded_by"] for r in notices) == {
        f"worker-{w}": n_each for w in range(n_procs)}
    for w in range(n_procs):  # each writer's events in the order it appended them
        mine = [int(r["key"].split("-")[1]) for r in notices if r["recorded_by"] == f"worker-{w}"]
        assert mine == list(range(n_each))
    print(f"\n{n_procs} processes x {n_each} events: {elapsed:.1f} s")


def test_two_operators_cannot_together_convert_more_than_held(store_url):
    _open(store_url)  # L holds 5,000.00
    outs = run_workers(store_url, 4, 3, "convert", "L", "1000")
    appended = sum(int(o.split()[0].split("=")[1]) for o in outs)
    refused = sum(int(o.split()[1].split("=")[1]) for o in outs)
    assert (appended, refused) == (5, 7)  # 5 × 1,000 = 5,000 held; 12 tried
    with Ledger(store_url, create=False) as ledger:
        assert verify(ledger).ok
        converted = [r for r in ledger.records() if r["type"] == "NotesConverted"]
    assert len(converted) == 5


def _hold_the_writer_lock(url: str) -> subprocess.Popen:
    """Another process holding the ledger's writer lock until killed."""
    if url.startswith("postgres"):
        from ledger.store.locks import AdvisoryLock

        code = ("import psycopg, sys, time; c = psycopg.connect(sys.argv[1], autocommit=True); "
                f"c.execute('SELECT pg_advisory_lock({AdvisoryLock.KEY})'); "
                "print('held', flush=True); time.sleep(600)")
        args = [url]
    else:
        code = ("import fcntl, os, sys, time; "
                "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600); "
                "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(600)")
        args = [url + ".lock"]
    holder = subprocess.Popen([sys.executable, "-c", code, *args], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_a_writer_that_never_gets_the_lock_is_busy(store_url, monkeypatch, tmp_path):
    """Waiting is bounded: exit 4 (busy), one line, nothing written; then, once the
    holder is gone, the same append goes through."""
    from ledger.store import connection, locks, writing
    from tests.test_bad_inputs import invoke

    _open(store_url)
    # each module that waits reads its own name (PostgreSQL's lock_timeout is set from
    # connection's): all three, or the PostgreSQL run waits the full minute, twice
    for module in (connection, locks, writing):
        monkeypatch.setattr(module, "RETRY_SECONDS", 1.0)
    batch = tmp_path / "b.jsonl"
    batch.write_text('{"type": "ShelfFiled", "deal": "rra", "date": "2004-07-13", "data": {}}\n')
    holder = _hold_the_writer_lock(store_url)
    try:
        with Ledger(store_url, create=False) as ledger:
            with pytest.raises(LedgerBusy):
                ledger.append([parse_event(ev("ShelfFiled", "2004-07-13"))])
        result = invoke(["append", str(batch), "--db", store_url])
        assert result.exit_code == 4, result.output
        assert len(result.stderr.strip().split("\n")) == 1 and "busy" not in result.stdout
        assert "nothing was written" in result.stderr
    finally:
        holder.kill()
        holder.wait()
    result = invoke(["append", str(batch), "--db", store_url])
    assert result.exit_code == 0, result.output
    with Ledger(store_url, create=False) as ledger:
        assert verify(ledger).count == 3
