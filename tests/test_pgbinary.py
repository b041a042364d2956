"""``ledger.store.pgbinary``: on PostgreSQL the library's inserts get their parameters in
binary. What is stored must be what the library's own text parameters store, byte for
byte, whatever the texts hold (the characters the text form escapes: backslashes,
quotes, braces, commas, parentheses, non-ASCII), events and snapshots alike; and the
connections go back to the pool as the library left them."""

from __future__ import annotations

import contextlib
import uuid
from datetime import datetime, timezone

import pytest

from ledger.store import writing as store_module
from ledger.store.chain import verify
from ledger.events import parse_event
from ledger.store.writing import SNAPSHOT_INTERVAL
from ledger.store import Ledger
from ledger.store.canonical import deal_id
from tests.conftest import drop_pg, fresh_pg_url
from tests.db_access import Raw
from tests.support import ev, opened, texts_as_once_accepted

pytestmark = pytest.mark.postgres

NOW = datetime(2026, 3, 2, 9, 30, tzinfo=timezone.utc)
AWKWARD = ['back\\slash "quoted" {braced}, (parens)', "Zoë § 1(a) — «ok» 𝄞", "a,b;c\\\\d",
           '\\x41 not hex', "{\"k\": [1, 2]}", "line\nbreak\ttab"]


def _batch() -> list:
    out = [opened("awk"), ev("NotesIssued", "2004-06-30", deal="awk", holder="H0",
                              principal="1000.00")]
    for i in range(SNAPSHOT_INTERVAL + 20):   # past a snapshot
        text = AWKWARD[i % len(AWKWARD)]
        out.append(ev("NoticeSent", "2004-07-01", deal="awk", to=f"{text} {i}",
                      subject=text, method="hand"))
    with texts_as_once_accepted():   # "line\nbreak": as the store once accepted it
        return [parse_event(o, line=i + 1) for i, o in enumerate(out)]


def _written(url: str, binary: bool, monkeypatch) -> tuple:
    counter = [0]

    def new_ids(n):
        counter[0] += n
        return [str(uuid.UUID(int=i)) for i in range(counter[0] - n + 1, counter[0] + 1)]

    from psycopg.types.array import ListBinaryDumper

    sent: list[int] = []   # arrays sent in binary
    dump = ListBinaryDumper.dump
    with monkeypatch.context() as m:
        m.setattr(ListBinaryDumper, "dump", lambda self, obj: sent.append(len(obj))
                  or dump(self, obj))
        m.setattr(store_module, "new_ids", new_ids)
        m.setattr(Ledger, "clock", staticmethod(lambda: NOW))
        if not binary:
            m.setattr(Ledger, "_binary_params", lambda self: contextlib.nullcontext())
        with Ledger(url) as ledger:
            ledger.append(_batch(), user="Zoë")
            snaps = [(s.originator_version, s.state["guard"], s.state["at"])
                     for s in ledger.app.snapshots.get(deal_id("awk"))]
            assert verify(ledger).ok
            assert [r["data"]["subject"] for r in ledger.deal_records("awk")[2:8]] == AWKWARD
    # the events (and the chain head) in one array, the snapshot in another, or none
    assert sent == ([SNAPSHOT_INTERVAL + 23, 1] if binary else [])
    return Raw(url).rows(), snaps


def test_binary_parameters_store_what_the_librarys_text_ones_store(monkeypatch):
    urls = [fresh_pg_url(), fresh_pg_url()]
    try:
        text = _written(urls[0], False, monkeypatch)
        binary = _written(urls[1], True, monkeypatch)
        assert len(text[0]) == SNAPSHOT_INTERVAL + 22 and len(text[1]) == 1
        assert binary == text
    finally:
        for url in urls:
            drop_pg(url)


def test_connections_go_back_as_the_library_left_them():
    from psycopg.adapt import PyFormat
    from psycopg.types.array import ListBinaryDumper

    url = fresh_pg_url()
    try:
        with Ledger(url) as ledger:
            datastore = ledger.app.recorder.datastore
            ledger.append(_batch()[:5], user="Zoë")
            assert "get_connection" not in vars(datastore)   # the library's method again
            with datastore.get_connection() as conn:
                assert conn.adapters.get_dumper(list, PyFormat.AUTO) is not ListBinaryDumper
                for info in datastore.psycopg_type_adapters.values():
                    assert (conn.adapters.get_dumper(info.python_type, PyFormat.AUTO)
                            is conn.adapters.get_dumper(info.python_type, PyFormat.TEXT))
            # the library's reads with a list parameter (topics) still work
            assert len(list(ledger.records())) == 5
    finally:
        drop_pg(url)
