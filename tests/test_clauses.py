"""Every clause the code cites exists in the contract texts, and has a plain statement.

The citations are read from the sources of ``ledger/`` and ``projections/`` (docstrings,
comments, strings) with ``projections.clauses.citations``. An RRA citation must be found in
``registration-rights-agreement-2004-06-30.txt`` in order: ``§3(a)(ii)`` is section 3,
then a ``(a)`` marker in it, then a ``(ii)`` marker after that; ``§1 <Defined Term>`` is a
definition in section 1 (``TERM:``), and ``(A)`` after a term must be in that definition.
``Letter ¶N`` must be a body paragraph of the letter: ¶1 the reference paragraph, ¶2 the
deferral, ¶3 the true-up, ¶4 no other adjustment, ¶5 limited/counterparts, ¶6 governing law
(SPEC §5 uses ¶2 and ¶3 so). Citations that do not exist are findings; the ones known
today are listed in ``KNOWN_FINDINGS`` (to be fixed in their files), so that a new bad
citation fails here and a fixed one must be taken off the list.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

import pytest

from projections.clauses import Citation, citations, statement

ROOT = Path(__file__).resolve().parent.parent
RRA_FILE = "registration-rights-agreement-2004-06-30.txt"
LETTER_FILE = "letter-agreement-2002-02-01.txt"

#: (file, citation): not in the contract; "TRS" is SPEC shorthand, the RRA §1 term is
#: "Transfer Restricted Securities". Fix in the file, then remove the line here.
KNOWN_FINDINGS: set[tuple[str, str]] = set()


def contracts_dir() -> Path:
    """The contract texts: packaged beside ``ledger`` if present, else ``$DEAL_LEDGER_CONTRACTS``,
    else ``../shared/contracts`` beside the repository (README)."""
    candidates = [ROOT / "ledger" / "contracts"]
    if os.environ.get("DEAL_LEDGER_CONTRACTS"):
        candidates.append(Path(os.environ["DEAL_LEDGER_CONTRACTS"]))
    candidates.append(ROOT.parent / "shared" / "contracts")
    for c in candidates:
        if (c / RRA_FILE).is_file() and (c / LETTER_FILE).is_file():
            return c
    pytest.fail(f"contract texts not found in any of {[str(c) for c in candidates]}")


# ------------------------------------------------------------------------- the RRA


@lru_cache(maxsize=1)
def rra_sections() -> dict[str, str]:
    """Body sections by number: from "     3. Additional Interest." to the next one (the
    table of contents and Exhibit A start at column 0 and are not sections)."""
    text = (contracts_dir() / RRA_FILE).read_text()
    body = text[:text.index("IN WITNESS WHEREOF")]
    heads = list(re.finditer(r"^ {5}(\d+)\. [A-Z]", body, re.M))
    return {m.group(1): body[m.start():(heads[k + 1].start() if k + 1 < len(heads) else len(body))]
            for k, m in enumerate(heads)}


def _marker(label: str) -> re.Pattern:
    """``(ii)`` as a clause marker, not inside a reference like "Section 4(b)(iii)"."""
    return re.compile(r"(?<![\w)])\(" + re.escape(label) + r"\)")


def rra_has(c: Citation) -> bool:
    span = rra_sections().get(c.section)
    if span is None:
        return False
    if c.term:
        words = r"\s+".join(re.escape(w) for w in c.term.upper().split())
        m = re.search(r"(?<![A-Z])" + words + r"\s*[:.]", span)
        if not m:
            return False
        if c.item:
            rest = span[m.end():]
            nxt = re.search(r"\n {10}[A-Z][A-Z ,]+[:.]", rest)
            block = rest[:nxt.start()] if nxt else rest
            return _marker(c.item).search(block) is not None
        return True
    position = 0
    for label in c.parts:
        m = _marker(label).search(span, position)
        if not m:
            return False
        position = m.end()
    return True


# ---------------------------------------------------------------------- the Letter


@lru_cache(maxsize=1)
def letter_paragraphs() -> list[str]:
    """Body paragraphs from the salutation to "[Signature Pages Follow]": each starts on
    a line indented ten spaces; continuation lines (and the page break inside ¶2) do not."""
    text = (contracts_dir() / LETTER_FILE).read_text()
    body = text[text.index("Dear Mr. Warnock:") + len("Dear Mr. Warnock:"):
                text.index("[Signature Pages Follow]")]
    starts = [m.start() for m in re.finditer(r"^ {10}\S", body, re.M)]
    return [" ".join(body[a:b].split()) for a, b in zip(starts, starts[1:] + [len(body)])]


def exists(c: Citation) -> bool:
    if c.document == "RRA":
        return rra_has(c)
    if c.document == "Letter":
        return 1 <= int(c.section) <= len(letter_paragraphs())
    return True  # the Warrant Agreement and Certificate of Designations are not in the seeds


# ----------------------------------------------------------------- the code's citations


def _flatten(text: str) -> tuple[str, list[int]]:
    """The text with line breaks (and comment markers, indentation) folded to one space,
    so a citation wrapped over two lines reads whole; and each character's line."""
    flat: list[str] = []
    lines: list[int] = []
    line, k = 1, 0
    for m in re.finditer(r"[ \t]*\n[ \t]*(?:#[ \t]*)?", text):
        chunk = text[k:m.start()]
        flat.append(chunk)
        lines.extend([line] * len(chunk))
        flat.append(" ")
        lines.append(line)
        line += 1
        k = m.end()
    flat.append(text[k:])
    lines.extend([line] * (len(text) - k))
    return "".join(flat), lines


