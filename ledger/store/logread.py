"""Reading the log as a stream: page by page, in ``seq`` order, filtered, in constant memory.

``Ledger.records()`` reads every event through the library's mapper; ``log`` on a ledger
of a million events needs its first line at once and never the whole log in memory. Here
every read runs inside one read transaction (``ledger.store.stable``), a page of rows at a time,
and each row's stored bytes are decoded with ``json.loads`` alone (the record is plain
JSON: the library's transcoder would only add the objects it wraps, of which a record
holds none).

Order: the log holds events in ``seq`` order; ledgers written before appends kept to that
may hold one deal's lines of an interleaved batch before another's. As ``Ledger.records``
does, the events that arrive early are held in a heap and let out in ``seq`` order; a
``ChainAdvanced`` row closes a batch, so at most one batch is ever held.

Filters: ``--deal`` reads only the named deals' streams (the store's index on stream and
position), merged by ``seq``; ``--after-seq`` starts at the chain head of the last batch
at or before that seq (found by bisecting the chain head's stream), not at the first row.

An event is named by ``seq:N`` or a unique prefix of its id of 6 characters or more (as git
takes a commit's): ``find_event``.

Importing this module does not import the store's library (``ledger.store.stable`` is imported
at the first read): the agenda's helpers import it before the store, to read their
share of the log on a connection of their own (``states_in_range``), which needs only
``sqlite3``.
"""

from __future__ import annotations

import heapq
import json
import os
import re
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from .rows import blob
from .seqorder import SeqOrder
from ..errors import InvalidEvent, StoreError, UsageError

if TYPE_CHECKING:
    from .stable import StableView
    from .writing import Ledger

PAGE = 1000  # rows per read: small enough that the first line shows at once


@dataclass(frozen=True)
class LogFilter:
    """Which events ``log`` shows. ``since``/``until`` are compared with the event's own
    ``date`` (the day it happened), both ends included; ``after_seq`` with its ``seq``."""

    after_seq: int = 0
    deals: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    since: date | None = None
    until: date | None = None

    def wants(self, record: dict[str, Any]) -> bool:
        seq = record.get("seq")
        if self.after_seq and isinstance(seq, int) and seq <= self.after_seq:
            return False
        if self.deals and record.get("deal") not in self.deals:
            return False
        if self.types and record.get("type") not in self.types:
            return False
        day = record.get("date")
        if self.since is not None and not (isinstance(day, str) and day >= self.since.isoformat()):
            return False
        if self.until is not None and not (isinstance(day, str) and day <= self.until.isoformat()):
            return False
        return True


def _record(state: bytes, where: Any = "?") -> dict[str, Any]:
    """The ledger record inside a stored row's bytes. A row that does not read as one was
    altered outside the ledger: ``StoreError`` on one line, pointing at ``verify`` (which
    names the seq), rather than a log that silently skips it."""
    try:
        record = json.loads(state)["record"]
        if isinstance(record, dict):
            return record
    except (ValueError, KeyError, TypeError):
        pass
    raise StoreError(f"a stored event (position {where}) cannot be decoded: the ledger was "
                     "altered outside deal-ledger; run `deal-ledger verify`")


def stable_view(ledger: "Ledger") -> Any:
    """``ledger.store.stable.stable_view``: one consistent view of the store (module doc)."""
    from .stable import stable_view as view

    return view(ledger)


def _chain_id() -> Any:
    from .chainhead import CHAIN_ID

    return CHAIN_ID


def _table(view: StableView) -> str:
    return view._events  # the library's event table, as the view reads it


def _position(view: StableView) -> str:
    return "notification_id" if view._pg else "rowid"


def _rows_after(view: StableView, position: int, limit: int) -> list[Any]:
    pos = _position(view)
    return view._rows(f"SELECT {pos} AS position, originator_id, state FROM {_table(view)} "
                      f"WHERE {pos} > ? ORDER BY {pos} LIMIT ?", (position, limit))


def _chain_head_at(view: StableView, version: int) -> tuple[int, int] | None:
    """``(position, seq)`` of the chain head's row of that version."""
    rows = view._rows(f"SELECT {_position(view)} AS position, state FROM {_table(view)} "
                      "WHERE originator_id = ? AND originator_version = ?",
                      (view._id(_chain_id()), version))
    if not rows:
        return None
    try:
        return rows[0]["position"], int(json.loads(blob(rows[0]["state"]))["seq"])
    except (ValueError, KeyError, TypeError):
        return None


