"""One walk of the log for ``verify`` (``ledger.store.chain``): every row of the store, in
one consistent view, checked as it streams past.

What it checks is ``chain.verify``'s docstring; how it goes, so that a million events
cost little more than walking the chain in plain Python (benchmarks/FINDINGS.md, issue
34), in memory that does not grow with the batches:

* **pages of raw rows**: the view's rows as the database gives them (no notification
  object, no stream id made a UUID), a page's events decoded in one call of the C JSON
  decoder (the ``record`` of each state joined as one array: the library's transcoder
  would call a Python hook per object, for the timestamp alone), row by row only where
  that fails, so that an altered row is named;
* **events checked as they come**: appends store a batch in seq order, so each event is
  checked when it is read; rows out of order (ledgers written before appends kept to
  it, or altered) are held until the batch's chain head and checked then in seq order;
* **each event hashed once**: its canonical bytes give its ``hash`` and its leaf of the
  log's Merkle tree (``ledger.store.merkle``), grown tile by tile and each tile held
  against the one stored beside the log as soon as it is complete;
* **guard states folded only where a snapshot waits**: a deal's events are folded up to
  its latest snapshot, compared there, and the state dropped; the states held at once
  are bounded (``ledger.store.refold``: a deal beyond the bound is folded after the walk);
* the garbage collector held off: what the walk makes is acyclic and freed as it goes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable

from .. import guards
from ..errors import UsageError
from ..upcasting import upcast
from . import merkle
from .canonical import _canonical_text, deal_id
from .chainhead import CHAIN_ID, GENESIS
from .rows import blob, state_of
from .refold import HELD_EVENTS, fold_records, refold
from .snapshots import MISMATCH, snapshot_problem
from .verdict import Verdict, Witness
from .stream import ChainAdvanced

_RECORD_KEY = b'"record":'
_sha256 = hashlib.sha256
_LEAF_COPY = merkle._LEAF.copy
_WIDTH = merkle.WIDTH
_loads = json.loads


@dataclass
class Start:
    """Where a walk begins when it does not begin at genesis (``verify --since``): after
    the chain head row at ``position`` (chain version ``chain_version``), the event at
    ``seq - 1`` having ``prev`` as its hash and ``last_at`` as its recorded_at, the tree
    grown from ``growth``; ``stream_at(stream)`` gives a deal stream's last version and
    hash before it, or a verdict's reason (a stream first seen after the start)."""

    position: int
    seq: int
    prev: str
    last_at: str | None
    chain_version: int
    growth: merkle.Growth
    stream_at: Callable[[Any, int], tuple[int, str] | str]
    #: after the walk: the snapshots of the deals met, held to their seals
    snapshots_end: Callable[["Walk"], "Verdict | None"] = lambda walk: None


