"""Running commands in tests through click's CliRunner, and what a result must look like."""

from __future__ import annotations

import os

from click.testing import CliRunner

from cli.main import cli


def run(*args: str, input: str | bytes | None = None):
    """One command, with a console wide enough that no table cell folds."""
    return CliRunner().invoke(cli, list(args), input=input, env={"COLUMNS": "200"})


PASSWORD_WARNING = ("warning: the password in --db can be read by other users of this machine "
                    "(ps); give it in $PGPASSWORD, ~/.pgpass or a service file instead")


def error_lines(stderr: str) -> list[str]:
    """Standard error's lines but the warning a URL with a password on the command line
    gives (``cli.common.warn_if_password_shown``): what must be one line is the rest."""
    return [line for line in stderr.strip("\n").split("\n") if line != PASSWORD_WARNING]


def ok(result) -> str:
    """A success: exit 0; its standard output."""
    assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
    return result.stdout


def refused(result, code: int) -> str:
    """A refusal: the exit code, one line on stderr, nothing on stdout, no traceback."""
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    assert result.stdout == ""
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.output
    return result.stderr


def store_bytes(path: str) -> dict[str, bytes]:
    """A SQLite ledger's files, byte for byte: the database and any write-ahead log or
    rollback journal (the shared-memory index ``-shm`` is a reader's cache, not data)."""
    out = {}
    for suffix in ("", "-wal", "-journal"):
        if os.path.exists(path + suffix):
            with open(path + suffix, "rb") as fh:
                out[suffix or "db"] = fh.read()
    return out


def refused_unchanged(path: str, code: int, *args: str, input: str | bytes | None = None) -> str:
    """Run a command that must be refused: exit ``code``, one line on stderr (see
    ``refused``), and the SQLite ledger at ``path`` byte for byte as it was."""
    before = store_bytes(path)
    result = run(*args, input=input)
    message = refused(result, code)
    assert store_bytes(path) == before, "the refused command changed the ledger's bytes"
    return message


_COLD = """
import gc, json, sys
from cli.main import main
sys.argv = ["deal-ledger", *json.loads(sys.argv[1])]
code = 0
try:
    main()
except SystemExit as done:
    code = done.code
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"pydantic", "pydantic_core",
               "rich", "holidays", "icalendar", "sqlite_utils"})
commands = sorted(m for m in sys.modules if m.startswith("cli."))
sys.stderr.write(json.dumps({"code": code, "heavy": heavy, "cli": commands,
                             "frozen": gc.get_freeze_count() > 0, "gc": gc.isenabled()}))
"""


def cold(*args: str):
    """One command in a fresh interpreter, as the console entry point runs it: (what it
    left behind: its exit code, the heavy libraries and ``cli`` modules it imported, and
    the collector's state; the finished process)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    done = subprocess.run([sys.executable, "-c", _COLD, json.dumps(list(args))],
                          capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    return json.loads(done.stderr.strip().splitlines()[-1]), done
