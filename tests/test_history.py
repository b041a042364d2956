"""A figure's history as recorded: the report recomputed at each recording moment, each
change listed with the value before and after and the events recorded then."""

from __future__ import annotations

import csv
import io
import json
import time
from datetime import date, datetime, timedelta, timezone
from decimal import ROUND_HALF_UP, Decimal

import pytest
from click.testing import CliRunner

from cli.main import cli
from ledger.events import parse_event
from ledger.store import Ledger
from projections.figures import FigureError
from projections.history import history, moments
from tests.support import build, ev, opened

LEHMAN = "Lehman Brothers Inc."
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
AS_OF = date(2005, 2, 1)


def many_events(n: int) -> list[dict]:
    """``n`` valid events of one long-lived deal: ten Holders of 6,000,000 each, the shelf
    filed on time and effective late (default (ii)), then from 2005 one event every three
    days: Holders pass 1,000 of Notes round in a ring (so no balance goes below its start
    less 1,000), notices, Trustee notices and consents."""
    holders = [f"Holder {k:02d}" for k in range(10)]
    objs = [opened()] + [ev("NotesIssued", "2004-06-30", holder=h, principal="6000000")
                         for h in holders]
    objs += [ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15")]
    day = date(2005, 1, 1)
    k = 0
    while len(objs) < n:
        when = (day + timedelta(days=3 * k)).isoformat()
        kind = k % 4
        if kind == 0:
            objs.append(ev("NotesTransferred", when, from_holder=holders[k % 10],
                           to_holder=holders[(k + 1) % 10], principal="1000"))
        elif kind == 1:
            objs.append(ev("NoticeSent", when, to=holders[k % 10], subject="notice",
                           method="mail"))
        elif kind == 2:
            objs.append(ev("TrusteeNotified", when))
        else:
            objs.append(ev("ConsentGiven", when, holder=holders[k % 10], matter="waiver"))
        k += 1
    return objs


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def money(x: Decimal) -> str:
    return str(x.quantize(Decimal("0.01"), ROUND_HALF_UP))


def stamp(minutes: int) -> str:
    return at(minutes).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def changing_history():
    """Three moments: opened with the Notes and a filing (t1), an effectiveness dated before
    the 2004-10-28 deadline (t2), its retraction (t3)."""
    objs = [opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
            ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-10-20"),
            ev("EventRetracted", "2004-10-20", event_id="e4", reason="wrong date")]
    return build(objs, recorded=[at(1), at(1), at(1), at(2), at(3)])


def test_same_timestamp_events_are_one_moment():
    steps = moments(changing_history())
    assert [(t, [e.id for e in batch]) for t, batch in steps] == [
        (at(1), ["e1", "e2", "e3"]), (at(2), ["e4"]), (at(3), ["e5"])]


def test_a_figure_appears_disappears_and_reappears():
    h = history(changing_history(), "registration.defaults[kind=(ii)].accrual_from", as_of=AS_OF)
    # not effective by 2004-10-28: (ii) accrues from 2004-10-29; effective 2004-10-20: no
    # (ii); that effectiveness retracted: (ii) again
    assert [(c["known_at"], c["status"], c["before"], c["after"]) for c in h["changes"]] == [
        (stamp(1), "appeared", None, "2004-10-29"),
        (stamp(2), "disappeared", "2004-10-29", None),
        (stamp(3), "appeared", None, "2004-10-29")]
    assert [e["id"] for e in h["changes"][0]["events"]] == ["e1", "e2", "e3"]
    assert h["changes"][1]["events"][0]["type"] == "ShelfEffective"
    assert h["changes"][2]["events"][0]["retracts"] == "e4"
    assert (h["present"], h["value"], h["moments"], h["computed"]) == (True, "2004-10-29", 3, 3)


def test_an_object_figure_is_followed_without_its_basis():
    h = history(changing_history(), "additional_interest.payments[payment_date=2005-01-15]",
                as_of=AS_OF)
    first = h["changes"][0]["after"]
    assert "basis" not in first and "paid_events" not in first
    # (ii) from 2004-10-29 to 2005-01-15: 360 × 1 + 30 × (1 - 10) + (15 - 29) = 76 days
    assert first["amounts"] == {LEHMAN: money(Decimal(60_000_000) * Decimal("0.0025") * 76 / 360)}
    assert [c["status"] for c in h["changes"]] == ["appeared", "disappeared", "appeared"]


def test_a_path_that_never_names_a_figure_or_is_ambiguous_is_refused():
    events = changing_history()
    with pytest.raises(FigureError, match="no 'nothing' in registration"):
        history(events, "registration.nothing", as_of=AS_OF)
    with pytest.raises(FigureError, match="entries of deadlines match"):
        history(events, "deadlines[status=missed]", as_of=AS_OF)
    with pytest.raises(FigureError, match="unclosed"):
        history(events, "deadlines[0", as_of=AS_OF)


def test_moments_recording_only_later_dated_events_are_not_recomputed():
    objs = many_events(1000)
    events = build(objs)                   # one moment per event
    h = history(events, "registration.in_default", as_of=AS_OF)
    dated = sum(1 for e in events if e.date <= AS_OF)
    assert h["moments"] == 1000
    # opening, 10 issues, filing, effectiveness: 13; then one event every 3 days from
    # 2005-01-01: 2005-01-01 + 3k <= 2005-02-01 for k = 0 .. 10: 11 more
    assert h["computed"] == dated == 13 + 11


def test_a_calendar_override_dated_after_as_of_is_a_moment_of_its_own():
    # a review (stop 19): the Trustee notified on Tue 2004-07-20, the filing deadline
    # (2004-07-15) missed; default date 07-15, + 2 Business Days: 07-16, 07-19: due 07-19,
    # done late (missed). A closure of Fri 07-16, recorded later and dated 08-05, makes it
    # 07-19, 07-20: due 07-20, met. The calendar counts its overrides whatever their date
    # (SPEC §2), so as of 07-31 the figure changes at the override's moment
    objs = [opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
            ev("ShelfFiled", "2004-07-20"), ev("TrusteeNotified", "2004-07-20"),
            {**ev("CalendarDayDeclared", "2004-08-05"),
             "data": {"day": "2004-07-16", "business_day": False,
                      "reason": "emergency closure"}}]
    events = build(objs, recorded=[at(1), at(1), at(1), at(1), at(2)])
    h = history(events, "deadlines[obligation^=notify the Trustee][0].status",
                as_of=date(2004, 7, 31))
    assert (h["moments"], h["computed"]) == (2, 2)
    assert [(c["known_at"], c["before"], c["after"]) for c in h["changes"]] == [
        (stamp(1), None, "missed"), (stamp(2), "missed", "met")]


def test_a_thousand_events_in_fifty_batches_is_quick():
    objs = many_events(1000)
    events = build(objs, recorded=[at(k // 20) for k in range(len(objs))])
    start = time.process_time()
    h = history(events, "additional_interest.accrued_to_as_of", as_of=date(2024, 7, 1))
    spent = time.process_time() - start
    assert (h["moments"], h["computed"]) == (50, 50)
    assert spent < 20, f"history took {spent:.1f}s of CPU"


# ------------------------------------------------------------------------------ CLI


@pytest.fixture
def db(tmp_path):
    url = str(tmp_path / "l.db")
    with Ledger(url) as ledger:
        ledger.append([parse_event(o) for o in (
            opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
            ev("ShelfFiled", "2004-07-13"))])
        ledger.append([parse_event(ev("ShelfEffective", "2004-11-15"))])
    return url


def test_cli_history_table(db):
    figure = f"additional_interest.by_holder.{LEHMAN}"
    result = CliRunner().invoke(cli, ["history", "rra", "--figure", figure, "--as-of",
                                      "2005-02-01", "--db", db], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    # known first, never effective: (ii) accrues from 2004-10-29 (day 1) through as_of.
    # Day 90 is 2005-01-26 (3 + 30 + 31 + 26 = 90 days), so 0.25% to 2005-01-26, 1.00% from
    # 2005-01-27. Payment 2005-01-15: [10-29, 01-15) = 360 + 30 × (1 - 10) + (15 - 29) = 76
    # days at 0.25%; payment 2005-07-15 so far: [01-15, 01-27) 12 days at 0.25% and
    # [01-27, 02-02) = 30 + (2 - 27) = 5 days at 1.00%. Then cured 2004-11-15: 16 days.
    p = Decimal(60_000_000)
    first = money(p * Decimal("0.0025") * 76 / 360)
    second = money(p * (Decimal("0.0025") * 12 + Decimal("0.01") * 5) / 360)
    assert (first, second) == ("31666.67", "13333.33")
    uncured = str(Decimal(first) + Decimal(second))
    assert "2 change(s) over 2 recording moment(s)" in result.output
    assert uncured == "45000.00"
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in result.output.splitlines()
             if line.startswith("│") and ("ShelfEffective" in line or "(absent)" in line)]
    # the human table groups money as every view does: 45,000.00, 6,666.67
    assert [c[1:3] for c in cells] == [["(absent)", "45,000.00"], ["45,000.00", "6,666.67"]]
    # each moment whole, to the microsecond, as `report --known-at` takes it: cut to the
    # second it is before the moment, and gives the value before the change
    with Ledger(db, create=False) as ledger:
        stamps = sorted({r["recorded_at"] for r in ledger.deal_records("rra")})
    assert [c[0] for c in cells] == stamps and all(len(s) == 27 for s in stamps)
    assert "ShelfEffective 2004-11-15" in result.output
    assert result.output.rstrip().endswith("now: 6,666.67")


def test_cli_history_groups_money_in_the_table_only(db):
    # QA: the table showed "45000.00"; JSON and CSV keep the report's exact text. Same
    # figures as above: 31,666.67 + 13,333.33 = 45,000.00 uncured, then cured 2004-11-15:
    # 60,000,000 x 0.25% x 16/360 = 6,666.67. A figure that is not money stays as it is.
    figure = f"additional_interest.by_holder.{LEHMAN}"
    base = ["history", "rra", "--figure", figure, "--as-of", "2005-02-01", "--db", db]
    as_json = json.loads(CliRunner().invoke(cli, [*base, "--json"]).stdout)
    assert [(c["before"], c["after"]) for c in as_json["changes"]] == [
        (None, "45000.00"), ("45000.00", "6666.67")] and as_json["value"] == "6666.67"
    rows = list(csv.DictReader(io.StringIO(CliRunner().invoke(cli, [*base, "--csv"]).stdout)))
    assert [(r["before"], r["after"]) for r in rows] == [("", "45000.00"),
                                                         ("45000.00", "6666.67")]
    dates = CliRunner().invoke(cli, ["history", "rra", "--figure", "registration.effective_on",
                                     "--as-of", "2005-02-01", "--db", db],
                               env={"COLUMNS": "200"})
    assert dates.output.rstrip().endswith("now: 2004-11-15")


def test_cli_history_bad_figure_is_one_line(db):
    result = CliRunner().invoke(cli, ["history", "rra", "--figure", "registration.nope",
                                      "--db", db])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1
    assert result.output.startswith("error: field '--figure': no 'nope' in registration")
    bad_date = CliRunner().invoke(cli, ["history", "rra", "--figure", "registration.in_default",
                                        "--as-of", "2005-02-30", "--db", db])
    assert bad_date.exit_code == 2 and bad_date.output.startswith("error: field '--as-of'")
