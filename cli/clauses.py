"""``deal-ledger clause REF``: one clause explained (``publishing.clauses.clause_page``),
as ``ruff rule CODE`` explains a rule; ``clause --list`` lists every clause we cite."""

from __future__ import annotations

import click

from .common import console, guarded, print_json, report_options, today
from .main import cli

CLAUSE_HELP = """\b
Example:
  deal-ledger clause "RRA §2(b)"
  deal-ledger clause "Letter ¶2" --deal infocrossing-letter-2002 \\
      --as-of 2007-12-31

REF is a clause as the code cites it: `RRA §3(a)(iv)(A)`, `RRA §1 Business Day`, `Letter
¶3` (quotes keep it one word; `rra 2b` and `letter 3` are read the same). A rule, an
interpretation or a figure citing a clause inside REF counts for REF. The contract texts
ship with the package (ledger/contracts/).
"""


@cli.command(epilog=CLAUSE_HELP)
@click.argument("ref", nargs=-1)
@click.option("--list", "list_all", is_flag=True, help="List every clause we cite.")
@click.option("--deal", default=None, metavar="DEAL",
              help="Also list the figures of DEAL whose explanation relies on the clause.")
@click.option("--json", "as_json", is_flag=True, help="The same, as data.")
@report_options
@guarded
def clause(ref: tuple[str, ...], list_all: bool, deal: str | None, as_json: bool, db: str,
           as_of: str | None, known_at: str | None, interpret: tuple[str, ...]) -> None:
    """A clause: the contract's words, our plain statement, the rules that implement it,
    the interpretations that touch it and (with --deal) the figures relying on it."""
    from ledger.errors import UsageError
    from publishing import clauses

    if list_all:
        rows = clauses.clause_list()
        if as_json:
            print_json(rows)
            return
        for row in rows:
            click.echo(f"{row['clause']}: {row['statement']}")
        return
    if not ref:
        raise UsageError("give the clause REF, e.g. \"RRA §2(b)\" (or --list to see them)",
                         field="REF")
    text = " ".join(ref)
    clauses.resolve(text)                      # an unknown REF fails before any reading
    report = events = None
    if deal is not None:
        from publishing import reading

        from .analysts import _read

        events = _read(db, deal)
        report = reading.deal_report(events, as_of=reading.as_of_date(as_of, today()),
                                     known_at=reading.known_at_time(known_at),
                                     interpretations=reading.interpretation_choices(interpret))
    page = clauses.clause_page(text, report, events or ())
    if as_json:
        print_json(page)
        return
    show_page(page)


def hanging(out, lead: str, text: str) -> None:
    """``text`` wrapped at the console's width, its later lines indented under its first
    word (they began at the margin)."""
    import textwrap

    click.echo("\n".join(textwrap.wrap(" ".join(text.split()), out.width,
                                       initial_indent=lead,
                                       subsequent_indent=" " * len(lead) + "  ",
                                       break_long_words=False, break_on_hyphens=False)))


def show_page(page: dict) -> None:
    from rich.markup import escape

    out = console()
    out.print(f"[bold]{escape(page['clause'])}[/bold]")
    out.print(f"\n[bold]In our words[/bold]: {escape(page['statement'] or '(none)')}")
    if page.get("rate_tier"):
        out.print(f"As a rate tier: {escape(page['rate_tier'])}")
    source = f" ({page['source']})" if page.get("source") else ""
    out.print(f"\n[bold]The contract's words[/bold]{escape(source)}:")
    if page.get("note"):
        out.print(f"[dim]{escape(page['note'])}[/dim]")
    if page["contract_text"]:
        click.echo(page["contract_text"])   # as printed: its lines fit 80 columns
    # in the contract's language (issue 31, item 14): what each rule does, in its own
    # words (the functions' names are in --json), each entry's lines indented under it
    out.print(f"\n[bold]Rules that implement it[/bold] ({len(page['rules'])}):")
    for r in page["rules"]:
        hanging(out, "  - ", r["words"])
    out.print(f"\n[bold]Interpretations that touch it[/bold] ({len(page['interpretations'])}; "
              "switch one with --interpret NAME=READING):")
    for i in page["interpretations"]:
        hanging(out, "  - ", f"{i['name']} ({i['clause']}):")
        for value, meaning in i["readings"].items():
            default = " (the default)" if value == i["default"] else ""
            hanging(out, "        ", f"{value}{default}: {meaning}")
        for value, example in i.get("examples", {}).items():
            hanging(out, "        ", f"for example, {value}: {example}")
    if "figures" in page:
        out.print(f"\n[bold]Figures of {escape(str(page['deal']))} as of {page['as_of']} that "
                  f"rely on it[/bold] ({len(page['figures'])}):")
        for f in page["figures"]:
            value = f["value"]
            shown = ("true" if value is True else "false" if value is False
                     else "—" if value is None else str(value))
            # one line each, as `explain --list` prints them: a path is copied into
            # `explain`, and a console fold put a newline inside its event ids
            click.echo(f"  {f['figure']} = {shown}")
