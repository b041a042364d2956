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
@click.option("--checkpoint", "checkpoints", multiple=True, type=click.Path(dir_okay=False),
              metavar="FILE",
              help="Also prove the ledger extends this signed checkpoint (with --pubkey; "
                   "repeatable): names the first event that is not what it signed; two "
                   "checkpoints of one key that cannot both be of one log prove a fork.")
@click.option("--since", default=None, type=click.Path(dir_okay=False), metavar="CHECKPOINT",
              help="Walk only the events after this signed checkpoint (with --pubkey), "
                   "trusting what it signed by its signature and the tree's proofs: a "
                   "daily audit of a large ledger costs its new events.")
@click.option("--pubkey", "pubkeys", multiple=True, metavar="KEY.pub",
              help="The verifier key (a KEY.pub file, or its text) that signed the "
                   "checkpoints, statement or pack; repeatable.")
@click.option("--pack", default=None, type=click.Path(file_okay=False),
              help="Verify an auditor pack directory offline instead of the ledger.")
@click.option("--against-ledger", "against", is_flag=True,
              help="With --pack: also hold the pack against the ledger (--db): its chain "
                   "verifies up to the pack's head, and the deal's events up to it are "
                   "exactly the pack's (a pack missing its last events is named).")
@click.option("--statement", default=None, type=click.Path(file_okay=False),
              help="Verify a Holder statement directory offline (with --pubkey): every "
                   "signature and proof, and its figures recomputed from its events alone.")
@db_option
@guarded
def verify(expect: str | None, rules: bool, checkpoints: tuple[str, ...], since: str | None,
           pubkeys: tuple[str, ...], pack: str | None, against: bool,
           statement: str | None, db: str) -> None:
    """Walk the hash chain and the log's Merkle tree: exit 0 with the head hash, or 1
    naming the first bad seq. With --rules, also replay every event through append's
    checks; with --checkpoint, prove the ledger extends signed checkpoints; with
    --since, walk only what follows one. With --pack or --statement, check an auditor
    pack or a Holder statement offline: exit 1 naming the file at fault; a pack with
    --against-ledger too, against the ledger it came from.

    Whoever can write the store can rewrite the whole log and every hash after an edit:
    only a head hash kept elsewhere (--expect) or a checkpoint signed before (--checkpoint),
    or --rules for a history no append could have written, shows it."""
    _check_verify_options(expect, rules, checkpoints, since, pubkeys, pack, against,
                          statement)
    if statement:
        from publishing.checkpoints import read_verifiers
        from publishing.statement import verify_statement

        result = verify_statement(statement, read_verifiers(pubkeys))
        click.echo(result.line(), err=not result.ok)
        raise SystemExit(0 if result.ok else 1)
    altered: list[str] = []
    extra: list[str] = []
    failed: list[str] = []
    if pack:
        from publishing.pack import verify_pack

        keys = None
        if pubkeys:
            from publishing.checkpoints import read_verifiers

            keys = read_verifiers(pubkeys)
        verdict = verify_pack(pack, keys)   # a pack at fault is named before the ledger is read
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
                if since:
                    from publishing.checkpoints import describe, read_verifiers, verify_since

                    verdict, signed = verify_since(ledger, since, read_verifiers(pubkeys),
                                                   on_progress=advance)
                    if verdict.ok:
                        extra.append(f"{since}: the log extends it ({describe(signed)}); "
                                     f"the {verdict.count - signed.checkpoint.size} events "
                                     "after it verified")
                elif checkpoints:
                    from publishing.checkpoints import check_checkpoints, read_verifiers

                    checked = check_checkpoints(ledger, checkpoints, read_verifiers(pubkeys),
                                                on_progress=advance)
                    verdict = checked.chain
                    for extended, line in checked.lines:
                        (extra if extended else failed).append(line)
                    failed.extend(checked.forked)
                else:
                    verdict = verify_chain(ledger, expect, on_progress=advance, rules=rules)
            # what reports read beside the store: each deal's cache file
            altered = dealcache.check(dealcache.cache_dir(), ledger)
    click.echo(verdict.line(), err=not verdict.ok)
    for line in extra:
        click.echo(line)
    for line in failed + altered:
        click.echo(line, err=True)
    raise SystemExit(0 if verdict.ok and not altered and not failed else 1)


