"""The ``registration_rights`` part of the report (SPEC §7), JSON-ready.

``build(timeline, interpretations)`` shapes what ``engine.compute`` found into JSON and
returns the kind-specific keys; the caller adds
``deal, kind, as_of, known_at, interpretations`` around them. Amounts are strings with
two decimals, dates ISO strings (or null), shares ints. Every default, rate segment,
per-Holder payment amount, deadline, notice and consent carries a ``basis``
(``projections.basis.Basis.to_json``: clause, rule, events, interpretations relied on
with their values, arithmetic).

Shape (keys SPEC §7 names, and more)::

    registration: filing_deadline, effectiveness_deadline, filed_on, effective_on,
        effectiveness_period_end, effectiveness_period_basis, in_default,
        defaults: [{clause, kind, default_date, accrual_from, cured_on, accrual_until,
                    stopped_by, episode, events, basis}]
    suspensions: periods: [{start, end, days, material_transaction, extended,
                            last_permitted_day, events}],
        trailing_90, trailing_360, max_90, max_90_window_end, max_360, max_360_window_end,
        limit_90, limit_90_material, limit_360, remaining_90, remaining_90_material,
        remaining_360, grows_90_on, grows_360_on,
        breaches: [{kind, clause, period_start, first_day, last_day, days, limit, window,
                    basis}]
    additional_interest: day_count, accrued_to_as_of, accrued_through, by_holder {holder:
        amount}, paid_to_as_of,
        episodes: [{episode, start, end, defaults: [index into registration.defaults]}],
        rate_segments: [{start, end, last_day, rate, episode, episode_days, defaults, basis}],
        payments: [{payment_date, paid_on, record_date, period_start, period_end,
                    accrued_through, amounts {holder: amount}, total, paid {holder: amount},
                    paid_total, paid_events, status, late, statuses {holder: status},
                    late_holders, basis {holder: basis}}]
    deadlines: [{obligation, clause, due, status, met_on, late_on, holder, events, basis}]
    majority: {matter: {consenting, total, share, majority, holders, excluded, not_holders,
               basis}}
    notices: [{event, to, subject, method, sent_on, deemed_given, basis}]
    problems: [text]

Conventions: ``accrued_to_as_of`` and ``by_holder`` count the days up to and including
``as_of`` (``accrued_through``), summed over the payment entries, each Holder's amount per
payment date rounded once. ``paid_on`` is the Business Day the payment falls on (the
Interest Payment Date rolled forward); payments actually received are ``paid`` (from
AdditionalInterestPaid). ``in_default`` is true when a listed default accrues on
``as_of``. ``share`` is a ratio with six decimals. Deadline ``status``: met, missed
(``late_on`` when done late), open, or excused (RRA §2(b) provisos). Payment ``status``:
accruing, due, paid, underpaid, overpaid, nothing_owed for the whole date, and in
``statuses`` for each Holder on its own amount and payments; ``late`` when a Holder is
short after ``paid_on`` (``late_holders`` names them). A Holder not entitled
(Questionnaire, RRA §3(a)) shows ``"0.00"`` with the reason in its basis.
"""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Callable, Collection, Mapping

from projections.basis import Basis
from projections.worked import Step, Worked
from projections.timeline import Timeline

from .clock import ONE_DAY
from .engine import Registration, compute
from .interest import HolderAmount, amount_arithmetic, amount_basis
from .money import fixed, money
from .notices import notices_json
from .payments import Payment
from .rates import RateSegment
from .suspensions import allowance_grows_on, most_in_any_window, trailing

SHARE = Decimal("0.000001")


def iso(day: date | None) -> str | None:
    return day.isoformat() if day is not None else None


