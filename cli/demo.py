"""``deal-ledger demo``: an illustrative ledger for both agreements, then its reports."""

from __future__ import annotations

import os
import tempfile

import click

from .common import console, guarded
from .main import cli


@cli.command()
@click.option("--db", default=None, help="Where to build the demo ledger (default: a new temp file).")
@guarded
def demo(db: str | None) -> None:
    """Build an illustrative ledger (illustrative numbers, labelled as such) and show it."""
    from ledger.demo import build_demo

    if db is None:
        db = os.path.join(tempfile.mkdtemp(prefix="deal-ledger-demo-"), "demo.db")
    summary = build_demo(db)
    out = console()
    out.print(f"[bold]deal-ledger demo[/bold]: ILLUSTRATIVE events (not the real deal's "
              f"history) in {db}")
    for deal, count in summary.items():
        out.print(f"  {deal}: {count} events")
    from .views import show_demo

    show_demo(db, out)
