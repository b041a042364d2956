"""Registration Defaults (RRA §3(a)(i)-(iv)), arising from deadlines passing as much as
from events.

RRA §3(a): "the Company hereby agrees to pay additional interest ... from and including
the day following the Registration Default to but excluding the day on which the
Registration Default has been cured". Each default has a *last compliant day* (the last
day on which the Company could still have complied); interpretation ``default_date``
says whether that day or the next is "the Registration Default", and accrual starts the
day after it. A default whose accrual would be empty is not listed (SPEC §4.2); one whose
last compliant day has not passed on ``as_of`` has not occurred.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from typing import Callable, Mapping, Sequence

from ledger.calendar import BusinessCalendar
from ledger.dealterms import RegistrationTerms
from ledger.registration_terms import cite
from projections.basis import Basis
from projections.worked import Step, Worked, steps_of

from .clock import ONE_DAY, after, unit_words
from .shelf import Shelf
from .suspensions import Breach, SuspensionPeriod

#: what a Registration Default is about, in the order defaults of one day are listed
ORDER = {"filing": 1, "effectiveness": 2, "unusable": 3, "suspension": 4, "aggregate": 5}
#: the defaults that arise during the Effectiveness Period (they end with it)
IN_PERIOD = ("unusable", "suspension", "aggregate")


@dataclass(frozen=True)
class RegistrationDefault:
    kind: str                      # its label in the agreement: "(i)" ... "(iv)(B)", "(b)"
    clause: str
    last_compliant_day: date
    default_date: date
    accrual_from: date
    cured_on: date | None
    accrual_until: date | None     # exclusive; None while it runs
    stopped_by: str | None         # "cure", "effectiveness_period_end" or "superseded"
    events: tuple[str, ...]
    rule: str
    arithmetic: str
    interpretations: tuple[str, ...]
    #: day 1 of the default's rate clock when it is not ``accrual_from``: a run of a
    #: default (iii) after days a permitted Suspension Period excused
    #: (``unusable_defaults``). Those days accrue nothing, but they cure nothing either,
    #: and RRA §3(a)(ii) counts "the 91st day following the day the Registration Default
    #: shall have occurred": the clock runs through them.
    clock_from: date | None = None
    #: what it is about (``ORDER``): filing, effectiveness, unusable, suspension, aggregate
    what: str = ""

    @property
    def clock_start(self) -> date:
        """Day 1 of the default's rate clock (RRA §3(a)(i), (ii))."""
        return self.accrual_from if self.clock_from is None else self.clock_from

    def accrual_end(self, cutoff: date) -> date:
        """Exclusive end of the accrual known at ``cutoff`` (the day after as_of)."""
        return cutoff if self.accrual_until is None else min(self.accrual_until, cutoff)

    def basis(self) -> Basis:
        return Basis(self.clause, self.rule, self.events, self.interpretations, self.arithmetic)


def _make(kind: tuple[str, str], clause: str, last_compliant_day: date, cure: date | None,
          events: tuple[str, ...], rule: str, why: str, readings: Mapping[str, str], *,
          period_end: date | None = None, superseded: date | None = None,
          extra: tuple[str, ...] = (), as_of: date | None = None) -> RegistrationDefault:
    """One default with interpretations ``default_date`` and, for (iii) and (iv),
    ``default_after_effectiveness_period`` applied. An end of the Effectiveness Period
    after ``as_of`` has not happened yet: until then the default runs (``accrual_until``
    stays ``None``). ``kind``: (what it is about, its label)."""
    what, kind = kind
    first_breach = readings["default_date"] == "first_breach_day"
    default_date = last_compliant_day + ONE_DAY if first_breach else last_compliant_day
    accrual_from = default_date + ONE_DAY
    until, stopped, interps = cure, ("cure" if cure else None), ("default_date", *extra)
    if superseded is not None and (until is None or superseded < until):
        until, stopped = superseded, "superseded"
    if what in IN_PERIOD:
        interps += ("default_after_effectiveness_period",)
        if (readings["default_after_effectiveness_period"] == "ends" and period_end is not None
                and (as_of is None or period_end <= as_of)
                and (until is None or period_end < until)):
            until, stopped = period_end, "effectiveness_period_end"
    arithmetic = Worked(f"{why}; default date {default_date}; accrual from {accrual_from} to "
                        f"{until if until else 'the cure'} (exclusive)",
                        build=lambda: (*(steps_of(why) or ()),
                                       Step("plus_days", (default_date, 1), accrual_from,
                                            "accrual from the day after the default date")))
    return RegistrationDefault(kind, clause, last_compliant_day, default_date, accrual_from,
                               cure, until, stopped, events, rule, arithmetic, interps,
                               what=what)


