"""Staging a batch for the store (``Ledger._stage``), in two steps, the first of which a
large batch runs on two cores.

1. **Check** (``check_events``), per deal: each line's record is built (every field but
   the chain links ``prev_hash``, ``deal_prev`` and its ``hash``), checked against its
   deal's guard state (``guards.check``) and folded into it, and its two JSON texts (the
   canonical one its hash covers and the stored one the library's row holds) are made
   with the links left as holes (``store._record_pieces``, given as ``Job.pieces_of``). Deals are independent here:
   a line's check reads only its own deal's state and its own deal's later lines of the
   batch (``guards.Batch.later``), its seq and id come from its place in the batch.
2. **Link** (``link``), in seq order, in this process: each hole is filled with the hash
   before it in the log and the hash before it in its deal, the record is hashed (the
   chain) and its stored event made.

From ``PARALLEL_AT`` lines over two or more deals, where a ``fork`` is cheap and safe
(``may_fork``), a forked child checks deals too (``_check_in_two``): this process
claims deals from the front of the batch's list of deals, the child from the back, until
they meet (``jsonl._Claims``), and the child hands back, deal by deal as it goes, in
memory shared with this process (``_Texts``), its lines' texts and the canonical guard
state of each of its deals due for a snapshot, joined by NUL (a character no JSON text
the encoders make holds raw). What is written is the same, byte for byte, as
one process writes (tests/test_append_parallel.py). All or nothing, and the first bad
line's error exactly: on any refusal, in either process, the batch is checked again
in one process, in line order (``check_events`` over the whole batch), which raises
what one process raises; a child that fails in any other way leaves its deals to this
process. The deals the child checked are not kept in the ledger's cache of aggregates
(their guard state stayed in the child): the next append reads them back from their
snapshot and the events after it, as a new process does.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterable, Sequence

from .. import guards
from ..forked import Child
from . import merkle
from .chainhead import GENESIS
from ..errors import LedgerError
from ..upcasting import VERSION_FIELD, current_version

PARALLEL_AT = 10_000   # lines from which a forked child checks deals too
SEP = "\x00"           # joins the child's texts: JSON from the encoders never holds it raw


@dataclass
class Job:
    """What both processes know of the batch before it is shared out: the lines, their
    ids and seqs, the store's fields, and each deal's aggregate as stored before it."""

    new_events: Sequence[Any]      # ``NewEvent`` of each line (``None``: not parsed here)
    ids: Sequence[str]
    first_seq: int                 # the seq of the log's last event (the head)
    stamp: str                     # recorded_at
    who: str                       # recorded_by
    who_q: str                     # recorded_by, JSON-quoted
    now: datetime
    batch: guards.Batch
    load: Callable[[str], Any]     # a deal's aggregate (``Ledger._deal``), or None
    forget: Callable[[Iterable[str]], None]   # drops deals from the ledger's cache
    pieces_of: Callable[[dict[str, Any], str], Any]   # ``store._record_pieces``
    guard_text: Callable[[Any], str]                  # ``store._canonical_text``
    stream_id: Callable[[str], Any]                   # ``store.deal_id``
    deals: list[str] = field(default_factory=list)    # each line's deal
    loaded: dict[str, Any] = field(default_factory=dict)
    before: dict[str, int] = field(default_factory=dict)
    #: ``advance(n)``: told of every thousand lines this process checks (a progress bar)
    advance: Callable[[int], None] | None = None

    def __post_init__(self) -> None:
        if not self.deals:
            self.deals = [new.deal for new in self.new_events]

    def stream(self, deal: str) -> Any:
        if deal not in self.loaded:
            stream = self.loaded[deal] = self.load(deal)
            self.before[deal] = 0 if stream is None else stream.version
        return self.loaded[deal]

    def reset(self) -> None:
        """Forget every deal read (their cached aggregates were folded into): the next
        ``stream`` reads it from the store again."""
        self.forget(list(self.loaded))
        self.loaded.clear()
        self.before.clear()

    def record(self, k: int) -> dict[str, Any]:
        """Line ``k``'s record (from 0), its chain links still ``None``: the fields in
        the order ``new.envelope()`` and the store give them (one literal)."""
        new = self.new_events[k]
        record = {"type": new.type, "deal": new.deal, "date": new.date.isoformat(),
                  "data": dict(new.data)}
        if new.source is not None:
            record["source"] = new.source
        if new.key is not None:
            record["key"] = new.key
        record[VERSION_FIELD] = current_version(new.type)
        record["id"] = self.ids[k]
        record["seq"] = self.first_seq + k + 1
        record["recorded_at"] = self.stamp
        record["recorded_by"] = self.who
        record["prev_hash"] = None
        record["deal_prev"] = None
        return record


def check_events(job: Job, lines: Iterable[int], pieces: list[Any],
                 records: list[Any] | None, guard_of: dict[str, dict[str, Any]]) -> None:
    """Step 1 for ``lines`` (indexes into the batch, each deal's in batch order): check
    each against its deal's state and fold it in (``guard_of``: deal -> guard state, the
    aggregate's own, or a new one), and put its texts with holes in ``pieces[k]`` and,
    if ``records`` is given, its record in ``records[k]``. ``LedgerError`` names the
    line (the first of ``lines`` that breaks a rule)."""
    new_events, batch, who_q = job.new_events, job.batch, job.who_q
    _record_pieces = job.pieces_of
    check, fold, record_of = guards.check, guards.fold, job.record
    advance, done = job.advance, 0
    for k in lines:
        if advance is not None:
            done += 1
            if done == 1000:
                advance(done)
                done = 0
        deal = new_events[k].deal
        guard = guard_of.get(deal)
        if guard is None:
            stream = job.stream(deal)
            guard = guard_of[deal] = guards.new_state() if stream is None else stream.guard
        record = record_of(k)
        pieces[k] = _record_pieces(record, who_q)
        try:
            found = check(guard, record, batch, k)
        except LedgerError as err:
            raise err.at_line(new_events[k].line) from None
        fold(guard, record, found)
        if records is not None:
            records[k] = record
    if advance is not None and done:
        advance(done)


@dataclass
class Checked:
    """Step 1's result for the whole batch: each line's texts and (for the deals this
    process checked) record, each deal's guard state (``None`` where the child kept
    it), and the canonical text of guard states due for a snapshot where it was made
    already (on two processes, each makes its own deals')."""

    pieces: list[Any]
    records: list[Any]
    guard_of: dict[str, Any]
    guard_texts: dict[str, str]


def may_fork(pool: str | None = None) -> bool:
    """Whether a child may be forked: a POSIX ``fork``, more than one core, and no other
    thread in this process (a lock another thread holds would stay held in the child)
    but those of the connection pool named ``pool`` (PostgreSQL's, which wait for work
    on their own queue: the child never touches the pool, its connections or the
    store, and leaves by ``os._exit``)."""
    import threading

    if not hasattr(os, "fork") or (os.cpu_count() or 1) < 2:
        return False
    others = [t for t in threading.enumerate() if t is not threading.current_thread()]
    return all(pool is not None and t.daemon and t.name.startswith(f"{pool}-")
               for t in others)


def check_batch(job: Job, due: Callable[[str, int], bool], parallel: bool,
                pool: str | None = None) -> Checked:
    """Step 1 for the whole batch: on two processes if ``parallel`` and worth it
    (``_check_in_two``; ``pool``: see ``may_fork``), else in one, line by line."""
    n = len(job.new_events)
    if parallel and n >= PARALLEL_AT:
        if may_fork(pool):
            checked = _check_in_two(job, due)
            if checked is not None:
                return checked
            job.reset()   # a line broke a rule: check again here, line by line
    pieces: list[Any] = [None] * n
    records: list[Any] = [None] * n
    guard_of: dict[str, Any] = {}
    check_events(job, range(n), pieces, records, guard_of)
    return Checked(pieces, records, guard_of, {})


def check_parsing(job: Job, due: Callable[[str, int], bool],
                  parse: Callable[[list[int], str], None]) -> Checked:
    """Step 1 on two processes for a batch not parsed yet (``ledger.store.bulk``): each deal's
    lines parsed by the process that checks them; ``bulk.Unsure`` where that cannot be
    done (a line refused, or not parsed, in either process; a child that failed)."""
    from .bulk import Unsure

    checked = _check_in_two(job, due, parse)
    if checked is None:
        raise Unsure("a line was refused, or the child failed")
    return checked


def _by_deal(deals: Sequence[str]) -> dict[str, list[int]]:
    by_deal: dict[str, list[int]] = {}
    for k, deal in enumerate(deals):
        lines = by_deal.get(deal)
        if lines is None:
            by_deal[deal] = [k]
        else:
            lines.append(k)
    return by_deal


class _Refused(Exception):
    """A line broke a rule while the batch was checked on two processes."""


def _check_in_two(job: Job, due: Callable[[str, int], bool],
                  parse: Callable[[list[int], str], None] | None = None) -> Checked | None:
    """Step 1 on two processes (module docstring); ``None`` to check the batch again in
    one process, line by line: a line broke a rule (in either process), or a deal could
    not be read before the fork. ``parse(lines, deal)``: the deal's lines are parsed
    first, by the process that checks them (``ledger.store.bulk``; a ``LedgerError`` is a
    refusal); the child's lines then stay unparsed here, their records ``None``, and a
    child that fails means ``None`` too."""
    from ..jsonl import _Claims

    by_deal = _by_deal(job.deals)
    if len(by_deal) < 2:
        return None
    order = list(by_deal)
    try:
        for deal in order:          # read here: the child never touches the store
            job.stream(deal)
    except LedgerError:
        return None
    n = len(job.new_events)
    try:
        claims = _Claims(len(order))
        texts = _Texts(claims, len(order), n)
    except OSError:
        return None
    pieces: list[Any] = [None] * n
    records: list[Any] = [None] * n
    guard_of: dict[str, Any] = {}
    child = Child(lambda: _child(job, by_deal, order, claims, due, parse, texts))
    mine: list[str] = []
    made: dict[str, str] = {}
    received: dict[str, bool] = {}   # the child's deals whose texts are taken in
    theirs_made: dict[str, str] = {}  # and the guard texts among them
    back = len(order) - 1            # the next of them, from the back

    def spread(deal: str, text: str) -> None:
        snapshot = due(deal, job.before[deal] + len(by_deal[deal]))
        received[deal] = _spread(text, by_deal[deal], pieces,
                                 theirs_made if snapshot else None, deal)

    def take_in() -> None:
        """The texts of the deals the child has checked since the last call."""
        nonlocal back
        while back >= 0 and (text := texts.get(back)) is not None:
            spread(order[back], text)
            back -= 1

    try:
        try:
            while (i := claims.front()) is not None:
                mine.append(order[i])
                if parse is not None:
                    parse(by_deal[order[i]], order[i])
                _check_deal(job, order[i], by_deal, pieces, records, guard_of, due, made)
                take_in()
        except LedgerError:
            raise _Refused from None
        # while the child ends, the records of its lines (it sends only their texts)
        taken = set(mine)
        rest = [d for d in order if d not in taken]
        if parse is None:
            for deal in rest:
                for k in by_deal[deal]:
                    records[k] = job.record(k)
        take_in()
        found = child.result(wait=False)   # reaped after the write (``Ledger.append``)
        take_in()
    except BaseException as err:
        child.stop()
        texts.close()
        if isinstance(err, _Refused):
            return None
        raise
    texts.close()
    try:
        theirs, more = found if found is not None else (None, None)
    except Exception:   # the child sent something else
        theirs = None
    if theirs == "refused":
        return None
    if theirs is not None:
        try:
            for deal, text in more.items():   # those that did not fit the shared region
                spread(deal, text)
        except Exception:
            theirs = None
    if theirs is not None and (sorted(theirs) != sorted(rest)
                               or not all(received.get(d) for d in theirs)):
        theirs = None
    if theirs is None:   # the child failed: check its deals here
        if parse is not None:
            return None
        try:
            for deal in rest:
                check_events(job, by_deal[deal], pieces, records, guard_of)
        except LedgerError:
            return None
        return Checked(pieces, records, guard_of, {})
    for deal in theirs:
        guard_of[deal] = None   # kept by the child: this process has no copy
    return Checked(pieces, records, guard_of, {**made, **theirs_made})


def _spread(text: str, lines: list[int], pieces: list[Any], made: dict[str, str] | None,
            deal: str) -> bool:
    """A deal's texts as the child joined them, four a line, put in ``pieces``, and after
    them, if ``made`` (the deal is due for a snapshot), its guard state's canonical text,
    put in ``made``; whether there were as many texts as that."""
    split = text.split(SEP) if text else []
    if len(split) != 4 * len(lines) + (made is not None):
        return False
    for j, k in enumerate(lines):
        pieces[k] = split[4 * j:4 * j + 4]
    if made is not None:
        made[deal] = split[-1]
    return True


class _Texts:
    """Where the child puts each deal's texts as soon as it has checked the deal: a
    region of memory shared with this process, and, per deal (its place in the list of
    deals), where they start and how long they are. This process takes them in between
    its own deals (``take_in``), instead of all of them at the end, pickled, through a
    pipe: that hand-over cost the end of the batch about 0.25 s of 100,000 lines, with
    neither process working. Texts that do not fit go through the pipe as before. The
    spans are set and read under the lock of the claims (``jsonl._Claims``)."""

    PER_LINE = 4096         # bytes of region a line (virtual: pages are used as written)
    SPARE = 1 << 20         # and this many more

    def __init__(self, claims: Any, deals: int, lines: int):
        import mmap
        import multiprocessing

        self.lock = claims.lock
        self.region = mmap.mmap(-1, self.PER_LINE * lines + self.SPARE)   # MAP_SHARED
        self.spans = multiprocessing.get_context("fork").RawArray("q", 2 * deals)
        self.used = 0          # in the child: the region's bytes written

    def put(self, j: int, text: str) -> bool:
        """In the child: deal ``j``'s texts, if they fit, and no deal before did not
        (this process takes the deals in in the child's order, up to the first missing)."""
        data = text.encode("utf-8")
        start, end = self.used, self.used + len(data)
        if end > len(self.region):
            self.used = len(self.region) + 1   # full: the rest go through the pipe
            return False
        self.region[start:end] = data
        self.used = end
        with self.lock:
            self.spans[2 * j] = start
            self.spans[2 * j + 1] = len(data) + 1   # 0: not there yet
        return True

    def get(self, j: int) -> str | None:
        """Here: deal ``j``'s texts, if the child has put them."""
        with self.lock:
            start, size = self.spans[2 * j], self.spans[2 * j + 1] - 1
        if size < 0:
            return None
        return self.region[start:start + size].decode("utf-8")

    def close(self) -> None:
        try:
            self.region.close()
        except (BufferError, ValueError):
            pass


def _check_deal(job: Job, deal: str, by_deal: dict[str, list[int]], pieces: list[Any],
                records: list[Any] | None, guard_of: dict[str, Any],
                due: Callable[[str, int], bool], made: dict[str, str]) -> None:
    """``check_events`` of one deal's lines, then, if the deal is due for a snapshot
    after the batch, the canonical text of its guard state (what ``Ledger._snapshot``
    writes and seals) in ``made``: made here, deal by deal, so that it counts in how
    the two processes share the deals out."""
    check_events(job, by_deal[deal], pieces, records, guard_of)
    if due(deal, job.before[deal] + len(by_deal[deal])):
        made[deal] = job.guard_text(guard_of[deal])


def _child(job: Job, by_deal: dict[str, list[int]], order: list[str], claims: Any,
           due: Callable[[str, int], bool],
           parse: Callable[[list[int], str], None] | None, texts: _Texts
           ) -> tuple[Any, ...]:
    """In the child: check the deals it claims from the back (parsing their lines first
    if ``parse``), and put each one's lines' texts, and its guard state's canonical text
    if it is due for a snapshot, joined, where this process takes them in
    (``_Texts``); send the deals and the texts that did not fit; ``refused`` at the
    first line that breaks a rule (the parent checks again and names it)."""
    job.advance = None   # the parent draws the progress bar; the child tells it nothing
    theirs: list[str] = []
    pieces: list[Any] = [None] * len(job.new_events)
    guard_of: dict[str, Any] = {}
    made: dict[str, str] = {}
    more: dict[str, str] = {}
    try:
        while (j := claims.back()) is not None:
            deal = order[j]
            theirs.append(deal)
            if parse is not None:
                parse(by_deal[deal], deal)
            _check_deal(job, deal, by_deal, pieces, None, guard_of, due, made)
            parts = [p for k in by_deal[deal] for p in pieces[k]]
            if deal in made:
                parts.append(made.pop(deal))
            text = SEP.join(parts)
            if not texts.put(j, text):
                more[deal] = text
    except LedgerError:
        return ("refused", None)
    return (theirs, more)


def link(job: Job, checked: Checked, stored_of: Callable[..., Any] | None,
         head_hash: str, started_prefix: str, recorded_prefix: str,
         topics: tuple[str, str], row: Callable[[Any, int, str, bytes], Any],
         leaves: list[bytes] | None = None
         ) -> tuple[list[Any], list[Any], dict[str, list[Any]], dict[str, int],
                    dict[int, tuple[str, str, str]]]:
    """Step 2, in seq order: fill each line's holes with the hash before it in the log
    and in its deal, hash it, and make its stored event (``stored_of(deal, version,
    record)`` where the library's mapper must make it, else directly from the texts, as
    ``row(originator_id, originator_version, topic, state)``: what the library's
    ``StoredEvent`` holds, and all its recorders read of one).
    Returns the records and their stored events, in seq order, each deal's ``at`` (its
    last ``[seq, hash]``), each deal's version after the batch, and the links
    (``prev_hash``, ``deal_prev``, ``hash``) of the lines not parsed in this process,
    whose records are ``None`` (``ledger.store.bulk`` makes them when asked).
    ``leaves``: where each line's Merkle leaf hash goes, in seq order, if the log's tree
    is kept (``ledger.store.merkle``: over the same canonical bytes as its hash)."""
    deal_id = job.stream_id
    leaf_hash = None if leaves is None else merkle.leaf_hash
    started_topic, recorded_topic = topics
    sha256 = hashlib.sha256
    pieces, records = checked.pieces, checked.records
    deal_last: dict[str, str] = {}
    last_line: dict[str, int] = {}
    version = dict(job.before)
    ids: dict[str, Any] = {}
    out_records: list[Any] = []
    out_stored: list[Any] = []
    unmade: dict[int, tuple[str, str, str]] = {}
    new_events = job.new_events
    prev = head_hash
    for k, deal in enumerate(job.deals):
        dp = deal_last.get(deal)
        if dp is None:
            stream = job.loaded[deal]
            dp = GENESIS if stream is None else stream.at[1]
            ids[deal] = deal_id(deal)
        c0, c1, c2, s0 = pieces[k]
        text = f"{c0}{dp}{c1}{prev}{c2}".encode("utf-8")
        h = sha256(text).hexdigest()
        if leaf_hash is not None:
            leaves.append(leaf_hash(text))   # type: ignore[union-attr]
        record = records[k]
        if record is None and new_events[k] is not None:
            record = job.record(k)
        if record is None:
            unmade[k] = (prev, dp, h)
        else:
            record["prev_hash"] = prev
            record["deal_prev"] = dp
            record["hash"] = h
        v = version[deal] = version[deal] + 1
        if stored_of is not None:
            out_stored.append(stored_of(deal, v, record))
        elif v == 1:
            out_stored.append(row(ids[deal], 1, started_topic, (
                f'{started_prefix}{s0}{prev}","deal_prev":"{dp}","hash":"{h}"}}}}'
            ).encode("utf-8")))
        else:
            out_stored.append(row(ids[deal], v, recorded_topic, (
                f'{recorded_prefix}{s0}{prev}","deal_prev":"{dp}","hash":"{h}"}}}}'
            ).encode("utf-8")))
        out_records.append(record)
        deal_last[deal] = prev = h
        last_line[deal] = k
    at = {deal: [job.first_seq + k + 1, deal_last[deal]] for deal, k in last_line.items()}
    return out_records, out_stored, at, version, unmade
