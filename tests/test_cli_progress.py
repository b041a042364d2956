"""Progress on long work (issue 15, item 5): a bar on standard error when it is a
terminal, nothing when it is not (CI, pipes); the libraries take a plain ``on_progress``
callable and know nothing of ``rich``."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

import cli.progress as progress_module
from ledger.store.chain import verify
from ledger.jsonl import read_batch
from ledger.store import Ledger
from tests.cli_support import ok, run

RRA = "infocrossing-rra-2004"
N = 1500  # lines: above the size from which append shows a bar (cli.operators.BAR_FROM)


def batch(n: int = N) -> str:
    return "".join(json.dumps({"type": "HoldersAdvised", "deal": RRA, "date": "2004-07-14",
                               "data": {}, "source": f"advice {k}"}) + "\n"
                   for k in range(n))


@pytest.fixture
def rra(tmp_path) -> str:
    db = str(tmp_path / "ledger.db")
    ok(run("init", RRA, "--template", RRA, "--db", db))
    return db


def test_nothing_on_stderr_when_it_is_not_a_terminal(rra, tmp_path):
    # CliRunner's standard error is not a terminal, as in CI or a pipe
    result = run("append", "--db", rra, input=batch())
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout.startswith(f"appended {N} event(s)")
    for args in (("verify", "--db", rra),
                 ("export", RRA, "--out", str(tmp_path / "p"), "--as-of", "2005-01-01",
                  "--db", rra)):
        result = run(*args)
        assert result.exit_code == 0 and result.stderr == "", args


def test_a_bar_on_a_terminal(rra, tmp_path, monkeypatch):
    screen = io.StringIO()
    monkeypatch.setattr(progress_module, "_stderr_is_terminal", lambda: True)
    monkeypatch.setattr(progress_module, "_console",
                        lambda: Console(file=screen, force_terminal=True, width=100))
    ok(run("append", "--db", rra, input=batch()))
    drawn = screen.getvalue()
    assert "reading" in drawn and f"/{N}\x1b[0m lines" in drawn
    # issue 31, item 6: once parsed, the count is known: n/N events and the time left,
    # not 0/? (the bar ends at 1500/1500)
    assert "checking and writing" in drawn and "/?" not in drawn
    assert f"{N}/{N}\x1b[0m events" in drawn
    screen.seek(0), screen.truncate()
    ok(run("verify", "--db", rra))
    assert "verifying" in screen.getvalue()
    screen.seek(0), screen.truncate()
    ok(run("export", RRA, "--out", str(tmp_path / "p"), "--as-of", "2005-01-01", "--db", rra))
    assert "verifying, then writing the pack" in screen.getvalue()


def test_the_libraries_report_every_step(rra):
    ok(run("append", "--db", rra, input=batch(2500)))
    steps = []
    events = read_batch(batch(2500).encode(), on_progress=steps.append)
    assert len(events) == 2500 and steps == [1000, 1000, 500]
    checked = []   # the store tells of every thousand lines it checks (issue 31, item 6)
    with Ledger(rra, create=False) as ledger:
        ledger.append(events, on_progress=checked.append)
    assert checked == [1000, 1000, 500]
    rows = []
    with Ledger(rra, create=False) as ledger:
        assert verify(ledger, on_progress=rows.append).ok
        # 5001 events and 3 chain heads (one per batch)
        assert sum(rows) == ledger.max_position() == 5004


def test_export_shows_its_whole_total_at_80_columns(monkeypatch):
    # issue 31, item 6: at 80 columns the 40-character bar left `export`'s count cut
    # (`61000/1234…` of a 123,456-row ledger); the bar now gives way, the count stays whole
    screen = io.StringIO()
    monkeypatch.setattr(progress_module, "_stderr_is_terminal", lambda: True)
    monkeypatch.setattr(progress_module, "_console",
                        lambda: Console(file=screen, force_terminal=True, width=80))
    with progress_module.progress("verifying, then writing the pack", total=123456,
                                  unit="rows") as advance:
        advance(61000)
    drawn = screen.getvalue()
    assert "verifying, then writing the pack" in drawn
    assert "61000/123456\x1b[0m rows" in drawn and "…" not in drawn
