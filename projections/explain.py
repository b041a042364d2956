# Over 600 lines: to be split along its seams, issue 14 item 3.
"""Why a figure is what it is: a report figure explained down to clauses and events.

``explain(report, figure, events)`` is a pure function of a SPEC §7 report (as
``projections.report.report`` returns it, every ``basis`` included) and the deal's
events. It returns the explanation as data: a tree whose nodes carry the rule, the clause
with a plain statement of it in our own words, the interpretations in force, the input
events (id, type, date, source, when recorded and by whom), the arithmetic, and a re-check
of that arithmetic. The CLI prints it as a tree; ``--json`` prints this same data.

Figure paths
------------

A figure is named by a path into the report JSON; ``explain``, ``history`` and ``whatif``
all use it::

    registration.in_default
    additional_interest.payments[payment_date=2005-01-15].amounts.Lehman Brothers Inc.
    deadlines[obligation^=notify the Trustee][0].due
    true_up.instruments[instrument=W-1].price
    majority."waive §4(b)(iii) advice".share

* ``.`` steps into an object. Keys are matched against the keys that are there, longest
  first, so a key may itself hold dots and spaces (``Lehman Brothers Inc.``). A key in
  double quotes is taken exactly as a JSON string (for keys holding ``[`` or ``"``).
* ``[N]`` takes entry N of a list (from 0; negative counts from the end).
* ``[field=value]`` takes the entries whose ``field`` is ``value``; ``[field^=value]``
  those whose ``field`` starts with ``value``. Selectors in a row narrow the same list
  (``[kind=(iii)][1]`` is the second default (iii)); at the end exactly one entry must be
  left. A value may be a JSON string in double quotes (for one holding ``]``). Values are
  compared as the report writes them: ``true``, ``false``, ``null``, numbers as digits.

``figure_paths(report)`` lists every figure with the selectors chosen for it (payments
by ``payment_date``, defaults by ``kind``, deadlines by ``obligation``, exercises by
``event``...), and those are the paths the what-if diff prints.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation, localcontext
from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

from .interpretations import REGISTRY

# =========================================================================== clauses

#: Each clause the code cites, stated plainly in our own words (not the contract's).
CLAUSES: dict[str, str] = {
    "RRA §1 Business Day":
        "A Business Day is a weekday on which New York City banks are neither allowed nor "
        "required by law or executive order to close.",
    "RRA §1 Closing Date":
        "The Closing Date is the date of the agreement, June 30, 2004; the deadlines and "
        "the rate anniversaries count from it.",
    "RRA §1 Holder":
        "A Holder is anyone who owns Transfer Restricted Securities.",
    "RRA §1 Transfer Restricted Securities":
        "A Note, or a share issued on converting one, is restricted until (A) it is sold "
        "under the effective shelf, or (B) it stops being outstanding (redeemed, "
        "repurchased and cancelled, converted or otherwise).",
    "RRA §1 Transfer Restricted Securities (A)":
        "A restricted Note stops being restricted on the day it is sold under the "
        "effective shelf.",
    "RRA §1 Transfer Restricted Securities (B)":
        "A restricted Note stops being restricted on the day it stops being outstanding.",
    "RRA §1 Majority of Holders":
        "Holders of more than half of the principal of the Notes then outstanding; "
        "restricted conversion shares count as shares times the conversion price.",
    "RRA §1 Record Holder":
        "The Additional Interest for a payment date goes to whoever holds restricted Notes "
        "on that payment date's record date.",
    "RRA §1 Interest Payment Date":
        "The Interest Payment Dates are those of the Indenture (January 15 and July 15).",
    "RRA §1 Additional Interest Payment Date":
        "Additional Interest is paid on each Interest Payment Date.",
    "RRA §1":
        "The definitions of the agreement's capitalized terms.",
    "RRA §2(a)":
        "The company must file the resale shelf, get it declared effective and keep it "
        "effective, each by its deadline.",
    "RRA §2(a)(i)":
        "The company must file the resale shelf registration statement within 15 days "
        "after June 30, 2004 (the Shelf Filing Deadline).",
    "RRA §2(a)(ii)":
        "The company must use commercially reasonable efforts to have the shelf declared "
        "effective within 120 days after June 30, 2004 (the Effectiveness Target Date).",
    "RRA §2(a)(iii)":
        "The company must keep the shelf effective and usable for the Effectiveness "
        "Period, which ends at the earliest of (x) two years after it became effective, "
        "(y) the sale under it of everything it registered, and (z) nothing restricted "
        "being outstanding any more.",
    "RRA §2(a)(iii)(x)":
        "The Effectiveness Period ends at the latest on the second anniversary of the day "
        "the shelf became effective.",
    "RRA §2(a)(iii)(y)":
        "The Effectiveness Period ends when everything the shelf registered has been sold "
        "under it.",
    "RRA §2(a)(iii)(z)":
        "The Effectiveness Period ends when no restricted security is outstanding.",
    "RRA §2(b)":
        "A Holder named in the shelf must return the Questionnaire by the 20th Business Day "
        "after the company asks in writing; for a late Questionnaire the company files an "
        "amendment or supplement within 10 Business Days, at most one pre-effective "
        "amendment a fiscal quarter and one post-effective amendment a half year, and only "
        "for more than $1 million of Notes.",
    "RRA §3(a)":
        "If a Registration Default happens, the company pays Additional Interest on the "
        "restricted Notes from the day after the default until the day it is cured, at "
        "stepped rates; converted Notes earn none, and a Holder that did not answer a "
        "requested Questionnaire in time is not entitled to it.",
    "RRA §3(a)(i)":
        "Registration Default (i): the shelf is not filed on or before the Shelf Filing "
        "Deadline.",
    "RRA §3(a)(ii)":
        "Registration Default (ii): the shelf is not declared effective on or before the "
        "Effectiveness Target Date.",
    "RRA §3(a)(iii)":
        "Registration Default (iii): once effective, during the Effectiveness Period, the "
        "shelf stops being effective or usable and is not fixed within five Business Days "
        "(suspensions allowed by §4(b)(i) aside).",
    "RRA §3(a)(iv)":
        "Registration Default (iv): a Suspension Period runs past its 45th (60th) day, or "
        "Suspension Periods add up to more than 90 days in a 360-day period.",
    "RRA §3(a)(iv)(A)":
        "Registration Default (iv)(A): a Suspension Period is not over by its 45th day "
        "(60th with a pending material transaction).",
    "RRA §3(a)(iv)(B)":
        "Registration Default (iv)(B): Suspension Periods add up to more than 90 days in "
        "some 360-day period.",
    "RRA §3(b)":
        "The company tells the Trustee within two Business Days after each default date; "
        "Additional Interest is paid in cash, every six months in arrears, on each "
        "Interest Payment Date, to the Record Holders; what a security earned survives it "
        "ceasing to be restricted.",
    "RRA §4(b)(i)":
        "The company keeps the shelf effective and fixes misstatements promptly, but may "
        "suspend its use by written notice for up to 45 days in any 90-day period (60 for "
        "an undisclosed material transaction), and 90 days in any 360-day period.",
    "RRA §4(b)(iii)":
        "The company must tell the selling Holders within five Business Days when a "
        "prospectus or amendment is filed or becomes effective, of SEC requests, of stop "
        "orders, and of facts that make the prospectus misleading.",
    "RRA §4(c)":
        "On a Suspension Notice the Holders stop selling under the shelf until they get the "
        "amended prospectus or are told in writing they may resume.",
    "RRA §4(d)":
        "The Questionnaire rule again: 20 Business Days to answer a written request; a "
        "late answer gets an amendment within ten Business Days, within the same limits.",
    "RRA §10(D)":
        "The agreement can be amended or waived only with the written consent of a "
        "Majority of Holders.",
    "RRA §10(E)":
        "Notices are in writing and count as given: by hand on delivery; by mail five "
        "Business Days after posting; by telex when answered back; by fax when receipt is "
        "acknowledged; by overnight courier on the next Business Day.",
    "RRA §10(H)":
        "Securities the company or its affiliates hold do not count when deciding whether "
        "enough Holders consented.",
    "Letter ¶1":
        "Names the Warrant Agreement, the Series A Preferred Certificate of Designations "
        "and the Warrantholders (DB Capital, the Sandler entities, Price and Benake) whose "
        "rights the letter changes.",
    "Letter ¶2":
        "The Warrantholders put off their anti-dilution protection for the Camden "
        "Warrants: it applies only as, and as far as, Camden Warrants become Vested "
        "Warrants.",
    "Letter ¶3":
        "For an exercise or conversion before February 1, 2004 followed by a Camden "
        "vesting, the company issues (x) the shares that exercise would have given on the "
        "vesting date with every adjustment, less (y) the shares already issued for it.",
    "Letter ¶4":
        "The company makes no anti-dilution adjustment except as the letter allows.",
    "Letter ¶5":
        "The letter changes nothing else in the transaction documents, does not reach "
        "later issuances, and may be signed in counterparts.",
    "Letter ¶6":
        "New York law governs the letter.",
    "Warrant Agreement Art. IV":
        "The Warrants' anti-dilution article (not in the seeds): a dilutive issuance lowers "
        "the exercise price by the formula the deal's terms name, and the share count "
        "rises so that the aggregate exercise price stays the same.",
    "Certificate of Designations §12":
        "The Series A Preferred's anti-dilution section (not in the seeds): the conversion "
        "price adjusts by the formula the deal's terms name; the Shares convert into "
        "stated value / conversion price shares of Common Stock.",
}

#: RRA §3(a) numbers its rate tiers (i)-(iv) as it numbers the defaults; a rate cites these.
RATE_TIERS: dict[str, str] = {
    "RRA §3(a)(i)": "Rate tier (i): 0.25% a year of principal for the first 90 days of a "
                    "Registration Default.",
    "RRA §3(a)(ii)": "Rate tier (ii): 1.00% a year from the 91st day to the second "
                     "anniversary of the Closing Date (June 30, 2006).",
    "RRA §3(a)(iii)": "Rate tier (iii): 3.00% a year from the second to the third "
                      "anniversary of the Closing Date.",
    "RRA §3(a)(iv)": "Rate tier (iv): from the third anniversary of the Closing Date the "
                     "rate rises by 2.00 points on each anniversary (5%, 7%, 9% ...).",
}


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


# ====================================================================== figure paths


class FigureError(ValueError):
    """A figure path that is malformed, missing from the report or ambiguous."""


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


#: What a path resolves to when the figure is not in the report (history, diffs).
ABSENT: Any = _Absent()


@dataclass(frozen=True)
class _Key:
    text: str
    quoted: bool


@dataclass(frozen=True)
class _Select:
    field: str | None    # None: an index
    op: str              # "=", "^=" or "index"
    value: str
    index: int = 0


def _unquote(text: str) -> tuple[str, bool]:
    text = text.strip()
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        try:
            return json.loads(text), True
        except ValueError:
            raise FigureError(f"bad quoted text {text}") from None
    return text, False


def parse_path(text: str) -> list[_Key | _Select]:
    """The tokens of a figure path (module doc); ``FigureError`` if malformed."""
    if not text or not text.strip():
        raise FigureError("the figure path is empty")
    tokens: list[_Key | _Select] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "[":
            j, quoted = i + 1, False
            while j < n and (text[j] != "]" or quoted):
                if text[j] == '"' and text[j - 1] != "\\":
                    quoted = not quoted
                j += 1
            if j >= n:
                raise FigureError(f"unclosed '[' at character {i + 1} of {text!r}")
            tokens.append(_selector(text[i + 1:j]))
            i = j + 1
            if i < n and text[i] == ".":
                i += 1
            continue
        if ch == '"':
            j = i + 1
            while j < n and (text[j] != '"' or text[j - 1] == "\\"):
                j += 1
            if j >= n:
                raise FigureError(f"unclosed '\"' at character {i + 1} of {text!r}")
            tokens.append(_Key(_unquote(text[i:j + 1])[0], True))
            i = j + 1
            if i < n and text[i] not in ".[":
                raise FigureError(f"expected '.' or '[' after a quoted key in {text!r}")
            if i < n and text[i] == ".":
                i += 1
            continue
        j = i
        while j < n and text[j] not in ".[":
            j += 1
        tokens.append(_Key(text[i:j], False))
        i = j
        if i < n and text[i] == ".":
            i += 1
            if i == n:
                tokens.append(_Key("", False))  # a trailing dot belongs to the last key
    if isinstance(tokens[0], _Select):
        raise FigureError("a figure path starts with a key, e.g. registration.in_default")
    return tokens


def _selector(body: str) -> _Select:
    stripped = body.strip()
    if re.fullmatch(r"-?\d+", stripped):
        return _Select(None, "index", stripped, int(stripped))
    m = re.match(r"\s*([^=^\]]+?)\s*(\^=|=)(.*)$", body, re.S)
    if not m:
        raise FigureError(f"[{body}] is neither [N] nor [field=value]")
    value, _ = _unquote(m.group(3))
    return _Select(m.group(1), m.group(2), value)


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (str, int)):
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class Located:
    """A resolved figure: its canonical path, value and the way down to it."""

    path: str
    value: Any
    trail: tuple[tuple[Any, Any], ...]   # (container, key or index), from the root down
    pattern: tuple[str, ...]             # structural: keys, "[]" for list entries, "*" for map keys

    def at(self, depth: int) -> Any:
        """The node after ``depth`` steps (0: the report itself)."""
        if depth == 0:
            return self.trail[0][0] if self.trail else self.value
        container, key = self.trail[depth - 1]
        return container[key]


#: Objects keyed by data (a holder, a matter, an interpretation), not by field names.
MAP_KEYS = frozenset({"by_holder", "amounts", "paid", "basis", "majority", "holders", "camden",
                      "interpretations", "inputs"})


def dotted_prefixes(siblings: Iterable[str]) -> frozenset[str]:
    """Every ``p`` such that some sibling key starts with ``p + "."``: the keys that must
    be quoted in a path, or ``a.b`` would be read as ``a`` then ``b``."""
    out = set()
    for s in siblings:
        at = s.find(".")
        while at >= 0:
            out.add(s[:at])
            at = s.find(".", at + 1)
    return frozenset(out)


def quote_key(key: str, siblings: Iterable[str], prefixes: frozenset[str] | None = None
              ) -> str:
    """``key`` as a path step: quoted as a JSON string when it could be misread.
    ``prefixes`` (``dotted_prefixes(siblings)``) may be given when quoting many keys of
    one object."""
    if prefixes is None:
        prefixes = dotted_prefixes(siblings)
    if key == "" or any(c in key for c in '[]"') or key.startswith(" ") or key in prefixes:
        return json.dumps(key, ensure_ascii=False)
    return key


def _select_text(sel: _Select) -> str:
    if sel.op == "index":
        return f"[{sel.index}]"
    value = sel.value
    if "]" in value or value.startswith('"') or value != value.strip():
        value = json.dumps(value, ensure_ascii=False)
    return f"[{sel.field}{sel.op}{value}]"


def locate(report: Mapping[str, Any], path: str, *, missing_ok: bool = False) -> Located:
    """Resolve ``path`` in ``report``. A figure not there raises ``FigureError`` naming
    what is there, or with ``missing_ok`` gives a ``Located`` whose value is ``ABSENT``;
    a malformed or ambiguous path always raises."""
    tokens = parse_path(path)
    node: Any = report
    trail: list[tuple[Any, Any]] = []
    pattern: list[str] = []
    shown: list[str] = []
    parent_key: str | None = None
    i = 0

    def missing(msg: str) -> Located:
        if missing_ok:
            return Located(_join(shown), ABSENT, tuple(trail), tuple(pattern))
        raise FigureError(msg)

    while i < len(tokens):
        tok = tokens[i]
        where = _join(shown) or "the report"
        if isinstance(tok, _Key):
            if not isinstance(node, dict):
                raise FigureError(f"{where} is {_kind(node)}, not an object: cannot take "
                                  f"key {tok.text!r}")
            key, used = _match_key(node, tokens, i)
            if key is None:
                keys = ", ".join(list(node)[:12]) or "none"
                return missing(f"no {tok.text!r} in {where}; keys there: {keys}")
            pattern.append("*" if parent_key in MAP_KEYS else key)
            trail.append((node, key))
            shown.append(("." if shown else "") + quote_key(key, node))
            parent_key, node, i = key, node[key], i + used
            continue
        if not isinstance(node, list):
            raise FigureError(f"{where} is {_kind(node)}, not a list: cannot select "
                              f"{_select_text(tok)}")
        picked = list(range(len(node)))
        while i < len(tokens) and isinstance(tokens[i], _Select):
            sel = tokens[i]
            if sel.op == "index":
                if not -len(picked) <= sel.index < len(picked):
                    return missing(f"{where} has {len(picked)} matching entries; "
                                   f"no [{sel.index}]")
                picked = [picked[sel.index]]
            else:
                picked = [k for k in picked if isinstance(node[k], dict) and sel.field in node[k]
                          and _matches(node[k][sel.field], sel)]
            shown.append(_select_text(sel))
            i += 1
        if not picked:
            fields = sorted({f for e in node if isinstance(e, dict) for f in e})[:12]
            return missing(f"no entry of {where} matches {''.join(shown[-1:])}; "
                           f"{len(node)} entries, fields: {', '.join(fields) or 'none'}")
        if len(picked) > 1:
            raise FigureError(f"{len(picked)} entries of {where} match "
                              f"{''.join(s for s in shown if s.startswith('['))}; narrow it "
                              "with another [field=value] or [N]")
        pattern.append("[]")
        trail.append((node, picked[0]))
        parent_key, node = None, node[picked[0]]
    return Located(_join(shown), node, tuple(trail), tuple(pattern))


def _join(shown: list[str]) -> str:
    return "".join(shown)


def _kind(node: Any) -> str:
    if isinstance(node, dict):
        return "an object"
    if isinstance(node, list):
        return "a list"
    return f"the value {_as_text(node)}"


def _matches(value: Any, sel: _Select) -> bool:
    text = _as_text(value)
    return text == sel.value if sel.op == "=" else text.startswith(sel.value)


def _match_key(node: dict, tokens: list, i: int) -> tuple[str | None, int]:
    """The longest key of ``node`` spelled by the key tokens from ``i`` (joined by dots)."""
    tok = tokens[i]
    if tok.quoted:
        return (tok.text, 1) if tok.text in node else (None, 1)
    run = []
    for t in tokens[i:]:
        if not isinstance(t, _Key) or t.quoted:
            break
        run.append(t.text)
    for used in range(len(run), 0, -1):
        key = ".".join(run[:used])
        if key in node:
            return key, used
    return None, 1


# ------------------------------------------------------------- listing every figure

#: Fields that name a list's entries, by the list's key; else the first field in
#: ``_NAMING`` that every entry has, else the index.
LIST_NAMES: dict[str, tuple[str, ...]] = {
    "payments": ("payment_date",), "rate_segments": ("start",), "episodes": ("start",),
    "defaults": ("kind",), "periods": ("start",), "breaches": ("kind",),
    "deadlines": ("obligation",), "notices": ("event",), "exercises": ("event",),
    "instruments": ("instrument",), "adjustments": ("event", "instrument"),
    "vestings": ("event",), "price_history": ("event",), "true_up_shares": ("event",),
    "tranches": ("issuance",), "changes": ("instrument",), "discrepancies": ("kind", "event"),
    "parts": (),
}
_NAMING = ("payment_date", "event", "instrument", "obligation", "start", "kind", "date")

#: Keys that are provenance, not figures: skipped by ``figure_paths(..., figures_only=True)``.
NOISE = frozenset({"basis", "effectiveness_period_basis", "deferred_basis", "events",
                   "paid_events"})


def entry_selectors(key: str | None, entries: list) -> list[str]:
    """A selector text for each entry of a list: by its naming fields, with an ordinal
    where two entries share them."""
    if not entries or not all(isinstance(e, dict) for e in entries):
        return [f"[{k}]" for k in range(len(entries))]
    fields = LIST_NAMES.get(key or "")
    if fields is None:
        fields = next(((f,) for f in _NAMING if all(f in e for e in entries)), ())
    fields = tuple(f for f in fields if all(f in e for e in entries))
    if not fields:
        return [f"[{k}]" for k in range(len(entries))]
    names = ["".join(_select_text(_Select(f, "=", _as_text(e[f]))) for f in fields)
             for e in entries]
    seen: dict[str, int] = {}
    counts = {n: names.count(n) for n in names}
    out = []
    for n in names:
        k = seen.get(n, 0)
        seen[n] = k + 1
        out.append(n + (f"[{k}]" if counts[n] > 1 else ""))
    return out


def figure_paths(report: Mapping[str, Any], *, figures_only: bool = True
                 ) -> dict[str, Any]:
    """Every leaf of ``report`` by its canonical path (lists of plain values are leaves);
    ``figures_only`` leaves out the ``basis`` trees and event-id lists (``NOISE``)."""
    out: dict[str, Any] = {}

    def walk(node: Any, prefix: str, key: str | None) -> None:
        if isinstance(node, dict):
            if not node:
                out[prefix] = {}
            dotted = dotted_prefixes(node)
            for k, v in node.items():
                if figures_only and k in NOISE:
                    continue
                walk(v, (prefix + "." if prefix else "") + quote_key(k, node, dotted), k)
        elif isinstance(node, list) and any(isinstance(e, (dict, list)) for e in node):
            for sel, entry in zip(entry_selectors(key, node), node):
                walk(entry, prefix + sel, None)
        else:
            out[prefix] = node

    walk(report, "", None)
    return out


def strip_basis(value: Any) -> Any:
    """``value`` without its ``basis`` trees and event-id lists: the figures only."""
    if isinstance(value, dict):
        return {k: strip_basis(v) for k, v in value.items() if k not in NOISE}
    if isinstance(value, list):
        return [strip_basis(v) for v in value]
    return value


# ============================================================== re-checking arithmetic

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_STATED = re.compile(r"^\s*(-?\d+(?:\.\d+)?)(…)?(?:\s*→\s*(-?\d+(?:\.\d+)?))?")


class _Expr:
    """A tiny exact evaluator: numbers, ``%``, ``+ - × * /`` and parentheses, in
    fractions (``165/360`` stays exact, so ``… = 950000.000000`` checks exactly)."""

    def __init__(self, text: str):
        self.tokens = re.findall(r"\d+(?:\.\d+)?%?|[-+×*/()]", text)
        if "".join(self.tokens) != re.sub(r"\s+", "", text):
            raise ValueError(text)
        self.i = 0

    def value(self) -> Fraction:
        v = self._sum()
        if self.i != len(self.tokens):
            raise ValueError("trailing tokens")
        return v

    def _peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _sum(self) -> Fraction:
        v = self._product()
        while self._peek() in ("+", "-"):
            op = self.tokens[self.i]
            self.i += 1
            v = v + self._product() if op == "+" else v - self._product()
        return v

    def _product(self) -> Fraction:
        v = self._atom()
        while self._peek() in ("×", "*", "/"):
            op = self.tokens[self.i]
            self.i += 1
            v = v / self._atom() if op == "/" else v * self._atom()
        return v

    def _atom(self) -> Fraction:
        tok = self._peek()
        if tok is None:
            raise ValueError("unexpected end")
        self.i += 1
        if tok == "(":
            v = self._sum()
            if self._peek() != ")":
                raise ValueError("unbalanced")
            self.i += 1
            return v
        if tok == "-":
            return -self._atom()
        if tok.endswith("%"):
            return Fraction(Decimal(tok[:-1])) / 100
        if re.fullmatch(r"\d+(?:\.\d+)?", tok):
            return Fraction(Decimal(tok))
        raise ValueError(tok)


def _exact(expression: str) -> Fraction | None:
    floor_at_zero = re.fullmatch(r"\s*max\(0,\s*(.*)\)\s*", expression)
    if floor_at_zero:                                               # max(0, 1638 - 2753)
        inner = _exact(floor_at_zero.group(1))
        return None if inner is None else max(Fraction(0), inner)
    text = re.sub(r"\[[\d\-, ]*[\])]", " ", expression)                 # [2004-10-29, 2004-11-15)
    text = re.sub(r"\([^()]*[A-Za-z][^()]*\)", " ", text)           # (true-up shares issued)
    text = re.sub(r"^\s*[A-Za-z' ]+(?=[\d(])", "", text)            # would be 10000000 × ...
    if _DATE.search(text) or re.search(r"[A-Za-z]", text) or not re.search(r"[-+×*/]", text):
        return None
    try:
        return _Expr(text).value()
    except (ValueError, ZeroDivisionError, InvalidOperation):
        return None


def evaluate(expression: str) -> Decimal | None:
    """The value of an arithmetic expression as the bases write them (``60000000 × 0.25% ×
    16/360``; date ranges in brackets and parenthesized notes are ignored), to 50 digits,
    or ``None`` if it is not plain arithmetic."""
    value = _exact(expression)
    if value is None:
        return None
    with localcontext() as ctx:
        ctx.prec = 50
        return Decimal(value.numerator) / Decimal(value.denominator)


def _places(number: str) -> int:
    return len(number.split(".")[1]) if "." in number else 0


def _round(value: Fraction, places: int, half_up: bool) -> Fraction:
    """``value`` to ``places`` decimals: half-up (away from zero on a half) or cut."""
    scaled = abs(value) * 10 ** places
    whole = int(scaled + Fraction(1, 2)) if half_up else int(scaled)
    return (whole if value >= 0 else -whole) / Fraction(10 ** places)


_LABEL = re.compile(r"^[A-Za-z][A-Za-z' _]*$")
_COMPUTED = re.compile(r"\d[^=]*[-+×*/]\s*[\d(]")


def _statements(arithmetic: str | None) -> Iterable[tuple[str | None, str, str]]:
    """``(label, lhs, rhs)`` for every ``lhs = rhs`` of an arithmetic text; ``label`` is
    the name the statement assigns (``P'`` in ``P' = … = 2.8501``), if any."""
    for statement_text in (arithmetic or "").split(";"):
        pieces = [p.strip() for p in statement_text.split(" = ")]
        label = pieces[0] if pieces and _LABEL.match(pieces[0]) else None
        for lhs, rhs in zip(pieces, pieces[1:]):
            yield label, lhs, rhs


def recheck(arithmetic: str | None) -> list[dict[str, Any]]:
    """Every ``expression = result`` in an arithmetic text, recomputed exactly:
    ``[{expression, stated, computed, result, ok}]``. A result ending in ``…`` is checked
    to the digits shown (cut or rounded), ``→ r`` as rounded half-up to r's places (or
    down, with "rounded down"), any other result exactly."""
    checks: list[dict[str, Any]] = []
    for _label, lhs, rhs in _statements(arithmetic):
        value = _exact(lhs)
        m = _STATED.match(rhs)
        if value is None or not m:
            continue
        stated, cut, rounded = m.group(1), m.group(2), m.group(3)
        down = "rounded down" in rhs
        shown = Fraction(Decimal(stated))
        places = _places(stated)
        if cut:
            ok = shown in (_round(value, places, False), _round(value, places, True))
        elif down:
            ok = _round(value, places, False) == shown
        else:
            ok = value == shown
        if rounded is not None:
            ok = ok and _round(value, _places(rounded), not down) == Fraction(Decimal(rounded))
        result = rounded if rounded is not None else stated
        checks.append({"expression": lhs, "stated": rhs, "computed": _show(value),
                       "result": result, "ok": ok})
    return checks


def unchecked(arithmetic: str | None, covered: Iterable[str] = ()) -> list[str]:
    """The statements of an arithmetic text that compute a result (numbers joined by an
    operator, ``= number`` after them) which ``recheck`` could not re-compute from the
    text (a rounded input shown with ``…``), and which no ``computation`` of the same
    explanation (``covered``: the labels it re-computes from data) re-computes either.
    An explanation never claims a check it did not make."""
    covered = set(covered)
    out = []
    for label, lhs, rhs in _statements(arithmetic):
        if not _STATED.match(rhs) or _DATE.search(lhs) or not _COMPUTED.search(lhs):
            continue
        if _exact(lhs) is None and label not in covered:
            out.append(f"{lhs} = {rhs}")
    return out


#: which statement label a computation re-computes
_COVERS = {"weighted_average": ("P'",), "full_ratchet": ("P'",), "shares": ("x",)}


def recompute(computation: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Re-compute a figure from its computation data (``projections.basis``): the exact
    inputs, the operation and the rounding rule, never the display text. One check:
    ``[{expression, stated, computed, result, ok}]`` (empty if there is no computation or
    nothing was computed)."""
    if not computation or computation.get("result") is None:
        return []
    x = {k: Fraction(v) for k, v in computation["exact"].items()}
    op, rounding = computation["operation"], computation["rounding"]
    if op == "weighted_average":
        if "B" in x and x["B"] != x["paid"] / x["P"]:   # B must be paid / P, exactly
            return [{"expression": f"B = paid / P = {computation['exact']['paid']} / "
                                   f"{computation['exact']['P']}",
                     "stated": computation["exact"]["B"], "computed": _show(x["paid"] / x["P"]),
                     "result": computation["exact"]["B"], "ok": False}]
        value = x["P"] * (x["A"] + x["paid"] / x["P"]) / (x["A"] + x["C"])
        expression = (f"P × (A + B) / (A + C), P = {computation['exact']['P']}, A = "
                      f"{computation['exact']['A']}, B = {computation['exact']['paid']} / P, "
                      f"C = {computation['exact']['C']}")
    elif op == "full_ratchet":
        value = min(x["P"], x["camden"])
        expression = f"min({computation['exact']['P']}, {computation['exact']['camden']})"
    elif op == "shares":
        extra = x.get("dividends", Fraction(0))
        value = (x["portion"] * x["aggregate"] + extra) / x["price"]
        expression = (f"({computation['exact']['portion']} × {computation['exact']['aggregate']}"
                      f" + {computation['exact'].get('dividends', '0')}) / "
                      f"{computation['exact']['price']}")
    else:
        return []
    places = int(rounding["decimals"])
    got = _round(value, places, rounding["mode"] == "half_up")
    stated = computation["result"]
    return [{"expression": expression, "stated": f"{stated} ({rounding['mode']}, {places} "
             "decimals; from the computation data)", "computed": _show(value),
             "result": stated, "ok": got == Fraction(Decimal(stated))}]


