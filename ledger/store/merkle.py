"""The log's Merkle tree (RFC 6962 §2.1, RFC 9162 §2.1), kept beside the log, and the
proofs it gives: the writer's side. The checks of those proofs are ``ledger.proofs``,
which shares no code with this module (the verifier, not the writer, is the trust
boundary).

Leaves are the events in ``seq`` order: leaf ``seq - 1`` is SHA-256(0x00 || the event's
canonical bytes), the bytes its ``hash`` covers (sorted keys, no spaces, UTF-8, without
``hash``: SPEC §3); a node is SHA-256(0x01 || left || right). The tree of size ``n`` is
RFC 6962's MTH of the first ``n`` leaves, so its root, an inclusion proof of one event and
a consistency proof between two sizes are the RFC's own, checkable by any RFC 6962 tool.

**How it is kept**: as tiles (the layout of C2SP tlog-tiles, height 8), in the table
``ledger_merkle_tiles`` of the store (SQLite and PostgreSQL alike): the tile ``(level,
idx)`` holds, concatenated, the hashes of the nodes ``idx * 256`` to ``idx * 256 + 255``
at tree level ``8 * level`` (level 0: the leaves), as many as are complete: a tile at the
right edge is partial, and rewritten as it grows. A node between two tile levels is
computed from the tile under it (at most 255 hashes). That is 32 bytes an event, plus an
eighth of a percent.

**When**: an append writes the tiles its events complete or extend, in the transaction
that writes the events (``Ledger._append_retrying``): all or nothing, whichever writer
wins the chain head. It does so only when the tree is as long as the log before the
batch; a ledger written before the tree was kept has none, and gains it on first use (a
checkpoint, a proof) or by ``verify``, from its events as stored, without rewriting a
record (``catch_up``: a page of events at a time, each page's tiles written under the
writers' lock, so appends wait a page at most).
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable, Iterable, Iterator, Sequence

TABLE = "ledger_merkle_tiles"
WIDTH = 256          # hashes a tile holds
HEIGHT = 8           # tree levels a tile spans
SIZE = 32            # bytes of a hash
TILE_BYTES = WIDTH * SIZE

_sha256 = hashlib.sha256
_LEAF = _sha256(b"\x00")


def leaf_hash(canonical: bytes) -> bytes:
    """RFC 6962 leaf hash of an event's canonical bytes."""
    h = _LEAF.copy()
    h.update(canonical)
    return h.digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return _sha256(b"\x01" + left + right).digest()


def empty_root() -> bytes:
    """The root of the empty tree: SHA-256 of nothing (RFC 6962 §2.1)."""
    return _sha256(b"").digest()


def perfect_root(hashes: bytes) -> bytes:
    """The root over ``hashes`` (concatenated), their count a power of two."""
    level = [hashes[i:i + SIZE] for i in range(0, len(hashes), SIZE)]
    while len(level) > 1:
        level = [_sha256(b"\x01" + level[i] + level[i + 1]).digest()
                 for i in range(0, len(level), 2)]
    return level[0]


def _split(n: int) -> int:
    """The largest power of two below ``n`` (n > 1): RFC 6962's k."""
    return 1 << ((n - 1).bit_length() - 1)


# ------------------------------------------------------------------- growing the tiles


class Growth:
    """The tiles to write when leaves are added to a tree: ``grow(size, edge, leaves)``
    from the tree's size and its right edge (``edge``: level -> the bytes of its partial
    tile, as stored), one ``(level, idx, hashes)`` row per tile changed."""

    create = False   # the store has no table yet: the first batch makes it (``treestore``)

    def __init__(self, size: int, edge: dict[int, bytes]):
        self.size = size
        self.edge = dict(edge)   # its own: it grows as leaves are added

    def add(self, leaves: Sequence[bytes]) -> list[tuple[int, int, bytes]]:
        """Add ``leaves`` (32-byte hashes, in order); the rows of every tile they
        change, and the edge and size updated for the next call."""
        rows: list[tuple[int, int, bytes]] = []
        level, nodes, count = 0, b"".join(leaves), len(leaves)
        before = self.size
        while count:
            had = before >> (HEIGHT * level)             # nodes of this level before
            first = had // WIDTH                         # the tile being extended
            held = self.edge.get(level, b"")
            if len(held) != (had % WIDTH) * SIZE:
                raise ValueError(f"the tile at level {level} holds {len(held) // SIZE} "
                                 f"hashes where {had % WIDTH} were expected")
            data = held + nodes
            full = len(data) // TILE_BYTES
            parents = []
            for k in range(full):
                chunk = data[k * TILE_BYTES:(k + 1) * TILE_BYTES]
                rows.append((level, first + k, chunk))
                parents.append(perfect_root(chunk))
            rest = data[full * TILE_BYTES:]
            if rest:
                rows.append((level, first + full, rest))
            self.edge[level] = rest
            nodes, count = b"".join(parents), len(parents)
            level += 1
        self.size = before + len(leaves)
        return rows