@lru_cache(maxsize=1)
def code_citations() -> list[tuple[str, int, Citation]]:
    out = []
    for folder in ("ledger", "projections"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            flat, lines = _flatten(path.read_text())
            rel = path.relative_to(ROOT).as_posix()
            for c in citations(flat):
                out.append((rel, lines[c.start], c))
    return out


# ------------------------------------------------------------------------------ tests


def test_the_code_cites_many_clauses():
    refs = {c.ref for _, _, c in code_citations()}
    assert len(code_citations()) > 100
    assert {"RRA §3(a)(ii)", "RRA §4(b)(i)", "RRA §10(E)", "RRA §1 Business Day",
            "Letter ¶2", "Letter ¶3"} <= refs


def test_every_clause_the_code_cites_exists_in_the_contracts():
    missing = {(f, c.ref) for f, _, c in code_citations() if not exists(c)}
    where = sorted(f"{f}:{line}: {c.ref}" for f, line, c in code_citations() if not exists(c))
    assert missing == KNOWN_FINDINGS, "\n".join(where)


def test_every_clause_the_code_cites_has_a_plain_statement():
    lacking = sorted({f"{f}:{line}: {c.ref}" for f, line, c in code_citations()
                      if statement(c.ref) is None})
    assert lacking == []


def test_the_locator_finds_real_clauses_in_order_and_refuses_invented_ones():
    def one(text: str) -> Citation:
        [c] = citations(text)
        return c

    for real in ("RRA §3(a)(ii)", "RRA §4(b)(i)", "RRA §10(E)", "RRA §1 Business Day",
                 "RRA §2(a)(iii)(y)", "RRA §3(a)(iv)(B)", "RRA §1 Majority of Holders",
                 'RRA §1 "Transfer Restricted Securities" (B)', "RRA §4(b)(iii)", "RRA §4(d)"):
        assert rra_has(one(real)), real
    for invented in ("RRA §3(c)", "RRA §11", "RRA §4(b)(xxi)", "RRA §10(M)", "RRA §1 TRS",
                     "RRA §1 Effective Date", "RRA §2(a)(iv)", 'RRA §1 "Holder" (C)'):
        assert not rra_has(one(invented)), invented
    # (a) then (ii) in order: §3 has an (ii), but §7 (Rule 144A) has no (a) before one
    assert not rra_has(one("RRA §7(a)(ii)"))


def test_the_letter_has_six_body_paragraphs_as_spec_numbers_them():
    paragraphs = letter_paragraphs()
    assert len(paragraphs) == 6
    assert paragraphs[0].startswith("Reference is made")
    assert "agrees to defer the application of the anti-dilution protection" in paragraphs[1]
    assert "Vested Warrants" in paragraphs[1]            # ¶2 runs across the page break
    assert "prior to February 1, 2004" in paragraphs[2]  # ¶3: the true-up
    assert "not to effectuate" in paragraphs[3]
    assert "counterparts" in paragraphs[4]
    assert "GOVERNED BY THE LAW OF THE STATE OF NEW YORK" in paragraphs[5]
    assert exists(citations("Letter ¶6")[0]) and not exists(citations("Letter ¶7")[0])


@pytest.mark.parametrize("text, refs", [
    ('(RRA §1 "Additional Interest Payment Date", "Record Holder", §3(b); SPEC §4.1)',
     ["RRA §1 Additional Interest Payment Date", "RRA §1 Record Holder", "RRA §3(b)"]),
    ("RRA §3(a)(iv)(A) and (B) from the breaches", ["RRA §3(a)(iv)(A)", "RRA §3(a)(iv)(B)"]),
    ("RRA §2(a)(iii)(y),(z)", ["RRA §2(a)(iii)(y)", "RRA §2(a)(iii)(z)"]),
    ("RRA §3(a) (last paragraph), §2(b)", ["RRA §3(a)", "RRA §2(b)"]),
    ("RRA §1 Majority of Holders, §10(D), §10(H)",
     ["RRA §1 Majority of Holders", "RRA §10(D)", "RRA §10(H)"]),
    ("RRA §3(a)(i)-(iv)", ["RRA §3(a)(i)", "RRA §3(a)(iv)"]),
    ("RRA §1 TRS (A): sold", ["RRA §1 TRS (A)"]),
    ("Letter ¶2, ¶4)", ["Letter ¶2", "Letter ¶4"]),
    ("Letter ¶2; Certificate of Designations §12",
     ["Letter ¶2", "Certificate of Designations §12"]),
    ("SPEC §4.4 and §3(b) alone", []),
])
def test_citations_are_read_whole(text, refs):
    assert [c.ref for c in citations(text)] == refs


def test_plain_statements_fall_back_to_the_parent_clause_and_read_rates_as_tiers():
    assert statement("RRA §2(a)(iii)(x)").startswith("The Effectiveness Period ends at the latest")
    assert statement("RRA §4(b)(i)(x)") == statement("RRA §4(b)(i)")
    assert statement("RRA §3(a)(iii)").startswith("Registration Default (iii)")
    assert statement("RRA §3(a)(iii)", topic="rate").startswith("Rate tier (iii): 3.00%")
    assert statement("Letter ¶9") is None
