"""Issue 12: the readings SPEC §6 added, each switched against its default on one
scenario, with both sides' arithmetic worked by hand (RRA §2(a)(iii), §3(a), §4(b)(i))."""

from decimal import Decimal

import pytest

from tests.support import ev
from tests.test_registration_support import (EFFECTIVE, LEHMAN, THREE_SHORT, money, payment,
                                             report, rra)

P = Decimal(60_000_000)
YEARLY = P * Decimal("0.0025")        # 150,000 a year at 0.25%
EX1 = [ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15")]
# SPEC §8 example 1: default (ii) accrues 2004-10-29 to 2004-11-15, 30/360 16 days:
# 150,000 x 16/360 = 6,666.67 for 2005-01-15 (record date 2005-01-01, paid 2005-01-18)
EX1_AMOUNT = money(YEARLY * 16 / 360)


def amounts(rep, payment_date):
    return payment(rep, payment_date)["amounts"]


def test_questionnaire_entitlement_judged_on_payment_or_record_date():
    # requested 2004-12-20, never delivered; the form's deadline: 20 days after = 2005-01-09,
    # after the record date 2005-01-01 and before the Interest Payment Date 2005-01-15
    objs = rra(*EX1, ev("QuestionnaireRequested", "2004-12-20", holders=[LEHMAN]))
    base = report(objs, "2005-02-01")
    alt = report(objs, "2005-02-01", questionnaire_entitlement_judged_on="record_date")
    assert EX1_AMOUNT == "6666.67"
    assert amounts(base, "2005-01-15") == {LEHMAN: "0.00"}        # deadline passed by 01-15
    assert amounts(alt, "2005-01-15") == {LEHMAN: EX1_AMOUNT}     # not passed on 01-01
    basis = payment(base, "2005-01-15")["basis"][LEHMAN]
    assert basis["interpretations"]["questionnaire_entitlement_judged_on"] == "payment_date"


def test_registered_securities_named_selling_holders_ends_the_period_under_y():
    a, b, c = "Fund A", "Fund B", "Buyer C"
    objs = rra(*EFFECTIVE, ev("QuestionnaireDelivered", "2004-09-01", holder=a),
               ev("NotesTransferred", "2005-03-01", from_holder=a, to_holder=c,
                  principal="30000000", under_shelf=True),
               ev("ShelfUnusable", "2005-04-01", reason="other"),
               ev("ShelfUsable", "2005-05-02", cure="exchange_act_report"),
               holders={a: "30000000", b: "30000000"})
    base = report(objs, "2005-08-01")
    alt = report(objs, "2005-08-01", registered_securities="named_selling_holders")
    # all_notes: B's $30M is still a TRS, the period runs to 2006-10-01; (iii): 5 Business
    # Days after Fri 04-01: 04-04, 05, 06, 07, 08; accrual 04-09 to 05-02, 30/360
    # 30 + 2 - 9 = 23 days; B on the record date 2005-07-01: 30,000,000 x 0.25% x 23/360
    # = 75,000 x 23/360 = 4,791.67 (C's Notes were sold under the shelf: not TRS)
    assert base["registration"]["effectiveness_period_end"] == "2006-10-01"
    assert amounts(base, "2005-07-15") == {b: money(Decimal(75_000) * 23 / 360)}
    assert amounts(base, "2005-07-15") == {b: "4791.67"}
    # named_selling_holders: only A was named (Questionnaire before effectiveness); A sold
    # all its Notes under the shelf on 2005-03-01: the period ends then, and the
    # unusability of 04-01 is outside it: no default, 0.00
    assert alt["registration"]["effectiveness_period_end"] == "2005-03-01"
    assert alt["registration"]["defaults"] == []
    assert alt["additional_interest"]["accrued_to_as_of"] == "0.00"
    # naming B too (an amendment before the sale) keeps the period running: same as default
    named_b = objs + [ev("AmendmentFiled", "2005-02-01", kind="post_effective",
                         holders_added=[b], principal_added="30000000")]
    alt_b = report(named_b, "2005-08-01", registered_securities="named_selling_holders")
    assert alt_b["registration"]["effectiveness_period_end"] == "2006-10-01"
    assert amounts(alt_b, "2005-07-15") == {b: "4791.67"}


CONVERTED_LATER = rra(*EX1, ev("NotesConverted", "2005-02-01", holder=LEHMAN,
                               principal="60000000", shares=3906250))


def test_conversion_forfeits_all_unpaid_loses_what_fell_due_and_was_unpaid():
    base = report(CONVERTED_LATER, "2005-03-01")
    alt = report(CONVERTED_LATER, "2005-03-01", conversion_forfeits="all_unpaid")
    # unpaid: 6,666.67 fell due on 2005-01-15 (paid on 01-18), before the conversion of
    # 02-01: it stays owed
    assert amounts(base, "2005-01-15") == {LEHMAN: "6666.67"}
    # all_unpaid: unpaid on the conversion day, so lost: (6,666.67 - 0) x 60M/60M lost: 0
    assert amounts(alt, "2005-01-15") == {LEHMAN: "0.00"}
    # 3,000 paid on 01-18, before conversion: stays paid; lost = (6,666.666... - 3,000) x
    # 60M/60M = 3,666.666...; owed 6,666.666... - 3,666.666... = 3,000.00: paid in full
    paid = CONVERTED_LATER + [ev("AdditionalInterestPaid", "2005-01-18",
                                 payment_date="2005-01-15", holder=LEHMAN, amount="3000")]
    alt = report(paid, "2005-03-01", conversion_forfeits="all_unpaid")
    assert amounts(alt, "2005-01-15") == {LEHMAN: "3000.00"}
    assert payment(alt, "2005-01-15")["status"] == "paid"
    base = report(paid, "2005-03-01")
    assert amounts(base, "2005-01-15") == {LEHMAN: "6666.67"}
    assert payment(base, "2005-01-15")["status"] == "underpaid"


def test_conversion_forfeits_unpaid_loses_the_whole_period_before_the_payment_date():
    # SPEC §6 "unpaid": converted before the Interest Payment Date: nothing on it, for its
    # whole period, whichever of unpaid / all_unpaid; future_only pays the days before
    early = rra(*EX1, ev("NotesConverted", "2004-12-01", holder=LEHMAN, principal="60000000",
                         shares=3906250))
    for reading in ("unpaid", "all_unpaid"):
        rep = report(early, "2005-03-01", conversion_forfeits=reading)
        assert rep["additional_interest"]["accrued_to_as_of"] == "0.00", reading
    rep = report(early, "2005-03-01", conversion_forfeits="future_only")
    assert amounts(rep, "2005-01-15") == {LEHMAN: EX1_AMOUNT}


def test_window_breach_suspension_default_has_no_grace():
    base = report(rra(*THREE_SHORT), "2005-08-01")
    alt = report(rra(*THREE_SHORT), "2005-08-01", window_breach="suspension_default")
    # 20 + 15 + 20 suspended days: the 90 days ending 05-11 hold 46 > 45; the excess runs
    # 05-11 to 05-21 (10 days). usability_default: 5 Business Days after Wed 05-11: 05-12,
    # 13, 16, 17, 18; accrual 05-19 to 05-21: 2 days; 150,000 x 2/360 = 833.33
    assert amounts(base, "2005-07-15") == {LEHMAN: money(YEARLY * 2 / 360)}
    assert amounts(base, "2005-07-15") == {LEHMAN: "833.33"}
    # suspension_default: (iv)(A) from 05-11 at once: 10 days; 150,000 x 10/360 = 4,166.67
    assert amounts(alt, "2005-07-15") == {LEHMAN: money(YEARLY * 10 / 360)}
    assert amounts(alt, "2005-07-15") == {LEHMAN: "4166.67"}
    [d] = alt["registration"]["defaults"]
    assert (d["kind"], d["default_date"], d["accrual_from"], d["accrual_until"]) == (
        "(iv)(A)", "2005-05-10", "2005-05-11", "2005-05-21")


def test_window_material_allowance_any_in_window():
    objs = rra(*EFFECTIVE,
               ev("SuspensionStarted", "2005-03-01", material_transaction=True),
               ev("SuspensionEnded", "2005-03-31"),                  # 30 days, material
               ev("SuspensionStarted", "2005-04-10", material_transaction=False),
               ev("SuspensionEnded", "2005-05-05"))                  # 25 days
    base = report(objs, "2005-08-01")
    alt = report(objs, "2005-08-01", window_material_allowance="any_in_window")
    # period: the second period's own right is 45 in 90; the 90 days ending 04-25 hold
    # 30 + 16 = 46 > 45: breach 04-25 to 05-05; 5 Business Days after Mon 04-25: 26, 27,
    # 28, 29, 05-02; default (iii) accrues 05-03 to 05-05: 2 days; 150,000 x 2/360 = 833.33
    assert [(b["kind"], b["first_day"], b["limit"]) for b in base["suspensions"]["breaches"]
            ] == [("window", "2005-04-25", 45)]
    assert amounts(base, "2005-07-15") == {LEHMAN: "833.33"}
    # any_in_window: the material period is in every such window: 60 in 90; at most
    # 30 + 25 = 55 <= 60: no breach, nothing accrues
    assert alt["suspensions"]["breaches"] == []
    assert alt["additional_interest"]["accrued_to_as_of"] == "0.00"


def test_rate_clock_once_per_deal():
    objs = rra(*EX1, ev("ShelfUnusable", "2005-03-01", reason="other"),
               ev("ShelfUsable", "2005-07-01", cure="exchange_act_report"))
    base = report(objs, "2005-08-01")
    alt = report(objs, "2005-08-01", rate_clock="once_per_deal")
    # episode 1: default (ii), 2004-10-29 to 2004-11-15: 17 calendar days of the clock,
    # 6,666.67 for 2005-01-15 either way
    assert amounts(base, "2005-01-15") == amounts(alt, "2005-01-15") == {LEHMAN: "6666.67"}
    # episode 2: (iii) 5 Business Days after Tue 03-01: 03-02, 03, 04, 07, 08; accrual
    # 03-09 to 07-01 (114 calendar days)
    # per_episode: 0.25% for 90 days, 03-09 to 06-07 (30/360: 88 days), then 1.00%
    # 06-07 to 07-01 (24 days): 60M x (0.0025 x 88 + 0.01 x 24)/360 = 60M x 0.46/360
    # = 76,666.67
    assert amounts(base, "2005-07-15") == {LEHMAN: money(P * Decimal("0.46") / 360)}
    assert amounts(base, "2005-07-15") == {LEHMAN: "76666.67"}
    # once_per_deal: 90 - 17 = 73 days left at 0.25%, 03-09 to 05-21 (30/360: 72 days),
    # then 1.00% 05-21 to 07-01 (40 days): 60M x (0.0025 x 72 + 0.01 x 40)/360
    # = 60M x 0.58/360 = 96,666.67
    assert amounts(alt, "2005-07-15") == {LEHMAN: money(P * Decimal("0.58") / 360)}
    assert amounts(alt, "2005-07-15") == {LEHMAN: "96666.67"}


# every value of every registration reading, on the demo history and on the scenarios
# above: the report computes, and every figure's arithmetic checks (RRA readings only)
def _every_value():
    from projections.interpretations import REGISTRY
    return [(n, v) for n, i in sorted(REGISTRY.items()) if i.clause.startswith("RRA")
            for v in i.alternatives]


@pytest.mark.parametrize("name, value", _every_value())
def test_every_value_of_every_reading_explains(name, value):
    from datetime import date

    from publishing.demo import rra_history
    from projections.explain import explain, figure_paths
    from projections.report import report as full_report
    from tests.support import build

    events = build(rra_history())
    rep = full_report(events, as_of=date(2007, 1, 1), interpretations={name: value})
    assert rep["interpretations"][name] == value
    for path in figure_paths(rep):
        out = explain(rep, path, events)
        assert out["arithmetic_checks_ok"] is True, path
        assert out["reproduces_figure"] is not False, path


def test_all_unpaid_amounts_explain_themselves():
    from datetime import date

    from projections.explain import explain, figure_paths
    from projections.report import report as full_report
    from tests.support import build

    paid = CONVERTED_LATER + [ev("AdditionalInterestPaid", "2005-01-18",
                                 payment_date="2005-01-15", holder=LEHMAN, amount="3000")]
    events = build(paid)
    rep = full_report(events, as_of=date(2005, 3, 1),
                      interpretations={"conversion_forfeits": "all_unpaid"})
    basis = rep["additional_interest"]["payments"][0]["basis"][LEHMAN]
    assert "conversion_forfeits=all_unpaid" in basis["arithmetic"]
    assert basis["arithmetic"].endswith("= 3000.000000 → 3000.00")
    for path in figure_paths(rep):
        out = explain(rep, path, events)
        assert out["arithmetic_checks_ok"] is True, path
        assert out["reproduces_figure"] is not False, path
