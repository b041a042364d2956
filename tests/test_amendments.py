"""The events the market agreements need (issue 33): ``TermsAmended`` under the amendment
clause (RRA §10(D)), resting on the consents the ledger holds and refused short of the
majority; ``ConversionPriceAdjusted``; ``ConversionSharesTransferred``; ``Rule144kDate``;
``AdditionalInterestPaid`` in shares; and the payees a deal's terms name.

Hand-worked figures, 30/360 (SPEC §2). The base history (SPEC §8.1): Lehman 60,000,000
from 2004-06-30 (here with M 40,000,000 beside it), filed 2004-07-13, effective
2004-11-15: default (ii) from 2004-10-29.
"""

from __future__ import annotations

import copy
import json

import pytest

from ledger.errors import RuleViolation
from ledger.events import parse_event
from ledger.store import Ledger
from ledger.terms import TEMPLATES
from publishing.reading import deal_report
from tests.support import d, ev, opened

STEPS = TEMPLATES["infocrossing-rra-2004"]["terms"]["damages"]["steps"]


def doubled() -> dict:
    steps = copy.deepcopy(STEPS)
    steps[0]["set"] = "0.50"
    return {"damages": {"steps": steps}}


@pytest.fixture
def ledger(tmp_path):
    with Ledger(str(tmp_path / "l.db")) as found:
        found.append([parse_event(o) for o in [
            # $100,000,000 of Notes: round figures, past the Infocrossing maximum
            opened(maximum_principal=None),
            ev("NotesIssued", "2004-06-30", holder="L", principal="60000000"),
            ev("NotesIssued", "2004-06-30", holder="M", principal="40000000"),
            ev("ShelfFiled", "2004-07-13")]])
        yield found


def append(ledger, *objs):
    return ledger.append([parse_event(o) for o in objs])


def report_of(ledger, as_of: str) -> dict:
    return deal_report(ledger.deal_events("rra"), as_of=d(as_of))


# -------------------------------------------------------------------- TermsAmended


def test_an_amendment_short_of_a_majority_is_refused(ledger):
    """M holds 40,000,000 of 100,000,000: 40% is not "over 50%" (RRA §1 Majority of
    Holders, §10(D))."""
    append(ledger, ev("ConsentGiven", "2004-10-20", holder="M", matter="double"))
    with pytest.raises(RuleViolation) as err:
        append(ledger, ev("TermsAmended", "2004-10-25", matter="double", changes=doubled()))
    assert (err.value.field, err.value.rule) == ("data.matter", "RRA §10(D)")
    assert ("are 40.00% of the principal counted (40,000,000.00 of 100,000,000.00); "
            "RRA §10(D) asks for more than 50%") in err.value.message
    assert "TermsAmended" not in {e.type for e in ledger.deal_events("rra")}


def test_figures_before_an_amendment_never_move(ledger):
    """L (60%) consents to doubling the first rate, from 2004-11-01. Default (ii) runs
    2004-10-29 to 2004-11-15 (exclusive):
      2004-10-29 to 11-01 at 0.25%: 30/360 30*(11-10) + (1-29) = 2 days
      2004-11-01 to 11-15 at 0.50%: 14 days
      L: 60,000,000 x (0.0025 x 2 + 0.005 x 14) / 360 = 60,000,000 x 0.075 / 360 = 12,500.00
      M: 40,000,000 x 0.075 / 360 = 8,333.33
    As of 2004-10-31, before the amendment takes effect, the figures are the deal's own
    terms': 0.25% on the days so far (10-29, 10-30: 30/360 from 10-29 to 11-01 = 2 days)."""
    append(ledger, ev("ConsentGiven", "2004-10-20", holder="L", matter="double"),
           ev("TermsAmended", "2004-10-25", matter="double", changes=doubled(),
              effective="2004-11-01"),
           ev("ShelfEffective", "2004-11-15"))
    before = report_of(ledger, "2004-10-31")
    # 60,000,000 x 0.0025 x 2/360 = 833.33; 40,000,000 x 0.0025 x 2/360 = 555.56
    assert before["additional_interest"]["by_holder"] == {"L": "833.33", "M": "555.56"}
    after = report_of(ledger, "2005-02-01")
    assert after["additional_interest"]["payments"][0]["amounts"] == {
        "L": "12500.00", "M": "8333.33"}
    (amended,) = after["registration"]["amendments"]
    assert (amended["matter"], amended["effective"], amended["share"], amended["majority"]) \
        == ("double", "2004-11-01", "0.600000", True)
    assert amended["basis"]["clause"] == "RRA §1 Majority of Holders, §10(D), §10(H)"
    first, second = after["registration"]["defaults"]
    assert (first["accrual_until"], first["stopped_by"], second["accrual_from"]) == \
        ("2004-11-01", "amended", "2004-11-01")


