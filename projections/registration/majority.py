"""Majority of Holders for consents and waivers (RRA §1 "Majority of Holders", §10(D),
§10(H)).

RRA §1: "Holders holding over 50% in aggregate principal amount of the Notes outstanding
at the time of determination in question; provided, however, that ... a holder of
Conversion Shares which constitute Transfer Restricted Securities when issued upon
conversion of Notes shall be deemed to hold an aggregate principal amount of Notes (in
addition to the principal amount of Notes held by such holder) equal to the product of
(x) the number of such Conversion Shares held by such holder and (y) the prevailing
conversion price". RRA §10(H): "Transfer Restricted Securities held by the Company or
its Affiliates shall not be counted in determining whether such consent or approval was
given".

RRA §1 "Holder": "A Person who owns, beneficially or otherwise, Transfer Restricted
Securities": a consent counts only from a Person who is a Holder at the time of
determination (it owns Notes that are still Transfer Restricted, or Conversion Shares);
one who holds only Notes sold under the Shelf Registration Statement is not a Holder,
though its Notes are outstanding and count in the total.

Readings of ours: the time of determination is ``as_of``; a consent counts when given on
or before it by a Holder who still holds then; Conversion Shares stay with the converting
Holder and stay Transfer Restricted (no event records their sale); the prevailing
conversion price is the deal's ``conversion_price`` term; affiliates are left out of both
the consenting principal and the total.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Mapping, Sequence

from ledger.stored import Event
from ledger.dealterms import RegistrationTerms
from ledger.registration_terms import cite
from projections.basis import Basis
from projections.worked import Step, Worked

from .holdings import Snapshot
from .money import money, plain

#: the event types ``majorities`` reads
CONSENT_EVENTS = ("HolderAffiliation", "ConsentGiven")


@dataclass(frozen=True)
class Consent:
    matter: str
    consenting: Decimal
    total: Decimal
    holders: tuple[str, ...]
    excluded: tuple[str, ...]
    basis: Basis
    not_holders: tuple[str, ...] = ()   # consented but own no Transfer Restricted Security
    more_than: Decimal = Decimal("0.5")  # the share the amendment clause asks for, exceeded

    @property
    def share(self) -> Decimal:
        return (self.consenting / self.total) if self.total else Decimal(0)

    @property
    def majority(self) -> bool:
        if self.more_than == Decimal("0.5"):
            return self.consenting * 2 > self.total
        return self.consenting > self.total * self.more_than


def affiliates(events: Sequence[Event]) -> dict[str, str]:
    """Holder → the HolderAffiliation event in force (the latest) that makes it a
    Company affiliate."""
    latest: dict[str, Event] = {}
    for e in events:
        if e.type == "HolderAffiliation":
            latest[e.data["holder"]] = e
    return {h: e.id for h, e in latest.items() if e.data["company_affiliate"]}


def weights(snap: Snapshot, shares: Mapping[str, int], price: Decimal
            ) -> dict[str, Decimal]:
    """Principal counted per Holder: Notes outstanding held plus restricted Conversion
    Shares × the prevailing conversion price (``shares``: per Holder; empty where the
    terms do not count them)."""
    out = {h: snap.notes(h) for h in snap.holders()}
    for holder, n in shares.items():
        out[holder] = out.get(holder, Decimal(0)) + n * price
    return {h: w for h, w in out.items() if w > 0}


def is_holder(holder: str, snap: Snapshot, shares: Mapping[str, int]) -> bool:
    """RRA §1 "Holder": owns Transfer Restricted Securities (Notes not sold under the
    shelf, or Conversion Shares still restricted)."""
    return snap.trs(holder) > 0 or holder in shares


def consent_rule(terms: RegistrationTerms) -> tuple[str, str]:
    """The clause and rule of a consent: RRA §1 Majority of Holders, §10(D), §10(H)."""
    m = terms.amendments.majority
    clause = cite(m.section, terms.amendments.section,
                  m.affiliates.section if m.affiliates is not None else "")
    rule = (f"consent of Holders of more than {plain(m.more_than * 100)}% of the principal "
            f"of Notes outstanding" + (", affiliates of the Company not counted"
                                       if m.affiliates is not None else ""))
    return clause, rule


def majorities(events: Sequence[Event], snap: Snapshot, terms: RegistrationTerms,
               shares: Mapping[str, int], price: Decimal) -> dict[str, Consent]:
    """For each ``matter`` of a ConsentGiven: the consenting principal (of Holders only,
    RRA §1), the total (every Note outstanding, RRA §1 "Majority of Holders") and
    whether it is a Majority of Holders."""
    m = terms.amendments.majority
    excluded = affiliates(events) if m.affiliates is not None else {}
    counted = {h: w for h, w in weights(snap, shares if m.conversion_shares else {},
                                        price).items() if h not in excluded}
    clause, rule = consent_rule(terms)
    total = sum(counted.values(), Decimal(0))
    by_matter: dict[str, dict[str, str]] = {}
    for e in events:   # each Holder's first consent to each matter
        if e.type == "ConsentGiven":
            data = e.data
            givers = by_matter.get(data["matter"])
            if givers is None:
                givers = by_matter[data["matter"]] = {}
            if data["holder"] not in givers:
                givers[data["holder"]] = e.id
    # RRA §1 "Holder" is judged once per Person at the time of determination, whatever
    # the number of matters it consented to
    givers_all = dict.fromkeys(h for givers in by_matter.values() for h in givers)
    holders = {h for h in givers_all if h in counted and is_holder(h, snap, shares)}
    texts: dict[str, str] = {}

    def shown(holder: str) -> str:   # a Holder's principal, written once for every matter
        found = texts.get(holder)
        if found is None:
            found = texts[holder] = plain(counted[holder])
        return found

    out = {}
    for matter, givers in sorted(by_matter.items()):
        yes = sorted(h for h in givers if h in holders)
        consenting = sum((counted[h] for h in yes), Decimal(0))
        left_out = tuple(sorted(h for h in givers if h in excluded)) if excluded else ()
        not_holders = tuple(sorted(h for h in givers if h in counted and h not in holders))
        ids = tuple(givers.values()) + tuple(excluded[h] for h in left_out)
        consent = Consent(matter, consenting, total, (), (), None, (), m.more_than)
        needed = ("more than half" if m.more_than == Decimal("0.5")
                  else f"more than {plain(m.more_than * 100)}%")
        text = (f"{' + '.join([shown(h) for h in yes]) or '0'} = {money(consenting)}"
                f" of {money(total)}; {needed}: {consent.majority}")
        if left_out:
            text += f"; affiliates not counted: {', '.join(left_out)}"
        if not_holders:
            text += (f"; not Holders (no Transfer Restricted Security), not counted: "
                     f"{', '.join(not_holders)}")
        arithmetic = Worked(text, (Step("sum", tuple(counted[h] for h in yes), consenting,
                                        "consenting principal"),))
        out[matter] = Consent(matter, consenting, total, tuple(yes), left_out,
                              Basis(clause, rule, ids, (), arithmetic), not_holders,
                              m.more_than)
    return out
