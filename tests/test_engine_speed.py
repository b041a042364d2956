"""The engine's fast paths give what the plain rules give (issue 17, ENGINE).

A replay computes each vesting day's new price in integers and leaves the explanation to
a ``LazyBasis``; these tests hold the fast price to ``weighted_average`` /
``full_ratchet`` (the rule as written, in ``Fraction``) on random tranches, and the lazy
basis to the eager one.
"""

from __future__ import annotations

import os
import pickle
from datetime import date
from decimal import Decimal

from hypothesis import given, settings, strategies as st

from projections.basis import Basis, LazyBasis
from projections.trueup import adjustments
from projections.trueup.camden import Issuance, Tranche
from projections.trueup.instruments import Instrument

EXAMPLES = 200 * (20 if os.environ.get("DEAL_LEDGER_LONG") else 1)


def test_lazy_basis_is_built_once_and_reads_as_the_basis():
    made = []
    eager = Basis("Letter ¶2", "a rule", ("e1",), ("trueup_dividends",), "1 + 1 = 2",
                  {"A": 1, "P": Decimal("2.50")})

    def build() -> Basis:
        made.append(1)
        return eager

    lazy = LazyBasis(build)
    assert made == []                       # nothing is built until read
    assert lazy.clause == "Letter ¶2" and lazy.events == ("e1",)
    assert lazy.to_json({"trueup_dividends": "frozen"}) == eager.to_json(
        {"trueup_dividends": "frozen"})
    assert lazy == eager and eager == lazy and repr(lazy) == repr(eager)
    assert pickle.loads(pickle.dumps(lazy)) == eager
    assert made == [1]                      # once


prices = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("50"), places=4,
                     allow_nan=False, allow_infinity=False)
tranche = st.builds(
    lambda price, issued, part, paid: Tranche(
        Issuance("c1", "Camden", date(2002, 2, 1), issued, price, paid, issued),
        max(1, issued * part // 100)),
    prices, st.integers(1, 2_000_000), st.integers(1, 100),
    st.decimals(min_value=0, max_value=100_000, places=2, allow_nan=False,
                allow_infinity=False))


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None)
@given(price=prices, a=st.integers(1, 50_000_000), tranches=st.lists(tranche, min_size=1,
                                                                     max_size=4),
       decimals=st.integers(0, 6))
def test_fast_prices_are_the_rules_prices(price, a, tranches, decimals):
    worked, *_ = adjustments.weighted_average(price, a, tranches, decimals)
    fast = adjustments.weighted_average_price(price, a, tranches, decimals)
    assert fast == worked and str(fast) == str(worked)     # same value, same digits
    ratchet, *_ = adjustments.full_ratchet(price, tranches, decimals)
    fast = adjustments.ratchet_price(price, tranches, decimals)
    assert fast == ratchet and str(fast) == str(ratchet)


def test_a_price_change_basis_is_the_eager_basis():
    # A = 10,000,000; C = 100,000 at 2.00; P = 3.00: B = 200,000 / 3 = 66,666.67 shares;
    # P' = 3 × (10,000,000 + 66,666.67) / (10,100,000) = 2.990099… → 2.9901 (4 decimals)
    position = Instrument("W-1", "Holder", "warrant", "e1", date(2002, 2, 1), 40_000,
                          Decimal("3.00"), Decimal("3.00"))
    tranches = (Tranche(Issuance("c1", "Camden", date(2002, 2, 1), 100_000, Decimal("2.00"),
                                 Decimal(0), 100_000), 100_000),)
    cap = adjustments.Capitalization(10_000_000, "cap1", date(2002, 1, 1))
    change = adjustments.camden_adjustment(position, tranches, ("v1",), date(2003, 1, 1), cap,
                                           "weighted_average_broad", 4)
    assert change.after == Decimal("2.9901")
    assert isinstance(change.basis, LazyBasis)
    eager = adjustments.camden_basis(position, tranches, ("v1",), cap,
                                     "weighted_average_broad", 4, Decimal("3.00"),
                                     Decimal("2.9901"))
    assert change.basis == eager and change.basis.inputs["P'"] == Decimal("2.9901")


def test_business_days_are_remembered_per_calendar_not_across_calendars():
    from ledger.calendar import FED, BusinessCalendar, Override

    # RRA §10(E) by mail, 5 Business Days: Wed 2004-11-24 + Thu 25 (Thanksgiving, closed)
    # -> Fri 26, Mon 29, Tue 30, Wed Dec 1, Thu Dec 2
    assert BusinessCalendar.from_overrides([]) is FED
    assert FED.add_business_days(date(2004, 11, 24), 5) == date(2004, 12, 2)
    assert FED.add_business_days(date(2004, 11, 24), 5) == date(2004, 12, 2)   # remembered
    # the same question of a calendar that declares Fri 2004-11-26 closed: Mon 29, Tue 30,
    # Wed 1, Thu 2, Fri 3 (the Fed calendar's answer is not reused)
    closed = BusinessCalendar.from_overrides([Override(date(2004, 11, 26), False, "storm")])
    assert closed.add_business_days(date(2004, 11, 24), 5) == date(2004, 12, 3)
    assert FED.add_business_days(date(2004, 11, 24), 5) == date(2004, 12, 2)
    assert closed == BusinessCalendar({date(2004, 11, 26): Override(date(2004, 11, 26), False,
                                                                    "storm")})


def test_a_true_up_explanation_written_late_reads_the_replays_interpretations():
    from projections.interpretations import resolve
    from projections.timeline import build_timeline
    from projections.trueup.replay import replay
    from publishing.demo import letter_history
    from tests.support import build

    events = build([{**o, "deal": "letter"} for o in letter_history()])
    readings = resolve({"trueup_dividends": "frozen"})
    history = replay(build_timeline(events, date(2010, 1, 1)), readings)
    steps = [s for acc in history.accounts for s in acc.steps]
    assert steps, "the demo Letter deal has true-up steps"
    readings["trueup_dividends"] = "to_vesting_date"   # the caller's dict changes later
    assert all("trueup_dividends = frozen" in s.basis.rule for s in steps)
