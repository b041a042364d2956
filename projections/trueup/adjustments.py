"""Deferred anti-dilution adjustments (Letter ¶2, SPEC §5.2).

The Warrantholders "defer the application of the anti-dilution protection" of Warrant
Agreement Art. IV and Certificate of Designations §12 "unless until and only to the
extent that" Camden Warrants become Vested Warrants (Letter ¶2). So issuing the Camden
Warrants adjusts nothing, and each vesting adjusts for the warrants that vested only, on
the vesting date, by the deal's ``formula`` (the Transaction Documents are not in the
seeds; SPEC §5.1 makes it a term):

* ``weighted_average_broad`` (default): ``P' = P × (A + B) / (A + C)``; ``A`` = the latest
  ``common_outstanding`` recorded on or before the vesting date plus the Camden Warrants
  vested after that record and before this vesting (deemed outstanding);
* ``weighted_average_narrow``: the same formula, but ``A`` is the recorded
  ``common_outstanding`` alone: Camden Warrants vested since the record are not deemed
  outstanding (a narrow base counts only Common Stock actually outstanding). Vesting in
  two tranches then lowers the price a little more than vesting in one;

  what "narrow" and "broad" mean here: neither Transaction Document is in the seeds, so
  the two differ only as SPEC §5.2 lets them. Both start from the recorded Common Stock
  outstanding, which never includes options, warrants or convertibles (the
  Warrantholders' own Warrants and Shares among them); "broad" adds only the Camden
  Warrants vested since that record, which keeps it path-independent: without rounding,
  ``(P·A + c1·p1 + c2·p2) / (A + c1 + c2)`` whether ``c1`` and ``c2`` vest together or
  one after the other. A market broad-based formula would count every option, warrant
  and convertible as converted; the log records no such figure;
* ``full_ratchet``: ``P' = min(P, Camden exercise price)``.

``B = (C × Camden exercise price + consideration × C / warrants issued) / P``. No
adjustment if the Camden exercise price is not below ``P``; and, reading chosen here, a
price is never raised by a vesting: when the consideration paid for the warrants brings
the price per share to ``P`` or above, or rounding would lift a price given with more
decimals than ``price_decimals``, the price stays. Prices round half-up to
``price_decimals``.

An ``AdjustmentRecorded`` (a split, another issuance) is outside the deferral: the letter
"shall [not] be applicable to any further issuance of securities" (Letter ¶5), so it
applies immediately (SPEC §5.2). Its ``new_price`` is absolute. Readings chosen here:
``"all"`` sets every registered position, held or exercised (an exercised part still
needs it for a true-up's ``x``), to that one price, and ``replay`` reports it when those
positions were at different prices; an adjustment made after an eligible exercise counts
in later ``x`` ("all anti-dilution adjustments", Letter ¶3) and ``replay`` reports it,
because a split would also need ``y`` restated, which nothing in the log records.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import Any, Sequence

from ledger.stored import Event

from ..basis import Basis, LazyBasis
from ..worked import Step as Operation, Worked
from .arithmetic import exact, fraction_text, round_price, round_ratio, show
from .camden import Tranche
from .instruments import Instrument
from .records import built

INTERPRETATIONS = ("trueup_dividends", "camden_tranche_order")
WHAT_IF = "what-if vesting"   # stands for a vesting that has not happened (deferred.py)

RULES = {
    "weighted_average_broad":
        "as Camden Warrants become Vested Warrants the deferred anti-dilution applies for "
        "the vested warrants only, on the vesting date: broad-based weighted average "
        "P' = P × (A + B) / (A + C), Camden Warrants vested since the capitalization "
        "record deemed outstanding in A",
    "weighted_average_narrow":
        "as Camden Warrants become Vested Warrants the deferred anti-dilution applies for "
        "the vested warrants only, on the vesting date: narrow-based weighted average "
        "P' = P × (A + B) / (A + C), A = the recorded Common Stock outstanding only",
    "full_ratchet":
        "as Camden Warrants become Vested Warrants the deferred anti-dilution applies for "
        "the vested warrants only, on the vesting date: full ratchet "
        "P' = min(P, Camden exercise price)",
}


@dataclass(frozen=True)
class Capitalization:
    """The latest ``CapitalizationRecorded`` and the Camden Warrants vested after it."""

    common_outstanding: int
    event: str
    date: date
    deemed: tuple[tuple[str, int], ...] = ()   # (vesting event, warrants) since the record


@dataclass(frozen=True)
class PriceChange:
    instrument: str
    event: str | None        # the vesting or AdjustmentRecorded; None for a what-if vesting
    cause: str               # "CamdenWarrantsVested", "AdjustmentRecorded" or "if_all_vest"
    date: date
    before: Decimal
    after: Decimal
    basis: Basis
    vestings: tuple[str, ...] = ()   # every vesting of the day the adjustment is for


def recorded_capitalization(event: Event) -> Capitalization:
    """A ``CapitalizationRecorded``: the Common Stock outstanding that starts ``A`` for the
    vestings on or after its date (SPEC §5.2); nothing vested since it is deemed yet."""
    return Capitalization(event.data["common_outstanding"], event.id, event.date)


def deemed_outstanding(cap: Capitalization | None, vesting: str | None, warrants: int
                       ) -> Capitalization | None:
    """After a vesting its warrants count in ``A`` for later vestings (SPEC §5.2)."""
    if cap is None:
        return None
    return Capitalization(cap.common_outstanding, cap.event, cap.date,
                          cap.deemed + ((vesting or WHAT_IF, warrants),))


def outstanding_base(formula: str, cap: Capitalization) -> tuple[int, str, tuple[str, ...]]:
    """``A``, its arithmetic and its events (SPEC §5.2; narrow reading in the module doc)."""
    head = f"{cap.common_outstanding} (CapitalizationRecorded {cap.event})"
    if formula == "weighted_average_narrow":
        return cap.common_outstanding, f"A = {head}; narrow: vested Camden Warrants not " \
                                       f"deemed outstanding", (cap.event,)
    deemed = sum(n for _, n in cap.deemed)
    ids = tuple(dict.fromkeys(e for e, _ in cap.deemed))
    if not ids:
        return cap.common_outstanding, f"A = {head}", (cap.event,)
    return (cap.common_outstanding + deemed,
            f"A = {head} + {deemed} (Camden Warrants vested since: {', '.join(ids)}) "
            f"= {cap.common_outstanding + deemed}",
            (cap.event, *(i for i in ids if i != WHAT_IF)))


def camden_paid(tranches: Sequence[Tranche]) -> Fraction:
    """``Σ (C × Camden exercise price + consideration × C / warrants issued)`` over one
    day's tranches: ``B × P`` (SPEC §5.2: "their C and B are summed")."""
    return sum((t.warrants * exact(t.issuance.exercise_price) + t.consideration
                for t in tranches), Fraction(0))