def _chain_versions(view: StableView) -> int:
    rows = view._rows(f"SELECT MAX(originator_version) AS v FROM {_table(view)} "
                      "WHERE originator_id = ?", (view._id(_chain_id()),))
    return (rows[0]["v"] or 0) if rows else 0


def _start(view: StableView, after_seq: int) -> tuple[int, int]:
    """Where a walk for the events after ``after_seq`` begins: the position of the last
    chain head whose seq is at most ``after_seq``, and that seq (0, 0: the beginning).
    Every event after a chain head's row has a greater seq than the head's."""
    lo, hi, best = 1, _chain_versions(view), (0, 0)
    if after_seq <= 0:
        return best
    while lo <= hi:
        mid = (lo + hi) // 2
        found = _chain_head_at(view, mid)
        if found is None:  # an altered head: start from the beginning, which is safe
            return (0, 0)
        if found[1] <= after_seq:
            best, lo = found, mid + 1
        else:
            hi = mid - 1
    return best


_SEQ = re.compile(rb',"seq":(\d{1,18}),"recorded_at":"')


def _seq_only(state: bytes) -> int | None:
    """The record's seq read straight from its stored bytes, without decoding them: the
    store's fields come after ``data`` and ``"seq":N,"recorded_at":"`` cannot occur in
    text (a quote in text is escaped). ``None`` when it is not found once, exactly."""
    found = _SEQ.findall(state[-700:])
    return int(found[0]) if len(found) == 1 else None


_TYPE_KEY = b'"type":"'


def _skipped(state: bytes, skip_to: int, types: tuple[bytes, ...]) -> int | None:
    """The seq of a row that need not be decoded, read from its bytes: one at or before
    ``skip_to``, or one whose bytes hold none of the wanted ``types`` (written compact,
    ``"type":"NAME"``, as the store writes records; a row written otherwise is decoded).
    ``None``: decode the row."""
    if not skip_to and not types:
        return None
    seq = _seq_only(state)
    if seq is None:
        return None
    if seq <= skip_to:
        return seq
    if types and _TYPE_KEY in state and not any(t in state for t in types):
        return seq
    return None


def _in_seq_order(view: StableView, position: int, expected: int, skip_to: int = 0,
                  types: tuple[str, ...] = ()) -> Iterator[dict[str, Any] | None]:
    """Every record after ``position`` in seq order (the first expected being
    ``expected``), holding only those that arrive early, at most one batch of them. A
    record at or before seq ``skip_to``, or plainly of none of ``types``, is not
    decoded: ``None`` stands for it."""
    needles = tuple(f'"type":"{t}"'.encode() for t in types)
    order = SeqOrder(expected)
    chain_id = _chain_id()
    while page := _rows_after(view, position, PAGE):
        for row in page:
            position = row["position"]
            if view._convert(row["originator_id"]) == chain_id:
                yield from order.drain()  # a batch is closed: what is held goes out
                continue
            state = blob(row["state"])
            seq = _skipped(state, skip_to, needles)
            if seq is not None:
                record = None
            else:
                record = _record(state, position)
                seq = record.get("seq")
            yield from order.put(seq, position, record)
    yield from order.drain()


def _stream(view: StableView, deal: str) -> Iterator[dict[str, Any]]:
    """One deal's records in stream order (which is seq order), a page at a time."""
    from .canonical import deal_id

    version = 0
    while True:
        rows = view._rows(f"SELECT originator_version, state FROM {_table(view)} "
                          "WHERE originator_id = ? AND originator_version > ? "
                          "ORDER BY originator_version LIMIT ?",
                          (view._id(deal_id(deal)), version, PAGE))
        if not rows:
            return
        for row in rows:
            version = row["originator_version"]
            yield _record(blob(row["state"]), f"{version} of deal {deal}'s stream")


def _seq_key(record: dict[str, Any]) -> int:
    seq = record.get("seq")
    return seq if isinstance(seq, int) else 0


