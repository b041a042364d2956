"""Registration Defaults (RRA §3(a)(i)-(iv)), suspensions (§4(b)(i)) and the rate schedule,
each expected figure worked by hand from the contract."""

from decimal import Decimal

from tests.support import ev
from tests.test_registration_support import (EFFECTIVE, LEHMAN, THREE_SHORT, money, payment,
                                             report, rra)

P = Decimal(60_000_000)


def kinds(rep):
    return [(x["kind"], x["default_date"], x["accrual_from"], x["cured_on"])
            for x in rep["registration"]["defaults"]]


def test_i_shelf_never_filed_is_in_default_from_the_day_after_the_deadline():
    rep = report(rra(), "2004-08-31")
    # RRA §2(a)(i): 2004-06-30 + 15 days = 2004-07-15; accrual from 2004-07-16, uncured
    assert kinds(rep) == [("(i)", "2004-07-15", "2004-07-16", None)]
    assert rep["registration"]["in_default"] is True
    # through as_of inclusive: 30/360 [2004-07-16, 2004-09-01) = 30*2 + (1-16) = 45 days
    expected = P * Decimal("0.0025") * 45 / 360
    assert rep["additional_interest"]["accrued_to_as_of"] == money(expected) == "18750.00"
    assert rep["additional_interest"]["accrued_through"] == "2004-08-31"
    pay = payment(rep, "2005-01-15")
    assert pay["status"] == "accruing"


def test_accrual_to_as_of_includes_as_of():
    # as_of = the first accrual day: one day counted (30/360 [07-16, 07-17) = 1)
    rep = report(rra(), "2004-07-16")
    expected = P * Decimal("0.0025") * 1 / 360
    assert rep["additional_interest"]["accrued_to_as_of"] == money(expected) == "416.67"
    # on the deadline itself there is no default yet
    rep = report(rra(), "2004-07-15")
    assert rep["registration"]["defaults"] == []
    assert rep["registration"]["in_default"] is False
    assert rep["additional_interest"]["accrued_to_as_of"] == "0.00"


def test_i_filed_late_then_effective_in_time():
    rep = report(rra(ev("ShelfFiled", "2004-07-20"), ev("ShelfEffective", "2004-10-01")),
                 "2005-02-01")
    assert kinds(rep) == [("(i)", "2004-07-15", "2004-07-16", "2004-07-20")]
    # 30/360 [07-16, 07-20) = 4 days
    expected = P * Decimal("0.0025") * 4 / 360
    assert payment(rep, "2005-01-15")["amounts"] == {LEHMAN: money(expected)} == {LEHMAN: "1666.67"}


def test_filed_on_the_deadline_is_no_default():
    rep = report(rra(ev("ShelfFiled", "2004-07-15"), ev("ShelfEffective", "2004-10-28")),
                 "2005-02-01")
    assert kinds(rep) == []
    assert rep["additional_interest"]["payments"] == []


def test_overlapping_i_and_ii_form_one_episode_crossing_90_days():
    objs = rra(ev("ShelfFiled", "2004-11-30"), ev("ShelfEffective", "2004-12-15"))
    rep = report(objs, "2005-02-01")
    assert kinds(rep) == [("(i)", "2004-07-15", "2004-07-16", "2004-11-30"),
                          ("(ii)", "2004-10-28", "2004-10-29", "2004-12-15")]
    assert [x["episode"] for x in rep["registration"]["defaults"]] == [1, 1]
    # one clock from 2004-07-16: day 91 = 07-16 + 90 = 2004-10-14
    segs = [(s["start"], s["end"], s["rate"]) for s in rep["additional_interest"]["rate_segments"]]
    assert segs[0] == ("2004-07-16", "2004-10-14", "0.25")
    assert {s[2] for s in segs[1:]} == {"1.00"} and segs[-1][1] == "2004-12-15"
    # 30/360: [07-16, 10-14) = 90 - 2 = 88 days at 0.25%; [10-14, 12-15) = 60 + 1 = 61 at 1.00%
    expected = P * (Decimal("0.0025") * 88 + Decimal("0.01") * 61) / 360
    assert money(expected) == "138333.33"
    assert payment(rep, "2005-01-15")["amounts"] == {LEHMAN: "138333.33"}


