"""Commands for analysts and auditors: explain a figure, a figure's history as recorded,
what-if scenarios and the saved scenarios. Each wraps one library function
(``projections.explain.explain``, ``projections.history.history``,
``projections.whatif.whatif``, ``publishing.scenarios.scenarios``) and prints its result."""

from __future__ import annotations

import json
import re
from typing import Any

import click

from .common import console, db_option, guarded, open_ledger, print_json, report_options, today
from .formats import csv_option, one_format, plain_text, write_csv
from .main import cli
from .preview import brief as _brief, shorten  # noqa: F401 (shorten: tests read it here)

PATHS_HELP = """FIGURE is a path into the report JSON (`report --json`): `.` steps into an
object (keys match as written, dots and spaces included: `amounts.Lehman Brothers Inc.`;
or quote one as a JSON string: `majority."waive §4(b)(iii) advice"`); `[N]` takes entry N
of a list; `[field=value]` the entry whose field is value, `[field^=value]` whose field
starts with it; selectors in a row narrow the same list. Examples:

\b
  registration.in_default
  additional_interest.payments[payment_date=2005-01-15].amounts.Lehman Brothers Inc.
  additional_interest.by_holder.Lehman Brothers Inc.
  deadlines[obligation^=notify the Trustee][0].due
  true_up.holders.Price Family Limited Partners.owed
  true_up.instruments[instrument=W-PRICE].price
"""


def _figure_error(err: Exception, option: str):
    from ledger.errors import UsageError

    return UsageError(str(err), field=option)


def _read(db: str, deal: str):
    """The deal's events, read once."""
    from publishing import reading

    with open_ledger(db) as ledger:
        return reading.deal_events(ledger, deal)


def _text(value: Any) -> str:
    return plain_text(value, "—")


def _grouped(value: Any) -> str:
    """A figure for the human table: an amount of money (the report's two-decimal string,
    ``"354000.00"``) grouped as every view shows money (``"354,000.00"``); anything else
    (a date, a count, a ratio, a status) as ``_text`` gives it. JSON and CSV keep the
    report's exact text."""
    from .views import money

    if isinstance(value, str) and _MONEY.fullmatch(value):
        return money(value)
    return _text(value)


_MONEY = re.compile(r"-?\d+\.\d{2}")


def _csv_value(value: Any) -> Any:
    """A figure in a CSV cell: as the report has it (a list or an object as JSON)."""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return value


def _data_summary(data: dict) -> str:
    text = ", ".join(f"{k}={_text(v)}" for k, v in data.items() if k != "terms")
    return shorten(text, 90)


# ----------------------------------------------------------------------------- explain


def _tree_node(tree, node: dict) -> None:
    from rich.markup import escape

    if node.get("rule"):
        tree.add(f"[bold]rule[/bold]: {escape(node['rule'])}")
    for c in node["clauses"]:
        tree.add(f"[cyan]{escape(c['clause'])}[/cyan]: {escape(c['statement'])}")
    for i in node["interpretations"]:
        default = " (the default)" if i["value"] == i["default"] else " (not the default)"
        tree.add(f"[magenta]interpretation {escape(i['name'])} = {escape(str(i['value']))}"
                 f"[/magenta]{default}: {escape(i['reading'] or '')}")
    if node["events"]:
        branch = tree.add(f"[bold]events[/bold] ({len(node['events'])})")
        for e in node["events"]:
            if e.get("missing"):
                branch.add(f"{escape(e['id'])} (not in the ledger)")
                continue
            source = f"; source: {escape(e['source'])}" if e.get("source") else ""
            data = _data_summary(e["data"])    # ShelfEffective has none: no stray space
            branch.add(f"{e['type']} {e['date']} [dim]seq {e['seq']} {e['id'][:8]}[/dim]"
                       f"{' ' + escape(data) if data else ''}{source}; recorded "
                       f"{e['recorded_at'][:19]} by {escape(e['recorded_by'])}")
    if node.get("arithmetic"):
        tree.add(f"[bold]arithmetic[/bold]: {escape(node['arithmetic'])}")
    for ch in node["checks"]:
        mark = "[green]ok[/green]" if ch["ok"] else "[red]DOES NOT HOLD[/red]"
        tree.add(f"re-checked: {escape(ch['expression'])} = {ch['computed']} {mark}")
    for text in node.get("unchecked", ()):
        tree.add(f"[yellow]not re-checked[/yellow]: {escape(text)}")
    for p in node["parts"]:
        _tree_node(tree.add(f"[bold]{escape(p['title'])}[/bold]"), p)
    if node.get("parts_omitted"):
        tree.add(f"[dim]{node['parts_omitted']} part(s) more (raise --depth)[/dim]")


