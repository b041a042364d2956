"""Looking forward: ``agenda`` (what is due, overdue and at risk across every deal) and
``calendar`` (an iCalendar file of every obligation). Thin wrappers over
``publishing.agenda`` and ``publishing.icalendar_feed``."""

from __future__ import annotations

import sys

import click

from .common import guarded, open_ledger, print_json, report_options, today
from .main import cli


def _window(from_: str | None, days: int | None, business_days: int | None):
    from ledger.errors import UsageError
    from publishing import reading

    if days is not None and business_days is not None:
        raise UsageError("give --days or --business-days, not both", field="--days")
    for name, n in (("--days", days), ("--business-days", business_days)):
        if n is not None and not 0 <= n <= 3660:
            raise UsageError(f"{n} is not a number of days from 0 to 3660", field=name)
    if not from_:
        return None
    try:
        return reading.as_of_date(from_, today())
    except UsageError as err:
        raise UsageError(err.message, field="--from") from None


@cli.command()
@click.option("--deal", "deals", multiple=True, metavar="DEAL",
              help="Only this deal (repeatable). Default: every deal in the ledger.")
@click.option("--from", "from_", default=None, metavar="YYYY-MM-DD",
              help="The first day of the window (default: the --as-of day).")
@click.option("--days", type=int, default=None,
              help="The window runs from its first day through N calendar days after it "
                   "(default 30; 0: that day only).")
@click.option("--business-days", "business_days", type=int, default=None,
              help="The window runs through the N-th Business Day after its first day "
                   "instead.")
@click.option("--json", "as_json", is_flag=True, help="The agenda as one JSON object.")
@click.option("--csv", "as_csv", is_flag=True, help="One CSV row per line of the agenda.")
@click.option("--cache", "cache", default=None, metavar="FILE",
              help="Keep each deal's lines in FILE (and FILE.records) and reuse them while "
                   "fresh (same options but the day, same log up to the position it saw; "
                   "deals touched since, and on a new day those whose lines move with it, "
                   "are recomputed).")
@report_options
@guarded
def agenda(deals: tuple[str, ...], from_: str | None, days: int | None,
           business_days: int | None, as_json: bool, as_csv: bool, cache: str | None,
           db: str, as_of: str | None, known_at: str | None,
           interpret: tuple[str, ...]) -> None:
    """What falls due in a window, what is overdue and what is at risk, across every
    deal, sorted by date, one line each with its clause. Exit 0 when nothing is
    overdue, 1 when something is."""
    from ledger.collector import paused
    from publishing import reading

    from . import common
    from .formats import one_format

    one_format(as_json, as_csv)   # both at once is a usage error, as for every table
    start = _window(from_, days, business_days)
    day = reading.as_of_date(as_of, today())
    moment = reading.known_at_time(known_at)
    chosen = reading.interpretation_choices(interpret)
    # the lines of every deal stay alive until printed: the collector is paused through
    # the printing too, and in a process that exits after it (ONE_SHOT) they are left out
    # of later collections, as a report's are (common._one_deal_in_memory)
    with paused(freeze=common.ONE_SHOT):
        _agenda(db, deals, cache, day, start, days, business_days, moment, chosen, as_json,
                as_csv)


def _agenda(db: str, deals: tuple[str, ...], cache: str | None, day, start, days,
            business_days, moment, chosen, as_json: bool, as_csv: bool) -> None:
    from publishing.agenda import agenda as build

    from .common import _stdout_is_terminal

    # each line printed where its deal is computed (in the workers, when there are many),
    # as it would be printed here from the whole agenda; indented JSON for a person at a
    # terminal is printed from the whole agenda
    indented = as_json and _stdout_is_terminal()
    render = None if indented else _renderer(as_json, as_csv)
    options = dict(as_of=day, start=start, days=days, business_days=business_days,
                   known_at=moment, interpretations=chosen)
    helpers = None
    if not deals and cache is None:   # every deal: the other cores start on the engines
        from publishing.agenda_helpers import start_helpers

        helpers = start_helpers(day, options, render)
    try:
        with open_ledger(db) as ledger:
            result = build(ledger, deals=deals or None, cache=cache, render=render,
                           helpers=helpers, **options)
    finally:
        if helpers is not None:
            helpers.dismiss()
    if indented:
        print_json(result)
    elif as_json:   # what print_json prints of the whole agenda, its items last
        import json

        head = json.dumps({k: v for k, v in result.items() if k != "lines"},
                          separators=(",", ":"), ensure_ascii=False)
        click.echo(f'{head[:-1]},"items":[{",".join(result["lines"])}]}}')
    elif as_csv:
        from publishing.agenda import CSV_FIELDS

        header = _csv_row()(dict(zip(CSV_FIELDS, CSV_FIELDS)))   # as DictWriter.writeheader
        sys.stdout.write(header + "".join(result["lines"]))
    else:
        click.echo(f"Agenda from {result['from']} to {result['to']} (as of {result['as_of']}): "
                   f"{result['overdue']} overdue, {len(result['lines'])} lines")
        if result["lines"]:
            click.echo("\n".join(result["lines"]))
    if result["overdue"]:
        sys.exit(1)


def _renderer(as_json: bool, as_csv: bool):
    """How one agenda item is printed: compact JSON (as ``print_json`` writes it into a
    pipe or a file), a CSV row (the fields ``CSV_FIELDS``, text cells made safe from
    spreadsheet formulas, as in packs), or a line (``agenda_line``, wrapped to the
    terminal's width)."""
    if as_json:
        return _json_line()
    if as_csv:
        from publishing.pack import csv_safe

        line = _csv_row()

        def row(item: dict) -> str:
            return line({k: csv_safe(v) if isinstance(v, str) else v for k, v in item.items()})

        return row
    width = _width()
    return lambda item: agenda_line(item, width)