def test_iii_unusable_not_cured_within_five_business_days():
    objs = rra(*EFFECTIVE, ev("ShelfUnusable", "2005-02-01", reason="stop_order"),
               ev("ShelfUsable", "2005-02-15", cure="order_lifted"))
    rep = report(objs, "2005-08-01")
    # 5 Business Days after Tue 2005-02-01: 02, 03, 04, 07, 08 -> 2005-02-08
    assert kinds(rep) == [("(iii)", "2005-02-08", "2005-02-09", "2005-02-15")]
    # 30/360 [02-09, 02-15) = 6 days
    expected = P * Decimal("0.0025") * 6 / 360
    assert payment(rep, "2005-07-15")["amounts"] == {LEHMAN: money(expected)} == {LEHMAN: "2500.00"}


def test_iii_cured_the_day_after_the_fifth_business_day_is_not_listed():
    objs = rra(*EFFECTIVE, ev("ShelfUnusable", "2005-02-01", reason="other"),
               ev("ShelfUsable", "2005-02-09", cure="prospectus_supplement"))
    rep = report(objs, "2005-08-01")
    assert kinds(rep) == []
    assert rep["additional_interest"]["accrued_to_as_of"] == "0.00"


def test_iv_a_material_transaction_suspension_reaches_day_60():
    objs = rra(*EFFECTIVE, ev("SuspensionStarted", "2005-03-01", material_transaction=True),
               ev("SuspensionEnded", "2005-05-05"))
    rep = report(objs, "2005-08-01")
    # 31 (March) + 30 (April) + 4 (May 1-4) = 65 days; 60th day = 03-01 + 59 = 2005-04-29
    assert rep["suspensions"]["periods"][0]["days"] == 65
    assert kinds(rep) == [("(iv)(A)", "2005-04-29", "2005-04-30", "2005-05-05")]
    # 30/360 [04-30, 05-05) = 30 + (5 - 30) = 5 days
    expected = P * Decimal("0.0025") * 5 / 360
    assert payment(rep, "2005-07-15")["amounts"] == {LEHMAN: money(expected)} == {LEHMAN: "2083.33"}


def test_iv_a_without_material_transaction_the_45th_day_counts():
    objs = rra(*EFFECTIVE, ev("SuspensionStarted", "2005-03-01", material_transaction=False),
               ev("SuspensionEnded", "2005-05-05"))
    rep = report(objs, "2005-08-01")
    assert kinds(rep) == [("(iv)(A)", "2005-04-14", "2005-04-15", "2005-05-05")]
    # 30/360 [04-15, 05-05) = 30 + (5 - 15) = 20 days
    expected = P * Decimal("0.0025") * 20 / 360
    assert payment(rep, "2005-07-15")["amounts"] == {LEHMAN: money(expected)} == {LEHMAN: "8333.33"}


def test_suspension_extended_in_time_and_too_late():
    base = [*EFFECTIVE, ev("SuspensionStarted", "2005-03-01", material_transaction=False)]
    # extended on day 41 (2005-04-10): the limit becomes 60 days, as in the material case
    rep = report(rra(*base, ev("SuspensionExtended", "2005-04-10"),
                     ev("SuspensionEnded", "2005-05-05")), "2005-08-01")
    assert kinds(rep) == [("(iv)(A)", "2005-04-29", "2005-04-30", "2005-05-05")]
    # extended on day 51 (2005-04-20): after the 45th day, ignored and reported
    rep = report(rra(*base, ev("SuspensionExtended", "2005-04-20"),
                     ev("SuspensionEnded", "2005-05-05")), "2005-08-01")
    assert kinds(rep) == [("(iv)(A)", "2005-04-14", "2005-04-15", "2005-05-05")]
    assert any("SuspensionExtended" in p for p in rep["problems"])




