"""Commands for auditors: read the log, verify the chain."""

from __future__ import annotations

import json

import click

from .common import console, db_option, guarded, open_ledger
from .main import cli


def _summary(data: dict) -> str:
    text = ", ".join(f"{k}={v}" for k, v in data.items() if k not in ("terms",))
    return text if len(text) <= 70 else text[:67] + "..."


@cli.command()
@click.option("--deal", default=None, help="Only this deal's events.")
@click.option("--type", "event_type", default=None, help="Only events of this type.")
@click.option("--json", "as_json", is_flag=True, help="Exact JSON Lines with the store's fields.")
@db_option
@guarded
def log(deal: str | None, event_type: str | None, as_json: bool, db: str) -> None:
    """Show the log in order; retracted events are marked, never hidden."""
    with open_ledger(db) as ledger:
        records = [r for r in ledger.records()
                   if (deal is None or r["deal"] == deal)
                   and (event_type is None or r["type"] == event_type)]
        retracted = {r["data"]["event_id"]: r["id"] for r in ledger.records()
                     if r["type"] == "EventRetracted"}
    if as_json:
        for r in records:
            click.echo(json.dumps(r, ensure_ascii=False, separators=(",", ":")))
        return
    from rich.table import Table

    table = Table(title=f"{len(records)} event(s)")
    for col in ("seq", "date", "deal", "type", "data", "id", "recorded", "by", "note"):
        table.add_column(col, overflow="fold")
    for r in records:
        note = f"RETRACTED by {retracted[r['id']][:8]}" if r["id"] in retracted else ""
        table.add_row(str(r["seq"]), r["date"], r["deal"], r["type"], _summary(r["data"]),
                      r["id"][:8], r["recorded_at"][:19], r["recorded_by"], note,
                      style="strike dim" if note else None)
    console().print(table)


@cli.command()
@click.option("--expect", default=None, metavar="HEAD_HASH",
              help="Also fail unless the log still extends this head hash, kept elsewhere.")
@click.option("--pack", default=None, type=click.Path(file_okay=False),
              help="Verify an auditor pack directory offline instead of the ledger.")
@db_option
@guarded
def verify(expect: str | None, pack: str | None, db: str) -> None:
    """Walk the hash chain: exit 0 with the head hash, or 1 naming the first bad seq."""
    if pack:
        from ledger.pack import verify_pack

        verdict = verify_pack(pack)
    else:
        from ledger.chain import verify as verify_chain

        with open_ledger(db) as ledger:
            verdict = verify_chain(ledger, expect)
    click.echo(verdict.line(), err=not verdict.ok)
    raise SystemExit(0 if verdict.ok else 1)