def deadline_defaults(shelf: Shelf, terms: RegistrationTerms, opened: str,
                      readings: Mapping[str, str]) -> list[RegistrationDefault]:
    """RRA §3(a)(i) "the Shelf Registration Statement is not filed with the Commission
    prior to or on the Shelf Filing Deadline"; §3(a)(ii) "has not been declared effective
    by the Commission prior to or on the Effectiveness Target Date" (each as the terms
    have it, ``defaults.filing`` and ``defaults.effectiveness``). Cured by the filing,
    the effectiveness."""
    out = []
    for what, deadline, arithmetic, event, words in (
            ("filing", shelf.filing_deadline, shelf.filing_arithmetic, shelf.filed, "filed"),
            ("effectiveness", shelf.effectiveness_deadline, shelf.effectiveness_arithmetic,
             shelf.effective, "declared effective")):
        kind = getattr(terms.defaults, what)
        if kind is None or deadline is None or (event is not None and event.date <= deadline):
            continue
        out.append(_make((what, kind.label), kind.section, deadline,
                         event.date if event else None,
                         (opened, *((event.id,) if event else ())),
                         f"the Shelf Registration Statement was not {words} prior to or on "
                         f"the deadline", arithmetic, readings))
    return out


def permitted_suspension(periods: Sequence[SuspensionPeriod], found: Sequence[Breach],
                         as_of: date) -> list[tuple[date, date]]:
    """The days ``[start, end)`` of each Suspension Period that the Company had the right
    to suspend (RRA §4(b)(i)): from its start to its first day beyond any limit (its own
    45 (60) days, 45 (60) in any 90-day window, 90 in any 360-day window), as known on
    ``as_of``."""
    out = []
    for p in periods:
        end = min([p.stop(as_of), *(b.first_day for b in found if b.period is p)])
        if p.start < end:
            out.append((p.start, end))
    return sorted(out)


def _uncovered(start: date, end: date | None, covered: Sequence[tuple[date, date]]
               ) -> list[tuple[date, date | None]]:
    """``[start, end)`` (``end`` None: open) less the ``covered`` ranges (sorted)."""
    if end is not None and start >= end:
        return []
    out: list[tuple[date, date | None]] = []
    at: date | None = start
    for lo, hi in covered:
        if at is None or (end is not None and lo >= end):
            break
        if hi <= at:
            continue
        if lo > at:
            out.append((at, lo if end is None else min(lo, end)))
        at = hi if end is None or hi < end else None
    if at is not None and (end is None or at < end):
        out.append((at, end))
    return out


