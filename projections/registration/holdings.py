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
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Iterable, Mapping, Sequence

from ledger.stored import Event

POSITION_EVENTS = ("NotesIssued", "NotesTransferred", "NotesConverted", "NotesRetired")


class Lot:
    """Notes of one Holder with one history; ``principal`` is what is left in it now.

    ``trs_end`` is the first day the Notes are no longer Transfer Restricted Securities
    (RRA §1): the earlier of ``trs_until`` (clause (A), sold under the shelf) and
    ``ended_on`` (clause (B), converted or retired); ``converted_on`` is ``ended_on`` for
    a conversion.
    Identity is the lot itself (two lots with equal attributes are still two lots). A
    plain class with slots: a deal with thousands of transfers makes thousands of lots,
    each in one event's inner loop."""

    __slots__ = ("id", "holder", "principal", "issued_on", "trs_until", "ended_on",
                 "ended_how", "made_at", "children", "trs_end", "converted_on", "history",
                 "gone_at")

    def __init__(self, id: int, holder: str, principal: Decimal, issued_on: date,
                 trs_until: date | None, ended_on: date | None = None,
                 ended_how: str | None = None, made_at: int = 0,
                 children: list["Lot"] | None = None) -> None:
        self.id = id
        self.holder = holder
        self.principal = principal
        self.issued_on = issued_on
        self.trs_until = trs_until      # TRS clause (A): sold under the shelf on this day
        self.ended_on = ended_on        # TRS clause (B): converted or retired on this day
        self.ended_how = ended_how      # "converted" or "retired"
        self.made_at = made_at          # events applied when the lot was made (1-based)
        self.children: list[Lot] = [] if children is None else children
        self.trs_end: date | None = (
            ended_on if trs_until is None else
            trs_until if ended_on is None or trs_until <= ended_on else ended_on)
        self.converted_on: date | None = ended_on if ended_how == "converted" else None
        # ``(events applied, principal then)`` from the lot's making, once its principal
        # first changes (None: never changed); the event that emptied it out of its
        # Holder's lots (None: still held). A snapshot reads the lot as it was from these.
        self.history: list[tuple[int, Decimal]] | None = None
        self.gone_at: int | None = None

    def principal_after(self, mark: int) -> Decimal:
        """The lot's principal after ``mark`` events (made at or before them)."""
        history = self.history
        if history is None:
            return self.principal
        for at, principal in reversed(history):
            if at <= mark:
                return principal
        return history[0][1]

    def reduce(self, part: Decimal, mark: int) -> None:
        """Take ``part`` off the principal, in event ``mark``, remembering the change."""
        if self.history is None:
            self.history = [(self.made_at, self.principal)]
        self.principal -= part
        self.history.append((mark, self.principal))

    def __repr__(self) -> str:
        return (f"Lot(id={self.id!r}, holder={self.holder!r}, principal={self.principal!r}, "
                f"issued_on={self.issued_on!r}, trs_until={self.trs_until!r}, "
                f"ended_on={self.ended_on!r}, ended_how={self.ended_how!r}, "
                f"made_at={self.made_at!r}, children={len(self.children)})")