def show_explanation(result: dict, out) -> None:
    from rich.markup import escape
    from rich.tree import Tree

    known = f", as known at {result['known_at']}" if result["known_at"] else ""
    root = Tree(f"[bold]{escape(result['figure'])}[/bold] = {escape(_text(result['value']))}"
                f"  [dim]({escape(str(result['deal']))}, as of {result['as_of']}{known})[/dim]")
    node = result["explanation"]
    _tree_node(root.add(f"[bold]{escape(node['title'])}[/bold]"), node)
    out.print(root)
    checks = "all hold" if result["arithmetic_checks_ok"] else "SOME DO NOT HOLD"
    if result.get("arithmetic_operations_rechecked"):
        checks += f" ({result['arithmetic_operations_rechecked']} operations re-done from the data)"
    skipped = len(result.get("arithmetic_unchecked") or ())
    if skipped:   # never claim a check that was not made
        checks += f" ({skipped} statement(s) not re-checked)" if result[
            "arithmetic_checks_ok"] else f"; {skipped} statement(s) not re-checked"
    repro = {True: "yes", False: "NO", None: "not applicable"}[result["reproduces_figure"]]
    out.print(f"arithmetic re-checked: {checks}; ends on the figure: {repro}")


def _one_figure(positional: str | None, option: str | None) -> str | None:
    """FIGURE given as the argument (the documented form) or as ``--figure`` (accepted
    too, so that ``explain`` and ``history`` take the same words)."""
    if positional and option and positional != option:
        from ledger.errors import UsageError

        raise UsageError(f"two figures given ({positional!r} and --figure {option!r}); "
                         "give one", field="FIGURE")
    return positional or option


FIGURE_OPTION = click.option("--figure", "figure_option", default=None, metavar="PATH",
                             hidden=True, help="FIGURE, as an option.")


@cli.command(epilog=PATHS_HELP)
@click.argument("deal")
@click.argument("figure", required=False)
@FIGURE_OPTION
@click.option("--json", "as_json", is_flag=True, help="The explanation tree as data.")
@click.option("--depth", type=click.IntRange(0), default=None,
              help="Keep this many levels of parts (default: all).")
@click.option("--list", "list_figures", is_flag=True,
              help="List every figure of the report by its path instead.")
@click.option("--csv", "as_csv", is_flag=True,
              help="With --list: CSV of figure and value, exact values.")
