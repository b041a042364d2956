"""Nothing acknowledged is ever lost (issue 29, items 1 and 2): an event a writer was told
is written ("appended ... head seq N") is in the ledger afterwards, whatever another
writer's refused batch did meanwhile, and no command that writes a file can write it over
the ledger.

The races run in forked processes (a fork is a writer of its own, with its own
connections, without a new interpreter's start-up), many times: a race lost once in a
few trials must show here."""

from __future__ import annotations

import json
import multiprocessing
import os
import time

import pytest

from cli.main import cli
from ledger.events import parse_event
from ledger.store import Ledger
from tests.cli_support import ok, refused, run
from tests.support import ev, opened

TRIALS = 20
RRA = "infocrossing-rra-2004"


def _cli_in_child(args: list[str], out) -> None:
    from click.testing import CliRunner

    result = CliRunner().invoke(cli, args, env={"COLUMNS": "200"})
    out.send((result.exit_code, result.stdout, result.stderr))
    out.close()


def _start(args: list[str]):
    """The command in a forked child; ``finish`` gives its exit code and output."""
    ctx = multiprocessing.get_context("fork")
    mine, theirs = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_cli_in_child, args=(args, theirs))
    child.start()
    theirs.close()

    def finish(timeout: float = 120):
        answer = mine.recv() if mine.poll(timeout) else (None, "", "no answer")
        child.join(timeout)
        return answer

    return finish


def _acknowledged_seqs(stdout: str) -> list[int]:
    """The head seqs a writer was told: 'appended 1 event(s); head seq 4 hash ...'."""
    return [int(line.split("head seq ")[1].split()[0])
            for line in stdout.splitlines() if "head seq " in line]


def _big_bad_batch(path, lines: int) -> None:
    """A deal's opening and ``lines - 1`` declarations of one day (sent with
    ``--allow-duplicates``), then a line for a deal never opened: the batch parses, so
    append opens the ledger (and creates its file) and refuses it only at its last line,
    by a rule, with the ledger open all along."""
    good = json.dumps({"type": "CalendarDayDeclared", "deal": "elsewhere", "date": "2004-07-01",
                       "data": {"day": "2004-07-05", "business_day": False, "reason": "x"}})
    bad = good.replace('"elsewhere"', '"nowhere"')
    path.write_text(json.dumps(opened("elsewhere")) + "\n" + (good + "\n") * (lines - 1)
                    + bad + "\n")


def test_a_refused_first_batch_never_removes_what_others_wrote_meanwhile(tmp_path):
    """Item 1: a large batch refused at its last line, on a path with no ledger yet,
    while ``init`` and three ``record`` run on the same path and are acknowledged. The old
    code removed the file it believed it had created (and the others' events with it)."""
    batch = tmp_path / "bad.jsonl"
    _big_bad_batch(batch, 20_001)   # the one-pass path (ledger.store.bulk.AT lines)
    lost = []
    for trial in range(TRIALS):
        db = str(tmp_path / f"w{trial}.db")
        finish_batch = _start(["append", str(batch), "--allow-duplicates", "--db", db])
        deadline = time.monotonic() + 30
        while not os.path.exists(db) and time.monotonic() < deadline:
            time.sleep(0.001)
        # the race this test is about: the batch made the file, the others write into it
        assert os.path.exists(db), "the batch never opened the ledger"
        told = []
        with Ledger(db) as ledger:
            told.append(ledger.append([parse_event(opened("rra"))]).head.seq)
            for day in ("2004-07-13", "2004-10-01", "2004-10-02"):
                kind = {"2004-07-13": "ShelfFiled", "2004-10-01": "ShelfEffective"}.get(
                    day, "QuestionnaireRequested")
                fields = {"holders": "all"} if kind == "QuestionnaireRequested" else {}
                told.append(ledger.append([parse_event(ev(kind, day, **fields))]).head.seq)
        code, _, err = finish_batch()
        assert code == 3, err        # the batch is refused at its last line, by a rule
        assert "line 20002, field 'deal': deal nowhere was never opened" in err
        with Ledger(db, create=False) as ledger:
            stored = [r["seq"] for r in ledger.records()]
        if stored != told:
            lost.append((trial, told, stored))
    assert lost == [], f"acknowledged events lost in {len(lost)} of {TRIALS} trials: {lost[:3]}"


def test_six_inits_of_one_new_path_keep_the_one_they_acknowledged(tmp_path):
    """Item 1: six processes ``init`` one new path at once. Exactly one opens the deal
    (the others are refused: the deal is already open), and the one told "head seq 1"
    finds its event there. The old code let a refused one remove the file: two were
    told "head seq 1" and none was stored, in 7 of 16 trials."""
    bad = []
    for trial in range(TRIALS):
        db = str(tmp_path / f"i{trial}.db")
        finishes = [_start(["init", "rra", "--template", RRA, "--db", db]) for _ in range(6)]
        answers = [f() for f in finishes]
        told = [seq for code, out, _ in answers if code == 0 for seq in _acknowledged_seqs(out)]
        codes = sorted(code for code, _, _ in answers)
        with Ledger(db, create=False) as ledger:
            stored = [(r["seq"], r["type"]) for r in ledger.records()]
        if told != [1] or stored != [(1, "DealOpened")] or codes != [0, 3, 3, 3, 3, 3]:
            bad.append((trial, told, stored, codes, [a[2] for a in answers if a[0]]))
    assert bad == [], f"{len(bad)} of {TRIALS} trials: {bad[:2]}"


def test_a_refused_first_append_may_leave_an_empty_ledger_and_never_removes_one(tmp_path):
    # a well-formed batch that breaks a rule (no DealOpened for the deal) on a new path:
    # nothing is written; the ledger file the append opened stays (it holds no event), as
    # another writer may have written to it meanwhile (above)
    db = tmp_path / "new.db"
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps({"type": "ShelfFiled", "deal": "never-opened",
                                 "date": "2004-07-13", "data": {}}) + "\n")
    refused(run("append", str(batch), "--db", str(db)), 3)
    with Ledger(str(db), create=False) as ledger:
        assert list(ledger.records()) == []
    # the empty ledger takes the next append as a new one would
    ok(run("init", "rra", "--template", RRA, "--db", str(db)))
    refused(run("append", str(batch), "--db", str(db)), 3)
    with Ledger(str(db), create=False) as ledger:
        assert [r["type"] for r in ledger.records()] == ["DealOpened"]


@pytest.fixture
def small_ledger(tmp_path):
    db = str(tmp_path / "d.db")
    ok(run("init", "rra", "--template", RRA, "--db", db))
    ok(run("record", "NotesIssued", "--deal", "rra", "--date", "2004-06-30",
           "holder=Lehman Brothers Inc.", "principal=60000000", "--db", db))
    return db
