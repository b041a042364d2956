"""Terms of schema version 1, restated in version 2 (``ledger.registration_terms``).

Version 1 was the Infocrossing RRA's shape with its numbers as parameters (the terms of
every registration rights deal opened before issue 33): deadlines in days after the date
of the agreement, five Registration Defaults, a four-tier rate ladder, two suspension
windows, the Effectiveness Period's (x), (y), (z), the Trustee notice, the advice to
Holders, the Questionnaire and five notice methods, each with the Infocrossing clause
``ledger.terms.RRA_CLAUSES`` gave it. ``upcast`` states the same agreement with the same
numbers in version 2, so that a deal opened then reads, and reports, as it did: it is
the ``DealOpened`` upcaster's step 1 -> 2 and reads a version 1 terms file too.

Pure JSON to JSON: the read side (``ledger.stored``) runs it without pydantic.
"""

from __future__ import annotations

from typing import Any, Mapping


#: the clause of the Infocrossing RRA's maximum principal (issue 30)
MAXIMUM_SECTION = "RRA preamble ($60,000,000; $72,000,000 with the Initial Purchaser's option)"

#: the defaults version 1 filled in (``ledger.terms`` then): a record may lack a term
V1_DEFAULTS: dict[str, Any] = {
    "filing_deadline_days": 15, "effectiveness_deadline_days": 120,
    "effectiveness_period_years": 2, "cure_business_days": 5,
    "suspension_limits": {"single": 45, "single_material": 60, "window_days": 90,
                          "window_limit": 45, "window_limit_material": 60,
                          "long_window_days": 360, "long_window_limit": 90},
    "rates": {"first_days": 90, "first": "0.25", "second": "1.00",
              "second_until_anniversary": 2, "third": "3.00", "step": "2.00",
              "step_from_anniversary": 3},
    "interest_payment_dates": ["01-15", "07-15"], "record_dates": ["01-01", "07-01"],
    "day_count": "30/360", "questionnaire_business_days": 20, "questionnaire_form_days": 20,
    "amendment_business_days": 10, "amendment_min_principal": "1000000",
    "trustee_notice_business_days": 2, "advise_holders_business_days": 5,
    "mail_notice_business_days": 5, "maximum_principal": None,
}
V1_TERMS = frozenset({*V1_DEFAULTS, "closing_date", "first_interest_payment_date",
                      "maturity", "conversion_price"})


def is_v1(terms: Any) -> bool:
    """Terms written before schema versions: no ``version`` key."""
    return isinstance(terms, Mapping) and "version" not in terms


def _days(count: Any, unit: str) -> dict[str, Any]:
    return {"count": count, "unit": unit}


def _text(value: Any) -> Any:
    """A number as version 2 stores it (a string); anything else as it is (the
    validation names it)."""
    return value if isinstance(value, (str, bool)) or value is None else str(value)


