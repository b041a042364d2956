"""Stored events as the projections read them (SPEC §3): ``Event``, typed values.

The read side of ``ledger.events``, without pydantic: a stored record was validated and
normalised when it was appended, so reading it back only turns its JSON values into
typed ones (amounts ``Decimal``, days ``date``) by a table of the fields that hold them,
``CONVERTERS``. That table and the deal kind of each event type are written out here
rather than derived from the catalog's pydantic models, so that ``report`` and the other
readers do not import the validators (issue 17: 0.1 s of a cold report);
``tests/test_stored.py`` proves them equal to what the models say, and
``ledger.events.register_version`` keeps ``CONVERTERS`` up to date for a new version.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping

from .dates import format_timestamp, parse_timestamp  # noqa: F401 (re-exported)
from .upcasting import upcast, versions_in_force

REGISTRATION_RIGHTS = "registration_rights"
ANTIDILUTION_DEFERRAL = "antidilution_deferral"
KINDS = (REGISTRATION_RIGHTS, ANTIDILUTION_DEFERRAL)

# Every event type (SPEC §3): the common ones (§3.1), of any deal, and each kind's own
# (§3.2, §3.3) with the deal kind it belongs to.
COMMON_TYPE_NAMES = ("DealOpened", "CalendarDayDeclared", "NoticeSent", "NoticeAcknowledged",
                     "EventRetracted", "EventReinstated")
TYPE_KINDS: dict[str, str] = {
    **dict.fromkeys(
        ("NotesIssued", "NotesTransferred", "NotesConverted", "NotesRetired",
         "HolderAffiliation", "QuestionnaireRequested", "QuestionnaireDelivered",
         "ShelfFiled", "ShelfEffective", "ShelfUnusable", "ShelfUsable", "SuspensionStarted",
         "SuspensionExtended", "SuspensionEnded", "AmendmentFiled", "TrusteeNotified",
         "HoldersAdvised", "AdditionalInterestPaid", "ConsentGiven"), REGISTRATION_RIGHTS),
    **dict.fromkeys(
        ("InstrumentRegistered", "CapitalizationRecorded", "CamdenWarrantsIssued",
         "CamdenWarrantsVested", "CamdenWarrantsCancelled", "AdjustmentRecorded",
         "WarrantsExercised", "PreferredConverted", "TrueUpSharesIssued"),
        ANTIDILUTION_DEFERRAL),
}


def kind_of_type(event_type: str) -> str | None:
    """The deal kind an event type belongs to; ``None`` for the common events."""
    return TYPE_KINDS.get(event_type)


_day = date.fromisoformat

# The ``data`` fields of each event type that hold an amount (``Decimal``) or a day
# (``date``), as the type's model in ``ledger.events`` marks them (``values.DECIMAL``,
# ``values.DATE``); every other value reads as the JSON it is stored as.
CONVERTERS: dict[str, dict[str, Callable[[str], Any]]] = {
    **{name: {} for name in (*COMMON_TYPE_NAMES, *TYPE_KINDS)},
    "CalendarDayDeclared": {"day": _day},
    "NotesIssued": {"principal": Decimal},
    "NotesTransferred": {"principal": Decimal},
    "NotesConverted": {"principal": Decimal},
    "NotesRetired": {"principal": Decimal},
    "AmendmentFiled": {"principal_added": Decimal},
    "AdditionalInterestPaid": {"payment_date": _day, "amount": Decimal},
    "InstrumentRegistered": {"exercise_price": Decimal, "stated_value": Decimal,
                             "conversion_price": Decimal},
    "CamdenWarrantsIssued": {"exercise_price": Decimal, "consideration": Decimal},
    "AdjustmentRecorded": {"new_price": Decimal},
    "WarrantsExercised": {"fraction": Decimal},
    "PreferredConverted": {"fraction": Decimal},
}


def typed_data(event_type: str, data: Mapping[str, Any]) -> Mapping[str, Any]:
    """The stored (normalised, already validated) JSON ``data`` with typed values."""
    return _typed(event_type, dict(data))


def _typed(event_type: str, data: dict[str, Any]) -> Mapping[str, Any]:
    """``typed_data`` of a dict this module owns (changed in place, then wrapped)."""
    conv = CONVERTERS.get(event_type)
    if conv:
        for name, to_value in conv.items():
            value = data.get(name)
            if value is not None:
                data[name] = to_value(value)
    return MappingProxyType(data)


@dataclass(frozen=True, slots=True)
class Event:
    """An event as stored: the public fields, typed ``data`` and the store's fields."""

    id: str
    seq: int
    type: str
    deal: str
    date: date
    data: Mapping[str, Any]
    source: str | None
    key: str | None
    recorded_at: datetime
    recorded_by: str
    prev_hash: str
    hash: str

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> "Event":
        """A stored record, upcast to the current shape of its type, as typed values."""
        record = upcast(record)
        return cls(
            id=record["id"], seq=record["seq"], type=record["type"], deal=record["deal"],
            date=date.fromisoformat(record["date"]),
            data=typed_data(record["type"], record["data"]),
            source=record.get("source"), key=record.get("key"),
            recorded_at=parse_timestamp(record["recorded_at"]),
            recorded_by=record["recorded_by"], prev_hash=record["prev_hash"],
            hash=record["hash"],
        )


