"""The event format's days and moments as text (SPEC §2, §3): an ISO date ``YYYY-MM-DD``,
and ``recorded_at`` / ``known_at`` timestamps in UTC.

No pydantic here: a reader (``report``, ``log``) parses ``--as-of`` and the stored
timestamps without importing the write side's validators (issue 17, cold report).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timezone
from functools import lru_cache
from typing import Any

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)  # used with fullmatch: no "\n"


def _shown(value: Any) -> str:
    """``repr(value)`` for a refusal; a value nested too deeply to print whole (JSON a
    little shallower than the reader's limit) is shown shortened."""
    try:
        return repr(value)
    except RecursionError:
        import reprlib

        return reprlib.repr(value)


def parse_day(value: Any) -> date:
    """An ISO calendar date ``YYYY-MM-DD``; nothing else (no 04/07/2004, no timestamps)."""
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not _ISO_DATE.fullmatch(value):
        raise ValueError(f"not a date in the form YYYY-MM-DD: {_shown(value)}")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"not a real calendar date: {value!r}") from None


def format_timestamp(moment: datetime) -> str:
    """UTC, microseconds, ``Z``: sortable as text."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@lru_cache(maxsize=1024)  # the events of one batch share their recorded_at
def parse_timestamp(text: str) -> datetime:
    """A recorded_at or known_at: ISO 8601, ``Z`` or an offset; naive means UTC."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)
