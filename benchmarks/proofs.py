"""The proof cases (issue 34), each a job of its own child process (``benchmarks.child``):

* ``verify``: ``deal-ledger verify`` of the whole many-deal ledger (a fresh process: its
  CPU, user and system, from ``os.wait4``, and its peak RSS), against a fresh process
  that walks the same chain in plain Python (``anchors.plain_walk``): ratios of CPU;
* ``verify-since``: on a copy of that ledger, a checkpoint signed, 1,000 more events
  appended (``jobs.append_late``), then ``deal-ledger verify --since CHECKPOINT``:
  median of ``reps`` runs (wall time, the command's own process);
* ``append`` with the log's Merkle tree kept and without (``Ledger.keeps_tree``), the
  same batch, alternated: ``jobs.case_append`` with ``tree``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from .jobs import Row, run_cli
from .probe import runs_note

PLAIN_WALK = """
import sys
from benchmarks.anchors import plain_walk
wall, cpu, count = plain_walk(sys.argv[1])
print(count)
"""


def _plain_walk_process(url: str) -> tuple[float, float, int, int]:
    """A fresh process walking the chain in plain Python: wall, CPU (user + system, its
    own), events, peak RSS (KiB)."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", PLAIN_WALK, url], stdout=out,
                                env={**os.environ, "PYTHONPATH": os.getcwd()})
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError("the plain walk failed")
        out.seek(0)
        count = int(out.read().decode().strip().splitlines()[-1])
    return wall, usage.ru_utime + usage.ru_stime, count, usage.ru_maxrss


def case_verify(p: dict[str, Any]) -> list[Row]:
    """``deal-ledger verify`` against the plain walk, alternated, ``reps`` times each: the
    run of median CPU of each."""
    url = p["url"]
    verifies, walks = [], []
    for _ in range(p["reps"]):
        spent, done = run_cli(["verify", "--db", url])
        verifies.append((done.cpu, spent, done.peak_kib, done.probe))
        walks.append(_plain_walk_process(url))
    cpu, wall, peak, _ = sorted(verifies)[(len(verifies) - 1) // 2]
    a_wall, a_cpu, count, a_peak = sorted(walks, key=lambda w: w[1])[(len(walks) - 1) // 2]
    return [{"id": "verify", "seconds": cpu, "events": count, "peak_kib": peak,
             "anchor": {"name": "plain-Python walk of the chain (CPU)", "seconds": a_cpu,
                        "events": count},
             "message": f"CPU seconds, user + system, of each process (median of "
                        f"{p['reps']}, alternated); wall {wall:.1f} s against "
                        f"{a_wall:.1f} s; the walk's peak {a_peak / 1024:.0f} MiB; "
                        + runs_note([(v[1], v[3]) for v in verifies])}]


def case_verify_since(p: dict[str, Any]) -> list[Row]:
    """A checkpoint of the ledger at ``url`` (a copy), ``new`` more events, then
    ``verify --since`` that checkpoint: median of ``reps``."""
    url, work = p["url"], p["work"]
    key = os.path.join(work, "bench.key")
    checkpoint = os.path.join(work, "bench.checkpoint")
    run_cli(["keygen", "--name", "bench.example/log", "--out", key, "--db", url])
    start = time.perf_counter()
    run_cli(["checkpoint", "--key", key, "--out", checkpoint, "--db", url])
    signing = time.perf_counter() - start
    subprocess.run([sys.executable, "-m", "benchmarks.child", "append-late",
                    f'{{"url": "{url}", "deals": {p["deals"]}, "new": {p["new"]}}}'],
                   check=True, stdout=subprocess.DEVNULL)
    runs = [run_cli(["verify", "--since", checkpoint, "--pubkey", key + ".pub", "--db", url])
            for _ in range(p["reps"])]
    spent = statistics.median(t for t, _ in runs)
    cpu = statistics.median(d.cpu for _, d in runs)
    return [{"id": "verify-since", "seconds": spent, "events": p["new"],
             "peak_kib": max(d.peak_kib for _, d in runs),
             "message": f"{p['new']:,} events after the checkpoint (signed in {signing:.1f} "
                        f"s, the whole chain verified first); median of {p['reps']}; CPU "
                        f"{cpu:.2f} s; " + runs_note([(t, d.probe) for t, d in runs])}]


JOBS = {"verify": case_verify, "verify-since": case_verify_since}