# --------------------------------------------------------------------- the stored tiles


def create_statement(pg: bool, schema: str | None = None) -> str:
    if pg:
        return (f'CREATE TABLE IF NOT EXISTS "{schema}".{TABLE} (level SMALLINT NOT NULL, '
                "idx BIGINT NOT NULL, hashes BYTEA NOT NULL, PRIMARY KEY (level, idx))")
    return (f"CREATE TABLE IF NOT EXISTS {TABLE} (level INTEGER NOT NULL, idx INTEGER NOT "
            "NULL, hashes BLOB NOT NULL, PRIMARY KEY (level, idx)) WITHOUT ROWID")


def upsert_statement(pg: bool, schema: str | None = None) -> str:
    if pg:
        return (f'INSERT INTO "{schema}".{TABLE} (level, idx, hashes) VALUES (%s, %s, %s) '
                "ON CONFLICT (level, idx) DO UPDATE SET hashes = EXCLUDED.hashes")
    return f"INSERT OR REPLACE INTO {TABLE} (level, idx, hashes) VALUES (?, ?, ?)"


def table_name(pg: bool, schema: str | None = None) -> str:
    return f'"{schema}".{TABLE}' if pg else TABLE


Rows = Callable[[str, tuple[Any, ...]], list[Any]]


def _absent(err: Exception) -> bool:
    text = str(err).lower()
    return "no such table" in text or "does not exist" in text


def stored_size(rows: Rows, table: str) -> int | None:
    """The tree's size as stored (its leaves), or ``None`` if the store has no tree."""
    found = rows(f"SELECT idx, length(hashes) AS n FROM {table} WHERE level = 0 "
                 "ORDER BY idx DESC LIMIT 1", ())
    if not found:
        return 0
    return found[0]["idx"] * WIDTH + found[0]["n"] // SIZE