def unusable_defaults(shelf: Shelf, terms: RegistrationTerms, calendar: BusinessCalendar,
                      readings: Mapping[str, str], as_of: date | None = None,
                      permitted: Sequence[tuple[date, date]] = ()
                      ) -> tuple[list[RegistrationDefault], list[str]]:
    """RRA §3(a)(iii): "except as provided in Section 4(b)(i), the Shelf Registration
    Statement is filed and declared effective but, during the Effectiveness Period, shall
    thereafter cease to be effective or fail to be usable for its intended purpose without
    such disability being cured within five Business Days": last compliant day = the 5th
    Business Day after it became unusable; cured on the ShelfUsable date.

    "Except as provided in Section 4(b)(i)" (SPEC §4.3): the days of a ``permitted``
    Suspension Period are not default (iii); the five Business Days count from the first
    unusable day not so covered, and the default's accrual skips the covered days (one
    default listed per run of accruing days). A span wholly covered is no default.

    The covered days cure nothing (a cure is "an effective post-effective amendment ...,
    a supplement to the Prospectus or a report ... that cures such failure"), so every
    run keeps the rate clock of the one default: day 1 is the day after its default date
    (``clock_from``), and the 91st day follows "the day the Registration Default shall
    have occurred" (RRA §3(a)(ii)), however many days between were excused.

    The terms give the default (``defaults.unusable``: its label, its cure period, the
    causes it excuses); a span whose cause is excused (``selling_holder_information``: an
    amendment or supplement for selling securityholders' information) is no default, and
    permitted Suspension Periods cover days only if ``suspension`` is an excused cause."""
    out, problems = [], []
    kind = terms.defaults.unusable
    if kind is None:
        return out, problems
    n, unit = kind.cure.count, kind.cure.unit
    if "suspension" not in kind.excused:
        permitted = ()
    right = terms.suspensions.section if terms.suspensions is not None else ""
    for span in shelf.unusable:
        if not shelf.in_effectiveness_period(span.start):
            problems.append(f"ShelfUnusable {span.events[0]} on {span.start} is outside the "
                            f"Effectiveness Period: not a Registration Default "
                            f"({kind.section})")
            continue
        if span.reason in kind.excused:
            problems.append(f"ShelfUnusable {span.events[0]} on {span.start} ({span.reason}) "
                            f"is excused: not a Registration Default ({kind.section})")
            continue
        pieces = _uncovered(span.start, span.end, permitted)
        if not pieces:
            continue
        first = pieces[0][0]
        covered = "" if first == span.start else (
            f"; {span.start} to {first - ONE_DAY} inside a permitted Suspension Period "
            f"({right})")
        last = after(first, n, unit, calendar)
        whole = _make(("unusable", kind.label), kind.section, last, span.end, span.events,
                      f"the shelf ceased to be effective or usable ({span.reason}) and was "
                      f"not cured within {n} {unit_words(unit)}",
                      Worked(f"unusable from {span.start}{covered}; {n} {unit_words(unit)} "
                             f"after {first} = {last}", (_cure_step(first, n, unit, calendar,
                                                                    last),)),
                      readings, period_end=shelf.period_end, as_of=as_of)
        if pieces == [(span.start, span.end)]:  # no day of the span is covered
            out.append(whole)
            continue
        runs = _uncovered(whole.accrual_from, whole.accrual_until, [
            (lo, hi) for lo, hi in permitted if hi > whole.accrual_from])
        for lo, hi in runs:
            if as_of is not None and lo > as_of:
                continue
            out.append(replace(
                whole, accrual_from=lo, accrual_until=hi, clock_from=whole.accrual_from,
                stopped_by=(whole.stopped_by if hi == whole.accrual_until
                            else "permitted_suspension"),
                interpretations=whole.interpretations,
                arithmetic=whole.arithmetic.then(
                    f"; accrues {lo} to {hi or 'the cure'} (exclusive), outside permitted "
                    f"Suspension Periods")))
    return out, problems


def _cure_step(first: date, n: int, unit: str, calendar: BusinessCalendar,
               last: date) -> Step:
    if unit == "business":
        return Step("plus_business_days", (first, n, calendar), last, "last day to cure")
    return Step("plus_days", (first, n), last, "last day to cure")


def suspension_defaults(found: Sequence[Breach], shelf: Shelf, terms: RegistrationTerms,
                        calendar: BusinessCalendar, readings: Mapping[str, str],
                        as_of: date | None = None) -> list[RegistrationDefault]:
    """RRA §3(a)(iv)(A) and (B) from the breaches of the suspension limits (the terms'
    ``defaults.suspension`` and the windows with a ``default`` of their own); and, for
    suspended days beyond a right to suspend (RRA §4(b)(i)), the default that
    interpretation ``window_breach`` reads into them (:func:`_window_default`)."""
    out = []
    for b in found:
        p = b.period
        if b.kind == "single_period":
            kind = terms.defaults.suspension
            if kind is None:   # no default of its own: beyond the right, as a window's excess
                if readings["window_breach"] in ("usability_default", "suspension_default"):
                    made = _window_default(b, shelf, terms, calendar, readings, as_of)
                    if made is not None:
                        out.append(made)
                continue
            out.append(_make(("suspension", kind.label), b.clause, b.first_day - ONE_DAY, p.end,
                             b.events, b.rule, Worked(
                                 f"Suspension Period from {p.start}; its {b.limit}th day "
                                 f"= {p.start} + {b.limit - 1} days = {b.first_day - ONE_DAY}",
                                 (Step("plus_days", (p.start, b.limit - 1),
                                       b.first_day - ONE_DAY, "its last permitted day"),)),
                             readings, period_end=shelf.period_end, as_of=as_of))
        elif b.kind == "aggregate":
            out.append(_make(("aggregate", b.label), b.clause, b.first_day - ONE_DAY, p.end,
                             b.events, b.rule, f"{b.limit} suspended days in the {b.window} "
                             f"days ending {b.first_day - ONE_DAY}; more on {b.first_day}",
                             readings, period_end=shelf.period_end, as_of=as_of))
        elif readings["window_breach"] in ("usability_default", "suspension_default"):
            made = _window_default(b, shelf, terms, calendar, readings, as_of)
            if made is not None:
                out.append(made)
    return out


