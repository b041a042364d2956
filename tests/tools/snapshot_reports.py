"""Snapshot every report and explanation, to prove a refactoring changes none of them.

    python -m tests.tools.snapshot_reports OUTDIR [--cases FILE]

writes, for the demo ledger (``publishing.demo``) and for every history the worked-example
tests build (``tests/test_rra_reference_examples.py``, ``tests/test_letter_reference_examples.py``,
``tests/test_explain.py`` with the SPEC §8 examples, and the histories of
``tests/support.py`` / ``tests/letter_support.py`` they use), one directory per case:

* ``report.json``: the SPEC §7 report, as ``report --json`` prints it;
* ``explain.json``: the ``explain --json`` object of every figure path
  (``figure_paths``), by path;
* ``explain.txt``: the ``explain`` text of every figure path (80 columns, no colour);
* ``history.json`` / ``whatif.json``: ``history`` of a few figures, and a what-if that
  drops the last event, for the first cases of each kind.

The test histories are found by running those test files once with ``report`` wrapped to
record its inputs; they and one build of the demo (whose ids and recording times are new
on every build) are pickled to ``--cases FILE`` (default ``OUTDIR/../explain-cases.pkl``)
so that a second snapshot, after the change, reads the very same inputs even if the tests
themselves changed meanwhile. Compare two snapshots with ``diff -r`` or ``--compare``.
"""

from __future__ import annotations

import argparse
import io
import json
import pickle
import sys
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TEST_FILES = ("tests/test_rra_reference_examples.py", "tests/test_letter_reference_examples.py",
              "tests/test_explain.py")


def _key(events, as_of, known_at, interpretations) -> str:
    return repr(([(e.id, e.seq, e.type, e.date, sorted(e.data.items(), key=str),
                   e.recorded_at, e.retracts if hasattr(e, "retracts") else None)
                  for e in events], as_of, known_at, sorted((interpretations or {}).items())))


def capture_cases() -> list[dict[str, Any]]:
    """Run the worked-example tests once, recording every ``report`` call's inputs."""
    import pytest

    cases: dict[str, dict[str, Any]] = {}

    class Recorder:
        def pytest_configure(self, config):
            import projections.report as module

            real = module.report

            def recording(events, *, as_of, known_at=None, interpretations=None, bases=True):
                events = list(events)
                out = real(events, as_of=as_of, known_at=known_at,
                           interpretations=interpretations, bases=bases)
                if bases:
                    key = _key(events, as_of, known_at, interpretations)
                    cases.setdefault(key, {"events": events, "as_of": as_of,
                                           "known_at": known_at,
                                           "interpretations": dict(interpretations or {})})
                return out

            module.report = recording

    code = pytest.main(["-q", "-p", "no:cacheprovider", "-x", "--no-header", "-o",
                        "addopts=", *[str(ROOT / f) for f in TEST_FILES]],
                       plugins=[Recorder()])
    if code not in (0, 1):
        raise SystemExit(f"the example tests could not run (pytest exit {code})")
    return list(cases.values())


def demo_cases() -> list[dict[str, Any]]:
    from ledger.store import Ledger
    from publishing.demo import AS_OF, build_demo

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "demo.db")
        counts = build_demo(db)
        with Ledger(db) as ledger:
            for deal in counts:
                out.append({"events": ledger.deal_events(deal), "as_of": date.fromisoformat(AS_OF),
                            "known_at": None, "interpretations": {}, "name": f"demo-{deal}"})
    return out


def _text(result: dict) -> str:
    from rich.console import Console

    from cli.analysts import show_explanation

    buf = io.StringIO()
    show_explanation(result, Console(file=buf, width=80, color_system=None, no_color=True,
                                     force_terminal=False, legacy_windows=False))
    return buf.getvalue()


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=False) + "\n"


def write_case(out: Path, case: dict[str, Any], deep: bool) -> None:
    from projections.explain import FigureError, explain, figure_paths
    from projections.history import history
    from projections.report import report
    from projections.whatif import Changes, whatif

    out.mkdir(parents=True, exist_ok=True)
    events = case["events"]
    rep = report(events, as_of=case["as_of"], known_at=case["known_at"],
                 interpretations=case["interpretations"])
    (out / "report.json").write_text(_dump(rep), encoding="utf-8")
    explained, texts = {}, []
    for path in figure_paths(rep):
        try:
            result = explain(rep, path, events)
        except FigureError as err:      # a path figure_paths names must resolve
            explained[path] = {"error": str(err)}
            continue
        explained[path] = result
        texts.append(f"### {path}\n{_text(result)}")
    (out / "explain.json").write_text(_dump(explained), encoding="utf-8")
    (out / "explain.txt").write_text("".join(texts), encoding="utf-8")
    if not deep:
        return
    paths = [p for p in figure_paths(rep) if any(
        w in p for w in ("amounts.", ".total", "in_default", "trailing_90", ".due", ".owed",
                         ".price", "share"))][:6]
    (out / "history.json").write_text(_dump({p: history(
        events, p, as_of=case["as_of"], interpretations=case["interpretations"])
        for p in paths}), encoding="utf-8")
    if len(events) > 1:
        last = max(events, key=lambda e: e.seq)
        result = whatif(events, Changes(drop=(last.id,)), as_of=case["as_of"])
        (out / "whatif.json").write_text(_dump(result), encoding="utf-8")


