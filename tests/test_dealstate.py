"""Issue 17: a deal's state in the view file (publishing.dealstate). Its rows are the
deal's ``events`` rows, and the events built from them are the events the store's own
reading makes (``ledger.stored.events_of``), field for field, upcasting included; parts
are cut and advanced so that they always hold the rows in seq order."""

from __future__ import annotations

import marshal
from datetime import date

from hypothesis import given, settings, strategies as st

from ledger import upcasting
from ledger.store import Ledger
from ledger.stored import events_of
from publishing import dealstate, readmodels
from publishing.demo import AS_OF, LETTER, RRA, build_demo
from tests.test_views import event_rows


def _events_the_store_reads(db: str, deal: str):
    with Ledger(db, create=False) as ledger:
        return events_of(ledger.deal_records(deal))


def _state_events(out: str, deal: str):
    return dealstate.events(event_rows(out)[deal])


def test_events_from_state_rows_are_the_stores_events(tmp_path):
    db, out = str(tmp_path / "demo.db"), str(tmp_path / "views.db")
    build_demo(db)
    with Ledger(db, create=False) as ledger:
        readmodels.views(ledger, out, as_of=date.fromisoformat(AS_OF), workers=1)
    for deal in (RRA, LETTER):
        mine, theirs = _state_events(out, deal), _events_the_store_reads(db, deal)
        assert len(mine) == len(theirs) > 20
        for a, b in zip(mine, theirs, strict=True):
            assert a == b       # every field, the typed data (Decimal, date) included
            assert (type(a.date), type(a.recorded_at)) == (date, type(b.recorded_at))
            assert dict(a.data) == dict(b.data)


def test_a_record_of_an_older_version_is_upcast_as_the_store_reads_it(tmp_path, monkeypatch):
    db, out = str(tmp_path / "demo.db"), str(tmp_path / "views.db")
    build_demo(db)
    with Ledger(db, create=False) as ledger:
        readmodels.views(ledger, out, as_of=date.fromisoformat(AS_OF), workers=1)
    # a second version of ShelfFiled: the stored version-1 records are read upcast
    monkeypatch.setattr(upcasting, "_current", dict(upcasting._current))
    monkeypatch.setattr(upcasting, "_steps", dict(upcasting._steps))
    upcasting.register("ShelfFiled", 1,
                       lambda r: {**r, "data": {**r["data"], "note": "read as version 2"}})
    mine, theirs = _state_events(out, RRA), _events_the_store_reads(db, RRA)
    filed = [e for e in mine if e.type == "ShelfFiled"]
    assert filed and all(e.data["note"] == "read as version 2" for e in filed)
    assert mine == theirs


rows = st.lists(st.integers(min_value=1, max_value=6), min_size=1, max_size=12)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(batches=rows, part=st.integers(2, 5), small=st.integers(1, 4))
def test_parts_advanced_batch_after_batch_hold_every_row_in_order(batches, part, small):
    """However the new rows come (batches of 1 to 6), the parts written, read back as
    the next run reads them, hold every row once, in seq order, numbered 0, 1, ...; no
    part is over ``PART`` rows, and only a last part under ``SMALL`` is rewritten."""
    dealstate.PART, dealstate.SMALL = part, min(small, part)
    try:
        stored: dict[int, tuple] = {}      # part -> its _deal_state row
        seq = 0
        for n in batches:
            state = dealstate.load([stored[k][1:] for k in sorted(stored)])
            assert state is not None
            new = []
            for _ in range(n):
                seq += 1
                new.append([f"id-{seq}", seq, "HoldersAdvised", "d", "2005-01-03", {},
                            "2005-01-03T00:00:00Z", "me", "p", "h", None, None, 1])
            before = {k: v[1:] for k, v in stored.items()}
            writes, every = dealstate.advance(state, new)
            assert [r[1] for r in every] == list(range(1, seq + 1))
            for w in writes:
                record = w.record("d")
                assert record[4] <= part
                if w.number in before:   # a rewrite: of the last part, a small one
                    assert w.number == max(before) and before[w.number][3] < dealstate.SMALL
                stored[w.number] = record
            assert sorted(stored) == list(range(len(stored)))
        held = [r for k in sorted(stored) for r in marshal.loads(stored[k][5])[1]]
        assert [r[1] for r in held] == list(range(1, seq + 1))
    finally:
        dealstate.PART, dealstate.SMALL = 1024, 64