def _window_default(b: Breach, shelf: Shelf, terms: RegistrationTerms,
                    calendar: BusinessCalendar, readings: Mapping[str, str],
                    as_of: date | None) -> RegistrationDefault | None:
    """Suspended days beyond the 45 (60)-in-90 right (RRA §4(b)(i)), each period within
    its own limit. ``window_breach=usability_default``: the shelf is unusable outside a
    permitted suspension from the first such day, a default (iii) once the five Business
    Days of §3(a)(iii) have passed; ``suspension_default``: default (iv)(A) at once, the
    first such day being the first day of breach (no grace). (An agreement without the
    default the reading names leaves the days a breach reported, as ``report_only``.)

    The default ends when the period ends, or hands over to the period's own default
    (iv)(A) on that default's first accrual day (its 46th (61st) day, a day later with
    ``default_date=first_breach_day``, so that the two readings leave no day uncovered
    between them); the hand-over is known only once that day has passed on ``as_of``
    (before it, the default still runs)."""
    p = b.period
    single, unusable = terms.defaults.suspension, terms.defaults.unusable
    limits = terms.suspensions
    if limits is not None and limits.single is not None and single is not None:
        own_end = p.start + ONE_DAY * p.limit(limits)   # its 46th (61st) day
        handover = _make(("suspension", ""), "", own_end - ONE_DAY, None, (), "", "",
                         readings).accrual_from
    else:   # no limit of its own: nothing takes over
        own_end = handover = date.max
    cure = p.end if p.end is not None and p.end <= own_end else None
    taken_over = (handover if cure is None and (as_of is None or handover <= as_of)
                  and handover != date.max else None)
    if readings["window_breach"] == "suspension_default":
        if single is None:
            return None
        return _make(("suspension", single.label), cite(single.section, b.clause),
                     b.first_day - ONE_DAY, cure,
                     b.events, f"{b.rule}: the suspension exceeds the Company's right to "
                     f"suspend, a Registration Default at once",
                     Worked(f"first day beyond the right {b.first_day}; the last day within "
                            f"it {b.first_day - ONE_DAY}", (Step(
                                "plus_days", (b.first_day, -1), b.first_day - ONE_DAY,
                                "the last day within the right"),)), readings, period_end=shelf.period_end,
                     superseded=taken_over, extra=("window_breach",), as_of=as_of)
    if unusable is None:
        return None
    n, unit = unusable.cure.count, unusable.cure.unit
    last = after(b.first_day, n, unit, calendar)
    return _make(("unusable", unusable.label), cite(unusable.section, b.clause), last, cure,
                 b.events, f"{b.rule}: the shelf is unusable outside a permitted suspension "
                 f"and not cured within {n} {unit_words(unit)}",
                 Worked(f"first day beyond the right {b.first_day}; "
                        f"{n} {unit_words(unit)} after = {last}",
                        (_cure_step(b.first_day, n, unit, calendar, last),)),
                 readings, period_end=shelf.period_end, superseded=taken_over,
                 extra=("window_breach",), as_of=as_of)


def registration_defaults(shelf: Shelf, found: Sequence[Breach], terms: RegistrationTerms,
                          calendar: BusinessCalendar, opened: str, as_of: date,
                          readings: Mapping[str, str],
                          periods: Sequence[SuspensionPeriod] = (),
                          seq_of: Callable[[str], int] | None = None
                          ) -> tuple[list[RegistrationDefault], list[str]]:
    """Every Registration Default that has occurred by ``as_of`` (its last compliant day
    has passed) and accrues at least one day, in order of accrual. ``periods``: the
    Suspension Periods, whose permitted days are no default (iii) (RRA §3(a)(iii) "except
    as provided in Section 4(b)(i)"). ``seq_of``: an event id's place in the log, for
    ties (SPEC §1)."""
    unusable, problems = unusable_defaults(shelf, terms, calendar, readings, as_of,
                                           permitted_suspension(periods, found, as_of))
    every = (deadline_defaults(shelf, terms, opened, readings) + unusable
             + suspension_defaults(found, shelf, terms, calendar, readings, as_of))
    listed = [d for d in every if as_of > d.last_compliant_day
              and (d.accrual_until is None or d.accrual_from < d.accrual_until)]
    # SPEC §1: a tie is broken by the order the events were recorded (their seq), never
    # by their content (ids are UUIDs in the store)
    position = seq_of if seq_of is not None else (lambda i: 0)
    listed.sort(key=lambda d: (d.accrual_from, ORDER[d.what],
                               tuple(position(i) for i in d.events)))
    return listed, problems
