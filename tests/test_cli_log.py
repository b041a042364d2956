"""``deal-ledger log`` (issue 15, item 4): streamed in seq order, filtered by deal, type,
the event's own date and seq, limited, as a table, JSON Lines or CSV; legacy ledgers
whose batches were stored grouped by deal still print in seq order.

Expected rows are chosen by hand from the events each test appends (their seqs follow
the order they were appended in), never from the program's own output."""

from __future__ import annotations

import csv
import io
import json
import re
import os

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ledger.store.logread as logread
from ledger.events import parse_event
from ledger.store.logread import LogFilter, log_records
from ledger.store import Ledger
from tests.cli_support import ok, refused, run

RRA = "infocrossing-rra-2004"
LETTER = "infocrossing-letter-2002"
LEHMAN = "Lehman Brothers Inc."
LONG = bool(os.environ.get("DEAL_LEDGER_LONG"))


def ev(type_: str, day: str, deal: str = RRA, **data) -> dict:
    return {"type": type_, "deal": deal, "date": day, "data": data}


def jsonl(*objs: dict) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


def lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


@pytest.fixture
def two(tmp_path) -> str:
    """seq 1 RRA opened, 2 letter opened, then 3-7 in one batch interleaving the deals."""
    db = str(tmp_path / "ledger.db")
    ok(run("init", RRA, "--template", RRA, "--db", db))
    ok(run("init", LETTER, "--template", LETTER, "--db", db))
    ok(run("append", "--db", db, input=jsonl(
        ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),        # 3
        ev("CapitalizationRecorded", "2004-07-01", deal=LETTER,
           common_outstanding=20000000),                                             # 4
        ev("ShelfFiled", "2004-07-13", file_number="333-117340"),                    # 5
        ev("CapitalizationRecorded", "2005-01-03", deal=LETTER,
           common_outstanding=20100000),                                             # 6
        ev("ShelfEffective", "2004-11-15"))))                                        # 7
    return db


def shown(out: str) -> list[str]:
    """The seqs of a table's event lines (a long line wraps onto indented lines)."""
    import re

    return [m.group(1) for m in re.finditer(r"^\s*(\d+)  \d{4}-\d{2}-\d{2}  ", out, re.M)]


def seqs(db: str, *args: str) -> list[int]:
    return [r["seq"] for r in lines(ok(run("log", "--json", "--db", db, *args)))]


def test_json_lines_are_the_stored_records_exactly(two):
    with Ledger(two, create=False) as ledger:
        stored = list(ledger.records())
    assert lines(ok(run("log", "--json", "--db", two))) == stored
    assert [r["seq"] for r in stored] == [1, 2, 3, 4, 5, 6, 7]


def test_filters_by_deal_type_date_and_seq(two):
    assert seqs(two, "--deal", LETTER) == [2, 4, 6]
    assert seqs(two, "--deal", LETTER, "--deal", RRA) == [1, 2, 3, 4, 5, 6, 7]
    assert seqs(two, "--type", "ShelfFiled", "--type", "ShelfEffective") == [5, 7]
    # the event's own date, both ends included: 2004-07-01 (seq 4) to 2004-11-15 (seq 7)
    assert seqs(two, "--since", "2004-07-01", "--until", "2004-11-15") == [4, 5, 7]
    # DealOpened of the RRA is dated 2004-06-30, the letter's 2002-02-01
    assert seqs(two, "--until", "2004-06-30") == [1, 2, 3]
    assert seqs(two, "--after-seq", "4") == [5, 6, 7]
    assert seqs(two, "--after-seq", "4", "--deal", RRA) == [5, 7]
    assert seqs(two, "--limit", "2", "--type", "CapitalizationRecorded") == [4, 6][:2]
    assert seqs(two, "--limit", "0") == []
    assert seqs(two, "--after-seq", "7") == []


def test_the_table_shows_a_line_per_event_and_how_to_continue(two):
    out = ok(run("log", "--limit", "3", "--db", two))
    body = out.splitlines()
    assert body[0].split()[:3] == ["seq", "date", "id"]
    assert shown(out) == ["1", "2", "3"]
    assert body[-1] == "3 event(s); more after seq 3: add --after-seq 3"
    rest = ok(run("log", "--after-seq", "3", "--db", two))
    assert shown(rest) == ["4", "5", "6", "7"]
    assert rest.splitlines()[-1] == "4 event(s)"


