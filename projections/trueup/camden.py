"""The Camden Warrants: issued unvested, they become Vested Warrants or are cancelled (Letter ¶2).

A ``CamdenWarrantsVested`` or ``CamdenWarrantsCancelled`` event names a Camden Entity and
a number of warrants, not an issuance. For an entity holding more than one issuance the
interpretation ``camden_tranche_order`` (SPEC §6; Letter ¶2 "in the manner provided in the
Camden Warrant Agreement", which is not in the seeds) decides: ``earliest_first`` (the
default) vests from its earliest issuance first and cancels the warrants furthest from
vesting, its latest issuance first; ``latest_first`` does both the other way. Each part of a
vesting drawn from one issuance is a ``Tranche``: it carries that issuance's exercise
price and its share of the issuance's consideration.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import cached_property
from decimal import Decimal
from fractions import Fraction

from ledger.stored import Event

from .arithmetic import exact
from .records import copied


@dataclass(frozen=True)
class Issuance:
    event: str
    holder: str
    date: date
    warrants: int              # issued
    exercise_price: Decimal
    consideration: Decimal     # paid for the whole issuance (SPEC §3.3, default 0)
    unvested: int              # neither vested nor cancelled yet


@dataclass(frozen=True)
class Tranche:
    """Warrants of one issuance that vest (or would vest) together."""

    issuance: Issuance
    warrants: int

    @cached_property
    def consideration(self) -> Fraction:
        """The consideration for these warrants: ``consideration × C / warrants issued``
        (SPEC §5.2). Kept once computed (a vesting day's adjustment reads it for every
        position, three times each)."""
        return exact(self.issuance.consideration) * self.warrants / self.issuance.warrants

    @cached_property
    def paid(self) -> tuple[int, int]:
        """``C × Camden exercise price + consideration × C / warrants issued`` (SPEC
        §5.2) as ``(numerator, denominator)``: this tranche's part of ``B × P``, not
        necessarily in lowest terms (``weighted_average_price`` rounds the ratio, which
        does not depend on it). In integers: ``C × e_n / e_d + k_n × C / (k_d × W)``."""
        en, ed = self.issuance.exercise_price.as_integer_ratio()
        kn, kd = self.issuance.consideration.as_integer_ratio()
        issued, c = self.issuance.warrants, self.warrants
        return c * en * kd * issued + kn * c * ed, ed * kd * issued


Book = tuple[Issuance, ...]


def issued(book: Book, event: Event) -> Book:
    """Issuing Camden Warrants adjusts nothing (Letter ¶2, ¶4): they only join the book."""
    d = event.data
    return book + (Issuance(event=event.id, holder=d["holder"], date=event.date,
                            warrants=d["warrants"], exercise_price=d["exercise_price"],
                            consideration=d["consideration"], unvested=d["warrants"]),)


def _take(book: Book, holder: str, warrants: int, latest_first: bool
          ) -> tuple[Book, tuple[Tranche, ...], int]:
    order = range(len(book) - 1, -1, -1) if latest_first else range(len(book))
    out, parts, left = list(book), [], warrants
    for i in order:
        if left == 0:
            break
        iss = out[i]
        if iss.holder != holder or iss.unvested == 0:
            continue
        n = min(left, iss.unvested)
        out[i] = copied(iss, unvested=iss.unvested - n)
        parts.append(Tranche(iss, n))
        left -= n
    return tuple(out), tuple(parts), left


TRANCHE_ORDERS = ("earliest_first", "latest_first")


def _latest_first(reading: str) -> bool:
    if reading not in TRANCHE_ORDERS:
        raise ValueError(f"interpretation camden_tranche_order has no value {reading!r}; "
                         f"choose one of {', '.join(TRANCHE_ORDERS)}")
    return reading == "latest_first"


def vested(book: Book, holder: str, warrants: int, reading: str = "earliest_first"
           ) -> tuple[Book, tuple[Tranche, ...], int]:
    """Camden Warrants that "become vested and not subject to cancellation" (Letter ¶2):
    the book after, the tranches that vested (earliest issuance first unless ``reading``
    is ``latest_first``), and how many of the warrants named could not vest because that
    many were not unvested."""
    return _take(book, holder, warrants, latest_first=_latest_first(reading))


def cancelled(book: Book, holder: str, warrants: int, reading: str = "earliest_first"
              ) -> tuple[Book, tuple[Tranche, ...], int]:
    """Cancelled Camden Warrants can never vest, so never adjust (Letter ¶2 "only to the
    extent that ... become Vested Warrants"): the book after, the tranches cancelled
    (latest issuance first unless ``reading`` is ``latest_first``) and the shortfall."""
    return _take(book, holder, warrants, latest_first=not _latest_first(reading))


def unvested(book: Book) -> tuple[Tranche, ...]:
    """Every Camden Warrant still able to vest, one tranche per issuance."""
    return tuple(Tranche(i, i.unvested) for i in book if i.unvested > 0)


def by_holder(book: Book, vested_counts: dict[str, int], cancelled_counts: dict[str, int]
              ) -> dict[str, dict[str, int]]:
    """Issued, vested, cancelled and unvested warrants per Camden Entity."""
    out: dict[str, dict[str, int]] = {}
    for iss in book:
        row = out.setdefault(iss.holder, {"issued": 0, "vested": 0, "cancelled": 0,
                                          "unvested": 0})
        row["issued"] += iss.warrants
        row["unvested"] += iss.unvested
    for holder, row in out.items():
        row["vested"] = vested_counts.get(holder, 0)
        row["cancelled"] = cancelled_counts.get(holder, 0)
    return dict(sorted(out.items()))
