"""Every template says only what its agreement's text says (issue 33 review).

A template quotes the sentence a rule was read from (``quote``) and cites its clause
(``section``). A quote must be the text's own words: every ``quote`` of every template
occurs word for word in the text it cites (whitespace normalised; `` ... `` marks words
left out, the pieces in order), and every section a quoted rule cites exists in that text
(its heading, its section number, each of its (labels)). What the text does not state is
cited as market practice and quotes nothing. The texts: the Infocrossing RRA in
``ledger/contracts/`` (the template's ``text``), and the market excerpts copied byte for
byte from ``../shared/agreements/`` to ``tests/data/agreements/`` (the template's
``source``)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from ledger.terms import TEMPLATES

ROOT = Path(__file__).resolve().parent.parent
MARKET = ROOT / "tests" / "data" / "agreements"
CONTRACTS = ROOT / "ledger" / "contracts"


def _words(text: str) -> str:
    return " ".join(text.split())


def text_of(template: dict) -> str | None:
    """The text a template cites: its ``terms.text`` (ledger/contracts) or the
    ``agreements/FILE`` its ``source`` names."""
    own = template["terms"].get("text")
    if own:
        return _words((CONTRACTS / own).read_text("utf-8"))
    m = re.match(r"agreements/([\w.-]+\.txt)", template.get("source", ""))
    return _words((MARKET / m.group(1)).read_text("utf-8")) if m else None


def rules(value, key: str, path="terms"):
    """``(path, rule)`` of every object of ``value`` with a ``key`` (not null)."""
    if isinstance(value, dict):
        if value.get(key):
            yield path, value
        for k, v in value.items():
            yield from rules(v, key, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from rules(v, key, f"{path}[{i}]")


def quoted(value):
    """``(path, rule)`` of every rule of ``value`` with a ``quote``."""
    return rules(value, "quote")


def occurs(quote: str, text: str) -> bool:
    """``quote`` in ``text`` word for word, `` ... `` standing for words left out."""
    at = 0
    for piece in (p for p in _words(quote).split("...") if p.strip()):
        found = text.find(piece.strip(), at)
        if found < 0:
            return False
        at = found + len(piece.strip())
    return True


def section_missing(section: str, text: str, numbered: bool) -> str | None:
    """What of ``section`` the text does not contain (``None``: all of it). ``RRA §N``
    is section ``N.`` of a ``numbered`` text (an excerpt has no section numbers); a §1
    term is a defined term; a heading (``Registration Defaults``) is a name in the
    excerpt; each ``(label)`` occurs after it. An explanatory parenthetical (``(as the
    Note summarises it)``) is not a label; a part cited as market practice is not read."""
    section = re.sub(r" \([^()]* [^()]*\)",             # explanatory asides
                     lambda m: m.group() if "market practice" in m.group() else "", section)
    parts = [p.strip() for p in re.split(r";|, (?=§)", section) if "market practice" not in p]
    parts = [p if not p.startswith("§") else "RRA " + p for p in parts]
    for part in parts:
        m = re.match(r"RRA §(\d+)((?:\([^() ]+\))*)(?: (.*))?$", part)
        if m and not numbered:
            return f"section §{m.group(1)} (the excerpt numbers no sections)"
        if m:   # a section heading of the body ("4. Registration Procedures."), not the TOC
            head = re.search(rf"(?<!\S){m.group(1)}\. [A-Z][^.]*\.(?!\.)", text)
            if head is None:
                return f"section {m.group(1)}. (from {part!r})"
            at, labels, rest = head.start(), re.findall(r"\([^() ]+\)", m.group(2)), m.group(3)
            if rest:
                term = re.sub(r" \([A-Z]\)$", "", rest)
                if term.upper() not in text.upper():
                    return f"the defined term {term!r}"
        elif part.startswith("RRA "):
            if part != "RRA preamble" or "AGREEMENT" not in text[:4000].upper():
                return part
            continue
        else:
            head = part
            name = re.split(r" \(|,", head)[0].strip()
            at = text.find(name)
            if at < 0:
                return f"the heading {name!r}"
            labels = re.findall(r"\(([^() ]+)\)", head[len(name):])
            labels = [f"({x})" for x in labels]
        for label in labels:
            found = text.find(label, at)
            if found < 0:
                return f"{label} (from {part!r})"
            at = found
    return None


CASES = [(name, path, rule) for name in TEMPLATES if text_of(TEMPLATES[name])
         for path, rule in quoted(TEMPLATES[name]["terms"])]


def test_every_template_that_quotes_names_a_text_it_quotes_from():
    for name in TEMPLATES:
        if any(True for _ in quoted(TEMPLATES[name]["terms"])):
            assert text_of(TEMPLATES[name]), name
    assert {n for n, _, _ in CASES} == {"infocrossing-rra-2004", "debentures-rra-2005",
                                       "senior-notes-2002", "edwards-rra-2003"}


def test_the_market_excerpts_are_the_shared_texts():
    shared = Path("/work/shared/agreements")
    if not shared.is_dir():
        pytest.skip("../shared/agreements is not on this machine")
    for path in MARKET.glob("*.txt"):
        assert path.read_bytes() == (shared / path.name).read_bytes(), path.name


@pytest.mark.parametrize("name, path, rule", CASES, ids=[f"{n}:{p}" for n, p, _ in CASES])
def test_every_quote_is_the_texts_own_words(name, path, rule):
    assert occurs(rule["quote"], text_of(TEMPLATES[name])), \
        f"{name} {path}: the quote is not in the text: {rule['quote']!r}"


@pytest.mark.parametrize("name, path, rule", CASES, ids=[f"{n}:{p}" for n, p, _ in CASES])
def test_every_section_a_quoted_term_cites_is_in_the_text(name, path, rule):
    missing = section_missing(rule["section"], text_of(TEMPLATES[name]),
                              numbered=bool(TEMPLATES[name]["terms"].get("text")))
    assert missing is None, f"{name} {path}: {rule['section']!r}: no {missing} in the text"


def test_the_checks_catch_what_is_not_in_the_text():
    """The checks themselves: a quote and sections the debentures excerpt does not have."""
    text = text_of(TEMPLATES["debentures-rra-2005"])
    assert occurs("if the Shelf Registration Statement ... is not filed with the Commission",
                  text)
    assert not occurs("THIS REGISTRATION RIGHTS AGREEMENT is made and entered into", text)
    assert not occurs("is not filed ... (a) if the Shelf", text)      # pieces in order
    assert section_missing("Registration Defaults (a), (b)", text, False) is None
    assert section_missing("Registration Defaults (f)", text, False) == "(f) (from " \
        "'Registration Defaults (f)')"
    assert section_missing("Deferral Period Limits (a)", text, False) == \
        "the heading 'Deferral Period Limits'"
    assert section_missing("RRA §1 Applicable Conversion Price", text, False) == \
        "section §1 (the excerpt numbers no sections)"
    info = text_of(TEMPLATES["infocrossing-rra-2004"])
    assert section_missing("RRA §2(a)(iii)(y), §4(d)", info, True) is None
    assert section_missing("RRA §11(A)", info, True) == "section 11. (from 'RRA §11(A)')"
    assert section_missing("RRA §1 Applicable Conversion Price", info, True) == \
        "the defined term 'Applicable Conversion Price'"


MARKET_TEMPLATES = ("debentures-rra-2005", "senior-notes-2002", "edwards-rra-2003")


@pytest.mark.parametrize("name", MARKET_TEMPLATES)
def test_a_market_term_the_text_does_not_state_says_it_is_market_practice(name):
    """A rule or plain term of a market template quotes its text or is cited as market
    practice: nothing else stands for a term the excerpt does not state."""
    unmarked = [path for path, rule in rules(TEMPLATES[name]["terms"], "section")
                if not rule.get("quote") and "market practice" not in rule["section"]]
    assert unmarked == [], f"{name}: neither quoted nor market practice: {unmarked}"


def _in_words(value) -> list[str]:
    """How a plain term's value would read in an agreement's text."""
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d\d-\d\d", value):
        value = date.fromisoformat(value)
    if isinstance(value, date):
        return [f"{value:%B} {value.day}, {value.year}", value.isoformat()]
    return [str(value)]


@pytest.mark.parametrize("name", MARKET_TEMPLATES)
def test_a_plain_term_quoted_is_stated_in_its_quote(name):
    """A date or a price cited with a quote is in the quote: a clause that names the
    Closing Date does not state it (the debentures' 2006-03-01 is a placeholder)."""
    t = TEMPLATES[name]
    for key, cited in t["terms"]["citations"].items():
        if cited.get("quote"):
            assert any(w in cited["quote"] for w in _in_words(t["terms"][key])), \
                f"{name} citations.{key}: {t['terms'][key]} is not in {cited['quote']!r}"


@pytest.mark.parametrize("name", MARKET_TEMPLATES)
def test_a_best_efforts_target_is_a_deadline_by_market_practice_only(name):
    """The senior notes' (ii): the Company "will use its reasonable best efforts" to be
    effective within 180 days: a target; a deadline with damages is market practice."""
    for path, rule in quoted(TEMPLATES[name]["terms"]):
        if "anchor" in rule and "reasonable best efforts" in rule["quote"]:
            assert "market practice" in rule["section"], f"{name} {path}"
