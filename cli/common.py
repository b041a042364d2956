"""Options and plumbing shared by the commands: no rules live here."""

from __future__ import annotations

import functools
import os
import sys
from typing import Any, Callable

import click

DEFAULT_DB = "ledger.db"


def db_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--db", "db", envvar="LEDGER_DB", default=DEFAULT_DB, show_default=True,
                        help="Ledger: a SQLite file path, or postgresql://user@host:port/dbname "
                             "($LEDGER_DB).")(f)


def user_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--user", envvar="LEDGER_USER", default=None,
                        help="Operator recorded as recorded_by ($LEDGER_USER, else the OS user).")(f)


def open_ledger(db: str, *, create: bool = False):
    from ledger.store import Ledger

    return Ledger(db, create=create)


def fail(error: Exception) -> None:
    """Print a user error as one line on stderr and exit with its code."""
    from ledger.errors import LedgerError

    code = getattr(error, "exit_code", 3) if isinstance(error, LedgerError) else 3
    click.echo(f"error: {error}", err=True)
    sys.exit(code)


def guarded(f: Callable[..., Any]) -> Callable[..., Any]:
    """Turn every LedgerError into one line and an exit code; never a traceback for it."""

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from ledger.errors import LedgerError

        try:
            return f(*args, **kwargs)
        except LedgerError as err:
            fail(err)

    return wrapper


def console():
    from rich.console import Console

    return Console(width=int(os.environ.get("COLUMNS", "120")), soft_wrap=False)
