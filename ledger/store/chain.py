"""Verifying the log's hash chain (SPEC §3): each event's ``hash`` is SHA-256 over its
canonical JSON including ``prev_hash``, and ``prev_hash`` is the hash before it.

The walk reads every row of the store in one consistent view (``ledger.store.stable``), so a
writer appending meanwhile is simply not seen, and hashes every record exactly as
stored, never an upcast copy (``ledger.upcasting``). It proves that what reports read,
each deal's stream, is exactly the chain: every event sits in its own deal's stream at
the next position; every chain-head row names where the log has reached; every sealed
snapshot matches its deal's events. A changed byte, a deleted, swapped or moved row, a
removed head, a cut-off tail or an edited snapshot each name the first bad ``seq``.

Rewriting the whole chain after an edit (and the chain head with it) leaves the log
self-consistent: only a copy kept elsewhere can show it. ``expect`` is that copy:

* a head hash (what ``verify`` printed), or a prefix of it of at least 8 hex digits
  that names one event's hash only (as git takes a commit): the log must still
  contain it;
* ``SEQ:HASH``: the event at ``SEQ`` must still have that hash;
* a file of ``log --json`` lines kept earlier: every event in it must still have its
  hash, so the first rewritten event is named exactly.
"""

from __future__ import annotations

import json
import os
import re
from typing import Callable

from ..collector import paused
from ..errors import LedgerError, UsageError
from ..jsonl import MAX_LINE
from .stable import stable_view
from .verdict import Verdict, Witness
from .walk import Walk
from .writing import Ledger

HASH = re.compile(r"[0-9a-f]{64}")
HASH_PREFIX = re.compile(r"[0-9a-f]{8,63}")


def witness(expect: str | None) -> Witness | None:
    """Parse ``--expect``: a head hash, ``SEQ:HASH``, or a file of ``log --json`` lines."""
    if expect is None:
        return None
    text = expect.strip()
    if HASH.fullmatch(text.lower()) or HASH_PREFIX.fullmatch(text.lower()):
        return Witness({}, text.lower(), f"the expected head {text.lower()}")
    seq, sep, value = text.partition(":")
    if sep and seq.isdigit() and HASH.fullmatch(value.lower()):
        return Witness({int(seq): value.lower()}, None,
                       f"the expected hash of seq {int(seq)}")
    if os.path.isfile(expect):
        return _witness_file(expect)
    raise UsageError("give a head hash (64 hex digits, or its first 8 or more), SEQ:HASH, "
                     "or a file of "
                     "`deal-ledger log --json` lines kept earlier", field="--expect")


def _witness_file(path: str) -> Witness:
    by_seq: dict[int, str] = {}
    try:
        with open(path, "rb") as fh:
            number = 0
            # a line at most twice an event line's limit (a ``log --json`` line is an
            # event and the store's fields): /dev/zero is refused, not read whole
            while raw := fh.readline(2 * MAX_LINE + 1):
                number += 1
                if len(raw) > 2 * MAX_LINE:
                    raise UsageError(f"line {number} of {path} is longer than any "
                                     "`log --json` line", field="--expect")
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


PAGE = 2000


def verify(ledger: Ledger, expect: str | None = None,
           on_progress: Callable[[int], None] | None = None, *, rules: bool = False,
           since: tuple[int, bytes] | None = None, roots_at: tuple[int, ...] = ()
           ) -> Verdict:
    """Walk every row of the store, in one consistent view of it (``ledger.store.stable``),
    and prove that what reports read is exactly the hash chain:

    * the chain: each event's ``seq`` follows the one before, its ``prev_hash`` is that
      event's hash, its hash recomputes from its bytes as stored (and matches ``expect``);
    * the streams: each event is stored in its own deal's stream (the one reports read)
      at the next position of that stream, so no row was moved, swapped or dropped
      between streams while the chain still walks;
    * the heads: each ``ChainAdvanced`` row names the seq and hash the log has reached;
    * the tree: the log's Merkle tree (``ledger.store.merkle``) grown from the events as
      stored equals the one kept beside the log, tile by tile (an event rewritten with
      every hash after it recomputed is named by its leaf); a ledger with no tree, or a
      shorter one, has it built after the walk (``treeread.catch_up``);
    * the snapshots: each deal snapshot that appends would trust equals the state
      folded from the deal's events up to it, as the walk passes it;
    * with ``rules``: each event is judged again as ``append`` judged it, in the order
      it was written: the event format (``ledger.events.parse_event``: types, fields,
      values and their bounds, stored as append stores them) and the deal's rules
      (``ledger.guards.check`` on the deal's state before it, with the rest of its
      batch). An event rewritten with its hash and the chain head recomputed (a
      payment to a name that holds no Notes, a conversion of more than was issued, a
      date in 1850, a field the schema lacks) keeps a valid chain; it breaks a rule.
      What still verifies after a full rewrite of the log that keeps to every rule is
      caught only by a copy of the head kept elsewhere (``expect``), or a signed
      checkpoint (``publishing.checkpoints``).

    ``since``: ``(size, root)`` of a tree head already trusted (a signed checkpoint's):
    only the events after it are walked, from the chain head that closed it, the log's
    first ``size`` events being proved to be that tree by the tree kept beside the log
    (``ledger.store.since``); snapshots are then held to their seals, not rebuilt.
    ``roots_at``: sizes whose tree roots, grown from the events, the verdict gives.

    Events of one batch are checked in ``seq`` order: ledgers written before appends
    stored a batch in seq order may hold one deal's lines of a batch before another's.
    The walk's cost and memory: ``ledger.store.walk``."""
    from . import treeread
    from .since import since_start

    kept = witness(expect)
    with paused(True), stable_view(ledger) as view:
        tree_size = treeread.stored_size(view)
        start = None
        if since is not None:
            start = since_start(ledger, view, since, tree_size)
            if isinstance(start, Verdict):
                return start
        # each deal's events are folded up to its latest snapshot, read and compared
        # there; after a checkpoint, the snapshots of the deals met are held to their
        # seals (``ledger.store.since``)
        snapshots = view.snapshot_versions() if since is None else {}
        walk = Walk(ledger, view, kept, rules, snapshots, tree_size, start,
                    tuple(s for s in roots_at if s > (0 if since is None else since[0])))
        after = 0 if start is None else start.position
        while rows := view.rows_after(after, PAGE):
            if (verdict := walk.page(rows)) is not None:
                return verdict
            after = rows[-1][0]
            if on_progress is not None:
                on_progress(len(rows))  # rows of the store: events and chain heads
        checks = (walk.end, walk.tree_end, walk.snapshots_end) if start is None else \
            (walk.end, walk.tree_end, lambda: start.snapshots_end(walk))  # type: ignore
        for check in checks:
            if (verdict := check()) is not None:
                return verdict
        verdict = walk.verdict()
    if tree_size is None or tree_size < verdict.count:
        try:
            treeread.catch_up(ledger, in_memory=False)
        except LedgerError:
            pass   # the tree is built on its first use instead
    return verdict
