"""Issue 31, item 2: a retraction made in error is undone by ``reinstate RETRACTION_ID
--reason TEXT``, an ``EventReinstated``: the event counts again, judged by the rules as
if appended now, and ``log``, ``history`` and the auditor pack show it. The reference
models honour it too (tests/test_rra_differential.py, tests/test_letter_differential.py,
tests/test_engine_timeline.py draw reinstatements).

The deal is SPEC §8 example 1: Lehman Brothers Inc. holds $60,000,000 from 2004-06-30;
filed 2004-07-13, effective 2004-11-15. Default (ii) accrues 2004-10-29 to 2004-11-15
exclusive: 30/360 days = 16; 60,000,000 x 0.25% x 16/360 = 6,666.67 for the Interest
Payment Date 2005-01-15. With the ShelfEffective retracted, nothing cures (ii) before the
period ends: 2004-10-29 to 2005-01-15, 30/360 days = 360*1 + 30*(1-10) + (15-29) = 76,
all within the first 90 days at 0.25%: 60,000,000 x 0.0025 x 76/360 = 31,666.67.
"""

from __future__ import annotations

import json

from tests.cli_support import ok, refused_unchanged, run
# the same four events (SPEC §8 example 1), as seq 1 to 4
from tests.test_event_references import db, ev, records  # noqa: F401 (db: a fixture)

RRA = "infocrossing-rra-2004"
LEHMAN = "Lehman Brothers Inc."
AMOUNT = f"additional_interest.payments[payment_date=2005-01-15].amounts.{LEHMAN}"


def owed(db: str) -> str:
    report = json.loads(ok(run("report", RRA, "--as-of", "2005-01-31", "--json", "--db", db)))
    [payment] = [p for p in report["additional_interest"]["payments"]
                 if p["payment_date"] == "2005-01-15"]
    return payment["amounts"][LEHMAN]


def test_a_retraction_made_in_error_is_undone(db):
    assert owed(db) == "6666.67"
    ok(run("retract", "seq:4", "--reason", "wrong event", "--db", db))
    assert owed(db) == "31666.67"            # (ii) uncured through the period: 76 days
    out = ok(run("reinstate", "seq:5", "--reason", "the shelf was effective", "--db", db))
    assert "withdraws seq 5 EventRetracted" in out and "reinstates seq 4 ShelfEffective" in out
    assert owed(db) == "6666.67"             # 16 days again
    reinstated = records(db)[-1]
    assert reinstated["type"] == "EventReinstated" and reinstated["seq"] == 6
    assert reinstated["date"] == "2004-11-15"          # the retraction's own date
    assert reinstated["data"] == {"retraction_id": records(db)[4]["id"],
                                  "reason": "the shelf was effective"}
    # known before the reinstatement, the retraction still counts (SPEC §1)
    before = json.loads(ok(run("report", RRA, "--as-of", "2005-01-31", "--json", "--known-at",
                               records(db)[4]["recorded_at"], "--db", db)))
    assert before["registration"]["effective_on"] is None
    ok(run("verify", "--db", db))   # the guard state kept equals the one rebuilt


def test_log_history_and_the_pack_show_it(db, tmp_path):
    ok(run("retract", "seq:4", "--reason", "wrong event", "--db", db))
    ok(run("reinstate", "seq:5", "--reason", "it was right", "--db", db))
    retraction, reinstatement = records(db)[4:6]
    # log: the ShelfEffective is no longer marked; the retraction is, withdrawn
    text = ok(run("log", "--db", db))
    assert f"WITHDRAWN by {reinstatement['id'][:8]}" in text
    assert "RETRACTED" not in text
    rows = ok(run("log", "--csv", "--db", db)).splitlines()
    assert rows[5].endswith(f",{reinstatement['id']}") and rows[4].endswith(",")
    # history: the figure changed three times, the last by the reinstatement
    h = json.loads(ok(run("history", RRA, AMOUNT, "--as-of", "2005-01-31", "--json",
                          "--db", db)))
    assert [(c["status"], c["after"]) for c in h["changes"]] == [
        ("appeared", "6666.67"), ("changed", "31666.67"), ("changed", "6666.67")]
    assert h["changes"][2]["events"][0]["reinstates"] == retraction["id"]
    # the pack: its events hold both; the withdrawn retraction is what does not count
    ok(run("export", RRA, "--out", str(tmp_path / "pack"), "--as-of", "2005-01-31",
           "--db", db))
    events = [json.loads(x) for x in (tmp_path / "pack" / "events.jsonl").read_text()
              .splitlines()]
    assert [e["type"] for e in events][-2:] == ["EventRetracted", "EventReinstated"]
    page = (tmp_path / "pack" / "index.html").read_text()
    # the withdrawn retraction (seq 5) is struck through; the ShelfEffective (seq 4) is not
    assert '<tr class="retracted"><td class="n">5</td>' in page
    assert '<tr><td class="n">4</td>' in page and '<tr><td class="n">6</td>' in page
    ok(run("verify", "--pack", str(tmp_path / "pack")))


