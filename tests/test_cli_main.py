"""The console entry point: click's own usage errors are one line too, with exit 2."""

from __future__ import annotations

import subprocess
import sys

import pytest


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from cli.main import main; main()", *args],
                          capture_output=True, text=True)


@pytest.mark.parametrize("args, phrase", [
    (("report",), "Missing argument 'DEAL'"),
    (("report", "x", "--bogus"), "No such option '--bogus'"),
    (("nosuch",), "No such command 'nosuch'"),
    (("report", "x", "--as-of"), "requires an argument"),
])
def test_usage_errors_are_one_line_with_exit_2(args, phrase):
    result = run(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and phrase in lines[0]
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_help_and_version_exit_0():
    assert run("--help").returncode == 0
    version = run("--version")
    assert version.returncode == 0 and "deal-ledger" in version.stdout


def test_each_command_is_defined_in_the_module_the_table_names():
    """``cli.main.COMMAND_MODULES`` (a command line imports its command's module alone:
    issue 17) names, for every command, the module that defines it, and no other."""
    from cli.main import COMMAND_MODULES, cli

    found = {name: cmd.callback.__module__.rpartition(".")[2]
             for name, cmd in cli.commands.items()}
    assert found == COMMAND_MODULES
