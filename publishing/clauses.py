"""One clause, explained (``deal-ledger clause REF``, as ``ruff rule CODE`` explains a rule).

``clause_page(ref)`` gathers, for one clause we cite: the contract's own words (cut from
the texts that ship in ``ledger/contracts/``), our plain statement of it
(``projections.clauses``), the rules that implement it (the engine functions whose
docstrings cite it, read from the loaded modules), the named interpretations that touch
it (``projections.interpretations``) and, given a deal's report and events, the figures
whose explanation relies on it. ``known_refs()`` lists every clause we cite.

A reference names a clause or a sub-clause; a rule, interpretation or figure citing a
sub-clause counts for its parent too (``RRA §3(a)`` gathers ``RRA §3(a)(iv)(A)``).
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import pkgutil
import re
from functools import lru_cache
from typing import Any, Iterable, Mapping

from ledger.errors import UsageError
from projections.clauses import CLAUSES, RATE_TIERS, Citation, citations, statement
from projections.interpretations import REGISTRY

RRA_FILE = "registration-rights-agreement-2004-06-30.txt"
LETTER_FILE = "letter-agreement-2002-02-01.txt"
#: the packages whose functions are rules
RULE_PACKAGES = ("projections.registration", "projections.trueup")


# ----------------------------------------------------------------------- references


def known_refs() -> list[str]:
    """Every clause we cite and state, in contract order."""
    return sorted(CLAUSES, key=_order)


def _order(ref: str) -> tuple:
    doc = {"RRA": 0, "Letter": 1}.get(ref.split(" ")[0], 2)
    numbers = [int(n) for n in re.findall(r"[§¶](\d+)", ref)]
    return (doc, numbers, ref)


def normalize(text: str) -> str:
    """``rra 2(b)``, ``RRA §2(b)``, ``RRA s2b``... → ``RRA §2(b)``; ``letter 2`` → ``Letter ¶2``."""
    text = " ".join(text.split())
    m = re.fullmatch(r"(?i)(rra|letter)\s*(?:§|¶|s(?=\d)|section\s*|para(?:graph)?\s*)?(.+)",
                     text)
    if not m:
        return text
    doc, rest = m.group(1).lower(), m.group(2)
    if doc == "letter":
        return f"Letter ¶{rest.lstrip('¶')}"
    head = re.match(r"(\d+)(.*)$", rest)
    if head is None:
        return f"RRA {rest}"
    number, tail = head.groups()
    if number == "1" and tail.strip() and not tail.startswith("("):
        return f"RRA §1 {_term(tail.strip())}"
    # 2b, 2(b), 3(a)(iv)A → parenthesized parts
    parts = re.findall(r"\(?([a-zA-Z]+|\d+)\)?", tail.replace(" ", ""))
    return f"RRA §{number}" + "".join(f"({p})" for p in parts)


def _term(text: str) -> str:
    """A §1 term as we spell it, matched without regard to case."""
    for ref in CLAUSES:
        if ref.startswith("RRA §1 ") and ref[7:].lower() == text.lower():
            return ref[7:]
    return text


def resolve(text: str) -> str:
    """The clause reference ``text`` names; ``UsageError`` naming the closest ones."""
    ref = normalize(text)
    if ref in CLAUSES:
        return ref
    close = difflib.get_close_matches(ref, known_refs(), n=3, cutoff=0.6)
    if not close:
        doc = ref.split(" ")[0]
        close = [r for r in known_refs() if r.startswith(doc)][:3]
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise UsageError(f"no clause {text!r} is cited{hint} (see deal-ledger clause --list)",
                     field="REF")


def covers(ref: str, cited: str) -> bool:
    """Whether a citation of ``cited`` is a citation of ``ref``: the same clause or one
    inside it."""
    return cited == ref or cited.startswith(ref + "(") or cited.startswith(ref + " ")


# --------------------------------------------------------------- the contract's words


@lru_cache(maxsize=2)
def contract(name: str) -> str:
    from importlib.resources import files

    return (files("ledger") / "contracts" / name).read_text(encoding="utf-8")


def _marker(label: str, indent: str) -> re.Pattern:
    return re.compile(r"^(" + indent + r")\(" + re.escape(label) + r"\)", re.M)


def _block(text: str, start: int, indent: int) -> str:
    """From ``start`` to the next line opening a marker or section at ``indent`` or less."""
    nxt = re.compile(r"^ {0,%d}(?:\(\w+\)|\d+\. [A-Z])" % indent, re.M)
    if indent >= 10:   # a sub-item ends where a paragraph of its parent resumes
        nxt = re.compile(nxt.pattern + r"|(?<=\n\n) {0,%d}\(" % (indent - 1), re.M)
    m = nxt.search(text, text.index("\n", start) + 1 if "\n" in text[start:] else len(text))
    return text[start:m.start() if m else len(text)]


def rra_text(c: Citation) -> tuple[str, str | None] | None:
    """The words of one RRA reference, and a note when only its enclosing clause could be
    cut out (a sub-clause that runs inline, e.g. ``(iv)(A)``)."""
    text = contract(RRA_FILE)
    body = text[:text.index("IN WITNESS WHEREOF")]
    head = re.search(r"^ {5}%s\. [A-Z]" % re.escape(c.section), body, re.M)
    if head is None:
        return None
    nxt = re.compile(r"^ {5}\d+\. [A-Z]", re.M).search(body, head.end())
    span = body[head.start():nxt.start() if nxt else len(body)]
    if c.term:
        words = r"\s+".join(re.escape(w) for w in c.term.upper().split())
        m = re.search(r"^ *(?<![A-Z])" + words + r"\s*[:.]", span, re.M)
        if m is None:
            return None
        rest = span[m.end():]
        after = re.search(r"\n {10}[A-Z][A-Z ,\-]+[:.]", rest)
        block = span[m.start():m.end() + (after.start() if after else len(rest))]
        note = f"({c.item}) is inside this definition" if c.item else None
        return _dedent(block), note
    position, indent, found = 0, -1, span
    for k, label in enumerate(c.parts):
        m = _marker(label, r" {%d,}" % (indent + 1)).search(found, position)
        if m is None:
            shown = "".join(f"({p})" for p in c.parts[:k])
            return _dedent(found), (f"({label}) runs inside §{c.section}{shown}; its text is "
                                    "shown whole")
        indent = len(m.group(1))
        found = _block(found, m.start(), indent)
        position = 0
    return _dedent(found), None


def _dedent(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n")).strip()


def letter_paragraphs() -> list[str]:
    """The Letter's six body paragraphs (¶1 to ¶6), each as printed."""
    text = contract(LETTER_FILE)
    body = text[text.index("Dear Mr. Warnock:") + len("Dear Mr. Warnock:"):
                text.index("[Signature Pages Follow]")]
    starts = [m.start() for m in re.finditer(r"^ {10}\S", body, re.M)]
    return [_dedent(body[a:b]) for a, b in zip(starts, starts[1:] + [len(body)])]


