"""The store on both backends: append, read back, all-or-nothing batches, idempotency
keys, the write-side rules (SPEC §3, §4.3), snapshots and the hash chain."""

from __future__ import annotations

import pytest

from ledger.store.chain import verify
from ledger.errors import DuplicateKey, RuleViolation
from ledger.events import parse_event
from ledger.store.chainhead import CHAIN_ID, GENESIS
from ledger.store import Ledger
from ledger.store.writing import SNAPSHOT_INTERVAL
from ledger.store.canonical import deal_id, record_hash
from tests.support import ev, opened

LEHMAN = "Lehman Brothers Inc."


def batch(*objs):
    return [parse_event(o, line=i + 1) for i, o in enumerate(objs)]


def rra_base():
    return batch(opened("rra"), ev("NotesIssued", "2004-06-30", holder=LEHMAN,
                                   principal="60000000"))


def state(ledger):
    return ledger.head(), len(list(ledger.records()))


def test_append_assigns_store_fields_and_chains(store_url):
    with Ledger(store_url) as ledger:
        result = ledger.append(rra_base(), user="alice")
        assert result.count == 2 and result.head.seq == 2
        records = list(ledger.records())
    assert [r["seq"] for r in records] == [1, 2]
    assert records[0]["prev_hash"] == GENESIS
    assert records[1]["prev_hash"] == records[0]["hash"]
    assert all(r["recorded_by"] == "alice" for r in records)
    assert all(record_hash(r) == r["hash"] for r in records)
    assert records[1]["data"] == {"holder": LEHMAN, "principal": "60000000"}


def test_events_read_back_typed(store_url):
    with Ledger(store_url) as ledger:
        ledger.append(rra_base())
        events = ledger.deal_events("rra")
    assert [e.type for e in events] == ["DealOpened", "NotesIssued"]
    assert str(events[1].data["principal"]) == "60000000"


def test_failing_line_leaves_store_unchanged(store_url):
    with Ledger(store_url) as ledger:
        ledger.append(rra_base())
        before = state(ledger)
        bad = batch(ev("ShelfFiled", "2004-07-13"),
                    ev("NotesConverted", "2005-01-03", holder=LEHMAN, principal="70000000",
                       shares=10))
        with pytest.raises(RuleViolation) as err:
            ledger.append(bad)
        assert "line 2" in str(err.value) and "data.principal" in str(err.value)
        assert state(ledger) == before


def test_duplicate_key_refused_within_and_across_batches(store_url):
    with Ledger(store_url) as ledger:
        ledger.append(rra_base())
        first = {**ev("ShelfFiled", "2004-07-13"), "key": "s-1"}
        written = ledger.append(batch(first))
        # the same event again is recorded already (issue 31): nothing is written
        again = ledger.append(batch(first))
        assert again.count == 0 and [r["id"] for r in again.already] == [
            r["id"] for r in written.records]
        assert ledger.head() == written.head
        with pytest.raises(DuplicateKey):   # the key with other content: a conflict
            ledger.append(batch({**first, "date": "2004-07-14"}))
        with pytest.raises(DuplicateKey) as err:
            ledger.append(batch({**ev("TrusteeNotified", "2004-07-14"), "key": "k"},
                                {**ev("TrusteeNotified", "2004-07-15"), "key": "k"}))
        assert "line 2" in str(err.value)
        # the same key in another deal is fine
        ledger.append(batch(opened("rra2"), {**ev("ShelfFiled", "2004-07-13", deal="rra2"),
                                              "key": "s-1"}))