def test_a_cap_amended_caps_only_the_days_from_its_effective_date(tmp_path):
    """Found by the differential test (issue 33): the cap of the terms in force on as_of
    was applied to every day. A filing default from 2004-07-16 (no shelf filed) on
    12,000,000 of Notes; an amendment effective 2004-10-15 caps the rate at 0.50%. As of
    2004-10-15 (30/360):
      2004-07-16 to 10-14 at 0.25%: 30*3 + (14-16) = 88 days
      2004-10-14 (day 91) at 1.00%: 1 day; 2004-10-15 at 0.50% (capped): 1 day
      12,000,000 x (0.0025 x 88 + 0.01 x 1 + 0.005 x 1) / 360 = 12,000,000 x 0.235 / 360
      = 7,833.33 (the old code capped 10-14 too: 7,666.67)."""
    with Ledger(str(tmp_path / "c.db")) as ledger:
        append(ledger, opened(), ev("NotesIssued", "2004-07-01", holder="A", principal="12000000"),
               ev("ConsentGiven", "2004-10-14", holder="A", matter="cap"),
               ev("TermsAmended", "2004-10-15", matter="cap", changes={"damages": {"cap": "0.50"}}))
        r = report_of(ledger, "2004-10-15")
    assert r["additional_interest"]["accrued_to_as_of"] == "7833.33"
    assert [(s["start"], s["rate"]) for s in r["additional_interest"]["rate_segments"]] == [
        ("2004-07-16", "0.25"), ("2004-10-14", "1.00"), ("2004-10-15", "0.50")]


def test_a_consent_an_amendment_rests_on_cannot_be_retracted(ledger):
    append(ledger, ev("ConsentGiven", "2004-10-20", holder="L", matter="double"),
           ev("TermsAmended", "2004-10-25", matter="double", changes=doubled()))
    consent = next(e.id for e in ledger.deal_events("rra") if e.type == "ConsentGiven")
    with pytest.raises(RuleViolation, match="would no longer be carried") as err:
        append(ledger, ev("EventRetracted", "2004-10-26", event_id=consent, reason="x"))
    assert err.value.field == "data.event_id"
    # nor can a Holder be given more Notes, dated before it, than leave L its majority
    with pytest.raises(RuleViolation, match="would no longer be carried"):
        append(ledger, ev("NotesIssued", "2004-10-01", holder="M", principal="30000000"))


@pytest.mark.parametrize("changes, field, phrase", [
    ({"payment": {"day_count": "ACT/360"}}, "data.changes.payment",
     "how and when Additional Interest is paid"),
    ({"readings": {"rate_clock": "once_per_deal"}}, "data.changes.readings", "--interpret"),
    ({"filing": {"count": 0}}, "data.changes.filing.count", "greater than 0"),
    ({"filing": {"cunt": 3}}, "data.changes.filing.cunt", "unknown term"),
])
def test_an_amendment_that_moves_past_figures_or_breaks_the_schema_is_refused(
        ledger, changes, field, phrase):
    append(ledger, ev("ConsentGiven", "2004-10-20", holder="L", matter="m"))
    with pytest.raises(RuleViolation) as err:
        append(ledger, ev("TermsAmended", "2004-10-25", matter="m", changes=changes))
    assert err.value.field == field and phrase in err.value.message


def test_an_amendment_can_switch_a_duty_off(ledger):
    """A waiver of the Trustee notice (RRA §3(b)) from 2004-10-01: the default date
    2004-10-28 falls after it, so no notice is owed."""
    append(ledger, ev("ConsentGiven", "2004-09-20", holder="L", matter="waive §3(b) notice"),
           ev("TermsAmended", "2004-09-25", matter="waive §3(b) notice",
              changes={"trustee_notice": None}, effective="2004-10-01"))
    r = report_of(ledger, "2005-02-01")
    assert not any(o["obligation"].startswith("notify the Trustee") for o in r["deadlines"])
    assert r["additional_interest"]["accrued_to_as_of"] != "0.00"


# ------------------------------------------------ prices, shares, the 144(k) date


