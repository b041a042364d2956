"""Issue 17: the agenda's fast paths against the plain ones, on random histories.

* ``outlook(..., open_only=True)`` (what the agenda asks for) makes only the obligations
  still open on ``as_of`` (upcoming, due, violated): for a Suspension Period that has
  ended it works out no due day, and it builds no record of an obligation fulfilled,
  cured, excused or discharged. Its duties must be exactly the whole outlook's open
  ones, in the same order, and its risks the same.
* The agenda's lines from it equal the lines picked out of the whole outlook as the
  agenda picked them before (``plain_lines``).

The random Registration Rights histories are ``test_registration_properties``'s, with
notices to the Trustee and advice to the Holders on random days, a Majority of Holders'
waiver and a Suspension Period that may still run on ``as_of``; the Letter's are
``test_trueup_properties``'s.
"""

from __future__ import annotations

import os
from datetime import date, timedelta

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from projections.interpretations import resolve
from projections.obligations import STATES
from projections.obligations.lifecycle import OPEN
from projections.obligations.outlook import outlook
from projections.obligations.registration import registration_duties
from projections.registration.engine import compute
from projections.timeline import build_timeline
from publishing.agenda import deal_agenda, window_end
from tests import test_trueup_properties as letter
from tests.support import build, ev, opened
from tests.test_registration_properties import histories as rra_histories

