"""Commands that compute: the report, its readable views, the interpretations."""

from __future__ import annotations

import json

import click

from .common import console, guarded
from .main import cli


@cli.command()
@click.option("--json", "as_json", is_flag=True)
def interpretations(as_json: bool) -> None:
    """List the named interpretations of ambiguous clauses (SPEC §6)."""
    from projections.interpretations import REGISTRY

    if as_json:
        click.echo(json.dumps({n: {"default": i.default, "alternatives": list(i.alternatives),
                                   "clause": i.clause, "question": i.question,
                                   "readings": dict(i.readings)}
                               for n, i in REGISTRY.items()}, indent=2))
        return
    from rich.table import Table

    table = Table(title="Interpretations (switch with --interpret NAME=VALUE)")
    for col in ("name", "default", "alternatives", "clause", "question"):
        table.add_column(col, overflow="fold")
    for i in REGISTRY.values():
        table.add_row(i.name, i.default, ", ".join(i.alternatives), i.clause, i.question)
    console().print(table)
