# Over 600 lines: the whole event catalog, one model per event type, read as one (SPEC §3).
"""The event catalog (SPEC §3): one pydantic model for the ``data`` of every event type.

An event is one JSON object ``{"type", "deal", "date", "data", "source"?, "key"?}``.
``parse_event`` checks one object and returns a ``NewEvent`` whose ``data`` is the
normalised JSON form (amounts as strings, defaults filled in), so that what ``log
--json`` prints can be appended again unchanged. ``Event`` is the stored form that the
projections read: typed values (``Decimal``, ``date``) and the store's fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Annotated, Any, Literal, Mapping, get_args

from pydantic import BaseModel, ConfigDict, PlainValidator, ValidationError, model_validator

from .dates import format_timestamp, parse_timestamp  # noqa: F401 (re-exported)
from .errors import InvalidEvent
from .fastdata import checker
from .stored import (ANTIDILUTION_DEFERRAL, CONVERTERS, KINDS,  # noqa: F401 (re-exported)
                     REGISTRATION_RIGHTS, Event, kind_of_type, typed_data)
from .upcasters import under_shelf_input
from .upcasting import Upcaster, current_version, register, upcast
from .values import (
    DATE,
    DECIMAL,
    Day,
    FieldError,
    Flag,
    Fraction01,
    Money,
    MoneyOrZero,
    Price,
    Shares,
    Name,
    Text,
    _name,
    _text,
    parse_day,
)

ENVELOPE_FIELDS = ("type", "deal", "date", "data", "source", "key")
REQUIRED_FIELDS = ("type", "deal", "date", "data")
STORE_FIELDS = ("v", "id", "seq", "recorded_at", "recorded_by", "prev_hash", "deal_prev",
                "hash")
DEAL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}", re.ASCII)  # with fullmatch: no "\n"


class Data(BaseModel):
    """Base of every event's ``data``: no unknown fields, immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


# ---------------------------------------------------------------- §3.1 common events


class DealOpened(Data):
    """Starts a deal; the event's ``date`` is the agreement date."""

    kind: Literal["registration_rights", "antidilution_deferral"]
    name: Name
    terms: dict[str, Any]

    @model_validator(mode="after")
    def _terms_fit_kind(self) -> "DealOpened":
        from .terms import validate_terms  # terms import events' value types

        object.__setattr__(self, "terms", validate_terms(self.kind, self.terms))
        return self


class CalendarDayDeclared(Data):
    """An operator's override of the business-day calendar (RRA §1 Business Day)."""

    day: Day
    business_day: Flag
    reason: Text


class NoticeSent(Data):
    """A notice under RRA §10(E); the ledger computes when it is deemed given (by the
    deal's terms: ``notices.methods``)."""

    to: Text
    subject: Text
    method: Literal["hand", "mail", "telex", "fax", "courier", "email"]


class NoticeAcknowledged(Data):
    """A telex answered back or a fax whose receipt was acknowledged (RRA §10(E))."""

    notice: Text


class EventRetracted(Data):
    """A correction: from its recorded_at on, the target no longer counts."""

    event_id: Text
    reason: Text


class EventReinstated(Data):
    """Undo of a retraction made in error (issue 31): from its recorded_at on, the
    ``EventRetracted`` it names no longer counts, and the event it retracted counts again."""

    retraction_id: Text
    reason: Text


# ------------------------------------------------------ §3.2 registration rights events


class NotesIssued(Data):
    """Notes issued; ``upon``: at the closing, upon exercise of the Initial Purchasers'
    option, or ``other``wise (a reissue of Notes repurchased, say: outstanding and
    restricted like any Note, but no option issue, so no anchor ``last_option_issue``
    counts from it). Unsaid: an original issue, at the closing or upon the option."""

    holder: Name
    principal: Money
    upon: Literal["closing", "option", "other"] | None = None


class NotesTransferred(Data):
    """A sale or other transfer of Notes; ``under``: under the Shelf Registration
    Statement (``shelf``), under Rule 144 (``rule_144``) or otherwise (``private``). The
    terms' ``transfer_restricted`` say which of these end the Notes' restriction."""

    from_holder: Name
    to_holder: Name
    principal: Money
    under: Literal["shelf", "rule_144", "private"] = "private"