def _show(value: Fraction | Decimal) -> str:
    """A computed value: exact when it ends within ten decimals, else cut there with …."""
    if isinstance(value, Fraction):
        cut = _round(value, 10, False)
        digits = Decimal(cut.numerator) / Decimal(cut.denominator)
        text = format(digits.normalize(), "f") if cut == value else format(
            digits.quantize(Decimal("1e-10")), "f") + "…"
        return text
    return format(value.normalize(), "f")


# ====================================================================== explanations


def event_info(event: Any) -> dict[str, Any]:
    """An input event as an explanation shows it."""
    return {"id": event.id, "type": event.type, "date": event.date.isoformat(),
            "seq": event.seq, "recorded_at": _iso_time(event.recorded_at),
            "recorded_by": event.recorded_by, "source": event.source,
            "data": _plain(dict(event.data))}


def _iso_time(moment: Any) -> str:
    from ledger.events import format_timestamp

    return format_timestamp(moment)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, date):
        return value.isoformat()
    return value


class _Ctx:
    def __init__(self, report: Mapping[str, Any], events: Mapping[str, Any], loc: Located):
        self.report, self.events, self.loc = report, events, loc
        self.in_force = report.get("interpretations") or {}

    def node(self, title: str, *, clause: str | None = None, rule: str | None = None,
             events: Iterable[str] = (), interpretations: Mapping[str, Any] | Iterable[str] = (),
             arithmetic: str | None = None, inputs: Mapping[str, Any] | None = None,
             parts: Sequence[dict] = (), topic: str | None = None,
             computation: Mapping[str, Any] | None = None) -> dict[str, Any]:
        if not isinstance(interpretations, Mapping):
            interpretations = {n: self.in_force.get(n) for n in interpretations}
        ids = list(dict.fromkeys(events))
        return {
            "title": title, "clause": clause,
            "clauses": clause_statements(clause, topic),
            "rule": rule,
            "interpretations": [self.reading(n, v) for n, v in interpretations.items()],
            "events": [event_info(self.events[i]) if i in self.events
                       else {"id": i, "missing": True} for i in ids],
            "arithmetic": arithmetic,
            "checks": recheck(arithmetic) + recompute(computation),
            "unchecked": unchecked(arithmetic, _COVERS.get((computation or {}).get(
                "operation"), ())),
            "inputs": dict(inputs or {}), "parts": list(parts),
            **({"computation": dict(computation)} if computation else {}),
        }

    def reading(self, name: str, value: Any) -> dict[str, Any]:
        value = value if value is not None else self.in_force.get(name)
        i = REGISTRY.get(name)
        return {"name": name, "value": value, "clause": i.clause if i else None,
                "default": i.default if i else None,
                "reading": i.readings.get(value) if i and value else None}

    def from_basis(self, basis: Mapping[str, Any], title: str, topic: str | None = None,
                   parts: Sequence[dict] = ()) -> dict[str, Any]:
        own = [self.from_basis(p, f"part {k + 1}", topic)
               for k, p in enumerate(basis.get("parts") or [])]
        return self.node(title, clause=basis.get("clause"), rule=basis.get("rule"),
                         events=basis.get("events") or [],
                         interpretations=basis.get("interpretations") or {},
                         arithmetic=basis.get("arithmetic"), inputs=basis.get("inputs"),
                         parts=[*own, *parts], topic=topic,
                         computation=basis.get("computation"))

    def of_type(self, ids: Iterable[str], *types: str) -> list[str]:
        return [i for i in ids if i in self.events and self.events[i].type in types]


