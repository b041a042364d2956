"""True-up shares (Letter ¶3, SPEC §5.3).

"in the event that any of the Warrantholders exercise the Warrants or convert any of
their Shares prior to February 1, 2004, then, in the event that any Camden Warrants become
Vested Warrants after the date of the exercise ... the Company will, from time to time
issue ... a number of shares of its Common Stock equal to the difference between (x) that
number of shares ... to which the Warrantholders ... would have been entitled after giving
effect to all anti-dilution adjustments if such Warrants or Shares had been exercised or
converted on the date on which such Camden Warrants become Vested Warrants ... and (y) the
number of shares of Common Stock previously issued by the Company in respect of such
Warrants or Shares."

Readings chosen here:

* ``x`` uses the price in force after the vesting, with *every* adjustment in effect then,
  including an ``AdjustmentRecorded`` made after the exercise ("all anti-dilution
  adjustments"); a vesting on the exercise date is not "after the date of the exercise":
  it is in force at the exercise instead (see ``order.py``).
* ``y`` is the shares issued at the exercise plus the true-up shares issued for it before
  this vesting. A vesting's ``owed`` is ``x - y``, never below zero.
* A true-up once earned stays owed ("from time to time"): what an exercise has earned so
  far is the largest ``x`` over its vestings minus the shares issued at the exercise, never
  below zero; ``outstanding`` is what is earned and not yet issued.
* ``TrueUpSharesIssued`` names an instrument, not an exercise: its shares settle that
  instrument's eligible exercises oldest first, each up to what it has outstanding; any
  excess is credited to the latest of them (it counts in ``y`` for later vestings), or is
  left unallocated if there is none, and either way is reported as over-issued.
* ``trueup_dividends`` (SPEC §6): ``frozen`` counts anti-dilution only, as the words of
  ¶3 do ("entitled after giving effect to all anti-dilution adjustments").
  ``to_vesting_date`` reads "if such ... Shares had been ... converted on the date on
  which such Camden Warrants become Vested Warrants" whole: Shares of the "8% Series A
  Cumulative Convertible Participating Preferred Stock" (Letter ¶2) converted on the
  vesting date would have carried the dividends accrued from the actual conversion to
  that date, so ``x`` converts the stated value plus those dividends, at the deal's
  ``preferred_dividends`` terms (rate, day count, whether accrued dividends convert:
  the Certificate of Designations is not in the seeds). With no such terms, or if
  accrued dividends do not convert, it adds nothing and says so. Warrants carry no
  dividends under either reading.
* Each step reports ``increment``: what that vesting added to what the exercise has
  earned (the first vesting's ``x - y``; a later one's increase of ``x``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import Mapping

from ..basis import Basis, LazyBasis
from ..worked import Step as Operation, Worked
from ledger.daycount import year_fraction
from ledger.dealterms import PreferredDividends

from .arithmetic import exact, fraction_text, show, whole_shares
from .instruments import Instrument, shares_for, shares_text
from .records import built

CLAUSE = "Letter ¶3"
INTERPRETATIONS = ("trueup_dividends", "trueup_adjustments", "same_day_vesting_and_exercise")
READINGS = ("frozen", "to_vesting_date")


@dataclass(frozen=True)
class Exercise:
    """A ``WarrantsExercised`` or ``PreferredConverted`` as it happened."""

    event: str
    type: str
    instrument: str
    holder: str
    kind: str
    date: date
    fraction: Decimal
    portion: Fraction          # of the registered position
    shares_issued: int
    price: Decimal             # exercise or conversion price in force at the exercise
    implied: int               # shares that price implied for the portion
    eligible: bool


@dataclass(frozen=True)
class Step:
    """One later vesting day's effect on one eligible exercise."""

    vesting: str               # the first vesting of the day
    date: date
    price: Decimal
    x: int
    y: int
    owed: int
    earned: int                # cumulative after this vesting
    basis: Basis
    vestings: tuple[str, ...] = ()        # every vesting of the day (SPEC §5.2)
    adjustment: Basis | None = None       # the day's P' for the price x uses


@dataclass(frozen=True)
class Account:
    exercise: Exercise
    steps: tuple[Step, ...] = ()
    issues: tuple[tuple[str, int], ...] = ()     # (TrueUpSharesIssued event, shares credited)
    #: ``trueup_adjustments = camden_only``: the price at the exercise with only the
    #: Camden adjustments since applied to it (None until the first vesting after it)
    camden_price: Decimal | None = None
    #: the vesting days (date, first vesting) whose adjustment, and so whose ``x``, could
    #: not be computed: a weighted average with no capitalization recorded on or before
    #: the day, while a tranche was below the price (issue 30: shares are owed, their
    #: number is not known until the capitalization is recorded)
    unknown: tuple[tuple[date, str], ...] = ()

    @property
    def issued(self) -> int:
        return sum(n for _, n in self.issues)

    @property
    def earned(self) -> int:
        return self.steps[-1].earned if self.steps else 0

    @property
    def outstanding(self) -> int:
        return max(0, self.earned - self.issued)

    @property
    def over_issued(self) -> int:
        return max(0, self.issued - self.earned)

    @property
    def entitled(self) -> int:
        """``x`` at the latest vesting after an eligible exercise, else what the price at
        the exercise implied."""
        return self.steps[-1].x if self.steps else self.exercise.implied


