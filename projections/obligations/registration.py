"""The Registration Rights Agreement's obligations with their lifecycle (issue 16), each
rule beside its clause, read from what the engine computed (``registration.engine``):
the deadlines (``registration.deadlines``, ``registration.amendments``), the shelf and
its unusable spans (``registration.shelf``), the Suspension Periods and their breaches
(``registration.suspensions``), the Registration Defaults (``registration.defaults``)
and the payments (``registration.payments``). Nothing here re-derives a rule: a due date
is the engine's, a state is read off the engine's findings on ``as_of``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, timedelta
from decimal import Decimal
from typing import Callable, Iterable, Sequence

from projections.registration import deadlines
from projections.registration.defaults import (RegistrationDefault, permitted_suspension,
                                               unusable_defaults)
from projections.registration.engine import Registration
from projections.registration.suspensions import SuspensionPeriod, breaches
from projections.timeline import Timeline

from .identity import correction_roots, trigger_keys
from .lifecycle import ONE_DAY, OPEN, Duty, deadline_state, pending

COMPANY, HOLDER = "Company", "Holder"
DEFAULT_KINDS = ("(iii)", "(iv)(A)", "(iv)(B)")


def _triggered(defaults: Iterable[RegistrationDefault]) -> tuple[str, ...]:
    """What a violation set off: each Registration Default and its accrual (RRA §3(a))."""
    return tuple(f"Registration Default {d.kind} ({d.clause}): Additional Interest from "
                 f"{d.accrual_from}" + (f" to {d.accrual_until}" if d.accrual_until else "")
                 for d in defaults)


def _from_deadline(o: deadlines.Obligation, key: str, kind: str, t: Timeline, as_of: date, *,
                   party: str = COMPANY, triggered: tuple[str, ...] = (),
                   triggers: str | None = None, open_only: bool = False) -> Duty | None:
    """An engine deadline (met / missed / open / excused) as a lifecycle: met = fulfilled
    by the event that did it (the last of its events); done late = cured; not done =
    upcoming, due or violated by ``as_of``; excused as the engine found (RRA §2(b)
    provisos). ``None`` with ``open_only`` when it is not open (``OPEN``)."""
    assert o.due is not None
    done_on = o.met_on or o.late_on
    state, since, violated = deadline_state(o.due, done_on, as_of)
    if open_only and (state not in OPEN or o.status == "excused"):
        return None
    by_event = o.events[-1] if done_on is not None else None
    done = t.by_id.get(by_event) if by_event is not None else None
    by = f"{done.type} on {done.date}" if done is not None else None
    if o.status == "excused":
        state, since, violated, by_event = "excused", None, None, None
        by = (o.basis.arithmetic or "").partition("not obligated: ")[2] or o.basis.rule
    return Duty(key, kind, o.obligation, o.clause, party, o.due, state, since, by, by_event,
                violated, triggered if state in ("violated", "cured") else (), triggers,
                done_on if state == "cured" else None, o.holder,
                interpretations=o.basis.interpretations, events=o.events,
                explanation=f"{o.basis.rule}: {o.basis.arithmetic}"
                if o.basis.arithmetic else o.basis.rule)


def shelf_filing(r: Registration, t: Timeline, open_only: bool = False) -> list[Duty]:
    """RRA §2(a)(i) file the Shelf Registration Statement by the Shelf Filing Deadline;
    §2(a)(ii) have it declared effective by the Effectiveness Target Date. A violation is
    Registration Default (i) / (ii) (RRA §3(a)), cured by the filing / effectiveness."""
    filing, effective = r.by_rule["shelf"]   # deadlines.shelf_deadlines
    out = []
    for o, key, kind in ((filing, "file-shelf", "(i)"), (effective, "shelf-effective", "(ii)")):
        out.append(_from_deadline(
            o, key, key, t, r.as_of, triggered=_triggered(d for d in r.defaults if d.kind == kind),
            triggers=f"Registration Default {kind} (RRA §3(a){kind})", open_only=open_only))
    return [d for d in out if d is not None]


def keep_effective(r: Registration) -> list[Duty]:
    """RRA §2(a)(iii): keep the Shelf Registration Statement continuously effective and
    usable for the Effectiveness Period. In force (``due``) from effectiveness; violated
    while a default (iii) or (iv) accrues; cured when the last one was cured;
    ``discharged`` at the end of the Effectiveness Period ((x) second anniversary, (y) all
    sold, (z) none outstanding: the engine's ``period_end``)."""
    shelf, as_of = r.shelf, r.as_of
    if shelf.effective is None or shelf.period_end is None:
        return []
    inside = [d for d in r.defaults if d.kind in DEFAULT_KINDS and d.accrual_from < shelf.period_end]
    running = [d for d in inside if d.accrual_from <= as_of
               and (d.accrual_until is None or as_of < d.accrual_until)]
    basis = shelf.period_end_basis
    ids = (shelf.effective.id,) + tuple(dict.fromkeys(i for d in inside for i in d.events))
    common = dict(key="keep-effective", kind="keep-effective",
                  obligation="keep the Shelf Registration Statement effective and usable for "
                             "the Effectiveness Period", clause="RRA §2(a)(iii)",
                  party=COMPANY, due=shelf.period_end, events=ids,
                  interpretations=("default_after_effectiveness_period",),
                  triggered=_triggered(inside),
                  explanation=basis.arithmetic if basis and basis.arithmetic else "")
    if as_of >= shelf.period_end:
        return [Duty(state="discharged", since=shelf.period_end,
                     by="the end of the Effectiveness Period" +
                     (f" ({basis.arithmetic})" if basis and basis.arithmetic else ""),
                     violated_since=inside[0].accrual_from if inside else None, **common)]
    if running:
        return [Duty(state="violated", since=running[0].accrual_from,
                     violated_since=running[0].accrual_from, **common)]
    if inside:
        last = max(inside, key=lambda d: d.accrual_until or date.max)
        return [Duty(state="cured", since=last.accrual_until, cured_on=last.accrual_until,
                     violated_since=inside[0].accrual_from, **common)]
    return [Duty(state="due", since=shelf.effective_on, **common)]


def cure_unusable(r: Registration, t: Timeline, open_only: bool = False,
                  root: Callable[[str], str] | None = None) -> list[Duty]:
    """RRA §3(a)(iii): a shelf that ceases to be effective or usable during the
    Effectiveness Period must be cured within five Business Days, "except as provided in
    Section 4(b)(i)" (days inside a permitted Suspension Period: ``excused``). The due day
    is the engine's last compliant day of default (iii); a cure by then fulfils it (the
    ShelfUsable), a later cure cures the default; outside the Effectiveness Period no
    default arises (``discharged``)."""
    if not r.shelf.unusable:
        return []
    permitted = permitted_suspension(r.suspensions, r.breaches, r.as_of)
    found, _ = unusable_defaults(r.shelf, r.terms, t.calendar, r.readings, r.as_of, permitted)
    out = []
    root = root or correction_roots(t.by_id)
    keys = trigger_keys("cure-unusable", (("", root(s.events[0])) for s in r.shelf.unusable))
    for key, span in zip(keys, r.shelf.unusable):
        mine = [d for d in found if d.events == span.events]
        listed = [d for d in r.defaults if d.kind == "(iii)" and d.events == span.events]
        what = f"cure the shelf unusable from {span.start} ({span.reason}) within " \
               f"{r.terms.cure_business_days} Business Days"
        cure_event = span.events[-1] if span.end is not None else None
        common = dict(key=key, kind="cure-unusable", obligation=what, clause="RRA §3(a)(iii)",
                      party=COMPANY, events=span.events,
                      interpretations=("default_date", "default_after_effectiveness_period"),
                      triggers="Registration Default (iii) (RRA §3(a)(iii))")
        if not mine:
            inside = r.shelf.in_effectiveness_period(span.start)
            out.append(Duty(due=None, state="excused" if inside else "discharged",
                            since=span.start,
                            by=("inside a permitted Suspension Period (RRA §4(b)(i))" if inside
                                else "outside the Effectiveness Period (RRA §3(a)(iii))"),
                            explanation=f"unusable from {span.start}: no Registration "
                                        f"Default (iii) can arise", **common))
            continue
        d = mine[0]
        due = d.last_compliant_day
        explanation = d.arithmetic
        if span.end is not None and span.end <= due + ONE_DAY:
            out.append(Duty(due=due, state="fulfilled", since=span.end, by_event=cure_event,
                            by=f"ShelfUsable on {span.end}", explanation=explanation, **common))
        elif listed:
            stopped = listed[-1]
            if stopped.stopped_by == "effectiveness_period_end":
                state, since, by = "discharged", stopped.accrual_until, \
                    "the end of the Effectiveness Period"
            elif span.end is not None and span.end <= r.as_of:
                state, since, by = "cured", span.end, f"ShelfUsable on {span.end}"
            else:
                state, since, by = "violated", listed[0].accrual_from, None
            out.append(Duty(due=due, state=state, since=since, by=by,
                            by_event=cure_event if state == "cured" else None,
                            violated_since=listed[0].accrual_from, triggered=_triggered(listed),
                            cured_on=span.end if state == "cured" else None,
                            explanation=explanation, **common))
        else:
            state, since = pending(due, r.as_of)
            out.append(Duty(due=due, state=state, since=since, explanation=explanation,
                            **common))
    return out


def room(periods: Sequence[SuspensionPeriod], start: date, material: bool,
         r: Registration) -> dict[str, tuple[date, int]]:
    """RRA §4(b)(i), §3(a)(iv): if a Suspension Period started on ``start`` and ran on,
    the last day each limit allows (and how many days from ``start`` that is): its own
    45 (60) days (``single_period``), 45 (60) in any 90 days (``window``), 90 in any 360
    (``aggregate``). Read from the engine's ``breaches`` for the hypothetical period, as
    of a day by which every limit is passed."""
    limits = r.terms.suspension_limits
    horizon = start + timedelta(days=max(limits.single_material, limits.long_window_limit) + 1)
    hypothetical = SuspensionPeriod(start, None, material, False, ())
    found = breaches([*[p for p in periods if p.start < start], hypothetical], limits, horizon,
                     r.readings["window_material_allowance"], of=hypothetical)
    out: dict[str, tuple[date, int]] = {}
    for b in found:
        if b.period is hypothetical and b.kind not in out:
            last = b.first_day - ONE_DAY
            out[b.kind] = (last, (last - start).days + 1)
    return out


def end_suspensions(r: Registration, t: Timeline, open_only: bool = False,
                    root: Callable[[str], str] | None = None) -> list[Duty]:
    """RRA §4(b)(i), §3(a)(iv): each Suspension Period must end within the Company's right
    to suspend: by its 45th (60th with a material transaction) day, and within 45 (60) in
    any 90 days and 90 in any 360. Due: the last day every limit allows (for a period
    still open, as if it ran on); ended by then = fulfilled by the SuspensionEnded; later =
    cured, with the Registration Defaults it triggered. With ``open_only``, only the
    periods still open: one that has ended is fulfilled or cured, whatever its due day."""
    limits = r.terms.suspension_limits
    out = []
    root = root or correction_roots(t.by_id)
    keys = trigger_keys("end-suspension", (("", root(p.events[0])) for p in r.suspensions))
    for key, p in zip(keys, r.suspensions):
        if open_only and (p.end is not None or r.shelf.period_end is not None
                          and r.shelf.period_end <= r.as_of):
            continue
        allowed = room(r.suspensions, p.start, p.material_transaction, r)
        due = min(d for d, _ in allowed.values()) if allowed else p.last_permitted_day(limits)
        mine = [d for d in r.defaults if d.kind in DEFAULT_KINDS
                and set(d.events) & set(p.events) and d.accrual_from > p.start]
        common = dict(key=key, kind="end-suspension",
                      obligation=f"end the Suspension Period begun {p.start} within the right "
                                 f"to suspend", clause="RRA §4(b)(i), §3(a)(iv)",
                      party=COMPANY, due=due, events=p.events,
                      interpretations=("window_breach", "window_material_allowance",
                                       "default_date"),
                      triggers="Registration Default (iv)(A) (RRA §3(a)(iv))",
                      explanation=f"Suspension Period from {p.start}; last day within every "
                                  f"limit {due}")
        if p.end is not None:
            state, since, violated = deadline_state(due, p.end - ONE_DAY, r.as_of)
            since = p.end
            out.append(Duty(state=state, since=since, by=f"SuspensionEnded on {p.end}",
                            by_event=p.events[-1], violated_since=violated,
                            triggered=_triggered(mine) if state == "cured" else (),
                            cured_on=p.end if state == "cured" else None, **common))
        elif r.shelf.period_end is not None and r.shelf.period_end <= r.as_of:
            out.append(Duty(state="discharged", since=r.shelf.period_end,
                            by="the end of the Effectiveness Period", **common))
        else:
            state, since = pending(due, r.as_of)
            out.append(Duty(state=state, since=since, violated_since=since
                            if state == "violated" else None,
                            triggered=_triggered(mine) if state == "violated" else (), **common))
    return out


def _trigger(ids: Sequence[str], t: Timeline) -> str:
    """What triggers a Registration Default's notice, of its events: the latest
    Suspension Period begun (the one a (iv) or window breach is of; its events list the
    others counted in the window), else the first (the ShelfUnusable of a (iii), the
    DealOpened of an (i) or (ii))."""
    starts = [t.by_id[i] for i in ids if t.by_id[i].type == "SuspensionStarted"]
    return max(starts, key=lambda e: (e.date, e.seq)).id if starts else ids[0]


def notices(r: Registration, t: Timeline, open_only: bool = False,
            root: Callable[[str], str] | None = None) -> list[Duty]:
    """RRA §3(b) notify the Trustee within two Business Days after each default date;
    RRA §4(b)(iii) advise the selling Holders within five Business Days of a filing,
    effectiveness, amendment, supplement, stop order or material misstatement. A miss
    triggers no Additional Interest."""
    trustee = r.by_rule["trustee"]   # deadlines.trustee_notices, as the engine made them
    root = root or correction_roots(t.by_id)
    kinds = []
    seen: set[tuple] = set()
    for d in r.defaults:
        if (d.kind, d.default_date, d.events) not in seen:
            seen.add((d.kind, d.default_date, d.events))
            kinds.append((d.kind, root(_trigger(d.events, t))))
    out = [_from_deadline(o, k, "notify-trustee", t, r.as_of, open_only=open_only)
           for o, k in zip(trustee, trigger_keys("notify-trustee", kinds))]
    advise = r.by_rule["advise"]     # deadlines.advise_holders
    triggers = []
    for o in advise:
        e = t.by_id[o.events[0]]
        # the names a stop order and the filings had before (D) and the cures joined them
        suffix = (f"-{e.data['kind']}" if e.type == "AmendmentFiled" else
                  f"-{e.data['cure']}" if e.type == "ShelfUsable" else
                  f"-{e.data['reason']}" if e.type == "ShelfUnusable"
                  and e.data["reason"] != "stop_order" else "")
        triggers.append((e.type + suffix, root(e.id)))
    out += [_from_deadline(o, k, "advise-holders", t, r.as_of, open_only=open_only)
            for o, k in zip(advise, trigger_keys("advise-holders", triggers))]
    return [d for d in out if d is not None]


def questionnaires(r: Registration, t: Timeline, open_only: bool = False,
                   root: Callable[[str], str] | None = None) -> list[Duty]:
    """RRA §2(b), §4(d): each Holder asked delivers its Questionnaire by the 20th Business
    Day after the request (a Holder's obligation; a miss costs its Additional Interest,
    RRA §3(a), and obliges the Company to an amendment if it arrives late); the Company
    files an amendment naming a late Holder within 10 Business Days of receipt, unless a
    proviso excuses it."""
    # with open_only, worked out again (with its arithmetic in words, not the engine's
    # Business-Day steps) only if the engine's own found one of them still open
    asked = [] if open_only and not any(
        deadline_state(o.due, o.met_on or o.late_on, r.as_of)[0] in OPEN
        for o in r.by_rule["questionnaire"]) else deadlines.questionnaire_deadlines(
        r.questionnaires, r.terms, r.as_of)
    root = root or correction_roots(t.by_id)
    # keyed by the request, and a late Questionnaire's amendment by the delivery
    out = [_from_deadline(o, k, "questionnaire", t, r.as_of, party=HOLDER,
                          triggered=(f"{o.holder} not entitled to Additional Interest while "
                                     f"it has not delivered (RRA §3(a))",),
                          open_only=open_only)
           for o, k in zip(asked, trigger_keys("questionnaire", [
               (o.holder or "", root(o.events[0])) for o in asked]))]
    late = r.by_rule["late_amendments"]   # amendments.late_questionnaire_amendments
    out += [_from_deadline(o, k, "late-questionnaire-amendment", t, r.as_of,
                           open_only=open_only)
            for o, k in zip(late, trigger_keys("late-questionnaire-amendment", [
                (o.holder or "", root(o.events[1])) for o in late]))]
    return [d for d in out if d is not None]


def payments(r: Registration, t: Timeline, open_only: bool = False) -> list[Duty]:
    """RRA §3(a), §3(b): each Holder's Additional Interest for each Interest Payment Date,
    payable on it (rolled to the next Business Day). ``upcoming`` while the period accrues
    or before the day; ``due`` on it; ``fulfilled`` when paid in full by then, ``cured``
    when paid in full later, ``violated`` when short after it; ``excused`` when the Holder
    is not entitled (Questionnaire, RRA §3(a) last paragraph); ``discharged`` when what it
    accrued was forfeited by a conversion (RRA §3(a), ``conversion_forfeits``)."""
    out = []
    add = out.append
    zero = Decimal(0)
    for pay in r.payments:
        if not pay.amounts:   # a date nobody is owed on (only paid): no Holder's duty
            continue
        period = pay.period
        paid_by: dict[str, list[str]] = {}
        for i in pay.paid_events:   # one pass: a thousand Holders share one payment date
            paid_by.setdefault(t.by_id[i].data.get("holder"), []).append(i)
        # what every Holder's obligation on this date shares, formatted once
        key = f"pay-additional-interest/{period.payment_date}/"
        what = f" the Additional Interest for the Interest Payment Date {period.payment_date}"
        about = (f"period {period.start} to {period.end}, record date {period.record_date}, "
                 f"payable {period.paid_on}; ")
        pending_state, pending_since = pending(period.paid_on, r.as_of)
        paid_of, status_of = pay.paid.get, pay.statuses.get
        paid_on, record_date = period.paid_on, period.record_date
        for h, a in pay.amounts.items():
            paid = paid_of(h, zero)
            amount = a.amount
            ent = a.entitlement
            # ``not amount``: ``amount == 0`` for a Decimal, without the int compared
            if not amount and not paid and ent.entitled and not a.forfeited:
                continue
            mine = tuple(paid_by[h]) if h in paid_by else ()
            st = status_of(h, "accruing")
            state, since, by, by_event, violated, cured = pending_state, pending_since, \
                None, None, None, None
            triggered: tuple[str, ...] = ()
            if not ent.entitled and not amount and not paid:
                state, since, by = "excused", record_date, ent.reason
            elif not amount and a.forfeited and not paid:
                # since the last conversion that forfeited it, never before (issue 30)
                state, since = "discharged", a.forfeited_on or record_date
                by = ("Notes converted: no Additional Interest is payable on converted Notes "
                      "(RRA §3(a))")
            elif st in ("paid", "overpaid"):
                last_paid = max(t.by_id[i].date for i in mine) if mine else None
                state, since, violated = deadline_state(paid_on, last_paid, r.as_of)
                by, by_event = f"paid {paid}", (mine[-1] if mine else None)
                cured = last_paid if state == "cured" else None
            elif state == "violated":
                # str(): f"{decimal}" is the same text, by Decimal.__format__, at twice
                # the cost (every Holder of a date unpaid in a deal in default)
                violated, triggered = since, (str(amount - paid) + " unpaid",)
            if open_only and state not in OPEN:
                continue
            extra = ent.events + mine
            events = tuple(dict.fromkeys(a.events + extra)) if extra else a.events
            interps = ent.interpretations + (("conversion_forfeits",) if a.forfeited
                                             else ()) + a.readings
            # positional: a thousand Holders per date
            add(Duty(key + h, "pay-additional-interest", f"pay {h}{what}",
                     "RRA §3(a), §3(b)", COMPANY, paid_on, state, since, by,
                     by_event, violated, triggered, None, cured, h, amount, None,
                     interps, events, about + ent.reason))
    return out


SECTION = re.compile(r"§\s*\d+(?:\([a-zA-Z]\))*(?:\([ivx]+\))?")


def waivers(r: Registration, t: Timeline) -> list[tuple[str, str, date, tuple[str, ...]]]:
    """RRA §10(D): a waiver needs the written consent of a Majority of Holders. Each
    ``matter`` that begins "waive" and names a section (``"waive §4(b)(iii) advice"``)
    and has a majority on ``as_of`` (the engine's ``consents``): (section, matter, the
    day the last consent was given, its events). A reading of ours: the matter's text is
    free, so only one naming a section is matched to that section's obligations."""
    out = []
    given = t.of_type("ConsentGiven")
    for matter, c in r.consents.items():
        found = SECTION.search(matter)
        if not c.majority or found is None or not matter.lower().startswith("waive"):
            continue
        mine = [e for e in given if e.data["matter"] == matter]
        section = found.group(0).replace(" ", "")
        out.append((section, matter, max(e.date for e in mine), tuple(e.id for e in mine)))
    return out


def waived(duties: list[Duty], r: Registration, t: Timeline) -> list[Duty]:
    """Obligations of a waived section not performed when the waiver was given (their
    trigger on or before its day): ``discharged`` by the waiver (RRA §10(D))."""
    found = waivers(r, t)
    if not found:
        return duties
    out = []
    for d in duties:
        for section, matter, day, ids in found:
            trigger = t.by_id.get(d.events[0]) if d.events else None
            if (d.state in ("upcoming", "due", "violated") and section in d.clause
                    and trigger is not None and trigger.date <= day):
                d = replace(d, state="discharged", since=day,
                            by=f"waived by a Majority of Holders (RRA §10(D)): {matter!r}",
                            by_event=ids[-1], events=d.events + ids,
                            triggered=d.triggered)
                break
        out.append(d)
    return out


def registration_duties(r: Registration, t: Timeline, *, open_only: bool = False
                        ) -> list[Duty]:
    """Every RRA obligation of the deal with its state on ``r.as_of``. With
    ``open_only``, only those still open on it (``OPEN``: the agenda's), in the same
    order, the others not made (nor, for a Suspension Period that has ended, its due day
    worked out): equal to the whole list filtered (tests/test_agenda_fast.py)."""
    root = correction_roots(t.by_id)   # keys: each obligation's trigger (``identity``)
    found = waived(shelf_filing(r, t, open_only) + keep_effective(r)
                   + cure_unusable(r, t, open_only, root) + end_suspensions(r, t, open_only, root)
                   + notices(r, t, open_only, root) + questionnaires(r, t, open_only, root)
                   + payments(r, t, open_only), r, t)
    return [d for d in found if d.state in OPEN] if open_only else found
