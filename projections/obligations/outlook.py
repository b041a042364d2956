"""Looking forward from a day (issue 16, the agenda): one deal's obligations, and what is
at risk, as pure values. ``publishing.agenda`` gathers them across the deals of a ledger.

At risk, for a Registration Rights deal:

* a Registration Default that occurs if an obligation still pending is not performed by
  its due day (RRA §3(a): filing, effectiveness, a cure, the end of a suspension);
* the suspension allowance left if a Suspension Period started on the from-day (RRA
  §4(b)(i), §3(a)(iv)): the last day each limit allows, and the first day after it on
  which each window's allowance grows again (``allowance_grows_on``);
* the next Interest Payment Date's Additional Interest per Holder, accrued through
  ``as_of`` (RRA §3(a), §3(b)).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Iterable, Mapping

from ledger.stored import REGISTRATION_RIGHTS, Event
from projections.interpretations import resolve
from projections.timeline import Timeline, build_timeline

from .lifecycle import ONE_DAY, OPEN, Duty

LIMIT_CLAUSES = {"single_period": ("RRA §3(a)(iv)(A)", "its own 45 days (60 if material)"),
                 "window": ("RRA §4(b)(i)", "45 (60) suspended days in any 90"),
                 "aggregate": ("RRA §3(a)(iv)(B)", "90 suspended days in any 360")}


@dataclass(frozen=True)
class Risk:
    day: date
    kind: str               # "default", "suspension_limit", "allowance_grows", "payment"
    clause: str
    text: str
    key: str
    holder: str | None = None
    amount: str | None = None
    days: int | None = None


@dataclass(frozen=True)
class Outlook:
    deal: str
    kind: str
    timeline: Timeline
    readings: Mapping[str, str]
    duties: tuple[Duty, ...]
    risks: tuple[Risk, ...]


def outlook(events: Iterable[Event], *, as_of: date, start: date | None = None,
            known_at: datetime | None = None,
            interpretations: Mapping[str, str] | None = None,
            open_only: bool = False) -> Outlook:
    """The deal's obligations on ``as_of`` and what is at risk from ``start`` (default
    ``as_of``), as known at ``known_at``. ``open_only``: only the obligations still open
    on ``as_of`` (upcoming, due, violated: the agenda's), the others not made; the
    risks are the same."""
    readings = resolve(interpretations)
    timeline = build_timeline(events, as_of, known_at)
    start = start or as_of
    if timeline.kind == REGISTRATION_RIGHTS:
        from projections.registration.engine import compute

        from .registration import registration_duties

        r = compute(timeline, readings)
        duties = registration_duties(r, timeline, open_only=open_only)
        ahead = None
        if r.in_default:   # what the next payment comes to if nothing is cured before it
            nxt = next((p for p in r.payments if p.period.paid_on >= start), None)
            if nxt is not None and nxt.period.end > as_of + ONE_DAY:
                later = build_timeline(events, nxt.period.end - ONE_DAY, known_at)
                ahead = compute(later, readings)
        risks = (_defaults_at_risk(duties) + _suspension_room(r, start)
                 + _next_payment(r, start, ahead))
    else:
        from projections.trueup.replay import replay

        from .identity import correction_roots
        from .letter import event_dates, exercises_of, true_up_duties

        duties = true_up_duties(exercises_of(replay(timeline, readings)),
                                event_dates(timeline.by_id), correction_roots(timeline.by_id))
        if open_only:
            duties = [d for d in duties if d.state in OPEN]
        risks = []
    return Outlook(timeline.deal, timeline.kind, timeline, readings, tuple(duties),
                   tuple(sorted(risks, key=lambda k: (k.day, k.key))))


def _defaults_at_risk(duties: list[Duty]) -> list[Risk]:
    """RRA §3(a): each pending obligation whose violation is a Registration Default."""
    return [Risk(d.due, "default", d.clause,
                 f"{d.triggers} unless done by {d.due}: {d.obligation}", d.key)
            for d in duties if d.triggers and d.state in ("upcoming", "due") and d.due]


def _suspension_room(r: Any, start: date) -> list[Risk]:
    """RRA §4(b)(i), §3(a)(iv): if a Suspension Period (not material) started on
    ``start``, the last day each limit allows; and when each window's allowance grows
    again. Nothing when a period is open or ``start`` is outside the Effectiveness
    Period (a suspension could not start then)."""
    from projections.registration.suspensions import allowance_grows_on

    from .registration import room

    if not r.shelf.in_effectiveness_period(start) or any(
            p.start <= start and (p.end is None or start < p.end) for p in r.suspensions):
        return []
    out = []
    for kind, (last, days) in sorted(room(r.suspensions, start, False, r).items(),
                                     key=lambda kv: kv[1]):
        clause, what = LIMIT_CLAUSES[kind]
        out.append(Risk(last, "suspension_limit", clause,
                        f"a Suspension Period started {start} may run {days} days, to "
                        f"{last}, within {what}", f"suspension-room/{kind}", days=days))
    limits = r.terms.suspension_limits
    for window, clause in ((limits.window_days, "RRA §4(b)(i)"),
                           (limits.long_window_days, "RRA §3(a)(iv)(B)")):
        grows = allowance_grows_on([p for p in r.suspensions if p.start <= start], window,
                                   start)
        if grows is not None:
            out.append(Risk(grows, "allowance_grows", clause,
                            f"the {window}-day suspension allowance grows again on {grows}",
                            f"suspension-allowance/{window}"))
    return out


def _next_payment(r: Any, start: date, ahead: Any = None) -> list[Risk]:
    """RRA §3(a), §3(b): the next Interest Payment Date payable on or after ``start``,
    each Holder's Additional Interest accrued through ``as_of``; and, while a
    Registration Default runs (``ahead``: the engine as of the period's last day, with
    nothing cured meanwhile), what it comes to if none is cured before the period ends."""
    nxt = next((p for p in r.payments if p.period.paid_on >= start), None)
    if nxt is None:
        return []
    full = {}
    if ahead is not None:
        same = next((p for p in ahead.payments
                     if p.period.payment_date == nxt.period.payment_date), None)
        full = {h: a.amount for h, a in (same.amounts.items() if same else ())}
    out = []
    for h in dict.fromkeys([*nxt.amounts, *full]):
        now = nxt.amounts[h].amount if h in nxt.amounts else None
        then = full.get(h)
        if not (now or then):
            continue
        text = (f"Additional Interest for {nxt.period.payment_date} to {h}: {now or 0} "
                f"accrued through {nxt.accrued_through}")
        if then is not None and then != now:
            text += f"; {then} if no default is cured before {nxt.period.end}"
        out.append(Risk(nxt.period.paid_on, "payment", "RRA §3(a), §3(b)", text,
                        f"next-payment/{nxt.period.payment_date}/{h}", holder=h,
                        amount=format(now if now is not None else 0, "f")))
    return out
