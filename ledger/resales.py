"""Sales under the Shelf Registration Statement: the ones the write side refuses (RRA §1
Transfer Restricted Securities (A), §4(c), §4(d)).

A ``NotesTransferred`` with ``under_shelf: true`` says the Notes were "effectively
registered under the Securities Act and disposed of in accordance with the Shelf
Registration Statement" (RRA §1 Transfer Restricted Securities (A)): they stop being
Transfer Restricted, and when all are so sold the Effectiveness Period ends
(§2(a)(iii)(y)). The contract says when no such sale can happen; one recorded then would
end a TRS status, and with it Additional Interest and perhaps the Effectiveness Period,
that nothing ended:

* before the shelf is effective, and while it has ceased to be effective or usable
  (``ShelfUnusable`` until its ``ShelfUsable``): there is no effective shelf to dispose of
  Notes in accordance with (RRA §1 Transfer Restricted Securities (A));
* inside a Suspension Period (``SuspensionStarted`` until ``SuspensionEnded``): each
  Holder "will discontinue disposition of Transfer Restricted Securities pursuant to the
  Shelf Registration Statement until" it is advised that use may resume (RRA §4(c));
* by a Holder asked for its Questionnaire that has delivered none, nor been named by an
  ``AmendmentFiled``: it "shall not be permitted to sell any Transfer Restricted
  Securities pursuant to the Shelf Registration Statement" (RRA §4(d)). A Holder never
  asked is not refused: the record does not say it failed to deliver (as SPEC §6
  ``no_questionnaire_request`` reads a Holder never asked). ``"all"`` asks every Holder
  of Transfer Restricted Securities at the end of the request's day (SPEC §3.2).

By days, as everywhere in the ledger: the shelf on a day is as that day's shelf events
leave it (a stop order on the day of a sale bars it, a cure on that day allows it), as a
Suspension Period covers its first day and not the day it ended (SPEC §4.3).

Each refusal of a sale suggests ``under_shelf=false``: a transfer that really happened
outside the shelf leaves the Notes Transfer Restricted, which is the point.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

from .errors import RuleViolation

Entry = list  # [date, seq, id, op, value] (``ledger.guards``)

SHELF_SALE_RULE = "RRA §1 Transfer Restricted Securities (A)"
SUSPENSION_SALE_RULE = "RRA §4(c)"
NAMED_SALE_RULE = "RRA §4(d)"
OUTSIDE = "if the Notes were not sold under the shelf, record the transfer with under_shelf=false"

#: the entries of the ``questionnaires`` timeline (``ledger.guards.effects``)
QUESTIONNAIRE_TYPES = ("QuestionnaireRequested", "QuestionnaireDelivered", "AmendmentFiled")


# ------------------------------------------------------------ Transfer Restricted

def trs_days(positions: Iterable[Entry]) -> Iterator[tuple[str, dict[str, int], int, int]]:
    """``(day, TRS principal per Holder, TRS total, Conversion Shares issued)`` at the end
    of each day with a position event, in date order (cents). Lots are taken as the
    engine takes them, TRS first (``projections.registration.holdings``)."""
    trs: dict[str, int] = {}
    other: dict[str, int] = {}
    total = shares = 0
    entries = sorted(positions, key=lambda e: (e[0], e[1]))
    for i, (day, _seq, _id, op, v) in enumerate(entries):
        holder, cents = v[0], v[1]
        if op == "NotesIssued":
            trs[holder] = trs.get(holder, 0) + cents
            total += cents
        else:
            part = min(cents, trs.get(holder, 0))
            trs[holder] = trs.get(holder, 0) - part
            other[holder] = other.get(holder, 0) - (cents - part)
            if op == "NotesTransferred":
                to, under_shelf = v[2], v[3]
                if under_shelf:
                    other[to] = other.get(to, 0) + cents
                    total -= part
                else:
                    trs[to] = trs.get(to, 0) + part
                    other[to] = other.get(to, 0) + cents - part
            else:
                total -= part
                if op == "NotesConverted":
                    shares += v[2]
        if i + 1 == len(entries) or entries[i + 1][0] != day:
            yield day, trs, total, shares


def trs_holders_on(positions: Sequence[Entry], day: str) -> set[str]:
    """The Holders of Transfer Restricted Notes at the end of ``day``."""
    found: dict[str, int] = {}
    for on, trs, _total, _shares in trs_days(e for e in positions if e[0] <= day):
        found = trs
    return {h for h, cents in found.items() if cents > 0}


# --------------------------------------------------------------------- the shelf

@dataclass
class ShelfDays:
    """The shelf as its live entries make it: the effective day, and the spans
    ``[start, end)`` (``end`` None: still open) it was unusable or suspended, with the
    event that began each."""

    effective: str | None = None
    unusable: list[tuple[str, str | None, str, Any]] = field(default_factory=list)
    suspended: list[tuple[str, str | None, str]] = field(default_factory=list)

    @classmethod
    def of(cls, entries: Iterable[Entry]) -> "ShelfDays":
        out = cls()
        unusable = suspended = None
        for day, _seq, eid, op, value in sorted(entries, key=lambda e: (e[0], e[1])):
            if op == "ShelfEffective" and out.effective is None:
                out.effective = day
            elif op == "ShelfUnusable" and unusable is None:
                unusable = (day, eid, value)
            elif op == "ShelfUsable" and unusable is not None:
                out.unusable.append((unusable[0], day, unusable[1], unusable[2]))
                unusable = None
            elif op == "SuspensionStarted" and suspended is None:
                suspended = (day, eid)
            elif op == "SuspensionEnded" and suspended is not None:
                out.suspended.append((suspended[0], day, suspended[1]))
                suspended = None
        if unusable is not None:
            out.unusable.append((unusable[0], None, unusable[1], unusable[2]))
        if suspended is not None:
            out.suspended.append((suspended[0], None, suspended[1]))
        return out

    def bar(self, day: str) -> tuple[str, str] | None:
        """Why no Note can be sold under the shelf on ``day`` (and the clause), if so."""
        if self.effective is None or day < self.effective:
            when = ("the shelf is not effective" if self.effective is None
                    else f"the shelf became effective only on {self.effective}")
            return (f"{when}: no Note can be disposed of under the Shelf Registration "
                    "Statement before it is effective", SHELF_SALE_RULE)
        for start, end, eid, reason in self.unusable:
            if start <= day and (end is None or day < end):
                until = f"until {end}" if end else "and is not usable again yet"
                return (f"the shelf ceased to be effective or usable on {start} "
                        f"({reason or 'ShelfUnusable'}, event {eid}) {until}: no Note can be "
                        "disposed of in accordance with it", SHELF_SALE_RULE)
        for start, end, eid in self.suspended:
            if start <= day and (end is None or day < end):
                until = f"until {end}" if end else "still open"
                return (f"inside the Suspension Period begun {start} (event {eid}), {until}: "
                        "Holders discontinue dispositions under the shelf until they may "
                        "resume", SUSPENSION_SALE_RULE)
        return None


# -------------------------------------------------------- the Holders named in it

@dataclass
class Named:
    """Who was asked for its Questionnaire and when (``holders`` a list, or ``"all"``),
    and the first day each Holder delivered one or was named by an amendment."""

    requests: list[tuple[str, Any, str]] = field(default_factory=list)
    named_on: dict[str, tuple[str, str]] = field(default_factory=dict)

    @classmethod
    def of(cls, entries: Iterable[Entry]) -> "Named":
        out = cls()
        for day, _seq, eid, op, value in sorted(entries, key=lambda e: (e[0], e[1])):
            if op == "QuestionnaireRequested":
                out.requests.append((day, value, eid))
            else:
                for holder in ([value] if op == "QuestionnaireDelivered" else value):
                    out.named_on.setdefault(holder, (day, op))
        return out

    @property
    def asks_all(self) -> list[str]:
        return [day for day, who, _eid in self.requests if who == "all"]

    def bar(self, holder: str, day: str,
            trs_holders_on: Callable[[str], set[str]]) -> tuple[str, str] | None:
        """RRA §4(d): ``holder`` asked on or before ``day`` and neither delivered nor
        named by then."""
        named = self.named_on.get(holder)
        if named is not None and named[0] <= day:
            return None
        asked = next(((on, eid) for on, who, eid in self.requests if on <= day and (
            holder in who if who != "all" else holder in trs_holders_on(on))), None)
        if asked is None:
            return None
        return (f"{holder} was asked for its Questionnaire on {asked[0]} (event {asked[1]}) "
                f"and had neither delivered it nor been named by an amendment by {day}: "
                "a Holder that does not deliver the Questionnaire shall not be permitted "
                "to sell under the Shelf Registration Statement (record its "
                "QuestionnaireDelivered first if it did)", NAMED_SALE_RULE)


# ------------------------------------------------------------------- the check

def check_sales(sales: Sequence[Entry], shelf: Iterable[Entry], questionnaires: Iterable[Entry],
                positions: Sequence[Entry], new_id: str | None, since: str = "") -> None:
    """Refuse if a sale under the shelf among ``sales`` (``positions`` entries; those
    dated on or after ``since``) is barred by the shelf or its seller (module doc).
    ``new_id``: the event being appended; a sale of another event names it as the one the
    new event would leave breaking a rule."""
    days = None
    named = None
    asked_all: dict[str, set[str]] = {}

    def holders_on(day: str) -> set[str]:
        if day not in asked_all:
            asked_all[day] = trs_holders_on(positions, day)
        return asked_all[day]

    for e in sorted(sales, key=lambda e: (e[0], e[1])):
        if e[3] != "NotesTransferred" or not e[4][3] or e[0] < since:
            continue
        if days is None:
            days, named = ShelfDays.of(shelf), Named.of(questionnaires)
        found = days.bar(e[0]) or named.bar(e[4][0], e[0], holders_on)
        if found is None:
            continue
        why, rule = found
        if e[2] == new_id:
            raise RuleViolation(f"a sale under the shelf on {e[0]}, but {why}; {OUTSIDE}",
                                field="data.under_shelf", rule=rule)
        raise RuleViolation(f"this would leave the sale under the shelf {e[2]} of {e[0]} "
                            f"barred: {why}", field="type", rule=rule)
