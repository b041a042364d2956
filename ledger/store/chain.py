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
from dataclasses import dataclass
from typing import Any, Callable

from .. import guards
from ..errors import UsageError
from ..jsonl import MAX_LINE
from .stable import StableView, stable_view
from .chainhead import CHAIN_ID, GENESIS
from .stream import ChainAdvanced, seal
from .writing import Ledger
from .canonical import deal_id, record_hash
from ..upcasting import upcast

HASH = re.compile(r"[0-9a-f]{64}")
HASH_PREFIX = re.compile(r"[0-9a-f]{8,63}")


@dataclass(frozen=True)
class Verdict:
    ok: bool
    count: int
    head_hash: str
    bad_seq: int | None = None
    reason: str | None = None

    def line(self) -> str:
        if self.ok:
            # the hash on a line of its own: at 80 columns a terminal broke it mid-line
            return f"ok: {self.count} events\nhead {self.head_hash}"
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
           on_progress: Callable[[int], None] | None = None, *, rules: bool = False
           ) -> Verdict:
    """Walk every row of the store, in one consistent view of it (``ledger.store.stable``),
    and prove that what reports read is exactly the hash chain:

    * the chain: each event's ``seq`` follows the one before, its ``prev_hash`` is that
      event's hash, its hash recomputes from its bytes as stored (and matches ``expect``);
    * the streams: each event is stored in its own deal's stream (the one reports read)
      at the next position of that stream, so no row was moved, swapped or dropped
      between streams while the chain still walks;
    * the heads: each ``ChainAdvanced`` row names the seq and hash the log has reached;
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
      caught only by a copy of the head kept elsewhere (``expect``).

    Events of one batch are checked in ``seq`` order: ledgers written before appends
    stored a batch in seq order may hold one deal's lines of a batch before another's."""
    kept = witness(expect)
    with stable_view(ledger) as view:
        snapshots, unsound = _latest_snapshots(ledger, view)
        walk = _Walk(ledger, kept, rules, snapshots, unsound)
        after = 0
        while page := view.notifications(after, PAGE):
            for n in page:
                if (verdict := walk.row(n)) is not None:
                    return verdict
            after = page[-1].id
            if on_progress is not None:
                on_progress(len(page))  # rows of the store: events and chain heads
        if (verdict := walk.end()) is not None:
            return verdict
        if (verdict := walk.snapshots_end()) is not None:
            return verdict
    return Verdict(True, walk.seq - 1, walk.prev)