class NotesConverted(Data):
    holder: Name
    principal: Money
    shares: Shares


class NotesRetired(Data):
    holder: Name
    principal: Money
    reason: Literal["redeemed", "repurchased", "cancelled", "matured"]


class HolderAffiliation(Data):
    holder: Name
    company_affiliate: Flag


def _holders(value: Any) -> str | list[str]:
    """``"all"`` or a non-empty list of holder names (RRA §2(b), §4(d)).

    A plain validator rather than ``Literal["all"] | list[Text]``: pydantic's union
    errors name the union member (``holders.literal['all']``) and report the first
    member's complaint ("should be 'all'") even for a list with one bad name.
    """
    if value == "all":
        return "all"
    if not isinstance(value, list):
        raise ValueError('must be "all" or a list of holders')
    if not value:
        raise ValueError('must name at least one holder, or be "all"')
    names = []
    for number, item in enumerate(value, start=1):
        try:
            names.append(_name(item))
        except ValueError as err:
            raise ValueError(f"holder {number} {err}") from None
    return names


class QuestionnaireRequested(Data):
    holders: Annotated[str | list[str], PlainValidator(_holders)]


class QuestionnaireDelivered(Data):
    holder: Name


class ShelfFiled(Data):
    file_number: Text | None = None


class ShelfEffective(Data):
    pass


class ShelfUnusable(Data):
    """The shelf ceased to be effective or usable; ``selling_holder_information``: only to
    file an amendment or supplement changing the selling securityholders' information or
    the plan of distribution (a lapse some agreements excuse)."""

    reason: Literal["stop_order", "ceased_effective", "material_misstatement",
                    "selling_holder_information", "other"]


class ShelfUsable(Data):
    cure: Literal["post_effective_amendment", "prospectus_supplement", "exchange_act_report",
                  "order_lifted"]


class SuspensionStarted(Data):
    material_transaction: Flag


class SuspensionExtended(Data):
    pass


class SuspensionEnded(Data):
    pass


class AmendmentFiled(Data):
    kind: Literal["pre_effective", "post_effective", "supplement"]
    holders_added: list[Name]
    principal_added: MoneyOrZero


class TrusteeNotified(Data):
    about: Text | None = None


class HoldersAdvised(Data):
    about: Text | None = None


class AdditionalInterestPaid(Data):
    """Additional Interest paid for the Interest Payment Date ``payment_date``: ``amount``
    in cash, or ``shares`` of common stock where the terms pay in shares
    (``payment.paid_in``; with an ``amount`` of cash in lieu of a fraction of a share).
    Which one a deal takes is its terms' rule (``ledger.terms_guards``)."""

    payment_date: Day
    holder: Name
    amount: Money | None = None
    shares: Shares | None = None


class ConversionPriceAdjusted(Data):
    """The conversion price changes from the event's date (the Indenture's anti-dilution
    adjustments): the Applicable Conversion Price from then on."""

    new_price: Price
    reason: Text


class ConversionSharesTransferred(Data):
    """Conversion Shares sold or transferred, ``under`` the shelf, Rule 144 or otherwise."""

    from_holder: Name
    to_holder: Name
    shares: Shares
    under: Literal["shelf", "rule_144", "private"] = "private"


class Rule144kDate(Data):
    """The event's date is the day all the Notes and Conversion Shares may be sold by
    non-affiliates under Rule 144(k) (an Effectiveness Period may end on it; some
    agreements end the restriction on it)."""


class TermsAmended(Data):
    """An amendment or waiver of the agreement under its amendment clause (RRA §10(D)),
    resting on the ``ConsentGiven`` events for ``matter``: ``changes`` to the deal's
    terms (merged as a JSON merge patch: a term given replaces it, an object's terms
    member by member, ``null`` switches off a rule the terms allow to be absent), in force
    from ``effective`` (default: the event's date)."""

    matter: Name
    changes: dict[str, Any]
    effective: Day | None = None

    @model_validator(mode="after")
    def _changes_something(self) -> "TermsAmended":
        from .terms import _json_ready  # terms import events' value types

        if not self.changes:
            raise FieldError("changes", "must change at least one term")
        object.__setattr__(self, "changes", _json_ready(self.changes))
        return self


