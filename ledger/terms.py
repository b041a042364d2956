"""Deal terms, validated, and the templates (SPEC §4.1, §5.1).

A deal's terms travel inside its ``DealOpened`` event, so that a report is a function of
the log alone: changing a template later never changes an existing deal.

A registration rights deal's terms are the schema of ``ledger.registration_terms``
(version 2), checked here with pydantic (its shape, each value's type, no unknown key)
and by ``registration_problems`` (what crosses terms: bounds a real deal has, dates in
order, a ladder that starts on day 1 ...). Terms without a ``version`` are version 1 and
are restated in version 2 first (``ledger.terms_v1``). The letter's terms are the models
below.

Templates are data: ``ledger/templates/NAME.json`` (``{kind, name, date, terms, ...}``),
the market ones with their sources and the terms that rest on market practice rather than
the excerpt of the agreement they come from.
"""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from decimal import Decimal
from functools import lru_cache
from importlib.resources import files
from typing import Annotated, Any, Iterator, Literal

from pydantic import (BaseModel, ConfigDict, Field, PlainValidator, ValidationError,
                      model_validator)

from . import terms_v1
from .registration_terms import SCHEMA_VERSION, RegistrationTerms
from .registration_terms import read as _read_terms
from .values import Day, FieldError, Name, _money, _price, parse_day

DAY_COUNTS = ("30/360", "ACT/360", "ACT/365F", "ACT/ACT-ISDA")
FORMULAS = ("weighted_average_broad", "weighted_average_narrow", "full_ratchet")

from .terms_checks import (EARLIEST_DATE, LATEST_DATE, LONGEST_TERM_YEARS,  # noqa: F401
                           _in_range, _years_after, checks)


# ------------------------------------------------------------ registration rights terms


@lru_cache(maxsize=1)
def _adapter():
    from pydantic import TypeAdapter

    return TypeAdapter(RegistrationTerms)


def _json_ready(value: Any) -> Any:
    """Terms as read from JSON Lines (numbers as ``Decimal``) as plain JSON: a whole
    number an ``int``, another a string (a rate keeps its digits)."""
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_ready(v) for v in value]
    if isinstance(value, Decimal):
        if value.is_finite() and value == value.to_integral_value() and "." not in str(value) \
                and "E" not in str(value).upper():
            return int(value)
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    return value


def _message(error: dict[str, Any]) -> str:
    kind, msg = error["type"], error["msg"]
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        return "unknown term"
    if kind in ("missing", "missing_keyword_argument"):
        return "is required"
    return msg.removeprefix("Value error, ")


def _path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc)


def registration_problems(terms: Any) -> tuple[RegistrationTerms | None,
                                               list[tuple[str, str]]]:
    """The terms parsed, and every problem found as ``(path, what is wrong)``: first the
    schema's (shape, types, unknown terms), then, if there are none, what crosses terms.
    Version 1 terms are read as version 2 (``ledger.terms_v1``)."""
    if not isinstance(terms, dict):
        return None, [("", "the terms must be a JSON object")]
    if terms_v1.is_v1(terms):
        terms = terms_v1.upcast(terms)
    elif terms.get("version") != SCHEMA_VERSION:
        return None, [("version", f"this deal-ledger reads terms of version 1 and "
                                  f"{SCHEMA_VERSION}, not {terms.get('version')!r}")]
    from pydantic import ValidationError as Invalid

    plain = list(_plain_values(terms))
    try:
        parsed = _adapter().validate_json(json.dumps(_json_ready(terms)), strict=True)
    except Invalid as err:
        found = {p for p, _ in plain}
        return None, plain + [(_path(e["loc"]), _message(e)) for e in
                              err.errors(include_url=False) if _path(e["loc"]) not in found]
    return (None, plain) if plain else (parsed, list(checks(parsed)))


#: the plain values of the terms checked as the event format checks its own (a day, a
#: price, an amount), so that a refusal names the rule ("not a real calendar date",
#: "exponent notation", "more than two decimals") rather than a type
_PLAIN_VALUES = (
    (("agreement_date",), parse_day), (("closing_date",), parse_day),
    (("issue_date",), parse_day), (("maturity",), parse_day),
    (("payment", "first_interest_payment_date"), parse_day),
    (("conversion_price",), _price),
    (("questionnaire", "late_amendment", "min_principal"), _money(True)),
)


