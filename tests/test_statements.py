"""Holder statements (``deal-ledger statement``, ``verify --statement``), on the demo
ledger (its history is ILLUSTRATIVE, SPEC §5) on both backends: a Holder's own figures,
the events they rest on, each proved in a signed checkpoint, checked offline with the
ledger gone; and every way a statement can be made to lie fails: an event dropped or
edited, a figure changed, another key, an older checkpoint.

The figure worked by hand (RRA §3(a), §3(b)): Illustrative Fund A held 20,000,000 of
Transfer Restricted Notes (bought from Lehman Brothers Inc. on 2004-08-02) on the Record
Date 2005-01-01; Registration Defaults accrued 0.25% a year for 4 days (2004-07-16 to
2004-07-20, RRA §3(a)(i)) and 16 days (2004-10-29 to 2004-11-15, §3(a)(ii)), 30/360:
20,000,000 x 0.25% x 20/360 = 2,777.777... -> 2,777.78, of which it was paid 2,700.00:
underpaid."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from ledger import notes, proofs
from publishing import statement as statements
from tests.cli_support import ok, refused, run

RRA = "infocrossing-rra-2004"
LETTER = "infocrossing-letter-2002"
FUND_A = "Illustrative Fund A"
PAYMENT = 'additional_interest.payments[payment_date=2005-01-15]'


@pytest.fixture
def demo(store_url, tmp_path):
    ok(run("demo", "--db", store_url))
    key = str(tmp_path / "log.key")
    ok(run("keygen", "--name", "ledger.example.com/demo", "--out", key,
           "--db", str(tmp_path / "n.db")))
    return store_url, key, key + ".pub"


@pytest.fixture
def fund_a(demo, tmp_path):
    db, key, pub = demo
    out = str(tmp_path / "fund-a")
    said = ok(run("statement", RRA, "--holder", FUND_A, "--key", key, "--out", out,
                  "--as-of", "2007-12-31", "--db", db))
    assert said.startswith(f"wrote the statement to {out}:")
    return out, key, pub, db


def test_a_statement_verifies_offline(fund_a, tmp_path):
    out, _, pub, db = fund_a
    elsewhere = str(tmp_path / "received")
    shutil.copytree(out, elsewhere)    # the Holder's copy: no ledger, no network needed
    said = ok(run("verify", "--statement", elsewhere, "--pubkey", pub,
                  "--db", str(tmp_path / "no-such-ledger.db")))
    assert said.startswith(f"ok: statement of {FUND_A} in {RRA} as of 2007-12-31")
    assert not os.path.exists(tmp_path / "no-such-ledger.db")


def test_its_figures_are_the_holders_own(fund_a):
    out = fund_a[0]
    held = json.load(open(os.path.join(out, "statement.json")))
    figures = held["figures"]
    # worked by hand in the module docstring
    assert figures[f'{PAYMENT}.amounts."{FUND_A}"'] == "2777.78"
    assert figures[f'{PAYMENT}.paid."{FUND_A}"'] == "2700.00"
    assert figures[f'{PAYMENT}.statuses."{FUND_A}"'] == "underpaid"
    assert all(f'"{FUND_A}"' in path for path in figures)
    node = held["explanations"][f'{PAYMENT}.amounts."{FUND_A}"']
    assert node["clause"] == "RRA §3(a), §3(b)"
    # the same figures as the whole report's
    report = json.loads(ok(run("report", RRA, "--as-of", "2007-12-31", "--json",
                               "--db", fund_a[3])))
    payment = next(p for p in report["additional_interest"]["payments"]
                   if p["payment_date"] == "2005-01-15")
    assert payment["amounts"][FUND_A] == "2777.78"


def test_other_holders_are_left_out_but_where_its_notes_came_from(fund_a):
    out = fund_a[0]
    records = [json.loads(x) for x in open(os.path.join(out, "events.jsonl"))]
    held = json.load(open(os.path.join(out, "statement.json")))
    # Lehman Brothers Inc.'s payment, Questionnaire and consent are not in it
    assert not any(r["type"] in ("AdditionalInterestPaid", "QuestionnaireDelivered",
                                 "ConsentGiven") and r["data"].get("holder") != FUND_A
                   for r in records)
    # Lehman's Notes up to 2004-08-02, the day it sold Fund A its Notes, are
    issued = [r for r in records if r["type"] == "NotesIssued"]
    assert {r["data"]["holder"] for r in issued} == {"Lehman Brothers Inc."}
    assert held["other_holders"] == {"Lehman Brothers Inc.": {
        "notes_events_up_to": "2004-08-02",
        "why": f"Notes of {FUND_A} came from Lehman Brothers Inc.: which of them are "
               "Transfer Restricted Securities follows from its Notes before then (RRA §1)"}}
    assert held["events_left_out"] > 0
    assert len(records) + held["events_left_out"] == held["checkpoint"]["size"] - \
        _other_deals(fund_a[3])


def _other_deals(db: str) -> int:
    return len(ok(run("log", "--deal", LETTER, "--json", "--db", db)).splitlines())


def test_each_event_is_proved_in_the_checkpoint(fund_a):
    out, _, pub, _ = fund_a
    keys = [notes.verifier_key(open(pub).read())]
    cp = notes.open_checkpoint(open(os.path.join(out, "checkpoint"), "rb").read(), keys)
    entries = json.load(open(os.path.join(out, "proofs.json")))["events"]
    records = [json.loads(x) for x in open(os.path.join(out, "events.jsonl"))]
    import base64

    for record, entry in zip(records, entries):
        path = [base64.b64decode(p) for p in entry["proof"]]
        assert proofs.verify_inclusion(record["seq"] - 1, cp.checkpoint.size,
                                       proofs.event_leaf(record), path,
                                       cp.checkpoint.root) is None


def _files(out: str) -> dict[str, bytes]:
    return {n: open(os.path.join(out, n), "rb").read() for n in os.listdir(out)}


def _write(out: str, files: dict[str, bytes]) -> None:
    for name in os.listdir(out):
        os.remove(os.path.join(out, name))
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as fh:
            fh.write(data)


def _fails(out: str, pub: str, file: str, words: str) -> None:
    result = run("verify", "--statement", out, "--pubkey", pub)
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"{file}: ") and words in result.stderr, result.stderr


def _resigned(out: str, key: str, records: list, *, checkpoint: bytes | None = None,
              paths: list | None = None) -> dict[str, bytes]:
    """The statement made again by its maker (with its key) from ``records``: a maker
    that left an event out, or proved against another checkpoint."""
    files = _files(out)
    signer = notes.signer_key(open(key).read())
    held = json.loads(files["statement.json"])
    import base64

    entries = {e["seq"]: [base64.b64decode(p) for p in e["proof"]]
               for e in json.loads(files["proofs.json"])["events"]}
    note = (checkpoint or files["checkpoint"]).decode()
    return statements.files_of(records, held, note,
                               paths or [entries[r["seq"]] for r in records], signer)


def test_an_event_dropped_fails(fund_a):
    out, key, pub, _ = fund_a
    files = _files(out)
    lines = files["events.jsonl"].splitlines(keepends=True)
    transfer = next(i for i, x in enumerate(lines) if b'"NotesTransferred"' in x)
    # dropped from the file alone: the manifest's hash
    files["events.jsonl"] = b"".join(lines[:transfer] + lines[transfer + 1:])
    _write(out, files)
    _fails(out, pub, "events.jsonl", "does not match its SHA-256")


def test_an_event_dropped_by_the_maker_fails_when_the_figures_are_made_again(fund_a):
    out, key, pub, _ = fund_a
    records = [json.loads(x) for x in open(os.path.join(out, "events.jsonl"))]
    kept = [r for r in records if not (r["type"] == "NotesTransferred"
                                       and r["data"]["to_holder"] == FUND_A)]
    _write(out, _resigned(out, key, kept))   # signed with the right key, figures kept
    _fails(out, pub, "statement.json", "an event it rests on is missing or was changed")


def test_an_edited_event_fails(fund_a):
    out, key, pub, _ = fund_a
    records = [json.loads(x) for x in open(os.path.join(out, "events.jsonl"))]
    i = next(k for k, r in enumerate(records) if r["type"] == "NotesTransferred"
             and r["data"]["to_holder"] == FUND_A)
    records[i]["data"]["principal"] = "30000000"
    edited = _resigned(out, key, records)
    _write(out, edited)
    _fails(out, pub, "events.jsonl", "the hash does not match the event's content")
    # its hash recomputed too: not the event the checkpoint's tree holds
    records[i]["hash"] = proofs.event_hash(records[i])
    _write(out, _resigned(out, key, records))
    _fails(out, pub, "proofs.json", f"seq {records[i]['seq']}: the event is not in the "
                                    "checkpoint's tree")


def test_a_changed_figure_fails(fund_a):
    out, key, pub, _ = fund_a
    files = _files(out)
    files["statement.json"] = files["statement.json"].replace(b'"2777.78"', b'"3777.78"')
    _write(out, files)
    _fails(out, pub, "statement.json", "does not match its SHA-256")


def test_another_key_fails(fund_a, tmp_path):
    out, _, _, _ = fund_a
    other = str(tmp_path / "other.key")
    ok(run("keygen", "--name", "ledger.example.com/demo", "--out", other,
           "--db", str(tmp_path / "n.db")))
    _fails(out, other + ".pub", "manifest.sig", "not signed by the key given")


def test_an_older_checkpoint_in_its_place_fails(demo, fund_a, tmp_path):
    """A checkpoint signed earlier (fewer events) put in the statement's place: the
    proofs were made in the later tree and lead to its root, not the older one's."""
    db, key, pub = demo
    out = fund_a[0]
    # the ledger grows and a new statement is made; the old checkpoint is replayed
    old = open(os.path.join(out, "checkpoint"), "rb").read()
    ok(run("record", "HoldersAdvised", "--deal", RRA, "--date", "2007-12-31", "--db", db,
           "about=year-end"))
    later = str(tmp_path / "later")
    ok(run("statement", RRA, "--holder", FUND_A, "--key", key, "--out", later,
           "--as-of", "2007-12-31", "--db", db))
    records = [json.loads(x) for x in open(os.path.join(later, "events.jsonl"))]
    _write(later, _resigned(later, key, records, checkpoint=old))
    _fails(later, pub, "proofs.json", "the event is not in the checkpoint's tree")


