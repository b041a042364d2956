"""Issue 31, item 5: ``append --dry-run FILE`` checks the batch against the real ledger and
prints what it would change, money first (amounts owed and paid per Holder and date),
then the Registration Defaults and the obligations, then how many other figures differ;
it writes nothing and exits as a real append would.

The deal is SPEC §8 example 1 before its effectiveness: Lehman Brothers Inc. holds
$60,000,000 from 2004-06-30, filed 2004-07-13; the effectiveness deadline 2004-10-28
passed. As of 2005-01-31, with nothing effective, default (ii) accrues from 2004-10-29:
* Interest Payment Date 2005-01-15 (period 2004-06-30 to 2005-01-15): 2004-10-29 to
  2005-01-15, 30/360 days = 360*1 + 30*(1-10) + (15-29) = 76, all in the episode's first
  90 days at 0.25%: 60,000,000 x 0.0025 x 76/360 = 31,666.67;
* to the day, the next period: its days 2005-01-15 to 2005-01-27 (the episode's day 90 is
  2004-10-29 + 89 = 2005-01-26) at 0.25%, 30/360 days 12: 60,000,000 x 0.0025 x 12/360 =
  5,000.00; 2005-01-27 to 2005-02-01 at 1.00%, 30/360 days 4: 60,000,000 x 0.01 x 4/360 =
  6,666.666...; rounded once: 11,666.67; accrued to the day 31,666.67 + 11,666.67 =
  43,333.34.
The batch makes the shelf effective on 2004-11-15: (ii) accrues 2004-10-29 to 2004-11-15,
16 days, 60,000,000 x 0.0025 x 16/360 = 6,666.67, and pays it on 2005-01-18.
"""

from __future__ import annotations

import json
import os

import pytest

from tests.cli_support import ok, refused, run, store_bytes

RRA = "infocrossing-rra-2004"
LEHMAN = "Lehman Brothers Inc."


def ev(type_: str, day: str, **data) -> dict:
    return {"type": type_, "deal": RRA, "date": day, "data": data}


def jsonl(*objs: dict) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


BATCH = jsonl(ev("ShelfEffective", "2004-11-15"),
              ev("AdditionalInterestPaid", "2005-01-18", payment_date="2005-01-15",
                 holder=LEHMAN, amount="6666.67"))


@pytest.fixture
def db(tmp_path) -> str:
    path = str(tmp_path / "ledger.db")
    ok(run("init", RRA, "--template", RRA, "--db", path))
    ok(run("append", "--db", path, input=jsonl(
        ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
        ev("ShelfFiled", "2004-07-13"))))                                    # seq 1..3
    return path


def test_money_first_and_nothing_written(db):
    before = store_bytes(db)
    out = ok(run("append", "--dry-run", "--as-of", "2005-01-31", "--db", db, input=BATCH))
    assert store_bytes(db) == before
    lines = out.splitlines()
    assert lines[:7] == [
        "dry run: 2 event(s) would be appended as seq 4..5; nothing was written",
        f"{RRA}: 2 event(s), judged as of 2005-01-31",
        "  money:",
        f"    {LEHMAN} for 2005-01-15: Additional Interest owed 31,666.67 -> 6,666.67 "
        "(RRA §3(a))",
        f"    {LEHMAN} for 2005-01-15: Additional Interest paid (none) -> 6,666.67 "
        "(RRA §3(b))",
        f"    {LEHMAN} for 2005-07-15: Additional Interest owed 11,666.67 -> (none) "
        "(RRA §3(a))",
        "    Additional Interest accrued to the day 43,333.34 -> 6,666.67 (RRA §3(a))"]
    assert lines[8:10] == [
        "  Registration Defaults:",
        "    Registration Default (ii) (RRA §3(a)(ii)): default date 2004-10-28, accrues "
        "from 2004-10-29, not cured -> default date 2004-10-28, accrues from 2004-10-29 to "
        "2004-11-15 (exclusive)"]
    assert lines.index("  obligations:") > 9
    assert lines[-1].startswith("  and ") and lines[-1].endswith(
        " other figure(s) differ (--verbose lists them by path)")


