"""What the view file holds of each deal's computed rows (``_deal_written``): a digest of
the deal's rows in every per-deal table, and of which of its events are retracted, as
last written. A recomputed deal whose rows come out the same is then not rewritten.

Why (issue 17): after one new event in each of 1,000 deals, the writer deleted and
inserted every touched deal's 180 schedule rows, although most new events (a notice, a
consent) move none of them: a second of the writer's CPU and most of what its commits
wrote to disk, while the workers waited on it.

A digest row is written in the transaction that writes the rows it describes, and is
the only thing that lets a table go unwritten: a deal with no digest row (a new deal, a
rebuilt or migrated file), or one whose row does not decode, has every table written.
The rows themselves are still computed from all the deal's events; only equal rows
are not written again. ``--rebuild`` and a migration empty it with every other table.

A digest is BLAKE2b (16 bytes) of the rows' JSON text (ASCII, no spaces: ``1``, ``"1"``,
``1.0`` and ``null`` all differ), so equal digests mean equal rows, value and type.
The row is ``marshal`` data (no pickle: loading it runs no code): ``(FORMAT, ((name,
digest), ...))``.
"""

from __future__ import annotations

import json
import marshal
from hashlib import blake2b
from typing import Any, Mapping, Sequence

FORMAT = 1
RETRACTED = "retracted"     # the name of the retracted seqs' digest (no table has it)

_ENCODE = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode

Digests = dict[str, bytes]


def digest(rows: Sequence[Any]) -> bytes:
    """The digest of a table's rows (or of a list of seqs), in their order."""
    return blake2b(_ENCODE(rows).encode("ascii"), digest_size=16).digest()


def digests(tables: Mapping[str, Sequence[tuple]], retracted: Sequence[int]) -> Digests:
    """The digest of each table's rows and of the retracted seqs."""
    out = {name: digest(rows) for name, rows in tables.items()}
    out[RETRACTED] = digest(retracted)
    return out


def dump(found: Digests) -> bytes:
    """The ``_deal_written.digests`` value."""
    return marshal.dumps((FORMAT, tuple(sorted(found.items()))))


def load(blob: Any) -> Digests:
    """The digests of a ``_deal_written.digests`` value; none (write everything) if it is
    missing, of another format, or does not decode."""
    if not isinstance(blob, bytes):
        return {}
    try:
        fmt, items = marshal.loads(blob)
        if fmt != FORMAT or type(items) is not tuple:
            return {}
        found = dict(items)
    except (ValueError, TypeError, EOFError):
        return {}
    if not all(type(k) is str and type(v) is bytes and len(v) == 16
               for k, v in found.items()):
        return {}
    return found


def changed(before: Digests, now: Digests) -> set[str]:
    """The names whose rows must be written: those whose digest differs or was not
    there before."""
    return {name for name, value in now.items() if before.get(name) != value}