@pytest.mark.parametrize("objs, field, phrase", [
    ([ev("ShelfFiled", "2004-07-13", deal="nope")], "deal", "never opened"),
    ([ev("CapitalizationRecorded", "2004-07-13", common_outstanding=5)], "type", "deal"),
    ([ev("ShelfFiled", "2004-06-29")], "date", "before the deal was opened"),
    ([ev("NotesTransferred", "2004-07-01", from_holder=LEHMAN, to_holder="B",
         principal="60000000.01")], "data.principal", "cannot dispose"),
    ([ev("NotesRetired", "2004-07-01", holder="Nobody", principal="1", reason="redeemed")],
     "data.holder", "holds and held no Notes"),
    ([ev("SuspensionEnded", "2005-01-03")], "type", "no Suspension Period is open"),
    ([ev("SuspensionStarted", "2005-01-03", material_transaction=False)], "type",
     "Effectiveness Period"),
    ([ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15"),
      ev("SuspensionStarted", "2005-01-03", material_transaction=False),
      ev("SuspensionStarted", "2005-01-10", material_transaction=False)], "type",
     "already open"),
    ([ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15"),
      ev("SuspensionStarted", "2006-11-15", material_transaction=False)], "type",
     "Effectiveness Period ended"),
    ([ev("ShelfUsable", "2005-01-03", cure="order_lifted")], "type", "no ShelfUnusable"),
    ([ev("DealOpened", "2004-06-30", kind="registration_rights", name="again",
         terms=opened()["data"]["terms"])], "deal", "already open"),
    ([ev("EventRetracted", "2005-01-03", event_id="e-unknown", reason="x")],
     "data.event_id", "no event"),
    ([ev("NoticeAcknowledged", "2005-01-03", notice="e-unknown")], "data.notice",
     "NoticeSent"),
])
def test_write_side_rules(store_url, objs, field, phrase):
    with Ledger(store_url) as ledger:
        ledger.append(rra_base())
        before = state(ledger)
        with pytest.raises(RuleViolation) as err:
            ledger.append(batch(*objs))
        assert f"field '{field}'" in str(err.value)
        assert phrase in str(err.value)
        assert state(ledger) == before


def test_backdated_transfer_that_breaks_a_later_conversion_is_refused(store_url):
    with Ledger(store_url) as ledger:
        ledger.append(rra_base())
        ledger.append(batch(ev("NotesConverted", "2005-06-01", holder=LEHMAN,
                               principal="60000000", shares=3906250)))
        # recorded later, dated earlier: Lehman would hold nothing to convert on 2005-06-01
        with pytest.raises(RuleViolation) as err:
            ledger.append(batch(ev("NotesTransferred", "2005-01-03", from_holder=LEHMAN,
                                   to_holder="B", principal="1000000")))
        assert "later-recorded event" in str(err.value)


def test_retraction_rules(store_url):
    with Ledger(store_url) as ledger:
        ledger.append(rra_base())
        issued = [r for r in ledger.records() if r["type"] == "NotesIssued"][0]["id"]
        ledger.append(batch(ev("NotesConverted", "2005-06-01", holder=LEHMAN,
                               principal="1000000", shares=65104)))
        with pytest.raises(RuleViolation) as err:  # the conversion would exceed holdings
            ledger.append(batch(ev("EventRetracted", "2005-06-02", event_id=issued,
                                   reason="typo")))
        assert "retract the dependent event first" in str(err.value)
        conv = [r for r in ledger.records() if r["type"] == "NotesConverted"][0]["id"]
        ledger.append(batch(ev("EventRetracted", "2005-06-02", event_id=conv, reason="typo")))
        with pytest.raises(RuleViolation) as err:
            ledger.append(batch(ev("EventRetracted", "2005-06-03", event_id=conv, reason="x")))
        assert "already retracted" in str(err.value)
        # with the conversion gone, the issue can go too
        ledger.append(batch(ev("EventRetracted", "2005-06-04", event_id=issued, reason="x")))
        # and now nothing is held: a new conversion is refused
        with pytest.raises(RuleViolation):
            ledger.append(batch(ev("NotesConverted", "2005-07-01", holder=LEHMAN,
                                   principal="1", shares=1)))


