"""The Shelf Registration Statement (RRA §2(a)): deadlines, filing, effectiveness, the
Effectiveness Period, and the spans during which it was not usable (§3(a)(iii)).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace
from datetime import date
from itertools import chain
from operator import itemgetter
from typing import Sequence

from ledger.stored import Event
from ledger.dealterms import RegistrationTerms
from projections.basis import Basis
from projections.worked import Step, Worked

from .clock import anniversary, days_after
from .holdings import Holdings
from .questionnaire import Questionnaires

#: the event types ``read_shelf`` reads
SHELF_EVENTS = ("ShelfFiled", "ShelfEffective", "ShelfUnusable", "ShelfUsable")


@dataclass(frozen=True)
class Unusable:
    """RRA §3(a)(iii): the shelf "cease[d] to be effective or fail[ed] to be usable" from
    ``start`` until ``end`` (exclusive; ``None`` while not cured)."""

    start: date
    end: date | None
    reason: str
    cure: str | None
    events: tuple[str, ...]


@dataclass(frozen=True)
class Shelf:
    filing_deadline: date
    effectiveness_deadline: date
    filed: Event | None
    effective: Event | None
    period_end: date | None          # the first day after the Effectiveness Period
    period_end_basis: Basis | None
    unusable: tuple[Unusable, ...]
    problems: tuple[str, ...]

    @property
    def filed_on(self) -> date | None:
        return self.filed.date if self.filed else None

    @property
    def effective_on(self) -> date | None:
        return self.effective.date if self.effective else None

    def in_effectiveness_period(self, day: date) -> bool:
        return (self.effective_on is not None and self.effective_on <= day
                and (self.period_end is None or day < self.period_end))


def filing_deadline(terms: RegistrationTerms) -> date:
    """RRA §2(a)(i): "not later than 15 days after the date hereof (the "SHELF FILING
    DEADLINE")"."""
    return days_after(terms.closing_date, terms.filing_deadline_days)


def effectiveness_deadline(terms: RegistrationTerms) -> date:
    """RRA §2(a)(ii): "not later than 120 days after the date hereof (the "EFFECTIVENESS
    TARGET DATE")"."""
    return days_after(terms.closing_date, terms.effectiveness_deadline_days)


def effectiveness_period_end(effective: Event, terms: RegistrationTerms,
                             holdings: Holdings) -> tuple[date, Basis]:
    """RRA §2(a)(iii): the Effectiveness Period "will terminate upon the earliest of (x)
    the second anniversary of the effective date ..., (y) when all Transfer Restricted
    Securities registered under the Shelf Registration Statement have been sold in
    accordance with it and (z) when all Transfer Restricted Securities have ceased to be
    outstanding". (y) and (z) together: the first day, on or after effectiveness, at
    whose end no Note is a TRS and no Conversion Share has been issued (Conversion
    Shares stay TRS, RRA §1, and no event records their sale)."""
    x = anniversary(effective.date, terms.effectiveness_period_years)
    steps = holdings.trs_steps                      # in date order
    k = bisect_right(steps, effective.date, key=itemgetter(0))   # steps[:k]: on or before
    candidates = chain([(effective.date, *steps[k - 1][1:])] if k else [], steps[k:])
    yz = next((day for day, trs, shares in candidates if trs == 0 and shares == 0), None)
    if yz is not None and yz < x:
        return yz, Basis("RRA §2(a)(iii)(y),(z)", "the Effectiveness Period ends when no "
                         "Transfer Restricted Security remains (all sold under the shelf or "
                         "no longer outstanding)", (effective.id,),
                         arithmetic=Worked(f"no TRS at the end of {yz}", ()))
    return x, Basis("RRA §2(a)(iii)(x)", "the Effectiveness Period ends on the second "
                    "anniversary of the effective date", (effective.id,),
                    arithmetic=Worked(
                        f"{effective.date} + {terms.effectiveness_period_years} years = {x}",
                        (Step("plus_years", (effective.date, terms.effectiveness_period_years),
                              x, "the second anniversary"),)))


def read_shelf(events: Sequence[Event], terms: RegistrationTerms, holdings: Holdings) -> Shelf:
    """The shelf's history from ShelfFiled, ShelfEffective, ShelfUnusable and ShelfUsable
    (the first filing and the first effectiveness count, an effectiveness with no filing
    before it counting as the filing; a ShelfUnusable while already unusable continues
    the same span)."""
    effective = next((e for e in events if e.type == "ShelfEffective"), None)
    filed = next((e for e in events if e.type in ("ShelfFiled", "ShelfEffective")), None)
    spans: list[Unusable] = []
    problems: list[str] = []
    if filed is not None and filed.type == "ShelfEffective":
        problems.append(f"ShelfEffective {filed.id}: no ShelfFiled before it; a shelf declared "
                        f"effective was filed, so it counts as the filing")
    open_: Event | None = None
    for e in events:
        if e.type == "ShelfUnusable":
            if open_ is None:
                open_ = e
        elif e.type == "ShelfUsable":
            if open_ is None:
                problems.append(f"ShelfUsable {e.id}: the shelf was not unusable; ignored")
                continue
            spans.append(Unusable(open_.date, e.date, open_.data["reason"], e.data["cure"],
                                  (open_.id, e.id)))
            open_ = None
    if open_ is not None:
        spans.append(Unusable(open_.date, None, open_.data["reason"], None, (open_.id,)))
    end, basis = (effectiveness_period_end(effective, terms, holdings) if effective
                  else (None, None))
    return Shelf(filing_deadline(terms), effectiveness_deadline(terms), filed, effective,
                 end, basis, tuple(spans), tuple(problems))


def named_selling_holders_end(shelf: Shelf, holdings: Holdings, questionnaires: Questionnaires,
                              amendments: Sequence[Event], days: Sequence[date]) -> Shelf:
    """Interpretation ``registered_securities=named_selling_holders`` (RRA §2(a)(iii)(y)
    "all Transfer Restricted Securities registered under the Shelf Registration
    Statement"): only the Notes of Holders named in the Prospectus are registered: those
    who delivered a Questionnaire on or before the effective date, and those an
    ``AmendmentFiled`` adds. (y) ends the Effectiveness Period on the first of ``days``
    (position-event days, snapshotted in ``holdings``) at whose end, at least one Holder
    being named, the named Holders hold no Transfer Restricted Security; the earlier of
    that and (x), (z) stands."""
    eff = shelf.effective_on
    if eff is None:
        return shelf
    named = {h for h, ds in questionnaires.deliveries.items() if any(d.on <= eff for d in ds)}
    added = sorted((e.date, e.id, tuple(e.data["holders_added"])) for e in amendments
                   if e.type == "AmendmentFiled")
    ids = [shelf.effective.id]
    for day in sorted(d for d in days if d >= eff):
        while added and added[0][0] <= day:
            named.update(added[0][2])
            ids.append(added.pop(0)[1])
        snap = holdings.at(day)
        if named and all(snap.trs(h) == 0 for h in named):
            if shelf.period_end is not None and day >= shelf.period_end:
                return shelf
            return replace(shelf, period_end=day, period_end_basis=Basis(
                "RRA §2(a)(iii)(y)", "the Effectiveness Period ends when all Transfer "
                "Restricted Securities registered under the shelf (those of the Holders "
                "named in the Prospectus) have been sold under it", tuple(ids),
                ("registered_securities",),
                Worked(f"the named Holders {', '.join(sorted(named))} hold no TRS at the end "
                       f"of {day}", ())))
    return shelf
