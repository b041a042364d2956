"""CLI conventions (issue 15, item 7): ``--db`` before the command, event ids as any
unique prefix, ``explain`` and ``history`` naming the figure alike, one ``--reason`` rule,
whole summary lines, an example in every command's help, no help citing a document the
user does not have."""

from __future__ import annotations

import json
import os
from collections import Counter

import pytest
from click.testing import CliRunner

from cli.main import cli
from tests.cli_support import ok, refused, run

RRA = "infocrossing-rra-2004"
LEHMAN = "Lehman Brothers Inc."
COMMANDS = sorted(cli.commands)


def ev(type_: str, day: str, **data) -> dict:
    return {"type": type_, "deal": RRA, "date": day, "data": data}


@pytest.fixture
def example_1(tmp_path) -> str:
    """SPEC §8 example 1: Lehman $60,000,000 from 2004-06-30, filed 2004-07-13, effective
    2004-11-15 (Registration Default (ii) from 2004-10-29, cured on 2004-11-15)."""
    db = str(tmp_path / "ledger.db")
    ok(run("init", RRA, "--template", RRA, "--db", db))
    ok(run("append", "--db", db, input="".join(json.dumps(e) + "\n" for e in (
        ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
        ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15")))))
    return db


def ids(db: str) -> list[str]:
    return [json.loads(line)["id"] for line in ok(run("log", "--json", "--db", db)).splitlines()]


# ------------------------------------------------------------------------- --db


def invoke(args: list[str], env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, args, env={"COLUMNS": "200", **(env or {})})


def test_db_before_the_command_and_which_one_wins(example_1, tmp_path):
    other = str(tmp_path / "other.db")
    ok(run("init", "other", "--template", RRA, "--db", other))
    def deals(result):
        return {json.loads(line)["deal"] for line in ok(result).splitlines()}
    # before the command, as if given to it
    assert deals(invoke(["--db", example_1, "log", "--json"])) == {RRA}
    # the command's own --db wins over the one before it
    assert deals(invoke(["--db", example_1, "log", "--json", "--db", other])) == {"other"}
    # the one before the command wins over $LEDGER_DB, which is used when neither is given
    assert deals(invoke(["--db", example_1, "log", "--json"], {"LEDGER_DB": other})) == {RRA}
    assert deals(invoke(["log", "--json"], {"LEDGER_DB": other})) == {"other"}
    # a command that computes takes it too
    report = json.loads(ok(invoke(["--db", example_1, "report", RRA, "--as-of",
                                   "2004-12-31", "--json"])))
    assert report["registration"]["effective_on"] == "2004-11-15"


# ------------------------------------------------------------------ id prefixes


def test_the_eight_characters_log_shows_retract_an_event(example_1):
    effective = ids(example_1)[3]
    ok(run("retract", effective[:8], "--reason", "entered by mistake", "--db", example_1))
    retraction = json.loads(ok(run("log", "--json", "--type", "EventRetracted",
                                   "--db", example_1)))
    assert retraction["data"]["event_id"] == effective


def test_an_ambiguous_prefix_is_one_line_naming_the_candidates(example_1, monkeypatch):
    import ledger.store.writing as writing

    # two events whose ids share their first 8 characters (a random id shares 6 with
    # another only once in millions of events: they are made to, here)
    made = iter(["0123abcd-0000-4000-8000-000000000001", "0123abcd-0000-4000-8000-000000000002"])
    monkeypatch.setattr(writing, "new_ids", lambda n: [next(made) for _ in range(n)])
    for _ in range(2):
        ok(run("record", "HoldersAdvised", "--deal", RRA, "--date", "2004-11-20",
               "--db", example_1))
    err = refused(run("retract", "0123abcd", "--reason", "x", "--db", example_1), 2)
    assert "the id prefix '0123abcd' is ambiguous" in err and "seq:N" in err
    assert "0123abcd-000 (seq 5 HoldersAdvised), 0123abcd-000 (seq 6 HoldersAdvised)" in err
    err = refused(run("retract", "0123456789abcdef", "--reason", "x", "--db", example_1), 3)
    assert "no event 0123456789abcdef" in err


def test_correct_takes_a_prefix_too(example_1, tmp_path):
    filed = ids(example_1)[2]
    fix = tmp_path / "fix.jsonl"
    fix.write_text(json.dumps(ev("ShelfFiled", "2004-07-14")) + "\n")
    ok(run("correct", filed[:8], str(fix), "--reason", "filed a day later", "--db", example_1))
    last = [json.loads(line) for line in ok(run("log", "--json", "--db",
                                                example_1)).splitlines()][-2:]
    assert [r["type"] for r in last] == ["EventRetracted", "ShelfFiled"]
    assert last[0]["data"] == {"event_id": filed, "reason": "filed a day later"}


# ------------------------------------------------------------------ --reason


@pytest.mark.parametrize("command", ["retract", "correct"])
def test_retract_and_correct_take_the_same_reason_rule(example_1, tmp_path, command):
    fix = tmp_path / "fix.jsonl"
    fix.write_text(json.dumps(ev("ShelfFiled", "2004-07-14")) + "\n")
    target = ids(example_1)[2][:8]
    extra = [str(fix)] if command == "correct" else []
    missing = run(command, target, *extra, "--db", example_1)
    assert missing.exit_code == 2 and "--reason" in missing.output
    err = refused(run(command, target, *extra, "--reason", "  ", "--db", example_1), 3)
    assert "field 'data.reason'" in err and "must not be empty" in err
    assert "Why the event is wrong (required" in ok(run(command, "--help"))


# ------------------------------------------------------------ explain / history


def test_explain_and_history_take_the_figure_the_same_ways(example_1):
    base = ["--as-of", "2004-12-31", "--json", "--db", example_1]
    figure = "registration.in_default"
    explained = [json.loads(ok(run("explain", RRA, figure, *base))),
                 json.loads(ok(run("explain", RRA, "--figure", figure, *base)))]
    assert explained[0] == explained[1] and explained[0]["value"] is False
    histories = [json.loads(ok(run("history", RRA, figure, *base))),
                 json.loads(ok(run("history", RRA, "--figure", figure, *base)))]
    assert histories[0] == histories[1] and histories[0]["figure"] == figure
    err = refused(run("history", RRA, figure, "--figure", "registration.defaults", *base), 2)
    assert "two figures given" in err
    refused(run("history", RRA, *base), 2)
    for command in ("explain", "history"):
        assert "FIGURE is a path into the report JSON" in ok(run(command, "--help"))


# -------------------------------------------------------------------------- help


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_shows_an_example_and_cites_no_spec(command):
    out = ok(run(command, "--help"))
    assert "Example" in out, f"{command} --help shows no example"
    assert "SPEC" not in out, f"{command} --help cites a document the user does not have"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_help_fits_80_columns(command):
    out = ok(CliRunner().invoke(cli, [command, "--help"], env={"COLUMNS": "80"}))
    # a figure path is one word that cannot be broken (explain's and history's examples)
    long = [line for line in out.splitlines() if len(line) > 80 and "[payment_date=" not in line]
    assert long == []


def test_the_command_list_shows_whole_summaries_at_80_columns():
    out = ok(CliRunner().invoke(cli, ["--help"], env={"COLUMNS": "80"}))
    listing = out.split("Commands:\n")[1]
    assert "..." not in listing
    assert all(len(line) <= 80 for line in out.splitlines())
    for command in COMMANDS:
        assert f"  {command} " in listing


def test_no_error_message_cites_the_spec(example_1):
    err = refused(run("record", "ShelfFiled", "--deal", RRA, "--date", "2004-01-01",
                      "--db", example_1), 3)
    assert "SPEC" not in err and "on or after its deal's opening" in err
    filed = ids(example_1)[2]
    ok(run("retract", filed, "--reason", "x", "--db", example_1))
    err = refused(run("retract", filed, "--reason", "x", "--db", example_1), 3)
    assert "SPEC" not in err and "already retracted" in err


def test_a_closed_pipe_ends_log_quietly(example_1):
    import subprocess
    import sys

    done = subprocess.run(
        f"{sys.executable} -c 'from cli.main import main; main()' log --db {example_1} "
        "| head -1", shell=True, capture_output=True, text=True, timeout=120,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        executable="/bin/bash")
    assert done.stdout.startswith("seq") and done.stderr == ""


# ------------------------------------------------------- mistakes a newcomer makes


def test_a_mistyped_deal_is_answered_with_the_closest_names(example_1):
    # record and append said only "deal infocrossing-rra-2040 was never opened", though
    # the README promises the closest names for a mistyped deal, as for a type or a field
    err = refused(run("record", "ShelfFiled", "--deal", "infocrossing-rra-2040", "--date",
                      "2004-07-13", "--db", example_1), 3)
    assert "was never opened" in err and f"did you mean '{RRA}'?" in err
    line = json.dumps({**ev("ShelfFiled", "2004-07-13"), "deal": "infocrossing-rra-2040"})
    err = refused(run("append", "--db", example_1, input=line + "\n"), 3)
    assert err.startswith("error: line 1, field 'deal'") and f"did you mean '{RRA}'?" in err
    # nothing close: the refusal as it was, with no guess
    err = refused(run("record", "ShelfFiled", "--deal", "zz", "--date", "2004-07-13",
                      "--db", example_1), 3)
    assert "did you mean" not in err


def test_a_mistyped_interpretation_and_an_impossible_log_date(example_1):
    err = refused(run("report", RRA, "--db", example_1, "--interpret",
                      "defaultdate=first_breach_day"), 2)
    assert "unknown interpretation 'defaultdate'; did you mean 'default_date'?" in err
    # 2005-02-30 has the form YYYY-MM-DD; say what is wrong with it, as --as-of does
    err = refused(run("log", "--db", example_1, "--since", "2005-02-30"), 2)
    assert "not a real calendar date: '2005-02-30'" in err
    err = refused(run("log", "--db", example_1, "--until", "2005-2-3"), 2)
    assert "not a date in the form YYYY-MM-DD" in err


def test_types_and_the_demo_cite_no_document_the_user_lacks(tmp_path):
    # `types` described CalendarDayDeclared as "(SPEC §2)" and the demo's DealOpened
    # events gave "contracts/ in shared/" as their source, which explain prints: neither
    # ships with the package. Cite the clause; point at `deal-ledger clause`.
    out = ok(run("types"))
    assert "SPEC" not in out and "RRA §1 Business Day" in out
    db = str(tmp_path / "demo.db")
    ok(run("demo", "--db", db))
    log = ok(run("log", "--json", "--db", db))
    assert "shared/" not in log and "deal-ledger clause --list" in log
