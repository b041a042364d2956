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
