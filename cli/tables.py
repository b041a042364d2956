"""The rows each report view writes with ``--csv``: one table per view, its exact values
(amounts as the report's decimal strings, ISO dates, lists of event ids space-separated).
The registration views reuse the schedule tables of the auditor pack and the views file
(``publishing.readmodels.SCHEDULES``), so a column means the same everywhere."""

from __future__ import annotations

from typing import Any


def _schedule(name: str, result: dict[str, Any]) -> tuple[tuple[str, ...], list[dict]]:
    from publishing.readmodels import SCHEDULES, schedule_rows

    return tuple(c for c, _ in SCHEDULES[name]), schedule_rows(result)[name]


def _consents(result: dict[str, Any]) -> tuple[tuple[str, ...], list[dict]]:
    rows = [{"matter": matter, "consenting": m.get("consenting"), "outstanding": m.get("total"),
             "share": m.get("share"), "majority": m.get("majority"),
             "holders": m.get("holders") or []}
            for matter, m in (result.get("majority") or {}).items()]
    return ("matter", "consenting", "outstanding", "share", "majority", "holders"), rows


def _trueup(result: dict[str, Any]) -> tuple[tuple[str, ...], list[dict]]:
    holders = ((result.get("true_up") or {}).get("holders") or {})
    rows = [{"holder": name, **{k: h.get(k) for k in ("owed", "issued", "outstanding")}}
            for name, h in holders.items()]
    return ("holder", "owed", "issued", "outstanding"), rows


INSTRUMENT_COLUMNS = ("instrument", "holder", "kind", "price", "shares", "exercised_fraction",
                      "deferred_price_if_all_vest", "deferred_shares_if_all_vest")


def _instruments(result: dict[str, Any]) -> tuple[tuple[str, ...], list[dict]]:
    rows = list((result.get("true_up") or {}).get("instruments") or [])
    return INSTRUMENT_COLUMNS, rows


VIEW_ROWS = {
    "status": lambda r: _schedule("defaults", r),
    "interest": lambda r: _schedule("payments", r),
    "suspensions": lambda r: _schedule("suspension_periods", r),
    "deadlines": lambda r: _schedule("deadlines", r),
    "consents": _consents,
    "trueup": _trueup,
    "instruments": _instruments,
}


def view_rows(name: str, result: dict[str, Any]) -> tuple[tuple[str, ...], list[dict]]:
    """``(columns, rows)`` of the view ``name`` of a report."""
    return VIEW_ROWS[name](result)
