"""Suspension Periods (RRA §4(b)(i), §4(c)) and the limits on them (§3(a)(iv)).

RRA §4(b)(i): "the Company may suspend the effectiveness of the Shelf Registration
Statement by written notice to the Holders for a period not to exceed an aggregate of
45 days in any 90-day period (each such period, a "SUSPENSION PERIOD"), and not to
exceed an aggregate of 90 days in any 360-day period ...; provided that in the event the
disclosure relates to a previously undisclosed proposed or pending material business
transaction ..., the Company may extend a Suspension Period from 45 days to 60 days
during any 90-day period."

A period covers ``[start, end)`` (SPEC §4.3); one still open on ``as_of`` counts its
days through ``as_of``. Windows are counted by intervals, never day by day: the days
suspended in the window ending on ``d`` only grow while ``d`` is itself suspended, so
the first day over a limit inside a period is found by bisection.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Callable, Sequence

from ledger.registration_terms import Suspensions, Window
from ledger.stored import Event

from .clock import ONE_DAY, ordinal, span_days

#: no right to suspend at all: every limit is nil (a deal whose terms have none refuses
#: a SuspensionStarted; one in a what-if is reported and ignored)
NO_RIGHT = Suspensions(single=None, windows=[], max_periods=None, section="")

#: the event types ``read_suspensions`` reads
SUSPENSION_EVENTS = ("SuspensionStarted", "SuspensionExtended", "SuspensionEnded")


@dataclass(frozen=True)
class SuspensionPeriod:
    start: date
    end: date | None                 # SuspensionEnded: use may resume from this day
    material_transaction: bool       # on SuspensionStarted, or extended in time
    extended: bool
    events: tuple[str, ...]

    def stop(self, as_of: date) -> date:
        """Exclusive end of the days counted as of ``as_of``."""
        return self.end if self.end is not None else as_of + ONE_DAY

    def days(self, as_of: date) -> int:
        return span_days(self.start, self.stop(as_of))

    def limit(self, limits: Suspensions) -> int | None:
        """RRA §3(a)(iv)(A): "the 45th or 60th day, as the case may be" (the terms'
        ``suspensions.single``; ``None``: a period has no limit of its own)."""
        single = limits.single
        if single is None:
            return None
        if self.material_transaction and single.material_days is not None:
            return single.material_days
        return single.days

    def window_limit(self, window: Window) -> int:
        """RRA §4(b)(i): 45 days in any 90-day period, 60 with the material-transaction
        extension (the terms' window)."""
        if self.material_transaction and window.material_days is not None:
            return window.material_days
        return window.days

    def last_permitted_day(self, limits: Suspensions) -> date | None:
        """Its 45th (60th) day: start + 44 (59) (SPEC §4.3)."""
        limit = self.limit(limits)
        return None if limit is None else self.start + timedelta(days=limit - 1)


def read_suspensions(events: Sequence[Event], limits: Suspensions,
                     in_period: Callable[[date], bool] | None = None
                     ) -> tuple[tuple[SuspensionPeriod, ...], tuple[str, ...]]:
    """Pair SuspensionStarted / SuspensionExtended / SuspensionEnded in timeline order.

    RRA §4(b)(i) proviso: a SuspensionExtended counts when made while the period is open
    and on or before its 45th day (after that day the Registration Default of §3(a)(iv)(A)
    has already occurred); a later one is reported as a problem and ignored.

    SPEC §4.3: a SuspensionStarted outside the Effectiveness Period (``in_period`` false
    on its date; however the period ended, (x), (y) or (z) of RRA §2(a)(iii)) suspends
    nothing: the store refuses it, and one in a log written before that rule (or in a
    what-if) is reported as a problem and ignored with its extension and end."""
    periods: list[SuspensionPeriod] = []
    problems: list[str] = []
    open_: dict | None = None
    outside = False
    for e in events:
        if outside and e.type in ("SuspensionExtended", "SuspensionEnded"):
            if e.type == "SuspensionEnded":
                outside = False
            continue
        if (e.type == "SuspensionStarted" and open_ is None and in_period is not None
                and not in_period(e.date)):
            problems.append(f"SuspensionStarted {e.id} on {e.date} is outside the "
                            f"Effectiveness Period: there is nothing to suspend; ignored "
                            f"(RRA §2(a)(iii), §4(b)(i))")
            outside = True
            continue
        if e.type == "SuspensionStarted":
            if open_ is not None:
                problems.append(f"SuspensionStarted {e.id}: a Suspension Period is already "
                                f"open; ignored")
                continue
            open_ = {"start": e.date, "material": bool(e.data["material_transaction"]),
                     "extended": False, "events": [e.id]}
        elif e.type == "SuspensionExtended":
            if open_ is None:
                problems.append(f"SuspensionExtended {e.id}: no open Suspension Period; ignored")
            elif limits.single is not None and \
                    (e.date - open_["start"]).days + 1 > limits.single.days:
                problems.append(f"SuspensionExtended {e.id}: made after the "
                                f"{limits.single.days}th day of the Suspension Period; "
                                f"ignored ({limits.section})")
            else:
                open_.update(material=True, extended=True)
                open_["events"].append(e.id)
        elif e.type == "SuspensionEnded":
            if open_ is None:
                problems.append(f"SuspensionEnded {e.id}: no open Suspension Period; ignored")
                continue
            periods.append(SuspensionPeriod(open_["start"], e.date, open_["material"],
                                            open_["extended"], (*open_["events"], e.id)))
            open_ = None
    if open_ is not None:
        periods.append(SuspensionPeriod(open_["start"], None, open_["material"],
                                        open_["extended"], tuple(open_["events"])))
    return tuple(periods), tuple(problems)


def suspended_days(periods: Sequence[SuspensionPeriod], start: date, stop: date,
                   as_of: date) -> int:
    """Days of ``[start, stop)`` inside some Suspension Period."""
    return sum(span_days(max(start, p.start), min(stop, p.stop(as_of))) for p in periods)


def trailing(periods: Sequence[SuspensionPeriod], day: date, window: int, as_of: date) -> int:
    """Suspended days in the ``window``-day period ending on (and including) ``day``."""
    return suspended_days(periods, day - timedelta(days=window - 1), day + ONE_DAY, as_of)


def months_back(day: date, months: int) -> date:
    """``day`` moved back ``months`` calendar months (the last day of a shorter month)."""
    year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
    for d in (day.day, 30, 29, 28):
        try:
            return date(year, month + 1, d)
        except ValueError:
            continue
    raise ValueError(day)


def length_on(window: Window, day: date) -> int:
    """The days of ``window`` ending on ``day``: ``in_days``, or those after the same day
    ``in_months`` months before ("any 12-month period" ending 2005-03-01 begins on
    2004-03-02)."""
    if window.in_days is not None:
        return window.in_days
    return (day - months_back(day, window.in_months)).days


def window_words(window: Window) -> str:
    """``90-day`` or ``12-month``."""
    return (f"{window.in_days}-day" if window.in_days is not None
            else f"{window.in_months}-month")


def trailing_in(periods: Sequence[SuspensionPeriod], day: date, window: Window,
                as_of: date) -> int:
    """Suspended days in ``window`` ending on (and including) ``day``."""
    return trailing(periods, day, length_on(window, day), as_of)


def first_day_over(periods: Sequence[SuspensionPeriod], period: SuspensionPeriod, window: int,
                   limit: int, as_of: date, until: date | None = None) -> date | None:
    """The first day of ``period`` (before ``until``) whose trailing ``window`` exceeds
    ``limit``; the count never falls while the period runs, so bisection finds it."""
    lo, hi = period.start, period.stop(as_of)
    if until is not None:
        hi = min(hi, until)
    if lo >= hi:
        return None
    # ``trailing`` in day numbers (``date.toordinal``), the periods' spans made once: the
    # bisection counts the windows a dozen times a call, and with dates each count was
    # most of ``breaches``, which every Registration Rights deal's agenda line runs twice
    spans = [(p.start.toordinal(), p.stop(as_of).toordinal()) for p in periods]
    first, last = lo.toordinal(), hi.toordinal() - 1
    if _trailing_days(spans, last, window) <= limit:
        return None
    while first < last:
        mid = (first + last) // 2
        if _trailing_days(spans, mid, window) > limit:
            last = mid
        else:
            first = mid + 1
    return date.fromordinal(first)


def _trailing_days(spans: list[tuple[int, int]], day: int, window: int) -> int:
    """``trailing`` of periods given as ``[start, stop)`` day numbers, ``day`` one too."""
    lo, hi = day - window + 1, day + 1
    n = 0
    for start, stop in spans:
        if start < hi and stop > lo:   # the overlap of [start, stop) and [lo, hi)
            n += (stop if stop < hi else hi) - (start if start > lo else lo)
    return n


def most_in_any_window(periods: Sequence[SuspensionPeriod], window: int,
                       as_of: date) -> tuple[int, date | None]:
    """The most suspended days in any ``window``-day period ending on or before ``as_of``,
    and the last day of the first such window. The maximum is reached where a window
    ends on a period's last day or starts on a period's first day."""
    best, best_day = 0, None
    ends = {as_of}
    for p in periods:
        ends.add(p.stop(as_of) - ONE_DAY)
        ends.add(p.start + timedelta(days=window - 1))
    for day in sorted(d for d in ends if d <= as_of):
        n = trailing(periods, day, window, as_of)
        if n > best:
            best, best_day = n, day
    return best, best_day


def allowance_grows_on(periods: Sequence[SuspensionPeriod], window: int,
                       as_of: date) -> date | None:
    """The first day after ``as_of`` on which the trailing ``window`` holds fewer suspended
    days than on ``as_of``, assuming no suspended day after ``as_of``: the earliest
    suspended day still in the window, plus ``window`` days. ``None`` if none is."""
    lo = as_of - timedelta(days=window - 1)
    firsts = [max(lo, p.start) for p in periods
              if p.start <= as_of and p.stop(as_of) > lo]
    return min(firsts) + timedelta(days=window) if firsts else None


def _counted(periods: Sequence[SuspensionPeriod], day: date, window: int,
             as_of: date) -> tuple[str, ...]:
    """Events of the periods with days in the ``window`` days ending on ``day``."""
    lo = day - timedelta(days=window - 1)
    return tuple(i for p in periods if p.start <= day and p.stop(as_of) > lo for i in p.events)


def window_limit_on(periods: Sequence[SuspensionPeriod], day: date, window: Window,
                    as_of: date) -> int:
    """Interpretation ``window_material_allowance=any_in_window``: the 45-in-90 right is
    60 on ``day`` when any Suspension Period with a day in the 90 days ending on it is
    material (RRA §4(b)(i) "may extend a Suspension Period from 45 days to 60 days during
    any 90-day period")."""
    lo = day - timedelta(days=length_on(window, day) - 1)
    material = any(q.material_transaction and q.start <= day and q.stop(as_of) > lo
                   for q in periods)
    return window.material_days if material and window.material_days is not None \
        else window.days


def first_day_over_walk(periods: Sequence[SuspensionPeriod], period: SuspensionPeriod,
                        window: Window, as_of: date, until: date | None,
                        any_in_window: bool) -> tuple[date | None, int]:
    """The first day of ``period`` (before ``until``) beyond ``window``'s right, walking
    the days one by one: with ``any_in_window`` (the limit can fall as a material period
    leaves the window) or a window of months (its length changes with the months); and
    the limit on it."""
    day = period.start
    stop = period.stop(as_of) if until is None else min(period.stop(as_of), until)
    while day < stop:
        limit = (window_limit_on(periods, day, window, as_of) if any_in_window
                 else period.window_limit(window))
        if trailing_in(periods, day, window, as_of) > limit:
            return day, limit
        day += ONE_DAY
    return None, period.window_limit(window)


@dataclass(frozen=True)
class Breach:
    """Suspended days beyond the Company's right to suspend."""

    kind: str               # "single_period", "window", "aggregate" or "periods"
    clause: str
    period: SuspensionPeriod
    first_day: date         # the first suspended day beyond the right
    until: date             # exclusive end of those days as known on as_of
    limit: int
    window: int | None
    rule: str
    events: tuple[str, ...]    # of every period counted in the window on the first day
    label: str = ""         # an ``aggregate`` breach: the label of its default ((iv)(B))

    @property
    def days(self) -> int:
        return span_days(self.first_day, self.until)


def breaches(periods: Sequence[SuspensionPeriod], limits: Suspensions,
             as_of: date, material_allowance: str = "period",
             of: SuspensionPeriod | None = None) -> list[Breach]:
    """Every breach of the suspension limits known on ``as_of`` (``of``: only the breaches
    of that one of the ``periods``, the others still counted in its windows). The limits
    are the terms' (``suspensions``).

    * ``single_period``, RRA §3(a)(iv)(A): "prior to or on the 45th or 60th day, as the
      case may be, of any Suspension Period, such suspension has not been terminated":
      the period's days from its 46th (61st) on.
    * ``window``, RRA §4(b)(i): days on which the trailing 90-day window holds more than
      45 (60) suspended days, made up of several periods each within its own limit
      (a single period's days past its own 45th (60th) day are ``single_period``, SPEC
      §4.3). Interpretation ``window_breach`` decides what they cost (``defaults``);
      ``window_material_allowance`` whether the 60-day allowance is the material
      period's own (``period``) or the window's (``any_in_window``).
    * ``aggregate``, RRA §3(a)(iv)(B): "Suspension Periods exceed an aggregate of 90 days
      in any 360 day period": days on which the trailing 360-day window holds more than
      90 suspended days (a window whose excess is a default of its own, ``default``).
    * ``periods``: a period starting when the window before it already holds the most
      periods the terms allow (``max_periods``): the whole period is beyond the right
      (a breach of the kind ``window``'s reading judges).
    """
    out: list[Breach] = []
    any_in = material_allowance == "any_in_window"
    for p in (periods if of is None else (of,)):
        stop = p.stop(as_of)
        limit = p.limit(limits)
        own = None if limit is None else p.start + timedelta(days=limit)
        if own is not None and stop > own:
            out.append(Breach("single_period", limits.single.section, p, own, stop, limit,
                              None, f"a Suspension Period not terminated on or before its "
                                    f"{ordinal(limit)} day", p.events))
        for w in limits.windows:
            length = w.in_days
            if w.default is None:
                if any_in or length is None:
                    first, cap = first_day_over_walk(periods, p, w, as_of, own, any_in)
                else:
                    cap = p.window_limit(w)
                    first = first_day_over(periods, p, length, cap, as_of, until=own)
                if first is not None:
                    span = length_on(w, first)
                    out.append(Breach("window", w.section, p, first,
                                      min(stop, own) if own is not None else stop,
                                      cap, span, f"more than {cap} suspended days in a "
                                                 f"{window_words(w)} period",
                                      _counted(periods, first, span, as_of)))
                continue
            if length is None:
                first, _ = first_day_over_walk(periods, p, w, as_of, None, False)
            else:
                first = first_day_over(periods, p, length, w.days, as_of)
            if first is not None:
                span = length_on(w, first)
                out.append(Breach("aggregate", w.default.section, p, first, stop, w.days, span,
                                  f"Suspension Periods exceed an aggregate of {w.days} days "
                                  f"in a {window_words(w)} period",
                                  _counted(periods, first, span, as_of), w.default.label))
        if limits.max_periods is not None:
            found = _too_many(periods, p, limits, as_of)
            if found is not None:
                out.append(found)
    return sorted(out, key=lambda b: (b.first_day, b.kind))


def _too_many(periods: Sequence[SuspensionPeriod], p: SuspensionPeriod, limits: Suspensions,
              as_of: date) -> Breach | None:
    """``max_periods``: the periods starting in the window ending on ``p``'s start,
    ``p`` included; beyond the number allowed, ``p`` is wholly beyond the right."""
    m = limits.max_periods
    lo = (p.start - timedelta(days=m.in_days - 1) if m.in_days is not None
          else months_back(p.start, m.in_months) + ONE_DAY)
    started = [q for q in periods if lo <= q.start <= p.start]
    if len(started) <= m.periods:
        return None
    words = f"{m.in_days}-day" if m.in_days is not None else f"{m.in_months}-month"
    return Breach("window", m.section, p, p.start, p.stop(as_of), m.periods,
                  (p.start - lo).days + 1,
                  f"more than {m.periods} Suspension Periods in a {words} period",
                  tuple(i for q in started for i in q.events))
