"""Commands that prove the ledger to people outside it: keys, signed checkpoints, Holder
statements and restatements (``publishing.checkpoints``, ``publishing.statement``,
``publishing.restatements``)."""

from __future__ import annotations

import click

from . import common
from .common import db_option, guarded, open_ledger
from .main import cli
from .progress import progress


@cli.command()
@click.option("--name", required=True,
              help="The key's name, which signs and names the log: a schema-less URL such "
                   "as ledger.example.com/deals (no spaces, no '+').")
@click.option("--out", required=True, type=click.Path(dir_okay=False),
              help="The private key's file (made 0600, never written over); the verifier "
                   "key goes beside it, in OUT.pub.")
@db_option
@guarded
def keygen(name: str, out: str, db: str) -> None:
    """Make an Ed25519 key pair for signing checkpoints, statements and packs, in the
    text forms of Go's sumdb/note (C2SP signed-note). The private key is never printed;
    hand OUT.pub to whoever checks what it signs."""
    from publishing.checkpoints import keygen as make

    key = make(name, out, ledger_url=db)
    click.echo(f"wrote {out} (private: keep it so) and {out}.pub: {key.text}")


@cli.command()
@click.option("--key", "key_path", required=True, type=click.Path(dir_okay=False),
              help="The private key to sign with (`deal-ledger keygen`).")
@click.option("--out", default=None, type=click.Path(dir_okay=False),
              help="Write the checkpoint to this file (default: print it).")
@click.option("--since", default=None, type=click.Path(dir_okay=False),
              metavar="CHECKPOINT",
              help="Verify only the events after this checkpoint, signed earlier by the "
                   "same key, instead of the whole chain.")
@db_option
@guarded
def checkpoint(key_path: str, out: str | None, since: str | None, db: str) -> None:
    """Verify the chain, then sign the log's size and Merkle root (RFC 6962) as a C2SP
    tlog-checkpoint: its origin is the key's name, and the key cosigns it with the time.
    Keep it anywhere the ledger's writers cannot reach: `verify --checkpoint FILE
    --pubkey KEY.pub` proves later that the ledger still extends it."""
    import time

    from publishing import checkpoints

    key = checkpoints.read_signer(key_path)
    previous = None
    if since is not None:
        previous = checkpoints.open_checkpoint(since, [key.verifier], field="--since")
    with open_ledger(db) as ledger:
        with progress("verifying", total=ledger.max_position(), unit="rows") as advance:
            text, made = checkpoints.make_checkpoint(ledger, key, now=int(time.time()),
                                                     since=previous, on_progress=advance)
    if out is None:
        click.echo(text, nl=False)
        return
    checkpoints.write_checkpoint(text, out, ledger_url=db)
    click.echo(f"wrote {out}: size {made.size}, signed by {key.name}")


@cli.command()
@click.argument("deal")
@click.option("--from", "since", required=True, metavar="CHECKPOINT|PACK|KNOWN_AT",
              help="The earlier state: a signed checkpoint file (with --pubkey), an "
                   "auditor pack directory, or a time (what was recorded by then).")
@click.option("--to", "until", default=None, metavar="CHECKPOINT|PACK|KNOWN_AT",
              help="The later state, of the same kinds (default: the ledger now).")
@click.option("--pubkey", "pubkeys", multiple=True, metavar="KEY.pub",
              help="The verifier key that signed a checkpoint given; repeatable.")
@click.option("--json", "as_json", is_flag=True, help="The restatements as JSON.")
@click.option("--as-of", "as_of", default=None, metavar="YYYY-MM-DD",
              help="The day the figures are judged on (default: a pack's own, else today).")
@click.option("--interpret", "interpret", multiple=True, metavar="NAME=VALUE",
              help="Switch a named interpretation (default: a pack's own readings).")
@db_option
@guarded
def restatements(deal: str, since: str, until: str | None, pubkeys: tuple[str, ...],
                 as_json: bool, as_of: str | None, interpret: tuple[str, ...],
                 db: str) -> None:
    """Every figure of DEAL's report that changed between two states of the ledger
    (--from, --to), old -> new, with its clause and the events that moved it (when each
    was recorded), and the RFC 6962 consistency proof between the two heads. Exit 1
    when something was restated (for a scheduled job), 0 when nothing was."""
    from publishing import reading
    from publishing.restatements import lines, restatements as compute

    keys = None
    if pubkeys:
        from publishing.checkpoints import read_verifiers

        keys = read_verifiers(pubkeys)
    day = reading.as_of_date(as_of, common.today()) if as_of is not None else None
    chosen = reading.interpretation_choices(interpret) if interpret else None
    with open_ledger(db) as ledger:
        result = compute(ledger, deal, since, until, as_of=day, today=common.today(),
                         interpretations=chosen, keys=keys)
    if as_json:
        common.print_json(result)
    else:
        for line in lines(result):
            click.echo(line)
    raise SystemExit(1 if result["restated"] else 0)


@cli.command()
@click.argument("deal")
@click.option("--holder", required=True, help="The Holder the statement is for.")
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="A new directory for the statement (never written over).")
@click.option("--key", "key_path", required=True, type=click.Path(dir_okay=False),
              help="The private key that signs the statement (and, without --checkpoint, "
                   "a new checkpoint of the ledger).")
@click.option("--checkpoint", "checkpoint_path", default=None,
              type=click.Path(dir_okay=False), metavar="FILE",
              help="Prove the events in this signed checkpoint (default: verify the chain "
                   "and sign a new one).")
@click.option("--pubkey", "pubkeys", multiple=True, metavar="KEY.pub",
              help="The verifier key of a checkpoint signed by another key; repeatable.")
@click.option("--as-of", "as_of", default=None, metavar="YYYY-MM-DD",
              help="The day the figures are judged on (default: today).")
@click.option("--interpret", "interpret", multiple=True, metavar="NAME=VALUE",
              help="Switch a named interpretation (see `deal-ledger interpretations`).")
@db_option
@guarded
def statement(deal: str, holder: str, out: str, key_path: str, checkpoint_path: str | None,
              pubkeys: tuple[str, ...], as_of: str | None, interpret: tuple[str, ...],
              db: str) -> None:
    """Write a Holder's statement to a new directory: its own figures (Additional
    Interest per Interest Payment Date, paid and status; or its true-up shares), each
    explained, the events they rest on (the deal's and its own, not the other Holders')
    each with an inclusion proof in a signed checkpoint, and a page. The Holder checks it
    alone: `deal-ledger verify --statement DIR --pubkey KEY.pub`."""
    import time

    from publishing import reading
    from publishing.checkpoints import read_signer, read_verifiers
    from publishing.statement import make

    key = read_signer(key_path)
    keys = read_verifiers(pubkeys) if pubkeys else []
    day = reading.as_of_date(as_of, common.today())
    chosen = reading.interpretation_choices(interpret)
    with open_ledger(db) as ledger:
        made = make(ledger, deal, holder, out, as_of=day, key=key, now=int(time.time()),
                    checkpoint_path=checkpoint_path, keys=keys, interpretations=chosen)
    click.echo(made.line())
