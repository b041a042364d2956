"""Holders and their Notes over time (RRA §1 "Holder", "Transfer Restricted Securities",
"Record Holder"; SPEC §3.2 position events).

Principal lives in *lots*. A lot belongs to one Holder, never grows, and its attributes
never change once made: the day its Notes were issued, the day they were sold under the
Shelf Registration Statement (TRS (A)) and the day they were converted or retired (TRS
(B)). An event that touches part of a lot splits that part off into a child lot with the
new attributes, so that what became of the Notes a Holder held on a record date can be
read afterwards (:func:`fates`): the lot's final principal plus every child split off
after that date.

Which lots an event takes from (a reading of ours, not the contract's): Transfer
Restricted Securities first, then Notes already sold under the shelf; within each, the
earliest issued first.
"""

from __future__ import annotations

from bisect import bisect_left
from heapq import heappop, heappush
from operator import attrgetter
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Iterable, Mapping, Sequence

from ledger.events import Event

POSITION_EVENTS = ("NotesIssued", "NotesTransferred", "NotesConverted", "NotesRetired")


@dataclass(eq=False)
class Lot:
    """Notes of one Holder with one history; ``principal`` is what is left in it now."""

    id: int
    holder: str
    principal: Decimal
    issued_on: date
    trs_until: date | None          # RRA §1 Transfer Restricted Securities (A): sold under the shelf on this day
    ended_on: date | None = None    # RRA §1 Transfer Restricted Securities (B): converted or retired on this day
    ended_how: str | None = None    # "converted" or "retired"
    made_at: int = 0                # events applied when the lot was made (1-based)
    children: list["Lot"] = field(default_factory=list)
    trs_end: date | None = field(init=False)       # first day no longer a TRS
    converted_on: date | None = field(init=False)

    def __post_init__(self) -> None:
        ends = [d for d in (self.trs_until, self.ended_on) if d is not None]
        self.trs_end = min(ends) if ends else None
        self.converted_on = self.ended_on if self.ended_how == "converted" else None


_PRINCIPAL = attrgetter("principal")


@dataclass(frozen=True)
class Snapshot:
    """What each Holder held at the end of day ``on`` (after ``mark`` events): per Holder
    its lots and, in the same order, each lot's principal then (kept as two tuples, copied
    at C speed, and paired only when read: a deal with thousands of transfers has
    thousands of lots at each record date)."""

    on: date
    mark: int
    held: Mapping[str, tuple[tuple[Lot, ...], tuple[Decimal, ...]]]

    @property
    def lots(self) -> dict[str, tuple[tuple[Lot, Decimal], ...]]:
        return {h: tuple(zip(lots, amounts)) for h, (lots, amounts) in self.held.items()}

    def notes(self, holder: str) -> Decimal:
        """Principal of Notes outstanding held (Transfer Restricted or not)."""
        return sum(self.held.get(holder, ((), ()))[1], Decimal(0))

    def trs(self, holder: str) -> Decimal:
        """Principal of Notes held that are still Transfer Restricted Securities."""
        lots, amounts = self.held.get(holder, ((), ()))
        return sum((p for lot, p in zip(lots, amounts) if lot.trs_until is None), Decimal(0))

    def holders_of_trs(self) -> tuple[str, ...]:
        """RRA §1 "Holder": a Person who owns Transfer Restricted Securities."""
        return tuple(sorted(h for h in self.held if self.trs(h) > 0))


@dataclass(frozen=True)
class Conversion:
    holder: str
    principal: Decimal
    shares: int
    on: date
    event: str


@dataclass(frozen=True)
class Holdings:
    snapshots: Mapping[date, Snapshot]
    ended: tuple[Lot, ...]                               # converted or retired lots
    conversions: tuple[Conversion, ...]
    trs_steps: tuple[tuple[date, Decimal, int], ...]     # end of day: TRS principal, shares
    holder_events: Mapping[str, tuple[tuple[date, str], ...]]
    problems: tuple[str, ...]
    holder_index: Mapping[str, tuple[tuple[date, ...], tuple[str, ...]]] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "holder_index", {
            h: (tuple(d for d, _ in v), tuple(i for _, i in v))
            for h, v in self.holder_events.items()})

    def at(self, day: date) -> Snapshot:
        return self.snapshots[day]

    def events_before(self, holder: str, day: date) -> tuple[str, ...]:
        """Ids of the position events of ``holder`` dated before ``day``."""
        days, ids = self.holder_index.get(holder, ((), ()))
        return ids[:bisect_left(days, day)]


def fates(lot: Lot, mark: int) -> list[tuple[Decimal, Lot]]:
    """What became of the Notes in ``lot`` as held after ``mark`` events: the lot's own
    final principal and every lot split off it afterwards, each with its own history."""
    if not lot.children:
        return [(lot.principal, lot)] if lot.principal > 0 else []
    out: list[tuple[Decimal, Lot]] = []
    stack = [(lot, False)]
    while stack:
        node, whole = stack.pop()
        if node.principal > 0:
            out.append((node.principal, node))
        stack.extend((c, True) for c in node.children if whole or c.made_at > mark)
    return out


