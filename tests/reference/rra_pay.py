"""The payments side of the RRA reference model (``rra_model``): who is entitled (the
Questionnaire, RRA §3(a) last paragraph; or, where the terms pay only Holders that
delivered one, the delivery), the interest periods (RRA §3(b), the terms' dates and
roll), what each Holder of record is owed for a period, day by day (its Notes while they
earn: restricted, or outstanding where the terms' base says so; its Conversion Shares
at the Applicable Conversion Price where the terms pay on them), and each Holder's status
(paid in cash, or in shares at the Applicable Conversion Price on the Interest Payment
Date, rounded to the cent, with any cash in lieu)."""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from .rra_notes import Lot, ShareLot, book_at, holders_of_trs, shares_at
from .rra_time import ONE, day_fraction, day_of, half_up, money


class Payments:
    """The payments of one run of the model ``m`` (its events, terms and readings)."""

    def __init__(self, m: Any) -> None:
        self.m = m
        self.t = m.t
        self.payment = m.t["payment"]
        self.damages = m.t["damages"]
        self.questionnaires()
        prices = [(date.min, money(m.t["conversion_price"]))]
        for e in m.of("ConversionPriceAdjusted"):
            prices.append((day_of(e["date"]), money(e["data"]["new_price"])))
        self.prices = prices

    def price_on(self, d: date) -> Decimal:
        """The Applicable Conversion Price in effect on ``d``."""
        return [p for on, p in self.prices if on <= d][-1]

    # ---------------------------------------------------------------- entitlement

    def questionnaires(self) -> None:
        self.requests = []       # (date, entitlement deadline, holders)
        self.deliveries: dict[str, list[date]] = {}
        m, q = self.m, self.t.get("questionnaire")
        for e in m.of("QuestionnaireRequested", "QuestionnaireDelivered"):
            d = day_of(e["date"])
            if e["type"] == "QuestionnaireDelivered":
                self.deliveries.setdefault(e["data"]["holder"], []).append(d)
                continue
            if q is None:
                continue
            who = e["data"]["holders"]
            holders = holders_of_trs(book_at(m.evs, d, m.frees)) if who == "all" else set(who)
            form = q.get("form_deadline")
            if m.r["questionnaire_deadline"] == "questionnaire_form" and form:  # Exhibit A
                deadline = m.after(d, int(form["count"]), form["unit"])
            else:                                                                # §2(b)
                deadline = m.after(d, int(q["deadline"]["count"]), q["deadline"]["unit"])
            self.requests.append((d, deadline, holders))

    def entitled(self, holder: str, on: date) -> bool:
        """RRA §3(a): "A Holder will not be entitled to Additional Interest unless it has
        provided all information requested by the Questionnaire prior to the deadline
        specified therein"; where the terms pay only Holders that delivered one, a
        delivery by ``on``."""
        delivered = self.deliveries.get(holder, [])
        if self.payment["paid_to"].startswith("questionnaire_holders"):
            return any(x <= on for x in delivered)
        mine = [(d, dl) for d, dl, hs in self.requests if holder in hs]
        asked = [(d, dl) for d, dl in mine if d <= on]
        passed = [(d, dl) for d, dl in asked if dl < on]
        if passed:
            deadline = passed[-1][1]
            return any(x <= deadline for x in delivered)
        if asked or any(x <= on for x in delivered):
            return True
        return self.m.r["no_questionnaire_request"] == "entitled"

    # ---------------------------------------------------------------- the periods

    def interest_periods(self):
        """RRA §3(b): on each Interest Payment Date (rolled to a Business Day where the
        terms roll it), for the period ending on it; the Record Holders on the record
        date."""
        m, p = self.m, self.payment
        pays = [tuple(int(x) for x in md.split("-")) for md in p["interest_payment_dates"]]
        recs = [tuple(int(x) for x in md.split("-")) for md in p["record_dates"]]
        start, pay = m.closing, day_of(p["first_interest_payment_date"])
        while start <= m.as_of and start < m.maturity:
            record = max(date(y, mo, dd) for y in (pay.year - 1, pay.year) for mo, dd in recs
                         if date(y, mo, dd) <= pay)
            yield pay, (m.cal.roll(pay) if p["roll"] == "following" else pay), record, start
            start = pay
            pay = min(date(y, mo, dd) for y in (pay.year, pay.year + 1) for mo, dd in pays
                      if date(y, mo, dd) > pay)

    def claims(self, start: date, record: date, judged: date):
        """Per Holder, the Notes whose Additional Interest for this period it is owed:
        (lot, forfeited?). The Record Holder is paid for the whole period on the Notes it
        holds on the record date, for the days they earned (SPEC §4.4), whatever became
        of them after (with shelf_buyer_paid=not_record_holder, where the terms pay the
        Record Holders of Transfer Restricted Securities, not for Notes it holds that were
        sold under the shelf by then: RRA §1 "Record Holder"); Notes retired in the period
        before the record date (and converted, with future_only) are paid to who held them
        then (RRA §3(b) last paragraph). Converted before ``judged`` (the Interest Payment
        Date, or with conversion_judged_on=payment_day the day it is paid): forfeited."""
        book = self.m.book
        mark = sum(1 for d in book.applied if d <= record)
        forfeits = self.m.r["conversion_forfeits"]
        not_record = (self.m.r["shelf_buyer_paid"] == "not_record_holder"
                      and self.payment["paid_to"] == "record_holders_of_trs")
        out: dict[str, list[tuple[Lot, bool]]] = {}
        for lot in book.lots:
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

    def share_claims(self, record: date) -> dict[str, list[ShareLot]]:
        """Per Holder of record, the Conversion Share lots it held then, as they became."""
        if self.damages["conversion_shares"] != "applicable_conversion_price":
            return {}
        full = shares_at(self.m.evs, self.m.as_of, self.m.frees)
        mark = sum(1 for d in full.applied if d <= record)
        out: dict[str, list[ShareLot]] = {}
        for lot in full.lots:
            if lot.shares <= 0:
                continue
            owner = lot
            while owner is not None and owner.made_at > mark:
                owner = owner.parent
            if owner is not None:
                out.setdefault(owner.holder, []).append(lot)
        return out

    def earns(self, lot: Lot, d: date) -> bool:
        """A Note earns on ``d``: restricted (or outstanding, if the terms' base says so),
        and not past the Rule 144(k) date where that ends the restriction."""
        if d >= self.m.free:
            return False
        return lot.outstanding_on(d) if self.damages["base"] == "outstanding" else lot.trs_on(d)

    def principal(self, lots, shares, holder: str, d: date) -> Decimal:
        since = None
        if self.payment["paid_to"] == "questionnaire_holders_from_delivery":
            delivered = self.deliveries.get(holder)
            since = min(delivered) if delivered else date.max
        if since is not None and d < since:
            return Decimal(0)
        out = sum((x.principal for x, lost in lots if not lost and self.earns(x, d)), Decimal(0))
        if shares:
            n = sum(x.shares for x in shares if x.restricted_on(d) and d < self.m.free)
            if n:
                out += n * self.price_on(d)
        return out

    # ---------------------------------------------------------------- the amounts

    def amounts(self, rates: dict[date, Decimal]):
        m = self.m
        convention = self.payment["day_count"]
        paid = list(m.of("AdditionalInterestPaid"))
        amounts: dict[date, dict[str, Decimal]] = {}
        exacts: dict[date, dict[str, Fraction]] = {}
        statuses: dict[date, dict[str, str]] = {}
        for pay, paid_on, record, start in self.interest_periods():
            judged = pay if m.r["questionnaire_entitlement_judged_on"] == "payment_date" \
                else record
            judged = min(judged, m.as_of + ONE)
            converted_by = pay if m.r["conversion_judged_on"] == "interest_payment_date" \
                else paid_on
            end = min(pay, m.last_day + ONE)
            row, exact_row = {}, {}
            notes = self.claims(start, record, converted_by)
            shares = self.share_claims(record)
            for holder in sorted(set(notes) | set(shares)):
                lots, mine = notes.get(holder, []), shares.get(holder, [])
                total = Fraction(0)
                later: list[tuple[date, Fraction]] = []   # (conversion day, its part)
                run_start, key = None, None
                d = start
                while d < end:
                    rate = rates.get(d)
                    principal = self.principal(lots, mine, holder, d)
                    if not rate or not principal:
                        run_start = key = None
                        d += ONE
                        continue
                    if key != (rate, principal):
                        run_start, key = d, (rate, principal)
                    f = day_fraction(convention, run_start, d)
                    total += Fraction(principal) * Fraction(rate) / 100 * f
                    d += ONE
                if m.r["conversion_forfeits"] == "all_unpaid":
                    later = self.converted_later(lots, start, end, rates, convention,
                                                 converted_by)
                if not self.entitled(holder, judged):
                    total = Fraction(0)
                elif later and total:
                    total = self.unpaid_lost(holder, total, later, pay, paid_on, paid)
                if total or lots or mine:
                    row[holder], exact_row[holder] = half_up(total), total
            if any(row.values()):
                amounts[pay], exacts[pay] = row, exact_row
            statuses[pay] = self.statuses(row, pay, paid_on, paid, ended=end >= pay)
        return amounts, exacts, statuses

    def statuses(self, owed: dict[str, Decimal], pay: date, paid_on: date, paid_events,
                 ended: bool) -> dict[str, str]:
        """SPEC §4.4, each Holder on its own (issue 12 defect 5): accruing while the period
        runs; then paid (exactly), due (nothing paid), underpaid, overpaid, or
        nothing_owed (nothing owed, nothing paid). Shares delivered count at the
        Applicable Conversion Price on the Interest Payment Date, to the cent."""
        paid: dict[str, Decimal] = {}
        for e in paid_events:
            if day_of(e["data"]["payment_date"]) in (pay, paid_on):
                h = e["data"]["holder"]
                value = money(e["data"].get("amount") or 0)
                if e["data"].get("shares") and self.payment.get("paid_in") == "shares":
                    value += (int(e["data"]["shares"]) * self.price_on(pay)).quantize(
                        Decimal("0.01"), ROUND_HALF_UP)
                paid[h] = paid.get(h, Decimal(0)) + value
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
            d = start
            while d < end:
                rate = rates.get(d)
                if not rate or not self.earns(lot, d):
                    run_start = key = None
                    d += ONE
                    continue
                if key != rate:
                    run_start, key = d, rate
                part += (Fraction(lot.principal) * Fraction(rate) / 100
                         * day_fraction(convention, run_start, d))
                d += ONE
            if part:
                out.append((lot.ended_on, part))
        return out

    def unpaid_lost(self, holder, owed, later, pay, paid_on, paid_events) -> Fraction:
        """conversion_forfeits=all_unpaid: what fell due before the conversion and was
        still unpaid on its day is lost, pro rata to the converted Notes' part; what was
        paid by then stays paid."""
        lost = Fraction(0)
        for on, part in later:
            paid = sum((Fraction(money(e["data"].get("amount") or 0)) for e in paid_events
                        if e["data"]["holder"] == holder
                        and day_of(e["data"]["payment_date"]) in (pay, paid_on)
                        and day_of(e["date"]) <= on), Fraction(0))
            if paid < owed:
                lost += (owed - paid) * part / owed
        return owed - lost


