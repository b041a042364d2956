"""``terms draft`` on the excerpts of ``/work/shared/agreements/`` (issue 35): every term an
excerpt states is found with its value, section and quotation; every term it does not state
is listed as missing (and the written file fails ``terms check`` until a person fills it).

The excerpts are kept word for word in ``tests/data/agreements/`` (checked against
``/work/shared/agreements/`` when that folder is there). ``other-openings.txt`` gathers
excerpts of several agreements with notes about them; each excerpt (the agreement's own
words, as the file quotes them) is drafted alone. Items 3 and 5 quote no term of an
agreement (only what each one's opening names), so there is nothing to draft from them.
"""

from __future__ import annotations

import re

from pathlib import Path

import pytest

from ledger.drafting.layout import flat, plain_text
from ledger.drafting.schema import draft
from tests.support import without_places

DATA = Path(__file__).resolve().parent / "data" / "agreements"
SHARED = Path("/work/shared/agreements")
DEBENTURES = "debentures-rra-registration-defaults-clause.txt"
SENIOR = "senior-convertible-notes-registration-agreement-2002-03-05.txt"
OPENINGS = "other-openings.txt"

#: every term of the schema a draft fills or lists as missing (the paths ``missing`` uses)
ALL = {"closing_date", "maturity", "conversion_price", "filing", "effectiveness",
       "effectiveness_period", "transfer_restricted", "defaults.filing",
       "defaults.effectiveness", "defaults.unusable", "defaults.suspension", "damages",
       "payment", "suspensions", "questionnaire", "trustee_notice", "advise_holders",
       "notices", "amendments"}


def _text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def _opening(start: str, end: str | None) -> str:
    """One excerpt of ``other-openings.txt``: the words after ``start`` up to ``end``."""
    text = _text(OPENINGS)
    at = text.index(start) + len(start)
    return text[at:text.index(end, at)] if end else text[at:]



def _check(d, text: str, found: dict, missing: set[str]) -> None:
    """``found``: path -> (value without sections and quotes, section, words the
    quotation holds); ``missing``: the paths listed as missing."""
    by_path = {t.path: t for t in d.found}
    assert set(by_path) == set(found), sorted(set(by_path) ^ set(found))
    for path, (value, section, words) in found.items():
        t = by_path[path]
        if value is not ...:
            assert without_places(t.value) == value, path
        assert t.section == section, path
        assert words in t.quote, path
        for piece in t.quote.split(" ... "):
            assert flat(piece) in flat(plain_text(text)), path
    assert {m.path for m in d.missing} == missing


@pytest.mark.parametrize("name", [DEBENTURES, SENIOR, OPENINGS])
def test_the_kept_excerpts_are_the_shared_ones(name):
    if not SHARED.exists():
        pytest.skip("/work/shared/agreements is not on this machine")
    assert (SHARED / name).read_bytes() == (DATA / name).read_bytes()


