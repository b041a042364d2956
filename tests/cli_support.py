"""Running commands in tests through click's CliRunner, and what a result must look like."""

from __future__ import annotations

from click.testing import CliRunner

from cli.main import cli


def run(*args: str, input: str | bytes | None = None):
    """One command, with a console wide enough that no table cell folds."""
    return CliRunner().invoke(cli, list(args), input=input, env={"COLUMNS": "200"})


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
