"""SPEC §8 worked examples 1, 2 and 3, checked against the hand arithmetic of the SPEC."""

from decimal import Decimal

from tests.support import ev
from tests.test_registration_support import LEHMAN, money, payment, report, rra

EXAMPLE_1 = rra(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15"))


def test_example_1_default_ii_30_360():
    rep = report(EXAMPLE_1, "2005-02-01")
    reg = rep["registration"]
    assert reg["filing_deadline"] == "2004-07-15"
    assert reg["effectiveness_deadline"] == "2004-10-28"
    assert [(x["clause"], x["default_date"], x["accrual_from"], x["cured_on"])
            for x in reg["defaults"]] == [("RRA §3(a)(ii)", "2004-10-28", "2004-10-29",
                                           "2004-11-15")]
    pay = payment(rep, "2005-01-15")
    # 30/360 days from 2004-10-29 to 2004-11-15 = 30*(11-10) + (15-29) = 16
    expected = Decimal(60_000_000) * Decimal("0.0025") * 16 / 360
    assert money(expected) == "6666.67"
    assert pay["amounts"] == {LEHMAN: "6666.67"}
    assert pay["total"] == "6666.67"
    # Jan 15, 2005 is a Saturday and Jan 17 is Martin Luther King Day
    assert pay["paid_on"] == "2005-01-18"
    assert pay["record_date"] == "2005-01-01"
    assert (pay["period_start"], pay["period_end"]) == ("2004-06-30", "2005-01-15")
    assert "60000000 × 0.25% × 16/360" in pay["basis"][LEHMAN]["arithmetic"]
    assert pay["basis"][LEHMAN]["arithmetic"].endswith("= 6666.666666… → 6666.67")
    assert rep["additional_interest"]["accrued_to_as_of"] == "6666.67"
    assert rep["additional_interest"]["by_holder"] == {LEHMAN: "6666.67"}
    assert pay["status"] == "due" and pay["late"] is True
    # the amount names what it rests on: the DealOpened (deadline), the ShelfEffective
    # (cure), the NotesIssued (principal) and the readings behind default (ii) and its rate
    basis = pay["basis"][LEHMAN]
    assert {"e1", "e2", "e4"} <= set(basis["events"])
    assert set(basis["interpretations"]) == {"default_date", "overlapping_defaults",
                                             "rate_after_second_anniversary", "rate_clock",
                                             "no_questionnaire_request"}


def test_example_1_act_360():
    rep = report(rra(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15"),
                     day_count="ACT/360"), "2005-02-01")
    # actual days 2004-10-29 .. 2004-11-14 = 3 + 14 = 17
    expected = Decimal(60_000_000) * Decimal("0.0025") * 17 / 360
    assert money(expected) == "7083.33"
    assert payment(rep, "2005-01-15")["amounts"] == {LEHMAN: "7083.33"}


def test_example_1_paid_in_full():
    rep = report(EXAMPLE_1 + [ev("AdditionalInterestPaid", "2005-01-18",
                                 payment_date="2005-01-15", holder=LEHMAN, amount="6666.67")],
                 "2005-02-01")
    pay = payment(rep, "2005-01-15")
    assert pay["paid"] == {LEHMAN: "6666.67"} and pay["status"] == "paid"
    assert pay["late"] is False


def test_example_2_suspension_past_its_45th_day():
    rep = report(rra(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-10-01"),
                     ev("SuspensionStarted", "2005-03-01", material_transaction=False),
                     ev("SuspensionEnded", "2005-04-20")), "2005-08-01")
    period = rep["suspensions"]["periods"][0]
    # 2005-03-01 .. 2005-04-19: 31 + 19 = 50 days; 45th day = 03-01 + 44 = 04-14
    assert period["days"] == 50
    assert period["last_permitted_day"] == "2005-04-14"
    [default] = rep["registration"]["defaults"]
    assert (default["clause"], default["default_date"], default["accrual_from"],
            default["cured_on"]) == ("RRA §3(a)(iv)(A)", "2005-04-14", "2005-04-15",
                                     "2005-04-20")
    # 30/360 days 2005-04-15 .. 2005-04-20 = 5
    expected = Decimal(60_000_000) * Decimal("0.0025") * 5 / 360
    assert money(expected) == "2083.33"
    pay = payment(rep, "2005-07-15")
    assert pay["amounts"] == {LEHMAN: "2083.33"}
    assert pay["paid_on"] == "2005-07-15"  # a Friday


def test_report_keeps_every_key_spec_section_7_names():
    rep = report(EXAMPLE_1 + [ev("ConsentGiven", "2005-01-03", holder=LEHMAN, matter="m")],
                 "2005-02-01")
    assert {"registration", "suspensions", "additional_interest", "deadlines",
            "majority"} <= set(rep)
    assert {"filing_deadline", "effectiveness_deadline", "filed_on", "effective_on",
            "effectiveness_period_end", "in_default", "defaults"} <= set(rep["registration"])
    assert {"clause", "default_date", "accrual_from", "cured_on", "episode", "events",
            "basis"} <= set(rep["registration"]["defaults"][0])
    assert {"periods", "trailing_90", "trailing_360", "max_90", "max_360", "limit_90",
            "limit_360", "breaches"} <= set(rep["suspensions"])
    ai = rep["additional_interest"]
    assert {"accrued_to_as_of", "by_holder", "payments", "rate_segments"} <= set(ai)
    assert {"payment_date", "paid_on", "record_date", "period_start", "period_end", "amounts",
            "total", "paid", "status", "basis"} <= set(ai["payments"][0])
    assert {"basis"} <= set(ai["rate_segments"][0])
    assert {"obligation", "clause", "due", "status", "met_on", "events",
            "basis"} <= set(rep["deadlines"][0])
    assert {"consenting", "total", "share", "majority"} <= set(rep["majority"]["m"])
    for basis in (rep["registration"]["defaults"][0]["basis"], ai["rate_segments"][0]["basis"],
                  ai["payments"][0]["basis"][LEHMAN], rep["deadlines"][0]["basis"]):
        assert {"clause", "rule", "events"} <= set(basis)


def test_example_3_business_days():
    # SPEC §8 example 3: 20 Business Days after Wed 2004-11-10 is Fri 2004-12-10 (Veterans
    # Day 11-11 and Thanksgiving 11-25 skipped): Nov 12 (1), 15-19 (6), 22-24 (9),
    # 26 (10), 29-30 (12), Dec 1-3 (15), 6-10 (20). As a Questionnaire Deadline (RRA §2(b)):
    objs = rra(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15"),
               ev("QuestionnaireRequested", "2004-11-10", holders=[LEHMAN]),
               ev("QuestionnaireDelivered", "2004-12-10", holder=LEHMAN),
               ev("NoticeSent", "2005-01-14", to="Trustee", subject="Registration Default",
                  method="courier"))
    rep = report(objs, "2005-02-01")
    [q] = [o for o in rep["deadlines"] if o["obligation"] == f"Questionnaire from {LEHMAN}"]
    assert (q["due"], q["status"], q["met_on"]) == ("2004-12-10", "met", "2004-12-10")
    # delivered on the §2(b) deadline ("prior to or on"). Entitlement (RRA §3(a)) turns on
    # "the deadline specified therein", i.e. in the Questionnaire (Exhibit A: "on or before
    # the 20th date following delivery"): 2004-11-10 + 20 days = 2004-11-30, missed, so by
    # default the Holder is not entitled; under SPEC §4.4's reading (the §2(b) deadline,
    # 2004-12-10) it is, and gets example 1's 6666.67.
    assert payment(rep, "2005-01-15")["amounts"] == {LEHMAN: "0.00"}
    spec = report(objs, "2005-02-01", questionnaire_deadline="section_2b_business_days")
    assert payment(spec, "2005-01-15")["amounts"] == {LEHMAN: "6666.67"}
    # one Business Day after Fri 2005-01-14 is Tue 2005-01-18 (Mon 01-17 is Martin Luther
    # King Day): a courier notice (RRA §10(E)) is deemed given then
    [notice] = rep["notices"]
    assert notice["deemed_given"] == "2005-01-18"
    # a day later is too late: delivered 2004-12-13 the Holder is not entitled
    late = [o if o["type"] != "QuestionnaireDelivered" else
            ev("QuestionnaireDelivered", "2004-12-13", holder=LEHMAN) for o in objs]
    assert payment(report(late, "2005-02-01", questionnaire_deadline="section_2b_business_days"),
                   "2005-01-15")["amounts"] == {LEHMAN: "0.00"}