class Snapshot:
    """What each Holder held at the end of day ``on`` (after ``mark`` events): per Holder
    its lots and, in the same order, each lot's principal then (kept as two tuples, and
    paired only when read: a deal with thousands of transfers has thousands of lots at
    each record date).

    The table is read back from the lots when first asked for (``_Book.table``): a
    report reads the Holders of a few of its forty record dates (the periods that
    accrue, ``as_of``), and copying every Holder that moved at each of them was a third
    of the holdings' cost."""

    __slots__ = ("on", "mark", "_book", "_held")

    def __init__(self, on: date, mark: int,
                 held: "Mapping[str, tuple[tuple[Lot, ...], tuple[Decimal, ...]]] | _Book"
                 ) -> None:
        self.on = on
        self.mark = mark
        if isinstance(held, _Book):
            self._book, self._held = held, None
        else:
            self._book, self._held = None, held

    @property
    def held(self) -> Mapping[str, tuple[tuple[Lot, ...], tuple[Decimal, ...]]]:
        found = self._held
        if found is None:
            found = self._held = self._book.table(self.mark)
            self._book = None
        return found

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Snapshot):
            return NotImplemented
        return (self.on, self.mark, self.held) == (other.on, other.mark, other.held)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Snapshot(on={self.on!r}, mark={self.mark!r}, held={self.held!r})"

    @property
    def lots(self) -> dict[str, tuple[tuple[Lot, Decimal], ...]]:
        return {h: tuple(zip(lots, amounts)) for h, (lots, amounts) in self.held.items()}

    def notes(self, holder: str) -> Decimal:
        """Principal of Notes outstanding held (Transfer Restricted or not)."""
        return sum(self.held.get(holder, ((), ()))[1], Decimal(0))

    def trs(self, holder: str) -> Decimal:
        """Principal of Notes held that are still Transfer Restricted Securities."""
        lots, amounts = self.held.get(holder, ((), ()))
        return sum([p for lot, p in zip(lots, amounts) if lot.trs_until is None], Decimal(0))

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
    # at the end of each day with a position event, in date order: TRS principal, shares
    trs_steps: tuple[tuple[date, Decimal, int], ...]
    # per Holder, its position events in timeline order: (their dates, their ids)
    holder_index: Mapping[str, tuple[tuple[date, ...], tuple[str, ...]]]
    problems: tuple[str, ...]

    @property
    def holder_events(self) -> dict[str, tuple[tuple[date, str], ...]]:
        """Per Holder, ``(date, id)`` of its position events in timeline order."""
        return {h: tuple(zip(days, ids)) for h, (days, ids) in self.holder_index.items()}

    def at(self, day: date) -> Snapshot:
        return self.snapshots[day]

    def events_before(self, holder: str, day: date) -> tuple[str, ...]:
        """Ids of the position events of ``holder`` dated before ``day``."""
        days, ids = self.holder_index.get(holder, ((), ()))
        return ids[:bisect_left(days, day)]


def fates(lot: Lot, mark: int) -> list[tuple[Decimal, Lot]]:
    """What became of the Notes in ``lot`` as held after ``mark`` events: the lot's own
    final principal and every lot split off it afterwards, each with its own history
    (all of a split-off lot's descendants, depth first, the latest split first)."""
    if not lot.children:
        return [(lot.principal, lot)] if lot.principal > 0 else []
    out: list[tuple[Decimal, Lot]] = [(lot.principal, lot)] if lot.principal > 0 else []
    stack = [c for c in lot.children if c.made_at > mark]
    pop, push, add = stack.pop, stack.extend, out.append
    while stack:
        node = pop()
        if node.principal > 0:
            add((node.principal, node))
        if node.children:
            push(node.children)
    return out


