"""What the writing commands share (``cli.operators``, ``cli.corrections``): how a write
is reported, its warnings, the closest deal names for a mistyped one, and, before a
correction is written, what it affects and the operator's confirmation. No rules: the
library decides; this prints."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, Iterable, Sequence

import click


def _print_appended(result) -> None:
    """``appended N event(s); head seq S`` and the head hash on a line of its own (at 80
    columns a terminal broke it mid-line), or, for a batch sent again, where it is."""
    if result.already:   # a batch sent again (ledger.idempotency): nothing written
        from ledger.idempotency import spans

        click.echo(f"already recorded: seq {spans([r['seq'] for r in result.already])}; "
                   "nothing written")
        return
    click.echo(f"appended {result.count} event(s); head seq {result.head.seq}")
    click.echo(f"head hash {result.head.hash}")


def _warn(ledger, result) -> None:
    """The facts just written that look wrong, on standard error (``publishing.preview``)."""
    from publishing.preview import warnings

    from .views import money_in_text

    if result.count:
        for text in warnings(ledger, result.records):
            click.echo(f"warning: {money_in_text(text)}", err=True)


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


YES_OPTION = click.option("--yes", "-y", "yes", is_flag=True,
                          help="Write without asking. At a terminal the command shows what "
                               "it affects and asks first; in a pipe or CI ($CI set) it "
                               "never asks.")


def described(verb: str, record: dict[str, Any]) -> str:
    """One line naming an event: seq, type, deal, date, id and its data (issue 31:
    what a correction affects, shown before it is written)."""
    from .log import summary

    data = summary(record.get("data"))
    stored = "seq" in record   # a new event has no seq and no id yet
    return (f"{verb} " + (f"seq {record['seq']} " if stored else "")
            + f"{record.get('type')} {record.get('deal')} {record.get('date')}"
            + (f" {str(record.get('id', ''))[:8]}" if stored else "")
            + (f": {data}" if data else ""))


def asks() -> bool:
    """Whether to ask before writing: at a terminal (standard input and output), and not
    in CI."""
    if os.environ.get("CI"):
        return False
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def write_reviewed(ledger, batch: Sequence[Any], affects: Iterable[str], user: str | None,
                   yes: bool) -> None:
    """Check ``batch`` as the append will (a refusal is one line, with nothing printed
    before it), print what it affects, ask at a terminal unless ``yes``, then append."""
    ledger.check(batch, user=user)
    for line in affects:
        click.echo(line)
    if not yes and asks() and not click.confirm("Write this?", default=False):
        click.echo("not written: nothing was appended", err=True)
        raise SystemExit(1)
    appended = ledger.append(batch, user=user)
    _print_appended(appended)
    _warn(ledger, appended)
