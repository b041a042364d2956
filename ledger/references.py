"""How an operator names an event on the command line: ``seq:N`` (its place in the log)
or at least ``MIN_PREFIX`` hexadecimal characters of its id (issue 31).

A one-character prefix resolved to whatever event happened to be the only one starting
with it: ``retract 2`` retracted an unrelated correct payment when the operator meant seq
2. git asks for 4 characters of a commit; ``log`` prints 8 of an id; 6 leaves 16,777,216
ids a prefix can name, so a prefix the operator typed by mistake almost never names an
event, and a seq is always said as ``seq:N``, never as a bare number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import UsageError

MIN_PREFIX = 6
RULE = f"an event is named by seq:N or {MIN_PREFIX}+ characters of its id"
_SEQ = re.compile(r"seq:(\d{1,18})", re.ASCII | re.IGNORECASE)
_ID = re.compile(r"[0-9a-f][0-9a-f-]{0,35}", re.ASCII)


@dataclass(frozen=True)
class Reference:
    """An event named either by its ``seq`` or by the start of its id (lower case)."""

    seq: int | None = None
    prefix: str | None = None

    def __str__(self) -> str:
        return f"seq:{self.seq}" if self.seq is not None else self.prefix or ""

    def names(self, event_id: str, seq: int) -> bool:
        """Whether the event with this id and seq is the one named."""
        if self.seq is not None:
            return seq == self.seq
        return event_id.startswith(self.prefix or "\x00")


def parse_reference(given: str, *, field: str = "EVENT_ID") -> Reference:
    """``seq:N`` or an id prefix of ``MIN_PREFIX`` characters or more; ``UsageError``
    naming ``field`` and the rule for anything else (a bare number is refused with the
    ``seq:`` it may have meant)."""
    text = given.strip()
    found = _SEQ.fullmatch(text)
    if found:
        seq = int(found[1])
        if seq < 1:
            raise UsageError("seq:0 names no event: the log starts at seq 1", field=field,
                             rule=RULE)
        return Reference(seq=seq)
    lowered = text.lower()
    if not _ID.fullmatch(lowered):
        raise UsageError(f"{given!r} is not an event reference (hexadecimal digits of an id "
                         "as `deal-ledger log` shows it, or seq:N)", field=field, rule=RULE)
    digits = len(lowered.replace("-", ""))
    if digits < MIN_PREFIX:
        hint = (f"; for the event at seq {int(lowered)} give seq:{int(lowered)}"
                if lowered.isdigit() else "")
        raise UsageError(f"the id prefix {given!r} is {digits} character(s): give at least "
                         f"{MIN_PREFIX} (`deal-ledger log` shows 8){hint}", field=field,
                         rule=RULE)
    return Reference(prefix=lowered)
