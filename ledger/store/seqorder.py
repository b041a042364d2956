"""Records back in ``seq`` order as they are read from the log.

The log holds events in seq order; ledgers written before appends kept to that may hold
one deal's lines of an interleaved batch before another's. ``SeqOrder`` puts them back,
holding only the records that arrive early (at most one batch of them). A record with no
usable seq, or one behind the expected seq (altered or repeated), goes out as it stands:
``verify`` names it. Used by ``Ledger.records`` and by the streamed ``log``
(``ledger.store.logread``)."""

from __future__ import annotations

import heapq
from typing import Any


class SeqOrder:
    __slots__ = ("expected", "_early")

    def __init__(self, expected: int | None = None):
        self.expected = expected          # None: the first record read sets it
        self._early: list[tuple[int, int, Any]] = []

    def put(self, seq: Any, position: int, record: Any) -> list[Any]:
        """The records that can go out now that ``record`` (at log ``position``) is read."""
        if not isinstance(seq, int) or (self.expected is not None and seq < self.expected):
            return [record]
        if self.expected is None:
            self.expected = seq
        if seq == self.expected and not self._early:
            self.expected += 1
            return [record]
        heapq.heappush(self._early, (seq, position, record))
        out = []
        while self._early and self._early[0][0] == self.expected:
            self.expected += 1
            out.append(heapq.heappop(self._early)[2])
        return out

    def drain(self) -> list[Any]:
        """Everything still held, in seq order (a batch is closed, or the log ended)."""
        out = []
        while self._early:
            seq, _, record = heapq.heappop(self._early)
            if self.expected is not None:
                self.expected = max(self.expected, seq + 1)
            out.append(record)
        return out
