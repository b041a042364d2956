"""Replay as known (SPEC §1), through the store: what the ledger knew at a recorded time
stays what it was, whatever is recorded later. Amounts worked by hand (30/360)."""

from __future__ import annotations

import json
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from click.testing import CliRunner

from cli.main import cli
from ledger.events import parse_event, parse_timestamp
from ledger.operations import retraction
from publishing.reading import deal_report
from ledger.store import Ledger
from projections.history import history
from tests.support import ev, opened

LEHMAN = "Lehman Brothers Inc."
AS_OF = date(2005, 2, 1)
PAY = "additional_interest.payments[payment_date=2005-01-15]"


def money(x: Decimal) -> str:
    return str(x.quantize(Decimal("0.01"), ROUND_HALF_UP))


def append(ledger: Ledger, *objs) -> str:
    """Append one batch; its recorded_at (one moment)."""
    result = ledger.append([parse_event(o, line=k) for k, o in enumerate(objs, 1)], user="t")
    return result.head.recorded_at


def without_known_at(rep: dict) -> dict:
    return {k: v for k, v in rep.items() if k != "known_at"}


def test_a_retraction_recorded_later_leaves_the_report_as_known_before_it(store_url):
    with Ledger(store_url) as ledger:
        t1 = append(ledger, opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN,
                                         principal="60000000"),
                    ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15"))
        before = deal_report(ledger.deal_events("rra"), as_of=AS_OF)
        effective = next(e for e in ledger.deal_events("rra") if e.type == "ShelfEffective")
        t2 = append(ledger, retraction(ledger, effective.id, "entered in error", None).envelope())
        events = ledger.deal_events("rra")
    assert t2 > t1
    as_known = deal_report(events, as_of=AS_OF, known_at=parse_timestamp(t1))
    assert as_known["known_at"] == t1
    assert without_known_at(as_known) == without_known_at(before)
    # SPEC §8 example 1: (ii) accrues 2004-10-29 .. 2004-11-15, 16 days (30/360)
    assert as_known["additional_interest"]["by_holder"] == {
        LEHMAN: money(Decimal(60_000_000) * Decimal("0.0025") * 16 / 360)}
    # as known now the shelf never became effective: (ii) accrues from 2004-10-29 to the
    # end of the interest period 2005-01-15: 360 × 1 + 30 × (1 - 10) + (15 - 29) = 76
    # days, all within the first 90 days (0.25%): 60,000,000 × 0.0025 × 76 / 360
    now = deal_report(events, as_of=AS_OF)
    payment = now["additional_interest"]["payments"][0]
    assert payment["payment_date"] == "2005-01-15"
    assert payment["amounts"] == {LEHMAN: money(Decimal(60_000_000) * Decimal("0.0025") * 76 / 360)}
    assert payment["amounts"] == {LEHMAN: "31666.67"}
    assert now["registration"]["effective_on"] is None


def test_the_report_command_replays_as_known(store_url):
    with Ledger(store_url) as ledger:
        t1 = append(ledger, opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN,
                                         principal="60000000"),
                    ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15"))
        effective = next(e for e in ledger.deal_events("rra") if e.type == "ShelfEffective")
        append(ledger, retraction(ledger, effective.id, "entered in error", None).envelope())
    runner = CliRunner()
    then = runner.invoke(cli, ["report", "rra", "--as-of", "2005-02-01", "--known-at", t1,
                               "--json", "--db", store_url])
    now = runner.invoke(cli, ["report", "rra", "--as-of", "2005-02-01", "--json", "--db",
                              store_url])
    assert then.exit_code == 0 and now.exit_code == 0, then.output + now.output
    then, now = json.loads(then.output), json.loads(now.output)
    assert then["registration"]["effective_on"] == "2004-11-15"
    assert now["registration"]["effective_on"] is None
    assert then[("additional_interest")]["accrued_to_as_of"] == "6666.67"