class _Book:
    """The running state while the events are applied in (date, seq) order."""

    def __init__(self) -> None:
        self.held: dict[str, dict[int, Lot]] = {}
        # per Holder, every lot it was ever given, in the order it was given them (the
        # order of ``held``): a snapshot's table is read back from these (``table``)
        self.ever: dict[str, list[Lot]] = {}
        self.tables: dict[int, dict[str, tuple[tuple[Lot, ...], tuple[Decimal, ...]]]] = {}
        # per Holder, its lots in the order ``take`` draws on them: a heap keyed by
        # (sold under the shelf?, issued_on, id); emptied lots are dropped when reached
        self.queue: dict[str, list[tuple[bool, date, int, Lot]]] = {}
        self.next_id = 1
        self.trs_total = Decimal(0)
        self.shares_total = 0
        self.ended: list[Lot] = []
        self.conversions: list[Conversion] = []
        self.problems: list[str] = []
        self.index: dict[str, tuple[list[date], list[str]]] = {}   # Holder -> dates, ids
        self.applied = 0                  # events applied, once all are (build_holdings)

    def new_lot(self, holder: str, principal: Decimal, issued_on: date, trs_until: date | None,
                made_at: int, ended: tuple[date | None, str | None] = (None, None)) -> Lot:
        lot = Lot(self.next_id, holder, principal, issued_on, trs_until, ended[0], ended[1],
                  made_at)
        self.next_id += 1
        return lot

    def hold(self, lot: Lot) -> None:
        holder = lot.holder
        lots = self.held.get(holder)
        if lots is None:
            lots = self.held[holder] = {}
            self.queue[holder] = []
            self.ever[holder] = []
        lots[lot.id] = lot
        self.ever[holder].append(lot)
        heappush(self.queue[holder], (lot.trs_until is not None, lot.issued_on, lot.id, lot))
        if lot.trs_until is None:
            self.trs_total += lot.principal

    def take(self, holder: str, amount: Decimal, e: Event,
             mark: int) -> list[tuple[Lot, Decimal]]:
        """Split ``amount`` off ``holder``'s lots, TRS first, earliest issued first, in
        event ``mark``."""
        queue = self.queue.get(holder, [])
        if queue:   # most often the first lot covers the amount and keeps some
            lot = queue[0][3]
            if lot.principal > amount > 0:
                lot.reduce(amount, mark)
                if lot.trs_until is None:
                    self.trs_total -= amount
                return [(lot, amount)]
        taken, left = [], amount
        while left > 0 and queue:
            lot = queue[0][3]
            if lot.principal == 0:   # emptied earlier
                heappop(queue)
                continue
            part = min(left, lot.principal)
            lot.reduce(part, mark)
            left -= part
            if lot.trs_until is None:
                self.trs_total -= part
            if lot.principal == 0:
                del self.held[holder][lot.id]
                lot.gone_at = mark
                heappop(queue)
            taken.append((lot, part))
        if left > 0:
            self.problems.append(f"{e.type} {e.id}: {holder} holds {amount - left} of the "
                                 f"{amount} principal it moves; the rest is ignored")
        return taken

    def note(self, holder: str, e: Event) -> None:
        found = self.index.get(holder)
        if found is None:
            found = self.index[holder] = ([], [])
        found[0].append(e.date)
        found[1].append(e.id)

    def apply(self, e: Event, made_at: int) -> None:
        """One position event. NotesIssued makes a TRS lot; NotesTransferred moves
        principal, and ``under_shelf`` ends its TRS status on the sale day (RRA §1
        Transfer Restricted Securities (A): "disposed of in accordance with the Shelf Registration Statement");
        NotesConverted and NotesRetired end it (TRS (B): "ceases to be outstanding
        (whether as a result of redemption, repurchase and cancellation, conversion or
        otherwise)")."""
        data = e.data
        kind = e.type
        if kind == "NotesTransferred":   # the most frequent event: take, hold, note inline
            to, seller, amount = data["to_holder"], data["from_holder"], data["principal"]
            shelf = bool(data.get("under_shelf", False))
            queue = self.queue.get(seller)
            head = queue[0][3] if queue else None
            if head is not None and head.principal > amount > 0:
                # most often the seller's first lot covers the amount and keeps some
                # (``take``'s first case, and ``Lot.reduce``, written out)
                history = head.history
                if history is None:
                    history = head.history = [(head.made_at, head.principal)]
                head.principal -= amount
                history.append((made_at, head.principal))
                taken: list[tuple[Lot, Decimal]] = [(head, amount)]
                if head.trs_until is None:
                    self.trs_total -= amount
            else:
                taken = self.take(seller, amount, e, made_at)
            if taken:
                lots = self.held.get(to)
                if lots is None:
                    lots = self.held[to] = {}
                    self.queue[to] = []
                    self.ever[to] = []
                into = self.queue[to]
                given = self.ever[to]
                day = e.date
                for lot, part in taken:
                    until = lot.trs_until
                    if until is None and shelf:
                        until = day
                    number = self.next_id
                    self.next_id = number + 1
                    child = Lot(number, to, part, lot.issued_on, until, None, None, made_at)
                    lot.children.append(child)
                    lots[number] = child
                    given.append(child)
                    if until is None:
                        heappush(into, (False, child.issued_on, number, child))
                        self.trs_total += part
                    else:
                        heappush(into, (True, child.issued_on, number, child))
            index, day, ident = self.index, e.date, e.id
            found = index.get(seller)
            if found is None:
                found = index[seller] = ([], [])
            found[0].append(day)
            found[1].append(ident)
            found = index.get(to)
            if found is None:
                found = index[to] = ([], [])
            found[0].append(day)
            found[1].append(ident)
        elif kind == "NotesIssued":
            self.hold(self.new_lot(data["holder"], data["principal"], e.date, None, made_at))
            self.note(data["holder"], e)
        elif kind in ("NotesConverted", "NotesRetired"):
            how = "converted" if kind == "NotesConverted" else "retired"
            holder = data["holder"]
            for lot, part in self.take(holder, data["principal"], e, made_at):
                child = self.new_lot(holder, part, lot.issued_on, lot.trs_until, made_at,
                                     (e.date, how))
                lot.children.append(child)
                self.ended.append(child)
            if how == "converted":
                self.conversions.append(Conversion(holder, data["principal"], data["shares"],
                                                   e.date, e.id))
                self.shares_total += data["shares"]
            self.note(holder, e)

    def table(self, mark: int) -> dict[str, tuple[tuple[Lot, ...], tuple[Decimal, ...]]]:
        """The Holders as they were after ``mark`` events, read back from the lots (the
        book has applied every event by now): each Holder's lots made by then and not
        yet emptied, in the order it was given them, with their principal then; a
        Holder holding nothing is left out. Remembered per ``mark``."""
        found = self.tables.get(mark)
        if found is not None:
            return found
        held = {}
        if mark == self.applied:   # after every event (as_of, mostly): the lots as they are
            for holder, now in self.held.items():
                if now:
                    lots = tuple(now.values())
                    held[holder] = (lots, tuple([lot.principal for lot in lots]))
            self.tables[mark] = held
            return held
        for holder, given in self.ever.items():
            lots = []
            for lot in given:            # in the order made: stop at the first later one
                if lot.made_at > mark:
                    break
                gone = lot.gone_at
                if gone is None or gone > mark:
                    lots.append(lot)
            if lots:
                held[holder] = (tuple(lots), tuple([
                    lot.principal if lot.history is None else lot.principal_after(mark)
                    for lot in lots]))
        self.tables[mark] = held
        return held