# An ``Event`` is built as a ``_Building`` (the same slots, without the frozen class's
# ``__setattr__``): its fields are set by plain stores, then it takes ``Event`` as its
# class. A frozen dataclass's own ``__init__`` sets each field through
# ``object.__setattr__`` by name, and even each slot's ``__set__`` called directly costs
# a call a field: 0.93 us an event against 0.35 (issue 17; a views run builds a touched
# deal's thousand events again). CPython allows the class assignment because the two
# classes lay their instances out alike (the same slots, no ``__dict__``).
_NEW = object.__new__


class _Building:
    __slots__ = Event.__slots__


def events_of(records: Iterable[dict[str, Any]]) -> list[Event]:
    """``Event.from_record`` of each record, for records just decoded from the store
    and handed over: their ``data`` dicts become the events' (typed in place, not
    copied), so the caller must not keep or change them. Equal, field for field, to
    ``Event.from_record`` (tests/test_stored.py)."""
    versions = versions_in_force()
    day = _day
    typed = _typed
    # the events of one append share their recorded_at: each text parsed once (a datetime
    # is immutable, so the events may share it)
    stamps: dict[str, datetime] = {}
    out: list[Event] = []
    append = out.append
    for record in records:
        event_type = record["type"]
        if record.get("v", 1) != versions.get(event_type, 1):
            record = dict(upcast(record))  # a copy: the stored one is never changed
            record["data"] = dict(record["data"])
        event = _NEW(_Building)
        event.id = record["id"]
        event.seq = record["seq"]
        event.type = event_type
        event.deal = record["deal"]
        event.date = day(record["date"])
        event.data = typed(event_type, record["data"])
        event.source = record.get("source")
        event.key = record.get("key")
        text = record["recorded_at"]
        at = stamps.get(text)
        if at is None:
            at = stamps[text] = parse_timestamp(text)
        event.recorded_at = at
        event.recorded_by = record["recorded_by"]
        event.prev_hash = record["prev_hash"]
        event.hash = record["hash"]
        event.__class__ = Event
        append(event)
    return out


_ROW_FIELDS = ("id", "seq", "type", "deal", "date", "data", "source", "key", "recorded_at",
               "recorded_by", "prev_hash", "hash")


