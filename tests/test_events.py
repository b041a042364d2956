"""The event format (SPEC §3): every event type of the catalog, valid and refused.

Each refusal is checked for the three things SPEC §3 promises: the line, the exact
field, and the rule broken; and for being one line, since the CLI prints ``str(error)``.
"""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from ledger.errors import InvalidEvent
from ledger.jsonl import loads
from ledger.events import (
    ANTIDILUTION_DEFERRAL,
    CATALOG,
    REGISTRATION_RIGHTS,
    STORE_FIELDS,
    kind_of_type,
    parse_event,
    typed_data,
)
from ledger.terms import TEMPLATES
from ledger.values import ExponentDecimal
from tests.support import build

RRA = "infocrossing-rra-2004"
LETTER = "infocrossing-letter-2002"
LINE = 7


def _opened(template: str) -> dict[str, Any]:
    t = TEMPLATES[template]
    return {"kind": t["kind"], "name": t["name"], "terms": dict(t["terms"])}


# One valid example of every type, as (deal, date, data), in the order of SPEC §3.1-§3.3.
VALID: dict[str, tuple[str, str, dict[str, Any]]] = {
    # §3.1 common
    "DealOpened": (RRA, "2004-06-30", _opened(RRA)),
    "CalendarDayDeclared": (RRA, "2012-10-29", {"day": "2012-10-29", "business_day": False,
                                                "reason": "Hurricane Sandy"}),
    "NoticeSent": (RRA, "2004-07-20", {"to": "Lehman Brothers Inc.", "subject": "Suspension Notice",
                                       "method": "courier"}),
    "NoticeAcknowledged": (RRA, "2004-07-21", {"notice": "3f1c-notice"}),
    "EventRetracted": (RRA, "2004-07-22", {"event_id": "3f1c-filed", "reason": "wrong date"}),
    "EventReinstated": (RRA, "2004-07-22", {"retraction_id": "9c41-retraction",
                                            "reason": "retracted the wrong event"}),
    # §3.2 registration rights
    "NotesIssued": (RRA, "2004-06-30", {"holder": "Lehman Brothers Inc.", "principal": "60000000.00"}),
    "NotesTransferred": (RRA, "2004-12-01", {"from_holder": "Lehman Brothers Inc.", "to_holder": "Fund A",
                                             "principal": "5000000", "under_shelf": True}),
    "NotesConverted": (RRA, "2005-03-01", {"holder": "Fund A", "principal": "1000000", "shares": 65104}),
    "NotesRetired": (RRA, "2024-07-15", {"holder": "Fund A", "principal": "1000", "reason": "matured"}),
    "HolderAffiliation": (RRA, "2004-08-01", {"holder": "Fund A", "company_affiliate": True}),
    "QuestionnaireRequested": (RRA, "2004-07-01", {"holders": "all"}),
    "QuestionnaireDelivered": (RRA, "2004-07-20", {"holder": "Lehman Brothers Inc."}),
    "ShelfFiled": (RRA, "2004-07-13", {"file_number": "333-117340"}),
    "ShelfEffective": (RRA, "2004-11-15", {}),
    "ShelfUnusable": (RRA, "2005-02-01", {"reason": "stop_order"}),
    "ShelfUsable": (RRA, "2005-02-04", {"cure": "order_lifted"}),
    "SuspensionStarted": (RRA, "2005-03-01", {"material_transaction": False}),
    "SuspensionExtended": (RRA, "2005-04-01", {}),
    "SuspensionEnded": (RRA, "2005-04-20", {}),
    "AmendmentFiled": (RRA, "2005-05-02", {"kind": "post_effective", "holders_added": ["Fund B"],
                                           "principal_added": "2500000"}),
    "TrusteeNotified": (RRA, "2004-10-29", {"about": "3f1c-default"}),
    "HoldersAdvised": (RRA, "2004-11-16", {}),
    "AdditionalInterestPaid": (RRA, "2005-01-18", {"payment_date": "2005-01-15",
                                                   "holder": "Lehman Brothers Inc.",
                                                   "amount": "6666.67"}),
    "ConsentGiven": (RRA, "2005-06-01", {"holder": "Lehman Brothers Inc.", "matter": "waiver of §2(a)(ii)"}),
    # §3.3 letter
    "InstrumentRegistered": (LETTER, "2002-02-01", {"instrument": "DB-W1", "holder": "DB Capital Investors, L.P.",
                                                    "kind": "warrant", "shares": 1000000,
                                                    "exercise_price": "8.00"}),
    "CapitalizationRecorded": (LETTER, "2002-02-01", {"common_outstanding": 5000000}),
    "CamdenWarrantsIssued": (LETTER, "2002-02-01", {"holder": "Strategic Associates, L.P.",
                                                    "warrants": 100000, "exercise_price": "3.00"}),
    "CamdenWarrantsVested": (LETTER, "2003-02-01", {"holder": "Strategic Associates, L.P.", "warrants": 50000}),
    "CamdenWarrantsCancelled": (LETTER, "2004-02-01", {"holder": "Strategic Associates, L.P.",
                                                       "warrants": 50000}),
    "AdjustmentRecorded": (LETTER, "2003-06-01", {"instrument": "all", "new_price": "7.5", "reason": "split"}),
    "WarrantsExercised": (LETTER, "2003-01-15", {"instrument": "DB-W1", "fraction": "0.5",
                                                 "shares_issued": 500000}),
    "PreferredConverted": (LETTER, "2003-01-15", {"instrument": "DB-A", "fraction": "1",
                                                  "shares_issued": 250000}),
    "TrueUpSharesIssued": (LETTER, "2004-03-01", {"instrument": "DB-W1", "shares": 1234}),
}

