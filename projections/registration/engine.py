"""The Registration Rights engine: every projection of one deal's timeline, as values.

``compute(timeline, interpretations)`` runs the pieces in the order they depend on each
other: Holders and their Notes; Questionnaires; the shelf and its Effectiveness Period;
Suspension Periods and their breaches; Registration Defaults; episodes and rate
segments; Additional Interest per Holder per Interest Payment Date; obligations,
notices and consents. ``report.build`` turns the result into JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from datetime import date
from decimal import Decimal
from typing import Any, Mapping, Sequence

from ledger.calendar import FED, BusinessCalendar
from ledger.dealterms import RegistrationTerms, registration_terms
from ledger.stored import Event
from projections.timeline import Timeline, parsed_terms

from .amendments import AMENDMENT_EVENTS, late_questionnaire_amendments
from .clock import ONE_DAY
from .deadlines import (ADVISE_EVENTS, TRUSTEE_EVENTS, Obligation, advise_holders,
                        effectiveness_period, questionnaire_deadlines, shelf_deadlines,
                        trustee_notices)
from .amended import AMENDMENT_TYPES, splice, versions
from .defaults import ORDER, RegistrationDefault, registration_defaults
from .holdings import POSITION_EVENTS, Holdings, build_holdings
from .interest import PLAIN, Accrual, Payees, Run, rate_runs
from .majority import CONSENT_EVENTS, Consent, majorities
from .notices import NOTICE_EVENTS, Notice, read_notices
from .payments import PAYMENT_EVENTS, Payment, payments
from .questionnaire import QUESTIONNAIRE_EVENTS, Questionnaires, read_questionnaires
from .rates import Episode, RateSegment, episodes, rate_segments
from .readings import in_force
from .schedule import periods_through
from .shares import PRICE_EVENTS, SHARE_EVENTS, ConversionPrices, ShareBook
from .shelf import (ANCHOR_EVENTS, SHELF_EVENTS, Anchors, Shelf, named_selling_holders_end,
                    read_shelf)
from .suspensions import (NO_RIGHT, SUSPENSION_EVENTS, Breach, SuspensionPeriod, breaches,
                          read_suspensions)
from .suspicious import payment_problems, repeated_notices


@dataclass(frozen=True)
class Registration:
    terms: RegistrationTerms
    readings: Mapping[str, str]
    as_of: date
    cutoff: date                      # the day after the last day accrued (as_of + 1)
    holdings: Holdings
    questionnaires: Questionnaires
    shelf: Shelf
    suspensions: tuple[SuspensionPeriod, ...]
    breaches: tuple[Breach, ...]
    defaults: tuple[RegistrationDefault, ...]
    episodes: tuple[Episode, ...]
    segments: tuple[RateSegment, ...]
    accrual: Accrual
    payments: tuple[Payment, ...]
    obligations: tuple[Obligation, ...]
    consents: Mapping[str, Consent]
    problems: tuple[str, ...]
    #: ``obligations`` by the rule that made them, in each rule's own order ("shelf",
    #: "trustee", "advise", "late_amendments"), for the obligations' lifecycle
    #: (``projections.obligations.registration``), which would otherwise work them out again
    by_rule: Mapping[str, tuple[Obligation, ...]] = field(default_factory=dict)
    #: the NoticeSent and NoticeAcknowledged events and the deal's calendar: ``notices``
    #: is worked out from them when read (the report writes them straight to JSON,
    #: ``notices.notices_json``)
    notice_events: tuple[Event, ...] = ()
    calendar: BusinessCalendar = FED
    #: each TermsAmended and the consents it rests on, judged on its day (RRA §10(D))
    amendments: tuple[tuple[Event, Consent], ...] = ()

    @cached_property
    def notices(self) -> tuple[Notice, ...]:
        """Every notice and the day it is deemed given (RRA §10(E))."""
        return tuple(read_notices(self.notice_events, self.terms, self.calendar))

    @property
    def limits(self):
        """The deal's suspension limits (``NO_RIGHT`` where it has no right to suspend)."""
        return self.terms.suspensions or NO_RIGHT

    @property
    def in_default(self) -> bool:
        """A listed Registration Default accrues on ``as_of`` (Notes still outstanding)."""
        return self.as_of < self.terms.maturity and any(
            d.accrual_from <= self.as_of and (d.accrual_until is None
                                             or self.as_of < d.accrual_until)
            for d in self.defaults)


