"""The Registration Rights engine: every projection of one deal's timeline, as values.

``compute(timeline, interpretations)`` runs the pieces in the order they depend on each
other: Holders and their Notes; Questionnaires; the shelf and its Effectiveness Period;
Suspension Periods and their breaches; Registration Defaults; episodes and rate
segments; Additional Interest per Holder per Interest Payment Date; obligations,
notices and consents. ``report.build`` turns the result into JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from datetime import date
from typing import Mapping

from ledger.calendar import FED, BusinessCalendar
from ledger.dealterms import RegistrationTerms, registration_terms
from ledger.stored import Event
from projections.timeline import Timeline, parsed_terms

from .amendments import AMENDMENT_EVENTS, late_questionnaire_amendments
from .clock import ONE_DAY
from .deadlines import (ADVISE_EVENTS, TRUSTEE_EVENTS, Obligation, advise_holders,
                        effectiveness_period, questionnaire_deadlines, shelf_deadlines,
                        trustee_notices)
from .defaults import RegistrationDefault, registration_defaults
from .holdings import POSITION_EVENTS, Holdings, build_holdings
from .interest import Accrual, rate_runs
from .majority import CONSENT_EVENTS, Consent, majorities
from .notices import NOTICE_EVENTS, Notice, read_notices
from .payments import PAYMENT_EVENTS, Payment, payments
from .questionnaire import QUESTIONNAIRE_EVENTS, Questionnaires, read_questionnaires
from .rates import Episode, RateSegment, episodes, rate_segments
from .readings import in_force
from .schedule import periods_through
from .shelf import SHELF_EVENTS, Shelf, named_selling_holders_end, read_shelf
from .suspensions import (SUSPENSION_EVENTS, Breach, SuspensionPeriod, breaches,
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

    @cached_property
    def notices(self) -> tuple[Notice, ...]:
        """Every notice and the day it is deemed given (RRA §10(E))."""
        return tuple(read_notices(self.notice_events, self.terms, self.calendar))

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
    events of the types it reads (``timeline.of_type``), in timeline order."""
    if timeline.kind != "registration_rights":
        raise ValueError(f"deal {timeline.deal} is a {timeline.kind} deal")
    readings = in_force(interpretations)
    terms = parsed_terms(timeline.terms, registration_terms)
    of, as_of, cal = timeline.of_type, timeline.as_of, timeline.calendar
    cutoff = min(as_of + ONE_DAY, terms.maturity)
    periods = periods_through(terms, cal, as_of)
    questionnaire_events = of(*QUESTIONNAIRE_EVENTS)
    days = {p.record_date for p in periods} | {as_of} | {e.date for e in questionnaire_events}
    position_events = of(*POSITION_EVENTS)
    named = readings["registered_securities"] == "named_selling_holders"
    named_days = ({e.date for e in position_events} | {e.date for e in of("ShelfEffective")}
                  if named else set())
    holdings = build_holdings(position_events, days | named_days)
    quest = read_questionnaires(questionnaire_events, terms, cal,
                                lambda d: holdings.at(d).holders_of_trs(),
                                readings["questionnaire_deadline"])
    shelf = read_shelf(of(*SHELF_EVENTS), terms, holdings)
    if named:   # interpretation registered_securities (RRA §2(a)(iii)(y))
        shelf = named_selling_holders_end(shelf, holdings, quest, of(*AMENDMENT_EVENTS),
                                          sorted(named_days))
    suspensions, s_problems = read_suspensions(of(*SUSPENSION_EVENTS), terms.suspension_limits,
                                               shelf.in_effectiveness_period)
    found = breaches(suspensions, terms.suspension_limits, as_of,
                     readings["window_material_allowance"])
    defaults, d_problems = registration_defaults(shelf, found, terms, cal, timeline.opened.id,
                                                 as_of, readings, suspensions,
                                                 lambda i: timeline.by_id[i].seq)
    segments = rate_segments(defaults, cutoff, terms, readings)
    accrual = Accrual(rate_runs(segments), terms.day_count)
    paid_events = of(*PAYMENT_EVENTS)
    pays, p_problems = payments(periods, paid_events, accrual, holdings, quest, cutoff, as_of,
                                readings)
    p_problems += payment_problems(pays, paid_events)   # legal, but suspicious (issue 31)
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
        majorities(of(*CONSENT_EVENTS), holdings, holdings.at(as_of), terms),
        (*holdings.problems, *shelf.problems, *s_problems, *d_problems, *p_problems,
         *repeated_notices(of(*TRUSTEE_EVENTS, "HoldersAdvised"))),
        by_rule, tuple(of(*NOTICE_EVENTS)), cal)
