"""The work of ``views`` that runs in parallel: decoding pages of the log and computing
deals' rows, in a pool of worker processes (one per core) or, for little work, here.

Each worker has its own read-only connection to the view file (WAL: it reads committed
rows while the writer, ``publishing.readmodels``, writes) and, to decode the log, the
ledger opened for reading. The writer is the only process that writes.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import contextmanager
from datetime import date
from typing import Any, Callable, Iterator, Mapping, Sequence

from ledger.collector import paused
from ledger.errors import LedgerError, StoreError
from ledger.store.jsontext import compact
from projections.timeline import READ_ANY_DATE

from . import dealstate, written
from .viewtables import (DEAL_TABLES, DEALS, REPORT_SECTIONS, deal_row, sql_rows,
                         sql_value)

POOL_MIN_DEALS = 16         # fewer dirty deals than this are computed in the writer
READER_CACHE_KIB = 32768    # SQLite page cache of each reader of the view file

_RECORD_FIELDS = frozenset(("seq", "id", "deal", "type", "date", "data", "source", "key",
                            "v", "recorded_at", "recorded_by", "prev_hash", "hash"))


def counts_as_of(record: Mapping[str, Any], as_of: str) -> bool:
    """Whether a new event can change its deal's report as of ``as_of`` (everything
    known): the timeline (``projections.timeline.build_timeline``) keeps only the events
    dated on or before ``as_of``, and those it reads whatever their date
    (``READ_ANY_DATE``: a retraction, a calendar override). A deal touched only by other
    later-dated events keeps its schedules; only its counts in ``deals`` move."""
    return record["date"] <= as_of or record["type"] in READ_ANY_DATE


# One page of the log, decoded: (events rows, deals made dirty, {deal: [events dated
# after as_of, last seq]}, the page's last notification id or 0 if it held no event).
Page = tuple[list[tuple], list[str], dict[str, list[int]], int]


def decode_page(found: Sequence[tuple[int, Mapping[str, Any]]], as_of: str) -> Page:
    """The page's ``events`` rows from its ``(notification id, record)`` pairs
    (``Ledger.log_range``)."""
    dumps = _DUMPS
    rows = []
    dirty: dict[str, None] = {}
    later: dict[str, list[int]] = {}
    fields = len(_RECORD_FIELDS)
    nid = 0
    try:
        for nid, r in found:
            extra = len(r) > fields - 3 and r.keys() - _RECORD_FIELDS  # source, key, v optional
            if not extra:
                extra_text = None
            elif extra == _DEAL_PREV and _is_hash(link := r["deal_prev"]):
                extra_text = '{"deal_prev":"' + link + '"}'    # what dumps writes for it
            else:
                extra_text = dumps({k: r[k] for k in sorted(extra)})
            rows.append((r["seq"], nid, r["id"], r["deal"], r["type"], r["date"],
                         dumps(r["data"]), r.get("source"), r.get("key"), r.get("v"),
                         r["recorded_at"], r["recorded_by"], r["prev_hash"], r["hash"],
                         extra_text, 0))
            if r["date"] <= as_of or r["type"] in READ_ANY_DATE:   # counts_as_of
                dirty[r["deal"]] = None
            else:
                tally = later.setdefault(r["deal"], [0, 0])
                tally[0] += 1
                tally[1] = r["seq"]
    except (KeyError, TypeError, AttributeError):   # a record without a field it reads
        raise StoreError(f"the stored event at position {nid} of the log does not read as "
                         "an event (a field missing or of the wrong type): the ledger was "
                         "altered outside deal-ledger; run `deal-ledger verify`") from None
    return rows, list(dirty), later, (found[-1][0] if found else 0)


# The stored records' own JSON settings (``ledger.store``), through one C encoder made
# once (``ledger.store.jsontext``; with the next fast path, a rebuild decodes a page of the log
# in 6.7 us an event instead of 11).
_DUMPS = compact()

# A record's only field beyond ``_RECORD_FIELDS``, as every record of a ledger written
# since the per-deal chain has it: the hash of its deal's previous event, whose JSON text
# is the hash between quotes (no character of a hash is escaped).
_DEAL_PREV = frozenset(("deal_prev",))
_HEX = frozenset("0123456789abcdef")


def _is_hash(value: Any) -> bool:
    return type(value) is str and len(value) == 64 and _HEX.issuperset(value)


# One computed deal, ready to write: (deal, {table: [SQL row tuples]} of the tables whose
# rows changed, deals row tuple or None when the deal has no events up to last_seq, its
# retracted seqs or None when they did not change, error or None, the writes of its
# state: (replace its parts first, ``_deal_state`` rows), its ``_deal_written`` digests
# or None to delete them).
Computed = tuple[str, dict[str, list[tuple]], "tuple | None", "list[int] | None",
                 "str | None", tuple[bool, list[tuple]], "bytes | None"]


def computed_batches(path: str, batches: list[list[str]], as_of: date, last_seq: int,
                     workers: int, meanwhile: Callable[[], None] = lambda: None
                     ) -> Iterator[list[Computed]]:
    """The batches computed, in order: here when few, else by a process pool.
    ``meanwhile()`` is called once, before the first batch is handed back (with a pool,
    while the workers compute the first batches)."""
    deals = sum(len(b) for b in batches)
    if workers <= 1 or deals < POOL_MIN_DEALS:
        meanwhile()
        _open_reader(path)
        try:
            for batch in batches:
                yield _compute_batch(batch, as_of, last_seq)
        finally:
            _close_reader()
        return
    with worker_pool(path, None, min(workers, len(batches))) as pool:
        # at most a few batches ahead of the writer: results never pile up in memory
        pending = []
        waited = False
        for batch in batches:
            pending.append(pool.submit(_compute_batch, batch, as_of, last_seq))
            if len(pending) >= 2 * workers:
                if not waited:
                    meanwhile()
                    waited = True
                yield pending.pop(0).result()
        if not waited:
            meanwhile()
        for future in pending:
            yield future.result()


@contextmanager
def worker_pool(path: str, ledger_url: str | None, workers: int) -> Iterator[Any]:
    """A pool of ``workers`` processes, each with a read-only connection to the view file
    and, given ``ledger_url``, the ledger opened for reading. Forked where the platform
    can: the workers start with this process's imports (the engine, the calendar) and
    never touch its connections."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context,
                             initializer=_worker_start,
                             initargs=(path, ledger_url, os.getpid())) as pool:
        yield pool


