"""Exact money and its display (SPEC §2: "Money is Decimal, never float. Amounts are exact
until a payment is formed; each holder's amount for one payment date is rounded once,
half-up, to the cent").
"""

from __future__ import annotations

from calendar import isleap
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from ledger.daycount import day_count

CENT = Decimal("0.01")


def cents(principal: Decimal) -> int:
    """A principal amount (at most two decimals) as whole cents."""
    return int((principal * 100).to_integral_value())


def round_ratio(num: int, den: int) -> Decimal:
    """SPEC §2: the one rounding, half-up to the cent, of the exact non-negative amount
    ``num / den`` (integers, so that a thousand Holders cost no Fraction arithmetic)."""
    return Decimal((200 * num + den) // (2 * den)).scaleb(-2)


def money(amount: Decimal | int) -> str:
    """Two decimals, no exponent: the report's form of an amount."""
    if type(amount) is Decimal:
        # already in cents (most amounts: principal, payments, rounded amounts): the
        # decimal's own text is the same, without a quantize and a format (2 us a call)
        text = str(amount)
        if text[-3:-2] == "." and "E" not in text:
            return text
    return format(Decimal(amount).quantize(CENT, rounding=ROUND_HALF_UP), "f")


def fixed(amount: Decimal) -> str:
    """``format(amount, "f")``: the decimal's own text when it has none of its exponent
    forms (a rounded amount always: the same text, in a quarter of the time; 40,000 of
    them in a 1,000-Holder deal's report)."""
    text = str(amount)
    return format(amount, "f") if "E" in text else text


def plain(number: Decimal) -> str:
    """A principal or rate as written, without exponent or trailing zeros."""
    text = format(number, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def dollars(amount: Decimal) -> str:
    """An amount as agreements write it: ``$1 million``, ``$500,000``."""
    if amount >= 1_000_000 and amount % 1_000_000 == 0:
        return f"${plain(amount / 1_000_000)} million"
    return f"${amount:,.2f}".removesuffix(".00")


def exact_ratio(num: int, den: int, places: int = 6) -> str:
    """The exact amount ``num / den`` to ``places`` decimals, with ``…`` when it goes on."""
    whole, rest = divmod(num * 10**places, den)
    return format(Decimal(whole).scaleb(-places), "f") + ("…" if rest else "")


def year_fraction_text(convention: str, start: date, end: date) -> str:
    """How the day count reads ``[start, end)``: ``16/360``, ``17/365`` or, for ACT/ACT,
    one term per calendar year."""
    if convention in ("30/360", "ACT/360"):
        return f"{day_count(convention, start, end)}/360"
    if convention == "ACT/365F":
        return f"{day_count(convention, start, end)}/365"
    parts, cursor = [], start
    while cursor < end:
        stop = min(end, date(cursor.year + 1, 1, 1))
        basis = 366 if isleap(cursor.year) else 365
        parts.append(f"{(stop - cursor).days}/{basis}")
        cursor = stop
    joined = " + ".join(parts)
    return joined if len(parts) == 1 else f"({joined})"
