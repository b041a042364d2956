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

A batch is saved with one ``Application.save`` call: one transaction, all or nothing.
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
            guards.fold(aggregate.guard, self.record)

    def __init__(self, record: dict):
        self.guard = guards.fold(guards.new_state(), record)


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
    try:
        return os.environ.get("LEDGER_USER") or getpass.getuser()
    except Exception:  # no passwd entry in some containers
        return f"uid:{os.getuid()}"


def _env_for(url: str, create: bool) -> dict[str, str]:
    if url.startswith(("postgresql://", "postgres://")):
        parts = urlparse(url)
        dbname = parts.path.lstrip("/")
        if not dbname:
            raise StoreError("a PostgreSQL URL needs a database name: "
                             "postgresql://user@host:port/dbname", field="--db")
        return {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": unquote(dbname),
            "POSTGRES_HOST": parts.hostname or "127.0.0.1",
            "POSTGRES_PORT": str(parts.port or 5432),
            "POSTGRES_USER": unquote(parts.username or default_user()),
            "POSTGRES_PASSWORD": unquote(parts.password or os.environ.get("PGPASSWORD", "")),
            "POSTGRES_CONNECT_TIMEOUT": "10",
            "POSTGRES_LOCK_TIMEOUT": "30",
            "CREATE_TABLE": "y" if create else "n",
        }
    return {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": url,
        "SQLITE_LOCK_TIMEOUT": "30",
        "CREATE_TABLE": "y" if create else "n",
    }


def redact(url: str) -> str:
    """The URL with any password hidden, for messages."""
    parts = urlparse(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return parts._replace(netloc=netloc).geturl()
    return url


class Ledger:
    """The ledger: append validated events, read them back, verify the chain."""

    def __init__(self, url: str, *, create: bool = True):
        self.url = url
        self.is_postgres = url.startswith(("postgresql://", "postgres://"))
        if not self.is_postgres:
            if not os.path.exists(url):
                if not create:
                    raise StoreError(f"no ledger at {url} (append or init creates one)",
                                     field="--db")
                _create_private_file(url)
        try:
            self.app = LedgerApp(env=_env_for(url, create))
        except LedgerError:
            raise
        except Exception as err:  # connection refused, unreadable file, bad auth...
            raise StoreError(f"cannot open the ledger at {redact(url)}: "
                             f"{_one_line(err, url)}", field="--db") from None
        self._topics = [
            f"{DealStream.Started.__module__}:{DealStream.Started.__qualname__}",
            f"{DealStream.Recorded.__module__}:{DealStream.Recorded.__qualname__}",
        ]
        self._deal_cache: dict[str, tuple[int, list[Event]]] = {}

    def close(self) -> None:
        self.app.close()

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ reading

    def head(self) -> Head:
        try:
            stored = self.app.recorder.select_events(CHAIN_ID, desc=True, limit=1)
        except PersistenceError as err:
            raise StoreError(f"cannot read the ledger: {_one_line(err, self.url)}") from None
        if not stored:
            return Head(0, GENESIS, None, 0)
        event = self.app.mapper.to_domain_event(stored[0])
        return Head(event.seq, event.hash, event.recorded_at, event.originator_version)

    def _deal(self, deal: str) -> DealStream | None:
        from eventsourcing.application import AggregateNotFoundError

        try:
            return self.app.repository.get(deal_id(deal))
        except AggregateNotFoundError:
            return None

    def records(self, *, start: int = 0) -> Iterator[dict[str, Any]]:
        """Every stored event record in log order (the notification log), streamed."""
        for _nid, record in self.notifications(start=start):
            yield record

    def notifications(self, *, start: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
        """``(notification id, record)`` in log order, streamed page by page."""
        position = start
        while True:
            page = self.app.recorder.select_notifications(
                start=position, limit=PAGE, topics=self._topics, inclusive_of_start=False)
            if not page:
                return
            for n in page:
                yield n.id, self.app.mapper.to_domain_event(n).record
            position = page[-1].id

    def max_position(self) -> int:
        return self.app.recorder.max_notification_id() or 0

    def deal_records(self, deal: str) -> list[dict[str, Any]]:
        stored = self.app.recorder.select_events(deal_id(deal))
        return [self.app.mapper.to_domain_event(s).record for s in stored]

    def deal_events(self, deal: str) -> list[Event]:
        """One deal's events in seq order; cached per process and topped up, not re-read."""
        version, events = self._deal_cache.get(deal, (0, []))
        stored = self.app.recorder.select_events(deal_id(deal), gt=version or None)
        if stored:
            events = events + [Event.from_record(self.app.mapper.to_domain_event(s).record)
                               for s in stored]
            version = stored[-1].originator_version
            self._deal_cache[deal] = (version, events)
        return list(events)

    def deals(self) -> list[str]:
        names = []
        for record in self.records():
            if record["type"] == "DealOpened":
                names.append(record["deal"])
        return names

    # ------------------------------------------------------------------ writing

    def append(self, new_events: Sequence[NewEvent], *, user: str | None = None) -> Appended:
        """Check and append a batch atomically; ``LedgerError`` names the failing line."""
        if not new_events:
            return Appended(0, self.head(), ())
        who = user or default_user()
        with self._writer_lock():
            return self._append_retrying(new_events, who)

    def _writer_lock(self):
        """SQLite: one writer at a time via an advisory lock beside the file, so racing
        writers queue instead of wasting work; PostgreSQL relies on the optimistic retry."""
        import contextlib

        if self.is_postgres:
            return contextlib.nullcontext()
        return _FileLock(self.url + ".lock")

    def _append_retrying(self, new_events: Sequence[NewEvent], who: str) -> Appended:
        deadline = time.monotonic() + RETRY_SECONDS
        attempt = 0
        while True:
            attempt += 1
            head = self.head()
            streams, records = self._stage(new_events, head, who)
            chain = ChainAdvanced(originator_id=CHAIN_ID, originator_version=head.version + 1,
                                  timestamp=ChainAdvanced.create_timestamp(),
                                  seq=records[-1]["seq"], hash=records[-1]["hash"],
                                  recorded_at=records[-1]["recorded_at"])
            before = {d: s.version - len(s.pending_events) for d, s in streams.items()}
            try:
                self.app.save(*streams.values(), chain)
            except (IntegrityError, OperationalError) as err:
                if _is_read_only(err):
                    raise StoreError(f"the ledger at {redact(self.url)} is read-only: "
                                     "reports work, appends do not") from None
                if time.monotonic() > deadline:
                    break
                time.sleep(min(0.2, 0.002 * 2 ** min(attempt, 7)) * random.random())
                continue
            except PersistenceError as err:
                raise StoreError(f"cannot write the ledger: {_one_line(err, self.url)}") from None
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
            record = {**new.envelope(), "id": str(uuid.uuid4()), "seq": seq,
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


class _FileLock:
    """An exclusive advisory lock (``flock``) on a private sidecar file."""

    def __init__(self, path: str):
        self.path = path
        self.fd: int | None = None

    def __enter__(self) -> "_FileLock":
        import fcntl

        try:
            self.fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
        except OSError:
            self.fd = None  # a read-only directory: the append will say so itself
            return self
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: Any) -> None:
        import fcntl

        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)


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


def _is_read_only(err: Exception) -> bool:
    text = str(err).lower()
    return "readonly" in text or "read-only" in text or "permission denied" in text


def _one_line(err: Exception, url: str) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    parts = urlparse(url)
    if parts.password:
        text = text.replace(parts.password, "***")
    return text[:300]
