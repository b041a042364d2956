"""From an agreement's text to its terms (``deal-ledger terms draft``, issue 35).

A resale registration rights agreement is written in a small, regular legal dialect:
defined terms ("Shelf Filing Deadline", "Effectiveness Period", "Additional Interest",
"Suspension Period", "Record Holder"), numbers in words and figures ("ninety (90) days",
"the 270th day", "one-quarter of one percent (0.25%) per annum"), windows ("45 days in any
90-day period", "in any twelve-month period") and numbered clauses ("Section 2(a)(ii)").
This package reads that dialect, deterministically and offline (no network, no model):

* ``layout``: the agreement's sections, items, headings and definitions, so that every
  term carries the section it was read from;
* ``numbers``: numbers, ordinals, rates, dates and windows in words and figures;
* ``shelf``, ``defaults``, ``damages``, ``suspensions``, ``duties``: the readers, each
  finding its terms' values with their quotations (``findings``);
* ``readings``: sentences the ledger's named readings read two ways;
* ``schema``: the one place that knows the terms schema (``ledger.registration_terms``):
  it maps what was read onto it, lists what was not found as missing, and fills missing
  terms from a template when asked.

It reads text and writes nothing: ``publishing.terms`` writes the drafted file.
"""

from __future__ import annotations

import re

from .findings import Findings, Phrases
from .layout import Agreement


def read_agreement(text: str, *, cite_as: str = "RRA") -> tuple[Agreement, Findings]:
    """Everything the readers find in ``text`` (an agreement, plain or HTML)."""
    from . import damages, defaults, duties, readings, shelf, suspensions

    agreement = Agreement(text, cite_as=cite_as)
    phrases = Phrases(agreement)
    for reader in (shelf, defaults, damages, suspensions, duties, readings):
        reader.read(phrases)
    _cut_off(phrases)
    return agreement, phrases.out


#: where a stored excerpt stops mid-sentence: "the filing o[...excerpt ends]", "Not[...]"
CUT = re.compile(r"\S*\[\.{2,}[^\]]*\]\s*$")


def _cut_off(p: Phrases) -> None:
    """A term whose quotation runs into the place where the text is cut off was read from
    part of its sentence: its note quotes the cut words and says that what follows them is
    not read (the senior notes' Effectiveness Period, whose cut end is an end of its own,
    is listed missing by ``shelf``)."""
    from dataclasses import replace

    for i, f in enumerate(p.out.found):
        cut = CUT.search(f.quote)
        if cut is None or p.out.unread_of(f.term) is not None:
            continue
        tail = f.quote[max(0, cut.start() - 60):].split(" ", 1)[-1]
        note = (f"the text is cut off inside this sentence (\"... {tail}\"): what it says "
                "after the cut is not read; check it against the whole agreement")
        p.out.found[i] = replace(f, note="; ".join(x for x in (f.note, note) if x))
