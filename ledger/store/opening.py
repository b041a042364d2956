"""Opening a ledger's store, and upgrading one written by an older version.

A ledger is the library's ``Application`` (``stream.LedgerApp``) on a SQLite file (created
0600 if need be) or a PostgreSQL database (``ledger.store.connection``). Opening it
checks that the path is one (not a directory, not another kind of file), that a reader
does not create tables, and that a read-only place still reads. ``Store`` is the opened
store; ``reading.Reading`` reads it and ``writing.Ledger`` appends to it.

Errors a user can meet are ``StoreError`` (exit 5) on one line, with any PostgreSQL
password masked: a path that is not a ledger, a refused connection, a read-only file,
directory or role (reads still work), a stored row altered outside deal-ledger.
"""

from __future__ import annotations

import os
import random
import time
import uuid
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from eventsourcing.persistence import JSONTranscoder, PersistenceError

from ..errors import LedgerError, StoreError
from .chainhead import Head
from .connection import (RETRY_SECONDS, check_sqlite_header, create_private_file, env_for, immutable_uri,
                         is_read_only, is_postgres_url, one_line, pg_connect, read_only_place,
                         redact)
from .stream import CHAIN_TOPIC, RECORDED_TOPIC, STARTED_TOPIC, DealStream, LedgerApp

if TYPE_CHECKING:
    from ..stored import Event


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


