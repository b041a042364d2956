"""``deal-ledger log``: the log in seq order, streamed (one line per event as it is read,
never the whole log in memory), filtered by deal, type, date and seq."""

from __future__ import annotations

import os
import re
import sys
import textwrap
from contextlib import closing
from datetime import date
from typing import Any

import click

from ledger.stored import COMMON_TYPE_NAMES, TYPE_KINDS

from .common import db_option, guarded, open_ledger
from .formats import csv_option, one_format, plain_text, stdout, visible, write_csv
from .main import cli

CSV_COLUMNS = ("seq", "id", "deal", "type", "date", "data", "source", "key", "recorded_at",
               "recorded_by", "retracted_by")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)

LOG_EXAMPLE = """\b
Examples:
  deal-ledger log --limit 20
  deal-ledger log --deal infocrossing-rra-2004 --type ShelfFiled
  deal-ledger log --since 2005-01-01 --until 2005-12-31 --csv > 2005.csv
  deal-ledger log --after-seq 120 --json      # JSON Lines: one event per line
"""


def _day(text: str | None, option: str) -> date | None:
    if text is None:
        return None
    from ledger.errors import UsageError

    if not _DAY.fullmatch(text):
        raise UsageError(f"not a date in the form YYYY-MM-DD: {text!r}", field=option)
    try:
        return date.fromisoformat(text)
    except ValueError:   # 2005-02-30 has the form: say what is wrong with it, as --as-of does
        raise UsageError(f"not a real calendar date: {text!r} (YYYY-MM-DD)",
                         field=option) from None


def _text(value: Any) -> str:
    return plain_text(value, "null")


def summary(data: Any) -> str:
    """The event's data as ``name=value`` pairs, whole (a figure is never cut); a deal's
    terms are left to ``log --json``."""
    if not isinstance(data, dict):
        return _text(data)
    return ", ".join(f"{k}={_text(v)}" for k, v in data.items() if k != "terms")


def _width() -> int | None:
    """Where lines wrap: $COLUMNS if set, else the terminal's width; no wrapping into a
    pipe or a file (one line per event, for grep)."""
    if os.environ.get("COLUMNS", "").isdigit():
        return max(40, int(os.environ["COLUMNS"]))
    try:
        if sys.stdout.isatty():
            import shutil

            return shutil.get_terminal_size().columns
    except (AttributeError, ValueError, OSError):
        pass
    return None


def _is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _check_types(types: tuple[str, ...]) -> None:
    from ledger.catalog import unknown_type

    for t in types:
        if (problem := unknown_type(t)) is not None:
            from ledger.errors import UsageError

            raise UsageError(problem, field="--type")


def _check_deals(ledger: Any, deals: tuple[str, ...]) -> None:
    from ledger.errors import UsageError
    from ledger.store.logread import deal_names
    from ledger.suggest import did_you_mean

    from ledger.store.logread import has_deal

    known = None
    for d in deals:
        if has_deal(ledger, d):
            continue
        if known is None:
            known = deal_names(ledger)
        if d not in known:
            hint = did_you_mean(d, known) or (f"deals: {', '.join(known[:10])}" if known
                                                else "the ledger holds no deal")
            raise UsageError(f"no deal {d!r} in the ledger; {hint}", field="--deal")


@cli.command(epilog=LOG_EXAMPLE)
@click.option("--deal", "deals", multiple=True, metavar="DEAL",
              help="Only this deal's events; repeatable.")
@click.option("--type", "types", multiple=True, metavar="TYPE",
              help="Only events of this type (see `deal-ledger types`); repeatable.")
@click.option("--since", default=None, metavar="YYYY-MM-DD",
              help="Only events whose own date (the day it happened, not when it was "
                   "recorded) is on or after this day.")
@click.option("--until", default=None, metavar="YYYY-MM-DD",
              help="Only events whose own date is on or before this day.")
@click.option("--after-seq", "after_seq", type=click.IntRange(0), default=0, metavar="N",
              help="Only events after seq N (to continue where a --limit stopped).")
@click.option("--limit", type=click.IntRange(0), default=None, metavar="N",
              help="At most N events (the first N in seq order).")
@click.option("--json", "as_json", is_flag=True,
              help="JSON Lines (one JSON object per line, as stored, hash included), "
                   "streamed; what `append` and `verify --expect FILE` read.")
