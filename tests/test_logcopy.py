"""An empty view file filled by SQLite (``publishing.logcopy``) holds exactly what the page
path (``readmodels._stream``, Python's decoder) writes: on random texts, in chunks, in a
pool of workers, and when a record in the middle is one the copy must not take."""

from __future__ import annotations

import json
import sqlite3
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ledger.errors import LedgerError
from ledger.events import parse_event
from ledger.store import Ledger
from publishing import logcopy, readmodels
from tests.db_access import Raw
from tests.support import ev, opened, texts_as_once_accepted
from tests.test_views import dump, state_rows

AS_OF = date(2006, 1, 1)
HOLDERS = ("Lehman Brothers Inc.", "Holder B")
INTERNAL = ("_deal_state", "_deal_written")


def everything(out: str) -> dict:
    """``test_views.dump`` (the tables, the tracked position) and the deals' states."""
    found = dump(out)
    conn = sqlite3.connect(out)
    try:
        for table in INTERNAL:
            found[table] = sorted(conn.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
    finally:
        conn.close()
    found["state rows"] = state_rows(out)
    return found


def both(db: str, tmp, monkeypatch, **kwargs) -> tuple[dict, dict, int]:
    """The view file of ``db`` made by the copy, and by the page path alone; and how many
    chunks the copy put in."""
    chunks = []
    original = logcopy._copy_in

    def kept(*args):
        seq = original(*args)     # raises for a chunk not kept
        chunks.append(seq)
        return seq

    monkeypatch.setattr(logcopy, "_copy_in", kept)
    copied, paged = str(tmp / "copied.db"), str(tmp / "paged.db")
    with Ledger(db, create=False) as ledger:
        readmodels.views(ledger, copied, as_of=AS_OF, **kwargs)
    with monkeypatch.context() as m:
        m.setattr(logcopy, "possible", lambda ledger: False)
        with Ledger(db, create=False) as ledger:
            readmodels.views(ledger, paged, as_of=AS_OF, **kwargs)
    return everything(copied), everything(paged), len(chunks)


def opening(deal: str) -> list[dict]:
    return [opened(deal), *(ev("NotesIssued", "2004-06-30", deal=deal, holder=h,
                               principal="30000000") for h in HOLDERS),
            ev("ShelfFiled", "2004-07-13", deal=deal),
            ev("ShelfEffective", "2004-11-15", deal=deal)]


def write(db: str, objs: list[dict]) -> None:
    # texts with control characters too: records written before they were refused
    with Ledger(db) as ledger, texts_as_once_accepted():
        ledger.append([parse_event(o, line=n + 1) for n, o in enumerate(objs)])


# texts as operators type them, and as they do not: quotes, backslashes, control
# characters, every plane (the store writes them with ``ensure_ascii=False``)
# (after a letter: a text of spaces alone is refused as empty)
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30).map(
    lambda t: "x" + t)


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(notices=st.lists(st.tuples(st.sampled_from(["a", "b"]), texts, texts), max_size=12),
       page=st.integers(1, 7))
