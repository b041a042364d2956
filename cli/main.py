"""``deal-ledger``: the command line over the ledger, projections and publishing libraries.

Each command parses options, calls one library function and prints its result: human
tables by default, exact JSON with ``--json``. Heavy libraries are imported inside the
commands so that ``deal-ledger --help`` stays fast.
"""

from __future__ import annotations

import os
import sys

import click


# The module of ``cli`` that defines each command. A command line imports the module of
# its command alone (a cold ``report`` does not build the other 19 commands: issue 17);
# the command list, and anything that reads ``cli.commands`` whole, imports them all.
# tests/test_cli_main.py checks this table against the commands the modules define.
COMMAND_MODULES = {
    **dict.fromkeys(("agenda", "obligations", "calendar"), "agenda"),
    **dict.fromkeys(("explain", "history", "whatif", "scenarios"), "analysts"),
    **dict.fromkeys(("verify", "export", "views"), "auditing"),
    "types": "catalog", "clause": "clauses", "demo": "demo", "log": "log", "terms": "terms",
    **dict.fromkeys(("keygen", "checkpoint", "statement", "restatements"), "proofs"),
    **dict.fromkeys(("init", "append", "record"), "operators"),
    **dict.fromkeys(("retract", "correct", "reinstate"), "corrections"),
    **dict.fromkeys(("interpretations", "report", "status", "interest", "suspensions",
                     "deadlines", "consents", "trueup", "instruments"), "reports"),
}


class _Commands(dict):
    """``cli.commands``: a command is there once its module is imported, which looking
    it up by name does; listing them (or ``len``) imports every module first."""

    def _load(self, name: object) -> None:
        module = COMMAND_MODULES.get(name) if isinstance(name, str) else None
        if module is not None and not dict.__contains__(self, name):
            import importlib

            importlib.import_module(f"{__package__}.{module}")

    def _load_all(self) -> None:
        for name in COMMAND_MODULES:
            self._load(name)

    def __getitem__(self, name):
        self._load(name)
        return dict.__getitem__(self, name)

    def __contains__(self, name) -> bool:
        self._load(name)
        return dict.__contains__(self, name)

    def get(self, name, default=None):
        self._load(name)
        return dict.get(self, name, default)

    def __iter__(self):
        self._load_all()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._load_all()
        return dict.__len__(self)

    def keys(self):
        self._load_all()
        return dict.keys(self)

    def values(self):
        self._load_all()
        return dict.values(self)

    def items(self):
        self._load_all()
        return dict.items(self)

    def __repr__(self) -> str:
        self._load_all()
        return dict.__repr__(self)


class LedgerGroup(click.Group):
    """The command list shows each command's whole one-line summary (wrapped, never cut
    off with "..."): its ``short_help``, else the first sentence of its help. Each
    command gets its summary and example (``cli.examples``) as it is added."""

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        super().add_command(cmd, name)
        from .examples import annotate_command

        annotate_command(name or cmd.name, cmd)

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


@click.group(cls=LedgerGroup, commands=_Commands(),
             context_settings={"help_option_names": ["-h", "--help"]},
             epilog="\b\nExample:\n  deal-ledger demo --db ledger.db && deal-ledger --db "
                    "ledger.db log --limit 5")
@click.version_option("0.1.0", prog_name="deal-ledger")
@click.option("--db", "db", default=None, metavar="PATH|URL",
              help="The ledger for the command that follows (as if given to it). Which "
                   "wins: the command's own --db, then this, then $LEDGER_DB, then "
                   "ledger.db. A PostgreSQL password goes in $PGPASSWORD, ~/.pgpass or a "
                   "service file, not in the URL (ps shows arguments).")
def cli(db: str | None) -> None:
    """An event-sourced ledger of deal obligations: Registration Defaults and Additional
    Interest under a resale registration rights agreement (the 2004 one of Infocrossing,
    Inc., or any market-standard one its terms state), anti-dilution deferral and
    true-up shares under the 2002 letter agreement of Infocrossing, Inc.

    Events are appended, never edited; every report is rebuilt from them as of any date
    and as known at any time."""


def main() -> None:
    """Console entry point: user errors are one line; anything else is a bug report."""
    from . import common

    common.ONE_SHOT = True  # one command, then this process exits
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