def upcast(terms: Mapping[str, Any]) -> dict[str, Any]:
    """Version 1 ``terms`` (the stored, normalised form, or a terms file's) in version 2.
    A term version 1 did not know is kept at the top level, where version 2's
    validation refuses it by name."""
    v1 = {**V1_DEFAULTS, **terms}
    limits = {**V1_DEFAULTS["suspension_limits"], **(v1["suspension_limits"] or {})} \
        if isinstance(v1["suspension_limits"], Mapping) else v1["suspension_limits"]
    rates = {**V1_DEFAULTS["rates"], **v1["rates"]} if isinstance(v1["rates"], Mapping) \
        else v1["rates"]
    out: dict[str, Any] = {
        "version": 2,
        "text": _infocrossing_text(),
        "closing_date": v1.get("closing_date"),
        "maturity": v1.get("maturity"),
        "conversion_price": _text(v1.get("conversion_price")),
        "maximum_principal": _text(v1["maximum_principal"]),
        "citations": {
            "closing_date": {"section": "RRA §1 Closing Date"},
            "maturity": {"section": "RRA preamble (Notes due 2024)"},
            "conversion_price": {"section": "RRA §1 Majority of Holders"},
            "record_dates": {"section": "RRA §1 Record Holder"},
            "business_day": {"section": "RRA §1 Business Day"},
            "suspension_notice": {"section": "RRA §4(c)"},
            "shelf_sale": {"section": "RRA §1 Transfer Restricted Securities (A)"},
            "named_selling_holder": {"section": "RRA §4(d)"},
            **({"maximum_principal": {"section": MAXIMUM_SECTION}}
               if v1["maximum_principal"] is not None else {})},
        "filing": {"anchor": "date_hereof", "count": v1["filing_deadline_days"],
                   "unit": "calendar", "roll": "none", "section": "RRA §2(a)(i)"},
        "effectiveness": {"anchor": "date_hereof", "count": v1["effectiveness_deadline_days"],
                          "unit": "calendar", "roll": "none", "section": "RRA §2(a)(ii)"},
        "effectiveness_period": {"section": "RRA §2(a)(iii)", "ends": [
            {"end": "anniversary", "years": v1["effectiveness_period_years"],
             "of": "effective", "section": "RRA §2(a)(iii)(x)"},
            {"end": "all_sold", "section": "RRA §2(a)(iii)(y)"},
            {"end": "none_outstanding", "section": "RRA §2(a)(iii)(z)"}]},
        "transfer_restricted": {"until": ["shelf_sale", "not_outstanding"],
                                "section": "RRA §1 Transfer Restricted Securities"},
        "defaults": {
            "filing": {"label": "(i)", "section": "RRA §3(a)(i)"},
            "effectiveness": {"label": "(ii)", "section": "RRA §3(a)(ii)"},
            "unusable": {"label": "(iii)",
                         "cure": _days(v1["cure_business_days"], "business"),
                         "excused": ["suspension"], "section": "RRA §3(a)(iii)"},
            "suspension": {"label": "(iv)(A)", "section": "RRA §3(a)(iv)(A)"}},
        "damages": _damages(rates),
        "payment": {"interest_payment_dates": v1["interest_payment_dates"],
                    "first_interest_payment_date": v1.get("first_interest_payment_date"),
                    "record_dates": v1["record_dates"], "roll": "following",
                    "day_count": v1["day_count"], "paid_to": "record_holders_of_trs",
                    "paid_in": "cash", "section": "RRA §3(b)"},
        "suspensions": _suspensions(limits),
        "questionnaire": {
            "deadline": _days(v1["questionnaire_business_days"], "business"),
            "form_deadline": _days(v1["questionnaire_form_days"], "calendar"),
            "late_amendment": {"within": _days(v1["amendment_business_days"], "business"),
                               "min_principal": _text(v1["amendment_min_principal"]),
                               "section": "RRA §2(b), §4(d)"},
            "section": "RRA §2(b), §4(d)"},
        "trustee_notice": {"within": _days(v1["trustee_notice_business_days"], "business"),
                           "section": "RRA §3(b)"},
        "advise_holders": {"within": _days(v1["advise_holders_business_days"], "business"),
                           "section": "RRA §4(b)(iii)"},
        "notices": {"section": "RRA §10(E)", "methods": [
            {"method": "hand", "deemed": "on_delivery"},
            {"method": "mail", "deemed": "business_days_after",
             "count": v1["mail_notice_business_days"]},
            {"method": "telex", "deemed": "when_acknowledged"},
            {"method": "fax", "deemed": "when_acknowledged"},
            {"method": "courier", "deemed": "next_business_day"}]},
        "amendments": {"section": "RRA §10(D)", "majority": {
            "more_than": "0.5", "conversion_shares": True,
            "affiliates": {"section": "RRA §10(H)"},
            "section": "RRA §1 Majority of Holders"}},
    }
    for name in ("closing_date", "maturity", "conversion_price"):   # required: missing,
        if name not in terms:                                         # it is named so
            del out[name]
    if "first_interest_payment_date" not in terms:
        del out["payment"]["first_interest_payment_date"]
    for name, value in terms.items():   # a term version 1 did not know: refused by name
        if name not in V1_TERMS:
            out[name] = value
    return out


def _damages(rates: Any) -> Any:
    """RRA §3(a)(i)-(iv): 0.25% for the first 90 days, 1.00% to the 2nd anniversary of
    the Closing Date, 3.00% from it, 2.00 points more on each anniversary from the 3rd."""
    if not isinstance(rates, Mapping):
        return rates
    return {"steps": [
        {"after_days": 0, "set": _text(rates["first"]), "section": "RRA §3(a)(i)"},
        {"after_days": rates["first_days"], "set": _text(rates["second"]),
         "section": "RRA §3(a)(ii)"},
        {"anniversary": rates["second_until_anniversary"], "of": "closing",
         "set": _text(rates["third"]), "section": "RRA §3(a)(iii)"},
        {"anniversary": rates["step_from_anniversary"], "of": "closing", "every_year": True,
         "add": _text(rates["step"]), "section": "RRA §3(a)(iv)"}],
        "cap": None, "base": "transfer_restricted", "conversion_shares": "none",
        "section": "RRA §3(a)"}


def _suspensions(limits: Any) -> Any:
    """RRA §4(b)(i), §3(a)(iv): a period ends by its 45th (60th) day; 45 (60) days in any
    90; 90 in any 360, whose excess is Registration Default (iv)(B)."""
    if not isinstance(limits, Mapping):
        return limits
    return {"single": {"days": limits["single"], "material_days": limits["single_material"],
                       "section": "RRA §3(a)(iv)(A)"},
            "windows": [
                {"days": limits["window_limit"],
                 "material_days": limits["window_limit_material"],
                 "in_days": limits["window_days"], "default": None,
                 "section": "RRA §4(b)(i)"},
                {"days": limits["long_window_limit"], "material_days": None,
                 "in_days": limits["long_window_days"],
                 "default": {"label": "(iv)(B)", "section": "RRA §3(a)(iv)(B)"},
                 "section": "RRA §4(b)(i)"}],
            "max_periods": None, "section": "RRA §4(b)(i)"}


def _infocrossing_text() -> str:
    """The RRA's text file name (``ledger.registration_terms``, imported when a version 1
    record is met: the schema's models cost a cold start ~13 ms it need not pay)."""
    from .registration_terms import INFOCROSSING_TEXT

    return INFOCROSSING_TEXT
