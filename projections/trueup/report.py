"""The ``antidilution_deferral`` part of the report (SPEC §7): ``{"true_up": {...}}``.

Keys SPEC §7 names, spelled as it spells them: ``holders {holder: {owed, issued,
outstanding}}``, ``instruments [{instrument, holder, kind, price, shares,
exercised_fraction, deferred_price_if_all_vest}]``, ``exercises [{event, instrument, date,
eligible, shares_issued, entitled, owed}]``; more are added beside them (``vestings``,
``adjustments``, ``discrepancies``, ``camden``, ``problems``...). Prices are strings,
shares ints, dates ISO.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..timeline import Timeline
from . import camden, deferred, instruments, trueup
from .arithmetic import decimal_text
from .replay import History, replay


def _money(value) -> str | None:
    return None if value is None else format(value, "f")


def _tally(rows: list[dict[str, int]]) -> dict[str, int]:
    keys = ("owed", "issued", "outstanding", "over_issued")
    return {k: sum(r[k] for r in rows) for k in keys}


def _exercise(acc: trueup.Account, h: History) -> dict[str, Any]:
    ex, cutoff = acc.exercise, h.terms.true_up_cutoff
    return {
        "event": ex.event, "instrument": ex.instrument, "date": ex.date.isoformat(),
        "eligible": ex.eligible, "shares_issued": ex.shares_issued,
        "entitled": acc.entitled, "owed": acc.earned,
        "issued": acc.issued, "outstanding": acc.outstanding, "over_issued": acc.over_issued,
        "holder": ex.holder, "kind": ex.kind, "type": ex.type,
        "fraction": format(ex.fraction, "f"), "price_at_exercise": _money(ex.price),
        "implied_at_exercise": ex.implied,
        "vestings": [{"event": s.vesting, "date": s.date.isoformat(), "price": _money(s.price),
                      "x": s.x, "y": s.y, "owed": s.owed, "earned": s.earned,
                      "increment": s.earned - before, "events": list(s.vestings),
                      "price_inputs": _price_inputs(s)}
                     for s, before in zip(acc.steps, (0, *(p.earned for p in acc.steps)))],
        "driven_by": _driven_by(acc),
        "true_up_shares": [{"event": e, "shares": n} for e, n in acc.issues],
        "unknown": [{"vesting": v, "date": d.isoformat()} for d, v in acc.unknown],
        "basis": trueup.exercise_basis(acc, cutoff, h.interpretations,
                                       h.terms.preferred_dividends).to_json(h.interpretations),
    }


def _price_inputs(step: trueup.Step) -> dict[str, Any] | None:
    """A, B, C, P and P' of the day's adjustment behind the price ``x`` uses (SPEC §5.2)."""
    if step.adjustment is None:
        return None
    return {k: (v if isinstance(v, int) else format(v, "f") if hasattr(v, "as_tuple")
                else str(v))
            for k, v in step.adjustment.inputs.items() if k in ("A", "B", "C", "P", "P'")}


def _driven_by(acc: trueup.Account) -> dict[str, Any] | None:
    """The vesting whose ``x`` sets what the exercise has earned (the largest ``x``), with
    the A, B, C, P and P' of its adjustment: the headline of a true-up figure."""
    if not acc.steps:
        return None
    best = max(acc.steps, key=lambda s: s.x)
    return {"vesting": best.vesting, "date": best.date.isoformat(), "events": list(best.vestings),
            "x": best.x, "price": _money(best.price), **(_price_inputs(best) or {})}


def _totals(h: History) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]]]:
    """owed/issued/outstanding/over_issued per instrument and per holder."""
    per_instrument: dict[str, list[dict[str, int]]] = {n: [] for n in h.positions}
    for acc in h.accounts:
        per_instrument[acc.exercise.instrument].append(
            {"owed": acc.earned, "issued": acc.issued, "outstanding": acc.outstanding,
             "over_issued": acc.over_issued})
    for issue in h.trueup_issues:  # shares credited to no exercise
        if issue.unallocated:
            per_instrument[issue.instrument].append(
                {"owed": 0, "issued": issue.unallocated, "outstanding": 0,
                 "over_issued": issue.unallocated})
    by_instrument = {n: _tally(rows) for n, rows in per_instrument.items()}
    holders: dict[str, list[dict[str, int]]] = {}
    for name, position in h.positions.items():
        holders.setdefault(position.holder, []).append(by_instrument[name])
    return by_instrument, {k: _tally(v) for k, v in sorted(holders.items())}


def _instrument(position: instruments.Instrument, totals: dict[str, int],
                what_if: deferred.Deferred | None, h: History) -> dict[str, Any]:
    changes = [c for c in h.price_changes if c.instrument == position.instrument]
    return {
        "instrument": position.instrument, "holder": position.holder, "kind": position.kind,
        "price": _money(position.price), "shares": instruments.shares_held(position),
        "exercised_fraction": decimal_text(position.exercised_fraction),
        "deferred_price_if_all_vest": _money(what_if.price) if what_if else None,
        "deferred_shares_if_all_vest": what_if.shares if what_if else None,
        "deferred_basis": what_if.basis.to_json(h.interpretations) if what_if else None,
        "registered": position.event, "registered_on": position.registered_on.isoformat(),
        "clause": position.clause,
        **totals,
        "price_history": [{"event": c.event, "cause": c.cause, "date": c.date.isoformat(),
                           "before": _money(c.before), "after": _money(c.after)}
                          for c in changes],
    }


