"""A large batch is checked on two cores (``ledger.store.staging``): a forked child checks some
deals while this process checks the others, then this process links the hash chain in
seq order. Whoever checks which deal, the ledger written is the same, byte for byte, as
one process writes, and a refusal is the same, the first bad line's, with nothing
written, wherever the bad lines fall (in this process's deals, in the child's, in
both). A child that dies leaves its deals to this process. The threshold is made small
here; slowing one process down makes the other take most of the deals."""

from __future__ import annotations

import os
import signal
import time
import uuid
from datetime import datetime, timezone
from typing import Any

import pytest

from benchmarks import data
from ledger.store import staging
from ledger.store import writing as store_module
from ledger.store.chain import verify
from ledger.errors import LedgerError
from ledger.events import parse_event
from ledger.store import Ledger
from ledger.store.canonical import deal_id
from tests.db_access import Raw

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2,
                                reason="two processes need fork and two cores")

NOW = datetime(2026, 3, 2, 9, 30, tzinfo=timezone.utc)
OLD = [f"deal-{d:04d}" for d in range(6)]        # in the ledger before the batch
NEW = [f"deal-{d:04d}" for d in range(6, 10)]    # opened by the batch


def _history() -> list[dict]:
    return data.interleaved(len(OLD), 150)        # past a snapshot (SNAPSHOT_INTERVAL)


def _batch_objs() -> list[dict]:
    """New lines on the six deals in the ledger (each past its next snapshot) and four
    new deals, interleaved."""
    late = data.late_events(len(OLD), 6 * 60)
    new = data.interleaved(len(NEW), 120, first=len(OLD))
    out: list[dict] = []
    for i in range(max(len(late), len(new))):
        out += ([late[i]] if i < len(late) else []) + ([new[i]] if i < len(new) else [])
    return out


def _events(objs: list[dict]) -> list:
    return [parse_event(o, line=i + 1) for i, o in enumerate(objs)]


def _unknown_holder(objs: list[dict], deal: str, after: int = 0) -> tuple[list[dict], int]:
    """``objs`` with the first ConsentGiven of ``deal`` from line ``after`` on given by a
    Holder the deal never had (refused: RRA §1 Holder); and that line's number."""
    for i, o in enumerate(objs):
        if i >= after and o["deal"] == deal and o["type"] == "ConsentGiven":
            bad = {**o, "data": {**o["data"], "holder": "Nobody At All"}}
            return objs[:i] + [bad] + objs[i + 1:], i + 1
    raise AssertionError(f"no ConsentGiven of {deal}")


@pytest.fixture
def fixed(monkeypatch):
    """The same ids and recorded_at in every run, so two ledgers can be compared."""
    def new_ids(n):
        _COUNTER[0] += n
        return [str(uuid.UUID(int=i)) for i in range(_COUNTER[0] - n + 1, _COUNTER[0] + 1)]

    monkeypatch.setattr(store_module, "new_ids", new_ids)
    monkeypatch.setattr(Ledger, "clock", staticmethod(lambda: NOW))


_COUNTER = [0]


def _ledger(url: str) -> Ledger:
    _COUNTER[0] = 0   # each ledger gets the same ids
    ledger = Ledger(url)
    ledger.append(_events(_history()), user="setup")
    return ledger


def _answer(ledger: Ledger, events: list) -> object:
    try:
        done = ledger.append(events, user="Zoë")
    except LedgerError as err:
        return f"refused: {type(err).__name__}: {err.render()}"
    return [(r["seq"], r["hash"]) for r in done.records]


def _written(url: str, ledger: Ledger) -> tuple:
    """The event rows byte for byte, and each deal's latest snapshot decoded (its
    timestamp is the wall clock's)."""
    snaps = {}
    for deal in OLD + NEW:
        found = list(ledger.app.snapshots.get(deal_id(deal), desc=True, limit=1))
        snaps[deal] = (found[0].originator_version, found[0].state) if found else None
    return Raw(url).rows(), snaps


