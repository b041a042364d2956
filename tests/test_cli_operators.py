"""The operators' and auditors' commands through click's CliRunner: init, append, record,
retract, correct, log, verify (SPEC §3). Every expected value is written out by hand."""

from __future__ import annotations

import json
import re

import pytest

from tests.cli_support import ok, refused, run
from ledger.terms import TEMPLATES

RRA = "infocrossing-rra-2004"
LETTER = "infocrossing-letter-2002"
LEHMAN = "Lehman Brothers Inc."
STORE_FIELDS = {"id", "seq", "recorded_at", "recorded_by", "prev_hash", "hash"}
HEX64 = re.compile(r"[0-9a-f]{64}")


def log_records(db: str, *extra: str) -> list[dict]:
    out = ok(run("log", "--json", "--db", db, *extra))
    return [json.loads(line) for line in out.splitlines()]


def jsonl(*objs: dict) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


def ev(type_: str, day: str, deal: str = RRA, **data) -> dict:
    return {"type": type_, "deal": deal, "date": day, "data": data}


@pytest.fixture
def db(tmp_path) -> str:
    return str(tmp_path / "ledger.db")


@pytest.fixture
def rra(db) -> str:
    """A ledger with the RRA template opened (seq 1)."""
    ok(run("init", RRA, "--template", RRA, "--db", db))
    return db


def report(db: str, deal: str = RRA, *extra: str) -> dict:
    return json.loads(ok(run("report", deal, "--json", "--db", db, *extra)))


# ---------------------------------------------------------------- init

def test_init_from_a_template_appends_deal_opened(db):
    out = ok(run("init", RRA, "--template", RRA, "--db", db, "--user", "alice"))
    m = re.fullmatch(r"appended 1 event\(s\); head seq 1\nhead hash ([0-9a-f]{64})\n", out)
    assert m
    [rec] = log_records(db)
    assert rec["type"] == "DealOpened" and rec["deal"] == RRA
    assert rec["date"] == "2004-06-30"                       # RRA dated June 30, 2004
    assert rec["data"]["kind"] == "registration_rights"
    assert rec["recorded_by"] == "alice" and rec["seq"] == 1 and rec["hash"] == m.group(1)


def test_init_from_a_terms_file(db, tmp_path):
    terms = {**TEMPLATES[RRA]["terms"], "filing_deadline_days": 30}
    path = tmp_path / "terms.json"
    path.write_text(json.dumps({"kind": "registration_rights", "name": "Another shelf",
                                "date": "2004-06-30", "terms": terms}))
    ok(run("init", "other", "--terms", str(path), "--db", db))
    [rec] = log_records(db)
    assert rec["deal"] == "other" and rec["data"]["name"] == "Another shelf"
    # 30 days after 2004-06-30: July has 31 days, so 2004-06-30 + 30 = 2004-07-30
    assert report(db, "other", "--as-of", "2004-07-01")["registration"]["filing_deadline"] \
        == "2004-07-30"


def test_init_refuses_an_unknown_template(db):
    err = refused(run("init", "x", "--template", "no-such-deal", "--db", db), 2)
    assert "--template" in err and "no-such-deal" in err and RRA in err


@pytest.mark.parametrize("args", [[], ["--template", RRA, "--terms", "t.json"]],
                         ids=["neither", "both"])
def test_init_needs_exactly_one_of_template_or_terms(db, args):
    err = refused(run("init", "x", *args, "--db", db), 2)
    assert "--template" in err and "--terms" in err


def test_init_refuses_a_terms_file_without_terms(db, tmp_path):
    path = tmp_path / "terms.json"
    path.write_text(json.dumps({"kind": "registration_rights", "name": "n",
                                "date": "2004-06-30"}))
    err = refused(run("init", "x", "--terms", str(path), "--db", db), 3)
    assert "field '--terms'" in err and "terms" in err.split("--terms'")[1]


