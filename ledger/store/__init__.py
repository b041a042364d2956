"""How the record is kept: the storage engine under the record's language (``ledger``).

``eventsourcing``'s application over SQLite or PostgreSQL, opened (``opening``), read
(``reading``, and the streamed log ``logread`` in one consistent view ``stable``) and
written (``writing``, with ``staging`` and ``bulk`` for large batches, ``locks`` for
writers queueing, ``pgbinary`` for PostgreSQL's binary parameters); each record's bytes
and ids (``canonical``, ``jsontext``), the chain head (``chainhead``) and the whole
chain's check (``chain``); the library's classes rows are stored as (``stream``); the
per-deal cache of records (``dealcache``); the order of records read back
(``seqorder``); connection settings (``connection``).

Importing this package imports none of them: ``Ledger`` (and the classes stored rows name
by the topics ``ledger.store:DealStream``..., ``stream``'s docstring) are looked up when
first asked for, so that a light reader (``logread``, the agenda's helpers) does not load
the library.
"""

from __future__ import annotations

from typing import Any

_NAMES = {"Ledger": "writing", "DealStream": "stream", "ChainAdvanced": "stream"}


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'ledger.store' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
