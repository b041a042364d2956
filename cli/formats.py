"""Output formats, in one place: every tabular command prints a human table by default,
exact JSON with ``--json`` and CSV with ``--csv`` (one header row, then one row per
entry, on standard output, UTF-8 without a byte order mark: a pipe's reader does not
expect one; the auditor pack's CSV files, meant to be opened in a spreadsheet, carry one).

CSV cells are the exact values (``6666.67``, not ``6,666.67``; ISO dates; ``true`` /
``false``; an empty cell for none), and a text cell a spreadsheet would run as a formula
is written with a leading ``'`` (``publishing.pack.csv_safe``).
"""

from __future__ import annotations

import csv
import json
from typing import Any, Callable, Iterable, Mapping, Sequence

import click


def json_option(help: str = "Exact JSON instead of the table.") -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help=help)


def csv_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--csv", "as_csv", is_flag=True,
                        help="CSV instead of the table: a header row, then one row per "
                             "entry, exact values.")(f)


def one_format(as_json: bool, as_csv: bool) -> str:
    """``"json"``, ``"csv"`` or ``"table"``; both flags at once is a usage error."""
    if as_json and as_csv:
        from ledger.errors import UsageError

        raise UsageError("give --json or --csv, not both", field="--csv")
    return "json" if as_json else "csv" if as_csv else "table"


def cell(value: Any) -> Any:
    """One CSV cell: exact, never a Python repr, never a formula. As the auditor pack's
    cells (``publishing.pack.csv_cell``; event ids joined with spaces), and also the
    values a pack never holds: names (which hold spaces) joined with ``; ``, other lists
    and objects as JSON."""
    from publishing.pack import csv_cell, csv_safe

    if isinstance(value, (list, tuple)) and not all(
            isinstance(v, str) and " " not in v for v in value):
        if all(isinstance(v, str) for v in value):
            return csv_safe("; ".join(value))
        return csv_safe(json.dumps(value, ensure_ascii=False))
    if isinstance(value, dict):
        return csv_safe(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    return csv_cell(value)


def plain_text(value: Any, none: str) -> str:
    """A value of an event's data or a figure as text for a human table: ``none`` for a
    null, true/false, lists and objects as JSON, anything else as it stands, its control
    characters made visible (``visible``)."""
    if value is None:
        return none
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return visible(str(value))


def visible(text: str) -> str:
    """``text`` with every control or invisible formatting character (category Cc, Cf,
    Zl, Zp: an escape, a newline, a right-to-left override...) written as its escape
    (``\\x1b``, ``\\n``, ``\\u202e``), so that a stored value cannot clear the screen or
    forge a line of output. New input refuses them (``ledger.values``); a record
    written before that, or altered, may still hold one."""
    if text.isprintable():
        return text
    import unicodedata

    return "".join(repr(c)[1:-1] if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")
                   else c for c in text)


def stdout():
    """Standard output for many lines: written through its buffer (``click.echo`` flushes
    after every call, which costs more than the rest of a million-line log), flushed by
    the caller at the end or by the stream when it is a terminal (line-buffered)."""
    import sys

    return sys.stdout


def write_csv(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> int:
    """Write a header and the rows (dicts, read by column name) to standard output, row by
    row; returns how many rows."""
    out = stdout()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    count = 0
    for row in rows:
        writer.writerow([cell(row.get(c)) for c in columns])
        count += 1
    out.flush()
    return count
