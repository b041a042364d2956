"""The log's Merkle tree read from the store for proofs, and built where a ledger lacks it
(one written before the tree was kept: on first use, or by ``verify``), from its events
as stored, without rewriting a record.

* ``tiles(view)``: the tree as stored, read in one consistent view of the store
  (``ledger.store.stable``), for roots, inclusion and consistency proofs;
* ``catch_up(ledger)``: the tree built from the events it lacks, a page at a time, each
  page's tiles written under the writers' lock (appends wait a page at most), in the
  table appends keep it in (``ledger.store.treestore``); on a store that cannot be
  written, built in memory for this process;
* ``size_known_at(view, moment)``: the log's size at a time (a restatement's end).
"""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import PersistenceError

from ..errors import StoreError
from . import merkle
from .treestore import _cursor, _schema, _state, table

CATCH_UP_PAGE = 65_536     # leaves built and written per transaction of ``catch_up``
StableView = Ledger = Any


class Missing(StoreError):
    """The store's tree does not reach where it is asked (built on first use)."""


def stored_size(view: StableView) -> int | None:
    """The stored tree's size in ``view``; ``None`` if the store has no tree."""
    name = table(view._ledger)
    if view._pg:
        found = view._rows("SELECT to_regclass(?) AS t", (name,))
        if found[0]["t"] is None:
            return None
    elif not view._rows("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                        (merkle.TABLE,)):
        return None
    return merkle.stored_size(view._rows, name)


_BUILT: dict[str, tuple[int, dict[tuple[int, int], bytes]]] = {}
"""url -> (size, tiles) of trees built in memory, where the store could not be written."""


def tiles(view: StableView, size: int | None = None) -> merkle.Tiles:
    """The tree as stored in ``view`` (or as built in memory where it could not be
    stored), of the size it has there or ``size``."""
    ledger = view._ledger
    held, extra = stored_size(view) or 0, None
    built = _BUILT.get(ledger.url)
    if built is not None and built[0] > held:
        held, extra = built
    if size is not None and size > held:
        raise Missing(f"the tree kept beside the log holds {held} events, not {size}")
    return merkle.Tiles(view._rows, table(ledger), held if size is None else size, extra)


# ---------------------------------------------------------------------- catching up


def catch_up(ledger: Ledger, *, in_memory: bool = True) -> int:
    """Bring the store's tree up to the log (module doc); the tree's size after. Where
    the store cannot be written, the rest is built in memory for this process, unless
    not ``in_memory`` (``verify``, which has checked the events and needs no tree)."""
    while True:
        with ledger._writer_lock():
            try:
                with _cursor(ledger, commit=False) as cursor:
                    state = _state(ledger, cursor)
            except PersistenceError as err:
                raise ledger._read_failed(err) from None
            head = ledger.head().seq
        size, edge = state if state is not None else (0, {})
        built = _BUILT.get(ledger.url)
        if built is not None and built[0] >= head:
            return built[0]
        if size >= head:
            return size
        count = min(CATCH_UP_PAGE, head - size)
        leaves = _leaves(ledger, size, count)
        rows = merkle.Growth(size, edge).add(leaves)
        if not _store(ledger, size, state is None, rows):
            return _in_memory(ledger, size, edge) if in_memory else size


def _leaves(ledger: Ledger, after: int, count: int | None) -> list[bytes]:
    """The leaf hashes of the ``count`` events after seq ``after`` (all, if ``None``),
    from their records as stored."""
    from .canonical import canonical
    from .logread import LogFilter, log_records

    leaves = []
    expected = after + 1
    for record in log_records(ledger, LogFilter(after_seq=after), limit=count):
        if record.get("seq") != expected:
            raise StoreError(f"the log has seq {record.get('seq')} where {expected} was "
                             "expected: run `deal-ledger verify`")
        expected += 1
        leaves.append(merkle.leaf_hash(canonical(
            {k: v for k, v in record.items() if k != "hash"})))
    if count is not None and len(leaves) != count:
        raise StoreError(f"the log ends at seq {expected - 1}, before its head: run "
                         "`deal-ledger verify`")
    return leaves


def _store(ledger: Ledger, size: int, create: bool,
           rows: list[tuple[int, int, bytes]]) -> bool:
    """Write ``rows`` if the stored tree is still of ``size`` (under the writers' lock);
    ``False`` if the store cannot be written."""
    upsert = merkle.upsert_statement(ledger.is_postgres, _schema(ledger))
    try:
        with ledger._writer_lock():
            with _cursor(ledger, commit=True) as cursor:
                if create:
                    cursor.execute(merkle.create_statement(ledger.is_postgres,
                                                           _schema(ledger)))
                state = _state(ledger, cursor)
                if state is not None and state[0] != size:
                    return True   # another process built it meanwhile: read again
                cursor.executemany(upsert, rows)
    except (PersistenceError, StoreError):   # read-only (a read-only place has no lock)
        return False
    return True


def _in_memory(ledger: Ledger, size: int, edge: dict[int, bytes]) -> int:
    """The rest of the tree built in memory, for this process (a store that cannot be
    written): its tiles laid over the stored ones by ``tiles``."""
    growth = merkle.Growth(size, edge)
    built: dict[tuple[int, int], bytes] = {}
    for level, idx, data in growth.add(_leaves(ledger, size, None)):
        built[(level, idx)] = data
    _BUILT[ledger.url] = (growth.size, built)
    return growth.size


def size_known_at(view: StableView, moment: Any) -> int:
    """The log's size as it stood at ``moment`` (a UTC datetime): the seq of the last
    batch recorded by then (each chain head carries its batch's recorded_at, and
    recorded_at never goes backwards: the heads are bisected by version)."""
    from ..stored import format_timestamp
    from .chainhead import CHAIN_ID
    from .rows import blob
    from .rows import state_of

    stamp = format_timestamp(moment)
    chain = view._id(CHAIN_ID)
    top = view._rows(f"SELECT MAX(originator_version) AS v FROM {view._events} "
                     "WHERE originator_id = ?", (chain,))
    lo, hi, best = 1, (top[0]["v"] or 0) if top else 0, 0
    mapper = view._ledger.app.mapper
    while lo <= hi:
        mid = (lo + hi) // 2
        rows = view._rows(f"SELECT state FROM {view._events} WHERE originator_id = ? AND "
                          "originator_version = ?", (chain, mid))
        try:
            head = state_of(mapper, blob(rows[0]["state"]))
            seq, at = int(head["seq"]), str(head["recorded_at"])
        except Exception:
            raise StoreError(f"the chain head of version {mid} cannot be read (it was "
                             "altered): run `deal-ledger verify`") from None
        if at <= stamp:
            best, lo = seq, mid + 1
        else:
            hi = mid - 1
    return best
