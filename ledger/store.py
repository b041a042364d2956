# Over 600 lines: one class, the Ledger: its reads and its retrying append share one aggregate cache, one lock and one head.
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

A batch is saved with one call of the library's recorder, ``insert_events``: one
transaction, all or nothing (on PostgreSQL one ``INSERT ... FROM unnest(...)`` through
the library's insert function, whatever the batch size, its parameters sent in binary:
``ledger.pgbinary``), the chain head last. A large JSON Lines batch is parsed and checked
in one pass, by deal, on two processes (``Ledger.append_lines``, ``ledger.bulk``). The write
path builds no library event objects: each record is hashed over its canonical JSON and
its stored event (``StoredEvent``: stream, version, topic, state) is written from the
same JSON pieces, byte for byte what the library's mapper would store for the
``Started``/``Recorded`` event, and the deal's aggregate is advanced as those events
would advance it (issue 17; tests/test_store.py proves both). Where the library is
configured with another transcoder, a compressor or a cipher, the events go through its
mapper instead. Every record carries its schema version ``v`` (``ledger.upcasting``),
inside what its hash covers.

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

import contextlib
import functools
import hashlib
import json
import os
import random
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, DomainEvent, Snapshot
from eventsourcing.persistence import (IntegrityError, JSONTranscoder, OperationalError,
                                       PersistenceError, StoredEvent)

from . import dealcache, guards
from .collector import paused
from .chainhead import CHAIN_ID, GENESIS, NAMESPACE, Head  # noqa: F401 (re-exported)
from .connection import (RETRY_SECONDS, cannot_write, check_sqlite_header, create_private_file,
                         env_for, immutable_uri, is_read_only, is_transient, one_line,
                         pg_connect, read_only_place, default_user, is_postgres_url, redact)
from .errors import LedgerBusy, LedgerError, StoreError
from .jsontext import made_once
from .locks import AdvisoryLock, FileLock
from .stored import Event, events_of, events_of_rows, format_timestamp, parse_timestamp
from .seqorder import SeqOrder
from .upcasting import VERSION_FIELD, upcast

if TYPE_CHECKING:  # the write side's type; readers do not import the validators
    from .events import NewEvent

SNAPSHOT_INTERVAL = 100
PAGE = 2000
PAUSE_GC_AT = 1000  # events in a batch from which the cyclic garbage collector waits


def _record_seq(event: Any) -> int:
    return event.record["seq"]


# ``_stage`` makes a batch's stored events in seq order, the order they are written in.
# A test that needs the layout of ledgers written before that (one deal's lines of a
# batch before another's) sets ``_record_seq`` to another key of a ``_Row``.
_SEQ_ORDER = _record_seq


@functools.lru_cache(maxsize=4096)
def deal_id(deal: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"deal:{deal}")


# One encoder for every hash: ``json.dumps`` with keyword arguments builds a new encoder
# on each call. The same settings as ``json.dumps(record, sort_keys=True,
# separators=(",", ":"), ensure_ascii=False)``, so the same bytes.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# The library's JSONTranscoder settings (``eventsourcing.persistence``): what its mapper
# writes for an event is ``encode(vars(event))`` less the originator's id and version.
_STORED_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
_quote = json.encoder.encode_basestring  # what both encoders quote text with
_json_loads = json.loads


_canonical_text = made_once(_CANONICAL)
_stored_text = made_once(_STORED_JSON)


def canonical(record: dict[str, Any]) -> bytes:
    """The bytes a hash covers: sorted keys, no spaces, UTF-8."""
    return _canonical_text(record).encode("utf-8")


def record_hash(record: dict[str, Any]) -> str:
    """SHA-256 over the canonical JSON of the event without its own ``hash``."""
    if "hash" in record:
        record = {k: v for k, v in record.items() if k != "hash"}
    return hashlib.sha256(canonical(record)).hexdigest()


def _sorted_flat(data: dict[str, Any]) -> bool:
    """Whether ``data`` encodes the same sorted or not: keys in order, and no object or
    array inside (an array may hold objects)."""
    last = ""
    for k, v in data.items():
        if k < last or isinstance(v, (dict, list)):
            return False
        last = k
    return True


_BASE_KEYS = ("type", "deal", "date", "data", VERSION_FIELD, "id", "seq", "recorded_at",
              "recorded_by", "prev_hash", "deal_prev")
_RECORD_KEYS = {(source, key): frozenset(_BASE_KEYS + ("source",) * source + ("key",) * key)
                for source in (False, True) for key in (False, True)}