def contract_text(ref: str) -> dict[str, Any]:
    """``{text, source, note}``: the contract's words of ``ref`` (``text`` None where the
    document is not in the package: the Warrant Agreement, the Certificate)."""
    [c] = citations(ref)[:1] or [None]
    if c is None or c.document not in ("RRA", "Letter"):
        return {"text": None, "source": None,
                "note": "this Transaction Document is not in the package (not in the seeds)"}
    if c.document == "Letter":
        paragraphs = letter_paragraphs()
        k = int(c.section)
        text = paragraphs[k - 1] if 1 <= k <= len(paragraphs) else None
        return {"text": text, "source": f"ledger/contracts/{LETTER_FILE}", "note": None}
    found = rra_text(c)
    return {"text": found[0] if found else None, "source": f"ledger/contracts/{RRA_FILE}",
            "note": found[1] if found else "not found in the contract"}


# --------------------------------------------------------------------------- rules


@lru_cache(maxsize=1)
def rules() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """``(function, first line of its docstring, the clauses it cites)`` for every rule
    function of the engines."""
    out = []
    for package in RULE_PACKAGES:
        pkg = importlib.import_module(package)
        for info in pkgutil.iter_modules(pkg.__path__, package + "."):
            module = importlib.import_module(info.name)
            for name, obj in vars(module).items():
                if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                    continue
                if obj.__module__ != module.__name__ or not obj.__doc__:
                    continue
                refs = tuple(dict.fromkeys(c.ref for c in citations(" ".join(
                    obj.__doc__.split()))))
                if refs:
                    first = " ".join(obj.__doc__.strip().split("\n\n")[0].split())
                    out.append((f"{module.__name__}.{name}", first, refs))
    return tuple(out)