class Mode:
    """How the batch is checked: ``serial`` (one process), or on two processes with
    this process (``slow="here"``) or the child (``slow="child"``) slowed at its first
    deal, so that the other takes most deals. Records which process checked what."""

    def __init__(self, monkeypatch, parallel: bool, slow: str | None = None,
                 threshold: int = 10, pause: float = 0.5):
        self.parent = os.getpid()
        self.checked: list[staging.Checked] = []
        monkeypatch.setattr(staging, "PARALLEL_AT", threshold if parallel else 10**9)
        check_events = staging.check_events
        slept = self.slept = []

        def slowed(job, lines, *args):
            here = os.getpid() == self.parent
            if slow is not None and not slept and (slow == "here") == here:
                slept.append(1)
                time.sleep(pause)
            return check_events(job, lines, *args)

        monkeypatch.setattr(staging, "check_events", slowed)
        check_batch = staging.check_batch

        def recorded(*args, **kwargs):
            out = check_batch(*args, **kwargs)
            self.checked.append(out)
            return out

        monkeypatch.setattr(staging, "check_batch", recorded)

    def childs_deals(self) -> list[str]:
        """The deals the child checked in the last batch."""
        return [d for d, g in self.checked[-1].guard_of.items() if g is None]


def compared(url: str, monkeypatch, mode_of, answer_of) -> tuple[object, tuple, Any]:
    """The answer of ``answer_of(ledger)`` on a ledger holding ``_history()``, with
    ``mode_of(monkeypatch)`` in force, what was written, and the mode; a refusal must
    leave every row as it was."""
    with monkeypatch.context() as m, _ledger(url) as ledger:
        mode = mode_of(m)
        before = _written(url, ledger)
        answer = answer_of(ledger)
        after = _written(url, ledger)
        if isinstance(answer, str):
            assert after == before          # all or nothing
        assert verify(ledger).ok
    return answer, after, mode


def _run(url: str, monkeypatch, objs: list[dict], *, parallel: bool,
         slow: str | None = None) -> tuple[object, tuple, Mode]:
    return compared(url, monkeypatch, lambda m: Mode(m, parallel, slow),
                    lambda ledger: _answer(ledger, _events(objs)))


@pytest.mark.parametrize("slow", [None, "here", "child"])
def test_the_same_ledger_as_one_process(store_url, tmp_path, monkeypatch, fixed, slow):
    objs = _batch_objs()
    serial = _run(store_url, monkeypatch, objs, parallel=False)
    from tests.conftest import drop_pg, fresh_pg_url

    other = fresh_pg_url() if store_url.startswith("postgres") else str(tmp_path / "two.db")
    try:
        two = _run(other, monkeypatch, objs, parallel=True, slow=slow)
        assert two[0] == serial[0] and isinstance(two[0], list)
        assert two[1] == serial[1]                      # the same bytes, every row
        deals = two[2].childs_deals()
        assert 0 < len(deals) < len(OLD + NEW)          # both processes checked deals
        if slow == "here":
            assert len(deals) >= len(OLD + NEW) - 2
        with Ledger(other) as ledger:
            assert verify(ledger).ok
    finally:
        if other.startswith("postgres"):
            drop_pg(other)


@pytest.mark.parametrize("room", [0, 250_000])
def test_texts_that_do_not_fit_the_shared_region_come_through_the_pipe(
        sqlite_url, tmp_path, monkeypatch, fixed, room):
    # none of the child's deals fits (0), or the first ones do and the later not
    objs = _batch_objs()
    serial = _run(sqlite_url, monkeypatch, objs, parallel=False)
    monkeypatch.setattr(staging._Texts, "PER_LINE", 0)
    monkeypatch.setattr(staging._Texts, "SPARE", room or 1)
    put, log = staging._Texts.put, tmp_path / "fitted"

    def counted(self, j, text):   # in the child: what fitted, told through a file
        done = put(self, j, text)
        with open(log, "a") as fh:
            fh.write("y" if done else "n")
        return done

    monkeypatch.setattr(staging._Texts, "put", counted)
    two = _run(str(tmp_path / "two.db"), monkeypatch, objs, parallel=True, slow="here")
    assert two[0] == serial[0] and two[1] == serial[1]
    fitted = log.read_text()
    assert len(fitted) == len(two[2].childs_deals()) >= 2
    assert "n" in fitted and ("y" in fitted) == bool(room)
    assert "ny" not in fitted           # from the first that does not fit, none is put