def test_letter_rules(store_url):
    with Ledger(store_url) as ledger:
        ledger.append(batch(
            opened("ltr", "infocrossing-letter-2002"),
            ev("InstrumentRegistered", "2002-02-01", deal="ltr", instrument="W-1", holder="H",
               kind="warrant", shares=1000, exercise_price="4.00"),
            ev("CamdenWarrantsIssued", "2002-02-01", deal="ltr", holder="C", warrants=100,
               exercise_price="2.00"),
            ev("WarrantsExercised", "2003-01-02", deal="ltr", instrument="W-1", fraction="1",
               shares_issued=1000)))
        for bad, phrase in [
            (ev("WarrantsExercised", "2003-02-03", deal="ltr", instrument="W-1",
                fraction="0.5", shares_issued=1), "nothing remains"),
            (ev("PreferredConverted", "2003-02-03", deal="ltr", instrument="W-1",
                fraction="0.5", shares_issued=1), "not a preferred"),
            (ev("WarrantsExercised", "2003-02-03", deal="ltr", instrument="W-9",
                fraction="0.5", shares_issued=1), "not registered"),
            (ev("CamdenWarrantsVested", "2003-02-03", deal="ltr", holder="C", warrants=101),
             "unvested"),
            (ev("InstrumentRegistered", "2003-02-03", deal="ltr", instrument="W-1", holder="H",
                kind="warrant", shares=1, exercise_price="1"), "already registered"),
        ]:
            with pytest.raises(RuleViolation) as err:
                ledger.append(batch(bad))
            assert phrase in str(err.value)


def test_snapshot_keeps_guard_state_equal_to_full_replay(store_url):
    with Ledger(store_url) as ledger:
        ledger.append(rra_base())
        n = SNAPSHOT_INTERVAL + 30
        ledger.append(batch(*[ev("NotesTransferred", "2004-07-01", from_holder=LEHMAN,
                                 to_holder=f"H{i}", principal="1000") for i in range(n)]))
        snaps = ledger.app.snapshots.get(deal_id("rra"))
        assert list(snaps), "a snapshot was taken after passing the interval"
        via_snapshot = ledger.app.repository.get(deal_id("rra")).guard
        from eventsourcing.application import Repository  # replay without snapshots
        plain = Repository(event_store=ledger.app.events, snapshot_store=None)
        assert plain.get(deal_id("rra")).guard == via_snapshot
        # and the rules still see the state: Lehman has 60,000,000 - n*1,000 left
        with pytest.raises(RuleViolation):
            ledger.append(batch(ev("NotesRetired", "2004-07-02", holder=LEHMAN,
                                   principal=str(60_000_000 - n * 1000 + 1), reason="redeemed")))
        ledger.append(batch(ev("NotesRetired", "2004-07-02", holder=LEHMAN,
                               principal=str(60_000_000 - n * 1000), reason="redeemed")))


def test_verify_ok_and_empty(store_url):
    with Ledger(store_url) as ledger:
        assert verify(ledger).ok and verify(ledger).count == 0
        ledger.append(rra_base())
        v = verify(ledger)
        assert v.ok and v.count == 2 and v.head_hash == ledger.head().hash
        assert verify(ledger, expect=v.head_hash).ok
        assert not verify(ledger, expect="f" * 64).ok


def test_reading_a_missing_sqlite_ledger_does_not_create_it(tmp_path):
    from ledger.errors import StoreError

    with pytest.raises(StoreError):
        Ledger(str(tmp_path / "none.db"), create=False)
    assert not (tmp_path / "none.db").exists()


def test_new_sqlite_file_is_private(sqlite_url):
    import os
    import stat

    Ledger(sqlite_url).close()
    assert stat.S_IMODE(os.stat(sqlite_url).st_mode) == 0o600


