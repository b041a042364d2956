"""Holder statements (``deal-ledger statement DEAL --holder H``; ``verify --statement DIR
--pubkey KEY.pub``): one Holder's own figures, proved to it without the other Holders'
positions.

What a statement directory holds (every name below, and nothing else):

* ``statement.json``: the deal, the Holder, the day (``as_of``) and readings, the
  Holder's figures by path (``projections.holder``) each with its explanation
  (``projections.explain``: rule, clause, events, arithmetic), which other Holders'
  events it keeps and why (the Holders its Notes came from), and how many events of
  the deal it leaves out;
* ``events.jsonl``: the events the figures rest on (the deal's own and the Holder's,
  ``projections.holder.kept_for``), exactly as stored;
* ``checkpoint``: a signed checkpoint of the ledger (``ledger.notes``) at least as long
  as the last of them;
* ``proofs.json``: for each event, its RFC 6962 inclusion proof in the checkpoint's tree;
* ``index.html``: the figures and events as one self-contained page;
* ``manifest.json``: every other file's SHA-256; ``manifest.sig``: a signed note of the
  deal, the Holder and the manifest's SHA-256, by the key that makes the statement.

``verify_statement`` needs nothing but the directory and the verifier keys: the
manifest's signature and every file's hash (an event dropped, added or edited changes
``events.jsonl``); the checkpoint's signature; each event's hash from its bytes and its
inclusion proof against the signed root (``ledger.proofs``, not the writer's code);
then the figures recomputed from the statement's events alone, which must equal the
statement's, and the page made again from them, which must equal ``index.html``. A
maker that signs a statement missing an event the figures rest on is caught there.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from datetime import date
from typing import Any, Mapping, Sequence

from ledger import notes, proofs
from ledger.errors import StoreError, UsageError

from .faults import Fault, FileVerdict, read

FORMAT = "deal-ledger holder statement 1"
FILES = ("statement.json", "events.jsonl", "checkpoint", "proofs.json", "index.html")
MANIFEST, SIGNATURE = "manifest.json", "manifest.sig"
MAX_FILE = 256 * 1024 * 1024


def _json(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _line(record: Mapping[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


# ----------------------------------------------------------------------- the content


def content(records: Sequence[Mapping[str, Any]], holder: str, *, as_of: date,
            interpretations: Mapping[str, str] | None, left_out: int,
            checkpoint: notes.Checkpoint) -> dict[str, Any]:
    """``statement.json`` of the Holder's statement from ``records`` (the events it
    keeps): a pure function of them and the arguments, as ``verify_statement`` makes it
    again."""
    from ledger.events import Event
    from projections import holder as holders
    from projections.explain import explain
    from projections.interpretations import resolve
    from projections.report import report

    events = [Event.from_record(r) for r in records]
    in_force = resolve(interpretations)
    made = report(events, as_of=as_of, interpretations=in_force)
    figures = holders.figures(made, holder)
    explained = {}
    for path in figures:
        try:
            explained[path] = explain(made, path, events)["explanation"]
        except ValueError:
            explained[path] = None
    _, beyond, came_from = holders.kept_for(events, holder)
    return {
        "format": FORMAT, "deal": made["deal"], "kind": made["kind"], "holder": holder,
        "as_of": as_of.isoformat(), "interpretations": in_force,
        "checkpoint": {"origin": checkpoint.origin, "size": checkpoint.size,
                       "root": base64.b64encode(checkpoint.root).decode("ascii")},
        "figures": figures,
        "explanations": explained,
        "events": len(records), "events_left_out": left_out,
        # the other Holders' events kept because, under the readings in force, the
        # Holder's figures computed without them differed (``projections.holder``)
        "other_holders_events_kept": len(beyond),
        "other_holders": {h: {"notes_events_up_to": d.isoformat(),
                              "why": f"Notes of {holder} came from {h}: which of them are "
                                     "Transfer Restricted Securities follows from its Notes "
                                     "before then (RRA §1)"}
                          for h, d in sorted(came_from.items())},
        "verify": "deal-ledger verify --statement DIR --pubkey KEY.pub",
    }


def files_of(records: Sequence[Mapping[str, Any]], statement: Mapping[str, Any],
             checkpoint_note: str, paths: Sequence[Sequence[bytes]],
             key: notes.SignerKey) -> dict[str, bytes]:
    """Every file of the statement, the manifest signed with ``key``."""
    from .statement_html import render

    files = {
        "statement.json": _json(statement),
        "events.jsonl": "".join(_line(r) + "\n" for r in records).encode("utf-8"),
        "checkpoint": checkpoint_note.encode("utf-8"),
        "proofs.json": _json({"events": [
            {"seq": r["seq"], "leaf_index": r["seq"] - 1,
             "proof": [base64.b64encode(p).decode("ascii") for p in path]}
            for r, path in zip(records, paths)]}),
        "index.html": render(statement, records).encode("utf-8"),
    }
    manifest = {"format": FORMAT, "deal": statement["deal"], "holder": statement["holder"],
                "files": {n: hashlib.sha256(d).hexdigest() for n, d in sorted(files.items())}}
    files[MANIFEST] = _json(manifest)
    files[SIGNATURE] = notes.sign(_signed_text(statement["deal"], statement["holder"],
                                               files[MANIFEST]), key).encode("utf-8")
    return files


def _signed_text(deal: str, holder: str, manifest: bytes) -> str:
    return (f"{FORMAT}\n{deal}\n{holder}\nmanifest.json sha256 "
            f"{hashlib.sha256(manifest).hexdigest()}\n")


# ------------------------------------------------------------------------- making


@dataclass(frozen=True)
class Made:
    out: str
    events: int
    left_out: int
    figures: int
    checkpoint_size: int

    def line(self) -> str:
        return (f"wrote the statement to {self.out}: {self.figures} figures from "
                f"{self.events} events ({self.left_out} of the deal's left out), each "
                f"proved in the checkpoint of size {self.checkpoint_size}")


def make(ledger: Any, deal: str, holder: str, out: str, *, as_of: date,
         key: notes.SignerKey, now: int, checkpoint_path: str | None = None,
         keys: Sequence[notes.VerifierKey] = (),
         interpretations: Mapping[str, str] | None = None) -> Made:
    """Write the statement of ``holder`` in ``deal`` to the new directory ``out`` (module
    doc): against the signed checkpoint at ``checkpoint_path`` (its signature checked
    with ``keys`` and ``key``), else a new checkpoint signed with ``key`` once the chain
    verifies."""
    from ledger.events import Event
    from ledger.store import treeread
    from ledger.store.stable import stable_view
    from projections import holder as holders
    from projections.report import report

    from . import reading
    from .checkpoints import make_checkpoint, open_checkpoint
    from .outputs import new_directory, write_directory

    new_directory(out, "a statement")
    if checkpoint_path is not None:
        signed = open_checkpoint(checkpoint_path, [key.verifier, *keys])
        checkpoint, note = signed.checkpoint, signed.note
    else:
        note, checkpoint = make_checkpoint(ledger, key, now=now)
    treeread.catch_up(ledger)
    size = checkpoint.size
    records = [r for r in ledger.deal_records(deal) if r["seq"] <= size]
    if not records:
        reading.deal_events(ledger, deal)   # a UsageError naming the known deals
        raise UsageError(f"deal {deal} has no event in the checkpoint of size {size}",
                         field="--checkpoint")
    events = [Event.from_record(r) for r in records]
    if holder not in holders.holders_of(events):
        known = ", ".join(sorted(holders.holders_of(events))) or "none"
        raise UsageError(f"no Holder {holder!r} in deal {deal} (its Holders: {known})",
                         field="--holder")
    reading.check_opened(events, None)
    kept, left, _ = holders.kept_for(events, holder)
    whole = holders.figures(report(events, as_of=as_of, interpretations=interpretations),
                            holder)
    if holders.figures(report(kept, as_of=as_of, interpretations=interpretations),
                       holder) != whole:
        kept, left = events, []   # they rest on more (module doc of projections.holder)
    chosen = [r for r in records if r["id"] in {e.id for e in kept}]
    with stable_view(ledger) as view:
        tiles = treeread.tiles(view, size)
        if tiles.root(size) != checkpoint.root:
            raise StoreError(f"the ledger's tree at size {size} is not the checkpoint's: "
                             "run `deal-ledger verify --checkpoint` with it")
        paths = [tiles.inclusion(r["seq"] - 1, size) for r in chosen]
    for record, path in zip(chosen, paths):
        if proofs.verify_inclusion(record["seq"] - 1, size, proofs.event_leaf(record), path,
                                   checkpoint.root) is not None:
            raise StoreError(f"seq {record['seq']}: the event is not the one the checkpoint "
                             "signed: run `deal-ledger verify --checkpoint`")
    statement = content(chosen, holder, as_of=as_of, interpretations=interpretations,
                        left_out=len(left), checkpoint=checkpoint)
    files = files_of(chosen, statement, note, paths, key)
    write_directory(out, files, prefix=".statement-", what="the statement")
    return Made(out, len(chosen), len(left), len(statement["figures"]), size)


# ------------------------------------------------------------------------ checking


def verify_statement(path: str, keys: Sequence[notes.VerifierKey]) -> FileVerdict:
    """Check a statement offline (module doc): the first fault named by its file."""
    if not os.path.isdir(path):
        raise UsageError(f"no statement directory at {path}", field="--statement")
    try:
        return _verify(path, keys)
    except Fault as bad:
        return FileVerdict(False, bad.reason, bad.file)


def _read(path: str, name: str) -> bytes:
    return read(path, name, "statement", MAX_FILE)


def _verify(path: str, keys: Sequence[notes.VerifierKey]) -> FileVerdict:
    present = set(os.listdir(path))
    for name in sorted(present - {*FILES, MANIFEST, SIGNATURE}):
        raise Fault(name, "is not a file of a statement (a file was added)")
    manifest_bytes = _read(path, MANIFEST)
    try:
        manifest = json.loads(manifest_bytes)
        deal, holder, listed = manifest["deal"], manifest["holder"], manifest["files"]
        if manifest["format"] != FORMAT or sorted(listed) != sorted(FILES):
            raise ValueError
    except (ValueError, KeyError, TypeError):
        raise Fault(MANIFEST, f"is not a {FORMAT!r} manifest") from None
    try:
        signed = notes.open_note(_read(path, SIGNATURE), keys)
    except notes.NoteError as err:
        raise Fault(SIGNATURE, str(err)) from None
    if signed.text != _signed_text(deal, holder, manifest_bytes):
        raise Fault(SIGNATURE, "signs another manifest, deal or Holder (a file was changed)")
    contents = {}
    for name in FILES:
        data = _read(path, name)
        if hashlib.sha256(data).hexdigest() != listed[name]:
            raise Fault(name, "does not match its SHA-256 in the manifest (the file was "
                             "changed)")
        contents[name] = data
    try:
        checkpoint = notes.open_checkpoint(contents["checkpoint"], keys)
    except notes.NoteError as err:
        raise Fault("checkpoint", str(err)) from None
    records = _events(contents["events.jsonl"], deal)
    _proofs(contents["proofs.json"], records, checkpoint.checkpoint)
    try:
        held = json.loads(contents["statement.json"])
        as_of = date.fromisoformat(held["as_of"])
        fresh = content(records, holder, as_of=as_of,
                        interpretations=held["interpretations"],
                        left_out=held["events_left_out"], checkpoint=checkpoint.checkpoint)
    except (ValueError, KeyError, TypeError, ArithmeticError) as err:
        raise Fault("statement.json", f"cannot be made again from events.jsonl: {err}") \
            from None
    if held["figures"] != fresh["figures"]:
        wrong = next(p for p in {*held["figures"], *fresh["figures"]}
                     if held["figures"].get(p) != fresh["figures"].get(p))
        raise Fault("statement.json", f"its figure {wrong} is {held['figures'].get(wrong)} "
                                     f"but the statement's events give "
                                     f"{fresh['figures'].get(wrong)} (an event it rests on "
                                     "is missing or was changed)")
    if held != fresh:
        raise Fault("statement.json", "differs from the statement made again from its "
                                     "events (beyond its figures)")
    from .statement_html import render

    if render(fresh, records).encode("utf-8") != contents["index.html"]:
        raise Fault("index.html", "differs from the page made again from the statement")
    cp = checkpoint.checkpoint
    return FileVerdict(True, (
        f"statement of {holder} in {deal} as of {held['as_of']}: signed by "
        f"{signed.signatures[0].name}; {len(records)} events unaltered, each proved in the "
        f"checkpoint of size {cp.size} ({checkpoint.key.name}); {len(fresh['figures'])} "
        "figures recompute from them alone"))


def _events(data: bytes, deal: str) -> list[dict[str, Any]]:
    records, last = [], 0
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise Fault("events.jsonl", "is not UTF-8 text") from None
    for number, text in enumerate(lines, 1):
        try:
            record = json.loads(text)
            seq = record["seq"]
        except (ValueError, KeyError, TypeError):
            raise Fault("events.jsonl", f"line {number} is not a stored event") from None
        if not isinstance(seq, int) or seq <= last:
            raise Fault("events.jsonl", f"line {number}: seq {seq} is out of order")
        if record.get("deal") != deal:
            raise Fault("events.jsonl", f"line {number} is not an event of {deal}")
        if proofs.event_hash(record) != record.get("hash"):
            raise Fault("events.jsonl", f"line {number} (seq {seq}): the hash does not match "
                                       "the event's content (the event was altered)")
        records.append(record)
        last = seq
    if not records:
        raise Fault("events.jsonl", "holds no events")
    return records


def _proofs(data: bytes, records: Sequence[Mapping[str, Any]],
            checkpoint: notes.Checkpoint) -> None:
    try:
        entries = json.loads(data)["events"]
        paths = [(e["seq"], [base64.b64decode(p, validate=True) for p in e["proof"]])
                 for e in entries]
    except (ValueError, KeyError, TypeError):
        raise Fault("proofs.json", "is not a list of inclusion proofs") from None
    if [s for s, _ in paths] != [r["seq"] for r in records]:
        raise Fault("proofs.json", "does not prove the events of events.jsonl, one each")
    for record, (seq, path) in zip(records, paths):
        why = proofs.verify_inclusion(seq - 1, checkpoint.size, proofs.event_leaf(record),
                                      path, checkpoint.root)
        if why is not None:
            raise Fault("proofs.json", f"seq {seq}: the event is not in the checkpoint's "
                                      f"tree ({why})")
