"""Reading a ledger's store: the log in order, one deal's events, the chain head.

The library's recorder reads the rows; where the library writes plain JSON (its default
transcoder, no compressor, no cipher: ``Store.plain_json``), a row's record is read with
the ``json`` module's C decoder alone, and a deal's rows with one call of it. A row that no
longer decodes was altered outside deal-ledger: ``StoreError`` names it. The streamed
``log`` and ``verify`` read in one consistent view instead (``ledger.store.logread``,
``ledger.store.stable``).
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any, Iterator, Sequence

from eventsourcing.persistence import PersistenceError

from ..collector import paused
from ..errors import LedgerError, StoreError
from ..stored import Event, events_of, events_of_rows
from . import dealcache
from .canonical import deal_id
from .chainhead import CHAIN_ID, GENESIS, Head
from .opening import Store
from .seqorder import SeqOrder
from .stream import _Stored

PAGE = 2000
# What the library raises reading a row: its own errors, and a row it cannot make a
# notification of (a stream id that is not a UUID: written by another program)
_UNREADABLE = (PersistenceError, ValueError, TypeError)
_json_loads = json.loads


class Reading(Store):
    """The read side of a ledger: every reader's calls (``writing.Ledger`` adds the
    append)."""

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
        except _UNREADABLE as err:
            raise self._read_failed(err) from None
        stored = [_Stored(*row[1:]) for row in rows]
        return list(zip([row[0] for row in rows], self._records_of(stored)))

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
        except _UNREADABLE as err:
            raise self._read_failed(err) from None

    def head(self) -> Head:
        stored = self._select(CHAIN_ID, desc=True, limit=1)
        if not stored:
            return Head(0, GENESIS, None, 0)
        event = self._decode(stored[0])
        return Head(event.seq, event.hash, event.recorded_at, event.originator_version)

    def records(self, *, start: int = 0) -> Iterator[dict[str, Any]]:
        """Every stored event record in ``seq`` order, streamed, each exactly as stored
        (what the hash covers; ``upcast`` gives the current shape).

        The log holds events in seq order; ledgers written before appends kept to that
        may hold one deal's lines of an interleaved batch before another's. Those are put
        back in seq order here, holding only the events that arrived early.
        (Where ``plain_json``, ``ledger.store.logread.log_records`` reads the same records
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
        except _UNREADABLE as err:
            raise self._read_failed(err) from None

    def _events_of(self, page: list[Any]) -> list[Any]:
        """The notifications of ``page`` that are events (not the chain's head)."""
        topics = self._topic_set
        return [n for n in page if n.topic in topics]

    def max_position(self) -> int:
        try:
            return self.app.recorder.max_notification_id() or 0
        except _UNREADABLE as err:
            raise self._read_failed(err) from None

    def deal_records(self, deal: str) -> list[dict[str, Any]]:
        """One deal's records in seq order, exactly as stored."""
        return [self._decode(s).record for s in self._select(deal_id(deal))]

    def deal_events(self, deal: str, *, cache_dir: str | None = None) -> list[Event]:
        """One deal's events in seq order, upcast and typed; cached per process and
        topped up, not re-read. With ``cache_dir`` (SQLite, the library's plain JSON),
        the deal's records are read from its file there (``ledger.store.dealcache``) if the
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
        except _UNREADABLE as err:
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
        except _UNREADABLE as err:
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