def _check_verify_options(expect: str | None, rules: bool, checkpoints: tuple[str, ...],
                          since: str | None, pubkeys: tuple[str, ...], pack: str | None,
                          against: bool, statement: str | None) -> None:
    """The combinations ``verify`` refuses, each naming its option."""
    if expect is not None:
        from ledger.store.chain import witness

        witness(expect)  # a UsageError naming --expect for anything else
        if pack or statement:
            raise UsageError("checks the ledger; a pack's head is in its head.txt, to compare "
                             "with `verify --expect` on the ledger", field="--expect")
    offline = pack or statement
    if pack and statement:
        raise UsageError("checks one thing at a time: a pack or a statement",
                         field="--statement")
    if rules and offline:
        raise UsageError("judges the ledger's events; a pack is checked against its "
                         "ledger with --against-ledger", field="--rules")
    if against and not pack:
        raise UsageError("holds a pack against the ledger: give the pack with --pack DIR",
                         field="--against-ledger")
    if (checkpoints or since) and offline:
        raise UsageError("is checked against the ledger; a statement or pack carries its "
                         "own", field="--checkpoint" if checkpoints else "--since")
    if since and (checkpoints or expect is not None or rules):
        raise UsageError("walks only the events after the checkpoint; --checkpoint, "
                         "--expect and --rules walk the whole log", field="--since")
    if checkpoints and rules:
        raise UsageError("is checked on the whole walk; run --rules on its own",
                         field="--rules")
    if (checkpoints or since or statement) and not pubkeys:
        raise UsageError("give the verifier key it was signed with (KEY.pub)",
                         field="--pubkey")
    if pubkeys and not (checkpoints or since or offline):
        raise UsageError("checks signatures: of --checkpoint, --since, --statement or "
                         "--pack", field="--pubkey")


@cli.command()
@click.argument("deal")
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="A new directory for the pack (never written over).")
@click.option("--key", "key_path", default=None, type=click.Path(dir_okay=False),
              help="Sign the pack's manifest with this private key (manifest.sig): "
                   "`verify --pack DIR --pubkey KEY.pub` checks who vouches for it.")
@click.option("--previous", default=None, type=click.Path(file_okay=False),
              metavar="PACK",
              help="A pack of the deal made earlier: the figures of its day that this "
                   "pack knows otherwise are listed with the events that moved them "
                   "(restatements.json, and a section of index.html).")
@click.option("--json", "as_json", is_flag=True, help="What was written, as JSON.")
@report_options
@guarded
def export(deal: str, out: str, key_path: str | None, previous: str | None, as_json: bool,
           db: str, as_of: str | None, known_at: str | None,
           interpret: tuple[str, ...]) -> None:
    """Write an auditor pack of DEAL to a new directory: its events with their hashes
    (events.jsonl, chain.json, head.txt), the report (report.json), its schedules as CSV,
    the interpretations in force, a self-contained index.html with a timeline, and a
    manifest of SHA-256s (signed with --key; with --previous, the restatements since an
    earlier pack). Check it offline with `deal-ledger verify --pack DIR`."""
    from publishing import pack, reading

    day = reading.as_of_date(as_of, common.today())
    moment = reading.known_at_time(known_at)
    chosen = reading.interpretation_choices(interpret)
    key = None
    if key_path is not None:
        from publishing.checkpoints import read_signer

        key = read_signer(key_path)
    with open_ledger(db) as ledger:
        since = None
        if previous is not None:
            from publishing.restatements import against

            since = against(previous, deal, ledger)
        with progress("verifying, then writing the pack", total=ledger.max_position(),
                      unit="rows") as advance:
            result = pack.export(ledger, deal, out, as_of=day, known_at=moment,
                                 interpretations=chosen, on_progress=advance, key=key,
                                 previous=since)
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