def test_three_short_suspensions_break_45_in_90_window_breach():
    rep = report(rra(*THREE_SHORT), "2005-08-01")
    # the 90 days ending 2005-05-11 are [2005-02-11, 2005-05-11]: 20 + 15 + 11 = 46 > 45;
    # ending 2005-05-10: 20 + 15 + 10 = 45. First day beyond the right: 2005-05-11
    [breach] = rep["suspensions"]["breaches"]
    assert (breach["kind"], breach["first_day"], breach["last_day"], breach["days"]) == (
        "window", "2005-05-11", "2005-05-20", 10)
    assert rep["suspensions"]["max_90"] == 55          # window ending 05-20: 20 + 15 + 20
    # usability_default: like a ShelfUnusable on Wed 2005-05-11, 5 Business Days to cure:
    # 12, 13, 16, 17, 18 -> 2005-05-18; accrual 2005-05-19 to the end 2005-05-21
    assert kinds(rep) == [("(iii)", "2005-05-18", "2005-05-19", "2005-05-21")]
    # 30/360 [05-19, 05-21) = 2 days
    expected = P * Decimal("0.0025") * 2 / 360
    assert payment(rep, "2005-07-15")["amounts"] == {LEHMAN: money(expected)} == {LEHMAN: "833.33"}


def test_ninety_in_360_exceeded_iv_b():
    objs = rra(*EFFECTIVE,
               ev("SuspensionStarted", "2005-01-03", material_transaction=False),
               ev("SuspensionEnded", "2005-02-17"),            # Jan 3 .. Feb 16: 29 + 16 = 45
               ev("SuspensionStarted", "2005-05-17", material_transaction=False),
               ev("SuspensionEnded", "2005-07-01"),            # May 17 .. Jun 30: 15 + 30 = 45
               ev("SuspensionStarted", "2005-09-28", material_transaction=False),
               ev("SuspensionEnded", "2005-10-08"))            # 10 days
    rep = report(objs, "2006-02-01")
    # no 90-day window holds more than 45 (each gap is 90 days); the 360 days ending
    # 2005-09-28 hold 45 + 45 + 1 = 91 > 90; ending 09-27: 90
    assert [b["kind"] for b in rep["suspensions"]["breaches"]] == ["aggregate"]
    assert kinds(rep) == [("(iv)(B)", "2005-09-27", "2005-09-28", "2005-10-08")]
    # 30/360 [09-28, 10-08) = 30 + (8 - 28) = 10 days
    expected = P * Decimal("0.0025") * 10 / 360
    pay = payment(rep, "2006-01-15")
    assert pay["amounts"] == {LEHMAN: money(expected)} == {LEHMAN: "4166.67"}
    # 2006-01-15 is a Sunday and 2006-01-16 Martin Luther King Day
    assert pay["paid_on"] == "2006-01-17"


def test_rates_cross_the_second_and_third_anniversaries():
    rep = report(rra(), "2009-08-01")   # never filed: one episode from 2004-07-16
    # [2006-01-15, 2006-07-15): 1.00% to 2006-06-30 (30/360: 150 + 15 = 165 days), then
    # 3.00% (30/360 [06-30, 07-15) = 15 days)
    e1 = P * (Decimal("0.01") * 165 + Decimal("0.03") * 15) / 360
    assert payment(rep, "2006-07-15")["amounts"] == {LEHMAN: money(e1)} == {LEHMAN: "350000.00"}
    # [2007-01-15, 2007-07-15): 3.00% for 165 days, 5.00% from 2007-06-30 for 15
    e2 = P * (Decimal("0.03") * 165 + Decimal("0.05") * 15) / 360
    assert payment(rep, "2007-07-15")["amounts"] == {LEHMAN: money(e2)} == {LEHMAN: "950000.00"}
    # the fifth anniversary (2009-06-30): 7.00% -> 9.00% (RRA §3(a)(iv) illustration)
    e3 = P * (Decimal("0.07") * 165 + Decimal("0.09") * 15) / 360
    assert payment(rep, "2009-07-15")["amounts"] == {LEHMAN: money(e3)} == {LEHMAN: "2150000.00"}
    rates = [(s["start"], s["rate"]) for s in rep["additional_interest"]["rate_segments"]]
    assert ("2006-06-30", "3.00") in rates and ("2007-06-30", "5.00") in rates
    assert ("2009-06-30", "9.00") in rates


