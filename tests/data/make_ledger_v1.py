"""How ``ledger-v1.db`` was made (once, with deal-ledger 0.1.0, record schema v1 for
every type). It is kept as written so that tests/test_upgrade.py reads a ledger made by
an older version; do not regenerate it when the code changes, or it stops testing that.

    .venv/bin/python tests/data/make_ledger_v1.py

The ledger: the demo's two deals (ILLUSTRATIVE events, see publishing/demo.py), then enough
notices for the registration rights deal to pass 100 events, so that it holds a
snapshot of the deal's guard state as that version wrote it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from publishing.demo import RRA, demo_events  # noqa: E402
from ledger.events import parse_event  # noqa: E402
from ledger.store import Ledger  # noqa: E402


def main() -> None:
    path = os.path.join(HERE, "ledger-v1.db")
    for suffix in ("", "-wal", "-shm", ".lock"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    with Ledger(path) as ledger:
        ledger.append(demo_events(), user="fixture")
        rra = sum(1 for r in ledger.records() if r["deal"] == RRA)
        notices = [parse_event({"type": "NoticeSent", "deal": RRA, "date": "2007-01-02",
                                "data": {"to": "Trustee", "subject": f"notice {i}",
                                         "method": "fax"}, "key": f"fixture-{i}"})
                   for i in range(101 - rra)]
        ledger.append(notices, user="fixture")
        head = ledger.head()
        records = list(ledger.records())
    c = sqlite3.connect(path)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.execute("PRAGMA journal_mode=DELETE")
    c.execute("VACUUM")
    c.close()
    for suffix in ("-wal", "-shm", ".lock"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    facts = {"count": len(records), "head_seq": head.seq, "head_hash": head.hash,
             "deals": sorted({r["deal"] for r in records}),
             "versions": sorted({r["v"] for r in records}),
             "shelf_filed_ids": [r["id"] for r in records if r["type"] == "ShelfFiled"]}
    with open(os.path.join(HERE, "ledger-v1.json"), "w") as fh:
        json.dump(facts, fh, indent=2)
        fh.write("\n")
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