def test_a_refused_batch_leaves_no_trace_in_the_write_side_state(store_url):
    """The write side keeps each deal's guard state between appends; a batch refused
    half-way (its first lines already staged) must not leave them in it."""
    with Ledger(store_url) as ledger:
        ledger.append(rra_base())
        with pytest.raises(RuleViolation):
            ledger.append(batch(ev("NotesTransferred", "2004-07-01", from_holder=LEHMAN,
                                   to_holder="B", principal="1000"),
                                ev("SuspensionEnded", "2004-07-02")))
        # B never received the notes: retiring them is refused on the same Ledger...
        with pytest.raises(RuleViolation):
            ledger.append(batch(ev("NotesRetired", "2004-07-03", holder="B", principal="1000",
                                   reason="redeemed")))
        # ...and Lehman still holds all 60,000,000
        ledger.append(batch(ev("NotesRetired", "2004-07-03", holder=LEHMAN,
                               principal="60000000", reason="redeemed")))


def test_a_writer_sees_what_another_writer_stored(store_url):
    """Two Ledger objects (as two processes would): each one's cached deal state is
    brought up to date with the other's events before it checks a new one."""
    with Ledger(store_url) as a, Ledger(store_url) as b:
        a.append(rra_base())
        b.append(batch(ev("NotesTransferred", "2004-07-01", from_holder=LEHMAN, to_holder="B",
                          principal="60000000")))
        with pytest.raises(RuleViolation):  # a must know Lehman holds nothing now
            a.append(batch(ev("NotesRetired", "2004-07-02", holder=LEHMAN, principal="1",
                              reason="redeemed")))
        a.append(batch(ev("NotesRetired", "2004-07-02", holder="B", principal="1",
                          reason="redeemed")))
        assert verify(a).ok and a.head().seq == b.head().seq == 4


def test_a_big_batch_is_one_transaction(store_url):
    """20,000 events in one append (the PostgreSQL store once hung on batches this size:
    a pipelined insert of that many rows can deadlock the pure-Python driver)."""
    import signal

    def hung(*_):
        raise TimeoutError("the append of 20,000 events hung")

    objs = [ev("NoticeSent", "2005-01-03", to="T", subject=f"n{i}", method="hand")
            for i in range(20_000)]
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(180)
    try:
        with Ledger(store_url) as ledger:
            ledger.append(rra_base())
            result = ledger.append(batch(*objs))
            assert result.count == 20_000 and result.head.seq == 20_002
            assert verify(ledger).ok
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# ------------------------------------------------ the direct write path (issue 17)
# ``Ledger._stage`` writes the library's stored events itself, from the record's
# canonical pieces, instead of building the library's event objects and encoding them
# through its mapper. What it writes must be exactly what the library would write, and
# the aggregate it keeps must be the one the library rebuilds from those events.

import json  # noqa: E402
import os  # noqa: E402

from hypothesis import given, settings, strategies as st  # noqa: E402

from ledger.store import canonical as store_module  # noqa: E402

EXAMPLES = 200 * (10 if os.environ.get("DEAL_LEDGER_LONG") else 1)
_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
_json_leaf = st.one_of(_text, st.integers(-10**12, 10**12), st.booleans(), st.none())
_object = st.dictionaries(_text, _json_leaf, max_size=3)
_data = st.dictionaries(_text, st.one_of(_json_leaf, _object,
                                         st.lists(st.one_of(_json_leaf, _object), max_size=3)),
                        max_size=5)


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None)
@given(data=_data, source=st.one_of(st.none(), _text), key=st.one_of(st.none(), _text),
       who=_text, version=st.integers(1, 3), seq=st.integers(1, 10**9))
