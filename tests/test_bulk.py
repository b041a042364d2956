"""A large JSON Lines batch in one pass (``Ledger.append_lines``, ``ledger.store.bulk``): each
deal's lines parsed and checked by the process that takes the deal. Whoever takes which
deal, what is written is what the plain way (``append(read_batch(raw))``) writes, byte for
byte, the records are the same, and a refusal is the same, the first bad line's, with
nothing written: the one pass gives up on anything it is not sure of and the plain way
answers. The thresholds are made small here."""

from __future__ import annotations

import json
import os
import re
import time

import pytest
from hypothesis import HealthCheck, event, given, settings

from ledger.store import bulk, staging
from ledger import jsonl
from ledger.store.chain import verify
from ledger.errors import LedgerError
from ledger.store import Ledger
from tests.cli_support import ok, refused, run
from tests.db_access import Raw
from tests.test_staging import (LONG, NEW, _COUNTER, _batch_objs, _dies, _fails, _history,
                                _ledger, compared, fixed, histories)  # noqa: F401

pytestmark = [pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2,
                                 reason="two processes need fork and two cores"),
              pytest.mark.usefixtures("fixed")]   # the same ids and clock in every ledger
__all__ = ["fixed"]   # test_staging's fixture, used by every test here


def _raw(objs: list[dict]) -> bytes:
    return ("\n".join(json.dumps(o, ensure_ascii=False) for o in objs) + "\n").encode()


class Pass:
    """The one pass made small (from 10 lines), with this process (``slow="here"``) or
    the child (``slow="child"``) slowed at its first deal so that the other takes most;
    records which lines this process parsed."""

    def __init__(self, m, slow: str | None = None, pause: float = 0.4):
        self.parent = os.getpid()
        self.parsed_here: list[int] = []
        m.setattr(bulk, "AT", 10)
        parser = bulk.Lines.parser
        slept: list[int] = []
        me = self

        def counting(lines, new_events):
            parse = parser(lines, new_events)

            def timed(ks, deal):
                here = os.getpid() == me.parent
                if slow is not None and not slept and (slow == "here") == here:
                    slept.append(1)
                    time.sleep(pause)
                parse(ks, deal)
                if here:
                    me.parsed_here.extend(ks)

            return timed

        m.setattr(bulk.Lines, "parser", counting)


def _answer(ledger: Ledger, raw: bytes, one_pass: bool) -> object:
    if one_pass:
        # where the one pass gives up, the plain way gets the ids it would have got
        start, append = _COUNTER[0], Ledger.append.__get__(ledger)
        ledger.append = lambda events, user=None, **kw: (_COUNTER.__setitem__(0, start)
                                                         or append(events, user=user, **kw))
    try:
        done = (ledger.append_lines(raw, user="Zoë") if one_pass
                else ledger.append(jsonl.read_batch(raw), user="Zoë"))
    except LedgerError as err:
        return f"refused: {type(err).__name__}: {err.render()}"
    # every record, each field in its order
    return [json.dumps(r, ensure_ascii=False) for r in done.records]


def _run(url: str, monkeypatch, raw: bytes, *, one_pass: bool, slow: str | None = None
         ) -> tuple[object, tuple, Pass | None]:
    return compared(url, monkeypatch, lambda m: Pass(m, slow) if one_pass else None,
                    lambda ledger: _answer(ledger, raw, one_pass))


@pytest.mark.parametrize("slow", [None, "here", "child"])
def test_the_same_ledger_and_records_as_the_plain_way(store_url, tmp_path, monkeypatch,
                                                      slow):
    raw = _raw(_batch_objs())
    n = raw.count(b"\n")
    plain = _run(store_url, monkeypatch, raw, one_pass=False)
    from tests.conftest import drop_pg, fresh_pg_url

    other = fresh_pg_url() if store_url.startswith("postgres") else str(tmp_path / "one.db")
    try:
        one = _run(other, monkeypatch, raw, one_pass=True, slow=slow)
        assert isinstance(plain[0], list) and len(plain[0]) == n
        assert one[0] == plain[0]
        assert one[1] == plain[1]                      # the same bytes, every row
        here = one[2].parsed_here
        assert 0 < len(here) < n                        # both processes parsed lines
        if slow == "here":
            assert len(here) < n / 3
        if slow == "child":
            assert len(here) > 2 * n / 3
    finally:
        if other.startswith("postgres"):
            drop_pg(other)


