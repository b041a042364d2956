"""``deal-ledger demo``: an illustrative ledger for both agreements, then its reports."""

from __future__ import annotations

import os
import tempfile

import click

from .common import console, db_from_group, guarded, load_report, open_ledger
from .main import cli


@cli.command()
@click.option("--db", default=None, callback=db_from_group,
              help="Where to build the demo ledger (default: a new temp file).")
@guarded
def demo(db: str | None) -> None:
    """Build an illustrative ledger (illustrative numbers, labelled as such) and show every
    view of both deals as of a fixed date, then verify the hash chain."""
    from ledger.chain import verify
    from publishing.demo import AS_OF, build_demo

    from .reports import interpretation_defaults
    from .views import show_report

    if db is None:
        db = os.path.join(tempfile.mkdtemp(prefix="deal-ledger-demo-"), "demo.db")
    summary = build_demo(db)
    out = console()
    out.print(f"[bold]deal-ledger demo[/bold]: ILLUSTRATIVE events (not the real deals' "
              f"history) in {db}")
    for deal, count in summary.items():
        out.print(f"  {deal}: {count} events")
    out.print(f"Every view below is as of {AS_OF}.")
    for deal in summary:
        out.print()
        out.rule(f"{deal} (ILLUSTRATIVE) as of {AS_OF}")
        show_report(load_report(db, deal, AS_OF, None, ()), out, interpretation_defaults())
    out.print()
    with open_ledger(db) as ledger:
        verdict = verify(ledger)
    out.print(f"chain: {verdict.line()}")
    out.print(f"Try: deal-ledger report {next(iter(summary))} --db {db} --as-of {AS_OF} --json")
