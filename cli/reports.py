"""Commands that compute: the report, its readable views, the interpretations."""

from __future__ import annotations

import json

import click

from .common import console, guarded, load_report, print_json, report_options
from .formats import csv_option, one_format, write_csv
from .main import cli
from .views import VIEWS, View, show_view, view_json, views_for


@cli.command()
@click.option("--json", "as_json", is_flag=True,
              help="Each one's default, alternatives, clause, question and readings.")
@csv_option
@guarded
def interpretations(as_json: bool, as_csv: bool) -> None:
    """List the named interpretations of ambiguous clauses: each one's clause, question,
    default reading and the alternatives `--interpret NAME=VALUE` switches to."""
    from projections.interpretations import REGISTRY

    fmt = one_format(as_json, as_csv)
    if fmt == "csv":
        write_csv(("name", "default", "alternatives", "clause", "question"),
                  ({"name": i.name, "default": i.default, "alternatives": list(i.alternatives),
                    "clause": i.clause, "question": i.question} for i in REGISTRY.values()))
        return
    if as_json:
        click.echo(json.dumps({n: {"default": i.default, "alternatives": list(i.alternatives),
                                   "clause": i.clause, "question": i.question,
                                   "readings": dict(i.readings),
                                   **({"examples": dict(i.examples)} if i.examples else {})}
                               for n, i in REGISTRY.items()}, indent=2))
        return
    from rich.table import Table

    out = console()
    if out.width < WIDE_ENOUGH:
        click.echo(interpretation_blocks(REGISTRY.values(), out.width))
        return
    table = Table(title="Interpretations (switch with --interpret NAME=VALUE)")
    for col in ("name", "default", "alternatives", "clause", "question"):
        table.add_column(col, overflow="fold")
    for i in REGISTRY.values():
        table.add_row(i.name, i.default, ", ".join(i.alternatives), i.clause, i.question)
    out.print(table)
    click.echo(worked_examples(REGISTRY.values(), out.width))


def worked_examples(interpretations, width: int) -> str:
    """The worked example of each reading that has one: one history, what each value
    makes of it (``Interpretation.examples``), wrapped between words."""
    import textwrap

    lines = ["Worked examples (one history, each reading):"]
    for i in interpretations:
        for value in (i.default, *i.alternatives):
            if value in i.examples:
                lines += textwrap.wrap(f"{i.name}={value}: {i.examples[value]}", width,
                                       initial_indent="  ", subsequent_indent="    ",
                                       break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines) if len(lines) > 1 else ""


# Below this many columns the table folded the names a user types (`last_complian` /
# `t_day`, `§3(a)(i)-(iv` / `)`): each interpretation is then a block of its own.
WIDE_ENOUGH = 120


def interpretation_blocks(interpretations, width: int) -> str:
    """Each interpretation as ``types`` shows an event type: its name and clause, its
    question, then each reading (the default first) with what it means, wrapped to
    ``width`` between words, never inside a name, a value or a clause."""
    import textwrap

    def wrap(text: str, indent: str) -> str:
        return "\n".join(textwrap.wrap(text, width, initial_indent=indent,
                                       subsequent_indent=indent + "  ",
                                       break_long_words=False, break_on_hyphens=False))

    blocks = ["Interpretations (switch with --interpret NAME=VALUE)"]
    for i in interpretations:
        lines = [wrap(f"{i.name} ({i.clause})", ""), wrap(i.question, "  ")]
        for value in (i.default, *i.alternatives):
            meaning = dict(i.readings).get(value, "")
            tag = " (the default)" if value == i.default else ""
            lines.append(wrap(f"{i.name}={value}{tag}" + (f": {meaning}" if meaning else ""),
                              "  "))
            if value in i.examples:
                lines.append(wrap(f"for example: {i.examples[value]}", "    "))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def interpretation_defaults() -> dict[str, str]:
    """Each interpretation's default, so that a view names only the switched ones."""
    from projections.interpretations import DEFAULTS

    return dict(DEFAULTS)


@cli.command()
@click.argument("deal")
@click.option("--json", "as_json", is_flag=True,
              help="The whole report object, exactly (its fields are listed in the README).")
@report_options
@guarded
def report(deal: str, as_json: bool, db: str, as_of: str | None, known_at: str | None,
           interpret: tuple[str, ...]) -> None:
    """The report of DEAL as of a date, as known at a time: every view of its kind, or
    the whole object with --json (each view's command has --csv)."""
    result = load_report(db, deal, as_of, known_at, interpret)
    if as_json:
        print_json(result)
        return
    from .views import show_report

    show_report(result, console(), interpretation_defaults())


def _view_command(view: View) -> None:
    """``deal-ledger NAME DEAL``: one readable view of the report, or its part with --json."""

    @cli.command(name=view.name, help=view.help)
    @click.argument("deal")
    @click.option("--json", "as_json", is_flag=True,
                  help="The matching part of the report object (`report --json`), with its "
                       "head.")
    @csv_option
    @report_options
    @guarded
    def command(deal: str, as_json: bool, as_csv: bool, db: str, as_of: str | None,
                known_at: str | None, interpret: tuple[str, ...]) -> None:
        fmt = one_format(as_json, as_csv)
        result = load_report(db, deal, as_of, known_at, interpret)
        if result["kind"] != view.kind:
            from ledger.errors import UsageError

            others = ", ".join(views_for(result["kind"])) or "report"
            raise UsageError(f"{deal!r} is a deal of kind {result['kind']}; `{view.name}` "
                             f"is for {view.kind} deals (for this deal: {others})",
                             field="DEAL")
        if fmt == "json":
            print_json(view_json(view, result))
            return
        if fmt == "csv":
            from .tables import view_rows

            columns, rows = view_rows(view.name, result)
            write_csv(columns, rows)
            return
        show_view(view, result, console(), interpretation_defaults())


for _view in VIEWS.values():
    _view_command(_view)