def log_records(ledger: "Ledger", where: LogFilter = LogFilter(), *,
                limit: int | None = None) -> Iterator[dict[str, Any]]:
    """The records ``where`` wants, in seq order, each exactly as stored, streamed from
    one consistent view of the store; at most ``limit`` of them."""
    if limit is not None and limit <= 0:
        return
    shown = 0
    with stable_view(ledger) as view:
        if where.deals:
            source: Iterable[dict[str, Any]] = heapq.merge(
                *(_stream(view, d) for d in dict.fromkeys(where.deals)), key=_seq_key)
        else:
            position, seq = _start(view, where.after_seq)
            source = _in_seq_order(view, position, seq + 1, skip_to=where.after_seq,
                                   types=where.types)
        for record in source:
            if record is not None and where.wants(record):
                yield record
                shown += 1
                if limit is not None and shown >= limit:
                    return


class Retractions:
    """Which events are retracted, and by which ``EventRetracted``: read deal by deal, the
    first time an event of the deal is shown, from the deal's guard state (its latest
    sound snapshot and the few events after it: ``Ledger._deal``), so that the first line
    of a log needs no pass over the whole of it. A retraction is always in its target's
    deal (``ledger.operations.retraction``)."""

    def __init__(self, ledger: "Ledger"):
        self._ledger = ledger
        self._by_deal: dict[str, dict[str, str]] = {}

    def of(self, record: dict[str, Any]) -> str | None:
        """The id of the event that retracts ``record``, if any."""
        deal = record.get("deal")
        if not isinstance(deal, str):
            return None
        found = self._by_deal.get(deal)
        if found is None:
            found = self._by_deal[deal] = self._load(deal)
        return found.get(record.get("id"))  # type: ignore[arg-type]

    def _load(self, deal: str) -> dict[str, str]:
        from ..errors import LedgerError

        ledger = self._ledger
        try:
            stream = ledger._deal(deal)
            guard = getattr(stream, "guard", None) or {}
            return {k: v for k, v in (guard.get("retracted") or {}).items()
                    if isinstance(k, str) and isinstance(v, str)}
        except LedgerError:
            raise
        except Exception:  # the library's own decoding errors: an altered row
            raise StoreError(f"deal {deal}'s stored events cannot be read: the ledger was "
                             "altered outside deal-ledger; run `deal-ledger verify`") from None
        finally:
            ledger._forget([deal])  # the write side's cache: not kept for a read


def _matching(view: StableView, needle: bytes, deals: tuple[str, ...] = ()
              ) -> Iterator[dict[str, Any]]:
    """The records whose stored bytes hold ``needle`` (a byte search in the database:
    ``instr`` on SQLite, ``position`` on PostgreSQL), in position order."""
    from .canonical import deal_id

    find = "position(? in state) > 0" if view._pg else "instr(state, ?) > 0"
    pos = _position(view)
    where, params = f"{pos} > ? AND {find}", [needle]
    if deals:
        where += f" AND originator_id IN ({', '.join('?' for _ in deals)})"
        params += [view._id(deal_id(d)) for d in deals]
    after = 0
    while rows := view._rows(f"SELECT {pos} AS position, state FROM {_table(view)} "
                             f"WHERE {where} ORDER BY {pos} LIMIT ?",
                             (after, *params, PAGE)):
        for row in rows:
            after = row["position"]
            yield _record(blob(row["state"]), after)


def find_event(ledger: "Ledger", given: str, *, field: str = "event_id") -> dict[str, Any]:
    """The stored record ``given`` names (``ledger.references``): ``seq:N``, or an id
    or the start of one, at least ``MIN_PREFIX`` characters (as git takes a commit's
    unique prefix; the 8 characters ``log`` shows always do). ``UsageError`` for a
    reference too short or malformed, or a prefix naming several events (the
    candidates named); ``InvalidEvent`` if no event has it."""
    from ..references import parse_reference

    ref = parse_reference(given, field=field)
    if ref.seq is not None:
        with stable_view(ledger) as view:
            found = _at_seq(view, ref.seq)
        if found is None:
            raise InvalidEvent(f"no event at seq {ref.seq} in the ledger (its last is seq "
                               f"{ledger.head().seq})", field=field)
        return found
    text = ref.prefix or ""
    needle = f'"id":"{text}'.encode()
    hits: list[dict[str, Any]] = []
    with stable_view(ledger) as view:
        for record in _matching(view, needle):
            rid = record.get("id")
            if isinstance(rid, str) and rid.startswith(text) and rid not in (
                    h["id"] for h in hits):
                hits.append(record)
    if not hits:
        raise InvalidEvent(f"no event {given} in the ledger", field=field)
    if len(hits) > 1:
        shown = ", ".join(f"{h['id'][:12]} (seq {h.get('seq')} {h.get('type')})"
                          for h in hits[:5])
        more = f" and {len(hits) - 5} more" if len(hits) > 5 else ""
        raise UsageError(f"the id prefix {given!r} is ambiguous: {shown}{more}; give more "
                         "characters, or seq:N", field=field)
    return hits[0]


