"""The read side of the event catalog (``ledger.stored``, issue 17): it carries no pydantic,
so its tables are written out; these tests prove they say what the catalog's models say,
that the store's batch reading (``events_of``) gives the very events ``Event.from_record``
gave before, for every event type, and that a ``report`` imports no pydantic at all."""

from __future__ import annotations

import copy
import dataclasses
import json
from datetime import date
from types import MappingProxyType

import pytest

from ledger import events, stored, upcasting
from ledger.catalog import describe
from ledger.events import Event, format_timestamp, parse_event, parse_timestamp
from ledger.store import Ledger
from tests.support import T0, opened

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


def test_every_event_type_has_its_read_side_entry_and_deal_kind():
    assert list(stored.CONVERTERS) == list(events.CATALOG)
    for name in events.CATALOG:
        expected = (stored.REGISTRATION_RIGHTS if name in events.REGISTRATION_TYPES
                    else stored.ANTIDILUTION_DEFERRAL if name in events.LETTER_TYPES else None)
        assert stored.kind_of_type(name) == expected, name
        assert events.kind_of_type(name) == expected, name
    assert set(stored.COMMON_TYPE_NAMES) == set(events.COMMON_TYPES)
    assert stored.kind_of_type("NoSuchType") is None


def test_the_written_out_converters_are_what_the_models_mark():
    """Each type's amount fields (``values.DECIMAL``) read as ``Decimal``, its day fields
    (``values.DATE``) as ``date``: the table equals the one derived from the models."""
    derived = {name: events._converters(model) for name, model in events.CATALOG.items()}
    assert stored.CONVERTERS == derived
    assert events._CONVERTERS is stored.CONVERTERS  # register_version updates the readers'


def _one_of_each_type() -> list[dict]:
    """A valid stored record of every event type (the catalog's example line, normalised
    by ``parse_event`` as an append would), plus the optional amounts the examples leave
    out (a preferred's prices, a Camden issue's consideration, a retraction)."""
    objs = []
    for name in events.CATALOG:
        if name == "DealOpened":
            objs.append(opened(deal="infocrossing-rra-2004"))
            objs.append(opened(deal="infocrossing-letter-2002", template="infocrossing-letter-2002"))
            continue
        objs.append(describe(name).example)
    letter = "infocrossing-letter-2002"
    objs += [
        {"type": "InstrumentRegistered", "deal": letter, "date": "2002-02-01",
         "data": {"instrument": "P-1", "holder": "DB Capital Investors, L.P.",
                  "kind": "preferred", "quantity": 1000, "stated_value": "30.00",
                  "conversion_price": "7.68"}},
        {"type": "CamdenWarrantsIssued", "deal": letter, "date": "2002-02-01",
         "data": {"holder": "Camden", "warrants": 300000, "exercise_price": "4.00",
                  "consideration": "12.50"}},
        {"type": "AmendmentFiled", "deal": "infocrossing-rra-2004", "date": "2005-01-03",
         "data": {"kind": "supplement", "holders_added": [], "principal_added": "0"}},
    ]
    records = []
    for seq, obj in enumerate(objs, start=1):
        new = parse_event(obj, line=seq)
        records.append({**new.envelope(), "v": 1, "id": f"e{seq}", "seq": seq,
                        "recorded_at": format_timestamp(T0), "recorded_by": "test",
                        "prev_hash": "0" * 64, "deal_prev": "0" * 64, "hash": f"{seq:064x}"})
    return records


def _reference(record: dict) -> Event:
    """``Event.from_record`` as it was before issue 17: the converters derived from the
    pydantic models, the data copied and typed by a comprehension, the dataclass's own
    constructor."""
    record = upcasting.upcast(record)
    conv = events._converters(events.CATALOG[record["type"]])
    data = MappingProxyType({k: (conv[k](v) if k in conv and v is not None else v)
                             for k, v in record["data"].items()})
    return Event(id=record["id"], seq=record["seq"], type=record["type"], deal=record["deal"],
                 date=date.fromisoformat(record["date"]), data=data,
                 source=record.get("source"), key=record.get("key"),
                 recorded_at=parse_timestamp(record["recorded_at"]),
                 recorded_by=record["recorded_by"], prev_hash=record["prev_hash"],
                 hash=record["hash"])


