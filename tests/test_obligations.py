"""Issue 16: every obligation kind through each state it can reach, dates worked out by
hand from the clause (business days named). Calendar facts used:
2004-07-15 Thu, 2004-07-20 Tue, 2004-10-28 Thu, 2004-11-01 Mon, 2004-11-15 Mon,
2004-11-22 Mon, 2004-12-10 Fri, 2004-12-25 Sat (Christmas on a Saturday: the Fed stays
open on Friday 2004-12-24), 2005-01-15 Sat, 2005-01-17 MLK Day, 2005-02-01 Tue,
2005-02-08 Tue, 2005-03-01 Tue, 2005-04-14 Thu."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest

from projections.report import report
from tests import letter_support as L
from tests.support import build, d, ev, keyed, opened

LEHMAN = "Lehman Brothers Inc."


def rra(*more, effective="2004-10-01", filed="2004-07-13", principal="60000000",
        holders=None):
    objs = [opened()]
    for h, p in (holders or {LEHMAN: principal}).items():
        objs.append(ev("NotesIssued", "2004-06-30", holder=h, principal=p))
    if filed:
        objs.append(ev("ShelfFiled", filed))
    if effective:
        objs.append(ev("ShelfEffective", effective))
    return objs + list(more)


def duties(objs, as_of, **interpret):
    return report(build(objs), as_of=d(as_of), interpretations=interpret)["obligations"]


def duty(objs, as_of, key, **interpret):
    key = keyed(objs, key)   # the trigger named by type (projections.obligations.identity)
    [o] = [o for o in duties(objs, as_of, **interpret) if o["key"] == key]
    return o


# --- RRA §2(a)(i): 15 days after 2004-06-30 is 2004-07-15 (a Thursday) -------------

def test_filing_upcoming_due_violated_fulfilled_cured():
    none = rra(filed=None, effective=None)
    assert duty(none, "2004-07-10", "file-shelf")["state"] == "upcoming"
    o = duty(none, "2004-07-15", "file-shelf")
    assert (o["due"], o["state"], o["since"]) == ("2004-07-15", "due", "2004-07-15")
    o = duty(none, "2004-07-20", "file-shelf")
    assert (o["state"], o["violated_since"]) == ("violated", "2004-07-16")
    # default (i): accrual from the day after the default date 2004-07-15
    assert o["triggered"] == ["Registration Default (i) (RRA §3(a)(i)): Additional "
                              "Interest from 2004-07-16"]
    assert o["triggers"].startswith("Registration Default (i)")
    o = duty(rra(effective=None), "2004-08-01", "file-shelf")
    assert (o["state"], o["since"], o["by"]) == ("fulfilled", "2004-07-13",
                                                 "ShelfFiled on 2004-07-13")
    assert o["by_event"] == "e3" and o["clause"] == "RRA §2(a)(i)"
    o = duty(rra(filed="2004-07-20", effective=None), "2004-08-01", "file-shelf")
    assert (o["state"], o["violated_since"], o["cured_on"]) == ("cured", "2004-07-16",
                                                                "2004-07-20")
    assert o["triggered"] == ["Registration Default (i) (RRA §3(a)(i)): Additional "
                              "Interest from 2004-07-16 to 2004-07-20"]


def test_filing_violated_lists_the_default_it_triggered_once_it_accrues():
    o = duty(rra(filed=None, effective=None), "2004-07-20", "file-shelf")
    assert o["state"] == "violated"
    assert o["interpretations"] == {}


# --- RRA §2(a)(ii): 120 days after 2004-06-30 is 2004-10-28 (a Thursday) -------------

def test_effectiveness_states():
    assert duty(rra(effective=None), "2004-10-27", "shelf-effective")["state"] == "upcoming"
    assert duty(rra(effective=None), "2004-10-28", "shelf-effective")["state"] == "due"
    o = duty(rra(effective=None), "2004-11-01", "shelf-effective")
    assert (o["state"], o["violated_since"]) == ("violated", "2004-10-29")
    assert o["triggered"] == ["Registration Default (ii) (RRA §3(a)(ii)): Additional "
                              "Interest from 2004-10-29"]
    assert duty(rra(), "2004-11-01", "shelf-effective")["state"] == "fulfilled"
    # SPEC §8 example 1: effective 2004-11-15, accrual 2004-10-29 to 2004-11-15 exclusive
    o = duty(rra(effective="2004-11-15"), "2004-12-01", "shelf-effective")
    assert (o["state"], o["cured_on"], o["by"]) == ("cured", "2004-11-15",
                                                    "ShelfEffective on 2004-11-15")


def test_default_date_reading_moves_the_triggered_accrual():
    o = duty(rra(effective="2004-11-15"), "2004-12-01", "shelf-effective",
             default_date="first_breach_day")
    # first_breach_day: the default date is 2004-10-29, accrual from 2004-10-30
    assert o["triggered"][0].endswith("from 2004-10-30 to 2004-11-15")


# --- RRA §2(a)(iii): effective 2004-10-01; 2nd anniversary 2006-10-01 ----------------

def test_keep_effective_due_violated_cured_discharged():
    o = duty(rra(), "2005-01-01", "keep-effective")
    assert (o["state"], o["since"], o["due"]) == ("due", "2004-10-01", "2006-10-01")
    broken = rra(ev("ShelfUnusable", "2005-02-01", reason="stop_order"))
    o = duty(broken, "2005-03-01", "keep-effective")
    # 5 Business Days after 2005-02-01 (Tue): Feb 2, 3, 4, 7, 8 -> 2005-02-08; accrual from Feb 9
    assert (o["state"], o["violated_since"]) == ("violated", "2005-02-09")
    cured = broken + [ev("ShelfUsable", "2005-02-15", cure="order_lifted")]
    o = duty(cured, "2005-03-01", "keep-effective")
    assert (o["state"], o["cured_on"]) == ("cured", "2005-02-15")
    o = duty(cured, "2006-10-02", "keep-effective")
    assert (o["state"], o["since"]) == ("discharged", "2006-10-01")
    assert o["by"].startswith("the end of the Effectiveness Period")


# --- RRA §3(a)(iii): cure within 5 Business Days ------------------------------------

def test_cure_unusable_states():
    broken = rra(ev("ShelfUnusable", "2005-02-01", reason="stop_order"))
    assert duty(broken, "2005-02-07", "cure-unusable/#ShelfUnusable")["state"] == "upcoming"
    o = duty(broken, "2005-02-08", "cure-unusable/#ShelfUnusable")
    assert (o["due"], o["state"]) == ("2005-02-08", "due")
    o = duty(broken, "2005-02-10", "cure-unusable/#ShelfUnusable")
    assert (o["state"], o["violated_since"]) == ("violated", "2005-02-09")
    on_time = broken + [ev("ShelfUsable", "2005-02-09", cure="order_lifted")]
    # accrual [Feb 9, Feb 9) is empty
    o = duty(on_time, "2005-03-01", "cure-unusable/#ShelfUnusable")
    assert (o["state"], o["by"]) == ("fulfilled", "ShelfUsable on 2005-02-09")
    late = broken + [ev("ShelfUsable", "2005-02-15", cure="order_lifted")]
    o = duty(late, "2005-03-01", "cure-unusable/#ShelfUnusable")
    assert (o["state"], o["cured_on"]) == ("cured", "2005-02-15")
    assert o["triggered"] == ["Registration Default (iii) (RRA §3(a)(iii)): Additional "
                              "Interest from 2005-02-09 to 2005-02-15"]


def test_cure_unusable_excused_inside_a_permitted_suspension_and_discharged_after_the_period():
    covered = rra(ev("SuspensionStarted", "2005-02-01", material_transaction=False),
                  ev("ShelfUnusable", "2005-02-02", reason="material_misstatement"),
                  ev("ShelfUsable", "2005-02-20", cure="prospectus_supplement"),
                  ev("SuspensionEnded", "2005-02-25"))
    o = duty(covered, "2005-03-01", "cure-unusable/#ShelfUnusable")
    assert o["state"] == "excused" and "§4(b)(i)" in o["by"]
    # the Effectiveness Period ended 2006-10-01 (second anniversary of 2004-10-01)
    after = rra(ev("ShelfUnusable", "2007-01-10", reason="stop_order"))
    o = duty(after, "2007-02-01", "cure-unusable/#ShelfUnusable")
    assert o["state"] == "discharged"


# --- RRA §4(b)(i), §3(a)(iv): SPEC §8 example 2 ---------------------------------------

def test_end_suspension_states():
    start = rra(ev("SuspensionStarted", "2005-03-01", material_transaction=False))
    # its 45th day: 2005-03-01 + 44 days = 2005-04-14 (a Thursday)
    o = duty(start, "2005-04-01", "end-suspension/#SuspensionStarted")
    assert (o["due"], o["state"]) == ("2005-04-14", "upcoming")
    assert duty(start, "2005-04-14", "end-suspension/#SuspensionStarted")["state"] == "due"
    o = duty(start, "2005-04-16", "end-suspension/#SuspensionStarted")
    assert (o["state"], o["violated_since"]) == ("violated", "2005-04-15")
    ended = start + [ev("SuspensionEnded", "2005-04-10")]
    o = duty(ended, "2005-05-01", "end-suspension/#SuspensionStarted")
    assert (o["state"], o["by"]) == ("fulfilled", "SuspensionEnded on 2005-04-10")
    late = start + [ev("SuspensionEnded", "2005-04-20")]
    o = duty(late, "2005-05-01", "end-suspension/#SuspensionStarted")
    assert (o["state"], o["cured_on"]) == ("cured", "2005-04-20")
    assert o["triggered"] == ["Registration Default (iv)(A) (RRA §3(a)(iv)(A)): Additional "
                              "Interest from 2005-04-15 to 2005-04-20"]


def test_end_suspension_due_is_the_window_limit_when_it_comes_first():
    # 30 days Mar 1-30, then from Apr 10: the 90-day window holds 30 + n; n = 16 exceeds
    # 45 on Apr 25, so the last day within the right is Apr 24 (before its 45th, May 24)
    objs = rra(ev("SuspensionStarted", "2005-03-01", material_transaction=False),
               ev("SuspensionEnded", "2005-03-31"),
               ev("SuspensionStarted", "2005-04-10", material_transaction=False))
    o = duty(objs, "2005-04-20", "end-suspension/#SuspensionStarted:1")
    assert (o["due"], o["state"]) == ("2005-04-24", "upcoming")
    assert o["interpretations"]["window_material_allowance"] == "period"


def test_end_suspension_discharged_by_the_end_of_the_effectiveness_period():
    objs = rra(ev("SuspensionStarted", "2006-09-20", material_transaction=False))
    o = duty(objs, "2006-10-05", "end-suspension/#SuspensionStarted")
    assert (o["state"], o["since"]) == ("discharged", "2006-10-01")


# --- RRA §3(b): the Trustee within 2 Business Days after the default date ----------

def test_trustee_notice_states():
    late_eff = rra(effective="2004-11-15")
    # default (ii) date 2004-10-28 (Thu) + 2 Business Days: Fri 10-29, Mon 11-01
    o = duty(late_eff, "2004-10-29", "notify-trustee/(ii)/#DealOpened")
    assert (o["due"], o["state"]) == ("2004-11-01", "upcoming")
    assert duty(late_eff, "2004-11-01", "notify-trustee/(ii)/#DealOpened")["state"] == "due"
    o = duty(late_eff, "2004-11-02", "notify-trustee/(ii)/#DealOpened")
    assert (o["state"], o["violated_since"]) == ("violated", "2004-11-02")
    on_time = late_eff + [ev("TrusteeNotified", "2004-10-29")]
    assert duty(on_time, "2004-12-01", "notify-trustee/(ii)/#DealOpened")["state"] == "fulfilled"
    late = late_eff + [ev("TrusteeNotified", "2004-11-05")]
    o = duty(late, "2004-12-01", "notify-trustee/(ii)/#DealOpened")
    assert (o["state"], o["cured_on"]) == ("cured", "2004-11-05")


# --- RRA §4(b)(iii): advise the selling Holders within 5 Business Days --------------

def test_advise_holders_states():
    # ShelfFiled 2004-07-13 (Tue) + 5 Business Days: Jul 14, 15, 16, 19, 20 -> 2004-07-20
    objs = rra(effective=None)
    o = duty(objs, "2004-07-16", "advise-holders/ShelfFiled/#ShelfFiled")
    assert (o["due"], o["state"]) == ("2004-07-20", "upcoming")
    assert duty(objs, "2004-07-21", "advise-holders/ShelfFiled/#ShelfFiled")["state"] == "violated"
    ok = objs + [ev("HoldersAdvised", "2004-07-15")]
    assert duty(ok, "2004-08-01", "advise-holders/ShelfFiled/#ShelfFiled")["state"] == "fulfilled"
    late = objs + [ev("HoldersAdvised", "2004-07-22")]
    assert duty(late, "2004-08-01", "advise-holders/ShelfFiled/#ShelfFiled")["state"] == "cured"


# --- RRA §2(b), §4(d): Questionnaires and amendments for late ones -----------------

ASKED = ev("QuestionnaireRequested", "2004-11-10", holders=[LEHMAN])


def test_questionnaire_states():
    # SPEC §8 example 3: 20 Business Days after 2004-11-10 is 2004-12-10 (Veterans Day
    # 11-11 and Thanksgiving 11-25 skipped)
    objs = rra(ASKED)
    q = f"questionnaire/{LEHMAN}/#QuestionnaireRequested"
    o = duty(objs, "2004-12-01", q)
    assert (o["due"], o["state"], o["party"]) == ("2004-12-10", "upcoming", "Holder")
    assert duty(objs, "2004-12-10", q)["state"] == "due"
    o = duty(objs, "2004-12-13", q)
    assert (o["state"], o["violated_since"]) == ("violated", "2004-12-11")
    assert "not entitled" in o["triggered"][0]
    on_time = objs + [ev("QuestionnaireDelivered", "2004-12-01", holder=LEHMAN)]
    assert duty(on_time, "2005-01-01", q)["state"] == "fulfilled"
    late = objs + [ev("QuestionnaireDelivered", "2004-12-15", holder=LEHMAN)]
    o = duty(late, "2005-01-01", q)
    assert (o["state"], o["cured_on"]) == ("cured", "2004-12-15")


def test_late_questionnaire_amendment_states():
    # received 2004-12-15 (Wed) + 10 Business Days: Dec 16, 17, 20, 21, 22, 23, 24 (open:
    # Christmas fell on a Saturday), 27, 28, 29 -> 2004-12-29
    late = rra(ASKED, ev("QuestionnaireDelivered", "2004-12-15", holder=LEHMAN))
    key = f"late-questionnaire-amendment/{LEHMAN}/#QuestionnaireDelivered"
    o = duty(late, "2004-12-20", key)
    assert (o["due"], o["state"]) == ("2004-12-29", "upcoming")
    assert duty(late, "2004-12-29", key)["state"] == "due"
    assert duty(late, "2005-01-05", key)["state"] == "violated"
    filed = late + [ev("AmendmentFiled", "2004-12-20", kind="post_effective",
                       holders_added=[LEHMAN], principal_added="60000000")]
    assert duty(filed, "2005-01-05", key)["state"] == "fulfilled"
    filed_late = late + [ev("AmendmentFiled", "2005-01-04", kind="post_effective",
                            holders_added=[LEHMAN], principal_added="60000000")]
    assert duty(filed_late, "2005-01-05", key)["state"] == "cured"


def test_late_questionnaire_amendment_excused_at_one_million_or_less():
    small = "Small Holder"
    objs = rra(ev("QuestionnaireRequested", "2004-11-10", holders=[small]),
               ev("QuestionnaireDelivered", "2004-12-15", holder=small),
               holders={LEHMAN: "59000000", small: "1000000"})
    o = duty(objs, "2005-01-05", f"late-questionnaire-amendment/{small}/#QuestionnaireDelivered")
    # "more than $1 million": 1,000,000 is not more
    assert o["state"] == "excused" and "1000000" in o["by"].replace(",", "")


# --- RRA §3(a), §3(b): each Holder's Additional Interest ---------------------------

PAY = f"pay-additional-interest/2005-01-15/{LEHMAN}"


def test_payment_states():
    late_eff = rra(effective="2004-11-15")
    # SPEC §8 example 1: 60,000,000 x 0.0025 x 16/360 = 6,666.67, payable 2005-01-18
    # (Jan 15 a Saturday, Jan 17 Martin Luther King Day)
    o = duty(late_eff, "2004-12-01", PAY)
    assert (o["state"], o["due"]) == ("upcoming", "2005-01-18")
    o = duty(late_eff, "2005-01-18", PAY)
    assert (o["state"], o["amount"]) == ("due", "6666.67")
    o = duty(late_eff, "2005-01-19", PAY)
    assert (o["state"], o["violated_since"], o["triggered"]) == (
        "violated", "2005-01-19", ["6666.67 unpaid"])
    paid = late_eff + [ev("AdditionalInterestPaid", "2005-01-18", payment_date="2005-01-15",
                          holder=LEHMAN, amount="6666.67")]
    o = duty(paid, "2005-02-01", PAY)
    assert (o["state"], o["by_event"]) == ("fulfilled", "e5")
    paid_late = late_eff + [ev("AdditionalInterestPaid", "2005-01-25",
                               payment_date="2005-01-15", holder=LEHMAN, amount="6666.67")]
    o = duty(paid_late, "2005-02-01", PAY)
    assert (o["state"], o["cured_on"]) == ("cured", "2005-01-25")


def test_payment_excused_for_a_holder_without_its_questionnaire():
    # requested 2004-11-10; the form's deadline: the 20th date after, 2004-11-30; not
    # delivered by 2005-01-18: not entitled (RRA §3(a) last paragraph)
    o = duty(rra(ASKED, effective="2004-11-15"), "2005-02-01", PAY)
    assert o["state"] == "excused" and "not delivered" in o["by"]
    assert o["interpretations"]["questionnaire_deadline"] == "questionnaire_form"


def test_payment_for_converted_notes_is_not_owed():
    # 30,000,000 / 15.36 = 1,953,125 shares; converted before the record date: nothing
    # is payable on converted Notes (RRA §3(a), conversion_forfeits=unpaid); the other
    # Holder: 30,000,000 x 0.0025 x 16/360 = 3,333.33
    objs = rra(ev("NotesConverted", "2004-12-20", holder=LEHMAN, principal="30000000",
                  shares=1953125), effective="2004-11-15",
               holders={LEHMAN: "30000000", "Other": "30000000"})
    found = {o["key"]: o for o in duties(objs, "2005-02-01")}
    assert PAY not in found
    assert found["pay-additional-interest/2005-01-15/Other"]["amount"] == "3333.33"


# --- Letter ¶3: true-ups ------------------------------------------------------------

def _letter(objs, as_of="2010-01-01"):
    return duties(objs, as_of)


def test_true_up_due_then_fulfilled():
    # P' = 3.00 x (A + B) / (A + C), A 9,876,543, C 1,000,000, B = C x 1.37 / 3.00
    a, c = Decimal(9_876_543), Decimal(1_000_000)
    b = c * Decimal("1.37") / Decimal(3)
    p2 = (Decimal(3) * (a + b) / (a + c)).quantize(Decimal("0.0001"), ROUND_HALF_UP)
    x = int(Decimal(3_000_000) / p2)  # aggregate price unchanged, whole shares down
    owed = x - 1_000_000
    [o] = _letter(L.camden_137(1_000_000))
    key = keyed(L.camden_137(1_000_000), "true-up/W/#WarrantsExercised")
    assert (o["key"], o["state"], o["due"], o["shares"]) == (key, "due", "2002-09-01", owed)
    settled = L.camden_137(1_000_000) + [L.e("TrueUpSharesIssued", "2002-10-01",
                                             instrument="W", shares=owed)]
    [o] = _letter(settled)
    assert o["state"] == "fulfilled" and o["by_event"] == settled_id(settled)


def settled_id(objs):
    return f"e{len(objs)}"


def test_true_up_upcoming_while_camden_warrants_may_vest_and_discharged_when_none_can():
    [o] = _letter(L.camden_137())
    assert (o["state"], o["shares"]) == ("upcoming", 0)
    cancelled = L.camden_137() + [L.e("CamdenWarrantsCancelled", "2003-01-01",
                                      holder=L.CAMDEN, warrants=1_000_000)]
    [o] = _letter(cancelled)
    assert o["state"] == "discharged"


@pytest.mark.parametrize("as_of", ["2004-07-10", "2005-03-01", "2007-01-01"])
def test_every_state_is_known_and_keys_are_unique(as_of):
    objs = rra(ASKED, ev("SuspensionStarted", "2005-02-01", material_transaction=True),
               effective="2004-11-15")
    found = duties(objs, as_of)
    assert len({o["key"] for o in found}) == len(found)
    assert {o["state"] for o in found} <= {"upcoming", "due", "fulfilled", "violated",
                                           "cured", "excused", "discharged"}


@pytest.mark.parametrize("as_of", ["2003-01-01", "2004-06-01", "2007-12-31"])
def test_the_agendas_fast_letter_path_matches_the_report(as_of):
    from projections.obligations.outlook import outlook
    from publishing.demo import letter_history

    events = build(letter_history())
    fast = [o.to_json({}) for o in outlook(events, as_of=d(as_of)).duties]
    full = report(events, as_of=d(as_of))["obligations"]

    def pick(rows):
        return sorted((o["key"], o["state"], o["due"], o["shares"], o["by_event"])
                      for o in rows)

    assert pick(fast) == pick(full)


def test_advice_waived_by_a_majority_of_holders_is_discharged():
    # RRA §10(D): Lehman holds 40,000,000 of 60,000,000 (66.7%, more than 50%); the
    # advice of the filing 2004-07-13 was due 2004-07-20 and never given
    objs = rra(ev("ConsentGiven", "2004-08-02", holder=LEHMAN, matter="waive §4(b)(iii) advice"),
               effective=None, holders={LEHMAN: "40000000", "Other": "20000000"})
    o = duty(objs, "2004-08-10", "advise-holders/ShelfFiled/#ShelfFiled")
    assert (o["state"], o["since"], o["violated_since"]) == ("discharged", "2004-08-02",
                                                            "2004-07-21")
    assert "§10(D)" in o["by"] and o["by_event"] == "e5"
    # before the consent it was violated; a minority consent waives nothing
    assert duty(objs, "2004-08-01", "advise-holders/ShelfFiled/#ShelfFiled")["state"] == "violated"
    minority = rra(ev("ConsentGiven", "2004-08-02", holder="Other",
                      matter="waive §4(b)(iii) advice"),
                   effective=None, holders={LEHMAN: "40000000", "Other": "20000000"})
    assert duty(minority, "2004-08-10",
                "advise-holders/ShelfFiled/#ShelfFiled")["state"] == "violated"


def test_true_up_earned_again_after_a_settlement_is_due_from_the_vesting_that_earned_it():
    # a review (stop 19): shares earned, issued, then more earned by a later vesting were
    # shown due since the first vesting, and a fulfilled true-up had no `since`
    base = L.camden_137()                       # W exercised whole 2002-06-01 at 3.00
    first = base + [L.e("CamdenWarrantsVested", "2002-09-01", holder=L.CAMDEN,
                        warrants=600_000)]
    # vesting 1: A 9,876,543, C 600,000, B = C x 1.37 / 3.00; P1 to 4 places
    a, c1 = Decimal(9_876_543), Decimal(600_000)
    p1 = (Decimal(3) * (a + c1 * Decimal("1.37") / 3) / (a + c1)).quantize(
        Decimal("0.0001"), ROUND_HALF_UP)
    owed1 = int(Decimal(3_000_000) / p1) - 1_000_000
    [o] = _letter(first)
    assert (o["state"], o["due"], o["shares"]) == ("due", "2002-09-01", owed1)
    settled = first + [L.e("TrueUpSharesIssued", "2002-10-01", instrument="W", shares=owed1)]
    [o] = _letter(settled)
    assert (o["state"], o["due"], o["since"]) == ("fulfilled", "2002-09-01", "2002-10-01")
    # vesting 2 on 2003-03-01: 400,000 more; A now counts the 600,000 vested since
    again = settled + [L.e("CamdenWarrantsVested", "2003-03-01", holder=L.CAMDEN,
                           warrants=400_000)]
    a2, c2 = a + c1, Decimal(400_000)
    p2 = (p1 * (a2 + c2 * Decimal("1.37") / p1) / (a2 + c2)).quantize(
        Decimal("0.0001"), ROUND_HALF_UP)
    owed2 = int(Decimal(3_000_000) / p2) - 1_000_000
    [o] = _letter(again)
    # what is still owed arose on 2003-03-01, when the shares earned passed those issued
    assert (o["state"], o["due"], o["since"], o["shares"]) == (
        "due", "2003-03-01", "2003-03-01", owed2 - owed1)