def _json_line():
    """One item as ``json.dumps(item, separators=(",", ":"), ensure_ascii=False)`` writes
    it, by the C encoder made once (``ledger.store.jsontext``: a third of the cost of a line)."""
    from ledger.store.jsontext import compact

    return compact()


def _csv_row():
    """A function of an item: its CSV row as ``csv.DictWriter(..., extrasaction="ignore",
    lineterminator="\\n")`` writes it (its ``CSV_FIELDS``, a missing one empty)."""
    import csv
    import io

    from publishing.agenda import CSV_FIELDS

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")

    def row(item: dict) -> str:
        out.seek(0)
        out.truncate()
        writer.writerow([item.get(k, "") for k in CSV_FIELDS])
        return out.getvalue()

    return row


@cli.command()
@click.argument("deal")
@click.option("--json", "as_json", is_flag=True, help="The report's obligations, exactly.")
@click.option("--csv", "as_csv", is_flag=True,
              help="One CSV row per obligation, every column of the pack's obligations.csv.")
@report_options
@guarded
def obligations(deal: str, as_json: bool, as_csv: bool, db: str, as_of: str | None,
                known_at: str | None, interpret: tuple[str, ...]) -> None:
    """Every obligation of DEAL with its state as of a date (upcoming, due, fulfilled,
    violated, cured, excused, discharged, unknown), by due day: since when, by what, and
    what a violation triggered. The report's `obligations`; `agenda` looks across deals."""
    from publishing.pack_obligations import csv_columns, obligation_rows

    from .common import load_report
    from .formats import one_format, write_csv
    from .views import NONE, _table, money_in_text, plain, status

    fmt = one_format(as_json, as_csv)
    result = load_report(db, deal, as_of, known_at, interpret)
    rows = result.get("obligations") or []
    if fmt == "json":
        print_json(rows)
        return
    if fmt == "csv":
        write_csv(csv_columns(), ({**r, "events": " ".join(r["events"])}
                                  for r in obligation_rows(result)))
        return
    from .common import console

    out = console()
    if not rows:
        out.print(f"No obligation of {deal} as of {result['as_of']}.")
        return
    table = _table(f"Obligations of {deal} on {result['as_of']} (by due day)",
                   [("due", "fix"), ("state", "fix"), ("since", "fix?2"),
                    ("obligation", "text"), ("clause", "text?"), ("by / triggered", "text?")])
    for o in sorted(rows, key=lambda o: (o.get("due") or "9999", o["key"])):
        # what ended it, and what a violation set off on the way (a keep-effective duty
        # discharged at the period's end after cured defaults shows both)
        done = "; ".join([*([o["by"]] if o.get("by") else []), *(o.get("triggered") or ())])
        done = done or NONE
        table.add_row(o.get("due") or NONE, status(o["state"]), o.get("since") or NONE,
                      plain(o["obligation"]), plain(o["clause"]),
                      plain(money_in_text(done, keep=o.get("holder"))))
    out.print(table)


def agenda_line(item: dict, width: int | None) -> str:
    """One agenda line: its date, category, deal and clause, then what is to be done
    (with the due day when the line is dated by something else, as an overdue one is,
    from the day it was first violated). On a terminal it wraps under the text, never
    inside a date, an amount or a clause; into a pipe it stays one line, for grep."""
    import textwrap

    from .views import money_in_text

    due = item.get("due")
    note = f" (due {due})" if due and due != item["date"] else ""
    text = money_in_text(item["text"], keep=item.get("holder"))   # 2,777.78, for reading
    line = (f"{item['date'] or '—':<10}  {item['category']:<8} {item['deal']}  "
            f"{item['clause']}: {text}{note}")
    if not width:
        return line
    return "\n".join(textwrap.wrap(line, width, subsequent_indent=" " * 12,
                                   break_long_words=False, break_on_hyphens=False))


def _width() -> int | None:
    from .log import _width as width

    return width()


def _remind(text: str) -> tuple[int, ...]:
    from ledger.errors import UsageError

    try:
        days = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise UsageError(f"{text!r} is not a list of Business Days like 10,5,1",
                         field="--remind") from None
    if any(not 0 <= n <= 250 for n in days):
        raise UsageError("each reminder is 0 to 250 Business Days before", field="--remind")
    return days


@cli.command(name="calendar")
@click.option("--out", required=True, metavar="FILE.ics", help="The iCalendar file to write.")
@click.option("--deal", "deals", multiple=True, metavar="DEAL",
              help="Only this deal (repeatable). Default: every deal in the ledger.")
@click.option("--remind", default="", metavar="10,5,1",
              help="Alarms this many Business Days before each due day.")
@report_options
@guarded
def calendar_command(out: str, deals: tuple[str, ...], remind: str, db: str,
                     as_of: str | None, known_at: str | None,
                     interpret: tuple[str, ...]) -> None:
    """An iCalendar (RFC 5545) file of every dated obligation and payment: a stable UID
    per obligation, SEQUENCE raised when a correction moved its date, STATUS:CANCELLED
    when discharged, alarms Business Days before."""
    from publishing import reading
    from publishing.icalendar_feed import calendar_file

    days = _remind(remind)
    day = reading.as_of_date(as_of, today())
    moment = reading.known_at_time(known_at)
    chosen = reading.interpretation_choices(interpret)
    with open_ledger(db) as ledger:
        n = calendar_file(ledger, out, deals=deals or None, as_of=day, known_at=moment,
                          interpretations=chosen, remind=days)
    click.echo(f"wrote {n} events to {out}")
