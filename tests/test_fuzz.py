"""Fuzzing the command line (hypothesis): random and mutated JSON Lines to ``append``, and
random option values to every command (found by walking ``cli.commands``, so commands
added later are covered without editing this file).

Every run either succeeds or refuses cleanly: exit code 0-5, no traceback, no internal
error (exit 70: here, an exception escaping the command), a refusal of 3-5 on one line,
no password in the output, and never a partial write: a run that fails leaves the
ledger's every stored row as it was.

Example counts are modest for CI; raise them with ``DEAL_LEDGER_FUZZ_EXAMPLES`` (the
append tests run that many, each command a tenth of it, at least 12). A test run draws the
same examples every time (the "ci" profile of tests/conftest.py derandomizes them): CI
cannot pass or fail by chance. The wide random search is asked for:
``DEAL_LEDGER_RANDOM_SEARCH=1 DEAL_LEDGER_FUZZ_EXAMPLES=3000 pytest tests/test_fuzz.py``.
"""

from __future__ import annotations

import copy
import json
import os
import random
import shutil
from typing import Any

import click
import pytest

from tests.cli_support import error_lines
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from publishing.demo import letter_history, rra_history
from ledger.events import parse_event
from ledger.store import Ledger
from tests.db_access import store_rows
from tests.test_bad_inputs import invoke

EXAMPLES = int(os.environ.get("DEAL_LEDGER_FUZZ_EXAMPLES", "300"))
PER_COMMAND = max(12, EXAMPLES // 10)
SECRET = "fuzz-SECRET-pw"
FUZZ = settings(deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])


def fuzz(n: int) -> settings:
    return settings(FUZZ, max_examples=n)

DEMO = rra_history() + letter_history()
OPENINGS = [o for o in DEMO if o["type"] == "DealOpened"]
RRA, LTR = OPENINGS[0]["deal"], OPENINGS[1]["deal"]


# ---------------------------------------------------------------------- the ledgers


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    """Two ledgers to copy: both deals opened (for appends), and the full demo (for the
    commands that compute)."""
    root = tmp_path_factory.mktemp("fuzz-bases")
    opened, demo = str(root / "opened.db"), str(root / "demo.db")
    with Ledger(opened) as ledger:
        ledger.append([parse_event(o) for o in OPENINGS + DEMO[1:3]], user="fuzz")
    with Ledger(demo) as ledger:
        ledger.append([parse_event(o, line=i + 1) for i, o in enumerate(DEMO)], user="fuzz")
        ids = [r["id"] for r in ledger.records()]
    return {"opened": opened, "demo": demo, "ids": ids, "root": root}


class Workspace:
    """A fresh copy of a base ledger in a fresh directory, per example."""

    counter = 0

    def __init__(self, bases: dict[str, Any], which: str):
        Workspace.counter += 1
        self.dir = bases["root"] / f"ws{Workspace.counter}"
        self.dir.mkdir()
        self.db = str(self.dir / "ledger.db")
        shutil.copyfile(bases[which], self.db)
        self.before = store_rows(self.db)

    def unchanged(self) -> bool:
        return store_rows(self.db) == self.before

    def count(self) -> int:
        with Ledger(self.db, create=False) as ledger:
            head = ledger.head()
            n = sum(1 for _ in ledger.records())
        assert head.seq == n
        return n

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


def check_clean(result, ws: Workspace) -> None:
    """The rules every run obeys, whatever its input."""
    out = result.output
    assert "Traceback" not in out, out
    assert SECRET not in out, out
    assert result.exit_code in (0, 1, 2, 3, 4, 5), (result.exit_code, out)
    if result.exit_code in (3, 4, 5):
        lines = error_lines(result.stderr)
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    if result.exit_code != 0:
        assert ws.unchanged(), f"a failed run (exit {result.exit_code}) changed the ledger"