def _discrepancies(h: History) -> list[dict[str, Any]]:
    out = []
    for acc in h.accounts:
        ex = acc.exercise
        short = trueup.shortfall(ex)
        if short:
            out.append({"kind": "shares_issued_below_price", "event": ex.event,
                        "instrument": ex.instrument, "date": ex.date.isoformat(),
                        "price": _money(ex.price), "implied": ex.implied,
                        "shares_issued": ex.shares_issued, "short": short,
                        **_shortfall(acc, short),
                        "note": "shares issued at the exercise were below what the price "
                                "then in force implied; a later true-up's x - y includes "
                                "the difference (Letter ¶3 y = shares previously issued)"})
    for issue in h.trueup_issues:
        if issue.beyond_outstanding:
            out.append({"kind": "true_up_over_issued", "event": issue.event,
                        "instrument": issue.instrument, "date": issue.date.isoformat(),
                        "shares": issue.shares, "beyond_outstanding": issue.beyond_outstanding,
                        "unallocated": issue.unallocated})
    return out


def _shortfall(acc: trueup.Account, short: int) -> dict[str, Any]:
    """A shortfall at the exercise, reported, not silently applied: the letter owes shares
    only as a true-up at a later vesting (Letter ¶3: x - y, y = the shares "previously
    issued"), so without one the shortfall is not owed under the letter (it would be a
    claim under the Warrant Agreement or the Certificate, outside this ledger); with one,
    x - y includes it, and ``in_true_up`` says how much of what was earned it is."""
    ex = acc.exercise
    later = bool(acc.steps)
    return {
        "eligible": ex.eligible,
        "later_vesting": acc.steps[0].vesting if later else None,
        "owed_without_vesting": False,
        "owed_under_letter": min(short, acc.earned) if later else 0,
        "in_true_up": later and acc.earned > 0,
        "status": ("counted in the true-up of a later vesting (Letter ¶3 y = shares "
                   "previously issued)" if later and acc.earned > 0 else
                   "not owed under the letter: no Camden vesting after the exercise"
                   + ("" if ex.eligible else ", and the exercise is not before the cutoff")
                   + "; a claim, if any, under the Warrant Agreement or the Certificate")}


def _vestings(h: History) -> list[dict[str, Any]]:
    return [{"event": v.event, "date": v.date.isoformat(), "holder": v.holder,
             "warrants": v.warrants, "vested": sum(t.warrants for t in v.tranches),
             "tranches": [{"issuance": t.issuance.event, "warrants": t.warrants,
                           "exercise_price": _money(t.issuance.exercise_price)}
                          for t in v.tranches],
             "changes": [{"instrument": c.instrument, "before": _money(c.before),
                          "after": _money(c.after),
                          "held": h.positions[c.instrument].held} for c in v.changes],
             "adjusted_with": v.adjusted_with or v.event}
            for v in h.vestings]


def _notes(h: History) -> list[str]:
    if h.interpretations.get("trueup_dividends", "frozen") == "to_vesting_date":
        return [trueup.dividends_reading("preferred", h.interpretations,
                                         h.terms.preferred_dividends)]
    return []


def build(timeline: Timeline, interpretations: Mapping[str, str]) -> dict:
    """The antidilution_deferral part of the SPEC §7 report: {"true_up": {holders,
    instruments, exercises}}, JSON-ready."""
    h = replay(timeline, interpretations)
    by_instrument, holders = _totals(h)
    what_if = deferred.if_all_vest(h)
    cap = h.capitalization
    part = {"true_up": {
        "holders": holders,
        "instruments": [_instrument(p, by_instrument[n], what_if.get(n), h)
                        for n, p in h.positions.items()],
        "exercises": [_exercise(acc, h) for acc in h.accounts],
        "vestings": _vestings(h),
        "adjustments": [{"event": c.event, "cause": c.cause, "date": c.date.isoformat(),
                         "instrument": c.instrument, "before": _money(c.before),
                         "after": _money(c.after), "basis": c.basis.to_json(interpretations),
                         "vestings": list(c.vestings)}
                        for c in h.price_changes],
        "discrepancies": _discrepancies(h),
        "camden": camden.by_holder(h.book, dict(h.vested_counts), dict(h.cancelled_counts)),
        "capitalization": None if cap is None else {
            "common_outstanding": cap.common_outstanding, "event": cap.event,
            "date": cap.date.isoformat(),
            "vested_since": sum(n for _, n in cap.deemed)},
        "formula": h.terms.formula,
        "true_up_cutoff": h.terms.true_up_cutoff.isoformat(),
        "price_decimals": h.terms.price_decimals,
        "notes": _notes(h),
        "problems": list(h.problems),
        "camden_not_deferred": list(h.not_deferred),
    }}
    return {**part, "obligations": _obligations(part["true_up"], interpretations, timeline)}


def _obligations(true_up: dict, interpretations: Mapping[str, str],
                 timeline: Timeline) -> list[dict]:
    """Issue 16: the true-ups with their lifecycle (``projections.obligations.letter``)."""
    from projections.obligations import duties_json
    from projections.obligations.identity import correction_roots
    from projections.obligations.letter import event_dates, true_up_duties

    return duties_json(true_up_duties(true_up, event_dates(timeline.by_id),
                                      correction_roots(timeline.by_id)), interpretations)
