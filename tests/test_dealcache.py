"""The per-deal cache file of a one-deal command (``ledger.store.dealcache``, issue 17): used only
while the deal's stream in the store still ends at the version and hash it was written
for, read back to the very events the store gives, private, written whole or not at all,
and never in the way: a file that does not read, or a directory that cannot be written,
and the command reads the store as without a cache."""

from __future__ import annotations

import copy
import json
import os
import shutil
import stat
import pytest

from ledger.store import dealcache
from ledger import stored, upcasting
from ledger.events import parse_event
from ledger.store import Ledger
from ledger.store.canonical import deal_id
from publishing.demo import build_demo
from tests.cli_support import run
from tests.support import opened
from tests.test_stored import _one_of_each_type, _reference, _same

RRA, LETTER = "infocrossing-rra-2004", "infocrossing-letter-2002"


@pytest.fixture
def demo(tmp_path):
    path = str(tmp_path / "demo.db")
    build_demo(path)
    return path


@pytest.fixture
def cache(tmp_path, monkeypatch):
    directory = str(tmp_path / "cache")
    monkeypatch.setenv("DEAL_LEDGER_CACHE", directory)
    return directory


def _file(cache: str, db: str, deal: str) -> str:
    return dealcache.cache_path(cache, os.path.realpath(db), deal_id(deal).hex)


def _read(db: str, deal: str, cache: str | None):
    with Ledger(db, create=False) as ledger:
        return ledger.deal_events(deal, cache_dir=cache)


