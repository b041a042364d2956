"""Exact arithmetic for prices and shares (SPEC §5.2).

Inside, every quantity is a ``Fraction``, so no precision context can move a rounding
boundary; outside, prices are ``Decimal`` rounded once, half-up, to the deal's
``price_decimals``, and shares are whole numbers rounded down. ``show`` writes a number
for the arithmetic text of an explanation.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction


def exact(value: Decimal | int | Fraction) -> Fraction:
    """The exact rational value of a Decimal, an int or a Fraction."""
    return value if isinstance(value, Fraction) else Fraction(value)


def round_price(value: Fraction, decimals: int) -> Decimal:
    """A price rounded half-up to ``decimals`` places (SPEC §5.1 ``price_decimals``)."""
    return round_ratio(value.numerator, value.denominator, decimals)


def round_ratio(numerator: int, denominator: int, decimals: int) -> Decimal:
    """``round_price`` of ``numerator / denominator`` (``denominator > 0``; the ratio need
    not be in lowest terms: scaling both by ``k`` scales the remainder below by ``k``)."""
    if decimals < 0:
        raise ValueError("decimals must not be negative")
    # whole + rest/den = value × 10^decimals; half-up: up when rest/den >= 1/2 (in
    # integers: Fraction arithmetic here cost a tenth of the true-up replay)
    whole, rest = divmod(numerator * 10**decimals, denominator)
    if 2 * rest >= denominator:
        whole += 1
    return Decimal(whole).scaleb(-decimals)


def whole_shares(value: Fraction) -> int:
    """Whole shares: round down (SPEC §5.2)."""
    return value.numerator // value.denominator


def finite_decimal(value: Fraction) -> Decimal | None:
    """``value`` as an exact Decimal if it has a finite decimal expansion, else None."""
    den, twos, fives = value.denominator, 0, 0
    while den % 2 == 0:
        den, twos = den // 2, twos + 1
    while den % 5 == 0:
        den, fives = den // 5, fives + 1
    if den != 1:
        return None
    places = max(twos, fives)
    return Decimal(value.numerator * 10**places // value.denominator).scaleb(-places)


def show(value: Fraction | Decimal | int, places: int = 6) -> str:
    """A number for arithmetic text: exact when it is a short decimal, else rounded with '…'."""
    if isinstance(value, (int, Decimal)):
        return format(value, "f") if isinstance(value, Decimal) else str(value)
    if value.denominator == 1:
        return str(value.numerator)
    as_decimal = finite_decimal(value)
    if as_decimal is not None and -as_decimal.as_tuple().exponent <= places:
        return format(as_decimal, "f")
    return format(round_price(value, places), "f") + "…"


def decimal_text(value: Fraction) -> str:
    """A fraction of a position as exact decimal text ("0.4"); '…' only if not finite."""
    as_decimal = finite_decimal(value)
    if as_decimal is None:
        return show(value, 12)
    text = format(as_decimal, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def fraction_text(value: Fraction | Decimal | int) -> str:
    """An exact number as data: ``"3"``, ``"2.85"`` or ``"1370000/3"`` (never rounded), so
    that an explanation can re-compute from it (``Fraction(text)`` reads it back)."""
    value = exact(value)
    if value.denominator == 1:
        return str(value.numerator)
    as_decimal = finite_decimal(value)
    return format(as_decimal, "f") if as_decimal is not None else \
        f"{value.numerator}/{value.denominator}"
