"""Terminal escapes and newlines in reasons and sources (issue 29, item 10).

``--reason $'\\e[2J'`` was stored and printed raw by ``log`` (the escape cleared the
screen), and a newline in a reason or a source forged a line of the log. New input
refuses them as names did already (one line of visible text); a record written before,
or altered, is printed with each such character escaped.
"""

from __future__ import annotations

import pytest

from ledger.events import parse_event
from ledger.store import Ledger
from tests.cli_support import ok, refused_unchanged, run
from tests.support import ev, opened, texts_as_once_accepted

TEXTS = [("x\x1b[2Jy", "U+001B"), ("fine\nseq 99  2004-07-13  forged", "U+000A"),
         ("a\u202eb", "U+202E"), ("a\rb", "U+000D"), ("a\u2028b", "U+2028")]


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "d.db")
    ok(run("init", "rra", "--template", "infocrossing-rra-2004", "--db", path))
    ok(run("record", "ShelfFiled", "--deal", "rra", "--date", "2004-07-13", "--db", path))
    return path


@pytest.mark.parametrize("text, code", TEXTS)
def test_a_control_character_in_a_reason_is_refused(db, text, code):
    filed = run("log", "--json", "--db", db).stdout.splitlines()[-1]
    target = __import__("json").loads(filed)["id"]
    message = refused_unchanged(db, 3, "retract", target, "--reason", text, "--db", db)
    assert code in message and "data.reason" in message


@pytest.mark.parametrize("text, code", TEXTS)
def test_a_control_character_in_a_source_or_key_is_refused(db, text, code):
    for option in ("--source", "--key"):
        message = refused_unchanged(db, 3, "record", "ShelfEffective", "--deal", "rra",
                                    "--date", "2004-10-01", option, text, "--db", db)
        assert code in message and option.strip("-") in message


def test_visible_text_is_accepted(db):
    ok(run("record", "ShelfEffective", "--deal", "rra", "--date", "2004-10-01",
           "--source", "Form S-3/A — effective «2004-10-01» ✓", "--db", db))


def test_a_stored_control_character_is_escaped_by_log(tmp_path):
    """A record written before the refusal (here: with the check switched off) prints on
    its own lines, its escape and newline as ``\\x1b`` and ``\\n``."""
    path = str(tmp_path / "old.db")
    with Ledger(path) as ledger, texts_as_once_accepted():
        done = ledger.append([parse_event(opened("rra")),
                              parse_event(ev("ShelfFiled", "2004-07-13"))])
        filed = done.records[1]["id"]
        ledger.append([parse_event(ev("EventRetracted", "2004-07-13", event_id=filed,
                                      reason="x\x1b[2Jy\nseq 99  2004-07-13  forged"))])
    out = ok(run("log", "--db", path))
    assert "\x1b" not in out
    assert not any(line.lstrip().startswith("seq 99") for line in out.splitlines())
    assert "reason=x\\x1b[2Jy\\nseq 99" in out