@report_options
@guarded
def explain(deal: str, figure: str | None, figure_option: str | None, as_json: bool,
            depth: int | None, list_figures: bool, as_csv: bool, db: str, as_of: str | None,
            known_at: str | None, interpret: tuple[str, ...]) -> None:
    """How FIGURE of DEAL's report was computed: rule, clause (with a plain statement),
    interpretations in force, input events and the arithmetic, re-checked."""
    named_as = "--figure" if figure_option and not figure else "FIGURE"  # as the user did
    figure = _one_figure(figure, figure_option)
    from publishing import reading
    from ledger.errors import UsageError
    from projections.explain import FigureError, explain as explain_figure, figure_paths

    one_format(as_json, as_csv)
    if as_csv and not list_figures:
        raise UsageError("--csv lists the figures (with --list); an explanation is a tree: "
                         "use --json", field="--csv")

    day = reading.as_of_date(as_of, today())
    moment = reading.known_at_time(known_at)
    chosen = reading.interpretation_choices(interpret)
    if not figure and not list_figures:
        raise UsageError("give the FIGURE to explain (or --list to see them)", field="FIGURE")
    events = _read(db, deal)
    result = reading.deal_report(events, as_of=day, known_at=moment, interpretations=chosen)
    if list_figures:
        paths = figure_paths(result)
        if as_json:
            print_json(paths)
        elif as_csv:
            write_csv(("figure", "value"), ({"figure": path, "value": _csv_value(value)}
                                            for path, value in paths.items()))
        else:
            for path, value in paths.items():
                click.echo(f"{path} = {_text(value)}")
        return
    try:
        explained = explain_figure(result, figure, events, depth=depth)
    except FigureError as err:
        raise _figure_error(err, named_as) from None
    if as_json:
        print_json(explained)
        return
    show_explanation(explained, console())


# ----------------------------------------------------------------------------- history


@cli.command(epilog=PATHS_HELP)
@click.argument("deal")
@click.argument("figure", required=False)
@FIGURE_OPTION
@click.option("--as-of", "as_of", default=None, metavar="YYYY-MM-DD",
              help="The day the figure is judged on (default: today).")
@click.option("--interpret", "interpret", multiple=True, metavar="NAME=VALUE",
              help="Switch a named interpretation; repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Every change, exactly.")
@csv_option
@db_option
@guarded
def history(deal: str, figure: str | None, figure_option: str | None, as_of: str | None,
            interpret: tuple[str, ...], as_json: bool, as_csv: bool, db: str) -> None:
    """How FIGURE of DEAL's report changed as events were recorded: the report is
    recomputed as known at each recording moment (one batch is one moment; a moment that
    records only events dated after --as-of is skipped) and each change is listed with
    the value before and after and the events recorded then."""
    from publishing import reading
    from projections.explain import FigureError
    from projections.history import history as figure_history

    from ledger.errors import UsageError

    fmt = one_format(as_json, as_csv)
    named_as = "--figure" if figure_option and not figure else "FIGURE"  # as the user did
    figure = _one_figure(figure, figure_option)
    if not figure:
        raise UsageError("give the FIGURE to follow (`explain DEAL --list` lists them)",
                         field="FIGURE")
    day = reading.as_of_date(as_of, today())
    chosen = reading.interpretation_choices(interpret)
    events = _read(db, deal)
    try:
        result = figure_history(events, figure, as_of=day, interpretations=chosen)
    except FigureError as err:
        raise _figure_error(err, named_as) from None
    if fmt == "json":
        print_json(result)
        return
    if fmt == "csv":
        write_csv(("known_at", "status", "before", "after", "events"),
                  ({"known_at": ch["known_at"], "status": ch["status"],
                    "before": _csv_value(ch["before"]) if ch["status"] != "appeared" else None,
                    "after": _csv_value(ch["after"]) if ch["status"] != "disappeared" else None,
                    "events": [e["id"] for e in ch["events"]]} for ch in result["changes"]))
        return
    from rich.markup import escape

    from .views import _table

    # the moments and figures keep their whole width; the events wrap (cli/views.py)
    table = _table(f"{escape(result['figure'])} as of {result['as_of']}: "
                   f"{len(result['changes'])} change(s) over {result['moments']} recording "
                   f"moment(s), {result['computed']} recomputed",
                   [("known at", "fix"), ("before", "num"), ("after", "num"),
                    ("recorded then", "text")])
    for ch in result["changes"]:
        shown = [f"{e['type']} {e['date']} {e['id'][:8]}" for e in ch["events"][:4]]
        if len(ch["events"]) > 4:
            shown.append(f"... {len(ch['events']) - 4} more")
        before = "(absent)" if ch["status"] == "appeared" else _grouped(ch["before"])
        after = "(absent)" if ch["status"] == "disappeared" else _grouped(ch["after"])
        # whole, to the microsecond: a time cut to the second is before the moment, and
        # `report --known-at` of it gives the value before the change (a review, stop 19)
        table.add_row(ch["known_at"], escape(before), escape(after),
                      escape("; ".join(shown)))
    console().print(table)
    now = _grouped(result["value"]) if result["present"] else "(absent)"
    click.echo(f"now: {now}")


