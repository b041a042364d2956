"""Deal terms and the two templates (SPEC §4.1, §5.1), each term beside its clause.

A deal's terms travel inside its ``DealOpened`` event, so that a report is a function of
the log alone: changing a template later never changes an existing deal.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, PlainValidator,
                      ValidationError, model_validator)

from .values import Day, FieldError, Money, MoneyOrZero, Name, Price

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

# Bounds a real deal could have. A term past them is a typo (a deadline of 10**12 days, a
# closing date in the year 9999) that would otherwise be accepted and only break every
# later report; each refusal names the term and the bound.
EARLIEST_DATE, LATEST_DATE = date(1990, 1, 1), date(2100, 12, 31)
LONGEST_TERM_YEARS = 50   # from the closing (agreement) date to maturity (cutoff)
HIGHEST_RATE = Decimal(25)  # per cent per annum, in any step of Additional Interest


def _count(maximum: int, unit: str, why: str):
    """A whole number of days (or years) from 1 to ``maximum``."""

    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, Decimal) and value == value.to_integral_value() \
                    and value.is_finite():
                value = int(value)
            else:
                raise ValueError(f"must be a whole number of {unit}")
        if value <= 0:
            raise ValueError("Input should be greater than 0")
        if value > maximum:
            raise ValueError(f"must be at most {maximum} {unit} ({why})")
        return value

    return Annotated[int, PlainValidator(check)]


def _rate(value: Decimal) -> Decimal:
    """RRA §3(a): a rate of Additional Interest, in per cent per annum."""
    if not value.is_finite():
        raise ValueError("must be a finite number")
    if value < 0:
        raise ValueError("must not be negative (a rate of Additional Interest, per cent "
                         "per annum)")
    if value > HIGHEST_RATE:
        raise ValueError(f"must be at most {HIGHEST_RATE} (per cent per annum; "
                         f"{value} is not a rate a deal pays)")
    return value


Rate = Annotated[Decimal, AfterValidator(_rate)]
Days = _count(3660, "days", "ten years: longer than any deal's period")
BusinessDays = _count(260, "Business Days", "a year of Business Days")
Years = _count(LONGEST_TERM_YEARS, "years", "longer than the Notes run")


def _in_range(name: str, day: date) -> None:
    if not EARLIEST_DATE <= day <= LATEST_DATE:
        raise FieldError(name, f"must be between {EARLIEST_DATE} and {LATEST_DATE} (a date "
                               f"of a deal this ledger carries), not {day}")


def _distinct(name: str, values: list[str]) -> None:
    for i, v in enumerate(values):
        if v in values[:i]:
            raise FieldError(f"{name}.{i}", f"{v} is listed twice")


class _Terms(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SuspensionLimits(_Terms):
    """RRA §4(b)(i), §3(a)(iv): each limit at most its window."""

    single: Days = 45
    single_material: Days = 60
    window_days: Days = 90
    window_limit: Days = 45
    window_limit_material: Days = 60
    long_window_days: Days = 360
    long_window_limit: Days = 90

    @model_validator(mode="after")
    def _limits_fit_windows(self) -> "SuspensionLimits":
        for limit, window in (("window_limit", "window_days"),
                              ("window_limit_material", "window_days"),
                              ("long_window_limit", "long_window_days")):
            if getattr(self, limit) > getattr(self, window):
                raise FieldError(limit, f"{getattr(self, limit)} days cannot fit in a "
                                        f"{window} of {getattr(self, window)} days")
        if self.long_window_days < self.window_days:
            raise FieldError("long_window_days", f"must be at least window_days "
                                                 f"({self.window_days})")
        for material, plain in (("single_material", "single"),
                                ("window_limit_material", "window_limit")):
            if getattr(self, material) < getattr(self, plain):
                raise FieldError(material, f"must be at least {plain} ({getattr(self, plain)}"
                                           "): a material transaction extends the limit")
        return self


class Rates(_Terms):
    """RRA §3(a)(i)-(iv): per-annum percentages of principal."""

    first_days: _count(366, "days", "the first step lasts at most a year") = 90
    first: Rate = Decimal("0.25")
    second: Rate = Decimal("1.00")
    second_until_anniversary: Years = 2
    third: Rate = Decimal("3.00")
    step: Rate = Decimal("2.00")
    step_from_anniversary: Years = 3

    @model_validator(mode="after")
    def _anniversaries_in_order(self) -> "Rates":
        if self.step_from_anniversary < self.second_until_anniversary:
            raise FieldError("step_from_anniversary",
                             f"must be at least second_until_anniversary "
                             f"({self.second_until_anniversary})")
        return self


class RegistrationTerms(_Terms):
    closing_date: Day
    filing_deadline_days: Days = 15
    effectiveness_deadline_days: Days = 120
    effectiveness_period_years: Years = 2
    cure_business_days: BusinessDays = 5
    suspension_limits: SuspensionLimits = SuspensionLimits()
    rates: Rates = Rates()
    interest_payment_dates: list[MonthDay] = Field(["01-15", "07-15"], min_length=1,
                                                   max_length=12)
    first_interest_payment_date: Day
    record_dates: list[MonthDay] = Field(["01-01", "07-01"], min_length=1, max_length=12)
    day_count: Literal["30/360", "ACT/360", "ACT/365F", "ACT/ACT-ISDA"] = "30/360"
    maturity: Day
    conversion_price: Price
    questionnaire_business_days: BusinessDays = 20
    questionnaire_form_days: Days = 20
    amendment_business_days: BusinessDays = 10
    amendment_min_principal: MoneyOrZero = Decimal(1_000_000)
    trustee_notice_business_days: BusinessDays = 2
    advise_holders_business_days: BusinessDays = 5
    mail_notice_business_days: BusinessDays = 5
    maximum_principal: Money | None = None

    @model_validator(mode="after")
    def _dates_of_a_real_deal(self) -> "RegistrationTerms":
        """The closing date in range; the first Interest Payment Date within a year after
        it and one of the Interest Payment Dates; maturity after both and within
        ``LONGEST_TERM_YEARS``; the effectiveness deadline not before the filing one."""
        _in_range("closing_date", self.closing_date)
        _distinct("interest_payment_dates", self.interest_payment_dates)
        _distinct("record_dates", self.record_dates)
        closing, first, maturity = (self.closing_date, self.first_interest_payment_date,
                                    self.maturity)
        if not closing < first <= closing + timedelta(days=366):
            raise FieldError("first_interest_payment_date",
                             f"must be after the closing date {closing} and within a year "
                             f"of it, not {first}")
        if first.strftime("%m-%d") not in self.interest_payment_dates:
            raise FieldError("first_interest_payment_date",
                             f"{first} is not on one of the interest_payment_dates "
                             f"({', '.join(self.interest_payment_dates)})")
        if maturity <= first:
            raise FieldError("maturity", f"must be after the first Interest Payment Date "
                                         f"{first} (and the closing date {closing}), not "
                                         f"{maturity}")
        if maturity > _years_after(closing, LONGEST_TERM_YEARS):
            raise FieldError("maturity", f"must be within {LONGEST_TERM_YEARS} years of the "
                                         f"closing date {closing}, not {maturity}")
        if self.effectiveness_deadline_days < self.filing_deadline_days:
            raise FieldError("effectiveness_deadline_days",
                             f"must be at least filing_deadline_days "
                             f"({self.filing_deadline_days}): the shelf is filed before it "
                             "is effective")
        return self


def _years_after(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year + years)
    except ValueError:  # 29 February
        return day.replace(year=day.year + years, day=28)


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
    warrantholders: list[Name] = Field([], max_length=1000)
    camden_entities: list[Name] = Field([], max_length=1000)
    preferred_dividends: PreferredDividends | None = None

    @model_validator(mode="after")
    def _dates_of_a_real_deal(self) -> "LetterTerms":
        """The agreement date in range; the true-up cutoff after it, within
        ``LONGEST_TERM_YEARS``."""
        _in_range("agreement_date", self.agreement_date)
        if not self.agreement_date < self.true_up_cutoff <= _years_after(
                self.agreement_date, LONGEST_TERM_YEARS):
            raise FieldError("true_up_cutoff",
                             f"must be after the agreement date {self.agreement_date} and "
                             f"within {LONGEST_TERM_YEARS} years of it, not "
                             f"{self.true_up_cutoff}")
        _distinct("warrantholders", self.warrantholders)
        _distinct("camden_entities", self.camden_entities)
        return self


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
        cause = (first.get("ctx") or {}).get("error")
        if isinstance(cause, FieldError):  # a check across terms, naming the one at fault
            where = ".".join(p for p in (where, cause.field) if p)
            msg = cause.problem
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
    "maximum_principal": "RRA preamble ($60,000,000; $72,000,000 if the Initial Purchaser "
                         "exercises its option in full): the most Notes the agreement covers; "
                         "no NotesIssued past it",
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
            "maximum_principal": "72000000",
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
