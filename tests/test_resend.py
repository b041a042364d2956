"""Issue 31, item 3: a batch sent again after a timeout or a crash writes nothing. SPEC
§3's ``key`` is the idempotency key: a keyed line recorded already with the same content is
"already recorded: seq a..b" (exit 0, nothing written); the key with other content is a
conflict naming both; ``append --batch-id ID`` keys a whole batch; identical lines in one
batch are refused unless ``--allow-duplicates``; and two processes sending the same batch
at once write it once. Through click's CliRunner and the real console script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.store import bulk
from tests.cli_support import ok, refused_unchanged, run, store_bytes

RRA = "infocrossing-rra-2004"
LEHMAN = "Lehman Brothers Inc."


def ev(type_: str, day: str, key: str | None = None, **data) -> dict:
    obj = {"type": type_, "deal": RRA, "date": day, "data": data}
    return {**obj, "key": key} if key else obj


def jsonl(*objs: dict) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


BATCH = [ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
         ev("ShelfFiled", "2004-07-13", file_number="333-117340"),
         ev("ShelfEffective", "2004-11-15")]


@pytest.fixture
def db(tmp_path) -> str:
    path = str(tmp_path / "ledger.db")
    ok(run("init", RRA, "--template", RRA, "--db", path))     # seq 1
    return path


def records(db: str) -> list[dict]:
    return [json.loads(x) for x in ok(run("log", "--json", "--db", db)).splitlines()]


def test_keyed_lines_sent_again_are_recorded_already(db):
    keyed = [{**o, "key": f"k{i}"} for i, o in enumerate(BATCH, 1)]
    ok(run("append", "--db", db, input=jsonl(*keyed)))                      # seq 2..4
    before = store_bytes(db)
    out = ok(run("append", "--db", db, input=jsonl(*keyed)))
    assert out == "already recorded: seq 2..4; nothing written\n"
    assert store_bytes(db) == before
    # one keyed line of the batch, alone: the same answer for it
    assert ok(run("append", "--db", db, input=jsonl(keyed[1]))) == \
        "already recorded: seq 3; nothing written\n"
    # `record --key` sent again
    args = ("record", "TrusteeNotified", "--deal", RRA, "--date", "2004-11-02", "--key", "t1",
            "--db", db)
    ok(run(*args))                                                          # seq 5
    assert ok(run(*args)) == "already recorded: seq 5; nothing written\n"
    assert len(records(db)) == 5


def test_a_batch_id_keys_the_whole_batch(db):
    ok(run("append", "--db", db, "--batch-id", "trustee-2005-01", input=jsonl(*BATCH)))
    assert [r.get("key") for r in records(db)] == [
        None, "trustee-2005-01#1", "trustee-2005-01#2", "trustee-2005-01#3"]
    before = store_bytes(db)
    out = ok(run("append", "--db", db, "--batch-id", "trustee-2005-01", input=jsonl(*BATCH)))
    assert out == "already recorded: seq 2..4; nothing written\n"
    assert store_bytes(db) == before
    # the batch changed since: line 2's key names seq 3, with another file number
    changed = [BATCH[0], ev("ShelfFiled", "2004-07-13", file_number="333-999999"), BATCH[2]]
    err = refused_unchanged(db, 3, "append", "--db", db, "--batch-id", "trustee-2005-01",
                            input=jsonl(*changed))
    assert err.startswith("error: line 2, field 'key': key 'trustee-2005-01#2' is recorded "
                          "already as seq 3")
    assert "data.file_number is '333-117340' there and '333-999999' here" in err
    # a line added to a batch recorded already: it is another batch, refused whole
    more = [*BATCH, ev("TrusteeNotified", "2004-11-02")]
    err = refused_unchanged(db, 3, "append", "--db", db, "--batch-id", "trustee-2005-01",
                            input=jsonl(*more))
    assert "line 4" in err and "line(s) 1..3 are recorded already (seq 2..4)" in err
    assert "line(s) 4 are not: a batch is written whole or not at all" in err


def test_identical_lines_are_refused_naming_both(db, tmp_path):
    notice = ev("TrusteeNotified", "2004-11-02")
    text = jsonl(notice, ev("HoldersAdvised", "2004-11-02"), notice)
    err = refused_unchanged(db, 3, "append", "--db", db, input=text)
    assert err.startswith("error: line 3: the same as line 1: lines 1 and 3 are identical")
    assert "--allow-duplicates" in err
    # a bad line is still named first, as for any batch
    err = refused_unchanged(db, 3, "append", "--db", db,
                            input=text + '{"type": "ShelfFild"}\n')
    assert err.startswith("error: line 4")
    ok(run("append", "--db", db, "--allow-duplicates", input=text))
    assert [r["type"] for r in records(db)[1:]] == ["TrusteeNotified", "HoldersAdvised",
                                                    "TrusteeNotified"]


def test_a_large_batch_sent_again_is_recorded_already(db, tmp_path, monkeypatch):
    # the one pass (ledger.store.bulk) answers a recorded batch the plain way
    monkeypatch.setattr(bulk, "AT", 5)
    lines = [ev("TrusteeNotified", "2004-11-02", key=f"n{i}", about=f"e{i}")
             for i in range(12)]
    path = tmp_path / "big.jsonl"
    path.write_text(jsonl(*lines))
    ok(run("append", str(path), "--db", db))                               # seq 2..13
    before = store_bytes(db)
    assert ok(run("append", str(path), "--db", db)) == \
        "already recorded: seq 2..13; nothing written\n"
    assert store_bytes(db) == before


def test_two_processes_sending_one_batch_write_it_once(store_url, tmp_path):
    """The real console script, twice at once, for each of five batches: exactly one
    process writes each batch, the other answers it recorded already; both exit 0."""
    exe = str(Path(sys.executable).with_name("deal-ledger"))
    env = {"DEAL_LEDGER_CACHE": "off", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([exe, "init", RRA, "--template", RRA, "--db", store_url],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    path = tmp_path / "batch.jsonl"
    for n in range(5):
        path.write_text(jsonl(*[ev("HoldersAdvised", "2004-11-02", about=f"b{n}-{i}")
                                for i in range(40)]))
        procs = [subprocess.Popen([exe, "append", str(path), "--batch-id", f"b{n}", "--db",
                                   store_url], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
        outs = [p.communicate(timeout=300) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outs
        said = sorted(out.split(";")[0] for out, _err in outs)
        first = 2 + 40 * n
        assert said == [f"already recorded: seq {first}..{first + 39}",
                        f"appended 40 event(s)"], outs
    done = subprocess.run([exe, "log", "--json", "--db", store_url], env=env,
                          capture_output=True, text=True, timeout=120)
    keys = [json.loads(x).get("key") for x in done.stdout.splitlines()]
    assert len(keys) == 201 and len(set(keys[1:])) == 200


def test_the_key_is_named_for_an_idempotency_key(db):
    # the issue named the field `idempotency_key`; SPEC §3 calls it `key`: one name
    line = {**ev("TrusteeNotified", "2004-11-02"), "idempotency_key": "t1"}
    err = refused_unchanged(db, 3, "append", "--db", db, input=jsonl(line))
    assert "field 'idempotency_key': unknown field; an event's idempotency key is its `key`" \
        in err