def test_the_debentures_registration_defaults_clause():
    """Found (8 terms, each read by hand): (a) and (b) "on or prior to the 270th day
    following the Closing Date" (270 calendar days from the closing: the filing and the
    effectiveness deadlines, each a Registration Default); (c) "ceases to be effective or
    usable ... other than in connection with (A) a Deferral Period or (B) ... information
    regarding selling securityholders ... within ten Business Days"; damages "0.25% per
    annum for the first 90 days ... and 0.50% per annum thereafter" (stated in (a) and (b)
    alike) "on the aggregate outstanding principal amount". Missing: what the file says is
    not in the retrieved text (the Deferral Period limits, the Shelf Registration Period's
    end, the payment and record dates, the cap when (a)-(c) overlap, converted Debentures,
    the Questionnaire, notices) and what the excerpt does not touch (the closing date,
    maturity, conversion price, Registrable Securities, a suspension default, a Trustee
    notice, advice to Holders, amendments)."""
    text = _text(DEBENTURES)
    d = draft(text)
    deadline = {"anchor": "closing", "count": 270, "unit": "calendar", "roll": "none"}
    _check(d, text, {
        "filing": (deadline, "Registration Defaults (a)",
                   "is not filed with the Commission on or prior to the 270th day following "
                   "the Closing Date"),
        "effectiveness": (deadline, "Registration Defaults (b)",
                          "on or prior to the 270th day following the Closing Date"),
        "defaults.filing": ({"label": "(a)"}, "Registration Defaults (a)", "is not filed"),
        "defaults.effectiveness": ({"label": "(b)"}, "Registration Defaults (b)",
                                   "is not declared effective"),
        "defaults.unusable": ({"label": "(c)", "cure": {"count": 10, "unit": "business"},
                               "excused": ["suspension", "selling_holder_information"]},
                              "Registration Defaults (c)", "within ten Business Days"),
        "damages": (None, "Registration Defaults",
                    'liquidated damages (the "Registration Default Damages")'),
        "damages.steps": ([{"after_days": 0, "set": "0.25"}, {"after_days": 90, "set": "0.50"}],
                          "Registration Defaults (a),(b)", "0.50% per annum thereafter"),
        "damages.base": ("outstanding", "Registration Defaults (a)",
                         "aggregate outstanding principal amount of the Debentures"),
    }, {"closing_date", "date", "maturity", "conversion_price", "effectiveness_period",
        "transfer_restricted", "defaults.suspension", "damages.cap",
        "damages.conversion_shares", "payment", "suspensions", "questionnaire",
        "trustee_notice", "advise_holders", "notices", "amendments"})
    # (c) is cut off inside its cure: "within ten Business Days (or, if a Deferral Period
    # is then in effect and subject to ... the filing o[...excerpt ends]": the ten days
    # are read, the other period is not: the note says so, quoting the cut
    unusable = next(t for t in d.found if t.path == "defaults.unusable")
    assert "cut off" in unusable.note and "the filing o[...excerpt ends]" in unusable.note
    cap = next(m for m in d.missing if m.path == "damages.cap")
    assert "ends at 0.50%" in cap.why and "no maximum" in cap.why
    assert {r.name for r in d.readings} == {"overlapping_defaults",
                                            "default_after_effectiveness_period"}


def test_the_senior_notes_registration_agreement_summary():
    """Found (4 terms): "a Registration Agreement, dated March 5, 2002"; (i) "within 90
    days after the Issue Date, file"; (ii) "declared effective ... within 180 days after
    the Issue Date"; (iii) the earliest of (a) "the second anniversary of the Issue Date
    or, if later, the second anniversary of the last date on which any Senior Convertible
    Notes are issued upon exercise of the Initial Purchasers' option" (two years after the
    last issue), (b) "pursuant to paragraph (k) of Rule 144" (the Rule 144(k) date), (c)
    "have been transferred pursuant to Rule 144" (all sold). The excerpt ends inside (d):
    the period is written with (a)-(c) and listed as missing, naming (d). The rest is not
    in the excerpt (the file: "the damages clause, suspension limits, payment
    mechanics"), nor the Issue Date itself, which the deadlines count from."""
    text = _text(SENIOR)
    d = draft(text)
    deadline = {"anchor": "issue_date", "unit": "calendar", "roll": "none"}
    _check(d, text, {
        "agreement_date": ("2002-03-05", "Registration Agreement",
                           "a Registration Agreement, dated March 5, 2002"),
        "filing": (deadline | {"count": 90}, "Registration Agreement (i)",
                   "within 90 days after the Issue Date, file"),
        "effectiveness": (deadline | {"count": 180}, "Registration Agreement (ii)",
                          "within 180 days after the Issue Date"),
        "effectiveness_period": ({"ends": [
            {"end": "anniversary", "years": 2, "of": "last_option_issue"},
            {"end": "rule_144k"}, {"end": "all_sold"}]}, "Registration Agreement (iii)",
            "continuously effective under the Securities Act until the earliest of"),
    }, {"closing_date", "issue_date", "maturity", "conversion_price", "effectiveness_period",
        "transfer_restricted", "defaults.filing", "defaults.effectiveness",
        "defaults.unusable", "defaults.suspension", "damages", "payment", "suspensions",
        "questionnaire", "trustee_notice", "advise_holders", "notices", "amendments"})
    ends = d.terms["effectiveness_period"]["ends"]
    assert [e["section"] for e in ends] == ["Registration Agreement (iii)(a)",
                                            "Registration Agreement (iii)(b)",
                                            "Registration Agreement (iii)(c)"]
    cut = next(m for m in d.missing if m.path == "effectiveness_period")
    assert "(d) the date as of which all the Senior Convertible Not" in cut.why
    closing = next(m for m in d.missing if m.path == "closing_date")
    assert "dated 2002-03-05" in closing.why
    # (c) "have been transferred pursuant to Rule 144": the schema has no Rule 144
    # transfer of all; all_sold is the nearest end, and the note names the choice
    period = next(t for t in d.found if t.path == "effectiveness_period")
    assert '(iii)(c) "transferred pursuant to Rule 144" read as all_sold' in period.note
    assert d.date == "2002-03-05"