def test_parts_that_do_not_follow_each_other_are_no_state():
    def part(number, first, last):
        return (number, first, last, last - first + 1, marshal.dumps(
            (dealstate.FORMAT, [[f"i{s}", s] for s in range(first, last + 1)])))

    assert dealstate.load([part(0, 1, 3), part(1, 4, 5)]) is not None
    assert dealstate.load([part(0, 1, 3), part(2, 4, 5)]) is None        # a gap in numbers
    assert dealstate.load([part(0, 1, 3), part(1, 3, 5)]) is None        # seqs overlap
    assert dealstate.load([part(1, 1, 3)]) is None                       # not from 0
    assert dealstate.load([(0, 1, 1, 1, marshal.dumps((99, [["i1", 1]])))]) is None
    assert dealstate.load([(0, 1, 1, 1, b"\x00junk")]) is None



def test_the_views_tables_from_the_sections_they_read_equal_those_of_the_whole_report(
        tmp_path):
    """``report(sections=REPORT_SECTIONS)`` makes only the sections the tables read: each
    section it makes is the whole report's, and the rows and the deals row are the same."""
    from projections.report import report
    from publishing.viewtables import REPORT_SECTIONS, deal_row, sql_rows
    from benchmarks.data import deal_events, new_events

    db = str(tmp_path / "demo.db")
    build_demo(db)
    with Ledger(db) as ledger:   # and a 600-event deal of the benchmark's shape
        ledger.append(list(new_events(deal_events("bench", 600))))
    for deal, as_of in ((RRA, AS_OF), (LETTER, AS_OF), ("bench", "2024-06-30")):
        events = _events_the_store_reads(db, deal)
        day = date.fromisoformat(as_of)
        whole = report(events, as_of=day, bases=False)
        part = report(events, as_of=day, bases=False, sections=REPORT_SECTIONS)
        head = {"deal", "kind", "as_of", "known_at", "interpretations"}
        assert set(part) == head | (set(whole) & REPORT_SECTIONS)
        if deal != LETTER:   # a Registration Rights deal's notices and majority: not made
            assert {"notices", "majority"} <= set(whole) - set(part)
        assert all(part[k] == whole[k] for k in part)
        assert sql_rows(part, deal) == sql_rows(whole, deal)
        assert deal_row(part, events, 0, day) == deal_row(whole, events, 0, day)


def test_a_record_without_a_version_reads_as_version_one(monkeypatch):
    """A record written before versions were recorded has no ``v`` (a ``None`` in its
    row): it is version 1, upcast to a newer version as ``events_of`` upcasts it."""
    monkeypatch.setattr(upcasting, "_current", dict(upcasting._current))
    monkeypatch.setattr(upcasting, "_steps", dict(upcasting._steps))
    upcasting.register("HoldersAdvised", 1,
                       lambda r: {**r, "data": {**r["data"], "note": "read as version 2"}})
    record = {"id": "e1", "seq": 1, "type": "HoldersAdvised", "deal": "d",
              "date": "2005-01-03", "data": {}, "recorded_at": "2005-01-03T00:00:00Z",
              "recorded_by": "me", "prev_hash": "p", "hash": "h"}
    row = [record[name] if name in record else None for name in dealstate.FIELDS]
    made = dealstate.events([row])
    assert made == events_of([dict(record, data={})])
    assert made[0].data["note"] == "read as version 2"
