"""Issue 31, item 4: facts that are legal but suspicious are accepted (the ledger records
what happened) with a warning on standard error and an entry in the report's
``problems``, each with its clause (``projections.registration.suspicious``).

The deal is SPEC §8 example 1: Lehman Brothers Inc. holds $60,000,000 from 2004-06-30;
filed 2004-07-13, effective 2004-11-15; default (ii) accrues 2004-10-29 to 2004-11-15
exclusive: 16 days (30/360), 60,000,000 x 0.25% x 16/360 = 6,666.67 owed for the Interest
Payment Date 2005-01-15 (record date 2005-01-01, paid 2005-01-18). The next period,
2005-01-15 to 2005-07-15, has no day in default: nothing is owed for 2005-07-15.
"""

from __future__ import annotations

import json

from projections.report import report
from tests.cli_support import ok, run
from tests.support import build, d, ev, opened

LEHMAN = "Lehman Brothers Inc."
RRA = "infocrossing-rra-2004"
BASE = [opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
        ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15")]


def paid(day: str, payment_date: str, amount: str, holder: str = LEHMAN) -> dict:
    return ev("AdditionalInterestPaid", day, payment_date=payment_date, holder=holder,
              amount=amount)


def problems(objs: list[dict], as_of: str = "2005-12-31") -> list[str]:
    return report(build(objs), as_of=d(as_of), bases=False)["problems"]


def test_an_exact_payment_is_no_problem():
    assert problems(BASE + [paid("2005-01-18", "2005-01-15", "6666.67")]) == []


def test_an_overpayment():
    # 7,000.00 paid against 6,666.67 owed: 7,000.00 - 6,666.67 = 333.33 over
    assert problems(BASE + [paid("2005-01-18", "2005-01-15", "7000.00")]) == [
        f"AdditionalInterestPaid e5: 7000.00 paid to {LEHMAN} for Interest Payment Date "
        "2005-01-15, owed 6666.67: overpaid by 333.33 [RRA §3(a), §3(b)]"]
    # two payments, each below what is owed, adding up to more: 4,000.00 + 3,000.00 =
    # 7,000.00, over by 333.33 again, both named
    assert problems(BASE + [paid("2005-01-18", "2005-01-15", "4000.00"),
                            paid("2005-01-20", "2005-01-15", "3000.00")]) == [
        f"AdditionalInterestPaid e5, e6: 7000.00 paid to {LEHMAN} for Interest Payment Date "
        "2005-01-15, owed 6666.67: overpaid by 333.33 [RRA §3(a), §3(b)]"]


def test_a_payment_where_nothing_was_owed():
    assert problems(BASE + [paid("2005-07-15", "2005-07-15", "100.00")]) == [
        f"AdditionalInterestPaid e5: 100.00 paid to {LEHMAN} for Interest Payment Date "
        "2005-07-15, on which nothing was owed to anyone: no day of its interest period "
        "2005-01-15 to 2005-07-15 was in a Registration Default [RRA §3(a)]"]
    # not judged while the period still accrues: as of 2005-07-13 its last day, 07-14,
    # is still ahead
    assert problems(BASE + [paid("2005-07-01", "2005-07-15", "100.00")],
                    as_of="2005-07-13") == []


def test_a_payment_to_a_holder_not_of_record_or_not_entitled():
    # Citadel bought 10,000,000 on 2005-01-05, after the record date 2005-01-01: Lehman is
    # the Holder of record for 2005-01-15, and owed all 6,666.67
    citadel = "Citadel Equity Fund Ltd."
    objs = BASE + [ev("NotesTransferred", "2005-01-05", from_holder=LEHMAN, to_holder=citadel,
                      principal="10000000"),
                   paid("2005-01-18", "2005-01-15", "1111.11", holder=citadel)]
    assert problems(objs) == [
        f"AdditionalInterestPaid e6: 1111.11 paid to {citadel} for Interest Payment Date "
        f"2005-01-15, but {citadel} held no Transfer Restricted Securities on the record "
        "date 2005-01-01: it is not a Holder paid on that date [RRA §1 Record Holder, §3(b)]"]
    # asked for its Questionnaire on 2004-07-01 and never delivering it, Lehman is not
    # entitled on 2005-01-15 (RRA §3(a) last paragraph): owed 0.00, paid 6,666.67
    objs = BASE + [ev("QuestionnaireRequested", "2004-07-01", holders=[LEHMAN]),
                   paid("2005-01-18", "2005-01-15", "6666.67")]
    [found] = problems(objs)
    assert found.startswith(f"AdditionalInterestPaid e6: 6666.67 paid to {LEHMAN} for "
                            f"Interest Payment Date 2005-01-15, but {LEHMAN} was not "
                            "entitled to Additional Interest on that date (")
    assert found.endswith(") [RRA §3(a) last paragraph]")


def test_a_second_notice_for_the_same_trigger():
    objs = BASE + [ev("TrusteeNotified", "2004-10-29", about="e4"),
                   ev("TrusteeNotified", "2004-11-01", about="e4"),
                   ev("TrusteeNotified", "2004-11-02"),          # names no trigger
                   ev("HoldersAdvised", "2004-11-16", about="e4"),
                   ev("HoldersAdvised", "2004-11-17", about="e4")]
    assert problems(objs) == [
        "TrusteeNotified e6 of 2004-11-01: a second notice about event e4; e5 of 2004-10-29 "
        "gave it already [RRA §3(b)]",
        "HoldersAdvised e9 of 2004-11-17: a second notice about event e4; e8 of 2004-11-16 "
        "gave it already [RRA §4(b)(iii)]"]


def test_append_accepts_it_and_warns_on_standard_error(tmp_path):
    db = str(tmp_path / "ledger.db")
    ok(run("init", RRA, "--template", RRA, "--db", db))
    ok(run("append", "--db", db, input="".join(
        json.dumps({**o, "deal": RRA}) + "\n" for o in BASE[1:])))
    result = run("append", "--db", db, input=json.dumps(
        {**paid("2005-01-18", "2005-01-15", "7000.00"), "deal": RRA}) + "\n")
    assert result.exit_code == 0 and result.stdout.startswith("appended 1 event(s)")
    new = json.loads(ok(run("log", "--json", "--db", db)).splitlines()[-1])
    assert result.stderr == (
        f"warning: AdditionalInterestPaid {new['id']}: 7,000.00 paid to {LEHMAN} for "
        "Interest Payment Date 2005-01-15, owed 6,666.67: overpaid by 333.33 "
        "[RRA §3(a), §3(b)]\n")
    # `record` warns as `append` does: 7,000.00 + 6,666.67 = 13,666.67 paid, over by
    # 13,666.67 - 6,666.67 = 7,000.00
    result = run("record", "AdditionalInterestPaid", "--deal", RRA, "--date", "2005-01-18",
                 "payment_date=2005-01-15", f"holder={LEHMAN}", "amount=6666.67", "--db", db)
    assert result.exit_code == 0
    assert "13,666.67 paid to" in result.stderr and "overpaid by 7,000.00" in result.stderr
    # so does a payment for a date on which nothing was owed; a retraction says nothing
    result = run("record", "AdditionalInterestPaid", "--deal", RRA, "--date", "2005-07-15",
                 "payment_date=2005-07-15", f"holder={LEHMAN}", "amount=1.00", "--db", db)
    assert "nothing was owed to anyone" in result.stderr
    ok(run("retract", "seq:7", "--reason", "no payment was due", "--db", db))
    result = run("retract", "seq:6", "--reason", "paid twice", "--db", db)
    assert result.exit_code == 0 and result.stderr == ""