def _record_texts(record: dict[str, Any], who: str) -> tuple[str, str]:
    """A new record (every field but ``hash``, as ``Ledger._stage`` builds it, with
    ``recorded_by`` already JSON-quoted in ``who``) as two JSON texts made from the same
    pieces: its canonical form (what ``record_hash`` covers: sorted keys, no spaces) and
    its stored form up to its hash (the fields in the order the record has them, as the
    library's transcoder writes them). Equal, byte for byte, to ``canonical(record)`` and
    to the transcoder's text of the record with its hash (tests/test_store.py)."""
    if record.keys() != _RECORD_KEYS[("source" in record, "key" in record)]:
        # not the shape ``_stage`` builds: the encoders themselves (same bytes, slower)
        body = _STORED_JSON.encode(record)
        return canonical(record).decode("utf-8"), body[:-1] + ',"hash":"'
    c0, c1, c2, s0 = _record_pieces(record, who)
    prev, deal_prev = record["prev_hash"], record["deal_prev"]
    return (f"{c0}{deal_prev}{c1}{prev}{c2}",
            f'{s0}{prev}","deal_prev":"{deal_prev}","hash":"')


def _record_pieces(record: dict[str, Any], who: str) -> tuple[str, str, str, str]:
    """``_record_texts`` with the chain links left as holes, for a record of the shape
    ``_stage`` builds (its ``prev_hash`` and ``deal_prev`` are not read): the canonical
    text is ``c0 + deal_prev + c1 + prev_hash + c2``, the stored one up to its hash
    ``s0 + prev_hash + '","deal_prev":"' + deal_prev + '","hash":"'``. The links are
    the only parts that depend on the rest of the log (``ledger.staging``)."""
    data = record["data"]
    sorted_data = _canonical_text(data)
    plain_data = sorted_data if _sorted_flat(data) else _stored_text(data)
    kind, deal, day = _quote(record["type"]), _quote(record["deal"]), record["date"]
    source, key = record.get("source"), record.get("key")
    source_q = None if source is None else _quote(source)
    key_q = None if key is None else _quote(key)
    v, eid, seq, stamp = record[VERSION_FIELD], record["id"], record["seq"], record["recorded_at"]
    key_c = "" if key_q is None else f'"key":{key_q},'
    source_c = "" if source_q is None else f'"source":{source_q},'
    source_s = "" if source_q is None else f',"source":{source_q}'
    key_s = "" if key_q is None else f',"key":{key_q}'
    return (f'{{"data":{sorted_data},"date":"{day}","deal":{deal},"deal_prev":"',
            f'","id":"{eid}",{key_c}"prev_hash":"',
            f'","recorded_at":"{stamp}","recorded_by":{who},"seq":{seq},{source_c}'
            f'"type":{kind},"v":{v}}}',
            f'{{"type":{kind},"deal":{deal},"date":"{day}","data":{plain_data}{source_s}'
            f'{key_s},"v":{v},"id":"{eid}","seq":{seq},"recorded_at":"{stamp}",'
            f'"recorded_by":{who},"prev_hash":"')


_VERSION_NIBBLE = bytes((b & 0x0F) | 0x40 for b in range(256))  # 0100xxxx: version 4
_VARIANT_BITS = bytes((b & 0x3F) | 0x80 for b in range(256))    # 10xxxxxx: RFC 4122


class Ids(Sequence):
    """``count`` random (version 4) UUIDs as text, as ``str(uuid.uuid4())`` gives them,
    from one read of the system's random source instead of one per id, each written out
    when asked for: the lines of a large batch are staged on two processes
    (``ledger.staging``), and each writes out the ids of its own lines."""

    __slots__ = ("_hex", "_count")

    def __init__(self, count: int):
        raw = bytearray(os.urandom(16 * count))
        raw[6::16] = raw[6::16].translate(_VERSION_NIBBLE)
        raw[8::16] = raw[8::16].translate(_VARIANT_BITS)
        self._hex, self._count = raw.hex(), count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            return [self[i] for i in range(self._count)[k]]
        if k < 0:
            k += self._count
        if not 0 <= k < self._count:
            raise IndexError("id index out of range")
        h, i = self._hex, 32 * k
        return f"{h[i:i + 8]}-{h[i + 8:i + 12]}-{h[i + 12:i + 16]}-{h[i + 16:i + 20]}-{h[i + 20:i + 32]}"


def new_ids(count: int) -> Sequence[str]:
    """``Ids(count)``."""
    return Ids(count)


