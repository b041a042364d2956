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

Only Additional Interest asks which Notes (its claims on a record date, ``fates``):
every other reader asks how much a Holder holds, Transfer Restricted or not. So the
position events are first *tallied* (``tally.Tally``: per Holder, TRS principal and other
principal, taken TRS first as the lots are), and the lots (``_Book``) are made only as
far as a claim needs them, on first ask (``Holdings.settle``). The tally answers only
when every principal of the deal is written to the same decimal places, so that its sums
are the lots' sums digit for digit (``Decimal("5.00")`` is not ``Decimal("5")`` in an
explanation's arithmetic); otherwise the lots are made at once and answer everything.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from heapq import heappop, heappush
from operator import attrgetter
from datetime import date
from decimal import Decimal
from typing import Iterable, Mapping, Sequence

from ledger.stored import Event

from .tally import ZERO as _ZERO, Conversion, Tally

POSITION_EVENTS = ("NotesIssued", "NotesTransferred", "NotesConverted", "NotesRetired",
                   "ConversionSharesTransferred")
#: the position events naming two Holders (a seller and a buyer)
TWO_HOLDERS = ("NotesTransferred", "ConversionSharesTransferred")


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
    """What each Holder held at the end of day ``on`` (after ``mark`` events).

    ``held``: per Holder its lots and, in the same order, each lot's principal then
    (kept as two tuples, and paired only when read), read back from the lots when first
    asked for (``_Book.table``; a report reads the lots of a few of its forty record
    dates, the periods that accrue). ``notes``, ``trs``, ``holders`` and
    ``holders_of_trs`` are answered from the tally's sums at that day when there are
    any (``tally.Tally``), else from ``held``."""

    __slots__ = ("on", "mark", "_book", "_held", "_sums")

    def __init__(self, on: date, mark: int,
                 held: "Mapping[str, tuple[tuple[Lot, ...], tuple[Decimal, ...]]] | _Lots",
                 sums: "tuple[dict[str, Decimal], dict[str, Decimal]] | None" = None) -> None:
        self.on = on
        self.mark = mark
        if isinstance(held, _Lots):
            self._book, self._held = held, None
        else:
            self._book, self._held = None, held
        self._sums = sums

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
        if self._sums is not None:
            trs, other = self._sums
            total = trs.get(holder, _ZERO) + other.get(holder, _ZERO)
            return total if total else _ZERO   # no lot: Decimal(0), as the lots' sum
        return sum(self.held.get(holder, ((), ()))[1], Decimal(0))

    def trs(self, holder: str) -> Decimal:
        """Principal of Notes held that are still Transfer Restricted Securities."""
        if self._sums is not None:
            return self._sums[0].get(holder, _ZERO) or _ZERO
        lots, amounts = self.held.get(holder, ((), ()))
        return sum([p for lot, p in zip(lots, amounts) if lot.trs_until is None], Decimal(0))

    def holders(self) -> tuple[str, ...]:
        """The Holders holding any Note, in the order they were first given one (the
        order of ``held``)."""
        if self._sums is not None:
            trs, other = self._sums
            return tuple([h for h, t in trs.items() if t or other[h]])
        return tuple(self.held)

    def holders_of_trs(self) -> tuple[str, ...]:
        """RRA §1 "Holder": a Person who owns Transfer Restricted Securities."""
        if self._sums is not None:
            return tuple(sorted(h for h, t in self._sums[0].items() if t > 0))
        return tuple(sorted(h for h in self.held if self.trs(h) > 0))