def _recheck_node(node: dict[str, Any]) -> None:
    """Re-check a node whose arithmetic text was extended after it was made."""
    computation = node.get("computation")
    node["checks"] = recheck(node["arithmetic"]) + recompute(computation)
    node["unchecked"] = unchecked(node["arithmetic"],
                                  _COVERS.get((computation or {}).get("operation"), ()))


def _sum_text(values: Sequence[str], total: str) -> str:
    if not values:
        return f"nothing to add up = {total}"
    return f"{' + '.join(values)} = {total}"


# ---------------------------------------------------------- registration explainers


def _default_item(c: _Ctx) -> dict:
    d = c.loc.at(3)
    return c.from_basis(d["basis"], f"Registration Default {d['kind']}: default date "
                                    f"{d['default_date']}, accrual from {d['accrual_from']}")


def _deadline_entry(c: _Ctx, clause: str) -> dict | None:
    return next((o for o in c.report.get("deadlines", []) if o["clause"] == clause), None)


def _shelf_deadline(clause: str, what: str):
    def explain_it(c: _Ctx) -> dict:
        o = _deadline_entry(c, clause)
        if o is None:
            return c.node(f"the {what}", clause=clause, rule=f"the {what} (no deadline entry)")
        return c.from_basis(o["basis"], f"the {what}: {o['due']} ({o['status']})")
    return explain_it


