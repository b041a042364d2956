"""Additional Interest per Holder per Interest Payment Date (RRA §3(a), §3(b); SPEC §4.4).

Amounts are computed by sub-periods of constant rate and principal, never day by day:
``principal × rate × day_count_fraction(s, e)`` for each sub-period ``[s, e)`` of the
interest period, summed exactly (``Fraction``) and rounded once per Holder per payment
date, half-up, to the cent (SPEC §2).

Who is paid on what (SPEC §4.4): "the holder of record is paid for the whole period on
the principal it holds on the record date", for the days on which those Notes were
Transfer Restricted Securities in a Registration Default: Notes sold under the shelf stop
accruing on the sale day and what they accrued before survives (RRA §3(b), last
paragraph); converted Notes earn nothing after conversion (RRA §3(a)) and, with
interpretation ``conversion_forfeits=unpaid``, Notes converted before an Interest Payment
Date get nothing on it (for its whole period); ``all_unpaid`` also loses what fell due
before the conversion and was still unpaid on its day; with ``future_only`` the
converting Holder is paid for the days before conversion. Retired Notes (redeemed,
repurchased, cancelled, matured) stop accruing when retired, and what they accrued
survives to the Holder who held them then (RRA §3(b)).

Accrual "to as_of" is inclusive: the days counted end with ``as_of`` itself (the cutoff
is the day after ``as_of``), as an event dated ``as_of`` counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import Callable, Mapping, NamedTuple, Sequence

from ledger.daycount import year_fraction
from projections.basis import Basis
from projections.worked import Step, Worked

from .holdings import Holdings, Lot, fates
from .money import cents, exact_ratio, plain, round_ratio, year_fraction_text
from .questionnaire import NEVER_ASKED, Entitlement, Questionnaires
from .rates import RateSegment
from .schedule import InterestPeriod

CLAUSE = "RRA §3(a), §3(b)"
RULE = ("principal held on the record date × rate × day-count fraction, per sub-period of "
        "constant rate and principal in default while Transfer Restricted; rounded once")
NOT_ENTITLED = "RRA §3(a) (last paragraph)"
ZERO = Decimal("0.00")
# a NamedTuple made from its fields in order, without its __new__ (a Python function)
_NEW_TUPLE = tuple.__new__


@dataclass(frozen=True)
class Run:
    """Days ``[start, end)`` at a constant total rate (percent per annum)."""

    start: date
    end: date
    rate: Decimal


class HolderAmount(NamedTuple):
    """One Holder's Additional Interest for one payment date: exact (``num / den``
    dollars) and rounded once. ``steps`` are the Holder's accruing principal as maximal
    runs ``((start, end), principal)``; ``forfeited`` the principal converted before
    payment (``conversion_forfeits=unpaid``) with the days it would have accrued. The
    basis is rendered from these on demand."""

    holder: str
    num: int
    den: int
    amount: Decimal
    steps: tuple[tuple[tuple[date, date], Decimal], ...]
    forfeited: tuple[tuple[tuple[date, date], Decimal], ...]
    entitlement: Entitlement
    events: tuple[str, ...]
    ended: bool
    # conversion_forfeits=all_unpaid: the exact amount before the unpaid part on Notes
    # converted later was lost (num / den is then what is left); 0 when nothing was lost
    before_num: int = 0
    before_den: int = 1
    # the last day Notes were converted of those ``forfeited`` (when the amount was lost)
    forfeited_on: date | None = None
    # shelf_buyer_paid=not_record_holder: Notes held on the record date but sold under the
    # shelf by then, with the days they accrued: not held as Transfer Restricted Securities
    unheld: tuple[tuple[tuple[date, date], Decimal], ...] = ()
    # the readings this amount turned on besides those of its defaults and entitlement
    # (conversion_judged_on, shelf_buyer_paid: RRA §3(a), §3(b))
    readings: tuple[str, ...] = ()

    @property
    def exact(self) -> Fraction:
        return Fraction(self.num, self.den)


def rate_runs(segments: Sequence[RateSegment]) -> list[Run]:
    """The total rate as maximal runs of days (with ``additive`` defaults the rates add
    up), so that a sub-period is cut only where rate or principal changes (SPEC §4.4
    "Amount": "one sub-period where rate and principal are constant")."""
    edges = sorted({x for s in segments for x in (s.start, s.end)})
    runs: list[Run] = []
    for a, b in zip(edges, edges[1:]):
        covering = [s.rate for s in segments if s.start <= a and s.end >= b]
        if not covering:
            continue
        rate = sum(covering, Decimal(0))
        if runs and runs[-1].end == a and runs[-1].rate == rate:
            runs[-1] = Run(runs[-1].start, b, rate)
        else:
            runs.append(Run(a, b, rate))
    return runs


class Accrual:
    """Exact Additional Interest per unit of principal over ``[lo, hi)``, cached."""

    def __init__(self, runs: Sequence[Run], convention: str):
        self.runs, self.convention = runs, convention
        self.cache: dict[tuple[date, date], Fraction | None] = {}
        self.texts: dict[tuple[date, date], str] = {}

    def factor(self, lo: date, hi: date) -> tuple[Fraction | None, str]:
        """Σ rate × day-count fraction over the runs inside ``[lo, hi)``, and its text."""
        total = self.total(lo, hi)
        if total is None:
            return None, ""
        text = self.texts.get((lo, hi))
        if text is None:
            text = self.texts[(lo, hi)] = " + ".join(
                f"{plain(r.rate)}% × {year_fraction_text(self.convention, a, b)} [{a}, {b})"
                for r in self.runs for a, b in [(max(r.start, lo), min(r.end, hi))] if a < b)
        return total, text

    def total(self, lo: date, hi: date) -> Fraction | None:
        """``factor(lo, hi)[0]``, without its text (written only for an explanation):
        ``None`` when no day of ``[lo, hi)`` accrues."""
        key = (lo, hi)
        found = self.cache.get(key, self)
        if found is self:
            total: Fraction | None = None   # no Fraction(0) for the many windows none accrue in
            for r in self.runs:
                a, b = max(r.start, lo), min(r.end, hi)
                if a < b:
                    term = Fraction(r.rate) / 100 * year_fraction(self.convention, a, b)
                    total = term if total is None else total + term
            found = self.cache[key] = total if total else None
        return found  # type: ignore[return-value]

    def factor_step(self, lo: date, hi: date) -> Step:
        """``factor(lo, hi)`` as data: Σ rate% × day-count fraction, one term per run."""
        terms = []
        for r in self.runs:
            a, b = max(r.start, lo), min(r.end, hi)
            if a < b:
                fraction = year_fraction(self.convention, a, b)
                terms.append(Step("product", (
                    Step("percent", (r.rate,), Fraction(r.rate) / 100),
                    Step("day_count", (self.convention, a, b), fraction,
                         text=f"{year_fraction_text(self.convention, a, b)} [{a}, {b})")),
                    Fraction(r.rate) / 100 * fraction))
        if len(terms) == 1:
            return terms[0]
        return Step("sum", tuple(terms), self.total(lo, hi))


def principal_steps(windows: Mapping[tuple[date, date], Decimal]
                    ) -> list[tuple[tuple[date, date], Decimal]]:
    """SPEC §4.4: a Holder's accruing principal as maximal runs of constant principal,
    from its principal per window of TRS days, so that each sub-period ``[s, e)`` of
    constant rate and principal gets one ``fraction(s, e)``."""
    edges = sorted({x for window in windows for x in window})
    steps: list[tuple[tuple[date, date], Decimal]] = []
    for a, b in zip(edges, edges[1:]):
        principal = sum((q for (lo, hi), q in windows.items() if lo <= a and hi >= b),
                        Decimal(0))
        if not principal:
            continue
        if steps and steps[-1][0][1] == a and steps[-1][1] == principal:
            steps[-1] = ((steps[-1][0][0], b), principal)
        else:
            steps.append(((a, b), principal))
    return steps


def judged_day(period: InterestPeriod, readings: Mapping[str, str]) -> date:
    """RRA §3(a) "No Additional Interest shall be payable on any Notes that have been
    converted", §3(b) payable "on each Additional Interest Payment Date": the day a
    conversion is judged by (interpretation ``conversion_judged_on``). The amount falls
    due on the Interest Payment Date, and a payment made on the next Business Day is a
    payment on that date: Notes converted after it, even before the rolled day they are
    paid on, were not converted when it fell due (``interest_payment_date``, the
    default); ``payment_day`` judges by the day the payment is actually made."""
    if readings["conversion_judged_on"] == "interest_payment_date":
        return period.payment_date
    return period.paid_on


def claims(period: InterestPeriod, holdings: Holdings, forfeits: str,
           judged: date) -> dict[str, list[tuple[Decimal, Lot, bool]]]:
    """Per Holder: (principal, its lot, forfeited?) — the Notes held on the record date
    and what became of them, plus Notes converted (``future_only``) or retired within the
    period before the record date. ``judged``: ``judged_day``."""
    ended = holdings.settle(max(period.end, period.paid_on))
    snap = holdings.at(period.record_date)
    out: dict[str, list[tuple[Decimal, Lot, bool]]] = {}
    for holder, (held, _) in snap.held.items():
        rows = out.setdefault(holder, [])
        for lot in held:
            for q, leaf in fates(lot, snap.mark):
                # "No Additional Interest shall be payable on any Notes that have been
                # converted" (RRA §3(a)): converted before the day judged by, nothing on
                # it (``all_unpaid`` loses this and more: ``payments.unpaid_forfeit``)
                lost = (forfeits in ("unpaid", "all_unpaid")
                        and leaf.converted_on is not None
                        and leaf.converted_on < judged)
                rows.append((q, leaf, lost))
    for lot in ended:
        if (period.start < lot.ended_on <= period.record_date
                and (lot.ended_how == "retired" or forfeits == "future_only")):
            out.setdefault(lot.holder, []).append((lot.principal, lot, False))
    return out


def _claimed(period: InterestPeriod, holdings: Holdings, forfeits: str
             ) -> dict[str, tuple[list[Lot], list[Lot]]]:
    """``claims`` as lots: per Holder, the leaves of ``fates`` of its lots on the record
    date (those with principal left) and the lots it converted or retired within the
    period that count (``claims``' last rows); tests/test_engine_speed.py holds the two
    to each other."""
    ended = holdings.settle(max(period.end, period.paid_on))   # the lots as far as needed
    snap = holdings.at(period.record_date)
    mark = snap.mark
    out: dict[str, tuple[list[Lot], list[Lot]]] = {}
    for holder, (held, _) in snap.held.items():
        if len(held) == 1 and not held[0].children:
            # one lot never split (most Holders): itself, if it has principal left
            lot = held[0]
            out[holder] = ([lot] if lot.principal > 0 else [], [])
            continue
        found: list[Lot] = []
        add = found.append
        for lot in held:
            add(lot)
            if lot.children:   # ``fates``: every lot split off after the record date
                stack = [c for c in lot.children if c.made_at > mark]
                pop, push = stack.pop, stack.extend
                while stack:
                    node = pop()
                    add(node)
                    if node.children:
                        push(node.children)
        out[holder] = ([lot for lot in found if lot.principal > 0], [])
    for lot in ended:
        if (period.start < lot.ended_on <= period.record_date
                and (lot.ended_how == "retired" or forfeits == "future_only")):
            out.setdefault(lot.holder, ([], []))[1].append(lot)
    return out


def holder_amounts(period: InterestPeriod, cutoff: date, accrual: Accrual,
                   holdings: Holdings, questionnaires: Questionnaires,
                   readings: Mapping[str, str]) -> dict[str, HolderAmount]:
    """Each claiming Holder's exact and rounded amount for ``period`` (a Holder not
    entitled on the record date is owed 0)."""
    last_day = min(period.end, cutoff)
    factor = accrual.total
    out: dict[str, HolderAmount] = {}
    if last_day <= period.start or factor(period.start, last_day) is None:
        return out  # no day of this period accrues: nobody is owed anything for it
    forfeits = readings["conversion_forfeits"]
    no_request = readings["no_questionnaire_request"]
    # RRA §3(a) last paragraph, interpretation questionnaire_entitlement_judged_on: on the
    # Interest Payment Date (default) or the record date; a deadline after as_of has not
    # passed
    judged_on = min(period.payment_date
                    if readings["questionnaire_entitlement_judged_on"] == "payment_date"
                    else period.record_date, cutoff)
    start = period.start
    accrues: dict[tuple[date, date], Fraction | None] = {}   # window -> its factor, if any

    def window(lot: Lot) -> tuple[date, date] | None:
        """The days of the period ``lot`` earns on, if any of them accrues."""
        lo = start if lot.issued_on < start else lot.issued_on
        end = lot.trs_end
        hi = last_day if end is None or end > last_day else end
        if lo >= hi:
            return None
        days = (lo, hi)
        f = accrues.get(days, accrues)
        if f is accrues:
            f = accrues[days] = factor(lo, hi)
        return days if f is not None else None

    lose = forfeits in ("unpaid", "all_unpaid")
    judged = judged_day(period, readings)
    # the rolled payment day differs: a conversion between the two turns on the reading
    between = (period.payment_date, period.paid_on) if period.paid_on != period.payment_date \
        else None
    not_record = readings["shelf_buyer_paid"] == "not_record_holder"
    record_date = period.record_date
    # ``questionnaires.entitlement``'s first test, read here without a call per Holder: a
    # Holder never asked and that delivered nothing (every Holder of most deals)
    asked, delivered = questionnaires.by_holder, questionnaires.deliveries
    never = NEVER_ASKED[no_request]
    entitlement = questionnaires.entitlement
    events_before = holdings.events_before
    for holder, (leaves, retired) in sorted(_claimed(period, holdings, forfeits).items()):
        if len(leaves) == 1 and not retired:
            # one lot (a Holder that never split its Notes: most Holders of a deal, on
            # most dates): ``holder_amount`` of its one window, without its dicts and
            # calls, which cost more than the arithmetic (40,000 amounts in a 1,000-Holder
            # deal); the rows below say the same of any Holder (and of a lot converted,
            # or sold under the shelf by the record date, whose readings they name)
            lot = leaves[0]
            sold = lot.trs_until
            if lot.converted_on is None and (sold is None or sold > record_date):
                if (days := window(lot)) is not None:
                    right = (never if holder not in asked and holder not in delivered
                             else entitlement(holder, judged_on, no_request))
                    q = 0 + lot.principal   # as ``live`` sums it: the same Decimal
                    f = accrues[days]
                    num, den = cents(q) * f.numerator, f.denominator * 100
                    out[holder] = _NEW_TUPLE(HolderAmount, (
                        holder, num, den, round_ratio(num, den) if right.entitled else ZERO,
                        ((days, q),), (), right, events_before(holder, last_day),
                        lot.ended_on is not None, 0, 1, None, (), ()))
                continue
        # ``claims`` of the Holder, read without a row per lot: its leaves (a forfeit if
        # converted before the day judged by, under ``unpaid``/``all_unpaid``; not held
        # as TRS if sold under the shelf by the record date, under ``not_record_holder``),
        # then the Notes it converted or retired within the period (never a forfeit; ended)
        live: dict[tuple[date, date], Decimal] = {}
        lost: dict[tuple[date, date], Decimal] = {}
        unheld: dict[tuple[date, date], Decimal] = {}
        ended = False
        forfeited_on = None
        turned: dict[str, None] = {}
        for lot in leaves:
            if (days := window(lot)) is not None:
                converted = lot.converted_on
                if between and converted is not None and between[0] <= converted < between[1]:
                    turned["conversion_judged_on"] = None
                if lot.trs_until is not None and lot.trs_until <= record_date:
                    turned["shelf_buyer_paid"] = None   # RRA §1 Record Holder
                    if not_record:
                        unheld[days] = unheld.get(days, 0) + lot.principal
                        continue
                into = live
                if lose and converted is not None and converted < judged:
                    into = lost
                    forfeited_on = converted if forfeited_on is None else max(forfeited_on,
                                                                              converted)
                into[days] = into.get(days, 0) + lot.principal
                ended = ended or lot.ended_on is not None
        for lot in retired:
            if (days := window(lot)) is not None:
                live[days] = live.get(days, 0) + lot.principal
                ended = True    # converted or retired
        if live or lost or unheld:
            right = (never if holder not in asked and holder not in delivered
                     else entitlement(holder, judged_on, no_request))
            out[holder] = holder_amount(holder, live, lost, ended, right, factor, holdings,
                                        last_day, forfeited_on, unheld, tuple(sorted(turned)))
    return out


def holder_amount(holder: str, live: Mapping[tuple[date, date], Decimal],
                  lost: Mapping[tuple[date, date], Decimal], ended: bool, right: Entitlement,
                  factor: Callable[[date, date], Fraction | None], holdings: Holdings,
                  last_day: date, forfeited_on: date | None = None,
                  unheld: Mapping[tuple[date, date], Decimal] | None = None,
                  readings: tuple[str, ...] = ()) -> HolderAmount:
    """A Holder's amount from the principal it earns on per window (``live``) and what it
    forfeits (``lost``, the last of it converted on ``forfeited_on``) or does not hold as
    Transfer Restricted Securities (``unheld``): principal x factor summed exactly over
    the sub-periods of constant principal, rounded once, half-up, to the cent (RRA §3(a);
    SPEC §2, §4.4); 0 if it is not entitled on the record date (RRA §3(a) last
    paragraph). ``readings``: ``HolderAmount.readings``."""
    steps = list(live.items()) if len(live) < 2 else [
        step for step in principal_steps(live) if factor(*step[0]) is not None]
    if len(steps) == 1:
        (lo, hi), q = steps[0]
        f = factor(lo, hi)
        num, den = cents(q) * f.numerator, f.denominator * 100
    else:
        total = sum((Fraction(cents(q)) * factor(lo, hi) / 100
                     for (lo, hi), q in steps), Fraction(0))
        num, den = total.numerator, total.denominator
    amount = round_ratio(num, den) if right.entitled else ZERO
    return HolderAmount(holder, num, den, amount, tuple(steps), tuple(sorted(lost.items())),
                        right, holdings.events_before(holder, last_day), ended,
                        forfeited_on=forfeited_on, unheld=tuple(sorted((unheld or {}).items())),
                        readings=readings)

def converted_later(period: InterestPeriod, holder: str, cutoff: date, accrual: Accrual,
                    holdings: Holdings, judged: date
                    ) -> list[tuple[date, Fraction, tuple[date, date], Decimal]]:
    """The part of ``holder``'s exact amount for ``period`` earned by Notes it held on the
    record date and converted on or after the day judged by (``judged_day``;
    ``conversion_forfeits=all_unpaid``): per such lot, its conversion day, its exact
    amount, its window and principal."""
    holdings.settle(max(period.end, period.paid_on))   # every conversion's lot
    snap = holdings.at(period.record_date)
    last_day = min(period.end, cutoff)
    out = []
    for lot in snap.held.get(holder, ((), ()))[0]:
        for q, leaf in fates(lot, snap.mark):
            if leaf.converted_on is None or leaf.converted_on < judged:
                continue
            lo = max(period.start, leaf.issued_on)
            end = leaf.trs_end
            hi = last_day if end is None or end > last_day else end
            f = accrual.total(lo, hi) if lo < hi else None
            if f is not None:
                out.append((leaf.converted_on, Fraction(cents(q)) * f / 100, (lo, hi), q))
    return out


def amount_steps(a: HolderAmount, accrual: Accrual) -> tuple[Step, ...]:
    """One Holder's exact amount as data: Σ principal × (Σ rate% × day-count fraction)
    per sub-period; with ``conversion_forfeits=all_unpaid``, less the part lost on the
    day its Notes were converted (an input here: ``payments.unpaid_forfeit`` works it
    out)."""
    terms = []
    for (lo, hi), q in a.steps:
        factor = accrual.factor_step(lo, hi)
        terms.append(Step("product", (q, factor), Fraction(q) * factor.result))
    if a.before_num:
        before = Fraction(a.before_num, a.before_den)
        gross = Step("sum", tuple(terms), before, "exact amount before the forfeit")
        return (Step("difference", (gross, before - a.exact), a.exact,
                     "less the part unpaid on conversion"),)
    if len(terms) == 1:
        return (terms[0],)
    return (Step("sum", tuple(terms), a.exact, "exact amount"),)


def amount_arithmetic(a: HolderAmount, accrual: Accrual) -> Worked:
    """One Holder's amount as a sum written out (before the rounding): principal ×
    rate × day-count fraction per sub-period, and what conversion forfeited; its steps
    (``amount_steps``) ride along."""
    return Worked(_amount_text(a, accrual), build=lambda: amount_steps(a, accrual))


def _amount_text(a: HolderAmount, accrual: Accrual) -> str:
    texts = []
    for (lo, hi), q in a.steps:
        text = accrual.factor(lo, hi)[1]
        texts.append(f"{plain(q)} × ({text})" if " + " in text else f"{plain(q)} × {text}")
    if a.before_num:
        before = exact_ratio(a.before_num, a.before_den)
        return (f"{' + '.join(texts)} = {before}; {before} less the part unpaid on the day "
                f"its Notes were converted (conversion_forfeits=all_unpaid) = "
                f"{exact_ratio(a.num, a.den)}")
    texts += [f"0 ({plain(q)} converted before payment: forfeited)" for _, q in a.forfeited]
    texts += [f"0 ({plain(q)} sold under the shelf by the record date: not held as Transfer "
              f"Restricted Securities)" for _, q in a.unheld]
    return f"{' + '.join(texts)} = {exact_ratio(a.num, a.den)}"


def amount_events(a: HolderAmount, behind: tuple[tuple[str, ...], tuple[str, ...]]
                  ) -> tuple[str, ...]:
    """The events behind one Holder's amount: the Registration Defaults' (``behind``),
    the Holder's own position events, and its Questionnaire's."""
    return tuple(dict.fromkeys(behind[0] + a.events + a.entitlement.events))


def _owed_nothing(steps: tuple[Step, ...]) -> tuple[Step, ...]:
    """The exact amount a Holder not entitled would have had, × 0 (RRA §3(a) last
    paragraph)."""
    if not steps:
        return ()
    return (*steps[:-1], Step("product", (steps[-1], 0), 0, "not entitled: owed 0"))


def amount_basis(a: HolderAmount, accrual: Accrual,
                 behind: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()),
                 arithmetic: str | None = None) -> Basis:
    """The explanation of one Holder's amount: the sum written out, then the rounding.
    ``behind`` is what the accrual rests on: the events of the Registration Defaults
    accruing in the Holder's sub-periods and the interpretations they and their rates
    relied on (``report`` finds them from the rate segments). ``arithmetic`` may be given
    when already written out for a Holder with the same sub-periods and principal."""
    if arithmetic is None:
        arithmetic = amount_arithmetic(a, accrual)
    right = a.entitlement
    interps = tuple(dict.fromkeys(behind[1] + (("conversion_forfeits",) if a.ended
                                               else ()) + a.readings + right.interpretations))
    ids = amount_events(a, behind)
    # the steps are this Holder's own (a text may be shared by Holders of one position)
    exact = Worked(str(arithmetic), build=lambda: amount_steps(a, accrual))
    if not right.entitled:
        return Basis(NOT_ENTITLED, f"not entitled to Additional Interest: {right.reason}",
                     ids, interps, Worked(f"would be {arithmetic}; owed 0",
                                          build=lambda: _owed_nothing(exact.steps)))
    amount = a.amount

    def rounded() -> tuple[Step, ...]:
        if not exact.steps:
            return ()
        [*before, last] = exact.steps
        return (*before, Step("round", (last,), amount, "rounded once, to the cent",
                              rounding=("half_up", 2)))
    return Basis(CLAUSE, RULE, ids, interps, Worked(f"{arithmetic} → {a.amount}",
                                                    build=rounded))