def events_of_rows(shapes: list[tuple[str, ...]], rows: Iterable[list[Any]]) -> list[Event]:
    """``events_of`` of records given as rows ``[shape, value, ...]``: the record whose
    keys are ``shapes[shape]``, in that order, with those values (``ledger.store.dealcache``
    keeps a deal's records so), a ``prev_hash`` or ``deal_prev`` of ``0`` standing for
    the previous row's ``hash``; without building each record's dict. A record of an
    older schema version is built and upcast as ``events_of`` does. The rows' ``data``
    dicts become the events', as there."""
    plans: dict[int, tuple[Any, ...]] = {}
    for number, keys in enumerate(shapes):
        at = {name: i + 1 for i, name in enumerate(keys)}
        where = tuple(at.get(name, 0) for name in _ROW_FIELDS)
        whole = all(where[i] for i, name in enumerate(_ROW_FIELDS)
                    if name not in ("source", "key"))
        plans[number] = (where, at.get("v", 0), keys, whole)
    versions = versions_in_force()
    timestamp = parse_timestamp
    day = _day
    typed = _typed
    out: list[Event] = []
    append = out.append
    before = None
    for row in rows:
        (i_id, i_seq, i_type, i_deal, i_date, i_data, i_source, i_key, i_at, i_by, i_prev,
         i_hash), i_v, keys, whole = plans[row[0]]
        if len(row) != len(keys) + 1:
            raise ValueError(f"a row of {len(row) - 1} values for {len(keys)} keys")
        if not whole or (row[i_v] if i_v else 1) != versions.get(row[i_type], 1):
            record = dict(zip(keys, row[1:]))
            for link in ("prev_hash", "deal_prev"):
                if type(record.get(link)) is int:
                    record[link] = _previous(before)
            append(events_of([record])[0])  # upcast, or a KeyError
            before = record.get("hash")
            continue
        prev_hash = row[i_prev]
        if prev_hash.__class__ is int:
            prev_hash = _previous(before)
        before = row[i_hash]
        event_type = row[i_type]
        event = _NEW(_Building)
        event.id = row[i_id]
        event.seq = row[i_seq]
        event.type = event_type
        event.deal = row[i_deal]
        event.date = day(row[i_date])
        event.data = typed(event_type, row[i_data])
        event.source = row[i_source] if i_source else None
        event.key = row[i_key] if i_key else None
        event.recorded_at = timestamp(row[i_at])
        event.recorded_by = row[i_by]
        event.prev_hash = prev_hash
        event.hash = row[i_hash]
        event.__class__ = Event
        append(event)
    return out


# A record as a fixed-width row (``events_of_fields``).
FIELD_ORDER = ("id", "seq", "type", "deal", "date", "data", "recorded_at", "recorded_by",
               "prev_hash", "hash", "source", "key", "v")


def events_of_fields(rows: Iterable[list[Any]]) -> list[Event]:
    """``events_of`` of records given as rows of their ``FIELD_ORDER`` values (``None``
    for a ``source``, ``key`` or ``v`` the record lacks; ``publishing.dealstate`` keeps
    a deal's events so), without building each record's dict; a day or timestamp text
    parsed once per distinct text (a deal's events share few). A record of an older
    schema version is built and upcast as ``events_of`` does. The rows' ``data`` dicts
    become the events', as there."""
    versions = versions_in_force()
    days: dict[str, date] = {}
    stamps: dict[str, datetime] = {}
    out: list[Event] = []
    append = out.append
    new = _NEW
    later = {t for t, version in versions.items() if version != 1}   # past their first
    converters = CONVERTERS.get
    proxy = MappingProxyType
    for row in rows:
        id_, seq, type_, deal, day, data, at, by, prev, hash_, source, key, v = row
        if (type_ in later) if v is None else v != versions.get(type_, 1):
            record = {"id": id_, "seq": seq, "type": type_, "deal": deal, "date": day,
                      "data": data, "recorded_at": at, "recorded_by": by,
                      "prev_hash": prev, "hash": hash_}
            for name, value in (("source", source), ("key", key), ("v", v)):
                if value is not None:
                    record[name] = value
            append(events_of([record])[0])   # upcast first
            continue
        when = days.get(day)
        if when is None:
            when = days[day] = _day(day)
        stamp = stamps.get(at)
        if stamp is None:
            stamp = stamps[at] = parse_timestamp(at)
        event = new(_Building)
        event.id = id_
        event.seq = seq
        event.type = type_
        event.deal = deal
        event.date = when
        conv = converters(type_)     # ``_typed``, inline
        if conv:
            for name, to_value in conv.items():
                value = data.get(name)
                if value is not None:
                    data[name] = to_value(value)
        event.data = proxy(data)
        event.source = source
        event.key = key
        event.recorded_at = stamp
        event.recorded_by = by
        event.prev_hash = prev
        event.hash = hash_
        event.__class__ = Event
        append(event)
    return out


def _previous(before: str | None) -> str:
    if before is None:  # the first row has no row before it
        raise ValueError("a link to the previous row in the first row")
    return before
