"""`verify` catches tampering done directly in the database (SPEC §3 hash chain), on both
stores, naming the first bad seq: one changed byte, a deleted row, two swapped rows, a
cut-off tail, and a whole chain recomputed after an edit (which only a copy kept
elsewhere can show: ``verify --expect``)."""

from __future__ import annotations

import json

import pytest

from ledger.store.chain import verify, witness
from ledger.errors import StoreError, UsageError
from ledger.events import parse_event
from ledger.store import Ledger
from tests.db_access import Raw, RawChain, rewrite
from tests.support import ev, opened
from tests.test_bad_inputs import invoke

N_ISSUED = 6  # seq 1 is DealOpened, seq 2..7 NotesIssued; then two more batches


def _ledger(url):
    """Three batches (so three chain-head rows): seq 1-7, 8, 9."""
    with Ledger(url) as ledger:
        ledger.append([parse_event(opened("rra"))] + [
            parse_event(ev("NotesIssued", "2004-06-30", holder=f"H{i}", principal="1000"))
            for i in range(N_ISSUED)])
        ledger.append([parse_event(ev("ShelfFiled", "2004-07-13"))])
        ledger.append([parse_event(ev("ShelfEffective", "2004-11-15"))])
        return ledger.head().hash


def _verify(url, expect=None):
    with Ledger(url, create=False) as ledger:
        return verify(ledger, expect)


def _cli_verify(url, *extra):
    result = invoke(["verify", "--db", url, *extra])
    assert "Traceback" not in result.output
    return result


def _flip_one_byte(state: bytes, old: bytes, new: bytes) -> bytes:
    assert len(old) == len(new) == 1 and state.count(b'"principal":"1000"') == 1
    at = state.index(b'"principal":"1000"') + len(b'"principal":"100')
    assert state[at:at + 1] == old
    return state[:at] + new + state[at + 1:]


def test_intact_ledger_verifies(store_url):
    head = _ledger(store_url)
    v = _verify(store_url)
    assert v.ok and v.count == 9 and v.head_hash == head
    result = _cli_verify(store_url)
    assert result.exit_code == 0 and result.stdout.startswith(f"ok: 9 events\nhead {head}")


def test_one_changed_byte_is_caught(store_url):
    _ledger(store_url)
    raw = Raw(store_url)
    pos, state, *_ = raw.rows()[3]  # seq 4
    raw.set_state(pos, _flip_one_byte(state, b"0", b"9"))  # 1000 -> 1009
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 4 and "changed" in v.reason
    result = _cli_verify(store_url)
    assert result.exit_code == 1
    assert result.stderr.strip().startswith("seq 4: hash does not match")


def test_a_changed_store_field_is_caught(store_url):
    _ledger(store_url)
    raw = Raw(store_url)
    pos, state, *_ = raw.rows()[5]  # seq 6
    raw.set_state(pos, state.replace(b'"recorded_by":"', b'"recorded_by":"X', 1))
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 6 and "changed" in v.reason


def test_undecodable_bytes_are_caught_and_reading_says_so(store_url):
    _ledger(store_url)
    raw = Raw(store_url)
    pos, state, *_ = raw.rows()[2]  # seq 3
    raw.set_state(pos, state[:-5] + b"\xff\xfe!!!")
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 3 and "cannot be decoded" in v.reason
    # reading the log is a store error on one line, not a crash
    result = invoke(["log", "--db", store_url])
    assert result.exit_code == 5 and "verify" in result.stderr
    assert len(result.stderr.strip().split("\n")) == 1
    with pytest.raises(StoreError):
        with Ledger(store_url, create=False) as ledger:
            list(ledger.records())


def test_a_record_that_is_not_an_object_is_caught(store_url):
    _ledger(store_url)
    raw = Raw(store_url)
    pos, state, *_ = raw.rows()[1]  # seq 2
    outer = json.loads(state)
    outer["record"] = ["not", "a", "record"]
    raw.set_state(pos, json.dumps(outer, separators=(",", ":")).encode())
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 2


@pytest.mark.parametrize("index, seq", [(0, 1), (4, 5)])
def test_deleted_row_is_caught(store_url, index, seq):
    _ledger(store_url)
    raw = Raw(store_url)
    raw.delete(raw.rows()[index][0])
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == seq and "missing" in v.reason
    result = _cli_verify(store_url)
    assert result.exit_code == 1 and result.stderr.startswith(f"seq {seq}:")


def test_deleted_last_row_is_caught(store_url):
    _ledger(store_url)
    raw = Raw(store_url)
    raw.delete(raw.rows()[-1][0])
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 9 and "removed" in v.reason


def test_swapped_rows_are_caught(store_url):
    _ledger(store_url)
    raw = Raw(store_url)
    rows = raw.rows()
    (p2, s2, *_), (p3, s3, *_) = rows[2], rows[3]
    raw.set_state(p2, s3)
    raw.set_state(p3, s2)
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 3 and "out of order" in v.reason