def weighted_average(price: Decimal, a: int, tranches: Sequence[Tranche], decimals: int
                     ) -> tuple[Decimal, Fraction, str, dict[str, Any]]:
    """``P' = P × (A + B) / (A + C)``, ``B = (C × Camden price + consideration × C /
    warrants issued) / P`` (Warrant Agreement Art. IV, Certificate §12, as SPEC §5.2
    states them; deferred to the vesting date by Letter ¶2). All the vestings of one day
    are one adjustment: their ``C`` and ``B`` are summed and ``P'`` is rounded once
    (SPEC §5.2). Tranches whose Camden price is not below ``P`` make no adjustment and
    are left out of the sum. Returns P', B, the arithmetic text and the computation as
    data (exact inputs, operation, rounding, result), which ``explain`` re-computes."""
    p = exact(price)
    below = [t for t in tranches if t.issuance.exercise_price < price]
    c = sum(t.warrants for t in below)
    paid = camden_paid(below)
    b = paid / p
    terms = [f"({t.warrants} × {show(t.issuance.exercise_price)} + "
             f"{show(t.consideration)} consideration)" if t.consideration
             else f"{t.warrants} × {show(t.issuance.exercise_price)}" for t in below]
    text = f"B = ({' + '.join(terms) or '0'}) / {show(price)} = {show(b)}; C = {c}"
    above = [t for t in tranches if t.issuance.exercise_price >= price]
    if above:
        prices = ", ".join(dict.fromkeys(show(t.issuance.exercise_price) for t in above))
        text += (f"; Camden exercise price {prices} is not below P = {show(price)}: "
                 + ("no adjustment" if not below else
                    f"those {sum(t.warrants for t in above)} warrants adjust nothing"))
    computation: dict[str, Any] = {
        "operation": "weighted_average", "formula": "P' = P × (A + B) / (A + C), B = paid / P",
        "exact": {"P": fraction_text(p), "A": str(a), "C": str(c),
                  "paid": fraction_text(paid), "B": fraction_text(b)},
        "rounding": {"mode": "half_up", "decimals": decimals}}
    if not below:
        return price, b, text, {**computation, "result": None,
                                                    "applied": format(price, "f")}
    raw = p * (a + b) / (a + c)
    rounded = round_price(raw, decimals)
    computation["result"] = format(rounded, "f")
    text += (f"; P' = {show(price)} × ({a} + {show(b)}) / ({a} + {c}) = {show(raw)} → "
             f"{show(rounded)} (half-up, {decimals} decimals)")
    if rounded >= price:
        computation["applied"] = format(price, "f")
        return price, b, f"{text}; not below P = {show(price)}: no adjustment (a vesting " \
                         f"never raises a price)", computation
    computation["applied"] = computation["result"]
    return rounded, b, text, computation


