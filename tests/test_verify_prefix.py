"""``verify --expect`` takes a unique prefix of the head hash, 8 hex digits or more (as git
takes a commit), so the head a reader noted from `verify` can be checked again."""

from __future__ import annotations

import json

import pytest

from tests.cli_support import ok, refused, run

RRA = "infocrossing-rra-2004"


@pytest.fixture()
def db(tmp_path):
    path = str(tmp_path / "l.db")
    ok(run("init", RRA, "--template", RRA, "--db", path))
    ok(run("record", "NotesIssued", "--deal", RRA, "--date", "2004-06-30", "--db", path,
           "holder=Lehman Brothers Inc.", "principal=60000000"))
    return path


def head(db: str) -> str:
    return ok(run("verify", "--db", db)).split()[-1]


def test_a_prefix_of_eight_digits_is_the_head(db):
    h = head(db)
    assert ok(run("verify", "--db", db, "--expect", h[:8])).split()[-1] == h
    assert ok(run("verify", "--db", db, "--expect", h[:20].upper())).split()[-1] == h


def test_a_prefix_no_event_has_fails_as_a_rewritten_history(db):
    h = head(db)
    other = ("0" if h[0] != "0" else "1") + h[1:8]
    result = run("verify", "--db", db, "--expect", other)
    assert result.exit_code == 1
    assert "history before it was rewritten" in result.stderr


def test_seven_digits_are_not_enough(db):
    assert "--expect" in refused(run("verify", "--db", db, "--expect", head(db)[:7]), 2)


def test_a_prefix_of_an_earlier_event_still_proves_the_log_extends_it(db):
    first = json.loads(ok(run("log", "--json", "--db", db)).splitlines()[0])["hash"]
    ok(run("verify", "--db", db, "--expect", first[:8]))


def test_an_ambiguous_prefix_is_refused(db, monkeypatch):
    # two events whose hashes share 8 digits would take about 2**16 events to meet by
    # chance: make every hash begin alike instead
    from ledger.store.walk import Walk

    records = [json.loads(x) for x in ok(run("log", "--json", "--db", db)).splitlines()]
    monkeypatch.setattr(Walk, "__init__", _patched_init(Walk.__init__))
    result = run("verify", "--db", db, "--expect", "f" * 8)
    assert result.exit_code == 2 and "begins the hashes of 2 events (seq 1, 2)" in result.stderr
    assert len(records) == 2


def _patched_init(original):
    def init(self, ledger, view, kept, *rest):
        original(self, ledger, view, kept, *rest)
        self.head_seqs = []
        real = type(self).event

        def event(*row, _self=self):
            verdict = real(_self, *row)
            if verdict is None and _self.kept is not None:
                _self.head_seqs.append(_self.seq - 1)
                _self.seen_head = True
            return verdict
        self.event = event
    return init
