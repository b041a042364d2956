"""Raw access to the tables under the store, for tests that tamper with them."""

from __future__ import annotations


class Raw:
    """Rows of the event table in notification order: (position, state bytes)."""

    def __init__(self, url: str):
        self.url = url
        self.pg = url.startswith("postgres")

    def _conn(self):
        if self.pg:
            import psycopg

            return psycopg.connect(self.url, autocommit=True)
        import sqlite3

        return sqlite3.connect(self.url, isolation_level=None)

    def rows(self) -> list[tuple[int, bytes, str, int]]:
        with self._conn() as c:
            if self.pg:
                cur = c.execute("SELECT notification_id, state, originator_id::text, "
                                "originator_version FROM ledger_events "
                                "WHERE topic LIKE '%DealStream%' ORDER BY notification_id")
            else:
                cur = c.execute("SELECT rowid, state, originator_id, originator_version FROM "
                                "stored_events WHERE topic LIKE '%DealStream%' ORDER BY rowid")
            return [(r[0], bytes(r[1]), r[2], r[3]) for r in cur.fetchall()]

    def set_state(self, position: int, state: bytes) -> None:
        with self._conn() as c:
            if self.pg:
                c.execute("UPDATE ledger_events SET state=%s WHERE notification_id=%s",
                          (state, position))
            else:
                c.execute("UPDATE stored_events SET state=? WHERE rowid=?", (state, position))

    def delete(self, position: int) -> None:
        with self._conn() as c:
            if self.pg:
                c.execute("DELETE FROM ledger_events WHERE notification_id=%s", (position,))
            else:
                c.execute("DELETE FROM stored_events WHERE rowid=?", (position,))

    def count(self) -> int:
        return len(self.rows())

    def drop_tree(self) -> None:
        """What a forger who rewrites the log does to the Merkle tree kept beside it
        (``ledger.store.merkle``), which would name the first rewritten event: removes
        it. The ledger then looks like one written before the tree was kept; only a
        checkpoint signed before the rewrite shows it."""
        with self._conn() as c:
            c.execute("DELETE FROM ledger_merkle_tiles")


def store_rows(url: str) -> list[tuple]:
    """Every row of the event and snapshot tables, in storage order, as plain values: two
    equal results mean the store holds byte-for-byte the same events and snapshots."""
    if url.startswith("postgres"):
        import psycopg

        with psycopg.connect(url, autocommit=True) as c:
            out = []
            for table in ("ledger_events", "ledger_snapshots"):
                order = "notification_id" if table == "ledger_events" else \
                    "originator_id, originator_version"
                out += [(table, *[bytes(v) if isinstance(v, memoryview) else v for v in r])
                        for r in c.execute(f"SELECT * FROM {table} ORDER BY {order}")]
            return out
    import sqlite3

    c = sqlite3.connect(f"file:{url}?mode=ro", uri=True)
    try:
        out = []
        out += [("stored_events", *r) for r in
                c.execute("SELECT rowid, * FROM stored_events ORDER BY rowid")]
        out += [("stored_snapshots", *r) for r in c.execute(
            "SELECT * FROM stored_snapshots ORDER BY originator_id, originator_version")]
        return out
    finally:
        c.close()


class RawChain(Raw):
    """The chain-head stream's rows (one ``ChainAdvanced`` per batch)."""

    def rows(self) -> list[tuple[int, bytes, str, int]]:
        with self._conn() as c:
            if self.pg:
                cur = c.execute("SELECT notification_id, state, originator_id::text, "
                                "originator_version FROM ledger_events "
                                "WHERE topic LIKE '%ChainAdvanced%' ORDER BY notification_id")
            else:
                cur = c.execute("SELECT rowid, state, originator_id, originator_version FROM "
                                "stored_events WHERE topic LIKE '%ChainAdvanced%' ORDER BY rowid")
            return [(r[0], bytes(r[1]), r[2], r[3]) for r in cur.fetchall()]


def relink(record: dict, prev: str | None, deal_last: dict) -> str:
    """What a forger recomputes for one event after an edit: its ``prev_hash`` (the
    hash before it in the log, unless ``prev`` is None), its ``deal_prev`` (the hash of
    its deal's event before it, tracked in ``deal_last``) and its ``hash``."""
    from ledger.store.chainhead import GENESIS
    from ledger.store.canonical import record_hash

    if prev is not None:
        record["prev_hash"] = prev
    if "deal_prev" in record:
        record["deal_prev"] = deal_last.get(record["deal"], GENESIS)
    record["hash"] = record_hash(record)
    deal_last[record["deal"]] = record["hash"]
    return record["hash"]


def rewrite(url: str, seq: int, change) -> None:
    """What a forger with write access does: edit the event at ``seq`` with
    ``change(record)``, recompute every hash after it (``relink``), and point the chain
    heads at the new hashes, so the log is self-consistent; the Merkle tree beside the
    log is left as it was (``Raw.drop_tree`` removes it)."""
    import json

    raw, chain = Raw(url), RawChain(url)
    prev = None
    new_hash: dict[int, str] = {}
    deal_last: dict[str, str] = {}
    for position, state, *_ in raw.rows():
        outer = json.loads(state)
        record = outer["record"]
        if record["seq"] == seq:
            change(record)
        prev = relink(record, prev, deal_last)
        new_hash[record["seq"]] = prev
        raw.set_state(position, json.dumps(outer, separators=(",", ":")).encode())
    for position, state, *_ in chain.rows():
        outer = json.loads(state)
        outer["hash"] = new_hash[outer["seq"]]
        chain.set_state(position, json.dumps(outer, separators=(",", ":")).encode())
