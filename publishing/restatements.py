"""Restatements read from the ledger (``deal-ledger restatements DEAL --from X [--to Y]``,
and an auditor pack made against a previous one): every figure that changed between two
states of knowledge, with the events that moved it (``projections.restatement``), and
the consistency proof between the two heads.

A point (``--from``, ``--to``) is one of:

* a **signed checkpoint** (a file; with ``--pubkey``): the log's first ``size`` events,
  proved to be what it signed: the tree kept beside the log has its root at that size,
  and each of the deal's events up to it is that tree's leaf;
* an **auditor pack** (a directory): its events, up to its head, checked offline
  (``verify_pack``) and held against the ledger's, seq by seq; its as_of and readings
  are the restatement's unless given;
* a **time** (``--known-at`` form): what the ledger had recorded by then;
* nothing (``--to`` not given): the ledger now.

The consistency proof (RFC 6962) from the earlier head to the later comes from the tree
kept beside the log and is checked by ``ledger.proofs`` against the two roots (a
checkpoint's signed root where there is one).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Mapping, Sequence

from ledger import notes, proofs
from ledger.errors import StoreError, UsageError


@dataclass
class Point:
    """One end of a restatement: what it is, the events it knows (up to ``seq``, recorded
    by ``known_at``), the log's size there, and its root where a signature gives it."""

    what: str
    seq: int | None
    known_at: datetime | None = None
    root: bytes | None = None
    pack: dict[str, Any] = field(default_factory=dict)   # a pack's manifest


def _point(ledger: Any, view: Any, spec: str, keys: Sequence[notes.VerifierKey] | None,
           deal: str, name: str) -> Point:
    from ledger.store import treeread

    from . import reading

    if os.path.isdir(spec):
        from .pack import verify_pack

        verdict = verify_pack(spec, keys or None)
        if not verdict.ok:
            raise UsageError(f"the pack {spec} does not verify: {verdict.line()}", field=name)
        with open(os.path.join(spec, "manifest.json"), "rb") as fh:
            manifest = json.loads(fh.read())
        if manifest["deal"] != deal:
            raise UsageError(f"the pack {spec} is of deal {manifest['deal']}, not {deal}",
                             field=name)
        with open(os.path.join(spec, "events.jsonl"), "rb") as fh:
            packed = [json.loads(line) for line in fh.read().splitlines() if line.strip()]
        held = {r["seq"]: r["hash"] for r in ledger.deal_records(deal)}
        for record in packed:
            if held.get(record["seq"]) != record["hash"]:
                raise StoreError(f"the pack {spec} holds seq {record['seq']}, which is not the "
                                 "ledger's event of that seq: it is not a pack of this ledger, "
                                 "or the ledger was rewritten (verify --pack --against-ledger)")
        head = manifest["ledger"]["head_seq"]
        known = manifest.get("known_at")
        return Point(f"the pack {spec} (head seq {head})", head,
                     reading.known_at_time(known) if known else None, pack=manifest)
    if os.path.isfile(spec):
        from .checkpoints import describe, open_checkpoint

        if not keys:
            raise UsageError("a checkpoint is read with the key that signed it: give "
                             "--pubkey KEY.pub", field="--pubkey")
        signed = open_checkpoint(spec, keys, field=name)
        size = signed.checkpoint.size
        try:
            tiles = treeread.tiles(view, size)
            stored = tiles.root(size)
        except (LookupError, StoreError):
            stored = None
        if stored != signed.checkpoint.root:
            raise StoreError(f"the ledger does not extend the checkpoint {spec}: its tree at "
                             f"size {size} is not the one signed (verify --checkpoint "
                             f"{spec} names the first event that differs)")
        for record in ledger.deal_records(deal):
            if record["seq"] <= size and tiles.leaf(record["seq"] - 1) != \
                    proofs.event_leaf(record):
                raise StoreError(f"seq {record['seq']}: the deal's event is not the one the "
                                 f"checkpoint {spec} signed (verify --checkpoint {spec})")
        return Point(f"the checkpoint {spec} ({describe(signed)})", size,
                     root=signed.checkpoint.root)
    moment = reading.known_at_time(spec)
    if moment is None:
        raise UsageError("give a checkpoint file, a pack directory or a time", field=name)
    return Point(f"what was recorded by {spec}", treeread.size_known_at(view, moment),
                 known_at=moment)


