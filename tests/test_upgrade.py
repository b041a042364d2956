"""Upgrades: a ledger written by an older deal-ledger still reads, verifies and reports.

``tests/data/ledger-v1.db`` was written once by deal-ledger 0.1.0 (record schema v1 for
every type; see ``tests/data/make_ledger_v1.py``) and is never regenerated. The tests
read a copy of it as it is, then simulate the next schema change: ``ShelfFiled`` gains a
field with a default (v2) and an upcaster from v1. Old rows then read in the v2 shape,
``verify`` still passes because it hashes the bytes as stored, reports still compute,
new rows are stored as v2, and a program that only knows v1 refuses a v2 row rather
than misreading it.
"""

from __future__ import annotations

import json
import os
import shutil
from typing import Literal

import pytest

from ledger import events, upcasting
from ledger.store.chain import verify
from ledger.errors import StoreError
from ledger.events import Data, Text, parse_event
from ledger.store import Ledger
from ledger.store.canonical import deal_id, record_hash
from tests.db_access import Raw
from tests.test_bad_inputs import invoke

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
FACTS = json.load(open(os.path.join(DATA, "ledger-v1.json")))
RRA, LETTER = "infocrossing-rra-2004", "infocrossing-letter-2002"


@pytest.fixture
def old_ledger(tmp_path):
    path = str(tmp_path / "ledger-v1.db")
    shutil.copyfile(os.path.join(DATA, "ledger-v1.db"), path)
    os.chmod(path, 0o600)
    return path


class ShelfFiledV2(Data):
    """The simulated next version: the form of the registration statement."""

    file_number: Text | None = None
    form: Literal["S-1", "S-3"] = "S-3"


ShelfFiledV2.__name__ = "ShelfFiled"


def shelf_filed_v1_to_v2(record: dict) -> dict:
    record["data"] = {**record["data"], "form": "S-3"}  # every shelf so far was an S-3
    return record


@pytest.fixture
def shelf_filed_v2(monkeypatch):
    """Register v2 of ShelfFiled for one test; everything is restored after it."""
    monkeypatch.setattr(upcasting, "_current", dict(upcasting._current))
    monkeypatch.setattr(upcasting, "_steps", dict(upcasting._steps))
    for table in (events.CATALOG, events.REGISTRATION_TYPES, events._CONVERTERS):
        monkeypatch.setitem(table, "ShelfFiled", table["ShelfFiled"])
    assert events.register_version(ShelfFiledV2, shelf_filed_v1_to_v2) == 2
    assert upcasting.current_version("ShelfFiled") == 2


# ------------------------------------------------------------------ as written


def test_the_stored_v1_ledger_reads_as_it_was_written(old_ledger):
    with Ledger(old_ledger, create=False) as ledger:
        v = verify(ledger)
        assert v.ok and v.count == FACTS["count"] and v.head_hash == FACTS["head_hash"]
        records = list(ledger.records())
        assert sorted({r["deal"] for r in records}) == FACTS["deals"]
        assert {r["v"] for r in records} == {1}
        assert all(record_hash(r) == r["hash"] for r in records)
        # the snapshot that version took is still usable, and agrees with a full replay
        assert list(ledger.app.snapshots.get(deal_id(RRA)))
        from eventsourcing.application import Repository

        replayed = Repository(event_store=ledger.app.events).get(deal_id(RRA)).guard
        assert ledger._deal(RRA).guard == replayed


def test_the_stored_v1_ledger_reports_and_takes_new_events(old_ledger):
    for deal in (RRA, LETTER):
        result = invoke(["report", deal, "--as-of", "2007-12-31", "--json", "--db", old_ledger])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["deal"] == deal
    result = invoke(["record", "TrusteeNotified", "--deal", RRA, "--date", "2007-12-31",
                     "--db", old_ledger])
    assert result.exit_code == 0, result.output
    # its idempotency keys are still known to the write side
    dup = invoke(["record", "TrusteeNotified", "--deal", RRA, "--date", "2007-12-31",
                  "--key", "fixture-3", "--db", old_ledger])
    assert dup.exit_code == 3 and "fixture-3" in dup.stderr
    with Ledger(old_ledger, create=False) as ledger:
        assert verify(ledger, FACTS["head_hash"]).ok


# ------------------------------------------------------------------ a type gains a field


def test_old_rows_read_with_the_new_default(old_ledger, shelf_filed_v2):
    with Ledger(old_ledger, create=False) as ledger:
        stored = [r for r in ledger.records() if r["type"] == "ShelfFiled"]
        assert [r["id"] for r in stored] == FACTS["shelf_filed_ids"]
        assert stored[0]["v"] == 1 and "form" not in stored[0]["data"]  # as stored
        (shelf,) = [e for e in ledger.deal_events(RRA) if e.type == "ShelfFiled"]
        assert shelf.data["form"] == "S-3"  # as read
        assert shelf.data["file_number"] == stored[0]["data"]["file_number"]


def test_verify_hashes_the_stored_bytes_not_the_upcast_record(old_ledger, shelf_filed_v2):
    with Ledger(old_ledger, create=False) as ledger:
        v = verify(ledger, FACTS["head_hash"])
    assert v.ok and v.head_hash == FACTS["head_hash"]
    result = invoke(["verify", "--db", old_ledger])
    assert result.exit_code == 0 and FACTS["head_hash"] in result.stdout