def eligible(day: date, cutoff: date) -> bool:
    """Only exercises and conversions "prior to February 1, 2004" earn true-ups (Letter ¶3;
    SPEC §5.1 ``true_up_cutoff``)."""
    return day < cutoff


def dividends_reading(kind: str, interpretations: Mapping[str, str],
                      terms: PreferredDividends | None = None) -> str:
    """How ``trueup_dividends`` (SPEC §6, Letter ¶3) bears on ``x``."""
    value = interpretations.get("trueup_dividends", "frozen")
    if value not in READINGS:
        raise ValueError(f"interpretation trueup_dividends has no value {value!r}; "
                         f"choose one of {', '.join(READINGS)}")
    if value == "frozen":
        return ("trueup_dividends = frozen: x counts anti-dilution only, not dividends "
                "accrued after the actual exercise or conversion")
    if kind == "warrant":
        return "trueup_dividends = to_vesting_date: a Warrant carries no dividends; x is unchanged"
    if terms is None or not terms.convert_accrued:
        why = ("the deal has no preferred_dividends terms" if terms is None else
               "the deal's terms say accrued dividends do not convert")
        return ("trueup_dividends = to_vesting_date: dividends the Shares would have accrued "
                f"from the conversion to the vesting date would count, but {why}: none added")
    return ("trueup_dividends = to_vesting_date: x converts the stated value plus the "
            f"dividends the Shares (8% Series A Cumulative, Letter ¶2) would have accrued "
            f"from the conversion to the vesting date: {format(terms.rate, 'f')}% a year of "
            f"the stated value, {terms.day_count}, not compounded, none paid")


def accrued_dividends(exercise: Exercise, position: Instrument, day: date,
                      interpretations: Mapping[str, str],
                      terms: PreferredDividends | None) -> Fraction:
    """Under ``to_vesting_date``, what the converted Shares would have accrued from the
    conversion to ``day``: portion × stated value × rate × year fraction (Letter ¶2, ¶3)."""
    if (interpretations.get("trueup_dividends", "frozen") != "to_vesting_date"
            or exercise.kind != "preferred" or terms is None or not terms.convert_accrued):
        return Fraction(0)
    years = year_fraction(terms.day_count, exercise.date, day)
    return exercise.portion * position.aggregate * exact(terms.rate) / 100 * years


def rule_text(exercise: Exercise, cutoff: date, interpretations: Mapping[str, str],
              terms: PreferredDividends | None = None) -> str:
    return (f"an exercise or conversion before {cutoff.isoformat()} followed by a vesting of "
            "Camden Warrants: the Company issues x - y, x = the shares if exercised on the "
            "vesting date after all anti-dilution adjustments, y = the shares previously "
            f"issued in respect of it; "
            f"{dividends_reading(exercise.kind, interpretations, terms)}")


def at_vesting(account: Account, position: Instrument, vestings: tuple[str, ...], day: date,
               cutoff: date, interpretations: Mapping[str, str],
               price: Decimal | None = None, adjustment: Basis | None = None,
               dividends: PreferredDividends | None = None,
               unknown: bool = False) -> Account:
    """The true-up one vesting day after an eligible exercise earns (Letter ¶3): ``owed =
    x - y``. ``price``: the price ``x`` uses, if not the position's (``camden_only``);
    ``adjustment``: the basis of that day's ``P'`` for it, shown beside ``x``;
    ``unknown``: that ``P'`` could not be computed (``Account.unknown``: ``x`` is then
    worked at the price before the vesting, and is not the true-up). The step's basis is
    worked out when first read (``LazyBasis``: the agenda reads the shares only)."""
    ex = account.exercise
    price = position.price if price is None else price
    accrued = accrued_dividends(ex, position, day, interpretations, dividends)
    x = (whole_shares((ex.portion * position.aggregate + accrued) / exact(price)) if accrued
         else shares_for(position, ex.portion, price))   # the same, in integers
    issued = account.issued
    y = ex.shares_issued + issued
    owed = max(0, x - y)
    earned = max(account.earned, x - ex.shares_issued, 0)
    basis = LazyBasis(lambda: step_basis(account, position, vestings, cutoff, interpretations,
                                         price, adjustment, dividends, accrued, x, y, owed))
    # records.py: not the frozen constructors (a step per eligible exercise and vesting day)
    step = built(Step, {"vesting": vestings[0], "date": day, "price": price, "x": x, "y": y,
                        "owed": owed, "earned": earned, "basis": basis,
                        "vestings": tuple(vestings), "adjustment": adjustment})
    return built(Account, {"exercise": ex, "steps": account.steps + (step,),
                           "issues": account.issues, "camden_price": account.camden_price,
                           "unknown": account.unknown + (((day, vestings[0]),) if unknown
                                                         else ())})