def test_cure_then_new_default_is_a_new_episode_at_a_quarter_point():
    objs = rra(*EFFECTIVE, ev("ShelfUnusable", "2005-02-01", reason="ceased_effective"),
               ev("ShelfUsable", "2005-06-01", cure="post_effective_amendment"),
               ev("SuspensionStarted", "2005-08-01", material_transaction=False),
               ev("SuspensionEnded", "2005-10-01"))
    rep = report(objs, "2006-02-01")
    assert [x["episode"] for x in rep["registration"]["defaults"]] == [1, 2]
    # episode 1 from 2005-02-09; day 91 = 02-09 + 90 = 2005-05-10.
    # 30/360 [02-09, 05-10) = 90 + 1 = 91 days at 0.25%; [05-10, 06-01) = 30 - 9 = 21 at 1.00%
    e1 = P * (Decimal("0.0025") * 91 + Decimal("0.01") * 21) / 360
    assert payment(rep, "2005-07-15")["amounts"] == {LEHMAN: money(e1)} == {LEHMAN: "72916.67"}
    # episode 2: 45th day 08-01 + 44 = 09-14; accrual [09-15, 10-01) = 30 + 1 - 15 = 16 at 0.25%
    e2 = P * Decimal("0.0025") * 16 / 360
    assert payment(rep, "2006-01-15")["amounts"] == {LEHMAN: money(e2)} == {LEHMAN: "6666.67"}


def test_suspension_windows_allowances_and_when_they_grow():
    objs = rra(*EFFECTIVE, ev("SuspensionStarted", "2005-03-01", material_transaction=False),
               ev("SuspensionEnded", "2005-04-20"))
    s = report(objs, "2005-05-01")["suspensions"]
    # the 90 days ending 2005-05-01 start 2005-02-01: all 50 days; 360 days: all 50
    assert (s["trailing_90"], s["trailing_360"], s["max_90"], s["max_360"]) == (50, 50, 50, 50)
    assert (s["remaining_90"], s["remaining_90_material"], s["remaining_360"]) == (0, 10, 40)
    # the earliest suspended day in the window, 2005-03-01, leaves it 90 (360) days later
    assert s["grows_90_on"] == "2005-05-30"     # 03-01 + 30 + 30 + 30
    assert s["grows_360_on"] == "2006-02-24"    # 03-01 + 365 - 5
    assert [b["kind"] for b in s["breaches"]] == ["single_period"]


def test_open_suspension_counts_through_as_of():
    objs = rra(*EFFECTIVE, ev("SuspensionStarted", "2005-03-01", material_transaction=False))
    rep = report(objs, "2005-04-20")
    assert rep["suspensions"]["periods"][0]["days"] == 51      # 31 + 20, as_of included
    assert kinds(rep) == [("(iv)(A)", "2005-04-14", "2005-04-15", None)]
    assert rep["registration"]["in_default"] is True
    # 30/360 [04-15, 04-21) = 6 days through as_of
    expected = P * Decimal("0.0025") * 6 / 360
    assert rep["additional_interest"]["accrued_to_as_of"] == money(expected) == "2500.00"


def test_effectiveness_period_ends_when_no_notes_remain_outstanding():
    objs = rra(*EFFECTIVE, ev("NotesRetired", "2005-06-01", holder=LEHMAN, principal="60000000",
                              reason="repurchased"),
               ev("ShelfUnusable", "2005-07-01", reason="other"))
    rep = report(objs, "2005-09-01")
    # RRA §2(a)(iii)(z): all TRS ceased to be outstanding on 2005-06-01 (before 2006-10-01)
    assert rep["registration"]["effectiveness_period_end"] == "2005-06-01"
    assert kinds(rep) == []
    assert any("outside the Effectiveness Period" in p for p in rep["problems"])