# The type names of the SPEC §3 tables, written out so the catalog is checked against
# the SPEC rather than against itself.
# EventReinstated is not in SPEC §3.1 yet: issue 31 added it (undo of a retraction)
SPEC_COMMON = ["DealOpened", "CalendarDayDeclared", "NoticeSent", "NoticeAcknowledged", "EventRetracted",
               "EventReinstated"]
SPEC_RRA = ["NotesIssued", "NotesTransferred", "NotesConverted", "NotesRetired", "HolderAffiliation",
            "QuestionnaireRequested", "QuestionnaireDelivered", "ShelfFiled", "ShelfEffective",
            "ShelfUnusable", "ShelfUsable", "SuspensionStarted", "SuspensionExtended",
            "SuspensionEnded", "AmendmentFiled", "TrusteeNotified", "HoldersAdvised",
            "AdditionalInterestPaid", "ConsentGiven"]
SPEC_LETTER = ["InstrumentRegistered", "CapitalizationRecorded", "CamdenWarrantsIssued",
               "CamdenWarrantsVested", "CamdenWarrantsCancelled", "AdjustmentRecorded",
               "WarrantsExercised", "PreferredConverted", "TrueUpSharesIssued"]

# Required data fields per SPEC §3 tables (fields with a default or marked optional left out).
REQUIRED: dict[str, list[str]] = {
    "DealOpened": ["kind", "name", "terms"],
    "CalendarDayDeclared": ["day", "business_day", "reason"],
    "NoticeSent": ["to", "subject", "method"],
    "NoticeAcknowledged": ["notice"],
    "EventRetracted": ["event_id", "reason"],
    "EventReinstated": ["retraction_id", "reason"],
    "NotesIssued": ["holder", "principal"],
    "NotesTransferred": ["from_holder", "to_holder", "principal"],
    "NotesConverted": ["holder", "principal", "shares"],
    "NotesRetired": ["holder", "principal", "reason"],
    "HolderAffiliation": ["holder", "company_affiliate"],
    "QuestionnaireRequested": ["holders"],
    "QuestionnaireDelivered": ["holder"],
    "ShelfFiled": [],
    "ShelfEffective": [],
    "ShelfUnusable": ["reason"],
    "ShelfUsable": ["cure"],
    "SuspensionStarted": ["material_transaction"],
    "SuspensionExtended": [],
    "SuspensionEnded": [],
    "AmendmentFiled": ["kind", "holders_added", "principal_added"],
    "TrusteeNotified": [],
    "HoldersAdvised": [],
    "AdditionalInterestPaid": ["payment_date", "holder", "amount"],
    "ConsentGiven": ["holder", "matter"],
    "InstrumentRegistered": ["instrument", "holder", "kind", "shares", "exercise_price"],
    "CapitalizationRecorded": ["common_outstanding"],
    "CamdenWarrantsIssued": ["holder", "warrants", "exercise_price"],
    "CamdenWarrantsVested": ["holder", "warrants"],
    "CamdenWarrantsCancelled": ["holder", "warrants"],
    "AdjustmentRecorded": ["instrument", "new_price", "reason"],
    "WarrantsExercised": ["instrument", "fraction", "shares_issued"],
    "PreferredConverted": ["instrument", "fraction", "shares_issued"],
    "TrueUpSharesIssued": ["instrument", "shares"],
}