def test_conversion_shares_count_for_a_majority_at_the_prevailing_price(ledger):
    """M converts 40,000,000 into 2,604,166 shares; the price is adjusted to 15.00 before
    the amendment: M counts 2,604,166 x 15.00 = 39,062,490.00, L 60,000,000: L's consent
    is 60,000,000 / 99,062,490 = 60.57%, a majority."""
    append(ledger, ev("NotesConverted", "2004-09-01", holder="M", principal="40000000",
                      shares=2604166),
           ev("ConversionPriceAdjusted", "2004-09-15", new_price="15.00", reason="split"),
           ev("ConsentGiven", "2004-10-20", holder="L", matter="double"),
           ev("TermsAmended", "2004-10-25", matter="double", changes=doubled()))
    (amended,) = report_of(ledger, "2004-12-31")["registration"]["amendments"]
    assert (amended["consenting"], amended["total"]) == ("60000000.00", "99062490.00")


def test_conversion_shares_held_are_checked_and_sold_under_an_effective_shelf_only(ledger):
    append(ledger, ev("NotesConverted", "2004-09-01", holder="M", principal="1000000",
                      shares=65104))
    with pytest.raises(RuleViolation, match="M holds 65104 Conversion Shares"):
        append(ledger, ev("ConversionSharesTransferred", "2004-09-02", from_holder="M",
                          to_holder="N", shares=70000))
    with pytest.raises(RuleViolation, match="before it is effective") as err:
        append(ledger, ev("ConversionSharesTransferred", "2004-09-02", from_holder="M",
                          to_holder="N", shares=1000, under="shelf"))
    assert err.value.field == "data.under"
    with pytest.raises(RuleViolation, match="holds and held no Notes"):
        append(ledger, ev("ConversionSharesTransferred", "2004-09-02", from_holder="Q",
                          to_holder="N", shares=1))


def test_the_rule_144k_date_is_recorded_once(ledger):
    append(ledger, ev("Rule144kDate", "2006-06-30"))
    with pytest.raises(RuleViolation, match="already recorded"):
        append(ledger, ev("Rule144kDate", "2006-07-30"))


def test_a_notice_by_a_method_the_agreement_does_not_name_is_refused(ledger):
    with pytest.raises(RuleViolation, match="only by hand, mail, telex, fax, courier"):
        append(ledger, ev("NoticeSent", "2004-07-20", to="T", subject="s", method="email"))


# ------------------------------------------------------------- paid in shares


def _shares_deal(tmp_path):
    """The Edwards form, its damages paid in shares: 10,000,000 of Debentures of B, the
    shelf effective 2003-12-05 (default (ii) from 2003-11-06)."""
    t = copy.deepcopy(TEMPLATES["edwards-rra-2003"])
    t["terms"]["payment"]["paid_in"] = "shares"
    path = tmp_path / "terms.json"
    path.write_text(json.dumps({"kind": t["kind"], "name": t["name"],
                                "date": t["date"].isoformat(), "terms": t["terms"]}))
    from ledger.operations import opening_event

    ledger = Ledger(str(tmp_path / "s.db"))
    ledger.append([opening_event("edw", terms_file=str(path))])
    ledger.append([parse_event({**o, "deal": "edw"}) for o in [
        ev("NotesIssued", "2003-05-09", holder="B", principal="10000000"),
        ev("ShelfFiled", "2003-07-28"), ev("ShelfEffective", "2003-12-05")]])
    return ledger


def test_additional_interest_paid_in_shares(tmp_path):
    """2003-11-15: 10,000,000 x 0.25% x 9/360 = 625.00, paid in shares at the Applicable
    Conversion Price on the Interest Payment Date, 54.66: 11 shares = 601.26, and 23.74
    in cash in lieu of the fraction; paid in full."""
    with _shares_deal(tmp_path) as ledger:
        with pytest.raises(RuleViolation, match="pays Additional Interest in shares"):
            ledger.append([parse_event({**ev("AdditionalInterestPaid", "2003-11-17",
                                             payment_date="2003-11-15", holder="B",
                                             amount="625.00"), "deal": "edw"})])
        ledger.append([parse_event({**ev("AdditionalInterestPaid", "2003-11-17",
                                         payment_date="2003-11-15", holder="B", shares=11,
                                         amount="23.74"), "deal": "edw"})])
        r = deal_report(ledger.deal_events("edw"), as_of=d("2003-12-31"))
    pay = r["additional_interest"]["payments"][0]
    assert (pay["amounts"], pay["share_price"], pay["shares_owed"], pay["paid_shares"],
            pay["paid"], pay["status"]) == ({"B": "625.00"}, "54.66", {"B": 11}, {"B": 11},
                                            {"B": "625.00"}, "paid")


