"""Notices and when they are deemed given (RRA §10(E)).

"All such notices and communications shall be deemed to have been duly given: at the
time delivered by hand, if personally delivered; five Business Days after being
deposited in the mail, postage prepaid, if mailed; when answered back, if telexed; when
receipt acknowledged, if transmitted by facsimile; and on the next Business Day, if
timely delivered to an air courier guaranteeing overnight delivery."
"""

from __future__ import annotations

from datetime import date
from typing import Any, Iterator, NamedTuple, Sequence

from ledger.calendar import FED, BusinessCalendar
from ledger.stored import Event
from ledger.dealterms import RegistrationTerms
from ledger.registration_terms import short_section
from projections.basis import Basis
from projections.worked import Step, Worked

from .clock import after, unit_words

#: the event types ``read_notices`` reads
NOTICE_EVENTS = ("NoticeSent", "NoticeAcknowledged")


class Notice(NamedTuple):
    """One NoticeSent and the day it is deemed given (a named tuple: a deal sends
    thousands, and each is made once per report)."""

    event: str
    to: str
    subject: str
    method: str
    sent_on: date
    deemed_given: date | None      # None: a telex or fax not yet acknowledged
    basis: Basis


def deemed_given(notice: Event, acknowledged: Event | None, terms: RegistrationTerms,
                 calendar: BusinessCalendar) -> tuple[date | None, str]:
    """RRA §10(E), method by method (the terms' ``notices.methods``); the arithmetic as
    words."""
    sent, method = notice.date, notice.data["method"]
    how = _methods(terms).get(method)
    if how is None:
        return None, Worked(f"sent by {method} {sent}: not a way of giving notice the "
                            f"agreement allows", ())
    if how.deemed == "on_delivery":
        by = "by hand" if method == "hand" else f"by {method}"
        return sent, Worked(f"delivered {by} on {sent}: given that day", ())
    if how.deemed in ("business_days_after", "days_after"):
        n, unit = how.count, "business" if how.deemed == "business_days_after" else "calendar"
        day = after(sent, n, unit, calendar)
        start = "deposited in the mail" if method == "mail" else f"sent by {method}"
        # the step is made when an explanation asks for it (a deal sends thousands)
        return day, Worked(f"{start} {sent} + {n} {unit_words(unit)} = {day}",
                           build=lambda: (Step("plus_business_days", (sent, n, calendar), day,
                                               "given") if unit == "business" else
                                          Step("plus_days", (sent, n), day, "given"),))
    if how.deemed == "next_business_day":
        day = calendar.next_business_day(sent)
        start = "given to an overnight courier" if method == "courier" else f"sent by {method}"
        return day, Worked(f"{start} {sent}; next Business Day = {day}",
                           build=lambda: (Step("plus_business_days", (sent, 1, calendar), day,
                                               "given"),))
    word = {"telex": "answered back", "fax": "receipt acknowledged"}.get(method, "acknowledged")
    if acknowledged is None:
        return None, Worked(f"sent by {method} {sent}; not yet {word}", ())
    return acknowledged.date, Worked(f"sent by {method} {sent}; {word} {acknowledged.date}",
                                     ())


def _methods(terms: RegistrationTerms) -> dict[str, Any]:
    """The terms' ways of giving notice, by method."""
    return {m.method: m for m in terms.notices.methods}


def acknowledged_methods(terms: RegistrationTerms) -> tuple[str, ...]:
    """The methods by which a notice is given when acknowledged (telex, fax)."""
    return tuple(m.method for m in terms.notices.methods if m.deemed == "when_acknowledged")