def test_a_reinstatement_that_breaks_a_rule_is_refused(db):
    ok(run("retract", "seq:3", "--reason", "wrong day", "--db", db))          # seq 5
    ok(run("record", "ShelfFiled", "--deal", RRA, "--date", "2004-07-14", "--db", db))
    # the first ShelfFiled back would be a second filing of the one shelf (RRA §2(a)(i))
    err = refused_unchanged(db, 3, "reinstate", "seq:5", "--reason", "x", "--db", db)
    assert "field 'data.retraction_id'" in err and "reinstating" in err
    assert "already filed on 2004-07-13" in err and "[RRA §2(a)(i)]" in err


def test_what_is_not_a_retraction_or_was_withdrawn_is_refused(db):
    effective = records(db)[3]["id"]
    ok(run("retract", "seq:4", "--reason", "wrong event", "--db", db))        # seq 5
    retraction = records(db)[4]["id"]
    # naming the retracted event instead of its retraction: the right one is named
    err = refused_unchanged(db, 3, "reinstate", "seq:4", "--reason", "x", "--db", db)
    assert f"event {effective} (ShelfEffective) is not an EventRetracted" in err
    assert f"it was retracted by {retraction}: reinstate that one" in err
    # a retraction is never retracted: the refusal says how to undo it
    err = refused_unchanged(db, 3, "retract", "seq:5", "--reason", "x", "--db", db)
    assert f"to undo it: deal-ledger reinstate {retraction[:8]} --reason TEXT" in err
    ok(run("reinstate", "seq:5", "--reason", "right after all", "--db", db))  # seq 6
    err = refused_unchanged(db, 3, "reinstate", "seq:5", "--reason", "x", "--db", db)
    assert "was already withdrawn by" in err
    err = refused_unchanged(db, 3, "retract", "seq:6", "--reason", "x", "--db", db)
    assert "an EventReinstated cannot be retracted" in err
    # the event, counting again, can be retracted again
    ok(run("retract", "seq:4", "--reason", "wrong after all", "--db", db))     # seq 7
    assert owed(db) == "31666.67"


def test_a_reinstated_payment_warns_of_the_overpayment_it_brings_back(db):
    # the demo's case: a payment retracted as recorded wrong and re-entered; reinstating
    # the retraction brings the first back beside the second: 6,666.67 owed, paid twice
    pay = ev("AdditionalInterestPaid", "2005-01-18", payment_date="2005-01-15",
             holder=LEHMAN, amount="6666.67")
    ok(run("append", "--db", db, input=json.dumps(pay) + "\n"))                 # seq 5
    ok(run("correct", "seq:5", "-", "--reason", "entered twice", "--db", db,
           input=json.dumps(pay) + "\n"))                                     # seq 6, 7
    result = run("reinstate", "seq:6", "--reason", "x", "--db", db)
    assert result.exit_code == 0
    # 6,666.67 + 6,666.67 = 13,333.34 paid, 6,666.67 owed: overpaid by 6,666.67
    assert result.stderr == (
        f"warning: AdditionalInterestPaid {records(db)[4]['id']}, {records(db)[6]['id']}: "
        f"13,333.34 paid to {LEHMAN} for Interest Payment Date 2005-01-15, owed 6,666.67: "
        "overpaid by 6,666.67 [RRA §3(a), §3(b)]\n")
