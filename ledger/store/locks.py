"""Writers queue: one at a time per ledger, waiting at most ``RETRY_SECONDS`` before
giving up with ``LedgerBusy`` (exit 4). SQLite: an ``flock`` on a private sidecar file
``<db>.lock``; PostgreSQL: a session advisory lock on a connection of its own."""

from __future__ import annotations

import hashlib
import os
import random
import time
from typing import Any

from .chainhead import CHAIN_ID, GENESIS, Head
from .connection import RETRY_SECONDS, env_for, one_line, pg_connect
from ..errors import LedgerBusy, StoreError


def _busy(what: str) -> LedgerBusy:
    return LedgerBusy(f"{what} for {RETRY_SECONDS:.0f} s; nothing was written; try again")


class FileLock:
    """An exclusive advisory lock (``flock``) on a private sidecar file, waited for at
    most ``RETRY_SECONDS``."""

    def __init__(self, path: str):
        self.path = path
        self.fd: int | None = None

    def __enter__(self) -> "FileLock":
        import fcntl

        import errno

        try:   # never through a link planted at the lock's name
            self.fd = os.open(self.path, os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW, 0o600)
        except OSError as err:
            if err.errno == errno.ELOOP:
                raise StoreError(f"{self.path} is a symbolic link, not the lock file this "
                                 "tool makes: remove it; nothing was written") from None
            try:  # a read-only ledger still serialises its (failing) writers
                self.fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
            except OSError:
                self.fd = None  # a read-only directory: the append will say so itself
                return self
        deadline = time.monotonic() + RETRY_SECONDS
        pause = 0.001
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(self.fd)
                    self.fd = None
                    raise _busy("another writer held the ledger") from None
                time.sleep(pause * (0.5 + random.random()))
                pause = min(pause * 2, 0.02)

    def __exit__(self, *exc: Any) -> None:
        import fcntl

        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


class AdvisoryLock:
    """A PostgreSQL session advisory lock, taken for the length of an append on a
    connection of its own (kept open while the ``Ledger`` is); ``lock_timeout`` bounds
    the wait. Reads the chain head in the same round trip, since the head is the first
    thing a writer needs once it holds the lock."""

    KEY = int.from_bytes(hashlib.sha256(b"deal-ledger writer").digest()[:8], "big",
                         signed=True)

    def __init__(self, ledger: Any):  # the ``ledger.store.Ledger`` that owns this lock
        self.ledger = ledger
        self.held = False

    def _connection(self):
        ledger = self.ledger
        if ledger._lock_conn is None or ledger._lock_conn.closed:
            ledger._lock_conn = pg_connect(env_for(ledger.url, False), ledger.url)
        return ledger._lock_conn

    def __enter__(self) -> "AdvisoryLock":
        import psycopg

        from eventsourcing.persistence import StoredEvent

        ledger = self.ledger
        table = ledger.app.recorder.events_table_name
        for attempt in (1, 2):
            try:
                conn = self._connection()
                with conn.pipeline():
                    conn.execute("SELECT pg_advisory_lock(%s)", (self.KEY,))
                    self.held = True
                    cur = conn.execute(
                        f'SELECT originator_version, topic, state FROM "{table}" '
                        "WHERE originator_id = %s ORDER BY originator_version DESC LIMIT 1",
                        (CHAIN_ID,))
                row = cur.fetchone()
                break
            except psycopg.errors.LockNotAvailable:
                self.held = False
                raise _busy("another writer held the ledger") from None
            except psycopg.OperationalError as err:
                self._drop()  # a connection the server dropped: one fresh try
                if attempt == 2:
                    raise StoreError("cannot write the ledger: "
                                     f"{one_line(err, ledger.url)}") from None
            except psycopg.Error as err:
                self._drop()
                raise StoreError(f"cannot write the ledger: {one_line(err, ledger.url)}"
                                 ) from None
        if row is None:
            ledger._locked_head = Head(0, GENESIS, None, 0)
        else:
            event = ledger.app.mapper.to_domain_event(StoredEvent(
                originator_id=CHAIN_ID, originator_version=row[0], topic=row[1],
                state=bytes(row[2])))
            ledger._locked_head = Head(event.seq, event.hash, event.recorded_at,
                                       event.originator_version)
        return self

    def _drop(self) -> None:
        self.held = False
        self.ledger._close_lock_conn()  # the server releases a closed session's locks

    def __exit__(self, *exc: Any) -> None:
        self.ledger._locked_head = None
        if not self.held:
            return
        self.held = False
        try:
            self.ledger._lock_conn.execute("SELECT pg_advisory_unlock(%s)", (self.KEY,))
        except Exception:
            self._drop()