def _forge(url, edit_seq: int) -> None:
    """What a forger with write access does: edit one event, recompute every hash
    after it, and rewrite the chain-head rows to match, so the log is self-consistent;
    and drop the Merkle tree beside the log, which would name the event."""
    rewrite(url, edit_seq, lambda record: record["data"].update(principal="5000"))
    Raw(url).drop_tree()


def test_recomputed_chain_is_caught_by_a_kept_copy(store_url, tmp_path):
    witness_head = _ledger(store_url)
    copy = tmp_path / "kept.jsonl"
    result = invoke(["log", "--json", "--db", store_url])
    copy.write_text(result.stdout)
    _forge(store_url, edit_seq=3)
    # self-consistent: the chain alone cannot show it
    assert _verify(store_url).ok
    # a head hash kept elsewhere shows that history was rewritten
    v = _verify(store_url, expect=witness_head)
    assert not v.ok and "rewritten" in v.reason
    # SEQ:HASH names the witnessed event
    v = _verify(store_url, expect=f"9:{witness_head}")
    assert not v.ok and v.bad_seq == 9 and "rewritten" in v.reason
    # a kept `log --json` copy names the first rewritten event exactly
    v = _verify(store_url, expect=str(copy))
    assert not v.ok and v.bad_seq == 3 and "rewritten" in v.reason
    # on the command line (cli/auditing.py takes the head-hash form)
    assert _cli_verify(store_url).exit_code == 0
    result = _cli_verify(store_url, "--expect", witness_head)
    assert result.exit_code == 1 and "rewritten" in result.stderr


def test_cut_off_tail_with_its_chain_head_is_caught_by_a_kept_copy(store_url):
    witness_head = _ledger(store_url)
    raw, chain = Raw(store_url), RawChain(store_url)
    raw.delete(raw.rows()[-1][0])  # seq 9 and the chain-head row of its batch
    chain.delete(chain.rows()[-1][0])
    # the Merkle tree kept beside the log still holds seq 9's leaf
    v = _verify(store_url)
    assert not v.ok and v.bad_seq == 9 and "events were removed" in v.reason
    raw.drop_tree()   # a forger who knows removes it too: the chain alone cannot show it
    assert _verify(store_url).ok
    v = _verify(store_url, expect=witness_head)
    assert not v.ok and "no longer extends" in v.reason
    v = _verify(store_url, expect=f"9:{witness_head}")
    assert not v.ok and v.bad_seq == 9 and "removed" in v.reason


def test_a_changed_chain_head_is_caught(store_url):
    _ledger(store_url)
    chain = RawChain(store_url)
    pos, state, *_ = chain.rows()[-1]
    outer = json.loads(state)
    outer["seq"] = 8
    chain.set_state(pos, json.dumps(outer, separators=(",", ":")).encode())
    v = _verify(store_url)
    assert not v.ok and "chain head" in v.reason


def test_verify_hashes_what_is_stored_not_an_upcast_copy(store_url, monkeypatch):
    """A record upcast on reading would hash differently; verify must not see it."""
    from ledger import upcasting

    head = _ledger(store_url)
    monkeypatch.setitem(upcasting._current, "NotesIssued", 2)
    monkeypatch.setitem(upcasting._steps, ("NotesIssued", 1),
                        lambda r: {**r, "data": {**r["data"], "note": "upcast"}})
    v = _verify(store_url)
    assert v.ok and v.head_hash == head


# 63 hex digits are a prefix of a head now (8 or more are: `verify --expect` takes a
# unique prefix); 7 are not, nor 65
@pytest.mark.parametrize("value", ["nope", "12", "3:xyz", "f" * 7, "f" * 65, "-1:" + "f" * 64])
def test_expect_must_be_a_hash_a_seq_and_hash_or_a_file(value):
    with pytest.raises(UsageError) as err:
        witness(value)
    assert "--expect" in str(err.value)


def test_expect_forms(tmp_path):
    h = "a" * 64
    assert witness(h).head == h
    assert witness(f"7:{h}").by_seq == {7: h}
    assert witness("ABCDEF12").head == "abcdef12"  # a prefix of the head
    kept = tmp_path / "kept.jsonl"
    kept.write_text(json.dumps({"seq": 1, "hash": h}) + "\n\n" + json.dumps({"seq": 2, "hash": h}))
    assert witness(str(kept)).by_seq == {1: h, 2: h}
    kept.write_text("not json\n")
    with pytest.raises(UsageError) as err:
        witness(str(kept))
    assert "line 1" in str(err.value)


def test_bad_expect_is_a_usage_error_on_the_command_line(sqlite_url):
    _ledger(sqlite_url)
    result = _cli_verify(sqlite_url, "--expect", "nonsense")
    assert result.exit_code == 2 and "field '--expect'" in result.stderr