class ConsentGiven(Data):
    holder: Name
    matter: Name


# ------------------------------------------------------------------- §3.3 letter events


class InstrumentRegistered(Data):
    instrument: Name
    holder: Name
    kind: Literal["warrant", "preferred"]
    shares: Shares | None = None
    exercise_price: Price | None = None
    quantity: Shares | None = None
    stated_value: Price | None = None
    conversion_price: Price | None = None

    @model_validator(mode="after")
    def _fields_of_kind(self) -> "InstrumentRegistered":
        if self.kind == "warrant":
            need, forbid = ("shares", "exercise_price"), ("quantity", "stated_value", "conversion_price")
        else:
            need, forbid = ("quantity", "stated_value", "conversion_price"), ("shares", "exercise_price")
        for name in need:
            if getattr(self, name) is None:
                raise FieldError(name, f"a {self.kind} needs '{name}'")
        for name in forbid:
            if getattr(self, name) is not None:
                raise FieldError(name, f"a {self.kind} has no '{name}'")
        return self


class CapitalizationRecorded(Data):
    common_outstanding: Shares


class CamdenWarrantsIssued(Data):
    holder: Name
    warrants: Shares
    exercise_price: Price
    consideration: MoneyOrZero = Decimal(0)


class CamdenWarrantsVested(Data):
    holder: Name
    warrants: Shares


class CamdenWarrantsCancelled(Data):
    holder: Name
    warrants: Shares


class AdjustmentRecorded(Data):
    instrument: Name  # an instrument id, or "all"
    new_price: Price
    reason: Text


class WarrantsExercised(Data):
    instrument: Name
    fraction: Fraction01
    shares_issued: Shares


class PreferredConverted(Data):
    instrument: Name
    fraction: Fraction01
    shares_issued: Shares


class TrueUpSharesIssued(Data):
    instrument: Name
    shares: Shares


COMMON_TYPES: dict[str, type[Data]] = {
    m.__name__: m
    for m in (DealOpened, CalendarDayDeclared, NoticeSent, NoticeAcknowledged, EventRetracted,
              EventReinstated)
}
REGISTRATION_TYPES: dict[str, type[Data]] = {
    m.__name__: m
    for m in (NotesIssued, NotesTransferred, NotesConverted, NotesRetired, HolderAffiliation,
              QuestionnaireRequested, QuestionnaireDelivered, ShelfFiled, ShelfEffective,
              ShelfUnusable, ShelfUsable, SuspensionStarted, SuspensionExtended,
              SuspensionEnded, AmendmentFiled, TrusteeNotified, HoldersAdvised,
              AdditionalInterestPaid, ConsentGiven, ConversionPriceAdjusted,
              ConversionSharesTransferred, Rule144kDate, TermsAmended)
}
LETTER_TYPES: dict[str, type[Data]] = {
    m.__name__: m
    for m in (InstrumentRegistered, CapitalizationRecorded, CamdenWarrantsIssued,
              CamdenWarrantsVested, CamdenWarrantsCancelled, AdjustmentRecorded,
              WarrantsExercised, PreferredConverted, TrueUpSharesIssued)
}
CATALOG: dict[str, type[Data]] = {**COMMON_TYPES, **REGISTRATION_TYPES, **LETTER_TYPES}


def register_version(model: type[Data], upcaster: Upcaster) -> int:
    """Make ``model`` the current ``data`` schema of the type of the same name, one
    version up, with ``upcaster`` turning a record of the previous version into the new
    shape (see ``ledger.upcasting``). New events of the type are then checked against
    ``model`` and stored with the new version; old records read in the new shape.
    Returns the new version."""
    name = model.__name__
    if name not in CATALOG:
        raise ValueError(f"no event type {name} to give a new version")
    for table in (COMMON_TYPES, REGISTRATION_TYPES, LETTER_TYPES):
        if name in table:
            table[name] = model
    CATALOG[name] = model
    _CONVERTERS[name] = _converters(model)
    return register(name, current_version(name), upcaster)