LONG = int(os.environ.get("DEAL_LEDGER_LONG", "0") or 0)
SETTINGS = settings(max_examples=150 * (10 if LONG else 1), deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
CLOSING = date(2004, 6, 30)
SECTIONS = ["waive §4(b)(iii) advice", "waive §3(b) notice", "waive §2(a)(i) filing",
            "amend §4(b)(i)"]


@st.composite
def registration(draw):
    """(events, as_of, readings, start) of one random Registration Rights deal."""
    objs, as_of, readings = draw(rra_histories())

    def day(lo: int = 1, hi: int = 1200) -> str:
        return (CLOSING + timedelta(days=draw(st.integers(lo, hi)))).isoformat()

    for _ in range(draw(st.integers(0, 3))):
        objs.append(ev(draw(st.sampled_from(["TrusteeNotified", "HoldersAdvised"])), day()))
    if draw(st.booleans()):   # a Majority of Holders (or not) consents to a waiver
        holders = sorted({o["data"]["holder"] for o in objs if o["type"] == "NotesIssued"})
        matter = draw(st.sampled_from(SECTIONS))
        for h in draw(st.lists(st.sampled_from(holders), min_size=1, unique=True)):
            objs.append(ev("ConsentGiven", day(), holder=h, matter=matter))
    if draw(st.booleans()):   # a Suspension Period never ended (open on as_of if begun)
        effective = [o["date"] for o in objs if o["type"] == "ShelfEffective"]
        last = max((o["date"] for o in objs if o["type"].startswith(("Suspension", "Shelf"))),
                   default=None)
        if effective and last is not None:
            begun = date.fromisoformat(last) + timedelta(days=draw(st.integers(1, 200)))
            objs.append(ev("SuspensionStarted", begun.isoformat(),
                           material_transaction=draw(st.booleans())))
    start = as_of + timedelta(days=draw(st.sampled_from([0, 0, 1, 30])))
    return build(objs), as_of, readings, start


@st.composite
def suspended(draw):
    """(events, as_of, readings, start) of a deal whose shelf was effective in 2004 and
    then suspended again and again, some periods past their limits, the last perhaps
    still running on ``as_of``: the obligations to end each period in every state."""
    objs = [opened(), ev("NotesIssued", "2004-06-30", holder="A", principal="60000000"),
            ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-09-01")]
    day = date(2004, 9, 1)
    for n in range(draw(st.integers(1, 4))):
        day += timedelta(days=draw(st.integers(1, 120)))
        objs.append(ev("SuspensionStarted", day.isoformat(),
                       material_transaction=draw(st.booleans())))
        length = draw(st.integers(1, 100))
        if length > 30 and draw(st.booleans()):
            objs.append(ev("SuspensionExtended", (day + timedelta(days=20)).isoformat()))
        day += timedelta(days=length)
        objs.append(ev("SuspensionEnded", day.isoformat()))
    if draw(st.booleans()):
        objs.append(ev("TrusteeNotified", (day - timedelta(days=draw(st.integers(0, 90))))
                       .isoformat()))
    as_of = date(2004, 9, 1) + timedelta(days=draw(st.integers(0, (day - date(2004, 9, 1))
                                                               .days + 60)))
    readings = {"window_material_allowance": draw(st.sampled_from(["period",
                                                                    "any_in_window"])),
                "window_breach": draw(st.sampled_from(["usability_default", "report_only"]))}
    return build(objs), as_of, readings, as_of


def plain_lines(events, *, as_of: date, start: date, days: int):
    """The agenda's lines of one deal as they were picked before ``open_only``: out of
    every obligation of the whole outlook."""
    o = outlook(events, as_of=as_of, start=start)
    end = window_end(start, days, None, o.timeline.calendar)
    picked = []
    for d in o.duties:
        if d.state == "violated":
            picked.append(("overdue", (d.violated_since or d.due).isoformat(), d.key))
        elif d.state == "due" and (d.due is None or d.due <= end) or (
                d.state == "upcoming" and d.due and start <= d.due <= end):
            picked.append(("due", d.due and d.due.isoformat(), d.key))
    picked += [("at_risk", k.day.isoformat(), k.key) for k in o.risks]
    return picked


def _same_outlook(events, as_of, readings, start):
    whole = outlook(events, as_of=as_of, start=start, interpretations=readings)
    fast = outlook(events, as_of=as_of, start=start, interpretations=readings,
                   open_only=True)
    assert fast.duties == tuple(d for d in whole.duties if d.state in OPEN)
    assert fast.risks == whole.risks and (fast.deal, fast.kind) == (whole.deal, whole.kind)
    for d in whole.duties:   # what the examples held (--hypothesis-show-statistics)
        event(f"{d.kind} {d.state}")
    return whole


@SETTINGS
@given(registration() | suspended())
def test_open_only_registration_duties_are_the_open_ones_of_all(deal):
    events, as_of, readings, start = deal
    whole = _same_outlook(events, as_of, readings, start)
    t = build_timeline(events, as_of)
    r = compute(t, resolve(readings))
    assert registration_duties(r, t, open_only=True) == [
        d for d in registration_duties(r, t) if d.state in OPEN]
    assert {d.state for d in whole.duties} <= set(STATES)
    # and on the due days themselves, where an obligation not yet done is ``due``
    for day in sorted({d.due for d in whole.duties if d.due is not None})[:4]:
        _same_outlook(events, day, readings, day)


@SETTINGS
@given(registration() | suspended(), st.sampled_from([10, 90, 400]))
def test_the_agendas_lines_are_those_picked_from_every_obligation(deal, days):
    events, as_of, readings, start = deal
    found = deal_agenda(events, as_of=as_of, start=start, days=days)
    assert found is not None
    lines, _ = found
    got = [(i["category"], i["date"], i["key"]) for i in lines]
    assert got == plain_lines(events, as_of=as_of, start=start, days=days)


@settings(max_examples=60 * (10 if LONG else 1), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(letter.histories(), st.sampled_from(["2002-01-01", "2002-07-01", "2003-06-01",
                                            "2004-06-15", "2006-01-01"]))
def test_open_only_letter_duties_are_the_open_ones_of_all(objs, day):
    events = build(objs)
    as_of = date.fromisoformat(day)
    _same_outlook(events, as_of, {}, as_of)
    lines, _ = deal_agenda(events, as_of=as_of, days=30)
    assert [(i["category"], i["date"], i["key"]) for i in lines] == plain_lines(
        events, as_of=as_of, start=as_of, days=30)


# --- each line printed where its deal is computed -------------------------------------

def plain_print(result: dict, fmt: str) -> str:
    """What the command printed from the whole agenda before its lines were rendered in
    the workers (``print_json`` into a pipe, ``csv.DictWriter``, ``agenda_line``)."""
    import csv
    import io
    import json

    from cli.agenda import agenda_line
    from publishing.agenda import CSV_FIELDS
    from publishing.pack import csv_safe

    if fmt == "--json":
        return json.dumps(result, separators=(",", ":"), ensure_ascii=False) + "\n"
    out = io.StringIO()
    if fmt == "--csv":
        writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, extrasaction="ignore",
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: csv_safe(v) if isinstance(v, str) else v for k, v in i.items()}
                         for i in result["items"])
        return out.getvalue()
    lines = [f"Agenda from {result['from']} to {result['to']} (as of {result['as_of']}): "
             f"{result['overdue']} overdue, {len(result['items'])} lines"]
    return "\n".join(lines + [agenda_line(i, COLUMNS) for i in result["items"]]) + "\n"


COLUMNS = 72   # the terminal's width the text is wrapped to


def _renamed(objs: list[dict], deal: str) -> list[dict]:
    return [{**o, "deal": deal} for o in objs]


@st.composite
def portfolios(draw):
    """The event objects of two to five deals, each a random Registration Rights or
    Letter history under its own name (some with awkward characters in a Holder's
    name), deal by deal."""
    out = []
    for n in range(draw(st.integers(2, 5))):
        if draw(st.booleans()):
            objs, _, _ = draw(rra_histories())
        else:
            objs = draw(letter.histories())
        if draw(st.booleans()):   # text a CSV or a terminal must keep as it is
            objs = [{**o, "data": {k: AWKWARD if v == "A" and k.endswith("holder") else v
                                   for k, v in o["data"].items()}} for o in objs]
        out.append(_renamed(objs, f"d{n}-{draw(st.sampled_from(['x', 'y']))}"))
    return out


AWKWARD = '=Quote "A", B\u00e9'   # a Holder's name: a formula to a spreadsheet, quotes


@settings(max_examples=25 * (10 if LONG else 1), deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(portfolios(), st.sampled_from(["2004-10-20", "2005-10-01", "2006-08-01"]),
       st.sampled_from(["--json", "--csv", "text"]),
       st.sampled_from(["every", "pool", "deal", "cache"]))
def test_lines_printed_where_computed_are_the_plain_print(objs, day, fmt, mode):
    import tempfile
    from unittest import mock

    import publishing.agenda as agenda_module
    from ledger.errors import LedgerError
    from ledger.events import parse_event
    from ledger.store import Ledger
    from publishing.agenda import agenda
    from click.testing import CliRunner

    from cli.main import cli

    def run(*args: str):
        return CliRunner().invoke(cli, list(args), env={"COLUMNS": str(COLUMNS)})

    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "p.db")
        refused = 0
        with Ledger(db) as ledger:   # what the guards refuse is left out: not this test's
            for history in objs:
                for k, o in enumerate(history):
                    try:
                        ledger.append([parse_event(o, line=k + 1)])
                    except LedgerError:
                        refused += 1
        event(f"{refused and 'some' or 'no'} events refused by the guards")
        objs = [o for history in objs for o in history]
        args = ["agenda", "--db", db, "--as-of", day, "--days", "90"]
        options = dict(as_of=date.fromisoformat(day), days=90)
        deals = None
        if mode == "deal":
            deals = sorted({o["deal"] for o in objs})[:2]
            args += [x for d in deals for x in ("--deal", d)]
        if mode == "cache":
            args += ["--cache", os.path.join(tmp, "agenda.json")]
        with mock.patch.object(agenda_module, "POOL_MIN_DEALS", 2 if mode == "pool" else 200), \
                mock.patch.object(agenda_module.os, "cpu_count", lambda: 2):
            printed = run(*args, *([fmt] if fmt != "text" else []))
            if mode == "cache":   # a second run reads the lines kept by the first
                printed = run(*args, *([fmt] if fmt != "text" else []))
        with Ledger(db) as ledger:
            expected = agenda(ledger, deals=deals, **options)
    assert printed.exit_code == (1 if expected["overdue"] else 0), printed.output
    assert printed.stdout == plain_print(expected, fmt)
    event(f"{fmt} {mode}: {'some' if expected['items'] else 'no'} lines")


@settings(max_examples=100 * (10 if LONG else 1), deadline=None, derandomize=True)
@given(st.dictionaries(st.text(max_size=5), st.none() | st.integers() | st.text()
                       | st.booleans(), max_size=6), st.booleans())
def test_a_json_line_is_what_json_dumps_writes(item, accelerated):
    import json
    from json import encoder
    from unittest import mock

    from cli.agenda import _json_line

    with mock.patch.object(encoder, "c_make_encoder",
                           encoder.c_make_encoder if accelerated else None):
        line = _json_line()
    assert line(item) == json.dumps(item, separators=(",", ":"), ensure_ascii=False)


# --- the helpers forked before the ledger is opened ---------------------------------

def _no_child_left() -> bool:
    """This process has no child, running or waiting to be reaped."""
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def _pooled(monkeypatch, deals: int = 2) -> None:
    import publishing.agenda as agenda_module

    monkeypatch.setattr(agenda_module, "POOL_MIN_DEALS", deals)
    monkeypatch.setattr(agenda_module.os, "cpu_count", lambda: 2)


@pytest.fixture(scope="module")
def six_deals(tmp_path_factory) -> str:
    from tests.test_agenda_read import _portfolio

    path = str(tmp_path_factory.mktemp("helpers") / "p.db")
    _portfolio(path, 6)
    return path


def test_helpers_share_the_deals_and_leave_no_process(six_deals, monkeypatch):
    from tests.cli_support import run

    args = ("agenda", "--db", six_deals, "--as-of", "2005-10-01", "--json")
    alone = run(*args).stdout   # two cores and 200 deals or more: helpers; else alone
    _pooled(monkeypatch)
    import publishing.agenda_helpers as helpers_module

    used = []
    real = helpers_module.Helpers.run

    def spied(self, *a, **k):
        used.append(len(self.children))
        return real(self, *a, **k)

    monkeypatch.setattr(helpers_module.Helpers, "run", spied)
    shared = run(*args)
    assert shared.stdout == alone and shared.exit_code == 1 and used == [1]
    assert _no_child_left()
    # a ledger of fewer deals than worth sharing: the helper is stopped, not waited for
    _pooled(monkeypatch, 200)
    assert run(*args).stdout == alone and used == [1] and _no_child_left()
    # no ledger there: one line, and the helper stopped
    _pooled(monkeypatch)
    res = run("agenda", "--db", six_deals + ".none", "--as-of", "2005-10-01")
    assert res.exit_code != 0 and res.stderr.count("\n") == 1 and _no_child_left()


def test_a_helper_that_fails_leaves_its_share_to_this_process(six_deals, monkeypatch):
    import publishing.agenda_helpers as helpers_module
    from tests.cli_support import run

    args = ("agenda", "--db", six_deals, "--as-of", "2005-10-01", "--csv")
    alone = run(*args).stdout
    _pooled(monkeypatch)

    def broken(self, wait, closing, *a):
        os.read(self.taken, 1)   # takes a share of the deals, then fails
        raise RuntimeError("a helper that fails")

    monkeypatch.setattr(helpers_module.Helpers, "_help", broken)
    assert run(*args).stdout == alone and _no_child_left()


def test_an_altered_row_read_by_a_helper_is_named_on_one_line(tmp_path, monkeypatch):
    from tests.cli_support import run
    from tests.test_agenda_read import altered_portfolio

    path = altered_portfolio(tmp_path)
    _pooled(monkeypatch)
    res = run("agenda", "--db", path, "--as-of", "2005-10-01")
    assert res.exit_code != 0 and res.stdout == "" and res.stderr.count("\n") == 1
    assert "position 3)" in res.stderr and "deal-ledger verify" in res.stderr
    assert "Traceback" not in res.output and _no_child_left()


def test_records_decoded_alone_or_with_their_states_are_the_same():
    # ledger.store.logread.records_of_states decodes only each state's record; a state of
    # another shape (a key after the record, a "record" key nested before it, none) is
    # decoded whole, and an altered one is named as before
    import json

    from ledger.errors import StoreError
    from ledger.store.logread import records_of_states

    def state(seq: int, before: str = "", after: str = "") -> bytes:
        record = json.dumps({"deal": "a", "seq": seq, "data": {"note": '"record": {'}})
        return f'{{"timestamp":{{"_data_":"x"}}{before},"record":{record}{after}}}'.encode()

    plain = [state(1), state(2)]
    expected = [{"deal": "a", "seq": n, "data": {"note": '"record": {'}} for n in (1, 2)]
    for states in (plain, [state(1), state(2, after=',"more":{"record":1}')],
                   [state(1, before=',"x":{"record":{"seq":9}}'), state(2)],
                   [state(1, after=',"z":[1]'), state(2, after=',"y":{}')]):
        assert records_of_states(list(enumerate(states))) == expected, states
    with pytest.raises(StoreError, match=r"position 1\)"):
        records_of_states([(0, plain[0]), (1, b'{"timestamp":1,"other":{}}')])


def test_no_process_to_fork_means_this_one_computes_every_deal(six_deals, monkeypatch):
    from tests.cli_support import run

    args = ("agenda", "--db", six_deals, "--as-of", "2005-10-01", "--json")
    alone = run(*args).stdout
    _pooled(monkeypatch)

    def refused():
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", refused)
    assert run(*args).stdout == alone and _no_child_left()
