"""What a registration rights deal's terms must say together, beyond each term's type
(``ledger.terms`` runs these after the schema's own checks): bounds a real deal has (a
deadline of 10**12 days, a closing date in the year 9999 are typos that would otherwise
only break every later report), dates in order, a damages ladder that starts on day 1,
windows that hold their limits, defaults that have what they are about. Each problem is
``(path, what is wrong)``.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from decimal import Decimal
from typing import Any, Iterator

from .registration_terms import Damages, Deadline, PeriodEnd, RegistrationTerms, Suspensions, Window

EARLIEST_DATE, LATEST_DATE = date(1990, 1, 1), date(2100, 12, 31)
LONGEST_TERM_YEARS = 50   # from the closing (agreement) date to maturity (cutoff)
HIGHEST_RATE = Decimal(25)  # per cent per annum, in any step of Additional Interest
MOST_DAYS = 3660            # ten years: longer than any deal's period
MOST_BUSINESS_DAYS = 260    # a year of Business Days
MOST_PRINCIPAL = Decimal(10) ** 13


def _within(path: str, value: int, most: int, unit: str, why: str) -> Iterator[tuple[str, str]]:
    if value <= 0:
        yield path, "must be greater than 0"
    elif value > most:
        yield path, f"must be at most {most} {unit} ({why})"


def _period(path: str, count: int, unit: str) -> Iterator[tuple[str, str]]:
    if unit == "business":
        yield from _within(path, count, MOST_BUSINESS_DAYS, "Business Days",
                           "a year of Business Days")
    else:
        yield from _within(path, count, MOST_DAYS, "days",
                           "ten years: longer than any deal's period")


def _rate(path: str, value: Decimal | None) -> Iterator[tuple[str, str]]:
    if value is None:
        return
    if value < 0:
        yield path, "must not be negative (a rate of Additional Interest, per cent per annum)"
    elif value > HIGHEST_RATE:
        yield path, f"must be at most {HIGHEST_RATE} (per cent per annum; {value} is not " \
                    f"a rate a deal pays)"


def _in_range(path: str, day: date | None) -> Iterator[tuple[str, str]]:
    if day is not None and not EARLIEST_DATE <= day <= LATEST_DATE:
        yield path, f"must be between {EARLIEST_DATE} and {LATEST_DATE} (a date of a deal " \
                    f"this ledger carries), not {day}"


def _month_days(path: str, values: list[str]) -> Iterator[tuple[str, str]]:
    """Days of every year, ``MM-DD`` (Interest Payment Dates, record dates): a typo is
    refused when the deal is opened, not met by a projection."""
    if not 1 <= len(values) <= 12:
        yield path, "must list 1 to 12 days of the year"
    for i, v in enumerate(values):
        ok = bool(re.fullmatch(r"[0-9]{2}-[0-9]{2}", v))
        if ok:
            try:
                date(2001, int(v[:2]), int(v[3:]))  # a common year: no 02-29
            except ValueError:
                ok = False
        if not ok:
            yield f"{path}.{i}", f"not a month and day of every year in the form MM-DD: {v!r}"
        elif v in values[:i]:
            yield f"{path}.{i}", f"{v} is listed twice"


DEADLINE_ANCHORS = ("date_hereof", "closing", "issue_date", "last_option_issue")
PLAIN_TERMS = ("agreement_date", "closing_date", "issue_date", "maturity", "conversion_price",
               "maximum_principal",
               # the definitions and notices other rules rest on
               "record_dates", "business_day", "suspension_notice", "shelf_sale",
               "named_selling_holder")


def checks(t: RegistrationTerms) -> Iterator[tuple[str, str]]:
    """What the schema's types cannot say: bounds, order, terms that need each other."""
    out_of_range = False
    for name in ("agreement_date", "closing_date", "issue_date"):
        for found in _in_range(name, getattr(t, name)):
            out_of_range = True
            yield found
    if out_of_range:   # the dates counted from them would be past any calendar
        return
    for name in t.citations:
        if name not in PLAIN_TERMS:
            yield f"citations.{name}", f"names no plain term; the plain terms are " \
                                       f"{', '.join(PLAIN_TERMS)} (a rule carries its own section)"
    if t.conversion_price <= 0 or t.conversion_price > 10**9:
        yield "conversion_price", "must be a positive price"
    if t.maximum_principal is not None and not 0 < t.maximum_principal <= MOST_PRINCIPAL:
        yield "maximum_principal", f"must be a positive principal of at most {MOST_PRINCIPAL:,}"
    if t.issue_date is not None and t.issue_date < t.closing_date:
        yield "issue_date", f"must not be before the closing date {t.closing_date}"
    yield from _payment_checks(t)
    for name in ("filing", "effectiveness"):
        d: Deadline | None = getattr(t, name)
        if d is None:
            continue
        if d.anchor not in DEADLINE_ANCHORS:
            yield f"{name}.anchor", f"a shelf deadline counts from one of " \
                                    f"{', '.join(DEADLINE_ANCHORS)}, not {d.anchor}"
        yield from _period(f"{name}.count", d.count, d.unit)
    if t.filing and t.effectiveness and (t.filing.anchor, t.filing.unit) == (
            t.effectiveness.anchor, t.effectiveness.unit) and \
            t.effectiveness.count < t.filing.count:
        yield "effectiveness.count", f"must be at least filing.count ({t.filing.count}): " \
                                     "the shelf is filed before it is effective"
    yield from _default_checks(t)
    yield from _damages_checks(t.damages)
    if t.suspensions is not None:
        yield from _suspension_checks(t.suspensions)
    yield from _period_checks(t.effectiveness_period.ends)
    if not t.transfer_restricted.until:
        yield "transfer_restricted.until", "must name at least one way a security stops " \
                                           "being restricted"
    elif len(set(t.transfer_restricted.until)) != len(t.transfer_restricted.until):
        yield "transfer_restricted.until", "names a way twice"
    yield from _duty_checks(t)
    majority = t.amendments.majority
    if not Decimal("0.5") <= majority.more_than < 1:
        yield "amendments.majority.more_than", "must be a share from 0.5 to below 1 (0.5: " \
                                               "more than half)"


