"""Sales under the Shelf Registration Statement: the ones the write side refuses (RRA §1
Transfer Restricted Securities (A), §4(c), §4(d)).

A ``NotesTransferred`` (or ``ConversionSharesTransferred``) ``under`` the shelf says the
Notes (shares) were "effectively
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

Each refusal of a sale suggests ``under=private``: a transfer that really happened
outside the shelf leaves the Notes Transfer Restricted, which is the point.

The clauses named are the deal's own (``sale_rules``: its terms' citations
``shelf_sale``, ``suspension_notice``, ``named_selling_holder``, issue 33); the
Infocrossing RRA's are those above. Which sales end a security's restriction is the
terms' too (``frees``: ``shelf``, and ``rule_144`` where the agreement says so).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from .errors import RuleViolation

Entry = list  # [date, seq, id, op, value] (``ledger.guards``)

SHELF_SALE_RULE = "RRA §1 Transfer Restricted Securities (A)"
SUSPENSION_SALE_RULE = "RRA §4(c)"
NAMED_SALE_RULE = "RRA §4(d)"
OUTSIDE = "if the Notes were not sold under the shelf, record the transfer with under=private"
#: the sales judged here, when made under the shelf
SALE_TYPES = ("NotesTransferred", "ConversionSharesTransferred")
SHELF = frozenset({"shelf"})


def sale_rules(terms: Mapping[str, Any]) -> dict[str, str]:
    """The clauses a refused sale names, from the deal's terms (as the guard state keeps
    them): ``shelf``, ``suspension``, ``named``; where the terms cite none, the clause
    of the rule it rests on (what ends a restriction, the right to suspend, the
    Questionnaire)."""
    cites = terms.get("citations") or {}

    def cited(name: str, rule: str, default: str) -> str:
        found = (cites.get(name) or {}).get("section")
        return found or (terms.get(rule) or {}).get("section") or default

    return {"shelf": cited("shelf_sale", "transfer_restricted", SHELF_SALE_RULE),
            "suspension": cited("suspension_notice", "suspensions", SUSPENSION_SALE_RULE),
            "named": cited("named_selling_holder", "questionnaire", NAMED_SALE_RULE)}


RULES = {"shelf": SHELF_SALE_RULE, "suspension": SUSPENSION_SALE_RULE,
         "named": NAMED_SALE_RULE}

#: the entries of the ``questionnaires`` timeline (``ledger.guards.effects``)
QUESTIONNAIRE_TYPES = ("QuestionnaireRequested", "QuestionnaireDelivered", "AmendmentFiled")


# ------------------------------------------------------------ Transfer Restricted

class Positions:
    """Who holds what, as position entries (``ledger.guards.effects``) are applied in date
    order: Transfer Restricted Notes per Holder (``trs``, cents), its other Notes
    (``other``), its restricted Conversion Shares (``shares``), and the totals
    restricted (``total`` cents, ``shares_total``). Lots are taken as the engine takes
    them, TRS first (``projections.registration.holdings``); a sale ``under`` a way in
    ``frees`` ends the restriction of what it sells."""

    def __init__(self, frees: frozenset[str] = SHELF):
        self.frees = frees
        self.trs: dict[str, int] = {}
        self.other: dict[str, int] = {}
        self.shares: dict[str, int] = {}
        self.total = self.shares_total = 0

    def apply(self, op: str, v: Any) -> None:
        trs, other, shares = self.trs, self.other, self.shares
        holder, cents = v[0], v[1]
        if op == "ConversionSharesTransferred":   # ``cents``: shares
            shares[holder] = shares.get(holder, 0) - cents
            if v[3] in self.frees:                # sold: restricted no longer
                self.shares_total -= cents
            else:
                shares[v[2]] = shares.get(v[2], 0) + cents
        elif op == "NotesIssued":
            trs[holder] = trs.get(holder, 0) + cents
            self.total += cents
        else:
            part = min(cents, trs.get(holder, 0))
            trs[holder] = trs.get(holder, 0) - part
            other[holder] = other.get(holder, 0) - (cents - part)
            if op == "NotesTransferred":
                to, under = v[2], v[3]
                if under in self.frees:
                    other[to] = other.get(to, 0) + cents
                    self.total -= part
                else:
                    trs[to] = trs.get(to, 0) + part
                    other[to] = other.get(to, 0) + cents - part
            else:
                self.total -= part
                if op == "NotesConverted":
                    shares[holder] = shares.get(holder, 0) + v[2]
                    self.shares_total += v[2]


def trs_days(positions: Iterable[Entry], frees: frozenset[str] = SHELF
             ) -> Iterator[tuple[str, dict[str, int], int, int]]:
    """``(day, TRS principal per Holder, TRS total, restricted Conversion Shares)`` at the
    end of each day with a position event, in date order (cents; ``Positions``)."""
    held = Positions(frees)
    entries = sorted(positions, key=lambda e: (e[0], e[1]))
    for i, (day, _seq, _id, op, v) in enumerate(entries):
        held.apply(op, v)
        if i + 1 == len(entries) or entries[i + 1][0] != day:
            yield day, held.trs, held.total, held.shares_total


def trs_holders_on(positions: Sequence[Entry], day: str,
                   frees: frozenset[str] = SHELF) -> set[str]:
    """The Holders of Transfer Restricted Notes at the end of ``day``."""
    found: dict[str, int] = {}
    for on, trs, _total, _shares in trs_days((e for e in positions if e[0] <= day), frees):
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

    def bar(self, day: str, rules: Mapping[str, str] = RULES) -> tuple[str, str] | None:
        """Why no Note can be sold under the shelf on ``day`` (and the clause), if so."""
        if self.effective is None or day < self.effective:
            when = ("the shelf is not effective" if self.effective is None
                    else f"the shelf became effective only on {self.effective}")
            return (f"{when}: no Note can be disposed of under the Shelf Registration "
                    "Statement before it is effective", rules["shelf"])
        for start, end, eid, reason in self.unusable:
            if start <= day and (end is None or day < end):
                until = f"until {end}" if end else "and is not usable again yet"
                return (f"the shelf ceased to be effective or usable on {start} "
                        f"({reason or 'ShelfUnusable'}, event {eid}) {until}: no Note can be "
                        "disposed of in accordance with it", rules["shelf"])
        for start, end, eid in self.suspended:
            if start <= day and (end is None or day < end):
                until = f"until {end}" if end else "still open"
                return (f"inside the Suspension Period begun {start} (event {eid}), {until}: "
                        "Holders discontinue dispositions under the shelf until they may "
                        "resume", rules["suspension"])
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

    def bar(self, holder: str, day: str, trs_holders_on: Callable[[str], set[str]],
            rules: Mapping[str, str] = RULES) -> tuple[str, str] | None:
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
                "QuestionnaireDelivered first if it did)", rules["named"])


# ------------------------------------------------------------------- the check

def check_sales(sales: Sequence[Entry], shelf: Iterable[Entry], questionnaires: Iterable[Entry],
                positions: Sequence[Entry], new_id: str | None, since: str = "",
                rules: Mapping[str, str] = RULES, frees: frozenset[str] = SHELF) -> None:
    """Refuse if a sale under the shelf among ``sales`` (``positions`` entries; those
    dated on or after ``since``) is barred by the shelf or its seller (module doc).
    ``new_id``: the event being appended; a sale of another event names it as the one the
    new event would leave breaking a rule. ``rules``: the clauses named (``sale_rules``);
    ``frees``: the sales that end a restriction (who holds restricted Notes)."""
    days = None
    named = None
    asked_all: dict[str, set[str]] = {}

    def holders_on(day: str) -> set[str]:
        if day not in asked_all:
            asked_all[day] = trs_holders_on(positions, day, frees)
        return asked_all[day]

    for e in sorted(sales, key=lambda e: (e[0], e[1])):
        if e[3] not in SALE_TYPES or e[4][3] != "shelf" or e[0] < since:
            continue
        if days is None:
            days, named = ShelfDays.of(shelf), Named.of(questionnaires)
        found = days.bar(e[0], rules) or named.bar(e[4][0], e[0], holders_on, rules)
        if found is None:
            continue
        why, rule = found
        if e[2] == new_id:
            raise RuleViolation(f"a sale under the shelf on {e[0]}, but {why}; {OUTSIDE}",
                                field="data.under", rule=rule)
        raise RuleViolation(f"this would leave the sale under the shelf {e[2]} of {e[0]} "
                            f"barred: {why}", field="type", rule=rule)
