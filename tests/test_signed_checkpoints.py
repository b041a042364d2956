"""Signed checkpoints through the command line, on both backends: ``keygen`` (the private
key 0600, never printed, never written over, never over the ledger), ``checkpoint``
(C2SP tlog-checkpoint, signed and cosigned with its time), ``verify --checkpoint``
(the ledger extends it; where it does not, the first event that differs is named; two
checkpoints of one key that cannot both be of one log are proof of a fork) and
``verify --since`` (only the events after a checkpoint walked)."""

from __future__ import annotations

import json
import os
import stat
import uuid

import pytest

from ledger import notes, proofs
from tests.cli_support import ok, refused, run
from tests.db_access import Raw
from tests.test_tree_store import _rewrite
from tests.support import ev, opened


def append(db: str, tmp_path, objs) -> None:
    path = tmp_path / f"batch-{uuid.uuid4().hex[:8]}.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in objs))
    ok(run("append", str(path), "--db", db, "--user", "tester"))


def issued(n: int, start: int = 0):
    return [ev("NotesIssued", "2004-06-30", holder=f"H{i}", principal="1000")
            for i in range(start, start + n)]


@pytest.fixture
def keys(tmp_path):
    key = str(tmp_path / "log.key")
    out = ok(run("keygen", "--name", "ledger.example.com/test", "--out", key,
                 "--db", str(tmp_path / "nothing.db")))
    return key, key + ".pub", out


def test_keygen_writes_a_private_key_it_never_prints(keys, tmp_path):
    key, pub, out = keys
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    private = open(key).read().strip()
    assert private.startswith("PRIVATE+KEY+ledger.example.com/test+")
    assert private.split("+")[-1] not in out           # the key's bytes are not shown
    verifier = open(pub).read().strip()
    assert verifier in out                              # the public key is
    assert notes.signer_key(private).verifier == notes.verifier_key(verifier)
    # never written over
    refused(run("keygen", "--name", "x", "--out", key, "--db", str(tmp_path / "n.db")), 2)
    assert open(key).read().strip() == private


def test_keygen_never_writes_over_the_ledger(tmp_path, store_url):
    ledger = str(tmp_path / "l.db")
    append(ledger, tmp_path, [opened("rra")])
    os.remove(ledger + ".lock")
    message = refused(run("keygen", "--name", "x", "--out", ledger + ".lock", "--db", ledger), 2)
    assert "the writers' lock" in message
    assert not os.path.exists(ledger + ".lock.pub")


def test_a_loose_private_key_is_refused(keys, tmp_path):
    key, _, _ = keys
    os.chmod(key, 0o644)
    db = str(tmp_path / "l.db")
    append(db, tmp_path, [opened("rra")])
    assert "chmod 600" in refused(run("checkpoint", "--key", key, "--db", db), 2)


def test_a_checkpoint_is_a_c2sp_checkpoint_of_the_logs_tree(keys, store_url, tmp_path):
    key, pub, _ = keys
    append(store_url, tmp_path, [opened("rra")] + issued(5))
    text = ok(run("checkpoint", "--key", key, "--db", store_url))
    verifier = notes.verifier_key(open(pub).read())
    signed = notes.open_checkpoint(text.encode(), [verifier])
    assert signed.checkpoint.origin == "ledger.example.com/test"
    assert signed.checkpoint.size == 6
    assert signed.time is not None
    records = [json.loads(x) for x in ok(run("log", "--json", "--db", store_url)).splitlines()]
    assert signed.checkpoint.root == proofs.root_of([proofs.event_leaf(r) for r in records])


@pytest.fixture
def signed_then_more(keys, store_url, tmp_path):
    """A checkpoint at six events, then five more appended."""
    key, pub, _ = keys
    append(store_url, tmp_path, [opened("rra")] + issued(5))
    cp = str(tmp_path / "six.checkpoint")
    ok(run("checkpoint", "--key", key, "--out", cp, "--db", store_url))
    append(store_url, tmp_path, issued(5, start=5))
    return store_url, key, pub, cp


def test_the_ledger_extends_an_earlier_checkpoint(signed_then_more):
    db, _, pub, cp = signed_then_more
    out = ok(run("verify", "--checkpoint", cp, "--pubkey", pub, "--db", db))
    assert "the log extends it" in out and "consistency proof 6 -> 11" in out


def test_a_rewritten_event_is_named_against_the_checkpoint(signed_then_more):
    db, _, pub, cp = signed_then_more
    _rewrite(db, 3)   # every hash recomputed, the tree beside the log left
    result = run("verify", "--checkpoint", cp, "--pubkey", pub, "--db", db)
    assert result.exit_code == 1
    assert f"{cp}: seq 3: the event is not the one this checkpoint" in result.stderr


def test_a_rewrite_that_rebuilt_the_tree_is_caught_but_not_named(signed_then_more):
    db, _, pub, cp = signed_then_more
    _rewrite(db, 3)
    Raw(db).drop_tree()    # the forger drops the tree: verify builds it from the forgery
    result = run("verify", "--checkpoint", cp, "--pubkey", pub, "--db", db)
    assert result.exit_code == 1
    assert "the log's first 6 events are not the ones this checkpoint" in result.stderr
    assert "history up to seq 6 was rewritten" in result.stderr


def test_events_removed_are_named(keys, store_url, tmp_path):
    key, pub, _ = keys
    append(store_url, tmp_path, [opened("rra")] + issued(5))
    append(store_url, tmp_path, issued(2, start=5))
    cp = str(tmp_path / "cp")
    ok(run("checkpoint", "--key", key, "--out", cp, "--db", store_url))
    raw = Raw(store_url)
    from tests.db_access import RawChain

    for position, *_ in raw.rows()[-2:]:
        raw.delete(position)
    chain = RawChain(store_url)
    chain.delete(chain.rows()[-1][0])
    raw.drop_tree()
    result = run("verify", "--checkpoint", cp, "--pubkey", pub, "--db", store_url)
    assert result.exit_code == 1
    assert "seq 7: the log ends at seq 6 and this checkpoint" in result.stderr


