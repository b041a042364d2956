"""Commands for operators: open a deal, append a batch (or preview it), record one event.
Retracting, correcting and reinstating are in ``cli.corrections``."""

from __future__ import annotations

import contextlib

import click

from .common import db_option, guarded, ledger_to_append, open_ledger, user_option
from .catalog import RecordCommand
from .main import cli
from .progress import progress
from .writes import _print_appended, _warn, deal_hint


BAR_FROM = 1000  # lines: a smaller batch is done before a bar would be read


def read_with_progress(raw: bytes):
    """The batch parsed and checked line by line, with a bar on a terminal for a big one."""
    from ledger.jsonl import read_batch

    lines = raw.count(b"\n") + (0 if raw.endswith(b"\n") else 1)
    if lines < BAR_FROM:
        return read_batch(raw)
    with progress("reading", total=lines, unit="lines") as advance:
        return read_batch(raw, on_progress=advance)


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
@click.option("--dry-run", "dry_run", is_flag=True,
              help="Check the batch against the ledger and print what it would change "
                   "(money first, then obligations, then the rest); write nothing. Exit "
                   "codes as for a real append.")
@click.option("--as-of", "as_of", default=None, metavar="YYYY-MM-DD",
              help="With --dry-run: the day the deals are judged on (default: the latest "
                   "day the batch names).")
@click.option("--batch-id", "batch_id", default=None, metavar="ID",
              help="Key the whole batch (line N gets the key ID#N): sent again, it is "
                   "answered 'already recorded' and nothing is written.")
@click.option("--allow-duplicates", "allow_duplicates", is_flag=True,
              help="Accept identical lines as distinct events (refused otherwise).")
@click.option("--json", "as_json", is_flag=True, help="With --dry-run: the preview as JSON.")
@click.option("--verbose", "-v", is_flag=True,
              help="With --dry-run: also every other figure that differs, by its path.")
@db_option
@user_option
@guarded
def append(source: str, dry_run: bool, as_of: str | None, batch_id: str | None,
           allow_duplicates: bool, as_json: bool, verbose: bool, db: str,
           user: str | None) -> None:
    """Append a JSON Lines batch from SOURCE (a file, or - for standard input).

    All or nothing: the first bad line is named and nothing is written. A batch whose
    keyed lines (an event's `key`, or --batch-id) are recorded already is answered
    'already recorded: seq a..b' and writes nothing (exit 0): sending it again after a
    timeout or a crash is safe. Identical lines are refused unless --allow-duplicates."""
    from ledger.store import bulk
    from ledger.errors import UsageError
    from ledger.idempotency import refuse_duplicate_lines
    from ledger.jsonl import read_input, split_lines

    if not dry_run and (as_of or as_json or verbose):
        raise UsageError("--as-of, --json and --verbose describe a --dry-run",
                         field="--dry-run")
    raw = read_input(source)   # a line at a time, within the line limit (issue 29)
    if not dry_run and batch_id is None and raw.count(b"\n") + 1 >= bulk.AT:
        if not allow_duplicates:
            _refuse_duplicates(raw)
        with ledger_to_append(db) as ledger:
            appended = _append_large(raw, ledger, user)
            _print_appended(appended)
            _warn(ledger, appended)
        return
    batch = read_with_progress(raw)
    if not allow_duplicates:   # once every line is known good: a bad line is named first
        refuse_duplicate_lines(split_lines(raw))
    if batch_id is not None:
        from ledger.idempotency import batch_keyed

        batch = batch_keyed(batch, batch_id)
    if dry_run:
        from .preview import show_preview

        show_preview(db, batch, as_of, user, as_json=as_json, verbose=verbose)
        return
    with ledger_to_append(db) as ledger:
        with deal_hint(ledger, [e.deal for e in batch]), \
                progress_of("checking and writing", len(batch)) as advance:
            appended = ledger.append(batch, user=user, on_progress=advance)
        _print_appended(appended)
        _warn(ledger, appended)


def _refuse_duplicates(raw: bytes) -> None:
    """``refuse_duplicate_lines`` for a batch not parsed yet: if two lines are the same,
    a bad line is still named first, as for any batch (the batch is parsed only then)."""
    from ledger.errors import InvalidEvent
    from ledger.idempotency import refuse_duplicate_lines
    from ledger.jsonl import read_batch, split_lines

    try:
        refuse_duplicate_lines(split_lines(raw))
    except InvalidEvent:
        read_batch(raw)
        raise


def progress_of(label: str, size: int):
    """A bar of ``size`` events, with its count and the time left, for a batch large
    enough for one to be read (issue 31: it was ``0/?``: the count is known once the
    batch is parsed); nothing for a small one."""
    if size < BAR_FROM:
        return contextlib.nullcontext(None)
    return progress(label, total=size)


def _append_large(raw: bytes, ledger, user: str | None):
    """A large batch parsed, checked and written in one pass where it can be
    (``Ledger.append_lines``). The store is opened before the lines are read, so an
    error of the store, the lock or the operator is answered only once the lines are
    known to be good: a bad line is named first, as for any batch."""
    from ledger.errors import InvalidEvent, LedgerError, RuleViolation
    from ledger.jsonl import deal_guesses, read_batch, split_lines

    lines = raw.count(b"\n") + (0 if raw.endswith(b"\n") else 1)
    try:
        with progress_of("checking and writing", lines) as advance, \
                deal_hint(ledger, lambda: deal_guesses(split_lines(raw)) or ()):
            return ledger.append_lines(raw, user=user, on_progress=advance)
    except LedgerError as err:
        if isinstance(err, (InvalidEvent, RuleViolation)):
            raise
        read_batch(raw)   # raises the first bad line's error, if there is one
        raise


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
    with open_ledger(db, create=False) as ledger:
        with deal_hint(ledger, [deal]):
            appended = ledger.append([new], user=user)
        _print_appended(appended)
        _warn(ledger, appended)
