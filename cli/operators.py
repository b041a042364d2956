"""Commands for operators: open a deal, append a batch, record one event, correct one."""

from __future__ import annotations

import contextlib
import sys

import click

from .common import db_option, guarded, ledger_to_append, open_ledger, user_option
from .catalog import RecordCommand
from .main import cli
from .progress import progress


BAR_FROM = 1000  # lines: a smaller batch is done before a bar would be read


def read_with_progress(raw: bytes):
    """The batch parsed and checked line by line, with a bar on a terminal for a big one."""
    from ledger.jsonl import read_batch

    lines = raw.count(b"\n") + (0 if raw.endswith(b"\n") else 1)
    if lines < BAR_FROM:
        return read_batch(raw)
    with progress("reading", total=lines, unit="lines") as advance:
        return read_batch(raw, on_progress=advance)


def progress_while(label: str, size: int):
    """A bar without a total (the elapsed time runs) for work that reports no steps."""
    import contextlib

    if size < BAR_FROM:
        return contextlib.nullcontext()
    return progress(label, total=None)


def _print_appended(result) -> None:
    click.echo(f"appended {result.count} event(s); head seq {result.head.seq} "
               f"hash {result.head.hash}")


@cli.command()
@click.argument("deal")
@click.option("--template", help="A deal template: infocrossing-rra-2004 or infocrossing-letter-2002.")
@click.option("--terms", "terms_file", type=click.Path(dir_okay=False),
              help="A JSON file {kind, name, date, terms} for another deal of a known kind.")
@click.option("--key", default=None, help="Idempotency key for the DealOpened event.")
@db_option
@user_option
@guarded
def init(deal: str, template: str | None, terms_file: str | None, key: str | None, db: str,
         user: str | None) -> None:
    """Open DEAL: append its DealOpened event from a template or a terms file."""
    from ledger.errors import UsageError
    from ledger.operations import opening_event

    if bool(template) == bool(terms_file):
        raise UsageError("give exactly one of --template NAME or --terms FILE")
    new = opening_event(deal, template=template, terms_file=terms_file, key=key)
    with ledger_to_append(db) as ledger:
        _print_appended(ledger.append([new], user=user))


@cli.command()
@click.argument("source", default="-", required=False)
@db_option
@user_option
@guarded
def append(source: str, db: str, user: str | None) -> None:
    """Append a JSON Lines batch from SOURCE (a file, or - for standard input).

    All or nothing: the first bad line is named and nothing is written."""
    from ledger import bulk
    from ledger.errors import UsageError

    if source == "-":
        raw = sys.stdin.buffer.read()
    else:
        try:
            with open(source, "rb") as fh:
                raw = fh.read()
        except OSError as err:
            raise UsageError(f"cannot read {source}: {err.strerror}") from None
    if raw.count(b"\n") + 1 >= bulk.AT:
        _print_appended(_append_large(raw, db, user))
        return
    batch = read_with_progress(raw)
    with ledger_to_append(db) as ledger, progress_while(
            f"checking and writing {len(batch):,} events", len(batch)), \
            deal_hint(ledger, [e.deal for e in batch]):
        appended = ledger.append(batch, user=user)
    _print_appended(appended)


def _append_large(raw: bytes, db: str, user: str | None):
    """A large batch parsed, checked and written in one pass where it can be
    (``Ledger.append_lines``). The store is opened before the lines are read, so an
    error of the store, the lock or the operator is answered only once the lines are
    known to be good: a bad line is named first, as for any batch."""
    from ledger import bulk
    from ledger.errors import InvalidEvent, LedgerError, RuleViolation
    from ledger.jsonl import deal_guesses, read_batch, split_lines

    try:
        with ledger_to_append(db) as ledger, progress_while(
                "checking and writing the batch", bulk.AT), \
                deal_hint(ledger, lambda: deal_guesses(split_lines(raw)) or ()):
            return ledger.append_lines(raw, user=user)
    except LedgerError as err:
        if isinstance(err, (InvalidEvent, RuleViolation)):
            raise
        read_batch(raw)   # raises the first bad line's error, if there is one
        raise