def test_a_figure_is_never_cut_in_the_table(two):
    # at 80 columns the line wraps between words: the principal stays whole
    result = run("log", "--type", "NotesIssued", "--db", two)
    assert "principal=60000000" in result.stdout
    narrow = ok(run_at(80, "log", "--type", "NotesIssued", "--db", two))
    assert "principal=60000000" in narrow.replace("\n", " ")
    assert all(len(line) <= 80 for line in narrow.splitlines())
    assert "…" not in narrow and "..." not in narrow


def test_at_80_columns_the_heading_lines_up_with_the_rows(two):
    # issue 31, item 15: "seq  date  id  type  deal  data" stood over rows whose type,
    # deal and data began wherever the text before them ended
    lines = ok(run_at(80, "log", "--db", two)).splitlines()
    head, under = lines[0], lines[1]
    assert under == "     data  (recorded, by)"     # where each row's data begins
    rows = [ln for ln in lines[2:-1] if not ln.startswith(" " * 5)]
    assert len(rows) == 7
    for row in rows:
        seq, day, rid, kind, deal = row.split()
        for title, value in (("seq", seq), ("date", day), ("id", rid), ("type", kind),
                             ("deal", deal)):
            column = head.index(title)
            if title == "seq":   # right-aligned numbers under a right-aligned heading
                assert row.index(value) + len(value) == column + len(title), row
            else:
                assert row.index(value, column) == column, (title, row)
    data = [ln for ln in lines[2:-1] if ln.startswith(" " * 5)]
    assert data and all(ln.startswith("     ") and ln[5] != " " for ln in data)
    assert all(len(ln) <= 80 for ln in lines)


def run_at(columns: int, *args: str):
    from click.testing import CliRunner

    from cli.main import cli

    return CliRunner().invoke(cli, list(args), env={"COLUMNS": str(columns)})


def test_retracted_events_are_marked_in_table_and_csv(two):
    filed = lines(ok(run("log", "--json", "--type", "ShelfFiled", "--db", two)))[0]
    ok(run("retract", filed["id"][:8], "--reason", "wrong day", "--db", two))
    retraction = lines(ok(run("log", "--json", "--type", "EventRetracted", "--db", two)))[0]
    assert retraction["data"]["event_id"] == filed["id"]     # the prefix was resolved
    table = ok(run("log", "--type", "ShelfFiled", "--db", two))
    assert f"RETRACTED by {retraction['id'][:8]}" in table
    rows = list(csv.DictReader(io.StringIO(ok(run("log", "--csv", "--db", two)))))
    marked = {r["seq"]: r["retracted_by"] for r in rows if r["retracted_by"]}
    assert marked == {"5": retraction["id"]}


def test_csv_has_one_row_per_event_with_exact_data(two):
    rows = list(csv.DictReader(io.StringIO(ok(run("log", "--csv", "--deal", RRA,
                                                  "--db", two)))))
    assert [r["seq"] for r in rows] == ["1", "3", "5", "7"]
    assert json.loads(rows[1]["data"]) == {"holder": LEHMAN, "principal": "60000000"}


def test_refusals_are_one_line_with_a_suggestion(two):
    err = refused(run("log", "--type", "ShelfFild", "--db", two), 2)
    assert "unknown event type 'ShelfFild'" in err and "did you mean 'ShelfFiled'" in err
    err = refused(run("log", "--deal", "infocrossing-rra-2040", "--db", two), 2)
    assert "no deal 'infocrossing-rra-2040'" in err and f"'{RRA}'" in err
    err = refused(run("log", "--since", "2004-13-01", "--db", two), 2)
    assert "field '--since'" in err and "YYYY-MM-DD" in err
    refused(run("log", "--json", "--csv", "--db", two), 2)


# ------------------------------------------------------------ streaming and order


def test_the_first_record_comes_before_the_log_is_read(two, monkeypatch):
    # one row per page: the first event needs one page, not the whole log
    monkeypatch.setattr(logread, "PAGE", 1)
    calls = []
    real = logread._rows_after
    monkeypatch.setattr(logread, "_rows_after",
                        lambda *a: calls.append(a) or real(*a))
    with Ledger(two, create=False) as ledger:
        stream = log_records(ledger)
        first = next(stream)
        assert first["seq"] == 1 and len(calls) == 1
        stream.close()


