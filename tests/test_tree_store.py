"""The log's Merkle tree kept in the store (``ledger.store.treestore``, ``treeread``), on
both backends: appends grow it in their own transaction, so its root is always RFC 6962's
root of the events as stored (checked by the independent verifier, ``ledger.proofs``);
a ledger written before the tree was kept gains it on first use or by ``verify``, and
appends keep it from then on; ``verify`` holds the events against it, so an event
rewritten with every hash after it recomputed (the tree left as it was) is named."""

from __future__ import annotations

import pytest

from ledger import proofs
from ledger.events import parse_event
from ledger.store import Ledger, treeread
from ledger.store.chain import verify
from ledger.store.stable import stable_view
from tests.db_access import Raw, rewrite
from tests.support import ev, opened


def _events(n: int, start: int = 0) -> list:
    return [parse_event(ev("NotesIssued", "2004-06-30", holder=f"H{i}", principal="1000"))
            for i in range(start, start + n)]


def _root_and_size(ledger: Ledger) -> tuple[bytes, int]:
    with stable_view(ledger) as view:
        tiles = treeread.tiles(view)
        return tiles.root(), tiles.size


def _expected_root(ledger: Ledger) -> bytes:
    return proofs.root_of([proofs.event_leaf(r) for r in ledger.records()])


def test_appends_keep_the_tree_of_the_events_as_stored(store_url):
    # batches across a tile's edge (256 leaves) and of one event
    with Ledger(store_url) as ledger:
        ledger.append([parse_event(opened("rra"))] + _events(200))
        ledger.append(_events(100, 200))
        ledger.append(_events(1, 300))
        root, size = _root_and_size(ledger)
        assert size == 302
        assert root == _expected_root(ledger)
        with stable_view(ledger) as view:
            tiles = treeread.tiles(view)
            records = list(ledger.records())
            for index in (0, 255, 256, 301):
                assert proofs.verify_inclusion(index, 302, proofs.event_leaf(records[index]),
                                               tiles.inclusion(index), root) is None
            assert proofs.verify_consistency(201, 302, tiles.root(201), root,
                                             tiles.consistency(201)) is None
        assert verify(ledger).ok


def test_a_batch_not_written_leaves_the_tree_as_it_was(store_url):
    from ledger.errors import RuleViolation

    with Ledger(store_url) as ledger:
        ledger.append([parse_event(opened("rra"))] + _events(3))
        before = _root_and_size(ledger)
        with pytest.raises(RuleViolation):   # a second DealOpened: the batch is refused
            ledger.append(_events(2, 3) + [parse_event(opened("rra"))])
        assert _root_and_size(ledger) == before


def test_a_ledger_without_a_tree_gains_it_and_appends_keep_it(store_url):
    with Ledger(store_url) as ledger:
        ledger.append([parse_event(opened("rra"))] + _events(5))
    Raw(store_url).drop_tree()   # as a ledger written before the tree was kept
    with Ledger(store_url) as ledger:
        ledger.append(_events(2, 5))   # the tree is behind the log: not kept yet
        with stable_view(ledger) as view:
            assert treeread.stored_size(view) == 0
        assert treeread.catch_up(ledger) == 8   # first use
        ledger.append(_events(3, 7))
        root, size = _root_and_size(ledger)
        assert size == 11 and root == _expected_root(ledger)


def test_verify_builds_a_missing_tree(store_url):
    with Ledger(store_url) as ledger:
        ledger.append([parse_event(opened("rra"))] + _events(300))
    Raw(store_url).drop_tree()
    with Ledger(store_url) as ledger:
        assert verify(ledger).ok
        root, size = _root_and_size(ledger)
        assert size == 301 and root == _expected_root(ledger)


def test_catch_up_pages(store_url, monkeypatch):
    monkeypatch.setattr(treeread, "CATCH_UP_PAGE", 7)
    with Ledger(store_url) as ledger:
        ledger.append([parse_event(opened("rra"))] + _events(40))
    Raw(store_url).drop_tree()
    with Ledger(store_url) as ledger:
        assert treeread.catch_up(ledger) == 41
        assert _root_and_size(ledger) == (_expected_root(ledger), 41)


def _rewrite(url: str, seq: int) -> None:
    """A forger's edit of event ``seq``, every hash after it recomputed and the chain
    heads pointed at them, the tree beside the log left as it was."""
    rewrite(url, seq, lambda record: record["data"].update(principal="5000"))


def test_a_rewritten_event_is_named_by_the_tree(store_url):
    with Ledger(store_url) as ledger:
        ledger.append([parse_event(opened("rra"))] + _events(9))
        ledger.append(_events(2, 9))
    _rewrite(store_url, 4)
    with Ledger(store_url, create=False) as ledger:
        v = verify(ledger)
    assert not v.ok and v.bad_seq == 4 and "Merkle tree" in v.reason, v.line()


def test_an_altered_tile_is_named(store_url):
    with Ledger(store_url) as ledger:
        ledger.append([parse_event(opened("rra"))] + _events(9))
    raw = Raw(store_url)
    with raw._conn() as c:
        mark = "%s" if raw.pg else "?"
        c.execute(f"UPDATE ledger_merkle_tiles SET hashes = {mark} WHERE level = 0",
                  (b"\x00" * 320,))
    with Ledger(store_url, create=False) as ledger:
        v = verify(ledger)
    assert not v.ok and v.bad_seq == 1 and "Merkle tree" in v.reason, v.line()


def test_a_read_only_ledger_builds_its_tree_in_memory(tmp_path):
    import os
    import stat

    url = str(tmp_path / "ro" / "l.db")
    os.mkdir(tmp_path / "ro")
    with Ledger(url) as ledger:
        ledger.append([parse_event(opened("rra"))] + _events(4))
    Raw(url).drop_tree()
    os.chmod(url, stat.S_IRUSR)
    os.chmod(tmp_path / "ro", stat.S_IRUSR | stat.S_IXUSR)
    try:
        if os.access(url, os.W_OK):
            pytest.skip("running as a user that writes read-only files (root)")
        with Ledger(url, create=False) as ledger:
            assert treeread.catch_up(ledger) == 5
            assert _root_and_size(ledger) == (_expected_root(ledger), 5)
    finally:
        os.chmod(tmp_path / "ro", stat.S_IRWXU)
        os.chmod(url, stat.S_IRUSR | stat.S_IWUSR)


def test_a_store_that_cannot_be_written_has_its_tree_built_in_memory(store_url, monkeypatch):
    with Ledger(store_url) as ledger:
        ledger.append([parse_event(opened("rra"))] + _events(300))
    Raw(store_url).drop_tree()
    monkeypatch.setattr(treeread, "_store", lambda *args: False)   # a read-only role
    with Ledger(store_url, create=False) as ledger:
        assert treeread.catch_up(ledger) == 301
        assert _root_and_size(ledger) == (_expected_root(ledger), 301)
        with stable_view(ledger) as view:
            assert treeread.stored_size(view) == 0   # nothing was written
