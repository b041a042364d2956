"""Where ``verify --since CHECKPOINT`` begins: the walk of only the events after a tree
head already trusted (a signed checkpoint's size and root, its signature checked by the
caller), so that a daily audit of a large ledger costs its new events.

What makes the rest of the walk sound without reading what is before the checkpoint:

* the checkpoint's size is where a batch of the log ended (a chain head row says so);
* the event at that seq is leaf ``size - 1`` of the checkpoint's tree (an inclusion proof
  from the tree kept beside the log, checked by ``ledger.proofs`` against the signed
  root), and its ``hash`` recomputes from its bytes: the chain goes on from a hash the
  checkpoint vouches for;
* the right edge of the stored tree at that size (its partial tiles, which are all the
  tree of that size needs to grow) hashes to the signed root: the tree grown from it
  with the events after is the tree of the whole log, made from the events alone;
* a deal stream first met after the checkpoint goes on from its event before it, itself
  proved to be in the checkpoint's tree (its ``deal_prev`` and stream position follow).

Snapshots are not rebuilt (that needs every deal's events from the start): their seals
are checked, as appends check them; the whole ``verify`` rebuilds them.
"""

from __future__ import annotations

from typing import Any

from .. import proofs
from . import merkle, treeread
from .chainhead import CHAIN_ID, GENESIS
from .rows import blob
from .rows import state_of
from .snapshots import snapshot_problem
from .verdict import Verdict
from .walk import Start


