"""Issue 17: the agenda reads every deal's stored rows undecoded (``ledger.store.logread.
deal_states``) and decodes each deal where it is computed (``records_of_states``, in
the forked workers when there are many). Checked against the plain reads: on random
ledgers of interleaved multi-deal batches, each deal's records equal what ``log``
reads (``log_records``) and what the store gives for the deal (``deal_records``); the
agenda computed so, in one process or in the pool, equals the agenda read through the
library's mapper and the pure ``agenda_of`` of the same events."""

from __future__ import annotations

import json
import os
import tempfile
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import publishing.agenda as agenda_module
from ledger.errors import StoreError
from ledger.events import parse_event
from ledger.store.logread import deal_states, log_records, records_of_states
from ledger.store import Ledger
from ledger.stored import Event
from publishing.agenda import agenda, agenda_of
from publishing.demo import letter_history, rra_history
from tests.support import ev, opened

LONG = int(os.environ.get("DEAL_LEDGER_LONG", "0") or 0)
SETTINGS = settings(max_examples=20 * (10 if LONG else 1), deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
DAYS = ["2004-07-01", "2004-07-13", "2004-08-02", "2004-09-15", "2005-01-03"]
KINDS = ["TrusteeNotified", "HoldersAdvised"]

#: batches of (deal, kind, day) picks: deals interleave within and across batches
BATCHES = st.lists(st.lists(st.tuples(st.sampled_from("abcde"), st.sampled_from(KINDS),
                                      st.sampled_from(DAYS)), min_size=1, max_size=6),
                   max_size=6)


def _grouped(records) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in records:
        out.setdefault(r["deal"], []).append(r)
    return out


@SETTINGS
@given(batches=BATCHES, opened_first=st.permutations("abcde"))
def test_each_deals_states_decode_to_the_records_log_reads(batches, opened_first):
    with tempfile.TemporaryDirectory() as tmp, Ledger(os.path.join(tmp, "l.db")) as ledger:
        ledger.append([parse_event(opened(x), line=1) for x in opened_first[:3]])
        ledger.append([parse_event(opened(x), line=1) for x in opened_first[3:]])
        for batch in batches:
            ledger.append([parse_event(ev(kind, day, deal=deal), line=1)
                           for deal, kind, day in batch])
        decoded = [records_of_states(s) for s in deal_states(ledger)]
        by_deal = {records[0]["deal"]: records for records in decoded}
        assert len(by_deal) == len(decoded) == 5   # one list per deal, none split
        expected = _grouped(log_records(ledger))
        assert by_deal == expected and list(by_deal) == list(expected)
        for deal, records in by_deal.items():
            assert records == ledger.deal_records(deal)


def test_a_stream_out_of_seq_order_is_put_in_it_and_an_altered_row_is_named():
    def state(seq: int) -> bytes:
        return json.dumps({"record": {"deal": "a", "seq": seq}}).encode()

    assert [r["seq"] for r in records_of_states([(1, state(3)), (2, state(1)),
                                                 (5, state(2))])] == [1, 2, 3]
    with pytest.raises(StoreError, match=r"position 7\)"):
        records_of_states([(6, state(1)), (7, b'{"record": [1, 2]}')])
    with pytest.raises(StoreError, match=r"position 9\)"):
        records_of_states([(9, b"not json"), (10, state(2))])


def _portfolio(path: str, copies: int) -> None:
    objs = []
    for i in range(copies):
        history = rra_history() if i % 2 == 0 else letter_history()
        objs += [{**o, "deal": f"deal-{i:02d}"} for o in history]
    with Ledger(path, create=True) as ledger:
        ledger.append([parse_event(o, line=k + 1) for k, o in enumerate(objs)])


@pytest.fixture(scope="module")
def portfolio(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("agenda-read") / "p.db")
    _portfolio(path, 6)
    return path


@pytest.mark.parametrize("as_of", [date(2004, 10, 20), date(2005, 10, 1), date(2006, 8, 1)])
@pytest.mark.parametrize("pool", [False, True])
def test_the_agenda_from_undecoded_rows_equals_the_plain_reads(portfolio, monkeypatch,
                                                               as_of, pool):
    options = dict(as_of=as_of, days=90)
    with Ledger(portfolio, create=False) as ledger:
        events = {deal: [Event.from_record(r) for r in records]
                  for deal, records in _grouped(log_records(ledger)).items()}
        pure = agenda_of(events, **options)
        ledger._direct = False                # the library's mapper, records in the parent
        mapped = agenda(ledger, **options)
        ledger._direct = True                 # undecoded rows, decoded where computed
        if pool:
            monkeypatch.setattr(agenda_module, "POOL_MIN_DEALS", 2)
            monkeypatch.setattr(agenda_module.os, "cpu_count", lambda: 2)
        states = agenda(ledger, **options)
    assert states == mapped == pure
    assert len(states["deals"]) == 6 and states["items"]


@pytest.mark.parametrize("parts", [1, 2, 3, 32, 256])
def test_the_workers_shares_of_the_streams_are_the_deals_rows_as_of_the_split(tmp_path, parts):
    # every deal stream is in exactly one span; each is read as deal_states reads it, and
    # only up to the split's moment: rows appended after it are not read
    from ledger.store.logread import split_spans, states_in_range, stream_split

    path = str(tmp_path / "p.db")
    _portfolio(path, 5)
    with Ledger(path, create=False) as ledger:
        split = stream_split(ledger)
        before = deal_states(ledger)
        ledger.append([parse_event(ev("HoldersAdvised", "2004-07-21", deal=f"deal-{i:02d}"),
                                   line=1) for i in (0, 2)])
        assert len(deal_states(ledger)[0]) == len(before[0]) + 1
    assert split is not None and split.streams == 5
    spans = split_spans(parts)
    assert spans[0][0] == "00" and spans[-1][1] is None
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    shares = [states_in_range(split, lo, hi) for lo, hi in spans]
    got = [s for share in shares for s in share]
    assert sorted(got) == sorted(before) and len(got) == 5


def altered_portfolio(tmp_path) -> str:
    """A portfolio of 4 deals whose third stored row is not JSON (its position is 3)."""
    import sqlite3

    path = str(tmp_path / "p.db")
    _portfolio(path, 4)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE stored_events SET state = ? WHERE rowid = 3", (b"not json",))
    conn.commit()
    conn.close()
    return path


def test_an_altered_row_read_by_a_worker_is_named_on_one_line(tmp_path, monkeypatch):
    path = altered_portfolio(tmp_path)
    monkeypatch.setattr(agenda_module, "POOL_MIN_DEALS", 2)
    monkeypatch.setattr(agenda_module.os, "cpu_count", lambda: 2)
    with Ledger(path, create=False) as ledger:
        with pytest.raises(StoreError, match=r"position 3\).*deal-ledger verify"):
            agenda(ledger, as_of=date(2005, 10, 1), days=90)


def test_the_agenda_command_imports_no_pydantic(portfolio):
    # issue 17: the agenda reads what was validated when it was appended (ledger.stored),
    # so a cold `deal-ledger agenda` does not import the validators (~0.08 s)
    from tests.cli_support import cold

    result, done = cold("agenda", "--db", portfolio, "--as-of", "2005-10-01", "--json")
    assert result["heavy"] == [] and result["code"] in (0, 1), done.stderr[-2000:]
    assert json.loads(done.stdout)["deals"] == [f"deal-{i:02d}" for i in range(6)]


def test_the_agenda_command_in_process_leaves_the_collector_as_it_was(portfolio):
    # the command pauses the collector through the printing; only a process that exits
    # after it (the console entry point) freezes what it holds; called in process (as
    # here) the collector is switched back on and nothing is frozen, whatever the exit
    import gc

    from tests.cli_support import run

    frozen = gc.get_freeze_count()
    done = run("agenda", "--db", portfolio, "--as-of", "2005-10-01", "--json")
    assert done.exit_code in (0, 1) and json.loads(done.stdout)["items"]
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    done = run("agenda", "--db", portfolio, "--as-of", "2005-10-01", "--deal", "nope")
    assert done.exit_code != 0 and gc.isenabled() and gc.get_freeze_count() == frozen