# ---------------------------------------------------------------------- appends


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30),
                      st.text(max_size=20),
                      st.decimals(allow_nan=False, places=3).map(str),
                      st.sampled_from(["2004-07-13", "2004-02-30", "04/07/2004", "all", "1e5",
                                       "NaN", "60000000", "-1", "0", "0.005"]))
json_value = st.recursive(json_leaf, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)),
    max_leaves=12)


def random_event() -> st.SearchStrategy[dict[str, Any]]:
    from ledger.events import CATALOG

    return st.fixed_dictionaries(
        {"type": st.one_of(st.sampled_from(sorted(CATALOG)), st.text(max_size=12)),
         "deal": st.sampled_from([RRA, LTR, "nope", "", "a b"]),
         "date": st.sampled_from(["2004-07-13", "2005-01-18", "2001-01-01", "2004-02-30",
                                  "2004-7-1", ""]),
         "data": st.dictionaries(st.sampled_from(["holder", "principal", "shares", "to",
                                                  "instrument", "fraction", "kind", "x"]),
                                 json_value, max_size=4)},
        optional={"key": st.text(max_size=8), "source": json_value, "seq": st.integers()})


MUTATIONS = ("drop", "rename", "retype", "swap_value", "flip_byte", "truncate", "duplicate",
             "keep")


def mutate(obj: dict[str, Any], how: str, rnd: random.Random) -> bytes:
    obj = copy.deepcopy(obj)
    target = obj["data"] if obj["data"] and rnd.random() < 0.7 else obj
    names = list(target)
    name = rnd.choice(names) if names else None
    if how == "drop" and name:
        del target[name]
    elif how == "rename" and name:
        target[name + rnd.choice(["_", "s", "X"])] = target.pop(name)
    elif how == "retype" and name:
        target[name] = rnd.choice([None, True, 0, -1, 1.5, 10**25, "", "x", [], {}, [1, "a"],
                                   "2004-02-30", "1e400", "NaN", {"nested": {"deep": [1]}}])
    elif how == "swap_value" and name:
        other = rnd.choice(DEMO)
        pool = list(other["data"].values()) + [other["date"], other["deal"], other["type"]]
        target[name] = rnd.choice(pool)
    text = json.dumps(obj, ensure_ascii=rnd.random() < 0.5).encode("utf-8")
    if how == "flip_byte" and text:
        i = rnd.randrange(len(text))
        text = text[:i] + bytes([text[i] ^ (1 << rnd.randrange(8))]) + text[i + 1:]
    elif how == "truncate":
        text = text[:rnd.randrange(len(text) + 1)]
    elif how == "duplicate":
        text = text + b"\n" + text
    return text


def run_append(ws: Workspace, payload: bytes):
    source = ws.dir / "batch.jsonl"
    source.write_bytes(payload)
    return invoke(["append", str(source), "--db", ws.db, "--user", "fuzz"])


@fuzz(EXAMPLES)
@given(payload=st.one_of(st.binary(max_size=400),
                         st.lists(st.text(max_size=60), max_size=5).map(
                             lambda ls: "\n".join(ls).encode("utf-8", "surrogatepass")),
                         st.lists(json_value, min_size=1, max_size=4).map(
                             lambda vs: "\n".join(json.dumps(v) for v in vs).encode())))
def test_append_random_bytes(bases, payload):
    ws = Workspace(bases, "opened")
    try:
        n = ws.count()
        result = run_append(ws, payload)
        check_clean(result, ws)
        if result.exit_code == 0:
            assert ws.count() > n
    finally:
        ws.close()


@fuzz(EXAMPLES)
@given(events=st.lists(random_event(), min_size=1, max_size=4))
def test_append_random_events(bases, events):
    ws = Workspace(bases, "opened")
    try:
        n = ws.count()
        payload = "\n".join(json.dumps(e, default=str) for e in events).encode()
        result = run_append(ws, payload)
        check_clean(result, ws)
        if result.exit_code == 0:
            assert ws.count() == n + len(events)
    finally:
        ws.close()


