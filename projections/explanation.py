"""The explanation tree: the node every explainer builds, and how a node re-checks itself.

A node carries the title, the clause (each reference with its plain statement,
``projections.clauses``), the rule, the interpretations in force, the input events (id,
type, date, source, when recorded and by whom), the arithmetic text and its re-check.

The re-check reads data, never text: the ``Step``s an arithmetic text carries
(``projections.worked.Worked``: built by the rule that computed the figure, or by an
explainer from the report's figures for a sum or a difference of them) and the letter's
``computation`` (``projections.trueup.explain.recompute``). An arithmetic text that
carries neither is listed under ``unchecked``: an explanation never claims a check it did
not make.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any, Callable, Iterable, Mapping, Sequence

from .clauses import clause_statements
from .figures import Located, _as_text, locate
from .interpretations import REGISTRY
from .worked import Step, Worked, recheck, steps_of

#: how a ``computation`` (data the letter engine emits) is re-computed; set by
#: ``projections.trueup.explain`` (kept here as a hook so this module needs no engine)
RECOMPUTE: dict[str, Callable[[Mapping[str, Any]], list[dict[str, Any]]]] = {}


def event_info(event: Any) -> dict[str, Any]:
    """An input event as an explanation shows it."""
    return {"id": event.id, "type": event.type, "date": event.date.isoformat(),
            "seq": event.seq, "recorded_at": _iso_time(event.recorded_at),
            "recorded_by": event.recorded_by, "source": event.source,
            "data": plain(dict(event.data))}


def _iso_time(moment: Any) -> str:
    from ledger.dates import format_timestamp

    return format_timestamp(moment)


def plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, date):
        return value.isoformat()
    return value


def checks_of(arithmetic: Any, computation: Mapping[str, Any] | None
              ) -> tuple[list[dict[str, Any]], list[str]]:
    """``(checks, unchecked)`` of one node: every step its arithmetic carries and its
    computation, recomputed; the arithmetic text itself when it carries no data."""
    steps = steps_of(arithmetic)
    checks = recheck(steps or ())
    if computation:
        redo = RECOMPUTE.get(computation.get("operation"))
        checks += redo(computation) if redo else []
    unchecked = []
    redone = bool(computation) and computation.get("operation") in RECOMPUTE
    if arithmetic and steps is None and not redone:
        unchecked.append(str(arithmetic))
    return checks, unchecked


_UNSET: Any = object()


class Context:
    """What an explainer works from: the report, the deal's events by id, the figure."""

    def __init__(self, report: Mapping[str, Any], events: Mapping[str, Any], loc: Located,
                 deal: tuple[Any, Any] = (_UNSET, _UNSET)):
        self.report, self.events, self.loc = report, events, loc
        self.in_force = report.get("interpretations") or {}
        self._terms, self._state = deal

    @property
    def terms(self) -> Any:
        """The registration rights deal's terms (of the ``DealOpened`` the report used),
        ``None`` for a letter deal: the deal's own clauses."""
        if self._terms is _UNSET:
            self._terms = None
            if self.report.get("kind") == "registration_rights":
                from ledger.dealterms import registration_terms

                found = deal_opened(self)
                if found:
                    self._terms = registration_terms(self.events[found[0]].data["terms"])
        return self._terms

    def statements(self, clause: str | None, topic: str | None = None) -> list[dict[str, str]]:
        """Each clause ``clause`` cites, stated: by our own table for the agreements the
        package ships, by the deal's terms for any other (``clauses.deal.statements``)."""
        if self._state is _UNSET:
            from .clauses.deal import statements

            self._state = statements(self.terms) if self.terms is not None else None
        return (self._state or clause_statements)(clause, topic)

    def node(self, title: str, *, clause: str | None = None, rule: str | None = None,
             events: Iterable[str] = (), interpretations: Mapping[str, Any] | Iterable[str] = (),
             arithmetic: str | None = None, inputs: Mapping[str, Any] | None = None,
             parts: Sequence[dict] = (), topic: str | None = None,
             computation: Mapping[str, Any] | None = None) -> dict[str, Any]:
        if not isinstance(interpretations, Mapping):
            interpretations = {n: self.in_force.get(n) for n in interpretations}
        ids = list(dict.fromkeys(events))
        checks, unchecked = checks_of(arithmetic, computation)
        return {
            "title": title, "clause": clause,
            "clauses": self.statements(clause, topic),
            "rule": rule,
            "interpretations": [self.reading(n, v) for n, v in interpretations.items()],
            "events": [event_info(self.events[i]) if i in self.events
                       else {"id": i, "missing": True} for i in ids],
            "arithmetic": arithmetic,
            "checks": checks,
            "unchecked": unchecked,
            "inputs": dict(inputs or {}), "parts": list(parts),
            **({"computation": dict(computation)} if computation else {}),
        }

    def reading(self, name: str, value: Any) -> dict[str, Any]:
        value = value if value is not None else self.in_force.get(name)
        i = REGISTRY.get(name)
        return {"name": name, "value": value, "clause": i.clause if i else None,
                "default": i.default if i else None,
                "reading": i.readings.get(value) if i and value else None}

    def from_basis(self, basis: Mapping[str, Any], title: str, topic: str | None = None,
                   parts: Sequence[dict] = ()) -> dict[str, Any]:
        own = [self.from_basis(p, f"part {k + 1}", topic)
               for k, p in enumerate(basis.get("parts") or [])]
        return self.node(title, clause=basis.get("clause"), rule=basis.get("rule"),
                         events=basis.get("events") or [],
                         interpretations=basis.get("interpretations") or {},
                         arithmetic=basis.get("arithmetic"), inputs=basis.get("inputs"),
                         parts=[*own, *parts], topic=topic,
                         computation=basis.get("computation"))

    def of_type(self, ids: Iterable[str], *types: str) -> list[str]:
        return [i for i in ids if i in self.events and self.events[i].type in types]

    def at(self, path: str) -> "Context":
        """The context of another figure of the same report."""
        return Context(self.report, self.events, locate(self.report, path),
                       (self._terms, self._state))