# ------------------------------------------------------------------------------ whatif


SCENARIO_HELP = """The real ledger is never written. Added events get ids whatif-1, whatif-2
... and count even with --known-at (which limits the real history); a replacement takes the
place, seq and recorded time of the event it replaces. EVENT_ID is seq:N or 6 or more
characters of its id (the 8 `log` shows always do). The baseline is the real history under the
default interpretations; --interpret switches them in the scenario only.

\b
--save NAME keeps the scenario (the events themselves, the ids and the
interpretations; not the file paths) beside the ledger: PATH.scenarios.json
for a SQLite ledger PATH, or DBNAME.scenarios.json in the current directory
for postgresql://.../DBNAME. --scenario NAME runs a saved one again (other
change options are added to it).
"""


@cli.command(epilog=SCENARIO_HELP)
@click.argument("deal")
@click.option("--add", "add", multiple=True, type=click.Path(dir_okay=False, allow_dash=True),
              metavar="FILE.jsonl", help="Events to add (JSON Lines, as append takes them); "
                                         "repeatable.")
@click.option("--drop", "drop", multiple=True, metavar="EVENT_ID",
              help="An event to leave out; repeatable.")
@click.option("--replace", "replace", multiple=True, metavar="EVENT_ID=FILE",
              help="An event to replace by the one event in FILE; repeatable.")
@click.option("--save", "save_as", default=None, metavar="NAME",
              help="Keep these changes as scenario NAME.")
@click.option("--scenario", "scenario", default=None, metavar="NAME",
              help="Run the saved scenario NAME.")
@click.option("--json", "as_json", is_flag=True,
              help="{baseline, scenario, diff, changes} exactly.")
@click.option("--through", "through", default=None, metavar="YYYY-MM-DD",
              help="Also judge both histories on this later day (default: the latest "
                   "change dated after --as-of), to see the obligations and money differ.")
@click.option("--verbose", "-v", is_flag=True,
              help="Also every figure that differs, by its path in the report.")
@csv_option
@report_options
@guarded
def whatif(deal: str, add: tuple[str, ...], drop: tuple[str, ...], replace: tuple[str, ...],
           save_as: str | None, scenario: str | None, as_json: bool, as_csv: bool,
           through: str | None, verbose: bool, db: str, as_of: str | None,
           known_at: str | None, interpret: tuple[str, ...]) -> None:
    """The report of DEAL with events added, dropped or replaced, or interpretations
    switched, beside the real one: what differs, money first (per Holder and date,
    before -> after), then the Registration Defaults and the obligations that moved,
    then how many other figures differ (by path with --verbose, --json or --csv)."""
    from publishing import reading, scenarios
    from ledger.errors import UsageError
    from projections.whatif import resolve_changes, whatif as run_whatif

    fmt = one_format(as_json, as_csv)
    day = reading.as_of_date(as_of, today())
    moment = reading.known_at_time(known_at)
    chosen = reading.interpretation_choices(interpret)
    changes = scenarios.changes_from_options(add, drop, replace, chosen)
    path = scenarios.scenarios_path(db)
    if scenario:
        changes = scenarios.get(path, scenario, deal).merged(changes)
    if not changes:
        raise UsageError("nothing to change: give --add, --drop, --replace, --interpret or "
                         "--scenario")
    reading.interpretation_choices(f"{k}={v}" for k, v in changes.interpretations.items())
    events = _read(db, deal)
    reading.check_opened(events, moment)
    changes = resolve_changes(events, changes)
    later = reading.as_of_date(through, day) if through else None
    if later is not None and later <= day:
        raise UsageError(f"--through {later} is not after --as-of {day}", field="--through")
    result = run_whatif(events, changes, as_of=day, known_at=moment, bases=as_json,
                        through=later)
    note = None
    if save_as:
        replaced = scenarios.save(path, save_as, deal, changes, db)
        note = f"scenario {save_as!r} {'replaced' if replaced else 'saved'} in {path}"
    if fmt == "json":
        print_json(result)
    elif fmt == "csv":
        write_csv(("figure", "change", "baseline", "scenario"),
                  ({"figure": row["figure"], "change": row["change"],
                    "baseline": _csv_value(row.get("baseline")),
                    "scenario": _csv_value(row.get("scenario"))} for row in result["diff"]))
    else:
        show_whatif(result, console(), verbose=verbose)
    if note:
        click.echo(note, err=fmt != "table")


