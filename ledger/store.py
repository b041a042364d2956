"""The event store: an ``eventsourcing`` Application over SQLite or PostgreSQL.

Layout in the library's terms:

* every deal is one aggregate, ``DealStream``, whose events (``Started``, ``Recorded``)
  carry the ledger event in its public JSON form (SPEC §3) with the store's fields. Its
  state is the deal's guard state (``ledger.guards``), snapshotted every
  ``SNAPSHOT_INTERVAL`` events, so checking a new event never replays the history;
* one more stream, the chain head, gets one ``ChainAdvanced`` event per batch. Every
  batch writes the next version of it, so two writers racing for the same position
  conflict on the library's ``(originator_id, originator_version)`` key: one commits, the
  other re-reads, re-checks and retries. That makes ``seq`` gap-free on both backends
  and the hash chain a single line.

A batch is saved with one ``Application.save`` call: one transaction, all or nothing
(on PostgreSQL one ``INSERT ... FROM unnest(...)`` through the library's insert function,
whatever the batch size). Every record carries its schema version ``v``
(``ledger.upcasting``), inside what its hash covers.

Writers queue on a lock (an ``flock`` on ``<db>.lock``, a PostgreSQL advisory lock), at
most ``RETRY_SECONDS``, then give up with ``LedgerBusy`` (exit 4). A ``Ledger`` keeps
each deal's aggregate between appends and brings it up to date with the events other
writers stored since, so an append reads only what is new; a batch that is not saved
drops the copies it touched.

Errors a user can meet are ``StoreError`` (exit 5) on one line, with any PostgreSQL
password masked: a path that is not a ledger, a refused connection, a read-only file,
directory or role (reads still work), a stored row altered outside deal-ledger.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import random
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterator, Sequence
from urllib.parse import unquote, urlparse

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, DomainEvent
from eventsourcing.persistence import IntegrityError, OperationalError, PersistenceError

from . import guards
from .errors import LedgerBusy, LedgerError, StoreError
from .events import Event, NewEvent, format_timestamp, parse_timestamp
from .upcasting import VERSION_FIELD, current_version, upcast

NAMESPACE = uuid.UUID("6b0f3c52-3a57-4c1e-9d55-1f0b2d6c8e11")
CHAIN_ID = uuid.uuid5(NAMESPACE, "chain-head")
GENESIS = "0" * 64
SNAPSHOT_INTERVAL = 100
RETRY_SECONDS = 60.0
PAGE = 2000


def deal_id(deal: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"deal:{deal}")


def canonical(record: dict[str, Any]) -> bytes:
    """The bytes a hash covers: sorted keys, no spaces, UTF-8."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def record_hash(record: dict[str, Any]) -> str:
    """SHA-256 over the canonical JSON of the event without its own ``hash``."""
    body = {k: v for k, v in record.items() if k != "hash"}
    return hashlib.sha256(canonical(body)).hexdigest()


class DealStream(Aggregate):
    """One deal's events; the aggregate state is the deal's guard state."""

    class Started(Aggregate.Created):
        record: dict

    class Recorded(Aggregate.Event):
        record: dict

        def apply(self, aggregate: "DealStream") -> None:
            guards.fold(aggregate.guard, upcast(self.record))

    def __init__(self, record: dict):
        self.guard = guards.fold(guards.new_state(), upcast(record))


class ChainAdvanced(DomainEvent):
    """The log's head after a batch: the last seq, its hash and its recorded_at."""

    seq: int
    hash: str
    recorded_at: str


class LedgerApp(Application):
    name = "Ledger"
    is_snapshotting_enabled = True


@dataclass(frozen=True)
class Head:
    seq: int
    hash: str
    recorded_at: str | None
    version: int


@dataclass(frozen=True)
class Appended:
    count: int
    head: Head
    records: tuple[dict[str, Any], ...]


