"""Options and plumbing shared by the commands: no rules live here."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from typing import Any, Callable, Iterator

import click

DEFAULT_DB = "ledger.db"


def db_from_group(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """A command's ``--db``: its own if given on the command line, else the one given
    before the command (``deal-ledger --db PATH log``), else ``$LEDGER_DB``, else the
    default."""
    from click.core import ParameterSource

    if ctx.get_parameter_source(param.name) == ParameterSource.COMMANDLINE:
        warn_if_password_shown(ctx, value)
        return value
    given = ctx.find_root().params.get("db")
    if given is not None:
        warn_if_password_shown(ctx, given)
    return given if given is not None else value


def warn_if_password_shown(ctx: click.Context, url: str | None) -> None:
    """A password in a ``--db`` URL given on the command line stays in the process's
    arguments, which any user of the machine can read (``ps``): say so once on standard
    error (the command goes on). ``$LEDGER_DB`` is not shown by ``ps``, and libpq reads
    ``$PGPASSWORD``, ``~/.pgpass`` (``$PGPASSFILE``) and a service file (``$PGSERVICE``)."""
    from urllib.parse import urlparse

    warned = ctx.find_root().meta.setdefault("deal-ledger: warned", set())
    if not url or not url.startswith(("postgresql://", "postgres://")) or url in warned:
        return
    try:
        password = urlparse(url).password
    except ValueError:
        return
    if password:
        warned.add(url)
        click.echo("warning: the password in --db can be read by other users of this "
                   "machine (ps); give it in $PGPASSWORD, ~/.pgpass or a service file "
                   "instead", err=True)


def db_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--db", "db", envvar="LEDGER_DB", default=DEFAULT_DB, show_default=True,
                        callback=db_from_group,
                        help="Ledger: a SQLite file path, or postgresql://user@host:port/dbname "
                             "(also accepted before the command; else $LEDGER_DB). Give a "
                             "PostgreSQL password in $PGPASSWORD, ~/.pgpass or a service "
                             "file, not in the URL: arguments are visible to `ps`.")(f)


def user_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--user", envvar="LEDGER_USER", default=None,
                        help="Operator recorded as recorded_by ($LEDGER_USER, else the OS user).")(f)


def open_ledger(db: str, *, create: bool = False):
    from ledger.store import Ledger

    return Ledger(db, create=create)


@contextlib.contextmanager
def ledger_to_append(db: str) -> Iterator[Any]:
    """The ledger an append writes to, created if need be. A file is never removed, even
    one this call created and a refused batch left without an event: between the moment
    it was created and the refusal, another writer may have opened it and written to it
    (an ``init`` racing a large first batch, six ``init`` of one new path): what it was
    told was written must stay there. A refused first batch may leave an empty ledger
    (it holds no event; the next append fills it)."""
    with open_ledger(db, create=True) as ledger:
        yield ledger


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
        except BrokenPipeError:  # `deal-ledger log | head`: the reader has all it wanted
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())  # no second error when Python exits
            except (OSError, ValueError, AttributeError):
                pass
            sys.exit(0)

    return wrapper


def console():
    """Where tables go: as wide as ``$COLUMNS`` says, else as the terminal is, else (a pipe
    or a file) 120 columns."""
    import shutil

    from rich.console import Console

    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        width = int(columns)
    elif _stdout_is_terminal():
        width = shutil.get_terminal_size((120, 24)).columns
    else:
        width = 120
    return Console(width=width, soft_wrap=False)


def report_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The options every computing command takes: which day, as known when, which readings."""
    f = click.option("--interpret", "interpret", multiple=True, metavar="NAME=VALUE",
                     help="Switch a named interpretation (see `deal-ledger interpretations`); "
                          "repeatable.")(f)
    f = click.option("--known-at", "known_at", default=None, metavar="TIMESTAMP",
                     help="Only what the ledger had recorded by then (ISO 8601, UTC if no "
                          "offset; a date means the end of that day). Default: everything.")(f)
    f = click.option("--as-of", "as_of", default=None, metavar="YYYY-MM-DD",
                     help="The day the figures are judged on (default: today).")(f)
    return db_option(f)


def today():
    """The CLI's one reading of the clock: the default ``--as-of``."""
    from datetime import date

    return date.today()


def load_report(db: str, deal: str, as_of: str | None, known_at: str | None,
                interpret: tuple[str, ...], *, headings: bool = False,
                words: bool = False) -> dict[str, Any]:
    """Parse the report options, read the deal and compute its SPEC §7 report; with
    ``headings``, for the readable views only, the clauses their headings name from the
    deal's terms (``cli.views.HEADINGS``; never in ``--json``); with ``words``, the
    agreement's own sentence for each clause the report cites (``cli.views.AGREEMENT_WORDS``,
    for the readable ``report``)."""
    from publishing import reading

    day = reading.as_of_date(as_of, today())
    moment = reading.known_at_time(known_at)
    chosen = reading.interpretation_choices(interpret)
    from ledger.store.dealcache import cache_dir

    with _one_deal_in_memory():
        with open_ledger(db) as ledger:
            events = reading.deal_events(ledger, deal, cache_dir=cache_dir())
        result = reading.deal_report(events, as_of=day, known_at=moment,
                                     interpretations=chosen)
        if headings:
            from publishing.terms import deal_headings

            from .views import HEADINGS

            result[HEADINGS] = deal_headings(events)
        if words:
            from publishing.terms import deal_agreement_words

            from .views import AGREEMENT_WORDS

            result[AGREEMENT_WORDS] = deal_agreement_words(events, result)
        return result


# Set by the console entry point (``cli.main.main``): this process runs one command and
# exits, so what a command holds at its end need not be collected again.
ONE_SHOT = False


@contextlib.contextmanager
def _one_deal_in_memory() -> Iterator[None]:
    """A command that reads one deal and computes its report allocates hundreds of
    thousands of objects that stay alive until it prints and exits (a 10,000-event
    deal's events and report); Python's cyclic collector would walk them again and
    again, and once more when switched back on (a tenth of a cold ``report``: issue 17).
    It is paused meanwhile; in a process that exits after the command (``ONE_SHOT``),
    what is alive at the end is left out of later collections (``gc.freeze``), since it
    is only printed. Elsewhere (tests calling the commands in process) the collector
    is simply switched back on."""
    from ledger.collector import paused

    with paused(freeze=ONE_SHOT):
        yield


def _stdout_is_terminal() -> bool:
    try:
        return sys.stdout is not None and sys.stdout.isatty()
    except (AttributeError, ValueError, OSError):  # a replaced or closed stream
        return False


def print_json(obj: Any) -> None:
    """JSON on stdout: indented for a person at a terminal, compact for a pipe or a
    file (``json`` encodes compact JSON in C; with ``indent`` it falls back to its much
    slower pure-Python encoder, which matters for a report of tens of megabytes)."""
    import json

    if _stdout_is_terminal():
        click.echo(json.dumps(obj, indent=2, ensure_ascii=False))
    else:
        click.echo(json.dumps(obj, separators=(",", ":"), ensure_ascii=False))