def _shelf_event(clause: str, event_type: str, what: str):
    def explain_it(c: _Ctx) -> dict:
        o = _deadline_entry(c, clause)
        ids = c.of_type(o["events"] if o else [], event_type)
        if c.loc.value is None:
            return c.node(f"not {what} as of {c.report.get('as_of')}", clause=clause,
                          rule=f"no {event_type} event dated on or before as_of is known")
        return c.node(f"{what} on {c.loc.value}", clause=clause, events=ids,
                      rule=f"the date of the {event_type} event")
    return explain_it


def _period_end(c: _Ctx) -> dict:
    basis = c.report["registration"].get("effectiveness_period_basis")
    if not basis:
        return c.node("no Effectiveness Period yet", clause="RRA §2(a)(iii)",
                      rule="the Effectiveness Period starts when the shelf is declared effective")
    return c.from_basis(basis, f"the Effectiveness Period ends {c.loc.value}")


def _accruing(d: Mapping[str, Any], day: str) -> bool:
    return d["accrual_from"] <= day and (d["accrual_until"] is None or day < d["accrual_until"])


def _in_default(c: _Ctx) -> dict:
    as_of = c.report["as_of"]
    defaults = c.report["registration"]["defaults"]
    live = [d for d in defaults if _accruing(d, as_of)]
    parts = [c.from_basis(d["basis"], f"Registration Default {d['kind']} accrues from "
                                      f"{d['accrual_from']} to "
                                      f"{d['accrual_until'] or 'its cure'} (exclusive)")
             for d in live]
    text = (f"{as_of} lies in the accrual of " + ", ".join(d["kind"] for d in live)
            if live else f"no listed Registration Default accrues on {as_of} "
                         f"({len(defaults)} listed)")
    if not live and defaults:
        last = max(defaults, key=lambda d: d["accrual_until"] or "9999")
        parts = [c.from_basis(last["basis"], f"the latest, Registration Default {last['kind']}, "
                                             f"accrued until {last['accrual_until']} (exclusive)")]
    return c.node(f"in default on {as_of}: {str(c.loc.value).lower()}", clause="RRA §3(a)",
                  rule="in default while a Registration Default accrues Additional Interest: "
                       "from the day after its default date to the day before its cure",
                  arithmetic=text, parts=parts)