def default_user() -> str:
    """``$LEDGER_USER``, else the OS user, else ``uid:N`` (no passwd entry)."""
    from_env = os.environ.get("LEDGER_USER")
    if from_env and from_env.strip():
        return from_env
    try:
        name = getpass.getuser()
    except Exception:  # no passwd entry in some containers
        name = ""
    return name if name.strip() else f"uid:{os.getuid()}"


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def no_password() -> None:
    """The password function when the URL has none: ``None`` leaves it to libpq, which
    reads ``$PGPASSWORD``, then ``$PGPASSFILE`` or ``~/.pgpass``. (An empty string would
    be a password given: libpq then ignores ``$PGPASSWORD``.)"""
    return None


def _operator(user: str | None) -> str:
    """``recorded_by``: the given operator, else ``$LEDGER_USER``, else the OS user; always
    set, one line of real text."""
    from .errors import UsageError

    who = user if user is not None and user.strip() else default_user()
    try:
        who.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError("the operator name is not valid text", field="--user") from None
    if not who.strip() or len(who) > 200 or any(c < " " for c in who):
        raise UsageError("the operator name must be one line of at most 200 characters",
                         field="--user")
    return who


def _env_for(url: str, create: bool) -> dict[str, str]:
    if is_postgres_url(url):
        return _postgres_env(url, create)
    return {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": url,
        "SQLITE_LOCK_TIMEOUT": "30",
        "CREATE_TABLE": "y" if create else "n",
    }


def _postgres_env(url: str, create: bool) -> dict[str, str]:
    shape = "postgresql://user[:password]@host[:port]/dbname"
    try:
        parts = urlparse(url)
        port = parts.port
    except ValueError:
        raise StoreError(f"not a PostgreSQL URL of the form {shape} (bad port)",
                         field="--db") from None
    dbname = unquote(parts.path.lstrip("/"))
    if not dbname or "/" in dbname:
        raise StoreError(f"a PostgreSQL URL needs a database name: {shape}", field="--db")
    if parts.query or parts.fragment or parts.params:
        # silently dropping ?sslmode=require would connect without what was asked for
        raise StoreError("URL options (?...) are not supported; set libpq's environment "
                         "variables instead (PGSSLMODE, PGPASSFILE, ...)", field="--db")
    env = {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": dbname,
        "POSTGRES_HOST": parts.hostname or "127.0.0.1",
        "POSTGRES_PORT": str(port or 5432),
        "POSTGRES_USER": unquote(parts.username or default_user()),
        "POSTGRES_CONNECT_TIMEOUT": "10",
        "POSTGRES_LOCK_TIMEOUT": "30",
        "POSTGRES_POOL_SIZE": "2",
        "POSTGRES_MAX_OVERFLOW": "2",
        # one INSERT ... FROM unnest(array) per batch, not a pipelined executemany: with
        # the pure-Python psycopg, a pipeline of some thousands of rows can deadlock
        # (both ends waiting to read; psycopg issue #685), leaving the writer hung
        "POSTGRES_ENABLE_DB_FUNCTIONS": "y",
        "CREATE_TABLE": "y" if create else "n",
    }
    if parts.password is not None:
        env["POSTGRES_PASSWORD"] = unquote(parts.password)
    else:
        env["POSTGRES_GET_PASSWORD_TOPIC"] = f"{__name__}:no_password"
    return env


def redact(url: str) -> str:
    """The URL with any password hidden, for messages."""
    try:
        parts = urlparse(url)
        password = parts.password
    except ValueError:
        return url.split("@")[-1] if "@" in url else url
    if password:
        netloc = parts.netloc.replace(f":{password}@", ":***@")
        return parts._replace(netloc=netloc).geturl()
    return url


def _secrets(url: str) -> list[str]:
    """Every password a message about ``url`` might carry, to be masked."""
    found = []
    if is_postgres_url(url):
        try:
            password = urlparse(url).password
        except ValueError:
            password = None
        if password:
            found += [password, unquote(password)]
        if os.environ.get("PGPASSWORD"):
            found.append(os.environ["PGPASSWORD"])
    return sorted({s for s in found if s}, key=len, reverse=True)