def full_ratchet(price: Decimal, tranches: Sequence[Tranche], decimals: int
                 ) -> tuple[Decimal, str, dict[str, Any]]:
    """``P' = min(P, Camden exercise price)`` (SPEC §5.2; deferred by Letter ¶2); for one
    day's tranches, the lowest of their prices."""
    lowest = min(exact(t.issuance.exercise_price) for t in tranches)
    # "No adjustment if the Camden price is not below P" is judged on the Camden price as
    # issued, before any rounding to price_decimals (2.4201 is not below 2.4201, though it
    # rounds to 2.42 at two decimals)
    camden = round_price(lowest, decimals)
    after = min(price, camden) if lowest < exact(price) else price
    computation = {"operation": "full_ratchet", "formula": "P' = min(P, Camden price)",
                   "exact": {"P": fraction_text(exact(price)),
                             "camden": fraction_text(exact(camden))},
                   "rounding": {"mode": "half_up", "decimals": decimals},
                   "result": format(after, "f"), "applied": format(after, "f")}
    if lowest < exact(price):    # P' = min(P, the Camden price rounded to price_decimals)
        steps = (Operation("min", (price, Operation(
            "round", (lowest,), camden, "the Camden price", rounding=("half_up", decimals))),
            after, "P'"),)
    else:                        # not below P as issued: no adjustment
        steps = (Operation("min", (price, lowest), after, "P' (the Camden price is not below P)"),)
    return after, Worked(f"C = {sum(t.warrants for t in tranches)}; P' = min({show(price)}, "
                         f"{show(camden)}) = {show(after)}", steps), computation


def camden_adjustment(position: Instrument, tranches: Sequence[Tranche],
                      vestings: Sequence[str], day: date, cap: Capitalization | None,
                      formula: str, decimals: int, price: Decimal | None = None,
                      day_prices: dict[tuple[Any, ...], Decimal] | None = None
                      ) -> PriceChange | None:
    """The adjustment one day's vested tranches make to one position (Letter ¶2: "as the
    Camden Warrants become Vested Warrants, each of the Warrantholders shall be entitled
    to receive anti-dilution protection"; SPEC §5.2: one adjustment per vesting day).
    ``price``: the price adjusted, if not the position's own (``trueup_adjustments =
    camden_only``). None if the weighted average cannot be computed because no
    capitalization was recorded on or before the vesting date.

    The new price is computed here; its basis (the arithmetic text, inputs and
    computation of ``weighted_average`` or ``full_ratchet``) when first read
    (``LazyBasis``): a replay adjusts every position on every vesting day, and most
    callers read the prices only.

    ``day_prices``: the new prices already worked out for the same tranches, day,
    capitalization and formula, by the price adjusted (the positions of a deal share a
    few prices), read and added to. Keyed by the price's exact digits (``as_tuple``),
    not its value: an unadjusted price is the very Decimal given, ``4.0`` or ``4.00``."""
    price = position.price if price is None else price
    key = price.as_tuple()
    after = None if day_prices is None else day_prices.get(key)
    if formula != "full_ratchet" and cap is None:
        return None
    if after is None:
        if formula == "full_ratchet":
            after = ratchet_price(price, tranches, decimals)
        else:
            assert cap is not None
            after = weighted_average_price(price, outstanding(formula, cap), tranches,
                                           decimals)
        if day_prices is not None:
            day_prices[key] = after
    first = vestings[0] if vestings else None
    return built(PriceChange, {   # records.py: not the frozen constructor, 36 a Letter deal
        "instrument": position.instrument, "event": first,
        "cause": "CamdenWarrantsVested" if first else "if_all_vest", "date": day,
        "before": price, "after": after,
        "basis": LazyBasis(lambda: camden_basis(position, tranches, vestings, cap, formula,
                                                decimals, price, after)),
        "vestings": tuple(vestings)})


