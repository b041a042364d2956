"""One consistent view of the store, for readers that must see a single moment of it.

The library's recorder runs each ``select`` in a transaction of its own, so a reader that
pages through the log and then reads the chain head can see a writer's batch in one and
not the other: ``verify`` then took an append in progress for removed events. A
``StableView`` runs every read on one connection, inside one read transaction: on
SQLite a ``BEGIN`` whose first ``SELECT`` fixes the WAL snapshot for the rest of it; on
PostgreSQL ``REPEATABLE READ, READ ONLY``, which gives every statement the same snapshot.
Writers are never blocked by it.

The statements are the library's own (the same tables and columns its recorders read);
the rows come back as the database gives them (``verify`` walks a million), for the
reader to decode.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator
from uuid import UUID

from eventsourcing.persistence import PersistenceError

from ..errors import StoreError

if TYPE_CHECKING:
    from .writing import Ledger


class StableView:
    """Reads of the event and snapshot tables, all from the same snapshot of the store."""

    def __init__(self, ledger: "Ledger", cursor: Any):
        self._ledger = ledger
        self._cursor = cursor
        self._pg = ledger.is_postgres
        recorder = ledger.app.recorder
        convert = getattr(recorder, "convert_originator_id", lambda x: x)
        known: dict[Any, Any] = {}

        def cached(raw: Any) -> Any:  # a log holds few streams: parse each id once
            found = known.get(raw)
            if found is None:
                try:
                    found = convert(raw)
                except (ValueError, TypeError, AttributeError):
                    # not a stream id this tool writes (a row altered or put there by
                    # another program): kept as stored, for the reader to name the row
                    found = raw
                known[raw] = found
            return found

        self._convert = cached
        self._events = self._table(recorder)
        self._snapshots = self._table(ledger.app.snapshots.recorder) \
            if ledger.app.snapshots is not None else None

    def _table(self, recorder: Any) -> str:
        if not self._pg:
            return f'"{recorder.events_table_name}"'
        schema = recorder.datastore.schema
        return f'"{schema}"."{recorder.events_table_name}"'

    def _rows(self, sql: str, params: tuple[Any, ...]) -> list[Any]:
        if self._pg:
            sql = sql.replace("?", "%s")
        try:
            self._cursor.execute(sql, params)
            return list(self._cursor.fetchall())
        except PersistenceError as err:
            raise StoreError(f"cannot read the ledger: {' '.join(str(err).split())[:300]}"
                             ) from None
        except Exception as err:
            if type(err).__module__.startswith(("sqlite3", "psycopg")):
                raise StoreError("cannot read the ledger: "
                                 f"{' '.join(str(err).split())[:300]}") from None
            raise

    def _id(self, originator_id: UUID) -> Any:
        return originator_id if self._pg else originator_id.hex

    def rows_after(self, after: int, limit: int) -> list[tuple[Any, ...]]:
        """Every row of the log after position ``after`` (``limit`` of them), as the
        database gives them, in plain tuples: ``(position, originator_id as stored,
        originator_version, topic, state)`` (the stream id is hexadecimal text on SQLite,
        a UUID on PostgreSQL: ``_id`` makes one so). No notification object, no stream
        id parsed, no row looked up by name: ``verify``'s walk of a million rows."""
        position = "notification_id" if self._pg else "rowid"
        sql = (f"SELECT {position}, originator_id, originator_version, topic, state "
               f"FROM {self._events} WHERE {position} > ? ORDER BY {position} LIMIT ?")
        if self._pg:
            from psycopg.rows import tuple_row

            factory, self._cursor.row_factory = self._cursor.row_factory, tuple_row
            try:
                return self._rows(sql, (after, limit))
            finally:
                self._cursor.row_factory = factory
        raw = self._cursor.sqlite_cursor
        factory, raw.row_factory = raw.row_factory, None
        try:
            return self._rows(sql, (after, limit))
        finally:
            raw.row_factory = factory

    def stream_rows(self, stream: Any, after: int, upto: int) -> list[tuple[Any, ...]]:
        """The rows of one stream (its id as stored) at versions after ``after`` up to
        ``upto``, in version order: ``(originator_version, state)``."""
        sql = (f"SELECT originator_version, state FROM {self._events} WHERE originator_id = ? "
               "AND originator_version > ? AND originator_version <= ? "
               "ORDER BY originator_version")
        return [(r["originator_version"], r["state"])
                for r in self._rows(sql, (stream, after, upto))]

    def snapshot_versions(self) -> dict[Any, int]:
        """The version of each stream's latest snapshot (stream ids as stored)."""
        if self._snapshots is None:
            return {}
        return {r["originator_id"]: r["v"] for r in self._rows(
            f"SELECT originator_id, MAX(originator_version) AS v FROM {self._snapshots} "
            "GROUP BY originator_id", ())}


@contextmanager
def stable_view(ledger: "Ledger") -> Iterator[StableView]:
    """A ``StableView`` for the duration of the block; the transaction is only read in,
    and rolled back at the end."""
    datastore = ledger.app.recorder.datastore
    try:
        if ledger.is_postgres:
            with datastore.get_connection() as conn:
                with conn.transaction(force_rollback=True):
                    cursor = conn.cursor()
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                    # the library's sessions end a transaction idle for a few seconds; a
                    # reader works between its statements (hashing, rebuilding state)
                    cursor.execute("SET LOCAL idle_in_transaction_session_timeout = 0")
                    yield StableView(ledger, cursor)
        else:
            with datastore.transaction(commit=False) as cursor:
                yield StableView(ledger, cursor)
    except PersistenceError as err:
        raise StoreError(f"cannot read the ledger: {' '.join(str(err).split())[:300]}"
                         ) from None
