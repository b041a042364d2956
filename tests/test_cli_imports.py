"""``deal-ledger --help`` stays fast: it imports neither eventsourcing, pydantic nor holidays
(the commands import them when they run)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("eventsourcing", "pydantic", "holidays")

PROBE = """
import json, sys
from cli.main import cli
try:
    cli.main({args!r}, prog_name="deal-ledger", standalone_mode=False)
except SystemExit:
    pass
{extra}
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r})))
"""


def loaded_after(args: list[str], extra: str = "") -> list[str]:
    """The heavy modules a fresh interpreter holds after ``deal-ledger ARGS``."""
    code = PROBE.format(args=args, extra=extra, heavy=HEAVY)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("args", [["--help"], ["report", "--help"], ["status", "--help"],
                                  ["demo", "--help"]])
def test_help_imports_no_heavy_library(args):
    assert loaded_after(args) == []


def test_the_probe_sees_a_heavy_import():
    # the same probe, after importing the store (eventsourcing), the event catalog's
    # models (pydantic: the store's read side no longer needs them) and the calendar's
    # base, finds all three: an empty list above is not the probe failing
    loaded = loaded_after(["--help"], extra="import ledger.store.writing, ledger.events, holidays")
    assert {m.split(".")[0] for m in loaded} == set(HEAVY)
