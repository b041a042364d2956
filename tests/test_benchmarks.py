"""The benchmarks still run: ``python -m benchmarks --quick`` exits 0 and prints its table.

Only that the suite works is checked here, never its numbers: performance is judged by
the full run's ratios against the raw libraries measured in the same run.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_quick_benchmarks_run_and_print_the_table(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # on PostgreSQL too when a server is given (CI gives one)
    pg = ["--postgres", os.environ["DEAL_LEDGER_TEST_PG"]] if os.environ.get(
        "DEAL_LEDGER_TEST_PG") else []
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--quick",
                           "--cache", str(tmp_path / "cache"), *pg],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    header = next((line for line in done.stdout.splitlines() if line.startswith("case ")), "")
    for column in ("case", "size", "time", "events/s", "peak MiB", "anchor", "ratio",
                   "target", "met"):
        assert column in header, done.stdout
    assert "append JSONL batch" in done.stdout
    assert "agenda --cache, the next day" in done.stdout
    if pg:
        assert "| postgres |" in done.stdout
