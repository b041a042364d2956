"""Building the events operators ask for: a deal's opening, one event from name=value
fields, a retraction. The CLI calls these; they hold the small rules of those forms."""

from __future__ import annotations

from typing import Any, Iterable

from .errors import InvalidEvent, UsageError
from .events import CATALOG, NewEvent, parse_event
from .jsonl import MAX_LINE, loads, read_bounded
from .terms import template as get_template
from .values import _name, _text


def opening_event(deal: str, *, template: str | None = None, terms_file: str | None = None,
                  key: str | None = None) -> NewEvent:
    """``DealOpened`` from a template name or a ``{kind, name, date, terms}`` JSON file."""
    if template:
        try:
            t = get_template(template)
        except KeyError as err:
            raise UsageError(str(err.args[0]), field="--template") from None
        obj = {"type": "DealOpened", "deal": deal, "date": t["date"].isoformat(),
               "data": {"kind": t["kind"], "name": t["name"], "terms": t["terms"]},
               "source": f"template {template}"}
    else:
        raw = read_bounded(terms_file, MAX_LINE, "--terms")   # a terms file is one object
        try:
            spec = loads(raw.decode("utf-8-sig"))
        except (ValueError, UnicodeDecodeError) as err:
            raise InvalidEvent(f"not valid JSON: {err}", field="--terms") from None
        if not isinstance(spec, dict):
            raise InvalidEvent("must be a JSON object {kind, name, date, terms}", field="--terms")
        missing = [k for k in ("kind", "name", "date", "terms") if k not in spec]
        if missing:
            raise InvalidEvent(f"is missing {', '.join(missing)}", field="--terms")
        obj = {"type": "DealOpened", "deal": deal, "date": spec["date"],
               "data": {k: spec[k] for k in ("kind", "name", "terms")},
               "source": f"terms file {terms_file}"}
    if key:
        obj["key"] = key
    return _parse_wrapping_terms(obj)


def _parse_wrapping_terms(obj: dict[str, Any]) -> NewEvent:
    try:
        return parse_event(obj, line=1)
    except InvalidEvent as err:
        raise InvalidEvent(err.message, field=err.field, rule=err.rule) from None


def _is_text_field(event_type: str, name: str) -> bool:
    info = CATALOG[event_type].model_fields.get(name)
    if info is None:
        return False
    return any(getattr(m, "func", None) in (_text, _name) for m in info.metadata)


def event_from_fields(event_type: str, deal: str, day: str, fields: Iterable[str], *,
                      source: str | None = None, key: str | None = None) -> NewEvent:
    """One event from ``name=value`` pairs: JSON values where they parse (numbers,
    true/false, lists), plain text for text fields and everything else."""
    if event_type not in CATALOG:
        from .catalog import unknown_type

        raise InvalidEvent(unknown_type(event_type) or "", field="type")
    data: dict[str, Any] = {}
    for item in fields:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"field {item!r} is not name=value")
        if name in data:
            raise UsageError(f"field {name!r} given twice")
        if _is_text_field(event_type, name):
            data[name] = value
            continue
        try:
            data[name] = loads(value)
        except ValueError:
            data[name] = value
    obj: dict[str, Any] = {"type": event_type, "deal": deal, "date": day, "data": data}
    if source is not None:
        obj["source"] = source
    if key is not None:
        obj["key"] = key
    return parse_event(obj)


def retraction(ledger, event_id: str, reason: str, day: str | None) -> NewEvent:
    """``EventRetracted`` for the event ``event_id`` names (``seq:N`` or 6+ characters of
    its id: ``ledger.references``), in the target's deal, dated ``day`` or the target's
    own date."""
    return retraction_of(target(ledger, event_id), reason, day)


def target(ledger, given: str, *, field: str = "EVENT_ID") -> dict[str, Any]:
    """The stored record an operator's reference names (``seq:N`` or an id prefix of 6
    characters or more)."""
    from .store.logread import find_event

    return find_event(ledger, given, field=field)


def retraction_of(record: dict[str, Any], reason: str, day: str | None) -> NewEvent:
    """``EventRetracted`` of the stored ``record``, dated ``day`` or the record's date."""
    obj = {"type": "EventRetracted", "deal": record["deal"], "date": day or record["date"],
           "data": {"event_id": record["id"], "reason": reason}}
    return parse_event(obj, line=1)


def reinstatement(ledger, retraction_id: str, reason: str, day: str | None
                  ) -> tuple[NewEvent, dict[str, Any], dict[str, Any] | None]:
    """``EventReinstated`` withdrawing the retraction ``retraction_id`` names (issue 31),
    in its deal, dated ``day`` or the retraction's own date; with the retraction's record
    and the record of the event it retracted (what counts again). The rules judge it
    when it is appended (``guards``): naming an event that is not a retraction is
    refused there, with the retraction to name instead."""
    record = target(ledger, retraction_id, field="RETRACTION_ID")
    obj = {"type": "EventReinstated", "deal": record["deal"], "date": day or record["date"],
           "data": {"retraction_id": record["id"], "reason": reason}}
    back = None
    if record.get("type") == "EventRetracted":
        back = target(ledger, str(record["data"].get("event_id")), field="RETRACTION_ID")
    return parse_event(obj, line=1), record, back
