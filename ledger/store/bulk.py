"""A large JSON Lines batch parsed and checked in one pass, deal by deal, on two processes
(issue 17: ``deal-ledger append FILE`` of 100,000 lines).

``read_batch`` then ``Ledger.append`` shares the work out twice: a forked child parses
lines from the back of the file while this process parses from the front, sends its
events back, and then a second child checks deals while this process checks others
(``ledger.store.staging``). Each hand-over costs: the child's events pickled and made again
here, the records of its lines built here again, a second fork. ``Ledger.append_lines``
does it once: each line's deal is read from its text without parsing it
(``jsonl.deal_guesses``), the deals are shared out as ``staging`` shares them, and the
process that checks a deal parses its lines first (``Lines.parse``). The child sends only
its lines' texts, as it does now; its lines are parsed here only if their records are
asked for (``Records``), which ``deal-ledger append`` never does.

Nothing in this path decides what is written or refused. It only ever *accepts*: on any
line it is not sure of (a line that does not parse, a deal read wrongly from the text, a
line that breaks a rule, a line whose judgement needs the lines after it in the batch
(``guards.Batch``), a child that fails) it gives up (``Unsure``) and the batch goes the
plain way, ``append(read_batch(raw))``, which names the first bad line exactly as
always. What it writes is byte for byte what the plain way writes for the same ids and
clock (tests/test_bulk.py).
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

from ..errors import LedgerError, InvalidEvent

AT = 20_000   # lines from which a batch is worth the one pass (as ``jsonl.PARALLEL_AT``)


class Unsure(LedgerError):
    """The one pass cannot take this batch; the plain way will (and name any error)."""


def unsure() -> Any:
    """For ``guards.Batch``: a line would be refused on its own, and its judgement needs
    the lines after it in the batch, which the one pass does not hold."""
    raise Unsure("a line needs the lines after it")


class Lines:
    """The batch's raw lines and each one's deal as read from its text."""

    def __init__(self, lines: list[bytes], deals: list[str]):
        self.lines = lines
        self.deals = deals

    def parser(self, new_events: list[Any]) -> Callable[[list[int], str], None]:
        """``parse(ks, deal)``: lines ``ks`` (from 0) parsed into ``new_events``; ``Unsure``
        (a ``LedgerError``: a refusal to ``staging``) if one does not parse or is not of
        ``deal``."""
        from ..jsonl import parse_line

        lines = self.lines

        def parse(ks: list[int], deal: str) -> None:
            for k in ks:
                try:
                    new = parse_line(lines[k], k + 1)
                except InvalidEvent:
                    raise Unsure("a line does not parse") from None
                if new.deal != deal:
                    raise Unsure("a line's deal was read wrongly from its text")
                new_events[k] = new

        return parse


class Records(Sequence):
    """The records of an appended batch, those of the lines the child checked made when
    first asked for: the line parsed again (as the child parsed it), its record built
    as ``staging.Job.record`` builds it, and the links ``staging.link`` found for it."""

    def __init__(self, records: list[Any], unmade: dict[int, tuple[str, str, str]],
                 lines: list[bytes], record_of: Callable[[int], dict[str, Any]],
                 new_events: list[Any]):
        self._records = records
        self._unmade = unmade
        self._lines = lines
        self._record_of = record_of
        self._new_events = new_events

    def __len__(self) -> int:
        return len(self._records)

    def _made(self, k: int) -> dict[str, Any]:
        record = self._records[k]
        if record is None:
            from ..jsonl import parse_line

            self._new_events[k] = parse_line(self._lines[k], k + 1)
            record = self._record_of(k)
            record["prev_hash"], record["deal_prev"], record["hash"] = self._unmade.pop(k)
            self._records[k] = record
        return record

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self._made(k) for k in range(len(self))[index])
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("record index out of range")
        return self._made(index)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for k in range(len(self)):
            yield self._made(k)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Records, tuple)):
            return tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Records({len(self)} records)"


def take(lines: list[bytes]) -> Lines | None:
    """The batch for the one pass, or ``None`` if it is too small or a line's deal cannot
    be read from its text."""
    from ..jsonl import deal_guesses

    if len(lines) < AT:
        return None
    deals = deal_guesses(lines)
    if deals is None or len(set(deals)) < 2:
        return None
    return Lines(lines, deals)


def records_of(records: list[Any], unmade: dict[int, tuple[str, str, str]],
               lines: Lines | None, record_of: Callable[[int], dict[str, Any]],
               new_events: list[Any]) -> Sequence[dict[str, Any]]:
    """The batch's records as ``Appended`` holds them: a tuple when every one is made.
    ``new_events``: the list ``record_of`` reads each line's ``NewEvent`` from."""
    if not unmade or lines is None:
        return tuple(records)
    return Records(records, unmade, lines.lines, record_of, new_events)