def show_whatif(result: dict, out, verbose: bool = False) -> None:
    """The what-if's answer, money first (``cli.preview.impact_lines``), and with
    ``verbose`` every figure that differs by its path (issue 31, item 10: the answer was
    a flat list of paths, "33 figures differ", episode numbers beside the money)."""
    from .preview import echo_wrapped, impact_lines

    ch = result["changes"]
    parts = []
    if ch["add"]:
        parts.append(f"{len(ch['add'])} added")
    if ch["drop"]:
        parts.append(f"{len(ch['drop'])} dropped")
    if ch["replace"]:
        parts.append(f"{len(ch['replace'])} replaced")
    if ch["interpretations"]:
        parts.append(", ".join(f"{k}={v}" for k, v in ch["interpretations"].items()))
    known = f", as known at {result['known_at']}" if result["known_at"] else ""
    title = f"what if ({'; '.join(parts)}): {result['deal']} as of {result['as_of']}{known}"
    echo_wrapped([title], out.width)
    echo_wrapped(impact_lines(result["impact"]), out.width, "  ")
    if verbose:
        show_paths(result, out)
    if result.get("forward"):
        show_forward(result["forward"], out, verbose)


def show_paths(result: dict, out) -> None:
    """Every figure that differs, by its path, beside its two values."""
    from rich.markup import escape
    from rich.table import Table

    title = f"every figure that differs, by its path ({len(result['diff'])})"
    if out.width < WIDE_ENOUGH:
        click.echo(diff_blocks(title, [(row["figure"], *_sides(row)) for row in result["diff"]],
                               out.width))
        return
    table = Table(title=title, expand=True)
    table.add_column("figure", overflow="fold", ratio=2)
    for col in ("baseline", "scenario"):
        table.add_column(col, overflow="fold", ratio=1)
    for row in result["diff"]:
        base = "(absent)" if row["change"] == "added" else _brief(row["baseline"])
        new = "(absent)" if row["change"] == "removed" else _brief(row["scenario"])
        table.add_row(escape(row["figure"]), escape(base), escape(new))
    out.print(table)


