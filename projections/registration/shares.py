"""Conversion Shares and the Applicable Conversion Price (RRA §1 "Conversion Shares",
"Transfer Restricted Securities", "Majority of Holders"; the Edwards Lifesciences form's
"Applicable Conversion Price").

A Holder that converts Notes holds the Conversion Shares issued (``NotesConverted``), and
they are Transfer Restricted Securities until sold in a way the terms say ends the
restriction (``ConversionSharesTransferred`` ``under`` the shelf, or Rule 144 where the
terms name it) or the Rule 144(k) date does. The shares live in lots, as the Notes do
(``holdings``): a lot belongs to one Holder, its restriction ends on one day, and a
transfer splits the part that moves off into a child lot, taking restricted shares first,
the earliest converted first, so that what became of the shares held on a record date can
be read afterwards.

The Applicable Conversion Price "as of any date of determination" is the conversion
price in effect then: the terms' ``conversion_price``, changed by each
``ConversionPriceAdjusted`` from its date. Where the terms pay damages on Conversion
Shares (``damages.conversion_shares = applicable_conversion_price``), a share accrues as
that much principal on each day it is restricted and in default; the Majority of Holders
counts restricted shares at the prevailing price.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from operator import itemgetter
from typing import Sequence

from ledger.stored import Event

#: the event types this module reads
SHARE_EVENTS = ("NotesConverted", "ConversionSharesTransferred")
PRICE_EVENTS = ("ConversionPriceAdjusted",)


@dataclass(eq=False)
class ShareLot:
    holder: str
    shares: int                 # what is left in it now
    converted_on: date          # the Notes it came from were converted on this day
    trs_until: date | None      # sold in a way that ends the restriction on this day
    made_at: int                # share events applied when it was made (1-based)
    history: list[tuple[int, int]] = field(default_factory=list)   # (mark, shares after)
    children: list["ShareLot"] = field(default_factory=list)

    def shares_after(self, mark: int) -> int:
        for at, shares in reversed(self.history):
            if at <= mark:
                return shares
        return self.history[0][1] if self.history else self.shares


@dataclass(frozen=True)
class ConversionPrices:
    """The Applicable Conversion Price by day: ``(from, price, event id)`` in date order
    (the first from the beginning of time, the terms' price)."""

    steps: tuple[tuple[date, Decimal, str | None], ...]

    @classmethod
    def of(cls, initial: Decimal, events: Sequence[Event]) -> "ConversionPrices":
        steps = [(date.min, initial, None)]
        for e in events:
            if e.type == "ConversionPriceAdjusted":
                if steps[-1][0] == e.date:
                    steps[-1] = (e.date, e.data["new_price"], e.id)
                else:
                    steps.append((e.date, e.data["new_price"], e.id))
        return cls(tuple(steps))

    def on(self, day: date) -> Decimal:
        """The price in effect on ``day``."""
        return self.steps[bisect_right(self.steps, day, key=itemgetter(0)) - 1][1]

    def pieces(self, lo: date, hi: date) -> list[tuple[tuple[date, date], Decimal]]:
        """``[lo, hi)`` cut where the price changes, each piece with its price."""
        cuts = [d for d, _, _ in self.steps if lo < d < hi]
        edges = [lo, *cuts, hi]
        return [((a, b), self.on(a)) for a, b in zip(edges, edges[1:])]

    def events_before(self, day: date) -> tuple[str, ...]:
        return tuple(i for d, _, i in self.steps if i is not None and d < day)


class ShareBook:
    """The Conversion Share lots after the share events, in timeline order."""

    def __init__(self, events: Sequence[Event], frees: frozenset[str]) -> None:
        self.lots: list[ShareLot] = []
        self.days: list[date] = []           # the date of each event applied, in order
        self.problems: list[str] = []
        held: dict[str, list[ShareLot]] = {}
        for k, e in enumerate(e for e in events if e.type in SHARE_EVENTS):
            mark = k + 1
            self.days.append(e.date)
            data = e.data
            if e.type == "NotesConverted":
                lot = ShareLot(data["holder"], data["shares"], e.date, None, mark,
                               [(mark, data["shares"])])
                self.lots.append(lot)
                held.setdefault(lot.holder, []).append(lot)
                continue
            left = data["shares"]
            mine = sorted((x for x in held.get(data["from_holder"], ()) if x.shares > 0),
                          key=lambda x: (x.trs_until is not None, x.converted_on))
            for lot in mine:
                if left == 0:
                    break
                part = min(left, lot.shares)
                lot.shares -= part
                lot.history.append((mark, lot.shares))
                left -= part
                until = lot.trs_until or (e.date if data["under"] in frees else None)
                child = ShareLot(data["to_holder"], part, lot.converted_on, until, mark,
                                 [(mark, part)])
                lot.children.append(child)
                self.lots.append(child)
                held.setdefault(child.holder, []).append(child)
            if left:
                self.problems.append(f"ConversionSharesTransferred {e.id}: "
                                     f"{data['from_holder']} holds {data['shares'] - left} of "
                                     f"the {data['shares']} Conversion Shares it moves; the "
                                     f"rest is ignored")

    def mark(self, day: date) -> int:
        """The share events applied by the end of ``day``."""
        return bisect_right(self.days, day)

    def held(self, day: date) -> dict[str, list[tuple[int, ShareLot]]]:
        """Per Holder, the lots it held at the end of ``day`` with their shares then."""
        mark = self.mark(day)
        out: dict[str, list[tuple[int, ShareLot]]] = {}
        for lot in self.lots:
            if lot.made_at <= mark and (n := lot.shares_after(mark)) > 0:
                out.setdefault(lot.holder, []).append((n, lot))
        return out

    def restricted(self, day: date) -> dict[str, int]:
        """Per Holder, the Conversion Shares it held at the end of ``day`` that were
        still Transfer Restricted Securities."""
        out: dict[str, int] = {}
        for holder, lots in self.held(day).items():
            n = sum(k for k, lot in lots if lot.trs_until is None or lot.trs_until > day)
            if n:
                out[holder] = n
        return out

    def fates(self, day: date) -> dict[str, list[tuple[int, ShareLot]]]:
        """Per Holder of record at the end of ``day``: what became of its shares then,
        as ``(shares, lot)``: each lot's final shares and every lot split off it later
        (so a later sale under the shelf ends those shares' accrual on its day)."""
        mark = self.mark(day)
        out: dict[str, list[tuple[int, ShareLot]]] = {}
        for holder, lots in self.held(day).items():
            rows = out.setdefault(holder, [])
            for _, lot in lots:
                stack = [lot]
                while stack:
                    node = stack.pop()
                    if node.shares > 0:
                        rows.append((node.shares, node))
                    stack.extend(c for c in node.children if c.made_at > mark)
        return out


def share_windows(book: ShareBook, prices: ConversionPrices, record_date: date,
                  start: date, last_day: date, free: date
                  ) -> dict[str, dict[tuple[date, date], Decimal]]:
    """Per Holder of record on ``record_date``, the principal its Conversion Shares stand
    for on each window of the period ``[start, last_day)`` on which they were restricted:
    shares x the Applicable Conversion Price of those days (``free``: the Rule 144(k)
    day, if it ends the restriction)."""
    out: dict[str, dict[tuple[date, date], Decimal]] = {}
    for holder, rows in book.fates(record_date).items():
        windows = out.setdefault(holder, {})
        for shares, lot in rows:
            lo = max(start, lot.converted_on)
            hi = min(x for x in (last_day, lot.trs_until or date.max, free))
            if lo >= hi:
                continue
            for days, price in prices.pieces(lo, hi):
                windows[days] = windows.get(days, Decimal(0)) + shares * price
        if not windows:
            del out[holder]
    return out
