"""The library's classes a ledger is stored as (``eventsourcing``'s terms).

Every deal is one aggregate, ``DealStream``, whose events (``Started``, ``Recorded``) carry
the ledger event in its public JSON form (SPEC §3) with the store's fields. Its state is the
deal's guard state (``ledger.guards``), snapshotted every ``writing.SNAPSHOT_INTERVAL``
events, so checking a new event never replays the history. One more stream, the chain
head, gets one ``ChainAdvanced`` event per batch.

The library stores each row with its class's topic (``module:qualname``). These classes
were first defined in the module ``ledger.store``, and every ledger written since holds
those topics: the classes keep them (``__module__``), and the package resolves the names
(``ledger/store/__init__.py``), so ledgers written before and after the move read alike.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime
from typing import Any

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, DomainEvent, Snapshot

from .. import guards
from ..upcasting import upcast
from .canonical import canonical

#: The module every stored topic names (see the module's docstring).
STORED_MODULE = "ledger.store"


class DealStream(Aggregate):
    """One deal's events; the aggregate state is the deal's guard state and ``at``, the
    ``[seq, hash]`` of the last event folded into it (what binds a snapshot of it to the
    chain: ``seal`` and ``Ledger._sound``)."""

    __module__ = STORED_MODULE

    class Started(Aggregate.Created):
        __module__ = STORED_MODULE
        record: dict

    class Recorded(Aggregate.Event):
        __module__ = STORED_MODULE
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

    __module__ = STORED_MODULE

    seq: int
    hash: str
    recorded_at: str


class LedgerApp(Application):
    name = "Ledger"
    is_snapshotting_enabled = True


CHAIN_TOPIC = _topic(ChainAdvanced)
