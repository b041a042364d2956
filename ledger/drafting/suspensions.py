"""Reading the Company's right to suspend the shelf (a Suspension, Deferral or Blackout
Period) and its limits.

* the right: the sentence that gives it ("the Company may suspend the effectiveness of the
  Shelf Registration Statement ... for a period not to exceed an aggregate of 45 days in
  any 90-day period (each such period, a "SUSPENSION PERIOD"), and not to exceed an
  aggregate of 90 days in any 360-day period");
* its windows: "N days in any M-day period", "in any twelve-month period", "in any period
  of 12 months" (a "calendar year" is not a rolling window: left to a person); the
  material-transaction extension ("extend a Suspension Period from 45 days to 60 days
  during any 90-day period"); a window whose excess is a Registration Default of its own
  (``defaults`` reads "(B) Suspension Periods exceed an aggregate of 90 days in any 360
  day period");
* one period's limit ("no single deferral over 60 consecutive days", or the default
  "prior to or on the 45th or 60th day ... of any Suspension Period"), and the number of
  periods ("no more than two Deferral Periods in any 12-month period").

Limits the sentence giving the right does not state are none (read from that sentence);
a window repeated elsewhere ("as described herein") with other numbers is two readings.
"""

from __future__ import annotations

import re

from . import numbers as n
from .findings import PeriodCount, Phrases, SingleLimit, Window

_PERIODS = r"(?:Suspension|Deferral|Blackout)\s+Periods?"
_WINDOW_LIMIT = (rf"(?:an\s+aggregate\s+of\s+)?(?P<d>{n.NUMBER})\s+(?:calendar\s+)?days\s+"
                 rf"(?:in\s+(?:the\s+)?aggregate\s+)?(?:in|during)\s+any\s+{n.WINDOW}")


def read(p: Phrases) -> None:
    right = _right(p)
    windows = _windows(p, right)
    _single(p, right)
    _count(p, right)
    if right is None:
        if windows:
            p.found("suspension windows", windows, windows[0].section, windows[0].quote)
        return
    p.found("suspension windows", windows, right[0], right[1])


def _right(p: Phrases) -> tuple[str, str, int, int] | None:
    """``(section, quote, start, end)`` of the sentence giving the right to suspend."""
    for term in ("Suspension Period", "Deferral Period", "Blackout Period"):
        d = p.a.definition(term)
        if d is None or "§1" in d.where:
            continue
        s0, s1 = p.sentence(d.start)
        return p.a.section(d.start), _quote(p, s0, s1), s0, s1
    for m in p.finditer(r"(?:may|shall\s+be\s+entitled\s+to)\s+(?:suspend|defer|postpone|delay)"
                        r"[^.]{0,300}?not\s+to\s+exceed"):
        s0, s1 = p.sentence(m.start())
        return p.a.section(m.start()), _quote(p, s0, s1), s0, s1
    return None


def _quote(p: Phrases, s0: int, s1: int) -> str:
    """The sentence, to the conditions it lists ("..., if:")."""
    words = p.text[s0:s1]
    cut = re.search(r",?\s+if:", words)
    return p.a.quote(s0, s0 + cut.start() if cut else s1)


def _extension(p: Phrases, m) -> bool:
    """The window in "extend a Suspension Period from 45 days to 60 days during any 90-day
    period" is the extension of another, not a window of its own."""
    return bool(re.search(r"from\s+\S+(?:\s+\(\d+\))?\s+days\s+to\s+$",
                          p.text[max(0, m.start() - 40):m.start()], re.I))


def _window(p: Phrases, m) -> Window | None:
    if _extension(p, m):
        return None
    days = n.number(m.group("d"))
    unit, size = n.window(m)
    section, quote = p.clause(m.start(), m.end())
    if isinstance(days, n.Conflict) or isinstance(size, n.Conflict):
        bad = days if isinstance(days, n.Conflict) else size
        p.unread("suspension windows", f"words and figures differ: '{bad.text}'", section,
                 quote, (bad.words, bad.figures))
        return None
    if unit == "calendar_year":
        p.unread("suspension windows", "a limit per calendar year: the terms count rolling "
                 "windows of days or months", section, quote)
        return None
    kind = {"days": "in_days", "months": "in_months"}[unit]
    return Window(days, **{kind: size}, section=section, quote=quote)