def _payment(c: _Ctx) -> Mapping[str, Any]:
    return c.loc.at(3)


def _segments_in(c: _Ctx, start: str, end: str) -> list[dict]:
    ai = c.report["additional_interest"]
    return [c.from_basis(s["basis"], f"rate {s['rate']}% from {s['start']} to {s['last_day']}",
                         topic="rate")
            for s in ai.get("rate_segments", []) if s["start"] < end and s["end"] > start]


def _amount_node(c: _Ctx, pay: Mapping[str, Any], holder: str, deep: bool = True) -> dict:
    basis = pay["basis"][holder]
    parts = _segments_in(c, pay["period_start"], pay["period_end"]) if deep else []
    return c.from_basis(basis, f"Additional Interest for {holder} on the Interest Payment "
                               f"Date {pay['payment_date']}: {pay['amounts'][holder]}",
                        parts=parts)


def _payment_amount(c: _Ctx) -> dict:
    return _amount_node(c, _payment(c), c.loc.trail[4][1])


def _payment_total(c: _Ctx) -> dict:
    pay = _payment(c)
    holders = list(pay["amounts"])
    return c.node(f"total Additional Interest for {pay['payment_date']}: {pay['total']}",
                  clause="RRA §3(a), §3(b)",
                  rule="the sum of each Record Holder's amount, each rounded once",
                  arithmetic=_sum_text([pay["amounts"][h] for h in holders], pay["total"]),
                  parts=[_amount_node(c, pay, h, deep=False) for h in holders])


def _paid_events(c: _Ctx, pay: Mapping[str, Any], holder: str | None) -> list[str]:
    ids = c.of_type(pay.get("paid_events", []), "AdditionalInterestPaid")
    return [i for i in ids if holder is None or c.events[i].data.get("holder") == holder]


def _paid_holder(c: _Ctx) -> dict:
    pay, holder = _payment(c), c.loc.trail[4][1]
    ids = _paid_events(c, pay, holder)
    amounts = [format(c.events[i].data["amount"], "f") for i in ids]
    return c.node(f"paid to {holder} for {pay['payment_date']}: {c.loc.value}",
                  clause="RRA §3(b)", events=ids,
                  rule="the AdditionalInterestPaid events for this holder and payment date",
                  arithmetic=_sum_text(amounts, str(c.loc.value)))


def _paid_total(c: _Ctx) -> dict:
    pay = _payment(c)
    ids = _paid_events(c, pay, None)
    return c.node(f"paid for {pay['payment_date']}: {pay['paid_total']}", clause="RRA §3(b)",
                  events=ids, rule="the AdditionalInterestPaid events for this payment date",
                  arithmetic=_sum_text([format(c.events[i].data["amount"], "f") for i in ids],
                                       pay["paid_total"]))


def _payment_status(c: _Ctx) -> dict:
    pay = _payment(c)
    as_of = c.report["as_of"]
    return c.node(f"status of {pay['payment_date']}: {pay['status']}"
                  + (", late" if pay.get("late") else ""),
                  clause="RRA §3(b)", events=_paid_events(c, pay, None),
                  rule="accruing while the interest period is open on as_of; then due, paid, "
                       "underpaid or overpaid by comparing each Holder's payments with its "
                       "amount; late when a Holder is short after the payment day",
                  arithmetic=(f"amounts {pay['total']}, paid {pay['paid_total']}; period ends "
                              f"{pay['period_end']}, payable {pay['paid_on']}, as of {as_of}"),
                  parts=[_payment_total(c)])


def _payment_schedule(c: _Ctx) -> dict:
    from ledger.calendar import FED

    pay = _payment(c)
    due, paid_on = date.fromisoformat(pay["payment_date"]), date.fromisoformat(pay["paid_on"])
    skipped = []
    day = due
    while day < paid_on:
        skipped.append(f"{day} {FED.closed_reason(day) or 'declared closed by an override'}")
        day += timedelta(days=1)
    roll = (f"{due} is a Business Day" if not skipped
            else f"not Business Days: {'; '.join(skipped)}; paid on {paid_on}")
    clause = "RRA §3(b), §1 Record Holder, §1 Business Day"
    return c.node(f"Interest Payment Date {pay['payment_date']}", clause=clause,
                  rule="semi-annually in arrears for the interest period ending on the Interest "
                       "Payment Date, to the Record Holders on the record date; a day that is "
                       "not a Business Day pays on the next Business Day",
                  arithmetic=(f"period {pay['period_start']} to {pay['period_end']}; record date "
                              f"{pay['record_date']}; {roll}"))


def _holder_total(c: _Ctx) -> dict:
    holder = c.loc.trail[-1][1]
    ai = c.report["additional_interest"]
    pays = [p for p in ai["payments"] if holder in p["amounts"]]
    return c.node(f"Additional Interest for {holder} to {c.report['as_of']}: {c.loc.value}",
                  clause="RRA §3(a), §3(b)",
                  rule="the sum of the holder's amount for each Interest Payment Date, each "
                       "rounded once, counting days up to and including as_of",
                  arithmetic=_sum_text([p["amounts"][holder] for p in pays], str(c.loc.value)),
                  parts=[_amount_node(c, p, holder) for p in pays])


def _accrued_total(c: _Ctx) -> dict:
    ai = c.report["additional_interest"]
    by = ai["by_holder"]
    parts = []
    for h in by:
        sub = _Ctx(c.report, c.events, locate(c.report, f"additional_interest.by_holder."
                                                        f"{json.dumps(h, ensure_ascii=False)}"))
        parts.append(_holder_total(sub))
    return c.node(f"Additional Interest accrued to {c.report['as_of']}: {c.loc.value}",
                  clause="RRA §3(a), §3(b)", rule="the sum over the Holders",
                  arithmetic=_sum_text(list(by.values()), str(c.loc.value)), parts=parts)


def _paid_to_as_of(c: _Ctx) -> dict:
    ai = c.report["additional_interest"]
    pays = [p for p in ai["payments"] if p["paid_events"]]
    ids = [i for p in pays for i in _paid_events(c, p, None)]
    return c.node(f"Additional Interest paid to {c.report['as_of']}: {c.loc.value}",
                  clause="RRA §3(b)", events=ids, rule="the sum of AdditionalInterestPaid",
                  arithmetic=_sum_text([p["paid_total"] for p in pays], str(c.loc.value)))


def _defaults_of(c: _Ctx, indices: Iterable[int]) -> list[dict]:
    ds = c.report["registration"]["defaults"]
    return [c.from_basis(ds[k]["basis"], f"Registration Default {ds[k]['kind']} "
                                         f"(default date {ds[k]['default_date']})")
            for k in indices if 0 <= k < len(ds)]