def compare(before: Path, after: Path) -> int:
    """Counts of identical and differing files; each differing explain file is checked to
    differ only in its re-check lines (``checks``, ``unchecked``, ``arithmetic_checks_ok``,
    ``arithmetic_unchecked``, ``reproduces_figure``; in text, the re-check lines)."""
    names = sorted({p.relative_to(before) for p in before.rglob("*") if p.is_file()}
                   | {p.relative_to(after) for p in after.rglob("*") if p.is_file()})
    same, differ, other = 0, [], []
    for name in names:
        a, b = before / name, after / name
        if a.exists() and b.exists() and a.read_bytes() == b.read_bytes():
            same += 1
            continue
        differ.append(str(name))
        if not (a.exists() and b.exists()):
            other.append(f"{name}: only in {'after' if b.exists() else 'before'}")
        elif name.name == "explain.json":
            if _strip(json.loads(a.read_text())) != _strip(json.loads(b.read_text())):
                other.append(f"{name}: differs beyond the re-check lines")
        elif name.name == "explain.txt":
            if _text_strip(a.read_text()) != _text_strip(b.read_text()):
                other.append(f"{name}: differs beyond the re-check lines")
        else:
            other.append(f"{name}: differs")
    print(f"{same} identical, {len(differ)} differing, of {len(names)} files")
    for line in other:
        print("  " + line)
    if not other and differ:
        print("  every difference is in re-check lines only")
    return 1 if other else 0


RECHECK_KEYS = {"checks", "unchecked", "arithmetic_checks_ok", "arithmetic_unchecked",
                "arithmetic_operations_rechecked",
                "reproduces_figure", "recheck"}


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in RECHECK_KEYS}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _text_strip(text: str) -> str:
    """The explain text without its re-check lines: the ``re-checked:`` and ``not
    re-checked:`` items (with their wrapped continuation lines), the closing ``arithmetic
    re-checked:`` summary (to the next figure), and the tree's glyphs (an item that was
    last before a re-check line was added is drawn ``├`` rather than ``└``)."""
    keep: list[str] = []
    skipping = summary = False
    for line in text.splitlines():
        if line.startswith("### "):
            summary = skipping = False
        if summary:
            continue
        if line.startswith("arithmetic re-checked"):
            summary = True
            continue
        body = line.translate(GLYPHS)
        item = body.lstrip()
        starts_item = any(g in line for g in "├└")
        if starts_item:
            skipping = item.startswith(("re-checked", "not re-checked"))
        if skipping:
            continue
        keep.append(" ".join(body.split()))
    return "\n".join(keep)


GLYPHS = str.maketrans({c: " " for c in "│├└─"})


def _freeze(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cases as plain data pickle can write (an event's ``data`` is a read-only mapping)."""
    import dataclasses

    return [{**c, "events": [{**{f.name: getattr(e, f.name) for f in dataclasses.fields(e)},
                              "data": dict(e.data)} for e in c["events"]]} for c in cases]


def _thaw(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pickled events as the store reads them now: each one's ``data`` upcast from
    the schema version it was written with (a snapshot taken before a schema change read
    the very records a ledger holds; ``ledger.upcasting``)."""
    from types import MappingProxyType

    from ledger.events import Event
    from ledger.upcasting import upcast

    def current(e: dict[str, Any]) -> dict[str, Any]:
        record = {"type": e["type"], "data": dict(e["data"]), "id": e["id"], "seq": e["seq"]}
        return dict(upcast({**record, "v": e.get("v", 1)})["data"])

    return [{**c, "events": [Event(**{**e, "data": MappingProxyType(current(e))})
                             for e in c["events"]]} for c in cases]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.tools.snapshot_reports")
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--cases", type=Path, default=None)
    parser.add_argument("--compare", type=Path, default=None, metavar="BEFORE",
                        help="compare OUTDIR with the snapshot BEFORE instead")
    args = parser.parse_args(argv)
    if args.compare:
        return compare(args.compare, args.outdir)
    sys.setrecursionlimit(10000)
    cases_file = args.cases or args.outdir.parent / "explain-cases.pkl"
    if cases_file.exists():
        saved = pickle.loads(cases_file.read_bytes())
        cases, demo = _thaw(saved["tests"]), _thaw(saved["demo"])
    else:   # the demo's ids and recording times are new on every build: keep one build
        cases, demo = capture_cases(), demo_cases()
        cases_file.write_bytes(pickle.dumps({"tests": _freeze(cases), "demo": _freeze(demo)}))
    for case in demo:
        write_case(args.outdir / case["name"], case, deep=True)
    for k, case in enumerate(cases):
        write_case(args.outdir / f"case-{k:04d}", case, deep=k % 10 == 0)
    print(f"{len(cases) + 2} cases written to {args.outdir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