def _payment_checks(t: RegistrationTerms) -> Iterator[tuple[str, str]]:
    p = t.payment
    yield from _month_days("payment.interest_payment_dates", p.interest_payment_dates)
    yield from _month_days("payment.record_dates", p.record_dates)
    closing, first, maturity = t.closing_date, p.first_interest_payment_date, t.maturity
    if not closing < first <= closing + timedelta(days=366):
        yield "payment.first_interest_payment_date", \
            f"must be after the closing date {closing} and within a year of it, not {first}"
    elif first.strftime("%m-%d") not in p.interest_payment_dates:
        yield "payment.first_interest_payment_date", \
            f"{first} is not on one of the interest_payment_dates " \
            f"({', '.join(p.interest_payment_dates)})"
    if maturity <= first:
        yield "maturity", f"must be after the first Interest Payment Date {first} (and the " \
                          f"closing date {closing}), not {maturity}"
    elif maturity > _years_after(closing, LONGEST_TERM_YEARS):
        yield "maturity", f"must be within {LONGEST_TERM_YEARS} years of the closing date " \
                          f"{closing}, not {maturity}"


def _default_checks(t: RegistrationTerms) -> Iterator[tuple[str, str]]:
    d = t.defaults
    for name, needs, what in (("filing", t.filing, "a filing deadline (filing)"),
                              ("effectiveness", t.effectiveness,
                               "an effectiveness deadline (effectiveness)"),
                              ("suspension", t.suspensions and t.suspensions.single,
                               "a limit on one Suspension Period (suspensions.single)")):
        if getattr(d, name) is not None and not needs:
            yield f"defaults.{name}", f"this Registration Default needs {what}"
    if d.unusable is not None:
        yield from _period("defaults.unusable.cure.count", d.unusable.cure.count,
                           d.unusable.cure.unit)
        if len(set(d.unusable.excused)) != len(d.unusable.excused):
            yield "defaults.unusable.excused", "names a cause twice"


def _damages_checks(d: Damages) -> Iterator[tuple[str, str]]:
    if not d.steps:
        yield "damages.steps", "must have at least one step (the rate from day 1)"
        return
    first = d.steps[0]
    if first.after_days != 0 or first.set is None:
        yield "damages.steps.0", "the first step sets the rate from day 1 of a default " \
                                 "(after_days 0, set)"
    last_after, last_year = -1, 0
    for i, s in enumerate(d.steps):
        at = f"damages.steps.{i}"
        if (s.after_days is None) == (s.anniversary is None):
            yield at, "give one of after_days or anniversary"
            continue
        if (s.set is None) == (s.add is None):
            yield at, "give one of set or add"
        yield from _rate(f"{at}.{'set' if s.set is not None else 'add'}",
                         s.set if s.set is not None else s.add)
        if s.after_days is not None:
            if s.every_year:
                yield f"{at}.every_year", "recurs with an anniversary, not after_days"
            if not 0 <= s.after_days <= MOST_DAYS:
                yield f"{at}.after_days", f"must be from 0 to {MOST_DAYS}"
            elif s.after_days < last_after:
                yield f"{at}.after_days", f"steps after days of a default come in order; " \
                                          f"{s.after_days} is before {last_after}"
            last_after = max(last_after, s.after_days)
            if s.every_days is not None:
                yield from _within(f"{at}.every_days", s.every_days, MOST_DAYS, "days",
                                   "ten years")
        else:
            if s.every_days is not None:
                yield f"{at}.every_days", "recurs after days of a default, not with an " \
                                          "anniversary"
            if not 1 <= s.anniversary <= LONGEST_TERM_YEARS:
                yield f"{at}.anniversary", f"must be from 1 to {LONGEST_TERM_YEARS}"
            elif s.anniversary < last_year:
                yield f"{at}.anniversary", f"must be at least the anniversary before it " \
                                           f"({last_year})"
            last_year = max(last_year, s.anniversary)
    yield from _rate("damages.cap", d.cap)


