"""``deal-ledger terms``: a deal's terms for people and editors (``publishing.terms``):
``show DEAL`` (in words, each rule with its clause), ``schema`` (JSON Schema), ``check
FILE`` (every problem with its path and rule; the terms in words when there is none),
``new --from TEMPLATE`` (a commented starting file), ``draft AGREEMENT`` (a terms file
read from an agreement's text, ``publishing.terms_draft``)."""

from __future__ import annotations

import click

from .common import console, db_option, guarded, open_ledger, print_json, today
from .main import cli

TERMS_HELP = """\b
Examples:
  deal-ledger terms draft rra.txt --explain
  deal-ledger terms draft rra.txt --template debentures-rra-2005 --out t.json
  deal-ledger terms new --from senior-notes-2002 --out terms.json
  deal-ledger terms check terms.json
  deal-ledger init my-notes --terms terms.json
  deal-ledger terms show my-notes
"""


@cli.group(epilog=TERMS_HELP)
def terms() -> None:
    """A deal's terms: in words, their schema, a file checked, a file started or drafted
    from the agreement's text."""


def _rule_lines(rules: list[dict]) -> None:
    from rich.markup import escape

    out = console()
    for r in rules:
        where = f"[bold]{escape(r['section'])}[/bold]: " if r["section"] else ""
        out.print(f"{where}{escape(r['words'])}")


@terms.command()
@click.argument("deal")
@click.option("--as-of", "as_of", default=None, metavar="DATE",
              help="The terms in force that day (amendments effective by then); default today.")
@click.option("--json", "as_json", is_flag=True, help="The same, as data.")
@db_option
@guarded
def show(deal: str, as_of: str | None, as_json: bool, db: str) -> None:
    """DEAL's terms in words, each rule with the agreement's own clause."""
    from publishing import reading
    from publishing.terms import terms_of_deal

    day = reading.as_of_date(as_of, today())
    with open_ledger(db) as ledger:
        events = reading.deal_events(ledger, deal)
    found = terms_of_deal(events, day)
    if as_json:
        print_json(found)
        return
    click.echo(f"{found['deal']}: terms in force on {found['as_of']}")
    _rule_lines(found["rules"])
    if found["readings"]:
        click.echo("readings the deal fixes: " + ", ".join(
            f"{k}={v}" for k, v in found["readings"].items()))
    for a in found["amendments"]:
        click.echo(f"amended by {a['event']} from {a['effective']}")


@terms.command()
@guarded
def schema() -> None:
    """The JSON Schema of a registration rights deal's terms (for an editor)."""
    from publishing.terms import schema as terms_schema

    print_json(terms_schema())


@terms.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="The same, as data.")
@guarded
def check(file: str, as_json: bool) -> None:
    """Check a terms file: every problem with its path and rule (exit 3), or the
    terms in words."""
    import sys

    from publishing.terms import check_file

    found = check_file(file)
    if as_json:
        print_json(found)
    elif found["ok"]:
        click.echo(f"{file}: valid {found['kind']} terms ({found['name']})")
        if found.get("note"):
            click.echo(found["note"])
        _rule_lines(found.get("rules", []))
    else:
        for p in found["problems"]:
            click.echo(f"error: {file}: field '{p['path']}': {p['problem']} [{p['rule']}]",
                       err=True)
    if not found["ok"]:
        sys.exit(3)


@terms.command()
@click.option("--from", "template", required=True, metavar="TEMPLATE",
              help="The template to start from (deal-ledger init --help lists them).")
@click.option("--out", "out", default=None, type=click.Path(dir_okay=False),
              help="Write it to this new file (default: standard output).")
@db_option
@guarded
def new(template: str, out: str | None, db: str) -> None:
    """A commented terms file to start from, from a template."""
    from publishing.outputs import write_new
    from publishing.terms import new_file

    text = new_file(template)
    if out is None:
        click.echo(text, nl=False)
        return
    write_new(out, text.encode("utf-8"), ledger_url=db, field="--out", prefix=".terms-new-")
    click.echo(f"wrote {out} (from {template}); check it with: deal-ledger terms check {out}")


@terms.command()
@click.argument("agreement", type=click.Path(dir_okay=False))
@click.option("--template", default=None, metavar="NAME",
              help="Fill the terms the text does not give from this template (each listed).")
@click.option("--out", "out", default=None, type=click.Path(dir_okay=False),
              help="Write the terms file to this new file (default: standard output).")
@click.option("--explain", is_flag=True,
              help="Print term by term the value read, its section and its quotation.")
@click.option("--cite-as", "cite_as", default="RRA", show_default=True, metavar="NAME",
              help="How the agreement is named in its numbered sections (RRA §2(a)).")
@click.option("--json", "as_json", is_flag=True, help="The draft as data.")
@db_option
@guarded
def draft(agreement: str, template: str | None, out: str | None, explain: bool,
          cite_as: str, as_json: bool, db: str) -> None:
    """A terms file read from AGREEMENT's text (plain text, or an EDGAR exhibit's HTML):
    every term found with its section and quotation, every term not found listed as
    missing (the file fails `terms check` until you fill it in)."""
    from publishing import terms_draft

    found = terms_draft.draft_agreement(agreement, template=template, cite_as=cite_as)
    if out is not None:
        terms_draft.write_draft(found, agreement, out, db)
    if as_json:
        print_json(terms_draft.as_data(found, agreement))
    elif explain:
        for line in terms_draft.explain_lines(found, agreement):
            click.echo(line)
    elif out is None:
        click.echo(terms_draft.draft_text(found, agreement), nl=False)
    if out is not None and not as_json:
        click.echo(f"wrote {out}: {terms_draft.summary(found, agreement)}; check it with: "
                   f"deal-ledger terms check {out}")