def test_record_texts_are_the_canonical_and_the_transcoders_bytes(data, source, key, who,
                                                                    version, seq):
    record = {"type": "NoticeSent", "deal": "a-deal.1", "date": "2005-01-03", "data": data}
    if source is not None:
        record["source"] = source
    if key is not None:
        record["key"] = key
    record.update({"v": version, "id": "0f7d8e1c-52a4-4f0e-b1a1-5d6c2e9b7a10", "seq": seq,
                   "recorded_at": "2026-01-01T00:00:00.000001Z", "recorded_by": who,
                   "prev_hash": "a" * 64, "deal_prev": GENESIS})
    canonical_text, stored_text = store_module._record_texts(
        record, json.encoder.encode_basestring(who))
    assert canonical_text.encode("utf-8") == store_module.canonical(record)
    hashed = {**record, "hash": record_hash(record)}
    assert stored_text + hashed["hash"] + '"}' == store_module._STORED_JSON.encode(hashed)


def _rows(ledger):
    return list(ledger.app.recorder.select_notifications(start=None, limit=10**6))


def test_direct_rows_are_what_the_librarys_mapper_writes_and_replay_to_the_same_stream(
        store_url):
    with Ledger(store_url) as ledger:
        ledger.append(rra_base(), user="Zoë \"z\" O'Hara")
        ledger.append(batch(
            opened("ltr", template="infocrossing-letter-2002"),
            *[{**ev("NotesTransferred", "2004-07-01", from_holder=LEHMAN,
                    to_holder=f"H ✓ {i}", principal="1000"),
               "source": f"line \\ \"{i}\"", "key": f"k-{i}"}
              for i in range(SNAPSHOT_INTERVAL + 5)],
            ev("ShelfFiled", "2004-07-13")), user="bob")
        cached = {d: (s.version, s.guard, s.at, s.modified_on)
                  for d, s in ledger._streams.items()}
        for n in _rows(ledger):
            if n.originator_id == CHAIN_ID:
                continue
            event = ledger.app.mapper.to_domain_event(n)
            again = ledger._library_stored(n.originator_id, n.originator_version,
                                           event.timestamp, event.record)
            assert (again.topic, again.state) == (n.topic, n.state)
        from eventsourcing.application import Repository  # replay, no snapshots
        plain = Repository(event_store=ledger.app.events, snapshot_store=None)
        for deal, (version, guard, at, modified) in cached.items():
            replayed = plain.get(deal_id(deal))
            assert (replayed.version, replayed.guard, replayed.at, replayed.modified_on) == (
                version, guard, at, modified)
        assert verify(ledger).ok
    with Ledger(store_url) as fresh:   # a new process: from the snapshot plus events
        for deal, (version, guard, at, _m) in cached.items():
            stream = fresh._deal(deal)
            assert (stream.version, stream.guard, stream.at) == (version, guard, at)


def test_guard_order_key_is_the_projections_default_order_for_every_type():
    from ledger import guards
    from ledger.dayorder import in_effect_key
    from ledger.events import CATALOG

    for kind in CATALOG:
        entry = ["2004-01-01", 7, "id", kind, None]
        assert guards._key(entry) == in_effect_key("2004-01-01", kind, 7)


def test_direct_snapshot_decodes_to_the_librarys_sealed_snapshot(store_url):
    with Ledger(store_url) as ledger:
        ledger.append(rra_base())
        ledger.append(batch(*[ev("NotesTransferred", "2004-07-01", from_holder=LEHMAN,
                                 to_holder=f"H{i}", principal="1000")
                              for i in range(SNAPSHOT_INTERVAL)]))
        stream = ledger._streams["rra"]
        mapper = ledger.app.snapshots.mapper
        direct = mapper.to_domain_event(ledger._snapshot_stored(stream))
        library = mapper.to_domain_event(
            mapper.to_stored_event(ledger._library_snapshot(stream)))
        assert (direct.topic, direct.originator_id, direct.originator_version) == (
            library.topic, library.originator_id, library.originator_version)
        assert direct.state == library.state
        stored = list(ledger.app.snapshots.get(deal_id("rra"), desc=True, limit=1))
        assert stored[0].state == library.state and ledger._sound("rra", stored[0])


