"""The log's Merkle tree (``ledger.store.merkle``, the writer) and its verifier
(``ledger.proofs``): against RFC 6962's published test vectors, then against each other
on random trees (hypothesis), where every proof verifies and every corruption fails.

The vectors are the ones the RFC 6962 implementations share: the eight leaves, the
roots of the trees of sizes 1 to 8, and the inclusion and consistency proofs of
transparency-dev/merkle's ``proof/verify_test.go`` (from certificate-transparency's
``merkle_tree_test.cc``), and the hasher vectors of its ``rfc6962/rfc6962_test.go``."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings, strategies as st

from ledger import proofs
from ledger.store import merkle

LEAVES = [bytes.fromhex(h) for h in (
    "", "00", "10", "2021", "3031", "40414243", "5051525354555657",
    "606162636465666768696a6b6c6d6e6f")]
ROOTS = [bytes.fromhex(h) for h in (
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328")]
# (leaf index, tree size, proof)
INCLUSION = [
    (0, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (5, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (1, 5, ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
    (0, 1, []),
]
# (old size, new size, proof)
CONSISTENCY = [
    (1, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (6, 8, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 5, ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
    (6, 7, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (1, 1, []),
]


def tree_of(leaf_hashes: list[bytes]) -> merkle.Tiles:
    """The writer's tree over ``leaf_hashes``, its tiles held in memory (a tree built
    where it cannot be stored), read through the same code as a stored one."""
    tiles = {(level, idx): data for level, idx, data in merkle.tiles_of(leaf_hashes)}

    def no_store(sql, params):
        return []

    return merkle.Tiles(no_store, "none", len(leaf_hashes), tiles)


def test_the_hashes_are_rfc_6962s():
    # echo -n | sha256sum: the empty tree
    assert merkle.empty_root().hex() == proofs.root_of([]).hex() == \
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    # echo -n 00 | xxd -r -p | sha256sum: the empty leaf is not the empty tree
    assert merkle.leaf_hash(b"").hex() == proofs.leaf(b"").hex() == \
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"
    # echo -n 004C313233343536 | xxd -r -p | sha256sum
    assert merkle.leaf_hash(b"L123456").hex() == \
        "395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56"
    # echo -n 014E3132334E343536 | xxd -r -p | sha256sum
    assert merkle.node_hash(b"N123", b"N456").hex() == \
        "aa217fe888e47007fa15edab33c2b492a722cb106c64667fc2b044444de66bbb"


def test_roots_of_the_vectors():
    hashes = [merkle.leaf_hash(d) for d in LEAVES]
    tree = tree_of(hashes)
    for size in range(1, 9):
        assert tree.root(size) == ROOTS[size - 1], size
        assert proofs.root_of(hashes[:size]) == ROOTS[size - 1], size


@pytest.mark.parametrize("index,size,proof", INCLUSION)
def test_inclusion_vectors(index, size, proof):
    hashes = [merkle.leaf_hash(d) for d in LEAVES]
    want = [bytes.fromhex(p) for p in proof]
    assert tree_of(hashes).inclusion(index, size) == want
    assert proofs.verify_inclusion(index, size, hashes[index], want, ROOTS[size - 1]) is None
    if want:
        wrong = [want[0][:1] + bytes([want[0][1] ^ 8]) + want[0][2:], *want[1:]]
        assert proofs.verify_inclusion(index, size, hashes[index], wrong, ROOTS[size - 1])
        assert proofs.verify_inclusion(index, size, hashes[index], want[:-1], ROOTS[size - 1])
        assert proofs.verify_inclusion(index, size, hashes[index], want + [want[0]],
                                       ROOTS[size - 1])
    assert proofs.verify_inclusion(index, size * 2, hashes[index], want, ROOTS[size - 1])


@pytest.mark.parametrize("old,new,proof", CONSISTENCY)
def test_consistency_vectors(old, new, proof):
    hashes = [merkle.leaf_hash(d) for d in LEAVES]
    want = [bytes.fromhex(p) for p in proof]
    assert tree_of(hashes).consistency(old, new) == want
    assert proofs.verify_consistency(old, new, ROOTS[old - 1], ROOTS[new - 1], want) is None
    if want:
        assert proofs.verify_consistency(old, new, ROOTS[new - 1], ROOTS[old - 1], want)
        assert proofs.verify_consistency(old, new, ROOTS[old - 1], ROOTS[new - 1], want[:-1])
        assert proofs.verify_consistency(old, new, ROOTS[old - 1], ROOTS[new - 1], [])
        assert proofs.verify_consistency(old + 1, new, ROOTS[old - 1], ROOTS[new - 1], want)


def test_trivial_consistency_cases():
    some, other = ROOTS[0], ROOTS[1]
    assert proofs.verify_consistency(0, 0, some, some, []) is None
    assert proofs.verify_consistency(0, 5, some, other, []) is None
    assert "forked" in proofs.verify_consistency(3, 3, some, other, [])
    assert proofs.verify_consistency(3, 3, some, some, [other])
    assert proofs.verify_consistency(4, 3, some, other, [])


def _leaves(n: int, salt: int) -> list[bytes]:
    return [merkle.leaf_hash(f"{salt}:{i}".encode()) for i in range(n)]


def _flip(proof: list[bytes], k: int, bit: int) -> list[bytes]:
    out = list(proof)
    b = bytearray(out[k])
    b[bit // 8] ^= 1 << (bit % 8)
    out[k] = bytes(b)
    return out


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 700), data=st.data())
def test_random_inclusion_proofs(n, data):
    hashes = _leaves(n, data.draw(st.integers(0, 10**6)))
    tree = tree_of(hashes)
    size = data.draw(st.integers(1, n))
    index = data.draw(st.integers(0, size - 1))
    root = tree.root(size)
    assert root == proofs.root_of(hashes[:size])
    proof = tree.inclusion(index, size)
    assert proofs.verify_inclusion(index, size, hashes[index], proof, root) is None
    # every single-bit change of the proof, the leaf or the root fails
    if proof:
        k = data.draw(st.integers(0, len(proof) - 1))
        bit = data.draw(st.integers(0, 255))
        assert proofs.verify_inclusion(index, size, hashes[index], _flip(proof, k, bit), root)
        assert proofs.verify_inclusion(index, size, hashes[index], proof[:-1], root)
        assert proofs.verify_inclusion(index, size, hashes[index], proof + [root], root)
    bit = data.draw(st.integers(0, 255))
    assert proofs.verify_inclusion(index, size, _flip([hashes[index]], 0, bit)[0], proof, root)
    assert proofs.verify_inclusion(index, size, hashes[index], proof, _flip([root], 0, bit)[0])
    # a swapped leaf: another leaf's hash at this index
    if size > 1:
        other = (index + 1) % size
        assert proofs.verify_inclusion(index, size, hashes[other], proof, root)
    # a wrong size: the proof checked against the (signed) root of another size. (Against
    # this size's root, a size whose path from the leaf has the same shape gives the same
    # root, by RFC 9162's algorithm: a checkpoint signs the size with the root.)
    wrong = data.draw(st.integers(max(1, index + 1), n).filter(lambda s: s != size))
    assert proofs.verify_inclusion(index, wrong, hashes[index], proof, tree.root(wrong))
    assert proofs.verify_inclusion(index, size * 2, hashes[index], proof, root)


@settings(max_examples=150, deadline=None)
@given(n=st.integers(2, 700), data=st.data())
def test_random_consistency_proofs(n, data):
    hashes = _leaves(n, data.draw(st.integers(0, 10**6)))
    tree = tree_of(hashes)
    new = data.draw(st.integers(2, n))
    old = data.draw(st.integers(1, new - 1))
    old_root, new_root = tree.root(old), tree.root(new)
    proof = tree.consistency(old, new)
    assert proofs.verify_consistency(old, new, old_root, new_root, proof) is None
    k = data.draw(st.integers(0, len(proof) - 1))
    bit = data.draw(st.integers(0, 255))
    assert proofs.verify_consistency(old, new, old_root, new_root, _flip(proof, k, bit))
    assert proofs.verify_consistency(old, new, old_root, new_root, proof[:-1])
    assert proofs.verify_consistency(old, new, _flip([old_root], 0, bit)[0], new_root, proof)
    assert proofs.verify_consistency(old, new, old_root, _flip([new_root], 0, bit)[0], proof)
    # a log whose leaf before ``old`` was changed is not an extension of the old tree
    i = data.draw(st.integers(0, old - 1))
    forked = list(hashes[:new])
    forked[i] = merkle.leaf_hash(b"forged")
    fork = tree_of(forked)
    assert proofs.verify_consistency(old, new, old_root, fork.root(new),
                                     fork.consistency(old, new))
    # a wrong old size, with its own root (a replayed checkpoint of another size)
    wrong = data.draw(st.integers(1, new).filter(lambda s: s != old))
    assert proofs.verify_consistency(wrong, new, tree.root(wrong), new_root, proof)


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(1, 300), min_size=1, max_size=8))
def test_grown_in_steps_is_grown_at_once(sizes):
    """Tiles grown batch by batch (as appends grow them, each from the stored edge) are
    the tiles of the whole tree made at once."""
    hashes = _leaves(sum(sizes), 7)
    stored: dict[tuple[int, int], bytes] = {}
    growth = merkle.Growth(0, {})
    done = 0
    for n in sizes:
        for level, idx, data in merkle.Growth(done, {k[0]: stored[k] for k in
                                                     merkle.edge_keys(done)}).add(
                                                         hashes[done:done + n]):
            stored[(level, idx)] = data
        growth.add(hashes[done:done + n])
        done += n
    assert stored == {(level, idx): data for level, idx, data in merkle.tiles_of(hashes)}


def test_a_large_tree_spans_tile_levels():
    """Past 256 leaves a node is computed from the tile above (level 1); past 65,536 from
    level 2. Checked against the verifier's own root and proofs."""
    n = 70_000
    hashes = [hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(n)]
    tree = tree_of(hashes)
    assert {level for level, _ in tree._cache} == {0, 1, 2}
    root = tree.root()
    assert root == proofs.root_of(hashes)
    for index in (0, 255, 256, 65_535, 65_536, n - 1):
        assert proofs.verify_inclusion(index, n, hashes[index], tree.inclusion(index), root) \
            is None
    for old in (1, 256, 65_536, 69_999):
        assert proofs.verify_consistency(old, n, proofs.root_of(hashes[:old]), root,
                                         tree.consistency(old)) is None