def _same(got: Event, want: Event) -> None:
    assert got == want
    assert type(got) is Event and isinstance(got.data, MappingProxyType)
    with pytest.raises(dataclasses.FrozenInstanceError):   # built unfrozen, then an Event
        got.seq = 0  # type: ignore[misc]
    assert not hasattr(got, "__dict__") and repr(got) == repr(want)
    for name in want.data:  # equal is not enough: Decimal("1") == 1, a date is no str
        assert type(got.data[name]) is type(want.data[name]), (want.type, name)
    assert list(got.data) == list(want.data)


def test_events_of_and_from_record_give_the_old_events_for_every_type():
    records = _one_of_each_type()
    assert {r["type"] for r in records} == set(events.CATALOG)
    typed = [r for r in records if stored.CONVERTERS[r["type"]]]
    assert any(isinstance(v, str) for r in typed for v in r["data"].values())  # JSON text in
    handed_over = copy.deepcopy(records)
    batch = stored.events_of(handed_over)
    for record, got in zip(records, batch, strict=True):
        want = _reference(record)
        _same(got, want)
        _same(Event.from_record(copy.deepcopy(record)), want)
    # the typed Decimal / date values really are typed
    paid = next(e for e in batch if e.type == "AdditionalInterestPaid")
    assert isinstance(paid.data["payment_date"], date)
    assert str(paid.data["amount"]) == describe("AdditionalInterestPaid").example["data"]["amount"]


def test_from_record_does_not_change_or_share_the_record():
    record = next(r for r in _one_of_each_type() if r["type"] == "AdditionalInterestPaid")
    before = copy.deepcopy(record)
    event = Event.from_record(record)
    assert record == before
    record["data"]["amount"] = "1.00"
    assert str(event.data["amount"]) != "1.00"


from tests.test_upgrade import shelf_filed_v2  # noqa: E402,F401 (the fixture)


def test_events_of_upcasts_an_old_record_without_changing_it(shelf_filed_v2):
    """A v1 ``ShelfFiled`` read after v2 is registered comes out in the v2 shape (the
    upcaster's default ``form``), as ``Event.from_record`` gives it; the stored record
    handed over keeps its v1 shape (the upcast works on a copy)."""
    record = next(r for r in _one_of_each_type() if r["type"] == "ShelfFiled")
    handed = copy.deepcopy(record)
    [got] = stored.events_of([handed])
    assert dict(got.data) == {**record["data"], "form": "S-3"}
    assert got == _reference(record) == Event.from_record(record)
    assert handed == record  # v1, no "form"


def test_events_of_fields_give_the_old_events_for_every_type(shelf_filed_v2):
    """The rows ``publishing.dealstate`` keeps (``FIELD_ORDER``; ``None`` for a
    ``source``, ``key`` or ``v`` the record lacks), one of each type, built as the engine
    reads them, with ``ShelfFiled`` past its first version (its v1 records upcast, with
    and without a ``v``): the events ``Event.from_record`` gave."""
    records = _one_of_each_type()
    del records[0]["v"]
    records[1]["source"], records[2]["key"] = "a letter", "k-1"
    shelf = next(r for r in records if r["type"] == "ShelfFiled")
    shelf["data"].pop("form")   # as v1 wrote it (parsed now, v2 would add it)
    records.append({k: v for k, v in copy.deepcopy(shelf).items() if k != "v"})
    rows = [[copy.deepcopy(r.get(name)) for name in stored.FIELD_ORDER] for r in records]
    got = stored.events_of_fields(rows)
    for event, record in zip(got, records, strict=True):
        _same(event, _reference(record))
    assert got[-1].data["form"] == "S-3" and {e.type for e in got} == set(events.CATALOG)