def _episode(c: _Ctx) -> dict:
    ep = c.loc.at(3)
    return c.node(f"default episode {ep['episode']}: {ep['start']} to {ep['end']}",
                  clause="RRA §3(a)", interpretations=["overlapping_defaults"],
                  rule="overlapping or adjacent Registration Defaults form one episode with one "
                       "rate clock; a new episode after a cure starts again at the first rate",
                  parts=_defaults_of(c, ep["defaults"]))


def _rate_segment(c: _Ctx) -> dict:
    s = c.loc.at(3)
    return c.from_basis(s["basis"], f"rate {s['rate']}% from {s['start']} to {s['last_day']}",
                        topic="rate", parts=_defaults_of(c, s["defaults"]))


def _deal_opened(c: _Ctx) -> list[str]:
    """The id of the ``DealOpened`` whose terms the report used: the latest one recorded
    by the report's known_at (a deal opened again after its first ``DealOpened`` was
    retracted has a later one, and only ever one in force)."""
    from ledger.events import format_timestamp

    known_at = c.report.get("known_at")
    opened = [e for e in c.events.values() if e.type == "DealOpened"
              and (known_at is None or format_timestamp(e.recorded_at) <= known_at)]
    return [max(opened, key=lambda e: e.seq).id] if opened else []


def _day_count(c: _Ctx) -> dict:
    return c.node(f"day count {c.loc.value}", rule="the deal's day_count term (SPEC §2): "
                  "30/360 US unless the terms say otherwise", events=_deal_opened(c))


def _accrued_through(c: _Ctx) -> dict:
    return c.node(f"days counted through {c.loc.value}", clause="RRA §3(a)",
                  rule="Additional Interest is counted up to and including as_of")


# ------------------------------------------------------------------- suspensions


def _limits(c: _Ctx) -> Mapping[str, Any]:
    return c.report["suspensions"]


def _period_node(c: _Ctx, p: Mapping[str, Any]) -> dict:
    end = p["end"] or f"{c.report['as_of']} (still open)"
    return c.node(f"Suspension Period from {p['start']}: {p['days']} days",
                  clause="RRA §4(b)(i), §4(c)", events=p["events"],
                  rule="a Suspension Period covers the days from SuspensionStarted to the day "
                       "before SuspensionEnded (an open one counts through as_of)",
                  arithmetic=f"{p['start']} up to {end}: {p['days']} days")


def _suspension_period(c: _Ctx) -> dict:
    p = c.loc.at(3)
    field = c.loc.trail[3][1] if len(c.loc.trail) > 3 else None
    if field == "last_permitted_day":
        limit = (_limits(c)["limit_90_material"] if p["material_transaction"]
                 else _limits(c)["limit_90"])
        return c.node(f"its {limit}th day: {p['last_permitted_day']}", clause="RRA §3(a)(iv)(A)",
                      events=p["events"],
                      rule="a Suspension Period must end by its 45th day (60th with a material "
                           "transaction): start + 44 (59) days",
                      arithmetic=f"{p['start']} + {limit - 1} days = {p['last_permitted_day']}",
                      parts=[_period_node(c, p)])
    return _period_node(c, p)


def _window_days(c: _Ctx, length: int) -> tuple[list[str], list[Mapping[str, Any]]]:
    as_of = date.fromisoformat(c.report["as_of"])
    first = as_of - timedelta(days=length - 1)
    counts, used = [], []
    for p in _limits(c)["periods"]:
        start = date.fromisoformat(p["start"])
        stop = date.fromisoformat(p["end"]) if p["end"] else as_of + timedelta(days=1)
        days = (min(stop, as_of + timedelta(days=1)) - max(start, first)).days
        if days > 0:
            counts.append(str(days))
            used.append(p)
    return counts, used


def _trailing(c: _Ctx) -> dict:
    key = c.loc.trail[-1][1]
    length = 90 if key.endswith("90") else 360
    counts, used = _window_days(c, length)
    return c.node(f"suspended days in the {length} days ending {c.report['as_of']}: "
                  f"{c.loc.value}", clause="RRA §4(b)(i), §3(a)(iv)(B)",
                  rule=f"days of Suspension Periods inside the trailing {length}-day window",
                  arithmetic=_sum_text(counts, str(c.loc.value)),
                  parts=[_period_node(c, p) for p in used])


def _suspension_figure(c: _Ctx) -> dict:
    key = c.loc.trail[-1][1]
    s = _limits(c)
    if key.startswith("max_"):
        length = key.split("_")[1]
        end = s.get(f"max_{length}_window_end")
        most = s[f"max_{length}"]
        return c.node(f"most suspended days in any {length}-day window so far: {most}",
                      clause="RRA §4(b)(i), §3(a)(iv)(B)",
                      rule=f"the largest total of suspended days in a {length}-day window "
                           "ending on or before as_of",
                      arithmetic=f"the window ending {end} holds {most} days",
                      parts=[_period_node(c, p) for p in s["periods"]])
    if key.startswith("remaining_"):
        rest = key[len("remaining_"):]
        limit = s[f"limit_{rest}"]
        used = s["trailing_360" if rest == "360" else "trailing_90"]
        return c.node(f"suspension days still allowed ({rest}): {c.loc.value}",
                      clause="RRA §4(b)(i)", rule="the limit less the days in the trailing window",
                      arithmetic=(f"{limit} - {used} = {c.loc.value}" if limit >= used
                                  else f"max(0, {limit} - {used}) = 0"))
    if key.startswith("limit_"):
        return c.node(f"suspension limit {key}: {c.loc.value}", clause="RRA §4(b)(i), §3(a)(iv)",
                      rule="45 days in any 90-day period (60 with a material transaction), 90 "
                           "in any 360-day period (the deal's suspension_limits term)")
    if key.startswith("grows_"):
        return c.node(f"the allowance grows again on {c.loc.value}", clause="RRA §4(b)(i)",
                      rule="the first day the trailing window drops a suspended day, assuming "
                           "no suspension after as_of")
    return _generic(c)


def _breach(c: _Ctx) -> dict:
    b = c.loc.at(3)
    return c.from_basis(b["basis"], f"suspension breach ({b['kind']}) from {b['first_day']} to "
                                    f"{b['last_day']}")


# ------------------------------------------------------------ deadlines and consents


def _deadline(c: _Ctx) -> dict:
    o = c.loc.at(2)
    return c.from_basis(o["basis"], f"{o['obligation']}: due {o['due']}, {o['status']}")


def _majority(c: _Ctx) -> dict:
    m = c.loc.at(2)
    node = c.from_basis(m["basis"], f"consent to {c.loc.trail[1][1]!r}: {m['share']} of the "
                                    f"principal counted, majority {str(m['majority']).lower()}")
    field = c.loc.trail[2][1] if len(c.loc.trail) > 2 else None
    if field == "share" and Decimal(m["total"]):
        share = Fraction(Decimal(m["consenting"])) / Fraction(Decimal(m["total"]))
        node["arithmetic"] = (f"{m['consenting']} / {m['total']} = {_show(share)} → "
                              f"{m['share']}")
        _recheck_node(node)
    elif field == "total":
        node["arithmetic"] = None
        node["checks"] = []
        node["rule"] = ("the principal of the Notes outstanding, restricted conversion shares at "
                        "shares × conversion price, less what the company and its affiliates "
                        "hold (RRA §10(H))")
    return node


def _notice(c: _Ctx) -> dict:
    n = c.loc.at(2)
    return c.from_basis(n["basis"], f"notice to {n['to']} by {n['method']}: deemed given "
                                    f"{n['deemed_given']}")


# ----------------------------------------------------------------- true-up explainers


def _driven_text(ex: Mapping[str, Any]) -> str:
    """The vesting that sets what an exercise has earned, with the A, B, C, P and P' of
    its adjustment (issue 13: headline true-up figures show them)."""
    d = ex.get("driven_by")
    if not d:
        return ""
    shown = ", ".join(f"{k} {d[k]}" for k in ("A", "B", "C", "P", "P'") if k in d)
    return f"; driven by the vesting of {d['date']}" + (f": {shown}" if shown else "")


def _exercise_node(c: _Ctx, ex: Mapping[str, Any]) -> dict:
    node = c.from_basis(ex["basis"], f"{ex['type']} of {ex['instrument']} on {ex['date']}: "
                                     f"owed {ex['owed']}, issued {ex['issued']}"
                                     f"{_driven_text(ex)}")
    if ex.get("vestings"):
        best = max(ex["vestings"], key=lambda s: s["x"])
        earned = f"{best['x']} - {ex['shares_issued']} = {ex['owed']}"
        if best["x"] < ex["shares_issued"]:
            earned = f"max(0, {best['x']} - {ex['shares_issued']}) = 0"
        node["arithmetic"] = (f"{node['arithmetic']}; owed (earned so far) = the largest x "
                              f"({best['x']}, at the vesting of {best['date']}) less the "
                              f"shares issued at the exercise: {earned}; over_issued = "
                              f"max(0, {ex['issued']} - {ex['owed']}) = {ex['over_issued']}")
        _recheck_node(node)
    return node