class Walk:
    """The state of one walk: the next seq, the hash before it, each stream's next
    position, the rows held out of order, the tree grown so far."""

    def __init__(self, ledger: Any, view: Any, kept: Witness | None, rules: bool = False,
                 snapshots: dict[Any, int] | None = None, tree_size: int | None = None,
                 start: Start | None = None, roots_at: tuple[int, ...] = ()):
        self.ledger, self.view = ledger, view
        self.rules = rules
        # stream -> the version of its latest snapshot (``StableView.snapshot_versions``):
        # its events are folded up to it, and the snapshot read and compared there
        self.snapshots = snapshots or {}
        self.states: dict[Any, dict[str, Any]] = {}  # stream -> guard state folded so far
        self.held_events = 0                    # events the states held will hold
        self.deferred: set[Any] = set()         # deals folded after the walk (``refold``)
        self.to_fold: list[tuple[Any, dict[str, Any]]] = []  # the page's, to fold
        self.same: dict[str, str] = {}          # one string for each type and date folded
        self.snapshot_bad: Verdict | None = None     # the first snapshot that is wrong
        self.mapper = ledger.app.mapper
        self.plain = ledger.plain_json
        self.kept = kept
        self.seen_head = kept is None or kept.head in (None, GENESIS)
        self.head_seqs: list[int] = []          # the seqs whose hash is (starts with) kept.head
        self.versions: dict[Any, int] = {}      # stream -> last position seen
        self.deals: dict[Any, str] = {}         # stream -> deal name
        self.deal_last: dict[Any, str] = {}     # stream -> hash of its last event
        self.raw_ids: dict[str, Any] = {}       # deal name -> its stream id as the view has it
        self.held: list[tuple[int, Any, int, str, dict[str, Any]]] = []   # out of order
        self.undecodable: list[int] = []        # positions of the batch that do not decode
        self.started, self.recorded = ledger._topics
        self.advanced = f"{ChainAdvanced.__module__}:{ChainAdvanced.__qualname__}"
        self.chain_raw = view._id(CHAIN_ID)
        self.start = start
        if start is None:
            self.seq, self.prev, self.last_at, self.chain_version = 1, GENESIS, None, 0
            self.growth = merkle.Growth(0, {})
            self.batch_after = 0
        else:
            self.seq, self.prev, self.last_at = start.seq, start.prev, start.last_at
            self.chain_version, self.growth = start.chain_version, start.growth
            self.batch_after = start.position
        self.batch_first = self.seq             # the first seq of the batch being read
        self.tree_size = tree_size              # the stored tree's size (None: none)
        self.leaves: list[bytes] = []           # leaves not yet grown into tiles
        self.roots_at = sorted(set(roots_at))
        self.roots: dict[int, str] = {}
        self._tiles: dict[int, bytes] = {}      # stored level-0 tiles read ahead
        self._tiles_next = -1
        self._batch: Any = None                 # the batch's records, read for --rules

    # ------------------------------------------------------------------ rows

    def bad(self, seq: int | None, reason: str) -> Verdict:
        return Verdict(False, self.seq - 1, self.prev, seq, reason)

    def page(self, rows: list[tuple[Any, ...]]) -> Verdict | None:
        """Check a page of the view's rows (``StableView.rows_after``: position, stream,
        version, topic, state)."""
        chain, started, recorded = self.chain_raw, self.started, self.recorded
        # (a state is bytes on SQLite: ``blob`` only where it is not)
        records = iter(self._records([
            state if type(state := r[4]) is bytes else blob(state) for r in rows
            if r[1] != chain and (r[3] == recorded or r[3] == started)]))
        checked = self.checked
        for r in rows:
            stream, topic = r[1], r[3]
            if stream == chain:
                verdict = self.head_row(r)
            elif topic != recorded and topic != started:
                verdict = self.bad(self.seq, f"notification {r[0]} is a row of an unknown "
                                             f"kind ({str(topic)[:80]}): written outside "
                                             "deal-ledger")
            else:
                # ``row``, inlined: the event checked now if it is the next in seq order
                record = next(records)
                if record is None or record["seq"] != self.seq or self.held \
                        or self.undecodable:
                    self.row(r[0], stream, r[2], topic, record)
                    continue
                verdict = checked(r[0], stream, r[2], topic, record)
            if verdict is not None:
                return verdict
        return self.fold_page()

    def _records(self, states: list[bytes]) -> list[dict[str, Any] | None]:
        """Each state's record (``None``: it does not decode as one): where the store
        holds plain JSON, the records' texts joined and decoded in one call (module
        doc), else row by row through the library's transcoder."""
        if self.plain and states:
            try:
                parts = []
                for state in states:
                    at = state.find(_RECORD_KEY)
                    if at < 0 or state[-1:] != b"}":
                        raise ValueError
                    parts.append(state[at + 9:-1])
                records = _loads(b"[" + b",".join(parts) + b"]")
                if len(records) == len(states):
                    for r in records:
                        if type(r) is not dict or type(r.get("seq")) is not int:
                            break
                    else:
                        return records
            except ValueError:
                pass
        out: list[dict[str, Any] | None] = []
        for state in states:
            try:
                record = (_loads(state) if self.plain else state_of(self.mapper, state)
                          )["record"]
                out.append(record if isinstance(record, dict)
                           and isinstance(record.get("seq"), int) else None)
            except Exception:
                out.append(None)
        return out

    def row(self, position: int, stream: Any, version: int, topic: str,
            record: dict[str, Any] | None) -> Verdict | None:
        if record is None:
            # its seq is unknown until the rest of its batch is in: the first seq the
            # batch lacks is this row's
            self.undecodable.append(position)
            return None
        if record["seq"] != self.seq or self.held or self.undecodable:
            self.held.append((position, stream, version, topic, record))
            return None
        return self.checked(position, stream, version, topic, record)

    def checked(self, position: int, stream: Any, version: int, topic: str,
                record: dict[str, Any]) -> Verdict | None:
        if (verdict := self.event(position, stream, version, topic, record)) is not None:
            return verdict
        if self.rules:
            return self.fold(stream, [record])
        target = self.snapshots.get(stream)
        if target is None or version > target or stream in self.deferred:
            return None
        # folded at the end of the page, deal by deal (``fold_page``)
        self.to_fold.append((stream, record))
        return None

    def fold_page(self) -> Verdict | None:
        """Fold the page's events that a snapshot waits for, a deal's together: its
        state stays in the CPU's caches while they are (one event at a time, interleaved
        deals took half as long again), and no record outlives its page."""
        to_fold, self.to_fold = self.to_fold, []
        if not to_fold:
            return None
        by_stream: dict[Any, list[dict[str, Any]]] = {}
        for stream, record in to_fold:
            found = by_stream.get(stream)
            if found is None:
                by_stream[stream] = [record]
            else:
                found.append(record)
        for stream, records in by_stream.items():
            if (verdict := self.fold(stream, records)) is not None:
                return verdict
        return None

    def undecoded(self, seq: int) -> Verdict:
        return self.bad(seq, "the stored bytes of this event cannot be decoded "
                             f"(notification {self.undecodable[0]} was altered)")

    def head_row(self, r: tuple[Any, ...]) -> Verdict | None:
        """A chain head closes a batch: check the rows held out of order, then that the
        head names where the log now is."""
        if (verdict := self.close_batch()) is not None:
            return verdict
        position, _, version, topic, state = r
        try:
            if topic != self.advanced:
                raise TypeError("not a chain head")
            from eventsourcing.persistence import StoredEvent

            head = self.mapper.to_domain_event(StoredEvent(
                originator_id=CHAIN_ID, originator_version=version, topic=topic,
                state=blob(state)))
        except Exception:
            return self.bad(self.seq, f"the chain head row at notification {position} is "
                                      "not a chain head (it was altered)")
        self.chain_version += 1
        if version != self.chain_version:
            return self.bad(self.seq, f"the chain head at notification {position} is version "
                                      f"{version} where {self.chain_version} was expected "
                                      "(heads were removed or reordered)")
        if self.undecodable:
            return self.undecoded(self.seq)
        last = self.seq - 1
        if head.seq > last:
            return self.bad(self.seq, f"the chain head at notification {position} says seq "
                                      f"{head.seq} but the log before it ends at seq {last} "
                                      "(events were removed)")
        if head.seq < last:
            return self.bad(head.seq + 1, f"the chain head at notification {position} says "
                                          f"seq {head.seq} but the log before it goes to seq "
                                          f"{last} (events were added outside deal-ledger)")
        if head.hash != self.prev:
            return self.bad(last, f"the chain head at notification {position} names another "
                                  f"hash for seq {last} than the event's: the history up to "
                                  "it was rewritten")
        if head.recorded_at != self.last_at:
            # every head carries its last event's recorded_at, and the next append takes
            # it as the floor of its own (recorded_at never goes backwards): a head moved
            # into the future would stamp every later event with its time, hashed for good
            return self.bad(last, f"the chain head at notification {position} says seq "
                                  f"{last} was recorded at {head.recorded_at}, the event "
                                  f"says {self.last_at}: the head was altered")
        self.batch_after, self.batch_first, self._batch = position, self.seq, None
        return None

    def close_batch(self) -> Verdict | None:
        rows, self.held = self.held, []
        rows.sort(key=lambda row: row[4]["seq"])
        for row in rows:
            if (verdict := self.checked(*row)) is not None:
                return verdict
        return None

    # ---------------------------------------------------------------- events

    def event(self, position: int, stream: Any, version: int, topic: str,
              record: dict[str, Any]) -> Verdict | None:
        expected = self.seq
        stated = record["seq"]
        if stated != expected:
            if stated > expected and self.undecodable:
                return self.undecoded(expected)
            what = "missing or out of order" if stated > expected else "out of order"
            return self.bad(expected, f"event {what}: the log has seq {stated} here")
        if record.get("prev_hash") != self.prev:
            return self.bad(expected, "prev_hash does not match the hash of the event before it")
        # the canonical bytes, once: its hash, and its leaf of the tree
        stated_hash = record.pop("hash", None)
        try:
            text = _canonical_text(record).encode("utf-8")
        except Exception:
            text = None
        record["hash"] = stated_hash
        if text is None or _sha256(text).hexdigest() != stated_hash:
            return self.bad(expected, "hash does not match the event's content (it was changed)")
        kept = self.kept
        if kept is not None:
            want = kept.by_seq.get(expected)
            if want is not None and want != stated_hash:
                return self.bad(expected, f"its hash differs from {kept.source}: the "
                                          "history up to here was rewritten")
        deal = record.get("deal")
        raw = None
        if isinstance(deal, str):
            raw = self.raw_ids.get(deal)
            if raw is None:
                raw = self.raw_ids[deal] = self.view._id(deal_id(deal))
        if stream != raw:
            return self.bad(expected, f"it is stored in another stream than its deal's "
                                      f"({deal!r}; notification {position}): the deal's "
                                      "reports would not read it (the row was moved)")
        versions, deal_last = self.versions, self.deal_last
        last = versions.get(stream)
        if last is None:
            last = self._stream_start(stream, version)
            if isinstance(last, Verdict):
                return last
            self.deals[stream] = deal
        if "deal_prev" in record and record["deal_prev"] != deal_last.get(stream, GENESIS):
            return self.bad(expected, f"deal_prev is not the hash of deal {deal}'s event "
                                      "before it (an event of the deal was removed or moved)")
        if version != last + 1 or (topic == self.started) != (last == 0):
            return self.bad(expected, f"event out of order in its deal's stream: stored at "
                                      f"position {version} of deal {deal}'s stream where "
                                      f"{last + 1} was expected (rows were moved, removed or "
                                      "swapped)")
        versions[stream] = version
        deal_last[stream] = self.prev = stated_hash
        self.last_at = record.get("recorded_at")
        if kept is not None and kept.head and stated_hash.startswith(kept.head):
            self.seen_head = True
            self.head_seqs.append(expected)
        self.seq = expected + 1
        leaf = _LEAF_COPY()
        leaf.update(text)
        leaves = self.leaves
        leaves.append(leaf.digest())
        if len(leaves) >= _WIDTH or (self.roots_at and self.roots_at[0] == expected):
            return self.grow()
        return None

    def _stream_start(self, stream: Any, version: int) -> int | Verdict:
        """A stream first seen: from genesis, at version 0; after a start (``--since``),
        where it stood then."""
        if self.start is None:
            return 0
        found = self.start.stream_at(stream, version)
        if isinstance(found, str):
            return self.bad(self.seq, found)
        self.deal_last[stream] = found[1]
        return found[0]

    def fold(self, stream: Any, records: list[dict[str, Any]]) -> Verdict | None:
        """Fold chained events of one deal into its guard state, where the walk needs it:
        every deal's with ``rules`` (each event judged first, as append judged it),
        else a deal's up to its latest snapshot, compared there (``snapshot``) and then
        dropped: the walk holds the states of the deals whose snapshot is still ahead,
        no more."""
        state = self.states.get(stream)
        if state is None:
            if stream in self.deferred:
                return None
            if not self.rules:
                # a state holds the deal's events up to its snapshot: taken only if the
                # states held stay within the bound (or none is held), else the deal is
                # folded after the walk (``refold``)
                target = self.snapshots[stream]
                if self.held_events and self.held_events + target > HELD_EVENTS:
                    self.deferred.add(stream)
                    return None
                self.held_events += target
            state = self.states[stream] = guards.new_state()
        version = self.versions[stream]
        if self.rules:
            fold, same = guards.fold, self.same
            for record in records:
                for key in ("type", "date"):   # as ``fold_records`` does
                    value = record.get(key)
                    if type(value) is str:
                        record[key] = same.setdefault(value, value)
                current = upcast(record)
                from .rejudge import judge

                problem, found = judge(state, current, guards.Batch(self._batch_records),
                                       record["seq"] - self.batch_first)
                if problem is not None:
                    return self.bad(record["seq"], problem)
                fold(state, current, found)
            if self.snapshots.get(stream) == version:
                self.snapshot(stream, version, state, records[-1])
            return None
        fold_records(state, records, self.same)
        if self.snapshots.get(stream) == version:
            self.snapshot(stream, version, state, records[-1])
            del self.states[stream]
            self.held_events -= version
        return None

    def snapshot(self, stream: Any, version: int, state: dict[str, Any],
                 record: dict[str, Any]) -> None:
        """Hold the deal's latest snapshot, read now, against ``state`` folded from its
        events up to it (module doc); the first that is wrong is kept for the end."""
        if self.snapshot_bad is not None:
            return
        what = snapshot_problem(self.ledger, self.view, stream, version, state)
        if what is not None:
            deal = record.get("deal")
            if what == MISMATCH:
                self.snapshot_bad = self.bad(record.get("seq"), (
                    f"the snapshot of deal {deal} taken at this event does not match the "
                    "deal's events (it was altered and re-sealed); appends would have "
                    "trusted it"))
            else:
                self.snapshot_bad = self.bad(None, f"the snapshot of deal {deal} at version "
                                                   f"{version} {what}")

    def _batch_records(self) -> list[dict[str, Any]]:
        """The records of the batch being read, in seq order, upcast (what ``guards``
        reads of the lines after one it would refuse on its own): read again from the
        view, from the last chain head to the next, only when a line needs them."""
        if self._batch is None:
            records = []
            after = self.batch_after
            while rows := self.view.rows_after(after, 2000):
                done = False
                for r in rows:
                    after = r[0]
                    if r[1] == self.chain_raw:
                        done = True
                        break
                    found = self._records([blob(r[4])])[0]
                    if found is not None:
                        records.append(found)
                if done:
                    break
            records.sort(key=lambda r: r["seq"])
            self._batch = [upcast(r) for r in records]
        return self._batch

    # ------------------------------------------------------------------- tree

    def grow(self) -> Verdict | None:
        """Grow the tree by the leaves read so far (at most a tile's, or up to a size
        whose root is asked for), and hold each tile completed against the stored one."""
        leaves, self.leaves = self.leaves, []
        size = self.growth.size + len(leaves)
        for level, idx, data in self.growth.add(leaves):
            if len(data) == merkle.TILE_BYTES:
                if (verdict := self._compare(level, idx, data)) is not None:
                    return verdict
        if self.roots_at and self.roots_at[0] == size:
            self.roots[self.roots_at.pop(0)] = self.root().hex()
        return None

    def root(self) -> bytes:
        """The root of the tree grown so far (from its right edge alone)."""
        growth = self.growth
        edge = {(level, (growth.size >> (merkle.HEIGHT * level)) // merkle.WIDTH): data
                for level, data in growth.edge.items() if data}
        return merkle.Tiles(lambda sql, params: [], "", growth.size, edge).root()

    def _stored_tile(self, level: int, idx: int) -> bytes:
        from . import treestore

        table = treestore.table(self.ledger)
        if level == 0:
            if idx not in self._tiles:
                self._tiles = {r["idx"]: bytes(r["hashes"]) for r in self.view._rows(
                    f"SELECT idx, hashes FROM {table} WHERE level = 0 AND idx >= ? "
                    "ORDER BY idx LIMIT 64", (idx,))}
            return self._tiles.get(idx, b"")
        found = self.view._rows(f"SELECT hashes FROM {table} WHERE level = ? AND idx = ?",
                                (level, idx))
        return bytes(found[0]["hashes"]) if found else b""

    def _compare(self, level: int, idx: int, data: bytes) -> Verdict | None:
        """Hold a tile grown from the events against the stored tree: as much of it as a
        tree of the stored size holds. Each event's hash was checked as it was read, so
        a leaf that differs is an event altered with every hash after it recomputed (or
        the tree altered)."""
        if self.tree_size is None:
            return None
        nodes = self.tree_size >> (merkle.HEIGHT * level)
        want = min(merkle.WIDTH, max(0, nodes - merkle.WIDTH * idx)) * merkle.SIZE
        if want == 0:
            return None
        stored = self._stored_tile(level, idx)
        if stored == data[:want]:
            return None
        if level == 0 and len(stored) == want:
            k = next(i for i in range(0, want, merkle.SIZE)
                     if stored[i:i + merkle.SIZE] != data[i:i + merkle.SIZE]) // merkle.SIZE
            return self.bad(idx * merkle.WIDTH + k + 1, (
                "its leaf in the Merkle tree kept beside the log is not the event's: the "
                "event was altered after it was appended (its hashes recomputed), or the "
                "tree was"))
        first = (idx * merkle.WIDTH << (merkle.HEIGHT * level)) + 1
        return self.bad(None, f"the Merkle tree kept beside the log was altered (its tile "
                              f"{level}/{idx}, over the events from seq {first}): it no "
                              "longer matches the events")

    # ------------------------------------------------------------------- end

    def end(self) -> Verdict | None:
        if self.undecodable:
            return self.undecoded(min([self.seq, *(r[4]["seq"] for r in self.held)]))
        if self.held or self.seq > self.batch_first:
            first = min([self.batch_first, *(r[4]["seq"] for r in self.held)])
            count = len(self.held) + self.seq - self.batch_first
            return self.bad(first, f"{count} event(s) at the end of the log have no chain "
                                   "head after them: written outside deal-ledger, or the "
                                   "head was removed")
        count, kept = self.seq - 1, self.kept
        if len(self.head_seqs) > 1:
            raise UsageError(f"{kept.head} begins the hashes of {len(self.head_seqs)} events "
                             f"(seq {', '.join(map(str, self.head_seqs[:5]))}): give more "
                             "digits of the head", field="--expect")
        if kept is not None and kept.last_seq > count:
            return Verdict(False, count, self.prev, count + 1,
                           f"the log ends at seq {count} but {kept.source} goes to seq "
                           f"{kept.last_seq}: events were removed")
        if not self.seen_head:
            return Verdict(False, count, self.prev, None,
                           f"the log no longer extends {kept.source}: history before it "
                           "was rewritten")
        return None

    def tree_end(self) -> Verdict | None:
        """After the events: the tree's last tiles held against the stored ones, and a
        stored tree longer than the log named."""
        count = self.seq - 1
        if self.tree_size is not None and self.tree_size > count:
            return self.bad(count + 1, (
                f"the Merkle tree kept beside the log holds {self.tree_size} events and the "
                f"log {count}: events were removed after they were appended"))
        if (verdict := self.grow()) is not None:
            return verdict
        growth = self.growth
        for level, data in sorted(growth.edge.items()):
            if data and (verdict := self._compare(
                    level, (growth.size >> (merkle.HEIGHT * level)) // merkle.WIDTH,
                    data)) is not None:
                return verdict
        return None

    def snapshots_end(self) -> Verdict | None:
        """After the walk: a snapshot that was wrong, or one beyond its deal's events
        (forged: no event of the deal is stored at its version)."""
        for stream in sorted(self.deferred, key=str):
            if self.snapshot_bad is not None:
                break
            target = self.snapshots[stream]
            if target <= self.versions.get(stream, 0):
                state, last = refold(self.view, stream, target, self._records, self.same)
                self.snapshot(stream, target, state, last or {})
        if self.snapshot_bad is not None:
            return self.snapshot_bad
        for stream, version in self.snapshots.items():
            if version > self.versions.get(stream, 0):
                deal = self.deals.get(stream, str(stream))
                return self.bad(None, f"the snapshot of deal {deal} at version {version} is "
                                      "beyond the deal's events (it was forged)")
        return None

    def verdict(self) -> Verdict:
        return Verdict(True, self.seq - 1, self.prev, root=self.root().hex(),
                       roots=dict(self.roots))
