"""A plain reference model of a registration rights agreement (the Infocrossing RRA and
any market-standard one its terms state), day by day.

It reads the deal's events in their public JSON form (SPEC §3: ``type, deal, date, data``
plus the store's ``seq``, ``id``, ``recorded_at``), the deal's terms as the ``DealOpened``
carries them (schema version 2: ``ledger/registration_terms.py`` describes each term; the
model reads the JSON itself), and walks every calendar day from the Closing Date to
``as_of``: for each day it decides which Registration Default is running (each kind's own
test, as the terms switch and number them), the rate of that day (the terms' ladder of
steps, their cap, how overlapping defaults combine), each Holder's principal that earns
(restricted or outstanding, as the terms' base says; Conversion Shares at the Applicable
Conversion Price where the terms pay on them), and adds ``principal x rate x (the day's
day-count fraction)``; then it forms the payments per Interest Payment Date (RRA §3(b)),
rounding once per Holder per date, half-up to the cent (SPEC §2) (``rra_pay``).

It shares no code with the engine (nothing from ``projections/``, nor ``ledger.calendar``,
``ledger.daycount`` or ``ledger.registration_terms``): the Business Day calendar is
``holidays.financial_holidays("XFED")`` plus the ``CalendarDayDeclared`` overrides known
at ``known_at`` (SPEC §2), and 30/360 is written here again. It is slow on purpose: a
figure is a sum over days.

Day count, day by day. ACT conventions give each day its own fraction (1/360, 1/365, or
1/365 or 1/366 by the day's year for ACT/ACT-ISDA), and those add up to the period
formula exactly. 30/360 does not: ``days360(d, d + 1)`` is 0 on the 31st and 3 (or 2) on
the last day of February, so a per-day sum would depend on where sub-periods are cut.
SPEC §4.4 applies the fraction to each sub-period ``[s, e)`` where rate and principal are
constant, so the model tracks the start ``s`` of the current run of constant (rate,
principal) and gives day ``d`` the increment ``days360(s, d + 1) - days360(s, d)``: over
the run the increments telescope to ``days360(s, e)``, the period formula.

Readings the contract leaves open and the engine documents (not named interpretations),
followed here so that the two can be compared: a Holder's transfer, conversion or
retirement takes its Transfer Restricted Notes first, then those already sold under the
shelf, each the earliest issued first (Conversion Shares: restricted first, the earliest
converted first); a ``SuspensionExtended`` counts when made on or before the period's own
last day; the latest Questionnaire request whose deadline has passed decides
entitlement, a delivery "on or before" its deadline counting (a delivery before the
request counts, RRA §2(b)); an amendment (``TermsAmended``) gives its terms to the days
from its effective date, the deal's earlier terms to the days before (``amended``).

What the write side refuses is a rule too: ``broken`` (``rra_refusals``) finds the events
of a history that break the refusals of issue 30 (sales under the shelf when none can be
made, Notes past the maximum, an acknowledgment before its notice); ``rra_consents``
whether an amendment rests on its majority (issue 33).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any, Iterable, Mapping

from .rra_notes import (POSITIONS, Book, Lot, book_at, holders_of_trs, live_events,
                        restricted_shares, shares_at, trs_held)
from .rra_pay import Payments
from .rra_refusals import broken
from .rra_time import ONE, Calendar, anniversary, day_fraction, day_of, days360, money

__all__ = ["Calendar", "DEFAULTS", "VALUES", "day_fraction", "days360", "live_events",
           "effectiveness_period_end", "model", "Book", "Lot", "broken"]

#: SPEC §6, the interpretations that concern the RRA, each with its default
DEFAULTS = {
    "default_date": "last_compliant_day",
    "rate_after_second_anniversary": "calendar",
    "overlapping_defaults": "episode",
    "conversion_forfeits": "unpaid",
    "no_questionnaire_request": "entitled",
    "questionnaire_deadline": "questionnaire_form",
    "questionnaire_entitlement_judged_on": "payment_date",
    "window_breach": "usability_default",
    "window_material_allowance": "period",
    "rate_clock": "per_episode",
    "registered_securities": "all_notes",
    "default_after_effectiveness_period": "ends",
    "conversion_judged_on": "interest_payment_date",
    "shelf_buyer_paid": "accrued_days",
}
VALUES = {
    "default_date": ("last_compliant_day", "first_breach_day"),
    "rate_after_second_anniversary": ("calendar", "first_90_days_always_quarter_point"),
    "overlapping_defaults": ("episode", "additive", "highest"),
    "conversion_forfeits": ("unpaid", "all_unpaid", "future_only"),
    "no_questionnaire_request": ("entitled", "not_entitled"),
    "questionnaire_deadline": ("questionnaire_form", "section_2b_business_days"),
    "questionnaire_entitlement_judged_on": ("payment_date", "record_date"),
    "window_breach": ("usability_default", "report_only", "suspension_default"),
    "window_material_allowance": ("period", "any_in_window"),
    "rate_clock": ("per_episode", "once_per_deal"),
    "registered_securities": ("all_notes", "named_selling_holders"),
    "default_after_effectiveness_period": ("ends", "continues"),
    "conversion_judged_on": ("interest_payment_date", "payment_day"),
    "shelf_buyer_paid": ("accrued_days", "not_record_holder"),
}
SALES = {"shelf_sale": "shelf", "rule_144_sale": "rule_144"}


# ----------------------------------------------------------------------- the model

@dataclass
class Default:
    kind: str                 # its label in the agreement: "(i)" ... "(iv)(B)", "(b)"
    clause: str
    days: list[date]          # accrual days through as_of (before maturity)
    tag: str = ""
    # the day after the default date, for a default (iii) whose days a permitted
    # Suspension Period excused: its rate clock counts from it, through those days
    clock_from: date | None = None

    def __post_init__(self) -> None:
        self.day_set = set(self.days)

    @property
    def accrual_from(self) -> date:
        return self.days[0]

    @property
    def clock_days(self) -> list[date]:
        """The days its rate clock runs on: its accrual days, and for an uncured (iii)
        every day from the one after its default date to its last accrual day (RRA
        §3(a)(ii): "the 91st day following the day the Registration Default shall have
        occurred"; excused days accrue nothing but cure nothing)."""
        if self.clock_from is None:
            return self.days
        n = (self.days[-1] - self.clock_from).days + 1
        return [self.clock_from + timedelta(days=k) for k in range(n)]


@dataclass
class Result:
    defaults: list[Default]
    rates: dict[date, Decimal]                            # default days -> % per annum
    amounts: dict[date, dict[str, Decimal]]               # payment_date -> holder -> owed
    exact: dict[date, dict[str, Fraction]]
    accrued_to_as_of: Decimal
    effectiveness_period_end: date | None
    notes: list[str]
    statuses: dict[date, dict[str, str]] = field(default_factory=dict)
    filing_deadline: date | None = None
    effectiveness_deadline: date | None = None

    def defaults_by_kind(self) -> dict[str, list[tuple[date, date]]]:
        """Per kind, the accrual days as merged runs ``(first, last)``."""
        out: dict[str, list[tuple[date, date]]] = {}
        for kind in sorted({d.kind for d in self.defaults}):
            days = sorted({x for d in self.defaults if d.kind == kind for x in d.days})
            runs: list[list[date]] = []
            for x in days:
                if runs and runs[-1][1] + ONE == x:
                    runs[-1][1] = x
                else:
                    runs.append([x, x])
            out[kind] = [(a, b) for a, b in runs]
        return out


def effectiveness_period_end(events: Iterable[Mapping[str, Any]], *, deal: str,
                             as_of: date) -> date | None:
    """RRA §2(a)(iii) alone: the first day after the Effectiveness Period as of ``as_of``
    (all Notes registered), or None before effectiveness."""
    known = live_events(events, deal, None)
    terms = next(e for e in known if e["type"] == "DealOpened")["data"]["terms"]
    m = _Model([e for e in known if day_of(e["date"]) <= as_of], terms, Calendar({}), as_of,
               dict(DEFAULTS))
    m.shelf()
    return m.ep_end


def readings_of(terms: Mapping[str, Any], interpretations: Mapping[str, str] | None
                ) -> dict[str, str]:
    """The defaults, the readings the deal's terms fix, then those asked for."""
    readings = dict(DEFAULTS)
    readings.update({k: v for k, v in (terms.get("readings") or {}).items() if v})
    for name, value in (interpretations or {}).items():
        if value not in VALUES[name]:
            raise ValueError(f"{name}={value}")
        readings[name] = value
    return readings


def merge(target: Any, patch: Any) -> Any:
    """A JSON merge patch (RFC 7386, but ``null`` sets the term to null), written again."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        out[k] = None if v is None else merge(out.get(k), v)   # null: the rule is absent
    return out


def model(events: Iterable[Mapping[str, Any]], *, deal: str, as_of: date,
          known_at: datetime | None = None,
          interpretations: Mapping[str, str] | None = None) -> Result:
    known = live_events(events, deal, known_at)
    opened = next(e for e in known if e["type"] == "DealOpened")
    terms = opened["data"]["terms"]
    readings = readings_of(terms, interpretations)
    # SPEC §2: the calendar is the base plus the overrides known at known_at (whatever
    # their date); later overrides of one day win
    cal = Calendar({day_of(e["data"]["day"]): bool(e["data"]["business_day"])
                    for e in known if e["type"] == "CalendarDayDeclared"})
    evs = [e for e in known if day_of(e["date"]) <= as_of]     # SPEC §1 as_of
    amendments = [e for e in sorted(evs, key=lambda e: e["seq"])
                  if e["type"] == "TermsAmended"]
    if not amendments:
        return _Model(evs, terms, cal, as_of, readings).run()
    return amended(evs, terms, amendments, cal, as_of, readings)


def amended(evs, terms, amendments, cal, as_of, readings) -> Result:
    """The deal under terms amended from dates (RRA §10(D)): each day's defaults and rate
    are those of the terms in force that day; deadlines that fell before an amendment
    took effect stay those of the terms before it; the rest is the last terms'."""
    versions = [(date.min, terms)]
    for e in amendments:
        on = day_of(e["data"].get("effective") or e["date"])
        if on <= as_of:
            versions.append((on, merge(versions[-1][1], e["data"]["changes"])))
    runs = []
    for k, (lo, t) in enumerate(versions):
        hi = versions[k + 1][0] if k + 1 < len(versions) else date.max
        m = _Model(evs, t, cal, as_of, readings)
        m.prepare()
        runs.append((lo, hi, m, m.defaults(), ))
    last = runs[-1][2]
    found, rates = [], {}
    for lo, hi, m, defaults in runs:
        mine = [d for d in defaults]
        day_rates = m.day_rates(mine)
        for d in mine:
            days = [x for x in d.days if lo <= x < hi]
            if days:
                found.append(Default(d.kind, d.clause, days, d.tag))
        rates.update({x: r for x, r in day_rates.items() if lo <= x < hi})
    filing = next((m.filing_deadline for lo, hi, m, _ in runs
                   if m.filing_deadline is not None and m.filing_deadline < hi), None)
    eff = next((m.effectiveness_deadline for lo, hi, m, _ in runs
                if m.effectiveness_deadline is not None and m.effectiveness_deadline < hi),
               None)
    return last.finish(found, rates, filing, eff)


class _Model:
    def __init__(self, evs, terms, cal: Calendar, as_of: date, readings: dict[str, str]):
        self.evs, self.cal, self.as_of, self.r = evs, cal, as_of, readings
        t = self.t = terms
        self.closing = day_of(t["closing_date"])
        self.maturity = day_of(t["maturity"])
        self.dated = day_of(t.get("agreement_date") or t["closing_date"])
        self.issued = day_of(t.get("issue_date") or t["closing_date"])
        self.kinds = t["defaults"]
        self.damages = t["damages"]
        self.limits = t.get("suspensions")
        self.until = t["transfer_restricted"]["until"]
        self.frees = frozenset(SALES[x] for x in self.until if x in SALES)
        self.shift = ONE if readings["default_date"] == "first_breach_day" else timedelta(0)
        self.notes: list[str] = []
        self.last_day = min(as_of, self.maturity - ONE)     # the last accrual day
        k144 = [day_of(e["date"]) for e in evs if e["type"] == "Rule144kDate"]
        self.rule_144k = k144[0] if k144 else None
        # TRS (C) where the terms say so: nothing is restricted from the Rule 144(k) date
        self.free = (self.rule_144k if self.rule_144k is not None and "rule_144k" in self.until
                     else date.max)

    def of(self, *types: str) -> list[Mapping[str, Any]]:
        return [e for e in self.evs if e["type"] in types]

    def days(self, first: date, stop: date | None = None):
        """Each day from ``first`` through the last accrual day (before ``stop``)."""
        d = first
        while d <= self.last_day and (stop is None or d < stop):
            yield d
            d += ONE

    def after(self, start: date, count: int, unit: str, roll: str = "none") -> date:
        """``count`` calendar days or Business Days after ``start``, rolled forward to a
        Business Day if the term says so."""
        d = (start + timedelta(days=count) if unit == "calendar"
             else self.cal.business_days_after(start, count))
        return self.cal.roll(d) if roll == "following" else d

    def anchor(self, name: str) -> date:
        if name == "date_hereof":
            return self.dated
        if name == "closing":
            return self.closing
        if name == "issue_date":
            return self.issued
        if name == "effective":
            return self.effective
        # the last day Notes were issued (the purchasers' option), or the Issue Date
        # ("upon exercise of the Initial Purchasers' option": not a reissue, upon="other")
        return max([self.issued, *(day_of(e["date"]) for e in self.of("NotesIssued")
                                   if e["data"].get("upon") != "other")])

    # ---------------------------------------------------------------- the shelf

    def shelf(self) -> None:
        firsts = {}
        for e in self.of("ShelfFiled", "ShelfEffective"):
            firsts.setdefault(e["type"], day_of(e["date"]))
        self.effective = firsts.get("ShelfEffective")
        filed = [d for d in (firsts.get("ShelfFiled"), self.effective) if d is not None]
        self.filed = min(filed) if filed else None
        self.unusable: list[tuple[date, date | None, str]] = []
        start = None
        for e in self.of("ShelfUnusable", "ShelfUsable"):
            if e["type"] == "ShelfUnusable" and start is None:
                start, why = day_of(e["date"]), e["data"]["reason"]
            elif e["type"] == "ShelfUsable" and start is not None:
                self.unusable.append((start, day_of(e["date"]), why))
                start = None
        if start is not None:
            self.unusable.append((start, None, why))
        self.filing_deadline = self.deadline("filing")
        self.effectiveness_deadline = self.deadline("effectiveness")
        self.ep_end = self.effectiveness_period_end()

    def deadline(self, name: str) -> date | None:
        d = self.t.get(name)
        if d is None:
            return None
        return self.after(self.anchor(d["anchor"]), int(d["count"]), d["unit"], d["roll"])

    def effectiveness_period_end(self) -> date | None:
        """RRA §2(a)(iii): the earliest of the terms' ends: an anniversary (of
        effectiveness, the Issue Date, the closing or the last issue of Notes), the Rule
        144(k) date, and (y), (z): no Transfer Restricted Security left (all sold under
        the shelf or no longer outstanding; with (z) alone, no Note outstanding). A
        Conversion Share is a TRS (RRA §1) until sold in a way that frees it; the first
        day not in the period."""
        if self.effective is None:
            return None
        ends = self.t["effectiveness_period"]["ends"]
        fixed = []
        for end in ends:
            if end["end"] == "anniversary":
                fixed.append(anniversary(self.anchor(end["of"]), int(end["years"])))
            elif end["end"] == "rule_144k" and self.rule_144k is not None:
                fixed.append(max(self.rule_144k, self.effective))
        x = min(fixed) if fixed else None
        kinds = {e["end"] for e in ends}
        named_only = self.r["registered_securities"] == "named_selling_holders"
        if not kinds & {"all_sold", "none_outstanding"}:
            return x
        only_z = "all_sold" not in kinds
        named = {e["data"]["holder"] for e in self.of("QuestionnaireDelivered")
                 if day_of(e["date"]) <= self.effective}
        adds = [(day_of(e["date"]), e["data"].get("holders_added", []))
                for e in self.of("AmendmentFiled")]
        d, book, seen = self.effective, None, -1
        while (x is None or d < x) and d <= self.as_of:
            count = sum(1 for e in self.evs if e["type"] in POSITIONS and day_of(e["date"]) <= d)
            if count != seen:   # the Notes change only on a position event's day
                book, seen = book_at(self.evs, d, self.frees), count
            shares = restricted_shares(shares_at(self.evs, d, self.frees), d)
            if d >= self.free:
                return d            # TRS (C): nothing restricted from the Rule 144(k) date
            if only_z:
                left = any(x_.principal > 0 and x_.ended_on is None for x_ in book.lots)
            else:
                left = bool(holders_of_trs(book))
            if book.lots and not shares and not left:
                return d            # (y), (z) with every Note (once some Note was issued)
            if named_only and "all_sold" in kinds:
                now = named | {h for on, hs in adds if on <= d for h in hs}
                if now and all(trs_held(book, h) == 0 for h in now):
                    return d        # (y): the named Holders' Notes all sold
            d += ONE
        return x

    def in_period(self, d: date) -> bool:
        return (self.effective is not None and self.effective <= d
                and (self.ep_end is None or d < self.ep_end))

    def period_cut(self, d: date) -> bool:
        """(iii), (iv) accrue on ``d``: interpretation default_after_effectiveness_period."""
        if self.r["default_after_effectiveness_period"] == "continues":
            return True
        return self.ep_end is None or d < self.ep_end

    # ---------------------------------------------------------------- suspensions

    def suspensions(self) -> None:
        """Suspension Periods ``[start, end)``; their own limit (the terms' ``single``),
        the material-transaction one when flagged or extended by its last day."""
        self.periods: list[dict] = []
        single = (self.limits or {}).get("single")
        cur = None
        for e in self.of("SuspensionStarted", "SuspensionExtended", "SuspensionEnded"):
            d = day_of(e["date"])
            if e["type"] == "SuspensionStarted" and cur is None:
                # outside the Effectiveness Period there is nothing to suspend (SPEC §4.3;
                # under registered_securities=named_selling_holders it may have ended
                # before the write side's all-Notes reading says)
                cur = {"start": d, "end": None, "ignored": not self.in_period(d),
                       "material": bool(e["data"]["material_transaction"])}
            elif e["type"] == "SuspensionExtended" and cur is not None:
                if single is None or (d - cur["start"]).days + 1 <= int(single["days"]):
                    cur["material"] = True
            elif e["type"] == "SuspensionEnded" and cur is not None:
                cur["end"] = d
                self.periods.append(cur)
                cur = None
        if cur is not None:
            self.periods.append(cur)
        self.periods = [p for p in self.periods if not p["ignored"]]
        for p in self.periods:
            p["stop"] = p["end"] if p["end"] is not None else self.as_of + ONE
            limit = None
            if single is not None:
                limit = int(single["material_days"] if p["material"]
                            and single.get("material_days") is not None else single["days"])
            p["limit"] = limit
            p["own_end"] = p["start"] + timedelta(days=limit) if limit else None
        self.suspended = {d: p for p in self.periods for d in _span(p["start"], p["stop"])}
        self.breach_from: dict[tuple[int, int], date] = {}
        for i, p in enumerate(self.periods):
            for j, w in enumerate((self.limits or {}).get("windows", [])):
                first = self.first_over(p, w)
                if first is not None:
                    self.breach_from[(i, j)] = first
            if self.too_many(p):
                self.breach_from[(i, -1)] = p["start"]

    def length(self, w: Mapping[str, Any], d: date) -> int:
        """The days of the window ending on ``d``: so many days, or back to the same day
        so many months before (a shorter month's last day), excluded."""
        if w.get("in_days") is not None:
            return int(w["in_days"])
        months = int(w["in_months"])
        y, m = divmod(d.year * 12 + d.month - 1 - months, 12)
        for day in (d.day, 30, 29, 28):
            try:
                return (d - date(y, m + 1, day)).days
            except ValueError:
                continue
        raise ValueError(d)

    def trailing(self, d: date, window: int) -> int:
        """Suspended days in the ``window`` days ending on ``d``."""
        return sum(1 for k in range(window) if d - timedelta(days=k) in self.suspended)

    def window_limit(self, d: date, p: dict, w: Mapping[str, Any]) -> int:
        """A window's limit on ``d``: its days, with the material-transaction extension
        (interpretation window_material_allowance)."""
        if self.r["window_material_allowance"] == "any_in_window":
            lo = d - timedelta(days=self.length(w, d) - 1)
            material = any(q["material"] and q["start"] <= d and q["stop"] > lo
                           for q in self.periods)
        else:
            material = p["material"]
        if material and w.get("material_days") is not None:
            return int(w["material_days"])
        return int(w["days"])

    def first_over(self, p: dict, w: Mapping[str, Any]) -> date | None:
        """The first day of ``p`` whose window holds more suspended days than ``w``
        allows (a window that is no default of its own: before ``p``'s own end)."""
        stop = p["stop"]
        if w.get("default") is None and p["own_end"] is not None:
            stop = min(stop, p["own_end"])
        for d in _span(p["start"], stop):
            limit = (int(w["days"]) if w.get("default") is not None
                     else self.window_limit(d, p, w))
            if self.trailing(d, self.length(w, d)) > limit:
                return d
        return None

    def too_many(self, p: dict) -> bool:
        """More Suspension Periods started in the window ending on ``p``'s start than the
        terms allow (``max_periods``): all of ``p`` is beyond the right."""
        m = (self.limits or {}).get("max_periods")
        if m is None:
            return False
        lo = p["start"] - timedelta(days=self.length(m, p["start"]) - 1)
        return sum(1 for q in self.periods if lo <= q["start"] <= p["start"]) > int(m["periods"])

    def beyond(self, d: date, aggregate: bool) -> bool:
        """``d`` is a suspended day past a right to suspend (``aggregate``: a window whose
        excess is a default of its own)."""
        p = self.suspended.get(d)
        if p is None:
            return False
        i = self.periods.index(p)
        for (k, j), first in self.breach_from.items():
            if k != i or d < first:
                continue
            w = self.limits["windows"][j] if j >= 0 else None
            if aggregate == (w is not None and w.get("default") is not None):
                if w is None or w.get("default") is not None or p["own_end"] is None \
                        or d < p["own_end"]:
                    return True
        return False

    def permitted(self, d: date) -> bool:
        """A day of a permitted Suspension Period (SPEC §4.3): within its own limit and
        every window's."""
        p = self.suspended.get(d)
        return (p is not None and (p["own_end"] is None or d < p["own_end"])
                and not self.beyond(d, False) and not self.beyond(d, True))

    # ---------------------------------------------------------------- the defaults

    def defaults(self) -> list[Default]:
        out: list[Default] = []
        s = self.shift
        k = self.kinds
        # not filed (effective) prior to or on the deadline; cured by it
        for name, deadline, done in (("filing", self.filing_deadline, self.filed),
                                     ("effectiveness", self.effectiveness_deadline,
                                      self.effective)):
            if k.get(name) is None or deadline is None:
                continue
            if done is None or done > deadline:
                out.append(Default(k[name]["label"], k[name]["section"],
                                   list(self.days(deadline + ONE + s, done))))
        unusable = k.get("unusable")
        if unusable is not None:
            self.unusable_defaults(unusable, out)
        single = k.get("suspension")
        for i, p in enumerate(self.periods):
            # not terminated on or before its own last day: a default of its own, or
            # (where the terms have none) days beyond the right to suspend
            if single is not None and p["own_end"] is not None:
                out.append(Default(single["label"], single["section"],
                                   [d for d in self.days(p["own_end"] + s, p["stop"])
                                    if self.period_cut(d)]))
            elif p["own_end"] is not None and p["own_end"] < p["stop"]:
                self.window_default(p, self.limits["single"], p["own_end"], out)
            for (j_period, j), first in sorted(self.breach_from.items(),
                                               key=lambda kv: kv[0][1]):
                if j_period != i:
                    continue
                w = self.limits["windows"][j] if j >= 0 else None
                if w is not None and w.get("default") is not None:
                    # more suspended days in the window than its aggregate allows
                    out.append(Default(w["default"]["label"], w["default"]["section"],
                                       [d for d in self.days(first, p["stop"])
                                        if d >= first + s and self.period_cut(d)]))
                    continue
                self.window_default(p, w, first, out)
        return [d for d in out if d.days]

    def unusable_defaults(self, kind: Mapping[str, Any], out: list[Default]) -> None:
        """Unusable during the Effectiveness Period, not cured in time (the terms' cure
        period); days inside a permitted Suspension Period excused where the terms say
        so, the grace counting from the first other day (SPEC §4.3); a lapse for
        selling securityholders' information excused where they say so."""
        n, unit = int(kind["cure"]["count"]), kind["cure"]["unit"]
        excused = kind["excused"]
        s = self.shift
        for start, cure, why in self.unusable:
            if not self.in_period(start) or why in excused:
                continue
            span = list(_span(start, cure or self.last_day + ONE))
            bare = [d for d in span if not ("suspension" in excused and self.permitted(d))]
            if not bare:
                continue
            last = self.after(bare[0], n, unit)
            out.append(Default(kind["label"], kind["section"],
                               [d for d in bare if d > last + s and d <= self.last_day
                                and self.period_cut(d)], tag="unusable",
                               clock_from=last + s + ONE))

    def window_default(self, p: dict, w: Mapping[str, Any] | None, first: date,
                       out: list[Default]) -> None:
        """Beyond a right to suspend (interpretation window_breach); it hands over to
        the period's own default on the day that one starts to accrue."""
        s = self.shift
        reading = self.r["window_breach"]
        if reading == "report_only":
            return
        until = min(p["stop"], p["own_end"] + s) if p["own_end"] is not None else p["stop"]
        if p["own_end"] is not None and self.kinds.get("suspension") is None:
            until = p["stop"]
        section = (w or self.limits["max_periods"])["section"]
        if reading == "usability_default":
            kind = self.kinds.get("unusable")
            if kind is None:
                return
            start = self.after(first, int(kind["cure"]["count"]), kind["cure"]["unit"]) \
                + ONE + s
        else:
            kind = self.kinds.get("suspension")
            if kind is None:
                return
            start = first + s
        out.append(Default(kind["label"], f"{kind['section']}, {section}",
                           [d for d in self.days(start, until) if self.period_cut(d)],
                           tag="window"))

    # ---------------------------------------------------------------- the rates

    def rate_on(self, d: date, day_number: int) -> Decimal:
        """The terms' ladder on ``d``, day ``day_number`` of its rate clock: each step
        that has begun sets or adds (a recurring one once each time it recurred); with
        ``first_90_days_always_quarter_point`` no anniversary step while the first
        step's days last; never more than the cap."""
        steps = self.damages["steps"]
        first_days = next((int(s["after_days"]) for s in steps[1:]
                           if s.get("after_days") and int(s["after_days"]) > 0), None)
        hold = (first_days is not None and day_number <= first_days
                and self.r["rate_after_second_anniversary"]
                == "first_90_days_always_quarter_point")
        rate = Decimal(0)
        for s in steps:
            if s.get("after_days") is not None:
                begun = day_number - int(s["after_days"])     # days since it began
                if begun < 1:
                    continue
                times = 1 + (begun - 1) // int(s["every_days"]) if s.get("every_days") else 1
            else:
                if hold:
                    continue
                of = self.closing if s.get("of", "closing") == "closing" else self.issued
                years = d.year - of.year - (1 if anniversary(of, d.year - of.year) > d else 0)
                if years < int(s["anniversary"]):
                    continue
                times = years - int(s["anniversary"]) + 1 if s.get("every_year") else 1
            if s.get("set") is not None:
                rate = money(s["set"])
            else:
                rate += money(s["add"]) * times
        cap = self.damages.get("cap")
        return min(rate, money(cap)) if cap is not None else rate

    def day_rates(self, found: list[Default]) -> dict[date, Decimal]:
        default_days = sorted({d for x in found for d in x.days})
        # episodes: runs of consecutive days on which some default's clock runs (SPEC
        # §4.4; the excused days inside an uncured (iii) join its runs, not a cure)
        clock = sorted({d for x in found for d in x.clock_days})
        episode_start: dict[date, date] = {}
        before: dict[date, int] = {}     # clock days of the earlier episodes
        count, start = 0, None
        for i, d in enumerate(clock):
            if i == 0 or clock[i - 1] + ONE != d:
                start, count = d, i
            episode_start[d], before[d] = start, count
        once = self.r["rate_clock"] == "once_per_deal"
        combine = self.r["overlapping_defaults"]
        cap = self.damages.get("cap")
        out: dict[date, Decimal] = {}
        for d in default_days:
            carried = before[d] if once else 0
            if combine == "episode":
                out[d] = self.rate_on(d, (d - episode_start[d]).days + 1 + carried)
                continue
            each = [self.rate_on(d, (d - x.clock_days[0]).days + 1 + carried)
                    for x in found if d in x.day_set]
            total = max(each) if combine == "highest" else sum(each, Decimal(0))
            out[d] = min(total, money(cap)) if cap is not None else total
        return out

    # ---------------------------------------------------------------- running it

    def prepare(self) -> None:
        self.book = book_at(self.evs, self.as_of, self.frees)
        self.shelf()
        self.suspensions()

    def run(self) -> Result:
        self.prepare()
        found = self.defaults()
        return self.finish(found, self.day_rates(found), self.filing_deadline,
                           self.effectiveness_deadline)

    def finish(self, found: list[Default], rates: dict[date, Decimal],
               filing: date | None, effectiveness: date | None) -> Result:
        pay = Payments(self)
        amounts, exacts, statuses = pay.amounts(rates)
        accrued = sum((v for row in amounts.values() for v in row.values()), Decimal("0.00"))
        return Result(found, rates, amounts, exacts, accrued, self.ep_end, self.notes,
                      {p: row for p, row in statuses.items() if row}, filing, effectiveness)


def _span(a: date, b: date):
    while a < b:
        yield a
        a += ONE
