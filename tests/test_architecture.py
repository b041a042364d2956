"""The code's rooms and which way their imports point (README, "How the code is laid out").

Rooms, lowest first: ``ledger`` (what happened: the record) < ``projections`` (what it
means: pure functions) < ``publishing`` (reads the record, computes, hands it out) <
``cli`` (options and printing). A module may import its own room and the rooms below it,
never one above. Inside ``ledger``, the storage engine (``ledger.store``: how the record
is kept) stands on the record's language (the other ``ledger`` modules), never the other
way, but where an operation must find what it acts on (``STORE_USES``). Every import counts, at the top of a module or inside a function or an
``if TYPE_CHECKING:`` block, since a lazy import is still a dependency. ``tests`` and
``benchmarks`` may import anything and are not checked.

The checker works on source text (``ast``), so its own tests below feed it synthetic
modules with an upward import and check that it names the module, the line and the import.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path
from typing import Iterator, Mapping

ROOT = Path(__file__).resolve().parent.parent
ROOMS = ("ledger", "projections", "publishing", "cli")  # lowest first
RANK = {room: rank for rank, room in enumerate(ROOMS)}

# The ledger modules a projection may read: the record's vocabulary and its pure rules.
# Not the store, the chain, locks, connections, files (store, chain, chainhead, connection,
# locks, stable, jsonl, operations): projections do no I/O. ``ledger.collector`` only holds
# off Python's garbage collector around a computation: it changes no result.
# ``ledger.proofs`` checks RFC 6962 proofs with ``hashlib``: a pure function (a pack's
# restatements carry a consistency proof, checked when they are made again).
PURE_LEDGER = ("ledger.events", "ledger.stored", "ledger.dates", "ledger.values", "ledger.terms",
               "ledger.dealterms", "ledger.registration_terms", "ledger.calendar",
               "ledger.daycount", "ledger.dayorder", "ledger.errors", "ledger.guards",
               "ledger.upcasting", "ledger.collector", "ledger.references",
               "ledger.proofs")
# Libraries that do I/O or talk to a terminal: never in a projection.
IO_LIBRARIES = ("os", "io", "pathlib", "shutil", "tempfile", "sqlite3", "socket",
                "subprocess", "eventsourcing", "psycopg", "sqlite_utils", "click", "rich")
# The record's modules that reach into the storage engine, and what for: an operation that
# retracts or corrects an event must find it in the log (by id prefix or seq).
STORE_USES = {("ledger.operations", "ledger.store.logread.find_event")}
TOO_LONG = 600
LONG_REASON = "# Over 600 lines: "


def sources(rooms: tuple[str, ...] = ROOMS) -> dict[str, str]:
    """Every module of ``rooms`` by dotted name (a package by its own name), its text."""
    out = {}
    for room in rooms:
        for path in sorted((ROOT / room).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path.read_text(encoding="utf-8")
    return out


def imports(module: str, source: str, *, is_package: bool = False) -> Iterator[tuple[int, str]]:
    """``(line, dotted name)`` of everything ``module`` imports, wherever the statement is.
    ``from X import a`` yields ``X.a`` (``a`` may be a module of package X or a name in
    module X; a check by prefix treats both alike); relative imports are resolved."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            for alias in node.names:
                yield node.lineno, f"{origin}.{alias.name}"


def _is_package(module: str) -> bool:
    return (ROOT / module.replace(".", "/") / "__init__.py").exists()


def upward_imports(modules: Mapping[str, str], packages: frozenset[str] = frozenset()
                   ) -> list[str]:
    """One line per import from a lower room into a higher one."""
    bad = []
    for module, source in modules.items():
        room = module.split(".")[0]
        for line, target in imports(module, source, is_package=module in packages):
            other = target.split(".")[0]
            if other in RANK and RANK[other] > RANK[room]:
                bad.append(f"{module} line {line} imports {target}: {room} may not import "
                           f"{other} (rooms, lowest first: {' < '.join(ROOMS)})")
    return bad


def impure_imports(modules: Mapping[str, str], packages: frozenset[str] = frozenset()
                   ) -> list[str]:
    """One line per import of a projection that reaches the store or does I/O."""
    bad = []
    for module, source in modules.items():
        if not module.startswith("projections"):
            continue
        for line, target in imports(module, source, is_package=module in packages):
            top = target.split(".")[0]
            if top == "ledger" and not any(target == m or target.startswith(m + ".")
                                           for m in PURE_LEDGER):
                bad.append(f"{module} line {line} imports {target}: a projection reads "
                           f"only {', '.join(PURE_LEDGER)}")
            elif top in IO_LIBRARIES:
                bad.append(f"{module} line {line} imports {target}: projections do no I/O")
    return bad


def _packages(modules: Mapping[str, str]) -> frozenset[str]:
    return frozenset(m for m in modules if _is_package(m))


# -- the checker itself can fail ------------------------------------------------------


def test_checker_names_an_upward_import_inside_a_function():
    fake = {"ledger.fake": "import json\n\n\ndef f():\n    from projections.report import report\n"}
    assert upward_imports(fake) == [
        "ledger.fake line 5 imports projections.report.report: ledger may not import "
        "projections (rooms, lowest first: ledger < projections < publishing < cli)"]