def test_the_copy_writes_what_the_page_path_writes(tmp_path_factory, monkeypatch, notices,
                                                   page):
    tmp = tmp_path_factory.mktemp("copy")
    db = str(tmp / "ledger.db")
    write(db, opening("a") + opening("b"))
    write(db, [ev("NoticeSent", "2005-02-01", deal=deal, to=to, subject=subject,
                  method="hand") for deal, to, subject in notices]
          + [ev("AdditionalInterestPaid", "2005-01-20", deal="a", payment_date="2005-01-15",
                holder="Holder B", amount="12.34")])
    copied, paged, chunks = both(db, tmp, monkeypatch, page=page, workers=1)
    assert copied == paged
    # 10 + len(notices) + 1 events, 2 chain heads, ten pages of ``page`` ids a chunk
    assert chunks == -(-(10 + len(notices) + 1 + 2) // (10 * page))
    assert len(copied["events"]) == 10 + len(notices) + 1


@pytest.mark.parametrize("spoiled", [False, True])
def test_the_copy_in_a_pool_of_workers(tmp_path, monkeypatch, spoiled):
    """The chunks filled by two forked workers, copied in in log order; with a record
    the copy must not take in the second chunk, the first only (the workers' later
    chunks are let go)."""
    db = str(tmp_path / "ledger.db")
    write(db, opening("a") + opening("b"))
    for n in range(6):
        write(db, [ev("NoticeSent", f"2005-0{n + 1}-02", deal=d, to="Trustee",
                      subject=f"notice «{n}» \"{d}\"\n", method="mail") for d in "ab"])
    if spoiled:
        _tamper(db, 15, lambda r: r.update(note="by hand"))
    monkeypatch.setattr(readmodels, "STREAM_POOL_MIN", 1)
    copied, paged, chunks = both(db, tmp_path, monkeypatch, page=1, workers=2)
    assert copied == paged
    # 10 + 12 events and 7 chain heads: 29 ids, ten a chunk
    assert chunks == (1 if spoiled else 3) and len(copied["events"]) == 22


def _tamper(db: str, position: int, change) -> None:
    raw = Raw(db)
    state = json.loads(next(s for p, s, *_ in raw.rows() if p == position))
    change(state["record"])
    raw.set_state(position, json.dumps(state, separators=(",", ":"),
                                       ensure_ascii=False).encode())


@pytest.mark.parametrize("change, why, chunks", [
    (lambda r: r.update(note="by hand"), "a field the store never writes", 2),
    (lambda r: r.update(deal_prev="not a hash"), "a link that is not a hash", 2),
    (lambda r: r.update(deal_prev=None), "a link that is null", 2),
    (lambda r: r.update(data="a string"), "data not an object", 2),
    (lambda r: r.update(recorded_by=None), "a null where the store writes text", 2),
    # the rows made, but not after the last chunk's in log order: the writer's check
    (lambda r: r.update(seq=999), "a seq out of log order", 2),
    # SQLite stores both as the number, from the page path's text as from the copy's
    (lambda r: r.update(seq=str(r["seq"])), "a seq that is text", 3),
    (lambda r: r.update(v="1"), "a version that is text", 3),
])
def test_a_record_the_copy_must_not_take_is_left_to_the_page_path(tmp_path, monkeypatch,
                                                                  change, why, chunks):
    """A state edited outside deal-ledger, in the third chunk: the first two are copied,
    the page path reads the rest, and the file is what it alone writes (or, where SQLite
    stores the same either way, the copy takes all three)."""
    db = str(tmp_path / "ledger.db")
    write(db, opening("a") + opening("b"))
    for n in range(6):
        write(db, [ev("HoldersAdvised", f"2005-0{n + 1}-02", deal=d) for d in "ab"])
    # notifications: 10 events, a head, then (2 events, a head) x 6: 29 ids; chunks of
    # ten (page=1): (0, 10], (10, 20], (20, 29]; position 24 is an event of the third
    assert 24 in [p for p, *_ in Raw(db).rows()]
    _tamper(db, 24, change)
    copied, paged, made = both(db, tmp_path, monkeypatch, page=1, workers=1)
    assert copied == paged, why
    assert made == chunks, why


@pytest.mark.parametrize("state", [b"{not json", None])
def test_a_record_that_does_not_read_is_named_as_the_page_path_names_it(tmp_path,
                                                                      monkeypatch, state):
    """A state that is not JSON (the store's read names it), a record without its hash
    (the page decoder names it: one line, no traceback)."""
    db = str(tmp_path / "ledger.db")
    write(db, opening("a") + opening("b"))
    write(db, [ev("HoldersAdvised", "2005-01-02", deal="a")])
    if state is None:
        _tamper(db, 12, lambda r: r.pop("hash"))
    else:
        Raw(db).set_state(12, state)
    errors = []
    for possible in (logcopy.possible, lambda ledger: False):
        monkeypatch.setattr(logcopy, "possible", possible)
        with Ledger(db, create=False) as ledger:
            with pytest.raises(LedgerError) as caught:
                readmodels.views(ledger, str(tmp_path / f"v{len(errors)}.db"), as_of=AS_OF,
                                 workers=1)
        errors.append((type(caught.value), str(caught.value)))
    assert errors[0] == errors[1]
    assert "position 12" in errors[0][1] or state is not None, errors