@fuzz(EXAMPLES)
@given(picks=st.lists(st.tuples(st.integers(0, len(DEMO) - 1), st.sampled_from(MUTATIONS)),
                      min_size=1, max_size=5),
       seed=st.integers(0, 2**32 - 1))
def test_append_mutated_demo_lines(bases, picks, seed):
    rnd = random.Random(seed)
    ws = Workspace(bases, "opened")
    try:
        n = ws.count()
        lines = [mutate(DEMO[i], how, rnd) for i, how in picks]
        payload = b"\n".join(lines) + b"\n"
        result = run_append(ws, payload)
        check_clean(result, ws)
        if result.exit_code == 0:
            expected = sum(1 for ln in payload.split(b"\n") if ln.strip())
            assert ws.count() == n + expected
    finally:
        ws.close()


# ---------------------------------------------------------------------- every command


def all_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            out += all_commands(command, prefix + (name,))
        else:
            out.append(prefix + (name,))
    return out


def _cli():
    from cli.main import cli

    return cli


def command_at(path: tuple[str, ...]) -> click.Command:
    command: Any = _cli()
    for name in path:
        command = command.commands[name]
    return command


COMMANDS = all_commands(_cli())
# Options that would make a run wait for ever (none yet; a --follow would go here).
BLOCKING = {"follow", "watch", "forever", "serve"}

safe_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\\\x00"),
                    max_size=24).filter(lambda s: not s.startswith(("~", "-")))