class Holdings:
    """The Holders over time: snapshots at the days asked for, conversions, the TRS
    totals by day, problems; each Holder's position events, and the lots (``ended``, a
    snapshot's ``held``), worked out on first ask, as far as asked (``settle``,
    ``events_before``)."""

    __slots__ = ("snapshots", "conversions", "trs_steps", "problems", "_lots", "_index",
                 "_indexed", "_before")

    def __init__(self, snapshots: Mapping[date, Snapshot], conversions: tuple[Conversion, ...],
                 trs_steps: tuple[tuple[date, Decimal, int], ...], problems: tuple[str, ...],
                 lots: "_Lots") -> None:
        self.snapshots = snapshots
        self.conversions = conversions
        # at the end of each day on which they changed (and of the first day with a
        # position event), in date order: TRS principal, Conversion Shares issued
        self.trs_steps = trs_steps
        self.problems = problems
        self._lots = lots
        # per Holder, its position events in timeline order (their dates, their ids), of
        # the first ``_indexed`` position events
        self._index: dict[str, tuple[list[date], list[str]]] = {}
        self._indexed = 0
        self._before: dict[date, dict[str, tuple[list[date], list[str]]]] = {}

    @property
    def position_events(self) -> list[Event]:
        """The position events, in timeline order."""
        return self._lots.events

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Holdings):
            return NotImplemented
        return ((self.snapshots, self.ended, self.conversions, self.trs_steps,
                 self.holder_index, self.problems)
                == (other.snapshots, other.ended, other.conversions, other.trs_steps,
                    other.holder_index, other.problems))

    __hash__ = None  # type: ignore[assignment]

    @property
    def ended(self) -> tuple[Lot, ...]:
        """Every converted or retired lot (all the lots made)."""
        return self.settle(date.max)

    def settle(self, day: date) -> tuple[Lot, ...]:
        """Make the lots through the end of ``day`` and of the last conversion or
        retirement, at least; the converted or retired lots made by then (all of them).

        Enough for the claims of an interest period whose payable day is ``day``
        (``interest._claimed``): a lot split off later by a transfer has its parent's
        issue day, its shelf-sale day (if any) is after the period, and it is neither
        converted nor retired, so it accrues and is owed exactly as its parent's Notes
        do; the lots of the record date hold, then, what their later fates hold."""
        return self._lots.settle(day)

    def _index_through(self, count: int) -> dict[str, tuple[list[date], list[str]]]:
        """The index of each Holder's position events, over the first ``count``."""
        index = self._index
        done = self._indexed
        if count > done:
            for e in self._lots.events[done:count]:
                data = e.data
                day, ident = e.date, e.id
                if e.type in TWO_HOLDERS:
                    holders: tuple[str, ...] = (data["from_holder"], data["to_holder"])
                else:
                    holders = (data["holder"],)
                for holder in holders:
                    found = index.get(holder)
                    if found is None:
                        found = index[holder] = ([], [])
                    found[0].append(day)
                    found[1].append(ident)
            self._indexed = count
        return index

    @property
    def holder_index(self) -> dict[str, tuple[tuple[date, ...], tuple[str, ...]]]:
        """Per Holder, its position events in timeline order: (their dates, their ids)."""
        index = self._index_through(len(self._lots.events))
        return {h: (tuple(days), tuple(ids)) for h, (days, ids) in index.items()}

    @property
    def holder_events(self) -> dict[str, tuple[tuple[date, str], ...]]:
        """Per Holder, ``(date, id)`` of its position events in timeline order."""
        return {h: tuple(zip(days, ids)) for h, (days, ids) in self.holder_index.items()}

    def at(self, day: date) -> Snapshot:
        return self.snapshots[day]

    def events_before(self, holder: str, day: date) -> tuple[str, ...]:
        """Ids of the position events of ``holder`` dated before ``day``."""
        index = self._before.get(day)
        if index is None:   # once per day asked (a thousand Holders ask the same days)
            index = self._before[day] = self._index_through(
                bisect_left(self._lots.events, day, key=_DATE))
        days, ids = index.get(holder, ((), ()))
        return tuple(ids[:bisect_left(days, day)])


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

    def __init__(self, frees: frozenset[str] = frozenset({"shelf"})) -> None:
        self.frees = frees                # the sales (``under``) that end a TRS
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
        principal, and a sale ``under`` the shelf (or another the terms name, ``frees``)
        ends its TRS status on the sale day (RRA §1
        Transfer Restricted Securities (A): "disposed of in accordance with the Shelf Registration Statement");
        NotesConverted and NotesRetired end it (TRS (B): "ceases to be outstanding
        (whether as a result of redemption, repurchase and cancellation, conversion or
        otherwise)")."""
        data = e.data
        kind = e.type
        if kind == "NotesTransferred":   # the most frequent event: take, hold, note inline
            to, seller, amount = data["to_holder"], data["from_holder"], data["principal"]
            shelf = data["under"] in self.frees
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
        elif kind == "ConversionSharesTransferred":   # no Note moves: noted for both
            if data["under"] in self.frees:
                self.shares_total -= data["shares"]
            self.note(data["from_holder"], e)
            self.note(data["to_holder"], e)

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


class _Lots:
    """The lots of a deal's position events, made on first ask and only as far as asked:
    ``book`` has applied the first ``book.applied`` of ``events``."""

    __slots__ = ("events", "last_end", "book")

    def __init__(self, events: list[Event], last_end: date | None,
                 frees: frozenset[str] = frozenset({"shelf"})) -> None:
        self.events = events              # the position events, in timeline order
        self.last_end = last_end          # the day of the last conversion or retirement
        self.book = _Book(frees)

    def through(self, count: int) -> _Book:
        """The book after the first ``count`` events."""
        book = self.book
        done = book.applied
        if count > done:
            apply, events = book.apply, self.events
            for k in range(done, count):
                apply(events[k], k + 1)
            book.applied = count
        return book

    def table(self, mark: int) -> dict[str, tuple[tuple[Lot, ...], tuple[Decimal, ...]]]:
        return self.through(mark).table(mark)

    def settle(self, day: date) -> tuple[Lot, ...]:
        """``Holdings.settle``."""
        if self.last_end is not None and self.last_end > day:
            day = self.last_end
        return tuple(self.through(bisect_right(self.events, day, key=_DATE)).ended)


_DATE = attrgetter("date")


def build_holdings(events: Sequence[Event], snapshot_days: Iterable[date], *,
                   tally: bool = True, frees: frozenset[str] = frozenset({"shelf"})
                   ) -> Holdings:
    """Apply the position events (RRA §1 "Transfer Restricted Securities" (A), (B)) in
    timeline order; snapshot the Holders at the end of each of ``snapshot_days``. The
    position events are tallied (``tally.Tally``); their lots and each Holder's index of
    events are made when first asked for, as far as asked. ``tally=False`` (or a deal
    whose principals are not all written alike) makes every lot and the whole index at
    once and answers every snapshot from the lots, the plain way. ``frees``: the sales
    (``under``) that end a Note's restriction (the terms' ``transfer_restricted``)."""
    count = Tally(frees)
    days = sorted(set(snapshot_days))
    n_days = len(days)
    marks: list[tuple[date, int, tuple[dict[str, Decimal], dict[str, Decimal]]]] = []
    steps: list[tuple[date, Decimal, int]] = []   # the totals at the end of a day, if changed
    positions = [e for e in events if e.type in POSITION_EVENTS]
    i = n = 0
    day: date | None = None
    apply, trs_of = count.apply, count.trs
    for e in positions:
        if e.date != day:   # a new day: close the previous one, snapshot the days before
            if day is not None and (not steps or steps[-1][1] != count.trs_total
                                    or steps[-1][2] != count.shares_total):
                steps.append((day, count.trs_total, count.shares_total))
            day = e.date
            if i < n_days and days[i] < day:
                sums = (dict(count.trs), dict(count.other))
                while i < n_days and days[i] < day:
                    marks.append((days[i], n, sums))
                    i += 1
        n += 1
        if e.type == "NotesTransferred" and count.uniform:
            # most often: TRS Notes sold, not under the shelf, by a Holder with enough of
            # them to one that holds Notes already (``Tally.apply``'s first case, written
            # out; a seller that holds anything was given it, so the quantum is known)
            data = e.data
            amount = data["principal"]
            held = trs_of.get(data["from_holder"])
            if (held is not None and held >= amount and amount.same_quantum(count.quantum)
                    and data["under"] not in frees):
                got = trs_of.get(data["to_holder"])
                if got is not None and data["to_holder"] != data["from_holder"]:
                    trs_of[data["from_holder"]] = held - amount
                    trs_of[data["to_holder"]] = got + amount
                    continue
        apply(e)
    if day is not None and (not steps or steps[-1][1] != count.trs_total
                            or steps[-1][2] != count.shares_total):
        steps.append((day, count.trs_total, count.shares_total))
    if i < n_days:
        sums = (dict(count.trs), dict(count.other))
        marks.extend((d, n, sums) for d in days[i:])
    lots = _Lots(positions, count.last_end, frees)
    if tally and count.uniform:
        snapshots = {d: Snapshot(d, mark, lots, sums) for d, mark, sums in marks}
        problems = tuple(count.problems)
    else:
        book = lots.through(n)
        snapshots = {d: Snapshot(d, mark, lots) for d, mark, _ in marks}
        problems = tuple(book.problems)
    holdings = Holdings(snapshots=snapshots, conversions=tuple(count.conversions),
                        trs_steps=tuple(steps), problems=problems, lots=lots)
    if not tally:
        holdings._index_through(n)   # the plain way: every Holder's events at once
    return holdings