def test_record_texts_of_another_shape_fall_back_to_the_encoders():
    record = {"type": "NoticeSent", "deal": "d", "date": "2005-01-03", "data": {"b": 1, "a": 2},
              "extra": "é\n", "v": 1, "id": "i", "seq": 3, "recorded_at": "t",
              "recorded_by": "w", "prev_hash": GENESIS, "deal_prev": GENESIS}
    canonical_text, stored_text = store_module._record_texts(record, '"w"')
    assert canonical_text.encode("utf-8") == store_module.canonical(record)
    hashed = {**record, "hash": "h"}
    assert stored_text + 'h"}' == store_module._STORED_JSON.encode(hashed)


def test_the_librarys_own_path_writes_the_same_ledger(store_url, monkeypatch):
    # a ledger whose library is configured with another transcoder, a compressor or a
    # cipher is written through the library's mapper: same records, same checks
    with Ledger(store_url) as ledger:
        monkeypatch.setattr(ledger, "_direct", False)
        ledger.append(rra_base(), user="alice")
        ledger.append(batch(*[ev("NotesTransferred", "2004-07-01", from_holder=LEHMAN,
                                 to_holder=f"H{i}", principal="1000")
                              for i in range(SNAPSHOT_INTERVAL)]))
        assert verify(ledger).ok
        events = ledger.deal_events("rra")
        assert len(events) == SNAPSHOT_INTERVAL + 2
    with Ledger(store_url) as fresh:
        assert fresh.deal_events("rra") == events
        assert fresh._deal("rra").version == SNAPSHOT_INTERVAL + 2


def test_a_deal_row_altered_so_it_no_longer_decodes_is_named_by_the_read(sqlite_url):
    # the read decodes a deal's rows in one call of the JSON decoder; a row that does not
    # decode so is read through the library's mapper, which names it
    import sqlite3

    from ledger.errors import StoreError

    with Ledger(sqlite_url) as ledger:
        ledger.append(rra_base())
        assert len(ledger.deal_events("rra")) == 2
    conn = sqlite3.connect(sqlite_url)
    with conn:
        conn.execute("UPDATE stored_events SET state = X'7B6E6F' WHERE originator_version = 2 "
                     "AND originator_id = ?", (deal_id("rra").hex,))
    conn.close()
    with Ledger(sqlite_url, create=False) as ledger:
        with pytest.raises(StoreError) as err:
            ledger.deal_events("rra")
    assert "version 2" in str(err.value) and "verify" in str(err.value)