def test_cache_dir_is_the_users_unless_set_or_off(monkeypatch, tmp_path):
    monkeypatch.delenv("DEAL_LEDGER_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert dealcache.cache_dir() == str(tmp_path / "deal-ledger")
    for off in ("off", "OFF", "0", "", " "):
        monkeypatch.setenv("DEAL_LEDGER_CACHE", off)
        assert dealcache.cache_dir() is None
    monkeypatch.setenv("DEAL_LEDGER_CACHE", "/some/where")
    assert dealcache.cache_dir() == "/some/where"


@pytest.mark.parametrize("deal", [RRA, LETTER])
def test_a_deal_read_through_its_file_is_the_deal_read_from_the_store(demo, cache, deal,
                                                                      monkeypatch):
    plain = _read(demo, deal, None)
    first = _read(demo, deal, cache)        # written
    path = _file(cache, demo, deal)
    assert os.path.exists(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700

    def no_store(*args, **kwargs):
        raise AssertionError("read the stored events despite a current cache file")

    monkeypatch.setattr(Ledger, "_stream_rows", no_store)
    second = _read(demo, deal, cache)       # read back, the store's rows untouched
    assert len(plain) == len(first) == len(second) > 0
    for a, b, c in zip(plain, first, second):
        _same(b, a)
        _same(c, a)


@pytest.mark.parametrize("chained", [False, True])
def test_every_event_type_reads_back_alike_from_the_file(tmp_path, chained):
    """One record of each event type (and the optional amounts), in three other key orders (a
    record written before versions has no ``v``; one has a ``source``; one its keys in
    another order), written to a file and read back as rows: the events
    ``Event.from_record`` gave before issue 17."""
    records = _one_of_each_type()
    del records[0]["v"]
    records[1]["source"] = "a letter"
    records[2] = dict(reversed(list(records[2].items())))
    if chained:  # as a store links them: each the hash of the one before (then 0 in the file)
        for before, record in zip(records, records[1:]):
            record["prev_hash"] = record["deal_prev"] = before["hash"]
    path = str(tmp_path / "c" / "s.json")
    data = dealcache.encode(len(records), records[-1]["hash"], copy.deepcopy(records))
    rows = json.loads(data.partition(b"\n")[2])
    links = sum(1 for row in rows for value in row[1:] if value == 0 and type(value) is int)
    assert links == (2 * (len(records) - 1) if chained else 0)
    dealcache.write(path, data)
    shapes, rows = dealcache.load(path, len(records), records[-1]["hash"])
    assert len(shapes) == 4  # those three and the usual one
    got = stored.events_of_rows(shapes, rows)
    for event, record in zip(got, records, strict=True):
        _same(event, _reference(record))
    assert dealcache.load(path, len(records) + 1, records[-1]["hash"]) is None
    assert dealcache.load(path, len(records), records[-2]["hash"]) is None


def test_an_append_makes_the_file_stale_and_the_next_read_rewrites_it(demo, cache):
    before = _read(demo, RRA, cache)
    with Ledger(demo) as ledger:
        ledger.append([parse_event({"type": "TrusteeNotified", "deal": RRA,
                                    "date": "2007-01-02", "data": {"about": "late"}})],
                      user="t")
    after = _read(demo, RRA, cache)
    assert len(after) == len(before) + 1 and after[-1].type == "TrusteeNotified"
    meta = json.loads(open(_file(cache, demo, RRA), "rb").read().partition(b"\n")[0])
    assert meta["version"] == len(after) and meta["last_hash"] == after[-1].hash


def test_another_ledger_at_the_same_path_is_not_read_from_the_old_file(tmp_path, cache):
    """Same path, same number of events, other events: the last hash differs."""
    db = str(tmp_path / "l.db")

    def make(principal: str) -> None:
        with Ledger(db) as ledger:
            ledger.append([parse_event(opened(deal="d")),
                           parse_event({"type": "NotesIssued", "deal": "d",
                                        "date": "2004-06-30",
                                        "data": {"holder": "H", "principal": principal}})],
                          user="t")

    make("1000.00")
    assert str(_read(db, "d", cache)[-1].data["principal"]) == "1000.00"
    for suffix in ("", "-wal", "-shm", ".lock"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    make("2000.00")
    assert str(_read(db, "d", cache)[-1].data["principal"]) == "2000.00"


@pytest.mark.parametrize("damage", ["truncated", "garbage", "rows_short", "not_events",
                                    "other_hash"])
def test_a_file_that_does_not_read_is_ignored_and_written_again(demo, cache, damage):
    plain = _read(demo, RRA, None)
    _read(demo, RRA, cache)
    path = _file(cache, demo, RRA)
    text = open(path, "rb").read()
    head, _, body = text.partition(b"\n")
    meta, rows = json.loads(head), json.loads(body)
    if damage == "truncated":
        text = text[: len(text) // 2]
    elif damage == "garbage":
        text = b"\x00\xff not json"
    elif damage == "rows_short":
        text = head + b"\n" + json.dumps(rows[:-1]).encode()
    elif damage == "not_events":
        rows[0] = [rows[0][0]] + ["x"] * (len(rows[0]) - 1)
        text = head + b"\n" + json.dumps(rows).encode()
    else:
        meta["last_hash"] = "0" * 64
        text = json.dumps(meta).encode() + b"\n" + body
    open(path, "wb").write(text)
    got = _read(demo, RRA, cache)
    for a, b in zip(got, plain, strict=True):
        _same(a, b)
    assert open(path, "rb").read().partition(b"\n")[0] == head  # written again, current


def test_a_directory_that_cannot_be_written_changes_nothing(demo, tmp_path):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory would go")
    got = _read(demo, RRA, str(blocked / "cache"))
    assert [e.id for e in got] == [e.id for e in _read(demo, RRA, None)]


def test_no_such_deal_is_still_named_with_a_cache(demo, cache):
    done = run("report", "nosuch", "--as-of", "2005-06-30", "--db", demo)
    assert done.exit_code == 2 and "no deal 'nosuch'" in done.output
    assert not os.path.exists(_file(cache, demo, "nosuch"))


def test_report_json_is_the_same_with_the_cache_off_written_and_read(demo, cache,
                                                                     monkeypatch):
    for deal in (RRA, LETTER):
        args = ("report", deal, "--as-of", "2007-12-31", "--json", "--db", demo)
        monkeypatch.setenv("DEAL_LEDGER_CACHE", "off")
        off = run(*args)
        monkeypatch.setenv("DEAL_LEDGER_CACHE", cache)
        written, read = run(*args), run(*args)
        assert off.exit_code == written.exit_code == read.exit_code == 0
        assert off.output == written.output == read.output
        assert os.path.exists(_file(cache, demo, deal))


def test_an_old_schema_row_is_upcast_when_read_from_the_file(tmp_path, cache, monkeypatch):
    """The file keeps the records as stored: a v1 ShelfFiled cached before v2 was
    registered reads in the v2 shape after, from the file as from the store."""
    from tests.test_upgrade import DATA

    db = str(tmp_path / "v1.db")
    shutil.copyfile(os.path.join(DATA, "ledger-v1.db"), db)
    os.chmod(db, 0o600)
    _read(db, RRA, cache)
    monkeypatch.setattr(upcasting, "_current", dict(upcasting._current))
    monkeypatch.setattr(upcasting, "_steps", dict(upcasting._steps))
    from ledger import events
    from tests.test_upgrade import ShelfFiledV2, shelf_filed_v1_to_v2

    for table in (events.CATALOG, events.REGISTRATION_TYPES, events._CONVERTERS):
        monkeypatch.setitem(table, "ShelfFiled", table["ShelfFiled"])
    events.register_version(ShelfFiledV2, shelf_filed_v1_to_v2)
    cached, plain = _read(db, RRA, cache), _read(db, RRA, None)
    shelf = [e for e in cached if e.type == "ShelfFiled"]
    assert shelf and all(e.data["form"] == "S-3" for e in shelf)
    for a, b in zip(cached, plain, strict=True):
        _same(a, b)


@pytest.mark.parametrize("damage", ["short_row", "long_row", "no_such_shape", "first_links"])
def test_a_row_that_does_not_fit_its_shape_is_refused_by_the_reader(damage):
    """What a damaged file's rows can hold fails ``events_of_rows`` (the store is read
    instead) rather than giving events of shifted values."""
    records = _one_of_each_type()[:3]
    for before, record in zip(records, records[1:]):
        record["prev_hash"] = record["deal_prev"] = before["hash"]
    data = dealcache.encode(3, records[-1]["hash"], records)
    meta, rows = (json.loads(part) for part in data.split(b"\n"))
    shapes = [tuple(shape) for shape in meta["shapes"]]
    if damage == "short_row":
        rows[1] = rows[1][:-1]
    elif damage == "long_row":
        rows[1] = rows[1] + ["x"]
    elif damage == "no_such_shape":
        rows[1][0] = 7
    else:
        rows = rows[1:]
    with pytest.raises((ValueError, KeyError, IndexError, TypeError)):
        stored.events_of_rows(shapes, rows)


def test_verify_names_and_removes_an_altered_cache_file(demo, cache):
    # a review (stop 19): the ShelfEffective date edited in a middle row of the deal's
    # file (its first line and last row left alone) made `report` show 271,305.55 of
    # Additional Interest instead of 16,750.00, while `verify` passed
    args = ("report", RRA, "--as-of", "2007-12-31", "--json", "--db", demo)
    honest = run(*args)
    path = _file(cache, demo, RRA)
    head, body = open(path, "rb").read().split(b"\n", 1)
    meta, rows = json.loads(head), json.loads(body)
    for row in rows:
        keys = meta["shapes"][row[0]]
        if row[1 + keys.index("type")] == "ShelfEffective":
            seq = row[1 + keys.index("seq")]
            row[1 + keys.index("date")] = "2005-06-15"
    open(path, "wb").write(head + b"\n" + json.dumps(rows).encode())
    assert run(*args).output != honest.output    # what the cache is for: no re-check
    result = run("verify", "--db", demo)
    assert result.exit_code == 1
    assert f"the cache copy {path} differs from the ledger at the deal's event seq {seq}" \
        in result.output and "removed" in result.output
    assert not os.path.exists(path)
    assert run(*args).output == honest.output
    again = run("verify", "--db", demo)
    assert again.exit_code == 0 and again.output.startswith("ok: ")
    # the file the report wrote again is intact: verify leaves it
    assert os.path.exists(_file(cache, demo, RRA))


def test_verify_removes_a_file_of_another_ledger_at_the_same_path_quietly(demo, cache):
    # a ledger made again at the same path: the old file is another chain, which no
    # report reads (its last hash is not the stream's), so it is no tampering
    assert run("report", RRA, "--as-of", "2007-12-31", "--db", demo).exit_code == 0
    path = _file(cache, demo, RRA)
    old = open(path, "rb").read()
    for leftover in (demo, demo + ".lock"):
        if os.path.exists(leftover):
            os.remove(leftover)
    build_demo(demo)        # new ids and times: every hash differs
    open(path, "wb").write(old)
    result = run("verify", "--db", demo)
    assert result.exit_code == 0 and result.output.startswith("ok: "), result.output
    assert not os.path.exists(path)
