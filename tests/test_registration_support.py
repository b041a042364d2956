"""Builders shared by the Registration Rights tests (no tests here).

``rra(...)`` opens the Infocrossing deal with Lehman Brothers Inc. holding $60,000,000 from
the Closing Date; ``report(events, as_of, **readings)`` runs the engine as the CLI would.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from projections.interpretations import resolve
from projections.registration.report import build as build_report
from projections.timeline import build_timeline
from tests.support import build, d, ev, opened

LEHMAN = "Lehman Brothers Inc."
CENT = Decimal("0.01")
EFFECTIVE = [ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-10-01")]
# three Suspension Periods, each within its own 45 days, 55 days in the 90 days to 2005-05-30
THREE_SHORT = [*EFFECTIVE,
               ev("SuspensionStarted", "2005-03-01", material_transaction=False),
               ev("SuspensionEnded", "2005-03-21"),            # 20 days
               ev("SuspensionStarted", "2005-04-01", material_transaction=False),
               ev("SuspensionEnded", "2005-04-16"),            # 15 days
               ev("SuspensionStarted", "2005-05-01", material_transaction=False),
               ev("SuspensionEnded", "2005-05-21")]            # 20 days


def rra(*objs: dict[str, Any], holders: dict[str, str] | None = None,
        **terms: Any) -> list[dict[str, Any]]:
    """DealOpened (terms optionally changed), NotesIssued on 2004-06-30, then ``objs``."""
    issued = [ev("NotesIssued", "2004-06-30", holder=h, principal=p)
              for h, p in (holders or {LEHMAN: "60000000"}).items()]
    return [opened(**terms), *issued, *objs]


def report(objs: list[dict[str, Any]], as_of: str | date, **readings: str) -> dict[str, Any]:
    as_of = d(as_of) if isinstance(as_of, str) else as_of
    return build_report(build_timeline(build(objs), as_of), resolve(readings))


def money(x: Decimal) -> str:
    """A hand-worked exact amount rounded once, half-up, to the cent, as the report
    writes it."""
    from decimal import ROUND_HALF_UP
    return str(Decimal(x).quantize(CENT, rounding=ROUND_HALF_UP))


def payment(rep: dict[str, Any], payment_date: str) -> dict[str, Any]:
    found = [p for p in rep["additional_interest"]["payments"] if p["payment_date"] == payment_date]
    assert found, f"no payment entry for {payment_date}: " + str(
        [p["payment_date"] for p in rep["additional_interest"]["payments"]])
    return found[0]


def deadline(rep: dict[str, Any], starts: str) -> dict[str, Any]:
    found = [o for o in rep["deadlines"] if o["obligation"].startswith(starts)]
    assert len(found) == 1, [o["obligation"] for o in rep["deadlines"]]
    return found[0]
