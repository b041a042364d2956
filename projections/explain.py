"""Why a figure is what it is: a report figure explained down to clauses and events.

``explain(report, figure, events)`` is a pure function of a SPEC §7 report (as
``projections.report.report`` returns it, every ``basis`` included) and the deal's
events. It returns the explanation as data: a tree whose nodes carry the rule, the clause
with a plain statement of it in our own words, the interpretations in force, the input
events (id, type, date, source, when recorded and by whom), the arithmetic, and a re-check
of that arithmetic from the steps the rules recorded (``projections.worked``). The CLI
prints it as a tree; ``--json`` prints this same data.

This module only dispatches: a figure is named by a path (``projections.figures``), and
each kind of figure has its explainer beside its engine (``projections.registration.
explain``, ``projections.trueup.explain``), building nodes with
``projections.explanation``; clauses are stated by ``projections.clauses``.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any, Iterable, Mapping

from .explanation import Context, generic
from .figures import FigureError, Located, figure_paths, locate, strip_basis
from .registration.explain import EXPLAINERS as REGISTRATION
from .trueup.explain import EXPLAINERS as TRUE_UP

__all__ = ["explain", "FigureError", "figure_paths", "EXPLAINERS", "RESULT_FIELDS"]

#: (pattern prefix, exact?, explainer), most specific first.
EXPLAINERS: tuple[tuple[tuple[str, ...], bool, Any], ...] = REGISTRATION + TRUE_UP


def _explainer(pattern: tuple[str, ...]):
    for prefix, exact, fn in EXPLAINERS:
        if pattern == prefix or (not exact and pattern[:len(prefix)] == prefix):
            return fn
    return generic


def _prune(node: dict, depth: int | None) -> dict:
    if depth is None:
        return node
    if depth <= 0:
        return {**node, "parts": [], "parts_omitted": len(node["parts"])} if node["parts"] else node
    return {**node, "parts": [_prune(p, depth - 1) for p in node["parts"]]}


#: Figures an explanation computes (the others are its inputs, dates or labels).
RESULT_FIELDS = frozenset({
    "total", "paid_total", "accrued_to_as_of", "paid_to_as_of", "owed", "issued",
    "outstanding", "over_issued", "entitled", "earned", "increment", "x", "y", "price",
    "shares", "after", "deferred_price_if_all_vest", "deferred_shares_if_all_vest",
    "consenting", "share", "trailing_90", "trailing_360", "remaining_90",
    "remaining_90_material", "remaining_360", "unvested"})


def _is_result(loc: Located) -> bool:
    """Whether the figure is one an explanation's arithmetic ends on (``reproduces_figure``)."""
    if not loc.trail or not isinstance(loc.trail[-1][1], str):
        return False
    if loc.pattern[-1] == "*" and len(loc.pattern) > 1 and loc.pattern[-2] in (
            "amounts", "by_holder", "paid"):
        return True
    key = loc.trail[-1][1]
    if key == "price" and "exercises" in loc.pattern:
        return False  # the price at a vesting is an input of x
    return key in RESULT_FIELDS and not ("price_history" in loc.pattern and key != "after")


def _results(node: dict) -> list[str]:
    """The results the node's re-checked steps end on, and its parts' (a price is the
    result of the adjustment that set it)."""
    return [ch["result"] for n in (node, *node["parts"]) for ch in n["checks"] if ch["ok"]]


def _decimal(text: Any) -> Decimal | None:
    try:
        return Decimal(str(text))
    except InvalidOperation:
        return None


def explain(report: Mapping[str, Any], figure: str, events: Iterable[Any] | Mapping[str, Any],
            *, depth: int | None = None) -> dict[str, Any]:
    """How ``figure`` (a path, ``projections.figures``) of ``report`` was computed, as data.

    ``events`` are the deal's stored events (or a mapping of id to event) so that each
    input can show its type, date, source and recording. ``depth`` limits how many levels
    of parts are kept. ``FigureError`` if the path does not name a figure of the report.

    ``arithmetic_checks_ok``: every step re-done from the data holds;
    ``arithmetic_operations_rechecked``: how many operations were re-done;
    ``arithmetic_unchecked``: arithmetic texts that carry no data to re-check;
    ``reproduces_figure``: whether a re-checked result is the figure (``None`` where the
    figure is not a computed one)."""
    by_id = events if isinstance(events, Mapping) else {e.id: e for e in events}
    loc = locate(report, figure)
    tree = _explainer(loc.pattern)(Context(report, by_id, loc))
    checks = list(_all_checks(tree))
    value = strip_basis(loc.value)
    reproduces = None
    if _is_result(loc) and isinstance(value, (str, int)) and not isinstance(value, bool):
        results = {r for r in map(_decimal, _results(tree)) if r is not None}
        wanted = _decimal(value)
        if results and wanted is not None:
            reproduces = wanted in results
    return {"deal": report.get("deal"), "as_of": report.get("as_of"),
            "known_at": report.get("known_at"), "figure": loc.path, "value": value,
            "arithmetic_checks_ok": all(ch["ok"] for ch in checks),
            "arithmetic_operations_rechecked": sum(ch.get("operations", 1) for ch in checks),
            "reproduces_figure": reproduces,
            "arithmetic_unchecked": list(_all_unchecked(tree)),
            "explanation": _prune(tree, depth)}


def _all_checks(node: dict) -> Iterable[dict]:
    yield from node["checks"]
    for p in node["parts"]:
        yield from _all_checks(p)


def _all_unchecked(node: dict) -> Iterable[str]:
    """Arithmetic of the tree that carries no data to re-check."""
    yield from node.get("unchecked", ())
    for p in node["parts"]:
        yield from _all_unchecked(p)
