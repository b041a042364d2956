"""Selling Securityholder Questionnaires (RRA §2(b), §4(d)) and the entitlement to
Additional Interest they decide (RRA §3(a), last paragraph).

RRA §2(b): "Holders are required to complete and deliver the Questionnaire to the
Company prior to or on the 20th Business Day after the date of a written request
therefor by the Company (... the "QUESTIONNAIRE DEADLINE")" and "each Holder may complete
the Questionnaire and deliver it to the Company prior to such request". RRA §3(a): "A
Holder will not be entitled to Additional Interest unless it has provided all
information requested by the Questionnaire prior to the deadline specified therein."
The Questionnaire (Exhibit A) specifies its own deadline: "MUST BE RETURNED ... ON OR
BEFORE THE 20TH DATE FOLLOWING DELIVERY OF THE NOTICE AND QUESTIONNAIRE". So two
deadlines run from one request: the §2(b) Questionnaire Deadline (Business Days), which
decides being named in the Prospectus and the late-Questionnaire amendments, and the
entitlement deadline of §3(a), which interpretation ``questionnaire_deadline`` reads as
the form's 20 calendar days (the contract's words, the default) or as the §2(b)
Questionnaire Deadline (SPEC §4.4's reading). The request's date stands for the
delivery of the form.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Callable, Mapping, Sequence

from ledger.calendar import BusinessCalendar
from ledger.stored import Event
from ledger.dealterms import RegistrationTerms

from .clock import after

DEADLINE_READING = ("questionnaire_deadline", "questionnaire_entitlement_judged_on")
#: the event types ``read_questionnaires`` reads
QUESTIONNAIRE_EVENTS = ("QuestionnaireRequested", "QuestionnaireDelivered")


@dataclass(frozen=True)
class Request:
    event: str
    on: date
    deadline: date            # the §2(b) Questionnaire Deadline
    entitlement_deadline: date  # the §3(a) deadline, as interpretation questionnaire_deadline reads it
    holders: tuple[str, ...]  # "all" = every Holder of record at the end of ``on``
    everyone: bool


@dataclass(frozen=True)
class Delivery:
    holder: str
    on: date
    event: str
    seq: int = 0              # its place in the log: same-day ties (SPEC §1)


@dataclass(frozen=True)
class Entitlement:
    entitled: bool
    reason: str
    events: tuple[str, ...] = ()
    interpretations: tuple[str, ...] = ()


NEVER_ASKED = {
    "entitled": Entitlement(True, "never asked for a Questionnaire: entitled",
                            interpretations=("no_questionnaire_request",)),
    "not_entitled": Entitlement(False, "never asked for a Questionnaire and none delivered: "
                                       "not entitled",
                                interpretations=("no_questionnaire_request",)),
}


@dataclass(frozen=True)
class Questionnaires:
    requests: tuple[Request, ...]
    deliveries: Mapping[str, tuple[Delivery, ...]]
    by_holder: Mapping[str, tuple[Request, ...]]

    def delivered(self, holder: str, by: date) -> Delivery | None:
        """The first Questionnaire ``holder`` delivered on or before ``by``."""
        for d in self.deliveries.get(holder, ()):
            if d.on <= by:
                return d
        return None

    def entitlement(self, holder: str, day: date, no_request: str) -> Entitlement:
        """RRA §3(a): is ``holder`` entitled to Additional Interest on ``day`` (a record date)?

        The latest request whose entitlement deadline has passed decides: entitled
        if the Holder delivered on or before that deadline (Exhibit A "on or before";
        §2(b) "prior to or on"; a delivery before the request counts, §2(b)). A request
        whose deadline has not passed does not yet disentitle. A Holder never asked is entitled if it
        delivered anyway; otherwise interpretation ``no_questionnaire_request`` decides.
        """
        if holder not in self.by_holder and holder not in self.deliveries:
            return NEVER_ASKED[no_request]
        asked = [r for r in self.by_holder.get(holder, ()) if r.on <= day]
        passed = [r for r in asked if r.entitlement_deadline < day]
        if passed:
            r = passed[-1]
            d = self.delivered(holder, r.entitlement_deadline)
            if d is not None:
                return Entitlement(True, f"Questionnaire delivered {d.on}, on or before the "
                                         f"deadline {r.entitlement_deadline}",
                                   (r.event, d.event), DEADLINE_READING)
            return Entitlement(False, f"Questionnaire requested {r.on}, not delivered by "
                                      f"the deadline {r.entitlement_deadline}", (r.event,),
                               DEADLINE_READING)
        if asked:
            r = asked[-1]
            return Entitlement(True, f"Questionnaire requested {r.on}; its deadline "
                                     f"{r.entitlement_deadline} has not passed", (r.event,),
                               DEADLINE_READING)
        d = self.delivered(holder, day)
        if d is not None:
            return Entitlement(True, f"Questionnaire delivered {d.on} without a request",
                               (d.event,))
        return NEVER_ASKED[no_request]

    def late_deliveries(self) -> list[tuple[Delivery, Request]]:
        """RRA §2(b): each "completed Questionnaire [received] after the Questionnaire
        Deadline": the first delivery after a deadline missed."""
        out: dict[str, tuple[Delivery, Request]] = {}
        for holder, reqs in self.by_holder.items():
            for r in reqs:
                if self.delivered(holder, r.deadline) is not None:
                    continue
                late = next((d for d in self.deliveries.get(holder, ()) if d.on > r.deadline),
                            None)
                if late is not None and late.event not in out:
                    out[late.event] = (late, r)
        return sorted(out.values(), key=lambda pair: (pair[0].on, pair[0].seq))


def read_questionnaires(events: Sequence[Event], terms: RegistrationTerms,
                        calendar: BusinessCalendar,
                        holders_of_record: Callable[[date], tuple[str, ...]],
                        deadline_reading: str) -> Questionnaires:
    """RRA §2(b), §4(d): deadline = the 20th Business Day after the request (the terms'
    ``questionnaire.deadline``); ``"all"`` asks every Holder of record at the end of its
    date. RRA §3(a), Exhibit A: the entitlement deadline is the form's (20 calendar days
    after the request, ``questionnaire.form_deadline``), or the §2(b) deadline
    (``deadline_reading``). A deal without a Questionnaire asks none."""
    requests: list[Request] = []
    deliveries: dict[str, list[Delivery]] = {}
    q = terms.questionnaire
    for e in events:
        if e.type == "QuestionnaireRequested" and q is not None:
            everyone = e.data["holders"] == "all"
            holders = holders_of_record(e.date) if everyone else tuple(e.data["holders"])
            deadline = after(e.date, q.deadline.count, q.deadline.unit, calendar)
            form = q.form_deadline
            entitlement = (after(e.date, form.count, form.unit, calendar)
                           if deadline_reading == "questionnaire_form" and form is not None
                           else deadline)
            requests.append(Request(e.id, e.date, deadline, entitlement, tuple(holders),
                                    everyone))
        elif e.type == "QuestionnaireDelivered":
            deliveries.setdefault(e.data["holder"], []).append(
                Delivery(e.data["holder"], e.date, e.id, e.seq))
    by_holder: dict[str, list[Request]] = {}
    for r in requests:
        for h in r.holders:
            by_holder.setdefault(h, []).append(r)
    return Questionnaires(tuple(requests), {h: tuple(v) for h, v in deliveries.items()},
                          {h: tuple(v) for h, v in by_holder.items()})