def test_against_a_checkpoint_signed_before(demo, tmp_path):
    db, key, pub = demo
    cp = str(tmp_path / "cp")
    ok(run("checkpoint", "--key", key, "--out", cp, "--db", db))
    ok(run("record", "HoldersAdvised", "--deal", RRA, "--date", "2007-12-31", "--db", db,
           "about=year-end"))
    out = str(tmp_path / "st")
    ok(run("statement", RRA, "--holder", FUND_A, "--key", key, "--checkpoint", cp,
           "--out", out, "--as-of", "2007-12-31", "--db", db))
    assert open(os.path.join(out, "checkpoint")).read() == open(cp).read()
    ok(run("verify", "--statement", out, "--pubkey", pub))


def test_a_warrantholders_statement(demo, tmp_path):
    """Letter ¶3: Price Family Limited Partners exercised W-PRICE for 100,000 shares at
    4.00 on 2003-03-03; after the Camden vesting of 2004-09-30 the price is 3.8928, so
    the shares due are 400,000 / 3.8928 = 102,753.0... -> 102,753, and 2,753 are owed."""
    db, key, pub = demo
    out = str(tmp_path / "price")
    ok(run("statement", LETTER, "--holder", "Price Family Limited Partners", "--key", key,
           "--out", out, "--as-of", "2007-12-31", "--db", db))
    ok(run("verify", "--statement", out, "--pubkey", pub))
    figures = json.load(open(os.path.join(out, "statement.json")))["figures"]
    assert figures['true_up.holders."Price Family Limited Partners".owed'] == 2753
    records = [json.loads(x) for x in open(os.path.join(out, "events.jsonl"))]
    assert not any(r["data"].get("holder") == "Benake L.P." for r in records)


