"""Reading the Registration Defaults: the list of events that are one ("if: (i) the Shelf
Registration Statement is not filed ...; (ii) ... has not been declared effective ...;
(iii) ... shall thereafter cease to be effective or fail to be usable ... without such
disability being cured within five Business Days ...; or (iv) (A) prior to or on the 45th
or 60th day ... of any Suspension Period ... such suspension has not been terminated or (B)
Suspension Periods exceed an aggregate of 90 days in any 360 day period").

Each item is a kind by its words: "not filed", "not ... declared effective", "cease to be
effective or ... usable", a Suspension (or Deferral) Period "not been terminated" or
"exceed[ing]" a limit. Its label is its numbering under the clause that lists them
("(iv)(A)"). A lapse's cure ("within ten Business Days") and the causes that are no
default ("other than in connection with (A) a Deferral Period or (B) ... information
regarding selling securityholders", "except as provided in Section 4(b)(i)", the section
that gives the right to suspend) are read from its item.
"""

from __future__ import annotations

import re

from . import numbers as n
from .findings import DAYS, DefaultKind, Phrases, SingleLimit

_KINDS = (
    ("unusable", r"ceases?\s+to\s+be\s+(?:effective|usable)|fails?\s+to\s+be\s+usable"),
    ("filing", r"\bnot\s+(?:been\s+)?filed\b|fails?\s+to\s+file\b"),
    ("effectiveness", r"not\s+(?:been\s+)?(?:declared|become)\s+effective"),
    ("suspension", r"(?:Suspension|Deferral|Blackout)\s+Periods?\b[^;]*?(?:not\s+been\s+"
                   r"terminated|exceed)"),
)


def read(p: Phrases) -> None:
    lists = _default_lists(p)
    seen: dict[str, list] = {}
    for owner in lists:
        for item, kind in _items(p, owner):
            label = "".join(item.labels[len(owner.labels):])
            section = p.a.cite(item)
            quote = _item_quote(p, item)
            words = quote
            if kind == "suspension":
                _suspension(p, label, section, quote, words)
                continue
            value = DefaultKind(kind, label)
            if kind == "unusable":
                value = _unusable(p, label, words)
            seen.setdefault(kind, []).append((value, section, quote))
    for kind, found in seen.items():
        value, section, quote = found[0]
        p.found(f"default: {kind}", value, section, quote)


def _default_lists(p: Phrases) -> list:
    """The clauses that list the Registration Defaults: where "Registration Default" is
    defined, or a paragraph headed "Registration Defaults"."""
    owners = []
    d = p.a.definition("Registration Default")
    if d is not None:
        node = p.a.node_at(d.start)
        while node.parent is not None and not node.children:
            node = node.parent
        owners.append(node)
    for node in p.a.nodes:
        if node.heading and re.fullmatch(r"Registration\s+Defaults?", node.heading, re.I):
            owners.append(node)
    return list({id(o): o for o in owners}.values())


def _kind(p: Phrases, item) -> str | None:
    words = _item_quote(p, item)
    if re.search(r"per\s+annum", words, re.I):
        return None
    return next((k for k, pattern in _KINDS if re.search(pattern, words, re.I)), None)


def _items(p: Phrases, owner) -> list:
    """``(item, kind)`` of each Registration Default listed under ``owner``: an item whose
    own sub-items are defaults ("(iv) (A) ... or (B) ...") gives them, else itself."""
    out = []
    for kid in owner.children:
        inner = _items(p, kid)
        if inner:
            out += inner
        else:
            kind = _kind(p, kid)
            if kind is not None:
                out.append((kid, kind))
    return out


def _item_quote(p: Phrases, item) -> str:
    """An item's words, to its "; or", its ", then" or its end."""
    words = p.text[item.start:item.end]
    depth = 0
    for i, ch in enumerate(words):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0 and (ch == ";" or words.startswith(", then", i)):
            words = words[:i]
            break
    words = re.sub(r"[,;]?\s+(?:or|and)\s*$", "", words.strip())
    return " ".join(words.split()).rstrip(" ,;.")


