"""The chain head's identity and shape, shared by the store (``ledger.store``) and its
writers' lock (``ledger.store.locks``), which reads the head while it holds the lock. Kept
apart so that neither of those two imports the other."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

NAMESPACE = uuid.UUID("6b0f3c52-3a57-4c1e-9d55-1f0b2d6c8e11")
CHAIN_ID = uuid.uuid5(NAMESPACE, "chain-head")  # the stream of ``ChainAdvanced`` events
GENESIS = "0" * 64  # the ``prev`` of the first record: no record before it


@dataclass(frozen=True)
class Head:
    """The last record of the chain: its ``seq`` and hash, when it was recorded, and the
    chain stream's version that stored it (0, GENESIS, None, 0 for an empty ledger)."""
    seq: int
    hash: str
    recorded_at: str | None
    version: int
