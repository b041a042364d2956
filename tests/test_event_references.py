"""Issue 31, item 1: an event is named by ``seq:N`` or 6+ characters of its id, in every
command that takes one; a correction shows what it affects before it is written, and at a
terminal asks first (unless ``--yes``), never in a pipe or CI. Through click's CliRunner
(a pipe) and the real console script in a pseudo-terminal (``tests.terminal``)."""

from __future__ import annotations

import json

import pytest

from ledger.errors import UsageError
from ledger.references import parse_reference
from tests.cli_support import ok, refused, refused_unchanged, run, store_bytes
from tests.terminal import in_terminal

RRA = "infocrossing-rra-2004"
LEHMAN = "Lehman Brothers Inc."


def ev(type_: str, day: str, **data) -> dict:
    return {"type": type_, "deal": RRA, "date": day, "data": data}


@pytest.fixture
def db(tmp_path) -> str:
    """seq 1 DealOpened, 2 NotesIssued, 3 ShelfFiled, 4 ShelfEffective."""
    path = str(tmp_path / "ledger.db")
    ok(run("init", RRA, "--template", RRA, "--db", path))
    lines = [ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
             ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15")]
    ok(run("append", "--db", path, input="".join(json.dumps(x) + "\n" for x in lines)))
    return path


def records(db: str) -> list[dict]:
    return [json.loads(x) for x in ok(run("log", "--json", "--db", db)).splitlines()]


# ------------------------------------------------------------------ the reference


def test_a_reference_is_seq_or_six_characters_of_an_id():
    assert parse_reference("seq:17").seq == 17
    assert parse_reference("SEQ:17").seq == 17
    assert parse_reference("3F2A9C").prefix == "3f2a9c"
    assert parse_reference("3f2a9c1d-0e").prefix == "3f2a9c1d-0e"
    for short in ("2", "3f2a9", "3f-2a-9"):   # 1, 5 and 3 hex digits
        with pytest.raises(UsageError, match="give at least 6"):
            parse_reference(short)
    with pytest.raises(UsageError, match="seq:0 names no event"):
        parse_reference("seq:0")
    with pytest.raises(UsageError, match="not an event reference"):
        parse_reference("seq:x")


def test_a_short_prefix_is_refused_naming_the_rule_and_the_seq_it_may_mean(db):
    # the newcomer's case: `retract 2` meant seq 2, and resolved to an unrelated event
    err = refused_unchanged(db, 2, "retract", "2", "--reason", "x", "--db", db)
    assert "field 'EVENT_ID'" in err and "is 1 character(s): give at least 6" in err
    assert "for the event at seq 2 give seq:2" in err
    assert "[an event is named by seq:N or 6+ characters of its id]" in err
    first = records(db)[1]["id"]
    err = refused_unchanged(db, 2, "retract", first[:5], "--reason", "x", "--db", db)
    assert "is 5 character(s)" in err
    # six characters do (when they name one event)
    ok(run("retract", first[:6], "--reason", "x", "--yes", "--db", db))
    assert records(db)[-1]["data"]["event_id"] == first


def test_seq_names_the_event_in_retract_correct_and_reinstate(db, tmp_path):
    before = records(db)
    out = ok(run("retract", "seq:4", "--reason", "entered early", "--db", db))
    assert out.startswith(f"retracts seq 4 ShelfEffective {RRA} 2004-11-15 "
                          f"{before[3]['id'][:8]}\n")
    assert records(db)[4]["data"]["event_id"] == before[3]["id"]          # seq 5
    out = ok(run("reinstate", "seq:5", "--reason", "it was right", "--db", db))
    assert out.startswith(f"withdraws seq 5 EventRetracted {RRA} 2004-11-15")
    assert f"\nreinstates seq 4 ShelfEffective {RRA} 2004-11-15 " in out
    assert records(db)[5]["data"]["retraction_id"] == records(db)[4]["id"]  # seq 6
    fix = tmp_path / "fix.jsonl"
    fix.write_text(json.dumps(ev("ShelfFiled", "2004-07-14")) + "\n")
    ok(run("correct", "seq:3", str(fix), "--reason", "a day later", "--db", db))
    assert records(db)[6]["data"]["event_id"] == before[2]["id"]            # seq 7


def test_a_seq_past_the_log_is_refused(db):
    err = refused_unchanged(db, 3, "retract", "seq:99", "--reason", "x", "--db", db)
    assert "no event at seq 99 in the ledger (its last is seq 4)" in err


def test_whatif_takes_seq_and_refuses_a_short_prefix(db):
    effective = records(db)[3]["id"]
    by_seq = json.loads(ok(run("whatif", RRA, "--as-of", "2005-01-31", "--drop", "seq:4",
                               "--json", "--db", db)))
    by_id = json.loads(ok(run("whatif", RRA, "--as-of", "2005-01-31", "--drop", effective,
                              "--json", "--db", db)))
    assert by_seq["changes"]["drop"] == by_id["changes"]["drop"] == [effective]
    assert by_seq["diff"] == by_id["diff"]
    err = refused(run("whatif", RRA, "--as-of", "2005-01-31", "--drop", effective[:3],
                      "--db", db), 2)
    assert "field '--drop'" in err and "give at least 6" in err


def test_a_refused_correction_prints_nothing_before_its_error(db):
    # the target is shown only once the rules accept the write: a refusal stays one line
    ok(run("retract", "seq:3", "--reason", "x", "--db", db))
    err = refused_unchanged(db, 3, "retract", "seq:3", "--reason", "x", "--db", db)
    assert "already retracted" in err


# ------------------------------------------------------------ at a terminal


def test_at_a_terminal_retract_shows_the_event_and_asks(db):
    effective = records(db)[3]["id"]
    before = store_bytes(db)
    said_no = in_terminal(["retract", "seq:4", "--reason", "x", "--db", db], ["n"])
    assert said_no.prompts == 1 and said_no.code == 1
    assert (f"retracts seq 4 ShelfEffective {RRA} 2004-11-15 {effective[:8]}\nWrite this? "
            "[y/N]: n\n") in said_no.screen
    assert "not written: nothing was appended" in said_no.screen
    assert store_bytes(db) == before
    said_yes = in_terminal(["retract", "seq:4", "--reason", "x", "--db", db], ["y"])
    assert said_yes.prompts == 1 and said_yes.code == 0
    assert "appended 1 event(s); head seq 5" in said_yes.screen
    assert records(db)[-1]["data"]["event_id"] == effective


def test_yes_or_ci_never_ask_and_a_pipe_never_asks(db):
    session = in_terminal(["retract", "seq:4", "--reason", "x", "--yes", "--db", db])
    assert session.prompts == 0 and session.code == 0
    session = in_terminal(["reinstate", "seq:5", "--reason", "x", "--db", db],
                          env={"CI": "true"})
    assert session.prompts == 0 and session.code == 0
    # CliRunner's standard input is not a terminal: a pipe or a script
    out = ok(run("retract", "seq:4", "--reason", "again", "--db", db))
    assert "Write this?" not in out and "appended 1 event(s)" in out


def test_the_head_hash_is_not_broken_at_80_columns(db):
    # issue 31, item 15: `appended ... hash <64>` was 100 characters: the terminal broke
    # the hash; it now stands on a line of its own (10 + 64 = 74 columns)
    session = in_terminal(["retract", "seq:4", "--reason", "x", "--yes", "--db", db])
    head = records(db)[-1]["hash"]
    assert f"\nhead hash {head}\n" in session.screen
    session = in_terminal(["verify", "--db", db])   # (after its progress bar, erased)
    assert session.screen.endswith(f"ok: 5 events\nhead {head}\n")