def test_after_seq_starts_at_the_chain_head_before_it(tmp_path):
    # seven batches of one event each: the walk for --after-seq 5 starts at the head of
    # the batch ending at seq 5, so it reads the rows of seqs 6 and 7 only
    db = str(tmp_path / "l.db")
    ok(run("init", RRA, "--template", RRA, "--db", db))
    for day in ("2004-07-13", "2004-07-14", "2004-07-15", "2004-07-16", "2004-07-19",
                "2004-07-20"):
        ok(run("append", "--db", db, input=jsonl(ev("HoldersAdvised", day))))
    with Ledger(db, create=False) as ledger:
        with logread.stable_view(ledger) as view:
            position, head_seq = logread._start(view, 5)
            assert head_seq == 5
            # rows after it: seq 6, its head, seq 7, its head
            assert len(logread._rows_after(view, position, 100)) == 4
            assert logread._start(view, 0) == (0, 0)
            assert logread._start(view, 99)[1] == 7
    assert seqs(db, "--after-seq", "5") == [6, 7]


def _grouped_ledger(url, monkeypatch):
    """A ledger whose second batch was stored grouped by deal, as appends did before they
    kept seq order (seq 3 and 5 of deal b, then 4 of deal a)."""
    import ledger.store.writing as store
    from tests.support import ev as sev, opened

    with Ledger(url) as ledger:
        ledger.append([parse_event(o, line=1) for o in (opened("a"), opened("b"))])
    monkeypatch.setattr(store, "_record_seq", lambda e: (e.record["deal"], e.record["seq"]))
    with Ledger(url) as ledger:
        ledger.append([parse_event(sev("NotesIssued", "2004-06-30", deal=d, holder=h,
                                       principal="1000"), line=1)
                       for d, h in (("b", "B1"), ("a", "A1"), ("b", "B2"))])
    monkeypatch.undo()


def test_a_legacy_batch_grouped_by_deal_prints_in_seq_order(tmp_path, monkeypatch):
    url = str(tmp_path / "legacy.db")
    _grouped_ledger(url, monkeypatch)
    from tests.db_access import Raw

    stored = [json.loads(state.decode())["record"]["seq"] for _, state, *_ in Raw(url).rows()]
    assert stored == [1, 2, 4, 3, 5]                      # as the old code left it
    assert seqs(url) == [1, 2, 3, 4, 5]
    assert seqs(url, "--type", "NotesIssued") == [3, 4, 5]
    assert seqs(url, "--after-seq", "3") == [4, 5]
    assert seqs(url, "--limit", "4") == [1, 2, 3, 4]
    assert seqs(url, "--deal", "a", "--deal", "b") == [1, 2, 3, 4, 5]
    assert shown(ok(run("log", "--db", url))) == ["1", "2", "3", "4", "5"]


# ------------------------------------------------------ filters against a plain filter


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """Three deals over several batches, some interleaving the deals."""
    from tests.support import ev as sev, opened

    url = str(tmp_path_factory.mktemp("many") / "many.db")
    days = ["2004-07-01", "2004-08-02", "2004-09-15", "2005-01-03", "2005-03-01"]
    with Ledger(url) as ledger:
        ledger.append([parse_event(opened(d), line=1) for d in ("a", "b", "c")])
        for k in range(6):
            batch = []
            for i in range(5):
                deal = "abc"[(k + i) % 3]
                kind = ("TrusteeNotified", "HoldersAdvised")[(k * i) % 2]
                batch.append(parse_event(sev(kind, days[(k + i) % 5], deal=deal), line=1))
            ledger.append(batch)
        records = list(ledger.records())
    return url, records


