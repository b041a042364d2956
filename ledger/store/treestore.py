"""The log's Merkle tree in the store (``ledger.store.merkle``'s tiles, in the table
``ledger_merkle_tiles`` beside the library's tables), as appends keep it:

* ``growth(ledger, head_seq)``: what an append extends: the stored tree's size and right
  edge, when the tree is as long as the log before the batch (``None`` when it is not: a
  ledger written before the tree was kept, until ``treeread.catch_up``);
* ``insert(ledger, stored, rows)``: the batch's stored events and its tiles written in
  one transaction, with the library's own statements (on PostgreSQL its insert function,
  as ``recorder.insert_events`` calls it).

Building a tree a ledger lacks, and reading the tree for proofs: ``ledger.store.treeread``.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Sequence

from eventsourcing.persistence import PersistenceError

from . import merkle

Ledger = Any   # ``ledger.store.writing.Ledger`` (which imports this module)


def _schema(ledger: Ledger) -> str | None:
    return ledger.app.recorder.datastore.schema if ledger.is_postgres else None


def table(ledger: Ledger) -> str:
    return merkle.table_name(ledger.is_postgres, _schema(ledger))


@contextlib.contextmanager
def _cursor(ledger: Ledger, *, commit: bool) -> Iterator[Any]:
    """A cursor in a transaction of the library's datastore (its errors translated)."""
    with ledger.app.recorder.datastore.transaction(commit=commit) as cursor:
        yield cursor


def _query(ledger: Ledger, cursor: Any, sql: str, params: tuple[Any, ...]) -> list[Any]:
    if ledger.is_postgres:
        sql = sql.replace("?", "%s")
    cursor.execute(sql, params)
    return list(cursor.fetchall())


def exists(ledger: Ledger, cursor: Any) -> bool:
    if ledger.is_postgres:
        found = _query(ledger, cursor, "SELECT to_regclass(?) AS t", (table(ledger),))
        return found[0]["t"] is not None
    return bool(_query(ledger, cursor, "SELECT 1 FROM sqlite_master WHERE type = 'table' "
                                       "AND name = ?", (merkle.TABLE,)))


def _state(ledger: Ledger, cursor: Any) -> tuple[int, dict[int, bytes]] | None:
    """The stored tree's size and right edge; ``None`` if the store has no tree."""
    if not exists(ledger, cursor):
        return None
    rows = lambda sql, params: _query(ledger, cursor, sql, params)  # noqa: E731
    size = merkle.stored_size(rows, table(ledger))
    return size, merkle.read_edge(rows, table(ledger), size)


def growth(ledger: Ledger, head_seq: int) -> merkle.Growth | None:
    """The tree an append of the batch after ``head_seq`` extends, or ``None`` if the
    store's tree is not as long as the log (module doc). A new ledger's table is made by
    its first batch's transaction (``insert``): ``Growth.create`` says so."""
    try:
        with _cursor(ledger, commit=False) as cursor:
            state = _state(ledger, cursor)
    except PersistenceError:
        return None
    if state is None:
        if head_seq != 0:
            return None
        made = merkle.Growth(0, {})
        made.create = True
        return made
    size, edge = state
    return merkle.Growth(size, edge) if size == head_seq else None


def insert(ledger: Ledger, stored: Sequence[Any], rows: Sequence[tuple[int, int, bytes]],
           create: bool = False) -> None:
    """Write the batch's ``stored`` events and the tree's ``rows`` in one transaction, with
    the library's statements (and, ``create``, the tree's table first); its errors as the
    library raises them."""
    recorder = ledger.app.recorder
    upsert = merkle.upsert_statement(ledger.is_postgres, _schema(ledger))
    table_sql = merkle.create_statement(ledger.is_postgres, _schema(ledger))
    if not ledger.is_postgres:
        with recorder.datastore.transaction(commit=True) as cursor:
            if create:
                cursor.execute(table_sql)
            recorder._insert_events(cursor, stored)
            cursor.executemany(upsert, rows)
        return
    events = [recorder.construct_pg_stored_event(
        originator_id=e.originator_id, originator_version=e.originator_version,
        topic=e.topic, state=e.state) for e in stored]
    with recorder.datastore.get_connection() as conn, conn.transaction():
        with conn.cursor() as cursor:
            if create:
                cursor.execute(table_sql)
            cursor.execute(recorder.sql_invoke_pg_function_insert_events, (events,),
                           prepare=True)
            cursor.fetchall()
            cursor.executemany(upsert, rows)