_reader: sqlite3.Connection | None = None
_ledger: Any = None


def _worker_start(path: str, ledger_url: str | None, parent: int) -> None:
    """A pool worker: its reader (and ledger), and an exit of its own if the writer is
    killed (a worker must never outlive it, holding the files open)."""
    import threading
    import time

    global _ledger

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()
    _open_reader(path)
    if ledger_url is not None:
        from ledger.store import Ledger

        _ledger = Ledger(ledger_url, create=False)


def worker_page(a: int, b: int, as_of: str) -> Page:
    """In a worker: the events among notifications ``(a, b]``, decoded."""
    return decode_page(_ledger.log_range(a, b), as_of)


def _open_reader(path: str) -> None:
    """This process's read-only connection to the view file (a pool worker's, or the
    writer's own for a few deals)."""
    global _reader
    _reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30,
                              check_same_thread=False)
    # a deal's rows lie apart, among every other deal's: each read walks the events
    # table's interior pages, which SQLite's default 2 MB cache cannot hold for a
    # million-event file (a fifth of a 1,000-event deal's read went to fetching them)
    _reader.execute(f"PRAGMA cache_size = -{READER_CACHE_KIB}")


def _close_reader() -> None:
    global _reader
    if _reader is not None:
        _reader.close()
        _reader = None


