"""An auditor pack held against the ledger it came from (``verify --pack DIR
--against-ledger``).

Offline (``publishing.pack.verify_pack``) a pack proves that its events are unaltered and
that none is missing between its first and its last: each names the hash of its deal's
event before it. It cannot prove that its last event is the deal's last up to the head,
because whoever drops the tail can rebuild the rest of the pack around what is left (a
review of stop 19 did: the stop order and every event after it left out, 10,763.88
reported instead of 16,750.00, and ``verify --pack`` and ``verify --expect HEAD`` both
passed). With the ledger at hand this does: the ledger's chain must verify up to the
pack's head (``ledger.store.chain.verify`` with ``SEQ:HASH``), and the deal's events in the
ledger up to that seq must be exactly the pack's, seq by seq and hash by hash.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable

from .pack import PackVerdict, verify_pack


def verify_against_ledger(path: str, ledger: Any, offline: PackVerdict | None = None,
                          on_progress: Callable[[int], None] | None = None) -> PackVerdict:
    """The pack checked offline (unless ``offline`` gives that verdict), then against
    ``ledger``; the first fault named."""
    from ledger.store.chain import verify as verify_chain

    offline = offline or verify_pack(path)
    if not offline.ok:
        return offline
    with open(os.path.join(path, "chain.json"), "rb") as f:
        head = json.loads(f.read())["head"]
    with open(os.path.join(path, "events.jsonl"), "rb") as f:
        packed = [json.loads(line) for line in f.read().splitlines() if line.strip()]
    seq, hash_ = head["seq"], head["hash"]
    chain = verify_chain(ledger, f"{seq}:{hash_}", on_progress=on_progress)
    if not chain.ok:
        return PackVerdict(False, f"the ledger does not hold the pack's head seq {seq} "
                                  f"{hash_}: {chain.line()}", "chain.json")
    deal = packed[0]["deal"]
    held = [r for r in ledger.deal_records(deal) if r["seq"] <= seq]
    mine = {r["seq"]: r["hash"] for r in packed}
    theirs = {r["seq"]: r for r in held}
    for s in sorted(set(mine) | set(theirs)):
        if s not in mine:
            r = theirs[s]
            return PackVerdict(False, f"the ledger holds the deal's event seq {s} ({r['type']} "
                                      f"dated {r['date']}, recorded {r['recorded_at']}) at or "
                                      f"before the pack's head seq {seq}, and the pack lacks "
                                      "it", "events.jsonl")
        if s not in theirs or theirs[s]["hash"] != mine[s]:
            return PackVerdict(False, f"the pack's event seq {s} is not the ledger's event of "
                                      f"the deal at seq {s}", "events.jsonl")
    return PackVerdict(True, f"{offline.reason}; against the ledger: its chain verifies up "
                             f"to the pack's head seq {seq}, and the deal's {len(held)} "
                             "events up to it are the pack's, seq by seq and hash by hash")