def compute(timeline: Timeline, interpretations: Mapping[str, str]) -> Registration:
    """All projections of a ``registration_rights`` timeline under ``interpretations``.
    Accrual counts the days through ``as_of`` and stops at maturity, when no Note is
    outstanding (RRA §1 Transfer Restricted Securities (B)). Each reader is given the
    events of the types it reads (``timeline.of_type``), in timeline order. The rules
    read the deal's terms (``ledger.registration_terms``): its deadlines, defaults,
    damages, payments, limits and duties, each with its own clause; amended terms
    (``TermsAmended``, RRA §10(D)) from their effective dates (``amended``)."""
    if timeline.kind != "registration_rights":
        raise ValueError(f"deal {timeline.deal} is a {timeline.kind} deal")
    readings = in_force(interpretations)
    changes = timeline.of_type(*AMENDMENT_TYPES)
    if not changes:
        return _compute(timeline, readings, parsed_terms(timeline.terms, registration_terms))
    runs = [(lo, hi, _compute(timeline, readings, parsed_terms(t, registration_terms)))
            for lo, hi, t, _ in versions(timeline.terms, changes, timeline.as_of)]
    if len(runs) == 1:
        return runs[0][2]
    caps = [(lo, hi, r.terms.damages.cap) for lo, hi, r in runs]
    return splice(runs, lambda last, defaults, segments, by_rule, deadlines: _rebuild(
        timeline, last, defaults, segments, by_rule, deadlines, caps))


def _rebuild(timeline: Timeline, last: Registration, defaults: list[RegistrationDefault],
             segments: list[RateSegment], by_rule: Mapping[str, tuple[Obligation, ...]],
             deadlines: tuple[Any, Any],
             caps: Sequence[tuple[date, date, Decimal | None]]) -> Registration:
    """The result of the version in force on ``as_of`` with the defaults, segments and
    obligations spliced from every version (``amended.splice``), and what follows from
    them again: episodes, the accrual (each version's days under its own cap: ``caps``,
    ``(from, until, cap)``), the payments."""
    defaults.sort(key=lambda d: (d.accrual_from, ORDER[d.what]))
    segments.sort(key=lambda s: (s.start, s.end, s.defaults))
    terms, readings = last.terms, last.readings
    highest = readings["overlapping_defaults"] == "highest"
    runs: list[Run] = []
    for lo, hi, cap in caps:   # a segment lies within one version's days (``splice``)
        for r in rate_runs([s for s in segments if lo <= s.start < hi], highest, cap):
            if runs and runs[-1].end == r.start and runs[-1].rate == r.rate:
                runs[-1] = Run(runs[-1].start, r.end, r.rate)
            else:
                runs.append(r)
    accrual = Accrual(runs, terms.day_count)
    pays, problems = _payments(timeline, terms, last.holdings, last.questionnaires, accrual,
                               last.cutoff, readings, last.shelf.anchors)
    shelf = last.shelf
    (filing, effectiveness) = deadlines
    shelf = replace(shelf, filing_deadline=filing[0] if filing else None,
                    filing_arithmetic=filing[1] if filing else None,
                    effectiveness_deadline=effectiveness[0] if effectiveness else None,
                    effectiveness_arithmetic=effectiveness[1] if effectiveness else None)
    obligations = sorted((o for part in by_rule.values() for o in part),
                         key=lambda o: (o.due or date.max, o.obligation))
    return replace(last, shelf=shelf, defaults=tuple(defaults),
                   episodes=tuple(episodes(defaults, last.cutoff)), segments=tuple(segments),
                   accrual=accrual, payments=tuple(pays), obligations=tuple(obligations),
                   by_rule=by_rule, problems=(*last.problems, *problems))


def _payments(timeline: Timeline, terms: RegistrationTerms, holdings: Holdings,
              quest: Questionnaires, accrual: Accrual, cutoff: date,
              readings: Mapping[str, str], anchors: Anchors) -> tuple[list[Payment], list[str]]:
    """Each Interest Payment Date's amounts and payments (``payments.payments``), with who
    earns on what as the terms say (``payees_of``)."""
    of, frees = timeline.of_type, terms.frees
    share_book = ShareBook(of(*SHARE_EVENTS), frees)
    prices = ConversionPrices.of(terms.conversion_price, of(*PRICE_EVENTS))
    periods = periods_through(terms, timeline.calendar, timeline.as_of)
    return payments(periods, of(*PAYMENT_EVENTS), accrual, holdings, quest, cutoff,
                    timeline.as_of, readings, payees_of(terms, anchors, share_book, prices),
                    prices if terms.payment.paid_in == "shares" else None)


