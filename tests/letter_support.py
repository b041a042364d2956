"""Builders shared by the letter's scenario tests: a deal ``ltr`` of the
``infocrossing-letter-2002`` template, its parties, and its true-up report."""

from __future__ import annotations

from datetime import date

from projections.interpretations import resolve
from projections.timeline import build_timeline
from projections.trueup.report import build as true_up_report
from tests.support import build, ev

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