def test_the_next_append_reads_back_the_deals_the_child_checked(sqlite_url, tmp_path,
                                                                 monkeypatch, fixed):
    # the child's deals are not in this process's cache: the next append of the same
    # Ledger reads them back (snapshot and events) and writes what one process writes
    objs = _batch_objs()
    more = data.late_events(len(OLD + NEW), 40)
    answers = []
    for url, parallel in ((sqlite_url, False), (str(tmp_path / "two.db"), True)):
        with monkeypatch.context() as m, _ledger(url) as ledger:
            mode = Mode(m, parallel, "here" if parallel else None)
            ledger.append(_events(objs))
            if parallel:
                assert mode.childs_deals()
                assert not set(mode.childs_deals()) & set(ledger._streams)
            ledger.append(_events(more))
            answers.append((Raw(url).rows(), verify(ledger).ok))
    assert answers[0] == answers[1] and answers[1][1]


def _bad_in(objs: list[dict], where: str) -> tuple[list[dict], int]:
    """A bad line in the deal this process checks first (``here``: the first deal of
    the batch), in the one the child checks first (``child``: the last), or in both,
    the child's first (``both``) or this process's first (``both-here-first``)."""
    first, last = objs[0]["deal"], objs[-1]["deal"]
    if where == "here":
        return _unknown_holder(objs, first, after=200)
    if where == "child":
        return _unknown_holder(objs, last, after=200)
    if where == "both":
        objs, line = _unknown_holder(objs, last, after=100)
        return _unknown_holder(objs, first, after=line)[0], line
    objs, line = _unknown_holder(objs, first, after=100)
    return _unknown_holder(objs, last, after=line)[0], line


@pytest.mark.parametrize("where", ["here", "child", "both", "both-here-first"])
@pytest.mark.parametrize("slow", ["here", "child"])
def test_the_first_bad_line_is_refused_wherever_it_is(sqlite_url, tmp_path, monkeypatch,
                                                       fixed, where, slow):
    objs, line = _bad_in(_batch_objs(), where)
    serial = _run(sqlite_url, monkeypatch, objs, parallel=False)
    assert isinstance(serial[0], str) and serial[0].startswith(
        f"refused: RuleViolation: line {line}, field 'data.holder': ")
    assert "Nobody At All" in serial[0]
    two = _run(str(tmp_path / "two.db"), monkeypatch, objs, parallel=True, slow=slow)
    assert two[0] == serial[0]
    assert two[1] == serial[1]                          # nothing written, either way


def test_a_refused_batch_leaves_the_cache_sound(sqlite_url, tmp_path, monkeypatch, fixed):
    # this process folded its deals before the child's refusal: they are read again,
    # and a good batch after the refused one writes what one process writes
    objs = _batch_objs()
    bad, _line = _bad_in(objs, "child")
    answers = []
    for url, parallel in ((sqlite_url, False), (str(tmp_path / "two.db"), True)):
        with monkeypatch.context() as m, _ledger(url) as ledger:
            Mode(m, parallel, "child" if parallel else None)
            assert _answer(ledger, _events(bad)).startswith("refused")
            ledger.append(_events(objs))
            answers.append((Raw(url).rows(), verify(ledger).ok))
    assert answers[0] == answers[1] and answers[1][1]


def _dies(*_args):
    os.kill(os.getpid(), signal.SIGKILL)


def _fails(*_args):
    raise RuntimeError("the child broke")


@pytest.mark.parametrize("how", [_dies, _fails])
def test_a_child_that_dies_leaves_its_deals_to_this_process(sqlite_url, tmp_path,
                                                            monkeypatch, fixed, how):
    objs = _batch_objs()
    serial = _run(sqlite_url, monkeypatch, objs, parallel=False)
    monkeypatch.setattr(staging, "_child", how)
    two = _run(str(tmp_path / "two.db"), monkeypatch, objs, parallel=True)
    assert two[0] == serial[0] and two[1] == serial[1]
    assert two[2].childs_deals() == []


def test_a_bad_line_and_a_dying_child(sqlite_url, tmp_path, monkeypatch, fixed):
    objs, _line = _bad_in(_batch_objs(), "child")
    serial = _run(sqlite_url, monkeypatch, objs, parallel=False)
    monkeypatch.setattr(staging, "_child", _dies)
    two = _run(str(tmp_path / "two.db"), monkeypatch, objs, parallel=True)
    assert two[0] == serial[0] and two[1] == serial[1]