class _Walk:
    """The state of one walk of the log: the next seq, the hash before it, each stream's
    next position, and the rows of the batch not yet closed by its chain head."""

    def __init__(self, ledger: Ledger, kept: Witness | None, rules: bool = False,
                 snapshots: dict[Any, "_Snapshot"] | None = None,
                 unsound: list[tuple[Any, int, str]] | None = None):
        self.rules = rules
        self.snapshots = snapshots or {}
        self.unsound = unsound or []   # (stream, version, what is wrong) of sealed snapshots
        self.states: dict[Any, dict[str, Any]] = {}  # stream id -> guard state folded so far
        self.snapshot_bad: Verdict | None = None     # the first snapshot that does not match
        self.mapper = ledger.app.mapper
        self.decode = ledger.app.mapper.transcoder.decode
        self.kept = kept
        self.seq, self.prev = 1, GENESIS
        self.last_at: str | None = None         # recorded_at of the event at seq - 1
        self.seen_head = kept is None or kept.head in (None, GENESIS)
        self.head_seqs: list[int] = []          # the seqs whose hash is (starts with) kept.head
        self.versions: dict[Any, int] = {}     # stream id -> last position seen
        self.deals: dict[Any, str] = {}         # stream id -> deal name
        self.deal_last: dict[Any, str] = {}     # stream id -> hash of its last event
        self.batch: list[tuple[Any, dict[str, Any]]] = []
        self.undecodable: list[int] = []        # notifications of the batch that do not decode
        self.chain_version = 0
        self.started, self.recorded = ledger._topics
        self.advanced = f"{ChainAdvanced.__module__}:{ChainAdvanced.__qualname__}"

    def bad(self, seq: int | None, reason: str) -> Verdict:
        return Verdict(False, self.seq - 1, self.prev, seq, reason)

    def row(self, n: Any) -> Verdict | None:
        if n.originator_id == CHAIN_ID:
            return self.head_row(n)
        if n.topic not in (self.started, self.recorded):
            return self.bad(self.seq, f"notification {n.id} is a row of an unknown kind "
                                      f"({n.topic[:80]}): written outside deal-ledger")
        try:
            # the record is all the walk needs: the library's transcoder decodes the
            # stored bytes without building the domain event around them
            record: Any = self.decode(n.state)["record"]
            if not isinstance(record, dict) or not isinstance(record.get("seq"), int):
                raise TypeError("not a record")
        except Exception:
            # its seq is unknown until the rest of its batch is in: the first seq the
            # batch lacks is this row's
            self.undecodable.append(n.id)
            return None
        self.batch.append((n, record))
        return None

    def undecoded(self, seq: int) -> Verdict:
        return self.bad(seq, "the stored bytes of this event cannot be decoded "
                             f"(notification {self.undecodable[0]} was altered)")

    def head_row(self, n: Any) -> Verdict | None:
        """A chain head closes a batch: check the batch's events in seq order, then that
        the head names where the log now is."""
        if (verdict := self.close_batch()) is not None:
            return verdict
        try:
            if n.topic != self.advanced:
                raise TypeError("not a chain head")
            head = self.mapper.to_domain_event(n)
        except Exception:
            return self.bad(self.seq, f"the chain head row at notification {n.id} is not "
                                      "a chain head (it was altered)")
        self.chain_version += 1
        if n.originator_version != self.chain_version:
            return self.bad(self.seq, f"the chain head at notification {n.id} is version "
                                      f"{n.originator_version} where {self.chain_version} "
                                      "was expected (heads were removed or reordered)")
        if self.undecodable:
            return self.undecoded(self.seq)
        last = self.seq - 1
        if head.seq > last:
            return self.bad(self.seq, f"the chain head at notification {n.id} says seq "
                                      f"{head.seq} but the log before it ends at seq {last} "
                                      "(events were removed)")
        if head.seq < last:
            return self.bad(head.seq + 1, f"the chain head at notification {n.id} says seq "
                                          f"{head.seq} but the log before it goes to seq "
                                          f"{last} (events were added outside deal-ledger)")
        if head.hash != self.prev:
            return self.bad(last, f"the chain head at notification {n.id} names another "
                                  f"hash for seq {last} than the event's: the history up to "
                                  "it was rewritten")
        if head.recorded_at != self.last_at:
            # every head carries its last event's recorded_at, and the next append takes
            # it as the floor of its own (recorded_at never goes backwards): a head moved
            # into the future would stamp every later event with its time, hashed for good
            return self.bad(last, f"the chain head at notification {n.id} says seq {last} "
                                  f"was recorded at {head.recorded_at}, the event says "
                                  f"{self.last_at}: the head was altered")
        return None

    def close_batch(self) -> Verdict | None:
        rows, self.batch = self.batch, []
        rows.sort(key=lambda pair: pair[1]["seq"])
        current = [upcast(record) for _, record in rows] if self.rules else None
        # what guards.check reads of the lines after each one, made only if a line
        # would be refused on its own (as append makes it)
        batch = guards.Batch(lambda: current) if current is not None else None
        for index, (n, record) in enumerate(rows):
            if (verdict := self.event(n, record)) is not None:
                return verdict
            if (verdict := self.fold(n, record, batch, index,
                                     current[index] if current else None)) is not None:
                return verdict
        return None

    def fold(self, n: Any, record: dict[str, Any], batch: Any, index: int,
             current: dict[str, Any] | None) -> Verdict | None:
        """Fold a chained event into its deal's guard state, where the walk needs it:
        every deal's with ``rules`` (each event judged first, as append judged it),
        else a deal's up to its latest snapshot, compared there and then dropped (the
        walk holds the state of the deals whose snapshot is still ahead, no more)."""
        stream = n.originator_id
        snapshot = self.snapshots.get(stream)
        position = self.versions[stream]
        if not self.rules and (snapshot is None or position > snapshot.version):
            return None
        state = self.states.get(stream)
        if state is None:
            state = self.states[stream] = guards.new_state()
        if current is None:
            current = upcast(record)
        found = None
        if self.rules:
            problem, found = _judge(state, current, batch, index)
            if problem is not None:
                return self.bad(record["seq"], problem)
        guards.fold(state, current, found)
        if snapshot is not None and position == snapshot.version:
            at = [record.get("seq"), record.get("hash")]
            if self.snapshot_bad is None and \
                    seal(state, at, position) != seal(snapshot.guard, at, position):
                self.snapshot_bad = self.bad(record.get("seq"), (
                    f"the snapshot of deal {record.get('deal')} taken at this event does not "
                    "match the deal's events (it was altered and re-sealed); appends would "
                    "have trusted it"))
            if not self.rules:
                del self.states[stream]
        return None

    def snapshots_end(self) -> Verdict | None:
        """After the walk: a snapshot that did not match, or one beyond its deal's
        events (forged: no event of the deal is stored at its version)."""
        for stream, version, what in self.unsound:
            deal = self.deals.get(stream, str(stream))
            return self.bad(None, f"the snapshot of deal {deal} at version {version} {what}")
        if self.snapshot_bad is not None:
            return self.snapshot_bad
        for stream, snapshot in self.snapshots.items():
            if snapshot.version > self.versions.get(stream, 0):
                deal = self.deals.get(stream, str(stream))
                return self.bad(None, f"the snapshot of deal {deal} at version "
                                      f"{snapshot.version} is beyond the deal's events (it "
                                      "was forged)")
        return None

    def event(self, n: Any, record: dict[str, Any]) -> Verdict | None:
        expected = self.seq
        stated = record["seq"]
        if stated != expected:
            if stated > expected and self.undecodable:
                return self.undecoded(expected)
            what = "missing or out of order" if stated > expected else "out of order"
            return self.bad(expected, f"event {what}: the log has seq {stated} here")
        if record.get("prev_hash") != self.prev:
            return self.bad(expected, "prev_hash does not match the hash of the event before it")
        try:
            actual = record_hash(record)
        except Exception:
            actual = None
        if actual != record.get("hash"):
            return self.bad(expected, "hash does not match the event's content (it was changed)")
        if self.kept is not None:
            want = self.kept.by_seq.get(expected)
            if want is not None and want != record["hash"]:
                return self.bad(expected, f"its hash differs from {self.kept.source}: the "
                                          "history up to here was rewritten")
        deal = record.get("deal")
        if not isinstance(deal, str) or n.originator_id != deal_id(deal):
            return self.bad(expected, f"it is stored in another stream than its deal's "
                                      f"({deal!r}; notification {n.id}): the deal's reports "
                                      "would not read it (the row was moved)")
        if "deal_prev" in record and record["deal_prev"] != self.deal_last.get(
                n.originator_id, GENESIS):
            return self.bad(expected, f"deal_prev is not the hash of deal {deal}'s event "
                                      "before it (an event of the deal was removed or moved)")
        position = self.versions.get(n.originator_id, 0) + 1
        if n.originator_version != position or (n.topic == self.started) != (position == 1):
            return self.bad(expected, f"event out of order in its deal's stream: stored at "
                                      f"position {n.originator_version} of deal {deal}'s "
                                      f"stream where {position} was expected (rows were "
                                      "moved, removed or swapped)")
        self.versions[n.originator_id] = position
        self.deals[n.originator_id] = deal
        self.deal_last[n.originator_id] = record["hash"]
        self.prev = record["hash"]
        self.last_at = record.get("recorded_at")
        if self.kept is not None and self.kept.head and self.prev.startswith(self.kept.head):
            self.seen_head = True
            self.head_seqs.append(self.seq)
        self.seq += 1
        return None

    def end(self) -> Verdict | None:
        if self.undecodable:
            return self.undecoded(min([self.seq, *(r["seq"] for _, r in self.batch)]))
        if self.batch:
            first = min(record["seq"] for _, record in self.batch)
            return self.bad(first if first >= self.seq else self.seq,
                            f"{len(self.batch)} event(s) at the end of the log have no chain "
                            "head after them: written outside deal-ledger, or the head was "
                            "removed")
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