def test_ii_alone_crosses_its_90th_day():
    # filed in time, declared effective 2005-03-01: default (ii) only, accrual from
    # 2004-10-29; day 91 = 10-29 + 90: Oct 31 (+2), Nov 30 (+32), Dec 31 (+63), Jan 27 (+90)
    rep = report(rra(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2005-03-01")),
                 "2005-08-01")
    assert kinds(rep) == [("(ii)", "2004-10-28", "2004-10-29", "2005-03-01")]
    segs = [(s["start"], s["end"], s["rate"], s["episode_days"])
            for s in rep["additional_interest"]["rate_segments"]]
    assert segs == [("2004-10-29", "2005-01-27", "0.25", [1, 90]),
                    ("2005-01-27", "2005-03-01", "1.00", [91, 123])]
    # period to 2005-01-15: 30/360 [10-29, 01-15) = 360 - 270 + (15 - 29) = 76 days at 0.25%
    e1 = P * Decimal("0.0025") * 76 / 360
    assert payment(rep, "2005-01-15")["amounts"] == {LEHMAN: money(e1)} == {LEHMAN: "31666.67"}
    # period to 2005-07-15: [01-15, 01-27) 12 days at 0.25%; [01-27, 03-01) = 60 + 1 - 27
    # = 34 days at 1.00%
    e2 = P * (Decimal("0.0025") * 12 + Decimal("0.01") * 34) / 360
    assert payment(rep, "2005-07-15")["amounts"] == {LEHMAN: money(e2)} == {LEHMAN: "61666.67"}


def test_adjacent_defaults_form_one_episode():
    # filed 2004-10-29: default (i) accrues [07-16, 10-29), cured the very day default (ii)
    # starts accruing (10-29): adjacent, one episode, one rate clock from 2004-07-16
    rep = report(rra(ev("ShelfFiled", "2004-10-29"), ev("ShelfEffective", "2004-11-15")),
                 "2005-02-01")
    assert kinds(rep) == [("(i)", "2004-07-15", "2004-07-16", "2004-10-29"),
                          ("(ii)", "2004-10-28", "2004-10-29", "2004-11-15")]
    assert [x["episode"] for x in rep["registration"]["defaults"]] == [1, 1]
    # 0.25% [07-16, 10-14) = 90 - 2 = 88 days; 1.00% [10-14, 11-15) = 30 + 1 = 31 days
    expected = P * (Decimal("0.0025") * 88 + Decimal("0.01") * 31) / 360
    assert payment(rep, "2005-01-15")["amounts"] == {LEHMAN: money(expected)} == {
        LEHMAN: "88333.33"}


def test_a_one_day_gap_starts_a_new_episode_at_a_quarter_point():
    # filed 2004-10-28: (i) accrues [07-16, 10-28); the 28th itself is no default day
    # (filed, and still within the Effectiveness Target Date); (ii) accrues from 10-29:
    # a new episode, its clock restarting at 0.25%
    rep = report(rra(ev("ShelfFiled", "2004-10-28"), ev("ShelfEffective", "2004-11-15")),
                 "2005-02-01")
    assert [x["episode"] for x in rep["registration"]["defaults"]] == [1, 2]
    # (i): 0.25% [07-16, 10-14) 88 days + 1.00% [10-14, 10-28) 14 days;
    # (ii): 0.25% [10-29, 11-15) 16 days; one rounding of the sum
    expected = P * (Decimal("0.0025") * 88 + Decimal("0.01") * 14
                    + Decimal("0.0025") * 16) / 360
    assert payment(rep, "2005-01-15")["amounts"] == {LEHMAN: money(expected)} == {
        LEHMAN: "66666.67"}


def test_iii_five_business_days_skip_a_holiday():
    # unusable Wed 2004-11-10; Thu 11-11 is Veterans Day: 12, 15, 16, 17, 18 -> the 5th
    # Business Day is 2004-11-18. Cured on it: no default
    cured_in_time = rra(*EFFECTIVE, ev("ShelfUnusable", "2004-11-10", reason="other"),
                        ev("ShelfUsable", "2004-11-18", cure="prospectus_supplement"))
    assert kinds(report(cured_in_time, "2005-02-01")) == []
    # cured Mon 11-22: accrual [11-19, 11-22) = 3 days (Fri, Sat, Sun)
    late = rra(*EFFECTIVE, ev("ShelfUnusable", "2004-11-10", reason="other"),
               ev("ShelfUsable", "2004-11-22", cure="prospectus_supplement"))
    rep = report(late, "2005-02-01")
    assert kinds(rep) == [("(iii)", "2004-11-18", "2004-11-19", "2004-11-22")]
    expected = P * Decimal("0.0025") * 3 / 360
    assert payment(rep, "2005-01-15")["amounts"] == {LEHMAN: money(expected)} == {
        LEHMAN: "1250.00"}


WINDOW_THEN_OWN_LIMIT = [*EFFECTIVE,
                         ev("SuspensionStarted", "2005-03-01", material_transaction=False),
                         ev("SuspensionEnded", "2005-03-31"),          # 30 days
                         ev("SuspensionStarted", "2005-04-15", material_transaction=False),
                         ev("SuspensionEnded", "2005-06-04")]          # 50 days


def test_window_breach_then_the_periods_own_45th_day():
    rep = report(rra(*WINDOW_THEN_OWN_LIMIT), "2005-08-01")
    # 90 days ending 04-30 = [01-31, 04-30]: 30 (March 1-30) + 16 (April 15-30) = 46 > 45;
    # ending 04-29: 45. Window breach from 2005-04-30 to the period's own 45th day,
    # 04-15 + 44 = 05-29; from 05-30 its own limit is passed: (iv)(A)
    assert [(b["kind"], b["first_day"], b["last_day"]) for b in rep["suspensions"]["breaches"]
            ] == [("window", "2005-04-30", "2005-05-29"),
                  ("single_period", "2005-05-30", "2005-06-03")]
    # (iii): 5 Business Days after Sat 04-30: May 2, 3, 4, 5, 6 -> accrual from 05-07 until
    # (iv)(A) takes over on 05-30; (iv)(A) accrues [05-30, 06-04): adjacent, one episode
    assert kinds(rep) == [("(iii)", "2005-05-06", "2005-05-07", None),
                          ("(iv)(A)", "2005-05-29", "2005-05-30", "2005-06-04")]
    assert [(x["accrual_until"], x["stopped_by"], x["episode"])
            for x in rep["registration"]["defaults"]] == [("2005-05-30", "superseded", 1),
                                                          ("2005-06-04", "cure", 1)]
    # one rate run at 0.25%: 30/360 [05-07, 06-04) = 30 + 4 - 7 = 27 days
    expected = P * Decimal("0.0025") * 27 / 360
    assert payment(rep, "2005-07-15")["amounts"] == {LEHMAN: money(expected)} == {
        LEHMAN: "11250.00"}


def test_window_breach_default_still_runs_before_the_periods_own_limit():
    # as of 2005-05-20 the second period is open and short of its own 45th day (05-29):
    # the (iii) default runs, not yet taken over by (iv)(A)
    rep = report(rra(*WINDOW_THEN_OWN_LIMIT[:-1]), "2005-05-20")
    [x] = rep["registration"]["defaults"]
    assert (x["kind"], x["accrual_from"], x["accrual_until"], x["stopped_by"]) == (
        "(iii)", "2005-05-07", None, None)
    assert rep["registration"]["in_default"] is True
    # accrued through as_of: 30/360 [05-07, 05-21) = 14 days
    assert rep["additional_interest"]["accrued_to_as_of"] == money(
        P * Decimal("0.0025") * 14 / 360) == "5833.33"
