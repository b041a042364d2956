"""Replay the letter's events in the order they take effect (``order.py``) into a ``History``:
positions and their prices, Camden Warrants, true-up accounts, and what went wrong, as
data. Each event kind has one small handler that applies the rule of its module."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, Mapping

from ledger.events import Event
from ledger.terms import LetterTerms, letter_terms

from ..timeline import Timeline
from . import adjustments, camden, instruments, trueup
from .adjustments import Capitalization, PriceChange
from .camden import Book, Tranche
from .instruments import Instrument
from .order import in_effect_order
from .trueup import Account, Exercise

EXERCISE_KIND = {"WarrantsExercised": "warrant", "PreferredConverted": "preferred"}


@dataclass(frozen=True)
class Vesting:
    event: str
    date: date
    holder: str
    warrants: int                         # named in the event
    tranches: tuple[Tranche, ...]         # what actually vested
    changes: tuple[PriceChange, ...]


@dataclass(frozen=True)
class TrueUpIssue:
    event: str
    date: date
    instrument: str
    shares: int
    beyond_outstanding: int
    unallocated: int


@dataclass(frozen=True)
class History:
    terms: LetterTerms
    as_of: date
    interpretations: Mapping[str, str]
    positions: Mapping[str, Instrument]
    accounts: tuple[Account, ...]
    vestings: tuple[Vesting, ...]
    price_changes: tuple[PriceChange, ...]
    trueup_issues: tuple[TrueUpIssue, ...]
    book: Book
    capitalization: Capitalization | None
    vested_counts: Mapping[str, int]
    cancelled_counts: Mapping[str, int]
    problems: tuple[dict[str, Any], ...]


@dataclass
class _Replay:
    terms: LetterTerms
    interpretations: Mapping[str, str]
    positions: dict[str, Instrument] = field(default_factory=dict)
    accounts: list[Account] = field(default_factory=list)
    vestings: list[Vesting] = field(default_factory=list)
    changes: list[PriceChange] = field(default_factory=list)
    issues: list[TrueUpIssue] = field(default_factory=list)
    book: Book = ()
    cap: Capitalization | None = None
    vested_counts: dict[str, int] = field(default_factory=dict)
    cancelled_counts: dict[str, int] = field(default_factory=dict)
    problems: list[dict[str, Any]] = field(default_factory=list)

    def problem(self, event: Event, text: str) -> None:
        self.problems.append({"event": event.id, "date": event.date.isoformat(),
                              "problem": text})

    # ------------------------------------------------------------------ handlers

    def InstrumentRegistered(self, e: Event) -> None:
        position = instruments.registered(e)
        if position.instrument in self.positions:
            self.problem(e, f"instrument {position.instrument!r} is already registered; "
                            "this registration is ignored")
            return
        if self.terms.warrantholders and position.holder not in self.terms.warrantholders:
            self.problem(e, f"{position.holder!r} is not a Warrantholder named in the letter "
                            "(Letter ¶1); the position is counted")
        self.positions[position.instrument] = position

    def CapitalizationRecorded(self, e: Event) -> None:
        if self.cap and self.cap.date == e.date and \
                self.cap.common_outstanding != e.data["common_outstanding"]:
            self.problem(e, f"two capitalizations recorded for {e.date.isoformat()} "
                            f"({self.cap.event}, {e.id}); {e.id} is used")
        self.cap = adjustments.recorded_capitalization(e)

    def CamdenWarrantsIssued(self, e: Event) -> None:
        if self.terms.camden_entities and e.data["holder"] not in self.terms.camden_entities:
            self.problem(e, f"{e.data['holder']!r} is not a Camden Entity named in the "
                            "letter (Letter ¶2); its warrants are counted")
        self.book = camden.issued(self.book, e)

    def AdjustmentRecorded(self, e: Event) -> None:
        target = e.data["instrument"]
        if target != "all" and target not in self.positions:
            self.problem(e, f"no instrument {target!r} is registered; nothing adjusted")
            return
        names = list(self.positions) if target == "all" else [target]
        prices = sorted({self.positions[n].price for n in names})
        if len(prices) > 1:
            self.problem(e, "one new_price for all instruments, which were at different "
                            f"prices ({', '.join(format(p, 'f') for p in prices)}): every "
                            f"one is set to {format(e.data['new_price'], 'f')}; a split or "
                            "other proportional adjustment should be recorded per instrument")
        for name in names:
            change = adjustments.recorded_adjustment(self.positions[name], e)
            self._apply(change)
            exercised = [a.exercise.event for a in self.accounts
                         if a.exercise.instrument == name and a.exercise.eligible]
            if exercised and change.after != change.before:
                self.problem(e, f"{name!r} was adjusted after its exercise(s) "
                                f"{', '.join(exercised)} before the cutoff: later true-ups "
                                "count the new price in x (Letter ¶3 \"all anti-dilution "
                                "adjustments\"), but y, the shares previously issued, is not "
                                "restated: if this was a split or combination the true-up "
                                "is misstated")

    def CamdenWarrantsVested(self, e: Event) -> None:
        holder, named = e.data["holder"], e.data["warrants"]
        self.book, tranches, short = camden.vested(self.book, holder, named)
        if short:
            self.problem(e, f"{short} of the {named} warrants named were not unvested "
                            f"Camden Warrants of {holder!r}; they adjust nothing")
        if not tranches:
            return
        self.vested_counts[holder] = self.vested_counts.get(holder, 0) + named - short
        changes = []
        for tranche in tranches:
            changes += self._adjust_all(tranche, e.id, e.date, e)
            self.cap = adjustments.deemed_outstanding(self.cap, e.id, tranche.warrants)
        self.vestings.append(Vesting(e.id, e.date, holder, named, tranches, tuple(changes)))
        cutoff = self.terms.true_up_cutoff
        for i, acc in enumerate(self.accounts):
            ex = acc.exercise
            if ex.eligible and ex.date < e.date:
                self.accounts[i] = trueup.at_vesting(acc, self.positions[ex.instrument], e.id,
                                                     e.date, cutoff, self.interpretations)

    def CamdenWarrantsCancelled(self, e: Event) -> None:
        holder, named = e.data["holder"], e.data["warrants"]
        self.book, _, short = camden.cancelled(self.book, holder, named)
        if short:
            self.problem(e, f"{short} of the {named} warrants named were not unvested "
                            f"Camden Warrants of {holder!r}")
        self.cancelled_counts[holder] = self.cancelled_counts.get(holder, 0) + named - short

    def WarrantsExercised(self, e: Event) -> None:
        name = e.data["instrument"]
        position = self.positions.get(name)
        if position is None:
            self.problem(e, f"no instrument {name!r} is registered; ignored")
            return
        if position.kind != EXERCISE_KIND[e.type]:
            self.problem(e, f"{name!r} is a {position.kind}; a {e.type} does not apply; ignored")
            return
        if not position.held:
            self.problem(e, f"nothing of {name!r} remains to exercise or convert; ignored")
            return
        after, portion = instruments.exercised(position, e.data["fraction"])
        self.positions[name] = after
        exercise = Exercise(
            event=e.id, type=e.type, instrument=name, holder=position.holder,
            kind=position.kind, date=e.date, fraction=e.data["fraction"], portion=portion,
            shares_issued=e.data["shares_issued"], price=position.price,
            implied=instruments.shares_for(position, portion),
            eligible=trueup.eligible(e.date, self.terms.true_up_cutoff))
        self.accounts.append(Account(exercise))

    PreferredConverted = WarrantsExercised

    def TrueUpSharesIssued(self, e: Event) -> None:
        name, shares = e.data["instrument"], e.data["shares"]
        if name not in self.positions:
            self.problem(e, f"no instrument {name!r} is registered; the shares are not "
                            "credited to any holder")
            return
        idx = [i for i, a in enumerate(self.accounts)
               if a.exercise.instrument == name and a.exercise.eligible]
        settled, beyond, unallocated = trueup.settled([self.accounts[i] for i in idx], e.id,
                                                      shares)
        for i, acc in zip(idx, settled):
            self.accounts[i] = acc
        self.issues.append(TrueUpIssue(e.id, e.date, name, shares, beyond, unallocated))

    # ------------------------------------------------------------------ helpers

    def _apply(self, change: PriceChange) -> None:
        self.changes.append(change)
        self.positions[change.instrument] = instruments.repriced(
            self.positions[change.instrument], change.after)

    def _adjust_all(self, tranche: Tranche, vesting: str, day: date, e: Event
                    ) -> list[PriceChange]:
        """Every registered position, held or exercised: an exercised part still needs the
        price it would have had, for the true-up (Letter ¶3)."""
        out = []
        for position in list(self.positions.values()):
            change = adjustments.camden_adjustment(position, tranche, vesting, day, self.cap,
                                                   self.terms.formula,
                                                   self.terms.price_decimals)
            if change is None:
                self.problem(e, "no capitalization recorded on or before the vesting date: "
                                "the weighted average cannot be computed; no adjustment")
                return out
            self._apply(change)
            out.append(change)
        return out


def replay(timeline: Timeline, interpretations: Mapping[str, str]) -> History:
    """The letter deal's history as of ``timeline.as_of`` (SPEC §5)."""
    if timeline.kind != "antidilution_deferral":
        raise ValueError(f"deal {timeline.deal!r} is a {timeline.kind} deal, not an "
                         "antidilution_deferral deal")
    trueup.dividends_reading("preferred", interpretations)  # refuse an unknown reading early
    state = _Replay(letter_terms(dict(timeline.terms)), interpretations)
    for event in in_effect_order(timeline.events):
        getattr(state, event.type)(event)
    return History(
        terms=state.terms, as_of=timeline.as_of, interpretations=dict(interpretations),
        positions=dict(state.positions), accounts=tuple(state.accounts),
        vestings=tuple(state.vestings), price_changes=tuple(state.changes),
        trueup_issues=tuple(state.issues), book=state.book, capitalization=state.cap,
        vested_counts=dict(state.vested_counts),
        cancelled_counts=dict(state.cancelled_counts), problems=tuple(state.problems))
