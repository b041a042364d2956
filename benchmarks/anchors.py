"""The raw libraries, measured in the same run as the ledger, so figures are ratios.

* ``es_batch_save``: the eventsourcing library's own batch save: one ``Application`` that
  saves one aggregate per deal, each holding that deal's events (the same records, so the
  same payload), in one ``save`` call: one transaction, like a ledger batch.
* ``es_read_decode``: the library's own read of the notification log,
  ``recorder.select_notifications`` page by page and ``mapper.to_domain_event`` for each.
* ``es_read_stream``: the library's read of one aggregate's events, ``select_events`` and
  ``to_domain_event`` (what a report of one deal must at least do).
* ``sqlite_insert`` / ``sqlite_select``: plain ``sqlite3``: ``executemany`` of
  ``(id, json)`` rows in one transaction, and ``SELECT`` with ``json.loads`` per row.

Each returns the seconds spent on the measured part only.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from typing import Any, Sequence
from urllib.parse import unquote, urlparse

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate

NAMESPACE = uuid.UUID("0f7d8e1c-52a4-4f0e-b1a1-5d6c2e9b7a10")
PAGE = 2000


class Stream(Aggregate):
    """One deal's events as the bare library would keep them: the record, nothing else."""

    class Started(Aggregate.Created):
        record: dict

    class Recorded(Aggregate.Event):
        record: dict

    def __init__(self, record: dict):
        pass


def env_for(url: str) -> dict[str, str]:
    """The library's own settings for a SQLite file or a PostgreSQL URL."""
    if url.startswith(("postgresql://", "postgres://")):
        parts = urlparse(url)
        return {"PERSISTENCE_MODULE": "eventsourcing.postgres",
                "POSTGRES_DBNAME": unquote(parts.path.lstrip("/")),
                "POSTGRES_HOST": parts.hostname or "127.0.0.1",
                "POSTGRES_PORT": str(parts.port or 5432),
                "POSTGRES_USER": unquote(parts.username or "postgres"),
                "POSTGRES_PASSWORD": unquote(parts.password or ""),
                # the insert path the ledger's store uses (ledger/store/writing.py): the
                # library's default, one INSERT inside a psycopg pipeline, hangs in
                # Pipeline.sync() once a batch's parameters pass ~10 MB (psycopg 3.3)
                "POSTGRES_ENABLE_DB_FUNCTIONS": "y",
                "CREATE_TABLE": "y"}
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": url,
            "CREATE_TABLE": "y"}


def app_for(url: str, name: str) -> Application:
    cls = type(name, (Application,), {"name": name})
    return cls(env=env_for(url))


def es_batch_save(url: str, records_by_deal: dict[str, list[dict[str, Any]]]) -> float:
    """Create one aggregate per deal with all its events and save them in one call."""
    app = app_for(url, "Anchor")
    try:
        start = time.perf_counter()
        streams = []
        for deal, records in records_by_deal.items():
            s = Stream._create(Stream.Started, id=uuid.uuid5(NAMESPACE, deal),
                               record=records[0])
            for r in records[1:]:
                s.trigger_event(Stream.Recorded, record=r)
            streams.append(s)
        app.save(*streams)
        return time.perf_counter() - start
    finally:
        app.close()


def es_read_decode(url: str, app_name: str = "Ledger") -> tuple[float, int]:
    """Read the whole notification log of ``app_name`` and decode every event."""
    app = app_for(url, app_name)
    try:
        recorder, mapper = app.recorder, app.mapper
        for n in recorder.select_notifications(start=None, limit=1):
            mapper.to_domain_event(n)   # resolve the topic (imports) before timing
        start = time.perf_counter()
        position, count = 0, 0
        while True:
            page = recorder.select_notifications(start=position, limit=PAGE,
                                                 inclusive_of_start=False)
            if not page:
                break
            for n in page:
                mapper.to_domain_event(n)
            count += len(page)
            position = page[-1].id
        return time.perf_counter() - start, count
    finally:
        app.close()


def es_read_stream(app: Application, originator_id: uuid.UUID) -> tuple[float, int]:
    """Read and decode one aggregate's events (no snapshot)."""
    start = time.perf_counter()
    stored = app.recorder.select_events(originator_id)
    for s in stored:
        app.mapper.to_domain_event(s)
    return time.perf_counter() - start, len(stored)


def sqlite_insert(path: str, rows: Sequence[str]) -> float:
    """Plain sqlite3 (WAL, as the library sets it): ``executemany`` of ``(id, text)``
    rows in one transaction."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE raw (id INTEGER PRIMARY KEY, state BLOB)")
        start = time.perf_counter()
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO raw (state) VALUES (?)",
                         ((r.encode("utf-8"),) for r in rows))
        conn.execute("COMMIT")
        return time.perf_counter() - start
    finally:
        conn.close()


def sqlite_select(path: str, table: str = "raw") -> tuple[float, int]:
    """Plain sqlite3: ``SELECT state`` of every row and ``json.loads`` of each."""
    conn = sqlite3.connect(path)
    try:
        start = time.perf_counter()
        count = 0
        for (state,) in conn.execute(f"SELECT state FROM {table}"):
            json.loads(state)
            count += 1
        return time.perf_counter() - start, count
    finally:
        conn.close()



def plain_walk(url: str, *, encoder_once: bool = False) -> tuple[float, float, int]:
    """The hash chain walked in plain Python, as SPEC §3 says it in words and nothing
    else: every row of the log read in log order (plain ``sqlite3`` or ``psycopg``, 2,000
    rows a query), its JSON decoded with ``json.loads``, each event's hash recomputed
    over its canonical JSON without its ``hash`` (``json.dumps(..., sort_keys=True,
    separators=(",", ":"), ensure_ascii=False)``, UTF-8, SHA-256) and its ``prev_hash``
    checked against the hash before it; the chain head's rows (no ``record``) passed
    over. With ``encoder_once``, the canonical encoder is made once instead of by each
    ``json.dumps`` call (a tuned walk, for comparison). Returns (wall seconds, CPU
    seconds of this process, events)."""
    import hashlib

    if encoder_once:
        canonical = json.JSONEncoder(sort_keys=True, separators=(",", ":"),
                                     ensure_ascii=False).encode
    else:
        def canonical(value: Any) -> str:
            return json.dumps(value, sort_keys=True, separators=(",", ":"),
                              ensure_ascii=False)
    if url.startswith(("postgresql://", "postgres://")):
        import psycopg

        conn: Any = psycopg.connect(url)
        select = ("SELECT notification_id, state FROM ledger_events WHERE notification_id > %s "
                  "ORDER BY notification_id LIMIT %s")
    else:
        conn = sqlite3.connect(url)
        select = "SELECT rowid, state FROM stored_events WHERE rowid > ? ORDER BY rowid LIMIT ?"
    try:
        start, cpu = time.perf_counter(), time.process_time()
        prev, count, position = "0" * 64, 0, 0
        while rows := conn.execute(select, (position, PAGE)).fetchall():
            position = rows[-1][0]
            for _, state in rows:
                record = json.loads(bytes(state)).get("record")
                if record is None:
                    continue   # a chain head
                body = {k: v for k, v in record.items() if k != "hash"}
                digest = hashlib.sha256(canonical(body).encode("utf-8")).hexdigest()
                if record["prev_hash"] != prev or digest != record["hash"]:
                    raise ValueError(f"the chain breaks at seq {record['seq']}")
                prev = record["hash"]
                count += 1
        return time.perf_counter() - start, time.process_time() - cpu, count
    finally:
        conn.close()