# One field of a wrong JSON type per type that has fields: (field, value, key phrase).
WRONG_TYPE: dict[str, tuple[str, Any, str]] = {
    "DealOpened": ("terms", "infocrossing-rra-2004", "valid dictionary"),
    "CalendarDayDeclared": ("business_day", "no", "must be true or false"),
    "NoticeSent": ("to", 42, "must be text"),
    "NoticeAcknowledged": ("notice", ["a"], "must be text"),
    "EventRetracted": ("reason", None, "must be text"),
    "EventReinstated": ("retraction_id", 7, "must be text"),
    "NotesIssued": ("principal", [60000000], "must be a number"),
    "NotesTransferred": ("under_shelf", "true", "must be true or false"),
    "NotesConverted": ("shares", "65104", "whole number of shares"),
    "NotesRetired": ("holder", {"name": "Fund A"}, "must be text"),
    "HolderAffiliation": ("company_affiliate", 1, "must be true or false"),
    "QuestionnaireRequested": ("holders", 3, 'must be "all" or a list'),
    "QuestionnaireDelivered": ("holder", True, "must be text"),
    "ShelfFiled": ("file_number", 333117340, "must be text"),
    "ShelfUnusable": ("reason", 1, "Input should be"),
    "ShelfUsable": ("cure", None, "Input should be"),
    "SuspensionStarted": ("material_transaction", "false", "must be true or false"),
    "AmendmentFiled": ("holders_added", "Fund B", "valid list"),
    "TrusteeNotified": ("about", 5, "must be text"),
    "HoldersAdvised": ("about", 5, "must be text"),
    "AdditionalInterestPaid": ("payment_date", 20050115, "YYYY-MM-DD"),
    "ConsentGiven": ("matter", 1.5, "must be text"),
    "InstrumentRegistered": ("exercise_price", True, "not true/false"),
    "CapitalizationRecorded": ("common_outstanding", "5000000", "whole number of shares"),
    "CamdenWarrantsIssued": ("consideration", "free", "not a decimal number"),
    "CamdenWarrantsVested": ("warrants", [50000], "whole number"),
    "CamdenWarrantsCancelled": ("holder", 7, "must be text"),
    "AdjustmentRecorded": ("new_price", {"value": 7.5}, "must be a number"),
    "WarrantsExercised": ("fraction", "half", "not a decimal number"),
    "PreferredConverted": ("shares_issued", None, "whole number"),
    "TrueUpSharesIssued": ("instrument", 12, "must be text"),
}

# Every enumerated field: (type, field, a value outside the enumeration).
BAD_ENUM = [
    ("DealOpened", "kind", "registration"),
    ("NoticeSent", "method", "email"),
    ("NotesRetired", "reason", "converted"),
    ("ShelfUnusable", "reason", "suspended"),
    ("ShelfUsable", "cure", "waiver"),
    ("AmendmentFiled", "kind", "annual_report"),
    ("InstrumentRegistered", "kind", "option"),
]

# Positive amounts in cents (Money), amounts that may be zero (MoneyOrZero), prices.
MONEY_FIELDS = [("NotesIssued", "principal"), ("NotesTransferred", "principal"),
                ("NotesConverted", "principal"), ("NotesRetired", "principal"),
                ("AdditionalInterestPaid", "amount")]
MONEY_OR_ZERO_FIELDS = [("AmendmentFiled", "principal_added"), ("CamdenWarrantsIssued", "consideration")]
PRICE_FIELDS = [("InstrumentRegistered", "exercise_price"), ("CamdenWarrantsIssued", "exercise_price"),
                ("AdjustmentRecorded", "new_price")]
AMOUNT_FIELDS = MONEY_FIELDS + MONEY_OR_ZERO_FIELDS + PRICE_FIELDS
SHARE_FIELDS = [("NotesConverted", "shares"), ("InstrumentRegistered", "shares"),
                ("CapitalizationRecorded", "common_outstanding"), ("CamdenWarrantsIssued", "warrants"),
                ("CamdenWarrantsVested", "warrants"), ("CamdenWarrantsCancelled", "warrants"),
                ("WarrantsExercised", "shares_issued"), ("PreferredConverted", "shares_issued"),
                ("TrueUpSharesIssued", "shares")]
FRACTION_FIELDS = [("WarrantsExercised", "fraction"), ("PreferredConverted", "fraction")]


def event(type_: str, **changes: Any) -> dict[str, Any]:
    """The valid example of ``type_`` as an event object, with envelope fields changed."""
    deal, day, data = VALID[type_]
    obj = {"type": type_, "deal": deal, "date": day, "data": dict(data)}
    obj.update(changes)
    return obj


def with_data(type_: str, **fields: Any) -> dict[str, Any]:
    obj = event(type_)
    obj["data"].update(fields)
    return obj


def without(type_: str, field: str) -> dict[str, Any]:
    obj = event(type_)
    del obj["data"][field]
    return obj


def refused(obj: Any, field: str | None, phrase: str) -> InvalidEvent:
    """``obj`` is refused naming line 7, exactly ``field`` and ``phrase``, on one line."""
    with pytest.raises(InvalidEvent) as caught:
        parse_event(obj, line=LINE)
    err = caught.value
    text = str(err)
    assert err.field == field, text
    assert err.line == LINE
    assert "\n" not in text and "\r" not in text
    assert text.startswith(f"line {LINE}")
    if field is not None:
        assert f"field '{field}'" in text
    assert phrase in text, text
    return err


def read_json(text: str) -> Any:
    """As the JSONL reader parses: numbers with an exponent become ExponentDecimal, other
    numbers with a point Decimal, NaN and Infinity Decimal too."""
    return loads(text)


