"""The terms as the projections read them (``ledger.dealterms``, issue 17) are the terms
``ledger.terms`` validates, read without pydantic: a registration rights deal's are the
schema's own dataclasses (``ledger.registration_terms``, issue 33), and every stored
(validated, normalised) form reads to the same values, of the same types, as the
validation makes; the letter's are dataclasses with the models' fields and defaults."""

from __future__ import annotations

import dataclasses
import os
from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given, settings
from pydantic import BaseModel
from hypothesis import strategies as st

from ledger import dealterms, terms
from ledger.terms import TEMPLATES, validate_terms
from ledger.terms_v1 import V1_DEFAULTS

PAIRS = [(dealterms.LetterTerms, terms.LetterTerms),
         (dealterms.PreferredDividends, terms.PreferredDividends)]
# CI runs a few seeded examples; DEAL_LEDGER_LONG=1 runs twenty times as many.
LONG = 20 if os.environ.get("DEAL_LEDGER_LONG") else 1
RRA, LETTER = TEMPLATES["infocrossing-rra-2004"], TEMPLATES["infocrossing-letter-2002"]


def _plain(value):
    """A view or a model as nested plain values, each leaf with its type."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, BaseModel):
        return {name: _plain(getattr(value, name)) for name in type(value).model_fields}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return (type(value).__name__, value)


@pytest.mark.parametrize("view, model", PAIRS, ids=[p[0].__name__ for p in PAIRS])
def test_same_fields_order_and_defaults_as_the_model(view, model):
    fields = dataclasses.fields(view)
    assert [f.name for f in fields] == list(model.model_fields)
    for f in fields:
        info = model.model_fields[f.name]
        if info.is_required():
            assert f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            continue
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING \
            else f.default
        assert _plain(default) == _plain(info.default), f.name


def _same_as_model(kind: str, raw: dict) -> None:
    stored = validate_terms(kind, raw)  # what the DealOpened carries
    if kind == "registration_rights":
        view, model = dealterms.registration_terms(stored), terms.registration_terms(stored)
    else:
        view, model = dealterms.letter_terms(stored), terms.letter_terms(stored)
    assert _plain(view) == _plain(model)


def test_the_templates_read_as_the_models_read_them():
    _same_as_model(RRA["kind"], RRA["terms"])
    _same_as_model(LETTER["kind"], LETTER["terms"])
    t = dealterms.registration_terms(validate_terms(RRA["kind"], RRA["terms"]))
    # RRA §2(a)(i): 15 days; §3(a): 0.25% for the first 90 days; Notes due 2024
    assert (t.filing.count, t.damages.steps[0].set, t.damages.steps[1].after_days,
            t.maturity) == (15, Decimal("0.25"), 90, date(2024, 7, 15))
    letter = dealterms.letter_terms(validate_terms(LETTER["kind"], LETTER["terms"]))
    assert letter.preferred_dividends.rate == Decimal("8.00")  # "8% Series A" (Letter ¶2)


@settings(max_examples=60 * LONG, deadline=None, derandomize=True)
@given(drop=st.sets(st.sampled_from(sorted(V1_DEFAULTS))),
       filing=st.integers(1, 60), cure=st.integers(1, 30),
       first=st.decimals("0.01", "5.00", places=2), record=st.sampled_from(
           [["01-01", "07-01"], ["12-31", "06-30"], ["01-01"]]),
       day_count=st.sampled_from(["30/360", "ACT/360", "ACT/365F", "ACT/ACT-ISDA"]))
def test_any_registration_terms_read_as_the_validation_reads_them(drop, filing, cure, first,
                                                                  record, day_count):
    """Terms of version 1 with defaults left out (an older record, or a terms file that
    gives only some), and with other values, read alike; so do version 2 terms changed."""
    from tests.support import INFOCROSSING_V1

    raw = {**INFOCROSSING_V1, "filing_deadline_days": filing, "cure_business_days": cure,
           "rates": {**V1_DEFAULTS["rates"], "first": str(first)}, "record_dates": record,
           "day_count": day_count, "effectiveness_deadline_days": max(filing, 120)}
    raw = {k: v for k, v in raw.items() if k not in drop}
    _same_as_model(RRA["kind"], raw)
    stored = validate_terms(RRA["kind"], raw)
    assert stored["payment"]["day_count"] == ("30/360" if "day_count" in drop else day_count)
    assert stored["filing"]["count"] == (15 if "filing_deadline_days" in drop else filing)
    changed = {**stored, "damages": {**stored["damages"], "cap": str(first)},
               "payment": {**stored["payment"], "roll": "none"}}
    _same_as_model(RRA["kind"], changed)


def test_the_readings_a_deal_fixes_are_the_registered_interpretations():
    """``Readings`` (the terms' ``readings``) names each registration interpretation
    (SPEC §6) with exactly its values: a deal may fix any of them, none other."""
    import typing

    from ledger.registration_terms import Readings
    from projections.interpretations import REGISTRY
    from projections.registration.readings import REGISTRATION_READINGS

    fields = {f.name: f for f in dataclasses.fields(Readings)}
    assert set(fields) == set(REGISTRATION_READINGS)
    hints = typing.get_type_hints(Readings)
    for name in fields:
        literal = [a for a in typing.get_args(hints[name]) if a is not type(None)][0]
        assert set(typing.get_args(literal)) == set(REGISTRY[name].values), name


@settings(max_examples=40 * LONG, deadline=None, derandomize=True)
@given(drop=st.sets(st.sampled_from(["formula", "price_decimals", "warrantholders",
                                     "camden_entities", "preferred_dividends"])),
       formula=st.sampled_from(["weighted_average_broad", "weighted_average_narrow",
                                "full_ratchet"]),
       decimals=st.integers(0, 10), dividends=st.one_of(st.none(), st.fixed_dictionaries(
           {"rate": st.decimals("0.01", "100", places=2).map(str),
            "convert_accrued": st.booleans()})))
def test_any_letter_terms_read_as_the_model_reads_them(drop, formula, decimals, dividends):
    raw = {**LETTER["terms"], "formula": formula, "price_decimals": decimals,
           "preferred_dividends": dividends}
    _same_as_model(LETTER["kind"], {k: v for k, v in raw.items() if k not in drop})


def test_an_unknown_or_missing_term_is_refused_like_the_model_refuses_it():
    stored = validate_terms(RRA["kind"], RRA["terms"])
    with pytest.raises(ValueError, match="typo_days: unknown term"):
        dealterms.registration_terms({**stored, "typo_days": 3})
    with pytest.raises(ValueError, match="unknown term"):
        dealterms.registration_terms({**stored, "damages": {**stored["damages"],
                                                            "fourth": "1"}})
    with pytest.raises(ValueError, match="maturity: is required"):
        dealterms.registration_terms({k: v for k, v in stored.items() if k != "maturity"})
    for bad in ({**stored, "typo_days": 3},
                {k: v for k, v in stored.items() if k != "maturity"}):
        with pytest.raises(ValueError):
            terms.registration_terms(bad)
