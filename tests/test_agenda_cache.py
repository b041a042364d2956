"""The agenda's cache (``publishing.agenda_cache``) and its worker pool give the agenda
computed from scratch: on random Letter and Registration Rights histories, a cache left
by one as-of day and reused on another (a daily run), before and after more events are
appended; and the pool's lines equal one process's."""

from __future__ import annotations

import os
import tempfile
from datetime import date, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import publishing.agenda as agenda_module
from ledger.errors import RuleViolation
from ledger.events import parse_event
from ledger.store import Ledger
from publishing.agenda import agenda, agenda_of
from publishing.demo import letter_history
from tests.support import build, opened
from tests.test_registration_properties import histories as rra_histories
from tests.test_trueup_properties import e
from tests.test_trueup_properties import histories as letter_histories

LONG = int(os.environ.get("DEAL_LEDGER_LONG", "0") or 0)
SETTINGS = settings(max_examples=25 * (20 if LONG else 1), deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
DEMO = letter_history()       # the demo's Letter deal: true-ups earned, due and issued
EDGES = sorted({date.fromisoformat(o["date"]) + timedelta(days=k) for o in DEMO
                for k in (-1, 0, 1)})
#: as-of days: any, or one on or next to a day the demo's Letter events are dated
DAYS = st.dates(date(2002, 1, 1), date(2006, 12, 31)) | st.sampled_from(EDGES)
LETTERS = letter_histories() | st.just([{**o, "deal": "ltr"} for o in DEMO])


def _append(ledger: Ledger, objs: list[dict]) -> None:
    """Each event the store accepts (the random Letter histories are not all consistent:
    the store's guards refuse vesting more Camden Warrants than are unvested)."""
    for o in objs:
        try:
            ledger.append([parse_event(o, line=1)])
        except RuleViolation:
            pass


@SETTINGS
@given(letter=LETTERS, rra=rra_histories(), first=DAYS, second=DAYS,
       third=DAYS, window=st.sampled_from([0, 30, 90]), cut=st.floats(0.3, 1.0))
def test_cached_equals_computed_across_days_and_appends(letter, rra, first, second, third,
                                                        window, cut):
    rra_objs, _, readings = rra
    options = dict(days=window, interpretations=readings)
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "agenda.json")
        with Ledger(os.path.join(tmp, "l.db"), create=True) as ledger:
            k, j = max(1, int(len(letter) * cut)), max(1, int(len(rra_objs) * cut))
            _append(ledger, letter[:k])
            _append(ledger, rra_objs[:j])
            for day in (first, second):     # the day's run, then another day's
                cached = agenda(ledger, cache=cache, as_of=day, **options)
                assert cached == agenda(ledger, as_of=day, **options), day
            _append(ledger, letter[k:])     # more events in both deals, then a third day
            _append(ledger, rra_objs[j:])
            for day in (second, third, second):   # the records kept beside: older, then not
                cached = agenda(ledger, cache=cache, as_of=day, **options)
                assert cached == agenda(ledger, as_of=day, **options), day


def test_the_pool_gives_the_lines_of_one_process(monkeypatch):
    from tests.test_agenda import histories

    h = histories()
    one = agenda_of(h, as_of=date(2004, 10, 20), days=10)
    monkeypatch.setattr(agenda_module, "POOL_MIN_DEALS", 2)
    monkeypatch.setattr(agenda_module.os, "cpu_count", lambda: 2)
    assert agenda_of(h, as_of=date(2004, 10, 20), days=10) == one
    assert one["items"] and len(one["deals"]) >= 2


def test_letter_lines_hold_between_event_days():
    # the Letter's template opens the deal on 2002-02-01, a capitalization that day and
    # one on 2003-01-02: the dated events (and so the lines) change only on those days
    events = build([opened("ltr", "infocrossing-letter-2002"),
                    e("CapitalizationRecorded", "2002-02-01", common_outstanding=1_000_000),
                    e("CapitalizationRecorded", "2003-01-02", common_outstanding=2_000_000)])
    hold = agenda_module.letter_lines_hold
    assert events[0].date == date(2002, 2, 1)
    assert hold(events, as_of=date(2002, 6, 1)) == ("2002-02-01", "2003-01-02")
    assert hold(events, as_of=date(2003, 1, 2)) == ("2003-01-02", None)
    assert hold(events, as_of=date(2002, 1, 31)) == (None, "2002-02-01")


def test_a_cache_path_that_is_no_file_is_one_line_naming_the_option(tmp_path):
    # found by tests/test_fuzz.py: `--cache ''` ended in os.replace(tmp, '') and a
    # traceback; a directory did the same
    from publishing.demo import build_demo
    from tests.cli_support import run

    db = str(tmp_path / "demo.db")
    build_demo(db)
    folder = tmp_path / "a-folder"
    folder.mkdir()
    for path in ("", "  ", str(folder)):
        res = run("agenda", "--db", db, "--as-of", "2005-10-01", "--cache", path)
        assert res.exit_code == 2 and res.stdout == "", (path, res.output)
        assert res.stderr.count("\n") == 1 and "--cache" in res.stderr, res.stderr
        assert "Traceback" not in res.output
    assert list(folder.iterdir()) == [] and not [
        p for p in tmp_path.iterdir() if p.name.startswith(".agenda-cache-")]


def test_kept_records_are_texts_decoded_where_computed(tmp_path, monkeypatch):
    # FILE.records keeps each Registration Rights deal's records as one JSON text; a daily
    # run decodes them in the pool's processes (and in this one), and a records file of
    # the earlier layout (records decoded whole) is not read: the deals come from the store
    import json

    from publishing.demo import build_demo

    db = str(tmp_path / "demo.db")
    build_demo(db)
    cache = str(tmp_path / "agenda.json")
    monkeypatch.setattr(agenda_module, "POOL_MIN_DEALS", 1)
    monkeypatch.setattr(agenda_module.os, "cpu_count", lambda: 2)
    with Ledger(db) as ledger:
        agenda(ledger, cache=cache, as_of=date(2005, 10, 1), days=30)
        with open(cache + ".records", encoding="utf-8") as fh:
            kept = json.load(fh)
        assert kept["version"] == 4 and kept["texts"]
        assert all(isinstance(json.loads(t), list) for t in kept["texts"].values())
        day = date(2005, 10, 2)
        assert agenda(ledger, cache=cache, as_of=day, days=30) == agenda(ledger, as_of=day,
                                                                         days=30)
        older = {"version": 3, "at": kept["at"], "records": {
            k: json.loads(t) for k, t in kept["texts"].items()}}
        with open(cache + ".records", "w", encoding="utf-8") as fh:
            json.dump(older, fh)
        day = date(2005, 10, 3)
        assert agenda(ledger, cache=cache, as_of=day, days=30) == agenda(ledger, as_of=day,
                                                                         days=30)
        with open(cache + ".records", encoding="utf-8") as fh:
            assert json.load(fh)["version"] == 4   # written again from the store's
