"""``terms draft`` on the Infocrossing RRA (issue 35): the draft equals the template's terms,
every term found with the section the template (written by hand from the text) gives it.

The text is ``ledger/contracts/registration-rights-agreement-2004-06-30.txt``, byte for byte
the one in ``/work/shared/contracts/`` (checked below when that folder is there).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ledger.drafting.layout import flat, plain_text
from ledger.drafting.schema import draft
from ledger.terms import dump, registration_terms, template

ROOT = Path(__file__).resolve().parent.parent
RRA = ROOT / "ledger" / "contracts" / "registration-rights-agreement-2004-06-30.txt"
SHARED = Path("/work/shared/contracts/registration-rights-agreement-2004-06-30.txt")
TEXT = RRA.read_text(encoding="utf-8")
NAME = "infocrossing-rra-2004"

#: what the RRA does not state, and why (read by hand): the maturity day and the Interest
#: Payment Dates are the Indenture's ("INTEREST PAYMENT DATE: As defined in the
#: Indenture."; the preamble says only "Notes due 2024"), and no conversion price, record
#: date, business-day roll or day count is in the RRA
NOT_IN_THE_RRA = ["maturity", "conversion_price", "payment.interest_payment_dates",
                  "payment.first_interest_payment_date", "payment.record_dates",
                  "payment.roll", "payment.day_count"]

#: every term the RRA states, the section it is in and the words that state its value
#: (read by hand from the text)
SECTIONS = {
    "closing_date": ("RRA §1 Closing Date", "CLOSING DATE: The date of this Agreement."),
    "maximum_principal": ("RRA preamble", "$60,000,000 ($72,000,000 if the Initial Purchaser "
                                          "exercises its option thereunder in full)"),
    "filing": ("RRA §2(a)(i)", "not later than 15 days after the date hereof"),
    "effectiveness": ("RRA §2(a)(ii)", "not later than 120 days after the date hereof"),
    "effectiveness_period": ("RRA §2(a)(iii)", "terminate upon the earliest of"),
    "transfer_restricted": ("RRA §1 Transfer Restricted Securities",
                            "disposed of in accordance with the Shelf Registration Statement"),
    "defaults.filing": ("RRA §3(a)(i)", "is not filed with the Commission prior to or on the "
                                        "Shelf Filing Deadline"),
    "defaults.effectiveness": ("RRA §3(a)(ii)", "has not been declared effective by the "
                                                "Commission prior to or on the Effectiveness "
                                                "Target Date"),
    "defaults.unusable": ("RRA §3(a)(iii)", "without such disability being cured within five "
                                            "Business Days"),
    "defaults.suspension": ("RRA §3(a)(iv)(A)", "prior to or on the 45th or 60th day"),
    "damages": ("RRA §3(a)", 'additional interest ("ADDITIONAL INTEREST") with respect to '
                             "the Transfer Restricted Securities that are Notes"),
    "damages.steps": ("RRA §3(a)(i),(ii),(iii),(iv)", "0.25% per annum"),
    "damages.cap": ("RRA §3(a)(iv)", "increase annually by 2.00 percentage points on each "
                                     "anniversary"),
    "damages.base": ("RRA §3(a)", "Transfer Restricted Securities that are Notes"),
    "damages.conversion_shares": ("RRA §3(a)", "No Additional Interest shall be payable on "
                                               "any Notes that have been converted"),
    "payment": ("RRA §3(b)", "payable in cash semi-annually in arrears"),
    "payment.paid_to": ("RRA §3(b)", "to Record Holders of Transfer Restricted Securities"),
    "payment.paid_in": ("RRA §3(b)", "payable in cash"),
    "suspensions": ("RRA §4(b)(i)", "not to exceed an aggregate of 45 days in any 90-day "
                                    "period"),
    "suspensions.single": ("RRA §3(a)(iv)(A)", "the 45th or 60th day, as the case may be"),
    "suspensions.windows": ("RRA §4(b)(i)", "not to exceed an aggregate of 90 days in any "
                                            "360-day period"),
    "suspensions.max_periods": ("RRA §4(b)(i)", "may suspend the effectiveness"),
    "questionnaire.deadline": ("RRA §2(b), §4(d)", "the 20th Business Day after the date of "
                                                   "a written request"),
    "questionnaire.form_deadline": ("RRA Exhibit A", "THE 20TH DATE FOLLOWING DELIVERY"),
    "questionnaire.late_amendment": ("RRA §2(b), §4(d)", "within 10 Business Days of "
                                                         "receipt"),
    "trustee_notice": ("RRA §3(b)", "notify the Trustee within two Business Days"),
    "advise_holders": ("RRA §4(b)(iii)", "(but in any event within five Business Days)"),
    "notices": ("RRA §10(E)", "five Business Days after being deposited in the mail"),
    "amendments": ("RRA §10(D)", "written consent of a Majority of Holders"),
    "amendments.majority": ("RRA §1 Majority of Holders", "Holders holding over 50% in "
                                                          "aggregate principal amount"),
    "citations.record_dates": ("RRA §1 Record Holder", "RECORD HOLDER: With respect to any "
                                                       "Additional Interest Payment Date"),
    "citations.business_day": ("RRA §1 Business Day", "BUSINESS DAY: A day other than a "
                                                      "Saturday or Sunday"),
    "citations.suspension_notice": ("RRA §4(c)", '(a "SUSPENSION NOTICE")'),
    "citations.shelf_sale": ("RRA §1 Transfer Restricted Securities (A)",
                             "disposed of in accordance with the Shelf Registration Statement"),
    "citations.named_selling_holder": ("RRA §4(d)", "shall not be permitted to sell any "
                                                    "Transfer Restricted Securities pursuant to "
                                                    "the Shelf Registration Statement"),
}


def _without_quotes(value):
    """Terms with every quotation left out (a quotation is the text's own words; the
    template's are cut by hand with "..." where the draft quotes the whole clause), and
    the words the template adds after a preamble's section ("RRA preamble ($60,000,000;
    $72,000,000 with the Initial Purchaser's option)": the draft cites "RRA preamble" and
    quotes those words)."""
    if isinstance(value, dict):
        return {k: (re.sub(r"^(RRA preamble) \(.*\)$", r"\1", v) if k == "section" else
                    _without_quotes(v)) for k, v in value.items() if k != "quote"}
    if isinstance(value, list):
        return [_without_quotes(v) for v in value]
    return value


def _normal(terms):
    """Terms as the ledger stores them (validated, defaults left out), quotes dropped."""
    return _without_quotes(dump(registration_terms(terms)))


@pytest.fixture(scope="module")
def alone():
    return draft(TEXT, file_name=RRA.name)


@pytest.fixture(scope="module")
def filled():
    return draft(TEXT, template=NAME, file_name=RRA.name)


def test_the_shipped_text_is_the_shared_contract():
    if not SHARED.exists():
        pytest.skip("/work/shared/contracts is not on this machine")
    assert SHARED.read_bytes() == RRA.read_bytes()


def test_the_draft_with_the_template_for_what_the_rra_does_not_state_is_the_template(filled):
    """The template was written by hand from the same text: with the seven terms the
    RRA leaves to the Indenture taken from it, the draft is the template, term for term
    and section for section (only the quotations differ in length)."""
    assert [t.path for t in filled.filled] == NOT_IN_THE_RRA
    assert filled.still_missing() == []
    assert _normal(filled.terms) == _normal(template(NAME)["terms"])


def test_alone_the_draft_finds_every_term_the_rra_states_and_lists_the_rest(alone):
    assert [m.path for m in alone.missing] == NOT_IN_THE_RRA
    assert alone.still_missing() == ["terms." + p for p in NOT_IN_THE_RRA]
    by_path = {t.path: t for t in alone.found}
    assert set(by_path) == set(SECTIONS)
    for path, (section, words) in SECTIONS.items():
        assert by_path[path].section == section, path
        assert words in by_path[path].quote, path


def test_every_quotation_is_the_agreement_s_own_words(alone):
    """Word for word (a term stated in several places quotes each, joined by " ... ")."""
    text = flat(plain_text(TEXT))
    for t in alone.found:
        for piece in t.quote.split(" ... "):
            assert flat(piece) in text, t.path
    for window in alone.terms["suspensions"]["windows"]:
        assert flat(window["quote"]) in text


def test_the_values_read_are_those_of_the_text(alone):
    """Each worked out by hand from the sentence it comes from."""
    t = alone.terms
    # §2(a)(i) "not later than 15 days after the date hereof": 15 calendar days, no roll
    assert t["filing"] | {"quote": None} == {
        "anchor": "date_hereof", "count": 15, "unit": "calendar", "roll": "none",
        "section": "RRA §2(a)(i)", "quote": None}
    # §2(a)(ii) "not later than 120 days after the date hereof"
    assert (t["effectiveness"]["count"], t["effectiveness"]["anchor"]) == (120, "date_hereof")
    # §1 "CLOSING DATE: The date of this Agreement"; preamble "dated as of June 30, 2004"
    assert t["closing_date"] == "2004-06-30" and "agreement_date" not in t
    # preamble: "$60,000,000 ($72,000,000 if the Initial Purchaser exercises its option
    # thereunder in full)": at most 72,000,000 of Notes
    assert t["maximum_principal"] == "72000000"
    # §3(a): (i) 0.25% for the first 90-day period; (ii) 1.00% from the 91st day; (iii)
    # 3.00% from the second anniversary; (iv) +2.00 points each anniversary from the third
    # (the text's illustration: 3.00 + 2.00 x 3 = 9.00% on the fifth anniversary)
    assert [{k: v for k, v in s.items() if k not in ("section", "quote")}
            for s in t["damages"]["steps"]] == [
        {"after_days": 0, "set": "0.25"}, {"after_days": 90, "set": "1.00"},
        {"anniversary": 2, "set": "3.00"}, {"anniversary": 3, "every_year": True, "add": "2.00"}]
    steps = next(f for f in alone.found if f.path == "damages.steps")
    assert "illustration agrees: 9.00% on the fifth anniversary" in steps.note
    # §3(a)(iii) "cured within five Business Days", "except as provided in Section
    # 4(b)(i)" (the right to suspend)
    assert t["defaults"]["unusable"]["cure"] == {"count": 5, "unit": "business"}
    assert t["defaults"]["unusable"]["excused"] == ["suspension"]
    # §4(b)(i): 45 days in any 90-day period (60 for a material transaction), 90 in any
    # 360-day period; §3(a)(iv)(B) makes the second's excess a default of its own
    windows = [{k: v for k, v in w.items() if k not in ("section", "quote")}
               for w in t["suspensions"]["windows"]]
    assert windows[0] == {"days": 45, "material_days": 60, "in_days": 90, "default": None}
    assert windows[1]["days"] == 90 and windows[1]["in_days"] == 360
    assert windows[1]["default"]["label"] == "(iv)(B)"
    # §10(E): hand on delivery; mail five Business Days after; telex and fax when
    # acknowledged; courier the next Business Day
    assert t["notices"]["methods"] == [
        {"method": "hand", "deemed": "on_delivery"},
        {"method": "mail", "deemed": "business_days_after", "count": 5},
        {"method": "telex", "deemed": "when_acknowledged"},
        {"method": "fax", "deemed": "when_acknowledged"},
        {"method": "courier", "deemed": "next_business_day"}]
    # §1 Majority of Holders "over 50%"; its proviso counts Conversion Shares
    assert t["amendments"]["majority"]["more_than"] == "0.5"
    assert t["amendments"]["majority"]["conversion_shares"] is True
    assert alone.shipped_text == RRA.name and t["text"] == RRA.name
    # the preamble: "RESALE REGISTRATION RIGHTS AGREEMENT, dated as of June 30, 2004,
    # between Infocrossing, Inc., ..."
    assert alone.name.startswith("Infocrossing, Inc.: Resale Registration Rights Agreement "
                                 "of June 30, 2004")
    assert alone.date == "2004-06-30"


def test_the_sentences_the_ledger_reads_two_ways_are_named(alone):
    """Each named reading whose sentence is in the RRA (projections.interpretations): the
    draft names it and its values, and pins none."""
    assert {r.name for r in alone.readings} == {
        "default_date", "rate_clock", "overlapping_defaults", "rate_after_second_anniversary",
        "conversion_forfeits", "conversion_judged_on", "shelf_buyer_paid",
        "no_questionnaire_request",
        "questionnaire_entitlement_judged_on", "questionnaire_deadline", "window_breach",
        "window_material_allowance", "registered_securities",
        "default_after_effectiveness_period"}
    deadline = next(r for r in alone.readings if r.name == "questionnaire_deadline")
    assert deadline.values == ("questionnaire_form", "section_2b_business_days")
    assert "readings" not in alone.terms


@pytest.mark.parametrize("old, new, path, value", [
    # §2(a)(i) changed to 30 days: the filing deadline is 30 days
    ("not later than 15 days after the date hereof", "not later than 30 days after the date "
     "hereof", "filing.count", 30),
    # §3(a) rate (i) changed to 0.35%
    ("Registration Default shall have occurred, 0.25% per annum",
     "Registration Default shall have occurred, 0.35% per annum", "damages.steps.0.set", "0.35"),
    # §3(a)(iii) changed to ten Business Days
    ("cured within\n     five Business Days", "cured within\n     ten Business Days",
     "defaults.unusable.cure.count", 10),
    # §4(b)(i) changed to 30 days in any 90-day period
    ("an aggregate of 45 days in\n     any 90-day period", "an aggregate of 30 days in\n     "
     "any 90-day period", "suspensions.windows.0.days", 30),
    # §3(b) changed to three Business Days
    ("within two Business Days after each", "within three Business Days after each",
     "trustee_notice.within.count", 3),
    # each number of the ladder stated in one place only: (ii) 1.00% -> 0.75%
    ("Closing Date, 1.00% per annum", "Closing Date, 0.75% per annum", "damages.steps.1.set",
     "0.75"),
    # (i) and (ii) changed together, "first 60-day period" and "61st day": after 60 days
    ("first 90-day period during which a\n          Registration Default shall have occurred, "
     "0.25% per annum of the\n          principal amount of the Notes;\n\n               (ii) "
     "with respect to the period commencing on the 91st day",
     "first 60-day period during which a\n          Registration Default shall have occurred, "
     "0.25% per annum of the\n          principal amount of the Notes;\n\n               (ii) "
     "with respect to the period commencing on the 61st day", "damages.steps.1.after_days", 60),
    # (ii)/(iii) "second anniversary" -> fourth in both places: step 3 from the 4th
    ("occurred to the\n          second anniversary of the Closing Date, 1.00% per annum of "
     "the\n          principal amount of the Notes;\n\n               (iii) with respect to "
     "the period commencing on the second", "occurred to the\n          fourth anniversary "
     "of the Closing Date, 1.00% per annum of the\n          principal amount of the Notes;"
     "\n\n               (iii) with respect to the period commencing on the fourth",
     "damages.steps.2.anniversary", 4),
])
def test_a_sentence_changed_to_another_number_gives_that_number(old, new, path, value):
    assert TEXT.count(old) == 1
    found = draft(TEXT.replace(old, new)).terms
    for key in path.split("."):
        found = found[int(key)] if key.isdigit() else found[key]
    assert found == value


def _missing(d, path):
    return next((m for m in d.missing if m.path == path), None)


# Each number of the damages ladder (§3(a)(i)-(iv)) and of the suspension limits (§3(a)(iv),
# §4(b)(i)) changed, one at a time, in one of the places it is stated. Where the number is
# stated once, the draft carries the new number; where another sentence states it too, the
# two sentences now disagree: the term is listed missing with both readings (hand-read).
@pytest.mark.parametrize("changes, path, readings", [
    # (i) "first 90-day period" -> 60: step 2 starts after 60 days by (i), after 90 days
    # by (ii)'s "91st day" (91 - 1 = 90)
    ([("first 90-day period", "first 60-day period")], "damages.steps", {60, 90}),
    # (ii) "91st day" -> "61st day": after 60 days by (ii) (61 - 1), after 90 by (i)
    ([("on the 91st day", "on the 61st day")], "damages.steps", {60, 90}),
    # (ii) "to the second anniversary" -> third: step 2 ends at the 3rd anniversary by (ii),
    # step 3 starts at the 2nd by (iii)
    ([("shall have occurred to the\n          second anniversary",
       "shall have occurred to the\n          third anniversary")], "damages.steps", {2, 3}),
    # (iii) "commencing on the second anniversary" -> fourth: 4 by (iii), 2 by (ii)'s end
    ([("period commencing on the second\n          anniversary",
       "period commencing on the fourth\n          anniversary")], "damages.steps", {2, 4}),
    # (iii) "to the third anniversary" -> fourth: step 3 ends at 4 by (iii), step 4 starts
    # at 3 by (iv)
    ([("Closing Date to the third anniversary", "Closing Date to the fourth anniversary")],
     "damages.steps", {3, 4}),
    # (iv) "commencing with the third anniversary" -> fourth, the illustration changed to
    # agree (3.00 + 2.00 x (5 - 4 + 1) = 7.00 on the fifth): 4 by (iv), 3 by (iii)'s end
    ([("commencing with the third anniversary", "commencing with the fourth anniversary"),
      ("increase to 9.00%", "increase to 7.00%")], "damages.steps", {3, 4}),
    # (iv) 2.00 points -> 1.50: the illustration says 9.00% on the fifth anniversary; the
    # ladder gives 3.00 + 1.50 x (5 - 3 + 1) = 7.50
    ([("increase\n          annually by 2.00", "increase\n          annually by 1.50")],
     "damages.steps", {"7.50", "9.00"}),
    # the illustration's 9.00% -> 8.00%: the ladder gives 3.00 + 2.00 x 3 = 9.00
    ([("increase to 9.00%", "increase to 8.00%")], "damages.steps", {"9.00", "8.00"}),
    # (iii) 3.00% -> 3.50%: the ladder gives 3.50 + 2.00 x 3 = 9.50 on the fifth
    # anniversary, the illustration 9.00
    ([("Closing Date, 3.00% per annum", "Closing Date, 3.50% per annum")], "damages.steps",
     {"9.50", "9.00"}),
    # the illustration's "fifth anniversary" -> sixth: 3.00 + 2.00 x (6 - 3 + 1) = 11.00
    ([("on the fifth\n          anniversary", "on the sixth\n          anniversary")],
     "damages.steps", {"11.00", "9.00"}),
    # (iv)(A) "45th or 60th day" -> "30th or 60th": one period ends by the 30th day by
    # §3(a)(iv)(A), may run 45 days by §4(b)(i) ("extend a Suspension Period from 45 days")
    ([("the 45th or 60th day", "the 30th or 60th day")], "suspensions.single", {30, 45}),
    # (iv)(A) "45th or 60th" -> "45th or 75th": 75 by §3(a)(iv)(A), 60 by §4(b)(i)
    ([("the 45th or 60th day", "the 45th or 75th day")], "suspensions.single", {60, 75}),
    # §4(b)(i) "from 45 days to 60 days" -> "to 75 days": 75 by §4(b)(i), 60 by (iv)(A)
    ([("from 45 days to 60\n     days", "from 45 days to 75\n     days")],
     "suspensions.single", {60, 75}),
    # §4(b)(i) "from 45 days" -> "from 30 days": the extension names no window the right
    # states (45 days in any 90-day period); (iv)(A) says one period runs to the 45th day
    ([("from 45 days to 60\n     days", "from 30 days to 60\n     days")],
     "suspensions.single", {30, 45}),
    # §4(b)(i) the extension's "during any 90-day period" -> 120-day: no such window
    ([("60\n     days during any 90-day period", "60\n     days during any 120-day period")],
     "suspensions.windows", {90, 120}),
    # §4(b)(i) "45 days in any 90-day period" -> "in any 120-day period": the extension
    # still says "during any 90-day period"
    ([("45 days in\n     any 90-day period", "45 days in\n     any 120-day period")],
     "suspensions.windows", {90, 120}),
    # §4(b)(i) "90 days in any 360-day period" -> 100 days: (iv)(B) still says 90
    ([("exceed an aggregate of 90 days in any 360-day period, if", "exceed an aggregate of "
       "100 days in any 360-day period, if")], "suspensions.windows", {90, 100}),
    # §4(b)(i) "360-day period" -> 365-day: (iv)(B) and §4(d) still say 360
    ([("90 days in any 360-day period, if", "90 days in any 365-day period, if")],
     "suspensions.windows", {360, 365}),
    # §4(d) "45 days in any 90-day period ... as described herein" -> 30 days: §4(b)(i) 45
    ([("not to exceed 45 days in any\n90-day period", "not to exceed 30 days in any\n90-day "
       "period")], "suspensions.windows", {30, 45}),
    # §4(d) "an aggregate of 90 days in any 360-day period as described herein" -> 100
    ([("aggregate of 90 days in any 360-day period as described", "aggregate of 100 days in "
       "any 360-day period as described")], "suspensions.windows", {90, 100}),
    # §3(a)(iv)(B) "90\n days in any 360 day period" -> 100: §4(b)(i) still says 90
    ([("aggregate of 90\n     days in any 360 day period", "aggregate of 100\n     days in any "
       "360 day period")], "suspensions.windows", {90, 100}),
    # §3(a)(iv)(B) "360 day period" -> 365: §4(b)(i) still says 360
    ([("days in any 360 day period", "days in any 365 day period")], "suspensions.windows",
     {360, 365}),
])
def test_two_sentences_that_state_one_number_differently_leave_it_to_a_person(
        changes, path, readings):
    text = TEXT
    for old, new in changes:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    d = draft(text)
    missing = _missing(d, path)
    assert missing is not None, f"{path} not listed missing"
    named = {str(x) for x in _flatten(missing.readings)}
    assert {str(r) for r in readings} <= named, missing
    assert missing.section and missing.quote


def _flatten(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _flatten(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _flatten(v)
    else:
        yield value