def _at_seq(view: StableView, seq: int) -> dict[str, Any] | None:
    """The record at ``seq``: the walk starts at the chain head of the batch before it
    (``_start``) and decodes only the records from it on."""
    position, before = _start(view, seq - 1)
    for record in _in_seq_order(view, position, before + 1, skip_to=seq - 1):
        if record is None:
            continue
        found = record.get("seq")
        if found == seq:
            return record
        if isinstance(found, int) and found > seq:
            return None
    return None


def has_deal(ledger: "Ledger", deal: str) -> bool:
    """Whether the deal has a stream (one read of the store's index)."""
    from .canonical import deal_id

    with stable_view(ledger) as view:
        return bool(view._rows(f"SELECT 1 AS found FROM {_table(view)} WHERE originator_id = ? "
                               "LIMIT 1", (view._id(deal_id(deal)),)))


def deal_names(ledger: "Ledger") -> list[str]:
    """The deals of the ledger (those ever opened), by name."""
    with stable_view(ledger) as view:
        return sorted({r["deal"] for r in _matching(view, b'"type":"DealOpened"')
                       if r.get("type") == "DealOpened" and isinstance(r.get("deal"), str)})


_RECORD_KEY = b'"record":'
StreamStates = list[tuple[int, bytes]]
"""One deal's stored rows, undecoded: ``(position, state)`` in log order."""


def deal_states(ledger: "Ledger") -> list[StreamStates]:
    """Every deal's stored rows, undecoded, from one consistent view of the store (the
    chain head's rows left out): one list per deal stream, in log order, the streams in
    the order their first rows come. ``records_of_states`` decodes one list into the
    deal's records, exactly as ``log_records`` yields them; a reader of many deals
    shares the lists out and decodes each where it is computed (the agenda's forked
    workers: the decoding is most of the read, and the parent never does it)."""
    by_stream: dict[Any, StreamStates] = {}
    with stable_view(ledger) as view:
        pos, chain = _position(view), view._id(_chain_id())
        position = 0
        while rows := view._rows(f"SELECT {pos} AS position, originator_id, state "
                                 f"FROM {_table(view)} WHERE {pos} > ? ORDER BY {pos} "
                                 "LIMIT ?", (position, STATES_PAGE)):
            for row in rows:   # by name: PostgreSQL's rows are dicts, SQLite's are Rows
                position, stream = row["position"], row["originator_id"]
                if stream != chain:
                    found = by_stream.get(stream)
                    if found is None:
                        found = by_stream[stream] = []
                    found.append((position, blob(row["state"])))
    return list(by_stream.values())


STATES_PAGE = 20_000   # rows per read of ``deal_states``: it keeps every row anyway


def records_of_states(states: StreamStates) -> list[dict[str, Any]]:
    """One deal's records from its stored rows (``deal_states``), in seq order: decoded
    in one call of the C decoder (the states joined as one JSON array), or row by row
    when that fails, so that an altered row is named (``_record``).

    Only each state's ``record`` is decoded (a sixth less work than the whole state):
    the text after its key, the first ``"record":`` in the state (a quote inside a JSON
    string is escaped, and the keys before it, the library's timestamp and topic, hold
    no such key), up to the state's closing brace. The record is the state's last key,
    as the library writes it; were anything after it, the joined text would hold a
    ``"key":`` inside the array and not decode, and the states are then decoded whole."""
    try:
        parts = []
        for _, state in states:
            at = state.find(_RECORD_KEY)
            if at < 0 or state[-1:] != b"}":
                raise ValueError
            parts.append(state[at + len(_RECORD_KEY):-1])
        records = json.loads(b"[" + b",".join(parts) + b"]")
        if len(records) != len(states) or not all(type(r) is dict for r in records):
            raise ValueError
    except ValueError:
        try:
            records = [s["record"] for s in json.loads(b"[" + b",".join(s for _, s in states)
                                                       + b"]")]
            if not all(type(r) is dict for r in records):
                raise ValueError
        except (ValueError, KeyError, TypeError):
            records = [_record(state, position) for position, state in states]
    # a stream's rows are written in its order, which is seq order; sorted if not (the
    # check in C: sorting a sorted list is one pass)
    seqs = [r.get("seq") for r in records]
    try:
        ordered = seqs == sorted(seqs)
    except TypeError:   # a seq that is not a number: as _seq_key reads it
        ordered = False
    if not ordered:
        records.sort(key=_seq_key)
    return records


