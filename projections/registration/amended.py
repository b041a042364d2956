"""Amendments and waivers of the agreement (RRA §10(D)): the deal under terms that change
from a date (``TermsAmended``).

An amendment gives new terms from its effective date; figures of the days before it
never move. The engine is run once per version of the terms in force (the deal's own,
then each amendment's, over the whole history), and each version's findings are kept
for its own days:

* Registration Defaults and rate segments: the accrual days of each version's, from its
  effective date to the next one's (a default running across an amendment keeps its
  clock, as the version computing it saw it);
* obligations: each is the version's in force on its due day;
* the shelf's deadlines: each is the first version's whose deadline fell before the next
  version took effect (the last version's otherwise);
* the rest (Holders, Questionnaires, the Effectiveness Period, Suspension Periods and
  their limits, payments from the merged accrual, consents, notices): the version in
  force on ``as_of``.

What an amendment may change is what these rules splice: the write side refuses one that
changes how or on what Additional Interest is paid, the Notes' own terms or the readings
(``ledger.terms_guards.FIXED``).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any, Callable, Mapping, Sequence

from ledger.registration_terms import amended
from ledger.stored import Event

from .defaults import RegistrationDefault
from .rates import RateSegment

#: the event types read here
AMENDMENT_TYPES = ("TermsAmended",)


def versions(terms: Mapping[str, Any], events: Sequence[Event], as_of: date
             ) -> list[tuple[date, date, Mapping[str, Any], str | None]]:
    """The terms in force over time as known on ``as_of``: ``(from, until, terms JSON,
    the TermsAmended id)``, ``until`` exclusive (``date.max`` for the last); an
    amendment whose effective date is after ``as_of`` is not in force yet."""
    found = [v for v in amended(terms, events) if v[0] <= as_of]
    starts = [f for f, _, _ in found]
    return [(f, until, t, i) for (f, t, i), until in zip(found, [*starts[1:], date.max])]


def _clip(d: RegistrationDefault, lo: date, hi: date, clause: str
          ) -> RegistrationDefault | None:
    start = max(d.accrual_from, lo)
    end = hi if d.accrual_until is None else min(d.accrual_until, hi)
    if start >= end:
        return None
    until = None if d.accrual_until is None and hi == date.max else end
    if start == d.accrual_from and until == d.accrual_until:
        return d
    stopped = d.stopped_by if until == d.accrual_until else "amended"
    arithmetic = d.arithmetic.then(
        f"; under the terms in force from {lo if start != d.accrual_from else 'the start'} "
        f"to {hi if until != d.accrual_until else 'the cure'} (amended, {clause}): "
        f"accrues {start} to {until or 'the cure'} (exclusive)")
    return replace(d, accrual_from=start, accrual_until=until, stopped_by=stopped,
                   clock_from=d.clock_start if start != d.accrual_from else d.clock_from,
                   arithmetic=arithmetic)


def splice(runs: Sequence[tuple[date, date, Any]], rebuild: Callable[..., Any]) -> Any:
    """One engine result from one per version (``(from, until, result)``, in order):
    defaults, segments and obligations each from the version in force on its days,
    the rest from the last (``rebuild(last, defaults, segments, by_rule)`` makes the
    result around them: the merged accrual and the payments)."""
    defaults: list[RegistrationDefault] = []
    segments: list[RateSegment] = []
    clause = runs[-1][2].terms.amendments.section
    for lo, hi, r in runs:
        index: dict[int, int] = {}
        for k, d in enumerate(r.defaults):
            clipped = _clip(d, lo, hi, clause)
            if clipped is not None:
                index[k] = len(defaults)
                defaults.append(clipped)
        for s in r.segments:
            a, b = max(s.start, lo), min(s.end, hi)
            active = tuple(index[k] for k in s.defaults if k in index)
            if a < b and active:
                segments.append(replace(s, start=a, end=b, defaults=active))
    by_rule: dict[str, tuple[Any, ...]] = {}
    last = runs[-1][2]
    for name in last.by_rule:
        kept = []
        for lo, hi, r in runs:
            kept += [o for o in r.by_rule.get(name, ()) if o.due is None and r is last
                     or o.due is not None and lo <= o.due < hi]
        by_rule[name] = tuple(kept)
    return rebuild(last, defaults, segments, by_rule, _deadlines(runs))


def _deadlines(runs: Sequence[tuple[date, date, Any]]) -> tuple[Any, Any]:
    """The shelf's filing and effectiveness deadlines: each from the first version whose
    deadline fell before the next version took effect."""
    out = []
    for name in ("filing", "effectiveness"):
        found = None
        for lo, hi, r in runs:
            due = getattr(r.shelf, f"{name}_deadline")
            if due is not None and due < hi:
                found = (due, getattr(r.shelf, f"{name}_arithmetic"))
                break
        out.append(found)
    return tuple(out)