def test_reports_still_compute_after_the_change(old_ledger, shelf_filed_v2):
    result = invoke(["report", RRA, "--as-of", "2007-12-31", "--json", "--db", old_ledger])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["registration"]["filed_on"]


def test_new_rows_are_stored_as_v2(old_ledger, shelf_filed_v2):
    with Ledger(old_ledger, create=False) as ledger:
        ledger.append([parse_event({"type": "DealOpened", "deal": "rra-2", "date": "2004-06-30",
                                    "data": _rra_opening(ledger)}),
                       parse_event({"type": "ShelfFiled", "deal": "rra-2",
                                    "date": "2004-07-13", "data": {"form": "S-1"}})],
                      user="upgrade")
        last = list(ledger.records())[-1]
        assert last["type"] == "ShelfFiled" and last["v"] == 2
        assert last["data"] == {"form": "S-1"}
        assert verify(ledger, FACTS["head_hash"]).ok
        (shelf,) = [e for e in ledger.deal_events("rra-2") if e.type == "ShelfFiled"]
        assert shelf.data["form"] == "S-1"
        # the write side's rules still see the shelf: a second filing is refused
        from ledger.errors import RuleViolation

        with pytest.raises(RuleViolation):
            ledger.append([parse_event({"type": "ShelfFiled", "deal": "rra-2",
                                        "date": "2004-07-14", "data": {}})])
    # the default applies to new events too
    assert parse_event({"type": "ShelfFiled", "deal": "x", "date": "2004-07-13",
                        "data": {}}).data == {"form": "S-3"}


def _rra_opening(ledger: Ledger) -> dict:
    first = next(r for r in ledger.records() if r["deal"] == RRA)
    return first["data"]


def test_a_program_that_knows_only_v1_refuses_a_v2_row(old_ledger, monkeypatch):
    # write a v2 row with the change registered...
    with monkeypatch.context() as m:
        m.setattr(upcasting, "_current", dict(upcasting._current))
        m.setattr(upcasting, "_steps", dict(upcasting._steps))
        for table in (events.CATALOG, events.REGISTRATION_TYPES, events._CONVERTERS):
            m.setitem(table, "ShelfFiled", table["ShelfFiled"])
        events.register_version(ShelfFiledV2, shelf_filed_v1_to_v2)
        with Ledger(old_ledger, create=False) as ledger:
            ledger.append([parse_event({"type": "DealOpened", "deal": "rra-2",
                                        "date": "2004-06-30", "data": _rra_opening(ledger)}),
                           parse_event({"type": "ShelfFiled", "deal": "rra-2",
                                        "date": "2004-07-13", "data": {"form": "S-1"}})])
    # ...then read it with v1 only: refused, naming the version, not silently misread
    assert upcasting.current_version("ShelfFiled") == 1
    with Ledger(old_ledger, create=False) as ledger:
        with pytest.raises(StoreError) as err:
            ledger.deal_events("rra-2")
        assert "version 2" in str(err.value) and "upgrade deal-ledger" in str(err.value)
        assert verify(ledger).ok  # the chain itself is fine
    result = invoke(["report", "rra-2", "--as-of", "2005-01-01", "--db", old_ledger])
    assert result.exit_code == 5 and "upgrade deal-ledger" in result.stderr


def test_upcasters_are_registered_in_order():
    with pytest.raises(ValueError):
        upcasting.register("NoticeSent", 2, lambda r: r)  # NoticeSent is at version 1


def test_a_record_written_before_versions_reads_as_v1(tmp_path):
    """Ledgers written before records carried ``v`` (the first weeks of this project):
    no ``v`` means version 1. Simulated by stripping ``v`` and re-hashing the chain."""
    url = str(tmp_path / "pre.db")
    with Ledger(url) as ledger:
        from tests.support import ev, opened

        ledger.append([parse_event(opened("rra")), parse_event(ev("ShelfFiled", "2004-07-13"))])
    raw, prev = Raw(url), None
    for pos, state, *_ in raw.rows():
        outer = json.loads(state)
        record = outer["record"]
        del record["v"]
        del record["deal_prev"]  # nor did they carry the deal's own link
        if prev is not None:
            record["prev_hash"] = prev
        record["hash"] = prev = record_hash(record)
        raw.set_state(pos, json.dumps(outer, separators=(",", ":")).encode())
    from tests.db_access import RawChain

    chain = RawChain(url)
    for pos, state, *_ in chain.rows():
        outer = json.loads(state)
        outer["hash"] = prev
        chain.set_state(pos, json.dumps(outer, separators=(",", ":")).encode())
    raw.drop_tree()   # nor did they keep the Merkle tree
    with Ledger(url, create=False) as ledger:
        assert verify(ledger).ok
        assert "v" not in list(ledger.records())[-1]
        assert [e.type for e in ledger.deal_events("rra")] == ["DealOpened", "ShelfFiled"]
        ledger.append([parse_event(ev("ShelfEffective", "2004-11-15"))])
        assert list(ledger.records())[-1]["v"] == 1