def test_records_are_made_only_when_asked(sqlite_url, monkeypatch):
    raw = _raw(_batch_objs())
    n = raw.count(b"\n")
    with monkeypatch.context() as m, _ledger(sqlite_url) as ledger:
        mode = Pass(m, "here")
        done = ledger.append_lines(raw, user="Zoë")
        assert isinstance(done.records, bulk.Records) and done.count == n
        theirs = sorted(set(range(n)) - set(mode.parsed_here))
        assert theirs
        parsed: list[int] = []
        parse_line = jsonl.parse_line
        m.setattr(jsonl, "parse_line", lambda line, number: parsed.append(number)
                  or parse_line(line, number))
        k = theirs[len(theirs) // 2]
        record = done.records[k]
        assert parsed == [k + 1]                        # that line alone, parsed again
        assert record["seq"] == done.records[0]["seq"] + k
        assert done.records[k] is record and parsed == [k + 1]
        assert done.records[-1]["hash"] == done.head.hash
        assert [r["seq"] for r in done.records[k - 1:k + 2]] == [
            record["seq"] - 1, record["seq"], record["seq"] + 1]
        assert len(list(done.records)) == n
    with pytest.raises(IndexError):
        done.records[n]
    # and what they say is what the log holds
    with Ledger(sqlite_url) as ledger:
        stored = list(ledger.records())[-n:]
    assert [json.dumps(r, sort_keys=True) for r in stored] == [
        json.dumps(r, sort_keys=True) for r in done.records]


def _with_bad_lines(objs: list[dict], deals: list[str], kind: str) -> tuple[bytes, int]:
    """The JSON Lines of ``objs`` with a bad line in each of ``deals`` (each after the
    one before), and the first bad line's number. ``rule``: a consent by a Holder the
    deal never had (RRA §1 Holder); ``json``: a line cut short; ``schema``: a consent
    with a field its type does not have."""
    lines = [json.dumps(o, ensure_ascii=False) for o in objs]
    after, first = 0, None
    for deal in deals:
        i = next(i for i, o in enumerate(objs)
                 if i > after and o["deal"] == deal and o["type"] == "ConsentGiven")
        o = objs[i]
        if kind == "rule":
            lines[i] = json.dumps({**o, "data": {**o["data"], "holder": "Nobody At All"}})
        elif kind == "schema":
            lines[i] = json.dumps({**o, "data": {**o["data"], "colour": "blue"}})
        else:
            lines[i] = lines[i][:-5]
        after, first = i, first or i + 1
    return ("\n".join(lines) + "\n").encode(), first


@pytest.mark.parametrize("kind", ["rule", "json", "schema"])
@pytest.mark.parametrize("where", ["here", "child", "both"])
def test_a_bad_line_is_named_as_the_plain_way(sqlite_url, tmp_path, monkeypatch,
                                               kind, where):
    objs = _batch_objs()
    first, last = objs[0]["deal"], objs[-1]["deal"]
    deals = {"here": [first], "child": [last], "both": [last, first]}[where]
    raw, line = _with_bad_lines(objs, deals, kind)
    plain = _run(sqlite_url, monkeypatch, raw, one_pass=False)
    assert isinstance(plain[0], str) and re.search(rf"\bline {line}\b", plain[0]), plain[0]
    for slow in ("here", "child"):
        one = _run(str(tmp_path / f"one-{slow}.db"), monkeypatch, raw, one_pass=True,
                   slow=slow)
        assert one[0] == plain[0]
        assert one[1] == plain[1]                        # nothing written, either way


def test_a_deal_read_wrongly_from_the_text_is_left_to_the_plain_way(sqlite_url, tmp_path,
                                                                     monkeypatch):
    raw = _raw(_batch_objs())
    plain = _run(sqlite_url, monkeypatch, raw, one_pass=False)
    guesses = jsonl.deal_guesses

    def wrong(lines):
        out = guesses(lines)
        out[len(out) // 2] = out[0] if out[len(out) // 2] != out[0] else out[-1]
        return out

    monkeypatch.setattr(jsonl, "deal_guesses", wrong)
    with monkeypatch.context() as m, _ledger(str(tmp_path / "one.db")) as ledger:
        Pass(m)
        answer = _answer(ledger, raw, True)
    assert answer == plain[0] and Raw(str(tmp_path / "one.db")).rows() == plain[1][0]


@pytest.mark.parametrize("how", [_dies, _fails])
def test_a_child_that_fails_leaves_the_batch_to_the_plain_way(sqlite_url, tmp_path,
                                                              monkeypatch, how):
    raw = _raw(_batch_objs())
    plain = _run(sqlite_url, monkeypatch, raw, one_pass=False)
    monkeypatch.setattr(staging, "_child", how)
    one = _run(str(tmp_path / "one.db"), monkeypatch, raw, one_pass=True)
    assert one[0] == plain[0] and one[1] == plain[1]


def test_a_small_batch_or_one_deal_goes_the_plain_way(sqlite_url, monkeypatch):
    objs = _batch_objs()
    one_deal = [o for o in objs if o["deal"] == NEW[0]]
    with monkeypatch.context() as m, _ledger(sqlite_url) as ledger:
        mode = Pass(m)
        done = ledger.append_lines(_raw(one_deal), user="Zoë")
        assert isinstance(done.records, tuple) and mode.parsed_here == []
        m.setattr(bulk, "AT", len(objs) + 1)
        rest = [o for o in objs if o["deal"] != NEW[0]]
        done = ledger.append_lines(_raw(rest), user="Zoë")
        assert isinstance(done.records, tuple) and mode.parsed_here == []
        assert done.count == len(rest)


# ------------------------------------------------ random histories, plain or one pass


def _history_run(url: str, history: list[list[dict]], one_pass: bool) -> list:
    with pytest.MonkeyPatch.context() as m, Ledger(url) as ledger:
        _COUNTER[0] = 0
        seen = []
        if one_pass:
            Pass(m, "here", pause=0.05)
            m.setattr(bulk, "AT", 2)
        for lines in history:
            answer = _answer(ledger, _raw(lines), one_pass)
            seen.append((answer, Raw(url).rows()))
            if one_pass:
                event("refused" if isinstance(answer, str) else "written")
        seen.append(verify(ledger).line())
    return seen


@settings(max_examples=200 if LONG else 20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(history=histories())
def test_random_histories_write_the_same_plain_or_in_one_pass(tmp_path_factory,
                                                              history):
    where = tmp_path_factory.mktemp("h")
    plain = _history_run(str(where / "plain.db"), history, one_pass=False)
    one = _history_run(str(where / "one.db"), history, one_pass=True)
    assert plain == one
    assert plain[-1].startswith("ok: ")


# ------------------------------------------------------------------- the command


def test_the_command_appends_a_large_batch_in_one_pass(tmp_path, monkeypatch):
    objs = _batch_objs()
    path = tmp_path / "batch.jsonl"
    path.write_bytes(_raw([o for o in _history()] + objs))
    answers = []
    for name, one_pass in (("plain.db", False), ("one.db", True)):
        _COUNTER[0] = 0
        with monkeypatch.context() as m:
            if one_pass:
                mode = Pass(m, "here")
            else:
                m.setattr(bulk, "AT", 10**9)
            # (the batch repeats lines on purpose: several same-day notices of a deal)
            out = ok(run("append", str(path), "--db", str(tmp_path / name), "--user", "Zoë",
                         "--allow-duplicates"))
        answers.append((out, Raw(str(tmp_path / name)).rows()))
    assert answers[0] == answers[1]
    assert 0 < len(mode.parsed_here) < len(objs) + len(_history())


def test_the_command_names_a_bad_line_before_a_store_it_cannot_write(tmp_path, monkeypatch):
    # the store is opened first on this path: its error waits until the lines are good
    objs = _batch_objs()
    raw, line = _with_bad_lines(objs, [objs[-1]["deal"]], "schema")
    path = tmp_path / "batch.jsonl"
    path.write_bytes(raw)
    db = tmp_path / "no-such-dir" / "ledger.db"
    monkeypatch.setattr(bulk, "AT", 10)
    err = refused(run("append", str(path), "--db", str(db)), 3)
    assert f"line {line}" in err and "colour" in err
    path.write_bytes(_raw(objs))
    err = refused(run("append", str(path), "--db", str(db), "--allow-duplicates"), 5)
    assert "line " not in err


def test_no_process_is_left_behind(sqlite_url, monkeypatch):
    # the child answers before it exits; the append waits for it once the batch is written
    import ledger.forked as forked

    real_exit = os._exit

    def slow_exit(status):   # the child lingers after its answer, as a large one does
        time.sleep(0.5)
        real_exit(status)

    with monkeypatch.context() as m, _ledger(sqlite_url) as ledger:
        Pass(m)
        m.setattr(forked.os, "_exit", slow_exit)
        done = ledger.append_lines(_raw(_batch_objs()), user="Zoë")
        m.undo()
        assert isinstance(done.records, bulk.Records)
        with pytest.raises(ChildProcessError):
            os.waitpid(-1, os.WNOHANG)
