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

from ledger.dealterms import Rates, RegistrationTerms

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


def rate_on(day: date, clock_start: date, terms: RegistrationTerms,
            reading: str) -> tuple[Decimal, str, str]:
    """The §3(a) rate on ``day`` of a clock whose day 1 is ``clock_start``."""
    r: Rates = terms.rates
    closing = terms.closing_date
    first = day < clock_start + timedelta(days=r.first_days)
    k = day.year - closing.year
    if anniversary(closing, k) > day:
        k -= 1
    if k >= r.second_until_anniversary and not (
            first and reading == "first_90_days_always_quarter_point"):
        if k < r.step_from_anniversary:
            return (r.third, "RRA §3(a)(iii)",
                    f"from the {ordinal(k)} anniversary of the Closing Date to the next")
        steps = k - r.step_from_anniversary + 1
        return (r.third + r.step * steps, "RRA §3(a)(iv)",
                f"{r.step} points more on each anniversary of the Closing Date from the "
                f"{ordinal(r.step_from_anniversary)}; the {ordinal(k)} has passed")
    if first:
        return r.first, "RRA §3(a)(i)", f"the first {r.first_days} days of the Registration Default"
    return (r.second, "RRA §3(a)(ii)", f"from day {r.first_days + 1} to the "
            f"{ordinal(r.second_until_anniversary)} anniversary of the Closing Date")


def _boundaries(start: date, end: date, clock_start: date, terms: RegistrationTerms) -> list[date]:
    """Days inside ``(start, end)`` on which the rate may change."""
    cuts = {clock_start + timedelta(days=terms.rates.first_days)}
    for k in range(terms.rates.second_until_anniversary, end.year - terms.closing_date.year + 1):
        cuts.add(anniversary(terms.closing_date, k))
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
        if readings["overlapping_defaults"] == "additive":
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
