"""Replay the letter's events in the order they take effect (``order.py``) into a ``History``:
positions and their prices, Camden Warrants, true-up accounts, and what went wrong, as
data. Each event kind has one small handler that applies the rule of its module."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any, Mapping

from ledger.dayorder import EXERCISE_FIRST
from ledger.stored import Event
from ledger.dealterms import LetterTerms, letter_terms

from ..timeline import Timeline, parsed_terms
from . import adjustments, camden, instruments, trueup
from .adjustments import Capitalization, PriceChange
from .camden import Book, Tranche
from .instruments import Instrument
from .order import in_effect_order, same_day_reading
from .trueup import Account, Exercise

EXERCISE_KIND = {"WarrantsExercised": "warrant", "PreferredConverted": "preferred"}
LATER_CAMDEN_READINGS = ("not_deferred", "deferred")


@dataclass(frozen=True)
class Vesting:
    event: str
    date: date
    holder: str
    warrants: int                         # named in the event
    tranches: tuple[Tranche, ...]         # what actually vested
    changes: tuple[PriceChange, ...]      # the day's adjustment, on its first vesting
    adjusted_with: str = ""               # the first vesting of the day (SPEC §5.2)


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
    not_deferred: tuple[dict[str, Any], ...] = ()


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
    not_deferred: list[dict[str, Any]] = field(default_factory=list)

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
        """Letter ¶2: "Camden Warrants" are those issued "pursuant to that certain Warrant
        Agreement dated as of February 1, 2002"; ¶5: the letter is not "applicable to any
        further issuance of securities of any kind". Warrants issued after the agreement
        date are not Camden Warrants of the letter: nothing about them is deferred. They
        are kept out of the book (their vesting adjusts nothing here) and reported, so
        that the operator records whatever anti-dilution they trigger under the
        Transaction Documents as an ``AdjustmentRecorded``. That is the reading
        ``later_camden_issuance = not_deferred`` (SPEC §6); with ``deferred``, warrants
        issued later "pursuant to" the Camden Warrant Agreement "dated as of February 1,
        2002" are Camden Warrants by ¶2's definition, and join the book."""
        later = self.interpretations.get("later_camden_issuance", "not_deferred")
        if later not in LATER_CAMDEN_READINGS:
            raise ValueError(f"interpretation later_camden_issuance has no value {later!r}; "
                             f"choose one of {', '.join(LATER_CAMDEN_READINGS)}")
        if e.date > self.terms.agreement_date and later == "not_deferred":
            self.not_deferred.append({
                "event": e.id, "date": e.date.isoformat(), "holder": e.data["holder"],
                "warrants": e.data["warrants"],
                "exercise_price": format(e.data["exercise_price"], "f"),
                "clause": "Letter ¶2, ¶5",
                "reason": f"issued after {self.terms.agreement_date.isoformat()}, the date of "
                          "the Camden Warrant Agreement: not Camden Warrants of the letter, "
                          "which does not apply to any further issuance; not deferred (record "
                          "any adjustment they trigger as AdjustmentRecorded)"})
            self.problem(e, f"Camden Warrants issued {e.date.isoformat()}, after the Camden "
                            f"Warrant Agreement of {self.terms.agreement_date.isoformat()}, are "
                            "not Camden Warrants of the letter (Letter ¶2, ¶5): not deferred, "
                            "and their vesting adjusts nothing here")
            return
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
        self.vested_day([e])

    def vested_day(self, day: list[Event]) -> None:
        """All the vestings of one day, one adjustment (SPEC §5.2: "their C and B are
        summed and the price is rounded once"), then each eligible exercise's true-up for
        that day (Letter ¶3)."""
        order = self.interpretations.get("camden_tranche_order", "earliest_first")
        drawn: list[tuple[Event, tuple[Tranche, ...]]] = []
        for e in day:
            holder, named = e.data["holder"], e.data["warrants"]
            self.book, tranches, short = camden.vested(self.book, holder, named, order)
            if short:
                self.problem(e, f"{short} of the {named} warrants named were not unvested "
                                f"Camden Warrants of {holder!r} under the letter; they adjust "
                                "nothing")
            if tranches:
                self.vested_counts[holder] = self.vested_counts.get(holder, 0) + named - short
                drawn.append((e, tranches))
        if not drawn:
            return
        first, when = drawn[0][0], drawn[0][0].date
        ids = tuple(e.id for e, _ in drawn)
        tranches = tuple(t for _, ts in drawn for t in ts)
        changes = self._adjust_all(tranches, ids, when, first)
        for e, ts in drawn:
            mine = tuple(changes) if e is first else ()
            self.vestings.append(Vesting(e.id, when, e.data["holder"], e.data["warrants"], ts,
                                         mine, first.id))
        cap_before = self.cap
        # no capitalization for a weighted average: P' cannot be computed, whatever A is,
        # for a price some tranche is below (issue 30: shares are owed, how many is not known)
        blind = cap_before is None and self.terms.formula != "full_ratchet"
        for t in tranches:
            self.cap = adjustments.deemed_outstanding(self.cap, first.id, t.warrants)
        by_instrument = {c.instrument: c for c in changes}
        camden_only = self.interpretations.get("trueup_adjustments", "all") == "camden_only"
        exercise_first = same_day_reading(self.interpretations) == EXERCISE_FIRST
        cutoff = self.terms.true_up_cutoff
        for i, acc in enumerate(self.accounts):
            ex = acc.exercise
            # Letter ¶3 "after the date of the exercise": a same-day vesting counts only
            # under exercise_first (the exercise was replayed before it)
            if not ex.eligible or not (ex.date < when or exercise_first):
                continue
            position = self.positions[ex.instrument]
            change = by_instrument.get(ex.instrument)
            price = None
            before = (acc.camden_price if camden_only and acc.camden_price is not None
                      else ex.price if camden_only else position.price)
            unknown = blind and any(t.issuance.exercise_price < before for t in tranches)
            if camden_only:
                start = acc.camden_price if acc.camden_price is not None else ex.price
                shadow = adjustments.camden_adjustment(
                    position, tranches, ids, when, cap_before, self.terms.formula,
                    self.terms.price_decimals, price=start)
                price = start if shadow is None else shadow.after
                change = shadow
                acc = replace(acc, camden_price=price)
            self.accounts[i] = trueup.at_vesting(acc, position, ids, when, cutoff,
                                                 self.interpretations, price,
                                                 change.basis if change else None,
                                                 self.terms.preferred_dividends, unknown)

    def CamdenWarrantsCancelled(self, e: Event) -> None:
        holder, named = e.data["holder"], e.data["warrants"]
        order = self.interpretations.get("camden_tranche_order", "earliest_first")
        self.book, _, short = camden.cancelled(self.book, holder, named, order)
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

    def _adjust_all(self, tranches: tuple[Tranche, ...], vestings: tuple[str, ...],
                    day: date, e: Event) -> list[PriceChange]:
        """Every registered position, held or exercised: an exercised part still needs the
        price it would have had, for the true-up (Letter ¶3)."""
        out = []
        day_prices: dict = {}   # the day's new price of each price: positions share a few
        for position in list(self.positions.values()):
            change = adjustments.camden_adjustment(position, tranches, vestings, day, self.cap,
                                                   self.terms.formula,
                                                   self.terms.price_decimals,
                                                   day_prices=day_prices)
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
    # a copy: the true-up steps' explanations are written later, when read (LazyBasis),
    # and must read the interpretations of this replay whatever the caller does after
    state = _Replay(parsed_terms(timeline.terms, letter_terms), dict(interpretations))
    ordered = in_effect_order(timeline.events, interpretations)
    i = 0
    while i < len(ordered):
        event = ordered[i]
        if event.type == "CamdenWarrantsVested":   # one day's vestings: one adjustment
            j = i
            while j < len(ordered) and ordered[j].type == event.type and \
                    ordered[j].date == event.date:
                j += 1
            state.vested_day(ordered[i:j])
            i = j
            continue
        getattr(state, event.type)(event)
        i += 1
    return History(
        terms=state.terms, as_of=timeline.as_of, interpretations=dict(interpretations),
        positions=dict(state.positions), accounts=tuple(state.accounts),
        vestings=tuple(state.vestings), price_changes=tuple(state.changes),
        trueup_issues=tuple(state.issues), book=state.book, capitalization=state.cap,
        vested_counts=dict(state.vested_counts),
        cancelled_counts=dict(state.cancelled_counts), problems=tuple(state.problems),
        not_deferred=tuple(state.not_deferred))