OPENINGS_CASES = {
    # 1. EPIX Medical 2004: "Additional Interest Payment Date" means each of June 15 and
    # December 15 (the other definitions only point to Section 3 and 2(d)(i))
    "epix": (("Retrieved definitions:\n", "   Resale prospectus"), {
        "payment": (None, "definition of Additional Interest Payment Date", "June 15"),
        "payment.interest_payment_dates": (["06-15", "12-15"],
                                           "definition of Additional Interest Payment Date",
                                           "means each of June 15 and December 15"),
    }),
    # 2. SL Green 2007: "Additional Interest Payment Date" means each March 30 and
    # September 30 of each year
    "sl-green": (("Retrieved: ", "\n\n3."), {
        "payment": (None, "definition of Additional Interest Payment Date", "March 30"),
        "payment.interest_payment_dates": (["03-30", "09-30"],
                                           "definition of Additional Interest Payment Date",
                                           "means each March 30 and September 30"),
    }),
    # 4. Edwards 2003: the definition of the Applicable Conversion Price states no term
    "edwards": (("Retrieved definition: ", "(Used in"), {}),
    # a. 0.25% for the first 90 days; then +0.25% each further 90 days; at most 0.50%
    "market-a": (("registration-defaults/_1 : ", "\n b."), {
        "damages": (None, "RRA", "at a rate of 0.25% per annum"),
        "damages.steps": ([{"after_days": 0, "set": "0.25"},
                           {"after_days": 90, "every_days": 90, "add": "0.25"}], "RRA",
                          "increase by an additional 0.25% per annum"),
        "damages.cap": ("0.50", "RRA", "up to a maximum amount of 0.50% per annum"),
    }),
    # b. 0.25% from the default, +0.25% each subsequent 90-day period (the first period
    # is therefore 90 days), at most 1.00%; cash, to the persons paid ordinary interest
    "market-b": (("(a note's terms): ", "\n c."), {
        "damages": (None, "RRA", "0.25% from and including the date"),
        "damages.steps": ([{"after_days": 0, "set": "0.25"},
                           {"after_days": 90, "every_days": 90, "add": "0.25"}], "RRA",
                          "+0.25% each subsequent 90-day period"),
        "damages.cap": ("1.00", "RRA", "up to a maximum [..] of 1.00% per annum"),
        "payment": (None, "RRA", "payable in cash"),
        "payment.paid_in": ("cash", "RRA", "payable in cash"),
        "payment.paid_to": ("record_holders", "RRA",
                            "in the same manner and to the same persons as ordinary interest"),
    }),
    # c. suspensions: 90 days in any twelve-month period; 0.25% +0.25% per 90 days, max 0.50%
    "market-c": (("additional-interest/_10 : ", "\n d."), {
        "damages": (None, "RRA", "0.25%"),
        "damages.steps": ([{"after_days": 0, "set": "0.25"},
                           {"after_days": 90, "every_days": 90, "add": "0.25"}], "RRA",
                          "+0.25% per 90 days"),
        "damages.cap": ("0.50", "RRA", "max 0.50%"),
        "suspensions": (None, "RRA", "twelve-month period"),
        "suspensions.windows": ([{"days": 90, "material_days": None, "in_months": 12,
                                  "default": None}], "RRA",
                                "not to exceed an aggregate of 90 days in any twelve-month "
                                "period"),
    }),
    # d. AerCap: no single deferral over 60 consecutive days; 195 days in any 12 months
    "market-d": (("(AerCap): ", "\n e."), {
        "suspensions": (None, "RRA", "195 days in aggregate in any 12-month period"),
        "suspensions.single": ({"days": 60, "material_days": None}, "RRA",
                               "no single deferral over 60 consecutive days"),
        "suspensions.windows": ([{"days": 195, "material_days": None, "in_months": 12,
                                  "default": None}], "RRA",
                                "195 days in aggregate in any 12-month period"),
    }),
    # e. filed 90 days after the date hereof, effective by 150 days (counted, as the
    # filing in the same sentence, from the date hereof: a note says so)
    "market-e": (("shelf-registration/_3 : ", None), {
        "filing": ({"anchor": "date_hereof", "count": 90, "unit": "calendar", "roll": "none"},
                   "RRA", "filed 90 days after the date hereof"),
        "effectiveness": ({"anchor": "date_hereof", "count": 150, "unit": "calendar",
                           "roll": "none"}, "RRA", "effective by 150 days"),
    }),
}