@contextlib.contextmanager
def deal_hint(ledger, deals):
    """A refusal for a deal never opened gains the closest deals' names (README: a
    mistyped deal is answered with the closest names). The ledger's deals are read only
    on that error, so appends that succeed pay nothing for it. ``deals``: the batch's
    deals, or a function that makes them (called only on that error)."""
    from ledger.errors import RuleViolation
    from ledger.guards import NEVER_OPENED
    from ledger.suggest import did_you_mean

    try:
        yield
    except RuleViolation as err:
        if err.rule != NEVER_OPENED or err.field != "deal":
            raise
        known = sorted(set(ledger.deals()))
        if callable(deals):
            deals = deals()
        bad = next((d for d in deals if d not in known and d in err.message), None)
        hint = did_you_mean(bad, known) if bad else None
        if not hint:
            raise
        raise RuleViolation(f"{err.message}; {hint}", line=err.line, field=err.field,
                            rule=err.rule) from None


@cli.command(cls=RecordCommand)
@click.argument("event_type")
@click.option("--deal", required=True)
@click.option("--date", "day", required=True, help="The day it happened, YYYY-MM-DD.")
@click.option("--source", default=None, help="Where the fact comes from.")
@click.option("--key", default=None, help="Idempotency key.")
@click.argument("fields", nargs=-1)
@db_option
@user_option
@guarded
def record(event_type: str, deal: str, day: str, source: str | None, key: str | None,
           fields: tuple[str, ...], db: str, user: str | None) -> None:
    """Append one event typed at the terminal: FIELDS are name=value pairs (numbers,
    true/false and lists as JSON; text as is). `deal-ledger record TYPE --help` lists
    the fields of TYPE; `deal-ledger types` lists every type."""
    from ledger.operations import event_from_fields

    new = event_from_fields(event_type, deal, day, fields, source=source, key=key)
    with open_ledger(db, create=False) as ledger, deal_hint(ledger, [deal]):
        _print_appended(ledger.append([new], user=user))


REASON_HELP = "Why the event is wrong (required: it is kept in the EventRetracted)."


@cli.command()
@click.argument("event_ids", metavar="EVENT_ID...", nargs=-1, required=True)
@click.option("--reason", required=True, help=REASON_HELP)
@click.option("--date", "day", default=None, help="Date of the correction (default: the target's date).")
@db_option
@user_option
@guarded
def retract(event_ids: tuple[str, ...], reason: str, day: str | None, db: str,
            user: str | None) -> None:
    """Retract EVENT_ID (the whole id or any unique prefix, such as the 8 characters
    `log` shows): append EventRetracted; the event stays in the log, marked. Several
    ids are retracted in one batch, judged as a whole (a Suspension Period's start and
    its end together)."""
    from ledger.operations import retraction

    with open_ledger(db) as ledger:
        new = [retraction(ledger, event_id, reason, day) for event_id in event_ids]
        _print_appended(ledger.append(new, user=user))


@cli.command()
@click.argument("event_id")
@click.argument("replacement", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--reason", required=True, help=REASON_HELP)
@db_option
@user_option
@guarded
def correct(event_id: str, replacement: str, reason: str, db: str, user: str | None) -> None:
    """Retract EVENT_ID (the whole id or any unique prefix) and append the REPLACEMENT
    (a JSONL file, or - for standard input) in one atomic batch."""
    from ledger.errors import UsageError
    from ledger.jsonl import read_batch
    from ledger.operations import retraction

    try:
        if replacement == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(replacement, "rb") as fh:
                raw = fh.read()
    except OSError as err:
        raise UsageError(f"cannot read {replacement}: {err.strerror}") from None
    batch = read_batch(raw)  # refusals name the replacement file's own lines
    with open_ledger(db) as ledger:
        new = retraction(ledger, event_id, reason, None)
        _print_appended(ledger.append([new, *batch], user=user))