# ------------------------------------------------------------------------ the catalog


def test_catalog_is_the_spec_tables():
    assert list(CATALOG) == SPEC_COMMON + SPEC_RRA + SPEC_LETTER
    assert set(VALID) == set(CATALOG) == set(REQUIRED)


@pytest.mark.parametrize("type_", SPEC_RRA)
def test_registration_types_belong_to_registration_rights_deals(type_):
    assert kind_of_type(type_) == REGISTRATION_RIGHTS


@pytest.mark.parametrize("type_", SPEC_LETTER)
def test_letter_types_belong_to_antidilution_deferral_deals(type_):
    assert kind_of_type(type_) == ANTIDILUTION_DEFERRAL


@pytest.mark.parametrize("type_", SPEC_COMMON)
def test_common_types_belong_to_both_kinds(type_):
    assert kind_of_type(type_) is None


# ---------------------------------------------------------------------- valid events


@pytest.mark.parametrize("type_", list(VALID))
def test_valid_example_is_accepted(type_):
    obj = event(type_, source="Form S-3, SEC file 333-117340", key=f"k-{type_}")
    new = parse_event(obj, line=LINE)
    assert new.type == type_
    assert new.deal == obj["deal"]
    assert new.date == date.fromisoformat(obj["date"])
    assert new.source == "Form S-3, SEC file 333-117340"
    assert new.key == f"k-{type_}"
    assert new.line == LINE
    assert set(new.data) >= set(REQUIRED[type_])


@pytest.mark.parametrize("type_", list(VALID))
def test_normalisation_is_a_fixed_point(type_):
    new = parse_event(event(type_))
    again = parse_event(new.envelope())
    assert again.envelope() == new.envelope()
    # and through JSON text, as `log --json` output appended again would travel
    assert parse_event(read_json(json.dumps(new.envelope()))).envelope() == new.envelope()


@pytest.mark.parametrize("type_", list(VALID))
def test_envelope_omits_absent_source_and_key(type_):
    env = parse_event(event(type_)).envelope()
    assert set(env) == {"type", "deal", "date", "data"}
    assert not set(env) & set(STORE_FIELDS)


def test_optional_fields_and_defaults_are_filled_in():
    transferred = parse_event(without("NotesTransferred", "under_shelf"))
    assert transferred.data["under_shelf"] is False
    issued = parse_event(event("CamdenWarrantsIssued"))
    assert issued.data["consideration"] == "0"
    assert parse_event(with_data("ShelfFiled", file_number=None)).data == {}
    assert parse_event(event("ShelfFiled", data={})).data == {}
    assert parse_event(event("TrusteeNotified", data={})).data == {}


def test_amounts_given_as_json_integers_come_back_as_strings():
    new = parse_event(read_json(
        '{"type": "NotesIssued", "deal": "rra", "date": "2004-06-30",'
        ' "data": {"holder": "Lehman Brothers Inc.", "principal": 60000000}}'))
    assert new.data["principal"] == "60000000"
    assert parse_event(new.envelope()).data["principal"] == "60000000"
    paid = parse_event(with_data("AdditionalInterestPaid", amount=Decimal("6666.67")))
    assert paid.data["amount"] == "6666.67"
    price = parse_event(with_data("AdjustmentRecorded", new_price=7))
    assert price.data["new_price"] == "7"


def test_json_decimal_numbers_keep_their_cents():
    new = parse_event(read_json(
        '{"type": "AdditionalInterestPaid", "deal": "rra", "date": "2005-01-18", "data":'
        ' {"payment_date": "2005-01-15", "holder": "L", "amount": 6666.70}}'))
    assert new.data["amount"] == "6666.70"


def test_tiny_fraction_is_written_without_exponent_and_reads_back():
    # str(Decimal("0.0000001")) is "1E-7", which the reader refuses as exponent notation
    new = parse_event(read_json(
        '{"type": "WarrantsExercised", "deal": "l", "date": "2003-01-15",'
        ' "data": {"instrument": "W", "fraction": 0.0000001, "shares_issued": 1}}'))
    assert new.data["fraction"] == "0.0000001"
    assert parse_event(new.envelope()).envelope() == new.envelope()


def test_python_decimal_with_positive_exponent_is_written_out():
    # not from JSON (that would be an ExponentDecimal): a caller's Decimal("6E+7")
    new = parse_event(with_data("NotesIssued", principal=Decimal("6E+7")))
    assert new.data["principal"] == "60000000"


def test_holders_all_or_list_normalise_unchanged():
    assert parse_event(with_data("QuestionnaireRequested", holders="all")).data["holders"] == "all"
    listed = parse_event(with_data("QuestionnaireRequested", holders=["A", "B"]))
    assert listed.data["holders"] == ["A", "B"]