def test_checker_catches_each_form_of_import_and_lets_downward_ones_through():
    fake = {
        "projections.fake": "import publishing.pack\nfrom ledger.events import Event\n",
        "publishing.fake": "from cli import main\nfrom projections import report\n",
        "publishing.sub.fake": "from ...cli.main import cli\n",
        "cli.fake": "from publishing import pack\nfrom ledger import store\n",
        "ledger.fake": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                       "    from publishing.pack import export\nfrom . import events\n",
    }
    found = upward_imports(fake)
    assert [line.split(":")[0] for line in found] == [
        "projections.fake line 1 imports publishing.pack",
        "publishing.fake line 1 imports cli.main",
        "publishing.sub.fake line 1 imports cli.main.cli",
        "ledger.fake line 3 imports publishing.pack.export",
    ]


def test_checker_catches_a_projection_reading_the_store_or_doing_io():
    fake = {"projections.fake": "from ledger.store import Ledger\nfrom ledger.store import chain\n"
                                "from ledger import guards\nfrom ledger.events import Event\n"
                                "def f():\n    import os\n"}
    assert [line.split(":")[0] for line in impure_imports(fake)] == [
        "projections.fake line 1 imports ledger.store.Ledger",
        "projections.fake line 2 imports ledger.store.chain",
        "projections.fake line 6 imports os",
    ]


# -- the code as it is ----------------------------------------------------------------


def test_no_room_imports_a_room_above_it():
    modules = sources()
    assert {m.split(".")[0] for m in modules} == set(ROOMS)
    assert upward_imports(modules, _packages(modules)) == []


def test_projections_read_only_the_pure_part_of_the_ledger_and_do_no_io():
    modules = sources(("projections",))
    assert impure_imports(modules, _packages(modules)) == []


def cycles(modules: Mapping[str, str], packages: frozenset[str] = frozenset()) -> list[str]:
    """Every import cycle among ``modules`` (one room's), as ``a -> b -> a``."""
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, source in modules.items():
        for _, target in imports(module, source, is_package=module in packages):
            for other in modules:
                if other not in packages and (target == other or target.startswith(other + ".")):
                    graph[module].add(other)
    found: list[str] = []

    def walk(path: list[str]) -> None:
        for nxt in sorted(graph[path[-1]]):
            if nxt == path[0]:
                found.append(" -> ".join(path + [nxt]))
            elif nxt not in path and nxt > path[0]:  # each cycle once, from its least module
                walk(path + [nxt])

    for start in sorted(graph):
        walk([start])
    return found


def test_checker_finds_an_import_cycle_even_through_a_lazy_import():
    fake = {"ledger.a": "from .b import x\n", "ledger.b": "def f():\n    from ledger.a import y\n",
            "ledger.c": "from ledger import a\n"}
    assert cycles(fake) == ["ledger.a -> ledger.b -> ledger.a"]


def test_no_room_imports_a_cycle():
    """``store`` and ``locks`` used to import each other (the chain head's identity lives
    in ``ledger.store.chainhead`` now); ``publishing.agenda`` and its cache, and the pack's
    pages and their cells, did too (the cache is handed the agenda's computation; the
    cells are ``publishing.pack_cells``). Any cycle within a room fails here, naming it."""
    for room in ROOMS:
        modules = sources((room,))
        assert cycles(modules, _packages(modules)) == [], room


def record_imports_of_the_store(modules: Mapping[str, str], packages: frozenset[str] = frozenset()
                                ) -> list[str]:
    """One line per import of ``ledger.store`` by a module of the record's language (a
    ``ledger`` module outside ``ledger.store``) that ``STORE_USES`` does not list."""
    bad = []
    for module, source in modules.items():
        if not module.startswith("ledger") or module == "ledger.store" \
                or module.startswith("ledger.store."):
            continue
        for line, target in imports(module, source, is_package=module in packages):
            if (target == "ledger.store" or target.startswith("ledger.store.")) \
                    and (module, target) not in STORE_USES:
                bad.append(f"{module} line {line} imports {target}: the record's language "
                           "does not reach into how it is kept (ledger.store)")
    return bad


def test_checker_names_a_record_module_reaching_into_the_store():
    fake = {"ledger.events": "from .store.writing import Ledger\n",
            "ledger.operations": "def f():\n    from .store.logread import find_event\n"
                                 "    from .store import chain\n",
            "ledger.store.chain": "from .. import guards\nfrom .stable import x\n"}
    assert [line.split(":")[0] for line in record_imports_of_the_store(fake)] == [
        "ledger.events line 1 imports ledger.store.writing.Ledger",
        "ledger.operations line 3 imports ledger.store.chain",
    ]


def test_the_record_reaches_into_the_store_only_where_an_operation_must():
    modules = sources(("ledger",))
    assert record_imports_of_the_store(modules, _packages(modules)) == []


def test_only_the_rooms_users_import_are_installed():
    """``benchmarks`` runs from the repository (``python -m benchmarks``); it is not
    installed into users' environments, and neither is ``tests``."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    installed = project["tool"]["setuptools"]["packages"]
    assert sorted(installed) == sorted(_packages(sources()))
    assert "benchmarks" not in installed and "tests" not in installed


def test_a_module_over_600_lines_says_why_at_its_top():
    long = []
    for room in ROOMS:
        for path in sorted((ROOT / room).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if text.count("\n") > TOO_LONG and not text.startswith(LONG_REASON):
                long.append(f"{path.relative_to(ROOT)}: {text.count(chr(10))} lines")
    assert long == [], f"split these or start them with {LONG_REASON!r} and the reason"
