"""Interest Payment Dates, record dates and interest periods (RRA §1 "Additional Interest
Payment Date", "Record Holder", §3(b); SPEC §4.1, §4.4).

RRA §3(b): Additional Interest "will be payable in cash semi-annually in arrears on each
Additional Interest Payment Date" (= each Interest Payment Date, defined in the
Indenture: January 15 and July 15, the first 2005-01-15, a date that is not a Business
Day paying on the next Business Day), "to Holders to whom regular interest is payable".
Record dates (January 1 and July 1) are a term of the deal: the Indenture is not in the
seeds. The first interest period runs from the Closing Date.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Iterator

from ledger.calendar import FED, BusinessCalendar
from ledger.dealterms import RegistrationTerms


@dataclass(frozen=True)
class InterestPeriod:
    payment_date: date     # the Interest Payment Date, unadjusted (2005-01-15)
    paid_on: date          # the Business Day it is payable (2005-01-18)
    record_date: date      # the Record Holders are the Holders at its end
    start: date            # the period is [start, end)
    end: date


def _days_of_year(month_days: list[str], year: int) -> list[date]:
    return [date(year, int(md[:2]), int(md[3:])) for md in month_days]


def next_payment_date(after: date, terms: RegistrationTerms) -> date:
    """The first Interest Payment Date strictly after ``after``."""
    return min(d for y in (after.year, after.year + 1)
               for d in _days_of_year(terms.payment.interest_payment_dates, y) if d > after)


def record_date(payment_date: date, terms: RegistrationTerms) -> date:
    """RRA §1 "Record Holder": the record date "with respect to the Interest Payment
    Date": the latest record date on or before it (January 1 for January 15)."""
    return max(d for y in (payment_date.year - 1, payment_date.year)
               for d in _days_of_year(terms.payment.record_dates, y) if d <= payment_date)


def interest_periods(terms: RegistrationTerms, calendar: BusinessCalendar,
                     through: date) -> Iterator[InterestPeriod]:
    """Every interest period that starts on or before ``through`` and before maturity,
    the first from the Closing Date to ``first_interest_payment_date``; a payment date
    that is not a Business Day pays on the next if the terms roll it (``payment.roll``)."""
    start, pay = terms.closing_date, terms.payment.first_interest_payment_date
    roll = terms.payment.roll == "following"
    while start <= through and start < terms.maturity:
        yield InterestPeriod(pay, calendar.roll_forward(pay) if roll else pay,
                             record_date(pay, terms), start, pay)
        start, pay = pay, next_payment_date(pay, terms)


_PERIODS: dict[tuple, tuple[InterestPeriod, ...]] = {}


def periods_through(terms: RegistrationTerms, calendar: BusinessCalendar,
                    through: date) -> tuple[InterestPeriod, ...]:
    """``tuple(interest_periods(terms, calendar, through))``, remembered on the Fed
    calendar (a deal with no declared days: ``BusinessCalendar.from_overrides``) by the
    terms that fix the schedule: the deals of a portfolio share their template's
    schedule, and working out forty periods' dates was a twentieth of a report."""
    if calendar is not FED:
        return tuple(interest_periods(terms, calendar, through))
    p = terms.payment
    key = (terms.closing_date, p.first_interest_payment_date, terms.maturity,
           tuple(p.interest_payment_dates), tuple(p.record_dates), p.roll, through)
    found = _PERIODS.get(key)
    if found is None:
        if len(_PERIODS) >= 4096:   # bounded, for a long-lived process
            _PERIODS.clear()
        found = _PERIODS[key] = tuple(interest_periods(terms, calendar, through))
    return found