class DealStream(Aggregate):
    """One deal's events; the aggregate state is the deal's guard state and ``at``, the
    ``[seq, hash]`` of the last event folded into it (what binds a snapshot of it to the
    chain: ``seal`` and ``Ledger._sound``)."""

    class Started(Aggregate.Created):
        record: dict

    class Recorded(Aggregate.Event):
        record: dict

        def apply(self, aggregate: "DealStream") -> None:
            guards.fold(aggregate.guard, upcast(self.record))
            aggregate.at = [self.record["seq"], self.record["hash"]]

    def __init__(self, record: dict):
        self.guard = guards.fold(guards.new_state(), upcast(record))
        self.at = [record["seq"], record["hash"]]

    # The write path (``Ledger._stage``) does what the two events above do to the
    # aggregate, without building the library's event objects: it has just checked the
    # record (``guards.check`` gave its timeline entries) and writes the stored event
    # itself (``_record_texts``, ``_stored_prefixes``). Replaying the stored events (``Repository.get``, a
    # snapshot plus the events after it) goes through the events above and must give
    # the same aggregate: tests/test_store.py compares the two.

    @classmethod
    def _started(cls, stream_id: uuid.UUID, guard: dict[str, Any], at: list[Any],
                 when: datetime) -> "DealStream":
        """The aggregate ``Started`` creates (``Aggregate.__base_init__``, then
        ``__init__``), of a guard state already folded."""
        stream = object.__new__(cls)
        stream.__dict__.update(_id=stream_id, _version=1, _created_on=when,
                               _modified_on=when, _pending_events=[], guard=guard, at=at)
        return stream

    def _recorded(self, at: list[Any], when: datetime) -> int:
        """What ``Recorded.mutate`` does after ``apply`` (the guard state is folded by
        the caller): the next version, ``modified_on`` and ``at``; the new version."""
        self._version += 1
        self._modified_on = when
        self.at = at
        return self._version


def seal(guard: dict[str, Any], at: Any, version: int) -> str:
    """SHA-256 over a snapshot's guard state, the chain position it was taken at and its
    stream version: a snapshot whose bytes were edited no longer matches its seal, and
    one moved to another position no longer matches the event stored there."""
    return hashlib.sha256(canonical({"guard": guard, "at": at, "version": version})
                          ).hexdigest()


