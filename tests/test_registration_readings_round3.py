"""Issue 30, items 6 to 9: the Registration Rights Agreement's obligations and amounts,
each against the contract's words, with both sides' arithmetic worked by hand.

6. RRA §3(b): "So long as any Notes remain outstanding, the Company shall notify the
   Trustee ...": no notice is owed for a default when no Note is outstanding;
7. the ``since`` of a payment duty discharged by a conversion is the conversion's day;
8. ``conversion_judged_on``: Notes converted after the Interest Payment Date and before
   the rolled day it is paid keep that date's amount (RRA §3(a), §3(b));
9. ``shelf_buyer_paid``: a buyer under the shelf is paid, as Record Holder, the days its
   Notes accrued while Transfer Restricted; with ``not_record_holder`` nothing ("Record
   Holders of Transfer Restricted Securities").
"""

from __future__ import annotations

from decimal import Decimal

from projections.obligations.outlook import outlook
from tests.support import build, d, ev
from tests.test_registration_support import EFFECTIVE, LEHMAN, money, payment, report, rra

ALPHA, BUYER = "Alpha Fund", "Buyer"
EX1 = [ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15")]
SUSPENDED = [ev("SuspensionStarted", "2005-03-01", material_transaction=False),
             ev("SuspensionEnded", "2005-04-20")]


def trustee(rep):
    return [o for o in rep["obligations"] if o["kind"] == "notify-trustee"]


# ------------------------------------------------------------ 6. Trustee notice

def test_no_trustee_notice_is_owed_when_no_note_remains_outstanding():
    # Lehman converts all 60,000,000 on 2005-01-10 (the Conversion Shares stay Transfer
    # Restricted: the Effectiveness Period runs on, RRA §2(a)(iii)(z)); a Suspension Period
    # 2005-03-01 to 04-20: its 45th day 03-01 + 44 = 2005-04-14 is the default date of
    # (iv)(A); notice due two Business Days after Thu 04-14: Fri 04-15, Mon 04-18
    converted = ev("NotesConverted", "2005-01-10", holder=LEHMAN, principal="60000000",
                   shares=3906250)
    objs = rra(*EFFECTIVE, converted, *SUSPENDED)
    rep = report(objs, "2005-05-01")
    [default] = rep["registration"]["defaults"]
    assert (default["kind"], default["default_date"]) == ("(iv)(A)", "2005-04-14")
    # Notes outstanding on 2005-04-14: 60,000,000 issued - 60,000,000 converted = 0
    [o] = trustee(rep)
    assert (o["due"], o["state"]) == ("2005-04-18", "excused")
    assert "no Note outstanding on 2005-04-14" in o["by"]
    # not on the agenda (it was listed violated and overdue)
    o = outlook(build(objs), as_of=d("2005-05-01"), open_only=True)
    assert [x for x in o.duties if x.kind == "notify-trustee"] == []
    # 59,000,000 converted: 1,000,000 outstanding on 04-14, the notice is owed, and
    # missed from 04-19
    partly = rra(*EFFECTIVE, {**converted, "data": {**converted["data"],
                                                    "principal": "59000000",
                                                    "shares": 3841145}}, *SUSPENDED)
    [o] = trustee(report(partly, "2005-05-01"))
    assert (o["due"], o["state"], o["violated_since"]) == ("2005-04-18", "violated",
                                                           "2005-04-19")


# ------------------------------------------ 7. discharged since the conversion

def test_a_payment_duty_discharged_by_a_conversion_is_so_from_the_conversion():
    # SPEC §8 example 1: 6,666.67 for the Interest Payment Date 2005-01-15; Lehman converts
    # every Note on 2005-01-14, before it: forfeited (conversion_forfeits = unpaid)
    objs = rra(*EX1, ev("NotesConverted", "2005-01-14", holder=LEHMAN, principal="60000000",
                        shares=3906250))
    rep = report(objs, "2005-02-01")
    [o] = [o for o in rep["obligations"] if o["kind"] == "pay-additional-interest"]
    # discharged on the day of the conversion, not on the record date 2005-01-01
    assert (o["state"], o["since"], o["amount"]) == ("discharged", "2005-01-14", "0.00")


# ------------------------------------------------------ 8. conversion_judged_on

CONVERTED_ON_A_HOLIDAY = rra(
    *EX1, ev("NotesConverted", "2005-01-17", holder=ALPHA, principal="20000000",
             shares=1302083), holders={LEHMAN: "40000000", ALPHA: "20000000"})


def test_a_conversion_after_the_interest_payment_date_keeps_its_amount():
    # default (ii): 2004-10-29 to 2004-11-15 exclusive, 30/360 16 days. The Interest
    # Payment Date 2005-01-15 is a Saturday, Monday 01-17 Martin Luther King Day: paid
    # Tue 01-18. Alpha converted on 01-17, after the date the amount fell due:
    # 20,000,000 x 0.25% x 16/360 = 50,000 x 16/360 = 2,222.22; Lehman 40,000,000:
    # 100,000 x 16/360 = 4,444.44
    rep = report(CONVERTED_ON_A_HOLIDAY, "2005-02-01")
    pay = payment(rep, "2005-01-15")
    assert pay["amounts"] == {ALPHA: money(Decimal(50_000) * 16 / 360),
                              LEHMAN: money(Decimal(100_000) * 16 / 360)}
    assert pay["amounts"] == {ALPHA: "2222.22", LEHMAN: "4444.44"}
    # the reading is named where it moves the amount
    assert pay["basis"][ALPHA]["interpretations"]["conversion_judged_on"] == \
        "interest_payment_date"
    assert "conversion_judged_on" not in pay["basis"][LEHMAN].get("interpretations", {})
    # judged by the day the payment is made (Tue 01-18), the Notes were converted: 0.00
    alt = payment(report(CONVERTED_ON_A_HOLIDAY, "2005-02-01",
                         conversion_judged_on="payment_day"), "2005-01-15")
    assert alt["amounts"] == {ALPHA: "0.00", LEHMAN: "4444.44"}


def test_a_conversion_before_the_interest_payment_date_forfeits_under_both_readings():
    # converted Fri 2005-01-14: before 01-15 and before 01-18: forfeited either way
    objs = rra(*EX1, ev("NotesConverted", "2005-01-14", holder=ALPHA, principal="20000000",
                        shares=1302083), holders={LEHMAN: "40000000", ALPHA: "20000000"})
    for reading in ("interest_payment_date", "payment_day"):
        pay = payment(report(objs, "2005-02-01", conversion_judged_on=reading), "2005-01-15")
        assert pay["amounts"][ALPHA] == "0.00"


# ---------------------------------------------------------- 9. shelf_buyer_paid

def test_a_buyer_under_the_shelf_is_paid_the_days_its_notes_accrued_by_default():
    # default (ii) 16 days (30/360); Lehman sells 30,000,000 under the shelf to Buyer on
    # 2004-12-01 (effective since 11-15), before the record date 2005-01-01: the Notes
    # accrued their 16 days while Transfer Restricted. Each 30,000,000 x 0.25% x 16/360 =
    # 75,000 x 16/360 = 3,333.33
    objs = rra(*EX1, ev("NotesTransferred", "2004-12-01", from_holder=LEHMAN, to_holder=BUYER,
                        principal="30000000", under_shelf=True))
    pay = payment(report(objs, "2005-02-01"), "2005-01-15")
    assert pay["amounts"] == {BUYER: money(Decimal(75_000) * 16 / 360),
                              LEHMAN: "3333.33"} == {BUYER: "3333.33", LEHMAN: "3333.33"}
    assert pay["basis"][BUYER]["interpretations"]["shelf_buyer_paid"] == "accrued_days"
    assert "shelf_buyer_paid" not in pay["basis"][LEHMAN].get("interpretations", {})
    # not_record_holder: Buyer holds no Transfer Restricted Security on 2005-01-01:
    # nothing for that date; Lehman's own 30,000,000 are unchanged
    alt = payment(report(objs, "2005-02-01", shelf_buyer_paid="not_record_holder"),
                  "2005-01-15")
    assert alt["amounts"] == {BUYER: "0.00", LEHMAN: "3333.33"}
    assert "not held as Transfer Restricted Securities" in alt["basis"][BUYER]["arithmetic"]
    assert alt["basis"][BUYER]["interpretations"]["shelf_buyer_paid"] == "not_record_holder"


def test_notes_sold_under_the_shelf_after_the_record_date_are_the_sellers_either_way():
    # sold 2005-01-05, after the record date 2005-01-01: Lehman was the Record Holder of
    # them as Transfer Restricted Securities: 6,666.67 to Lehman under both readings
    objs = rra(*EX1, ev("NotesTransferred", "2005-01-05", from_holder=LEHMAN, to_holder=BUYER,
                        principal="60000000", under_shelf=True))
    for reading in ("accrued_days", "not_record_holder"):
        pay = payment(report(objs, "2005-02-01", shelf_buyer_paid=reading), "2005-01-15")
        assert pay["amounts"] == {LEHMAN: "6666.67"}
