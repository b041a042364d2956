"""``publishing.written``: the digests of a deal's rows as the view file holds them,
which decide whether a recomputed deal's table is written again."""

from __future__ import annotations

import marshal

from hypothesis import given, settings, strategies as st

from publishing import written

VALUES = st.one_of(st.none(), st.integers(), st.text(max_size=8),
                   st.floats(allow_nan=False), st.booleans())
ROWS = st.lists(st.tuples(VALUES, VALUES, VALUES), max_size=6)


def test_rows_that_differ_only_in_type_have_different_digests():
    # a cents column read back as 1 and a text column as "1" are different rows
    kinds = [[(1,)], [("1",)], [(1.0,)], [(True,)], [(None,)], [()], []]
    assert len({written.digest(k) for k in kinds}) == len(kinds)


def test_the_order_of_rows_counts():
    assert written.digest([(1,), (2,)]) != written.digest([(2,), (1,)])


@settings(max_examples=200, derandomize=True, deadline=None)
@given(ROWS, ROWS)
def test_equal_digests_exactly_when_equal_rows(a, b):
    same = [tuple(map(repr, r)) for r in a] == [tuple(map(repr, r)) for r in b]
    assert (written.digest(a) == written.digest(b)) == same


@settings(max_examples=100, derandomize=True, deadline=None)
@given(st.dictionaries(st.sampled_from(["payments", "defaults", "obligations"]), ROWS),
       st.lists(st.integers(min_value=1), max_size=4))
def test_digests_survive_the_file(tables, retracted):
    now = written.digests(tables, retracted)
    assert set(now) == set(tables) | {written.RETRACTED}
    assert written.load(written.dump(now)) == now
    assert written.changed(written.load(written.dump(now)), now) == set()


def test_what_changed_or_was_not_there_is_written():
    before = written.digests({"payments": [(1, "a")], "defaults": []}, [])
    now = written.digests({"payments": [(1, "b")], "defaults": [], "deadlines": []}, [3])
    assert written.changed(before, now) == {"payments", "deadlines", written.RETRACTED}
    assert written.changed({}, now) == set(now)


def test_a_digest_row_that_is_not_one_is_no_digest():
    good = written.dump(written.digests({"payments": []}, []))
    for blob in (None, "text", b"", b"\x00\xff", marshal.dumps((2, ())),
                 marshal.dumps((written.FORMAT, [("payments", b"x" * 16)])),
                 marshal.dumps((written.FORMAT, (("payments", b"short"),))),
                 marshal.dumps((written.FORMAT, ((1, b"x" * 16),))),
                 marshal.dumps(written.FORMAT)):
        assert written.load(blob) == {}, blob
    assert written.load(good) != {}