def _topic(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


STREAM_TOPIC = _topic(DealStream)
STARTED_TOPIC = _topic(DealStream.Started)
RECORDED_TOPIC = _topic(DealStream.Recorded)
SNAPSHOT_TOPIC = _topic(Snapshot)

def _stored_prefixes(when: datetime) -> tuple[str, str]:
    """The stored state of a ``Started`` and of a ``Recorded`` event up to its record, as
    the library's mapper writes them: the timestamp (its ``datetime_iso`` transcoding),
    for ``Started`` the aggregate's topic, then the record."""
    stamp = f'{{"timestamp":{{"_type_":"datetime_iso","_data_":"{when.isoformat()}"}},'
    return (f'{stamp}"originator_topic":"{STREAM_TOPIC}","record":',
            f'{stamp}"record":')


class _Row:
    """One staged event: its record and the library's stored event of it."""

    __slots__ = ("record", "stored")

    def __init__(self, record: dict[str, Any], stored: Any):
        self.record, self.stored = record, stored


class _Stored:
    """What the library's ``StoredEvent`` holds, and all its recorders read of one: a row
    read back by ``Ledger._stream_rows``, and a new event written on the direct path
    (``staging.link``: a quarter of the frozen dataclass's cost to make, 0.06 s of
    100,000 events)."""

    __slots__ = ("originator_id", "originator_version", "topic", "state")

    def __init__(self, originator_id: Any, originator_version: int, topic: str, state: bytes):
        self.originator_id, self.originator_version = originator_id, originator_version
        self.topic, self.state = topic, state


class ChainAdvanced(DomainEvent):
    """The log's head after a batch: the last seq, its hash and its recorded_at."""

    seq: int
    hash: str
    recorded_at: str


class LedgerApp(Application):
    name = "Ledger"
    is_snapshotting_enabled = True


@dataclass(frozen=True)
class Appended:
    count: int
    head: Head
    records: Sequence[dict[str, Any]]   # a tuple, or ``bulk.Records`` (made when asked)


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


@contextlib.contextmanager
def _reaping() -> Iterator[None]:
    """A forked child that answered before it exited (``ledger.staging``) is waited for
    once the batch is written: no process is left behind."""
    try:
        yield
    finally:
        from .forked import reap

        reap(block=True)


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


class Ledger:
    """The ledger: append validated events, read them back, verify the chain."""

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
        self._topics = [
            f"{DealStream.Started.__module__}:{DealStream.Started.__qualname__}",
            f"{DealStream.Recorded.__module__}:{DealStream.Recorded.__qualname__}",
        ]
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
        transcoder, no compressor, no cipher): what ``ledger.logread`` reads."""
        return self._direct

    @property
    def event_topics(self) -> tuple[str, ...]:
        """The library's topics of the stored rows that are events (not the chain's
        head), as its ``topic`` column holds them."""
        return tuple(self._topics)

    def log_range(self, after: int, upto: int) -> list[tuple[int, dict[str, Any]]]:
        """``(notification id, record)`` of the events among notifications
        ``(after, upto]``, in log order (the chain head's rows left out), decoded as a
        deal's rows are (``_records_of``). On SQLite, with plain JSON states, in the
        library's own read transaction, without the library making a notification
        object, and a UUID of its stream id, for each row (three quarters of the read)."""
        recorder = self.app.recorder
        if self.is_postgres or not self._direct:
            page = self._events_of(self._notifications(after, upto - after, stop=upto))
            return list(zip([n.id for n in page], self._records_of(page)))
        marks = ",".join("?" * len(self._topics))
        try:
            with recorder.datastore.transaction(commit=False) as c:
                c.execute(f"SELECT rowid, originator_id, originator_version, topic, state "
                          f"FROM {recorder.events_table_name} WHERE rowid > ? AND rowid <= ? "
                          f"AND topic IN ({marks}) ORDER BY rowid",
                          [after, upto, *self._topics])
                rows = c.fetchall()
        except PersistenceError as err:
            raise self._read_failed(err) from None
        stored = [_Stored(*row[1:]) for row in rows]
        return list(zip([row[0] for row in rows], self._records_of(stored)))

    def _open(self, env: dict[str, str], *, probe: bool) -> LedgerApp:
        """The library's application on ``env``; with ``probe``, check the event table
        is there (a reader must not create one)."""
        url = self.url
        for attempt in range(5):
            try:
                app = LedgerApp(env=env)
                break
            except LedgerError:
                raise
            except Exception as err:  # connection refused, unreadable file, bad auth...
                # PostgreSQL: writers opening at once race on creating the tables and
                # the insert function ("tuple concurrently updated"); the loser retries
                text = str(err).lower()
                if attempt < 4 and ("concurrently updated" in text
                                    or "already exists" in text):
                    time.sleep(0.05 * (attempt + 1) * (1 + random.random()))
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

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ reading

    def _read_failed(self, err: Exception) -> StoreError:
        return StoreError(f"cannot read the ledger at {redact(self.url)}: "
                          f"{one_line(err, self.url)}")

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
            stream = self._from_snapshot(deal)
            if stream is None:
                stream = Repository(event_store=self.app.events).get(deal_id(deal))
        except AggregateNotFoundError:
            return None
        except PersistenceError as err:
            raise self._read_failed(err) from None
        self._streams[deal] = stream
        return stream

    def _from_snapshot(self, deal: str) -> DealStream | None:
        """The deal's aggregate from its latest snapshot and the events after it, if that
        snapshot is sound (``_sound``); else ``None``: the caller rebuilds from the
        events. The write side never trusts state that the chain does not vouch for."""
        try:
            snapshots = list(self.app.snapshots.get(deal_id(deal), desc=True, limit=1))
        except Exception:  # an undecodable snapshot is no snapshot
            return None
        if not snapshots or not self._sound(deal, snapshots[0]):
            return None
        stream = snapshots[0].mutate(None)
        guards.upgrade(stream.guard)   # a snapshot of an older layout, as this one
        for stored in self._select(deal_id(deal), gt=stream.version):
            self._decode(stored).mutate(stream)
        return stream

    def _sound(self, deal: str, snapshot: Any) -> bool:
        """A snapshot is used only if its guard state is of a layout this code reads
        (``guards.READABLE``), its seal recomputes, and the event stored at its version is the chained event (``at``)
        it was taken after. (``verify`` goes further: it rebuilds the state from the
        events and compares, so a snapshot re-sealed after an edit is caught there.)"""
        state = snapshot.state
        guard, at, version = state.get("guard"), state.get("at"), snapshot.originator_version
        if not isinstance(guard, dict) or guard.get("format") not in guards.READABLE:
            return False
        try:
            if state.get("seal") != seal(guard, at, version):
                return False
        except (TypeError, ValueError):
            return False
        stored = self._select(deal_id(deal), gt=version - 1, lte=version)
        if len(stored) != 1:
            return False
        record = self._decode(stored[0]).record
        return [record.get("seq"), record.get("hash")] == at

    def _forget(self, deals: Any) -> None:
        for deal in deals:
            self._streams.pop(deal, None)

    def records(self, *, start: int = 0) -> Iterator[dict[str, Any]]:
        """Every stored event record in ``seq`` order, streamed, each exactly as stored
        (what the hash covers; ``upcast`` gives the current shape).

        The log holds events in seq order; ledgers written before appends kept to that
        may hold one deal's lines of an interleaved batch before another's. Those are put
        back in seq order here, holding only the events that arrived early.
        (Where ``plain_json``, ``ledger.logread.log_records`` reads the same records
        with a third less CPU.)"""
        order = SeqOrder()
        for nid, record in self.notifications(start=start):
            yield from order.put(record.get("seq"), nid, record)
        yield from order.drain()

    def notifications(self, *, start: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
        """``(notification id, record)`` in log order, streamed page by page."""
        position = start
        while True:
            page = self._notifications(position, PAGE)
            if not page:
                return
            for n in self._events_of(page):
                yield n.id, self._decode(n).record
            position = page[-1].id

    def first_record(self) -> dict[str, Any] | None:
        """The log's first event record, as stored; ``None`` if it holds none."""
        position = 0
        while page := self._notifications(position, 16):
            for n in self._events_of(page):
                return self._decode(n).record
            position = page[-1].id
        return None

    def record_at(self, position: int) -> dict[str, Any] | None:
        """The event record at notification ``position``, as stored; ``None`` if that
        notification is not an event (or not there)."""
        for n in self._events_of(self._notifications(position - 1, 1, stop=position)):
            return self._decode(n).record
        return None

    def _notifications(self, after: int, limit: int, stop: int | None = None) -> list[Any]:
        """The library's notifications after ``after`` (at most ``limit``, up to ``stop``),
        of every topic: the chain head's rows are dropped by ``_events_of``, not by the
        query. On PostgreSQL, a ``topic`` condition on a log not yet analysed (just
        loaded in bulk, before autovacuum's first ANALYZE) made the planner sort the rest
        of the table for every page instead of walking the notification index: 102 ms a
        page of 2,000 against 0.8 ms on 100,000 events, and a whole read twice as long
        (issue 17's "unexplained" 0.53x); without it the index is walked whatever the
        statistics say."""
        try:
            return self.app.recorder.select_notifications(
                start=after, limit=limit, stop=stop, inclusive_of_start=False)
        except PersistenceError as err:
            raise self._read_failed(err) from None

    def _events_of(self, page: list[Any]) -> list[Any]:
        """The notifications of ``page`` that are events (not the chain's head)."""
        topics = self._topic_set
        return [n for n in page if n.topic in topics]

    def max_position(self) -> int:
        try:
            return self.app.recorder.max_notification_id() or 0
        except PersistenceError as err:
            raise self._read_failed(err) from None

    def deal_records(self, deal: str) -> list[dict[str, Any]]:
        """One deal's records in seq order, exactly as stored."""
        return [self._decode(s).record for s in self._select(deal_id(deal))]

    def deal_events(self, deal: str, *, cache_dir: str | None = None) -> list[Event]:
        """One deal's events in seq order, upcast and typed; cached per process and
        topped up, not re-read. With ``cache_dir`` (SQLite, the library's plain JSON),
        the deal's records are read from its file there (``ledger.dealcache``) if the
        stream still ends at the version and hash the file was written for, and the file
        is written again if not: for a one-deal command in a fresh process."""
        if (cache_dir is not None and deal not in self._deal_cache and self._direct
                and not self.is_postgres):
            events = self._deal_events_cached(deal, cache_dir)
            if events is not None:
                return list(events)
        version, events = self._deal_cache.get(deal, (0, []))
        # every row and record read stays alive in its event: a collection meanwhile
        # frees nothing, and took a quarter of a cold report's read of 10,000 events
        with paused(True):
            stored = self._stream_rows(deal_id(deal), version)
            if stored:
                try:
                    new = events_of(self._records_of(stored))
                except Exception:  # a row altered outside deal-ledger: name it
                    new = [self._as_event(r) for r in self._records_of(stored)]
                events = events + new
                version = stored[-1].originator_version
                self._deal_cache[deal] = (version, events)
        return list(events)

    def _deal_events_cached(self, deal: str, directory: str) -> list[Event] | None:
        """``deal_events`` through the deal's cache file; ``None`` for a deal with no
        stored event (the caller's read says so)."""
        stream = deal_id(deal)
        last = self._last_row(stream)
        if last is None:
            return None
        path = dealcache.cache_path(directory, os.path.realpath(self.url), stream.hex)
        with paused(True):
            events = None
            try:
                found = dealcache.load(path, last[0], _json_loads(last[1])["record"]["hash"])
            except Exception:  # a last row that does not read: the store's read names it
                found = None
            if found is not None:
                try:
                    events = events_of_rows(*found)
                except Exception:  # a file that does not read as events: the store
                    events = None
            if events is None:
                stored = self._stream_rows(stream, 0)
                records = self._records_of(stored)
                try:
                    data = dealcache.encode(stored[-1].originator_version,
                                            records[-1]["hash"], records)
                    events = events_of(records)
                except Exception:  # a row altered outside deal-ledger: name it
                    events = [self._as_event(r) for r in self._records_of(stored)]
                    data = None
                if data is not None:
                    dealcache.write(path, data)
                last = (stored[-1].originator_version, None)
            self._deal_cache[deal] = (last[0], events)
        return events

    def stream_records(self, stream_id: uuid.UUID) -> list[dict[str, Any]]:
        """Every record of one deal stream, in stream order, as stored (``verify`` holds
        the deal cache files against them: ``dealcache.check``)."""
        return self._records_of(self._stream_rows(stream_id, 0))

    def _last_row(self, stream_id: uuid.UUID) -> tuple[int, bytes] | None:
        """The stream's last stored event: its version and state."""
        recorder = self.app.recorder
        try:
            with recorder.datastore.transaction(commit=False) as c:
                c.execute(f"SELECT originator_version, state FROM "
                          f"{recorder.events_table_name} WHERE originator_id=? "
                          "ORDER BY originator_version DESC LIMIT 1", (stream_id.hex,))
                row = c.fetchone()
        except PersistenceError as err:
            raise self._read_failed(err) from None
        return None if row is None else (row[0], row[1])

    def _record_of(self, stored: Any) -> dict[str, Any]:
        """A deal's stored row as its record. Where the library writes plain JSON (its
        default transcoder, no compressor or cipher), the record is read with the
        ``json`` module's C decoder alone: no domain event object, no per-object hook
        (the record is plain JSON: its only transcoded value, the timestamp, is outside
        it). Else, and for a row that does not decode so, through the library's mapper."""
        if self._direct:
            try:
                record = _json_loads(stored.state)["record"]
                if isinstance(record, dict):
                    return record
            except Exception:
                pass
        return self._decode(stored).record

    def _stream_rows(self, stream_id: uuid.UUID, after: int) -> Sequence[Any]:
        """The stream's stored events after version ``after``, as ``select_events``
        gives them. On SQLite, in the library's own read transaction, the rows come back
        as they are stored (``_Stored``), without the library turning each row's id
        text back into a UUID the caller already has (a tenth of a cold report's read)."""
        recorder = self.app.recorder
        if self.is_postgres or not self._direct:
            return self._select(stream_id, gt=after or None)
        try:
            with recorder.datastore.transaction(commit=False) as c:
                c.execute(f"SELECT originator_version, topic, state FROM "
                          f"{recorder.events_table_name} WHERE originator_id=? AND "
                          "originator_version>? ORDER BY originator_version ASC",
                          (stream_id.hex, after))
                return [_Stored(stream_id, *row) for row in c.fetchall()]
        except PersistenceError as err:
            raise self._read_failed(err) from None

    def _records_of(self, stored: Sequence[Any]) -> list[dict[str, Any]]:
        """``_record_of`` of every row, the plain-JSON ones decoded in one call of the C
        decoder (the rows' states joined as one JSON array): per-row decoding spent more
        on the call than on the bytes."""
        records: list[dict[str, Any]] = []
        for start in range(0, len(stored), PAGE):   # pages: the joined copy stays small
            page = stored[start:start + PAGE]
            if self._direct:
                try:
                    states = _json_loads(b"[" + b",".join(s.state for s in page) + b"]")
                    found = [state["record"] for state in states]
                    if len(found) == len(page) and all(type(r) is dict for r in found):
                        records += found
                        continue
                except Exception:
                    pass  # a row that does not decode so: row by row names it
            records += [self._record_of(s) for s in page]
        return records

    def _event(self, stored: Any) -> Event:
        return self._as_event(self._record_of(stored))

    def _as_event(self, record: dict[str, Any]) -> Event:
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
        with self._writer_lock(), paused(len(new_events) >= PAUSE_GC_AT, promote=True), \
                _reaping():
            return self._append_retrying(new_events, who)

    def append_lines(self, raw: bytes, *, user: str | None = None) -> Appended:
        """``append(read_batch(raw))``: a JSON Lines batch parsed, checked and appended,
        all or nothing, the first bad line named. A large batch goes in one pass on two
        processes where it can (``ledger.bulk``), and the plain way otherwise, or if the
        one pass is unsure of any line (the plain way then names it)."""
        from . import bulk
        from .jsonl import read_batch, split_lines

        lines = split_lines(raw)
        taken = bulk.take(lines) if self._direct else None
        if taken is not None:
            who = _operator(user)
            try:
                with self._writer_lock(), paused(True, promote=True), _reaping():
                    return self._append_retrying([None] * len(lines), who, taken)
            except bulk.Unsure:
                pass
        return self.append(read_batch(raw), user=user)

    def _writer_lock(self):
        """One writer at a time, so racing writers queue instead of wasting work on
        batches that lose the race for the chain head: an ``flock`` on a sidecar file
        for SQLite, a session advisory lock for PostgreSQL. Either is released by the
        operating system or the server if the writer dies. The optimistic check on the
        chain head stays the guarantee; the lock only makes it rarely needed."""
        if self.is_postgres:
            return AdvisoryLock(self)
        return FileLock(self.url + ".lock")

    def _append_retrying(self, new_events: Sequence[NewEvent | None], who: str,
                         lines: Any = None) -> Appended:
        """``lines``: the batch as ``bulk.Lines`` (``new_events`` then all ``None``)."""
        deadline = time.monotonic() + RETRY_SECONDS
        attempt = 0
        upgraded = False
        while True:
            attempt += 1
            head, self._locked_head = self._locked_head or self.head(), None
            deals = set(lines.deals) if lines is not None else {n.deal for n in new_events}
            try:
                staged = self._stage(list(new_events), head, who, lines)
            except BaseException:
                self._forget(deals)
                raise
            streams, before, records, stored, guard_texts = staged
            last = records[-1]
            chain = ChainAdvanced(originator_id=CHAIN_ID, originator_version=head.version + 1,
                                  timestamp=ChainAdvanced.create_timestamp(),
                                  seq=last["seq"], hash=last["hash"],
                                  recorded_at=last["recorded_at"])
            # The log must hold the events in seq order, the order their hashes chain
            # in, whatever the batch interleaves (``_stage`` makes them in that order),
            # with the chain head last: one call of the library's recorder, one
            # transaction (on PostgreSQL one call of its insert function), all or nothing.
            if _record_seq is not _SEQ_ORDER:
                stored = [row.stored for row in sorted(map(_Row, records, stored),
                                                       key=_record_seq)]
            stored.append(self.app.mapper.to_stored_event(chain))
            try:
                with self._binary_params():
                    self.app.recorder.insert_events(stored)
            except (IntegrityError, OperationalError) as err:
                self._forget(deals)
                if is_read_only(err):
                    raise StoreError(f"the ledger at {redact(self.url)} is read-only: "
                                     "reports work, appends do not") from None
                if not is_transient(err):
                    raise StoreError(cannot_write(err, self.url)) from None
                if time.monotonic() > deadline:
                    break
                time.sleep(min(0.2, 0.002 * 2 ** min(attempt, 7)) * random.random())
                continue
            except BaseException as err:
                self._forget(deals)
                if not isinstance(err, PersistenceError):
                    raise
                if is_read_only(err):
                    raise StoreError(f"the ledger at {redact(self.url)} is read-only: "
                                     "reports work, appends do not") from None
                if self.is_postgres and not upgraded and "es_insert_events" in str(err):
                    # a PostgreSQL ledger made before inserts went through the library's
                    # insert function: create it (and nothing else is missing) once
                    upgraded = True
                    self._upgrade_schema()
                    continue
                raise StoreError(cannot_write(err, self.url)) from None
            for deal, stream in streams.items():
                if stream.guard is None:   # checked by a child: read back when needed
                    self._streams.pop(deal, None)
                else:
                    self._streams[deal] = stream
            self._snapshot(streams, before, guard_texts)
            new_head = Head(chain.seq, chain.hash, chain.recorded_at, chain.originator_version)
            return Appended(len(records), new_head, records)
        raise LedgerBusy(f"the ledger stayed busy for {RETRY_SECONDS:.0f} s ({attempt} "
                         "attempts); nothing was written; try again")

    def _stage(self, new_events: list[Any], head: Head, who: str, lines: Any = None
               ) -> tuple[dict[str, DealStream], dict[str, int], Sequence[dict[str, Any]],
                          list[Any], dict[str, str]]:
        """Check every event against its deal's state and build its record and the
        library's stored event of it, in seq order; fold it into the deal's aggregate
        (the cached copy, dropped by the caller if the batch is not saved). Returns the
        deals' aggregates, their versions before the batch, the records and their stored
        events in seq order, and the canonical guard state of deals due for a snapshot
        where it was made already (those a forked child checked have no guard state
        here: ``ledger.staging``).

        Two steps (``ledger.staging``): each line is checked and its texts made with the
        chain links left as holes (for a large batch, on two processes, by deal), then
        the links are filled in and hashed in seq order. No library event object is
        built: the stored state is written from the record directly
        (``_stored_prefixes``), byte for byte what the library's mapper would write
        (tests/test_store.py checks both ways), and the aggregate is advanced as its
        events would advance it (``DealStream._started``, ``_recorded``).

        ``lines`` (``bulk.Lines``): the batch unparsed (``new_events`` all ``None``): each
        deal's lines are parsed by the process that checks them, and ``bulk.Unsure``
        where the one pass cannot take the batch; the records are then a
        ``bulk.Records``."""
        from . import bulk, staging

        now = self.clock()
        if head.recorded_at and parse_timestamp(head.recorded_at) > now:
            now = parse_timestamp(head.recorded_at)  # recorded_at never goes backwards
        ids = new_ids(len(new_events))
        # what guards.check needs of the lines after each one (a same-day line recorded
        # later may take effect first: ledger.dayorder), built only if a line needs it
        batch = guards.Batch(bulk.unsure if lines is not None else (
            lambda: [{**n.envelope(), "seq": head.seq + k, "id": i}
                     for k, (n, i) in enumerate(zip(new_events, ids), 1)]))
        job = staging.Job(new_events, ids, head.seq, format_timestamp(now), who, _quote(who),
                          now, batch, self._deal, self._forget, _record_pieces,
                          _canonical_text, deal_id, lines.deals if lines is not None else [])

        def due(deal: str, version: int) -> bool:
            return version // SNAPSHOT_INTERVAL > job.before[deal] // SNAPSHOT_INTERVAL

        pool = (getattr(self.app.recorder.datastore.pool, "name", None)
                if self.is_postgres else None)
        if lines is None:
            checked = staging.check_batch(job, due, parallel=self._direct, pool=pool)
        elif not staging.may_fork(pool):
            raise bulk.Unsure("no second process here")
        else:
            checked = staging.check_parsing(job, due, lines.parser(new_events))
        # off the direct path, the library's mapper makes each stored event
        stored_of = None if self._direct else (
            lambda deal, version, record: self._library_stored(deal_id(deal), version, now,
                                                               record))
        made, stored, at, versions, unmade = staging.link(
            job, checked, stored_of, head.hash, *_stored_prefixes(now),
            (STARTED_TOPIC, RECORDED_TOPIC), _Stored)
        records = bulk.records_of(made, unmade, lines, job.record, new_events)
        streams: dict[str, DealStream] = {}
        for deal, stream in job.loaded.items():
            guard = checked.guard_of[deal]
            if stream is None:
                stream = DealStream._started(deal_id(deal), guard, at[deal], now)
            stream._version, stream._modified_on = versions[deal], now
            stream.guard, stream.at = guard, at[deal]
            streams[deal] = stream
        return streams, job.before, records, stored, checked.guard_texts

    def _library_stored(self, stream_id: uuid.UUID, version: int, when: datetime,
                        record: dict[str, Any]) -> Any:
        """The stored event as the library's mapper makes it from its event object:
        used when the application is configured with another transcoder, a compressor
        or a cipher, and by the tests as the reference for the direct path."""
        if version == 1:
            event: Any = DealStream.Started(originator_id=stream_id, originator_version=1,
                                            timestamp=when, originator_topic=STREAM_TOPIC,
                                            record=record)
        else:
            event = DealStream.Recorded(originator_id=stream_id, originator_version=version,
                                        timestamp=when, record=record)
        return self.app.mapper.to_stored_event(event)

    def _binary_params(self) -> Any:
        """On PostgreSQL, the library's insert parameters sent in binary
        (``ledger.pgbinary``: 7.0 -> 2.2 s for 100,000 events)."""
        if not self.is_postgres:
            return contextlib.nullcontext()
        from .pgbinary import binary_params

        return binary_params(self.app.recorder.datastore)

    def _upgrade_schema(self) -> None:
        try:
            self.app.recorder.create_table()
        except PersistenceError as err:
            if is_read_only(err):
                raise StoreError(f"the ledger at {redact(self.url)} is read-only: "
                                 "reports work, appends do not") from None
            raise StoreError("cannot write the ledger: "
                             f"{one_line(err, self.url)}") from None

    def _snapshot(self, streams: dict[str, DealStream], before: dict[str, int],
                  guard_texts: dict[str, str] | None = None) -> None:
        """Snapshot a deal each time a batch takes it past a multiple of SNAPSHOT_INTERVAL
        events. The guard state is encoded once, in canonical form: its seal is hashed
        over that text and the stored snapshot is written around it (the library's
        ``Snapshot.take`` and mapper would encode it a second time; tests/test_store.py
        checks that both decode to the same snapshot). ``guard_texts``: the canonical
        guard state of deals whose aggregate holds none (checked by a forked child)."""
        texts = guard_texts or {}
        due = [(d, s) for d, s in streams.items()
               if s.version // SNAPSHOT_INTERVAL > before[d] // SNAPSHOT_INTERVAL]
        if not due:
            return
        if self._direct:
            stored = [self._snapshot_stored(s, texts.get(d)) for d, s in due]
        else:
            stored = [self.app.snapshots.mapper.to_stored_event(self._library_snapshot(s))
                      for _d, s in due]
        try:
            with self._binary_params():
                self.app.snapshots.recorder.insert_events(stored)
        except PersistenceError:
            pass  # a snapshot is a cache: the events are already safe

    def _library_snapshot(self, stream: DealStream) -> Any:
        """The snapshot as the library takes it, sealed."""
        snap = Snapshot.take(stream)
        snap.state["seal"] = seal(snap.state["guard"], snap.state["at"],
                                  snap.originator_version)
        return snap

    def _snapshot_stored(self, stream: DealStream, guard_text: str | None = None) -> Any:
        if guard_text is None:
            guard_text = _canonical_text(stream.guard)
        at_text = _canonical_text(stream.at)
        version = stream.version
        sealed = hashlib.sha256(f'{{"at":{at_text},"guard":{guard_text},"version":{version}}}'
                                .encode("utf-8")).hexdigest()

        def when(moment: datetime) -> str:
            return f'{{"_type_":"datetime_iso","_data_":"{moment.isoformat()}"}}'

        state = (f'{{"timestamp":{when(datetime.now(timezone.utc))},"topic":"{STREAM_TOPIC}",'
                 f'"state":{{"_created_on":{when(stream.created_on)},'
                 f'"_modified_on":{when(stream.modified_on)},"guard":{guard_text},'
                 f'"at":{at_text},"seal":"{sealed}"}}}}')
        return StoredEvent(originator_id=stream.id, originator_version=version,
                           topic=SNAPSHOT_TOPIC, state=state.encode("utf-8"))


