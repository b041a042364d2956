"""The event catalog described for people: each event type, its fields, which are
required, what each accepts, and an example line (``deal-ledger types``, ``record TYPE
--help``). Everything is read from the pydantic models of ``ledger.events`` and the value
types of ``ledger.values``, so the description cannot drift from what is checked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from . import events, values
from .suggest import did_you_mean

# Each value type: what it accepts, in words, and a value an example line uses.
_VALUE_TYPES: tuple[tuple[Any, str, Any], ...] = (
    (values.Day, "date YYYY-MM-DD", "2005-01-15"),
    (values.Money, "amount: a positive decimal, at most 2 decimals, as a string", "1000000.00"),
    (values.MoneyOrZero, "amount: zero or more, at most 2 decimals, as a string", "0.00"),
    (values.Price, "price: a positive decimal, at most 6 decimals, as a string", "15.36"),
    (values.Fraction01, "fraction: more than 0 and at most 1, at most 12 decimals", "0.5"),
    (values.Shares, "whole number of shares, 1 or more", 100000),
    (values.SharesOrZero, "whole number of shares, 0 or more", 0),
    (values.Flag, "true or false", True),
    (values.Name, "name: one line of text (a Holder, an instrument, a matter)",
     "Lehman Brothers Inc."),
    (values.Text, "text: 1 to 500 characters", "as filed"),
)
_BY_VALIDATOR = {id(t.__metadata__[0]): (text, example) for t, text, example in _VALUE_TYPES}

# Examples that read better than the generic ones, by field name.
_EXAMPLES = {"file_number": "333-117340", "instrument": "W-1", "to": "The Bank of New York",
             "subject": "notice of Suspension Period", "reason": "entered in error",
             "matter": "waiver of RRA §2(a)(ii)", "notice": "notice of 2005-03-01",
             "from_holder": "Lehman Brothers Inc.", "to_holder": "Citadel Equity Fund Ltd.",
             "event_id": "6ea6dfd7", "retraction_id": "9c41e2b0", "new_price": "12.50",
             "exercise_price": "15.36",
             "holders_added": ["Citadel Equity Fund Ltd."], "holders": "all",
             "common_outstanding": 20000000, "warrants": 50000, "shares_issued": 50000,
             "about": "Registration Default"}

# Rules across fields that a field's own description cannot say.
_NOTES = {
    "InstrumentRegistered": "a warrant needs shares and exercise_price; a preferred needs "
                            "quantity, stated_value and conversion_price",
    "DealOpened": "made by `deal-ledger init DEAL --template NAME` (or --terms FILE), which "
                  "fills in the terms",
    "EventRetracted": "made by `deal-ledger retract EVENT_ID --reason TEXT`; undone by "
                      "`deal-ledger reinstate RETRACTION_ID --reason TEXT`",
    "EventReinstated": "made by `deal-ledger reinstate RETRACTION_ID --reason TEXT`: the "
                       "retraction no longer counts and the event it retracted counts again",
    "QuestionnaireRequested": 'holders is "all" or a list of Holder names',
}


@dataclass(frozen=True)
class FieldInfo:
    name: str
    required: bool
    accepts: str
    default: Any = None
    example: Any = None


@dataclass(frozen=True)
class TypeInfo:
    name: str
    kind: str  # the deal kind it belongs to, or "any deal"
    summary: str
    fields: tuple[FieldInfo, ...]
    note: str | None
    example: dict[str, Any]

    def example_line(self) -> str:
        return json.dumps(self.example, ensure_ascii=False)

    def as_json(self) -> dict[str, Any]:
        return {"type": self.name, "kind": self.kind, "summary": self.summary,
                "fields": [{"name": f.name, "required": f.required, "accepts": f.accepts,
                            **({"default": f.default} if not f.required else {})}
                           for f in self.fields],
                "note": self.note, "example": self.example}


def _describe(annotation: Any, metadata: list[Any]) -> tuple[str, Any]:
    for m in metadata:
        if id(m) in _BY_VALIDATOR:
            return _BY_VALIDATOR[id(m)]
    origin = get_origin(annotation)
    if origin is Literal:
        options = get_args(annotation)
        return "one of: " + ", ".join(str(o) for o in options), options[0]
    if origin is Union or str(origin) == "<class 'types.UnionType'>":
        inner = [a for a in get_args(annotation) if a is not type(None)]
        if len(inner) == 1:
            return _describe(inner[0], list(getattr(inner[0], "__metadata__", ())))
    if hasattr(annotation, "__metadata__"):
        return _describe(get_args(annotation)[0], list(annotation.__metadata__))
    if origin is list:
        text, example = _describe(get_args(annotation)[0], [])
        return f"list of ({text})", [example]
    if origin is dict or annotation is dict:
        return "JSON object", {}
    for m in metadata:  # a validator of its own (QuestionnaireRequested.holders)
        doc = (getattr(getattr(m, "func", None), "__doc__", None) or "").strip()
        if doc:
            return " ".join(doc.split("\n\n")[0].split()).replace("``", ""), "all"
    return getattr(annotation, "__name__", str(annotation)), None


def _summary(model: type) -> str:
    doc = (model.__doc__ or "").strip()
    if not doc or model.__doc__ == events.Data.__doc__:
        return ""
    return " ".join(doc.split("\n\n")[0].split()).replace("``", "")


def _kind(name: str) -> str:
    return events.kind_of_type(name) or "any deal"


_DEALS = {events.REGISTRATION_RIGHTS: "infocrossing-rra-2004",
          events.ANTIDILUTION_DEFERRAL: "infocrossing-letter-2002"}


def describe(name: str) -> TypeInfo:
    model = events.CATALOG[name]
    fields = []
    data: dict[str, Any] = {}
    for fname, info in model.model_fields.items():
        accepts, example = _describe(info.annotation, list(info.metadata))
        if not accepts.startswith("one of:"):
            example = _EXAMPLES.get(fname, example)
        required = info.is_required()
        default = None if required else info.default
        if hasattr(default, "is_finite"):  # a Decimal default, shown as the JSON gives it
            default = format(default, "f")
        fields.append(FieldInfo(fname, required, accepts, default, example))
        if required:
            data[fname] = example
    if name == "InstrumentRegistered":
        data.update(shares=100000, exercise_price="15.36")
    if name == "DealOpened":
        data = {"kind": events.REGISTRATION_RIGHTS, "name": "Example deal", "terms": {"...": "..."}}
    deal = _DEALS.get(events.kind_of_type(name) or "", "infocrossing-rra-2004")
    example = {"type": name, "deal": deal, "date": "2005-01-15", "data": data}
    return TypeInfo(name, _kind(name), _summary(model), tuple(fields), _NOTES.get(name),
                    example)


def catalog() -> list[TypeInfo]:
    """Every event type, common ones first, then each deal kind's."""
    return [describe(n) for n in events.CATALOG]


def unknown_type(name: str) -> str | None:
    """``None`` if ``name`` is an event type; else the refusal, with a suggestion."""
    if name in events.CATALOG:
        return None
    hint = did_you_mean(name, events.CATALOG) or "see `deal-ledger types`"
    return f"unknown event type {name!r}; {hint}"
