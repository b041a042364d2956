"""Explanations as data: where a computed figure came from.

Every default, rate segment, payment amount, deadline, price and true-up carries a
``Basis``: the clause it implements, the rule in plain words, the interpretations it
relied on, the event ids behind it and the arithmetic that produced it. The arithmetic is
a ``projections.worked.Worked`` where the rule recorded its steps: the display text (what
the report JSON holds, unchanged) carrying each operation with its exact operands,
rounding rule and result in memory, which ``explain`` re-computes; the letter's prices
and shares also give their ``computation`` as data in the JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Callable, Mapping


_NEW_DICT: Any = object()   # ``inputs`` not given: a new empty dict


@dataclass(frozen=True, init=False)
class Basis:
    clause: str
    rule: str
    events: tuple[str, ...] = ()
    interpretations: tuple[str, ...] = ()
    arithmetic: str | None = None
    inputs: Mapping[str, Any] = field(default_factory=dict)
    parts: tuple["Basis", ...] = ()
    #: the arithmetic as data, where a figure is computed: exact inputs (as text a
    #: ``Fraction`` reads back), the operation, the rounding rule and the result, so an
    #: explanation re-computes it instead of re-reading the display text
    computation: Mapping[str, Any] | None = None

    def __init__(self, clause: str, rule: str, events: tuple[str, ...] = (),
                 interpretations: tuple[str, ...] = (), arithmetic: str | None = None,
                 inputs: Mapping[str, Any] = _NEW_DICT, parts: tuple["Basis", ...] = (),
                 computation: Mapping[str, Any] | None = None) -> None:
        """The fields, set as the generated ``__init__`` of a frozen dataclass would, but
        in one ``__dict__`` update instead of an ``object.__setattr__`` per field (a
        third of the cost; a report makes hundreds to thousands of these)."""
        self.__dict__.update(
            clause=clause, rule=rule, events=events, interpretations=interpretations,
            arithmetic=arithmetic, inputs={} if inputs is _NEW_DICT else inputs,
            parts=parts, computation=computation)

    def to_json(self, in_force: Mapping[str, str] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"clause": self.clause, "rule": self.rule,
                               "events": list(self.events)}
        if self.interpretations:
            out["interpretations"] = {
                n: (in_force or {}).get(n) for n in self.interpretations}
        if self.arithmetic:
            out["arithmetic"] = self.arithmetic
        if self.inputs:
            out["inputs"] = {k: (str(v) if not isinstance(v, (int, bool, list, dict))
                                 else v) for k, v in self.inputs.items()}
        if self.computation:
            out["computation"] = dict(self.computation)
        if self.parts:
            out["parts"] = [p.to_json(in_force) for p in self.parts]
        return out


class LazyBasis(Basis):
    """A ``Basis`` worked out when first read: ``LazyBasis(lambda: Basis(...))``.

    A rule whose figure is needed by every caller but whose explanation is read by few
    (the agenda reads a true-up's shares, never the arithmetic of its price) computes the
    figure and leaves the explanation to this: the text, inputs and computation are built
    on first access of any field, once, and are exactly what the ``Basis`` built eagerly
    would hold. It compares, prints and pickles as that ``Basis``."""

    def __init__(self, build: Callable[[], Basis]) -> None:  # noqa: D107 (no super: lazy)
        object.__setattr__(self, "_build", build)
        object.__setattr__(self, "_made", None)

    def forced(self) -> Basis:
        """The ``Basis`` itself (built now if it was not yet)."""
        made = self._made
        if made is None:
            made = self._build()
            if isinstance(made, LazyBasis):
                made = made.forced()
            object.__setattr__(self, "_made", made)
            object.__setattr__(self, "_build", None)
        return made

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyBasis):
            other = other.forced()
        return self.forced() == other

    __hash__ = None  # type: ignore[assignment]   # as a Basis with inputs: unhashable

    def __repr__(self) -> str:
        return repr(self.forced())

    def __reduce__(self) -> tuple[Any, ...]:
        return (_same, (self.forced(),))


def _same(basis: Basis) -> Basis:
    return basis


def _read(name: str) -> property:
    return property(lambda self: getattr(self.forced(), name),
                    doc=f"``Basis.{name}``, worked out on first read")


for _field in fields(Basis):
    setattr(LazyBasis, _field.name, _read(_field.name))
del _field
