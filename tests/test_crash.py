"""Crashes: ``kill -9`` of a ``deal-ledger append`` in the middle of a 100,000-event batch.

Afterwards the store holds all of that batch or none of it, ``verify`` passes, and the
next append works (the dead writer's lock is gone with it). One uninterrupted run times
the append; the trials then kill it at fractions of that time, most of them late, when
the batch is being written. On SQLite a trial that leaves a write-ahead log behind was
killed while writing (its frames were never committed, and the next reader ignores them).

Each trial's outcome is printed (run with ``-s`` to see them). The batch size and the
trials can be changed with ``DEAL_LEDGER_CRASH_EVENTS`` and ``DEAL_LEDGER_CRASH_TRIALS``
(fractions of the uninterrupted time, comma-separated).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from ledger.store.chain import verify
from ledger.events import parse_event
from ledger.store import Ledger
from tests.support import ev, opened

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = int(os.environ.get("DEAL_LEDGER_CRASH_EVENTS", "100000"))
FRACTIONS = [float(f) for f in os.environ.get(
    "DEAL_LEDGER_CRASH_TRIALS", "0.5,0.75,0.85,0.95").split(",")]
PG_FRACTIONS = FRACTIONS[:1]  # PostgreSQL: one timed kill, one during the INSERT
WAL_TRIGGER = 16 << 20  # SQLite: one more trial killed once the WAL holds 16 MiB
BASE = 3  # events in the ledger before the batch


@pytest.fixture(scope="module")
def big_batch(tmp_path_factory):
    path = tmp_path_factory.mktemp("crash") / "batch.jsonl"
    with open(path, "w") as fh:
        for i in range(N):
            fh.write(json.dumps({"type": "NoticeSent", "deal": "rra", "date": "2005-01-03",
                                 "data": {"to": f"holder {i % 97}", "subject": f"notice {i}",
                                          "method": "hand"}}) + "\n")
    return str(path)


def seed(url: str) -> None:
    with Ledger(url) as ledger:
        ledger.append([parse_event(opened("rra")),
                       parse_event(ev("NotesIssued", "2004-06-30", holder="L",
                                      principal="1000")),
                       parse_event(ev("ShelfFiled", "2004-07-13"))], user="seed")


def start_append(url: str, batch: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", "from cli.main import main; main()",
                             "append", batch, "--db", url, "--user", "crash"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def after_crash(url: str) -> tuple[int, str]:
    """The ledger a crash left: its event count and verdict, then one more append."""
    with Ledger(url, create=False) as ledger:
        verdict = verify(ledger)
        assert verdict.ok, verdict.line()
        n = verdict.count
        assert ledger.head().seq == n
        # the next append works, and continues the chain
        result = ledger.append([parse_event(ev("TrusteeNotified", "2005-01-04"))], user="next")
        assert result.head.seq == n + 1
        assert result.records[0]["prev_hash"] == verdict.head_hash
    return n, verdict.head_hash


def _inserting(url: str) -> bool:
    """PostgreSQL: the batch's INSERT is running in the ledger's database."""
    import psycopg

    admin = os.environ["DEAL_LEDGER_TEST_PG"]
    with psycopg.connect(admin, autocommit=True) as c:
        row = c.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND "
                        "state = 'active' AND query LIKE %s",
                        (url.rsplit("/", 1)[1], "%es_insert_events%")).fetchone()
    return bool(row[0])


def trial(url: str, batch: str, delay: float | None, wal_bytes: int | None = None,
          on_insert: bool = False) -> str:
    proc = start_append(url, batch)
    if delay is None and wal_bytes is None and not on_insert:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()
        return "finished"
    if on_insert:
        deadline = time.monotonic() + 600
        while proc.poll() is None and time.monotonic() < deadline and not _inserting(url):
            time.sleep(0.02)
    elif wal_bytes is not None:
        deadline = time.monotonic() + 600
        while proc.poll() is None and time.monotonic() < deadline:
            if os.path.exists(url + "-wal") and os.path.getsize(url + "-wal") >= wal_bytes:
                break
            time.sleep(0.01)
    else:
        time.sleep(delay)
    finished = proc.poll() is not None
    if not finished:
        os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    return "finished before the kill" if finished else "killed"


def run_trials(make_url, drop_url, batch: str, fractions: list[float], label: str,
               wal_trigger: int | None = None) -> None:
    url = make_url("calibrate")
    seed(url)
    started = time.monotonic()
    trial(url, batch, None)
    full = time.monotonic() - started
    n, _ = after_crash(url)
    assert n == BASE + N
    drop_url(url)
    outcomes = []
    triggers: list[tuple[str, float]] = [("time", f) for f in fractions]
    if wal_trigger:
        triggers.append(("wal", wal_trigger))
    if url.startswith("postgres"):
        triggers.append(("insert", 0))
    for i, (kind, at) in enumerate(triggers):
        url = make_url(f"t{i}")
        seed(url)
        if kind == "time":
            how = trial(url, batch, full * at)
        elif kind == "insert":
            how = trial(url, batch, None, on_insert=True)
        else:
            how = trial(url, batch, None, wal_bytes=int(at))
        wal = url + "-wal"
        wal_bytes = os.path.getsize(wal) if os.path.exists(wal) else 0
        n, _ = after_crash(url)
        assert n in (BASE, BASE + N), f"a partial batch survived the crash: {n - BASE} events"
        kept = "all" if n == BASE + N else "none"
        when = {"time": f"at {at:.2f} × {full:.1f} s", "insert": "while its INSERT ran",
                "wal": f"once the WAL held {int(at) >> 20} MiB"}[kind]
        outcomes.append((when, how, kept, wal_bytes))
        drop_url(url)
    print(f"\n{label}: uninterrupted append of {N} events took {full:.1f} s")
    for when, how, kept, wal_bytes in outcomes:
        extra = f", uncommitted WAL {wal_bytes} bytes" if kept == "none" and wal_bytes else ""
        print(f"  kill {when}: {how}; kept {kept} of the batch{extra}")
    print(f"  {len(outcomes)} of {len(outcomes)} trials passed: all or nothing, verify ok, "
          "next append ok")


@pytest.mark.slow
def test_kill_during_a_big_append_sqlite(big_batch, tmp_path):
    def make(name):
        return str(tmp_path / f"{name}.db")

    def drop(url):
        for suffix in ("", "-wal", "-shm", ".lock"):
            if os.path.exists(url + suffix):
                os.remove(url + suffix)

    run_trials(make, drop, big_batch, FRACTIONS, "SQLite", wal_trigger=WAL_TRIGGER)


@pytest.mark.slow
@pytest.mark.postgres
def test_kill_during_a_big_append_postgres(big_batch):
    from tests.conftest import drop_pg, fresh_pg_url

    run_trials(lambda name: fresh_pg_url(), drop_pg, big_batch, PG_FRACTIONS, "PostgreSQL")


def test_a_killed_writer_does_not_block_the_next(tmp_path):
    """A writer killed while holding the SQLite writer lock (its sidecar ``flock``)
    leaves nothing held: the next append goes through at once."""
    url = str(tmp_path / "ledger.db")
    seed(url)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time; "
         "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600); "
         "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(600)",
         url + ".lock"], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=30)
    started = time.monotonic()
    with Ledger(url, create=False) as ledger:
        ledger.append([parse_event(ev("TrusteeNotified", "2005-01-04"))])
    assert time.monotonic() - started < 10
    shutil.rmtree(tmp_path, ignore_errors=True)
