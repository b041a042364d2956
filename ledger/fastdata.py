"""A fast path for checking an event's ``data`` (issue 17: append throughput).

The pydantic models of ``ledger.events`` stay the schema of record. For a model made only
of plain fields (each a value type of ``ledger.values`` with its own validator function,
a ``Literal`` of texts, or either of them optional), ``compile_model`` builds a checker
that runs the very same validator functions in a plain loop, without pydantic's
machinery around them, and returns what ``model.model_validate(data).model_dump(
mode="json", exclude_none=True)`` returns: the fields in the model's order, defaults
filled in, ``None`` left out, values serialised by the fields' own serializers.

It only ever *accepts*: on anything it is not sure of (an unknown or missing field, a
value its validator refuses, a value of a type it does not expect) it answers ``None``
and the caller asks the model itself, so every refusal, and its one-line error naming
line, field and rule, is still pydantic's. ``tests/test_fastdata.py`` checks it against
the models on generated valid and invalid objects.

A model with a model or field validator, a serializer of its own, aliases, or a field of
another shape (a list, a dict, a nested model) gets no checker: the model judges it.
"""

from __future__ import annotations

import types
from decimal import Decimal
from datetime import date
from typing import Any, Callable, Literal, Union, get_args, get_origin

from pydantic import PlainSerializer, PlainValidator

Checker = Callable[[dict], "dict[str, Any] | None"]

_MISSING = object()
# what a field's value may be once validated and serialised: JSON scalars only (a
# value type of another kind would leave its JSON form to pydantic's inference)
_PLAIN = (str, bool, int)


def _field_spec(info: Any) -> tuple[Callable[[Any], Any], Callable[[Any], Any] | None, bool] | None:
    """``(validate, serialize, nullable)`` of one field, or ``None`` if not plain."""
    annotation, metadata = info.annotation, list(info.metadata)
    nullable = False
    origin = get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        args = get_args(annotation)
        rest = [a for a in args if a is not type(None)]
        if len(args) != 2 or len(rest) != 1:
            return None
        nullable = True
        inner = rest[0]
        metadata += list(getattr(inner, "__metadata__", ()))
        annotation = get_args(inner)[0] if hasattr(inner, "__metadata__") else inner
    if get_origin(annotation) is Literal:
        allowed = frozenset(get_args(annotation))
        if metadata or not all(type(a) is str for a in allowed):
            return None

        def literal(value: Any) -> Any:
            if type(value) is not str or value not in allowed:
                raise ValueError("not one of the literal values")
            return value

        return literal, None, nullable
    validators = [m for m in metadata if isinstance(m, PlainValidator)]
    serializers = [m for m in metadata if isinstance(m, PlainSerializer)]
    if len(validators) != 1 or len(serializers) > 1:
        return None
    if serializers and serializers[0].when_used != "always":
        return None
    if annotation not in (str, bool, int, Decimal, date):
        return None
    func = validators[0].func
    code = getattr(func, "__code__", None)
    if code is None or code.co_argcount != 1:   # pydantic would pass an info argument
        return None
    return func, (serializers[0].func if serializers else None), nullable


def compile_model(model: Any) -> Checker | None:
    """The fast checker of ``model``'s data, or ``None`` if the model is not plain."""
    decorators = model.__pydantic_decorators__
    if (decorators.model_validators or decorators.field_validators or decorators.validators
            or decorators.field_serializers or decorators.model_serializers
            or decorators.root_validators):
        return None
    config = model.model_config
    if config.get("extra") != "forbid" or config.get("alias_generator"):
        return None
    specs = []
    for name, info in model.model_fields.items():
        if (info.alias not in (None, name) or info.validation_alias is not None
                or info.serialization_alias not in (None, name)
                or info.default_factory is not None or info.exclude
                or info.validate_default):
            return None
        spec = _field_spec(info)
        if spec is None:
            return None
        default = _MISSING if info.is_required() else info.default
        specs.append((name, default, *spec))
    names = frozenset(name for name, *_rest in specs)
    fields = tuple(specs)

    def check(data: dict) -> dict[str, Any] | None:
        if type(data) is not dict or not data.keys() <= names:
            return None
        out: dict[str, Any] = {}
        for name, default, validate, serialize, nullable in fields:
            value = data.get(name, _MISSING)
            if value is _MISSING:
                if default is _MISSING:
                    return None
                value = default          # pydantic does not validate a default
            elif value is None and nullable:
                continue
            else:
                try:
                    value = validate(value)
                except Exception:
                    return None           # the model names the field and the rule
            if value is None:
                continue
            if serialize is not None:
                value = serialize(value)
            kind = type(value)
            if kind not in _PLAIN and not (kind is list and all(type(v) is str for v in value)):
                return None
            out[name] = value
        return out

    return check


_CHECKERS: dict[Any, Checker | None] = {}


def checker(model: Any) -> Checker | None:
    """``compile_model(model)``, once per model (a new version of an event type is a new
    model, so it gets its own)."""
    try:
        return _CHECKERS[model]
    except KeyError:
        found = _CHECKERS[model] = compile_model(model)
        return found