def rules_for(ref: str) -> list[dict[str, Any]]:
    """The rules citing ``ref``: ``rule`` (the function, for a developer), ``doc`` (its
    docstring's first paragraph) and ``words`` (that paragraph as a lawyer reads it:
    ``plain_words``), and the clauses inside ``ref`` it cites."""
    return [{"rule": name, "doc": doc, "words": plain_words(doc),
             "cites": [r for r in refs if covers(ref, r)]}
            for name, doc, refs in rules() if any(covers(ref, r) for r in refs)]


_LITERAL = re.compile(r"``(.+?)``")


def plain_words(doc: str) -> str:
    """A docstring's paragraph without the code's markup (issue 31, item 14: ``clause``
    showed a lawyer RST double backquotes and term names): ````questionnaire_business_days````
    reads "questionnaire business days", ````"all"```` reads "all" in quotes."""
    def word(m: re.Match) -> str:
        inner = m.group(1)
        if inner.startswith('"') and inner.endswith('"'):
            return inner
        return inner.replace("_", " ") if re.fullmatch(r"[\w.-]+", inner) else inner

    return _LITERAL.sub(word, doc)


def interpretations_for(ref: str) -> list[dict[str, Any]]:
    out = []
    for name, i in REGISTRY.items():
        cited = [c.ref for c in citations(i.clause or "")]
        if any(covers(ref, r) for r in cited):
            out.append({"name": name, "clause": i.clause, "default": i.default,
                        "readings": dict(i.readings), "examples": dict(i.examples)})
    return out


# ------------------------------------------------------------------------ figures


def figures_for(ref: str, report: Mapping[str, Any], events: Iterable[Any]) -> list[dict]:
    """The figures of ``report`` whose explanation cites ``ref`` (or a clause inside it)
    anywhere in its tree, with the value."""
    from projections.explain import explain, figure_paths

    by_id = {e.id: e for e in events}
    out = []
    for path, value in figure_paths(report).items():
        if _LABEL.search(path):
            continue
        tree = explain(report, path, by_id)["explanation"]
        if any(covers(ref, c) for c in _cited(tree)):
            out.append({"figure": path, "value": value})
    return out


#: leaves that name an entry rather than state a figure
_LABEL = re.compile(r"\.(event|cause|instrument|vestings|kind|clause|holder|type|"
                    r"obligation|defaults|to|method|subject|registered)$")


def _cited(node: Mapping[str, Any]) -> Iterable[str]:
    """The clauses an explanation tree cites (its interpretations are listed apart)."""
    for c in node["clauses"]:
        yield c["clause"]
    for p in node["parts"]:
        yield from _cited(p)


# ------------------------------------------------------------------------ the page


def clause_page(text: str, report: Mapping[str, Any] | None = None,
                events: Iterable[Any] = ()) -> dict[str, Any]:
    """Everything about one clause (module doc); ``UsageError`` for an unknown one."""
    ref = resolve(text)
    words = contract_text(ref)
    page = {"clause": ref, "statement": statement(ref),
            "rate_tier": RATE_TIERS.get(ref),
            "contract_text": words["text"], "source": words["source"], "note": words["note"],
            "rules": rules_for(ref), "interpretations": interpretations_for(ref)}
    if report is not None:
        page["deal"] = report.get("deal")
        page["as_of"] = report.get("as_of")
        page["figures"] = figures_for(ref, report, events)
    return page


def clause_list() -> list[dict[str, str]]:
    """``[{clause, statement}]`` of every clause we cite."""
    return [{"clause": ref, "statement": CLAUSES[ref]} for ref in known_refs()]