#: what each excerpt leaves unsaid, read from its words: the schema's terms it never
#: speaks of (every term of ``ALL`` and the deal's ``date`` but those named), and the
#: parts of the terms it speaks of that it does not state
PAYMENT_PARTS = {"payment.interest_payment_dates", "payment.first_interest_payment_date",
                 "payment.record_dates", "payment.roll", "payment.day_count",
                 "payment.paid_to", "payment.paid_in"}


def _all_but(*spoken_of: str) -> set[str]:
    return ({"date"} | ALL) - set(spoken_of)


OPENINGS_MISSING = {
    # the EPIX and SL Green definitions state the payment dates only; "June 15"/"March 30"
    # carry no year, so no deal date
    "epix": _all_but("payment") | PAYMENT_PARTS - {"payment.interest_payment_dates"},
    "sl-green": _all_but("payment") | PAYMENT_PARTS - {"payment.interest_payment_dates"},
    "edwards": _all_but(),
    # a. the rate, its steps and the cap; "[..]" hides what it accrues on; no conversion
    "market-a": _all_but("damages") | {"damages.base", "damages.conversion_shares"},
    # b. as a, and paid in cash to the persons paid ordinary interest on "the regular
    # interest payment dates" (not named), "days / 360" read two ways
    "market-b": _all_but("damages", "payment") | {"damages.base",
                                                   "damages.conversion_shares"}
    | PAYMENT_PARTS - {"payment.paid_to", "payment.paid_in"},
    # c. as a, and a window of suspended days: one period's length and the number of
    # periods are not stated (the excerpt quotes only the window)
    "market-c": _all_but("damages", "suspensions") | {
        "damages.base", "damages.conversion_shares", "suspensions.single",
        "suspensions.max_periods"},
    # d. one deferral's length and the window; the number of deferrals not stated
    "market-d": _all_but("suspensions") | {"suspensions.max_periods"},
    # e. the filing and effectiveness deadlines only
    "market-e": _all_but("filing", "effectiveness"),
}


@pytest.mark.parametrize("case", sorted(OPENINGS_CASES))
def test_each_excerpt_of_the_other_openings(case):
    (start, end), found = OPENINGS_CASES[case]
    text = _opening(start, end)
    d = draft(text)
    _check(d, text, found, OPENINGS_MISSING[case])
    # the named readings whose sentence is in the excerpt: a and b accrue "from and
    # including" the date the Registration Default occurs (which day is the default's:
    # default_date); c and d limit suspensions by a window without saying what its breach
    # is (window_breach)
    assert {r.name for r in d.readings} == {
        "market-a": {"default_date"}, "market-b": {"default_date"},
        "market-c": {"window_breach"}, "market-d": {"window_breach"}}.get(case, set())
    if case == "market-b":
        # "amount = rate x principal x days / 360": 30/360 or actual days over 360
        count = next(m for m in d.missing if m.path == "payment.day_count")
        assert count.readings == ("30/360", "ACT/360")
        steps = next(t for t in d.found if t.path == "damages.steps")
        assert "first period read as 90 days" in steps.note
    if case in ("market-b", "market-c"):
        # a note quotes only the excerpt's words: b says "each subsequent 90-day period",
        # c "+0.25% per 90 days"
        steps = next(t for t in d.found if t.path == "damages.steps")
        said = {"market-b": "each subsequent 90-day period", "market-c": "per 90 days"}[case]
        assert f"counts '{said}'" in steps.note
        for quoted in re.findall(r"'([^']*)'", steps.note):
            assert flat(quoted) in flat(plain_text(text)), quoted
    if case == "market-e":
        effective = next(t for t in d.found if t.path == "effectiveness")
        assert "from the date hereof" in effective.note
    if not found:
        assert d.found == []