def _compute_batch(deals: list[str], as_of: date, last_seq: int) -> list[Computed]:
    """The deals, with the collector held off for the whole batch rather than inside
    each report: a deal's state is a thousand events and their data built at once, which
    the collector walked again and again, and each report's end set off a pass over what
    was still alive (a tenth of a deal's time); the batch's garbage is left to one pass."""
    assert _reader is not None
    with paused():
        return [_compute_deal(_reader, deal, as_of, last_seq) for deal in deals]


_SELECT_STATE = ("SELECT part, first_seq, last_seq, events, rows FROM _deal_state "
                 "WHERE deal = ? ORDER BY part")
_COUNT_UPTO = "SELECT count(*) FROM events WHERE deal = ? AND seq <= ?"
_SELECT_AFTER = (f"SELECT {', '.join(dealstate.COLUMNS)} FROM events "
                 "WHERE deal = ? AND seq > ? AND seq <= ? ORDER BY seq")
_SELECT_WRITTEN = "SELECT digests FROM _deal_written WHERE deal = ?"

# What a computed deal's state asks of the writer: (replace the deal's parts first, parts
# as ``_deal_state`` rows).
StateWrites = tuple[bool, list[tuple]]


def deal_rows(conn: sqlite3.Connection, deal: str, last_seq: int
              ) -> tuple[list[list[Any]], StateWrites, written.Digests]:
    """One deal's events up to ``last_seq`` as state rows (``publishing.dealstate``, not
    yet typed): its state in the view file, advanced by the ``events`` rows after it;
    or, with no usable state, all its ``events`` rows. And what to write of the state,
    and the digests of the deal's rows as the file holds them (``publishing.written``).
    All are read in one read transaction."""
    conn.execute("BEGIN")
    try:
        found_written = conn.execute(_SELECT_WRITTEN, (deal,)).fetchone()
        state = dealstate.load(conn.execute(_SELECT_STATE, (deal,)).fetchall())
        if state is not None and state.parts and (
                state.last_seq > last_seq or conn.execute(
                    _COUNT_UPTO, (deal, state.last_seq)).fetchone()[0] != state.events):
            state = None
        replace = state is None
        state = state or dealstate.State()
        found = conn.execute(_SELECT_AFTER, (deal, state.last_seq, last_seq)).fetchall()
    finally:
        conn.execute("COMMIT")
    writes, rows = dealstate.advance(state, dealstate.rows_of(deal, found))
    before = written.load(found_written[0]) if found_written else {}
    return rows, (replace, [w.record(deal) for w in writes]), before


def _compute_deal(conn: sqlite3.Connection, deal: str, as_of: date,
                  last_seq: int) -> Computed:
    """One deal as of ``as_of``, as rows ready to write, with its state's writes; of its
    tables, only those whose rows differ from what the file holds."""
    from projections.report import report
    from projections.timeline import retracted_ids

    rows, state, before = deal_rows(conn, deal, last_seq)
    if not rows:
        return deal, {t.name: [] for t in DEAL_TABLES}, None, [], None, (True, []), None
    events = dealstate.events(rows)
    retracted = retracted_ids(events)
    seqs = [e.seq for e in events if e.id in retracted]
    try:
        # tables hold figures, not bases, and only the sections they read
        rep = report(events, as_of=as_of, bases=False, sections=REPORT_SECTIONS)
    except (LedgerError, ValueError, ArithmeticError, KeyError, TypeError) as err:
        text = " ".join(f"{type(err).__name__}: {err}".split())[:300]
        summary = deal_row(None, events, len(seqs), as_of, error=text)
        tables: dict[str, list[tuple]] = {t.name: [] for t in DEAL_TABLES}
        error: str | None = text
    else:
        tables = sql_rows(rep, deal)
        summary = deal_row(rep, events, len(seqs), as_of)
        error = None
    now = written.digests(tables, seqs)
    changed = written.changed(before, now)
    return (deal, {name: rows for name, rows in tables.items() if name in changed},
            tuple(sql_value(summary[n]) for n in DEALS.names),
            seqs if written.RETRACTED in changed else None, error, state,
            written.dump(now))
