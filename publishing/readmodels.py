"""Read models for analysts: the log and each deal's schedules as SQLite tables
(``deal-ledger views``), kept up to date incrementally.

The tables, their keys and their meaning are in ``publishing.viewtables`` (the pure half:
rows from a report); this module is the file (I/O):

* ``ReadModels`` is an eventsourcing ``SQLiteTrackingRecorder`` (notes §2, pull catch-up
  loop) whose tracking table is ``_tracking``. ``views`` pages through the notification
  log from the position tracked in the view file, never holding more than one page of
  events: each page's ``events`` rows, the deals it touched (``_dirty``) and the
  tracking position are written in ONE transaction. Then each dirty deal's report is
  computed once, from that deal's events only, and its rows are replaced (delete,
  insert) in the same transaction that takes it off ``_dirty``. A run killed at any point
  leaves a consistent file, and the next run carries on from where the last commit left
  it.
* Much work goes to a pool of worker processes, one per core (``publishing.viewworkers``):
  a long stretch of the log is read and decoded by the workers, a range of notification
  ids each, and written here in log order; the reports of many dirty deals are computed
  by the workers, each reading the deal's events from the view file (WAL: committed rows,
  read while this process writes). This process is the only writer. Little work is done
  here without a pool.
* The internal tables start with ``_`` rather than living in an attached schema: an
  attached database is another file, and SQLite in WAL mode does not commit a
  transaction atomically across files, while each page's rows and its tracking position
  must commit together (and Datasette hides ``_`` tables by convention).

The schedules depend on ``as_of``; the view file records the ``as_of`` (and the
interpretations and tool version) its rows were computed with in ``_meta``, and a run with
another marks every deal dirty. ``rebuild=True`` empties every table and starts over; a
file of another schema version (``viewtables.FORMAT``) is rebuilt the same way.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Callable, Iterator, Sequence

from eventsourcing.persistence import Tracking
from eventsourcing.sqlite import SQLiteDatastore, SQLiteTrackingRecorder

from ledger.errors import StoreError, UsageError
from ledger.store.locks import FileLock

from . import logcopy, viewworkers
from .viewtables import (DEAL_TABLES, DEALS, DIRTY, EVENTS, FORMAT, LATE_INDEXES, META,
                         TABLES, TRACKING, WRITTEN, cents, deal_row, metadata,
                         schedule_rows)
from .viewworkers import Page, counts_as_of, worker_pool


__all__ = ["FORMAT", "ReadModels", "ViewsRun", "cents", "counts_as_of",
           "deal_row", "schedule_rows",
           "views", "SCHEDULES", "KIND_SCHEDULES"]

PAGE = 5000                 # notifications per page, and per transaction
DEALS_PER_COMMIT = 20       # recomputed deals written per transaction
STREAM_POOL_MIN = 20_000    # fewer new notifications than this are decoded in this process

# The per-deal tables' columns after ``deal`` (and ``n``), as the auditor pack writes them.
SCHEDULES: dict[str, tuple[tuple[str, str], ...]] = {
    t.name: tuple((c.name, c.type) for c in t.columns if c.name not in ("deal", "n"))
    for t in DEAL_TABLES}

# The schedules that apply to each deal kind (the pack writes only these as CSV).
KIND_SCHEDULES = {
    "registration_rights": ("defaults", "suspension_periods", "payments", "deadlines"),
    "antidilution_deferral": ("true_ups",),
}

Progress = Callable[[str, int, "int | None"], None]


def _no_progress(stage: str, n: int, total: int | None) -> None:
    return None


@dataclass
class ViewsRun:
    """What one ``views`` run did, for the summary line."""

    out: str
    events: int = 0                       # events read from the log in this run
    deals: int = 0                        # deals whose schedules were recomputed
    position: int = 0                     # notification id the view file is up to
    seq: int = 0                          # the last event seq it holds
    as_of: str = ""
    rebuilt: bool = False
    migrated_from: str | None = None      # the schema version a migration rebuilt
    metadata: str = ""                    # the Datasette metadata file written beside
    errors: dict[str, str] = field(default_factory=dict)

    def line(self) -> str:
        text = (f"{self.out}: {self.events} event(s) processed, {self.deals} deal(s) "
                f"recomputed, position {self.position} (seq {self.seq}), as of {self.as_of}")
        if self.migrated_from:
            text += f", rebuilt from the older format ({self.migrated_from})"
        elif self.rebuilt:
            text += ", rebuilt"
        if self.errors:
            text += (f"; {len(self.errors)} deal(s) could not be computed "
                     f"(see deals.error): {', '.join(sorted(self.errors))}")
        return text


class ReadModels(SQLiteTrackingRecorder):
    """The view file: an eventsourcing ``SQLiteTrackingRecorder`` whose tracking row
    (table ``_tracking``) shares each transaction with the read-model rows it accounts
    for."""

    def __init__(self, path: str):
        self.path = path
        self._tuned: set[int] = set()
        super().__init__(SQLiteDatastore(path, lock_timeout=30))
        # the library names its table "tracking"; ours is internal, so "_tracking"
        self.insert_tracking_statement = (self.insert_tracking_statement
                                          .replace("INTO tracking", f"INTO {TRACKING}")
                                          .replace("WHERE tracking.", f"WHERE {TRACKING}."))
        self.select_max_tracking_id_statement = self.select_max_tracking_id_statement.replace(
            "FROM tracking", f"FROM {TRACKING}")
        self.create_table()

    def construct_create_table_statements(self) -> list[str]:
        return [s.replace("EXISTS tracking (", f"EXISTS {TRACKING} (")
                for s in super().construct_create_table_statements()]

    def _create_table(self, c: Any) -> None:
        super()._create_table(c)  # the library's tracking table
        for table in TABLES:
            c.execute(table.ddl())
        c.execute("INSERT OR IGNORE INTO _meta VALUES ('format', ?)", (FORMAT,))

    @contextmanager
    def transaction(self, checkpoint: bool = True) -> Iterator[Any]:
        """A write transaction on a pooled connection (``writing``). ``checkpoint=False``:
        its commit leaves the write-ahead log as it is, even past SQLite's automatic
        checkpoint size (the connection's setting is put back after it); the next commit
        that passes it checkpoints."""
        with self.writing() as (raw, transaction):
            pages = None if checkpoint else raw.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
            if pages is not None:
                raw.execute("PRAGMA wal_autocheckpoint = 0")
            try:
                with transaction() as cursor:
                    yield cursor
            finally:
                if pages is not None:
                    raw.execute(f"PRAGMA wal_autocheckpoint = {int(pages)}")

    @contextmanager
    def writing(self) -> Iterator[tuple[sqlite3.Connection, Callable[[], Any]]]:
        """One pooled connection, held, ``synchronous=NORMAL`` (in WAL mode a commit
        survives the process being killed, and the file is a cache of the log that
        ``--rebuild`` remakes anyway): its SQLite connection (to attach a file outside a
        transaction, ``publishing.logcopy``) and what makes a write transaction on it (a
        context manager giving its cursor)."""
        with self.datastore.get_connection(commit=True) as conn:
            raw = conn._sqlite_conn
            if id(raw) not in self._tuned:
                raw.execute("PRAGMA synchronous=NORMAL")
                self._tuned.add(id(raw))
            yield raw, lambda: conn.transaction(commit=True)

    def empty(self) -> bool:
        """Whether the file holds no event and no deal (new, or emptied to rebuild)."""
        return not self.query("SELECT 1 FROM events UNION ALL SELECT 1 FROM deals LIMIT 1")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(sql, params)
            return [tuple(r) for r in c.fetchall()]

    def meta(self) -> dict[str, str]:
        return dict(self.query("SELECT key, value FROM _meta"))

    def close(self) -> None:
        self.datastore.close()


def metadata_path(out: str) -> str:
    """``views.db`` -> ``views.metadata.json``, beside it."""
    stem, _ext = os.path.splitext(out)
    return stem + ".metadata.json"


def _file_format(out: str) -> tuple[set[str], str | None]:
    """The tables of an existing SQLite file and the views format it records, if any."""
    conn = sqlite3.connect(f"file:{out}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table'")}
        found = None
        for meta in ("_meta", "meta"):     # "meta": format 1
            if meta in tables:
                row = conn.execute(f"SELECT value FROM {meta} WHERE key='format'").fetchone()
                found = row[0] if row else None
                break
        return tables, found
    finally:
        conn.close()


def _check_out_file(out: str, ledger_url: str) -> str | None:
    """Refuse to write views into the ledger itself or into an unrelated SQLite file.
    Returns the older format of a views file to migrate, if it is one."""
    directory = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(directory):
        raise UsageError(f"no such directory: {directory}", field="--out")
    from .outputs import create_private, refuse_ledger

    for written in (out, out + ".lock", metadata_path(out)):
        refuse_ledger(written, ledger_url, "--out")
    for side in ("-wal", "-shm", "-journal"):
        # SQLite opens these beside the file as it finds them: a link planted there would
        # have it write the views' pages into whatever the link points to
        if os.path.islink(out + side):
            raise UsageError(f"{out + side} is a symbolic link, not SQLite's own file: "
                             "remove it or choose another path (nothing was written)",
                             field="--out")
    if not os.path.exists(out):
        create_private(out, ledger_url, "--out")   # 0600: it holds every event
        return None
    if os.path.getsize(out) == 0:
        return None
    try:
        tables, fmt = _file_format(out)
    except sqlite3.Error as err:
        raise UsageError(f"{out} is not a SQLite file this command wrote ({err})",
                         field="--out") from None
    if tables and (fmt is None or not fmt.startswith("deal-ledger views ")):
        raise UsageError(f"{out} is a SQLite file this command did not write; "
                         "choose another path", field="--out")
    return fmt if tables and fmt != FORMAT else None


def _drop_everything(out: str) -> None:
    """Migration: a views file of another schema version loses every table and index
    (all of them this command's), to be made again from the log."""
    conn = sqlite3.connect(out, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        items = conn.execute("SELECT type, name FROM sqlite_master WHERE type IN "
                             "('table', 'view') AND name NOT LIKE 'sqlite_%'").fetchall()
        for kind, name in items:
            conn.execute(f'DROP {kind.upper()} IF EXISTS "{name}"')
        conn.execute("COMMIT")
    finally:
        conn.close()


def views(ledger: Any, out: str, *, as_of: date, rebuild: bool = False,
          page: int = PAGE, deals_per_commit: int = DEALS_PER_COMMIT,
          on_progress: Progress | None = None, workers: int | None = None) -> ViewsRun:
    """Bring the view file ``out`` up to date with ``ledger`` (a ``ledger.store.Ledger``)
    as of ``as_of``: stream the notifications after the tracked position, then recompute
    the schedules of every deal they touched, and write the Datasette metadata beside the
    file. One run at a time per file. ``on_progress(stage, n, total)`` is told of each
    page read and each batch of deals written; ``workers`` (default: one per core) is the
    size of the process pool that computes the reports of many deals."""
    if not out.strip() or out == ":memory:" or out.startswith("file:"):
        # SQLite takes these for a temporary or in-memory database (or a URI): the views
        # would vanish, and the workers would each open another one
        raise UsageError(f"give the views file's path, not {out!r}", field="--out")
    from .outputs import refuse_ledger

    for written in (out, out + ".lock"):   # before the lock is taken on it
        refuse_ledger(written, ledger.url, "--out")
    with FileLock(out + ".lock"):
        older = _check_out_file(out, ledger.url)
        if older:
            _drop_everything(out)
        try:
            models = ReadModels(out)
        except Exception as err:  # an unreadable, locked or corrupt file
            raise StoreError(f"cannot open the views file {out}: {err}",
                             field="--out") from None
        try:
            result = _views(ledger, models, as_of=as_of, rebuild=rebuild, page=page,
                            deals_per_commit=deals_per_commit,
                            on_progress=on_progress or _no_progress,
                            workers=workers or os.cpu_count() or 1)
        finally:
            models.close()
        if older:
            result.rebuilt, result.migrated_from = True, older
        result.metadata = write_metadata(out, ledger.url)
        return result


def write_metadata(out: str, ledger_url: str) -> str:
    """The Datasette metadata of the file, beside it (replaced whole, atomically; never
    through a link planted at a temporary name: ``publishing.outputs``)."""
    from .outputs import replace_whole

    path = metadata_path(out)
    name = os.path.splitext(os.path.basename(out))[0]
    text = json.dumps(metadata(name), indent=2, ensure_ascii=False) + "\n"
    replace_whole(path, text.encode("utf-8"), ledger_url=ledger_url, field="--out",
                  prefix=".views-metadata-")
    return path


def _tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("deal-ledger")
    except PackageNotFoundError:
        return "unknown"


def _settings(as_of: date) -> dict[str, str]:
    """What the schedule rows depend on besides the events: recompute all if it changes."""
    from projections.interpretations import resolve

    return {"as_of": as_of.isoformat(),
            "interpretations": json.dumps(resolve(), sort_keys=True),
            "tool_version": _tool_version()}


def _views(ledger: Any, models: ReadModels, *, as_of: date, rebuild: bool, page: int,
           deals_per_commit: int, on_progress: Progress, workers: int) -> ViewsRun:
    app_name = ledger.app.name
    result = ViewsRun(out=models.path, as_of=as_of.isoformat(), rebuilt=rebuild)
    first = ledger.first_record()
    identity = first["hash"] if first else ""
    meta = models.meta()
    if rebuild:
        _reset(models, app_name)
        meta = {}
    position = models.max_tracking_id(app_name) or 0
    if meta.get("ledger") and identity and meta["ledger"] != identity:
        raise UsageError(f"{models.path} holds the views of another ledger (its first event "
                         "differs); run with --rebuild to start over", field="--out")
    if position:
        at = ledger.record_at(position)
        if at is None or at["hash"] != meta.get("last_hash"):
            raise UsageError(f"the ledger no longer has the event {models.path} stopped at "
                             f"(position {position}, seq {meta.get('last_seq')}): it was "
                             "rewritten or is another ledger; run with --rebuild",
                             field="--out")
    settings = _settings(as_of)
    with models.transaction() as c:
        c.execute("INSERT OR REPLACE INTO _meta VALUES ('ledger', ?)", (identity,))
        if any(meta.get(k) != v for k, v in settings.items()):
            # the schedules were computed for another as_of (or reading): all of them again
            c.execute("INSERT OR IGNORE INTO _dirty SELECT deal FROM deals")
            c.executemany("INSERT OR REPLACE INTO _meta VALUES (?, ?)", list(settings.items()))
    result.seq = int(meta.get("last_seq") or 0)
    stop = ledger.app.recorder.max_notification_id() or 0
    pooled = workers > 1 and stop - position >= STREAM_POOL_MIN
    copied = 0
    with (worker_pool(models.path, ledger.url, workers) if pooled
          else contextlib.nullcontext()) as pool:
        if position == 0 and stop and logcopy.possible(ledger) and models.empty():
            # SQLite copies the log into the empty file (``publishing.logcopy``); the
            # page path below takes what it did not
            position, tracked, copied, result.seq = logcopy.copy(
                ledger, models, app_name, stop, page, on_progress, pool, workers)
        result.position, result.events, result.seq = _stream(
            ledger, models, app_name, position, result.seq, page, as_of.isoformat(),
            on_progress, pool, workers)
    if copied:
        result.events += copied
        if result.events == copied:   # the page path found nothing after the copy
            result.position = tracked
    # a deal's rows are read by its index, made first; the others are made while the
    # first deals are computed (after a rebuild they take seconds, and the workers only
    # read committed rows)
    deal_index, *other_indexes = LATE_INDEXES
    with models.transaction() as c:
        c.execute(deal_index[0])

    def make_other_indexes() -> None:
        with models.transaction() as c:
            for sql, _name in other_indexes:
                c.execute(sql)

    result.deals, result.errors = _recompute(models, as_of, result.seq, deals_per_commit,
                                             on_progress, workers, make_other_indexes)
    return result


def _reset(models: ReadModels, app_name: str) -> None:
    """``--rebuild``: empty every table and forget the position, in one transaction."""
    with models.transaction() as c:
        for _sql, name in LATE_INDEXES:
            c.execute(f"DROP INDEX IF EXISTS {name}")
        for table in TABLES:
            c.execute(f'DELETE FROM "{table.name}"' + (" WHERE key != 'format'"
                                                       if table is META else ""))
        c.execute(f"DELETE FROM {TRACKING} WHERE application_name = ?", (app_name,))


def _pages_here(ledger: Any, position: int, stop: int, page: int,
                as_of: str) -> Iterator[tuple[int, Page]]:
    """(the range's end, its page) read and decoded in this process, ``page``
    notification ids at a time."""
    while position < stop:
        end = min(position + page, stop)
        yield end, viewworkers.decode_page(ledger.log_range(position, end), as_of)
        position = end


def _pages_pooled(pool: Any, workers: int, position: int, stop: int, page: int,
                  as_of: str) -> Iterator[tuple[int, Page]]:
    """The same pages, read and decoded by the pool's workers (each range of ``page``
    notification ids is one task), handed back in log order, a few ahead at most."""
    ranges = ((a, min(a + page, stop)) for a in range(position, stop, page))
    pending: list[tuple[int, Any]] = []
    for a, b in ranges:
        pending.append((b, pool.submit(viewworkers.worker_page, a, b, as_of)))
        if len(pending) >= 2 * workers:
            end, future = pending.pop(0)
            yield end, future.result()
    for end, future in pending:
        yield end, future.result()


def _stream(ledger: Any, models: ReadModels, app_name: str, position: int, seq: int,
            page: int, as_of: str, on_progress: Progress,
            pool: Any = None, workers: int = 1) -> tuple[int, int, int]:
    """Events after ``position`` into ``events``, one transaction per page with the
    deals whose schedules they change (``_dirty``) and the new tracking position.
    Returns (position, count, last seq)."""
    stop = ledger.app.recorder.max_notification_id() or 0
    insert = EVENTS.insert()
    count, start, done = 0, position, position
    pages = (_pages_pooled(pool, workers, position, stop, page, as_of) if pool is not None
             else _pages_here(ledger, position, stop, page, as_of))
    for end, (rows, dirty, later, last_id) in pages:
        on_progress("reading the log", end - done, stop - start)
        done = end
        if not rows:
            continue
        seq, last_hash = rows[-1][0], rows[-1][13]
        # the last page's commit does not checkpoint: a run's new events touch a page of
        # the deal index each, and the checkpoint they set off (0.2-0.3 s for 1,000 events
        # over 1,000 deals) is done by the first commit of computed deals instead, while
        # the workers compute the next ones, rather than before any worker can start
        with models.transaction(checkpoint=end < stop) as c:
            c.executemany(insert, rows)
            c.executemany("INSERT OR IGNORE INTO _dirty VALUES (?)", [(d,) for d in dirty])
            for deal, (n_later, last_seq) in later.items():
                c.execute("UPDATE deals SET events = events + ?, last_seq = ? WHERE deal = ?",
                          (n_later, last_seq, deal))
                # a deal with no row yet (new, or never computed) is computed whole
                c.execute("INSERT OR IGNORE INTO _dirty SELECT ? WHERE NOT EXISTS "
                          "(SELECT 1 FROM deals WHERE deal = ?)", (deal, deal))
            c.executemany("INSERT OR REPLACE INTO _meta VALUES (?, ?)",
                          [("last_seq", str(seq)), ("last_hash", last_hash)])
            models._insert_tracking(c, Tracking(app_name, last_id))
        position = last_id
        count += len(rows)
    if done < stop:   # the rest are not events (the chain's head)
        on_progress("reading the log", stop - done, stop - start)
    return position, count, seq


# ------------------------------------------------------------- recomputing deals

def _recompute(models: ReadModels, as_of: date, last_seq: int, per_commit: int,
               on_progress: Progress, workers: int,
               meanwhile: Callable[[], None]) -> tuple[int, dict[str, str]]:
    """Each dirty deal's report, once, from its events up to ``last_seq``; its rows
    replaced in the transaction that takes it off ``_dirty``. Many deals: a pool of
    ``workers`` processes computes, this process writes, in the order of the deals.
    ``meanwhile`` is done here once the first deals are being computed."""
    dirty = [d for (d,) in models.query("SELECT deal FROM _dirty ORDER BY deal")]
    batches = [dirty[i:i + per_commit] for i in range(0, len(dirty), per_commit)]
    errors: dict[str, str] = {}
    done = 0
    for computed in viewworkers.computed_batches(models.path, batches, as_of, last_seq, workers,
                                                 meanwhile):
        with models.transaction() as c:
            for deal, tables, summary, retracted, error, (replace, parts), digests in computed:
                # only the tables whose rows changed (``publishing.written``)
                for table in DEAL_TABLES:
                    if table.name in tables:
                        c.execute(f'DELETE FROM "{table.name}" WHERE deal = ?', (deal,))
                        if tables[table.name]:
                            c.executemany(table.insert(), tables[table.name])
                for table in (DEALS, DIRTY):
                    c.execute(f'DELETE FROM "{table.name}" WHERE deal = ?', (deal,))
                if replace:
                    c.execute("DELETE FROM _deal_state WHERE deal = ?", (deal,))
                c.executemany("INSERT OR REPLACE INTO _deal_state VALUES (?, ?, ?, ?, ?, ?)",
                              parts)
                if digests is None:
                    c.execute(f"DELETE FROM {WRITTEN.name} WHERE deal = ?", (deal,))
                else:
                    c.execute(f"INSERT OR REPLACE INTO {WRITTEN.name} VALUES (?, ?)",
                              (deal, digests))
                if summary is None:  # no events of the deal up to last_seq
                    continue
                c.execute(DEALS.insert(), summary)
                if retracted is not None:
                    c.execute("UPDATE events SET retracted = 0 WHERE deal = ? "
                              "AND retracted = 1", (deal,))
                    c.executemany("UPDATE events SET retracted = 1 WHERE seq = ?",
                                  [(s,) for s in retracted])
                if error:
                    errors[deal] = error
                done += 1
        on_progress("computing deals", len(computed), len(dirty))
    return done, errors