def _windows(p: Phrases, right: tuple | None) -> list[Window]:
    found: list[Window] = []
    if right is not None:
        for m in p.finditer(_WINDOW_LIMIT, within=right[2:]):
            w = _window(p, m)
            if w is not None and not any(_key(w) == _key(x) for x in found):
                found.append(w)
    else:
        for m in p.finditer(_WINDOW_LIMIT):
            s0, s1 = p.sentence(m.start())
            if not re.search(r"suspen|defer|blackout", p.text[s0:s1], re.I):
                continue
            w = _window(p, m)
            if w is not None and not any(_key(w) == _key(x) for x in found):
                found.append(w)
    for m in p.finditer(rf"extend\s+(?:a|any|such)\s+{_PERIODS}\s+from\s+(?P<a>{n.NUMBER})\s+"
                        rf"days\s+to\s+(?P<b>{n.NUMBER})\s+days\s+(?:during|in)\s+any\s+"
                        rf"{n.WINDOW}"):
        unit, size = n.window(m)
        base, extended = n.number(m.group("a")), n.number(m.group("b"))
        section, quote = p.clause(m.start(), m.end())
        at = _matching(found, base, unit, size)
        if at is None:
            _unmatched(p, found, Window(base, **_in(unit, size), material_days=extended,
                                        section=section, quote=quote), right)
            continue
        w = found[at]
        found[at] = Window(w.days, w.in_days, w.in_months, extended, w.default, w.section,
                           quote)
    for f in [f for f in p.out.found if f.term == "window default"]:
        days, unit, size, label = f.value
        at = _matching(found, days, unit, size)
        if at is None:
            _unmatched(p, found, Window(days, **_in(unit, size), section=f.section,
                                        quote=f.quote), right)
            continue
        w = found[at]
        found[at] = Window(w.days, w.in_days, w.in_months, w.material_days,
                           (label, f.section, f.quote), w.section, w.quote)
    _elsewhere(p, right, found)
    return found


def _in(unit: str, size: int) -> dict[str, int]:
    return {"in_days" if unit == "days" else "in_months": size}


def _matching(found: list[Window], days: int, unit: str, size: int) -> int | None:
    """The index of the window of ``days`` in any ``size`` ``unit`` among ``found``."""
    return next((i for i, w in enumerate(found)
                 if w.days == days and (w.in_days if unit == "days" else w.in_months) == size),
                None)


def _unmatched(p: Phrases, found: list[Window], stated: Window, right: tuple | None) -> None:
    """A window stated outside the right to suspend (its extension, the default its excess
    is, "as described herein") that is none of the right's: the text states the limits two
    ways; both readings are named."""
    where = f" ({right[0]})" if right else ""
    p.unread("suspension windows", f"{stated.section} states a limit the right to suspend"
             f"{where} does not: \"{stated.quote}\"", stated.section, stated.quote,
             (tuple(found), stated))


def _key(w: Window) -> tuple:
    return (w.days, w.in_days, w.in_months)


def _elsewhere(p: Phrases, right: tuple | None, found: list[Window]) -> None:
    """A window stated again outside the right ("as described herein") must be one of
    those read; if not, the text states the limits two ways."""
    if right is None:
        return
    for m in p.finditer(_WINDOW_LIMIT):
        if right[2] <= m.start() < right[3] or _extension(p, m):
            continue
        s0, s1 = p.sentence(m.start())
        if not re.search(r"suspen|defer|blackout", p.text[s0:s1], re.I):
            continue
        days = n.number(m.group("d"))
        unit, size = n.window(m)
        if isinstance(days, n.Conflict) or isinstance(size, n.Conflict) \
                or unit == "calendar_year" or _matching(found, days, unit, size) is not None:
            continue
        section, quote = p.clause(m.start(), m.end())
        _unmatched(p, found, Window(days, **_in(unit, size), section=section, quote=quote),
                   right)


def _single(p: Phrases, right: tuple | None) -> None:
    if p.out.get("suspension single") is not None or p.out.unread_of("suspension single"):
        return
    pattern = (rf"(?:no|any|each)\s+(?:single\s+)?(?:{_PERIODS}|suspension|deferral)\s+"
               rf"(?:shall\s+|may\s+)?(?:not\s+)?(?:exceed|over|last\s+(?:more|longer)\s+than)"
               rf"\s+(?P<d>{n.NUMBER})\s+consecutive\s+days|not\s+to\s+exceed\s+(?P<e>{n.NUMBER})"
               rf"\s+consecutive\s+days")
    for m in p.finditer(pattern):
        days = n.number(m.group("d") or m.group("e"))
        if isinstance(days, n.Conflict):
            continue
        p.found("suspension single", SingleLimit(days), *p.clause(m.start(), m.end()))
        return
    if right is not None:
        p.found("suspension single", None, right[0], right[1],
                "the right to suspend states no limit on one period's length")


def _count(p: Phrases, right: tuple | None) -> None:
    pattern = (rf"(?:no|not)\s+more\s+than\s+(?P<c>{n.NUMBER})\s+{_PERIODS}\s+(?:may\s+be\s+"
               rf"(?:declared|in\s+effect|commenced)\s+)?(?:in|during)\s+any\s+{n.WINDOW}")
    for m in p.finditer(pattern):
        count = n.number(m.group("c"))
        unit, size = n.window(m)
        if isinstance(count, n.Conflict) or unit == "calendar_year":
            continue
        kind = {"days": "in_days", "months": "in_months"}[unit]
        p.found("suspension count", PeriodCount(count, **{kind: size}),
                *p.clause(m.start(), m.end()))
        return
    if right is not None:
        p.found("suspension count", None, right[0], right[1],
                "the right to suspend states no limit on the number of periods")
