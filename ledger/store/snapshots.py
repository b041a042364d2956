"""A deal's latest snapshot held against the guard state folded from its events
(``verify``: ``ledger.store.walk``), or to its seal alone (``verify --since``:
``ledger.store.since``). Appends trust a snapshot whose seal recomputes and whose
chain position is the event stored there (``Ledger._sound``); ``verify`` goes further:
the state it holds must be the state the deal's events fold to."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .. import guards
from .rows import blob, state_of

MISMATCH = "mismatch"  # ``snapshot_problem``: sound, but not the state of the events
_sha256 = hashlib.sha256





def snapshot_problem(ledger: Any, view: Any, stream: Any, version: int,
                     state: dict[str, Any] | None) -> str | None:
    """What is wrong with the deal snapshot stored at ``version`` of ``stream``, held
    against ``state`` (the deal's guard state folded from its events up to it; ``None``:
    not known, the seal alone is checked); ``None`` if nothing. ``MISMATCH``: sealed, of
    a layout appends read, and not the folded state (altered and re-sealed); else a
    phrase for "the snapshot of deal D at version V ...". A snapshot with no seal (an
    older layout) or of a layout appends do not read is never used by appends and
    passes.

    The seal is checked on the stored bytes where they hold the guard state in
    canonical form, as this tool writes it (``Ledger._snapshot_stored``): hashed as it
    stands, not encoded again (the guard state of a deal of 1,000 events is 100 kB of
    JSON); else (a snapshot the library's mapper wrote) on the state re-encoded. The
    state appends would read, decoded from those bytes (an older layout upgraded),
    must equal the folded one."""
    rows = view._rows(f"SELECT state FROM {view._snapshots} WHERE originator_id = ? AND "
                      "originator_version = ?", (stream, version))
    if not rows:
        return "is gone (it was removed)"
    raw = blob(rows[0]["state"])
    try:
        # plain JSON read with the C decoder alone: the library's transcoder calls a
        # Python hook on each of the state's objects (a deal of 1,000 events: 20,000)
        doc = (json.loads(raw) if ledger.plain_json
               else state_of(ledger.app.snapshots.mapper, raw))["state"]
    except Exception:
        return "cannot be decoded (it was altered)"
    if not isinstance(doc, dict) or "seal" not in doc:
        return None   # an older layout: appends never use it
    guard = doc.get("guard")
    if not _sealed(raw, doc, version, ledger.plain_json):
        return ("no longer matches its seal (it was altered); appends ignore it and "
                "rebuild from events")
    if not isinstance(guard, dict) or guard.get("format") not in guards.READABLE:
        return None   # a layout appends do not read: they rebuild
    if state is not None and guards.upgrade(guard) != state:
        return MISMATCH
    return None


def _sealed(raw: bytes, doc: dict[str, Any], version: int, plain: bool) -> bool:
    """Whether the snapshot's seal is SHA-256 of its canonical ``{"at", "guard",
    "version"}`` (``stream.seal``)."""
    from .stream import seal

    if plain:
        start, at = raw.find(b'"guard":'), raw.rfind(b',"at":')
        end = raw.rfind(b',"seal":"')
        if 0 <= start < at < end:
            view = memoryview(raw)   # the parts hashed where they lie, not copied
            h = _sha256(b'{"at":')
            for part in (view[at + 6:end], b',"guard":', view[start + 8:at],
                         b',"version":' + str(version).encode() + b"}"):
                h.update(part)
            if h.hexdigest() == doc["seal"]:
                return True
    try:
        return doc["seal"] == seal(doc["guard"], doc["at"], version)
    except Exception:
        return False