@dataclass(frozen=True)
class _Snapshot:
    """A deal's latest sealed snapshot, as appends would read it: its stream version and
    its guard state (an older layout upgraded to this one)."""

    version: int
    guard: dict[str, Any]


def _latest_snapshots(ledger: Ledger, view: StableView
                      ) -> tuple[dict[Any, _Snapshot], list[tuple[Any, int, str]]]:
    """The latest snapshot of each deal, the only one appends read (``Ledger._from_
    snapshot``), that appends would use; and those that are not sound (what is wrong:
    undecodable, or no longer matching their seal, which appends ignore but is
    tampering all the same). The walk compares each sound one with the deal's guard
    state folded up to its version (so a snapshot edited and re-sealed is caught too).
    A snapshot of an older layout, with no seal or of a layout appends do not read, is
    never used by appends and is passed over; so are the earlier snapshots of a deal,
    which nothing reads."""
    latest: dict[Any, Any] = {}
    for stored in view.snapshots():
        if stored.originator_version > getattr(latest.get(stored.originator_id),
                                               "originator_version", 0):
            latest[stored.originator_id] = stored
    decode = ledger.app.mapper.transcoder.decode
    found: dict[Any, _Snapshot] = {}
    unsound: list[tuple[Any, int, str]] = []
    for stream_id, stored in latest.items():
        version = stored.originator_version
        try:
            state = decode(stored.state)["state"]
        except Exception:
            unsound.append((stream_id, version, "cannot be decoded (it was altered)"))
            continue
        if not isinstance(state, dict) or "seal" not in state:
            continue  # an older layout: appends never use it
        try:
            sound = state["seal"] == seal(state["guard"], state["at"], version)
        except Exception:
            sound = False
        if not sound:
            unsound.append((stream_id, version, "no longer matches its seal (it was "
                                                "altered); appends ignore it and rebuild "
                                                "from events"))
            continue
        if state["guard"].get("format") not in guards.READABLE:
            continue  # a layout appends do not read: they rebuild
        # the stored guard hashes to the seal (above); as appends read it (an older
        # layout upgraded), it must be the folded one
        found[stream_id] = _Snapshot(version, guards.upgrade(state["guard"]))
    return found, unsound