def _exercise(c: _Ctx) -> dict:
    ex = c.loc.at(3)
    if len(c.loc.pattern) > 4 and c.loc.pattern[3] == "vestings":
        k = c.loc.trail[4][1]
        parts = ex["basis"].get("parts") or []
        if k < len(parts):
            step = ex["vestings"][k]
            node = c.from_basis(parts[k], f"the vesting of {step['date']} for {ex['instrument']}"
                                          f": x = {step['x']}, y = {step['y']}, owed "
                                          f"{step['owed']}")
            before = ex["vestings"][k - 1]["earned"] if k else 0
            now = step["x"] - ex["shares_issued"]
            earned = (f"earned = {step['x']} - {ex['shares_issued']} = {step['earned']}"
                      if now >= before and now >= 0 else f"earned stays {step['earned']}")
            if "increment" in step:
                earned += f"; increment = {step['earned']} - {before} = {step['increment']}"
            node["arithmetic"] = f"{node['arithmetic']}; {earned}"
            _recheck_node(node)
            if not node["parts"]:   # a report made before x carried its day's P'
                node["parts"] += [
                    c.from_basis(a["basis"], f"the price at the vesting: {a['before']} → "
                                             f"{a['after']}")
                    for a in c.report["true_up"].get("adjustments", [])
                    if a["event"] == step["event"] and a["instrument"] == ex["instrument"]]
            return node
    return _exercise_node(c, ex)


def _totals_node(c: _Ctx, title: str, field: str, rows: list[Mapping[str, Any]],
                 extra: int = 0) -> dict:
    values = [str(r[field]) for r in rows] + ([str(extra)] if extra else [])
    return c.node(title, clause="Letter ¶3",
                  rule=f"the sum of {field} over the exercises and conversions"
                       + (" and true-up shares credited to no exercise" if extra else ""),
                  arithmetic=_sum_text(values, str(c.loc.value)),
                  parts=[_exercise_node(c, r) for r in rows])


def _unallocated(c: _Ctx, instruments: set[str]) -> int:
    return sum(d.get("unallocated", 0) for d in c.report["true_up"].get("discrepancies", [])
               if d.get("kind") == "true_up_over_issued" and d.get("instrument") in instruments)


def _trueup_holder(c: _Ctx) -> dict:
    holder, field = c.loc.trail[2][1], c.loc.trail[-1][1]
    t = c.report["true_up"]
    if field not in ("owed", "issued", "outstanding", "over_issued"):
        return _generic(c)
    rows = [e for e in t["exercises"] if e["holder"] == holder]
    mine = {i["instrument"] for i in t["instruments"] if i["holder"] == holder}
    extra = _unallocated(c, mine) if field in ("issued", "over_issued") else 0
    return _totals_node(c, f"true-up shares {field} for {holder}: {c.loc.value}", field, rows,
                        extra)


def _instrument(c: _Ctx) -> dict:
    inst = c.loc.at(3)
    t = c.report["true_up"]
    field = c.loc.trail[3][1] if len(c.loc.trail) > 3 else None
    name = inst["instrument"]
    adjustments = [a for a in t.get("adjustments", []) if a["instrument"] == name]
    adj_nodes = [c.from_basis(a["basis"], f"{a['cause']} {a['date']}: {a['before']} → "
                                          f"{a['after']}") for a in adjustments]
    deferred = ("deferred_price_if_all_vest", "deferred_shares_if_all_vest")
    if field in deferred and inst.get("deferred_basis"):
        return c.from_basis(inst["deferred_basis"], f"{name} if every unvested Camden Warrant "
                                                    f"vested: price "
                                                    f"{inst['deferred_price_if_all_vest']}, shares "
                                                    f"{inst['deferred_shares_if_all_vest']}")
    if field in ("owed", "issued", "outstanding", "over_issued"):
        rows = [e for e in t["exercises"] if e["instrument"] == name]
        extra = _unallocated(c, {name}) if field in ("issued", "over_issued") else 0
        return _totals_node(c, f"true-up shares {field} for {name}: {c.loc.value}", field, rows,
                            extra)
    if field == "price_history" and len(c.loc.trail) > 4:
        h = c.loc.at(5)
        k = next((k for k, a in enumerate(adjustments) if a["event"] == h["event"]), None)
        before = len(c.loc.trail) > 5 and c.loc.trail[5][1] == "before"
        if k is not None and not (before and k == 0):
            return adj_nodes[k - 1] if before else adj_nodes[k]
    registered = c.events.get(inst["registered"])
    data = registered.data if registered is not None else {}
    warrant = inst["kind"] == "warrant"
    first = data.get("exercise_price") if warrant else data.get("conversion_price")
    chain = " → ".join([_plain(first) or "?"] + [a["after"] for a in adjustments])
    clause = f"Letter ¶2; {inst['clause']}"
    if field == "shares":
        units = data.get("shares") if warrant else data.get("quantity")
        unit_value = data.get("exercise_price") if warrant else data.get("stated_value")
        remaining = 1 - Decimal(inst["exercised_fraction"])
        portion = f"{_plain(remaining)} × " if remaining != 1 else ""
        text = (f"{portion}{units} × {_plain(unit_value)} / {inst['price']} = {inst['shares']} "
                "(rounded down)")
        return c.node(f"{name}: {inst['shares']} shares at {inst['price']}", clause=clause,
                      events=[inst["registered"]],
                      rule="the part not yet exercised × the registered aggregate (shares × "
                           "exercise price, or quantity × stated value) / the price in force, "
                           "rounded down",
                      arithmetic=text, parts=adj_nodes)
    if field == "exercised_fraction":
        ids = [e["event"] for e in t["exercises"] if e["instrument"] == name]
        return c.node(f"{name}: {inst['exercised_fraction']} exercised or converted",
                      clause="Letter ¶3", events=ids,
                      rule="each exercise or conversion takes a fraction of what remains")
    return c.node(f"{name}: price {inst['price']}", clause=clause,
                  events=[inst["registered"], *(a["event"] for a in adjustments)],
                  rule="the registered price, then each adjustment in force (Camden vestings "
                       "under Letter ¶2, and AdjustmentRecorded events) in date order",
                  arithmetic=f"registered at {chain}", parts=adj_nodes)


def _adjustment(c: _Ctx) -> dict:
    a = c.loc.at(3)
    return c.from_basis(a["basis"], f"{a['cause']} {a['date']} for {a['instrument']}: "
                                    f"{a['before']} → {a['after']}")


def _vesting(c: _Ctx) -> dict:
    v = c.loc.at(3)
    t = c.report["true_up"]
    day = v.get("adjusted_with") or v["event"]   # one adjustment per vesting day (SPEC §5.2)
    adjustments = [a for a in t.get("adjustments", []) if a["event"] == day]
    return c.node(f"{v['warrants']} Camden Warrants of {v['holder']} vested {v['date']}",
                  clause="Letter ¶2",
                  events=[v["event"], *(tr["issuance"] for tr in v["tranches"])],
                  rule="as Camden Warrants become Vested Warrants the deferred anti-dilution "
                       "applies, for the vested warrants only, to every instrument still held",
                  parts=[c.from_basis(a["basis"], f"{a['instrument']}: {a['before']} → "
                                                  f"{a['after']}") for a in adjustments])


def _camden(c: _Ctx) -> dict:
    holder = c.loc.trail[2][1]
    field = c.loc.trail[-1][1]
    types = {"issued": ("CamdenWarrantsIssued",), "vested": ("CamdenWarrantsVested",),
             "cancelled": ("CamdenWarrantsCancelled",),
             "unvested": ("CamdenWarrantsIssued", "CamdenWarrantsVested",
                          "CamdenWarrantsCancelled")}.get(field, ())
    as_of = c.report["as_of"]
    ids = [e.id for e in sorted(c.events.values(), key=lambda e: (e.date, e.seq))
           if e.type in types and e.data.get("holder") == holder and e.date.isoformat() <= as_of]
    row = c.loc.at(3)
    text = (f"{row['issued']} - {row['vested']} - {row['cancelled']} = {row['unvested']}"
            if field == "unvested" else None)
    return c.node(f"Camden Warrants {field} for {holder}: {c.loc.value}", clause="Letter ¶2",
                  events=ids, rule="Camden Warrants are issued unvested, then vest or are "
                                   "cancelled (retracted events aside)", arithmetic=text)


def _capitalization(c: _Ctx) -> dict:
    cap = c.report["true_up"]["capitalization"] or {}
    return c.node(f"capitalization: {cap.get('common_outstanding')} shares recorded "
                  f"{cap.get('date')}", clause="Letter ¶2", events=[cap["event"]] if cap else [],
                  rule="the latest CapitalizationRecorded (A in the weighted-average formula), "
                       "plus Camden Warrants vested since, deemed outstanding")


