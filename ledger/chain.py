"""Verifying the log's hash chain (SPEC §3): each event's ``hash`` is SHA-256 over its
canonical JSON including ``prev_hash``, and ``prev_hash`` is the hash before it.

The walk follows the notification log (the order rows were committed) and hashes every
record exactly as stored, never an upcast copy (``ledger.upcasting``), so a changed byte,
a deleted row, two swapped rows or a cut-off tail each name the first bad ``seq``.

Rewriting the whole chain after an edit (and the chain head with it) leaves the log
self-consistent: only a copy kept elsewhere can show it. ``expect`` is that copy:

* a head hash (what ``verify`` printed): the log must still contain it;
* ``SEQ:HASH``: the event at ``SEQ`` must still have that hash;
* a file of ``log --json`` lines kept earlier: every event in it must still have its
  hash, so the first rewritten event is named exactly.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any

from eventsourcing.persistence import PersistenceError

from .errors import StoreError, UsageError
from .store import GENESIS, Ledger, record_hash

HASH = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Verdict:
    ok: bool
    count: int
    head_hash: str
    bad_seq: int | None = None
    reason: str | None = None

    def line(self) -> str:
        if self.ok:
            return f"ok: {self.count} events, head {self.head_hash}"
        if self.bad_seq is None:
            return str(self.reason)
        return f"seq {self.bad_seq}: {self.reason}"


@dataclass(frozen=True)
class Witness:
    """What a copy kept elsewhere says the log held: ``by_seq`` hashes, or a ``head``
    hash somewhere in it."""

    by_seq: dict[int, str]
    head: str | None
    source: str

    @property
    def last_seq(self) -> int:
        return max(self.by_seq, default=0)


def witness(expect: str | None) -> Witness | None:
    """Parse ``--expect``: a head hash, ``SEQ:HASH``, or a file of ``log --json`` lines."""
    if expect is None:
        return None
    text = expect.strip()
    if HASH.fullmatch(text.lower()):
        return Witness({}, text.lower(), f"the expected head {text.lower()}")
    seq, sep, value = text.partition(":")
    if sep and seq.isdigit() and HASH.fullmatch(value.lower()):
        return Witness({int(seq): value.lower()}, None,
                       f"the expected hash of seq {int(seq)}")
    if os.path.isfile(expect):
        return _witness_file(expect)
    raise UsageError("give a head hash (64 hex digits), SEQ:HASH, or a file of "
                     "`deal-ledger log --json` lines kept earlier", field="--expect")


def _witness_file(path: str) -> Witness:
    by_seq: dict[int, str] = {}
    try:
        with open(path, "rb") as fh:
            for number, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw.decode("utf-8-sig"))
                    seq, value = record["seq"], record["hash"]
                except (ValueError, KeyError, TypeError):
                    raise UsageError(f"line {number} of {path} is not a `log --json` record "
                                     "with seq and hash", field="--expect") from None
                if not isinstance(seq, int) or not isinstance(value, str) \
                        or not HASH.fullmatch(value):
                    raise UsageError(f"line {number} of {path} has no valid seq and hash",
                                     field="--expect")
                by_seq[seq] = value
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}", field="--expect") from None
    if not by_seq:
        raise UsageError(f"{path} holds no records", field="--expect")
    return Witness(by_seq, None, f"the copy in {path}")


def verify(ledger: Ledger, expect: str | None = None) -> Verdict:
    kept = witness(expect)
    expected_seq, prev = 1, GENESIS
    seen_head = kept is None or kept.head in (None, GENESIS)
    recorder, mapper = ledger.app.recorder, ledger.app.mapper
    position = 0

    def bad(seq: int | None, reason: str) -> Verdict:
        return Verdict(False, expected_seq - 1, prev, seq, reason)

    while True:
        try:
            page = recorder.select_notifications(start=position, limit=2000,
                                                 topics=ledger._topics,
                                                 inclusive_of_start=False)
        except PersistenceError as err:
            raise StoreError(f"cannot read the ledger: {' '.join(str(err).split())[:300]}"
                             ) from None
        if not page:
            break
        for n in page:
            try:
                record: Any = mapper.to_domain_event(n).record
                if not isinstance(record, dict):
                    raise TypeError("not a record")
                stated_seq = record["seq"]
            except Exception:
                return bad(expected_seq, "the stored bytes of this event cannot be decoded "
                                         f"(notification {n.id} was altered)")
            if stated_seq != expected_seq:
                what = ("missing or out of order" if isinstance(stated_seq, int)
                        and stated_seq > expected_seq else "out of order")
                return bad(expected_seq, f"event {what}: the log has seq {stated_seq} here")
            if record.get("prev_hash") != prev:
                return bad(expected_seq,
                           "prev_hash does not match the hash of the event before it")
            try:
                actual = record_hash(record)
            except Exception:
                actual = None
            if actual != record.get("hash"):
                return bad(expected_seq,
                           "hash does not match the event's content (it was changed)")
            if kept is not None:
                want = kept.by_seq.get(expected_seq)
                if want is not None and want != record["hash"]:
                    return bad(expected_seq, f"its hash differs from {kept.source}: the "
                                             "history up to here was rewritten")
            prev = record["hash"]
            if kept is not None and prev == kept.head:
                seen_head = True
            expected_seq += 1
        position = page[-1].id
    head = ledger.head()
    count = expected_seq - 1
    if head.seq != count or head.hash != prev:
        return Verdict(False, count, prev, count + 1,
                       f"the chain head says seq {head.seq} but the log ends at seq {count} "
                       "(events were removed)")
    if kept is not None and kept.last_seq > count:
        return Verdict(False, count, prev, count + 1,
                       f"the log ends at seq {count} but {kept.source} goes to seq "
                       f"{kept.last_seq}: events were removed")
    if not seen_head:
        return Verdict(False, count, prev, None,
                       f"the log no longer extends {kept.source}: history before it was "
                       "rewritten")
    return Verdict(True, count, prev)
