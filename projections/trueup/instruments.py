"""Each Warrantholder's Warrants and Series A Preferred ("Shares") positions (Letter ¶1, ¶2).

A position is described by one constant, its **aggregate**, and its current price:

* a Warrant to buy ``shares`` at ``exercise_price``: the aggregate exercise price
  ``shares × exercise_price`` stays the same through every adjustment (Warrant Agreement
  Art. IV, as SPEC §5.2 states it: ``shares' = shares × P / P'``), so at price ``P`` the
  Warrant buys ``aggregate / P`` shares;
* ``quantity`` Shares of Series A Preferred of ``stated_value`` each convert at
  ``conversion_price`` (Certificate of Designations §12): ``quantity × stated_value /
  conversion_price`` shares of Common Stock.

Reading chosen here: the share count is rounded down once, from the aggregate and the
price in force, not after each adjustment in turn, so repeated adjustments never lose a
share to compounded rounding. Exercises take a ``fraction`` of what remains (SPEC §3.3);
``remaining`` is the part of the registered position not yet exercised or converted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction

from ledger.stored import Event

from ..worked import Step as Operation
from .arithmetic import exact, show
from .records import copied

CLAUSES = {
    "warrant": "Warrant Agreement Art. IV",
    "preferred": "Certificate of Designations §12",
}


@dataclass(frozen=True)
class Instrument:
    instrument: str
    holder: str
    kind: str                 # "warrant" or "preferred"
    event: str                # the InstrumentRegistered event
    registered_on: date
    units: int                # warrant: shares at registration; preferred: quantity
    unit_value: Decimal       # warrant: exercise price at registration; preferred: stated value
    price: Decimal            # the exercise price or conversion price now in force
    remaining: Fraction = Fraction(1)

    @property
    def clause(self) -> str:
        """The Transaction Document term whose anti-dilution the letter defers (Letter ¶2)."""
        return CLAUSES[self.kind]

    @property
    def aggregate(self) -> Fraction:
        """Aggregate exercise price (warrant) or aggregate stated value (preferred)."""
        return self.units * exact(self.unit_value)

    @property
    def exercised_fraction(self) -> Fraction:
        return 1 - self.remaining

    @property
    def held(self) -> bool:
        return self.remaining > 0


def registered(event: Event) -> Instrument:
    """A position as registered (SPEC §3.3 ``InstrumentRegistered``)."""
    data = event.data
    if data["kind"] == "warrant":
        units, unit_value, price = data["shares"], data["exercise_price"], data["exercise_price"]
    else:
        units, unit_value, price = data["quantity"], data["stated_value"], data["conversion_price"]
    return Instrument(instrument=data["instrument"], holder=data["holder"], kind=data["kind"],
                      event=event.id, registered_on=event.date, units=units,
                      unit_value=unit_value, price=price)


def shares_for(position: Instrument, portion: Fraction, price: Decimal | None = None) -> int:
    """Shares of Common Stock that ``portion`` of the registered position gives at ``price``
    (the price in force if omitted): ``portion × aggregate / price``, rounded down
    (Warrant Agreement Art. IV; Certificate of Designations §12; SPEC §5.2)."""
    price = position.price if price is None else price
    # in integers: floor(portion x units x unit value / price), each an exact ratio
    # (Fraction arithmetic was a tenth of a Letter deal's agenda line; flooring a
    # ratio does not depend on its being in lowest terms)
    un, ud = position.unit_value.as_integer_ratio()
    pn, pd = price.as_integer_ratio()
    return (portion.numerator * position.units * un * pd) // (portion.denominator * ud * pn)


def shares_step(position: Instrument, portion: Fraction | None = None,
                price: Decimal | None = None) -> Operation:
    """``shares_for`` as a step: ``portion × aggregate / price``, rounded down."""
    portion = position.remaining if portion is None else portion
    price = position.price if price is None else price
    product = Operation("product", (portion, position.aggregate), portion * position.aggregate)
    return Operation("round", (Operation("quotient", (product, price),
                                         product.result / exact(price)),),
                     shares_for(position, portion, price), "shares", rounding=("down", 0))


def shares_text(position: Instrument, portion: Fraction, price: Decimal | None = None) -> str:
    """The arithmetic of ``shares_for``: ``40000 × 3.00 / 2.9286 = 40983 (rounded down)``."""
    price = position.price if price is None else price
    return (f"{show(portion * position.units)} × {show(position.unit_value)} / {show(price)}"
            f" = {shares_for(position, portion, price)} (rounded down)")


def shares_held(position: Instrument) -> int:
    """Shares the part not yet exercised gives at the price in force."""
    return shares_for(position, position.remaining)


def exercised(position: Instrument, fraction: Decimal) -> tuple[Instrument, Fraction]:
    """Exercise or convert ``fraction`` of what remains (SPEC §3.3): the position left and
    the portion of the registered position exercised."""
    portion = position.remaining * exact(fraction)
    return copied(position, remaining=position.remaining - portion), portion


def repriced(position: Instrument, price: Decimal) -> Instrument:
    """The position at a new exercise or conversion price; the aggregate is unchanged."""
    # not dataclasses.replace, nor the constructor: a replay reprices every position on
    # every vesting day (records.py)
    return copied(position, price=price)
