"""A plain reference model of the Registration Rights Agreement (RRA), day by day.

It reads the deal's events in their public JSON form (SPEC §3: ``type, deal, date, data``
plus the store's ``seq``, ``id``, ``recorded_at``), and walks every calendar day from the
Closing Date to ``as_of``: for each day it decides which Registration Default is running
(each clause's own test, RRA §3(a)(i)-(iv)), the rate of that day (RRA §3(a), SPEC §4.4),
each Holder's Transfer Restricted principal, and adds ``principal x rate x (the day's
day-count fraction)``; then it forms the payments per Interest Payment Date (RRA §3(b)),
rounding once per Holder per date, half-up to the cent (SPEC §2).

It shares no code with the engine (nothing from ``projections/``, nor ``ledger.calendar``
or ``ledger.daycount``): the Business Day calendar is ``holidays.financial_holidays("XFED")``
plus the ``CalendarDayDeclared`` overrides known at ``known_at`` (SPEC §2), and 30/360 is
written here again. It is slow on purpose: a figure is a sum over days.

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
shelf, each the earliest issued first; a ``SuspensionExtended`` counts when made on or
before the period's 45th day; the latest Questionnaire request whose deadline has passed
decides entitlement, a delivery "on or before" its deadline counting (a delivery before
the request counts, RRA §2(b)).

What the write side refuses is a rule too: ``broken`` (``rra_refusals``) finds the events
of a history that break the refusals of issue 30 (sales under the shelf when none can be
made, Notes past the maximum, an acknowledgment before its notice).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any, Iterable, Mapping

from .rra_notes import POSITIONS, Book, Lot, book_at, holders_of_trs, live_events, trs_held
from .rra_refusals import broken
from .rra_time import (ONE, Calendar, anniversary, day_fraction, day_of, days360, half_up,
                       money)

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
    "overlapping_defaults": ("episode", "additive"),
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


# ----------------------------------------------------------------------- the model

@dataclass
class Default:
    kind: str
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


def model(events: Iterable[Mapping[str, Any]], *, deal: str, as_of: date,
          known_at: datetime | None = None,
          interpretations: Mapping[str, str] | None = None) -> Result:
    readings = dict(DEFAULTS)
    for name, value in (interpretations or {}).items():
        if value not in VALUES[name]:
            raise ValueError(f"{name}={value}")
        readings[name] = value
    known = live_events(events, deal, known_at)
    opened = next(e for e in known if e["type"] == "DealOpened")
    terms = opened["data"]["terms"]
    # SPEC §2: the calendar is the base plus the overrides known at known_at (whatever
    # their date); later overrides of one day win
    cal = Calendar({day_of(e["data"]["day"]): bool(e["data"]["business_day"])
                    for e in known if e["type"] == "CalendarDayDeclared"})
    evs = [e for e in known if day_of(e["date"]) <= as_of]     # SPEC §1 as_of
    return _Model(evs, terms, cal, as_of, readings).run()


class _Model:
    def __init__(self, evs, terms, cal: Calendar, as_of: date, readings: dict[str, str]):
        self.evs, self.cal, self.as_of, self.r = evs, cal, as_of, readings
        self.closing = day_of(terms["closing_date"])
        self.maturity = day_of(terms["maturity"])
        self.t = terms
        self.limits = terms["suspension_limits"]
        self.rates = terms["rates"]
        self.shift = ONE if readings["default_date"] == "first_breach_day" else timedelta(0)
        self.notes: list[str] = []
        self.last_day = min(as_of, self.maturity - ONE)     # the last accrual day

    def of(self, *types: str) -> list[Mapping[str, Any]]:
        return [e for e in self.evs if e["type"] in types]

    def days(self, first: date, stop: date | None = None):
        """Each day from ``first`` through the last accrual day (before ``stop``)."""
        d = first
        while d <= self.last_day and (stop is None or d < stop):
            yield d
            d += ONE

    # ---------------------------------------------------------------- the shelf

    def shelf(self) -> None:
        firsts = {}
        for e in self.of("ShelfFiled", "ShelfEffective"):
            firsts.setdefault(e["type"], day_of(e["date"]))
        self.effective = firsts.get("ShelfEffective")
        filed = [d for d in (firsts.get("ShelfFiled"), self.effective) if d is not None]
        self.filed = min(filed) if filed else None
        self.unusable: list[tuple[date, date | None]] = []
        start = None
        for e in self.of("ShelfUnusable", "ShelfUsable"):
            if e["type"] == "ShelfUnusable" and start is None:
                start = day_of(e["date"])
            elif e["type"] == "ShelfUsable" and start is not None:
                self.unusable.append((start, day_of(e["date"])))
                start = None
        if start is not None:
            self.unusable.append((start, None))
        self.ep_end = self.effectiveness_period_end()

    def effectiveness_period_end(self) -> date | None:
        """RRA §2(a)(iii): the earliest of (x) the 2nd anniversary of effectiveness, (y) all
        TRS registered sold under the shelf, (z) all TRS no longer outstanding; the first
        day not in the period. A Conversion Share is a TRS (RRA §1) and no event records
        its sale, so after a conversion only (x) can end the period."""
        if self.effective is None:
            return None
        x = anniversary(self.effective, int(self.t["effectiveness_period_years"]))
        named_only = self.r["registered_securities"] == "named_selling_holders"
        named = {e["data"]["holder"] for e in self.of("QuestionnaireDelivered")
                 if day_of(e["date"]) <= self.effective}
        adds = [(day_of(e["date"]), e["data"].get("holders_added", []))
                for e in self.of("AmendmentFiled")]
        d, book, seen = self.effective, None, -1
        while d < x and d <= self.as_of:
            count = sum(1 for e in self.evs if e["type"] in POSITIONS and day_of(e["date"]) <= d)
            if count != seen:   # the Notes change only on a position event's day
                book, seen = book_at(self.evs, d), count
            converted = any(x_.how == "converted" for x_ in book.lots)
            if book.lots and not converted and not holders_of_trs(book):
                return d            # (y), (z) with every Note (once some Note was issued)
            if named_only:
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
        """RRA §4(b)(i): Suspension Periods ``[start, end)``; 45 days, 60 with a material
        business transaction (flagged, or extended by its 45th day)."""
        self.periods: list[dict] = []
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
                if (d - cur["start"]).days + 1 <= self.limits["single"]:
                    cur["material"] = True
            elif e["type"] == "SuspensionEnded" and cur is not None:
                cur["end"] = d
                self.periods.append(cur)
                cur = None
        if cur is not None:
            self.periods.append(cur)
        self.periods = [p for p in self.periods if not p["ignored"]]
        for p in self.periods:
            p["limit"] = self.limits["single_material" if p["material"] else "single"]
            p["own_end"] = p["start"] + timedelta(days=p["limit"])   # its 46th (61st) day
            p["stop"] = p["end"] if p["end"] is not None else self.as_of + ONE
        self._trailing: dict = {}
        self.suspended = {d: p for p in self.periods
                          for d in self._span(p["start"], p["stop"])}

    @staticmethod
    def _span(a: date, b: date):
        while a < b:
            yield a
            a += ONE

    def trailing(self, d: date, window: int) -> int:
        """Suspended days in the ``window`` days ending on ``d``."""
        key = (d, window)
        if key not in self._trailing:
            self._trailing[key] = sum(1 for k in range(window)
                                      if d - timedelta(days=k) in self.suspended)
        return self._trailing[key]

    def window_limit(self, d: date, p: dict) -> int:
        """RRA §4(b)(i): 45 in any 90 days, 60 with the material-transaction extension
        (interpretation window_material_allowance)."""
        if self.r["window_material_allowance"] == "any_in_window":
            lo = d - timedelta(days=self.limits["window_days"] - 1)
            material = any(q["material"] and q["start"] <= d and q["stop"] > lo
                           for q in self.periods)
        else:
            material = p["material"]
        return self.limits["window_limit_material" if material else "window_limit"]

    def window_breach(self, d: date) -> bool:
        """Suspended beyond the 45 (60)-in-90 right, the period within its own limit."""
        p = self.suspended.get(d)
        return (p is not None and d < p["own_end"]
                and self.trailing(d, self.limits["window_days"]) > self.window_limit(d, p))

    def aggregate_breach(self, d: date) -> bool:
        """RRA §3(a)(iv)(B): more than 90 suspended days in the 360 ending on ``d``."""
        return (d in self.suspended and self.trailing(d, self.limits["long_window_days"])
                > self.limits["long_window_limit"])

    def permitted(self, d: date) -> bool:
        """A day of a permitted Suspension Period (SPEC §4.3): within its own 45 (60)
        days and the window limits."""
        p = self.suspended.get(d)
        return (p is not None and d < p["own_end"] and not self.window_breach(d)
                and not self.aggregate_breach(d))

    # ---------------------------------------------------------------- the defaults

    def defaults(self) -> list[Default]:
        out: list[Default] = []
        s = self.shift
        # (i), (ii): not filed (effective) prior to or on the deadline; cured by it
        for kind, n, done in (("(i)", "filing_deadline_days", self.filed),
                              ("(ii)", "effectiveness_deadline_days", self.effective)):
            deadline = self.closing + timedelta(days=int(self.t[n]))
            if done is None or done > deadline:
                out.append(Default(kind, f"RRA §3(a){kind}",
                                   list(self.days(deadline + ONE + s, done))))
        # (iii): unusable during the Effectiveness Period, not cured within 5 Business
        # Days, except as provided in §4(b)(i) (SPEC §4.3): days inside a permitted
        # Suspension Period are not default, the grace counts from the first other day
        n = int(self.t["cure_business_days"])
        for start, cure in self.unusable:
            if not self.in_period(start):
                continue
            span = list(self._span(start, cure or self.last_day + ONE))
            bare = [d for d in span if not self.permitted(d)]
            if not bare:
                continue
            last = self.cal.business_days_after(bare[0], n)
            out.append(Default("(iii)", "RRA §3(a)(iii)",
                               [d for d in bare if d > last + s and d <= self.last_day
                                and self.period_cut(d)], tag="unusable",
                               clock_from=last + s + ONE))
        for p in self.periods:
            # (iv)(A): not terminated on or before its 45th (60th) day
            out.append(Default("(iv)(A)", "RRA §3(a)(iv)(A)",
                               [d for d in self.days(p["own_end"] + s, p["stop"])
                                if self.period_cut(d)]))
            # (iv)(B): more than 90 suspended days in a 360-day period
            over = [d for d in self.days(p["start"], p["stop"]) if self.aggregate_breach(d)]
            if over:
                out.append(Default("(iv)(B)", "RRA §3(a)(iv)(B)",
                                   [d for d in over if d >= over[0] + s
                                    and self.period_cut(d)]))
            # beyond the 45 (60)-in-90 right (interpretation window_breach); it hands
            # over to (iv)(A) on the day that one starts to accrue
            breach = [d for d in self.days(p["start"], p["own_end"]) if self.window_breach(d)]
            if not breach or self.r["window_breach"] == "report_only":
                continue
            until = min(p["stop"], p["own_end"] + s)
            if self.r["window_breach"] == "usability_default":
                first = self.cal.business_days_after(breach[0], n) + ONE + s
                kind, clause = "(iii)", "RRA §3(a)(iii), §4(b)(i)"
            else:
                first = breach[0] + s
                kind, clause = "(iv)(A)", "RRA §3(a)(iv)(A), §4(b)(i)"
            out.append(Default(kind, clause, [d for d in self.days(first, until)
                                              if self.period_cut(d)], tag="window"))
        return [d for d in out if d.days]

    # ---------------------------------------------------------------- the rates

    def rate_on(self, d: date, day_number: int) -> Decimal:
        """RRA §3(a): the rate on ``d``, day ``day_number`` of its rate clock."""
        r = self.rates
        first = day_number <= int(r["first_days"])
        n = d.year - self.closing.year
        if anniversary(self.closing, n) > d:
            n -= 1
        if n >= int(r["second_until_anniversary"]) and not (
                first and self.r["rate_after_second_anniversary"]
                == "first_90_days_always_quarter_point"):
            steps = max(0, n - int(r["step_from_anniversary"]) + 1)
            return Decimal(str(r["third"])) + Decimal(str(r["step"])) * steps
        return Decimal(str(r["first"] if first else r["second"]))

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
        out: dict[date, Decimal] = {}
        for d in default_days:
            carried = before[d] if once else 0
            if self.r["overlapping_defaults"] == "episode":
                out[d] = self.rate_on(d, (d - episode_start[d]).days + 1 + carried)
            else:
                out[d] = sum((self.rate_on(d, (d - x.clock_days[0]).days + 1 + carried)
                              for x in found if d in x.day_set), Decimal(0))
        return out

    # ---------------------------------------------------------------- entitlement

    def questionnaires(self) -> None:
        self.requests = []       # (date, entitlement deadline, holders)
        self.deliveries: dict[str, list[date]] = {}
        for e in self.of("QuestionnaireRequested", "QuestionnaireDelivered"):
            d = day_of(e["date"])
            if e["type"] == "QuestionnaireDelivered":
                self.deliveries.setdefault(e["data"]["holder"], []).append(d)
                continue
            who = e["data"]["holders"]
            holders = holders_of_trs(book_at(self.evs, d)) if who == "all" else set(who)
            if self.r["questionnaire_deadline"] == "questionnaire_form":   # Exhibit A
                deadline = d + timedelta(days=int(self.t["questionnaire_form_days"]))
            else:                                                          # §2(b)
                deadline = self.cal.business_days_after(
                    d, int(self.t["questionnaire_business_days"]))
            self.requests.append((d, deadline, holders))

    def entitled(self, holder: str, on: date) -> bool:
        """RRA §3(a): "A Holder will not be entitled to Additional Interest unless it has
        provided all information requested by the Questionnaire prior to the deadline
        specified therein"."""
        mine = [(d, dl) for d, dl, hs in self.requests if holder in hs]
        delivered = self.deliveries.get(holder, [])
        asked = [(d, dl) for d, dl in mine if d <= on]
        passed = [(d, dl) for d, dl in asked if dl < on]
        if passed:
            deadline = passed[-1][1]
            return any(x <= deadline for x in delivered)
        if asked or any(x <= on for x in delivered):
            return True
        return self.r["no_questionnaire_request"] == "entitled"

    # ---------------------------------------------------------------- payments

    def interest_periods(self):
        """RRA §3(b): semi-annual, on each Interest Payment Date (rolled to a Business
        Day), for the period ending on it; the Record Holders on the record date."""
        pays = [tuple(int(x) for x in md.split("-")) for md in self.t["interest_payment_dates"]]
        recs = [tuple(int(x) for x in md.split("-")) for md in self.t["record_dates"]]
        start, pay = self.closing, day_of(self.t["first_interest_payment_date"])
        while start <= self.as_of and start < self.maturity:
            record = max(date(y, m, dd) for y in (pay.year - 1, pay.year) for m, dd in recs
                         if date(y, m, dd) <= pay)
            yield pay, self.cal.roll(pay), record, start
            start = pay
            pay = min(date(y, m, dd) for y in (pay.year, pay.year + 1) for m, dd in pays
                      if date(y, m, dd) > pay)

    def claims(self, start: date, record: date, judged: date):
        """Per Holder, the Notes whose Additional Interest for this period it is owed:
        (lot, forfeited?). The Record Holder is paid for the whole period on the Notes it
        holds on the record date, for the days they were TRS (SPEC §4.4), whatever became
        of them after (with shelf_buyer_paid=not_record_holder, not for Notes it holds that
        were sold under the shelf by then: RRA §1 "Record Holder ... of Transfer Restricted
        Securities"); Notes retired in the period before the record date (and converted,
        with future_only) are paid to who held them then (RRA §3(b) last paragraph).
        Converted before ``judged`` (the Interest Payment Date, or with
        conversion_judged_on=payment_day the day it is paid): forfeited."""
        mark = sum(1 for d in self.book.applied if d <= record)
        forfeits = self.r["conversion_forfeits"]
        not_record = self.r["shelf_buyer_paid"] == "not_record_holder"
        out: dict[str, list[tuple[Lot, bool]]] = {}
        for lot in self.book.lots:
            if lot.principal <= 0:
                continue
            if lot.made_at <= mark and lot.ended_on is not None:   # ended by the record date
                if start < lot.ended_on and (lot.how == "retired" or forfeits == "future_only"):
                    out.setdefault(lot.holder, []).append((lot, False))
                continue
            owner = lot
            while owner is not None and owner.made_at > mark:
                owner = owner.parent
            if owner is None:
                continue   # issued after the record date
            if not_record and lot.sold_on is not None and lot.sold_on <= record:
                continue   # held on the record date, but not as a TRS
            lost = (forfeits in ("unpaid", "all_unpaid") and lot.how == "converted"
                    and lot.ended_on < judged)
            out.setdefault(owner.holder, []).append((lot, lost))
        return out

    def run(self) -> Result:
        self.book = book_at(self.evs, self.as_of)
        self.shelf()
        self.suspensions()
        self.questionnaires()
        found = self.defaults()
        rates = self.day_rates(found)
        convention = self.t["day_count"]
        paid = [e for e in self.of("AdditionalInterestPaid")]
        amounts: dict[date, dict[str, Decimal]] = {}
        exacts: dict[date, dict[str, Fraction]] = {}
        statuses: dict[date, dict[str, str]] = {}
        for pay, paid_on, record, start in self.interest_periods():
            judged = pay if self.r["questionnaire_entitlement_judged_on"] == "payment_date" \
                else record
            judged = min(judged, self.as_of + ONE)
            converted_by = pay if self.r["conversion_judged_on"] == "interest_payment_date" \
                else paid_on
            end = min(pay, self.last_day + ONE)
            row, exact_row = {}, {}
            for holder, lots in sorted(self.claims(start, record, converted_by).items()):
                total = Fraction(0)
                later: list[tuple[date, Fraction]] = []   # (conversion day, its part)
                run_start, key = None, None
                for d in self._span(start, end):
                    rate = rates.get(d)
                    principal = sum((x.principal for x, lost in lots
                                     if not lost and x.trs_on(d)), Decimal(0))
                    if not rate or not principal:
                        run_start = key = None
                        continue
                    if key != (rate, principal):
                        run_start, key = d, (rate, principal)
                    f = day_fraction(convention, run_start, d)
                    total += Fraction(principal) * Fraction(rate) / 100 * f
                if self.r["conversion_forfeits"] == "all_unpaid":
                    later = self.converted_later(lots, start, end, rates, convention,
                                                 converted_by)
                if not self.entitled(holder, judged):
                    total = Fraction(0)
                elif later and total:
                    total = self.unpaid_lost(holder, total, later, pay, paid_on, paid)
                row[holder], exact_row[holder] = half_up(total), total
            if any(row.values()):
                amounts[pay], exacts[pay] = row, exact_row
            statuses[pay] = self.statuses(row, pay, paid_on, paid, ended=end >= pay)
        accrued = sum((v for row in amounts.values() for v in row.values()), Decimal("0.00"))
        return Result(found, rates, amounts, exacts, accrued, self.ep_end, self.notes,
                      {p: row for p, row in statuses.items() if row})

    @staticmethod
    def statuses(owed: dict[str, Decimal], pay: date, paid_on: date, paid_events,
                 ended: bool) -> dict[str, str]:
        """SPEC §4.4, each Holder on its own (issue 12 defect 5): accruing while the period
        runs; then paid (exactly), due (nothing paid), underpaid, overpaid, or
        nothing_owed (nothing owed, nothing paid)."""
        paid: dict[str, Decimal] = {}
        for e in paid_events:
            if day_of(e["data"]["payment_date"]) in (pay, paid_on):
                h = e["data"]["holder"]
                paid[h] = paid.get(h, Decimal(0)) + money(e["data"]["amount"])
        out = {}
        for h in sorted(set(owed) | set(paid)):
            o, p = owed.get(h, Decimal(0)), paid.get(h, Decimal(0))
            if not o and not p:
                continue
            out[h] = ("accruing" if not ended else "paid" if p == o else
                      "overpaid" if p > o else "underpaid" if p > 0 else "due")
        return out

    # ---------------------------------------------------------------- all_unpaid

    def converted_later(self, lots, start, end, rates, convention, judged):
        """Each Note held on the record date and converted on or after the day judged by
        (conversion_judged_on), with its own part of the Holder's exact amount (a lot
        alone)."""
        out = []
        for lot, lost in lots:
            if lot.how != "converted" or lot.ended_on < judged:
                continue
            part, run_start, key = Fraction(0), None, None
            for d in self._span(start, end):
                rate = rates.get(d)
                if not rate or not lot.trs_on(d):
                    run_start = key = None
                    continue
                if key != rate:
                    run_start, key = d, rate
                part += (Fraction(lot.principal) * Fraction(rate) / 100
                         * day_fraction(convention, run_start, d))
            if part:
                out.append((lot.ended_on, part))
        return out

    def unpaid_lost(self, holder, owed, later, pay, paid_on, paid_events) -> Fraction:
        """conversion_forfeits=all_unpaid: what fell due before the conversion and was
        still unpaid on its day is lost, pro rata to the converted Notes' part; what was
        paid by then stays paid."""
        lost = Fraction(0)
        for on, part in later:
            paid = sum((Fraction(money(e["data"]["amount"])) for e in paid_events
                        if e["data"]["holder"] == holder
                        and day_of(e["data"]["payment_date"]) in (pay, paid_on)
                        and day_of(e["date"]) <= on), Fraction(0))
            if paid < owed:
                lost += (owed - paid) * part / owed
        return owed - lost