def outstanding(formula: str, cap: Capitalization) -> int:
    """``A`` of ``outstanding_base`` (SPEC §5.2), without its text."""
    if formula == "weighted_average_narrow":
        return cap.common_outstanding
    return cap.common_outstanding + sum(n for _, n in cap.deemed)


def weighted_average_price(price: Decimal, a: int, tranches: Sequence[Tranche],
                           decimals: int) -> Decimal:
    """``P'`` of ``weighted_average`` (Warrant Agreement Art. IV, Certificate §12, as
    SPEC §5.2 states them; deferred by Letter ¶2), without its text: ``P × (A + B) /
    (A + C)`` is ``(A × P + paid) / (A + C)`` exactly (``B = paid / P``), rounded
    half-up once; a vesting never raises a price."""
    below, c, num, den = False, 0, 0, 1   # C, and paid = num / den (in integers:
    for t in tranches:                    # Fraction arithmetic was most of a replay)
        if t.issuance.exercise_price < price:
            below = True
            c += t.warrants
            n, d = t.paid
            num, den = num * d + n * den, den * d
    if not below:
        return price
    pn, pd = price.as_integer_ratio()
    # (A × pn/pd + num/den) / (A + C)
    rounded = round_ratio(a * pn * den + num * pd, pd * den * (a + c), decimals)
    return price if rounded >= price else rounded


def ratchet_price(price: Decimal, tranches: Sequence[Tranche], decimals: int) -> Decimal:
    """``P'`` of ``full_ratchet`` (SPEC §5.2; deferred by Letter ¶2), without its text."""
    lowest = min(exact(t.issuance.exercise_price) for t in tranches)
    return min(price, round_price(lowest, decimals)) if lowest < exact(price) else price


def camden_basis(position: Instrument, tranches: Sequence[Tranche], vestings: Sequence[str],
                 cap: Capitalization | None, formula: str, decimals: int, price: Decimal,
                 after: Decimal) -> Basis:
    """The basis of ``camden_adjustment``'s ``P'``: the clause, the rule, the events, the
    arithmetic (``weighted_average`` or ``full_ratchet``) and its inputs."""
    c = sum(t.warrants for t in tranches)
    issuances = tuple(dict.fromkeys(t.issuance.event for t in tranches))
    inputs: dict[str, object] = {
        "formula": formula, "C": c, "P": price,
        "camden_exercise_price": ", ".join(dict.fromkeys(
            format(t.issuance.exercise_price, "f") for t in tranches)),
        "consideration": show(sum((t.consideration for t in tranches), Fraction(0)))}
    events = (*vestings, *issuances)
    if formula == "full_ratchet":
        worked, text, computation = full_ratchet(price, tranches, decimals)
    else:
        assert cap is not None
        a, a_text, a_events = outstanding_base(formula, cap)
        worked, b, b_text, computation = weighted_average(price, a, tranches, decimals)
        text = f"{a_text}; {b_text}"
        inputs |= {"A": a, "B": show(b), "C": int(computation["exact"]["C"])}
        events += a_events
    if worked != after:
        raise AssertionError(f"P' {after} is not the worked {worked}")   # never: one rule
    inputs["P'"] = after
    return Basis(clause=f"Letter ¶2; {position.clause}", rule=RULES[formula],
                 events=tuple(dict.fromkeys(events)), interpretations=INTERPRETATIONS,
                 arithmetic=text, inputs=inputs, computation=computation)


def recorded_adjustment(position: Instrument, event: Event) -> PriceChange:
    """An ``AdjustmentRecorded`` applies immediately, whatever the vesting (SPEC §5.2;
    Letter ¶5: the letter is not "applicable to any further issuance of securities")."""
    new = event.data["new_price"]
    basis = Basis(clause=f"{position.clause}; Letter ¶5", rule="an anti-dilution adjustment "
                  "not caused by Camden vesting applies immediately: "
                  f"{event.data['reason']}", events=(event.id,),
                  interpretations=INTERPRETATIONS,
                  arithmetic=Worked(f"P' = {show(new)} (recorded; was {show(position.price)})",
                                    ()),
                  inputs={"P": position.price, "P'": new})
    return PriceChange(position.instrument, event.id, "AdjustmentRecorded", event.date,
                       position.price, new, basis)