# ---------------------------------------------------------------------- reading values


def _markers(info: Any) -> list[Any]:
    """A field's metadata, including that of the type inside an optional (``Price | None``
    keeps its marker inside the union, not on the field)."""
    found = list(info.metadata)
    for arg in get_args(info.annotation):
        found.extend(getattr(arg, "__metadata__", ()))
    return found


def _converters(model: type[Data]) -> dict[str, Any]:
    out = {}
    for name, info in model.model_fields.items():
        markers = _markers(info)
        if DECIMAL in markers:
            out[name] = Decimal
        elif DATE in markers:
            out[name] = date.fromisoformat
    return out


# The read side's table (``ledger.stored.CONVERTERS``, written out there so that readers
# need no pydantic); tests/test_stored.py proves it equal to ``_converters`` of each model.
_CONVERTERS = CONVERTERS


# ------------------------------------------------------------------------ new events


@dataclass(frozen=True, slots=True)
class NewEvent:
    """A validated event not yet in the store; ``data`` is normalised JSON."""

    type: str
    deal: str
    date: date
    data: Mapping[str, Any]
    source: str | None = None
    key: str | None = None
    line: int | None = None

    def envelope(self) -> dict[str, Any]:
        """The public JSON form (SPEC §3) without the store's fields."""
        out: dict[str, Any] = {"type": self.type, "deal": self.deal,
                               "date": self.date.isoformat(), "data": dict(self.data)}
        if self.source is not None:
            out["source"] = self.source
        if self.key is not None:
            out["key"] = self.key
        return out


def _field_path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc if not (isinstance(p, str) and p.startswith("function-")))


def _first_error(err: ValidationError) -> tuple[str, str]:
    first = err.errors(include_url=False)[0]
    msg = first["msg"]
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            msg = msg[len(prefix):]
    if first["type"] == "extra_forbidden":
        msg = "unknown field"
    elif first["type"] == "missing":
        msg = "is required"
    path = _field_path(tuple(first["loc"]))
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, FieldError):  # a model validator naming the field it is about
        path = ".".join(p for p in (path, cause.field) if p)
        msg = cause.problem
    return path, msg


#: fields of an older shape still read on input: type -> (old field, to the new shape)
OLD_INPUT_FIELDS = {"NotesTransferred": ("under_shelf", under_shelf_input)}


def validate_data(event_type: str, data: Any, *, line: int | None = None) -> dict[str, Any]:
    """Check ``data`` against its type's model; the normalised JSON form."""
    model = CATALOG[event_type]
    if not isinstance(data, dict):
        raise InvalidEvent("must be a JSON object", line=line, field="data")
    old = OLD_INPUT_FIELDS.get(event_type)
    if old is not None and old[0] in data:
        data = old[1](data, line)
    fast = checker(model)   # the model's own checks without pydantic (ledger.fastdata)
    if fast is not None:
        found = fast(data)
        if found is not None:
            return found
    try:
        parsed = model.model_validate(data)
    except ValidationError as err:
        path, msg = _first_error(err)
        unknown = [e for e in err.errors(include_url=False) if e["type"] == "extra_forbidden"]
        if unknown:  # a mistyped name also makes the right one "missing": name the typo
            path, msg = _field_path(tuple(unknown[0]["loc"])), "unknown field"
        if msg == "unknown field" and path in data:
            from .suggest import did_you_mean

            fields = list(model.model_fields)
            hint = did_you_mean(path, fields) or (
                f"the fields of {event_type}: {', '.join(fields)}" if fields
                else f"{event_type} has no fields")
            msg = f"unknown field; {hint}"
        raise InvalidEvent(msg, line=line, field=f"data.{path}" if path else "data",
                           rule=f"{event_type} schema") from None
    return parsed.model_dump(mode="json", exclude_none=True)


