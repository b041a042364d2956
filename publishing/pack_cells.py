"""How the auditor pack writes a value: its tables' cells, shared by every page of the pack
(``pack_html``'s sections, ``pack_obligations``' table).

Columns are named in words, money carries its currency and thousands separators
wherever it stands (a table's amount, or an amount inside a sentence: issue 31, item 11),
shares of a total are percentages, a clause reference never breaks, dates are never
broken across lines.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from html import escape
from typing import Any, Mapping, Sequence

# Column names in words (a report key that is not here is shown with spaces for "_").
HEADERS = {
    "default_date": "default date", "accrual_from": "accrues from",
    "accrual_until": "accrues to (exclusive)", "cured_on": "cured on",
    "stopped_by": "stopped by", "last_permitted_day": "last permitted day",
    "material_transaction": "material transaction", "payment_date": "payment date",
    "paid_on": "pays on", "record_date": "record date", "period_start": "period from",
    "period_end": "period to (exclusive)", "met_on": "met on", "late_on": "done late on",
    "over_issued": "over-issued", "shares_issued": "shares issued",
    "price_at_exercise": "price at exercise", "exercised_fraction": "exercised",
    "deferred_price_if_all_vest": "price if every Camden Warrant vested",
    "deferred_shares_if_all_vest": "shares if every Camden Warrant vested",
    "total": "outstanding", "share": "share consenting", "majority": "majority",
    "period_start_": "period start", "first_day": "first day", "last_day": "last day",
    "window": "window (days)", "events": "events",
}
MONEY = {"amount", "paid", "consenting", "total", "accrued"}
COUNTS = {"owed", "issued", "outstanding", "over_issued", "shares_issued", "entitled",
          "shares", "warrants", "vested", "deferred_shares_if_all_vest", "days", "limit",
          "window", "episode"}
PERCENTS = {"share", "fraction", "exercised_fraction"}
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


#: the deals' currency: the Notes, their Additional Interest and the Letter's prices are
#: in United States dollars
CURRENCY = "USD"


def money(value: Any) -> str:
    """``"56999987.2"`` → ``USD 56,999,987.20``."""
    try:
        return f"{CURRENCY} {Decimal(str(value)):,.2f}"
    except (InvalidOperation, ValueError):
        return str(value)


#: an amount inside a sentence: a whole number with exactly two decimals, not inside a
#: longer token and not a percentage (``0.25%`` is a rate)
_MONEY_IN_TEXT = re.compile(r"(?<![\w.,-])\d+\.\d{2}(?![\w.,%]*\d)(?!%)")


def money_in_text(text: str) -> str:
    """The amounts of a sentence as ``money`` writes them: ``2569.44 unpaid`` →
    ``USD 2,569.44 unpaid`` (a date, a clause, a rate or a share count is left alone)."""
    return _MONEY_IN_TEXT.sub(lambda m: money(m.group()), text)


def count(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) \
        else str(value)


def percent(value: Any) -> str:
    """A fraction as a percentage: ``"0.791667"`` → ``79.17%``, ``"1"`` → ``100%``."""
    try:
        q = (Decimal(str(value)) * 100).quantize(Decimal("0.01"))
    except (InvalidOperation, ValueError):
        return str(value)
    text = f"{q:f}"
    return (text.rstrip("0").rstrip(".") if "." in text else text) + "%"


def header(key: str) -> str:
    return HEADERS.get(key, key.replace("_", " "))


def readable(value: Any, key: str = "") -> str:
    """Any value of a report or an event as plain text (never a Python repr)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(readable(v) for v in value)
    if isinstance(value, Mapping):
        return "; ".join(f"{k.replace('_', ' ')}: {readable(v, k)}" for k, v in value.items())
    if key in MONEY or key.startswith(("principal", "amount")):
        return money(value)
    if key in PERCENTS:
        return percent(value)
    if isinstance(value, int):
        return count(value)
    return str(value)


def cell(value: Any, key: str) -> tuple[str, str]:
    """The cell's HTML and its class (``n`` numbers, ``d`` dates: never wrapped)."""
    if value is None:
        return "", ""
    if key == "events" and isinstance(value, (list, tuple)):
        return " ".join(short(v) for v in value), "ids"   # wraps between ids only
    text = readable(value, key)
    if key in ("status", "kind"):        # nothing_owed -> nothing owed
        text = text.replace("_", " ")
    if key == "type":                    # WarrantsExercised -> Warrants Exercised (wraps)
        text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)
    if key == "clause":                  # RRA §2(a)(iii)(x) is one reference; a list
        return ", ".join(f'<span class="nw">{escape(part)}</span>'     # wraps between them
                         for part in text.split(", ")), "ref"
    if key in MONEY or key in COUNTS or key in PERCENTS:
        return escape(text), "n"
    if _DATE.fullmatch(text):
        return escape(text), "d"
    return keep_dates_whole(escape(money_in_text(text))), ""


def keep_dates_whole(html: str) -> str:
    """Escaped text with each date in it kept on one line: a browser may break a line
    at a hyphen, which cut ``(default date 2005-04-14)`` into ``2005-04-`` / ``14``."""
    return _DATE.sub(lambda m: f'<span class="nw">{m.group(0)}</span>', html)


def short(event_id: Any) -> str:
    text = str(event_id)
    return f'<code title="{escape(text)}">{escape(text[:8])}</code>'


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str],
          empty: str = "none", headers: Mapping[str, str] | None = None) -> str:
    """A table of ``rows`` (report objects) in ``columns`` (their keys), named in words
    and formatted by what each key holds."""
    if not rows:
        return f"<p><i>{escape(empty)}</i></p>"
    names = {**HEADERS, **(headers or {})}
    head = "".join(f"<th>{escape(names.get(c, header(c)))}</th>" for c in columns)
    body = []
    for row in rows:
        cells = []
        for c in columns:
            html, cls = cell(row.get(c), c)
            if c == "status" and row.get(c):
                cls = f"status-{escape(str(row.get(c)))}"
            cells.append(f'<td class="{cls}">{html}</td>' if cls else f"<td>{html}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def kv(pairs: Sequence[tuple[str, Any, str]]) -> str:
    """A two-column table: what, and its value formatted as ``key`` says."""
    body = []
    for what, value, key in pairs:
        html, cls = cell(value, key)
        body.append(f"<tr><td>{escape(what)}</td>"
                    + (f'<td class="{cls}">{html}</td>' if cls else f"<td>{html}</td>")
                    + "</tr>")
    return ("<table><thead><tr><th>item</th><th>value</th></tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")
