"""``deal-ledger``: the command line over the ledger, projections and publishing libraries.

Each command parses options, calls one library function and prints its result: human
tables by default, exact JSON with ``--json``. Heavy libraries are imported inside the
commands so that ``deal-ledger --help`` stays fast.
"""

from __future__ import annotations

import os
import sys

import click


class LedgerGroup(click.Group):
    """The command list shows each command's whole one-line summary (wrapped, never cut
    off with "..."): its ``short_help``, else the first sentence of its help."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is None or cmd.hidden:
                continue
            rows.append((name, cmd.short_help or first_sentence(cmd.help or "")))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def first_sentence(text: str) -> str:
    """The help's first sentence (up to a period followed by a space, or its first
    paragraph), on one line."""
    para = " ".join(text.split("\n\n")[0].split())
    for i, char in enumerate(para):
        if char == "." and (i + 1 == len(para) or para[i + 1] == " "):
            return para[:i + 1]
    return para


@click.group(cls=LedgerGroup, context_settings={"help_option_names": ["-h", "--help"]},
             epilog="\b\nExample:\n  deal-ledger demo --db ledger.db && deal-ledger --db "
                    "ledger.db log --limit 5")
@click.version_option("0.1.0", prog_name="deal-ledger")
@click.option("--db", "db", default=None, metavar="PATH|URL",
              help="The ledger for the command that follows (as if given to it). Which "
                   "wins: the command's own --db, then this, then $LEDGER_DB, then "
                   "ledger.db.")
def cli(db: str | None) -> None:
    """An event-sourced ledger of deal obligations: Registration Defaults and Additional
    Interest under the 2004 Resale Registration Rights Agreement, anti-dilution deferral
    and true-up shares under the 2002 letter agreement of Infocrossing, Inc.

    Events are appended, never edited; every report is rebuilt from them as of any date
    and as known at any time."""


def main() -> None:
    """Console entry point: user errors are one line; anything else is a bug report."""
    try:
        code = cli.main(prog_name="deal-ledger", standalone_mode=False)
    except click.UsageError as err:  # a missing argument, an unknown option or command
        hint = f" (see {err.ctx.command_path} --help)" if err.ctx else ""
        click.echo(f"error: {' '.join(err.format_message().split())}{hint}", err=True)
        sys.exit(2)
    except click.ClickException as err:  # a bad file argument and the like
        click.echo(f"error: {' '.join(err.format_message().split())}", err=True)
        sys.exit(err.exit_code)
    except click.exceptions.Abort:
        click.echo("aborted: nothing more was written", err=True)
        sys.exit(130)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        click.echo("interrupted: nothing more was written", err=True)
        sys.exit(130)
    except Exception as err:  # a bug, not a user mistake: still no raw traceback
        if os.environ.get("DEAL_LEDGER_DEBUG"):
            raise
        click.echo(f"internal error: {type(err).__name__}: {err} (set DEAL_LEDGER_DEBUG=1 "
                   "for a traceback, and please report it)", err=True)
        sys.exit(70)
    sys.exit(code if isinstance(code, int) else 0)


# The commands attach themselves to ``cli``; imported last because they import it.
from . import agenda, analysts, auditing, catalog, clauses, demo, log, operators, reports  # noqa: E402,F401,E501
from .examples import annotate  # noqa: E402

annotate(cli)