class _Book:
    """The running state while the events are applied in (date, seq) order."""

    def __init__(self) -> None:
        self.held: dict[str, dict[int, Lot]] = {}
        # per Holder, its lots in the order ``take`` draws on them: a heap keyed by
        # (sold under the shelf?, issued_on, id); emptied lots are dropped when reached
        self.queue: dict[str, list[tuple[bool, date, int, Lot]]] = {}
        self.next_id = 1
        self.trs_total = Decimal(0)
        self.shares_total = 0
        self.ended: list[Lot] = []
        self.conversions: list[Conversion] = []
        self.problems: list[str] = []
        self.holder_events: dict[str, list[tuple[date, str]]] = {}

    def new_lot(self, holder: str, principal: Decimal, issued_on: date, trs_until: date | None,
                made_at: int, ended: tuple[date | None, str | None] = (None, None)) -> Lot:
        lot = Lot(self.next_id, holder, principal, issued_on, trs_until, ended[0], ended[1],
                  made_at=made_at)
        self.next_id += 1
        return lot

    def hold(self, lot: Lot) -> None:
        self.held.setdefault(lot.holder, {})[lot.id] = lot
        heappush(self.queue.setdefault(lot.holder, []),
                 (lot.trs_until is not None, lot.issued_on, lot.id, lot))
        if lot.trs_until is None:
            self.trs_total += lot.principal

    def take(self, holder: str, amount: Decimal, e: Event) -> list[tuple[Lot, Decimal]]:
        """Split ``amount`` off ``holder``'s lots, TRS first, earliest issued first."""
        queue = self.queue.get(holder, [])
        taken, left = [], amount
        while left > 0 and queue:
            lot = queue[0][3]
            if lot.principal == 0:   # emptied earlier
                heappop(queue)
                continue
            part = min(left, lot.principal)
            lot.principal -= part
            left -= part
            if lot.trs_until is None:
                self.trs_total -= part
            if lot.principal == 0:
                del self.held[holder][lot.id]
                heappop(queue)
            taken.append((lot, part))
        if left > 0:
            self.problems.append(f"{e.type} {e.id}: {holder} holds {amount - left} of the "
                                 f"{amount} principal it moves; the rest is ignored")
        return taken

    def note(self, holder: str, e: Event) -> None:
        self.holder_events.setdefault(holder, []).append((e.date, e.id))

    def apply(self, e: Event, made_at: int) -> None:
        """One position event. NotesIssued makes a TRS lot; NotesTransferred moves
        principal, and ``under_shelf`` ends its TRS status on the sale day (RRA §1
        Transfer Restricted Securities (A): "disposed of in accordance with the Shelf Registration Statement");
        NotesConverted and NotesRetired end it (TRS (B): "ceases to be outstanding
        (whether as a result of redemption, repurchase and cancellation, conversion or
        otherwise)")."""
        data = e.data
        if e.type == "NotesIssued":
            self.hold(self.new_lot(data["holder"], data["principal"], e.date, None, made_at))
            self.note(data["holder"], e)
        elif e.type == "NotesTransferred":
            to, shelf = data["to_holder"], bool(data.get("under_shelf", False))
            for lot, part in self.take(data["from_holder"], data["principal"], e):
                until = lot.trs_until if lot.trs_until is not None else (e.date if shelf else None)
                child = self.new_lot(to, part, lot.issued_on, until, made_at)
                lot.children.append(child)
                self.hold(child)
            self.note(data["from_holder"], e)
            self.note(to, e)
        elif e.type in ("NotesConverted", "NotesRetired"):
            how = "converted" if e.type == "NotesConverted" else "retired"
            holder = data["holder"]
            for lot, part in self.take(holder, data["principal"], e):
                child = self.new_lot(holder, part, lot.issued_on, lot.trs_until, made_at,
                                     (e.date, how))
                lot.children.append(child)
                self.ended.append(child)
            if how == "converted":
                self.conversions.append(Conversion(holder, data["principal"], data["shares"],
                                                   e.date, e.id))
                self.shares_total += data["shares"]
            self.note(holder, e)

    def snapshot(self, day: date, mark: int, last: Snapshot | None) -> Snapshot:
        """The Holders now; the previous snapshot's table when nothing moved since."""
        if last is not None and last.mark == mark:
            return Snapshot(day, mark, last.held)
        held = {}
        for h, lots in self.held.items():
            if lots:
                now = tuple(lots.values())
                held[h] = (now, tuple(map(_PRINCIPAL, now)))
        return Snapshot(day, mark, held)


def build_holdings(events: Sequence[Event], snapshot_days: Iterable[date]) -> Holdings:
    """Apply the position events (RRA §1 "Transfer Restricted Securities" (A), (B)) in
    timeline order; snapshot the Holders at the end of each of ``snapshot_days``."""
    book = _Book()
    days = sorted(set(snapshot_days))
    snapshots: dict[date, Snapshot] = {}
    steps: list[tuple[date, Decimal, int]] = []
    i = applied = 0
    last: Snapshot | None = None
    for count, e in enumerate((e for e in events if e.type in POSITION_EVENTS), start=1):
        while i < len(days) and days[i] < e.date:
            last = snapshots[days[i]] = book.snapshot(days[i], count - 1, last)
            i += 1
        book.apply(e, count)
        applied = count
        if steps and steps[-1][0] == e.date:
            steps[-1] = (e.date, book.trs_total, book.shares_total)
        else:
            steps.append((e.date, book.trs_total, book.shares_total))
    for day in days[i:]:
        last = snapshots[day] = book.snapshot(day, applied, last)
    return Holdings(snapshots=snapshots, ended=tuple(book.ended),
                    conversions=tuple(book.conversions), trs_steps=tuple(steps),
                    holder_events={h: tuple(v) for h, v in book.holder_events.items()},
                    problems=tuple(book.problems))
