"""A deal's terms as the projections read them: plain frozen dataclasses, field for field
the models of ``ledger.terms`` (SPEC §4.1, §5.1; each term's clause is in
``ledger.terms.RRA_CLAUSES`` / ``LETTER_CLAUSES``).

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
class SuspensionLimits:
    """RRA §4(b)(i), §3(a)(iv)."""

    single: int = 45
    single_material: int = 60
    window_days: int = 90
    window_limit: int = 45
    window_limit_material: int = 60
    long_window_days: int = 360
    long_window_limit: int = 90


@dataclass(frozen=True, slots=True)
class Rates:
    """RRA §3(a)(i)-(iv): per-annum percentages of principal."""

    first_days: int = 90
    first: Decimal = Decimal("0.25")
    second: Decimal = Decimal("1.00")
    second_until_anniversary: int = 2
    third: Decimal = Decimal("3.00")
    step: Decimal = Decimal("2.00")
    step_from_anniversary: int = 3


_RATES = {name: Decimal for name in ("first", "second", "third", "step")}


@dataclass(frozen=True, slots=True, kw_only=True)
class RegistrationTerms:
    closing_date: date
    filing_deadline_days: int = 15
    effectiveness_deadline_days: int = 120
    effectiveness_period_years: int = 2
    cure_business_days: int = 5
    suspension_limits: SuspensionLimits = SuspensionLimits()
    rates: Rates = Rates()
    interest_payment_dates: list[str] = field(default_factory=lambda: ["01-15", "07-15"])
    first_interest_payment_date: date
    record_dates: list[str] = field(default_factory=lambda: ["01-01", "07-01"])
    day_count: str = "30/360"
    maturity: date
    conversion_price: Decimal
    questionnaire_business_days: int = 20
    questionnaire_form_days: int = 20
    amendment_business_days: int = 10
    amendment_min_principal: Decimal = Decimal(1_000_000)
    trustee_notice_business_days: int = 2
    advise_holders_business_days: int = 5
    mail_notice_business_days: int = 5
    maximum_principal: Decimal | None = None


_REGISTRATION = {
    "closing_date": _day, "first_interest_payment_date": _day, "maturity": _day,
    "conversion_price": Decimal, "amendment_min_principal": Decimal,
    "maximum_principal": Decimal,
    "suspension_limits": lambda v: _read(SuspensionLimits, v, {}),
    "rates": lambda v: _read(Rates, v, _RATES),
    "interest_payment_dates": list, "record_dates": list,
}


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


def registration_terms(terms: Mapping[str, Any]) -> RegistrationTerms:
    """The stored terms of a registration rights deal (RRA; SPEC §4.1)."""
    return _read(RegistrationTerms, terms, _REGISTRATION)


def letter_terms(terms: Mapping[str, Any]) -> LetterTerms:
    """The stored terms of an anti-dilution deferral deal (the Letter; SPEC §5.1)."""
    return _read(LetterTerms, terms, _LETTER)