@dataclass(frozen=True)
class StreamSplit:
    """One moment of a SQLite ledger's deal streams, for readers in other processes (the
    agenda's forked workers) to read a share of them each, on connections of their own
    (``states_in_range``): the library's database name, its event table, the chain
    head's stream (left out), the last position at that moment and how many deal
    streams there were."""

    database: str
    table: str
    chain: str
    upto: int
    streams: int


def stream_split(ledger: "Ledger") -> StreamSplit | None:
    """The ``StreamSplit`` of the ledger now; ``None`` unless it is SQLite with plain
    JSON states (``deal_states`` reads the others).

    Why a later read up to ``upto`` sees this moment: the log is only ever appended to
    and SQLite has one writer at a time, so the rows at or before the last committed
    position are the same at any later moment, and a row committed later has a greater
    position."""
    if ledger.is_postgres or not ledger.plain_json:
        return None
    with stable_view(ledger) as view:
        chain = view._id(_chain_id())
        rows = view._rows(f"SELECT MAX(rowid) AS upto, COUNT(DISTINCT originator_id) AS n, "
                          f"MAX(originator_id = ?) AS chained FROM {_table(view)}", (chain,))
        database = ledger.app.recorder.datastore.pool.db_name
        table = _table(view)
    upto, n, chained = rows[0][0] or 0, rows[0][1] or 0, rows[0][2] or 0
    return StreamSplit(database, table, chain, upto, n - chained)


def split_spans(parts: int) -> list[tuple[str, str | None]]:
    """``parts`` ranges ``[lo, hi)`` of stream ids (hexadecimal text, as the library
    keeps a UUID on SQLite) that together hold every id: by their first two digits."""
    bounds = sorted({format(k * 256 // parts, "02x") for k in range(parts)} | {"00"})
    return [(lo, hi) for lo, hi in zip(bounds, [*bounds[1:], None])]


_READER: tuple[int, str, Any] | None = None   # (process id, database, connection)


def _reader(database: str) -> Any:
    """This process's connection to ``database`` for ``states_in_range``, opened once
    (a forked worker reads many ranges; a connection is not shared across a fork)."""
    import sqlite3

    global _READER
    if _READER is None or _READER[:2] != (os.getpid(), database):
        _READER = (os.getpid(), database, sqlite3.connect(database, uri=True, timeout=30,
                                                          check_same_thread=False))
    return _READER[2]


def close_reader() -> None:
    """Closes this process's ``states_in_range`` connection, if it has one (a process
    that goes on after reading its share: the agenda's own, which works beside its
    forked children)."""
    global _READER
    if _READER is not None and _READER[0] == os.getpid():
        _READER[2].close()
    _READER = None


def states_in_range(split: StreamSplit, lo: str, hi: str | None) -> list[StreamStates]:
    """The deal streams of ``split`` whose ids are in ``[lo, hi)`` (``hi`` ``None``: no
    end; ``lo`` ``"00"``: no start), each as ``deal_states`` gives it (its rows up to
    the split's position, undecoded, in its order), read on a connection of this
    process's own, through the store's index by stream."""
    import sqlite3

    where = "originator_id >= ?" if lo != "00" else "1"
    params: list[Any] = [lo] if lo != "00" else []
    if hi is not None:
        where += " AND originator_id < ?"
        params.append(hi)
    try:
        rows = _reader(split.database).execute(
            f"SELECT rowid, originator_id, state FROM {split.table} WHERE {where} "
            "AND originator_id != ? AND rowid <= ? ORDER BY originator_id, originator_version",
            (*params, split.chain, split.upto)).fetchall()
    except sqlite3.Error as err:
        raise StoreError(f"cannot read the ledger: {' '.join(str(err).split())[:300]}"
                         ) from None
    by_stream: dict[Any, StreamStates] = {}
    for position, stream, state in rows:
        found = by_stream.get(stream)
        if found is None:
            found = by_stream[stream] = []
        found.append((position, bytes(state)))
    for states in by_stream.values():   # log order, as deal_states gives them
        states.sort()
    return list(by_stream.values())