def _judge(state: dict[str, Any], record: dict[str, Any], batch: Any, index: int
           ) -> tuple[str | None, Any]:
    """What ``append`` would say of ``record`` (upcast to the current shape) on the deal's
    ``state`` before it: ``(problem, None)``, or ``(None, its effects)`` for ``fold``."""
    from ..errors import LedgerError
    from ..events import parse_event

    obj = {k: record[k] for k in ("type", "deal", "date", "data") if k in record}
    for name in ("source", "key"):
        if record.get(name) is not None:
            obj[name] = record[name]
    try:
        stored_as = parse_event(obj).envelope()
    except LedgerError as err:
        return f"it breaks the event format append checks: {_plain(err)}", None
    except Exception as err:  # not even an object of the event format
        return f"it is not an event append would accept ({type(err).__name__})", None
    if _differs(obj, stored_as):
        return ("it breaks the form append stores an event in: a value is not written as "
                "append writes it (it was written outside deal-ledger)"), None
    try:
        return None, guards.check(state, record, batch, index)
    except LedgerError as err:
        return f"it breaks a rule append enforces: {_plain(err)}", None


def _differs(stored: Any, normal: Any) -> bool:
    """Whether a value stored differs from the form append gives it (``normal``). Only
    what is stored is compared: a field a later version added with its default (a new
    optional term) is not in an older record and is not a difference; nor is a term
    with its default that the form leaves out (an older record upcast writes it: the
    ``of`` of a damages step, issue 33), in a list's items as anywhere."""
    if isinstance(stored, dict) and isinstance(normal, dict):
        return any(k in normal and _differs(v, normal[k]) for k, v in stored.items())
    if isinstance(stored, list) and isinstance(normal, list) and len(stored) == len(normal):
        return any(_differs(a, b) for a, b in zip(stored, normal))
    return stored != normal


def _plain(err: Exception) -> str:
    """A refusal's text without the line of a batch it would have named."""
    text = str(err)
    return text.split(": ", 1)[1] if text.startswith("line ") and ": " in text else text