class Store:
    """A ledger's store, opened: the library's application (``app``), the URL, whether
    it is PostgreSQL, and what the readers and the writer keep between calls."""

    #: Where ``recorded_at`` comes from: the wall clock. The demo replaces it on its own
    #: instance to record its illustrative history at fixed past moments (it stays
    #: monotonic: an append is never stamped before the log's head).
    clock = staticmethod(_utc_now)

    def __init__(self, url: str, *, create: bool = True):
        self.url = url
        self.is_postgres = is_postgres_url(url)
        if not self.is_postgres:
            if not url or url.startswith("file:") or ":memory:" in url or "\0" in url:
                raise StoreError(f"not a ledger file path: {url!r} (give a file path, or "
                                 "postgresql://user@host:port/dbname)", field="--db")
            if os.path.isdir(url):
                raise StoreError(f"{url} is a directory, not a ledger file", field="--db")
            if not os.path.exists(url):
                if not create:
                    raise StoreError(f"no ledger at {url} (append or init creates one)",
                                     field="--db")
                create_private_file(url)
            check_sqlite_header(url)
        env = env_for(url, create)
        self._lock_conn: Any = None  # PostgreSQL: the writer lock's own connection
        if self.is_postgres:
            # fail fast with the server's own reason (the pool would retry for its
            # timeout and then only say it got no connection); kept for the writer lock
            self._lock_conn = pg_connect(env, url)
        try:
            self.app = self._open(env, probe=not create)
        except StoreError as err:
            if self.is_postgres and create and "permission denied" in str(err).lower():
                # a role that may not create tables may still read an existing ledger;
                # its appends then fail with the read-only message
                try:
                    self.app = self._open({**env, "CREATE_TABLE": "n"}, probe=True)
                except StoreError:
                    self._close_lock_conn()
                    raise err from None
                self._init_state()
                return
            if self.is_postgres or not read_only_place(url):
                self._close_lock_conn()
                raise
            # A read-only directory without the write-ahead log's files: SQLite cannot
            # set up WAL reading there, so read the file as the immutable snapshot it
            # is. (With a -wal file present, committed events may still be in it:
            # reading past them would be wrong, so that case stays an error.)
            if os.path.exists(url + "-wal") and os.path.getsize(url + "-wal") > 0:
                raise StoreError(f"cannot read the ledger at {url}: its directory is "
                                 "read-only and it has an uncheckpointed write-ahead log "
                                 f"({url}-wal); open it once where it can be written",
                                 field="--db") from None
            env = {**env, "SQLITE_DBNAME": immutable_uri(url), "CREATE_TABLE": "n"}
            try:
                self.app = self._open(env, probe=True)
            except StoreError:
                raise err from None
        self._init_state()

    def _init_state(self) -> None:
        self._check_own_rows()
        self._topics = [STARTED_TOPIC, RECORDED_TOPIC]
        self._topic_set = frozenset(self._topics)
        self._deal_cache: dict[str, tuple[int, list[Event]]] = {}
        # The write side's working copy of each deal's aggregate (its guard state),
        # brought up to date with the events other writers stored since (``_deal``).
        # Staging a batch changes these copies in place, so a batch that is not saved
        # drops them (``_forget``) and the next one reloads from the store.
        self._streams: dict[str, DealStream] = {}
        self._locked_head: Head | None = None  # the head read when the lock was taken
        # the write path writes the stored state itself when the library would write
        # plain JSON (its default transcoder, no compressor, no cipher)
        mapper = self.app.mapper
        self._direct = (type(mapper.transcoder) is JSONTranscoder
                        and not mapper.compressor and not mapper.cipher)

    @property
    def plain_json(self) -> bool:
        """Whether the stored states are the library's plain JSON (its default
        transcoder, no compressor, no cipher): what ``ledger.store.logread`` reads."""
        return self._direct

    @property
    def event_topics(self) -> tuple[str, ...]:
        """The library's topics of the stored rows that are events (not the chain's
        head), as its ``topic`` column holds them."""
        return tuple(self._topics)

    def _open(self, env: dict[str, str], *, probe: bool) -> LedgerApp:
        """The library's application on ``env``; with ``probe``, check the event table
        is there (a reader must not create one)."""
        url = self.url
        deadline = time.monotonic() + RETRY_SECONDS
        attempt = 0
        while True:
            attempt += 1
            try:
                app = LedgerApp(env=env)
                break
            except LedgerError:
                raise
            except Exception as err:  # connection refused, unreadable file, bad auth...
                # Writers opening a new ledger at once race on creating its tables: on
                # PostgreSQL for the tables and the insert function ("tuple concurrently
                # updated"), on SQLite for the switch to write-ahead logging, which
                # does not wait for the other ("database is locked"). The loser retries,
                # as long as a writer waits for the lock.
                text = str(err).lower()
                if time.monotonic() < deadline and (
                        "concurrently updated" in text or "already exists" in text
                        or "database is locked" in text):
                    time.sleep(min(0.2, 0.01 * attempt) * (1 + random.random()))
                    continue
                raise StoreError(f"cannot open the ledger at {redact(url)}: "
                                 f"{one_line(err, url)}", field="--db") from None
        if probe:
            try:
                app.recorder.max_notification_id()
            except Exception as err:
                app.close()
                text = str(err).lower()
                if "no such table" in text or "does not exist" in text:
                    raise StoreError(f"no ledger at {redact(url)}: it holds no event table "
                                     "(append or init creates one)", field="--db") from None
                raise StoreError(f"cannot open the ledger at {redact(url)}: "
                                 f"{one_line(err, url)}", field="--db") from None
        return app

    def _close_lock_conn(self) -> None:
        conn, self._lock_conn = self._lock_conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:
                pass

    def close(self) -> None:
        self._close_lock_conn()
        self.app.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


    def _check_own_rows(self) -> None:
        """Refuse a store whose first row deal-ledger did not write: another
        application's ``eventsourcing`` tables (``init`` once added a ledger's events
        to them), or a look-alike table whose stream ids are not UUIDs. The first row of
        a ledger is the ``DealStream.Started`` of its first deal (or, written by no
        version of this tool, nothing): one row read, by the log's index. Rows altered
        later are ``verify``'s to name."""
        recorder = self.app.recorder
        position = "notification_id" if self.is_postgres else "rowid"
        table = recorder.events_table_name
        if self.is_postgres:
            table = f'"{recorder.datastore.schema}"."{table}"'
        try:
            with recorder.datastore.transaction(commit=False) as c:
                c.execute(f"SELECT originator_id, topic FROM {table} "
                          f"ORDER BY {position} LIMIT 1")
                row = c.fetchone()
        except PersistenceError:
            return   # a store that cannot be read says so at its first read
        if row is None:
            return
        stream, topic = (row["originator_id"], row["topic"])
        if topic in (STARTED_TOPIC, RECORDED_TOPIC, CHAIN_TOPIC):
            try:
                uuid.UUID(str(stream))
                return
            except ValueError:
                pass
        raise StoreError(f"{redact(self.url)} is not a ledger: it holds rows deal-ledger did "
                         f"not write (the first is a {str(topic)[:80]!r} row of stream "
                         f"{str(stream)[:40]!r}); choose another path or database",
                         field="--db")

    def _read_failed(self, err: Exception) -> StoreError:
        return StoreError(f"cannot read the ledger at {redact(self.url)}: "
                          f"{one_line(err, self.url)}")

    def _upgrade_schema(self) -> None:
        try:
            self.app.recorder.create_table()
        except PersistenceError as err:
            if is_read_only(err):
                raise StoreError(f"the ledger at {redact(self.url)} is read-only: "
                                 "reports work, appends do not") from None
            raise StoreError("cannot write the ledger: "
                             f"{one_line(err, self.url)}") from None