def _unusable(p: Phrases, label: str, words: str) -> DefaultKind:
    cure = None
    m = re.search(rf"(?:within|for)\s+{DAYS}", words, re.I)
    if m:
        days = p.days(m)
        cure = days if not isinstance(days, n.Conflict) else None
    excused = []
    suspension = p.a.definition("Suspension Period") or p.a.definition("Deferral Period")
    for ref in re.finditer(r"except\s+as\s+(?:provided|permitted)\s+in\s+Section\s+"
                           r"(?P<s>\d+(?:\([a-zA-Z0-9]+\))*)", words, re.I):
        if suspension is not None and suspension.where.endswith("§" + ref.group("s")):
            excused.append("suspension")
    if re.search(r"other\s+than\s+in\s+connection\s+with[^;]*?(?:Deferral|Suspension|"
                 r"Blackout)\s+Period", words, re.I):
        excused.append("suspension")
    if re.search(r"information\s+regarding\s+(?:the\s+)?selling\s+security\s*holders|"
                 r"plan\s+of\s+distribution", words, re.I):
        excused.append("selling holder information")
    return DefaultKind("unusable", label, cure, tuple(dict.fromkeys(excused)))


def _suspension(p: Phrases, label: str, section: str, quote: str, words: str) -> None:
    """(A) a Suspension Period not terminated by its limit: the default, and the limit of
    one period ("the 45th or 60th day, as the case may be": 60 with the material-transaction
    extension the text gives elsewhere); (B) the suspended days past a window's limit: the
    default of that window (``suspensions`` attaches it)."""
    m = re.search(rf"(?P<a>{n.ORDINAL_NUMBER})(?:\s+or\s+(?P<b>{n.ORDINAL_NUMBER}))?\s+day"
                  rf"[^;]*?(?:Suspension|Deferral|Blackout)\s+Period[^;]*?not\s+been\s+"
                  rf"terminated", words, re.I)
    if m:
        first = n.ordinal(m.group("a"))
        second = n.ordinal(m.group("b")) if m.group("b") else None
        if isinstance(first, n.Conflict) or isinstance(second, n.Conflict):
            p.unread("default: suspension", "words and figures differ", section, quote)
            return
        p.found("default: suspension", DefaultKind("suspension", label), section, quote)
        note = None
        if second is not None:
            extension = re.search(rf"extend\s+(?:a|any|such)\s+(?:Suspension|Deferral)\s+Period"
                                  rf"\s+from\s+(?P<a>{n.NUMBER})\s+days\s+to\s+"
                                  rf"(?P<b>{n.NUMBER})\s+days", p.text, re.I)
            if extension is not None and (n.number(extension.group("a")),
                                          n.number(extension.group("b"))) != (first, second):
                there, words = p.clause(extension.start(), extension.end())
                p.unread("suspension single", f"{section}: 'the {m.group('a')} or "
                         f"{m.group('b')} day'; {there}: '{extension.group(0)}'", section,
                         quote, ((first, second), (n.number(extension.group("a")),
                                                   n.number(extension.group("b")))))
                return
            if extension is None:
                p.unread("suspension single", f"'the {m.group('a')} or {m.group('b')} day': "
                         "the text does not say when each applies", section, quote,
                         (first, second))
                return
            note = (f"the {m.group('b')} day with the material-transaction extension "
                    f"('as the case may be')")
        p.found("suspension single", SingleLimit(first, second), section, quote, note)
        return
    m = re.search(rf"exceed\s+(?:an\s+)?(?:aggregate\s+of\s+)?(?P<d>{n.NUMBER})\s+days\s+"
                  rf"(?:in\s+(?:the\s+)?aggregate\s+)?(?:in|during)\s+any\s+{n.WINDOW}", words,
                  re.I)
    if m:
        days = n.number(m.group("d"))
        unit, size = n.window(m)
        p.found("window default", (days, unit, size, label), section, quote)
