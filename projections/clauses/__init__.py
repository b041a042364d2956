"""Clause citations and their plain statements, one table per contract.

``citations(text)`` finds every clause a text cites (``RRA §3(a)(iv)(A)``, ``RRA §1
Record Holder``, ``RRA §2(b), §4(d)``, ``Letter ¶3`` ...); ``statement(ref)`` states one
plainly, from the tables of ``clauses.rra`` and ``clauses.letter``. The clause test
(tests/test_clauses.py) reads every citation in the code and checks each is stated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import letter, rra

#: Each clause the code cites, stated plainly in our own words (not the contract's).
CLAUSES: dict[str, str] = {**rra.CLAUSES, **letter.CLAUSES}
#: RRA §3(a) numbers its rate tiers (i)-(iv) as it numbers the defaults; a rate cites these.
RATE_TIERS: dict[str, str] = rra.RATE_TIERS


@dataclass(frozen=True)
class Citation:
    """One clause a text cites: ``RRA §3(a)(iv)(A)``, ``RRA §1 Record Holder``, ``Letter ¶3``."""

    document: str                  # "RRA", "Letter", "Warrant Agreement" or
                                   # "Certificate of Designations"
    section: str                   # "3"; the paragraph number for the Letter; "IV"; "12"
    parts: tuple[str, ...] = ()    # ("a", "iv", "A")
    term: str | None = None        # a §1 defined term
    item: str | None = None        # "(A)" inside a defined term
    start: int = 0                 # offset in the text it was read from

    @property
    def ref(self) -> str:
        if self.document == "Letter":
            return f"Letter ¶{self.section}"
        if self.document == "Warrant Agreement":
            return f"Warrant Agreement Art. {self.section}"
        if self.document == "Certificate of Designations":
            return f"Certificate of Designations §{self.section}"
        text = f"RRA §{self.section}" + "".join(f"({p})" for p in self.parts)
        if self.term:
            text += f" {self.term}"
        if self.item:
            text += f" ({self.item})"
        return text


_TERM_WORD = re.compile(r"[A-Z][A-Za-z]*")
_LINK = re.compile(r" (of|and) (?=[A-Z])")
_GROUP = re.compile(r"\(([A-Za-z]{1,5}|\d{1,2})\)")


def _term_at(text: str, i: int) -> tuple[str | None, int]:
    """A §1 defined term at ``i``: ``"Quoted Term"`` or a run of Capitalized words (with
    ``of``/``and`` between them), e.g. ``Majority of Holders``."""
    if i < len(text) and text[i] in "\"“":
        close = text.find("”" if text[i] == "“" else '"', i + 1)
        if close > i + 1:
            return " ".join(text[i + 1:close].split()), close + 1
        return None, i
    words: list[str] = []
    j = i
    while True:
        m = _TERM_WORD.match(text, j)
        if not m:
            break
        words.append(m.group())
        j = m.end()
        link = _LINK.match(text, j)
        if link:
            words.append(link.group(1))
            j = link.end()
            continue
        if text.startswith(" ", j) and _TERM_WORD.match(text, j + 1):
            j += 1
            continue
        break
    if not words:
        return None, i
    return " ".join(words), j


def _rra(text: str, i: int) -> list[Citation]:
    """The references of one ``RRA §...`` citation starting at ``i`` (just after "RRA ")."""
    out: list[Citation] = []
    while i < len(text) and text[i] == "§":
        m = re.match(r"§(\d+)", text[i:])
        if not m:
            break
        section, start, i = m.group(1), i, i + m.end()
        parts: list[str] = []
        while (g := _GROUP.match(text, i)):
            parts.append(g.group(1))
            i = g.end()
        term = None
        if section == "1" and text.startswith(" ", i):
            term, j = _term_at(text, i + 1)
            if term:
                i = j
        out.append(Citation("RRA", section, tuple(parts), term, None, start))
        while True:  # siblings: -(iv), ,(z), ", (B)", " and (B)"; another term
            m = re.match(r"(-|, ?| and )(\(([A-Za-z]{1,5}|\d{1,2})\))", text[i:])
            if m and (parts or term):
                last = out[-1]
                if last.term:
                    out.append(Citation("RRA", section, (), last.term, m.group(3), start))
                else:
                    out.append(Citation("RRA", section, tuple(parts[:-1]) + (m.group(3),),
                                        None, None, start))
                i += m.end()
                continue
            m = re.match(r" (\(([A-Z])\))", text[i:])
            if m and term:
                out[-1] = Citation("RRA", section, (), term, m.group(2), start)
                i += m.end()
                continue
            m = re.match(r", (?=[\"“])", text[i:])
            if m and term:
                t2, j = _term_at(text, i + m.end())
                if t2:
                    out.append(Citation("RRA", section, (), t2, None, start))
                    term, i = t2, j
                    continue
            break
        m = re.match(r"(?: \([^()]* [^()]*\))?(?:,|;| and) ?(?=§)", text[i:])
        if not m:
            break
        i += m.end()
    return out


def _letter(text: str, i: int) -> list[Citation]:
    out: list[Citation] = []
    while True:
        m = re.match(r"¶(\d+)", text[i:])
        if not m:
            break
        out.append(Citation("Letter", m.group(1), start=i))
        i += m.end()
        m = re.match(r"(?:,|;| and|-) ?(?=¶)", text[i:])
        if not m:
            break
        i += m.end()
    return out


def citations(text: str) -> list[Citation]:
    """Every clause cited in ``text``: ``RRA §...`` (sections, sub-clauses, §1 defined
    terms, ranges and lists such as ``§2(b), §4(d)`` or ``§3(a)(i)-(iv)``), ``Letter ¶N``
    and the two Transaction Documents the Letter defers."""
    out: list[Citation] = []
    for m in re.finditer(r"\b(RRA|Letter) (?=[§¶])", text):
        out.extend((_rra if m.group(1) == "RRA" else _letter)(text, m.end()))
    for m in re.finditer(r"Warrant Agreement Art\. ([IVX]+)", text):
        out.append(Citation("Warrant Agreement", m.group(1), start=m.start()))
    for m in re.finditer(r"Certificate of Designations §(\d+)", text):
        out.append(Citation("Certificate of Designations", m.group(1), start=m.start()))
    return sorted(out, key=lambda c: c.start)


def statement(ref: str, topic: str | None = None) -> str | None:
    """The plain statement of one clause reference, trying its parent clauses in turn
    (``RRA §2(a)(iii)(y)`` falls back to ``RRA §2(a)(iii)``); ``topic="rate"`` reads
    ``RRA §3(a)(i)``-``(iv)`` as the rate tiers."""
    text = ref
    while True:
        if topic == "rate" and text in RATE_TIERS:
            return RATE_TIERS[text]
        if text in CLAUSES:
            return CLAUSES[text]
        shorter = re.sub(r"( \([A-Z]\)|\([A-Za-z0-9]+\)| [A-Z][\w ]*)$", "", text)
        if shorter == text:
            return None
        text = shorter


def clause_statements(clause: str | None, topic: str | None = None) -> list[dict[str, str]]:
    """``[{clause, statement}]`` for every reference in a basis's ``clause`` text."""
    if not clause:
        return []
    seen: dict[str, dict[str, str]] = {}
    for c in citations(clause):
        seen.setdefault(c.ref, {"clause": c.ref,
                                "statement": statement(c.ref, topic) or "(no plain statement)"})
    return list(seen.values())
