"""Checkpoints: `verify --expect HEAD_HASH` with a head hash kept outside the ledger.

A forger with write access to the database can edit an event and recompute every hash
after it (and the chain head rows), leaving a chain that verifies on its own. A head hash
recorded earlier, elsewhere, is then no longer in the log: `--expect` fails, saying why.
All through the CLI, on each backend."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.cli_support import run
from ledger.store.chainhead import CHAIN_ID
from tests.db_access import Raw, relink
from tests.support import ev, opened


def append(db: str, tmp_path, objs) -> None:
    path = tmp_path / f"batch-{uuid.uuid4().hex[:8]}.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in objs))
    result = run("append", str(path), "--db", db, "--user", "tester")
    assert result.exit_code == 0, result.output


def head_of(db: str) -> str:
    result = run("verify", "--db", db)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok: ")
    return result.output.split()[-1]  # "ok: N events, head <hash>"


def issued(n: int, start: int = 0):
    return [ev("NotesIssued", "2004-06-30", holder=f"H{i}", principal="1000")
            for i in range(start, start + n)]


@pytest.fixture
def ledger_with_checkpoint(store_url, tmp_path):
    """Six events, a checkpoint taken, then four more events appended."""
    append(store_url, tmp_path, [opened("rra")] + issued(5))
    checkpoint = head_of(store_url)
    append(store_url, tmp_path, issued(4, start=5))
    return store_url, checkpoint


class Forger(Raw):
    """Direct access to the tables: rewrites an event and re-hashes the chain after it."""

    def chain_rows(self) -> list[tuple[int, bytes]]:
        with self._conn() as c:
            if self.pg:
                cur = c.execute("SELECT notification_id, state FROM ledger_events WHERE "
                                "originator_id = %s ORDER BY notification_id", (CHAIN_ID,))
            else:
                cur = c.execute("SELECT rowid, state FROM stored_events WHERE "
                                "originator_id = ? ORDER BY rowid", (CHAIN_ID.hex,))
            return [(r[0], bytes(r[1])) for r in cur.fetchall()]

    def rewrite(self, seq: int, change, *, heads_too: bool) -> None:
        """Decode the state JSON, change the event at ``seq``, recompute hash and
        prev_hash of it and of every event after it, and write each row back; with
        ``heads_too``, also point the chain head rows at the new hashes."""
        new_hash: dict[int, str] = {}
        deal_last: dict[str, str] = {}
        prev = None
        for position, state, *_ in self.rows():
            outer = json.loads(state)
            record = outer["record"]
            if record["seq"] == seq:
                change(record)
            if record["seq"] >= seq:
                relink(record, prev, deal_last)
                self.set_state(position, json.dumps(outer, separators=(",", ":")).encode())
            deal_last[record["deal"]] = prev = record["hash"]
            new_hash[record["seq"]] = record["hash"]
        if heads_too:
            for position, state in self.chain_rows():
                outer = json.loads(state)
                outer["hash"] = new_hash[outer["seq"]]
                self.set_state(position, json.dumps(outer, separators=(",", ":")).encode())
        self.drop_tree()


def set_principal(amount: str):
    return lambda record: record["data"].update(principal=amount)


def test_an_earlier_checkpoint_still_verifies_after_more_appends(ledger_with_checkpoint):
    db, checkpoint = ledger_with_checkpoint
    result = run("verify", "--db", db, "--expect", checkpoint)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok: 10 events\nhead ")
    assert checkpoint not in result.output  # the head has moved on past the checkpoint
    # the current head is a checkpoint too, and case or spaces do not matter
    now = head_of(db)
    assert run("verify", "--db", db, "--expect", f" {now.upper()} ").exit_code == 0


def test_a_rewritten_chain_fails_the_checkpoint_naming_why(ledger_with_checkpoint):
    db, checkpoint = ledger_with_checkpoint
    Forger(db).rewrite(3, set_principal("9000.00"), heads_too=False)
    result = run("verify", "--db", db, "--expect", checkpoint)
    assert result.exit_code == 1
    # the chain head rows still name the old hash; the forger forgot to rewrite them
    assert "events were removed" in result.output or "rewritten" in result.output


def test_a_thorough_forgery_verifies_alone_and_fails_only_the_checkpoint(
        ledger_with_checkpoint):
    db, checkpoint = ledger_with_checkpoint
    Forger(db).rewrite(3, set_principal("9000.00"), heads_too=True)
    alone = run("verify", "--db", db)
    assert alone.exit_code == 0, alone.output  # self-consistent: why checkpoints matter
    result = run("verify", "--db", db, "--expect", checkpoint)
    assert result.exit_code == 1
    assert result.output.strip() == (
        f"the log no longer extends the expected head {checkpoint}: history before it "
        "was rewritten")
    report = run("report", "rra", "--db", db, "--json", "--as-of", "2005-01-01")
    assert report.exit_code == 0  # the forged figure is what the ledger now says


def test_an_edit_after_the_checkpoint_is_not_what_the_checkpoint_vouches_for(
        ledger_with_checkpoint):
    db, checkpoint = ledger_with_checkpoint
    Forger(db).rewrite(8, set_principal("9000.00"), heads_too=True)
    # seq 1..6 are untouched, so the checkpoint (seq 6) is still in the log; a later
    # checkpoint is what would catch this edit
    assert run("verify", "--db", db, "--expect", checkpoint).exit_code == 0


def test_an_unknown_head_fails(ledger_with_checkpoint):
    db, _ = ledger_with_checkpoint
    result = run("verify", "--db", db, "--expect", "0123456789abcdef" * 4)
    assert result.exit_code == 1
    assert "no longer extends the expected head 0123456789abcdef" in result.output


@pytest.mark.parametrize("bad", ["abc", "g" * 64, "ab" * 33, ""])
def test_a_malformed_checkpoint_is_refused_naming_the_option(sqlite_url, tmp_path, bad):
    append(sqlite_url, tmp_path, [opened("rra")])
    result = run("verify", "--db", sqlite_url, "--expect", bad)
    assert result.exit_code == 2
    assert result.output.startswith("error: field '--expect': give a head hash (64 hex digits, or its first 8 or more)")
    assert len(result.output.strip().splitlines()) == 1


def test_a_kept_copy_of_the_log_names_the_first_rewritten_seq(ledger_with_checkpoint, tmp_path):
    db, _ = ledger_with_checkpoint
    kept = tmp_path / "kept.jsonl"
    kept.write_text(run("log", "--db", db, "--json").output)
    assert run("verify", "--db", db, "--expect", str(kept)).exit_code == 0
    # SEQ:HASH of the first event, as printed by log --json, is a witness too
    first = json.loads(kept.read_text().splitlines()[0])
    assert run("verify", "--db", db, "--expect", f"{first['seq']}:{first['hash']}").exit_code == 0
    wrong = f"{first['seq']}:{'0' * 64}"
    result = run("verify", "--db", db, "--expect", wrong)
    assert result.exit_code == 1 and "seq 1" in result.output
