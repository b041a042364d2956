"""The Shelf Registration Statement (RRA §2(a)): deadlines, filing, effectiveness, the
Effectiveness Period, and the spans during which it was not usable (§3(a)(iii)).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from itertools import chain
from operator import itemgetter
from typing import Sequence

from ledger.calendar import FED, BusinessCalendar
from ledger.registration_terms import Deadline, PeriodEnd, cite_parts
from ledger.stored import Event
from ledger.dealterms import RegistrationTerms
from projections.basis import Basis
from projections.worked import Step, Worked

from .clock import after, anniversary, ordinal_word, unit_words
from .holdings import Holdings
from .questionnaire import Questionnaires

#: the event types ``read_shelf`` reads
SHELF_EVENTS = ("ShelfFiled", "ShelfEffective", "ShelfUnusable", "ShelfUsable")
#: the events whose days are anchors (``Anchors.of``)
ANCHOR_EVENTS = ("NotesIssued", "Rule144kDate")


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
    filing_deadline: date | None          # None: the agreement sets none
    effectiveness_deadline: date | None
    filed: Event | None
    effective: Event | None
    period_end: date | None          # the first day after the Effectiveness Period
    period_end_basis: Basis | None
    unusable: tuple[Unusable, ...]
    problems: tuple[str, ...]
    #: how each deadline was worked out (``deadline_day``)
    filing_arithmetic: Worked | None = None
    effectiveness_arithmetic: Worked | None = None
    anchors: "Anchors | None" = None
    calendar: BusinessCalendar = FED

    @property
    def filed_on(self) -> date | None:
        return self.filed.date if self.filed else None

    @property
    def effective_on(self) -> date | None:
        return self.effective.date if self.effective else None

    def in_effectiveness_period(self, day: date) -> bool:
        return (self.effective_on is not None and self.effective_on <= day
                and (self.period_end is None or day < self.period_end))


@dataclass(frozen=True)
class Anchors:
    """The days a deadline or an end of the Effectiveness Period may count from, as known
    on ``as_of``: the agreement's date, the closing, the Issue Date, the last day Notes
    were issued (the purchasers' option), and the Rule 144(k) date (a ``Rule144kDate``)."""

    date_hereof: date
    closing: date
    issue_date: date
    last_option_issue: date
    rule_144k: Event | None = None
    #: the day no security is a Transfer Restricted Security any more because all may be
    #: sold under Rule 144(k), if the terms end the restriction so (``date.max``: never)
    trs_until_144k: date = date.max

    @classmethod
    def of(cls, terms: RegistrationTerms, events: Sequence[Event] = ()) -> "Anchors":
        """From the ``NotesIssued`` and ``Rule144kDate`` events (``ANCHOR_EVENTS``): the
        last option issue is the last ``NotesIssued`` at the closing or upon the option,
        never one ``upon="other"`` (a reissue is no issue "upon exercise of the Initial
        Purchasers' option"), nor before the Issue Date."""
        last = max([terms.issued, *(e.date for e in events if e.type == "NotesIssued"
                                    and e.data.get("upon") != "other")])
        rule_144k = next((e for e in events if e.type == "Rule144kDate"), None)
        free = (rule_144k.date if rule_144k is not None
                and "rule_144k" in terms.transfer_restricted.until else date.max)
        return cls(terms.dated, terms.closing_date, terms.issued, last, rule_144k, free)

    def day(self, anchor: str) -> date:
        return getattr(self, anchor)


ANCHOR_WORDS = {"date_hereof": "the date hereof", "closing": "the Closing Date",
                "issue_date": "the Issue Date",
                "last_option_issue": "the last date on which Notes were issued",
                "effective": "the effective date"}


def deadline_day(deadline: Deadline, anchors: Anchors, calendar: BusinessCalendar = FED
                 ) -> tuple[date, Worked]:
    """A shelf deadline (``terms.filing``, ``terms.effectiveness``): ``count`` days (or
    Business Days) after its anchor, rolled to a Business Day if the terms say so; and
    its arithmetic (``deadline 2004-06-30 + 15 days = 2004-07-15``)."""
    start = anchors.day(deadline.anchor)
    due = after(start, deadline.count, deadline.unit, calendar, deadline.roll)
    step = (Step("plus_business_days", (start, deadline.count, calendar), due, "the deadline")
            if deadline.unit == "business" else
            Step("plus_days", (start, deadline.count), due, "the deadline"))
    rolled = "" if deadline.roll == "none" or due == after(
        start, deadline.count, deadline.unit, calendar) else ", rolled to a Business Day"
    return due, Worked(f"deadline {start} + {deadline.count} {unit_words(deadline.unit)} = "
                       f"{due}{rolled}", (step,))


def deadline_rule(deadline: Deadline) -> str:
    """The deadline in words: ``not later than 15 days after the date hereof``."""
    return (f"not later than {deadline.count} {unit_words(deadline.unit)} after "
            f"{ANCHOR_WORDS[deadline.anchor]}")


def _anniversary_end(end: PeriodEnd, effective: Event, anchors: Anchors
                     ) -> tuple[date, Basis]:
    start = effective.date if end.of == "effective" else anchors.day(end.of)
    day = anniversary(start, end.years)
    nth = f"the {ordinal_word(end.years)} anniversary"
    return day, Basis(end.section, f"the Effectiveness Period ends on {nth} of "
                      f"{ANCHOR_WORDS[end.of]}", (effective.id,),
                      arithmetic=Worked(f"{start} + {end.years} years = {day}", (
                          Step("plus_years", (start, end.years), day, nth),)))


def effectiveness_period_end(effective: Event, terms: RegistrationTerms,
                             holdings: Holdings, anchors: Anchors | None = None
                             ) -> tuple[date | None, Basis | None]:
    """RRA §2(a)(iii): the Effectiveness Period "will terminate upon the earliest of (x)
    the second anniversary of the effective date ..., (y) when all Transfer Restricted
    Securities registered under the Shelf Registration Statement have been sold in
    accordance with it and (z) when all Transfer Restricted Securities have ceased to be
    outstanding"; the terms list the deal's own ends (``effectiveness_period.ends``): an
    anniversary (of effectiveness, the Issue Date or the last option issue), the Rule
    144(k) date, all sold, none outstanding. All sold and none outstanding together: the
    first day, on or after effectiveness, at whose end no Note is a TRS and no Conversion
    Share has been issued (Conversion Shares stay TRS, RRA §1, and no event records
    their sale); none outstanding alone: no Note outstanding. The earliest stands; of
    ends on one day, the one listed first."""
    anchors = anchors or Anchors.of(terms)
    found: list[tuple[date, int, Basis]] = []
    ends = terms.effectiveness_period.ends
    sold = [e for e in ends if e.end in ("all_sold", "none_outstanding")]
    for i, end in enumerate(ends):
        if end.end == "anniversary":
            day, basis = _anniversary_end(end, effective, anchors)
            found.append((day, i, basis))
        elif end.end == "rule_144k" and anchors.rule_144k is not None:
            e = anchors.rule_144k
            found.append((max(e.date, effective.date), i, Basis(
                end.section, "the Effectiveness Period ends on the date all the Notes and "
                "Conversion Shares may be sold under Rule 144(k)", (effective.id, e.id),
                arithmetic=Worked(f"Rule 144(k) date {e.date}", ()))))
        elif end is (sold[0] if sold else None):
            day = _no_restricted_left(effective, holdings, terms.frees,
                                      only_outstanding=[e.end for e in sold] == [
                                          "none_outstanding"])
            if (day is None or day > anchors.trs_until_144k) and \
                    anchors.trs_until_144k < date.max:   # TRS (C): all free on that day
                day = max(anchors.trs_until_144k, effective.date)
            if day is not None:
                found.append((day, i, Basis(
                    cite_parts(*(e.section for e in sold)), _SOLD_RULE[
                        tuple(e.end for e in sold)], (effective.id,),
                    arithmetic=Worked(f"no TRS at the end of {day}", ()))))
    if not found:   # no end has come yet (say only the Rule 144(k) date, not recorded)
        return None, None
    day, _, basis = min(found, key=lambda f: (f[0], f[1]))
    return day, basis


_SOLD_RULE = {
    ("all_sold", "none_outstanding"): "the Effectiveness Period ends when no Transfer "
    "Restricted Security remains (all sold under the shelf or no longer outstanding)",
    ("none_outstanding", "all_sold"): "the Effectiveness Period ends when no Transfer "
    "Restricted Security remains (all sold under the shelf or no longer outstanding)",
    ("all_sold",): "the Effectiveness Period ends when all Transfer Restricted Securities "
    "have been sold",
    ("none_outstanding",): "the Effectiveness Period ends when no Note is outstanding",
}


def outstanding_steps(holdings: Holdings, frees: frozenset[str]
                      ) -> list[tuple[date, Decimal, int]]:
    """As ``holdings.trs_steps``, with the principal of every Note outstanding (restricted
    or not) in place of the restricted principal: for an Effectiveness Period that ends
    when no Note is outstanding (RRA §2(a)(iii)(z) alone)."""
    out: list[tuple[date, Decimal, int]] = []
    total, shares = Decimal(0), 0
    for e in holdings.position_events:
        data = e.data
        if e.type == "NotesIssued":
            total += data["principal"]
        elif e.type in ("NotesConverted", "NotesRetired"):
            total -= data["principal"]
            shares += data.get("shares", 0)
        elif e.type == "ConversionSharesTransferred" and data["under"] in frees:
            shares -= data["shares"]
        if out and out[-1][0] == e.date:
            out[-1] = (e.date, total, shares)
        else:
            out.append((e.date, total, shares))
    return out


def _no_restricted_left(effective: Event, holdings: Holdings, frees: frozenset[str],
                        only_outstanding: bool = False) -> date | None:
    """The first day, on or after ``effective``, at whose end no Note is a Transfer
    Restricted Security (``only_outstanding``: no Note is outstanding) and no Conversion
    Share is (``holdings.trs_steps``)."""
    steps = holdings.trs_steps if not only_outstanding else outstanding_steps(holdings, frees)
    k = bisect_right(steps, effective.date, key=itemgetter(0))   # steps[:k]: on or before
    candidates = chain([(effective.date, *steps[k - 1][1:])] if k else [], steps[k:])
    return next((day for day, trs, shares in candidates if trs == 0 and shares == 0), None)


def read_shelf(events: Sequence[Event], terms: RegistrationTerms, holdings: Holdings,
               anchors: Anchors | None = None, calendar: BusinessCalendar = FED) -> Shelf:
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
    anchors = anchors or Anchors.of(terms)
    end, basis = (effectiveness_period_end(effective, terms, holdings, anchors) if effective
                  else (None, None))
    filing = deadline_day(terms.filing, anchors, calendar) if terms.filing else None
    effectiveness = (deadline_day(terms.effectiveness, anchors, calendar)
                     if terms.effectiveness else None)
    return Shelf(filing[0] if filing else None, effectiveness[0] if effectiveness else None,
                 filed, effective, end, basis, tuple(spans), tuple(problems),
                 filing[1] if filing else None, effectiveness[1] if effectiveness else None,
                 anchors, calendar)


def named_selling_holders_end(shelf: Shelf, holdings: Holdings, questionnaires: Questionnaires,
                              amendments: Sequence[Event], days: Sequence[date],
                              terms: RegistrationTerms) -> Shelf:
    """Interpretation ``registered_securities=named_selling_holders`` (RRA §2(a)(iii)(y)
    "all Transfer Restricted Securities registered under the Shelf Registration
    Statement"): only the Notes of Holders named in the Prospectus are registered: those
    who delivered a Questionnaire on or before the effective date, and those an
    ``AmendmentFiled`` adds. (y) ends the Effectiveness Period on the first of ``days``
    (position-event days, snapshotted in ``holdings``) at whose end, at least one Holder
    being named, the named Holders hold no Transfer Restricted Security; the earlier of
    that and (x), (z) stands."""
    eff = shelf.effective_on
    sold = next((e for e in terms.effectiveness_period.ends if e.end == "all_sold"), None)
    if eff is None or sold is None:
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
                sold.section, "the Effectiveness Period ends when all Transfer "
                "Restricted Securities registered under the shelf (those of the Holders "
                "named in the Prospectus) have been sold under it", tuple(ids),
                ("registered_securities",),
                Worked(f"the named Holders {', '.join(sorted(named))} hold no TRS at the end "
                       f"of {day}", ())))
    return shelf
