"""The events and the Notes for the RRA reference model: which events count (SPEC §1,
§3.1), and who holds which Notes, Transfer Restricted or not (RRA §1), in lots."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Iterable, Mapping

from .rra_time import day_of, money

# ----------------------------------------------------------------------- the events

def live_events(events: Iterable[Mapping[str, Any]], deal: str,
                known_at: datetime | None) -> list[Mapping[str, Any]]:
    """The deal's events known at ``known_at`` and not retracted by a retraction itself
    live (SPEC §3.1 EventRetracted; a retraction withdrawn by a live EventReinstated is
    not live: issue 31), in (date, seq) order (SPEC §1)."""
    def stamp(e):
        t = e["recorded_at"]
        return t if isinstance(t, datetime) else datetime.fromisoformat(
            t.replace("Z", "+00:00"))
    mine = [e for e in events if e["deal"] == deal
            and (known_at is None or stamp(e) <= known_at)]
    retractions: dict[str, list[str]] = {}
    for e in mine:
        if e["type"] == "EventRetracted":
            retractions.setdefault(e["data"]["event_id"], []).append(e["id"])
        elif e["type"] == "EventReinstated":   # it takes the retraction out
            retractions.setdefault(e["data"]["retraction_id"], []).append(e["id"])
    memo: dict[str, bool] = {}

    def alive(event_id: str) -> bool:
        if event_id not in memo:
            memo[event_id] = not any(alive(r) for r in retractions.get(event_id, ()))
        return memo[event_id]
    out = [e for e in mine if e["type"] not in ("EventRetracted", "EventReinstated")
           and alive(e["id"])]
    return sorted(out, key=lambda e: (day_of(e["date"]), e["seq"]))


# ----------------------------------------------------------------------- Notes

@dataclass(eq=False)
class Lot:
    """Notes of one Holder with one history (never grows; a part that moves is a child)."""

    number: int
    holder: str
    principal: Decimal
    issued_on: date
    sold_on: date | None          # TRS (A): disposed of under the shelf on this day
    parent: "Lot | None"
    made_at: int                  # the position event (1-based) that made it
    ended_on: date | None = None  # TRS (B): converted or retired
    how: str | None = None

    @property
    def trs_end(self) -> date | None:
        ends = [d for d in (self.sold_on, self.ended_on) if d is not None]
        return min(ends) if ends else None

    def trs_on(self, d: date) -> bool:
        """A Transfer Restricted Security on day ``d`` (RRA §1)."""
        return self.issued_on <= d and (self.trs_end is None or d < self.trs_end)


@dataclass
class Book:
    """Every position event applied in order; lots and per-day totals kept."""

    lots: list[Lot] = field(default_factory=list)
    applied: list[date] = field(default_factory=list)   # date of each position event

    def held(self, holder: str) -> list[Lot]:
        return [x for x in self.lots if x.holder == holder and x.ended_on is None
                and x.principal > 0]

    def take(self, holder: str, amount: Decimal) -> list[tuple[Lot, Decimal]]:
        order = sorted(self.held(holder),
                       key=lambda x: (x.sold_on is not None, x.issued_on, x.number))
        out = []
        for lot in order:
            if amount <= 0:
                break
            part = min(amount, lot.principal)
            lot.principal -= part
            amount -= part
            out.append((lot, part))
        return out

    def new(self, **kw) -> Lot:
        lot = Lot(number=len(self.lots) + 1, made_at=len(self.applied), **kw)
        self.lots.append(lot)
        return lot

    def apply(self, e: Mapping[str, Any]) -> None:
        t, data, d = e["type"], e["data"], day_of(e["date"])
        self.applied.append(d)
        if t == "NotesIssued":
            self.new(holder=data["holder"], principal=money(data["principal"]), issued_on=d,
                     sold_on=None, parent=None)
        elif t == "NotesTransferred":
            shelf = bool(data.get("under_shelf", False))
            for lot, part in self.take(data["from_holder"], money(data["principal"])):
                self.new(holder=data["to_holder"], principal=part, issued_on=lot.issued_on,
                         sold_on=lot.sold_on if lot.sold_on else (d if shelf else None),
                         parent=lot)
        else:   # NotesConverted, NotesRetired
            how = "converted" if t == "NotesConverted" else "retired"
            for lot, part in self.take(data["holder"], money(data["principal"])):
                self.new(holder=data["holder"], principal=part, issued_on=lot.issued_on,
                         sold_on=lot.sold_on, parent=lot, ended_on=d, how=how)


POSITIONS = ("NotesIssued", "NotesTransferred", "NotesConverted", "NotesRetired")


def book_at(events: list[Mapping[str, Any]], end_of: date) -> Book:
    """The Notes at the end of day ``end_of``."""
    book = Book()
    for e in events:
        if e["type"] in POSITIONS and day_of(e["date"]) <= end_of:
            book.apply(e)
    return book


def trs_held(book: Book, holder: str) -> Decimal:
    return sum((x.principal for x in book.held(holder) if x.sold_on is None), Decimal(0))


def holders_of_trs(book: Book) -> set[str]:
    return {x.holder for x in book.lots if x.ended_on is None and x.principal > 0
            and x.sold_on is None}