def test_the_same_answer_as_the_append_then_makes(db):
    preview = json.loads(ok(run("append", "--dry-run", "--as-of", "2005-01-31", "--json",
                                "--db", db, input=BATCH)))
    assert preview["count"] == 2 and preview["seqs"] == [4, 5]
    [deal] = preview["deals"]
    assert deal["impact"]["money"][0] == {
        "holder": LEHMAN, "payment_date": "2005-01-15", "figure": "Additional Interest owed",
        "clause": "RRA §3(a)", "before": "31666.67", "after": "6666.67"}
    ok(run("append", "--db", db, input=BATCH))
    report = json.loads(ok(run("report", RRA, "--as-of", "2005-01-31", "--json", "--db", db)))
    [payment] = [p for p in report["additional_interest"]["payments"]
                 if p["payment_date"] == "2005-01-15"]
    assert payment["amounts"][LEHMAN] == payment["paid"][LEHMAN] == "6666.67"
    # sent again without keys: a second effectiveness, refused as the append refuses it
    err = refused(run("append", "--dry-run", "--db", db, input=BATCH), 3)
    assert "already declared effective on 2004-11-15" in err


@pytest.mark.parametrize("batch, code", [
    (jsonl(ev("ShelfFiled", "2004-07-14")), 3),                   # a second filing: a rule
    ('{"type": "ShelfEffective", "deal": "infocrossing-rra-2004"\n', 3),   # not JSON
    (jsonl(ev("SuspensionEnded", "2005-01-03")), 3),             # none open to end
    (jsonl({**ev("ShelfEffective", "2004-11-15"), "deal": "infocrossing-rra-2005"}), 3),
])
def test_refused_as_a_real_append_is(db, batch, code):
    before = store_bytes(db)
    dry = refused(run("append", "--dry-run", "--db", db, input=batch), code)
    real = refused(run("append", "--db", db, input=batch), code)
    assert dry == real
    assert store_bytes(db) == before


def test_a_batch_recorded_already_and_a_new_ledger(db, tmp_path):
    keyed = jsonl({**ev("ShelfEffective", "2004-11-15"), "key": "eff"})
    ok(run("append", "--db", db, input=keyed))                               # seq 4
    assert ok(run("append", "--dry-run", "--db", db, input=keyed)) == \
        "dry run: already recorded: seq 4; an append would write nothing\n"
    missing = tmp_path / "none.db"
    opening = json.loads(ok(run("log", "--json", "--db", db)).splitlines()[0])
    out = ok(run("append", "--dry-run", "--db", str(missing), input=jsonl(
        {k: opening[k] for k in ("type", "deal", "date", "data")})))
    assert out.startswith("dry run: 1 event(s) would be appended as seq 1..1")
    assert f"{RRA}: 1 event(s), which they open, judged as of 2004-06-30" in out
    assert not os.path.exists(missing)


def test_the_options_of_a_dry_run_need_it(db):
    err = refused(run("append", "--json", "--db", db, input=BATCH), 2)
    assert "--dry-run" in err


def test_a_dry_run_warns_as_the_append_would(db):
    overpaid = jsonl(ev("ShelfEffective", "2004-11-15"),
                     ev("AdditionalInterestPaid", "2005-01-18", payment_date="2005-01-15",
                        holder=LEHMAN, amount="7000.00"))
    result = run("append", "--dry-run", "--db", db, input=overpaid)
    assert result.exit_code == 0
    # the batch is judged as of the latest day it names: 2005-01-18; 7,000.00 - 6,666.67
    assert "judged as of 2005-01-18" in result.stdout
    assert result.stderr.startswith("warning: AdditionalInterestPaid ")
    assert result.stderr.endswith(f": 7,000.00 paid to {LEHMAN} for Interest Payment Date "
                                  "2005-01-15, owed 6,666.67: overpaid by 333.33 "
                                  "[RRA §3(a), §3(b)]\n")