def edge_keys(size: int) -> list[tuple[int, int]]:
    """The ``(level, idx)`` of the partial tile at each level of a tree of ``size``."""
    keys, level = [], 0
    while size >> (HEIGHT * level):
        had = size >> (HEIGHT * level)
        if had % WIDTH:
            keys.append((level, had // WIDTH))
        level += 1
    return keys


def read_edge(rows: Rows, table: str, size: int) -> dict[int, bytes]:
    """The stored partial tiles of a tree of ``size`` (level -> bytes)."""
    edge: dict[int, bytes] = {}
    for level, idx in edge_keys(size):
        found = rows(f"SELECT hashes FROM {table} WHERE level = ? AND idx = ?", (level, idx))
        edge[level] = bytes(found[0]["hashes"]) if found else b""
    return edge


class Tiles:
    """The tree as stored, read tile by tile (each tile read once) through ``rows`` (a
    function running one query, as ``StableView._rows``), with ``extra`` tiles laid over
    the stored ones (a tree built where it cannot be stored: ``catch_up`` on a read-only
    ledger)."""

    def __init__(self, rows: Rows, table: str, size: int,
                 extra: dict[tuple[int, int], bytes] | None = None):
        self._rows, self._table, self.size = rows, table, size
        self._cache: dict[tuple[int, int], bytes] = dict(extra or {})

    def tile(self, level: int, idx: int) -> bytes:
        key = (level, idx)
        found = self._cache.get(key)
        if found is None:
            got = self._rows(f"SELECT hashes FROM {self._table} WHERE level = ? AND idx = ?",
                             (level, idx))
            found = bytes(got[0]["hashes"]) if got else b""
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[key] = found
        return found

    def node(self, level: int, index: int) -> bytes:
        """The hash of the perfect subtree of height ``level`` numbered ``index`` (its
        leaves ``index << level`` to ``(index + 1) << level``, all within the tree)."""
        tile_level, rest = divmod(level, HEIGHT)
        first = index << rest
        data = self.tile(tile_level, first // WIDTH)
        start = (first % WIDTH) * SIZE
        part = data[start:start + (SIZE << rest)]
        if len(part) != SIZE << rest:
            raise LookupError(f"the tree kept beside the log lacks node {level}/{index}")
        return perfect_root(part)

    def leaf(self, index: int) -> bytes:
        return self.node(0, index)

    def hash(self, lo: int, hi: int) -> bytes:
        """MTH of leaves ``[lo, hi)`` (``lo`` a multiple of a power of two at least the
        range's length, as RFC 6962's recursion makes every range it asks for)."""
        n = hi - lo
        if n & (n - 1) == 0:
            level = n.bit_length() - 1
            return self.node(level, lo >> level)
        k = _split(n)
        return node_hash(self.hash(lo, lo + k), self.hash(lo + k, hi))

    def root(self, size: int | None = None) -> bytes:
        size = self.size if size is None else size
        if size > self.size:
            raise LookupError(f"the tree holds {self.size} leaves, not {size}")
        return empty_root() if size == 0 else self.hash(0, size)

    def inclusion(self, index: int, size: int | None = None) -> list[bytes]:
        """RFC 6962 §2.1.1 PATH(index, D[size])."""
        size = self.size if size is None else size
        if not 0 <= index < size <= self.size:
            raise LookupError(f"no leaf {index} in a tree of {size}")
        return self._path(index, 0, size)

    def _path(self, m: int, lo: int, hi: int) -> list[bytes]:
        n = hi - lo
        if n == 1:
            return []
        k = _split(n)
        if m < k:
            return self._path(m, lo, lo + k) + [self.hash(lo + k, hi)]
        return self._path(m - k, lo + k, hi) + [self.hash(lo, lo + k)]

    def consistency(self, old: int, new: int | None = None) -> list[bytes]:
        """RFC 6962 §2.1.2 PROOF(old, D[new])."""
        new = self.size if new is None else new
        if not 0 <= old <= new <= self.size:
            raise LookupError(f"no consistency proof from {old} to {new} in a tree of "
                              f"{self.size}")
        if old == 0 or old == new:
            return []
        return self._subproof(old, 0, new, True)

    def _subproof(self, m: int, lo: int, hi: int, whole: bool) -> list[bytes]:
        n = hi - lo
        if m == n:
            return [] if whole else [self.hash(lo, hi)]
        k = _split(n)
        if m <= k:
            return self._subproof(m, lo, lo + k, whole) + [self.hash(lo + k, hi)]
        return self._subproof(m - k, lo + k, hi, False) + [self.hash(lo, lo + k)]

    def frontier(self, size: int) -> list[bytes]:
        """The roots of the perfect subtrees a tree of ``size`` is made of, left to right
        (its compact range): hashing them from the right gives its root, and adding
        leaves to them gives the root of a larger tree."""
        out, lo = [], 0
        while lo < size:
            k = 1 << ((size - lo).bit_length() - 1)
            out.append(self.hash(lo, lo + k))
            lo += k
        return out


def tiles_of(leaves: Iterable[bytes]) -> Iterator[tuple[int, int, bytes]]:
    """Every tile (full and the partial at each level's end) of the tree over ``leaves``,
    in the order they are completed: what ``verify`` compares with the stored ones."""
    growth = Growth(0, {})
    chunk: list[bytes] = []
    for leaf in leaves:
        chunk.append(leaf)
        if len(chunk) == WIDTH:
            yield from (row for row in growth.add(chunk) if len(row[2]) == TILE_BYTES)
            chunk = []
    if chunk:
        growth.add(chunk)
    for level, data in sorted(growth.edge.items()):
        if data:
            yield level, (growth.size >> (HEIGHT * level)) // WIDTH, data