def test_init_twice_is_refused(rra):
    err = refused(run("init", RRA, "--template", RRA, "--db", rra), 3)
    assert RRA in err
    assert len(log_records(rra)) == 1


# ---------------------------------------------------------------- append and log --json

BATCH = [
    {**ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
     "source": "closing", "key": "issue-1"},
    ev("ShelfFiled", "2004-07-13", file_number="333-117340"),
    ev("ShelfEffective", "2004-11-15"),
    ev("AdditionalInterestPaid", "2005-01-18", payment_date="2005-01-15", holder=LEHMAN,
       amount="6666.67"),
]


def test_append_then_log_json_gives_back_the_same_events_with_store_fields(rra, tmp_path):
    path = tmp_path / "batch.jsonl"
    path.write_text(jsonl(*BATCH))
    out = ok(run("append", str(path), "--db", rra, "--user", "bob"))
    assert re.fullmatch(r"appended 4 event\(s\); head seq 5\nhead hash [0-9a-f]{64}\n", out)
    records = log_records(rra)
    assert [r["seq"] for r in records] == [1, 2, 3, 4, 5]
    for given, rec in zip(BATCH, records[1:]):
        assert {k: rec[k] for k in given} == given         # the event exactly as appended
        assert STORE_FIELDS <= set(rec) and rec["recorded_by"] == "bob"
        assert HEX64.fullmatch(rec["hash"])
    assert "key" not in records[2] and "source" not in records[2]   # optional, not given
    for before, after in zip(records, records[1:]):             # a hash chain
        assert after["prev_hash"] == before["hash"]
    assert out.split()[-1] == records[-1]["hash"]


def test_append_reads_standard_input(rra):
    ok(run("append", "--db", rra, input=jsonl(*BATCH[:2])))
    ok(run("append", "-", "--db", rra, input=jsonl(BATCH[2])))
    assert [r["type"] for r in log_records(rra)] == ["DealOpened", "NotesIssued", "ShelfFiled",
                                                     "ShelfEffective"]


def test_a_bad_line_refuses_the_whole_batch(rra):
    bad = ev("NotesIssued", "2004-06-30", holder="Fund A", principal="1.234")
    err = refused(run("append", "--db", rra, input=jsonl(BATCH[0], bad, BATCH[1])), 3)
    assert err.startswith("error: line 2, field 'data.principal'")
    assert len(log_records(rra)) == 1                          # only DealOpened


def test_a_line_breaking_a_rule_refuses_the_whole_batch(rra):
    # the first two lines are valid; the third ends a Suspension Period never started
    lines = jsonl(BATCH[0], BATCH[1], ev("SuspensionEnded", "2004-12-01"))
    err = refused(run("append", "--db", rra, input=lines), 3)
    assert err.startswith("error: line 3, field ") and "RRA §4(b)(i)" in err
    assert len(log_records(rra)) == 1


def test_append_refuses_a_key_recorded_with_other_content(rra):
    ok(run("append", "--db", rra, input=jsonl(BATCH[0])))
    # the same line again is the same fact: recorded already (issue 31, tests/test_resend.py)
    assert ok(run("append", "--db", rra, input=jsonl(BATCH[0]))) == \
        "already recorded: seq 2; nothing written\n"
    other = {**BATCH[0], "data": {**BATCH[0]["data"], "principal": "1000000"}}
    err = refused(run("append", "--db", rra, input=jsonl(other)), 3)
    assert "issue-1" in err and "line 1" in err and "seq 2" in err
    assert "data.principal is '60000000' there and '1000000' here" in err
    assert len(log_records(rra)) == 2


def test_append_names_a_missing_file(rra, tmp_path):
    err = refused(run("append", str(tmp_path / "none.jsonl"), "--db", rra), 2)
    assert "none.jsonl" in err


# ---------------------------------------------------------------- record

