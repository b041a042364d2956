"""Commands for auditors: verify the chain (or an auditor pack offline),
export a deal's auditor pack, and materialise the read models as SQL tables."""

from __future__ import annotations

import contextlib
import dataclasses
import json

import click

from ledger.errors import UsageError

from . import common
from .common import db_option, guarded, open_ledger, report_options
from .main import cli
from .progress import progress


@cli.command()
@click.option("--expect", default=None, metavar="HEAD_HASH|SEQ:HASH|FILE",
              help="Also fail unless the log still extends what was kept elsewhere: a head "
                   "hash (or its first 8 or more hex digits), SEQ:HASH, or a file of "
                   "`log --json` lines (names the first rewritten seq).")
@click.option("--rules", is_flag=True,
              help="Also judge every event again as append judged it (the event format "
                   "and the deal's rules), in the order written, and name the first that "
                   "breaks one: an event rewritten with its hashes recomputed keeps a "
                   "valid chain, not a valid history. About 1.6x the time of the walk.")
@click.option("--pack", default=None, type=click.Path(file_okay=False),
              help="Verify an auditor pack directory offline instead of the ledger.")
@click.option("--against-ledger", "against", is_flag=True,
              help="With --pack: also hold the pack against the ledger (--db): its chain "
                   "verifies up to the pack's head, and the deal's events up to it are "
                   "exactly the pack's (a pack missing its last events is named).")
@db_option
@guarded
def verify(expect: str | None, rules: bool, pack: str | None, against: bool, db: str) -> None:
    """Walk the hash chain: exit 0 with the head hash, or 1 naming the first bad seq.
    With --rules, also replay every event through append's checks. With --pack, check an
    auditor pack offline: exit 1 naming the file at fault; with --against-ledger too,
    against the ledger it came from.

    Whoever can write the store can rewrite the whole log and every hash after an edit:
    only a head hash kept elsewhere (--expect), or --rules for a history no append could
    have written, shows it."""
    if expect is not None:
        from ledger.store.chain import witness

        witness(expect)  # a UsageError naming --expect for anything else
        if pack:
            raise UsageError("checks the ledger; a pack's head is in its head.txt, to compare "
                             "with `verify --expect` on the ledger", field="--expect")
    if rules and pack:
        raise UsageError("judges the ledger's events; a pack is checked against its "
                         "ledger with --against-ledger", field="--rules")
    if against and not pack:
        raise UsageError("holds a pack against the ledger: give the pack with --pack DIR",
                         field="--against-ledger")
    altered: list[str] = []
    if pack:
        from publishing.pack import verify_pack

        verdict = verify_pack(pack)   # a pack at fault is named before the ledger is read
        if against and verdict.ok:
            from publishing.pack_ledger import verify_against_ledger

            with open_ledger(db) as ledger:
                with progress("verifying", total=ledger.max_position(), unit="rows") as advance:
                    verdict = verify_against_ledger(pack, ledger, verdict,
                                                    on_progress=advance)
    else:
        from ledger.store import dealcache
        from ledger.store.chain import verify as verify_chain

        with open_ledger(db) as ledger:
            with progress("verifying", total=ledger.max_position(), unit="rows") as advance:
                verdict = verify_chain(ledger, expect, on_progress=advance, rules=rules)
            # what reports read beside the store: each deal's cache file
            altered = dealcache.check(dealcache.cache_dir(), ledger)
    click.echo(verdict.line(), err=not verdict.ok)
    for line in altered:
        click.echo(line, err=True)
    raise SystemExit(0 if verdict.ok and not altered else 1)


@cli.command()
@click.argument("deal")
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="A new directory for the pack (never written over).")
@click.option("--json", "as_json", is_flag=True, help="What was written, as JSON.")
@report_options
@guarded
def export(deal: str, out: str, as_json: bool, db: str, as_of: str | None,
           known_at: str | None, interpret: tuple[str, ...]) -> None:
    """Write an auditor pack of DEAL to a new directory: its events with their hashes
    (events.jsonl, chain.json, head.txt), the report (report.json), its schedules as CSV,
    the interpretations in force, a self-contained index.html with a timeline, and a
    manifest of SHA-256s. Check it offline with `deal-ledger verify --pack DIR`."""
    from publishing import pack, reading

    day = reading.as_of_date(as_of, common.today())
    moment = reading.known_at_time(known_at)
    chosen = reading.interpretation_choices(interpret)
    with open_ledger(db) as ledger:
        with progress("verifying, then writing the pack", total=ledger.max_position(),
                      unit="rows") as advance:
            result = pack.export(ledger, deal, out, as_of=day, known_at=moment,
                                 interpretations=chosen, on_progress=advance)
    if as_json:
        click.echo(json.dumps(dataclasses.asdict(result)))
        return
    click.echo(result.line())


@cli.command()
@click.option("--out", default="views.db", show_default=True, type=click.Path(dir_okay=False),
              help="The SQLite file of read models to create or bring up to date.")
@click.option("--rebuild", is_flag=True, help="Empty every table and replay the whole log.")
@click.option("--as-of", "as_of", default=None, metavar="YYYY-MM-DD",
              help="The day the schedules are judged on (default: today); another day "
                   "than last time recomputes every deal.")
@click.option("--json", "as_json", is_flag=True, help="The run's summary as JSON.")
@db_option
@guarded
def views(out: str, rebuild: bool, as_of: str | None, as_json: bool, db: str) -> None:
    """Materialise the log and each deal's schedules as SQLite tables for SQL tools:
    events, deals, defaults, suspension_periods, payments, deadlines, true_ups (money in
    exact cents), with a Datasette metadata file beside it (views.metadata.json). Only
    the notifications after the last run are read; only the deals they touch are
    recomputed.

    Example: deal-ledger views --out views.db --as-of 2007-12-31"""
    from publishing import readmodels, reading

    day = reading.as_of_date(as_of, common.today())
    with open_ledger(db) as ledger, _stages() as on_progress:
        result = readmodels.views(ledger, out, as_of=day, rebuild=rebuild,
                                  on_progress=on_progress)
    if as_json:
        click.echo(json.dumps(dataclasses.asdict(result)))
    else:
        click.echo(result.line())
    if result.errors:
        # the tables are written (the deal's error is in deals.error), but not every
        # figure could be made: a script must not take the views as complete
        first = sorted(result.errors)[0]
        click.echo(f"error: {len(result.errors)} deal(s) could not be computed "
                   f"({', '.join(sorted(result.errors))}); {first}: "
                   f"{result.errors[first]}", err=True)
        raise SystemExit(1)


@contextlib.contextmanager
def _stages():
    """``on_progress(stage, n, total)`` for the library: one progress bar per stage
    (reading the log, computing deals) on a terminal's stderr, nothing elsewhere."""
    from .progress import progress

    with contextlib.ExitStack() as stack:
        current: list = [None, None]   # stage, advance

        def on_progress(stage: str, n: int, total: int | None) -> None:
            if current[0] != stage:
                stack.close()
                unit = "events" if stage == "reading the log" else "deals"
                current[:] = [stage, stack.enter_context(progress(stage, total, unit=unit))]
            current[1](n)

        yield on_progress