def test_from_record_gives_decimal_and_date_values():
    objs = [event("NotesIssued"), event("AdditionalInterestPaid"), event("CamdenWarrantsIssued"),
            event("WarrantsExercised"), event("CalendarDayDeclared"), event("InstrumentRegistered"),
            with_data("NotesIssued", principal=60000000)]
    issued, paid, camden, exercised, declared, registered, int_issued = build(objs)
    assert issued.data["principal"] == Decimal("60000000.00")
    assert isinstance(issued.data["principal"], Decimal)
    assert int_issued.data["principal"] == Decimal(60000000)
    assert isinstance(int_issued.data["principal"], Decimal)
    assert paid.data["payment_date"] == date(2005, 1, 15)
    assert paid.data["amount"] == Decimal("6666.67")
    assert paid.date == date(2005, 1, 18)
    assert camden.data["consideration"] == Decimal(0)
    assert camden.data["exercise_price"] == Decimal("3.00")
    assert camden.data["warrants"] == 100000 and isinstance(camden.data["warrants"], int)
    assert exercised.data["fraction"] == Decimal("0.5")
    assert declared.data["day"] == date(2012, 10, 29)
    assert declared.data["business_day"] is False
    assert registered.data["exercise_price"] == Decimal("8.00")
    assert registered.data["shares"] == 1000000
    assert issued.seq == 1 and issued.id == "e1"
    assert issued.recorded_at.tzinfo is not None


def test_typed_data_is_read_only():
    data = typed_data("NotesIssued", {"holder": "L", "principal": "1.00"})
    with pytest.raises(TypeError):
        data["principal"] = Decimal(2)  # type: ignore[index]


# -------------------------------------------------------------------- the envelope


def test_json_array_instead_of_object():
    refused([event("ShelfFiled")], None, "a JSON array is not an event")


@pytest.mark.parametrize("value", ["ShelfFiled", 5, None])
def test_not_an_object(value):
    refused(value, None, "must be a JSON object")


@pytest.mark.parametrize("name", ["type", "deal", "date", "data"])
def test_missing_envelope_field(name):
    obj = event("ShelfFiled")
    del obj[name]
    refused(obj, name, "is required")


def test_unknown_envelope_field():
    refused(event("ShelfFiled", recorded="yesterday"), "recorded", "unknown field")


@pytest.mark.parametrize("name", list(STORE_FIELDS))
def test_store_fields_cannot_be_supplied(name):
    refused(event("ShelfFiled", **{name: 1}), name, "assigned by the store")


def test_seq_and_hash_named_as_store_fields():
    refused(event("ShelfFiled", seq=12), "seq", "assigned by the store")
    refused(event("ShelfFiled", hash="ab" * 32), "hash", "assigned by the store")


@pytest.mark.parametrize("value", ["ShelfDeclaredEffective", "shelffiled", 3, None])
def test_unknown_type(value):
    refused(event("ShelfFiled", type=value), "type", "unknown event type")


@pytest.mark.parametrize("value", ["", "has space", "-leading-dash", "x" * 81, 7, None])
def test_bad_deal_name(value):
    refused(event("ShelfFiled", deal=value), "deal", "deal name")


@pytest.mark.parametrize("value, phrase", [
    ("2004-02-30", "not a real calendar date"),
    ("2005-02-29", "not a real calendar date"),
    ("04/07/2004", "YYYY-MM-DD"),
    ("2004-7-13", "YYYY-MM-DD"),
    ("20040713", "YYYY-MM-DD"),
    ("2004-07-13T00:00:00Z", "YYYY-MM-DD"),
    ("2004-07-13\n", "YYYY-MM-DD"),
    ("٢٠٠٤-٠٧-١٣", "YYYY-MM-DD"),  # Arabic-Indic digits
    (20040713, "YYYY-MM-DD"),
    (None, "YYYY-MM-DD"),
])
def test_bad_event_date(value, phrase):
    refused(event("ShelfFiled", date=value), "date", phrase)


def test_a_timestamp_object_is_not_a_date():
    from datetime import datetime

    refused(event("ShelfFiled", date=datetime(2004, 7, 13, 9, 30)), "date", "YYYY-MM-DD")


@pytest.mark.parametrize("name", ["source", "key"])
@pytest.mark.parametrize("value, phrase", [("", "non-empty text"), ("  ", "non-empty text"),
                                           (5, "non-empty text"), ("x" * 501, "longer than 500")])
def test_bad_source_or_key(name, value, phrase):
    refused(event("ShelfFiled", **{name: value}), name, phrase)


@pytest.mark.parametrize("type_", list(VALID))
@pytest.mark.parametrize("data", [[], "x", None, 1])
def test_data_must_be_an_object(type_, data):
    refused(event(type_, data=data), "data", "must be a JSON object")


# --------------------------------------------------------------- every type's data


@pytest.mark.parametrize("type_, name", [(t, f) for t, fields in REQUIRED.items() for f in fields])
def test_missing_data_field(type_, name):
    err = refused(without(type_, name), f"data.{name}", "is required" if type_ != "InstrumentRegistered"
                  or name not in ("shares", "exercise_price") else "needs")
    assert err.rule == f"{type_} schema"
    assert str(err).endswith(f"[{type_} schema]")