def build(timeline: Timeline, interpretations: Mapping[str, str], *, bases: bool = True,
          sections: Collection[str] | None = None) -> dict:
    """The registration_rights part of the SPEC §7 report (keys: registration, suspensions,
    additional_interest, deadlines, majority, notices, problems, obligations), JSON-ready:
    amounts are strings with two decimals, dates ISO strings, shares ints. ``sections``
    (default: all) names the keys to make; the others are left out, not made."""
    r = compute(timeline, interpretations)
    parts: dict[str, Callable[[], Any]] = {
        "registration": lambda: registration_json(r),
        "suspensions": lambda: suspensions_json(r),
        "additional_interest": lambda: interest_json(r, bases),
        "deadlines": lambda: [
            {"obligation": o.obligation, "clause": o.clause, "due": iso(o.due),
             "status": o.status, "met_on": iso(o.met_on), "late_on": iso(o.late_on),
             "holder": o.holder, "events": list(o.events),
             "basis": o.basis.to_json(r.readings)} for o in r.obligations],
        "majority": lambda: {
            m: {"consenting": money(c.consenting), "total": money(c.total),
                "share": str(c.share.quantize(SHARE, ROUND_HALF_UP)),
                "majority": c.majority, "holders": list(c.holders),
                "excluded": list(c.excluded), "not_holders": list(c.not_holders),
                "basis": c.basis.to_json(r.readings)}
            for m, c in r.consents.items()},
        "notices": lambda: notices_json(r.notice_events, r.terms, r.calendar),
        "problems": lambda: list(r.problems),
        "obligations": lambda: _obligations(r, timeline),
    }
    return {key: make() for key, make in parts.items() if sections is None or key in sections}


def _obligations(r: Registration, timeline: Timeline) -> list[dict]:
    """Issue 16: every obligation with its lifecycle (``projections.obligations``)."""
    from projections.obligations import duties_json
    from projections.obligations.registration import registration_duties

    return duties_json(registration_duties(r, timeline), r.readings)


def registration_json(r: Registration) -> dict[str, Any]:
    shelf = r.shelf
    episode_of = {i: ep.number for ep in r.episodes for i in ep.defaults}
    return {
        "filing_deadline": iso(shelf.filing_deadline),
        "effectiveness_deadline": iso(shelf.effectiveness_deadline),
        "filed_on": iso(shelf.filed_on), "effective_on": iso(shelf.effective_on),
        "effectiveness_period_end": iso(shelf.period_end),
        "effectiveness_period_basis": (shelf.period_end_basis.to_json(r.readings)
                                       if shelf.period_end_basis else None),
        "in_default": r.in_default,
        "defaults": [{"clause": d.clause, "kind": d.kind, "default_date": iso(d.default_date),
                      "accrual_from": iso(d.accrual_from), "cured_on": iso(d.cured_on),
                      "accrual_until": iso(d.accrual_until), "stopped_by": d.stopped_by,
                      "episode": episode_of.get(i), "events": list(d.events),
                      "basis": d.basis().to_json(r.readings)}
                     for i, d in enumerate(r.defaults)],
    }


def suspensions_json(r: Registration) -> dict[str, Any]:
    """SPEC §4.3: periods, trailing windows on as_of, the most in any window, allowances
    left and when they grow again (assuming no suspended day after as_of), breaches."""
    limits, periods, as_of = r.terms.suspension_limits, r.suspensions, r.as_of
    short, long = limits.window_days, limits.long_window_days
    max_short, max_short_end = most_in_any_window(periods, short, as_of)
    max_long, max_long_end = most_in_any_window(periods, long, as_of)
    t_short, t_long = trailing(periods, as_of, short, as_of), trailing(periods, as_of, long, as_of)
    return {
        "periods": [{"start": iso(p.start), "end": iso(p.end), "days": p.days(as_of),
                     "material_transaction": p.material_transaction, "extended": p.extended,
                     "last_permitted_day": iso(p.last_permitted_day(limits)),
                     "events": list(p.events)} for p in periods],
        "trailing_90": t_short, "trailing_360": t_long,
        "max_90": max_short, "max_90_window_end": iso(max_short_end),
        "max_360": max_long, "max_360_window_end": iso(max_long_end),
        "limit_90": limits.window_limit, "limit_90_material": limits.window_limit_material,
        "limit_360": limits.long_window_limit,
        "remaining_90": max(0, limits.window_limit - t_short),
        "remaining_90_material": max(0, limits.window_limit_material - t_short),
        "remaining_360": max(0, limits.long_window_limit - t_long),
        "grows_90_on": iso(allowance_grows_on(periods, short, as_of)),
        "grows_360_on": iso(allowance_grows_on(periods, long, as_of)),
        "breaches": [{"kind": b.kind, "clause": b.clause, "period_start": iso(b.period.start),
                      "first_day": iso(b.first_day), "last_day": iso(b.until - ONE_DAY),
                      "days": b.days, "limit": b.limit, "window": b.window,
                      "basis": Basis(b.clause, b.rule, b.events,
                                     ("window_breach", "window_material_allowance")
                                     if b.kind == "window" else (),
                                     Worked(f"{b.days} suspended days from {b.first_day} to "
                                            f"{b.until - ONE_DAY} beyond the limit of "
                                            f"{b.limit}", (Step("days", (b.first_day, b.until),
                                                                b.days, "days beyond"),))
                                     ).to_json(r.readings)}
                     for b in r.breaches],
    }