def plausible(bases: dict[str, Any]) -> st.SearchStrategy[str]:
    ids = bases["ids"]
    return st.one_of(
        safe_text,
        st.sampled_from([
            RRA, LTR, "nope", "2005-01-18", "2007-12-31", "2004-02-30", "2026-01-01T00:00:00Z",
            "yesterday", "0", "-1", "1e400", "NaN", "default_date=first_breach_day",
            "default_date=nonsense", "x=y", "=", "registration", "additional_interest",
            "additional_interest.by_holder", "infocrossing-rra-2004", "infocrossing-letter-2002",
            "ShelfFiled", "NotesIssued", "holder=X", "principal=1000", "principal=-1",
            "file_number=333-1", "batch.jsonl", "missing.jsonl", ".", "out", "out/sub",
            "a" * 600, "0" * 64, "f" * 64, ids[0], ids[-1], ids[len(ids) // 2], "7:" + "0" * 64,
        ]))


def good_values(bases: dict[str, Any]) -> dict[str, list[str]]:
    """Values that make sense for an option or argument of that name, so that runs get
    past the first check and into the command (the other values are anything)."""
    ids = bases["ids"]
    return {
        "deal": [RRA, RRA, LTR], "as_of": ["2005-01-18", "2007-12-31", "2004-10-29"],
        "known_at": ["2030-01-01T00:00:00Z", "2030-01-01", "2000-01-01"],
        "interpret": ["default_date=first_breach_day", "conversion_forfeits=future_only",
                      "overlapping_defaults=additive", "trueup_dividends=to_vesting_date"],
        "figure": ["registration", "additional_interest", "registration.in_default",
                   "true_up", "deadlines"],
        "event_id": ids[1:], "drop": ids[1:], "reason": ["typo", "sent twice"],
        "day": ["2007-06-01", "2004-12-01"],
        "template": ["infocrossing-rra-2004", "infocrossing-letter-2002"],
        "event_type": ["TrusteeNotified", "HoldersAdvised", "NoticeSent", "ConsentGiven"],
        "fields": ["to=Trustee", "subject=s", "method=fax", "holder=X", "matter=m",
                   "about=" + ids[3]],
        "source": ["batch.jsonl"], "replacement": ["batch.jsonl"], "add": ["batch.jsonl"],
        "out": ["out", "out2", "out3/x.json"], "key": ["k1", "k2"], "user": ["fuzzer"],
        "depth": ["0", "1", "3"], "scenario": ["s1"], "save_as": ["s1", "s2"],
        "replace": [f"{ids[5]}=batch.jsonl"], "pack": ["out", "."],
    }


def db_values(ws: Workspace) -> st.SearchStrategy[str]:
    return st.sampled_from([
        ws.db, ws.db, ws.db, ws.db, ws.db, ws.db, ws.db, ws.db, "missing.db", ".", "batch.jsonl", "",
        "postgresql://fuzz:" + SECRET + "@127.0.0.1:1/ledger",
        "postgresql://fuzz@127.0.0.1:notaport/ledger", "postgresql://127.0.0.1/", "postgres://",
        "postgresql://u:" + SECRET + "@127.0.0.1:1/db?sslmode=require", ":memory:",
        "file:ledger.db?mode=ro",
    ])


def arguments_for(command: click.Command, draw, bases, ws: Workspace) -> list[str]:
    args: list[str] = []
    anything = plausible(bases)
    good = good_values(bases)
    for param in command.params:
        choices = good.get(param.name or "")
        values = st.sampled_from(choices) if choices and draw(st.integers(0, 3)) else anything
        if isinstance(param, click.Argument):
            n = draw(st.integers(0, 3)) if param.nargs == -1 else param.nargs
            if not param.required and draw(st.booleans()):
                continue
            args += [draw(values) for _ in range(max(n, 0))]
            continue
        if not isinstance(param, click.Option) or param.name in BLOCKING:
            continue
        if param.name == "db":
            args += ["--db", draw(db_values(ws))]
            continue
        if not draw(st.integers(0, 2)):  # leave about a third of the options out
            continue
        flag = param.opts[0]
        if param.is_flag:
            args.append(flag)
        elif isinstance(param.type, click.Choice):
            args += [flag, draw(st.one_of(st.sampled_from(list(param.type.choices)), values))]
        else:
            repeat = draw(st.integers(1, 2)) if param.multiple else 1
            for _ in range(repeat):
                args += [flag, draw(values)]
    if draw(st.integers(0, 19)) == 0:  # sometimes: an option no command has
        args.append("--no-such-option")
    return args


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
def test_every_command_with_random_options(bases, path, tmp_path, monkeypatch):
    import tempfile

    command = command_at(path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # `demo` without --db
    runs: dict[Any, int] = {"n": 0}

    @fuzz(PER_COMMAND)
    @given(data=st.data(), which=st.sampled_from(["demo", "opened"]))
    def run(data, which):
        ws = Workspace(bases, which)
        old = os.getcwd()
        os.chdir(ws.dir)
        try:
            (ws.dir / "batch.jsonl").write_text(json.dumps(DEMO[5]) + "\n")
            args = list(path) + arguments_for(command, data.draw, bases, ws)
            assume(len(args) < 60)
            result = invoke(args, env={"LEDGER_DB": None, "PGPASSWORD": None})
            check_clean(result, ws)
            runs["n"] += 1
            runs[result.exit_code] = runs.get(result.exit_code, 0) + 1
        finally:
            os.chdir(old)
            ws.close()

    run()
    if os.environ.get("DEAL_LEDGER_FUZZ_VERBOSE"):
        print(" ".join(path), runs)
    assert runs["n"] >= PER_COMMAND // 2


def test_every_command_is_fuzzed():
    """Adding a command adds its fuzz case: the list comes from ``cli.commands``."""
    names = {p[-1] for p in COMMANDS}
    assert {"init", "append", "record", "log", "verify", "retract", "correct", "report",
            "interpretations"} <= names


def test_a_test_run_draws_the_same_examples_every_time():
    # issue 31, item 7: the fuzz test failed one CI run on a random draw (`calendar --out
    # ''`) and passed the next; a run is now derandomized (tests/conftest.py's "ci"
    # profile), and the wide random search runs only under DEAL_LEDGER_RANDOM_SEARCH
    from tests.conftest import RANDOM_SEARCH

    assert settings.default.derandomize is not RANDOM_SEARCH
    assert fuzz(PER_COMMAND).derandomize is not RANDOM_SEARCH
    if not RANDOM_SEARCH:
        assert settings.default.database is None