def test_another_key_or_an_altered_checkpoint_fails(signed_then_more, tmp_path):
    db, _, pub, cp = signed_then_more
    other = str(tmp_path / "other.key")
    ok(run("keygen", "--name", "ledger.example.com/test", "--out", other, "--db", db
           if not db.startswith("postgres") else str(tmp_path / "n.db")))
    message = refused(run("verify", "--checkpoint", cp, "--pubkey", other + ".pub",
                          "--db", db), 1)
    assert "not signed by the key given" in message
    text = open(cp).read()
    lines = text.split("\n")
    lines[1] = "7"     # another size, the signature kept
    bent = tmp_path / "bent"
    bent.write_text("\n".join(lines))
    assert "does not verify" in refused(run("verify", "--checkpoint", str(bent), "--pubkey",
                                            pub, "--db", db), 1)


def test_two_checkpoints_that_cannot_both_be_of_one_log_prove_a_fork(keys, store_url,
                                                                    tmp_path):
    """The log's key signs a checkpoint of seven events; the log is then rewritten from
    seq 3 (every hash recomputed, the tree with it) and grows, and the key signs it
    again. The second checkpoint's log extends to the ledger; the first is not a prefix
    of it: the consistency proof between the two (from the ledger's tree) fails."""
    key, pub, _ = keys
    append(store_url, tmp_path, [opened("rra")] + issued(6))
    first = str(tmp_path / "first")
    ok(run("checkpoint", "--key", key, "--out", first, "--db", store_url))
    _rewrite(store_url, 3)
    Raw(store_url).drop_tree()
    append(store_url, tmp_path, issued(2, start=6))
    second = str(tmp_path / "second")
    ok(run("checkpoint", "--key", key, "--out", second, "--db", store_url))
    result = run("verify", "--checkpoint", first, "--checkpoint", second, "--pubkey", pub,
                 "--db", store_url)
    assert result.exit_code == 1
    assert f"{second}: the log extends it" in result.stdout
    assert (f"proof of a forked log: {first} (size 7) is not a prefix of {second} (size 9), "
            "both signed by ledger.example.com/test") in result.stderr


def test_two_roots_for_one_size_prove_a_fork(keys, tmp_path):
    key, pub, _ = keys
    signer = notes.signer_key(open(key).read())
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text(notes.sign(notes.Checkpoint(signer.name, 3, b"\x01" * 32).text, signer))
    b.write_text(notes.sign(notes.Checkpoint(signer.name, 3, b"\x02" * 32).text, signer))
    db = str(tmp_path / "l.db")
    append(db, tmp_path, [opened("rra")] + issued(2))
    result = run("verify", "--checkpoint", str(a), "--checkpoint", str(b), "--pubkey", pub,
                 "--db", db)
    assert result.exit_code == 1
    assert f"proof of a forked log: {a} and {b}, both signed by ledger.example.com/test, " \
           "give two roots for size 3" in result.stderr


def test_verify_since_walks_what_follows(signed_then_more):
    db, _, pub, cp = signed_then_more
    out = ok(run("verify", "--since", cp, "--pubkey", pub, "--db", db))
    assert out.startswith("ok: 11 events\n")
    assert "the 5 events after it verified" in out


def test_verify_since_names_an_event_after_it_altered(signed_then_more):
    db, _, pub, cp = signed_then_more
    raw = Raw(db)
    position, state, *_ = raw.rows()[8]    # seq 9
    raw.set_state(position, state.replace(b'"principal":"1000"', b'"principal":"9000"'))
    result = run("verify", "--since", cp, "--pubkey", pub, "--db", db)
    assert result.exit_code == 1
    assert "seq 9: hash does not match" in result.stderr


def test_verify_since_refuses_a_log_rewritten_before_it(signed_then_more):
    db, _, pub, cp = signed_then_more
    _rewrite(db, 2)     # before the checkpoint, the tree left: its leaf differs
    result = run("verify", "--since", cp, "--pubkey", pub, "--db", db)
    assert result.exit_code == 1
    assert "not the one the checkpoint signed" in result.stderr
    Raw(db).drop_tree()
    ok(run("verify", "--db", db))           # the tree is built again from the forgery
    result = run("verify", "--since", cp, "--pubkey", pub, "--db", db)
    assert result.exit_code == 1
    assert "not the one the checkpoint signed" in result.stderr


def test_checkpoint_since_the_last_one(signed_then_more, tmp_path):
    db, key, pub, cp = signed_then_more
    later = str(tmp_path / "later")
    ok(run("checkpoint", "--key", key, "--since", cp, "--out", later, "--db", db))
    out = ok(run("verify", "--checkpoint", cp, "--checkpoint", later, "--pubkey", pub,
                 "--db", db))
    assert out.count("the log extends it") == 2


def test_verify_options_that_do_not_go_together(signed_then_more, tmp_path):
    db, _, pub, cp = signed_then_more
    assert "--pubkey" in refused(run("verify", "--checkpoint", cp, "--db", db), 2)
    assert "--pubkey" in refused(run("verify", "--pubkey", pub, "--db", db), 2)
    assert "--since" in refused(run("verify", "--since", cp, "--rules", "--pubkey", pub,
                                    "--db", db), 2)
    assert "--checkpoint" in refused(run("verify", "--checkpoint", cp, "--pack",
                                         str(tmp_path), "--pubkey", pub), 2)