def _plain_values(terms: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for path, check in _PLAIN_VALUES:
        value: Any = terms
        for name in path:
            value = value.get(name) if isinstance(value, dict) else None
        if value is None:
            continue
        try:
            check(value)
        except ValueError as err:
            yield ".".join(path), str(err)


def validate_registration(terms: Any) -> RegistrationTerms:
    """The parsed terms; ``FieldError`` naming the first problem (``terms.<path>``)."""
    parsed, problems = registration_problems(terms)
    if problems:
        where, what = problems[0]
        raise FieldError(f"terms.{where}" if where else "terms", what)
    return parsed


def dump(value: Any) -> Any:
    """The stored JSON form of parsed terms: every term, but an optional one left out
    when it has its default (a ``quote`` not given, a step's ``of: closing``); dates
    ISO, amounts and rates strings."""
    import dataclasses

    if dataclasses.is_dataclass(value):
        out = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            default = (f.default_factory() if f.default_factory is not dataclasses.MISSING
                       else f.default)
            if default is not dataclasses.MISSING and v == default:
                continue
            out[f.name] = dump(v)
        return out
    if isinstance(value, list):
        return [dump(v) for v in value]
    if isinstance(value, dict):
        return {k: dump(v) for k, v in value.items()}
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    return value


# ------------------------------------------------------------------- letter terms


class _Terms(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _distinct(name: str, values: list[str]) -> None:
    for i, v in enumerate(values):
        if v in values[:i]:
            raise FieldError(f"{name}.{i}", f"{v} is listed twice")


def _in_range_or_raise(name: str, day: date) -> None:
    for where, what in _in_range(name, day):
        raise FieldError(where, what)


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
        _in_range_or_raise("agreement_date", self.agreement_date)
        if not self.agreement_date < self.true_up_cutoff <= _years_after(
                self.agreement_date, LONGEST_TERM_YEARS):
            raise FieldError("true_up_cutoff",
                             f"must be after the agreement date {self.agreement_date} and "
                             f"within {LONGEST_TERM_YEARS} years of it, not "
                             f"{self.true_up_cutoff}")
        _distinct("warrantholders", self.warrantholders)
        _distinct("camden_entities", self.camden_entities)
        return self


def _letter(terms: dict[str, Any]) -> dict[str, Any]:
    try:
        parsed = LetterTerms.model_validate(terms)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        msg = _message(first)
        cause = (first.get("ctx") or {}).get("error")
        if isinstance(cause, FieldError):  # a check across terms, naming the one at fault
            where = ".".join(p for p in (where, cause.field) if p)
            msg = cause.problem
        raise FieldError(f"terms.{where}", msg) from None
    return parsed.model_dump(mode="json")


def validate_terms(kind: str, terms: dict[str, Any]) -> dict[str, Any]:
    """The normalised JSON form of a deal's terms; ``ValueError`` naming the term (a
    ``FieldError`` whose ``field`` is ``terms.<term>``)."""
    if kind == "registration_rights":
        return dump(validate_registration(terms))
    return _letter(terms)


def registration_terms(terms: dict[str, Any]) -> RegistrationTerms:
    """Stored (or new) terms of a registration rights deal, validated."""
    return validate_registration(terms)


def letter_terms(terms: dict[str, Any]) -> LetterTerms:
    return LetterTerms.model_validate(terms)


def read_stored(terms: dict[str, Any]) -> RegistrationTerms:
    """Stored version 2 terms read without validation (``ledger.registration_terms``)."""
    return _read_terms(RegistrationTerms, terms)


# ------------------------------------------------------------------------- templates

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

#: the templates shipped (``ledger/templates/NAME.json``), in the order they are listed: the
#: two Infocrossing agreements, then the market forms of ``/work/shared/agreements/`` (each
#: saying which of its terms rest on market practice rather than the excerpt)
TEMPLATE_NAMES = ("infocrossing-rra-2004", "infocrossing-letter-2002", "debentures-rra-2005",
                  "senior-notes-2002", "edwards-rra-2003")


def _load(name: str) -> dict[str, Any]:
    raw = json.loads((files("ledger") / "templates" / f"{name}.json").read_text("utf-8"))
    raw["date"] = date.fromisoformat(raw["date"])
    if raw["kind"] == "antidilution_deferral":
        raw["clauses"] = LETTER_CLAUSES
    return raw


class _Templates(dict):
    """``{name: template}``, each read from its file on first use."""

    def __missing__(self, name: str) -> dict[str, Any]:
        if name not in TEMPLATE_NAMES:
            raise KeyError(name)
        found = self[name] = _load(name)
        return found

    def __iter__(self):
        return iter(TEMPLATE_NAMES)

    def __len__(self) -> int:
        return len(TEMPLATE_NAMES)

    def __contains__(self, name: object) -> bool:
        return name in TEMPLATE_NAMES

    def keys(self):
        return list(TEMPLATE_NAMES)

    def items(self):
        return [(n, self[n]) for n in TEMPLATE_NAMES]

    def values(self):
        return [self[n] for n in TEMPLATE_NAMES]


TEMPLATES: dict[str, dict[str, Any]] = _Templates()


def template(name: str) -> dict[str, Any]:
    """A template by name; ``KeyError`` lists the known ones."""
    try:
        return TEMPLATES[name]
    except KeyError:
        raise KeyError(f"unknown template {name!r}; known: {', '.join(TEMPLATES)}") from None
