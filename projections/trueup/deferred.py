"""The anti-dilution still deferred (Letter ¶2, SPEC §5.3).

For each position not yet fully exercised or converted: the price and share count it would
have if every Camden Warrant still able to vest (issued, neither vested nor cancelled)
became a Vested Warrant on ``as_of``. The what-if vests every issuance's unvested warrants
on that one day, so, as for real vestings of one day, they are one adjustment (SPEC
§5.2: their ``C`` and ``B`` summed, the price rounded once), with the deal's formula and
the capitalization in force on ``as_of``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..basis import Basis
from ..worked import Step as Operation, Worked
from . import adjustments, camden, instruments
from .arithmetic import show
from .replay import History


@dataclass(frozen=True)
class Deferred:
    instrument: str
    price: Decimal | None        # None: the weighted average needs a capitalization
    shares: int | None
    basis: Basis


def if_all_vest(history: History) -> dict[str, Deferred]:
    """Per held position, the price and shares if every unvested Camden Warrant vested on
    ``as_of`` (Letter ¶2 "as the Camden Warrants become Vested Warrants")."""
    tranches = camden.unvested(history.book)
    terms, day = history.terms, history.as_of
    out = {}
    for name, position in history.positions.items():
        if not position.held:
            continue
        parts, now, computable = [], position, True
        if tranches:
            change = adjustments.camden_adjustment(now, tranches, (), day,
                                                   history.capitalization, terms.formula,
                                                   terms.price_decimals)
            if change is None:
                computable = False
            else:
                parts.append(change.basis)
                now = instruments.repriced(now, change.after)
        rule = (f"the adjustment still deferred: the price and shares if every unvested Camden "
                f"Warrant ({sum(t.warrants for t in tranches)}) became a Vested Warrant on "
                f"{day.isoformat()}")
        if not computable:
            basis = Basis(clause="Letter ¶2", rule=rule,
                          arithmetic=Worked("no capitalization recorded on or before as_of: "
                                            "the weighted average cannot be computed", ()))
            out[name] = Deferred(name, None, None, basis)
            continue
        shares = instruments.shares_held(now)
        text = Worked(f"price {show(position.price)} → {show(now.price)}; shares "
                      f"{instruments.shares_held(position)} → {shares}",
                      (instruments.shares_step(position), instruments.shares_step(now),
                       *(() if parts else (Operation(   # no vesting would change the price
                           "sum", (position.price,), now.price, "the price stays"),))))
        basis = Basis(clause=f"Letter ¶2; {position.clause}", rule=rule,
                      events=tuple(t.issuance.event for t in tranches), arithmetic=text,
                      parts=tuple(parts))
        out[name] = Deferred(name, now.price, shares, basis)
    return out