def test_record_takes_name_value_fields(rra):
    out = ok(run("record", "NotesIssued", "--deal", RRA, "--date", "2004-06-30",
                 f"holder={LEHMAN}", "principal=60000000", "--source", "closing memo",
                 "--db", rra))
    assert out.startswith("appended 1 event(s); head seq 2\n")
    rec = log_records(rra)[-1]
    assert rec["type"] == "NotesIssued" and rec["date"] == "2004-06-30"
    assert rec["data"] == {"holder": LEHMAN, "principal": "60000000"}
    assert rec["source"] == "closing memo"


def test_record_a_boolean_field(rra):
    ok(run("append", "--db", rra, input=jsonl(*BATCH[:3])))
    ok(run("record", "SuspensionStarted", "--deal", RRA, "--date", "2005-03-01",
           "material_transaction=true", "--db", rra))
    assert log_records(rra)[-1]["data"] == {"material_transaction": True}


def test_record_refuses_an_unknown_type(rra):
    err = refused(run("record", "ShelfExploded", "--deal", RRA, "--date", "2004-07-13",
                      "--db", rra), 3)
    assert "field 'type'" in err and "ShelfExploded" in err


@pytest.mark.parametrize("field, value, named", [
    ("principal", "-5", "data.principal"),
    ("principal", "10.001", "data.principal"),
    ("colour", "blue", "data.colour"),
])
def test_record_refuses_a_bad_value(rra, field, value, named):
    fields = {"holder": LEHMAN, "principal": "100", field: value}
    err = refused(run("record", "NotesIssued", "--deal", RRA, "--date", "2004-06-30",
                      *(f"{k}={v}" for k, v in fields.items()), "--db", rra), 3)
    assert f"field '{named}'" in err
    assert len(log_records(rra)) == 1


def test_record_refuses_a_bad_date(rra):
    err = refused(run("record", "ShelfFiled", "--deal", RRA, "--date", "2004-02-30",
                      "--db", rra), 3)
    assert "field 'date'" in err


def test_record_refuses_a_field_that_is_not_name_value(rra):
    err = refused(run("record", "ShelfFiled", "--deal", RRA, "--date", "2004-07-13",
                      "333-117340", "--db", rra), 2)
    assert "333-117340" in err and "name=value" in err


def test_record_refuses_a_deal_never_opened(rra):
    err = refused(run("record", "ShelfFiled", "--deal", "nope", "--date", "2004-07-13",
                      "--db", rra), 3)
    assert "field 'deal'" in err and "nope" in err


def test_record_needs_an_existing_ledger(db):
    err = refused(run("record", "ShelfFiled", "--deal", RRA, "--date", "2004-07-13",
                      "--db", db), 5)
    assert "--db" in err


# ---------------------------------------------------------------- log

@pytest.fixture
def two_deals(rra):
    ok(run("init", LETTER, "--template", LETTER, "--db", rra))
    ok(run("append", "--db", rra, input=jsonl(*BATCH[:3])))
    return rra


def test_log_table_lists_every_event(two_deals):
    out = ok(run("log", "--db", two_deals))
    assert "5 event(s)" in out
    for text in ("DealOpened", "NotesIssued", "ShelfFiled", "ShelfEffective", LETTER,
                 "file_number=333-117340"):
        assert text in out


def test_log_filters_by_deal_and_type(two_deals):
    assert [r["type"] for r in log_records(two_deals, "--deal", LETTER)] == ["DealOpened"]
    assert [r["seq"] for r in log_records(two_deals, "--deal", RRA)] == [1, 3, 4, 5]
    [filed] = log_records(two_deals, "--type", "ShelfFiled")
    assert filed["date"] == "2004-07-13" and filed["seq"] == 4
    assert log_records(two_deals, "--deal", LETTER, "--type", "ShelfFiled") == []
    assert "1 event(s)" in ok(run("log", "--type", "ShelfFiled", "--db", two_deals))


