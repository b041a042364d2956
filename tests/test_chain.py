"""`verify` catches tampering done directly in the database (SPEC §3 hash chain)."""

from __future__ import annotations

import json

from ledger.chain import verify
from ledger.events import parse_event
from ledger.store import Ledger, record_hash
from tests.db_access import Raw
from tests.support import ev, opened


def _ledger(url, n=6):
    with Ledger(url) as ledger:
        ledger.append([parse_event(opened("rra"))] + [
            parse_event(ev("NotesIssued", "2004-06-30", holder=f"H{i}", principal="1000"))
            for i in range(n)])
        return ledger.head().hash


def _verify(url, expect=None):
    with Ledger(url, create=False) as ledger:
        return verify(ledger, expect)


def test_changed_byte_is_caught(store_url):
    _ledger(store_url)
    raw = Raw(store_url)
    pos, state, *_ = raw.rows()[3]
    raw.set_state(pos, state.replace(b'"1000"', b'"9000"'))
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 4 and "changed" in v.reason


def test_undecodable_bytes_are_caught(store_url):
    _ledger(store_url)
    raw = Raw(store_url)
    pos, state, *_ = raw.rows()[2]
    raw.set_state(pos, state[:-5] + b"\xff\xfe!!!")
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 3


def test_deleted_row_is_caught(store_url):
    _ledger(store_url)
    raw = Raw(store_url)
    raw.delete(raw.rows()[4][0])
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 5 and "missing" in v.reason


def test_deleted_last_row_is_caught(store_url):
    _ledger(store_url)
    raw = Raw(store_url)
    raw.delete(raw.rows()[-1][0])
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 7 and "removed" in v.reason


def test_swapped_rows_are_caught(store_url):
    _ledger(store_url)
    raw = Raw(store_url)
    rows = raw.rows()
    (p2, s2, *_), (p3, s3, *_) = rows[2], rows[3]
    raw.set_state(p2, s3)
    raw.set_state(p3, s2)
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 3 and "out of order" in v.reason


def test_rewritten_chain_is_caught_only_by_expect(store_url):
    witness = _ledger(store_url)
    raw = Raw(store_url)
    rows = raw.rows()
    prev = None
    for i, (pos, state, *_) in enumerate(rows):  # edit seq 3, then re-hash everything
        outer = json.loads(state)
        record = outer["record"]
        if record["seq"] == 3:
            record["data"]["principal"] = "5000"
        if prev is not None:
            record["prev_hash"] = prev
        record["hash"] = record_hash(record)
        prev = record["hash"]
        raw.set_state(pos, json.dumps(outer, separators=(",", ":")).encode())
    # the chain head row still names the old hash, so verify alone sees the break too;
    # a forger would rewrite that row as well, which `--expect` catches regardless
    v = _verify(store_url, expect=witness)
    assert not v.ok
    assert "rewritten" in v.reason or "removed" in v.reason