def test_log_range_is_the_notifications_of_a_range(store_url, monkeypatch):
    # issue 17: the views read the log by ranges of notification ids, without the
    # library's notification objects on SQLite; the same (id, record) pairs as the
    # library's notifications, the chain head's rows left out, on either path
    with Ledger(store_url) as ledger:
        ledger.append(rra_base(), user="alice")
        ledger.append(batch(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15")))
        everything = list(ledger.notifications())
        top = ledger.app.recorder.max_notification_id()
        assert [r["seq"] for _, r in everything] == [1, 2, 3, 4]
        assert top == 6   # two batches, each with its chain head's row
        for direct in (True, False):
            monkeypatch.setattr(ledger, "_direct", direct)
            assert ledger.log_range(0, top) == everything
            halves = ledger.log_range(0, 3) + ledger.log_range(3, top)
            assert halves == everything
            assert ledger.log_range(top, top + 5) == []


def test_the_collector_is_held_off_for_the_block_and_restored_however_it_ends():
    # ledger.collector.paused: the one pause the store, the report, the agenda and the
    # one-deal commands share
    import gc

    from ledger.collector import paused

    assert gc.isenabled()
    with paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError):
        with paused():
            raise ValueError
    assert gc.isenabled()
    with paused(when=False):
        assert gc.isenabled()
    gc.disable()
    try:
        with paused():
            assert not gc.isenabled()
        assert not gc.isenabled()   # left as it was found
    finally:
        gc.enable()
    with paused(freeze=True):
        kept = [object()]
    assert gc.isenabled() and gc.get_freeze_count() > 0
    gc.unfreeze()
    del kept


def test_a_promoted_block_leaves_its_survivors_in_the_oldest_generation_still_collected():
    # paused(promote=True), Ledger.append's: what the block leaves alive is not walked by
    # the next young pass (it joins the oldest generation), nothing stays frozen, and a
    # cycle made in the block is still freed by a full collection
    import gc
    import weakref

    from ledger.collector import paused

    class Node:
        pass

    assert gc.get_freeze_count() == 0
    with paused(promote=True):
        kept = [[i] for i in range(1000)]
        cycle = Node()
        cycle.me = cycle
        gone = weakref.ref(cycle)
        del cycle
    assert gc.isenabled() and gc.get_freeze_count() == 0
    young = {id(o) for o in gc.get_objects(generation=0)}
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert id(kept) in oldest and id(kept[0]) in oldest and id(kept) not in young
    assert gone() is not None   # not collected by a young pass
    gc.collect()
    assert gone() is None
    # objects frozen by someone else stay frozen: the block then only re-enables
    with paused(freeze=True):
        frozen = [object()]
    count = gc.get_freeze_count()
    with paused(promote=True):
        more = [[1]]
    assert gc.get_freeze_count() == count
    gc.unfreeze()
    del kept, frozen, more


def test_new_ids_are_version_4_uuids_written_out_when_asked():
    import uuid

    from ledger.store.canonical import new_ids

    ids = new_ids(1000)
    assert len(ids) == 1000 and len(set(ids)) == 1000
    for text in (ids[0], ids[999], ids[-1], ids[500]):
        u = uuid.UUID(text)
        assert str(u) == text and u.version == 4 and u.variant == uuid.RFC_4122
    assert ids[-1] == ids[999] and ids[3:6] == [ids[3], ids[4], ids[5]]
    assert list(ids)[:2] == [ids[0], ids[1]]
    with pytest.raises(IndexError):
        ids[1000]


def test_the_log_reads_skip_the_chain_head_themselves_and_ask_for_no_topic(store_url,
                                                                          monkeypatch):
    """Every read of the log (``records``, ``log_range``, ``first_record``,
    ``record_at``) asks the library for the notifications of every topic and leaves out
    the chain head's rows itself: on PostgreSQL a ``topic`` condition on a log not yet
    analysed (just loaded in bulk) made the planner sort the rest of the table for each
    page instead of walking the notification index (100,000 events read in 7.0-8.2 s
    against 3.6-4.1 s without it, the library's own read 3.9 s)."""
    with Ledger(store_url) as ledger:
        ledger.append(rra_base(), user="a")
        ledger.append(batch(ev("NoticeSent", "2004-07-01", to="The Trustee", subject="s",
                               method="hand")), user="b")
        recorder = ledger.app.recorder
        every = recorder.select_notifications(start=0, limit=100, inclusive_of_start=False)
        heads = [n.id for n in every if n.originator_id != deal_id("rra")]
        events = [n.id for n in every if n.originator_id == deal_id("rra")]
        assert heads and len(events) == 3       # a head row after each batch
        asked = []
        real = recorder.select_notifications

        def spy(*args, **kwargs):
            asked.append(kwargs.get("topics"))
            return real(*args, **kwargs)

        monkeypatch.setattr(recorder, "select_notifications", spy)
        records = list(ledger.records())
        ranged = ledger.log_range(0, every[-1].id)
        first, at_event = ledger.first_record(), ledger.record_at(events[-1])
        at_head = ledger.record_at(heads[0])
    assert [r["seq"] for r in records] == [1, 2, 3]
    assert [nid for nid, _ in ranged] == events and [r for _, r in ranged] == records
    assert first == records[0] and at_event == records[-1] and at_head is None
    assert asked and not any(asked)