def _window_length(w: Window | Any) -> int | None:
    return w.in_days if w.in_days is not None else (
        None if w.in_months is None else 31 * w.in_months)


def _suspension_checks(s: Suspensions) -> Iterator[tuple[str, str]]:
    if s.single is not None:
        yield from _within("suspensions.single.days", s.single.days, MOST_DAYS, "days",
                           "ten years")
        if s.single.material_days is not None and s.single.material_days < s.single.days:
            yield "suspensions.single.material_days", \
                f"must be at least days ({s.single.days}): a material transaction extends " \
                "the limit"
    for i, w in enumerate([*s.windows, *([s.max_periods] if s.max_periods else [])]):
        at = f"suspensions.windows.{i}" if i < len(s.windows) else "suspensions.max_periods"
        if (w.in_days is None) == (w.in_months is None):
            yield at, "give one of in_days or in_months"
            continue
        if w.in_days is not None:
            yield from _within(f"{at}.in_days", w.in_days, MOST_DAYS, "days", "ten years")
        else:
            yield from _within(f"{at}.in_months", w.in_months, 120, "months", "ten years")
        if at == "suspensions.max_periods":
            yield from _within(f"{at}.periods", w.periods, 1000, "periods", "a typo")
            continue
        length = _window_length(w)
        yield from _within(f"{at}.days", w.days, MOST_DAYS, "days", "ten years")
        if w.days > length:
            yield f"{at}.days", f"{w.days} days cannot fit in a window of {length} days"
        if w.material_days is not None and w.material_days < w.days:
            yield f"{at}.material_days", f"must be at least days ({w.days}): a material " \
                                         "transaction extends the limit"
        if w.material_days is not None and w.material_days > length:
            yield f"{at}.material_days", f"{w.material_days} days cannot fit in a window " \
                                         f"of {length} days"


def _period_checks(ends: list[PeriodEnd]) -> Iterator[tuple[str, str]]:
    if not ends:
        yield "effectiveness_period.ends", "must list at least one end"
    for i, e in enumerate(ends):
        at = f"effectiveness_period.ends.{i}"
        if e.end == "anniversary":
            if e.years is None or e.of is None:
                yield at, "an anniversary end needs years and of"
            elif not 1 <= e.years <= LONGEST_TERM_YEARS:
                yield f"{at}.years", f"must be from 1 to {LONGEST_TERM_YEARS} years"
        elif e.years is not None or e.of is not None:
            yield at, f"years and of belong to an anniversary end, not {e.end}"
    kinds = [e.end for e in ends if e.end != "anniversary"]
    if len(set(kinds)) != len(kinds):
        yield "effectiveness_period.ends", "lists an end twice"


def _duty_checks(t: RegistrationTerms) -> Iterator[tuple[str, str]]:
    q = t.questionnaire
    if q is not None:
        yield from _period("questionnaire.deadline.count", q.deadline.count, q.deadline.unit)
        if q.form_deadline is not None:
            yield from _period("questionnaire.form_deadline.count", q.form_deadline.count,
                               q.form_deadline.unit)
        if q.late_amendment is not None:
            a = q.late_amendment
            yield from _period("questionnaire.late_amendment.within.count", a.within.count,
                               a.within.unit)
            if not 0 <= a.min_principal <= MOST_PRINCIPAL:
                yield "questionnaire.late_amendment.min_principal", "must be an amount from 0"
    for name in ("trustee_notice", "advise_holders"):
        duty = getattr(t, name)
        if duty is not None:
            yield from _period(f"{name}.within.count", duty.within.count, duty.within.unit)
    methods = [m.method for m in t.notices.methods]
    if not methods:
        yield "notices.methods", "must list at least one way of giving notice"
    for i, m in enumerate(t.notices.methods):
        at = f"notices.methods.{i}"
        if m.method in methods[:i]:
            yield f"{at}.method", f"{m.method} is listed twice"
        counted = m.deemed in ("business_days_after", "days_after")
        if counted and m.count is None:
            yield f"{at}.count", f"{m.deemed} needs a count"
        elif counted:
            yield from _within(f"{at}.count", m.count, 260, "days", "a year")
        elif m.count is not None:
            yield f"{at}.count", f"{m.deemed} takes no count"


def _years_after(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year + years)
    except ValueError:  # 29 February
        return day.replace(year=day.year + years, day=28)