def since_start(ledger: Any, view: Any, since: tuple[int, bytes], tree_size: int | None
                ) -> Start | Verdict:
    size, root = since

    def bad(seq: int | None, reason: str) -> Verdict:
        return Verdict(False, 0, GENESIS, seq, reason)

    if size == 0:
        if root != merkle.empty_root():
            return bad(None, "the checkpoint of the empty log names another root than the "
                             "empty tree's")
        return Start(0, 1, GENESIS, None, 0, merkle.Growth(0, {}), _new_stream)
    if tree_size is None or tree_size < size:
        return bad(None, f"the Merkle tree kept beside the log holds {tree_size or 0} events, "
                         f"fewer than the checkpoint's {size}: events were removed, or the "
                         "tree was (the whole `verify` rebuilds a tree that is missing)")
    head = _head_at(ledger, view, size)
    if isinstance(head, str):
        return bad(None, head)
    position, version, recorded_at, head_hash = head
    record = _event_before(ledger, view, position, size)
    if record is None:
        return bad(size, "no event of this seq is stored before the chain head that closed "
                         "the checkpoint's batch (it was removed or moved)")
    if proofs.event_hash(record) != record.get("hash") or record["hash"] != head_hash:
        return bad(size, "hash does not match the event's content (it was changed)")
    tiles = treeread.tiles(view, size)
    try:
        path = tiles.inclusion(size - 1, size)
    except LookupError as err:
        return bad(size, str(err))
    why = proofs.verify_inclusion(size - 1, size, proofs.event_leaf(record), path, root)
    if why is not None:
        return bad(size, f"the event is not the one the checkpoint signed ({why}): the log "
                         "before the checkpoint was rewritten")
    edge = _edge(tiles, size)
    keys = {(level, (size >> (merkle.HEIGHT * level)) // merkle.WIDTH): data
            for level, data in edge.items()}
    try:
        rebuilt = merkle.Tiles(lambda sql, params: [], "", size, keys).root(size)
    except LookupError:
        rebuilt = b""
    if rebuilt != root:
        return bad(None, f"the Merkle tree kept beside the log is not the checkpoint's at "
                         f"size {size}: the log before the checkpoint was rewritten, or the "
                         "tree was")

    def stream_at(stream: Any, first: int) -> tuple[int, str] | str:
        """The stream's version and last hash before the checkpoint, from its event at
        ``first - 1``, proved to be in the checkpoint's tree."""
        if first == 1:
            return 0, GENESIS
        rows = view._rows(f"SELECT state FROM {view._events} WHERE originator_id = ? AND "
                          "originator_version = ?", (stream, first - 1))
        try:
            before = state_of(ledger.app.mapper, blob(rows[0]["state"]))["record"] \
                if rows else None
            seq = before["seq"]
        except (ValueError, KeyError, TypeError):
            before, seq = None, None
        if before is None or not isinstance(seq, int) or not 0 < seq <= size:
            return (f"its deal's event before it (position {first - 1} of its stream) is "
                    f"not among the checkpoint's {size} events (rows were moved or removed)")
        try:
            path = tiles.inclusion(seq - 1, size)
        except LookupError as err:
            return str(err)
        if proofs.event_hash(before) != before.get("hash") or proofs.verify_inclusion(
                seq - 1, size, proofs.event_leaf(before), path, root) is not None:
            return (f"its deal's event before it (seq {seq}) is not the one the checkpoint "
                    "signed: the log before the checkpoint was rewritten")
        met[stream] = first - 1
        return first - 1, before["hash"]

    met: dict[Any, int] = {}   # stream -> its version at the checkpoint

    def snapshots_end(walk: Any) -> Verdict | None:
        """The latest snapshot of each deal the walk met, if taken after the checkpoint,
        held to its seal (the deal's state before the checkpoint is not rebuilt)."""
        if not walk.versions:
            return None
        latest = view.snapshot_versions()
        for stream in walk.versions:
            version = latest.get(stream)
            if version is None or version <= met.get(stream, 0):
                continue
            if version > walk.versions[stream]:
                return walk.bad(None, f"the snapshot of deal {walk.deals[stream]} at version "
                                      f"{version} is beyond the deal's events (it was forged)")
            what = snapshot_problem(ledger, view, stream, version, None)
            if what is not None:
                return walk.bad(None, f"the snapshot of deal {walk.deals[stream]} at version "
                                      f"{version} {what}")
        return None

    return Start(position, size + 1, record["hash"], record.get("recorded_at"), version,
                 merkle.Growth(size, edge), stream_at, snapshots_end)


def _new_stream(stream: Any, first: int) -> tuple[int, str] | str:
    if first != 1:
        return f"its stream starts at position {first}: rows were removed"
    return 0, GENESIS


def _edge(tiles: merkle.Tiles, size: int) -> dict[int, bytes]:
    """The partial tiles of the tree of ``size`` (each stored tile cut to what a tree of
    that size holds: the log has grown since)."""
    edge = {}
    for level, idx in merkle.edge_keys(size):
        nodes = size >> (merkle.HEIGHT * level)
        edge[level] = tiles.tile(level, idx)[:(nodes % merkle.WIDTH) * merkle.SIZE]
    return edge


def _head_at(ledger: Any, view: Any, size: int) -> tuple[int, int, str | None, str] | str:
    """The chain head row that closed the batch ending at seq ``size``: its position,
    its version, its recorded_at and hash; or why there is none (bisecting the chain
    head's stream by version: each head's seq is greater than the one before)."""
    chain = view._id(CHAIN_ID)
    top = view._rows(f"SELECT MAX(originator_version) AS v FROM {view._events} "
                     "WHERE originator_id = ?", (chain,))
    lo, hi = 1, (top[0]["v"] or 0) if top else 0
    while lo <= hi:
        mid = (lo + hi) // 2
        rows = view._rows(f"SELECT {'notification_id' if view._pg else 'rowid'} AS position, "
                          f"state FROM {view._events} WHERE originator_id = ? AND "
                          "originator_version = ?", (chain, mid))
        try:
            head = state_of(ledger.app.mapper, blob(rows[0]["state"]))
            seq = int(head["seq"])
        except Exception:
            return (f"the chain head of version {mid} cannot be read (it was altered): run "
                    "the whole `verify`")
        if seq == size:
            return rows[0]["position"], mid, head.get("recorded_at"), head.get("hash")
        if seq < size:
            lo = mid + 1
        else:
            hi = mid - 1
    return (f"no batch of the log ends at seq {size}, the checkpoint's size: it is not a "
            "checkpoint of this log, or the log was rewritten")


def _event_before(ledger: Any, view: Any, position: int, seq: int) -> dict[str, Any] | None:
    """The record of seq ``seq`` among the rows just before ``position`` (its batch)."""
    pos = "notification_id" if view._pg else "rowid"
    after = position
    for _ in range(100):   # a batch stored out of seq order holds it further back
        rows = view._rows(f"SELECT {pos} AS position, state FROM {view._events} WHERE {pos} < ? "
                          f"ORDER BY {pos} DESC LIMIT 500", (after,))
        if not rows:
            return None
        for row in rows:
            try:
                record = state_of(ledger.app.mapper, blob(row["state"])).get("record")
            except Exception:
                continue
            if isinstance(record, dict) and record.get("seq") == seq:
                return record
        after = rows[-1]["position"]
    return None