class Ledger:
    """The ledger: append validated events, read them back, verify the chain."""

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
                _create_private_file(url)
            _check_sqlite_header(url)
        env = _env_for(url, create)
        self._lock_conn: Any = None  # PostgreSQL: the writer lock's own connection
        if self.is_postgres:
            # fail fast with the server's own reason (the pool would retry for its
            # timeout and then only say it got no connection); kept for the writer lock
            self._lock_conn = _pg_connect(env, url)
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
            if self.is_postgres or not _read_only_place(url):
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
            env = {**env, "SQLITE_DBNAME": _immutable_uri(url), "CREATE_TABLE": "n"}
            try:
                self.app = self._open(env, probe=True)
            except StoreError:
                raise err from None
        self._init_state()

    def _init_state(self) -> None:
        self._topics = [
            f"{DealStream.Started.__module__}:{DealStream.Started.__qualname__}",
            f"{DealStream.Recorded.__module__}:{DealStream.Recorded.__qualname__}",
        ]
        self._deal_cache: dict[str, tuple[int, list[Event]]] = {}
        # The write side's working copy of each deal's aggregate (its guard state),
        # brought up to date with the events other writers stored since (``_deal``).
        # Staging a batch changes these copies in place, so a batch that is not saved
        # drops them (``_forget``) and the next one reloads from the store.
        self._streams: dict[str, DealStream] = {}
        self._locked_head: Head | None = None  # the head read when the lock was taken

    def _open(self, env: dict[str, str], *, probe: bool) -> LedgerApp:
        """The library's application on ``env``; with ``probe``, check the event table
        is there (a reader must not create one)."""
        url = self.url
        try:
            app = LedgerApp(env=env)
        except LedgerError:
            raise
        except Exception as err:  # connection refused, unreadable file, bad auth...
            raise StoreError(f"cannot open the ledger at {redact(url)}: "
                             f"{_one_line(err, url)}", field="--db") from None
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
                                 f"{_one_line(err, url)}", field="--db") from None
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

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ reading

    def _read_failed(self, err: Exception) -> StoreError:
        return StoreError(f"cannot read the ledger at {redact(self.url)}: "
                          f"{_one_line(err, self.url)}")

    def _decode(self, stored: Any) -> Any:
        """A stored row as its domain event; a row that no longer decodes was altered
        outside the ledger, which is the store's problem, not a bug."""
        try:
            return self.app.mapper.to_domain_event(stored)
        except Exception:
            where = getattr(stored, "originator_version", "?")
            raise StoreError(f"a stored event (stream {stored.originator_id}, version {where}) "
                             "cannot be decoded: the ledger was altered outside deal-ledger; "
                             "run `deal-ledger verify`") from None

    def _select(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return self.app.recorder.select_events(*args, **kwargs)
        except PersistenceError as err:
            raise self._read_failed(err) from None

    def head(self) -> Head:
        stored = self._select(CHAIN_ID, desc=True, limit=1)
        if not stored:
            return Head(0, GENESIS, None, 0)
        event = self._decode(stored[0])
        return Head(event.seq, event.hash, event.recorded_at, event.originator_version)

    def _deal(self, deal: str) -> DealStream | None:
        """The deal's aggregate as stored now: the cached copy fast-forwarded by the
        events stored since it was read (usually none, or a few by other writers), else
        loaded from its latest snapshot plus the events after it."""
        from eventsourcing.application import AggregateNotFoundError, Repository

        stream = self._streams.get(deal)
        if stream is not None:
            for stored in self._select(deal_id(deal), gt=stream.version):
                self._decode(stored).mutate(stream)
            return stream
        try:
            stream = self.app.repository.get(deal_id(deal))
            if stream.guard.get("format") != guards.FORMAT:
                # a snapshot taken by an older deal-ledger: rebuild from the events
                stream = Repository(event_store=self.app.events).get(deal_id(deal))
        except AggregateNotFoundError:
            return None
        except PersistenceError as err:
            raise self._read_failed(err) from None
        self._streams[deal] = stream
        return stream

    def _forget(self, deals: Any) -> None:
        for deal in deals:
            self._streams.pop(deal, None)

    def records(self, *, start: int = 0) -> Iterator[dict[str, Any]]:
        """Every stored event record in log order (the notification log), streamed, each
        exactly as stored (what the hash covers; ``upcast`` gives the current shape)."""
        for _nid, record in self.notifications(start=start):
            yield record

    def notifications(self, *, start: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
        """``(notification id, record)`` in log order, streamed page by page."""
        position = start
        while True:
            try:
                page = self.app.recorder.select_notifications(
                    start=position, limit=PAGE, topics=self._topics, inclusive_of_start=False)
            except PersistenceError as err:
                raise self._read_failed(err) from None
            if not page:
                return
            for n in page:
                yield n.id, self._decode(n).record
            position = page[-1].id

    def max_position(self) -> int:
        try:
            return self.app.recorder.max_notification_id() or 0
        except PersistenceError as err:
            raise self._read_failed(err) from None

    def deal_records(self, deal: str) -> list[dict[str, Any]]:
        """One deal's records in seq order, exactly as stored."""
        return [self._decode(s).record for s in self._select(deal_id(deal))]

    def deal_events(self, deal: str) -> list[Event]:
        """One deal's events in seq order, upcast and typed; cached per process and
        topped up, not re-read."""
        version, events = self._deal_cache.get(deal, (0, []))
        stored = self._select(deal_id(deal), gt=version or None)
        if stored:
            events = events + [self._event(s) for s in stored]
            version = stored[-1].originator_version
            self._deal_cache[deal] = (version, events)
        return list(events)

    def _event(self, stored: Any) -> Event:
        record = self._decode(stored).record
        try:
            return Event.from_record(record)
        except LedgerError:
            raise
        except Exception:
            raise StoreError(f"the stored event {record.get('id')} (seq {record.get('seq')}) "
                             "does not read as an event: the ledger was altered outside "
                             "deal-ledger; run `deal-ledger verify`") from None

    def deals(self) -> list[str]:
        names = []
        for record in self.records():
            if record["type"] == "DealOpened":
                names.append(record["deal"])
        return names

    # ------------------------------------------------------------------ writing

    def append(self, new_events: Sequence[NewEvent], *, user: str | None = None) -> Appended:
        """Check and append a batch atomically; ``LedgerError`` names the failing line."""
        who = _operator(user)
        if not new_events:
            return Appended(0, self.head(), ())
        with self._writer_lock():
            return self._append_retrying(new_events, who)

    def _writer_lock(self):
        """One writer at a time, so racing writers queue instead of wasting work on
        batches that lose the race for the chain head: an ``flock`` on a sidecar file
        for SQLite, a session advisory lock for PostgreSQL. Either is released by the
        operating system or the server if the writer dies. The optimistic check on the
        chain head stays the guarantee; the lock only makes it rarely needed."""
        if self.is_postgres:
            return _AdvisoryLock(self)
        return _FileLock(self.url + ".lock")

    def _append_retrying(self, new_events: Sequence[NewEvent], who: str) -> Appended:
        deadline = time.monotonic() + RETRY_SECONDS
        attempt = 0
        upgraded = False
        while True:
            attempt += 1
            head, self._locked_head = self._locked_head or self.head(), None
            deals = {new.deal for new in new_events}
            try:
                streams, records = self._stage(new_events, head, who)
            except BaseException:
                self._forget(deals)
                raise
            chain = ChainAdvanced(originator_id=CHAIN_ID, originator_version=head.version + 1,
                                  timestamp=ChainAdvanced.create_timestamp(),
                                  seq=records[-1]["seq"], hash=records[-1]["hash"],
                                  recorded_at=records[-1]["recorded_at"])
            before = {d: s.version - len(s.pending_events) for d, s in streams.items()}
            try:
                self.app.save(*streams.values(), chain)
            except (IntegrityError, OperationalError) as err:
                self._forget(deals)
                if _is_read_only(err):
                    raise StoreError(f"the ledger at {redact(self.url)} is read-only: "
                                     "reports work, appends do not") from None
                if time.monotonic() > deadline:
                    break
                time.sleep(min(0.2, 0.002 * 2 ** min(attempt, 7)) * random.random())
                continue
            except BaseException as err:
                self._forget(deals)
                if not isinstance(err, PersistenceError):
                    raise
                if _is_read_only(err):
                    raise StoreError(f"the ledger at {redact(self.url)} is read-only: "
                                     "reports work, appends do not") from None
                if self.is_postgres and not upgraded and "es_insert_events" in str(err):
                    # a PostgreSQL ledger made before inserts went through the library's
                    # insert function: create it (and nothing else is missing) once
                    upgraded = True
                    self._upgrade_schema()
                    continue
                raise StoreError("cannot write the ledger: "
                                 f"{_one_line(err, self.url)}") from None
            self._streams.update(streams)
            self._snapshot(streams, before)
            new_head = Head(chain.seq, chain.hash, chain.recorded_at, chain.originator_version)
            return Appended(len(records), new_head, tuple(records))
        raise LedgerBusy(f"the ledger stayed busy for {RETRY_SECONDS:.0f} s ({attempt} "
                         "attempts); nothing was written; try again")

    def _stage(self, new_events: Sequence[NewEvent], head: Head,
               who: str) -> tuple[dict[str, DealStream], list[dict[str, Any]]]:
        """Check every event against its deal's state and build the records and streams."""
        now = datetime.now(timezone.utc)
        if head.recorded_at and parse_timestamp(head.recorded_at) > now:
            now = parse_timestamp(head.recorded_at)  # recorded_at never goes backwards
        stamp = format_timestamp(now)
        streams: dict[str, DealStream | None] = {}
        records = []
        seq, prev = head.seq, head.hash
        for new in new_events:
            if new.deal not in streams:
                streams[new.deal] = self._deal(new.deal)
            stream = streams[new.deal]
            seq += 1
            record = {**new.envelope(), VERSION_FIELD: current_version(new.type),
                      "id": str(uuid.uuid4()), "seq": seq,
                      "recorded_at": stamp, "recorded_by": who, "prev_hash": prev}
            record["hash"] = record_hash(record)
            try:
                guards.check(stream.guard if stream else guards.new_state(), record)
            except LedgerError as err:
                raise err.at_line(new.line) from None
            if stream is None:
                streams[new.deal] = DealStream._create(DealStream.Started, id=deal_id(new.deal),
                                                       record=record)
            else:
                stream.trigger_event(DealStream.Recorded, record=record)
            records.append(record)
            prev = record["hash"]
        return {d: s for d, s in streams.items() if s is not None and s.pending_events}, records

    def _upgrade_schema(self) -> None:
        try:
            self.app.recorder.create_table()
        except PersistenceError as err:
            if _is_read_only(err):
                raise StoreError(f"the ledger at {redact(self.url)} is read-only: "
                                 "reports work, appends do not") from None
            raise StoreError("cannot write the ledger: "
                             f"{_one_line(err, self.url)}") from None

    def _snapshot(self, streams: dict[str, DealStream], before: dict[str, int]) -> None:
        """Snapshot a deal each time it passes a multiple of SNAPSHOT_INTERVAL events."""
        from eventsourcing.domain import Snapshot

        snaps = [Snapshot.take(s) for d, s in streams.items()
                 if s.version // SNAPSHOT_INTERVAL > before[d] // SNAPSHOT_INTERVAL]
        if snaps:
            try:
                self.app.snapshots.put(snaps)
            except PersistenceError:
                pass  # a snapshot is a cache: the events are already safe


def _busy(what: str) -> LedgerBusy:
    return LedgerBusy(f"{what} for {RETRY_SECONDS:.0f} s; nothing was written; try again")


class _FileLock:
    """An exclusive advisory lock (``flock``) on a private sidecar file, waited for at
    most ``RETRY_SECONDS``."""

    def __init__(self, path: str):
        self.path = path
        self.fd: int | None = None

    def __enter__(self) -> "_FileLock":
        import fcntl

        try:
            self.fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
        except OSError:
            try:  # a read-only ledger still serialises its (failing) writers
                self.fd = os.open(self.path, os.O_RDONLY)
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


class _AdvisoryLock:
    """A PostgreSQL session advisory lock, taken for the length of an append on a
    connection of its own (kept open while the ``Ledger`` is); ``lock_timeout`` bounds
    the wait. Reads the chain head in the same round trip, since the head is the first
    thing a writer needs once it holds the lock."""

    KEY = int.from_bytes(hashlib.sha256(b"deal-ledger writer").digest()[:8], "big",
                         signed=True)

    def __init__(self, ledger: "Ledger"):
        self.ledger = ledger
        self.held = False

    def _connection(self):
        ledger = self.ledger
        if ledger._lock_conn is None or ledger._lock_conn.closed:
            ledger._lock_conn = _pg_connect(_env_for(ledger.url, False), ledger.url)
        return ledger._lock_conn

    def __enter__(self) -> "_AdvisoryLock":
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
                                     f"{_one_line(err, ledger.url)}") from None
            except psycopg.Error as err:
                self._drop()
                raise StoreError(f"cannot write the ledger: {_one_line(err, ledger.url)}"
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


def _create_private_file(path: str) -> None:
    """A new SQLite ledger is readable and writable by its owner only."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise StoreError(f"no such directory for the ledger: {directory}", field="--db")
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)
    except FileExistsError:
        pass
    except OSError as err:
        raise StoreError(f"cannot create the ledger at {path}: {err.strerror}",
                         field="--db") from None


def _pg_connect(env: dict[str, str], url: str) -> Any:
    """A direct connection with the ledger's settings (the password from the URL, else
    libpq's own lookup), set up for the writer lock."""
    import psycopg

    try:
        conn = psycopg.connect(
            host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"], dbname=env["POSTGRES_DBNAME"],
            user=env["POSTGRES_USER"], password=env.get("POSTGRES_PASSWORD"),
            connect_timeout=int(env["POSTGRES_CONNECT_TIMEOUT"]), autocommit=True)
        conn.execute(f"SET lock_timeout = '{int(RETRY_SECONDS * 1000)}ms'")
        conn.execute("SET idle_in_transaction_session_timeout = '60s'")
        return conn
    except psycopg.Error as err:
        raise StoreError(f"cannot open the ledger at {redact(url)}: {_one_line(err, url)}",
                         field="--db") from None


def _read_only_place(path: str) -> bool:
    """The SQLite file or its directory cannot be written by this process."""
    directory = os.path.dirname(os.path.abspath(path))
    return not os.access(path, os.W_OK) or not os.access(directory, os.W_OK)


def _immutable_uri(path: str) -> str:
    from urllib.parse import quote

    return f"file:{quote(os.path.abspath(path))}?mode=ro&immutable=1"


def _check_sqlite_header(path: str) -> None:
    """Refuse a file that is not a ledger before the library trips on it (or, worse,
    adds a ledger's tables to another program's database)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
    except OSError as err:
        raise StoreError(f"cannot read the ledger at {path}: {err.strerror}",
                         field="--db") from None
    if not head:
        return  # a new, empty file: the ledger's to set up
    if head != b"SQLite format 3\x00":
        raise StoreError(f"{path} is not a ledger (not a SQLite database)", field="--db")
    import sqlite3
    from urllib.parse import quote

    try:
        conn = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True,
                               timeout=5)
        try:
            tables = {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.Error:
        return  # unreadable here (a read-only directory...): opening will say more
    if tables and "stored_events" not in tables:
        raise StoreError(f"{path} is a SQLite database but not a ledger (it holds "
                         f"{', '.join(sorted(tables)[:3])}...)", field="--db")


def _is_read_only(err: Exception) -> bool:
    text = str(err).lower()
    return "readonly" in text or "read-only" in text or "permission denied" in text


def _one_line(err: Exception, url: str) -> str:
    """An exception's text on one line, without any password, at most 300 characters."""
    text = " ".join(str(err).split()) or type(err).__name__
    for secret in _secrets(url):
        text = text.replace(secret, "***")
    return text[:300]
