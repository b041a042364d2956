"""The log copied into an empty view file by SQLite itself (a rebuild, a first run).

``views`` reads the log page by page: each record decoded by Python's JSON decoder (in the
worker processes), its ``data`` encoded again, the rows handed to the writer and inserted
(``publishing.readmodels._stream``). For a million events that is about 35 s of CPU over
the two cores, more than the library's own read and decode of the whole log (issue 17).

When the ledger is a SQLite file whose states are the library's plain JSON
(``Ledger.plain_json``), SQLite can make the ``events`` rows itself: a pool worker
attaches the ledger file read-only and fills a scratch file with a chunk's rows
(``INSERT ... SELECT`` with ``json_extract`` of each field; SQLite keeps a state's parse
from one field to the next), about 13 us of CPU an event with its checks and no Python
object per row; the writer copies each chunk in (3 us an event). The rows are the same:
a stored state is compact JSON written with the store's own settings
(``ledger.store.jsontext.compact``: insertion order, ``ensure_ascii=False``), and
``json_extract`` of an object gives back its text as stored, so ``data`` is the exact
text ``json.dumps`` of the decoded value gives (``tests/test_logcopy.py`` compares the
files the two paths write, on random texts).

Only an empty file is filled so (no ``events``, no ``deals``: every deal it meets is
dirty, as the page path marks a deal without a ``deals`` row), a chunk of the log at a
time, each chunk in one transaction with its ``_dirty`` marks, ``_meta`` and tracking
position, as a page is. A chunk is kept only if every event row of its range made a row
and the rows carry on the log's seqs in log order; a record that does not read so (not
a plain record, a field of the wrong type, an extra field other than a hash link) rolls
its chunk back, and the page path takes the log from there, naming what it cannot read.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from typing import Any, Callable, Iterator
from urllib.parse import quote

from eventsourcing.persistence import PersistenceError, Tracking

from .viewtables import EVENTS

PAGES = 10          # pages of notification ids (``readmodels.PAGE``) per transaction
SCHEMA = "_ledger_log"

# The ``events`` columns after ``seq``, ``notification_id``: the record's fields.
_FIELDS = ("id", "deal", "type", "date", "data", "source", "key", "v", "recorded_at",
           "recorded_by", "prev_hash", "hash")
# A record the page decoder (``viewworkers.decode_page``) writes as it is done here: no
# key but those the store writes (what is left when they are removed is ``{}``; one
# ``json_each`` of the record would cost half as much again as the whole copy), ``data``
# an object (of a string, ``json_extract`` gives the string, not its JSON text), a seq
# (a missing one would be given the next rowid), the link not a JSON ``null`` (the page
# decoder writes that in ``extra``).
_KNOWN = ("type", "deal", "date", "data", "source", "key", "v", "id", "seq", "recorded_at",
          "recorded_by", "prev_hash", "hash", "deal_prev")
_KEYS_OK = ("json_type(s, '$.record.data') = 'object' "
            "AND json_type(s, '$.record.seq') NOT IN ('null') "
            "AND json_type(s, '$.record.deal_prev') IS NOT 'null' "
            "AND json_extract(json_remove(s, " + ", ".join(f"'$.record.{k}'" for k in _KNOWN)
            + "), '$.record') = '{}'")
# And, checked on the rows made (tests in the query itself would extract the fields
# again): every field the page decoder reads with ``r[...]`` there (``json_extract`` gives
# NULL for a missing one; for a JSON ``null`` the page path is left to write it), and
# the link a hash. The columns' types are SQLite's, as for the page decoder's rows (a
# seq or version written as text is stored as the number either way). Not checked: a
# JSON object or array where the store writes text comes out as its text here, where the
# page decoder fails; only a state edited by hand has one, and ``verify`` names it.
_ROWS_OK = ("SELECT count(*) FROM events WHERE "
            + " OR ".join(f"{c} IS NULL" for c in ("id", "deal", "type", "date",
                                                    "recorded_at", "recorded_by",
                                                    "prev_hash", "hash"))
            + " OR (extra IS NOT NULL AND (length(extra) != 80 "
              "OR substr(extra, 15, 64) GLOB '*[^0-9a-f]*'))")
_EXTRACTED = ", ".join(
    ["rid", "json_extract(s, '$.record.seq') AS seq",
     *(f"json_extract(s, '$.record.{f}') AS f_{f}" for f in _FIELDS),
     "json_extract(s, '$.record.deal_prev') AS link"])
_ROW = ", ".join(["seq", "rid", *(f"f_{f}" for f in _FIELDS),
                  "CASE WHEN link IS NULL THEN NULL ELSE '{\"deal_prev\":\"' || link || "
                  "'\"}' END", "0"])


def possible(ledger: Any) -> bool:
    """Whether the ledger is a file SQLite can read the records of (plain JSON states)."""
    return not ledger.is_postgres and ledger.plain_json and os.path.isfile(ledger.url)


# Where a chunk is read from: (the ledger file as a read-only URI, the library's events
# table, the topics of its rows that are events).
Source = tuple[str, str, tuple[str, ...]]


def source(ledger: Any) -> Source:
    return ("file:" + quote(os.path.abspath(ledger.url)) + "?mode=ro",
            ledger.app.recorder.events_table_name, tuple(ledger.event_topics))


def fill(src: Source, after: int, upto: int, path: str) -> tuple[int, int] | None:
    """The ``events`` rows of the events among notifications ``(after, upto]``, made by
    SQLite in a new file at ``path`` (a pool worker's share of the work, or this
    process's): (rows, the last one's notification id), or ``None`` if a record there
    does not read as the page decoder reads it (the file is then of no use)."""
    uri, table, topics = src
    in_range = f"rowid > ? AND rowid <= ? AND topic IN ({','.join('?' * len(topics))})"
    params = [after, upto, *topics]
    insert = (f"INSERT INTO events SELECT {_ROW} FROM (SELECT {_EXTRACTED} FROM "
              f"(SELECT rowid AS rid, CAST(state AS TEXT) AS s FROM {SCHEMA}.\"{table}\" "
              f"WHERE {in_range} ORDER BY rowid) WHERE {_KEYS_OK})")
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=OFF")   # a scratch file, read once, then gone
        conn.execute("PRAGMA synchronous=OFF")
        conn.execute(_SCRATCH_DDL)
        conn.execute(f"ATTACH DATABASE ? AS {SCHEMA}", (uri,))
        conn.execute("BEGIN")
        want, last_id = conn.execute(f"SELECT count(*), max(rowid) FROM {SCHEMA}.\"{table}\" "
                                     f"WHERE {in_range}", params).fetchone()
        if want:
            conn.execute(insert, params)
        made = conn.execute("SELECT count(*) FROM events").fetchone()[0]
        if conn.execute(_ROWS_OK).fetchone()[0]:
            made = -1
        conn.execute("COMMIT")
    except sqlite3.Error:   # a state SQLite cannot read as JSON, a seq taken twice
        return None
    finally:
        conn.close()
    return (made, last_id or 0) if made == want else None


_SCRATCH_DDL = ("CREATE TABLE events (" + ", ".join(
    f'"{c.name}" {c.type}' + (" PRIMARY KEY" if c.name == "seq" else "")
    for c in EVENTS.columns) + ")")


def copy(ledger: Any, models: Any, app_name: str, stop: int, page: int,
         on_progress: Callable[[str, int, "int | None"], None], pool: Any = None,
         workers: int = 1) -> tuple[int, int, int, int]:
    """The log's events up to notification ``stop`` into the empty view file, ``PAGES``
    pages of notification ids a chunk: each made by a worker in a scratch file
    (``fill``), then copied in here in one transaction with its ``_dirty`` marks,
    ``_meta`` and tracking position. Returns (where the page path goes on: ``stop``, or
    the start of the first chunk not copied; the tracked position, the last copied
    event's notification id; events copied; last seq)."""
    src = source(ledger)
    position = tracked = count = seq = 0
    # (left in that order: on a chunk not copied, the workers finish before the files go)
    with tempfile.TemporaryDirectory(prefix="deal-ledger-views-") as scratch, \
            models.writing() as (raw, transaction), \
            contextlib.closing(_filled(src, stop, page * PAGES, scratch, pool,
                                       workers)) as chunks:
        for (after, upto, path), found in chunks:
            if found is None:
                break
            made, last_id = found
            if made:
                try:
                    seq = _copy_in(raw, transaction, path, made, last_id, seq, models,
                                   app_name)
                except _Stop:
                    break
                count, tracked = count + made, last_id
            os.remove(path)
            on_progress("reading the log", upto - after, stop)
            position = upto
    return position, tracked, count, seq


def _filled(src: Source, stop: int, chunk: int, scratch: str, pool: Any, workers: int
            ) -> Iterator[tuple[tuple[int, int, str], tuple[int, int] | None]]:
    """Each chunk's range and scratch file, filled, in log order: by the pool's workers,
    a few ahead at most, or here."""
    ranges = ((a, min(a + chunk, stop), os.path.join(scratch, f"{a}.db"))
              for a in range(0, stop, chunk))
    if pool is None:
        for r in ranges:
            yield r, fill(src, *r)
        return
    pending: list[tuple[tuple[int, int, str], Any]] = []
    try:
        for r in ranges:
            pending.append((r, pool.submit(fill, src, *r)))
            if len(pending) >= 2 * workers:
                r0, future = pending.pop(0)
                yield r0, future.result()
        while pending:
            r0, future = pending.pop(0)
            yield r0, future.result()
    finally:
        for _r, future in pending:   # a chunk not copied: the rest are not wanted
            future.cancel()
        for _r, future in pending:
            if not future.cancelled():
                future.exception()      # done before its directory goes


class _Stop(Exception):
    """A chunk not kept (rolled back): the page path goes on from its start."""


def _copy_in(raw: sqlite3.Connection, transaction: Callable[[], Any], path: str,
             made: int, last_id: int, seq: int, models: Any, app_name: str) -> int:
    """One filled chunk into ``events``, in one transaction with what accounts for it;
    its last seq. Kept only if its rows come after ``seq`` (the log's seqs in log order)
    and the last of them is the range's last event; else rolled back (``_Stop``)."""
    raw.execute(f"ATTACH DATABASE ? AS {_CHUNK}", (path,))
    try:
        with transaction() as c:
            c.execute(f"INSERT INTO events SELECT * FROM {_CHUNK}.events ORDER BY seq")
            c.execute("SELECT count(*), max(seq) FROM events WHERE seq > ?", (seq,))
            after, last_seq = c.fetchone()
            c.execute("SELECT notification_id, hash FROM events WHERE seq = ?", (last_seq,))
            row = c.fetchone()
            if after != made or row is None or row[0] != last_id:
                raise _Stop
            c.execute("INSERT OR IGNORE INTO _dirty SELECT DISTINCT deal FROM events "
                      "WHERE seq > ?", (seq,))
            c.executemany("INSERT OR REPLACE INTO _meta VALUES (?, ?)",
                          [("last_seq", str(last_seq)), ("last_hash", row[1])])
            models._insert_tracking(c, Tracking(app_name, last_id))
    except (sqlite3.Error, PersistenceError):   # a seq the file holds already
        raise _Stop from None
    finally:
        raw.execute(f"DETACH DATABASE {_CHUNK}")
    return last_seq


_CHUNK = "_log_chunk"