def _deal_term(c: _Ctx) -> dict:
    key = c.loc.trail[-1][1]
    clause = "Letter ¶3" if key == "true_up_cutoff" else None
    return c.node(f"{key}: {c.loc.value}", clause=clause, events=_deal_opened(c),
                  rule="a term of the deal, from its DealOpened event")


# ------------------------------------------------------------------ generic fallback


def _generic(c: _Ctx) -> dict:
    """The nearest basis above the figure; else the events of the nearest entry; else
    the figure is an input of the computation (deal, as_of, known_at, interpretations)."""
    trail = c.loc.trail
    for depth in range(len(trail), -1, -1):
        node = c.loc.at(depth)
        basis = node.get("basis") if isinstance(node, dict) else None
        if isinstance(basis, dict) and "rule" in basis:
            return c.from_basis(node["basis"], f"{c.loc.path} = {_as_text(c.loc.value)}")
        if isinstance(node, dict) and isinstance(node.get("clause"), str) and "rule" in node:
            return c.from_basis(node, f"{c.loc.path} = {_as_text(c.loc.value)}")
    if c.loc.pattern[:1] == ("interpretations",) and len(trail) == 2:
        name = trail[1][1]
        return c.node(f"interpretation {name} = {c.loc.value}", interpretations={name: c.loc.value},
                      clause=REGISTRY[name].clause if name in REGISTRY else None,
                      rule="a named interpretation in force for this computation (SPEC §6)")
    for depth in range(len(trail), 0, -1):
        node = c.loc.at(depth)
        if isinstance(node, dict) and (node.get("events") or node.get("event")):
            ids = node.get("events") or [node["event"]]
            return c.node(f"{c.loc.path} = {_as_text(c.loc.value)}", events=ids,
                          rule="reported from these events")
    if len(trail) == 1 and trail[0][1] in ("deal", "kind", "as_of", "known_at"):
        return c.node(f"{trail[0][1]} = {_as_text(c.loc.value)}",
                      rule="an input of the computation: the deal, the day the figures are "
                           "judged on (as_of) and the recorded time they are known at (known_at)")
    return c.node(f"{c.loc.path} = {_as_text(c.loc.value)}",
                  rule="reported by the engine; it records no further basis for this figure")


_R = ("registration",)
_AI = ("additional_interest",)
_S = ("suspensions",)
_T = ("true_up",)
_PAY = _AI + ("payments", "[]")

#: (pattern prefix, exact?, explainer), most specific first.
EXPLAINERS: tuple[tuple[tuple[str, ...], bool, Any], ...] = (
    (_R + ("defaults", "[]"), False, _default_item),
    (_R + ("filing_deadline",), True, _shelf_deadline("RRA §2(a)(i)", "Shelf Filing Deadline")),
    (_R + ("effectiveness_deadline",), True,
     _shelf_deadline("RRA §2(a)(ii)", "Effectiveness Target Date")),
    (_R + ("filed_on",), True, _shelf_event("RRA §2(a)(i)", "ShelfFiled", "filed")),
    (_R + ("effective_on",), True,
     _shelf_event("RRA §2(a)(ii)", "ShelfEffective", "declared effective")),
    (_R + ("effectiveness_period_end",), True, _period_end),
    (_R + ("in_default",), True, _in_default),
    (_PAY + ("amounts", "*"), True, _payment_amount),
    (_PAY + ("basis", "*"), False, _payment_amount),
    (_PAY + ("total",), True, _payment_total),
    (_PAY + ("paid", "*"), True, _paid_holder),
    (_PAY + ("paid_total",), True, _paid_total),
    (_PAY + ("status",), True, _payment_status),
    (_PAY + ("late",), True, _payment_status),
    (_PAY, False, _payment_schedule),
    (_AI + ("by_holder", "*"), True, _holder_total),
    (_AI + ("accrued_to_as_of",), True, _accrued_total),
    (_AI + ("paid_to_as_of",), True, _paid_to_as_of),
    (_AI + ("episodes", "[]"), False, _episode),
    (_AI + ("rate_segments", "[]"), False, _rate_segment),
    (_AI + ("day_count",), True, _day_count),
    (_AI + ("accrued_through",), True, _accrued_through),
    (_S + ("periods", "[]"), False, _suspension_period),
    (_S + ("breaches", "[]"), False, _breach),
    (_S + ("trailing_90",), True, _trailing),
    (_S + ("trailing_360",), True, _trailing),
    (_S, False, _suspension_figure),
    (("deadlines", "[]"), False, _deadline),
    (("majority", "*"), False, _majority),
    (("notices", "[]"), False, _notice),
    (_T + ("exercises", "[]"), False, _exercise),
    (_T + ("holders", "*"), False, _trueup_holder),
    (_T + ("instruments", "[]"), False, _instrument),
    (_T + ("adjustments", "[]"), False, _adjustment),
    (_T + ("vestings", "[]"), False, _vesting),
    (_T + ("camden", "*"), False, _camden),
    (_T + ("capitalization",), False, _capitalization),
    (_T + ("formula",), True, _deal_term),
    (_T + ("true_up_cutoff",), True, _deal_term),
    (_T + ("price_decimals",), True, _deal_term),
)


def _explainer(pattern: tuple[str, ...]):
    for prefix, exact, fn in EXPLAINERS:
        if pattern == prefix or (not exact and pattern[:len(prefix)] == prefix):
            return fn
    return _generic


def _prune(node: dict, depth: int | None) -> dict:
    if depth is None:
        return node
    if depth <= 0:
        return {**node, "parts": [], "parts_omitted": len(node["parts"])} if node["parts"] else node
    return {**node, "parts": [_prune(p, depth - 1) for p in node["parts"]]}


#: Figures an explanation computes (the others are its inputs, dates or labels).
RESULT_FIELDS = frozenset({
    "total", "paid_total", "accrued_to_as_of", "paid_to_as_of", "owed", "issued",
    "outstanding", "over_issued", "entitled", "earned", "increment", "x", "y", "price",
    "shares", "after", "deferred_price_if_all_vest", "deferred_shares_if_all_vest",
    "consenting", "share", "trailing_90", "trailing_360", "remaining_90",
    "remaining_90_material", "remaining_360", "unvested"})


def _is_result(loc: Located) -> bool:
    """Whether the figure is one an explanation's arithmetic ends on (``reproduces_figure``)."""
    if not loc.trail or not isinstance(loc.trail[-1][1], str):
        return False
    if loc.pattern[-1] == "*" and len(loc.pattern) > 1 and loc.pattern[-2] in (
            "amounts", "by_holder", "paid"):
        return True
    key = loc.trail[-1][1]
    if key == "price" and "exercises" in loc.pattern:
        return False  # the price at a vesting is an input of x
    return key in RESULT_FIELDS and not ("price_history" in loc.pattern and key != "after")


def _results(node: dict) -> list[str]:
    """The numbers the arithmetic states as results (right of ``=``, ``→`` or ``owed``);
    the only part's, if the node has none."""
    found = re.findall(r"(?:=|→|owed)\s*(-?\d+(?:\.\d+)?)(?![\d-])", node["arithmetic"] or "")
    if not found and len(node["parts"]) == 1:
        return _results(node["parts"][0])
    return found


def explain(report: Mapping[str, Any], figure: str, events: Iterable[Any] | Mapping[str, Any],
            *, depth: int | None = None) -> dict[str, Any]:
    """How ``figure`` (a path, module doc) of ``report`` was computed, as data.

    ``events`` are the deal's stored events (or a mapping of id to event) so that each
    input can show its type, date, source and recording. ``depth`` limits how many levels
    of parts are kept. ``FigureError`` if the path does not name a figure of the report."""
    by_id = events if isinstance(events, Mapping) else {e.id: e for e in events}
    loc = locate(report, figure)
    ctx = _Ctx(report, by_id, loc)
    tree = _explainer(loc.pattern)(ctx)
    checks_ok = all(ch["ok"] for ch in _all_checks(tree))
    not_rechecked = list(_all_unchecked(tree))
    value = strip_basis(loc.value)
    results = _results(tree)
    reproduces = None
    if (results and _is_result(loc) and isinstance(value, (str, int))
            and not isinstance(value, bool)):
        try:
            reproduces = Decimal(str(value)) in {Decimal(r) for r in results}
        except InvalidOperation:
            reproduces = None
    return {"deal": report.get("deal"), "as_of": report.get("as_of"),
            "known_at": report.get("known_at"), "figure": loc.path, "value": value,
            "arithmetic_checks_ok": checks_ok, "reproduces_figure": reproduces,
            "arithmetic_unchecked": not_rechecked,
            "explanation": _prune(tree, depth)}


def _all_checks(node: dict) -> Iterable[dict]:
    yield from node["checks"]
    for p in node["parts"]:
        yield from _all_checks(p)


def _all_unchecked(node: dict) -> Iterable[str]:
    """Statements of the tree that were not re-checked (``unchecked``)."""
    yield from node.get("unchecked", ())
    for p in node["parts"]:
        yield from _all_unchecked(p)