def _compute(timeline: Timeline, readings: Mapping[str, str],
             terms: RegistrationTerms) -> Registration:
    """``compute`` under one version of the terms."""
    of, as_of, cal = timeline.of_type, timeline.as_of, timeline.calendar
    cutoff = min(as_of + ONE_DAY, terms.maturity)
    periods = periods_through(terms, cal, as_of)
    questionnaire_events = of(*QUESTIONNAIRE_EVENTS)
    days = ({p.record_date for p in periods} | {as_of} | {e.date for e in questionnaire_events}
            | {e.date for e in of(*AMENDMENT_TYPES)})
    position_events = of(*POSITION_EVENTS)
    named = readings["registered_securities"] == "named_selling_holders"
    named_days = ({e.date for e in position_events} | {e.date for e in of("ShelfEffective")}
                  if named else set())
    frees = terms.frees
    holdings = build_holdings(position_events, days | named_days, frees=frees)
    quest = read_questionnaires(questionnaire_events, terms, cal,
                                lambda d: holdings.at(d).holders_of_trs(),
                                readings["questionnaire_deadline"])
    anchors = Anchors.of(terms, of(*ANCHOR_EVENTS))
    shelf = read_shelf(of(*SHELF_EVENTS), terms, holdings, anchors, cal)
    if named:   # interpretation registered_securities (RRA §2(a)(iii)(y))
        shelf = named_selling_holders_end(shelf, holdings, quest, of(*AMENDMENT_EVENTS),
                                          sorted(named_days), terms)
    limits = terms.suspensions or NO_RIGHT
    suspensions, s_problems = read_suspensions(of(*SUSPENSION_EVENTS), limits,
                                               shelf.in_effectiveness_period)
    found = breaches(suspensions, limits, as_of, readings["window_material_allowance"])
    defaults, d_problems = registration_defaults(shelf, found, terms, cal, timeline.opened.id,
                                                 as_of, readings, suspensions,
                                                 lambda i: timeline.by_id[i].seq)
    segments = rate_segments(defaults, cutoff, terms, readings)
    accrual = Accrual(rate_runs(segments, readings["overlapping_defaults"] == "highest",
                                terms.damages.cap), terms.day_count)
    share_book = ShareBook(of(*SHARE_EVENTS), frees)
    prices = ConversionPrices.of(terms.conversion_price, of(*PRICE_EVENTS))
    pays, p_problems = _payments(timeline, terms, holdings, quest, accrual, cutoff, readings,
                                 anchors)
    # legal, but suspicious (issue 31)
    p_problems += payment_problems(pays, of(*PAYMENT_EVENTS), terms)
    by_rule = {
        "shelf": tuple(shelf_deadlines(shelf, terms, timeline.opened.id, as_of)),
        "trustee": tuple(trustee_notices(defaults, of(*TRUSTEE_EVENTS), terms, cal, as_of,
                                         position_events)),
        "advise": tuple(advise_holders(of(*ADVISE_EVENTS), terms, cal, as_of,
                                       shelf.in_effectiveness_period)),
        "questionnaire": tuple(questionnaire_deadlines(quest, terms, as_of, cal)),
        "late_amendments": tuple(late_questionnaire_amendments(
            quest, holdings, of(*AMENDMENT_EVENTS), shelf, terms, cal, as_of)),
        "effectiveness": tuple(effectiveness_period(shelf, defaults, as_of))}
    obligations = [o for part in by_rule.values() for o in part]
    obligations.sort(key=lambda o: (o.due or date.max, o.obligation))
    return Registration(
        terms, readings, as_of, cutoff, holdings, quest, shelf, suspensions, tuple(found),
        tuple(defaults), tuple(episodes(defaults, cutoff)), tuple(segments), accrual,
        tuple(pays), tuple(obligations),
        majorities(of(*CONSENT_EVENTS), holdings.at(as_of), terms,
                   share_book.restricted(as_of), prices.on(as_of)),
        (*holdings.problems, *shelf.problems, *s_problems, *d_problems, *p_problems,
         *share_book.problems,
         *repeated_notices(of(*TRUSTEE_EVENTS, "HoldersAdvised"), terms)),
        by_rule, tuple(of(*NOTICE_EVENTS)), cal,
        _amendments(timeline, terms, holdings, share_book, prices))


def _amendments(timeline: Timeline, terms: RegistrationTerms, holdings: Holdings,
                book: ShareBook, prices: ConversionPrices
                ) -> tuple[tuple[Event, Consent], ...]:
    """Each amendment with the consents to its matter as they stood on its day: the
    majority it rests on (RRA §10(D); the write side refused one short of it)."""
    out = []
    consents = timeline.of_type(*CONSENT_EVENTS)
    for e in timeline.of_type(*AMENDMENT_TYPES):
        day = e.date
        found = majorities([c for c in consents if c.date <= day], holdings.at(day), terms,
                           book.restricted(day), prices.on(day))
        matter = e.data["matter"]
        out.append((e, found.get(matter) or majorities(
            [], holdings.at(day), terms, {}, prices.on(day)).get(matter)))
    return tuple(out)


def payees_of(terms: RegistrationTerms, anchors: Anchors, book: ShareBook,
              prices: ConversionPrices) -> Payees:
    """Who earns on what, from the terms (``interest.Payees``); the Infocrossing RRA's
    own (``PLAIN``) where they say what it says."""
    found = Payees(outstanding=terms.damages.base == "outstanding",
                   free=anchors.trs_until_144k, paid_to=terms.payment.paid_to,
                   shares=(book, prices) if terms.damages.conversion_shares
                   == "applicable_conversion_price" else None)
    return PLAIN if found == PLAIN else found
