"""Obligations with due dates (SPEC §4.4 "Trustee notice", §4.5), judged as of ``as_of``.

Status: ``met`` (done on or before the due date), ``missed`` (done late, with
``late_on``, or not done and the due date has passed), ``open`` (not done, not yet due),
``excused`` (RRA §2(b) provisos: the Company "shall not be obligated" to file).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from typing import Callable, Sequence

from ledger.calendar import BusinessCalendar
from ledger.stored import Event
from ledger.dealterms import RegistrationTerms
from projections.basis import Basis
from projections.worked import Step, Worked

from .defaults import RegistrationDefault
from .questionnaire import Questionnaires
from .shelf import Shelf

ADVISE_TRIGGERS = {"ShelfFiled": "the Prospectus was filed",
                   "ShelfEffective": "the Shelf Registration Statement became effective"}
AMENDMENT_TRIGGERS = {"post_effective": "a post-effective amendment was filed",
                      "supplement": "a Prospectus supplement was filed"}
#: RRA §4(b)(iii)(A): a disability cured by filing a supplement or an effective
#: post-effective amendment (``ShelfUsable.cure``) is such a filing too
#: (the ``AmendmentFiled.kind`` of the same filing, the advice's words)
CURE_TRIGGERS = {"prospectus_supplement": ("supplement", "a Prospectus supplement was filed"),
                 "post_effective_amendment": ("post_effective", "a post-effective amendment "
                                              "was filed and became effective")}
#: RRA §4(b)(iii)(C) the stop order; (D) a fact that makes a statement of a material fact
#: in the Shelf Registration Statement or the Prospectus untrue, during the Effectiveness
#: Period (``ShelfUnusable.reason``)
UNUSABLE_TRIGGERS = {"stop_order": "a stop order was issued",
                     "material_misstatement": "a fact made a statement of a material fact "
                                              "in the Shelf Registration Statement or the "
                                              "Prospectus untrue"}
#: the event types ``trustee_notices`` and ``advise_holders`` read
TRUSTEE_EVENTS = ("TrusteeNotified",)
ADVISE_EVENTS = (*ADVISE_TRIGGERS, "AmendmentFiled", "ShelfUnusable", "ShelfUsable",
                 "HoldersAdvised")


@dataclass(frozen=True)
class Obligation:
    obligation: str
    clause: str
    due: date | None
    status: str
    met_on: date | None
    late_on: date | None
    events: tuple[str, ...]
    basis: Basis
    holder: str | None = None


def judge(due: date, done_on: date | None, as_of: date) -> tuple[str, date | None, date | None]:
    """(status, met_on, late_on) of something due on ``due`` and done on ``done_on``."""
    if done_on is not None and done_on <= due:
        return "met", done_on, None
    if done_on is not None:
        return "missed", None, done_on
    return ("missed" if as_of > due else "open"), None, None


def _oblige(what: str, clause: str, due: date, done: Event | date | None, as_of: date,
            events: tuple[str, ...], rule: str, arithmetic: str, holder: str | None = None,
            interpretations: tuple[str, ...] = ()) -> Obligation:
    done_on = done.date if isinstance(done, Event) else done
    ids = events + ((done.id,) if isinstance(done, Event) else ())
    st, met, late = judge(due, done_on, as_of)
    return Obligation(what, clause, due, st, met, late, ids,
                      Basis(clause, rule, ids, interpretations, arithmetic), holder)


def _first(events: Sequence[Event], type_: str, since: date, about: Sequence[str]) -> Event | None:
    """The first ``type_`` event on or after ``since`` whose ``about`` is absent or names
    one of ``about``."""
    return next((e for e in events if e.type == type_ and e.date >= since
                 and (e.data.get("about") is None or e.data["about"] in about)), None)


def shelf_deadlines(shelf: Shelf, terms: RegistrationTerms, opened: str,
                    as_of: date) -> list[Obligation]:
    """RRA §2(a)(i) file by the Shelf Filing Deadline; §2(a)(ii) effective by the
    Effectiveness Target Date."""
    return [
        _oblige("file the Shelf Registration Statement", "RRA §2(a)(i)", shelf.filing_deadline,
                shelf.filed, as_of, (opened,), "not later than 15 days after the date hereof",
                _plus(terms.closing_date, terms.filing_deadline_days, shelf.filing_deadline)),
        _oblige("Shelf Registration Statement declared effective", "RRA §2(a)(ii)",
                shelf.effectiveness_deadline, shelf.effective, as_of, (opened,),
                "not later than 120 days after the date hereof (the Effectiveness Target Date)",
                _plus(terms.closing_date, terms.effectiveness_deadline_days,
                      shelf.effectiveness_deadline))]


def _plus(start: date, n: int, due: date, calendar: BusinessCalendar | None = None,
          prefix: str = "", suffix: str = "") -> Worked:
    """``start + n (Business) days = due``, as text and as a step."""
    unit = "Business Days" if calendar is not None else "days"
    step = (Step("plus_business_days", (start, n, calendar), due, "due") if calendar is not None
            else Step("plus_days", (start, n), due, "due"))
    return Worked(f"{prefix}{start} + {n} {unit} = {due}{suffix}", (step,))


def trustee_notices(defaults: Sequence[RegistrationDefault], events: Sequence[Event],
                    terms: RegistrationTerms, calendar: BusinessCalendar,
                    as_of: date, positions: Sequence[Event] = ()) -> list[Obligation]:
    """RRA §3(b): "So long as any Notes remain outstanding, the Company shall notify the
    Trustee within two Business Days after each and every date on which an event occurs
    in respect of which Additional Interest is required to be paid": due the 2nd Business
    Day after each default date; met by a TrusteeNotified on or after the default date
    about it (or about nothing named); ``excused`` when no Note was outstanding at the
    end of the default date (``positions``: the position events; Conversion Shares may
    still be Transfer Restricted, and a default on them still listed, but they are not
    Notes)."""
    n = terms.trustee_notice_business_days
    out = []
    seen: set[tuple] = set()
    for d in defaults:
        key = (d.kind, d.default_date, d.events)
        if key in seen:   # one default resumed after a permitted Suspension Period
            continue
        seen.add(key)
        due = calendar.add_business_days(d.default_date, n)
        o = _oblige(f"notify the Trustee of Registration Default {d.kind} (default date "
                    f"{d.default_date})", "RRA §3(b)", due,
                    _first(events, "TrusteeNotified", d.default_date, d.events), as_of,
                    d.events, "notify the Trustee within two Business Days after the default "
                    "date", _plus(d.default_date, n, due, calendar),
                    interpretations=d.interpretations)
        if o.status != "met" and not notes_outstanding(positions, d.default_date):
            o = replace(o, status="excused", late_on=None, basis=replace(
                o.basis, arithmetic=_then(o.basis.arithmetic, f"; not obligated: no Note "
                                          f"outstanding on {d.default_date} (RRA §3(b) \"So "
                                          "long as any Notes remain outstanding\")")))
        out.append(o)
    return out


def notes_outstanding(positions: Sequence[Event], day: date) -> bool:
    """Any Note outstanding at the end of ``day``: issued and not converted or retired
    (RRA §1 Transfer Restricted Securities (B) "ceases to be outstanding"); a Note sold,
    under the shelf or not, is still outstanding."""
    total = 0
    for e in positions:
        if e.date > day:
            break
        if e.type == "NotesIssued":
            total += e.data["principal"]
        elif e.type in ("NotesConverted", "NotesRetired"):
            total -= e.data["principal"]
    return total > 0


def advise_holders(events: Sequence[Event], terms: RegistrationTerms,
                   calendar: BusinessCalendar, as_of: date,
                   in_period: Callable[[date], bool] = lambda day: True) -> list[Obligation]:
    """RRA §4(b)(iii): "Advise the selling Holders promptly (but in any event within five
    Business Days) ... (A) when the Prospectus or any Prospectus supplement or
    post-effective amendment has been filed, and ... when the same has become effective,
    ... (C) of the issuance by the Commission of any stop order ..., or (D) of the
    existence of any fact or the happening of any event, during the Effectiveness Period,
    that makes any statement of a material fact made in the Shelf Registration Statement,
    the Prospectus ... untrue". SPEC §4.5 names a filing, effectiveness or stop order; the
    contract's (A) and (D) also reach a ``ShelfUnusable`` for a material misstatement
    (``in_period``: during the Effectiveness Period) and a ``ShelfUsable`` cured by a
    supplement or post-effective amendment, unless an ``AmendmentFiled`` of that kind on
    the same day already calls for the advice."""
    n = terms.advise_holders_business_days
    filed = {(e.date, e.data["kind"]) for e in events if e.type == "AmendmentFiled"}
    out = []
    for e in events:
        what = ADVISE_TRIGGERS.get(e.type)
        if e.type == "AmendmentFiled":
            what = AMENDMENT_TRIGGERS.get(e.data["kind"])
        if e.type == "ShelfUnusable":
            what = UNUSABLE_TRIGGERS.get(e.data["reason"])
            if e.data["reason"] != "stop_order" and not in_period(e.date):
                what = None
        if e.type == "ShelfUsable" and e.data["cure"] in CURE_TRIGGERS:
            kind, words = CURE_TRIGGERS[e.data["cure"]]
            what = None if (e.date, kind) in filed else words
        if what is None:
            continue
        due = calendar.add_business_days(e.date, n)
        out.append(_oblige(f"advise the selling Holders: {what} ({e.date})", "RRA §4(b)(iii)",
                           due, _first(events, "HoldersAdvised", e.date, (e.id,)), as_of,
                           (e.id,), "advise the selling Holders within five Business Days",
                           _plus(e.date, n, due, calendar)))
    return out


def questionnaire_deadlines(q: Questionnaires, terms: RegistrationTerms,
                            as_of: date, calendar: BusinessCalendar | None = None
                            ) -> list[Obligation]:
    """RRA §2(b), §4(d): each Holder asked delivers "prior to or on the 20th Business Day
    after the date of a written request" (a delivery before the request counts)."""
    out = []
    for r in q.requests:
        for h in r.holders:
            done = next(iter(q.deliveries.get(h, ())), None)
            out.append(_oblige(f"Questionnaire from {h}", "RRA §2(b), §4(d)", r.deadline,
                               done.on if done else None, as_of,
                               (r.event,) + ((done.event,) if done else ()),
                               "deliver the Questionnaire by the 20th Business Day after the "
                               "request", _plus(r.on, terms.questionnaire_business_days,
                                                r.deadline, calendar)
                               if calendar is not None else
                               f"{r.on} + {terms.questionnaire_business_days} "
                               f"Business Days = {r.deadline}", holder=h))
    return out


