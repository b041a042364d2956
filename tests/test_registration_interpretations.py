"""Each registration interpretation (SPEC §6) switched against its default, showing exactly
the difference it makes; the arithmetic of both readings worked by hand."""

from decimal import Decimal

from projections.interpretations import REGISTRY
from projections.registration.readings import REGISTRATION_READINGS
from tests.support import ev
from tests.test_registration_support import (EFFECTIVE, LEHMAN, THREE_SHORT, money, payment,
                                             report, rra)

P = Decimal(60_000_000)
EX1 = rra(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15"))


def amounts(rep, payment_date):
    return payment(rep, payment_date)["amounts"]


def test_every_registration_reading_is_in_the_registry():
    assert set(REGISTRATION_READINGS) <= set(REGISTRY)


def test_default_date_first_breach_day_starts_accrual_a_day_later():
    base = report(EX1, "2005-02-01")
    alt = report(EX1, "2005-02-01", default_date="first_breach_day")
    # last_compliant_day: default date 2004-10-28, accrual 10-29..11-14: 30/360 16 days
    assert amounts(base, "2005-01-15") == {LEHMAN: money(P * Decimal("0.0025") * 16 / 360)}
    # first_breach_day: default date 2004-10-29, accrual 10-30..11-14: 30/360 15 days
    assert amounts(alt, "2005-01-15") == {LEHMAN: money(P * Decimal("0.0025") * 15 / 360)}
    assert amounts(alt, "2005-01-15") == {LEHMAN: "6250.00"}
    d = alt["registration"]["defaults"][0]
    assert (d["default_date"], d["accrual_from"]) == ("2004-10-29", "2004-10-30")
    assert d["basis"]["interpretations"] == {"default_date": "first_breach_day"}
    # the Trustee notice moves with it: 2 Business Days after 10-29 (Fri) = 11-02
    notice = [o for o in alt["deadlines"] if o["obligation"].startswith("notify the Trustee")][0]
    assert notice["due"] == "2004-11-02"


LATE_UNUSABLE = rra(*EFFECTIVE, ev("ShelfUnusable", "2006-07-03", reason="other"),
                    ev("ShelfUsable", "2006-08-01", cure="exchange_act_report"))


def test_rate_after_second_anniversary_inside_the_first_90_days():
    # 5 Business Days after Mon 2006-07-03 (07-04 is Independence Day): 5, 6, 7, 10, 11
    # accrual [2006-07-12, 2006-08-01), all after 2006-06-30, split by the Interest Payment
    # Date 2006-07-15: 30/360 [07-12, 07-15) = 3 days; [07-15, 08-01) = 30 + 1 - 15 = 16
    base = report(LATE_UNUSABLE, "2007-02-01")
    alt = report(LATE_UNUSABLE, "2007-02-01",
                 rate_after_second_anniversary="first_90_days_always_quarter_point")
    # calendar: 3.00% from the 2nd anniversary even on the episode's first days
    assert amounts(base, "2006-07-15") == {LEHMAN: money(P * Decimal("0.03") * 3 / 360)}
    assert amounts(base, "2007-01-15") == {LEHMAN: money(P * Decimal("0.03") * 16 / 360)}
    assert (amounts(base, "2006-07-15"), amounts(base, "2007-01-15")) == (
        {LEHMAN: "15000.00"}, {LEHMAN: "80000.00"})
    # first_90_days_always_quarter_point: 0.25% for the same days
    assert amounts(alt, "2006-07-15") == {LEHMAN: money(P * Decimal("0.0025") * 3 / 360)}
    assert amounts(alt, "2007-01-15") == {LEHMAN: money(P * Decimal("0.0025") * 16 / 360)}
    assert (amounts(alt, "2006-07-15"), amounts(alt, "2007-01-15")) == (
        {LEHMAN: "1250.00"}, {LEHMAN: "6666.67"})
    assert base["additional_interest"]["rate_segments"][0]["basis"]["clause"] == "RRA §3(a)(iii)"
    assert alt["additional_interest"]["rate_segments"][0]["basis"]["clause"] == "RRA §3(a)(i)"


def test_overlapping_defaults_additive_gives_each_default_its_own_clock():
    objs = rra(ev("ShelfFiled", "2004-11-30"), ev("ShelfEffective", "2004-12-15"))
    base = report(objs, "2005-02-01")
    alt = report(objs, "2005-02-01", overlapping_defaults="additive")
    # episode: 0.25% [07-16, 10-14) 88 days + 1.00% [10-14, 12-15) 61 days (30/360)
    assert amounts(base, "2005-01-15") == {
        LEHMAN: money(P * (Decimal("0.0025") * 88 + Decimal("0.01") * 61) / 360)}
    # additive: (i) 0.25% [07-16, 10-14), 1.00% [10-14, 11-30); (ii) 0.25% [10-29, 12-15).
    # Total rate by runs: 0.25% [07-16, 10-14) 88 days; 1.00% [10-14, 10-29) 15 days;
    # 1.25% [10-29, 11-30) 30 + 1 = 31 days; 0.25% [11-30, 12-15) 15 days
    expected = P * (Decimal("0.0025") * 88 + Decimal("0.01") * 15 + Decimal("0.0125") * 31
                    + Decimal("0.0025") * 15) / 360
    assert amounts(alt, "2005-01-15") == {LEHMAN: money(expected)} == {LEHMAN: "132500.00"}


def test_conversion_forfeits_future_only_keeps_accrued_interest():
    objs = rra(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15"),
               ev("NotesConverted", "2004-12-01", holder=LEHMAN, principal="20000000",
                  shares=1302083))
    base = report(objs, "2005-02-01")
    alt = report(objs, "2005-02-01", conversion_forfeits="future_only")
    # the difference is exactly the converted 20,000,000 × 0.25% × 16/360 = 2222.22…
    assert amounts(base, "2005-01-15") == {LEHMAN: money(Decimal(40_000_000) * Decimal("0.0025") * 16 / 360)}
    assert amounts(alt, "2005-01-15") == {LEHMAN: money(P * Decimal("0.0025") * 16 / 360)}


def test_no_questionnaire_request_not_entitled():
    base = report(EX1, "2005-02-01")
    alt = report(EX1, "2005-02-01", no_questionnaire_request="not_entitled")
    assert amounts(base, "2005-01-15") == {LEHMAN: "6666.67"}
    assert amounts(alt, "2005-01-15") == {LEHMAN: "0.00"}
    basis = payment(alt, "2005-01-15")["basis"][LEHMAN]
    # the amount relies on the Questionnaire reading and on the readings behind default (ii)
    # and its rate (RRA §3(a)): every one is named with the value in force
    assert basis["interpretations"] == {"default_date": "last_compliant_day",
                                        "overlapping_defaults": "episode",
                                        "rate_after_second_anniversary": "calendar",
                                        "rate_clock": "per_episode",
                                        "no_questionnaire_request": "not_entitled"}
    assert "would be 60000000 × 0.25% × 16/360" in basis["arithmetic"]
    # a holder that delivered without being asked is entitled under either reading
    delivered = EX1 + [ev("QuestionnaireDelivered", "2004-09-01", holder=LEHMAN)]
    alt = report(delivered, "2005-02-01", no_questionnaire_request="not_entitled")
    assert amounts(alt, "2005-01-15") == {LEHMAN: "6666.67"}


def test_window_breach_report_only_accrues_nothing():
    objs = rra(*THREE_SHORT)
    base = report(objs, "2005-08-01")
    alt = report(objs, "2005-08-01", window_breach="report_only")
    # usability_default: (iii) accruing [2005-05-19, 2005-05-21): 2 days (30/360)
    assert amounts(base, "2005-07-15") == {LEHMAN: money(P * Decimal("0.0025") * 2 / 360)}
    # report_only: the same breach is listed, no default, no payment
    assert [(b["kind"], b["first_day"], b["days"]) for b in alt["suspensions"]["breaches"]] == [
        ("window", "2005-05-11", 10)]
    assert alt["suspensions"]["breaches"][0]["basis"]["interpretations"] == {
        "window_breach": "report_only", "window_material_allowance": "period"}
    assert alt["registration"]["defaults"] == []
    assert alt["additional_interest"]["payments"] == []


def test_default_after_effectiveness_period_continues():
    # effective 2004-10-01: the Effectiveness Period ends 2006-10-01 (2nd anniversary).
    # Unusable Fri 2006-09-01; 5 Business Days (09-04 is Labor Day): 5, 6, 7, 8, 11
    objs = rra(*EFFECTIVE, ev("ShelfUnusable", "2006-09-01", reason="other"),
               ev("ShelfUsable", "2006-10-20", cure="prospectus_supplement"))
    base = report(objs, "2007-02-01")
    alt = report(objs, "2007-02-01", default_after_effectiveness_period="continues")
    d = base["registration"]["defaults"][0]
    assert (d["default_date"], d["accrual_until"], d["stopped_by"]) == (
        "2006-09-11", "2006-10-01", "effectiveness_period_end")
    # ends: [09-12, 10-01) = 30 + 1 - 12 = 19 days at 3.00% (after the 2nd anniversary)
    assert amounts(base, "2007-01-15") == {LEHMAN: money(P * Decimal("0.03") * 19 / 360)}
    assert amounts(base, "2007-01-15") == {LEHMAN: "95000.00"}
    # continues: [09-12, 10-20) = 30 + 20 - 12 = 38 days at 3.00%
    assert amounts(alt, "2007-01-15") == {LEHMAN: money(P * Decimal("0.03") * 38 / 360)}
    assert amounts(alt, "2007-01-15") == {LEHMAN: "190000.00"}


def test_questionnaire_deadline_section_2b_business_days():
    # requested Wed 2004-11-10, delivered Mon 2004-12-06.
    # questionnaire_form (RRA §3(a) "the deadline specified therein"; Exhibit A "on or before
    # the 20th date following delivery"): 2004-11-10 + 20 days = 2004-11-30 -> late, nothing.
    # section_2b_business_days (SPEC §4.4): 20 Business Days after 2004-11-10 = 2004-12-10
    # (SPEC §8 example 3) -> on time, entitled to example 1's 60,000,000 × 0.25% × 16/360.
    objs = EX1 + [ev("QuestionnaireRequested", "2004-11-10", holders=[LEHMAN]),
                  ev("QuestionnaireDelivered", "2004-12-06", holder=LEHMAN)]
    base = report(objs, "2005-02-01")
    alt = report(objs, "2005-02-01", questionnaire_deadline="section_2b_business_days")
    assert amounts(base, "2005-01-15") == {LEHMAN: "0.00"}
    assert amounts(alt, "2005-01-15") == {LEHMAN: money(P * Decimal("0.0025") * 16 / 360)}
    assert "2004-11-30" in payment(base, "2005-01-15")["basis"][LEHMAN]["rule"]
    assert payment(base, "2005-01-15")["basis"][LEHMAN]["interpretations"][
        "questionnaire_deadline"] == "questionnaire_form"
    # the §2(b) obligation itself is the same under both readings: met on 2004-12-06
    for rep in (base, alt):
        [q] = [o for o in rep["deadlines"] if o["obligation"] == f"Questionnaire from {LEHMAN}"]
        assert (q["due"], q["status"]) == ("2004-12-10", "met")