def restatements(ledger: Any, deal: str, since: str, until: str | None = None, *,
                 as_of: date | None, today: date,
                 interpretations: Mapping[str, str] | None = None,
                 keys: Sequence[notes.VerifierKey] | None = None) -> dict[str, Any]:
    """The restatements of ``deal`` from ``since`` to ``until`` (module doc), as
    ``projections.restatement`` gives them, with both ends described and the
    consistency proof between their heads."""
    from ledger.store import treeread
    from ledger.store.stable import stable_view
    from projections.restatement import Knowledge, restatements as compute

    from . import reading

    treeread.catch_up(ledger)
    events = reading.deal_events(ledger, deal)
    with stable_view(ledger) as view:
        start = _point(ledger, view, since, keys, deal, "--from")
        if until is None:
            head = treeread.stored_size(view) or 0
            end = Point("the ledger now", head)
        else:
            end = _point(ledger, view, until, keys, deal, "--to")
        consistency = _consistency(view, start, end)
    pack = start.pack
    if as_of is None:
        as_of = date.fromisoformat(pack["as_of"]) if pack else today
    if interpretations is None and pack:
        interpretations = pack["interpretations"]
    result = compute(events, as_of=as_of,
                     before=Knowledge(start.seq, start.known_at),
                     after=Knowledge(end.seq, end.known_at),
                     interpretations=interpretations)
    result["before"]["what"], result["after"]["what"] = start.what, end.what
    result["consistency"] = consistency
    return result


def _consistency(view: Any, start: Point, end: Point) -> dict[str, Any]:
    """The RFC 6962 consistency proof from ``start``'s head to ``end``'s, from the tree
    kept beside the log, checked against their roots (a checkpoint's signed root where
    there is one, else the tree's own)."""
    from ledger.store import treeread

    old, new = start.seq or 0, end.seq or 0
    if old > new:
        raise UsageError(f"--from ({start.what}) is later than --to ({end.what})",
                         field="--to")
    tiles = treeread.tiles(view, new)
    old_root = start.root or tiles.root(old)
    new_root = end.root or tiles.root(new)
    proof = tiles.consistency(old, new)
    why = proofs.verify_consistency(old, new, old_root, new_root, proof)
    if why is not None:
        raise StoreError(f"the log at {end.what} does not extend the log at {start.what}: "
                         f"{why}")
    return {"from_size": old, "to_size": new, "from_root": old_root.hex(),
            "to_root": new_root.hex(), "proof": [p.hex() for p in proof], "checked": True}


def lines(result: Mapping[str, Any]) -> list[str]:
    """The restatements as lines for a person."""
    before, after = result["before"], result["after"]
    out = [f"{result['deal']} as of {result['as_of']}: {len(result['restated'])} figure(s) "
           f"restated from {before['what']} to {after['what']} ({result['events_between']} "
           "event(s) recorded between)"]
    for item in result["restated"]:
        clause = f" [{item['clause']}]" if item.get("clause") else ""
        if item["status"] == "changed":
            change = f"{_short(item['before'])} -> {_short(item['after'])}"
        else:
            change = item["status"]
        out.append(f"  {item['figure']}: {change}{clause}")
        for moved in item["moved_by"]:
            said = ", ".join(f"seq {e['seq']} {e['type']} {e['date']}" for e in moved["events"])
            out.append(f"      recorded {moved['known_at']}: {said}")
    c = result["consistency"]
    out.append(f"consistency proof {c['from_size']} -> {c['to_size']}: {len(c['proof'])} "
               "hash(es), checked against both roots")
    return out


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


# ------------------------------------------------------------ a pack's previous pack


def against(path: str, deal: str, ledger: Any) -> Any:
    """For ``pack.export(previous=...)``: the previous pack at ``path``, checked now, and
    a function of the new pack's head giving what ``build_pack`` restates from."""
    previous_pack(path, deal)
    return lambda head_seq: previous_pack(path, deal, ledger, head_seq)


def previous_pack(path: str, deal: str, ledger: Any = None, head_seq: int | None = None
                  ) -> dict[str, Any]:
    """What a pack made against ``path`` restates from: the previous pack's head, the
    day and readings its figures were computed for (checked offline first), and, from
    ``ledger``, the consistency proof from that head to ``head_seq``."""
    from .pack import verify_pack

    verdict = verify_pack(path)
    if not verdict.ok:
        raise UsageError(f"the previous pack does not verify: {verdict.line()}",
                         field="--previous")
    with open(os.path.join(path, "manifest.json"), "rb") as fh:
        manifest = json.loads(fh.read())
    if manifest["deal"] != deal:
        raise UsageError(f"{path} is a pack of deal {manifest['deal']}, not {deal}",
                         field="--previous")
    found = {"head_seq": manifest["ledger"]["head_seq"],
             "head_hash": manifest["ledger"]["head_hash"], "as_of": manifest["as_of"],
             "known_at": manifest.get("known_at"),
             "interpretations": manifest["interpretations"]}
    if ledger is not None:
        from ledger.store import treeread
        from ledger.store.stable import stable_view

        treeread.catch_up(ledger)
        with stable_view(ledger) as view:
            start = _point(ledger, view, path, None, deal, "--previous")
            found["consistency"] = _consistency(view, start, Point("this pack", head_seq))
    return found
