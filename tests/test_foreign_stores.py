"""Stores deal-ledger did not write (issue 29, items 4 and 7).

* ``init`` on another application's ``eventsourcing`` SQLite database added a ledger's
  events to its tables (exit 0, rows 2 -> 4), and ``log`` then exited 5: such a store is
  refused before anything is written, naming its first row.
* A look-alike SQLite file (a ``stored_events`` table whose ``originator_id`` is not a
  UUID) made ``log``, ``verify`` and ``report`` end in ``internal error`` (exit 70): it is
  refused in one line, exit 5; a row of that kind further in a real ledger is named by
  ``verify`` (exit 1) and refused in one line by the readers that meet it.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from ledger.events import parse_event
from ledger.store import Ledger
from tests.cli_support import ok, refused, run
from tests.support import ev, opened

RRA = "infocrossing-rra-2004"

_OTHER_APP = """
import os, sys
os.environ.update({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": sys.argv[1]})
from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

class Dog(Aggregate):
    @event("Registered")
    def __init__(self, name):
        self.name = name

class Dogs(Application):
    pass

app = Dogs()
app.save(Dog("fido"))
app.save(Dog("rex"))
"""


def _rows(path: str) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT COUNT(*) FROM stored_events").fetchone()[0]


def test_init_refuses_another_applications_eventsourcing_database(tmp_path):
    path = str(tmp_path / "dogs.db")
    subprocess.run([sys.executable, "-c", _OTHER_APP, path], check=True)
    assert _rows(path) == 2
    message = refused(run("init", "rra", "--template", RRA, "--db", path), 5)
    assert "is not a ledger: it holds rows deal-ledger did not write" in message
    assert "Dog.Registered" in message
    assert _rows(path) == 2
    for args in (["log"], ["verify"], ["report", "rra"], ["agenda"]):
        assert "is not a ledger" in refused(run(*args, "--db", path), 5)


@pytest.mark.parametrize("command", [["log"], ["verify"], ["report", "rra"],
                                     ["init", "rra", "--template", RRA]])
def test_a_look_alike_table_is_refused_in_one_line(tmp_path, command):
    path = str(tmp_path / "look.db")
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE stored_events (originator_id TEXT, originator_version "
                     "INTEGER, topic TEXT, state BLOB, PRIMARY KEY (originator_id, "
                     "originator_version))")
        conn.execute("INSERT INTO stored_events VALUES ('not-a-uuid', 1, "
                     "'ledger.store:DealStream.Started', '{}')")
    message = refused(run(*command, "--db", path), 5)
    assert "'not-a-uuid'" in message and "is not a ledger" in message


def test_a_foreign_row_further_in_a_ledger_is_named(tmp_path):
    path = str(tmp_path / "d.db")
    ok(run("init", "rra", "--template", RRA, "--db", path))
    ok(run("record", "ShelfFiled", "--deal", "rra", "--date", "2004-07-13", "--db", path))
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO stored_events VALUES ('zzz', 1, "
                     "'ledger.store:DealStream.Recorded', '{}')")
    verdict = run("verify", "--db", path)
    assert verdict.exit_code == 1 and "seq 3: " in verdict.stdout + verdict.stderr
    for args in (["log"], ["agenda", "--as-of", "2004-07-14"], ["views", "--out",
                                                                str(tmp_path / "v.db")]):
        result = run(*args, "--db", path)   # (log may have printed its header already)
        assert result.exit_code == 5, (args, result.output)
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1


@pytest.mark.postgres
def test_a_postgresql_store_whose_first_row_is_foreign_is_refused():
    from tests.conftest import drop_pg, fresh_pg_url

    import psycopg

    url = fresh_pg_url()
    try:
        with Ledger(url) as ledger:      # the tables, empty
            table = ledger.app.recorder.events_table_name
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"INSERT INTO {table} (originator_id, originator_version, topic, "
                         "state) VALUES (gen_random_uuid(), 1, 'other:Thing.Made', '\\x7b7d')")
        message = refused(run("init", "rra", "--template", RRA, "--db", url), 5)
        assert "'other:Thing.Made'" in message
        with psycopg.connect(url, autocommit=True) as conn:
            assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 1
    finally:
        drop_pg(url)


def test_a_ledger_of_this_tool_opens_as_ever(store_url):
    with Ledger(store_url) as ledger:
        ledger.append([parse_event(opened("rra")), parse_event(ev("ShelfFiled", "2004-07-13"))])
    with Ledger(store_url, create=False) as ledger:
        assert [r["seq"] for r in ledger.records()] == [1, 2]
