"""The benchmarks still run: ``python -m benchmarks --quick`` exits 0 and prints its table.

Only that the suite works is checked here, never its numbers: performance is judged by
the full run's ratios against the raw libraries measured in the same run. The machine
probe's note (``benchmarks/probe.py``) is checked against arithmetic done by hand.
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
    # the machine's speed around each case (benchmarks/probe.py)
    assert "machine probe (benchmarks/probe.py" in done.stdout
    assert "append JSONL batch (Ledger.append_lines) [sqlite]:" in done.stdout
    assert "x the run's quickest" in done.stdout
    # each run of a case that runs its command several times, with the probe before it
    line = next(x for x in done.stdout.splitlines()
                if x.startswith("- agenda, every deal (command, from the store) [sqlite]:"))
    assert "; runs: " in line and line.count("(probe ") >= 2, line


def test_a_cases_probe_note_is_its_mean_probe_over_the_runs_quickest():
    sys.path.insert(0, str(ROOT))
    from benchmarks.__main__ import notes
    from benchmarks.probe import note, slowness

    # (0.150 + 0.250) / 2 = 0.200 s around the case; the run's quickest 0.125 s: 1.60x
    assert slowness(0.150, 0.250, 0.125) == 0.200 / 0.125
    assert note(0.150, 0.250, 0.125) == ("machine probe 1.60x the run's quickest "
                                         "(150 ms before, 250 ms after)")
    row = {"id": "agenda", "backend": "sqlite", "status": "ok", "message": "1,000 deals",
           "probe": [0.150, 0.250]}
    assert notes([row], 0.125) == [
        "- agenda, every deal (command, from the store) [sqlite]: 1,000 deals; "
        "machine probe 1.60x the run's quickest (150 ms before, 250 ms after)"]
    assert notes([row]) == ["- agenda, every deal (command, from the store) [sqlite]: 1,000 deals"]
    failed = {**row, "status": "error", "message": "timed out"}
    assert notes([failed], 0.125) == [
        "- agenda, every deal (command, from the store) [sqlite]: timed out"]



def test_a_cases_runs_are_listed_with_the_probe_taken_before_each():
    sys.path.insert(0, str(ROOT))
    from benchmarks.probe import runs_note

    # 5.261 s rounds to 5.26 s, 0.1254 s of probe to 125 ms; under a second, in ms
    assert runs_note([(5.261, 0.0718), (6.96, 0.1254), (0.8449, 0.07)]) == (
        "runs: 5.26 s (probe 72 ms), 6.96 s (probe 125 ms), 845 ms (probe 70 ms)")
