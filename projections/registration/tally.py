"""The position events tallied (RRA §1 "Holder", "Transfer Restricted Securities"):
per Holder, the principal of Notes it holds that are Transfer Restricted and the rest,
without the lots (``holdings``) that say which Notes. Every reader but Additional
Interest's claims asks how much, not which."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from ledger.stored import Event

ZERO = Decimal(0)


@dataclass(frozen=True)
class Conversion:
    holder: str
    principal: Decimal
    shares: int
    on: date
    event: str


class Tally:
    """Per Holder, the principal it holds that is Transfer Restricted (``trs``) and not
    (``other``), as the position events are applied in timeline order: what ``holdings._Book``
    holds, summed, without the lots. An event takes as the book does (TRS first), so a
    Holder's TRS and other principal are the sums of its TRS and other lots; a problem is
    the book's, word for word. ``uniform`` stays true while every principal has the
    first one's decimal places (``Decimal.same_quantum``): only then are the sums the
    lots' sums digit for digit."""

    def __init__(self, frees: frozenset[str] = frozenset({"shelf"})) -> None:
        self.frees = frees                      # the sales (``under``) that end a TRS
        self.trs: dict[str, Decimal] = {}       # in the order Holders were first given Notes
        self.other: dict[str, Decimal] = {}
        self.trs_total = ZERO
        self.shares_total = 0
        self.conversions: list[Conversion] = []
        self.problems: list[str] = []
        self.last_end: date | None = None
        self.quantum: Decimal | None = None
        self.uniform = True

    def take(self, holder: str, amount: Decimal, e: Event) -> tuple[Decimal, Decimal]:
        """``amount`` off ``holder``: (from its TRS principal, from the rest)."""
        trs = self.trs.get(holder, ZERO)
        if trs >= amount:
            self.trs[holder] = trs - amount
            return amount, ZERO
        left = amount - trs
        other = self.other.get(holder, ZERO)
        part = other if other < left else left
        left -= part
        if holder in self.trs:
            self.trs[holder] = trs - trs
            self.other[holder] = other - part
        if left > 0:
            self.problems.append(f"{e.type} {e.id}: {holder} holds {amount - left} of the "
                                 f"{amount} principal it moves; the rest is ignored")
        return trs, part

    def give(self, holder: str, trs: Decimal, other: Decimal) -> None:
        if holder in self.trs:
            self.trs[holder] += trs
            self.other[holder] += other
        else:
            self.trs[holder] = ZERO + trs
            self.other[holder] = ZERO + other

    def apply(self, e: Event) -> None:
        """One position event, as ``holdings._Book.apply`` applies it."""
        data = e.data
        kind = e.type
        if kind == "ConversionSharesTransferred":   # shares sold: no longer TRS (A)
            if data["under"] in self.frees:
                self.shares_total -= data["shares"]
            return
        amount = data["principal"]
        if self.uniform:
            if self.quantum is None:
                self.quantum = amount
                self.uniform = amount.as_tuple().exponent <= 0
            elif not amount.same_quantum(self.quantum):
                self.uniform = False
        if kind == "NotesTransferred":
            trs_of = self.trs
            seller = data["from_holder"]
            held = trs_of.get(seller)
            if held is not None and held >= amount:   # most often: from TRS principal only
                trs_of[seller] = held - amount
                trs, other = amount, ZERO
            else:
                trs, other = self.take(seller, amount, e)
                if not (trs or other):
                    return
            to = data["to_holder"]
            if data["under"] in self.frees:   # TRS (A): no longer Transfer Restricted
                self.give(to, ZERO, trs + other)
                self.trs_total -= trs
            else:
                got = trs_of.get(to)
                if got is None:
                    trs_of[to] = ZERO + trs
                    self.other[to] = ZERO + other
                else:
                    trs_of[to] = got + trs
                    if other:
                        self.other[to] += other
        elif kind == "NotesIssued":
            self.give(data["holder"], amount, ZERO)
            self.trs_total += amount
        elif kind in ("NotesConverted", "NotesRetired"):
            holder = data["holder"]
            trs, _ = self.take(holder, amount, e)
            self.trs_total -= trs
            self.last_end = e.date
            if kind == "NotesConverted":
                self.conversions.append(Conversion(holder, amount, data["shares"], e.date,
                                                   e.id))
                self.shares_total += data["shares"]