def test_one_deal_is_checked_in_one_process(sqlite_url, monkeypatch, fixed):
    objs = [o for o in _batch_objs() if o["deal"] == NEW[0]]
    answer, _rows, mode = _run(sqlite_url, monkeypatch, objs, parallel=True)
    assert isinstance(answer, list) and mode.childs_deals() == []


def test_the_librarys_own_path_is_checked_in_one_process(sqlite_url, tmp_path, monkeypatch,
                                                         fixed):
    # a library configured with another transcoder writes through its mapper: no child
    objs = _batch_objs()
    serial = _run(sqlite_url, monkeypatch, objs, parallel=False)
    with monkeypatch.context() as m, _ledger(str(tmp_path / "lib.db")) as ledger:
        mode = Mode(m, True)
        m.setattr(ledger, "_direct", False)
        assert _answer(ledger, _events(objs)) == serial[0]
        assert verify(ledger).ok
    assert mode.childs_deals() == []


# ------------------------------------------------ random histories, one process or two

from hypothesis import HealthCheck, event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.support import ev, opened  # noqa: E402

LONG = bool(os.environ.get("DEAL_LEDGER_LONG"))
DEALS = ["d0", "d1", "d2", "d3"]
HOLDERS = ["H0", "H1", "H2"]
DAYS = ["2004-06-30", "2004-07-01", "2004-12-31"]


@st.composite
def histories(draw):
    """Batches over up to four deals, lines of different deals interleaved in any order:
    openings (each with Notes issued to H0), issues, transfers that may dispose of more
    than the Holder has on their day (refused: RRA §1 Transfer Restricted Securities,
    unless a same-day issue later in the batch takes effect first), consents that may
    name no Holder of the deal."""
    deals = DEALS[:draw(st.integers(2, 4))]
    out, opened_deals = [], set()
    for _ in range(draw(st.integers(1, 3))):
        lines = []
        for _ in range(draw(st.integers(2, 14))):
            deal = draw(st.sampled_from(deals))
            if deal not in opened_deals:
                opened_deals.add(deal)
                lines += [opened(deal), ev("NotesIssued", DAYS[0], deal=deal, holder="H0",
                                           principal="50000.00")]
            day = draw(st.sampled_from(DAYS))
            kind = draw(st.sampled_from(["issue"] * 5 + ["transfer", "consent"]))
            cents = draw(st.integers(1, 5_000_000))
            amount = f"{cents // 100}.{cents % 100:02d}"
            if kind == "issue":
                lines.append(ev("NotesIssued", day, deal=deal,
                                holder=draw(st.sampled_from(HOLDERS)), principal=amount))
            elif kind == "transfer":
                a = draw(st.sampled_from(["H0", "H0", "H0", "H1"]))
                b = draw(st.sampled_from([h for h in HOLDERS if h != a]))
                lines.append(ev("NotesTransferred", day, deal=deal, from_holder=a,
                                to_holder=b, principal=f"{cents // 1000 + 1}.00"))
            else:
                lines.append(ev("ConsentGiven", day, deal=deal,
                                holder=draw(st.sampled_from(["H0"] * 8 + ["H1", "Nobody"])),
                                matter="amendment"))
        out.append(lines)
    return out


def _history_run(url: str, history: list[list[dict]], parallel: bool) -> list:
    with pytest.MonkeyPatch.context() as m, Ledger(url) as ledger:
        _COUNTER[0] = 0
        seen = []
        # this process pauses at its first deal of each batch, so that the child takes some
        mode = Mode(m, parallel, "here", threshold=2, pause=0.05)
        for lines in history:
            mode.slept.clear()
            answer = _answer(ledger, _events(lines))
            seen.append((answer, Raw(url).rows()))
            if parallel and isinstance(answer, str):
                event("refused")
            elif parallel:
                event(f"written; the child checked {len(mode.childs_deals())} deal(s)")
        seen.append(verify(ledger).line())
    return seen


@settings(max_examples=200 if LONG else 20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(history=histories())
def test_random_histories_write_the_same_on_one_process_or_two(tmp_path_factory, fixed,
                                                               history):
    where = tmp_path_factory.mktemp("h")
    one = _history_run(str(where / "one.db"), history, parallel=False)
    two = _history_run(str(where / "two.db"), history, parallel=True)
    assert one == two
    assert one[-1].startswith("ok: ")
