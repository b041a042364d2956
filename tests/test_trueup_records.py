"""``projections.trueup.records``: the replay's frozen records made and copied without
the dataclass constructor are the records the constructor and ``dataclasses.replace``
make (equal, same fields, same hash, still frozen); and ``shares_for``, now worked out
in integers, floors the exact ratio ``portion x units x unit value / price`` as the
Fraction arithmetic did, on random positions and prices."""

from __future__ import annotations

import dataclasses
import os
from datetime import date
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from projections.basis import Basis
from projections.trueup.adjustments import PriceChange
from projections.trueup.camden import Issuance
from projections.trueup.instruments import Instrument, repriced, shares_for
from projections.trueup.records import built, copied
from projections.trueup.trueup import Account, Exercise, Step

LONG = int(os.environ.get("DEAL_LEDGER_LONG", "0") or 0)
POSITION = Instrument("W-DB", "DB Capital Investors, L.P.", "warrant", "e1", date(2002, 2, 1),
                      400000, Decimal("4.00"), Decimal("4.00"))
BASIS = Basis(clause="Letter ¶3", rule="r", events=("e1",), interpretations=(),
              arithmetic="a")
EXERCISE = Exercise("e2", "WarrantsExercised", "W-DB", "DB", "warrant", date(2002, 3, 1),
                    Decimal("0.5"), Fraction(1, 2), 50000, Decimal("4.00"), 50000, True)


def _same(made, expected) -> None:
    assert made == expected
    try:
        assert hash(made) == hash(expected)
    except TypeError:   # a record holding a Basis (its inputs are a dict): neither hashes
        with pytest.raises(TypeError):
            hash(made)
    assert vars(made) == vars(expected) and type(made) is type(expected)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.__setattr__(dataclasses.fields(made)[0].name, None)


@pytest.mark.parametrize("record", [
    POSITION,
    PriceChange("W-DB", "v1", "CamdenWarrantsVested", date(2002, 9, 1), Decimal("4.00"),
                Decimal("3.91"), BASIS, ("v1", "v2")),
    Issuance("i1", "Camden", date(2002, 2, 1), 300000, Decimal("2.00"), Decimal("0"), 300000),
    Step("v1", date(2002, 9, 1), Decimal("3.91"), 51150, 50000, 1150, 1150, BASIS, ("v1",),
         None),
    Account(EXERCISE, (), (("t1", 10),), Decimal("3.91")),
    EXERCISE,
])
def test_built_and_copied_are_the_constructor_and_replace(record):
    fields = {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}
    _same(built(type(record), fields), type(record)(**fields))
    for f in dataclasses.fields(record):
        changed = {f.name: fields[f.name] if f.name == "date" else None}
        _same(copied(record, **changed), dataclasses.replace(record, **changed))
    assert copied(record) is not record and copied(record) == record


PRICES = st.decimals(min_value=Decimal("0.0001"), max_value=Decimal("1000"), places=4,
                     allow_nan=False, allow_infinity=False)


@settings(max_examples=300 * (10 if LONG else 1), derandomize=True, deadline=None)
@given(units=st.integers(1, 10**7), unit_value=PRICES, price=PRICES,
       portion=st.fractions(min_value=0, max_value=1, max_denominator=10**6))
def test_shares_for_in_integers_floors_the_exact_ratio(units, unit_value, price, portion):
    position = dataclasses.replace(POSITION, units=units, unit_value=unit_value)
    exact = portion * units * Fraction(unit_value) / Fraction(price)   # the definition
    assert shares_for(position, portion, price) == exact.numerator // exact.denominator
    assert shares_for(repriced(position, price), portion) == shares_for(position, portion,
                                                                         price)


def test_shares_for_the_worked_example():
    # 40,000 Warrants at 3.00 repriced to 2.9286: 40000 x 3.00 / 2.9286 = 40,975.2...,
    # rounded down: 40,975 shares
    position = dataclasses.replace(POSITION, units=40000, unit_value=Decimal("3.00"))
    assert shares_for(position, Fraction(1), Decimal("2.9286")) == 40975


@settings(max_examples=300 * (10 if LONG else 1), derandomize=True, deadline=None)
@given(issued=st.integers(1, 10**7), share=st.floats(0, 1), price=PRICES,
       consideration=st.decimals(min_value=0, max_value=10**7, places=2, allow_nan=False,
                                 allow_infinity=False))
def test_a_tranches_paid_in_integers_is_the_exact_ratio(issued, share, price,
                                                        consideration):
    from projections.trueup.camden import Tranche

    c = max(0, min(issued, int(issued * share)))
    tranche = Tranche(Issuance("i1", "Camden", date(2002, 2, 1), issued, price,
                               consideration, issued), c)
    # SPEC §5.2: C x Camden exercise price + consideration x C / warrants issued
    exact = c * Fraction(price) + Fraction(consideration) * c / issued
    n, d = tranche.paid
    assert d > 0 and Fraction(n, d) == exact


def test_a_tranches_paid_worked_by_hand():
    from projections.trueup.camden import Tranche

    # 300,000 issued at 2.00 for 30,000 paid; 100,000 vest:
    # 100000 x 2.00 + 30000 x 100000 / 300000 = 200,000 + 10,000 = 210,000
    tranche = Tranche(Issuance("i1", "Camden", date(2002, 2, 1), 300000, Decimal("2.00"),
                               Decimal("30000"), 300000), 100000)
    n, d = tranche.paid
    assert Fraction(n, d) == 210000
