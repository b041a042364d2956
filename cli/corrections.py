"""Commands that correct the record: retract an event, correct it (retract and replace in
one batch), and reinstate an event whose retraction was made in error. Each names its
event by ``seq:N`` or 6+ characters of its id (``ledger.references``), shows what it
affects, asks at a terminal (unless ``--yes``), then appends."""

from __future__ import annotations


import click

from .common import db_option, guarded, open_ledger, user_option
from .main import cli
from .writes import YES_OPTION, described, write_reviewed

REASON_HELP = "Why the event is wrong (required: it is kept in the EventRetracted)."
REFERENCE = ("EVENT_ID is seq:N (its place in the log) or 6 or more characters of its id "
             "(`log` shows 8).")


@cli.command()
@click.argument("event_ids", metavar="EVENT_ID...", nargs=-1, required=True)
@click.option("--reason", required=True, help=REASON_HELP)
@click.option("--date", "day", default=None, help="Date of the correction (default: the target's date).")
@YES_OPTION
@db_option
@user_option
@guarded
def retract(event_ids: tuple[str, ...], reason: str, day: str | None, yes: bool, db: str,
            user: str | None) -> None:
    """Retract EVENT_ID: append EventRetracted; the event stays in the log, marked, and
    no longer counts. EVENT_ID is seq:N or 6 or more characters of its id (`log` shows
    8). Several are retracted in one batch, judged as a whole (a Suspension Period's
    start and its end together). Undo with `deal-ledger reinstate`."""
    from ledger.operations import retraction_of, target

    with open_ledger(db) as ledger:
        records = [target(ledger, event_id) for event_id in event_ids]
        new = [retraction_of(record, reason, day) for record in records]
        write_reviewed(ledger, new, [described("retracts", r) for r in records], user, yes)


@cli.command()
@click.argument("event_id")
@click.argument("replacement", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--reason", required=True, help=REASON_HELP)
@YES_OPTION
@db_option
@user_option
@guarded
def correct(event_id: str, replacement: str, reason: str, yes: bool, db: str,
            user: str | None) -> None:
    """Retract EVENT_ID (seq:N or 6 or more characters of its id) and append the
    REPLACEMENT (a JSONL file, or - for standard input) in one atomic batch."""
    from ledger.jsonl import read_batch, read_input
    from ledger.operations import retraction_of, target

    # a line at a time, within the line limit (issue 29); refusals name the file's lines
    batch = read_batch(read_input(replacement))
    with open_ledger(db) as ledger:
        record = target(ledger, event_id)
        new = retraction_of(record, reason, None)
        shown = [described("retracts", record)]
        shown += [described("appends", e.envelope()) for e in batch]
        write_reviewed(ledger, [new, *batch], shown, user, yes)


@cli.command()
@click.argument("retraction_id")
@click.option("--reason", required=True,
              help="Why the retraction was wrong (required: it is kept in the "
                   "EventReinstated).")
@click.option("--date", "day", default=None,
              help="Date of the reinstatement (default: the retraction's date).")
@YES_OPTION
@db_option
@user_option
@guarded
def reinstate(retraction_id: str, reason: str, day: str | None, yes: bool, db: str,
              user: str | None) -> None:
    """Withdraw the retraction RETRACTION_ID (seq:N or 6 or more characters of its id):
    append EventReinstated; the event it retracted counts again, judged by the rules as
    if appended now. Both stay in the log; `log`, `history` and the pack show it."""
    from ledger.operations import reinstatement

    with open_ledger(db) as ledger:
        new, retraction, back = reinstatement(ledger, retraction_id, reason, day)
        shown = [described("withdraws", retraction)]
        if back is not None:
            shown.append(described("reinstates", back))
        write_reviewed(ledger, [new], shown, user, yes)