def test_statement_refusals(demo, tmp_path):
    db, key, _ = demo
    assert "Holder" in refused(run("statement", RRA, "--holder", "Nobody", "--key", key,
                                   "--out", str(tmp_path / "x"), "--db", db), 2)
    os.mkdir(tmp_path / "full")
    (tmp_path / "full" / "f").write_text("x")
    assert "never written over" in refused(run("statement", RRA, "--holder", FUND_A, "--key",
                                               key, "--out", str(tmp_path / "full"),
                                               "--db", db), 2)
    assert "--pubkey" in refused(run("verify", "--statement", str(tmp_path / "full")), 2)


def test_figures_that_rest_on_more_keep_every_event(demo, tmp_path, monkeypatch):
    """Should a Holder's figures computed from its events and the deal's differ from the
    whole report's (a reading under which they rest on the other Holders'), the statement
    keeps every event and says how many of other Holders' it kept."""
    from projections import holder as holders

    db, key, pub = demo
    real = holders.kept_for
    monkeypatch.setattr(holders, "kept_for", lambda events, h: (
        lambda kept, left, came: ([e for e in kept if e.type != "NotesTransferred"],
                                  left + [e for e in kept if e.type == "NotesTransferred"],
                                  came))(*real(events, h)))
    out = str(tmp_path / "all")
    ok(run("statement", RRA, "--holder", FUND_A, "--key", key, "--out", out,
           "--as-of", "2007-12-31", "--db", db))
    held = json.load(open(os.path.join(out, "statement.json")))
    assert held["events_left_out"] == 0
    assert held["other_holders_events_kept"] > 0
    ok(run("verify", "--statement", out, "--pubkey", pub))
