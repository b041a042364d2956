"""A deal's terms as the projections read them: plain frozen dataclasses (SPEC §4.1, §5.1).

A registration rights deal's terms are the schema of ``ledger.registration_terms``
itself (re-exported here); the letter's are dataclasses field for field the models of
``ledger.terms`` (each term's clause in ``ledger.terms.LETTER_CLAUSES``).

The terms travel inside the deal's ``DealOpened``, validated and normalised by
``ledger.terms.validate_terms`` when it was appended; reading them back only turns the
stored JSON into values (days ``date``, amounts and rates ``Decimal``) and fills in the
default of a term an older record does not carry, so that ``report`` does not import
pydantic and build its models (issue 17). A term this code does not know, or a required
one missing, is refused with ``ValueError`` as the models would refuse it; a ledger
written before terms were bounded can still hold a term out of bounds, which the report
path names through ``ledger.terms`` (``publishing.reading.check_terms``) when the
computation fails on it. ``tests/test_dealterms.py`` proves these classes have the
models' fields and defaults and read every stored form as the models do.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import date
from decimal import Decimal
from typing import Any, Callable, Mapping

from .registration_terms import RegistrationTerms, registration_terms  # noqa: F401

_day = date.fromisoformat


def _read(cls: type, values: Any, convert: Mapping[str, Callable[[Any], Any]]) -> Any:
    """``cls`` from the stored JSON object ``values``: each present term converted, the
    others left to their defaults."""
    if not isinstance(values, Mapping):
        raise ValueError(f"{cls.__name__}: the terms must be a JSON object")
    names = cls.__dataclass_fields__
    kwargs: dict[str, Any] = {}
    for name, value in values.items():
        if name not in names:
            raise ValueError(f"{name}: unknown term")
        to_value = convert.get(name)
        kwargs[name] = to_value(value) if to_value is not None and value is not None else value
    try:
        return cls(**kwargs)
    except TypeError:  # a required term missing
        missing = [f.name for f in fields(cls) if f.name not in kwargs]
        raise ValueError(f"{', '.join(missing)}: is required") from None


@dataclass(frozen=True, slots=True)
class PreferredDividends:
    """Letter ¶2 and the Certificate of Designations (a term): see ``ledger.terms``."""

    rate: Decimal = Decimal("8.00")
    day_count: str = "30/360"
    convert_accrued: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class LetterTerms:
    agreement_date: date
    true_up_cutoff: date
    formula: str = "weighted_average_broad"
    price_decimals: int = 4
    warrantholders: list[str] = field(default_factory=list)
    camden_entities: list[str] = field(default_factory=list)
    preferred_dividends: PreferredDividends | None = None


_LETTER = {
    "agreement_date": _day, "true_up_cutoff": _day,
    "warrantholders": list, "camden_entities": list,
    "preferred_dividends": lambda v: _read(PreferredDividends, v, {"rate": Decimal}),
}


def letter_terms(terms: Mapping[str, Any]) -> LetterTerms:
    """The stored terms of an anti-dilution deferral deal (the Letter; SPEC §5.1)."""
    return _read(LetterTerms, terms, _LETTER)


def deal_registration_terms(events: Any) -> RegistrationTerms | None:
    """The terms a registration rights deal was opened under (its last ``DealOpened``
    of the events given, in their order), ``None`` for a deal of another kind or none
    opened: what the clauses named in headings and summaries come from (issue 33)."""
    latest = None
    for e in events:
        if e.type == "DealOpened":
            latest = e
    if latest is None or latest.data.get("kind") != "registration_rights":
        return None
    return registration_terms(latest.data["terms"])
