"""What-if scenarios on disk, and the files a what-if reads (the I/O around
``projections.whatif``).

A saved scenario keeps what it changes, not where that came from: the added and
replacing events themselves (public format, SPEC §3), the dropped ids and the
interpretations. Scenarios live in one JSON file beside the ledger, never in it:

* SQLite ledger ``PATH``: ``PATH.scenarios.json``;
* PostgreSQL ``postgresql://.../DBNAME``: ``DBNAME.scenarios.json`` in the current
  directory.

The file is ``{"version": 1, "scenarios": {NAME: {deal, saved_at, add, drop, replace,
interpretations}}}``, written whole (a temporary file renamed over it), readable and
writable by its owner only.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Mapping

from ledger.errors import LedgerError, UsageError
from ledger.events import NewEvent, format_timestamp, parse_event
from ledger.jsonl import read_batch, read_input

from .outputs import replace_whole

VERSION = 1
NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"


def scenarios_path(db: str) -> Path:
    """Where the scenarios of the ledger ``db`` are kept (module doc)."""
    if db.startswith(("postgresql://", "postgres://")):
        from ledger.store.connection import postgres_parts

        _parts, _port, name = postgres_parts(db)  # a malformed URL: StoreError, exit 5
        return Path.cwd() / f"{name}.scenarios.json"
    return Path(db + ".scenarios.json")


def _refuse(err: LedgerError, origin: str) -> LedgerError:
    from projections.whatif import ScenarioError

    return ScenarioError(err.message, origin=origin, line=err.line, field=err.field,
                         rule=err.rule)


def read_events(path: str, option: str) -> list[NewEvent]:
    """A JSON Lines file of events (``-``: standard input), each validated as ``append``
    validates it; errors name the file, the line and the field."""
    try:
        return read_batch(read_input(path, option))
    except UsageError:
        raise                             # a file that cannot be read: exit 2
    except LedgerError as err:
        raise _refuse(err, path) from None


def additions(events: Iterable[NewEvent], origin: str):
    from projections.whatif import Addition

    return tuple(Addition(e, origin) for e in events)


def changes_from_options(add: Iterable[str], drop: Iterable[str], replace: Iterable[str],
                         interpretations: Mapping[str, str]):
    """``Changes`` from the command line: ``--add FILE``, ``--drop ID``, ``--replace
    ID=FILE`` (a file of exactly one event), ``--interpret`` already parsed."""
    from projections.whatif import Changes

    added: tuple = ()
    for path in add:
        added += additions(read_events(path, "--add"), path)
    replaced = []
    for spec in replace:
        target, sep, path = spec.partition("=")
        if not sep or not target or not path:
            raise UsageError(f"{spec!r} is not EVENT_ID=FILE", field="--replace")
        events = read_events(path, "--replace")
        if len(events) != 1:
            raise UsageError(f"{path} holds {len(events)} events; a replacement is exactly "
                             "one (drop and add for more)", field="--replace")
        replaced.append((target.strip(), additions(events, path)[0]))
    return Changes(added, tuple(d.strip() for d in drop), tuple(replaced), dict(interpretations))


# ------------------------------------------------------------------------- the file


def load(path: Path) -> dict[str, dict[str, Any]]:
    """Every saved scenario by name; ``{}`` if there is no file yet."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}", field="--scenario") from None
    try:
        doc = json.loads(raw)
        scenarios = doc["scenarios"]
        if not isinstance(scenarios, dict):
            raise ValueError("scenarios is not an object")
    except (ValueError, KeyError, TypeError) as err:
        raise UsageError(f"{path} is not a scenarios file ({err})", field="--scenario") from None
    return scenarios


def get(path: Path, name: str, deal: str):
    """The saved scenario ``name`` as ``Changes``, each event validated again."""
    from projections.whatif import Changes

    saved = load(path)
    if name not in saved:
        known = ", ".join(sorted(saved)) or "none saved yet"
        raise UsageError(f"no scenario {name!r} in {path}; known: {known}", field="--scenario")
    s = saved[name]
    if s.get("deal") != deal:
        raise UsageError(f"scenario {name!r} is for deal {s.get('deal')}, not {deal}",
                         field="--scenario")
    origin = f"scenario {name!r}"

    def parsed(objs: list[Any], what: str) -> list[NewEvent]:
        out = []
        for k, obj in enumerate(objs, start=1):
            try:
                out.append(parse_event(obj, line=k))
            except LedgerError as err:
                raise _refuse(err, f"{origin} {what}") from None
        return out

    add = additions(parsed(list(s.get("add", [])), "add"), f"{origin} add")
    replace = []
    for target, obj in dict(s.get("replace", {})).items():
        [event] = parsed([obj], f"replace {target}")
        replace.append((target, additions([event], f"{origin} replace")[0]))
    return Changes(add, tuple(s.get("drop", [])), tuple(replace),
                   dict(s.get("interpretations", {})))


def save(path: Path, name: str, deal: str, changes, ledger_url: str) -> bool:
    """Store ``changes`` as scenario ``name`` for ``deal``; True if it replaced one."""
    if not name or any(c not in NAME_CHARS for c in name) or len(name) > 80:
        raise UsageError(f"{name!r}: a scenario name is letters, digits, '.', '_' or '-'",
                         field="--save")
    saved = load(path)
    replaced = name in saved
    saved[name] = {"deal": deal, "saved_at": format_timestamp(datetime.now(timezone.utc)),
                   **changes.describe()}
    body = json.dumps({"version": VERSION, "scenarios": saved}, indent=2, ensure_ascii=False)
    replace_whole(str(path), (body + "\n").encode("utf-8"), ledger_url=ledger_url,
                  field="--save", prefix=".scenarios-")
    return replaced


def scenarios(path: Path) -> list[dict[str, Any]]:
    """The saved scenarios, for listing: name, deal, saved_at and what each changes."""
    return [{"name": n, "deal": s.get("deal"), "saved_at": s.get("saved_at"),
             "add": len(s.get("add", [])), "drop": list(s.get("drop", [])),
             "replace": sorted(s.get("replace", {})),
             "interpretations": dict(s.get("interpretations", {}))}
            for n, s in sorted(load(path).items())]