def interest_json(r: Registration, bases: bool = True) -> dict[str, Any]:
    """SPEC §4.4: totals to as_of, episodes, rate segments and payments (each Holder's
    amount explained unless ``bases`` is false)."""
    by_holder: dict[str, Decimal] = {}
    behind = Behind(r)
    zero = Decimal(0)
    for pay in r.payments:
        for h, a in pay.amounts.items():
            by_holder[h] = by_holder.get(h, zero) + a.amount
    return {
        "day_count": r.terms.day_count,
        "accrued_to_as_of": money(sum(by_holder.values(), Decimal(0))),
        "accrued_through": iso(r.cutoff - ONE_DAY),
        "by_holder": {h: money(v) for h, v in sorted(by_holder.items())},
        "paid_to_as_of": money(sum((v for p in r.payments for v in p.paid.values()),
                                   Decimal(0))),
        "episodes": [{"episode": ep.number, "start": iso(ep.start), "end": iso(ep.end),
                      "defaults": list(ep.defaults)} for ep in r.episodes],
        "rate_segments": [segment_json(r, s) for s in r.segments],
        "payments": [payment_json(r, p, behind, bases) for p in r.payments],
    }


class Behind:
    """What the accrual in a window ``[lo, hi)`` rests on: the events of the Registration
    Defaults whose rate segments fall in it, and the interpretations those defaults and
    segments relied on; cached by window (a thousand Holders share a few windows)."""

    def __init__(self, r: Registration):
        self.r = r
        self.cache: dict[tuple[date, date], tuple[tuple[str, ...], tuple[str, ...]]] = {}
        self.texts: dict[tuple, str] = {}
        self.shapes: dict[tuple, tuple[dict[str, Any], tuple[str, ...], bool]] = {}
        self.windows: dict[tuple, tuple[tuple[str, ...], tuple[str, ...]]] = {}

    def window(self, lo: date, hi: date) -> tuple[tuple[str, ...], tuple[str, ...]]:
        found = self.cache.get((lo, hi))
        if found is None:
            events: dict[str, None] = {}
            interps: dict[str, None] = {}
            for s in self.r.segments:
                if s.start < hi and lo < s.end:
                    interps.update(dict.fromkeys(s.interpretations))
                    for k in s.defaults:
                        events.update(dict.fromkeys(self.r.defaults[k].events))
                        interps.update(dict.fromkeys(self.r.defaults[k].interpretations))
            found = self.cache[(lo, hi)] = (tuple(events), tuple(interps))
        return found

    def arithmetic(self, a: HolderAmount) -> str:
        """The written-out sum, once per distinct (sub-periods, principal, forfeits): a
        thousand Holders with the same position share one."""
        # the text ends on the exact amount, which conversion_forfeits=all_unpaid makes
        # differ between Holders of one position: it is part of the key
        key = (a.steps, a.forfeited, a.unheld, a.num, a.den, a.before_num, a.before_den)
        found = self.texts.get(key)
        if found is None:
            found = self.texts[key] = amount_arithmetic(a, self.r.accrual)
        return found

    def amount_json(self, a: HolderAmount) -> dict[str, Any]:
        """``amount_basis(...).to_json(readings)`` for one Holder's amount, sharing what
        Holders with the same position share (a 1,000-Holder deal has 1,000 per date)."""
        # the key is all of ``a`` the shape is made of but the events (``behind`` is a
        # function of the windows, ``a.steps + a.forfeited``, so it rides in the value)
        key = (a.steps, a.forfeited, a.unheld, a.num, a.den, a.before_num, a.before_den,
               a.amount, a.ended, a.entitlement, a.readings)
        found = self.shapes.get(key)
        if found is None:  # all but the events is the same for the same position
            behind = self.of(a.steps + a.forfeited)
            shape = amount_basis(a, self.r.accrual, behind,
                                 self.arithmetic(a)).to_json(self.r.readings)
            found = self.shapes[key] = (shape, behind[0], "interpretations" in shape)
        shape, ids, interps = found
        # ``{**shape, "events": ..., "interpretations": a copy}``, and ``amount_events``
        # as a list, without a tuple made on the way
        out = shape.copy()
        out["events"] = list(dict.fromkeys(ids + a.events + a.entitlement.events))
        if interps:
            out["interpretations"] = dict(shape["interpretations"])
        return out

    def of(self, windows) -> tuple[tuple[str, ...], tuple[str, ...]]:
        found = self.windows.get(windows)
        if found is None:
            parts = [self.window(lo, hi) for (lo, hi), _ in windows]
            found = self.windows[windows] = parts[0] if len(parts) == 1 else (
                tuple(dict.fromkeys(i for e, _ in parts for i in e)),
                tuple(dict.fromkeys(n for _, ns in parts for n in ns)))
        return found


