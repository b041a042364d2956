"""Payments of Additional Interest: what is owed for each Interest Payment Date, what was
paid (``AdditionalInterestPaid``) and the status (SPEC §4.4 "Payment").

Statuses: ``accruing`` (the period has days after ``as_of``); for an ended period,
``paid`` (every Holder paid exactly what it is owed), ``due`` (nothing paid yet),
``underpaid`` (something paid, some Holder short), ``overpaid`` (no Holder short, some
Holder paid more), ``nothing_owed`` (nothing owed to anyone and nothing paid). ``late``
is true when a Holder is short after the payable day.

Each Holder also has its own status (``holder_status``), judged on its own amount and
its own payments only: a Holder paid in full is ``paid`` even when another is short.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import Mapping, Sequence

from ledger.stored import Event

from .clock import ONE_DAY
from .holdings import Holdings
from .interest import Accrual, HolderAmount, converted_later, holder_amounts, judged_day
from .money import round_ratio
from .questionnaire import Questionnaires
from .schedule import InterestPeriod

#: the event types ``payments`` reads
PAYMENT_EVENTS = ("AdditionalInterestPaid",)
_CENTS_ZERO = Decimal("0.00")
_NEW = object.__new__


@dataclass(frozen=True)
class Payment:
    period: InterestPeriod
    accrued_through: date                 # the last day counted
    amounts: Mapping[str, HolderAmount]
    paid: Mapping[str, Decimal]
    paid_events: tuple[str, ...]
    status: str
    late: bool
    statuses: Mapping[str, str]           # each Holder's own status (holder_status)

    @property
    def total(self) -> Decimal:
        return sum([a.amount for a in self.amounts.values()], _CENTS_ZERO)


def paid_by_date(events: Sequence[Event]) -> dict[date, list[Event]]:
    """AdditionalInterestPaid events by the Interest Payment Date they name."""
    out: dict[date, list[Event]] = {}
    for e in events:
        if e.type == "AdditionalInterestPaid":
            out.setdefault(e.data["payment_date"], []).append(e)
    return out


def holder_status(owed: Decimal, paid: Decimal, ended: bool) -> str:
    """SPEC §4.4, for one Holder on one payment date: accruing (the period has not
    ended), nothing_owed (owed 0, paid 0), due (owed, nothing paid), underpaid, paid
    (exactly what is owed), overpaid."""
    if not ended:
        return "accruing"
    if paid == owed:
        return "paid" if owed else "nothing_owed"
    if paid > owed:
        return "overpaid"
    return "underpaid" if paid > 0 else "due"


def status(amounts: Mapping[str, HolderAmount], paid: Mapping[str, Decimal], ended: bool,
           paid_on: date, as_of: date) -> tuple[str, bool]:
    """SPEC §4.4: accruing, due, paid, underpaid, overpaid or nothing_owed for the whole
    date; and whether late."""
    if not ended:
        return "accruing", False
    zero = Decimal(0)
    short = any(paid.get(h, zero) < a.amount for h, a in amounts.items())
    over = any(v > (amounts[h].amount if h in amounts else zero) for h, v in paid.items())
    late = short and as_of > paid_on
    if short:
        return ("underpaid" if any(v > 0 for v in paid.values()) else "due"), late
    if not over and not any(a.amount for a in amounts.values()) and not any(paid.values()):
        return "nothing_owed", False
    return ("overpaid" if over else "paid"), False


def unpaid_forfeit(a: HolderAmount, period: InterestPeriod, paid_events: Sequence[Event],
                   cutoff: date, accrual: Accrual, holdings: Holdings,
                   judged: date) -> HolderAmount:
    """``conversion_forfeits=all_unpaid`` (RRA §3(a) "No Additional Interest shall be
    payable on any Notes that have been converted"): an amount that fell due before the
    Notes were converted and was still unpaid on the conversion day is lost; what was
    paid by then stays paid. The unpaid part is shared pro rata between the converted
    Notes and the rest: lost = (owed - paid by the conversion day) x converted part /
    owed, exact, then the Holder's amount is rounded once."""
    if not a.entitlement.entitled or a.amount == 0:
        return a
    later = converted_later(period, a.holder, cutoff, accrual, holdings, judged)
    if not later:
        return a
    owed = a.exact
    lost = Fraction(0)
    for on, part, _, _ in later:
        paid = sum((Fraction(e.data["amount"]) for e in paid_events
                    if e.data["holder"] == a.holder and e.date <= on), Fraction(0))
        if paid < owed:
            lost += (owed - paid) * part / owed
    if not lost:
        return a
    left = owed - lost
    return a._replace(num=left.numerator, den=left.denominator,
                      amount=round_ratio(left.numerator, left.denominator),
                      before_num=a.num, before_den=a.den)


def payments(periods: Sequence[InterestPeriod], events: Sequence[Event], accrual: Accrual,
             holdings: Holdings, questionnaires: Questionnaires, cutoff: date, as_of: date,
             readings: Mapping[str, str]) -> tuple[list[Payment], list[str]]:
    """One entry per Interest Payment Date whose period has any accrual (or a payment),
    of the ``periods`` starting on or before ``as_of`` (RRA §3(b))."""
    by_date = paid_by_date(events)
    out: list[Payment] = []
    used: set[date] = set()
    all_unpaid = readings["conversion_forfeits"] == "all_unpaid"
    zero = Decimal(0)
    for period in periods:
        amounts = holder_amounts(period, cutoff, accrual, holdings, questionnaires, readings)
        payment_date, paid_on = period.payment_date, period.paid_on
        paid_events = by_date.get(payment_date, [])
        if paid_on != payment_date and paid_on in by_date:
            paid_events = paid_events + by_date[paid_on]
        if not amounts and not paid_events:
            continue
        if all_unpaid:
            judged = judged_day(period, readings)
            amounts = {h: unpaid_forfeit(a, period, paid_events, cutoff, accrual, holdings,
                                         judged) for h, a in amounts.items()}
        used.add(payment_date)
        used.add(paid_on)
        paid: dict[str, Decimal] = {}
        for e in paid_events:
            data = e.data
            holder = data["holder"]
            paid[holder] = paid.get(holder, zero) + data["amount"]
        ended = cutoff >= period.end
        st, late = status(amounts, paid, ended, paid_on, as_of)
        if paid:
            statuses = {h: holder_status(amounts[h].amount if h in amounts else zero,
                                         paid.get(h, zero), ended)
                        for h in sorted(set(amounts) | set(paid))}
        elif not ended:
            statuses = dict.fromkeys(sorted(amounts), "accruing")
        else:   # nothing paid (every date of a deal in default, until it pays):
            # ``holder_status(owed, 0, True)`` without a call per Holder
            statuses = {h: ("due" if a.amount > 0 else "nothing_owed" if a.amount == 0
                            else "overpaid") for h, a in sorted(amounts.items())}
        pay = _NEW(Payment)   # a frozen dataclass's __init__ sets each field by name
        pay.__dict__.update(period=period, accrued_through=min(period.end, cutoff) - ONE_DAY,
                            amounts=amounts, paid=paid,
                            paid_events=tuple([e.id for e in paid_events]), status=st,
                            late=late, statuses=statuses)
        out.append(pay)
    problems = [f"AdditionalInterestPaid {e.id}: no interest period up to {as_of} has "
                f"Interest Payment Date {d}" for d, es in by_date.items() if d not in used
                for e in es]
    return out, problems
