"""Obligations with due dates (RRA §2(a), §2(b), §3(b), §4(b)(iii), §4(d)), notices deemed
given (§10(E)) and Majority of Holders (§1, §10(D), §10(H)); dates counted by hand on the
Federal Reserve calendar."""

from decimal import Decimal

from tests.support import ev
from tests.test_registration_support import LEHMAN, deadline, report, rra

EX1 = [ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15")]


def test_filing_and_effectiveness_deadlines():
    rep = report(rra(*EX1), "2005-02-01")
    filing = deadline(rep, "file the Shelf")
    assert (filing["due"], filing["status"], filing["met_on"]) == ("2004-07-15", "met", "2004-07-13")
    eff = deadline(rep, "Shelf Registration Statement declared effective")
    assert (eff["due"], eff["status"], eff["late_on"]) == ("2004-10-28", "missed", "2004-11-15")
    rep = report(rra(), "2004-07-10")
    assert deadline(rep, "file the Shelf")["status"] == "open"


def test_trustee_notice_met_within_two_business_days():
    rep = report(rra(*EX1, ev("TrusteeNotified", "2004-10-29")), "2005-02-01")
    notice = deadline(rep, "notify the Trustee")
    # default date Thu 2004-10-28 + 2 Business Days: Fri 10-29, Mon 11-01
    assert (notice["due"], notice["status"], notice["met_on"]) == ("2004-11-01", "met", "2004-10-29")
    assert notice["clause"] == "RRA §3(b)"


def test_trustee_notice_missed():
    rep = report(rra(*EX1, ev("TrusteeNotified", "2004-11-03")), "2005-02-01")
    notice = deadline(rep, "notify the Trustee")
    assert (notice["status"], notice["met_on"], notice["late_on"]) == ("missed", None, "2004-11-03")
    rep = report(rra(*EX1), "2005-02-01")
    assert deadline(rep, "notify the Trustee")["status"] == "missed"
    # a notice about another event does not count
    rep = report(rra(*EX1, ev("TrusteeNotified", "2004-10-29", about="e1234")), "2005-02-01")
    assert deadline(rep, "notify the Trustee")["status"] == "missed"


def test_trustee_notice_open_before_its_due_date():
    rep = report(rra(ev("ShelfFiled", "2004-07-13")), "2004-10-29")
    notice = deadline(rep, "notify the Trustee")
    assert (notice["due"], notice["status"]) == ("2004-11-01", "open")


def test_holders_advised_of_effectiveness_within_five_business_days():
    rep = report(rra(*EX1, ev("HoldersAdvised", "2004-11-19", about="e4")), "2005-02-01")
    advice = deadline(rep, "advise the selling Holders: the Shelf Registration Statement became")
    # Mon 2004-11-15 + 5 Business Days: 16, 17, 18, 19, 22
    assert (advice["due"], advice["status"], advice["met_on"]) == ("2004-11-22", "met", "2004-11-19")


def test_stop_order_advice_missed():
    rep = report(rra(*EX1, ev("ShelfUnusable", "2005-03-01", reason="stop_order")), "2005-04-01")
    advice = deadline(rep, "advise the selling Holders: a stop order")
    # Tue 2005-03-01 + 5 Business Days: 2, 3, 4, 7, 8
    assert (advice["due"], advice["status"]) == ("2005-03-08", "missed")


# A review (stop 19): SPEC §4.5 names a filing, effectiveness or stop order; RRA
# §4(b)(iii) also asks for advice "(A) when ... any Prospectus supplement or
# post-effective amendment has been filed" and "(D) of the existence of any fact ...
# during the Effectiveness Period, that makes any statement of a material fact made in
# the Shelf Registration Statement, the Prospectus ... untrue". The contract wins.
MISSTATED = [*EX1, ev("ShelfUnusable", "2005-03-01", reason="material_misstatement"),
             ev("ShelfUsable", "2005-03-04", cure="prospectus_supplement")]


def test_a_material_misstatement_and_the_supplement_curing_it_are_each_advised():
    rep = report(rra(*MISSTATED, ev("HoldersAdvised", "2005-03-07", about="e5")), "2005-04-01")
    misstated = deadline(rep, "advise the selling Holders: a fact made a statement of a "
                              "material fact")
    # (D): Tue 2005-03-01 + 5 Business Days: 2, 3, 4, 7, 8; advised Mon 03-07
    assert (misstated["due"], misstated["status"], misstated["met_on"], misstated["clause"]) \
        == ("2005-03-08", "met", "2005-03-07", "RRA §4(b)(iii)")
    supplement = deadline(rep, "advise the selling Holders: a Prospectus supplement was filed")
    # (A): Fri 2005-03-04 + 5 Business Days: 7, 8, 9, 10, 11; the advice names e5 only
    assert (supplement["due"], supplement["status"]) == ("2005-03-11", "missed")
    # each keyed by the event it advises of (e3 filed, e4 effective, e5, e6)
    keys = [o["key"] for o in rep["obligations"] if o["kind"] == "advise-holders"]
    assert keys == ["advise-holders/ShelfFiled/e3", "advise-holders/ShelfEffective/e4",
                    "advise-holders/ShelfUnusable-material_misstatement/e5",
                    "advise-holders/ShelfUsable-prospectus_supplement/e6"]


def test_a_supplement_recorded_as_an_amendment_too_is_advised_once():
    objs = rra(*MISSTATED, ev("AmendmentFiled", "2005-03-04", kind="supplement",
                              holders_added=[], principal_added="0"))
    rep = report(objs, "2005-04-01")
    advice = [d for d in rep["deadlines"]
              if d["obligation"].startswith("advise the selling Holders: a Prospectus supplement")]
    assert [(d["due"], d["events"][0]) for d in advice] == [("2005-03-11", "e7")]


def test_a_misstatement_outside_the_effectiveness_period_asks_no_advice():
    # all the Notes sold under the shelf on 2005-01-10: the period ends then ((y))
    objs = rra(*EX1, ev("NotesTransferred", "2005-01-10", from_holder=LEHMAN, to_holder="B",
                        principal="60000000", under_shelf=True),
               ev("ShelfUnusable", "2005-03-01", reason="material_misstatement"))
    rep = report(objs, "2005-04-01")
    assert not [d for d in rep["deadlines"] if "material fact" in d["obligation"]]


def test_late_questionnaire_amendment_within_ten_business_days():
    objs = rra(*EX1, ev("QuestionnaireRequested", "2004-08-02", holders=["B"]),
               ev("QuestionnaireDelivered", "2004-09-15", holder="B"),
               ev("AmendmentFiled", "2004-09-24", kind="pre_effective", holders_added=["B"],
                  principal_added="30000000"),
               holders={"A": "30000000", "B": "30000000"})
    rep = report(objs, "2005-02-01")
    amend = deadline(rep, "file an amendment naming B")
    # received Wed 2004-09-15 + 10 Business Days: 16, 17, 20-24, 27, 28, 29
    assert (amend["due"], amend["status"], amend["met_on"]) == ("2004-09-29", "met", "2004-09-24")


def test_late_questionnaire_of_a_million_or_less_needs_no_amendment():
    objs = rra(*EX1, ev("QuestionnaireRequested", "2004-08-02", holders=["B"]),
               ev("QuestionnaireDelivered", "2004-09-15", holder="B"),
               holders={"A": "59000000", "B": "1000000"})
    amend = deadline(report(objs, "2005-02-01"), "file an amendment naming B")
    # "more than $1 million": exactly 1,000,000 is not more
    assert amend["status"] == "excused"
    assert "not more than 1000000" in amend["basis"]["arithmetic"]


def test_late_questionnaire_amendment_excused_by_the_quarterly_allowance():
    objs = rra(*EX1, ev("QuestionnaireRequested", "2004-08-02", holders=["B", "C"]),
               ev("QuestionnaireDelivered", "2004-09-01", holder="C"),
               ev("AmendmentFiled", "2004-09-08", kind="pre_effective", holders_added=["C"],
                  principal_added="10000000"),
               ev("QuestionnaireDelivered", "2004-09-15", holder="B"),
               holders={"A": "30000000", "B": "20000000", "C": "10000000"})
    rep = report(objs, "2005-02-01")
    # before effectiveness one pre-effective amendment per fiscal quarter: Q3 2004 used on 09-08
    assert deadline(rep, "file an amendment naming C")["status"] == "met"
    assert deadline(rep, "file an amendment naming B")["status"] == "excused"


def test_a_window_reaching_into_the_next_quarter_is_not_excused_by_the_last():
    # a review (stop 19): "not ... obligated to file ... more than one such pre-effective
    # amendment ... during any fiscal quarter". Q3 2004's one was filed on 09-01; B's
    # Questionnaire came late on Tue 09-28; + 10 Business Days: 09-29, 30, 10-01, 04, 05,
    # 06, 07, 08, (11 Columbus Day), 12, 13: due 10-13. Filed on 10-01 to 10-13 it would
    # be Q4's first: the proviso does not relieve the Company
    objs = rra(ev("ShelfFiled", "2004-07-13"),
               ev("QuestionnaireRequested", "2004-08-02", holders=["B", "C"]),
               ev("QuestionnaireDelivered", "2004-08-31", holder="C"),
               ev("AmendmentFiled", "2004-09-01", kind="pre_effective", holders_added=["C"],
                  principal_added="10000000"),
               ev("QuestionnaireDelivered", "2004-09-28", holder="B"),
               ev("ShelfEffective", "2004-11-15"),
               holders={"A": "30000000", "B": "20000000", "C": "10000000"})
    rep = report(objs, "2005-02-01")
    amend = deadline(rep, "file an amendment naming B")
    assert (amend["due"], amend["status"]) == ("2004-10-13", "missed")
    assert deadline(rep, "file an amendment naming C")["status"] == "met"


def test_end_of_the_effectiveness_period():
    rep = report(rra(*EX1), "2006-12-01")
    end = deadline(rep, "keep the Shelf Registration Statement effective")
    # 2nd anniversary of 2004-11-15
    assert (end["due"], end["status"], end["met_on"]) == ("2006-11-15", "met", "2006-11-15")
    rep = report(rra(*EX1, ev("ShelfUnusable", "2005-03-01", reason="other")), "2006-12-01")
    assert deadline(rep, "keep the Shelf")["status"] == "missed"


def notice(method, sent, *more):
    objs = rra(ev("NoticeSent", sent, to="Holders", subject="Suspension Notice", method=method),
               *more)
    [n] = report(objs, "2005-03-01")["notices"]
    return n


def test_notice_by_mail_is_given_five_business_days_after_deposit():
    # deposited Wed 2004-11-10; Thu 11-11 is Veterans Day: 12, 15, 16, 17, 18
    n = notice("mail", "2004-11-10")
    assert n["deemed_given"] == "2004-11-18"
    assert n["basis"]["clause"] == "RRA §10(E)"


def test_notice_by_courier_is_given_the_next_business_day():
    # Fri 2005-01-14; Mon 01-17 is Martin Luther King Day
    assert notice("courier", "2005-01-14")["deemed_given"] == "2005-01-18"


def test_notice_by_hand_telex_and_fax():
    assert notice("hand", "2005-01-15")["deemed_given"] == "2005-01-15"
    assert notice("fax", "2005-01-14")["deemed_given"] is None
    assert notice("fax", "2005-01-14", ev("NoticeAcknowledged", "2005-01-19",
                                          notice="e3"))["deemed_given"] == "2005-01-19"
    assert notice("telex", "2005-01-14", ev("NoticeAcknowledged", "2005-01-20",
                                            notice="e3"))["deemed_given"] == "2005-01-20"


def test_majority_of_holders_excludes_affiliates():
    objs = rra(ev("HolderAffiliation", "2004-07-01", holder="C", company_affiliate=True),
               ev("ConsentGiven", "2005-01-03", holder="A", matter="waiver-1"),
               ev("ConsentGiven", "2005-01-03", holder="B", matter="waiver-2"),
               ev("ConsentGiven", "2005-01-03", holder="C", matter="waiver-2"),
               holders={"A": "30000000", "B": "20000000", "C": "10000000"})
    maj = report(objs, "2005-02-01")["majority"]
    # C's 10,000,000 is not counted: total 50,000,000; A alone 30/50 = 60% > 50%
    assert maj["waiver-1"]["total"] == "50000000.00"
    assert (maj["waiver-1"]["consenting"], maj["waiver-1"]["share"], maj["waiver-1"]["majority"]) == (
        "30000000.00", "0.600000", True)
    # B 20/50 = 40%; C's consent does not count
    assert (maj["waiver-2"]["consenting"], maj["waiver-2"]["majority"]) == ("20000000.00", False)
    assert maj["waiver-2"]["excluded"] == ["C"]
    # were C counted, A's 30/60 would be exactly half: not "over 50%"
    objs_no_affiliate = [o for o in objs if o["type"] != "HolderAffiliation"]
    assert report(objs_no_affiliate, "2005-02-01")["majority"]["waiver-1"]["majority"] is False


def test_majority_counts_conversion_shares_at_the_conversion_price():
    objs = rra(ev("NotesConverted", "2004-12-01", holder="B", principal="1536000", shares=100000),
               ev("ConsentGiven", "2005-01-03", holder="B", matter="amendment"),
               holders={"A": "3000000", "B": "1536000"})
    m = report(objs, "2005-02-01")["majority"]["amendment"]
    # B holds no Notes but 100,000 Conversion Shares × 15.36 = 1,536,000; total 4,536,000
    assert (m["consenting"], m["total"], m["majority"]) == ("1536000.00", "4536000.00", False)
    assert Decimal(m["share"]) == (Decimal(1536000) / Decimal(4536000)).quantize(Decimal("0.000001"))


def test_trustee_notice_for_each_and_every_default_date():
    # filed 2004-11-30, effective 2004-12-15: defaults (i) and (ii), each with its own notice
    # (RRA §3(b) "each and every date"). (i): Thu 2004-07-15 + 2 Business Days: Fri 07-16,
    # Mon 07-19. (ii): Thu 2004-10-28 + 2: Fri 10-29, Mon 11-01.
    objs = rra(ev("ShelfFiled", "2004-11-30"), ev("ShelfEffective", "2004-12-15"),
               ev("TrusteeNotified", "2004-07-16"))
    rep = report(objs, "2005-02-01")
    first = deadline(rep, "notify the Trustee of Registration Default (i)")
    second = deadline(rep, "notify the Trustee of Registration Default (ii)")
    assert (first["due"], first["status"], first["met_on"]) == ("2004-07-19", "met", "2004-07-16")
    # the July notice was given before default (ii) occurred: it does not count for it
    assert (second["due"], second["status"]) == ("2004-11-01", "missed")
    assert second["basis"]["interpretations"] == {"default_date": "last_compliant_day"}


def test_a_fax_acknowledged_before_it_was_sent_is_not_given_until_a_real_answer():
    # NoticeAcknowledged e3 dated 2005-01-10 answers a fax (e4) sent 2005-01-14: impossible,
    # ignored; the acknowledgement of 2005-01-19 makes the fax given that day (RRA §10(E))
    objs = rra(ev("NoticeAcknowledged", "2005-01-10", notice="e4"),
               ev("NoticeSent", "2005-01-14", to="Holders", subject="Suspension Notice",
                  method="fax"),
               ev("NoticeAcknowledged", "2005-01-19", notice="e4"))
    [n] = report(objs, "2005-03-01")["notices"]
    assert n["deemed_given"] == "2005-01-19"
    assert n["basis"]["events"] == ["e4", "e5"]
    [n] = report(objs[:-1], "2005-03-01")["notices"]
    assert n["deemed_given"] is None


def test_a_buyer_under_the_shelf_is_not_a_holder_whose_consent_counts():
    # B bought 40,000,000 under the shelf: its Notes are outstanding but no longer Transfer
    # Restricted, so B is not a "Holder" (RRA §1) and its consent is not a consent of
    # Holders. Total: every Note outstanding, 60,000,000.
    objs = rra(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-10-01"),
               ev("NotesTransferred", "2004-12-01", from_holder="A", to_holder="B",
                  principal="40000000", under_shelf=True),
               ev("ConsentGiven", "2005-01-03", holder="B", matter="waiver"),
               ev("ConsentGiven", "2005-01-03", holder="A", matter="amendment"),
               holders={"A": "60000000"})
    maj = report(objs, "2005-02-01")["majority"]
    assert (maj["waiver"]["consenting"], maj["waiver"]["total"], maj["waiver"]["majority"]) == (
        "0.00", "60000000.00", False)
    assert maj["waiver"]["not_holders"] == ["B"]
    # A keeps 20,000,000 Transfer Restricted: 20/60 = 0.333333, not over 50%
    assert (maj["amendment"]["consenting"], maj["amendment"]["share"],
            maj["amendment"]["majority"]) == ("20000000.00", "0.333333", False)


def test_effectiveness_period_ends_when_every_note_is_sold_under_the_shelf():
    # RRA §2(a)(iii)(y): all Transfer Restricted Securities sold under the shelf on
    # 2005-03-01, before the 2nd anniversary of effectiveness (2006-10-01)
    objs = rra(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-10-01"),
               ev("NotesTransferred", "2005-03-01", from_holder=LEHMAN, to_holder="Public",
                  principal="60000000", under_shelf=True))
    rep = report(objs, "2005-06-01")
    assert rep["registration"]["effectiveness_period_end"] == "2005-03-01"
    end = deadline(rep, "keep the Shelf Registration Statement effective")
    assert (end["due"], end["status"], end["clause"]) == ("2005-03-01", "met",
                                                          "RRA §2(a)(iii)(y),(z)")