@pytest.mark.parametrize("type_", list(VALID))
def test_unknown_data_field(type_):
    err = refused(with_data(type_, colour="blue"), "data.colour", "unknown field")
    assert err.rule == f"{type_} schema"


@pytest.mark.parametrize("type_", list(VALID))
def test_store_field_inside_data_is_unknown(type_):
    refused(with_data(type_, seq=1), "data.seq", "unknown field")


@pytest.mark.parametrize("type_, name, value, phrase",
                         [(t, *case) for t, case in WRONG_TYPE.items()])
def test_wrong_type(type_, name, value, phrase):
    refused(with_data(type_, **{name: value}), f"data.{name}", phrase)


def test_every_type_with_fields_has_a_wrong_type_case():
    assert set(WRONG_TYPE) == {t for t, model in CATALOG.items() if model.model_fields}


@pytest.mark.parametrize("type_, name, value", BAD_ENUM)
def test_bad_enum_value(type_, name, value):
    refused(with_data(type_, **{name: value}), f"data.{name}", "Input should be")


# Free-text fields (SPEC §3: names, reasons, ids), one per type that has one.
TEXT_FIELDS = [("DealOpened", "name"), ("CalendarDayDeclared", "reason"), ("NoticeSent", "subject"),
               ("NoticeAcknowledged", "notice"), ("EventRetracted", "event_id"),
               ("NotesIssued", "holder"), ("NotesTransferred", "to_holder"),
               ("NotesConverted", "holder"), ("NotesRetired", "holder"),
               ("HolderAffiliation", "holder"), ("QuestionnaireDelivered", "holder"),
               ("ShelfFiled", "file_number"), ("TrusteeNotified", "about"),
               ("HoldersAdvised", "about"), ("AdditionalInterestPaid", "holder"),
               ("ConsentGiven", "matter"), ("InstrumentRegistered", "instrument"),
               ("CamdenWarrantsIssued", "holder"), ("CamdenWarrantsVested", "holder"),
               ("CamdenWarrantsCancelled", "holder"), ("AdjustmentRecorded", "reason"),
               ("WarrantsExercised", "instrument"), ("PreferredConverted", "instrument"),
               ("TrueUpSharesIssued", "instrument")]


@pytest.mark.parametrize("type_, name", TEXT_FIELDS)
@pytest.mark.parametrize("value", ["", "   "])
def test_empty_text_is_refused(type_, name, value):
    refused(with_data(type_, **{name: value}), f"data.{name}", "must not be empty")


def test_over_long_text_is_refused():
    refused(with_data("ConsentGiven", matter="m" * 501), "data.matter", "longer than 500 characters")


# ----------------------------------------------------------------------- amounts


@pytest.mark.parametrize("type_, name", AMOUNT_FIELDS)
@pytest.mark.parametrize("value, phrase", [
    ("6e7", "exponent notation is not allowed"),
    ("6E+7", "exponent notation is not allowed"),
    ("6.5e-1", "exponent notation is not allowed"),
    ("free", "not a decimal number"),
    (ExponentDecimal("6E7"), "exponent notation is not allowed"),
    (ExponentDecimal("6.0e7"), "exponent notation is not allowed"),
    (Decimal("NaN"), "finite number"),
    (Decimal("Infinity"), "finite number"),
    (Decimal("-Infinity"), "finite number"),
    ("NaN", "not a decimal number"),
    ("Infinity", "not a decimal number"),
    (10**13, "too large"),
    ("10000000000000", "too large"),
    ("1" + "0" * 400, "too large"),
    (1.5, "not a binary float"),
    (True, "not true/false"),
    ("$60,000,000", "not a decimal number"),
    ("60 000 000", "not a decimal number"),
    (".5", "not a decimal number"),
    ("٥", "not a decimal number"),  # an Arabic-Indic five
])
def test_bad_amount(type_, name, value, phrase):
    refused(with_data(type_, **{name: value}), f"data.{name}", phrase)


@pytest.mark.parametrize("type_, name", MONEY_FIELDS)
@pytest.mark.parametrize("value", [0, "0", "0.00", Decimal(0)])
def test_zero_amount_is_refused(type_, name, value):
    refused(with_data(type_, **{name: value}), f"data.{name}", "must be a positive amount")


@pytest.mark.parametrize("type_, name", MONEY_FIELDS)
@pytest.mark.parametrize("value", ["-0.01", Decimal("-60000000"), -1])
def test_negative_amount_is_refused(type_, name, value):
    refused(with_data(type_, **{name: value}), f"data.{name}", "must be a positive amount")


@pytest.mark.parametrize("type_, name", MONEY_OR_ZERO_FIELDS)
def test_zero_is_allowed_where_the_spec_defaults_to_zero(type_, name):
    assert parse_event(with_data(type_, **{name: 0})).data[name] == "0"
    refused(with_data(type_, **{name: "-0.01"}), f"data.{name}", "must not be negative")


