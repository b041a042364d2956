"""The phrasings ``terms draft`` reads (issue 35), one case each: numbers in words and
figures, "calendar days" and "days" and "Business Days", "twelve-month" and "360-day"
windows, rates in words, a ladder in words, payment terms, two readings of one sentence,
and the numbering of sections and items. Each expected value is what the sentence says,
worked out by hand in the case's comment."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ledger.drafting import numbers as n
from ledger.drafting.layout import Agreement
from ledger.drafting.schema import draft
from tests.support import without_places

SHELF = "2. Shelf Registration.\n\n(a) The Company shall "
DAMAGES = "3. Liquidated Damages.\n\n(a) "
SUSPEND = "4. Suspension.\n\n(a) The Company may suspend the use of the Prospectus "
PAY = "5. Payment.\n\n(a) "


def _at(terms, path):
    for key in path.split("."):
        terms = terms[int(key)] if key.isdigit() else terms[key]
    return terms



@pytest.mark.parametrize("text, path, value", [
    # words and figures: ninety (90) days after the Closing Date
    (SHELF + 'file the Shelf Registration Statement within ninety (90) days after the '
     'Closing Date (the "Filing Deadline").', "filing",
     {"anchor": "closing", "count": 90, "unit": "calendar", "roll": "none"}),
    # an ordinal in words and figures: the ninetieth (90th) day following the Issue Date
    (SHELF + "file the Shelf Registration Statement on or prior to the ninetieth (90th) day "
     "following the Issue Date.", "filing",
     {"anchor": "issue_date", "count": 90, "unit": "calendar", "roll": "none"}),
    # figures alone: the 270th day following the Closing Date
    (SHELF + "file the Shelf Registration Statement on or prior to the 270th day following "
     "the Closing Date.", "filing.count", 270),
    # words alone: two hundred seventy days
    (SHELF + "file the Shelf Registration Statement within two hundred seventy days after "
     "the Closing Date.", "filing.count", 270),
    # "calendar days", and a due day that is not a Business Day moves to the next one
    (SHELF + "cause the Shelf Registration Statement to be declared effective not later "
     "than 180 calendar days after the date hereof (or, if such day is not a Business Day, "
     "the next succeeding Business Day).", "effectiveness",
     {"anchor": "date_hereof", "count": 180, "unit": "calendar", "roll": "following"}),
    # "days" alone are calendar days
    (SHELF + "cause the Shelf Registration Statement to be declared effective within 180 "
     "days after the Closing Date.", "effectiveness.unit", "calendar"),
    # "Business Days", capitalised or not
    (SHELF + "file a shelf registration statement within twenty (20) Business Days after "
     "the Closing Date.", "filing", {"anchor": "closing", "count": 20, "unit": "business",
                                     "roll": "none"}),
    (SHELF + "file a shelf registration statement within 20 business days after the "
     "Closing Date.", "filing.unit", "business"),
])
def test_deadlines(text, path, value):
    assert without_places(_at(draft(text).terms, path)) == value


def test_words_and_figures_that_differ_are_two_readings_left_to_a_person():
    """"ninety (60) days": 90 in words, 60 in figures; the draft guesses neither."""
    d = draft(SHELF + "file the Shelf Registration Statement within ninety (60) days after "
                      "the Closing Date.")
    assert "filing" not in d.terms
    [m] = [m for m in d.missing if m.path == "filing"]
    assert m.readings == (90, 60) and "ninety (60)" in m.why


@pytest.mark.parametrize("sentence, steps, cap", [
    # one-quarter of one percent (0.25%) for 90 days, then one-half of one percent (0.50%)
    ("Liquidated Damages shall accrue at a rate of one-quarter of one percent (0.25%) per "
     "annum for the first 90 days following the Registration Default and one-half of one "
     "percent (0.50%) per annum thereafter.",
     [{"after_days": 0, "set": "0.25"}, {"after_days": 90, "set": "0.50"}], ...),
    # basis points: 25 for the first ninety (90) days, 25 more each further 90 days, at
    # most 1.00%
    ("Liquidated Damages shall accrue at a rate of 25 basis points per annum for the first "
     "ninety (90) days, increasing by an additional 25 basis points per annum with respect "
     "to each subsequent 90-day period, up to a maximum of 1.00% per annum.",
     [{"after_days": 0, "set": "0.25"},
      {"after_days": 90, "every_days": 90, "add": "0.25"}], "1.00"),
    # "percent" in figures, and "shall in no event exceed" as the cap
    ("Liquidated Damages shall accrue at a rate of 0.50 percent per annum for the first 90 "
     "days and shall increase by an additional 0.50 percent per annum with respect to each "
     "subsequent 90-day period, but shall in no event exceed 2.00% per annum.",
     [{"after_days": 0, "set": "0.50"},
      {"after_days": 90, "every_days": 90, "add": "0.50"}], "2.00"),
])
def test_rates_in_words_and_figures(sentence, steps, cap):
    d = draft(DAMAGES + sentence)
    assert without_places(d.terms["damages"]["steps"]) == steps
    if cap is ...:   # a ladder that ends flat and states no maximum: left to a person
        assert "cap" not in d.terms["damages"]
        assert "damages.cap" in [m.path for m in d.missing]
    else:
        assert d.terms["damages"]["cap"] == cap


@pytest.mark.parametrize("limit, window", [
    # "twelve-month" and "12-month": a window of 12 months
    ("not to exceed an aggregate of ninety (90) days in any twelve-month period",
     {"days": 90, "in_months": 12}),
    ("not to exceed an aggregate of 90 days in any 12-month period", {"days": 90,
                                                                     "in_months": 12}),
    # "360-day" (and "360 day"): a window of 360 days
    ("not to exceed an aggregate of 90 days in any 360-day period", {"days": 90,
                                                                    "in_days": 360}),
    ("not to exceed an aggregate of 90 days in any 360 day period", {"days": 90,
                                                                    "in_days": 360}),
    ("not to exceed 60 days in any period of 365 days", {"days": 60, "in_days": 365}),
])
def test_windows_of_the_right_to_suspend(limit, window):
    d = draft(SUSPEND + f'for a period {limit} (each, a "Deferral Period").')
    [found] = d.terms["suspensions"]["windows"]
    assert {k: v for k, v in without_places(found).items() if k in window or k.startswith("in_")} \
        == window


def test_a_window_in_calendar_years_is_left_to_a_person():
    """A calendar year is not a rolling window: the terms cannot state it."""
    d = draft(SUSPEND + 'for a period not to exceed 30 days in any calendar year (each, a '
                        '"Deferral Period").')
    assert "a limit per calendar year" in next(m.why for m in d.missing
                                               if m.path == "suspensions.windows")


def test_limits_on_one_period_and_on_the_number_of_periods():
    """45 in 90 days and 90 in 360 days; no single deferral over 30 consecutive days; no
    more than two Deferral Periods in any 12-month period; the material-transaction
    extension from 45 to 60 days."""
    d = draft(SUSPEND + 'for a period not to exceed an aggregate of 45 days in any 90-day '
                        'period (each, a "Deferral Period") and not to exceed an aggregate '
                        'of 90 days in any 360-day period; provided that no more than two '
                        'Deferral Periods may be declared in any 12-month period and no '
                        'single deferral over 30 consecutive days. The Company may extend '
                        'a Deferral Period from 45 days to 60 days during any 90-day period '
                        'for a material business transaction.')
    s = without_places(d.terms["suspensions"])
    assert s["windows"] == [{"days": 45, "material_days": 60, "in_days": 90, "default": None},
                            {"days": 90, "material_days": None, "in_days": 360,
                             "default": None}]
    assert s["max_periods"] == {"periods": 2, "in_months": 12}
    assert s["single"] == {"days": 30, "material_days": None}


def test_a_right_to_suspend_that_states_no_other_limit_has_none():
    d = draft(SUSPEND + 'for a period not to exceed an aggregate of 45 days in any 90-day '
                        'period (each, a "Deferral Period").')
    assert d.terms["suspensions"]["single"] is None
    assert d.terms["suspensions"]["max_periods"] is None
    notes = {t.path: t.note for t in d.found}
    assert "no limit on one period's length" in notes["suspensions.single"]


@pytest.mark.parametrize("sentence, path, value", [
    # "a 360-day year comprised of twelve 30-day months": 30/360
    ("Additional Interest will be payable semi-annually in arrears on each Interest Payment "
     "Date and shall be computed on the basis of a 360-day year comprised of twelve 30-day "
     "months.", "payment.day_count", "30/360"),
    ("Additional Interest will be payable semi-annually in arrears on each Interest Payment "
     "Date and shall be computed on the actual number of days elapsed over a 360-day year.",
     "payment.day_count", "ACT/360"),
    # the dates, the first one, the record dates and the roll
    ("Additional Interest will be payable semi-annually in arrears on June 15 and December "
     "15 of each year, commencing December 15, 2004, to the holders of record on the June 1 "
     "or December 1 immediately preceding. If any Interest Payment Date is not a Business "
     "Day, payment shall be made on the next succeeding Business Day.", "payment",
     {"interest_payment_dates": ["06-15", "12-15"], "first_interest_payment_date": "2004-12-15",
      "record_dates": ["06-01", "12-01"], "roll": "following", "paid_to": "record_holders"}),
])
def test_payment_terms(sentence, path, value):
    found = without_places(_at(draft(PAY + sentence).terms, path))
    if isinstance(value, dict):
        found = {k: found[k] for k in value}
    assert found == value


def test_a_360_day_year_alone_is_two_readings():
    """"on the basis of a 360-day year": twelve 30-day months (30/360) or the days as they
    fall over 360 (ACT/360); the draft names both and takes neither."""
    d = draft(PAY + "Additional Interest will be payable semi-annually in arrears on each "
                    "Interest Payment Date, computed on the basis of a 360-day year.")
    [m] = [m for m in d.missing if m.path == "payment.day_count"]
    assert m.readings == ("30/360", "ACT/360")


# ------------------------------------------------------------------ numbers, alone


@pytest.mark.parametrize("text, value", [
    ("ninety (90)", 90), ("90", 90), ("ninety", 90), ("two hundred seventy", 270),
    ("three hundred and sixty-five", 365), ("twenty-one", 21), ("1,000", 1000)])
def test_numbers(text, value):
    assert n.number(text) == value


@pytest.mark.parametrize("text, value", [
    ("ninetieth (90th)", 90), ("270th", 270), ("271st", 271), ("20TH", 20), ("second", 2),
    ("two hundred seventieth", 270), ("one hundred eighty-first", 181)])
def test_ordinals(text, value):
    assert n.ordinal(text) == value


@pytest.mark.parametrize("text, value", [
    ("0.25%", "0.25"), (".25%", "0.25"), ("one-quarter of one percent (0.25%)", "0.25"),
    ("one-half of one percent", "0.50"), ("1.00 percent", "1.00"), ("25 basis points", "0.25"),
    ("2.00 percentage points", "2.00"), ("one percent (1.00%)", "1.00")])
def test_rates(text, value):
    assert n.percent(text) == Decimal(value)


def test_a_rate_whose_words_and_figures_differ_is_two_readings():
    found = n.percent("one-quarter of one percent (0.50%)")
    assert isinstance(found, n.Conflict) and (found.words, found.figures) == (
        Decimal("0.25"), Decimal("0.50"))


# ------------------------------------------------------------------ sections


def test_items_are_numbered_by_the_list_their_label_continues():
    """"(i)" after "(h)" is a letter; "(i)" that starts a list is a roman numeral, and a
    second list of (i)-(ii) in the same clause restarts it; a label after "Section" or
    "clause" is a reference, not an item; a paragraph outdented from a list is back in
    the item that holds the list."""
    text = ("1. Definitions.\n\n"
            '     "Closing Date" means June 30, 2004.\n\n'
            "2. Terms.\n\n"
            "     (a) First.\n\n     (b) b.\n\n     (c) c.\n\n     (d) d.\n\n     (e) e.\n\n"
            "     (f) f.\n\n     (g) g.\n\n     (h) h.\n\n     (i) The ninth letter, if:\n\n"
            "          (i) a roman one; or\n\n          (ii) a second, as in Section 2(i) and "
            "clause (ii) above,\n\n"
            "     then the item of (i) again. And (A) one and (B) two.\n")
    a = Agreement(text)
    cite = {a.text[n_.start:n_.end].split("\n")[0][:12]: a.cite(n_) for n_ in a.nodes}
    assert cite["(h) h."] == "RRA §2(h)"
    assert cite["(i) The nint"] == "RRA §2(i)"
    assert cite["(i) a roman "] == "RRA §2(i)(i)"
    assert cite["(ii) a secon"] == "RRA §2(i)(ii)"
    assert a.section(a.text.index("then the item")) == "RRA §2(i)"
    assert a.section(a.text.index("two.")) == "RRA §2(i)(B)"
    assert a.definition("Closing Date").where == "RRA §1 Closing Date"
    assert not any(n_.labels[-1] == "(ii)" and n_.inline for n_ in a.nodes)


def test_an_excerpt_without_numbered_sections_is_cited_by_its_heading():
    a = Agreement("Registration Defaults. If any of the following occurs: (a) one; or (b) "
                  "two, then the Company shall pay.")
    assert a.section(a.text.index("two")) == "Registration Defaults (b)"


def test_html_of_an_edgar_exhibit_is_read_as_text():
    html = ("<html><body><p>2. <b>Shelf Registration.</b></p><p>(a) The Company shall file "
            "the Shelf Registration Statement within ninety&nbsp;(90) days after the "
            "Closing Date.</p></body></html>")
    d = draft(html)
    assert d.terms["filing"]["count"] == 90
    assert d.terms["filing"]["section"] == "RRA §2(a)"
