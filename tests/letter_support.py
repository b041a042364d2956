"""Builders shared by the letter's scenario tests: a deal ``ltr`` of the
``infocrossing-letter-2002`` template, its parties, and its true-up report."""

from __future__ import annotations

from datetime import date

from projections.interpretations import resolve
from projections.timeline import build_timeline
from projections.trueup.report import build as true_up_report
from tests.support import build, ev, opened

DEAL = "ltr"
DB = "DB Capital Investors, L.P."
CAMDEN = "Camden Partners Strategic Fund II-A, L.P."


def e(type_: str, day: str, **data) -> dict:
    return ev(type_, day, deal=DEAL, **data)


def report(objs: list[dict], **interpret) -> dict:
    """The ``true_up`` part of the report as of 2010-01-01, readings ``interpret``."""
    timeline = build_timeline(build(objs), date(2010, 1, 1))
    return true_up_report(timeline, resolve(interpret))["true_up"]


def one(rows: list[dict], **match) -> dict:
    [row] = [r for r in rows if all(r.get(k) == v for k, v in match.items())]
    return row


def camden_137(*tranches: int) -> list[dict]:
    """P 3.00 (W: 1,000,000 shares, aggregate 3,000,000, exercised whole 2002-06-01 for
    1,000,000 shares), A 9,876,543, Camden 1,000,000 at 1.37 vesting on 2002-09-01."""
    return [opened(DEAL, "infocrossing-letter-2002"),
            e("CapitalizationRecorded", "2002-02-01", common_outstanding=9_876_543),
            e("CamdenWarrantsIssued", "2002-02-01", holder=CAMDEN, warrants=1_000_000,
              exercise_price="1.37"),
            e("InstrumentRegistered", "2002-03-01", instrument="W", holder=DB,
              kind="warrant", shares=1_000_000, exercise_price="3.00"),
            e("WarrantsExercised", "2002-06-01", instrument="W", fraction="1",
              shares_issued=1_000_000),
            *(e("CamdenWarrantsVested", "2002-09-01", holder=CAMDEN, warrants=n)
              for n in tranches)]