def _is_unicode(obj: Any) -> bool:
    """True if every text in ``obj`` is real Unicode (the fast, common case)."""
    import json

    try:
        json.dumps(obj, ensure_ascii=False, default=str).encode("utf-8")
        return True
    except (UnicodeEncodeError, ValueError, TypeError, RecursionError):
        return False


def _surrogate_at(value: Any, path: str) -> str | None:
    """The path of the first text holding a lone surrogate (JSON ``"\\ud800"``, or an
    undecodable command-line byte): such text is not Unicode and cannot be stored."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path or "(event)"
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            inner = f"{path}.{k}" if path else str(k)
            if _surrogate_at(k, path) is not None:
                return path or "(event)"
            found = _surrogate_at(v, inner)
            if found is not None:
                return found
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found = _surrogate_at(v, f"{path}[{i}]")
            if found is not None:
                return found
    return None


_ENVELOPE_SET = frozenset(ENVELOPE_FIELDS)
_REQUIRED_SET = frozenset(REQUIRED_FIELDS)


def parse_event(obj: Any, *, line: int | None = None,
                unicode_checked: bool = False) -> NewEvent:
    """Validate one event object of the public format (SPEC §3). ``unicode_checked``:
    the caller knows no text in ``obj`` holds a lone surrogate (``ledger.jsonl`` does,
    for a line without a ``\\ud`` escape), so the search for one is skipped."""
    if isinstance(obj, list):
        raise InvalidEvent("a JSON array is not an event: give one JSON object per line",
                           line=line)
    if not isinstance(obj, dict):
        raise InvalidEvent("an event must be a JSON object", line=line)
    if not unicode_checked:
        try:
            bad_text = None if _is_unicode(obj) else _surrogate_at(obj, "")
        except RecursionError:
            raise InvalidEvent("is nested too deeply", line=line, field="data") from None
        if bad_text is not None:
            raise InvalidEvent("is not valid Unicode text (a lone surrogate such as \\ud800)",
                               line=line, field=bad_text.encode("utf-8", "replace").decode())
    keys = obj.keys()
    if not keys <= _ENVELOPE_SET:
        for name in obj:
            if name in STORE_FIELDS:
                raise InvalidEvent("is assigned by the store and cannot be supplied",
                                   line=line, field=name)
            if name not in ENVELOPE_FIELDS:
                hint = ("; an event's idempotency key is its `key` (sent again, a keyed "
                        "event is answered 'already recorded')"
                        if name in ("idempotency_key", "idempotencyKey") else "")
                raise InvalidEvent(f"unknown field{hint}", line=line, field=name)
    if not keys >= _REQUIRED_SET:
        for name in REQUIRED_FIELDS:
            if name not in obj:
                raise InvalidEvent("is required", line=line, field=name)
    event_type = obj["type"]
    if not isinstance(event_type, str) or event_type not in CATALOG:
        from .suggest import did_you_mean

        hint = (did_you_mean(event_type, CATALOG) if isinstance(event_type, str) else None
                ) or "see `deal-ledger types`"
        raise InvalidEvent(f"unknown event type {event_type!r}; {hint}", line=line,
                           field="type")
    deal = obj["deal"]
    if not isinstance(deal, str) or not DEAL_NAME.fullmatch(deal):
        raise InvalidEvent("must be a deal name of letters, digits, '.', '_' or '-'",
                           line=line, field="deal")
    try:
        day = parse_day(obj["date"])
    except ValueError as err:
        raise InvalidEvent(str(err), line=line, field="date") from None
    for name in ("source", "key"):
        value = obj.get(name)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise InvalidEvent("must be non-empty text", line=line, field=name)
        if isinstance(value, str):
            try:
                _text(value)   # at most 500 characters of visible text on one line
            except ValueError as err:
                raise InvalidEvent(str(err), line=line, field=name) from None
    data = validate_data(event_type, obj["data"], line=line)
    return NewEvent(type=event_type, deal=deal, date=day, data=data,
                    source=obj.get("source"), key=obj.get("key"), line=line)
