"""Who is paid Additional Interest on what (RRA §1 Record Holder, §3(a), §3(b); SPEC §4.4):
transfers, shelf sales, conversions, retirements, Questionnaires, payment dates."""

from decimal import Decimal

from tests.support import ev
from tests.test_registration_support import LEHMAN, money, payment, report, rra

EX1 = [ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15")]
EFFECTIVE = [ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-10-01")]
RATE_16_DAYS = Decimal("0.0025") * 16 / 360     # example 1: 0.25% × 16/360


def test_transfer_between_record_date_and_payment_date_pays_the_record_holder():
    objs = rra(*EX1, ev("NotesTransferred", "2005-01-05", from_holder=LEHMAN,
                        to_holder="Fund B", principal="60000000"))
    pay = payment(report(objs, "2005-02-01"), "2005-01-15")
    # Lehman held all on the record date 2005-01-01: paid the whole period
    assert pay["amounts"] == {LEHMAN: money(Decimal(60_000_000) * RATE_16_DAYS)}


def test_transfer_before_the_record_date_pays_the_transferee_for_the_whole_period():
    objs = rra(*EX1, ev("NotesTransferred", "2004-12-20", from_holder=LEHMAN,
                        to_holder="Fund B", principal="25000000"))
    pay = payment(report(objs, "2005-02-01"), "2005-01-15")
    # record date 2005-01-01: Lehman 35,000,000, Fund B 25,000,000, each for all 16 days
    assert pay["amounts"] == {"Fund B": money(Decimal(25_000_000) * RATE_16_DAYS),
                              LEHMAN: money(Decimal(35_000_000) * RATE_16_DAYS)}
    assert pay["amounts"] == {"Fund B": "2777.78", LEHMAN: "3888.89"}


def test_partial_conversion_before_the_record_date_forfeits_by_default():
    objs = rra(*EX1, ev("NotesConverted", "2004-12-01", holder=LEHMAN, principal="20000000",
                        shares=1302083))
    rep = report(objs, "2005-02-01")
    # unpaid: the 20,000,000 converted earn nothing; 40,000,000 × 0.25% × 16/360
    expected = Decimal(40_000_000) * RATE_16_DAYS
    assert payment(rep, "2005-01-15")["amounts"] == {LEHMAN: money(expected)} == {LEHMAN: "4444.44"}
    # future_only: the converting holder keeps the 16 days accrued before conversion
    rep = report(objs, "2005-02-01", conversion_forfeits="future_only")
    expected = Decimal(60_000_000) * RATE_16_DAYS
    assert payment(rep, "2005-01-15")["amounts"] == {LEHMAN: money(expected)} == {LEHMAN: "6666.67"}


def test_partial_conversion_during_a_default_stops_accrual_at_conversion():
    objs = rra(*EX1, ev("NotesConverted", "2004-11-05", holder=LEHMAN, principal="20000000",
                        shares=1302083))
    # future_only: 40,000,000 × 16 days + 20,000,000 × 30/360 [10-29, 11-05) = 30 + 5 - 29 = 6
    exact = (Decimal(40_000_000) * RATE_16_DAYS
             + Decimal(20_000_000) * Decimal("0.0025") * 6 / 360)
    rep = report(objs, "2005-02-01", conversion_forfeits="future_only")
    pay = payment(rep, "2005-01-15")
    assert pay["amounts"] == {LEHMAN: money(exact)} == {LEHMAN: "5277.78"}   # one rounding
    assert "conversion_forfeits" in pay["basis"][LEHMAN]["interpretations"]


def test_conversion_after_the_record_date_before_payment_forfeits_with_unpaid():
    objs = rra(*EX1, ev("NotesConverted", "2005-01-10", holder=LEHMAN, principal="60000000",
                        shares=3906250))
    assert payment(report(objs, "2005-02-01"), "2005-01-15")["amounts"] == {LEHMAN: "0.00"}
    rep = report(objs, "2005-02-01", conversion_forfeits="future_only")
    assert payment(rep, "2005-01-15")["amounts"] == {LEHMAN: "6666.67"}


def test_notes_sold_under_the_shelf_stop_accruing_and_keep_what_they_accrued():
    objs = rra(*EFFECTIVE, ev("ShelfUnusable", "2005-02-01", reason="material_misstatement"),
               ev("NotesTransferred", "2005-02-19", from_holder=LEHMAN, to_holder="Buyer",
                  principal="20000000", under_shelf=True),
               ev("ShelfUsable", "2005-03-01", cure="prospectus_supplement"))
    pay = payment(report(objs, "2005-08-01"), "2005-07-15")
    # default (iii): accrual [2005-02-09, 2005-03-01)
    # Lehman keeps 40,000,000 TRS: 30/360 [02-09, 03-01) = 30 + 1 - 9 = 22 days
    lehman = Decimal(40_000_000) * Decimal("0.0025") * 22 / 360
    # the 20,000,000 sold 02-19 accrued [02-09, 02-19) = 10 days, paid to the record holder
    buyer = Decimal(20_000_000) * Decimal("0.0025") * 10 / 360
    assert pay["amounts"] == {"Buyer": money(buyer), LEHMAN: money(lehman)}
    assert pay["amounts"] == {"Buyer": "1388.89", LEHMAN: "6111.11"}


def test_notes_retired_before_the_record_date_keep_what_they_accrued():
    objs = rra(*EX1, ev("NotesRetired", "2004-12-01", holder=LEHMAN, principal="10000000",
                        reason="repurchased"))
    pay = payment(report(objs, "2005-02-01"), "2005-01-15")
    # RRA §3(b) survival: 50,000,000 held on the record date + 10,000,000 retired after
    # the default was cured: all 60,000,000 × 16 days, one rounding
    assert pay["amounts"] == {LEHMAN: money(Decimal(60_000_000) * RATE_16_DAYS)}


def test_holder_who_missed_its_questionnaire_deadline_is_not_entitled():
    objs = rra(*EX1, ev("QuestionnaireRequested", "2004-08-02", holders="all"),
               ev("QuestionnaireDelivered", "2004-08-20", holder="A"),
               ev("QuestionnaireDelivered", "2004-09-15", holder="B"),
               holders={"A": "30000000", "B": "30000000"})
    rep = report(objs, "2005-02-01")
    pay = payment(rep, "2005-01-15")
    # 20 Business Days after 2004-08-02: Aug 3-6 (4), 9-13 (9), 16-20 (14), 23-27 (19), 30 (20)
    b_deadline = [o for o in rep["deadlines"] if o["obligation"] == "Questionnaire from B"][0]
    assert (b_deadline["due"], b_deadline["status"], b_deadline["late_on"]) == (
        "2004-08-30", "missed", "2004-09-15")
    assert pay["amounts"] == {"A": money(Decimal(30_000_000) * RATE_16_DAYS), "B": "0.00"}
    assert pay["amounts"]["A"] == "3333.33"
    assert pay["basis"]["B"]["clause"] == "RRA §3(a) (last paragraph)"
    # entitlement: the Questionnaire's own deadline (RRA §3(a), Exhibit A), 08-02 + 20 days
    assert "2004-08-22" in pay["basis"]["B"]["rule"]


def test_questionnaire_all_asks_only_holders_of_record_on_its_date():
    objs = rra(*EX1, ev("QuestionnaireRequested", "2004-08-02", holders="all"),
               ev("NotesTransferred", "2004-09-01", from_holder=LEHMAN, to_holder="Late Buyer",
                  principal="6000000"))
    rep = report(objs, "2005-02-01")
    asked = [o["holder"] for o in rep["deadlines"] if o["obligation"].startswith("Questionnaire")]
    assert asked == [LEHMAN]
    pay = payment(rep, "2005-01-15")
    # Lehman missed its deadline; Late Buyer was never asked: entitled by default
    assert pay["amounts"] == {"Late Buyer": money(Decimal(6_000_000) * RATE_16_DAYS),
                              LEHMAN: "0.00"}


def test_payment_dates_roll_over_weekends_and_holidays():
    rep = report(rra(), "2007-02-01")   # never filed: a payment entry every period
    paid_on = {p["payment_date"]: p["paid_on"] for p in rep["additional_interest"]["payments"]}
    assert paid_on["2005-01-15"] == "2005-01-18"   # Saturday; Monday 17th is MLK Day
    assert paid_on["2005-07-15"] == "2005-07-15"   # Friday
    assert paid_on["2006-07-15"] == "2006-07-17"   # Saturday
    assert paid_on["2007-01-15"] == "2007-01-16"   # Monday, Martin Luther King Day
    record = {p["payment_date"]: p["record_date"] for p in rep["additional_interest"]["payments"]}
    assert record["2006-07-15"] == "2006-07-01" and record["2007-01-15"] == "2007-01-01"


def test_a_declared_closure_moves_the_payment_day():
    closure = {"type": "CalendarDayDeclared", "deal": "rra", "date": "2005-07-01",
               "data": {"day": "2005-07-15", "business_day": False,
                        "reason": "emergency closure"}}
    objs = rra(closure)
    pay = payment(report(objs, "2005-08-01"), "2005-07-15")
    assert pay["paid_on"] == "2005-07-18"   # Friday closed; Monday


def test_underpaid_and_overpaid():
    paid = lambda amount: ev("AdditionalInterestPaid", "2005-01-18", payment_date="2005-01-15",
                             holder=LEHMAN, amount=amount)
    assert payment(report(rra(*EX1, paid("6000.00")), "2005-02-01"),
                   "2005-01-15")["status"] == "underpaid"
    assert payment(report(rra(*EX1, paid("7000.00")), "2005-02-01"),
                   "2005-01-15")["status"] == "overpaid"
    early = payment(report(rra(*EX1), "2005-01-16"), "2005-01-15")
    assert (early["status"], early["late"]) == ("due", False)


def test_a_questionnaire_deadline_after_as_of_has_not_passed_yet():
    objs = rra(*EX1, ev("QuestionnaireRequested", "2004-11-19", holders=[LEHMAN]))
    # 20 Business Days after Fri 2004-11-19 (Thanksgiving 11-25 skipped): 22-24 (3), 26 (4),
    # 29-30 (6), Dec 1-3 (9), 6-10 (14), 13-17 (19), 20 (20) -> 2004-12-20
    # (the §2(b) deadline; entitlement read the same way, as SPEC §4.4 does)
    spec = {"questionnaire_deadline": "section_2b_business_days"}
    rep = report(objs, "2004-12-15", **spec)
    assert deadline_of(rep, LEHMAN) == ("2004-12-20", "open")
    pay = payment(rep, "2005-01-15")
    assert (pay["status"], pay["amounts"]) == ("accruing", {LEHMAN: "6666.67"})
    # the Questionnaire's own deadline (Exhibit A) is 11-19 + 20 days = 2004-12-09, which
    # had passed by 2004-12-15: not entitled under the default reading
    assert payment(report(objs, "2004-12-15"), "2005-01-15")["amounts"] == {LEHMAN: "0.00"}
    # as of the end of 2004-12-08 the form's deadline is still ahead: entitled for now
    assert payment(report(objs, "2004-12-08"), "2005-01-15")["amounts"] == {LEHMAN: "6666.67"}
    rep = report(objs, "2005-02-01", **spec)
    assert deadline_of(rep, LEHMAN) == ("2004-12-20", "missed")
    assert payment(rep, "2005-01-15")["amounts"] == {LEHMAN: "0.00"}


def deadline_of(rep, holder):
    [o] = [o for o in rep["deadlines"] if o["obligation"] == f"Questionnaire from {holder}"]
    return o["due"], o["status"]


def test_principal_that_changes_mid_period_cuts_the_sub_periods():
    # the option Notes (12,000,000) issued 2004-08-31 to the same holder; never filed:
    # default (i) from 2004-07-16, 0.25% to day 90, 1.00% from 2004-10-14 (07-16 + 90)
    objs = rra(ev("NotesIssued", "2004-08-31", holder=LEHMAN, principal="12000000"))
    pay = payment(report(objs, "2005-02-01"), "2005-01-15")
    # sub-periods of constant rate and principal (SPEC §4.4), 30/360:
    # [07-16, 08-31) 60,000,000 at 0.25%: 30 + 31 - 16 = 45 days (d2 = 31 stays, d1 < 30)
    # [08-31, 10-14) 72,000,000 at 0.25%: d1 = 31 -> 30; 60 + 14 - 30 = 44 days
    # [10-14, 01-15) 72,000,000 at 1.00%: 360 - 270 + 1 = 91 days
    expected = (Decimal(60_000_000) * Decimal("0.0025") * 45
                + Decimal(72_000_000) * Decimal("0.0025") * 44
                + Decimal(72_000_000) * Decimal("0.01") * 91) / 360
    assert pay["amounts"] == {LEHMAN: money(expected)} == {LEHMAN: "222750.00"}