def test_log_marks_a_retracted_event(two_deals):
    filed = log_records(two_deals, "--type", "ShelfFiled")[0]
    ok(run("retract", filed["id"], "--reason", "wrong date", "--db", two_deals))
    retraction = log_records(two_deals)[-1]
    out = ok(run("log", "--db", two_deals))
    # at a terminal an event is a block: its identity, then its data (tests/test_cli_log.py)
    lines = out.splitlines()
    [at] = [i for i, ln in enumerate(lines) if "ShelfFiled" in ln]
    assert f"RETRACTED by {retraction['id'][:8]}" in lines[at + 1]
    assert "6 event(s)" in out                                 # never hidden


# ---------------------------------------------------------------- verify

def test_verify_ok_gives_the_head_hash(two_deals):
    head = log_records(two_deals)[-1]["hash"]
    result = run("verify", "--db", two_deals)
    assert ok(result) == f"ok: 5 events\nhead {head}\n"
    assert ok(run("verify", "--expect", head, "--db", two_deals)).startswith("ok: 5 events")


def test_verify_names_the_first_changed_event(two_deals):
    from tests.db_access import Raw

    raw = Raw(two_deals)
    pos, state, *_ = raw.rows()[2]                             # seq 3, the NotesIssued
    raw.set_state(pos, state.replace(b"60000000", b"90000000"))
    result = run("verify", "--db", two_deals)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("seq 3: ") and result.stderr.count("\n") == 1


# ---------------------------------------------------------------- retract and correct

@pytest.fixture
def example_1(rra):
    """SPEC §8 example 1, with the shelf first entered as filed on the wrong day."""
    ok(run("append", "--db", rra, input=jsonl(
        BATCH[0], ev("ShelfFiled", "2004-07-20"), ev("ShelfEffective", "2004-11-15"))))
    return rra


def test_retract_marks_the_event_and_the_report_drops_it(example_1):
    effective = log_records(example_1, "--type", "ShelfEffective")[0]
    out = ok(run("retract", effective["id"], "--reason", "entered by mistake",
                 "--db", example_1))
    assert out == (f"retracts seq 4 ShelfEffective {RRA} 2004-11-15 {effective['id'][:8]}\n"
                   f"appended 1 event(s); head seq 5\nhead hash {log_records(example_1)[-1]['hash']}\n")
    rec = log_records(example_1)[-1]
    assert rec["type"] == "EventRetracted" and rec["date"] == "2004-11-15"  # target's date
    assert rec["data"] == {"event_id": effective["id"], "reason": "entered by mistake"}
    reg = report(example_1, RRA, "--as-of", "2005-02-01")["registration"]
    assert reg["effective_on"] is None and reg["in_default"] is True
    # known at the time before the retraction, the shelf was effective
    reg = report(example_1, RRA, "--as-of", "2005-02-01",
                 "--known-at", effective["recorded_at"])["registration"]
    assert reg["effective_on"] == "2004-11-15"


def test_retract_refuses_an_unknown_or_already_retracted_event(example_1):
    err = refused(run("retract", "no-such-id", "--reason", "x", "--db", example_1), 2)
    assert "field 'EVENT_ID'" in err and "no-such-id" in err and "seq:N" in err
    err = refused(run("retract", "abcdef12", "--reason", "x", "--db", example_1), 3)
    assert "field 'EVENT_ID'" in err and "no event abcdef12" in err
    filed = log_records(example_1, "--type", "ShelfFiled")[0]
    ok(run("retract", filed["id"], "--reason", "x", "--db", example_1))
    err = refused(run("retract", filed["id"], "--reason", "x", "--db", example_1), 3)
    assert "already retracted" in err
    assert len(log_records(example_1)) == 5


