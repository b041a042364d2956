"""Amendments naming Holders whose Questionnaire arrived after the Questionnaire Deadline
(RRA §2(b), §4(d)).

RRA §2(b): "Upon receipt of a completed Questionnaire after the Questionnaire Deadline,
the Company will as promptly as practicable, but in any event within 10 Business Days of
receipt, file any amendments or supplements to the Shelf Registration Statement to allow
such Holder to be named as a selling Holder ...; provided, however, that the Company
shall not be obligated to file (i) more than one such pre-effective amendment or
supplement for all Holders during any fiscal quarter and (ii) more than one
post-effective amendment for all Holders during any semi-annual period, and provided
further, ... the Company shall only be obligated to make a filing when the principal
amount of Notes to be included in such amendment or supplement is more than $1 million."

Readings of ours: the fiscal quarter and the semi-annual period are calendar ones (the
Company's fiscal year is the calendar year); "the principal amount of Notes to be
included" is the Transfer Restricted principal, on the day of receipt, of every late
Holder not yet named by an amendment.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Sequence

from ledger.calendar import BusinessCalendar
from ledger.stored import Event
from ledger.dealterms import RegistrationTerms
from projections.basis import Basis
from projections.worked import Step, Worked

from .clock import after, unit_words
from .deadlines import Obligation, judge
from .holdings import Holdings
from .money import dollars, plain
from .questionnaire import Questionnaires
from .shelf import Shelf

#: the event types ``late_questionnaire_amendments`` reads
AMENDMENT_EVENTS = ("AmendmentFiled",)


def _quarter(d: date) -> tuple[int, int]:
    return d.year, (d.month - 1) // 3


def _half(d: date) -> tuple[int, int]:
    return d.year, (d.month - 1) // 6


def _excused(received: date, due: date, amendments: Sequence[Event],
             shelf: Shelf) -> str | None:
    """The §2(b) (i)/(ii) proviso: the allowance of filings already used. The Company is
    "not ... obligated to file ... more than one such ... amendment ... during any fiscal
    quarter" (semi-annual period): it is excused only if filing on any day from receipt to
    the due day would be more than one in that day's period. A window that reaches into
    the next period has a day on which that period's allowance is whole (its first), so
    that period excuses nothing (a review of stop 19: received 2004-09-28 after a filing
    on 09-01, due 10-13, was excused by the third quarter alone)."""
    before = [a for a in amendments if a.date < received and a.data["holders_added"]]
    quarter = [a for a in before if a.data["kind"] in ("pre_effective", "supplement")
               and _quarter(a.date) == _quarter(received) == _quarter(due)]
    half = [a for a in before if a.data["kind"] == "post_effective"
            and _half(a.date) == _half(received) == _half(due)]
    effective = shelf.effective_on is not None and shelf.effective_on <= received
    if quarter and (not effective or half):
        used = [a.id for a in quarter + (half if effective else [])]
        return f"the filings allowed this period were already made ({', '.join(used)})"
    return None


def late_questionnaire_amendments(q: Questionnaires, holdings: Holdings,
                                  events: Sequence[Event], shelf: Shelf,
                                  terms: RegistrationTerms, calendar: BusinessCalendar,
                                  as_of: date) -> list[Obligation]:
    """One obligation per late Questionnaire: due 10 Business Days after receipt (the
    terms' ``questionnaire.late_amendment``), met by an AmendmentFiled naming the Holder;
    ``excused`` under the provisos. None where the agreement has no such duty."""
    duty = terms.questionnaire.late_amendment if terms.questionnaire is not None else None
    if duty is None:
        return []
    n, unit, least = duty.within.count, duty.within.unit, duty.min_principal
    clause = duty.section
    amendments = [e for e in events if e.type == "AmendmentFiled"]
    late = q.late_deliveries()
    out = []
    for d, r in late:
        due = after(d.on, n, unit, calendar)
        pending = {x.holder for x, _ in late if x.on <= d.on and not any(
            x.holder in a.data["holders_added"] and x.on <= a.date < d.on for a in amendments)}
        snap = holdings.at(d.on)
        principal = sum((snap.trs(h) for h in pending), Decimal(0))
        done = next((a for a in amendments if a.date >= d.on
                     and d.holder in a.data["holders_added"]), None)
        why = (f"principal to be included {plain(principal)} is not more than "
               f"{plain(least)}"
               if principal <= least
               else _excused(d.on, due, amendments, shelf))
        st, met, late_on = judge(due, done.date if done else None, as_of)
        if why is not None and st != "met":
            st, late_on = "excused", None
        ids = (r.event, d.event) + ((done.id,) if done else ())
        arithmetic = Worked(
            f"received {d.on} (deadline {r.deadline}) + {n} {unit_words(unit)} = {due}; "
            f"principal of late Holders not yet named: "
            f"{plain(principal)}" + (f"; not obligated: {why}" if why else ""),
            (Step("plus_business_days", (d.on, n, calendar), due, "due")
             if unit == "business" else Step("plus_days", (d.on, n), due, "due"),))
        out.append(Obligation(f"file an amendment naming {d.holder} (late Questionnaire)",
                              clause, due, st, met, late_on, ids,
                              Basis(clause, f"file, within {n} {unit_words(unit)} of "
                                    f"receiving a late Questionnaire, an amendment or "
                                    f"supplement naming the Holder, if more than "
                                    f"{dollars(least)} of Notes is to be included",
                                    ids, (), arithmetic), d.holder))
    return out
