"""Deal terms and the two templates (SPEC §4.1, §5.1), checked against the SPEC tables
and the contracts, with each term tied to its clause."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from ledger import daycount
from ledger.errors import InvalidEvent
from ledger.events import parse_event
from ledger.terms import (
    DAY_COUNTS,
    LETTER_CLAUSES,
    RRA_CLAUSES,
    TEMPLATES,
    LetterTerms,
    RegistrationTerms,
    letter_terms,
    registration_terms,
    template,
    validate_terms,
)
from ledger.values import FieldError

RRA = "infocrossing-rra-2004"
LETTER = "infocrossing-letter-2002"


def rra_terms(**changes):
    return {**TEMPLATES[RRA]["terms"], **changes}


def letter(**changes):
    return {**TEMPLATES[LETTER]["terms"], **changes}


def refused_term(kind, terms, term, phrase):
    """``validate_terms`` refuses naming ``terms.<term>``, and so does ``DealOpened``."""
    with pytest.raises(ValueError) as caught:
        validate_terms(kind, terms)
    assert isinstance(caught.value, FieldError)
    assert caught.value.field == f"terms.{term}"
    assert str(caught.value).startswith(f"terms.{term}: ")
    assert phrase in str(caught.value)
    obj = {"type": "DealOpened", "deal": "d", "date": "2004-06-30",
           "data": {"kind": kind, "name": "n", "terms": terms}}
    with pytest.raises(InvalidEvent) as event_caught:
        parse_event(obj, line=2)
    text = str(event_caught.value)
    assert event_caught.value.field == f"data.terms.{term}"
    assert text.startswith(f"line 2, field 'data.terms.{term}': ")
    assert phrase in text and "\n" not in text


# --------------------------------------------------------------------- templates


@pytest.mark.parametrize("name", [RRA, LETTER])
def test_template_terms_validate_unchanged(name):
    t = TEMPLATES[name]
    normal = validate_terms(t["kind"], t["terms"])
    assert normal == t["terms"]
    assert validate_terms(t["kind"], normal) == normal


@pytest.mark.parametrize("name", [RRA, LETTER])
def test_template_opens_a_deal(name):
    t = TEMPLATES[name]
    new = parse_event({"type": "DealOpened", "deal": name, "date": t["date"].isoformat(),
                       "data": {"kind": t["kind"], "name": t["name"], "terms": t["terms"]}})
    assert new.data["terms"] == t["terms"]
    assert parse_event(new.envelope()).envelope() == new.envelope()


def test_template_kinds_and_dates():
    assert TEMPLATES[RRA]["kind"] == "registration_rights"
    assert TEMPLATES[RRA]["date"] == date(2004, 6, 30)  # "dated as of June 30, 2004"
    assert TEMPLATES[LETTER]["kind"] == "antidilution_deferral"
    assert TEMPLATES[LETTER]["date"] == date(2002, 2, 1)  # "February 1, 2002"


def test_unknown_template_lists_the_known_ones():
    with pytest.raises(KeyError) as caught:
        template("infocrossing-rra-2005")
    assert RRA in str(caught.value) and LETTER in str(caught.value)
    assert template(RRA) is TEMPLATES[RRA]


# ----------------------------------------------------------------------- clauses


def test_every_rra_term_has_a_clause():
    assert set(TEMPLATES[RRA]["terms"]) == set(RRA_CLAUSES)
    assert set(RegistrationTerms.model_fields) == set(RRA_CLAUSES)
    assert TEMPLATES[RRA]["clauses"] is RRA_CLAUSES


def test_every_letter_term_has_a_clause():
    assert set(TEMPLATES[LETTER]["terms"]) == set(LETTER_CLAUSES)
    assert set(LetterTerms.model_fields) == set(LETTER_CLAUSES)
    assert TEMPLATES[LETTER]["clauses"] is LETTER_CLAUSES


@pytest.mark.parametrize("term, clause", [
    ("closing_date", "§1"),
    ("filing_deadline_days", "§2(a)(i)"),
    ("effectiveness_deadline_days", "§2(a)(ii)"),
    ("effectiveness_period_years", "§2(a)(iii)"),
    ("cure_business_days", "§3(a)(iii)"),
    ("suspension_limits", "§4(b)(i)"),
    ("suspension_limits", "§3(a)(iv)"),
    ("rates", "§3(a)"),
    ("record_dates", "Record Holder"),
    ("conversion_price", "Majority of Holders"),
    ("questionnaire_business_days", "§2(b)"),
    ("questionnaire_business_days", "§4(d)"),
    ("amendment_business_days", "§2(b)"),
    ("amendment_min_principal", "§2(b)"),
    ("trustee_notice_business_days", "§3(b)"),
    ("advise_holders_business_days", "§4(b)(iii)"),
    ("mail_notice_business_days", "§10(E)"),
])
def test_rra_clauses_cite_the_spec_clause(term, clause):
    assert clause in RRA_CLAUSES[term]


def test_letter_cutoff_cites_paragraph_3():
    assert "¶3" in LETTER_CLAUSES["true_up_cutoff"]


# ------------------------------------------------------------- SPEC §4.1 values


def test_rra_template_values_are_spec_4_1():
    t = registration_terms(TEMPLATES[RRA]["terms"])
    assert t.closing_date == date(2004, 6, 30)
    assert t.filing_deadline_days == 15
    assert t.effectiveness_deadline_days == 120
    assert t.effectiveness_period_years == 2
    assert t.cure_business_days == 5
    limits = t.suspension_limits
    assert (limits.single, limits.single_material) == (45, 60)
    assert (limits.window_days, limits.window_limit, limits.window_limit_material) == (90, 45, 60)
    assert (limits.long_window_days, limits.long_window_limit) == (360, 90)
    r = t.rates
    assert r.first_days == 90
    assert (r.first, r.second, r.third, r.step) == (Decimal("0.25"), Decimal("1.00"),
                                                    Decimal("3.00"), Decimal("2.00"))
    assert r.second_until_anniversary == 2 and r.step_from_anniversary == 3
    assert t.interest_payment_dates == ["01-15", "07-15"]
    assert t.first_interest_payment_date == date(2005, 1, 15)
    assert t.record_dates == ["01-01", "07-01"]
    assert t.day_count == "30/360"
    assert t.maturity == date(2024, 7, 15)
    assert t.conversion_price == Decimal("15.36")
    assert t.questionnaire_business_days == 20
    assert t.amendment_business_days == 10
    assert t.amendment_min_principal == Decimal(1_000_000)
    assert t.trustee_notice_business_days == 2
    assert t.advise_holders_business_days == 5
    assert t.mail_notice_business_days == 5


def test_rates_reach_nine_percent_on_the_fifth_anniversary():
    # RRA §3(a)(iv): "the rate ... would increase to 9.00% per annum ... on the fifth
    # anniversary": 3.00% from the 2nd, +2.00 on the 3rd (5%), 4th (7%), 5th (9%).
    r = registration_terms(TEMPLATES[RRA]["terms"]).rates
    anniversaries = range(r.step_from_anniversary, 6)
    rate = r.third + r.step * len(anniversaries)
    assert rate == Decimal("9.00")


def test_filing_deadline_is_2004_07_15():
    # RRA §2(a)(i) "not later than 15 days after the date hereof"; SPEC §1 counts calendar
    # days from the day after: day 1 is 2004-07-01, ..., day 15 is 2004-07-15.
    t = registration_terms(TEMPLATES[RRA]["terms"])
    counted = [t.closing_date + timedelta(days=n) for n in range(1, t.filing_deadline_days + 1)]
    assert counted[0] == date(2004, 7, 1)
    assert counted[-1] == date(2004, 7, 15)
    assert t.closing_date + timedelta(days=t.filing_deadline_days) == date(2004, 7, 15)


def test_effectiveness_deadline_is_2004_10_28():
    # RRA §2(a)(ii) "not later than 120 days after the date hereof": July 31 + August 31
    # + September 30 = 92 days to 2004-09-30, and 28 more is 2004-10-28 (day 120).
    t = registration_terms(TEMPLATES[RRA]["terms"])
    assert 31 + 31 + 30 + 28 == t.effectiveness_deadline_days
    assert t.closing_date + timedelta(days=t.effectiveness_deadline_days) == date(2004, 10, 28)


def test_letter_template_values_are_spec_5_1():
    t = letter_terms(TEMPLATES[LETTER]["terms"])
    assert t.agreement_date == date(2002, 2, 1)
    assert t.true_up_cutoff == date(2004, 2, 1)  # Letter ¶3 "prior to February 1, 2004"
    assert t.formula == "weighted_average_broad"
    assert t.price_decimals == 4
    assert t.warrantholders == [
        "DB Capital Investors, L.P.",
        "Sandler Capital Partners V, L.P.",
        "Sandler Capital Partners V FTE, L.P.",
        "Sandler Technology Partners, L.P.",
        "Sandler Co-Investment Partners, L.P.",
        "Price Family Limited Partners",
        "Benake L.P.",
    ]
    assert t.camden_entities == [
        "Camden Partners Strategic Fund II-A, L.P.",
        "Camden Partners Strategic Fund II-B, L.P.",
        "Cahill Warnock Strategic Partners Fund, L.P.",
        "Strategic Associates, L.P.",
    ]


def test_day_counts_are_the_daycount_conventions():
    assert DAY_COUNTS == daycount.CONVENTIONS == ("30/360", "ACT/360", "ACT/365F", "ACT/ACT-ISDA")


@pytest.mark.parametrize("convention", DAY_COUNTS)
def test_each_day_count_is_accepted(convention):
    assert validate_terms("registration_rights", rra_terms(day_count=convention))["day_count"] == convention


@pytest.mark.parametrize("formula", ["weighted_average_broad", "weighted_average_narrow", "full_ratchet"])
def test_each_formula_is_accepted(formula):
    assert validate_terms("antidilution_deferral", letter(formula=formula))["formula"] == formula


def test_defaults_fill_in_missing_optional_terms():
    minimal = {"closing_date": "2004-06-30", "first_interest_payment_date": "2005-01-15",
               "maturity": "2024-07-15", "conversion_price": "15.36"}
    # every term but the maximum principal, which an agreement states (the Infocrossing
    # preamble: $60,000,000, $72,000,000 with the option in full); none stated, none checked
    assert validate_terms("registration_rights", minimal) == {
        **TEMPLATES[RRA]["terms"], "maximum_principal": None}


# ---------------------------------------------------------------------- refusals


def test_unknown_term_is_refused_naming_it():
    refused_term("registration_rights", rra_terms(grace_period_days=30), "grace_period_days",
                 "unknown term")


def test_unknown_letter_term_is_refused_naming_it():
    refused_term("antidilution_deferral", letter(cutoff="2004-02-01"), "cutoff", "unknown term")


@pytest.mark.parametrize("value", ["30/365", "30E/360", "act/360", "ACT/ACT", 360, None])
def test_bad_day_count_is_refused_naming_it(value):
    refused_term("registration_rights", rra_terms(day_count=value), "day_count", "Input should be")


def test_bad_formula_is_refused_naming_it():
    refused_term("antidilution_deferral", letter(formula="weighted_average"), "formula",
                 "Input should be")


@pytest.mark.parametrize("term", ["closing_date", "first_interest_payment_date", "maturity",
                                  "conversion_price"])
def test_required_rra_term_missing(term):
    terms = {k: v for k, v in rra_terms().items() if k != term}
    refused_term("registration_rights", terms, term, "is required")


@pytest.mark.parametrize("term", ["agreement_date", "true_up_cutoff"])
def test_required_letter_term_missing(term):
    terms = {k: v for k, v in letter().items() if k != term}
    refused_term("antidilution_deferral", terms, term, "is required")


@pytest.mark.parametrize("term, value, phrase", [
    ("closing_date", "2004-06-31", "not a real calendar date"),
    ("maturity", "07/15/2024", "YYYY-MM-DD"),
    ("filing_deadline_days", 0, "greater than 0"),
    ("effectiveness_deadline_days", -120, "greater than 0"),
    ("conversion_price", "0", "must be a positive price"),
    ("conversion_price", "1.536e1", "exponent notation"),
    ("amendment_min_principal", "1000000.001", "more than two decimals"),
])
def test_bad_rra_term_value(term, value, phrase):
    refused_term("registration_rights", rra_terms(**{term: value}), term, phrase)


@pytest.mark.parametrize("value, where", [(["1-15", "07-15"], "interest_payment_dates.0"),
                                          (["01-15", "07-32"], "interest_payment_dates.1"),
                                          (["13-01"], "interest_payment_dates.0"),
                                          (["02-29"], "interest_payment_dates.0"),
                                          (["January 15"], "interest_payment_dates.0"),
                                          ([115], "interest_payment_dates.0"),
                                          ([], "interest_payment_dates")])
def test_bad_interest_payment_dates(value, where):
    refused_term("registration_rights", rra_terms(interest_payment_dates=value), where,
                 "MM-DD" if value else "at least 1 item")


def test_bad_record_dates():
    refused_term("registration_rights", rra_terms(record_dates=["01-01", "7-1"]), "record_dates.1",
                 "MM-DD")


def test_nested_term_is_named_by_its_path():
    refused_term("registration_rights", rra_terms(rates={"first": "x"}), "rates.first",
                 "valid decimal")
    refused_term("registration_rights", rra_terms(suspension_limits={"single": 0}),
                 "suspension_limits.single", "greater than 0")
    refused_term("registration_rights", rra_terms(suspension_limits={"singel": 45}),
                 "suspension_limits.singel", "unknown term")


def test_price_decimals_bounds():
    refused_term("antidilution_deferral", letter(price_decimals=11), "price_decimals", "less than or equal to 10")
    refused_term("antidilution_deferral", letter(price_decimals=-1), "price_decimals", "greater than or equal to 0")


def test_terms_of_the_other_kind_are_refused():
    refused_term("antidilution_deferral", rra_terms(), "agreement_date", "is required")
    refused_term("registration_rights", letter(), "closing_date", "is required")
