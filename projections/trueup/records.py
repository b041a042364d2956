"""The replay's frozen records made and copied without the dataclass constructor.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, and
``dataclasses.replace`` reads every field by introspection before calling it: the true-up
replay reprices every position on every vesting day, and building these records was a
fifth of a Letter deal's agenda line (issue 17). ``built`` and ``copied`` fill the
instance's ``__dict__`` directly; the records are the same (equal, same fields, same
hash). Only for the plain frozen dataclasses of this package: no ``__slots__``, no
``__post_init__``, no cached property kept in the instance (``Tranche`` has some: it
is never copied so). ``tests/test_trueup_records.py`` checks each against the
constructor and ``replace``.
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")
_new = object.__new__


def built(cls: type[T], fields: dict[str, Any]) -> T:
    """``cls(**fields)``, every field given (none left to its default)."""
    record = _new(cls)
    record.__dict__.update(fields)
    return record


def copied(record: T, **changes: Any) -> T:
    """``dataclasses.replace(record, **changes)``."""
    new = _new(type(record))
    fields = new.__dict__
    fields.update(record.__dict__)
    fields.update(changes)
    return new
