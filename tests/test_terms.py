"""Deal terms and the two templates (SPEC §4.1, §5.1), checked against the SPEC tables
and the contracts, with each term tied to its clause."""

from __future__ import annotations

import copy
from datetime import date, timedelta
from decimal import Decimal

import pytest

from ledger import daycount
from ledger.errors import InvalidEvent
from ledger.events import parse_event
from ledger.terms import (
    DAY_COUNTS,
    LETTER_CLAUSES,
    TEMPLATES,
    LetterTerms,
    letter_terms,
    registration_terms,
    template,
    validate_terms,
)
from ledger.values import FieldError

RRA = "infocrossing-rra-2004"
LETTER = "infocrossing-letter-2002"


def rra_terms(**changes):
    """The template's terms; with ``changes``, version 1 terms (flat, by their version 1
    names: ``filing_deadline_days=30``) changed, which read as version 2."""
    if not changes:
        return dict(TEMPLATES[RRA]["terms"])
    from tests.support import INFOCROSSING_V1

    return {**INFOCROSSING_V1, **changes}


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


def _rules(value, path=""):
    """Every rule of the terms (an object with a ``section``) by its path."""
    if isinstance(value, dict):
        if "section" in value:
            yield path, value
        for k, v in value.items():
            if k != "citations":
                yield from _rules(v, f"{path}.{k}" if path else k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _rules(v, f"{path}.{i}")


def test_every_rra_rule_carries_its_clause():
    terms = TEMPLATES[RRA]["terms"]
    rules = dict(_rules(terms))
    assert all(r["section"].startswith("RRA §") for r in rules.values())
    # every rule read from the text carries the sentence it was read from
    assert all(r.get("quote") for r in rules.values())
    assert set(terms["citations"]) == {"closing_date", "maturity", "conversion_price",
                                       "maximum_principal", "record_dates", "business_day",
                                       "suspension_notice", "shelf_sale",
                                       "named_selling_holder"}


def test_every_letter_term_has_a_clause():
    assert set(TEMPLATES[LETTER]["terms"]) == set(LETTER_CLAUSES)
    assert set(LetterTerms.model_fields) == set(LETTER_CLAUSES)
    assert TEMPLATES[LETTER]["clauses"] is LETTER_CLAUSES


@pytest.mark.parametrize("path, clause", [
    ("filing", "RRA §2(a)(i)"),
    ("effectiveness", "RRA §2(a)(ii)"),
    ("effectiveness_period", "RRA §2(a)(iii)"),
    ("effectiveness_period.ends.0", "RRA §2(a)(iii)(x)"),
    ("effectiveness_period.ends.1", "RRA §2(a)(iii)(y)"),
    ("effectiveness_period.ends.2", "RRA §2(a)(iii)(z)"),
    ("defaults.filing", "RRA §3(a)(i)"),
    ("defaults.effectiveness", "RRA §3(a)(ii)"),
    ("defaults.unusable", "RRA §3(a)(iii)"),
    ("defaults.suspension", "RRA §3(a)(iv)(A)"),
    ("suspensions.windows.1.default", "RRA §3(a)(iv)(B)"),
    ("suspensions", "RRA §4(b)(i)"),
    ("damages", "RRA §3(a)"),
    ("damages.steps.0", "RRA §3(a)(i)"),
    ("damages.steps.3", "RRA §3(a)(iv)"),
    ("payment", "RRA §3(b)"),
    ("questionnaire", "RRA §2(b), §4(d)"),
    ("trustee_notice", "RRA §3(b)"),
    ("advise_holders", "RRA §4(b)(iii)"),
    ("notices", "RRA §10(E)"),
    ("amendments", "RRA §10(D)"),
    ("amendments.majority", "RRA §1 Majority of Holders"),
    ("amendments.majority.affiliates", "RRA §10(H)"),
    ("transfer_restricted", "RRA §1 Transfer Restricted Securities"),
])
def test_rra_rules_cite_the_spec_clause(path, clause):
    assert dict(_rules(TEMPLATES[RRA]["terms"]))[path]["section"] == clause


def test_letter_cutoff_cites_paragraph_3():
    assert "¶3" in LETTER_CLAUSES["true_up_cutoff"]


# ------------------------------------------------------------- SPEC §4.1 values


def test_rra_template_values_are_spec_4_1():
    t = registration_terms(TEMPLATES[RRA]["terms"])
    assert t.closing_date == date(2004, 6, 30) and t.dated == t.issued == t.closing_date
    assert (t.filing.anchor, t.filing.count, t.filing.unit) == ("date_hereof", 15, "calendar")
    assert (t.effectiveness.anchor, t.effectiveness.count) == ("date_hereof", 120)
    x, y, z = t.effectiveness_period.ends
    assert (x.end, x.years, x.of, y.end, z.end) == ("anniversary", 2, "effective", "all_sold",
                                                    "none_outstanding")
    assert (t.defaults.unusable.cure.count, t.defaults.unusable.cure.unit) == (5, "business")
    assert t.defaults.unusable.excused == ["suspension"]
    single, (short, long) = t.suspensions.single, t.suspensions.windows
    assert (single.days, single.material_days) == (45, 60)
    assert (short.in_days, short.days, short.material_days, short.default) == (90, 45, 60, None)
    assert (long.in_days, long.days, long.default.label) == (360, 90, "(iv)(B)")
    steps = t.damages.steps
    assert [(s.after_days, s.anniversary, s.set, s.add, s.every_year) for s in steps] == [
        (0, None, Decimal("0.25"), None, False), (90, None, Decimal("1.00"), None, False),
        (None, 2, Decimal("3.00"), None, False), (None, 3, None, Decimal("2.00"), True)]
    assert (t.damages.cap, t.damages.base, t.damages.conversion_shares) == (
        None, "transfer_restricted", "none")
    p = t.payment
    assert p.interest_payment_dates == ["01-15", "07-15"]
    assert p.first_interest_payment_date == date(2005, 1, 15)
    assert p.record_dates == ["01-01", "07-01"]
    assert (p.day_count, p.roll, p.paid_to, p.paid_in) == ("30/360", "following",
                                                           "record_holders_of_trs", "cash")
    assert t.maturity == date(2024, 7, 15)
    assert t.conversion_price == Decimal("15.36")
    q = t.questionnaire
    assert (q.deadline.count, q.deadline.unit, q.form_deadline.count, q.form_deadline.unit) == (
        20, "business", 20, "calendar")
    assert (q.late_amendment.within.count, q.late_amendment.min_principal) == (
        10, Decimal(1_000_000))
    assert t.trustee_notice.within.count == 2 and t.advise_holders.within.count == 5
    assert [(m.method, m.deemed, m.count) for m in t.notices.methods] == [
        ("hand", "on_delivery", None), ("mail", "business_days_after", 5),
        ("telex", "when_acknowledged", None), ("fax", "when_acknowledged", None),
        ("courier", "next_business_day", None)]
    assert t.amendments.majority.more_than == Decimal("0.5") and t.pinned() == {}


def test_rates_reach_nine_percent_on_the_fifth_anniversary():
    # RRA §3(a)(iv): "the rate ... would increase to 9.00% per annum ... on the fifth
    # anniversary": 3.00% from the 2nd, +2.00 on the 3rd (5%), 4th (7%), 5th (9%).
    from projections.registration.rates import rate_on

    t = registration_terms(TEMPLATES[RRA]["terms"])
    third, step = t.damages.steps[2].set, t.damages.steps[3].add
    assert third + step * len(range(3, 6)) == Decimal("9.00")
    rate, clause, _ = rate_on(date(2009, 6, 30), date(2004, 10, 29), t, "calendar")
    assert (rate, clause) == (Decimal("9.00"), "RRA §3(a)(iv)")


def test_filing_deadline_is_2004_07_15():
    # RRA §2(a)(i) "not later than 15 days after the date hereof"; SPEC §1 counts calendar
    # days from the day after: day 1 is 2004-07-01, ..., day 15 is 2004-07-15.
    t = registration_terms(TEMPLATES[RRA]["terms"])
    counted = [t.dated + timedelta(days=n) for n in range(1, t.filing.count + 1)]
    assert counted[0] == date(2004, 7, 1)
    assert counted[-1] == date(2004, 7, 15)
    assert t.dated + timedelta(days=t.filing.count) == date(2004, 7, 15)


def test_effectiveness_deadline_is_2004_10_28():
    # RRA §2(a)(ii) "not later than 120 days after the date hereof": July 31 + August 31
    # + September 30 = 92 days to 2004-09-30, and 28 more is 2004-10-28 (day 120).
    t = registration_terms(TEMPLATES[RRA]["terms"])
    assert 31 + 31 + 30 + 28 == t.effectiveness.count
    assert t.dated + timedelta(days=t.effectiveness.count) == date(2004, 10, 28)


def _without_quotes(value):
    if isinstance(value, dict):
        return {k: _without_quotes(v) for k, v in value.items() if k != "quote"}
    if isinstance(value, list):
        return [_without_quotes(v) for v in value]
    return value


def test_version_1_terms_read_as_the_template():
    """A deal opened before issue 33 carries version 1 terms (flat, Infocrossing's shape):
    they read as the template's, clause for clause (the sentences aside: version 1 kept
    none), every term missing filled in, but the maximum principal, which an agreement
    states (the Infocrossing preamble: $60,000,000, $72,000,000 with the option in full;
    issue 30): none stated, none checked."""
    from ledger.terms_v1 import V1_DEFAULTS

    minimal = {"closing_date": "2004-06-30", "first_interest_payment_date": "2005-01-15",
               "maturity": "2024-07-15", "conversion_price": "15.36"}
    expected = _without_quotes(TEMPLATES[RRA]["terms"])
    assert validate_terms("registration_rights", {**minimal, "maximum_principal": "72000000"}
                          ) == expected
    del expected["maximum_principal"], expected["citations"]["maximum_principal"]
    assert validate_terms("registration_rights", minimal) == expected
    assert validate_terms("registration_rights", {**V1_DEFAULTS, **minimal}) == expected
    # a version 1 number changed is the same rule with that number
    v2 = validate_terms("registration_rights", {**minimal, "filing_deadline_days": 30,
                                                "rates": {"first": "0.50"}})
    assert v2["filing"]["count"] == 30 and v2["damages"]["steps"][0]["set"] == "0.50"


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


def rra_changed(path: str, value):
    """The template's terms with the term at ``path`` (dotted) set to ``value``
    (``DELETE``: removed)."""
    import copy

    terms = copy.deepcopy(TEMPLATES[RRA]["terms"])
    *parents, last = path.split(".")
    node = terms
    for p in parents:
        node = node[int(p)] if isinstance(node, list) else node[p]
    if value is DELETE:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return terms


DELETE = object()


@pytest.mark.parametrize("convention", DAY_COUNTS)
def test_each_day_count_is_accepted(convention):
    out = validate_terms("registration_rights", rra_changed("payment.day_count", convention))
    assert out["payment"]["day_count"] == convention


@pytest.mark.parametrize("formula", ["weighted_average_broad", "weighted_average_narrow", "full_ratchet"])
def test_each_formula_is_accepted(formula):
    assert validate_terms("antidilution_deferral", letter(formula=formula))["formula"] == formula


# ---------------------------------------------------------------------- refusals


def test_unknown_term_is_refused_naming_it():
    refused_term("registration_rights", rra_terms(grace_period_days=30), "grace_period_days",
                 "unknown term")
    # today's terms name it too (issue 33: a `clauses` key was once dropped silently)
    refused_term("registration_rights", rra_terms(clauses={}), "clauses", "unknown term")
    from tests.support import INFOCROSSING_V1

    refused_term("registration_rights", {**INFOCROSSING_V1, "grace_period_days": 30},
                 "grace_period_days", "unknown term")


def test_unknown_letter_term_is_refused_naming_it():
    refused_term("antidilution_deferral", letter(cutoff="2004-02-01"), "cutoff", "unknown term")


@pytest.mark.parametrize("value", ["30/365", "30E/360", "act/360", "ACT/ACT", 360, None])
def test_bad_day_count_is_refused_naming_it(value):
    refused_term("registration_rights", rra_changed("payment.day_count", value),
                 "payment.day_count", "Input should be")


def test_bad_formula_is_refused_naming_it():
    refused_term("antidilution_deferral", letter(formula="weighted_average"), "formula",
                 "Input should be")


@pytest.mark.parametrize("term", ["closing_date", "payment.first_interest_payment_date",
                                  "maturity", "conversion_price", "damages", "notices",
                                  "damages.steps.0.section"])
def test_required_rra_term_missing(term):
    refused_term("registration_rights", rra_changed(term, DELETE), term, "is required")


@pytest.mark.parametrize("term", ["agreement_date", "true_up_cutoff"])
def test_required_letter_term_missing(term):
    terms = {k: v for k, v in letter().items() if k != term}
    refused_term("antidilution_deferral", terms, term, "is required")


@pytest.mark.parametrize("term, value, phrase", [
    ("closing_date", "2004-06-31", "not a real calendar date"),
    ("maturity", "07/15/2024", "YYYY-MM-DD"),
    ("filing.count", 0, "greater than 0"),
    ("effectiveness.count", -120, "greater than 0"),
    ("filing.count", 10**12, "at most 3660 days"),
    ("defaults.unusable.cure.count", 300, "at most 260 Business Days"),
    ("conversion_price", "0", "must be a positive price"),
    ("conversion_price", "1.536e1", "exponent notation"),
    ("questionnaire.late_amendment.min_principal", "1000000.001", "more than two decimals"),
    ("filing.anchor", "request", "a shelf deadline counts from one of"),
    ("filing.unit", "weeks", "Input should be"),
    ("damages.steps.1.set", "26", "at most 25"),
    ("damages.cap", "-1", "must not be negative"),
    ("payment.paid_to", "everyone", "Input should be"),
    ("amendments.majority.more_than", "0.4", "from 0.5"),
])
def test_bad_rra_term_value(term, value, phrase):
    refused_term("registration_rights", rra_changed(term, value), term, phrase)


@pytest.mark.parametrize("value, where", [(["1-15", "07-15"], "interest_payment_dates.0"),
                                          (["01-15", "07-32"], "interest_payment_dates.1"),
                                          (["13-01"], "interest_payment_dates.0"),
                                          (["02-29"], "interest_payment_dates.0"),
                                          (["January 15"], "interest_payment_dates.0"),
                                          (["01-15", "01-15"], "interest_payment_dates.1"),
                                          ([], "interest_payment_dates")])
def test_bad_interest_payment_dates(value, where):
    refused_term("registration_rights", rra_changed("payment.interest_payment_dates", value),
                 f"payment.{where}", "twice" if len(set(value)) == 1 < len(value)
                 else "MM-DD" if value else "1 to 12 days")


def test_bad_record_dates():
    refused_term("registration_rights", rra_changed("payment.record_dates", ["01-01", "7-1"]),
                 "payment.record_dates.1", "MM-DD")


def test_nested_term_is_named_by_its_path():
    refused_term("registration_rights", rra_changed("damages.steps.0.set", "x"),
                 "damages.steps.0.set", "valid decimal")
    refused_term("registration_rights", rra_changed("suspensions.single.days", 0),
                 "suspensions.single.days", "greater than 0")
    refused_term("registration_rights", rra_changed("suspensions.single.dayz", 45),
                 "suspensions.single.dayz", "unknown term")


@pytest.mark.parametrize("path, value, where, phrase", [
    # RRA §3(a)(i): the ladder starts on day 1 of a default
    ("damages.steps.0.after_days", 10, "damages.steps.0", "from day 1"),
    ("damages.steps.1", {"after_days": 90, "section": "x"}, "damages.steps.1",
     "one of set or add"),
    ("damages.steps.1", {"after_days": 90, "anniversary": 2, "set": "1", "section": "x"},
     "damages.steps.1", "one of after_days or anniversary"),
    ("damages.steps.3.anniversary", 1, "damages.steps.3.anniversary", "at least"),
    # the shelf is filed before it is effective
    ("effectiveness.count", 10, "effectiveness.count", "at least filing.count (15)"),
    # a default needs what it is about
    ("filing", None, "defaults.filing", "needs a filing deadline"),
    ("suspensions", None, "defaults.suspension", "needs a limit on one Suspension Period"),
    ("suspensions.windows.0.in_months", 3, "suspensions.windows.0",
     "one of in_days or in_months"),
    ("suspensions.windows.0.days", 100, "suspensions.windows.0.days", "cannot fit"),
    ("suspensions.single.material_days", 40, "suspensions.single.material_days",
     "at least days (45)"),
    ("effectiveness_period.ends.0.years", None, "effectiveness_period.ends.0",
     "needs years and of"),
    ("effectiveness_period.ends", [], "effectiveness_period.ends", "at least one end"),
    ("notices.methods.1.count", None, "notices.methods.1.count", "needs a count"),
    ("citations.deadline", {"section": "x"}, "citations.deadline", "names no plain term"),
    ("version", 3, "version", "reads terms of version 1 and 2"),
])
def test_terms_that_do_not_fit_together_are_refused(path, value, where, phrase):
    refused_term("registration_rights", rra_changed(path, value), where, phrase)


def test_every_problem_is_listed_with_its_path():
    """``terms check`` lists them all: here two types wrong, then (the shape right) two
    terms that do not fit together."""
    from ledger.terms import registration_problems

    bad = rra_changed("filing.count", "x")
    bad["damages"]["cap"] = "y"
    _, problems = registration_problems(bad)
    assert [p for p, _ in problems] == ["filing.count", "damages.cap"]
    bad = rra_changed("effectiveness.count", 10)
    bad["payment"]["record_dates"] = ["1-1"]
    _, problems = registration_problems(bad)
    assert [p for p, _ in problems] == ["payment.record_dates.0", "effectiveness.count"]


def test_price_decimals_bounds():
    refused_term("antidilution_deferral", letter(price_decimals=11), "price_decimals", "less than or equal to 10")
    refused_term("antidilution_deferral", letter(price_decimals=-1), "price_decimals", "greater than or equal to 0")


def test_terms_of_the_other_kind_are_refused():
    refused_term("antidilution_deferral", rra_terms(), "agreement_date", "is required")
    refused_term("registration_rights", letter(), "closing_date", "is required")