@settings(max_examples=60 * (10 if LONG else 1), derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(deals=st.lists(st.sampled_from(["a", "b", "c"]), max_size=2, unique=True),
       types=st.lists(st.sampled_from(["TrusteeNotified", "HoldersAdvised", "DealOpened"]),
                      max_size=2, unique=True),
       since=st.sampled_from([None, "2004-07-01", "2004-09-15", "2005-01-03"]),
       until=st.sampled_from([None, "2004-08-02", "2005-03-01"]),
       after=st.integers(0, 36), limit=st.one_of(st.none(), st.integers(0, 10)))
def test_any_filter_equals_filtering_the_whole_log(many, deals, types, since, until, after,
                                                    limit):
    from datetime import date

    url, records = many
    expected = [r for r in records
                if (not deals or r["deal"] in deals) and (not types or r["type"] in types)
                and (since is None or r["date"] >= since)
                and (until is None or r["date"] <= until) and r["seq"] > after]
    if limit is not None:
        expected = expected[:limit]
    where = LogFilter(after_seq=after, deals=tuple(deals), types=tuple(types),
                      since=since and date.fromisoformat(since),
                      until=until and date.fromisoformat(until))
    with Ledger(url, create=False) as ledger:
        assert list(log_records(ledger, where, limit=limit)) == expected


def test_the_same_on_either_store(store_url):
    """Filters, --after-seq, the retraction mark and an id prefix on SQLite and
    PostgreSQL (the byte search and the positions are each store's own SQL)."""
    from tests.support import ev as sev, opened

    with Ledger(store_url) as ledger:
        ledger.append([parse_event(opened("a"), line=1), parse_event(opened("b"), line=2)])
        ledger.append([parse_event(sev("HoldersAdvised", "2004-07-01", deal=d), line=1)
                       for d in ("a", "b", "a")])                          # seqs 3, 4, 5
        ledger.append([parse_event(sev("TrusteeNotified", "2004-07-02", deal="b"), line=1)])
    assert seqs(store_url, "--deal", "a") == [1, 3, 5]
    assert seqs(store_url, "--after-seq", "4") == [5, 6]
    assert seqs(store_url, "--type", "TrusteeNotified", "--type", "DealOpened") == [1, 2, 6]
    target = lines(ok(run("log", "--json", "--after-seq", "2", "--limit", "1",
                          "--db", store_url)))[0]
    ok(run("retract", target["id"][:8], "--reason", "twice", "--db", store_url))
    rows = list(csv.DictReader(io.StringIO(ok(run("log", "--csv", "--db", store_url)))))
    retraction = rows[-1]
    assert retraction["type"] == "EventRetracted"
    assert json.loads(retraction["data"])["event_id"] == target["id"]
    assert {r["seq"]: r["retracted_by"] for r in rows if r["retracted_by"]} == \
        {"3": retraction["id"]}
    err = refused(run("log", "--deal", "c", "--db", store_url), 2)
    assert "no deal 'c' in the ledger; deals: a, b" in err


def test_rows_are_skipped_undecoded_only_when_their_bytes_say_so():
    compact = (b'{"record":{"type":"HoldersAdvised","deal":"a","date":"2004-07-01","data":{},'
               b'"v":1,"id":"x","seq":7,"recorded_at":"2026-01-01T00:00:00.000000Z"}}')
    wanted, other = (b'"type":"HoldersAdvised"',), (b'"type":"ShelfFiled"',)
    assert logread._skipped(compact, 0, wanted) is None          # wanted: decoded
    assert logread._skipped(compact, 0, other) == 7              # another type: skipped
    assert logread._skipped(compact, 7, ()) == 7                 # at --after-seq: skipped
    assert logread._skipped(compact, 6, ()) is None
    spaced = compact.replace(b'"type":"', b'"type": "')         # not as the store writes
    assert logread._skipped(spaced, 0, other) is None            # so decoded and checked
    twice = compact.replace(b'}}', b',"seq":8,"recorded_at":"x"}}')
    assert logread._skipped(twice, 9, ()) is None                # seq unclear: decoded


@pytest.mark.parametrize("columns", [60, 80, 100])
def test_a_recording_time_is_never_split_and_no_data_leaves_no_gap(two, columns):
    # "(recorded 2026-11-24" / "01:56:39, by root)": the date and the time of one recording
    # moment were wrapped apart; ShelfEffective (no data) printed four spaces before it
    out = ok(run_at(columns, "log", "--db", two))
    stamps = re.findall(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}", out)
    assert len(stamps) == 7, out
    assert "\u00a0" not in out
    assert "ShelfEffective" in out
    assert "infocrossing-rra-2004    (" not in " ".join(out.split("\n"))