#: the items' header lines and the items the test above does not draft (3 and 5): what
#: each states, read by hand
HEADER_CASES = {
    # "EPIX Medical, Inc. - Registration Rights Agreement, June 7, 2004, ...;
    # $100,000,000 3% Convertible Senior Notes due 2024": the agreement's date and the
    # principal (no option is named: the amount itself); "due 2024" names no day
    "epix": (("1. ", "Retrieved definitions"), {
        "agreement_date": ("2004-06-07", "RRA", "Registration Rights Agreement, June 7, 2004"),
        "maximum_principal": ("100000000", "RRA", "$100,000,000 3% Convertible Senior Notes"),
    }),
    "sl-green": (("2. ", "Retrieved: "), {
        "agreement_date": ("2007-03-26", "RRA", "Registration Rights\nAgreement, March 26, "
                           "2007"),
    }),
    # 3. New River: "$125,000,000 ($143,750,000 with the option) 3.50% Convertible
    # Subordinated Notes": 143,750,000 with the option exercised in full
    "new-river": (("3. ", "\n\n4."), {
        "agreement_date": ("2006-07-25", "RRA", "Registration Rights Agreement, July 25, 2006"),
        "maximum_principal": ("143750000", "RRA", "$125,000,000 ($143,750,000 with the option)"),
    }),
    "edwards": (("4. ", "Retrieved definition"), {
        "agreement_date": ("2003-05-09", "RRA", "Registration Rights Agreement, May 9, 2003"),
    }),
    # 5. two agreements of the same form (Nextel, August 6, 2003; Axcelis, May 2, 2006):
    # nothing found; the date is left to a person with both
    "nextel-axcelis": (("5. ", "\n\nFurther"), {}),
}


@pytest.mark.parametrize("case", sorted(HEADER_CASES))
def test_the_header_lines_and_the_items_without_clauses(case):
    (start, end), found = HEADER_CASES[case]
    text = _opening(start, end)
    d = draft(text)
    _check(d, text, {p: (v, s, " ".join(w.split())) for p, (v, s, w) in found.items()},
           ALL | ({"date"} if case == "nextel-axcelis" else set()))
    if case == "nextel-axcelis":
        date = next(m for m in d.missing if m.path == "date")
        assert date.readings == ("2003-08-06", "2006-05-02")
        assert "several agreements" in date.why


def test_a_text_holding_several_agreements_is_not_one_deal():
    """The whole of other-openings.txt: six agreements, dated 2003-05-09 (Edwards),
    2003-08-06 (Nextel), 2004-06-07 (EPIX), 2006-05-02 (Axcelis), 2006-07-25 (New River) and
    2007-03-26 (SL Green); "Additional Interest Payment Date" defined twice (EPIX: June 15
    and December 15; SL Green: March 30 and September 30). The draft has no date: the
    reason says the text holds several agreements and names both definitions."""
    d = draft(_text(OPENINGS))
    assert d.date is None
    date = next(m for m in d.missing if m.path == "date")
    assert date.readings == ("2003-05-09", "2003-08-06", "2004-06-07", "2006-05-02",
                             "2006-07-25", "2007-03-26")
    assert "several agreements" in date.why
    assert "each of June 15 and December 15" in date.why
    assert "each March 30 and September 30" in date.why