@pytest.mark.parametrize("type_, name", PRICE_FIELDS)
@pytest.mark.parametrize("value", [0, "0.00", "-8"])
def test_price_must_be_positive(type_, name, value):
    refused(with_data(type_, **{name: value}), f"data.{name}", "must be a positive price")


@pytest.mark.parametrize("type_, name", MONEY_FIELDS + MONEY_OR_ZERO_FIELDS)
@pytest.mark.parametrize("value", ["60000000.001", Decimal("0.005"), "1.100"])
def test_fractional_cents_are_refused(type_, name, value):
    err = refused(with_data(type_, **{name: value}), f"data.{name}",
                  "has more than two decimals (amounts are in cents)")
    assert str(err).endswith(f"[{type_} schema]")


def test_fractional_cents_message_in_full():
    err = refused(with_data("NotesIssued", principal="60000000.001"), "data.principal", "")
    assert str(err) == ("line 7, field 'data.principal': has more than two decimals "
                        "(amounts are in cents) [NotesIssued schema]")


def test_exponent_json_number_in_full():
    obj = read_json('{"type": "NotesIssued", "deal": "rra", "date": "2004-06-30",'
                    ' "data": {"holder": "L", "principal": 6e7}}')
    assert isinstance(obj["data"]["principal"], ExponentDecimal)
    err = refused(obj, "data.principal", "exponent notation is not allowed")
    assert str(err) == ("line 7, field 'data.principal': exponent notation is not allowed; "
                        "write the number out [NotesIssued schema]")


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_json_nan_and_infinity_in_full(literal):
    obj = read_json('{"type": "NotesIssued", "deal": "rra", "date": "2004-06-30",'
                    f' "data": {{"holder": "L", "principal": {literal}}}}}')
    err = refused(obj, "data.principal", "must be a finite number (no NaN or Infinity)")
    assert err.rule == "NotesIssued schema"


@pytest.mark.parametrize("type_, name", PRICE_FIELDS)
def test_price_decimals(type_, name):
    assert parse_event(with_data(type_, **{name: "15.361234"})).data[name] == "15.361234"
    refused(with_data(type_, **{name: "15.3612345"}), f"data.{name}", "more than six decimals")


@pytest.mark.parametrize("type_, name", MONEY_FIELDS)
def test_largest_accepted_amount(type_, name):
    assert parse_event(with_data(type_, **{name: "9999999999999.99"})).data[name] == "9999999999999.99"


# ------------------------------------------------------------------------ shares


@pytest.mark.parametrize("type_, name", SHARE_FIELDS)
@pytest.mark.parametrize("value, phrase", [
    (Decimal("1.5"), "whole number of shares"),   # the JSON number 1.5
    ("10", "whole number of shares"),
    (Decimal("10.0"), "whole number of shares"),  # the JSON number 10.0
    (Decimal("10"), "whole number of shares"),
    (10.0, "whole number of shares"),
    (True, "whole number"),
    (0, "must be a positive whole number"),
    (-5, "must be a positive whole number"),
    (10**12 + 1, "too large for a share count"),
    (10**40, "too large for a share count"),
])
def test_bad_share_count(type_, name, value, phrase):
    refused(with_data(type_, **{name: value}), f"data.{name}", phrase)


def test_bool_is_not_a_share_count_message():
    err = refused(with_data("TrueUpSharesIssued", shares=True), "data.shares", "whole number")
    assert "bool" in str(err)


@pytest.mark.parametrize("type_, name", SHARE_FIELDS)
def test_share_counts_stay_integers(type_, name):
    assert parse_event(with_data(type_, **{name: 1})).data[name] == 1


# --------------------------------------------------------------------- fractions


@pytest.mark.parametrize("type_, name", FRACTION_FIELDS)
@pytest.mark.parametrize("value, phrase", [
    (0, "greater than 0 and at most 1"),
    ("0", "greater than 0 and at most 1"),
    ("0.0", "greater than 0 and at most 1"),
    ("1.5", "greater than 0 and at most 1"),
    (Decimal("1.0000001"), "greater than 0 and at most 1"),
    (2, "greater than 0 and at most 1"),
    ("-0.5", "greater than 0 and at most 1"),
    ("0.0000000000001", "more than twelve decimals"),
    ("1e-1", "exponent notation"),
    (Decimal("NaN"), "finite number"),
])
def test_bad_fraction(type_, name, value, phrase):
    refused(with_data(type_, **{name: value}), f"data.{name}", phrase)


@pytest.mark.parametrize("type_, name", FRACTION_FIELDS)
@pytest.mark.parametrize("value, normal", [(1, "1"), ("1.0", "1.0"), ("0.25", "0.25"),
                                           (Decimal("0.000000000001"), "0.000000000001")])
