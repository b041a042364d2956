"""Default episodes and the Additional Interest rate schedule (RRA §3(a)(i)-(iv); SPEC §4.4).

RRA §3(a): Additional Interest accrues "(i) with respect to the first 90-day period
during which a Registration Default shall have occurred, 0.25% per annum ...; (ii) with
respect to the period commencing on the 91st day following the day the Registration
Default shall have occurred to the second anniversary of the Closing Date, 1.00% ...;
(iii) ... commencing on the second anniversary of the Closing Date to the third
anniversary ..., 3.00% ...; and (iv) thereafter the rate ... shall increase annually by
2.00 percentage points on each anniversary of the Closing Date, commencing with the third
anniversary". "Following the cure of all Registration Defaults relating to any particular
Notes, the accrual of Additional Interest with respect to such Notes shall cease."

Interpretation ``overlapping_defaults``: ``episode`` runs one rate clock per continuous
run of overlapping or adjacent defaults; ``additive`` gives each default its own clock and
adds the rates. A default's clock starts the day after its default date and runs until
it is cured: the days of a default (iii) that a permitted Suspension Period excuses accrue
nothing but keep its clock, and its episode, going (``RegistrationDefault.clock_start``;
RRA §3(a)(ii) "the 91st day following the day the Registration Default shall have
occurred"; SPEC §4.4 starts a new episode at 0.25% only "after a cure"). Interpretation ``rate_after_second_anniversary`` decides whether an
episode's first 90 days stay at 0.25% after the second anniversary; ``rate_clock``
whether each episode (``per_episode``) or only the deal's first 90 days of default
(``once_per_deal``) are at 0.25%.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Mapping, Sequence

from ledger.dealterms import RegistrationTerms
from ledger.registration_terms import Step

from .clock import anniversary, ordinal
from .defaults import RegistrationDefault


@dataclass(frozen=True)
class Episode:
    number: int
    start: date            # day 1 of its rate clock (its first accrual day but for a
                           # default (iii) whose first days a permitted suspension excused)
    end: date              # exclusive, as known at the cutoff
    defaults: tuple[int, ...]


@dataclass(frozen=True)
class RateSegment:
    """Days ``[start, end)`` accruing at ``rate`` percent per annum."""

    start: date
    end: date
    rate: Decimal
    episode: int
    clock_start: date      # day 1 of the rate clock (episode, or default when additive)
    defaults: tuple[int, ...]
    clause: str
    rule: str
    interpretations: tuple[str, ...]


def episodes(defaults: Sequence[RegistrationDefault], cutoff: date) -> list[Episode]:
    """SPEC §4.4: "Overlapping or adjacent Registration Defaults form one default episode";
    each default spans its clock, from ``clock_start`` (so the runs of one default (iii)
    around days a permitted Suspension Period excused are one episode: not cured between)."""
    spans = sorted((d.clock_start, d.accrual_end(cutoff), i) for i, d in enumerate(defaults)
                   if d.accrual_from < d.accrual_end(cutoff))
    out: list[list] = []
    for start, end, i in spans:
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
            out[-1][2].append(i)
        else:
            out.append([start, end, [i]])
    return [Episode(n, s, e, tuple(ix)) for n, (s, e, ix) in enumerate(out, start=1)]


def _of(step: Step, terms: RegistrationTerms) -> date:
    """The day a step's anniversaries count from (the Closing Date, or the Issue Date)."""
    return terms.closing_date if step.of == "closing" else terms.issued


def _years(day: date, start: date) -> int:
    """Anniversaries of ``start`` passed on ``day`` (the ``k`` of RRA §3(a)(iii), (iv))."""
    k = day.year - start.year
    if anniversary(start, k) > day:
        k -= 1
    return k


_OF_WORDS = {"closing": "the Closing Date", "issue_date": "the Issue Date"}


def _first_span(steps: Sequence[Step]) -> int | None:
    """The days of the ladder's first step: the first later step counted in days."""
    return next((s.after_days for s in steps[1:]
                 if s.after_days is not None and s.after_days > 0), None)


def _rule(step: Step, i: int, steps: Sequence[Step], k: int) -> str:
    """What one step says, in words (RRA §3(a)(i)-(iv) read as steps)."""
    nxt = steps[i + 1] if i + 1 < len(steps) else None
    if step.after_days is not None:
        if step.add is not None:
            every = (f" for each further {step.every_days} days" if step.every_days
                     else "")
            return (f"{step.add} points more{every} of the Registration Default from day "
                    f"{step.after_days + 1}")
        if step.after_days == 0:
            if nxt is not None and nxt.after_days is not None:
                return f"the first {nxt.after_days} days of the Registration Default"
            return "from the first day of the Registration Default"
        if nxt is not None and nxt.anniversary is not None:
            return (f"from day {step.after_days + 1} to the {ordinal(nxt.anniversary)} "
                    f"anniversary of {_OF_WORDS[nxt.of]}")
        if nxt is not None and nxt.after_days is not None:
            return f"from day {step.after_days + 1} to day {nxt.after_days}"
        return f"from day {step.after_days + 1} of the Registration Default"
    of = _OF_WORDS[step.of]
    if step.add is not None:
        if step.every_year:
            return (f"{step.add} points more on each anniversary of {of} from the "
                    f"{ordinal(step.anniversary)}; the {ordinal(k)} has passed")
        return f"{step.add} points more from the {ordinal(step.anniversary)} anniversary of {of}"
    if nxt is not None:
        return f"from the {ordinal(k)} anniversary of {of} to the next"
    return f"from the {ordinal(step.anniversary)} anniversary of {of}"