def test_correct_retracts_and_replaces_in_one_batch(example_1, tmp_path):
    filed = log_records(example_1, "--type", "ShelfFiled")[0]
    path = tmp_path / "fix.jsonl"
    path.write_text(jsonl(ev("ShelfFiled", "2004-07-13", file_number="333-117340")))
    out = ok(run("correct", filed["id"], str(path), "--reason", "filed on the 13th",
                 "--db", example_1))
    assert out.startswith(f"retracts seq 3 ShelfFiled {RRA} 2004-07-20 {filed['id'][:8]}\n"
                          f"appends ShelfFiled {RRA} 2004-07-13: "
                          "file_number=333-117340\nappended 2 event(s); head seq 6\n")
    retraction, replacement = log_records(example_1)[-2:]
    assert retraction["seq"] == 5 and replacement["seq"] == 6
    assert retraction["data"] == {"event_id": filed["id"], "reason": "filed on the 13th"}
    assert replacement["date"] == "2004-07-13"
    assert retraction["recorded_at"] == replacement["recorded_at"]    # one append
    reg = report(example_1, RRA, "--as-of", "2005-02-01")["registration"]
    # filed 2004-07-13, on or before the 2004-07-15 deadline: no default (i); only (ii)
    assert reg["filed_on"] == "2004-07-13"
    assert [d["clause"] for d in reg["defaults"]] == ["RRA §3(a)(ii)"]


def test_correct_with_a_bad_replacement_writes_nothing(example_1, tmp_path):
    filed = log_records(example_1, "--type", "ShelfFiled")[0]
    path = tmp_path / "fix.jsonl"
    path.write_text(jsonl(ev("ShelfFiled", "2004-07-13", colour="red")))
    err = refused(run("correct", filed["id"], str(path), "--reason", "x", "--db", example_1), 3)
    assert "line 1" in err and "field 'data.colour'" in err
    assert len(log_records(example_1)) == 4                    # not even the retraction


def test_correct_moves_an_event_others_depend_on(example_1, tmp_path):
    """A retraction and its replacement are judged together: the Suspension Period of
    2005-03-01 needs the shelf effective, and the corrected effectiveness still is."""
    ok(run("append", "--db", example_1, input=jsonl(
        ev("SuspensionStarted", "2005-03-01", material_transaction=False))))
    effective = log_records(example_1, "--type", "ShelfEffective")[0]
    # retracting it alone would leave the suspension outside the Effectiveness Period
    err = refused(run("retract", effective["id"], "--reason", "x", "--db", example_1), 3)
    assert "retract the dependent event first" in err
    path = tmp_path / "fix.jsonl"
    path.write_text(jsonl(ev("ShelfEffective", "2004-11-10")))
    ok(run("correct", effective["id"], str(path), "--reason", "declared on the 10th",
           "--db", example_1))
    reg = report(example_1, RRA, "--as-of", "2005-02-01")["registration"]
    # RRA §2(a)(iii): the Effectiveness Period runs 2 years from 2004-11-10 to 2006-11-10
    assert (reg["effective_on"], reg["effectiveness_period_end"]) == (
        "2004-11-10", "2006-11-10")
    # a replacement that does not keep the rule (effective 2005-03-05, after the
    # suspension began) is refused, and nothing of the batch is written
    effective = log_records(example_1, "--type", "ShelfEffective")[-1]
    count = len(log_records(example_1))
    path.write_text(jsonl(ev("ShelfEffective", "2005-03-05")))
    refused(run("correct", effective["id"], str(path), "--reason", "x", "--db", example_1), 3)
    assert len(log_records(example_1)) == count


def test_correct_reads_the_replacement_from_standard_input(example_1):
    filed = log_records(example_1, "--type", "ShelfFiled")[0]
    ok(run("correct", filed["id"], "-", "--reason", "wrong date", "--db", example_1,
           input=jsonl(ev("ShelfFiled", "2004-07-13"))))
    assert [r["type"] for r in log_records(example_1)[-2:]] == ["EventRetracted", "ShelfFiled"]