def test_a_newer_record_than_the_program_knows_is_refused_by_both_paths():
    from ledger.errors import StoreError

    from ledger.upcasting import current_version

    first = _one_of_each_type()[0]
    newer = current_version(first["type"]) + 1   # DealOpened is at 2 (issue 33)
    record = {**first, "v": newer}
    with pytest.raises(StoreError, match=f"schema version {newer}"):
        stored.events_of([copy.deepcopy(record)])
    with pytest.raises(StoreError, match=f"schema version {newer}"):
        Event.from_record(record)


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory):
    from publishing.demo import build_demo

    path = str(tmp_path_factory.mktemp("stored") / "demo.db")
    build_demo(path)
    return path


def test_the_store_reads_every_demo_event_as_from_record_does(demo_db):
    with Ledger(demo_db, create=False) as ledger:
        for deal in ledger.deals():
            read = ledger.deal_events(deal)
            want = [_reference(r) for r in ledger.deal_records(deal)]
            assert len(read) == len(want) > 0
            for got, expected in zip(read, want):
                _same(got, expected)


def test_a_stored_row_that_does_not_read_is_named_not_a_crash(tmp_path):
    """A record whose ``data`` is not an object (altered outside deal-ledger) makes the
    batch fail; the store then reads row by row and names the event."""
    from ledger.errors import StoreError
    from tests.db_access import Raw

    path = str(tmp_path / "l.db")
    with Ledger(path) as ledger:
        ledger.append([parse_event(opened(deal="d")),
                       parse_event(describe("NotesIssued").example | {"deal": "d"})],
                      user="t")
    raw = Raw(path)
    position, state, _, _ = raw.rows()[-1]
    body = json.loads(state)
    body["record"]["data"] = ["not", "an", "object"]
    raw.set_state(position, json.dumps(body, separators=(",", ":")).encode())
    with Ledger(path, create=False) as ledger:
        with pytest.raises(StoreError, match=r"seq 2\) does not read as an event"):
            ledger.deal_events("d")


@pytest.mark.parametrize("deal", ["infocrossing-rra-2004", "infocrossing-letter-2002"])
def test_report_imports_no_pydantic(demo_db, deal):
    """``report`` reads what was validated when it was appended: neither the event
    catalog's models nor the terms' are imported (pydantic is a tenth of a second of a
    cold process), nor the libraries of other commands (rich for tables, holidays), nor
    the other commands' modules."""
    from tests.cli_support import cold

    result, done = cold("--db", demo_db, "report", deal, "--as-of", "2007-12-31", "--json")
    assert result == {"code": 0, "heavy": [], "cli": [
        "cli.common", "cli.examples", "cli.formats", "cli.main", "cli.reports", "cli.views"],
        "frozen": True, "gc": True}, done.stderr[-2000:]
    assert json.loads(done.stdout)["deal"] == deal


def test_a_report_in_process_leaves_the_garbage_collector_as_it_was(demo_db):
    """Only a process that exits after its command (the console entry point) keeps what
    the report holds out of later collections; called in process, the collector is
    switched back on and nothing is frozen."""
    import gc

    from tests.cli_support import run

    frozen = gc.get_freeze_count()
    done = run("report", "infocrossing-rra-2004", "--as-of", "2007-12-31", "--json",
               "--db", demo_db)
    assert done.exit_code == 0
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_events_of_parses_each_recorded_at_once_and_gives_each_event_its_own():
    # issue 17: events_of parses each distinct recorded_at text once; events with the
    # same text share the datetime, events with another get theirs (an offset, another
    # second), each as parse_timestamp reads it
    base = _one_of_each_type()[0]
    texts = ["2026-11-24T05:48:47.983484Z", "2026-11-24T05:48:47.983484Z",
             "2026-11-24T06:48:47.983484+01:00", "2026-11-24T05:48:48Z",
             "2026-11-24T05:48:47.983484Z"]
    records = [{**copy.deepcopy(base), "recorded_at": t, "seq": k + 1}
               for k, t in enumerate(texts)]
    got = stored.events_of(copy.deepcopy(records))
    assert [e.recorded_at for e in got] == [parse_timestamp(t) for t in texts]
    assert got == [Event.from_record(r) for r in records]
    assert got[0].recorded_at is got[1].recorded_at is got[4].recorded_at