def segment_interpretations(r: Registration, s: RateSegment) -> tuple[str, ...]:
    """The segment's own readings and those of the defaults behind it."""
    return tuple(dict.fromkeys(s.interpretations + tuple(
        n for k in s.defaults for n in r.defaults[k].interpretations)))


def segment_json(r: Registration, s: RateSegment) -> dict[str, Any]:
    """One rate segment with the days of its rate clock it covers and its basis."""
    first = (s.start - s.clock_start).days + 1
    last = (s.end - s.clock_start).days
    ids = tuple(dict.fromkeys(i for k in s.defaults for i in r.defaults[k].events))
    rate = format(s.rate, "f")
    return {"start": iso(s.start), "end": iso(s.end), "last_day": iso(s.end - ONE_DAY),
            "rate": rate, "episode": s.episode, "episode_days": [first, last],
            "defaults": list(s.defaults),
            "basis": Basis(s.clause, s.rule, ids, segment_interpretations(r, s),
                           Worked(f"days {first}-{last} of the rate clock from "
                                  f"{s.clock_start}: {rate}% per annum", (
                                      Step("sum", (Step("days", (s.clock_start, s.start),
                                                        first - 1), 1), first,
                                           "first day of the rate clock"),
                                      Step("days", (s.clock_start, s.end), last,
                                           "last day of the rate clock")))
                           ).to_json(r.readings)}


def payment_json(r: Registration, pay: Payment, behind: Behind | None = None,
                 bases: bool = True) -> dict[str, Any]:
    """One Interest Payment Date; ``basis`` is ``{holder: basis}``, each naming the events
    and interpretations of the Registration Defaults behind the Holder's accrual."""
    period = pay.period
    behind = behind or Behind(r)
    return {   # the days of a period are never None
        "payment_date": period.payment_date.isoformat(), "paid_on": period.paid_on.isoformat(),
        "record_date": period.record_date.isoformat(),
        "period_start": period.start.isoformat(), "period_end": period.end.isoformat(),
        "accrued_through": pay.accrued_through.isoformat(),
        "amounts": {h: fixed(a.amount) for h, a in pay.amounts.items()},
        "total": money(pay.total),
        "paid": {h: money(v) for h, v in sorted(pay.paid.items())},
        "paid_total": money(sum(pay.paid.values(), Decimal(0))),
        "paid_events": list(pay.paid_events), "status": pay.status, "late": pay.late,
        "statuses": dict(pay.statuses),
        "late_holders": [h for h, st in pay.statuses.items()
                         if st in ("due", "underpaid")] if pay.late else [],
        "basis": ({h: behind.amount_json(a) for h, a in pay.amounts.items()} if bases
                  else {}),
    }
