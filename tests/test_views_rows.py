"""The views' SQL rows made straight from a report (``publishing.viewtables.sql_rows``)
are the rows the plain path makes: each table's ``rows`` dicts, each value through
``sql_value``, ``deal`` and the row number filled in (issue 17, ENGINE).

Random Registration Rights histories (``tests/test_registration_properties.histories``:
transfers, shelf sales, conversions, retirements, suspensions, Questionnaires, a
payment), the benchmark's deal shape, and hand-made report fragments for the shapes a
history cannot give (a report before per-Holder statuses and ``late_holders``).
"""

from __future__ import annotations

import os
from datetime import date

from hypothesis import HealthCheck, given, settings

from publishing.viewtables import (DEAL_TABLES, PAYMENTS, payment_rows, payment_sql_rows,
                                   sql_rows, sql_value)
from tests.support import build
from tests.test_registration_properties import histories, run

EXAMPLES = 150 * (20 if os.environ.get("DEAL_LEDGER_LONG") else 1)


def plain_rows(report: dict, deal: str) -> dict[str, list[tuple]]:
    """The rows as ``views`` made them before ``sql_rows`` (publishing/viewworkers.py)."""
    tables = {}
    for table in DEAL_TABLES:
        names = table.names
        if "n" in names:
            tables[table.name] = [
                tuple(sql_value(deal if k == "deal" else i if k == "n" else row[k])
                      for k in names)
                for i, row in enumerate(table.rows(report), start=1)]
        else:
            tables[table.name] = [tuple(sql_value(deal if k == "deal" else row[k])
                                        for k in names) for row in table.rows(report)]
    return tables


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(history=histories())
def test_sql_rows_are_the_plain_rows_on_random_histories(history):
    objs, as_of, readings = history
    rep = run(build(objs), as_of, readings)
    assert sql_rows(rep, "rra") == plain_rows(rep, "rra")


def test_sql_rows_of_the_benchmark_deal():
    from benchmarks.data import deal_events

    objs = [{k: v for k, v in o.items() if k != "source"} for o in deal_events("d", 300)]
    for as_of in (date(2004, 11, 1), date(2010, 7, 15), date(2024, 6, 30)):
        rep = run(build(objs), as_of, {})
        rows = sql_rows(rep, "d")
        assert rows == plain_rows(rep, "d")
        assert rows["payments"]   # the deal pays: the fast path was exercised


def test_payment_rows_of_a_report_without_per_holder_statuses():
    """A report before per-Holder statuses: the date's status and ``late`` for every
    Holder; a Holder only paid (not owed) gets amount 0.00, one only owed gets paid 0.00."""
    rep = {"additional_interest": {"payments": [
        {"payment_date": "2005-01-15", "paid_on": "2005-01-18", "record_date": "2005-01-01",
         "period_start": "2004-06-30", "period_end": "2005-01-15",
         "accrued_through": "2005-01-14", "amounts": {"B": "10.05", "A": "0.00"},
         "paid": {"C": "3.00"}, "status": "underpaid", "late": True}]}}
    assert payment_sql_rows(rep, "x") == [
        ("x", "2005-01-15", "2005-01-18", "2005-01-01", "2004-06-30", "2005-01-15",
         "2005-01-14", h, amount, a_cents, paid, p_cents, "underpaid", 1)
        for h, amount, a_cents, paid, p_cents in (
            ("A", "0.00", 0, "0.00", 0), ("B", "10.05", 1005, "0.00", 0),
            ("C", "0.00", 0, "3.00", 300))]
    assert payment_sql_rows(rep, "x") == plain_rows(rep, "x")["payments"]
    assert [r["late"] for r in payment_rows(rep)] == [True, True, True]


def test_payment_rows_name_late_holders_only():
    rep = {"additional_interest": {"payments": [
        {"payment_date": "2005-01-15", "paid_on": "2005-01-18", "record_date": "2005-01-01",
         "period_start": "2004-06-30", "period_end": "2005-01-15",
         "accrued_through": "2005-01-14", "amounts": {"A": "1.00", "B": "2.00"},
         "paid": {"A": "1.00"}, "status": "underpaid", "late": True,
         "statuses": {"A": "paid", "B": "due"}, "late_holders": ["B"]}]}}
    rows = payment_sql_rows(rep, "x")
    names = PAYMENTS.names
    assert [dict(zip(names, r))["late"] for r in rows] == [0, 1]
    assert [dict(zip(names, r))["status"] for r in rows] == ["paid", "due"]
    assert rows == plain_rows(rep, "x")["payments"]


def test_sql_value_keeps_its_conversions():
    from projections.worked import Worked

    assert sql_value(True) == 1 and sql_value(False) == 0
    assert sql_value(["a", "é"]) == '["a","é"]' and sql_value({"k": 1}) == '{"k":1}'
    assert sql_value(None) is None and sql_value(7) == 7 and sql_value("s") == "s"
    text = Worked("1 + 1 = 2", ())
    assert sql_value(text) == "1 + 1 = 2"


def test_the_deals_row_names_the_latest_opening():
    """A deal whose first DealOpened was retracted and which opened again: its row shows
    the later opening; a deal with none shows no kind or name."""
    from publishing.viewtables import deal_row

    first = {"type": "DealOpened", "deal": "x", "date": "2004-06-30", "seq": 1,
             "data": {"kind": "registration_rights", "name": "first"}}
    retraction = {"type": "EventRetracted", "deal": "x", "date": "2004-07-01", "seq": 2,
                  "data": {"event_id": "e1"}}
    second = {"type": "DealOpened", "deal": "x", "date": "2004-07-02", "seq": 3,
              "data": {"kind": "registration_rights", "name": "second"}}
    from ledger.stored import Event

    def stored(record):
        return Event.from_record({**record, "id": f"e{record['seq']}",
                                  "recorded_at": "2004-07-02T00:00:00Z", "recorded_by": "t",
                                  "prev_hash": "", "hash": ""})

    first, retraction, second = stored(first), stored(retraction), stored(second)
    row = deal_row(None, [first, retraction, second, retraction], 1, date(2005, 1, 1))
    assert (row["name"], row["opened_on"], row["last_seq"], row["events"]) == (
        "second", "2004-07-02", 2, 4)
    row = deal_row(None, [retraction], 0, date(2005, 1, 1))
    assert (row["kind"], row["name"], row["opened_on"]) == (None, None, None)
