"""An agreement's layout: its sections, their numbering and headings, its definitions, and
where each sentence and clause of it sits, so that a term read from the text carries its
section ("RRA §2(a)(i)", "RRA §1 Closing Date", "Registration Defaults (a)").

The text (plain, or an EDGAR exhibit's HTML, which is turned into text first) is read as
paragraphs. A paragraph is numbered by what begins it:

* ``2. Shelf Registration.``: a section (the next number after the last one);
* ``(a)``, ``(ii)``, ``(B)``, ``(x)``: an item, nested by the sequence its label continues
  (``(i)`` after ``(h)`` is a letter; ``(i)`` that starts a list is a roman numeral) and by
  its indentation (a paragraph indented less than a list's items is back outside it);
* ``CLOSING DATE: ...`` or ``"Closing Date" means ...``: a definition ("RRA §1 Closing
  Date");
* ``EXHIBIT A``: a part of its own ("RRA Exhibit A").

Inside a paragraph, labels in the running text (``... the earliest of (x) ..., (y) ...``)
are items too, when they form a list (a first label, then its successors); a label after
"Section", "clause", "paragraph" or "through" is a reference, not an item. An agreement
without numbered sections (an excerpt) cites a paragraph by its heading
("Registration Defaults. If ..." is "Registration Defaults").

Nothing here knows a term: ``Agreement`` answers where a position is (``section``), the
clause around it (``clause``) and what the text defines (``definition``).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import cached_property

from .labels import LABEL, continues, first_kind, has_successor, kinds

#: words after which a label is a reference to a clause, not an item of a list
_REFERENCE_WORDS = {"section", "sections", "clause", "clauses", "paragraph", "paragraphs",
                    "subsection", "subsections", "subparagraph", "rule", "item", "items",
                    "through", "to", "exhibit", "annex", "article", "schedule"}
_ABBREVIATIONS = {"inc", "co", "corp", "ltd", "no", "nos", "sec", "u.s", "l.p", "i.e", "e.g",
                  "etc", "v", "vs", "mr", "ms", "st", "jr", "n.a", "s.a", "l.l.c", "p.o"}


@dataclass
class Node:
    """A numbered place of the agreement: a section, an item, a definition, a part.

    ``labels``: its numbering from the top ("2", "(a)", "(i)"; a definition's term);
    ``kinds``: each label's sequence kind; ``start``/``end``: its span of the flat text
    (an item's span runs to its next sibling); ``body``: where its words begin (after
    its label and heading)."""

    labels: tuple[str, ...]
    kinds: tuple[str, ...]
    start: int
    end: int
    body: int
    heading: str | None = None
    part: str = "body"
    indent: int = 0
    inline: bool = False
    children: list["Node"] = field(default_factory=list)
    parent: "Node | None" = None


@dataclass(frozen=True)
class Definition:
    """A defined term: where it is defined and the words that define it."""

    term: str
    start: int
    end: int
    where: str


# --------------------------------------------------------------------------- text


def plain_text(raw: str) -> str:
    """``raw`` as plain text: an HTML exhibit's tags dropped (a paragraph, a row ends a
    paragraph; a line break ends a line, two end a paragraph), its entities decoded;
    typographic quotes made plain."""
    if re.search(r"<(?:html|body|p|div|table|font|br)\b", raw, re.I):
        raw = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", raw)
        raw = re.sub(r"(?i)</(?:p|div|tr|li|h\d|table)>", "\n\n", raw)
        raw = re.sub(r"(?i)[ \t]*<br\s*/?>[ \t]*\n?", "\n", raw)
        raw = re.sub(r"(?i)<t[dh]\b[^>]*>", " ", raw)     # a table's cells: words apart
        raw = re.sub(r"(?s)<[^>]+>", "", raw)             # inline tags: no space of their own
        raw = html.unescape(raw)
    for bad, good in (("\r\n", "\n"), ("\r", "\n"), ("\xa0", " "), ("\t", "    "),
                      ("\u201c", '"'), ("\u201d", '"'), ("\u2018", "'"), ("\u2019", "'"),
                      ("\u2013", "-"), ("\u2014", "--")):
        raw = raw.replace(bad, good)
    return raw


def flat(text: str) -> str:
    """``text`` with every run of white space one space."""
    return " ".join(text.split())


def title_case(term: str) -> str:
    """A definition's term as a citation names it: "TRANSFER RESTRICTED SECURITIES" is
    "Transfer Restricted Securities"; a term already in mixed case stays as it is."""
    if term != term.upper():
        return term
    small = {"of", "or", "and", "the", "in", "to", "for", "a", "an", "on", "by"}
    words = term.lower().split()
    keep = {"tia", "nasd", "sec"}
    return " ".join(w.upper() if w in keep else w if (i and w in small) else w.capitalize()
                    for i, w in enumerate(words))


# --------------------------------------------------------------------- paragraphs


@dataclass
class _Para:
    text: str
    indent: int


def _paragraphs(text: str) -> list[_Para]:
    """Paragraphs: runs of non-blank lines; a line that starts with an item's label after
    a line ending ":" or ";" starts one too. Page marks and a table of contents are left
    out."""
    out: list[_Para] = []
    lines: list[str] = []

    def close() -> None:
        if lines:
            body = flat(" ".join(lines))
            if body and not _is_furniture(body):
                out.append(_Para(body, len(lines[0]) - len(lines[0].lstrip())))
            lines.clear()

    for line in text.split("\n"):
        if not line.strip():
            close()
            continue
        if lines and re.match(rf"\s*{LABEL}\s", line) and re.search(r"[:;]\s*$", lines[-1]):
            close()
        lines.append(line)
    close()
    return out


def _is_furniture(body: str) -> bool:
    return bool(re.fullmatch(r"<PAGE>|\d{1,3}|-\s*\d{1,3}\s*-|PAGE|TABLE OF CONTENTS", body)
                or re.search(r"\.{5,}\s*\d+$", body))


_SECTION = re.compile(r"(?:(?:SECTION|Section)\s+)?(\d{1,2})\.\s+(?=\S)")
_HEADING = re.compile(r"((?:[A-Z][A-Za-z'&/-]*|of|and|or|the|to|for|in|on|by)"
                      r"(?:\s+(?:[A-Z][A-Za-z'&/-]*|of|and|or|the|to|for|in|on|by)){0,6})"
                      r"\.\s+(?=[A-Z(\"])")
_CAPS_DEFINITION = re.compile(r"([A-Z][A-Z0-9'&/,-]*(?:\s+[A-Z0-9'&/,-]+){0,7})\s*[:.]\s+")
_QUOTED_DEFINITION = re.compile(r'"([^"]{2,80})"\s+(?:means|shall mean|has the meaning|'
                                r'have the meaning|shall have the meaning|includes|refers to)\b')
_PART = re.compile(r"(EXHIBIT|Exhibit|ANNEX|Annex|SCHEDULE|Schedule)\s+([A-Z0-9]{1,3})")


def _section_heading(rest: str) -> re.Match | None:
    """The heading after a section's number: "Shelf Registration." (alone, or before its
    first sentence)."""
    return _HEADING.match(rest) or re.match(r"([^.]{1,60})\.\s*$", rest)


class Agreement:
    """An agreement's text, read for its layout (module doc)."""

    def __init__(self, raw: str, *, cite_as: str = "RRA"):
        self.cite_as = cite_as
        self.text = ""
        self.root = Node((), (), 0, 0, 0)
        self.nodes: list[Node] = []
        self._read(plain_text(raw))

    # -- reading ---------------------------------------------------------------

    def _read(self, text: str) -> None:
        paras = _paragraphs(text)
        pieces: list[str] = []
        offset = 0
        part = "body"
        section: Node | None = None
        numbered = any(self._section_number(p.text) is not None and _section_heading(
            p.text[_SECTION.match(p.text).end():]) for p in paras)
        self.numbered = numbered
        # HTML whose paragraphs lost their indentation (<p> for each, no leading spaces):
        # a paragraph of running text after a list cannot be told from the last item's
        # own continuation by its indent
        flat_layout = len({p.indent for p in paras}) == 1 and len(paras) > 1
        part = "preamble" if numbered else "body"
        last_number = 0
        stack: list[Node] = []          # items open under the section (or the part)
        for para in paras:
            start = offset
            pieces.append(para.text)
            offset += len(para.text) + 1
            end = start + len(para.text)
            m = _PART.fullmatch(para.text) or (_PART.match(para.text)
                                               if len(para.text) < 40 else None)
            if m and len(para.text) < 40 and (last_number or not numbered):
                part = f"{m.group(1).capitalize()} {m.group(2)}"
                section = Node((), (), start, end, end, part=part)
                self._add(section, self.root)
                stack = []
                continue
            number = self._section_number(para.text)
            if numbered and part in ("preamble", "body") and number is not None and (
                    number == last_number + 1 or not last_number):
                last_number = number
                part = "body"
                head = _SECTION.match(para.text)
                rest = para.text[head.end():]
                heading = _section_heading(rest)
                body = head.end() + (heading.end() if heading else 0)
                section = Node((str(number),), ("arabic",), start, end, start + body,
                               heading=heading.group(1) if heading else None, part=part,
                               indent=-1)
                self._add(section, self.root)
                stack = []
                self._inline(section, start, para.text)
                continue
            parent_top = section or self.root
            label = re.match(rf"({LABEL})\s+", para.text)
            definition = self._definition_head(para.text, section)
            if label:
                node = self._item(label.group(1), para, start, end, stack, parent_top)
                rest = para.text[label.end():]
                heading = _HEADING.match(rest)
                if heading and heading.group(1).upper() == heading.group(1):
                    node.heading = heading.group(1)
                    node.body = start + label.end() + heading.end()
                else:
                    node.body = start + label.end()
                self._inline(node, node.body, para.text[node.body - start:])
                continue
            if definition is not None:
                term, body = definition
                node = Node((*parent_top.labels, title_case(term)),
                            (*parent_top.kinds, "term"), start, end, start + body,
                            part=part, indent=para.indent)
                self._add(node, parent_top)
                stack[:] = [node]
                self._inline(node, node.body, para.text[body:])
                continue
            # a paragraph of running text: inside the deepest item it is not outdented from
            if para.text[:1].islower() or re.match(r"\([a-z]{2,}", para.text):
                if stack and len(stack) > 1 and para.indent <= stack[-1].indent:
                    stack.pop()
            else:
                while stack and stack[-1].indent > para.indent:
                    stack.pop()
                # without indentation, a sentence that opens with a capital after an item
                # of a list closes the list: it belongs to the list's owner ("All such
                # notices ... shall be deemed to have been duly given" after §10(E)(ii))
                if flat_layout and len(stack) > 1 and stack[-1].kinds[-1] != "term":
                    stack.pop()
            owner = stack[-1] if stack else parent_top
            if owner is self.root and not numbered:
                heading = _HEADING.match(para.text)
                if heading and len(heading.group(1).split()) <= 6 and ":" not in heading.group(1):
                    owner = Node((heading.group(1),), ("heading",), start, end,
                                 start + heading.end(), heading=heading.group(1), part=part)
                    self._add(owner, self.root)
                    stack = [owner]
                    owner.indent = -1
                    self._inline(owner, owner.body, para.text[heading.end():])
                    continue
            self._extend(owner, end)
            self._inline(owner, start, para.text)
        self.text = "\n".join(pieces)
        self.root.end = len(self.text)
        self._close(self.root)

    @staticmethod
    def _section_number(text: str) -> int | None:
        m = _SECTION.match(text)
        return int(m.group(1)) if m else None

    def _definition_head(self, text: str, section: Node | None) -> tuple[str, int] | None:
        m = _QUOTED_DEFINITION.match(text)
        if m:
            return m.group(1), 0
        m = _CAPS_DEFINITION.match(text)
        if m and section is not None and (section.heading or "").lower().startswith("defin") \
                and len(m.group(1)) > 2 and not re.fullmatch(LABEL, m.group(1)):
            return m.group(1).rstrip(","), 0
        return None

    def _add(self, node: Node, parent: Node) -> None:
        node.parent = parent
        parent.children.append(node)
        self.nodes.append(node)
        self._extend(parent, node.end)

    def _extend(self, node: Node | None, end: int) -> None:
        while node is not None:
            node.end = max(node.end, end)
            node = node.parent

    def _item(self, label: str, para: _Para, start: int, end: int, stack: list[Node],
              top: Node) -> Node:
        """The item a labelled paragraph starts, placed by its label and indentation."""
        while stack and stack[-1].indent > para.indent and stack[-1].kinds[-1] != "term":
            stack.pop()
        # a label continuing an open list: a sibling of that list's last item
        for depth in range(len(stack) - 1, -1, -1):
            prev = stack[depth]
            kind = prev.kinds[-1]
            if kind != "term" and continues(label, kind, prev.labels[-1]):
                parent = prev.parent or top
                del stack[depth:]
                node = Node((*parent.labels, label), (*parent.kinds, kind), start, end,
                            start, part=top.part, indent=para.indent)
                self._add(node, parent)
                stack.append(node)
                return node
        first = first_kind(label) or kinds(label)[0]
        # a first label of a kind already open restarts that list (a second list of
        # (i)-(iv) in the same clause); else the list opens inside the last item
        for depth in range(len(stack) - 1, -1, -1):
            if stack[depth].kinds[-1] == first and first_kind(label):
                del stack[depth:]
                break
        parent = stack[-1] if stack else top
        node = Node((*parent.labels, label), (*parent.kinds, first), start, end, start,
                    part=top.part, indent=para.indent)
        self._add(node, parent)
        stack.append(node)
        return node

    def _inline(self, owner: Node, offset: int, text: str) -> None:
        """Items in the running text of a paragraph (module doc): children of ``owner``."""
        open_: list[Node] = []
        for m in re.finditer(rf"(?<![\w)(]){LABEL}(?=\s)", text):
            label = m.group(0)
            before = text[:m.start()].rstrip()
            word = re.search(r"([A-Za-z]+)\W*$", before)
            if word and word.group(1).lower() in _REFERENCE_WORDS:
                continue
            if re.search(r"\d$", before) or before.endswith(("Rule 144", "Section")):
                continue
            at = offset + m.start()
            placed = False
            for depth in range(len(open_) - 1, -1, -1):
                prev = open_[depth]
                if continues(label, prev.kinds[-1], prev.labels[-1]):
                    del open_[depth:]
                    parent = prev.parent
                    node = Node((*parent.labels, label), (*parent.kinds, prev.kinds[-1]),
                                at, offset + len(text), offset + m.end(), part=owner.part,
                                inline=True)
                    self._add(node, parent)
                    open_.append(node)
                    placed = True
                    break
            if placed:
                continue
            first = first_kind(label)
            if first is None or not has_successor(text[m.end():], label, first):
                continue                 # a list has a second item: "(i)" alone is a reference
            if first == "xyz" or not open_:
                open_ = []
                parent = owner
            else:
                parent = open_[-1]
            node = Node((*parent.labels, label), (*parent.kinds, first), at,
                        offset + len(text), offset + m.end(), part=owner.part, inline=True)
            self._add(node, parent)
            open_.append(node)
        self._extend(owner, offset + len(text))

    def _close(self, node: Node) -> None:
        """An item in the running text runs to its next sibling, the last one to the end
        of its sentence; an item that is a paragraph holds the paragraphs it owns."""
        kids = sorted(node.children, key=lambda n: n.start)
        node.children = kids
        for i, kid in enumerate(kids):
            if kid.inline:
                nxt = kids[i + 1] if i + 1 < len(kids) else None
                if nxt is not None and nxt.inline:
                    kid.end = min(kid.end, nxt.start - 1)
                else:
                    kid.end = min(kid.end, self.sentence(kid.body)[1])
            self._close(kid)

    # -- where things are ------------------------------------------------------

    def node_at(self, pos: int) -> Node:
        """The deepest numbered place holding ``pos``."""
        node = self.root
        while True:
            inner = [k for k in node.children if k.start <= pos < max(k.end, k.start + 1)]
            if not inner:
                return node
            node = inner[-1]

    def cite(self, node: Node) -> str:
        """How the agreement's clause ``node`` is cited: "RRA §2(a)(i)", "RRA §1 Closing
        Date", "RRA Exhibit A", "Registration Defaults (a)", "RRA preamble"."""
        labels, kinds = list(node.labels), list(node.kinds)
        if node.part not in ("body", "preamble"):
            return f"{self.cite_as} {node.part}" + "".join(labels)
        if not labels:
            return f"{self.cite_as} preamble" if node.part == "preamble" else self.cite_as
        out = ""
        for label, kind in zip(labels, kinds):
            if kind == "arabic" and not out:
                out = f"{self.cite_as} §{label}"
            elif kind in ("term", "heading"):
                out = f"{out} {label}".strip()
            else:
                out += (" " if out and out[-1] not in ")0123456789" else "") + label
        if kinds[0] not in ("arabic", "heading", "term"):
            out = f"{self.cite_as} {out}"
        if kinds[0] == "term" and not self.numbered:
            out = f"definition of {out}"
        return out

    def section(self, pos: int) -> str:
        node = self.node_at(pos)
        if node is self.root and self.numbered:
            first = next((n for n in self.root.children if n.kinds == ("arabic",)), None)
            if first is None or pos < first.start:
                return f"{self.cite_as} preamble"
        return self.cite(node)

    # -- sentences and clauses -------------------------------------------------

    @cached_property
    def _sentence_ends(self) -> list[int]:
        ends = []
        for m in re.finditer(r"[.!?](?=\s+[A-Z(\"]|\s*\n|\s*$)", self.text):
            word = re.search(r"([A-Za-z.]+)$", self.text[max(0, m.start() - 12):m.start()])
            if word and word.group(1).lower().rstrip(".") in _ABBREVIATIONS:
                continue
            if re.search(r"\b[A-Z]$", self.text[max(0, m.start() - 2):m.start()]):
                continue                                    # an initial: "J. P. Morgan"
            ends.append(m.end())
        return ends

    def sentence(self, pos: int) -> tuple[int, int]:
        """The span of the sentence holding ``pos`` (a sentence may run over the items of
        a list: "if: (i) ...; (ii) ...; ... the Company agrees to pay ...")."""
        import bisect

        ends = self._sentence_ends
        i = bisect.bisect_right(ends, pos)
        start = ends[i - 1] if i else 0
        end = ends[i] if i < len(ends) else len(self.text)
        while start < len(self.text) and self.text[start] in " \n":
            start += 1
        return start, end

    def paragraph(self, pos: int) -> tuple[int, int]:
        start = self.text.rfind("\n", 0, pos) + 1
        end = self.text.find("\n", pos)
        return start, (end if end >= 0 else len(self.text))

    def clause(self, pos: int, end: int | None = None) -> tuple[int, int]:
        """The clause around ``pos`` (to ``end``): from the item, ";", ":" or sentence
        that begins it to the ";", ":", ", then" or sentence end that ends it, outside
        parentheses."""
        end = pos if end is None else end
        node = self.node_at(pos)
        s0, s1 = self.sentence(pos)
        p0, p1 = self.paragraph(pos)
        lo = max(s0, p0, node.start if node.labels else 0)
        hi = min(max(s1, end), p1, node.end if node.labels and node.end > pos else p1)
        hi = max(hi, min(end, p1))
        start = pos
        depth = 0
        while start > lo:
            ch = self.text[start - 1]
            if ch == ")":
                depth += 1
            elif ch == "(":
                depth = max(0, depth - 1)
            elif ch in ";:" and depth == 0:
                break
            start -= 1
        stop = end
        depth = 0
        while stop < hi:
            ch = self.text[stop]
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(0, depth - 1)
            elif depth == 0 and (ch in ";:" or self.text.startswith(", then ", stop)):
                break
            stop += 1
        while start < stop and self.text[start] in " ,\n":
            start += 1
        while stop > start and self.text[stop - 1] in " ,;\n":
            stop -= 1
        return start, stop

    def quote(self, start: int, end: int) -> str:
        """The words from ``start`` to ``end``, on one line, a full stop dropped."""
        return flat(self.text[start:end]).rstrip(" ,;:")

    # -- definitions -------------------------------------------------------------

    @cached_property
    def definitions(self) -> dict[str, Definition]:
        """Every term the agreement defines, by its lower-case name: in a definitions
        section ("CLOSING DATE: The date of this Agreement."), by "X means", or in
        parentheses where it is used (``(the "SHELF FILING DEADLINE")``, ``(each such
        period, a "SUSPENSION PERIOD")``). A definition that only points elsewhere ("As
        defined in Section 2(a)(i) hereof") gives way to the place it points to; otherwise
        the first in the body wins."""
        out: dict[str, Definition] = {}
        pointers: set[str] = set()
        for node in self.nodes:
            if node.kinds[-1:] == ("term",):
                term = node.labels[-1]
                words = self.text[node.start:node.end]
                if re.match(r'"?[^:."]*"?[:.]?\s*(?:As defined in|has the meaning|have the '
                            r'meaning|shall have the meaning)', words):
                    pointers.add(term.lower())
                out.setdefault(term.lower(), Definition(term, node.start, node.end,
                                                        self.cite(node)))
        for m in _QUOTED_DEFINITION.finditer(self.text):
            term = m.group(1)
            if term.lower() in out and term.lower() not in pointers:
                continue
            node = self.node_at(m.start())
            if node.kinds[-1:] == ("term",) and node.start == m.start():
                continue
            where = (f"definition of {term}" if not self.numbered else
                     f"{self.cite(node)} {term}" if (node.heading or "").lower().startswith(
                         "defin") else self.section(m.start()))
            out[term.lower()] = Definition(term, m.start(), self.sentence(m.start())[1],
                                           where)
        for m in re.finditer(r'\((?:(?:[^()"]|\([^()]*\)){0,160}?,\s*)?(?:the|a|an)?\s*'
                             r'"([^"]{2,80})"\)', self.text):
            term = title_case(m.group(1))
            where = self.node_at(m.start())
            if where.part not in ("body", "preamble"):
                continue
            if term.lower() not in out or term.lower() in pointers:
                pointers.discard(term.lower())
                out[term.lower()] = Definition(term, m.start(), m.end(), self.section(m.start()))
        return out

    def definition(self, term: str) -> Definition | None:
        return self.definitions.get(term.lower())

    def points_elsewhere(self, term: str) -> bool:
        """``term``'s only definition points to another place ("has the meaning set
        forth in Section 3 hereof")."""
        d = self.definition(term)
        return d is not None and bool(re.match(
            r'"?[^:."]*"?[:.]?\s*(?:As defined in|has the meaning|have the meaning|shall '
            r'have the meaning)', self.text[d.start:d.end]))

    def definition_text(self, term: str) -> str | None:
        """The words defining ``term`` in a definitions section, the term itself left out."""
        d = self.definition(term)
        if d is None:
            return None
        return self.text[d.start:d.end]