def build_holdings(events: Sequence[Event], snapshot_days: Iterable[date]) -> Holdings:
    """Apply the position events (RRA §1 "Transfer Restricted Securities" (A), (B)) in
    timeline order; snapshot the Holders at the end of each of ``snapshot_days``."""
    book = _Book()
    days = sorted(set(snapshot_days))
    n_days = len(days)
    snapshots: dict[date, Snapshot] = {}
    steps: list[tuple[date, Decimal, int]] = []   # per event date, the totals at its end
    i = count = 0
    day: date | None = None
    apply = book.apply
    for e in events:
        if e.type not in POSITION_EVENTS:
            continue
        if e.date != day:   # a new day: close the previous one, snapshot the days before
            if day is not None:
                steps.append((day, book.trs_total, book.shares_total))
            day = e.date
            while i < n_days and days[i] < day:
                snapshots[days[i]] = Snapshot(days[i], count, book)   # read when asked
                i += 1
        count += 1
        apply(e, count)
    if day is not None:
        steps.append((day, book.trs_total, book.shares_total))
    book.applied = count
    for d in days[i:]:
        snapshots[d] = Snapshot(d, count, book)
    return Holdings(snapshots=snapshots, ended=tuple(book.ended),
                    conversions=tuple(book.conversions), trs_steps=tuple(steps),
                    holder_index={h: (tuple(ds), tuple(ids))
                                  for h, (ds, ids) in book.index.items()},
                    problems=tuple(book.problems))
