"""A large JSONL batch is checked on two cores (``ledger.jsonl._read_in_two``): this
process takes chunks of lines from the front, a forked child from the back. Whoever takes
which chunk, the result is the same as one process reading the batch: the same events,
or the same refusal, the first bad line's, wherever the bad lines fall (in this
process's chunks, in the child's, in both). The threshold and the chunks are made small
here; slowing this process down makes the child take most of the chunks."""

from __future__ import annotations

import json
import os
import time

import pytest

from ledger import jsonl
from ledger.errors import InvalidEvent
from tests.support import opened

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2,
                                reason="two processes need fork and two cores")


def _lines(n: int) -> list[str]:
    out = [json.dumps(opened("p"))]
    for i in range(1, n):
        out.append(json.dumps({"type": "NotesTransferred", "deal": "p", "date": "2005-01-03",
                               "data": {"from_holder": f"Holder {i % 7}",
                                        "to_holder": f"Holder {i % 5 + 7}",
                                        "principal": f"{i}.{i % 100:02d}"},
                               "key": f"k{i}"}))
    return out


def _raw(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def _answer(raw: bytes) -> object:
    try:
        return jsonl.read_batch(raw)
    except InvalidEvent as err:
        return f"refused: {err}"


def _serial(raw: bytes, monkeypatch) -> object:
    with monkeypatch.context() as m:
        m.setattr(jsonl, "PARALLEL_AT", 10**9)
        return _answer(raw)


def _parallel(raw: bytes, monkeypatch, *, slow_here: bool = False,
              counted: list[int] | None = None) -> object:
    """Read on two processes, chunks of 16 lines; ``slow_here``: this process waits
    before its first chunk, so that the child takes most of them."""
    with monkeypatch.context() as m:
        m.setattr(jsonl, "PARALLEL_AT", 10)
        m.setattr(jsonl, "CHUNK", 16)
        read_lines = jsonl._read_lines

        def here(lines, first, on_progress=None):
            if counted is not None:
                counted.append(first)
            if slow_here and first == 1:
                time.sleep(0.5)
            return read_lines(lines, first, on_progress)

        m.setattr(jsonl, "_read_lines", here)
        return _answer(raw)


@pytest.mark.parametrize("slow_here", [False, True])
def test_the_same_events_as_one_process(monkeypatch, slow_here):
    raw = _raw(_lines(301))
    serial = _serial(raw, monkeypatch)
    assert isinstance(serial, list) and len(serial) == 301
    assert _parallel(raw, monkeypatch, slow_here=slow_here) == serial


def test_the_child_takes_chunks_when_this_process_is_busy(monkeypatch):
    counted: list[int] = []
    raw = _raw(_lines(301))
    assert _parallel(raw, monkeypatch, slow_here=True, counted=counted) == _serial(
        raw, monkeypatch)
    assert len(counted) < 19   # 301 lines are 19 chunks of 16: the child took some


@pytest.mark.parametrize("slow_here", [False, True])
@pytest.mark.parametrize("bad", [[3], [250], [120, 280], [40, 170], [17, 18], [300]])
def test_the_first_bad_line_is_named_wherever_it_is(monkeypatch, bad, slow_here):
    lines = _lines(300)
    for number in bad:
        lines[number - 1] = lines[number - 1].replace('"principal": "', '"principal": "-')
    raw = _raw(lines)
    serial = _serial(raw, monkeypatch)
    assert serial == _parallel(raw, monkeypatch, slow_here=slow_here)
    assert str(serial).startswith(f"refused: line {bad[0]}, field 'data.principal': "
                                  "must be a positive amount")


def test_bad_json_in_the_childs_part(monkeypatch):
    lines = _lines(300)
    lines[199] = lines[199][:-1]
    raw = _raw(lines)
    assert _parallel(raw, monkeypatch, slow_here=True) == _serial(raw, monkeypatch)
    assert str(_serial(raw, monkeypatch)).startswith(
        "refused: line 200: not valid JSON at column ")


def test_a_failing_child_leaves_the_work_to_this_process(monkeypatch):
    def broken(lines, claims):
        claims.back()   # it took a chunk, then died
        raise MemoryError("the child ran out")

    raw = _raw(_lines(120))
    expected = _serial(raw, monkeypatch)
    monkeypatch.setattr(jsonl, "_packed", broken)
    assert _parallel(raw, monkeypatch) == expected


def test_progress_counts_every_line(monkeypatch):
    steps: list[int] = []
    monkeypatch.setattr(jsonl, "PARALLEL_AT", 10)
    jsonl.read_batch(_raw(_lines(2500)), on_progress=steps.append)
    assert sum(steps) == 2500 and steps.count(1000) == 2


def test_the_command_refuses_a_big_batch_in_one_line_and_writes_nothing(monkeypatch,
                                                                        tmp_path):
    from tests.cli_support import ok, refused_unchanged, run

    monkeypatch.setattr(jsonl, "PARALLEL_AT", 10)
    monkeypatch.setattr(jsonl, "CHUNK", 16)
    db = str(tmp_path / "ledger.db")
    ok(run("append", "-", "--db", db, "--user", "t", input=_raw([json.dumps(opened("p"))])))
    lines = [json.dumps({"type": "HoldersAdvised", "deal": "p", "date": "2005-01-03",
                         "data": {"about": f"advice {i}"}}) for i in range(1, 300)]
    lines[249] = json.dumps({"type": "NotesIssued", "deal": "p", "date": "2005-01-03",
                             "data": {"holder": "Holder 1", "principal": "1e3"}})
    two = jsonl._read_in_two
    used: list[int] = []
    monkeypatch.setattr(jsonl, "_read_in_two", lambda lines, p: used.append(1) or two(lines, p))
    message = refused_unchanged(db, 3, "append", "-", "--db", db, "--user", "t",
                                input=_raw(lines))
    assert message.startswith("error: line 250, field 'data.principal': exponent "), message
    assert used   # it was read on two processes


def test_a_large_batch_leaves_the_collector_on_and_nothing_frozen(monkeypatch):
    # read_batch holds the collector off while it makes a batch of 1,000+ events (they
    # all stay alive), on one process or two, and however it ends
    import gc

    raw = _raw(_lines(1200))
    bad = _raw(_lines(1200)[:600] + ["{"] + _lines(1200)[601:])
    for read in (_serial, _parallel):
        assert gc.isenabled() and gc.get_freeze_count() == 0
        events = read(raw, monkeypatch)
        assert len(events) == 1200
        assert gc.isenabled() and gc.get_freeze_count() == 0
        assert str(read(bad, monkeypatch)).startswith("refused: line 601")
        assert gc.isenabled() and gc.get_freeze_count() == 0
