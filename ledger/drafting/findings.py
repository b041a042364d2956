"""What reading an agreement's text finds: each term's value with the sentence and section
it was read from (``Found``), a term the text speaks of but does not settle (``Unread``:
cut off, deferred to another document, or read two ways), and a sentence a named reading
of the ledger reads two ways (``Ambiguous``).

The values are the agreement's own words made data (``Days``, ``Deadline``, ``RateStep``,
...), not the terms schema: ``ledger.drafting.schema`` maps them onto it, so that a change
of the schema touches that one module.

``Phrases`` holds the grammar the readers share: days ("within ninety (90) calendar days",
"the 20th Business Day"), the clause around a match, and the bookkeeping of findings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from . import numbers as n
from .layout import Agreement


@dataclass(frozen=True)
class Days:
    """``count`` days, ``unit`` "calendar" or "business"."""

    count: int
    unit: str


@dataclass(frozen=True)
class Deadline:
    """``days`` after ``anchor`` ("date hereof", "Closing Date", "Issue Date"); ``rolls``:
    a due day that is not a Business Day moves to the next one."""

    days: Days
    anchor: str
    rolls: bool = False


@dataclass(frozen=True)
class PeriodEnd:
    """An end of the Effectiveness Period: ``kind`` "anniversary" (``years`` after ``of``),
    "rule 144(k)", "all sold", "none outstanding"."""

    kind: str
    years: int | None = None
    of: str | None = None
    section: str = ""
    quote: str = ""


@dataclass(frozen=True)
class DefaultKind:
    """A kind of Registration Default: ``kind`` "filing", "effectiveness", "unusable",
    "suspension"; its ``label``; for "unusable", the ``cure`` period and the causes
    ``excused`` ("suspension", "selling holder information")."""

    kind: str
    label: str
    cure: Days | None = None
    excused: tuple[str, ...] = ()


@dataclass(frozen=True)
class RateStep:
    """One step of the damages ladder: from day ``after_days`` of a default, or from the
    ``anniversary`` of ``of``; again every ``every_days`` or every year (``every_year``);
    the rate ``set`` to or raised by (``add``) a per cent per annum."""

    after_days: int | None = None
    anniversary: int | None = None
    of: str = "Closing Date"
    every_days: int | None = None
    every_year: bool = False
    set: Decimal | None = None
    add: Decimal | None = None
    section: str = ""
    quote: str = ""

    def same_rule(self, other: "RateStep") -> bool:
        keys = ("after_days", "anniversary", "of", "every_days", "every_year", "set", "add")
        return all(getattr(self, k) == getattr(other, k) for k in keys)


@dataclass(frozen=True)
class Window:
    """At most ``days`` suspended days in any ``in_days`` days or ``in_months`` months;
    ``material_days`` with the material-transaction extension; ``default``: the
    Registration Default its excess is (its label, section, quote)."""

    days: int
    in_days: int | None = None
    in_months: int | None = None
    material_days: int | None = None
    default: tuple[str, str, str] | None = None
    section: str = ""
    quote: str = ""


@dataclass(frozen=True)
class SingleLimit:
    days: int
    material_days: int | None = None


@dataclass(frozen=True)
class PeriodCount:
    periods: int
    in_days: int | None = None
    in_months: int | None = None


@dataclass(frozen=True)
class NoticeMethod:
    """A way of giving notice (``method``) and when it is deemed given (``deemed``,
    ``count``)."""

    method: str
    deemed: str
    count: int | None = None


@dataclass(frozen=True)
class Majority:
    more_than: Decimal
    conversion_shares: bool | None
    affiliates: tuple[str, str] | None = None       # (section, quote)


@dataclass(frozen=True)
class Found:
    """A term read from the text: its value, section and quotation; ``note`` says how it
    was read when the words alone do not say it ("'days': calendar days")."""

    term: str
    value: Any
    section: str
    quote: str
    note: str | None = None


@dataclass(frozen=True)
class Unread:
    """A term the text speaks of without settling it: ``why``; ``readings`` the values
    the sentence can be read as, when it can be read more than one way."""

    term: str
    why: str
    section: str | None = None
    quote: str | None = None
    readings: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Ambiguous:
    """A sentence the ledger's named reading ``name`` (``readings.NAME`` of the terms)
    reads more than one way."""

    name: str
    section: str
    quote: str
    why: str


@dataclass
class Findings:
    """Everything read from one agreement, in the order read."""

    found: list[Found] = field(default_factory=list)
    unread: list[Unread] = field(default_factory=list)
    ambiguous: list[Ambiguous] = field(default_factory=list)

    def get(self, term: str) -> Found | None:
        return next((f for f in self.found if f.term == term), None)

    def value(self, term: str, default: Any = None) -> Any:
        f = self.get(term)
        return f.value if f is not None else default

    def unread_of(self, term: str) -> Unread | None:
        return next((u for u in self.unread if u.term == term), None)

    def extend(self, other: "Findings") -> None:
        self.found += other.found
        self.unread += other.unread
        self.ambiguous += other.ambiguous


# ------------------------------------------------------------------------ phrases

UNIT = r"(?P<unit>calendar\s+days?|business\s+days?|trading\s+days?|days?)"
UNIT_ONE = r"(?P<ounit>calendar\s+day|business\s+day|trading\s+day|day|date)"
#: an amount of days: "90 days", "ninety (90) calendar days", "ten Business Days"
DAYS = rf"(?P<n>{n.NUMBER})\s+{UNIT}\b"
#: the n-th day: "the 270th day", "the twentieth (20th) Business Day"
NTH_DAY = rf"the\s+(?P<o>{n.ORDINAL_NUMBER})\s+{UNIT_ONE}\b"


def unit_of(text: str) -> str:
    """"calendar" or "business" for a unit as written ("days" are calendar days)."""
    t = text.lower()
    if t.startswith("business"):
        return "business"
    if t.startswith("trading"):
        return "trading"
    return "calendar"


class Phrases:
    """A reader's view of an agreement: matching, quoting, and what it found."""

    def __init__(self, agreement: Agreement):
        self.a = agreement
        self.text = agreement.text
        self.out = Findings()

    # -- matching ----------------------------------------------------------------

    def finditer(self, pattern: str, *, within: tuple[int, int] | None = None,
                 parts: tuple[str, ...] = ("body", "preamble"), flags: int = re.I):
        lo, hi = within or (0, len(self.text))
        for m in re.finditer(pattern, self.text[lo:hi], flags):
            node = self.a.node_at(lo + m.start())
            if parts and node.part not in parts and not (
                    node.part.startswith("Exhibit") and "exhibit" in parts):
                continue
            yield _Shifted(m, lo)

    def days(self, m: Any) -> Days | n.Conflict:
        """``Days`` of a match of ``DAYS`` or ``NTH_DAY``."""
        if "n" in m.re.groupindex and m.group("n"):
            count, unit = n.number(m.group("n")), m.group("unit")
        else:
            count, unit = n.ordinal(m.group("o")), m.group("ounit")
        if isinstance(count, n.Conflict):
            return count
        return Days(count, unit_of(unit))

    def clause(self, start: int, end: int | None = None) -> tuple[str, str]:
        """``(section, quote)`` of the clause around ``start``..``end``."""
        s, e = self.a.clause(start, end)
        return self.a.section(start), self.a.quote(s, e)

    def sentence(self, pos: int) -> tuple[int, int]:
        return self.a.sentence(pos)

    # -- recording ---------------------------------------------------------------

    def found(self, term: str, value: Any, section: str, quote: str,
              note: str | None = None) -> None:
        self.out.found.append(Found(term, value, section, quote, note))

    def unread(self, term: str, why: str, section: str | None = None,
               quote: str | None = None, readings: tuple[Any, ...] = ()) -> None:
        self.out.unread.append(Unread(term, why, section, quote, readings))

    def ambiguous(self, name: str, section: str, quote: str, why: str) -> None:
        if not any(a.name == name for a in self.out.ambiguous):
            self.out.ambiguous.append(Ambiguous(name, section, quote, why))

    def settle(self, term: str, candidates: list[Found]) -> None:
        """One term read in several places: one value, cited at every place it is stated
        (sections joined), or, when the places disagree, two readings left to a person."""
        if not candidates:
            return
        values = []
        for c in candidates:
            if not any(_same(c.value, v) for v in values):
                values.append(c.value)
        if len(values) > 1:
            self.unread(term, "the text states it more than once, differently: "
                        + "; ".join(f"{c.section}: \"{c.quote}\"" for c in candidates),
                        candidates[0].section, candidates[0].quote, tuple(values))
            return
        sections = list(dict.fromkeys(c.section for c in candidates))
        notes = list(dict.fromkeys(c.note for c in candidates if c.note))
        self.found(term, candidates[0].value, join_sections(sections), candidates[0].quote,
                   "; ".join(notes) or None)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, RateStep) and isinstance(b, RateStep):
        return a.same_rule(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def join_sections(sections: list[str]) -> str:
    """Sections cited together, the agreement's name once and siblings joined:
    "RRA §2(b)" and "RRA §4(d)" are "RRA §2(b), §4(d)"; "Registration Defaults (a)" and
    "Registration Defaults (b)" are "Registration Defaults (a),(b)"."""
    sections = list(dict.fromkeys(s for s in sections if s))
    if len(sections) <= 1:
        return sections[0] if sections else ""
    first = sections[0]
    stem = first[:first.rfind("(")] if first.endswith(")") else None
    if stem and all(s.startswith(stem + "(") and s.count("(") == first.count("(")
                    for s in sections[1:]):
        return first + "".join("," + s[len(stem):] for s in sections[1:])
    prefix = first.split("§", 1)[0] if "§" in first else ""
    return ", ".join([first] + [s[len(prefix):] if prefix and s.startswith(prefix + "§")
                                else s for s in sections[1:]])


class _Shifted:
    """A match whose positions are those of the whole text."""

    def __init__(self, m: re.Match, offset: int):
        self.m, self.offset, self.re = m, offset, m.re

    def group(self, *names: Any) -> Any:
        return self.m.group(*names)

    def start(self, name: Any = 0) -> int:
        return self.m.start(name) + self.offset

    def end(self, name: Any = 0) -> int:
        return self.m.end(name) + self.offset

    def groupdict(self) -> dict[str, Any]:
        return self.m.groupdict()


def first_date(text: str) -> date | None:
    m = re.search(n.DATE, text, re.I)
    return n.calendar_date(m.group(0)) if m else None