def test_a_cash_deal_refuses_a_payment_in_shares(ledger):
    with pytest.raises(RuleViolation, match="pays Additional Interest in cash"):
        append(ledger, ev("AdditionalInterestPaid", "2005-01-18", payment_date="2005-01-15",
                          holder="L", shares=100))


# ------------------------------------------------------------ who is paid


@pytest.mark.parametrize("paid_to, expected", [
    # RRA §3(a): never asked, both entitled: 60,000,000 x 0.0025 x 16/360 = 6,666.67 and
    # 40,000,000 x 0.0025 x 16/360 = 4,444.44 (2004-10-29 to 11-15: 16 days)
    ("record_holders_of_trs", {"L": "6666.67", "M": "4444.44"}),
    # only Holders that delivered a Questionnaire (L, on 2004-11-05): M gets 0
    ("questionnaire_holders", {"L": "6666.67", "M": "0.00"}),
    # and only from the delivery: 2004-11-05 to 11-15: 10 days: 60,000,000 x 0.0025 x
    # 10/360 = 4,166.67
    ("questionnaire_holders_from_delivery", {"L": "4166.67", "M": "0.00"}),
])
def test_the_terms_say_who_is_paid(tmp_path, paid_to, expected):
    from ledger.operations import opening_event

    t = copy.deepcopy(TEMPLATES["infocrossing-rra-2004"])
    t["terms"]["payment"]["paid_to"] = paid_to
    t["terms"]["maximum_principal"] = None   # $100,000,000 below: past the Infocrossing one
    path = tmp_path / "terms.json"
    path.write_text(json.dumps({"kind": t["kind"], "name": t["name"],
                                "date": "2004-06-30", "terms": t["terms"]}))
    with Ledger(str(tmp_path / "p.db")) as ledger:
        ledger.append([opening_event("rra", terms_file=str(path))])
        append(ledger, ev("NotesIssued", "2004-06-30", holder="L", principal="60000000"),
               ev("NotesIssued", "2004-06-30", holder="M", principal="40000000"),
               ev("ShelfFiled", "2004-07-13"), ev("QuestionnaireDelivered", "2004-11-05",
                                                  holder="L"),
               ev("ShelfEffective", "2004-11-15"))
        r = report_of(ledger, "2005-02-01")
    assert r["additional_interest"]["payments"][0]["amounts"] == expected


def test_paid_from_its_own_delivery_on_notes_it_sold_after_the_record_date(tmp_path):
    """Found by the differential test (issue 33): under ``questionnaire_holders_from_
    delivery`` a Record Holder's Notes sold after the record date were counted from the
    buyer's delivery, not the Record Holder's. L (delivered 2004-11-05) holds 60,000,000
    on the record date 2005-01-01 and sells 20,000,000 privately to M on 2005-01-05; M
    delivered on 2005-01-10. L is owed for 2005-01-15 on all 60,000,000 from its own
    delivery: 60,000,000 x 0.0025 x 10/360 = 4,166.67 (2004-11-05 to 11-15: 10 days);
    the old code gave 40,000,000 x 0.0025 x 10/360 = 2,777.78. M, delivering only after
    the default was cured, earns nothing and is not listed."""
    from ledger.operations import opening_event

    t = copy.deepcopy(TEMPLATES["infocrossing-rra-2004"])
    t["terms"]["payment"]["paid_to"] = "questionnaire_holders_from_delivery"
    t["terms"]["maximum_principal"] = None
    path = tmp_path / "terms.json"
    path.write_text(json.dumps({"kind": t["kind"], "name": t["name"],
                                "date": "2004-06-30", "terms": t["terms"]}))
    with Ledger(str(tmp_path / "p.db")) as ledger:
        ledger.append([opening_event("rra", terms_file=str(path))])
        append(ledger, ev("NotesIssued", "2004-06-30", holder="L", principal="60000000"),
               ev("NotesIssued", "2004-06-30", holder="M", principal="40000000"),
               ev("ShelfFiled", "2004-07-13"),
               ev("QuestionnaireDelivered", "2004-11-05", holder="L"),
               ev("ShelfEffective", "2004-11-15"),
               ev("NotesTransferred", "2005-01-05", from_holder="L", to_holder="M",
                  principal="20000000", under="private"),
               ev("QuestionnaireDelivered", "2005-01-10", holder="M"))
        r = report_of(ledger, "2005-02-01")
    assert r["additional_interest"]["payments"][0]["amounts"] == {"L": "4166.67"}