def rate_on(day: date, clock_start: date, terms: RegistrationTerms,
            reading: str) -> tuple[Decimal, str, str]:
    """The §3(a) rate on ``day`` of a clock whose day 1 is ``clock_start``: the terms'
    ladder (``damages.steps``) applied in order, each step that has begun setting or
    adding to the rate (a recurring one once for each time it recurred), at most the cap.
    Interpretation ``rate_after_second_anniversary``: with
    ``first_90_days_always_quarter_point`` the anniversary steps wait while the first
    step's days last. The clause and the words are those of the last step applied."""
    damages = terms.damages
    steps = damages.steps
    n = (day - clock_start).days            # days of the clock before ``day``
    span = _first_span(steps)
    first = span is not None and n < span
    hold = first and reading == "first_90_days_always_quarter_point"
    rate: Decimal | None = None
    used, used_k = 0, 0
    for i, s in enumerate(steps):
        if s.after_days is not None:
            if n < s.after_days:
                continue
            times = 1 + ((n - s.after_days) // s.every_days if s.every_days else 0)
            k = 0
        else:
            if hold:
                continue
            k = _years(day, _of(s, terms))
            if k < s.anniversary:
                continue
            times = k - s.anniversary + 1 if s.every_year else 1
        rate = s.set if s.set is not None else (rate or Decimal(0)) + s.add * times
        used, used_k = i, k
    if rate is None:
        rate = Decimal(0)
    rule = _rule(steps[used], used, steps, used_k)
    if damages.cap is not None and rate > damages.cap:
        rate, rule = damages.cap, f"{rule}; at most {damages.cap}% per annum (the cap)"
    return rate, steps[used].section, rule


def _boundaries(start: date, end: date, clock_start: date, terms: RegistrationTerms) -> list[date]:
    """Days inside ``(start, end)`` on which the rate may change: where a step counted in
    days begins (or recurs), and each anniversary an anniversary step counts."""
    cuts: set[date] = set()
    for s in terms.damages.steps:
        if s.after_days is not None:
            day = clock_start + timedelta(days=s.after_days)
            while s.every_days and day <= start:
                day += timedelta(days=s.every_days)
            cuts.add(day)
            while s.every_days and day < end:
                day += timedelta(days=s.every_days)
                cuts.add(day)
        else:
            of = _of(s, terms)
            last = end.year - of.year + 1 if s.every_year else s.anniversary + 1
            for k in range(s.anniversary, last):
                cuts.add(anniversary(of, k))
    return sorted(c for c in cuts if start < c < end)


def rate_segments(defaults: Sequence[RegistrationDefault], cutoff: date,
                  terms: RegistrationTerms, readings: Mapping[str, str]) -> list[RateSegment]:
    """The accrual days cut where the rate or the set of defaults changes."""
    reading = readings["rate_after_second_anniversary"]
    eps = episodes(defaults, cutoff)
    interps = ("overlapping_defaults", "rate_after_second_anniversary", "rate_clock")
    out: list[RateSegment] = []

    def pieces(start: date, end: date, clock: date, episode: int, active: Sequence[int]):
        cuts = _boundaries(start, end, clock, terms)
        for a, b in zip([start, *cuts], [*cuts, end]):
            rate, clause, rule = rate_on(a, clock, terms, reading)
            out.append(RateSegment(a, b, rate, episode, clock, tuple(active), clause, rule,
                                   interps))

    once = readings["rate_clock"] == "once_per_deal"
    used = timedelta(0)        # default days of the earlier episodes (rate_clock)
    for ep in eps:
        # interpretation rate_clock: per_episode, day 1 is the episode's first day;
        # once_per_deal, the clock continues from the earlier episodes' default days, so
        # that only the deal's first 90 days of default are at 0.25% (RRA §3(a)(i) "the
        # first 90-day period during which a Registration Default shall have occurred")
        shift = used if once else timedelta(0)
        used += ep.end - ep.start
        if readings["overlapping_defaults"] in ("additive", "highest"):
            for i in ep.defaults:
                pieces(defaults[i].accrual_from, defaults[i].accrual_end(cutoff),
                       defaults[i].clock_start - shift, ep.number, (i,))
            continue
        edges = sorted({ep.start, ep.end} | {x for i in ep.defaults for x in (
            defaults[i].accrual_from, defaults[i].accrual_end(cutoff))})
        for a, b in zip(edges, edges[1:]):
            active = [i for i in ep.defaults
                      if defaults[i].accrual_from <= a and defaults[i].accrual_end(cutoff) >= b]
            if active:
                pieces(a, b, ep.start - shift, ep.number, active)
    return sorted(out, key=lambda s: (s.start, s.end, s.defaults))