def read_notices(events: Sequence[Event], terms: RegistrationTerms,
                 calendar: BusinessCalendar) -> list[Notice]:
    """Every NoticeSent with the day it is deemed given (the first NoticeAcknowledged
    naming it, on or after it was sent, answers a telex or fax; one dated before the
    notice was sent answers nothing, and a later one still can). By hand, mail or
    courier the day depends only on the day sent and the method (the calendar is the
    deal's for the whole computation), so it is worked out once per (day, method)."""
    clause = terms.notices.section
    return [Notice(e.id, e.data["to"], e.data["subject"], e.data["method"], e.date, day,
                   Basis(clause, rule, ids, arithmetic=arithmetic))
            for e, rule, day, arithmetic, ids in _deemed(events, terms, calendar)]


def notices_json(events: Sequence[Event], terms: RegistrationTerms,
                 calendar: BusinessCalendar) -> list[dict[str, Any]]:
    """The report's ``notices`` (SPEC §7): ``read_notices`` as JSON, each basis as
    ``Basis.to_json`` writes it, made straight from the rule's findings (a deal sends
    thousands of notices, and the report is the only reader of their ``Notice`` and
    ``Basis``; tests/test_engine_registration_speed.py holds the two to each other)."""
    clause = terms.notices.section
    return [{"event": e.id, "to": e.data["to"], "subject": e.data["subject"],
             "method": e.data["method"], "sent_on": e.date.isoformat(),
             "deemed_given": day.isoformat() if day is not None else None,
             "basis": ({"clause": clause, "rule": rule, "events": list(ids),
                        "arithmetic": arithmetic} if arithmetic else
                       {"clause": clause, "rule": rule, "events": list(ids)})}
            for e, rule, day, arithmetic, ids in _deemed(events, terms, calendar)]


def _deemed(events: Sequence[Event], terms: RegistrationTerms, calendar: BusinessCalendar
            ) -> Iterator[tuple[Event, str, date | None, str, tuple[str, ...]]]:
    """Per NoticeSent, in order: (the event, the rule, the day deemed given, its
    arithmetic, the events it rests on)."""
    acks: dict[str, list[Event]] = {}
    sent: list[Event] = []
    for e in events:
        if e.type == "NoticeSent":
            sent.append(e)
        elif e.type == "NoticeAcknowledged":
            acks.setdefault(e.data["notice"], []).append(e)
    # the day and its arithmetic depend on the day sent, the method and (by mail) the
    # Business Days the terms give, on the Fed calendar (by telex or fax: on the day
    # answered, whatever the calendar): remembered across the deals of a portfolio, as
    # the calendar's own steps are; a calendar with declared days keeps its own
    given = _GIVEN if calendar is FED else {}
    if len(_GIVEN) >= 100_000:   # bounded, for a long-lived process
        _GIVEN.clear()
    methods = _methods(terms)
    acknowledged = acknowledged_methods(terms)
    clause = short_section(terms.notices.section)
    rules = _RULES
    for e in sent:
        method = e.data["method"]
        rule = rules.get((method, clause))
        if rule is None:
            rule = rules[(method, clause)] = (f"a notice by {method} is deemed given as "
                                              f"{clause} says for that method")
        how = methods.get(method)
        if how is None or how.deemed != "when_acknowledged":
            key = (e.date, method, how)
            found = given.get(key)
            if found is None:
                found = given[key] = deemed_given(e, None, terms, calendar)
            yield e, rule, found[0], found[1], (e.id,)
        else:
            answers = acks.get(e.id)
            ack = next((a for a in answers if a.date >= e.date), None) if answers else None
            key = (e.date, method, ack.date if ack is not None else None)
            found = _ANSWERED.get(key)
            if found is None:
                if len(_ANSWERED) >= 100_000:
                    _ANSWERED.clear()
                found = _ANSWERED[key] = deemed_given(e, ack, terms, calendar)
            yield e, rule, found[0], found[1], ((e.id, ack.id) if ack is not None
                                                and method in acknowledged else (e.id,))


_GIVEN: dict[tuple[date, str, Any], tuple[date | None, str]] = {}
_ANSWERED: dict[tuple[date, str, date | None], tuple[date | None, str]] = {}
_RULES: dict[tuple[str, str], str] = {}