def extend(node: dict[str, Any], text: str, steps: Sequence[Step] = ()) -> None:
    """Add ``text`` (and the steps that re-check it) to a node's arithmetic; re-check."""
    before = node["arithmetic"]
    mine = steps_of(before)
    if before and mine is None:   # plain text stays unchecked, the new steps are checked
        node["arithmetic"] = Worked(f"{before}{text}", steps)
        node["checks"], _ = checks_of(Worked("", steps), node.get("computation"))
        return
    node["arithmetic"] = Worked(f"{before or ''}{text}", (*(mine or ()), *steps))
    node["checks"], node["unchecked"] = checks_of(node["arithmetic"], node.get("computation"))


def added(values: Sequence[Any], total: Any) -> Worked:
    """``a + b + ... = total`` as text and as a step (report figures, exactly)."""
    step = Step("sum", tuple(str(v) for v in values), str(total), "total")
    if not values:
        return Worked(f"nothing to add up = {total}", (step,))
    return Worked(f"{' + '.join(str(v) for v in values)} = {total}", (step,))


def words(text: str) -> Worked:
    """Arithmetic text that states no computation (a reason, dates read from events)."""
    return Worked(text, ())


def deal_opened(c: Context) -> list[str]:
    """The id of the ``DealOpened`` whose terms the report used: the latest one recorded
    by the report's known_at (a deal opened again after its first ``DealOpened`` was
    retracted has a later one, and only ever one in force)."""
    from ledger.dates import format_timestamp

    known_at = c.report.get("known_at")
    opened = [e for e in c.events.values() if e.type == "DealOpened"
              and (known_at is None or format_timestamp(e.recorded_at) <= known_at)]
    return [max(opened, key=lambda e: e.seq).id] if opened else []


def generic(c: Context) -> dict:
    """The nearest basis above the figure; else the events of the nearest entry; else
    the figure is an input of the computation (deal, as_of, known_at, interpretations)."""
    trail = c.loc.trail
    for depth in range(len(trail), -1, -1):
        node = c.loc.at(depth)
        basis = node.get("basis") if isinstance(node, dict) else None
        if isinstance(basis, dict) and "rule" in basis:
            return c.from_basis(node["basis"], f"{c.loc.path} = {_as_text(c.loc.value)}")
        if isinstance(node, dict) and isinstance(node.get("clause"), str) and "rule" in node:
            return c.from_basis(node, f"{c.loc.path} = {_as_text(c.loc.value)}")
    if c.loc.pattern[:1] == ("interpretations",) and len(trail) == 2:
        name = trail[1][1]
        return c.node(f"interpretation {name} = {c.loc.value}", interpretations={name: c.loc.value},
                      clause=REGISTRY[name].clause if name in REGISTRY else None,
                      rule="a named interpretation in force for this computation "
                           "(deal-ledger interpretations)")
    for depth in range(len(trail), 0, -1):
        node = c.loc.at(depth)
        if isinstance(node, dict) and (node.get("events") or node.get("event")):
            ids = node.get("events") or [node["event"]]
            return c.node(f"{c.loc.path} = {_as_text(c.loc.value)}", events=ids,
                          rule="reported from these events")
    if len(trail) == 1 and trail[0][1] in ("deal", "kind", "as_of", "known_at"):
        return c.node(f"{trail[0][1]} = {_as_text(c.loc.value)}",
                      rule="an input of the computation: the deal, the day the figures are "
                           "judged on (as_of) and the recorded time they are known at (known_at)")
    return c.node(f"{c.loc.path} = {_as_text(c.loc.value)}",
                  rule="reported by the engine; it records no further basis for this figure")