def step_basis(account: Account, position: Instrument, vestings: tuple[str, ...],
               cutoff: date, interpretations: Mapping[str, str], price: Decimal,
               adjustment: Basis | None, dividends: PreferredDividends | None,
               accrued: Fraction, x: int, y: int, owed: int) -> Basis:
    """The basis of ``at_vesting``'s ``owed``: its rule, events and arithmetic."""
    ex = account.exercise
    trueups = f" + {account.issued} (true-up shares issued)" if account.issued else ""
    x_text = (shares_text(position, ex.portion, price) if not accrued else
              f"({show(ex.portion * position.units)} × {show(position.unit_value)} + "
              f"{show(accrued)} accrued dividends) / {show(price)} = {x} (rounded down)")
    text = Worked(f"x = {x_text}; y = {ex.shares_issued}{trueups}"
                  f"{f' = {y}' if trueups else ''}; owed = "
                  + (f"{x} - {y} = {owed}" if x >= y else f"max(0, {x} - {y}) = 0"),
                  (Operation("sum", (ex.shares_issued, account.issued), y, "y"),
                   Operation("max", (Operation("difference", (x, y), x - y), 0), owed,
                             "owed")))
    inputs: dict[str, object] = {"x": x, "y": y, "price": price}
    if adjustment is not None:
        inputs |= {k: adjustment.inputs[k] for k in ("A", "B", "C", "P", "P'")
                   if k in adjustment.inputs}
    computation = {"operation": "shares", "formula": "x = portion × aggregate / price, "
                   "rounded down",
                   "exact": {"portion": fraction_text(ex.portion),
                             "aggregate": fraction_text(position.aggregate),
                             "dividends": fraction_text(accrued),
                             "price": fraction_text(exact(price))},
                   "rounding": {"mode": "down", "decimals": 0}, "result": str(x)}
    return Basis(clause=CLAUSE, rule=rule_text(ex, cutoff, interpretations, dividends),
                 events=(ex.event, *vestings, *(e for e, _ in account.issues)),
                 interpretations=INTERPRETATIONS, arithmetic=text,
                 inputs=inputs, computation=computation,
                 parts=(adjustment,) if adjustment is not None else ())


def settled(accounts: list[Account], event: str, shares: int
            ) -> tuple[list[Account], int, int]:
    """Credit a ``TrueUpSharesIssued`` to one instrument's eligible exercises, oldest first
    (reading in the module doc). Returns the accounts, the shares beyond what was
    outstanding, and the shares credited to no exercise."""
    out, left = list(accounts), shares
    takes = [0] * len(out)
    for i, acc in enumerate(out):
        takes[i] = min(left, acc.outstanding)
        left -= takes[i]
    if left and out:
        takes[-1] += left            # the excess: one entry per exercise and event
    for i, take in enumerate(takes):
        if take:
            out[i] = replace(out[i], issues=out[i].issues + ((event, take),))
    return out, left, (0 if out else left)


def exercise_basis(account: Account, cutoff: date, interpretations: Mapping[str, str],
                   dividends: PreferredDividends | None = None) -> Basis:
    """Why an exercise is owed what it is owed (Letter ¶3)."""
    ex = account.exercise
    rule = rule_text(ex, cutoff, interpretations, dividends)
    events = (ex.event, *(s.vesting for s in account.steps), *(e for e, _ in account.issues))
    if not ex.eligible:
        text = Worked(f"exercised on {ex.date.isoformat()}, not before {cutoff.isoformat()}: "
                      "no true-up", ())
    elif not account.steps:
        text = Worked(f"no Camden Warrants became Vested Warrants after "
                      f"{ex.date.isoformat()}: nothing owed", ())
    else:
        last = account.steps[-1]
        more = (f"; earned so far = {account.earned}; issued = {account.issued}; "
                f"outstanding = {account.outstanding}")
        text = (last.basis.arithmetic.then(more) if isinstance(last.basis.arithmetic, Worked)
                else f"{last.basis.arithmetic}{more}")
    return Basis(clause=CLAUSE, rule=rule, events=tuple(dict.fromkeys(events)),
                 interpretations=INTERPRETATIONS, arithmetic=text,
                 parts=tuple(s.basis for s in account.steps))


def shortfall(exercise: Exercise) -> int:
    """Shares issued at the exercise below what the price then in force implied."""
    return max(0, exercise.implied - exercise.shares_issued)
