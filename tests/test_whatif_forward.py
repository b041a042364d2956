"""Issue 16, what-if forward: changes dated after the as-of day ("if we file on D",
"if we start a suspension on D") are judged again on a later day, and the obligations
and the money differ. Calendar: 2004-07-14 Wed, 2004-07-15 Thu, 2004-07-21 Wed."""

from __future__ import annotations

import json

from ledger.events import parse_event
from projections.whatif import Addition, Changes, whatif
from tests.cli_support import ok, run
from tests.support import build, d, ev, opened

LEHMAN = "Lehman Brothers Inc."


def add(*objs):
    return Changes(add=tuple(Addition(parse_event(o, line=i + 1), "test")
                             for i, o in enumerate(objs)))


def history(*more):
    return build([opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN,
                               principal="60000000"), *more])


def by_key(rows):
    return {r["key"]: (r["baseline"], r["scenario"]) for r in rows}


def test_if_we_file_on_a_later_day():
    result = whatif(history(), add(ev("ShelfFiled", "2004-07-14")), as_of=d("2004-07-10"),
                    through=d("2004-07-20"))
    assert result["diff"] == [] and result["obligations"] == []   # nothing yet on 07-10
    ahead = result["forward"]
    assert ahead["judged_on"] == "2004-07-20" and ahead["later_changes"] == ["2004-07-14"]
    rows = by_key(ahead["obligations"])
    # not filed by 2004-07-15 (15 days after 2004-06-30): violated from 07-16; filed 07-14
    assert rows["file-shelf"][0]["state"] == "violated"
    assert rows["file-shelf"][1]["state"] == "fulfilled"
    # advise the Holders within 5 Business Days of 07-14: 15, 16, 19, 20, 21 -> 07-21
    # (keyed by its trigger, the added filing: whatif-1)
    assert rows["advise-holders/ShelfFiled/whatif-1"] == (
        None, {"due": "2004-07-21", "state": "upcoming", "amount": None})
    money = {r["figure"]: (r["baseline"], r["scenario"]) for r in ahead["diff"]}
    # default (i) accrues 07-16 through 07-20 in the baseline: 30/360 days 5;
    # 60,000,000 x 0.0025 x 5/360 = 2,083.33
    assert money["additional_interest.accrued_to_as_of"] == ("2083.33", "0.00")


def test_if_we_start_a_suspension_on_a_later_day():
    real = history(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-10-01"))
    result = whatif(real, add(ev("SuspensionStarted", "2005-03-01",
                                 material_transaction=False)),
                    as_of=d("2005-02-01"), through=d("2005-04-20"))
    ahead = result["forward"]
    rows = by_key(ahead["obligations"])
    # its 45th day: 2005-03-01 + 44 = 2005-04-14; still open on 04-20: violated
    assert rows["end-suspension/whatif-1"] == (
        None, {"due": "2005-04-14", "state": "violated", "amount": None})
    money = {r["figure"]: (r["baseline"], r["scenario"]) for r in ahead["diff"]}
    # default (iv)(A) accrues 04-15 through 04-20: 30/360 days 6;
    # 60,000,000 x 0.0025 x 6/360 = 2,500.00
    assert money["additional_interest.accrued_to_as_of"] == ("0.00", "2500.00")


def test_the_later_day_defaults_to_the_latest_change_after_as_of():
    result = whatif(history(), add(ev("ShelfFiled", "2004-07-14")), as_of=d("2004-07-10"))
    assert result["forward"]["judged_on"] == "2004-07-14"


def test_no_forward_part_without_later_changes():
    result = whatif(history(), add(ev("ShelfFiled", "2004-07-14")), as_of=d("2004-07-20"))
    assert result["forward"] is None
    rows = by_key(result["obligations"])
    assert rows["file-shelf"][1]["state"] == "fulfilled"


def test_cli_through(tmp_path):
    db = str(tmp_path / "l.db")
    ok(run("init", "rra", "--template", "infocrossing-rra-2004", "--db", db))
    ok(run("append", "--db", db, input=json.dumps(
        ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000")) + "\n"))
    path = tmp_path / "add.jsonl"
    path.write_text(json.dumps(ev("ShelfFiled", "2004-07-14")) + "\n")
    out = ok(run("whatif", "rra", "--db", db, "--as-of", "2004-07-10", "--add", str(path),
                 "--through", "2004-07-20"))
    assert "judged on 2004-07-20" in out and "RRA §2(a)(i)" in out
    data = json.loads(ok(run("whatif", "rra", "--db", db, "--as-of", "2004-07-10", "--add",
                             str(path), "--json")))
    assert data["forward"]["judged_on"] == "2004-07-14"
    res = run("whatif", "rra", "--db", db, "--as-of", "2004-07-10", "--add", str(path),
              "--through", "2004-07-01")
    assert res.exit_code == 2 and res.stderr.startswith("error: ")


def test_a_second_default_of_a_kind_is_added_and_the_first_left_as_it_was():
    # a real Suspension Period 2005-03-01..2005-04-19 (50 days: default (iv)(A) from its
    # 45th day, 2005-03-01 + 44 = 2005-04-14); the what-if starts another on 2006-03-01,
    # still open on 2006-05-01: its 45th day 2006-03-01 + 44 = 2006-04-14, a second (iv)(A).
    # The diff read "defaults[kind=(iv)(A)]" removed and "[kind=(iv)(A)][0]" and "[1]"
    # added, as if the 2005 default had gone; now the 2005 one meets itself, unchanged.
    real = history(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-10-01"),
                   ev("SuspensionStarted", "2005-03-01", material_transaction=False),
                   ev("SuspensionEnded", "2005-04-20"))
    result = whatif(real, add(ev("SuspensionStarted", "2006-03-01",
                                 material_transaction=False)),
                    as_of=d("2006-02-01"), through=d("2006-05-01"))
    rows = {r["figure"]: r for r in result["forward"]["diff"]
            if r["figure"].startswith("registration.defaults")}
    assert [r["change"] for r in rows.values()] == ["added"], rows
    [(figure, row)] = rows.items()
    assert figure == "registration.defaults[kind=(iv)(A)][1]"
    assert row["scenario"]["default_date"] == "2006-04-14"