def show_forward(ahead: dict, out, verbose: bool = False) -> None:
    """What-if forward (issue 16): what differs on the later day both histories are
    judged on, money first; with ``verbose`` every obligation and figure by its path."""
    from rich.markup import escape
    from rich.table import Table

    from .preview import echo_wrapped, impact_lines

    echo_wrapped(["", f"judged on {ahead['judged_on']} (changes dated "
                      f"{', '.join(ahead['later_changes']) or 'none'}):"], out.width)
    echo_wrapped(impact_lines(ahead["impact"]), out.width, "  ")
    if not verbose:
        return

    def cell(o):
        if o is None:
            return "(absent)"
        return f"{o['state']}, due {o['due']}" + (f", {o['amount']}" if o.get("amount") else "")

    title = (f"judged on {ahead['judged_on']} (changes dated "
             f"{', '.join(ahead['later_changes']) or 'none'}): "
             f"{len(ahead['obligations'])} obligation(s), {len(ahead['diff'])} "
             "figure(s) differ")
    if out.width < WIDE_ENOUGH:
        rows = [(f"{r['obligation']} ({r['clause']})", cell(r["baseline"]), cell(r["scenario"]),
                 True) for r in ahead["obligations"]]
        rows += [(r["figure"], *_sides(r)) for r in ahead["diff"]
                 if not r["figure"].startswith("obligations")]
        click.echo("\n" + diff_blocks(title, rows, out.width))
        return
    table = Table(title=title, expand=True)
    table.add_column("obligation", overflow="fold", ratio=2)
    table.add_column("clause", overflow="fold", ratio=1)
    for col in ("baseline", "scenario"):
        table.add_column(col, overflow="fold", ratio=1)
    for row in ahead["obligations"]:
        table.add_row(escape(row["obligation"]), escape(row["clause"]),
                      escape(cell(row["baseline"])), escape(cell(row["scenario"])))
    for row in ahead["diff"]:
        if row["figure"].startswith("obligations"):
            continue
        base = "(absent)" if row["change"] == "added" else _brief(row["baseline"])
        new = "(absent)" if row["change"] == "removed" else _brief(row["scenario"])
        table.add_row(escape(row["figure"]), "", escape(base), escape(new))
    out.print(table)


# Below this many columns a three- or four-column table folded the values inside their
# dates and ids ("cured_on=2005" / "-04-20"): each row is then a block of its own.
WIDE_ENOUGH = 120


def _sides(row: dict) -> tuple[str, str]:
    base = "(absent)" if row["change"] == "added" else _brief(row["baseline"])
    new = "(absent)" if row["change"] == "removed" else _brief(row["scenario"])
    return base, new


def diff_blocks(title: str, rows: list[tuple], width: int) -> str:
    """The what-if's rows for a narrow console: the figure (whole, to be copied into
    ``explain``) or the obligation (wrapped: a 4th item True), then its baseline and
    scenario, wrapped between words only."""
    import textwrap

    def wrap(text: str, indent: str) -> str:
        return "\n".join(textwrap.wrap(text, width, initial_indent=indent,
                                       subsequent_indent=indent + "  ",
                                       break_long_words=False, break_on_hyphens=False))

    out = [wrap(title, "")]
    for figure, base, new, *words in rows:
        out.append(wrap(figure, "") if words and words[0] else figure)
        out.append(wrap(f"baseline: {base}", "    "))
        out.append(wrap(f"scenario: {new}", "    "))
    return "\n".join(out)


@cli.command("scenarios")
@click.option("--json", "as_json", is_flag=True, help="Each scenario, exactly.")
@csv_option
@db_option
@guarded
def list_scenarios(as_json: bool, as_csv: bool, db: str) -> None:
    """List the saved what-if scenarios of the ledger (see `whatif --help`)."""
    from publishing.scenarios import scenarios, scenarios_path

    fmt = one_format(as_json, as_csv)
    path = scenarios_path(db)
    rows = scenarios(path)
    if fmt == "json":
        print_json(rows)
        return
    if fmt == "csv":
        write_csv(("name", "deal", "saved_at", "add", "drop", "replace", "interpretations"),
                  ({**r, "interpretations": " ".join(f"{k}={v}" for k, v in
                                                     r["interpretations"].items())}
                   for r in rows))
        return
    if not rows:
        click.echo(f"no scenarios saved in {path}")
        return
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=f"{len(rows)} scenario(s) in {escape(str(path))}")
    for col in ("name", "deal", "saved", "add", "drop", "replace", "interpretations"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(escape(r["name"]), escape(str(r["deal"])), (r["saved_at"] or "")[:19],
                      str(r["add"]), escape(", ".join(r["drop"])),
                      escape(", ".join(r["replace"])),
                      escape(", ".join(f"{k}={v}" for k, v in r["interpretations"].items())))
    console().print(table)
