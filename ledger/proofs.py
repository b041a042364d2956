"""Checking the log's proofs: the verifier, small on purpose and sharing no code with the
writer (``ledger.store.merkle``). Whoever checks a proof trusts this module and the
``hashlib`` under it, never the ledger that made the proof (the lesson of immudb's
advisory GHSA-672p-m5jq-mrh8: clients that accepted a falsified proof).

RFC 9162 §2.1 (RFC 6962's tree): a leaf hash is SHA-256(0x00 || data), a node's
SHA-256(0x01 || left || right). An event's leaf data is its canonical JSON (sorted keys,
no spaces, UTF-8, without its ``hash``: SPEC §3), the same bytes its ``hash`` covers.

* ``verify_inclusion``: RFC 9162 §2.1.3.2, an inclusion proof of one leaf in a tree of a
  size, against that tree's root;
* ``verify_consistency``: RFC 9162 §2.1.4.2, that the tree of one size is a prefix of the
  tree of a larger size, against both roots;
* ``root_of``: RFC 9162 §2.1.1, the root over a list of leaf hashes (for trees small
  enough to hold: tests, and the events after a checkpoint).

Each returns ``None`` when the proof holds and a one-line reason when it does not.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping, Sequence

_ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def event_bytes(record: Mapping[str, Any]) -> bytes:
    """An event record's canonical bytes (SPEC §3), without its ``hash``."""
    return _ENCODE({k: v for k, v in record.items() if k != "hash"}).encode("utf-8")


def event_hash(record: Mapping[str, Any]) -> str:
    """The ``hash`` an event record must carry (SPEC §3)."""
    return hashlib.sha256(event_bytes(record)).hexdigest()


def leaf(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def event_leaf(record: Mapping[str, Any]) -> bytes:
    """The leaf hash of an event record."""
    return leaf(event_bytes(record))


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def root_of(leaves: Sequence[bytes]) -> bytes:
    """MTH over the leaf hashes ``leaves`` (RFC 9162 §2.1.1), the empty tree's being
    SHA-256 of nothing."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    return _node(root_of(leaves[:k]), root_of(leaves[k:]))


def _hashes(proof: Sequence[bytes]) -> bool:
    return all(isinstance(p, bytes) and len(p) == 32 for p in proof)


def verify_inclusion(index: int, size: int, leaf_hash: bytes, proof: Sequence[bytes],
                     root: bytes) -> str | None:
    """RFC 9162 §2.1.3.2: ``leaf_hash`` is leaf ``index`` of the tree of ``size`` whose
    root is ``root``."""
    if not (isinstance(index, int) and isinstance(size, int) and 0 <= index < size):
        return f"leaf {index} is not in a tree of {size}"
    if not _hashes(proof) or len(leaf_hash) != 32 or len(root) != 32:
        return "a hash of the proof is not 32 bytes"
    fn, sn, r = index, size - 1, leaf_hash
    for p in proof:
        if sn == 0:
            return "the proof is longer than the tree is deep"
        if fn & 1 or fn == sn:
            r = _node(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = _node(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        return "the proof is shorter than the tree is deep"
    if r != root:
        return "the proof leads to another root"
    return None


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes,
                       proof: Sequence[bytes]) -> str | None:
    """RFC 9162 §2.1.4.2: the tree of ``old_size`` (root ``old_root``) is a prefix of the
    tree of ``new_size`` (root ``new_root``)."""
    if not (isinstance(old_size, int) and isinstance(new_size, int)
            and 0 <= old_size <= new_size):
        return f"a tree of {old_size} cannot be a prefix of a tree of {new_size}"
    if not _hashes(proof) or len(old_root) != 32 or len(new_root) != 32:
        return "a hash of the proof is not 32 bytes"
    if old_size == new_size:
        if proof:
            return "a proof between equal sizes must be empty"
        return None if old_root == new_root else "two roots for one size: the log forked"
    if old_size == 0:
        return None if not proof else "a proof from the empty tree must be empty"
    if not proof:
        return "the proof is empty"
    path = list(proof)
    if old_size & (old_size - 1) == 0:
        path.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return "the proof is longer than the trees are deep"
        if fn & 1 or fn == sn:
            fr = _node(c, fr)
            sr = _node(c, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = _node(sr, c)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        return "the proof is shorter than the trees are deep"
    if fr != old_root:
        return f"the proof does not lead to the root of the tree of {old_size}"
    if sr != new_root:
        return f"the proof does not lead to the root of the tree of {new_size}"
    return None
