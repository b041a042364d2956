"""Value types of the event format (SPEC §3): dates, money, prices, fractions, shares.

Each is a pydantic ``Annotated`` type with a plain validator, so that the refusal names
the rule broken ("more than two decimals", "not a whole number of shares") rather than
a generic type error. JSON numbers arrive as ``Decimal`` (the JSONL reader parses floats
that way), so no value ever passes through a binary float.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any

from pydantic import PlainSerializer, PlainValidator

from .dates import parse_day  # noqa: F401 (re-exported: a value type's parser)

MAX_AMOUNT = Decimal(10) ** 13  # ten trillion: larger is a typo, not a deal
MAX_SHARES = 10**12

_DECIMAL_TEXT = re.compile(r"-?\d+(\.\d+)?", re.ASCII)  # ASCII digits only
_EXPONENT_TEXT = re.compile(r"-?(\d+(\.\d*)?|\.\d+)[eE][+-]?\d+", re.ASCII)


class ExponentDecimal(Decimal):
    """A JSON number written with an exponent (``6e7``): refused for amounts."""


class BigInteger(Decimal):
    """A JSON integer with more digits than any amount or share count has: refused."""


class FieldError(ValueError):
    """A check across fields (a model validator) that still concerns one field, so that
    the refusal names that field rather than the whole object."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


class Marker:
    """Tags a field's value kind so readers can convert stored JSON back to values."""

    def __init__(self, kind: str):
        self.kind = kind

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Marker({self.kind})"


DECIMAL = Marker("decimal")
DATE = Marker("date")


def _to_decimal(value: Any) -> Decimal:
    if isinstance(value, bool):
        raise ValueError("must be a number, not true/false")
    if isinstance(value, ExponentDecimal):
        raise ValueError("exponent notation is not allowed; write the number out")
    if isinstance(value, BigInteger):
        raise ValueError("is too large (more digits than any amount has)")
    if isinstance(value, Decimal):
        number = value
    elif isinstance(value, int):
        number = Decimal(value)
    elif isinstance(value, str):
        text = value.strip()
        if _EXPONENT_TEXT.fullmatch(text):  # not any "e": "free" is not exponent notation
            raise ValueError("exponent notation is not allowed; write the number out")
        if not _DECIMAL_TEXT.fullmatch(text):
            raise ValueError(f"not a decimal number: {value!r}")
        try:
            number = Decimal(text)
        except InvalidOperation:  # pragma: no cover - the regex already checked
            raise ValueError(f"not a decimal number: {value!r}") from None
    elif isinstance(value, float):
        raise ValueError("must be an exact decimal, not a binary float")
    else:
        raise ValueError(f"must be a number, not {type(value).__name__}")
    if not number.is_finite():
        raise ValueError("must be a finite number (no NaN or Infinity)")
    return number


def _places(number: Decimal) -> int:
    exponent = number.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def _money(allow_zero: bool):
    def check(value: Any) -> Decimal:
        number = _to_decimal(value)
        if number < 0 or (number == 0 and not allow_zero):
            raise ValueError("must be a positive amount" if not allow_zero else "must not be negative")
        if _places(number) > 2:
            raise ValueError("has more than two decimals (amounts are in cents)")
        if number >= MAX_AMOUNT:
            raise ValueError("is too large for an amount of this deal")
        return number

    return check


def _price(value: Any) -> Decimal:
    number = _to_decimal(value)
    if number <= 0:
        raise ValueError("must be a positive price")
    if _places(number) > 6:
        raise ValueError("has more than six decimals")
    if number >= MAX_AMOUNT:
        raise ValueError("is too large for a price")
    return number


def _fraction(value: Any) -> Decimal:
    number = _to_decimal(value)
    if not (0 < number <= 1):
        raise ValueError("must be a fraction greater than 0 and at most 1")
    if _places(number) > 12:
        raise ValueError("has more than twelve decimals")
    return number


def _shares(minimum: int):
    def check(value: Any) -> int:
        if isinstance(value, BigInteger):
            raise ValueError("is too large for a share count")
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, (Decimal, str, float)):
                raise ValueError("must be a whole number of shares (a JSON integer)")
            raise ValueError(f"must be a whole number, not {type(value).__name__}")
        if value < minimum:
            raise ValueError("must be a positive whole number" if minimum > 0 else "must not be negative")
        if value > MAX_SHARES:
            raise ValueError("is too large for a share count")
        return value

    return check


def _text(value: Any) -> str:
    """One line of visible text (a reason, a subject, a source): a control character (an
    escape that clears a screen, a newline that forges a line of ``log``) is refused, as
    in names."""
    if not isinstance(value, str):
        raise ValueError(f"must be text, not {type(value).__name__}")
    if not value.strip():
        raise ValueError("must not be empty")
    if len(value) > 500:
        raise ValueError("is longer than 500 characters")
    found = _control_characters(value)
    if found is not None:
        raise ValueError(f"holds the control character {found}; give one line of visible "
                         "text")
    return value


def _control_characters(text: str) -> str | None:
    """The first control or invisible formatting character of ``text`` (a newline, a tab,
    a zero-width space, a right-to-left override...), shown as ``U+XXXX``; ``None`` if
    there is none. Such characters make two names that print alike compare unequal."""
    if text.isprintable():
        # no character of the categories Cc, Cf, Zl, Zp (nor any other it refuses but
        # the space): the common case, answered without a Python loop over the text
        return None
    import unicodedata

    for char in text:
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
            return f"U+{ord(char):04X}"
    return None


def _name(value: Any) -> str:
    """A name that identifies something across events (a Holder, an instrument, a
    consent's matter): normalised on input to Unicode NFC with the surrounding
    whitespace removed, so that "Benaké L.P." typed in NFD or with a trailing space is
    the same Holder as the one already in the ledger; a control character is refused.
    Only new input is normalised: stored records are read, and hashed, as stored."""
    import unicodedata

    return unicodedata.normalize("NFC", _text(value)).strip()


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


# Positional notation always: str(Decimal("0.0000001")) is "1E-7", which the reader
# refuses as exponent notation, so the normalised form could not be appended again.
_as_str = PlainSerializer(lambda number: format(number, "f"), return_type=str)

Day = Annotated[date, PlainValidator(parse_day), PlainSerializer(date.isoformat, return_type=str), DATE]
Money = Annotated[Decimal, PlainValidator(_money(False)), _as_str, DECIMAL]
MoneyOrZero = Annotated[Decimal, PlainValidator(_money(True)), _as_str, DECIMAL]
Price = Annotated[Decimal, PlainValidator(_price), _as_str, DECIMAL]
Fraction01 = Annotated[Decimal, PlainValidator(_fraction), _as_str, DECIMAL]
Shares = Annotated[int, PlainValidator(_shares(1))]
SharesOrZero = Annotated[int, PlainValidator(_shares(0))]
Text = Annotated[str, PlainValidator(_text)]
Name = Annotated[str, PlainValidator(_name)]
Flag = Annotated[bool, PlainValidator(_flag)]