def test_fraction_bounds_accepted(type_, name, value, normal):
    assert parse_event(with_data(type_, **{name: value})).data[name] == normal


# ------------------------------------------------------------------- data dates


@pytest.mark.parametrize("type_, name", [("CalendarDayDeclared", "day"),
                                         ("AdditionalInterestPaid", "payment_date")])
@pytest.mark.parametrize("value, phrase", [("2004-02-30", "not a real calendar date"),
                                           ("04/07/2004", "YYYY-MM-DD"),
                                           ("2005-1-15", "YYYY-MM-DD")])
def test_bad_date_in_data(type_, name, value, phrase):
    refused(with_data(type_, **{name: value}), f"data.{name}", phrase)


def test_leap_day_is_a_date():
    assert parse_event(with_data("CalendarDayDeclared", day="2004-02-29")).data["day"] == "2004-02-29"


# ----------------------------------------------------------- type-specific rules


def test_holders_empty_list():
    err = refused(with_data("QuestionnaireRequested", holders=[]), "data.holders",
                  "must name at least one holder")
    assert err.rule == "QuestionnaireRequested schema"


@pytest.mark.parametrize("holders, phrase", [("some", 'must be "all" or a list'),
                                             ("ALL", 'must be "all" or a list'),
                                             (["A", 5], "holder 2 must be text"),
                                             (["A", ""], "holder 2 must not be empty"),
                                             ({"A": 1}, 'must be "all" or a list')])
def test_holders_other_shapes(holders, phrase):
    refused(with_data("QuestionnaireRequested", holders=holders), "data.holders", phrase)


def test_holders_added_item_named_by_position():
    refused(with_data("AmendmentFiled", holders_added=["B", 3]), "data.holders_added.1", "must be text")


def test_warrant_missing_exercise_price():
    refused(without("InstrumentRegistered", "exercise_price"), "data.exercise_price",
            "a warrant needs 'exercise_price'")


def test_warrant_missing_shares():
    refused(without("InstrumentRegistered", "shares"), "data.shares", "a warrant needs 'shares'")


@pytest.mark.parametrize("name, value", [("quantity", 100), ("stated_value", "10"),
                                         ("conversion_price", "4.00")])
def test_warrant_carrying_preferred_fields(name, value):
    refused(with_data("InstrumentRegistered", **{name: value}), f"data.{name}",
            f"a warrant has no '{name}'")


PREFERRED = {"instrument": "DB-A", "holder": "DB Capital Investors, L.P.", "kind": "preferred",
             "quantity": 10000, "stated_value": "100", "conversion_price": "4.00"}


def test_preferred_is_accepted():
    new = parse_event(event("InstrumentRegistered", data=dict(PREFERRED)))
    assert new.data == {**PREFERRED}
    assert parse_event(new.envelope()).envelope() == new.envelope()


@pytest.mark.parametrize("name", ["quantity", "stated_value", "conversion_price"])
def test_preferred_missing_its_fields(name):
    data = {k: v for k, v in PREFERRED.items() if k != name}
    refused(event("InstrumentRegistered", data=data), f"data.{name}", f"a preferred needs '{name}'")


@pytest.mark.parametrize("name, value", [("shares", 100), ("exercise_price", "8")])
def test_preferred_carrying_warrant_fields(name, value):
    refused(event("InstrumentRegistered", data={**PREFERRED, name: value}), f"data.{name}",
            f"a preferred has no '{name}'")


def test_deal_opened_with_the_other_kind_of_terms():
    obj = with_data("DealOpened", kind="antidilution_deferral")
    refused(obj, "data.terms.agreement_date", "is required")


def test_deal_opened_with_unknown_term():
    obj = event("DealOpened")
    obj["data"]["terms"] = {**obj["data"]["terms"], "grace_days": 3}
    refused(obj, "data.terms.grace_days", "unknown term")


def test_deal_opened_with_bad_day_count():
    obj = event("DealOpened")
    obj["data"]["terms"] = {**obj["data"]["terms"], "day_count": "30/365"}
    refused(obj, "data.terms.day_count", "Input should be '30/360'")


def test_deal_opened_terms_are_normalised():
    obj = event("DealOpened")
    obj["data"]["terms"] = {k: v for k, v in obj["data"]["terms"].items() if k != "rates"}
    new = parse_event(obj)
    assert new.data["terms"]["rates"]["first"] == "0.25"
    assert parse_event(new.envelope()).envelope() == new.envelope()


def test_control_character_fast_path_agrees_with_the_category_walk_on_every_code_point():
    # issue 17: names are checked with str.isprintable() first; it must never let
    # through a character of the categories a name refuses (Cc, Cf, Zl, Zp)
    import unicodedata

    from ledger.values import _control_characters

    def walk(text):
        for char in text:
            if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
                return f"U+{ord(char):04X}"
        return None

    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        text = f"Holder {chr(cp)} L.P."
        assert _control_characters(text) == walk(text), hex(cp)
