"""Consents and amendments for the RRA reference model (``rra_model``): a Majority of
Holders on a day (RRA §1 "Majority of Holders", §10(D), §10(H), as the deal's
``amendments.majority`` term states it), and whether an amendment (``TermsAmended``)
rests on one, so that the write side's refusals can be foretold.

Written again from the clause, sharing no code with ``ledger.terms_guards`` or
``projections.registration.majority``: the principal counted is each Person's Notes
outstanding (restricted or not) plus, where the terms count them, its restricted
Conversion Shares at the conversion price prevailing on the day; the Company's
affiliates are left out where the terms say so; a consent counts from a Holder (a Person
owning restricted Notes or restricted Conversion Shares on the day), its first to the
matter, given on or before the day; the consents carry the matter when their principal
is more than the terms' share of the total.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, Mapping, Sequence

from .rra_notes import SHARE_EVENTS, book_at, shares_at
from .rra_time import day_of, money

SALES = {"shelf_sale": "shelf", "rule_144_sale": "rule_144"}


@dataclass(frozen=True)
class Majority:
    consenting: Decimal
    total: Decimal
    more_than: Decimal

    @property
    def carried(self) -> bool:
        return self.total > 0 and self.consenting > self.total * self.more_than


def price_on(terms: Mapping[str, Any], evs: Sequence[Mapping[str, Any]], d: date) -> Decimal:
    """The conversion price prevailing on ``d``: the last adjustment dated by then."""
    price = money(terms["conversion_price"])
    for e in sorted((e for e in evs if e["type"] == "ConversionPriceAdjusted"
                     and day_of(e["date"]) <= d), key=lambda e: (day_of(e["date"]), e["seq"])):
        price = money(e["data"]["new_price"])
    return price


def majority_on(terms: Mapping[str, Any], evs: Sequence[Mapping[str, Any]], d: date,
                matter: str) -> Majority:
    """The consents to ``matter`` on ``d`` (module doc); ``evs``: the deal's live events
    in (date, seq) order."""
    rule = terms["amendments"]["majority"]
    frees = frozenset(SALES[x] for x in terms["transfer_restricted"]["until"] if x in SALES)
    upto = [e for e in evs if day_of(e["date"]) <= d]
    book = book_at(upto, d, frees)
    shares = shares_at([e for e in upto if e["type"] in SHARE_EVENTS], d, frees)
    price = price_on(terms, upto, d)
    affiliate: dict[str, bool] = {}
    for e in upto:
        if e["type"] == "HolderAffiliation":
            affiliate[e["data"]["holder"]] = bool(e["data"]["company_affiliate"])
    held: dict[str, Decimal] = {}
    restricted: dict[str, Decimal] = {}
    for lot in book.lots:
        if lot.ended_on is None and lot.principal > 0:
            held[lot.holder] = held.get(lot.holder, Decimal(0)) + lot.principal
            if lot.sold_on is None:
                restricted[lot.holder] = restricted.get(lot.holder, Decimal(0)) + lot.principal
    restricted_shares: dict[str, int] = {}
    for s in shares.lots:
        if s.shares > 0 and s.freed_on is None:
            restricted_shares[s.holder] = restricted_shares.get(s.holder, 0) + s.shares
    weight: dict[str, Decimal] = {}
    for h in set(held) | set(restricted_shares):
        w = held.get(h, Decimal(0))
        if rule.get("conversion_shares", True):
            w += restricted_shares.get(h, 0) * price
        if w > 0 and not (rule.get("affiliates") and affiliate.get(h)):
            weight[h] = w
    givers = {e["data"]["holder"] for e in upto
              if e["type"] == "ConsentGiven" and e["data"]["matter"] == matter}
    consenting = sum((weight[h] for h in givers if h in weight
                      and (restricted.get(h, 0) > 0 or restricted_shares.get(h, 0) > 0)),
                     Decimal(0))
    return Majority(consenting, sum(weight.values(), Decimal(0)), money(rule["more_than"]))


def amendment_refused(terms: Mapping[str, Any], evs: Sequence[Mapping[str, Any]],
                      amendment: Mapping[str, Any]) -> str | None:
    """Why the write side must refuse ``amendment`` on the deal's live events recorded
    before it (``evs``), or ``None``: it takes effect before the amendment recorded
    before it, or its consents do not carry it on its day."""
    data = amendment["data"]
    earlier = [e for e in evs if e["type"] == "TermsAmended"]
    if earlier:
        last = max(earlier, key=lambda e: e["seq"])
        if (data.get("effective") or amendment["date"]) < (last["data"].get("effective")
                                                           or last["date"]):
            return "takes effect before the amendment before it"
    if not majority_on(terms, evs, day_of(amendment["date"]), data["matter"]).carried:
        return "short of the majority"
    return None
