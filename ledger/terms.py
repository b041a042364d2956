"""Deal terms and the two templates (SPEC §4.1, §5.1), each term beside its clause.

A deal's terms travel inside its ``DealOpened`` event, so that a report is a function of
the log alone: changing a template later never changes an existing deal.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, ValidationError

from .values import Day, FieldError, MoneyOrZero, Price

DAY_COUNTS = ("30/360", "ACT/360", "ACT/365F", "ACT/ACT-ISDA")
FORMULAS = ("weighted_average_broad", "weighted_average_narrow", "full_ratchet")


def _month_day(value: Any) -> str:
    """A day of every year, ``MM-DD`` (Interest Payment Dates, record dates): checked
    here so that a typo is refused when the deal is opened, not met by a projection."""
    if isinstance(value, str) and re.fullmatch(r"[0-9]{2}-[0-9]{2}", value):
        try:
            date(2001, int(value[:2]), int(value[3:]))  # a common year: no 02-29
            return value
        except ValueError:
            pass
    raise ValueError(f"not a month and day of every year in the form MM-DD: {value!r}")


MonthDay = Annotated[str, PlainValidator(_month_day)]


class _Terms(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SuspensionLimits(_Terms):
    """RRA §4(b)(i), §3(a)(iv)."""

    single: int = Field(45, gt=0)
    single_material: int = Field(60, gt=0)
    window_days: int = Field(90, gt=0)
    window_limit: int = Field(45, gt=0)
    window_limit_material: int = Field(60, gt=0)
    long_window_days: int = Field(360, gt=0)
    long_window_limit: int = Field(90, gt=0)


class Rates(_Terms):
    """RRA §3(a)(i)-(iv): per-annum percentages of principal."""

    first_days: int = Field(90, gt=0)
    first: Decimal = Decimal("0.25")
    second: Decimal = Decimal("1.00")
    second_until_anniversary: int = Field(2, gt=0)
    third: Decimal = Decimal("3.00")
    step: Decimal = Decimal("2.00")
    step_from_anniversary: int = Field(3, gt=0)


class RegistrationTerms(_Terms):
    closing_date: Day
    filing_deadline_days: int = Field(15, gt=0)
    effectiveness_deadline_days: int = Field(120, gt=0)
    effectiveness_period_years: int = Field(2, gt=0)
    cure_business_days: int = Field(5, gt=0)
    suspension_limits: SuspensionLimits = SuspensionLimits()
    rates: Rates = Rates()
    interest_payment_dates: list[MonthDay] = Field(["01-15", "07-15"], min_length=1)
    first_interest_payment_date: Day
    record_dates: list[MonthDay] = Field(["01-01", "07-01"], min_length=1)
    day_count: Literal["30/360", "ACT/360", "ACT/365F", "ACT/ACT-ISDA"] = "30/360"
    maturity: Day
    conversion_price: Price
    questionnaire_business_days: int = Field(20, gt=0)
    questionnaire_form_days: int = Field(20, gt=0)
    amendment_business_days: int = Field(10, gt=0)
    amendment_min_principal: MoneyOrZero = Decimal(1_000_000)
    trustee_notice_business_days: int = Field(2, gt=0)
    advise_holders_business_days: int = Field(5, gt=0)
    mail_notice_business_days: int = Field(5, gt=0)


class PreferredDividends(_Terms):
    """The dividend of the "8% Series A Cumulative Convertible Participating Preferred
    Stock" (Letter ¶2), for the reading ``trueup_dividends = to_vesting_date`` (SPEC §6):
    ``rate`` percent a year of the stated value, accrued (cumulative, never compounded)
    by ``day_count``; ``convert_accrued``: accrued and unpaid dividends convert with the
    stated value. The Certificate of Designations is not in the seeds: these are terms."""

    rate: Decimal = Field(Decimal("8.00"), gt=0, le=100)
    day_count: Literal["30/360", "ACT/360", "ACT/365F", "ACT/ACT-ISDA"] = "30/360"
    convert_accrued: bool = True


class LetterTerms(_Terms):
    agreement_date: Day
    true_up_cutoff: Day
    formula: Literal["weighted_average_broad", "weighted_average_narrow", "full_ratchet"] = (
        "weighted_average_broad")
    price_decimals: int = Field(4, ge=0, le=10)
    warrantholders: list[str] = []
    camden_entities: list[str] = []
    preferred_dividends: PreferredDividends | None = None


TERMS_MODELS: dict[str, type[_Terms]] = {
    "registration_rights": RegistrationTerms,
    "antidilution_deferral": LetterTerms,
}


def validate_terms(kind: str, terms: dict[str, Any]) -> dict[str, Any]:
    """The normalised JSON form of a deal's terms; ``ValueError`` naming the term (a
    ``FieldError`` whose ``field`` is ``terms.<term>``)."""
    try:
        parsed = TERMS_MODELS[kind].model_validate(terms)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        msg = first["msg"].removeprefix("Value error, ")
        if first["type"] == "extra_forbidden":
            msg = "unknown term"
        if first["type"] == "missing":
            msg = "is required"
        raise FieldError(f"terms.{where}", msg) from None
    return parsed.model_dump(mode="json")


def registration_terms(terms: dict[str, Any]) -> RegistrationTerms:
    return RegistrationTerms.model_validate(terms)


def letter_terms(terms: dict[str, Any]) -> LetterTerms:
    return LetterTerms.model_validate(terms)


# ------------------------------------------------------------------------- templates

RRA_CLAUSES = {
    "closing_date": "RRA §1 Closing Date",
    "filing_deadline_days": "RRA §2(a)(i)",
    "effectiveness_deadline_days": "RRA §2(a)(ii)",
    "effectiveness_period_years": "RRA §2(a)(iii)",
    "cure_business_days": "RRA §3(a)(iii)",
    "suspension_limits": "RRA §4(b)(i), §3(a)(iv)",
    "rates": "RRA §3(a)",
    "interest_payment_dates": "RRA §1 Interest Payment Date (the Indenture, per the prospectus)",
    "first_interest_payment_date": "RRA §3(b)",
    "record_dates": "RRA §1 Record Holder (record dates assumed: the Indenture is not in the seeds)",
    "day_count": "a term of the deal (30/360 US, as for US corporate notes)",
    "maturity": "RRA preamble (Notes due 2024)",
    "conversion_price": "RRA §1 Majority of Holders",
    "questionnaire_business_days": "RRA §2(b), §4(d)",
    "questionnaire_form_days": "RRA §3(a) (last paragraph: the deadline specified in the "
                               "Questionnaire), Exhibit A",
    "amendment_business_days": "RRA §2(b), §4(d)",
    "amendment_min_principal": "RRA §2(b), §4(d)",
    "trustee_notice_business_days": "RRA §3(b)",
    "advise_holders_business_days": "RRA §4(b)(iii)",
    "mail_notice_business_days": "RRA §10(E)",
}

LETTER_CLAUSES = {
    "agreement_date": "Letter (dated February 1, 2002)",
    "true_up_cutoff": "Letter ¶3",
    "formula": "Warrant Agreement Art. IV and Certificate of Designations §12 (not in the seeds: a term)",
    "price_decimals": "a term of the deal",
    "warrantholders": "Letter ¶1",
    "camden_entities": "Letter ¶2",
    "preferred_dividends": "Letter ¶2 (8% Series A Cumulative Convertible Participating "
                           "Preferred Stock); Certificate of Designations (not in the seeds: "
                           "a term)",
}

TEMPLATES: dict[str, dict[str, Any]] = {
    "infocrossing-rra-2004": {
        "kind": "registration_rights",
        "name": "Infocrossing, Inc. 4.00% Convertible Senior Notes due 2024: "
                "Resale Registration Rights Agreement with Lehman Brothers Inc.",
        "date": date(2004, 6, 30),
        "terms": {
            "closing_date": "2004-06-30",
            "filing_deadline_days": 15,
            "effectiveness_deadline_days": 120,
            "effectiveness_period_years": 2,
            "cure_business_days": 5,
            "suspension_limits": SuspensionLimits().model_dump(mode="json"),
            "rates": Rates().model_dump(mode="json"),
            "interest_payment_dates": ["01-15", "07-15"],
            "first_interest_payment_date": "2005-01-15",
            "record_dates": ["01-01", "07-01"],
            "day_count": "30/360",
            "maturity": "2024-07-15",
            "conversion_price": "15.36",
            "questionnaire_business_days": 20,
            "questionnaire_form_days": 20,
            "amendment_business_days": 10,
            "amendment_min_principal": "1000000",
            "trustee_notice_business_days": 2,
            "advise_holders_business_days": 5,
            "mail_notice_business_days": 5,
        },
        "clauses": RRA_CLAUSES,
    },
    "infocrossing-letter-2002": {
        "kind": "antidilution_deferral",
        "name": "Infocrossing, Inc.: letter agreement deferring Warrant and Series A "
                "Preferred anti-dilution until the Camden Warrants vest",
        "date": date(2002, 2, 1),
        "terms": {
            "agreement_date": "2002-02-01",
            "true_up_cutoff": "2004-02-01",
            "formula": "weighted_average_broad",
            "price_decimals": 4,
            "warrantholders": [
                "DB Capital Investors, L.P.",
                "Sandler Capital Partners V, L.P.",
                "Sandler Capital Partners V FTE, L.P.",
                "Sandler Technology Partners, L.P.",
                "Sandler Co-Investment Partners, L.P.",
                "Price Family Limited Partners",
                "Benake L.P.",
            ],
            "camden_entities": [
                "Camden Partners Strategic Fund II-A, L.P.",
                "Camden Partners Strategic Fund II-B, L.P.",
                "Cahill Warnock Strategic Partners Fund, L.P.",
                "Strategic Associates, L.P.",
            ],
            "preferred_dividends": {"rate": "8.00", "day_count": "30/360",
                                    "convert_accrued": True},
        },
        "clauses": LETTER_CLAUSES,
    },
}


def template(name: str) -> dict[str, Any]:
    """A template by name; ``KeyError`` lists the known ones."""
    try:
        return TEMPLATES[name]
    except KeyError:
        raise KeyError(f"unknown template {name!r}; known: {', '.join(TEMPLATES)}") from None