def effectiveness_period(shelf: Shelf, defaults: Sequence[RegistrationDefault],
                         as_of: date) -> list[Obligation]:
    """RRA §2(a)(iii): "keep the Shelf Registration Statement continuously effective ...
    for a period (the "EFFECTIVENESS PERIOD")": open until it ends; then met if no default
    (iii) or (iv) accrued inside it, else missed."""
    if shelf.effective is None or shelf.period_end is None:
        return []
    inside = [d for d in defaults if d.kind in ("(iii)", "(iv)(A)", "(iv)(B)")
              and d.accrual_from < shelf.period_end]
    ids = (shelf.effective.id,) + tuple(i for d in inside for i in d.events)
    if as_of < shelf.period_end:
        st, met = "open", None
    else:
        st, met = ("missed", None) if inside else ("met", shelf.period_end)
    basis = shelf.period_end_basis
    return [Obligation("keep the Shelf Registration Statement effective to the end of the "
                       "Effectiveness Period", basis.clause, shelf.period_end, st, met, None,
                       ids, Basis(basis.clause, basis.rule, ids, (), _then(
                           basis.arithmetic, f"; defaults inside it: "
                                             f"{', '.join(d.kind for d in inside)}"
                           if inside else "")))]


def _then(arithmetic: str | None, more: str) -> str:
    """``arithmetic + more``, keeping the steps it carries."""
    if isinstance(arithmetic, Worked):
        return arithmetic.then(more)
    return (arithmetic or "") + more