@csv_option
@db_option
@guarded
def log(deals: tuple[str, ...], types: tuple[str, ...], since: str | None, until: str | None,
        after_seq: int, limit: int | None, as_json: bool, as_csv: bool, db: str) -> None:
    """Show the log in seq order, one event per line as it is read (never held whole in
    memory); retracted events are marked, never hidden."""
    from ledger.store.logread import LogFilter, Retractions, log_records

    fmt = one_format(as_json, as_csv)
    where = LogFilter(after_seq=after_seq, deals=tuple(deals), types=tuple(types),
                      since=_day(since, "--since"), until=_day(until, "--until"))
    if where.types:
        _check_types(where.types)
    with open_ledger(db) as ledger:
        if where.deals:
            _check_deals(ledger, where.deals)
        if fmt == "json":  # streamed: the log is never held in memory
            from publishing.pack import log_line

            out = stdout()
            with closing(log_records(ledger, where, limit=limit)) as records:
                for r in records:
                    out.write(log_line(r) + "\n")
            out.flush()
            return
        retracted = Retractions(ledger)
        if fmt == "csv":
            # closed before the ledger, even when the reader stops early (a closed pipe)
            with closing(log_records(ledger, where, limit=limit)) as records:
                write_csv(CSV_COLUMNS, ({**r, "retracted_by": retracted.of(r)}
                                        for r in records))
            return
        _print_lines(ledger, where, limit, retracted)


def _print_lines(ledger: Any, where: Any, limit: int | None, retracted: Any) -> None:
    from ledger.store.logread import log_records

    digits = max(3, len(str(ledger.head().seq)))
    width = _width()
    strike = _is_terminal()
    indent = " " * (digits + 2)
    out = stdout()
    if width:   # columns under their heading (issue 31, item 15: at 80 they did not line up)
        click.echo(f"{'seq':>{digits}}  {'date':<10}  {'id':<8}  {'type':<{TYPE_WIDTH}}  deal")
        click.echo(f"{indent}data  (recorded, by)")
    else:       # a pipe or a file: one line per event, for grep
        click.echo(f"{'seq':>{digits}}  {'date':<10}  {'id':<8}  type  deal  data  "
                   "(recorded, by)")
    records = closing(log_records(ledger, where, limit=None if limit is None else limit + 1))
    with records as stream:
        more, shown, last = _lines(stream, out, digits, width, indent, strike, retracted, limit)
    tail = f"{shown} event(s)"
    if more:
        tail += f"; more after seq {last}: add --after-seq {last}"
    out.write(tail + "\n")
    out.flush()


# Joins a recording time's date and time while the line is wrapped (textwrap breaks at
# ASCII spaces only), then prints as a space: "2026-11-24" / "01:56:39" was split.
KEEP = "\u00a0"
# The widest event type's name (CamdenWarrantsCancelled): the type column at a terminal
TYPE_WIDTH = max(map(len, (*COMMON_TYPE_NAMES, *TYPE_KINDS)))


def _lines(stream: Any, out: Any, digits: int, width: int | None, indent: str, strike: bool,
           retracted: Any, limit: int | None) -> tuple[bool, int, int]:
    shown, last, more = 0, 0, False
    for r in stream:
        if limit is not None and shown >= limit:
            more = True
            break
        rid = str(r.get("id", ""))
        by = retracted.of(r)
        # a retraction taken back by an EventReinstated (issue 31) is withdrawn, not retracted
        word = "WITHDRAWN" if r.get("type") == "EventRetracted" else "RETRACTED"
        note = f"  {word} by {by[:8]}" if by else ""
        data = summary(r.get("data"))   # ShelfEffective has none: no blank gap for it
        # every field's control characters made visible (issue 29): a stored escape or
        # newline neither clears the screen nor forges a line
        head = visible(f"{r.get('seq', '?'):>{digits}}  {r.get('date')}  {rid[:8]}  ")
        kind, deal = visible(str(r.get("type"))), visible(str(r.get("deal")))
        rest = visible(f"{data + '  ' if data else ''}(recorded "
                       f"{str(r.get('recorded_at', ''))[:19].replace('T', KEEP)}, by "
                       f"{r.get('recorded_by')}){note}")
        if width:   # the type padded to its column, the deal after it; the rest below
            text = "\n".join(
                textwrap.wrap(f"{head}{kind:<{TYPE_WIDTH}}  {deal}",
                              width, subsequent_indent=indent, break_long_words=False,
                              break_on_hyphens=False)
                + textwrap.wrap(rest, width, initial_indent=indent, subsequent_indent=indent,
                                break_long_words=False, break_on_hyphens=False)
            ).replace(KEEP, " ")
        else:
            text = f"{head}{kind}  {deal}  {rest}".replace(KEEP, " ")
        out.write((click.style(text, strikethrough=True, dim=True) if by and strike else text)
                  + "\n")
        shown += 1
        last = r.get("seq", last)
    return more, shown, last