def test_a_late_recorded_backdated_filing_changes_the_report_as_known_after_not_before(store_url):
    as_of = date(2004, 8, 1)
    with Ledger(store_url) as ledger:
        t1 = append(ledger, opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN,
                                         principal="60000000"))
        first = deal_report(ledger.deal_events("rra"), as_of=as_of)
        t2 = append(ledger, ev("ShelfFiled", "2004-07-13", file_number="333-117340"))
        events = ledger.deal_events("rra")
    before = deal_report(events, as_of=as_of, known_at=parse_timestamp(t1))
    after = deal_report(events, as_of=as_of, known_at=parse_timestamp(t2))
    assert without_known_at(before) == without_known_at(first)
    # known at t1: not filed by the 2004-07-15 deadline, (i) accrues from 2004-07-16
    # through as_of: [07-16, 08-02) = 30 × (8 - 7) + (2 - 16) = 16 days (30/360)
    [default] = before["registration"]["defaults"]
    assert (default["clause"], default["accrual_from"], default["cured_on"]) == (
        "RRA §3(a)(i)", "2004-07-16", None)
    assert before["registration"]["in_default"] is True
    assert before["additional_interest"]["accrued_to_as_of"] == money(
        Decimal(60_000_000) * Decimal("0.0025") * 16 / 360) == "6666.67"
    # known at t2: filed on 2004-07-13, before the deadline: no default at all
    assert after["registration"]["filed_on"] == "2004-07-13"
    assert after["registration"]["defaults"] == []
    assert after["registration"]["in_default"] is False
    assert after["additional_interest"]["accrued_to_as_of"] == "0.00"
    # and the history of the figure says when the ledger learned it
    h = history(events, "registration.in_default", as_of=as_of)
    assert [(c["known_at"], c["status"], c["before"], c["after"]) for c in h["changes"]] == [
        (t1, "appeared", None, True), (t2, "changed", True, False)]
    assert [e["type"] for e in h["changes"][1]["events"]] == ["ShelfFiled"]


def test_figure_history_through_the_store_retraction_and_a_batch_dated_after_as_of(store_url):
    figure = f"{PAY}.amounts.{LEHMAN}"
    with Ledger(store_url) as ledger:
        t1 = append(ledger, opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN,
                                         principal="60000000"), ev("ShelfFiled", "2004-07-13"))
        t2 = append(ledger, ev("ShelfEffective", "2004-11-15"))
        effective = next(e for e in ledger.deal_events("rra") if e.type == "ShelfEffective")
        t3 = append(ledger, retraction(ledger, effective.id, "entered in error", None).envelope())
        t4 = append(ledger, ev("NoticeSent", "2006-03-01", to="Trustee", subject="s",
                               method="hand"))
        events = ledger.deal_events("rra")
    h = history(events, figure, as_of=AS_OF)
    # never effective: 76 days (above); effective 2004-11-15: 16 days (SPEC §8 example 1)
    uncured = money(Decimal(60_000_000) * Decimal("0.0025") * 76 / 360)
    cured = money(Decimal(60_000_000) * Decimal("0.0025") * 16 / 360)
    assert (uncured, cured) == ("31666.67", "6666.67")
    assert [(c["known_at"], c["before"], c["after"]) for c in h["changes"]] == [
        (t1, None, uncured), (t2, uncured, cured), (t3, cured, uncured)]
    assert [e["type"] for e in h["changes"][2]["events"]] == ["EventRetracted"]
    assert h["changes"][2]["events"][0]["retracts"] == effective.id
    # four moments; the last records only an event dated after as_of: not recomputed
    assert (h["moments"], h["computed"]) == (4, 3)
    assert t4 > t3
    result = CliRunner().invoke(cli, ["history", "rra", "--figure", figure, "--as-of",
                                      "2005-02-01", "--json", "--db", store_url])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == json.loads(json.dumps(h))
