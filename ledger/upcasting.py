"""Schema versions of stored event records, and the upcasters that read old ones.

Every record the store writes carries ``"v"``: the schema version of its type's ``data``
when it was written (1 for every type today). The version sits inside the record, so the
hash chain covers it like any other field: ``verify`` hashes each record exactly as
stored, never an upcast copy.

When a type's ``data`` changes shape (a field is added, renamed or split), its version
goes up by one and an *upcaster* is registered for the step: a pure function from a
record of version ``n`` to the same record in the shape of version ``n + 1``. Reading
(``upcast``) applies the steps in order, so the projections and the write-side guards
only ever see the current shape. A record with no ``"v"`` was written before versions
were recorded and is version 1.
"""

from __future__ import annotations

import copy
from types import MappingProxyType
from typing import Any, Callable, Mapping

from .errors import StoreError

VERSION_FIELD = "v"
FIRST_VERSION = 1

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

_current: dict[str, int] = {}
_steps: dict[tuple[str, int], Upcaster] = {}


def current_version(event_type: str) -> int:
    """The version a record of ``event_type`` is written with now."""
    return _current.get(event_type, FIRST_VERSION)


def record_version(record: Mapping[str, Any]) -> int:
    """The version a stored record was written with (1 if it predates versions)."""
    return record.get(VERSION_FIELD, FIRST_VERSION)


def register(event_type: str, from_version: int, upcaster: Upcaster) -> int:
    """Register the step ``from_version`` -> ``from_version + 1`` of ``event_type``; the
    type's current version becomes ``from_version + 1``. Steps are registered in order:
    a gap or a second registration of the same step is a programming error."""
    if from_version != current_version(event_type):
        raise ValueError(f"{event_type} is at version {current_version(event_type)}; the "
                         f"next upcaster must start there, not at {from_version}")
    _steps[(event_type, from_version)] = upcaster
    _current[event_type] = from_version + 1
    return from_version + 1


def upcast(record: Mapping[str, Any]) -> Mapping[str, Any]:
    """``record`` in the current shape of its type. A current record is returned as is;
    an older one is copied (the stored record is never changed) and upcast step by step.
    A record newer than this program knows is refused: reading it with old code would
    silently drop what it does not understand."""
    event_type = record["type"]
    version = record_version(record)
    target = current_version(event_type)
    if version == target:
        return record
    if (not isinstance(version, int) or isinstance(version, bool)
            or not FIRST_VERSION <= version <= target):
        raise StoreError(f"event {record.get('id')} (seq {record.get('seq')}) is a "
                         f"{event_type} of schema version {version!r}; this deal-ledger "
                         f"reads up to version {target}: upgrade deal-ledger",
                         field=VERSION_FIELD)
    out = copy.deepcopy(dict(record))
    while version < target:
        out = _steps[(event_type, version)](out)
        version += 1
        out[VERSION_FIELD] = version
    return out


def versions_in_force() -> Mapping[str, int]:
    """Each event type's current version where it is past the first (a live, read-only
    view): a reader of many records compares against it instead of calling ``upcast``
    on each current one."""
    return MappingProxyType(_current)
