"""A deal's derived state in the view file (``_deal_state``): its events as the engine
reads them, kept in parts that a ``views`` run advances with the deal's new events, so
that recomputing a deal after one new event does not read and decode its thousand old
ones from ``events`` again (issue 17: that read was 6 to 7 ms of the 17 ms a 1,000-event
deal cost; the state reads in about 3).

It is a copy, never the record. The rows a part holds are exactly the deal's ``events``
rows (every field the engine reads, ``data`` decoded), in ``seq`` order; the report is
still computed from all of the deal's events, the state only spares decoding them
again. A part is written in the transaction that writes the deal's schedules from the
same events, and is used only if the parts follow each other and the deal has exactly as
many events up to the state's last ``seq`` in ``events`` as the parts hold; anything else
(a part that does not decode, another format) and the deal is read whole from
``events`` and its state written again. ``--rebuild`` and a migration empty it with
every other table.

A part is ``marshal`` data (no pickle: loading it runs no code): ``(FORMAT, rows)``, each
row the record's ``FIELDS``, in that order.
"""

from __future__ import annotations

import json
import marshal
from dataclasses import dataclass, field
from typing import Any, Sequence

from ledger.stored import FIELD_ORDER, Event, events_of_fields

FORMAT = 1
PART = 1024     # events in a part written whole (a rebuild, a deal read again)
SMALL = 64      # a last part with fewer events takes the next ones in (it is rewritten)

# A state row: a record's ``ledger.stored.FIELD_ORDER`` fields, ``data`` as stored.
FIELDS = FIELD_ORDER

# The columns of ``events`` a state row is made from, in this order (``data`` last).
COLUMNS = ("seq", "id", "type", "date", "source", "key", "v", "recorded_at",
           "recorded_by", "prev_hash", "hash", "data")


def rows_of(deal: str, found: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """State rows of ``events`` rows (their ``COLUMNS``): each ``data`` decoded, every one
    in one call of the C decoder, joined as one JSON array. The texts events share (type,
    day, timestamp, who, source) are made one object each, which ``marshal`` then writes
    once (a fifth of a part's bytes, and faster to write and to read)."""
    if not found:
        return []
    datas = json.loads("[" + ",".join([r[11] for r in found]) + "]")
    one = {}.setdefault
    return [[id_, seq, one(type_, type_), deal, one(day, day), data, one(at, at), one(by, by),
             prev, hash_, one(source, source), key, v]
            for (seq, id_, type_, day, source, key, v, at, by, prev, hash_, _text), data
            in zip(found, datas, strict=True)]


@dataclass
class Part:
    number: int
    first_seq: int
    last_seq: int
    rows: list[list[Any]]

    def record(self, deal: str) -> tuple[str, int, int, int, int, bytes]:
        """The part as a ``_deal_state`` row."""
        return (deal, self.number, self.first_seq, self.last_seq, len(self.rows),
                marshal.dumps((FORMAT, self.rows)))


@dataclass
class State:
    """A deal's state as read: its parts' rows, not yet typed."""

    parts: list[Part] = field(default_factory=list)

    @property
    def last_seq(self) -> int:
        return self.parts[-1].last_seq if self.parts else 0

    @property
    def events(self) -> int:
        return sum(len(p.rows) for p in self.parts)


def load(found: Sequence[Sequence[Any]]) -> State | None:
    """The state of a deal's ``_deal_state`` rows ``(part, first_seq, last_seq, events,
    rows)`` in part order, or ``None`` if they are not a whole state of this format."""
    state = State()
    before = 0
    try:
        for number, (part, first, last, count, blob) in enumerate(found):
            fmt, rows = marshal.loads(blob)
            if (fmt != FORMAT or part != number or type(rows) is not list
                    or len(rows) != count or not count or not before < first <= last
                    or rows[0][1] != first or rows[-1][1] != last):
                return None
            state.parts.append(Part(part, first, last, rows))
            before = last
    except (ValueError, TypeError, EOFError, IndexError):
        return None
    return state


def advance(state: State, new: list[list[Any]]) -> tuple[list[Part], list[list[Any]]]:
    """The parts to write for ``new`` rows after ``state``'s (in seq order), and every
    row, old then new. A small last part takes the new rows in; the rest go in new parts
    of ``PART`` rows. Call before the rows are typed (``events``): they are written as
    they are, and typing changes them in place."""
    parts = state.parts
    rows = [r for p in parts for r in p.rows]
    rows.extend(new)
    if not new:
        return [], rows
    writes: list[Part] = []
    pending = list(new)
    number = len(parts)
    if parts and len(parts[-1].rows) < SMALL:
        last = parts[-1]
        room = PART - len(last.rows)
        taken, pending = pending[:room], pending[room:]
        merged = last.rows + taken
        writes.append(Part(last.number, last.first_seq, merged[-1][1], merged))
    for i in range(0, len(pending), PART):
        chunk = pending[i:i + PART]
        writes.append(Part(number, chunk[0][1], chunk[-1][1], chunk))
        number += 1
    return writes, rows


def events(rows: list[list[Any]]) -> list[Event]:
    """The rows as the engine's events (``ledger.stored.events_of_fields``); their
    ``data`` dicts become the events' (typed in place)."""
    return events_of_fields(rows)
