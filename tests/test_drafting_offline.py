"""``terms draft`` is deterministic and offline (issue 35): the same text gives the same
bytes, whatever Python's hash seed; ``ledger.drafting`` imports only the standard library
and the ledger's own modules, and opens no socket."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from ledger.drafting.schema import draft
from tests.test_architecture import imports, sources

ROOT = Path(__file__).resolve().parent.parent
RRA = ROOT / "ledger" / "contracts" / "registration-rights-agreement-2004-06-30.txt"
OPENINGS = ROOT / "tests" / "data" / "agreements" / "other-openings.txt"
DRAFT = ("import sys; from ledger.drafting.schema import draft; "
         "sys.stdout.write(repr(draft(open(sys.argv[1], encoding='utf-8').read())))")


def _drafted(path: Path, seed: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    return subprocess.run([sys.executable, "-c", DRAFT, str(path)], cwd=ROOT, env=env,
                          check=True, capture_output=True).stdout


def test_the_same_text_drafts_to_the_same_bytes_under_any_hash_seed():
    for path in (RRA, OPENINGS):
        once, again, other = _drafted(path, "1"), _drafted(path, "1"), _drafted(path, "2")
        assert once and once == again == other, path.name
        assert repr(draft(path.read_text(encoding="utf-8"))).encode() == once


def test_drafting_imports_only_the_standard_library_and_the_ledger():
    modules = {m: s for m, s in sources(("ledger",)).items() if m.startswith("ledger.drafting")}
    assert "ledger.drafting.schema" in modules
    bad = []
    for module, source in modules.items():
        package = module == "ledger.drafting"
        for line, target in imports(module, source, is_package=package):
            top = target.split(".")[0]
            if top in ("ledger", "__future__"):
                continue
            if top not in sys.stdlib_module_names or top in ("socket", "urllib", "http",
                                                             "ssl", "subprocess", "asyncio"):
                bad.append(f"{module} line {line} imports {target}")
    assert bad == []


def test_drafting_opens_no_socket(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("terms draft opened a socket")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    d = draft(RRA.read_text(encoding="utf-8"))
    assert d.terms["filing"]["count"] == 15          # §2(a)(i): 15 days after the date hereof
