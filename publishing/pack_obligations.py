"""The obligations of a deal in the auditor pack (issue 16): ``obligations.csv`` and a
section of ``index.html``, from the report's ``obligations``
(``projections.obligations``). Kept apart from ``pack.py`` and ``pack_html.py`` so that
their owners' changes and this one merge cleanly.

``COLUMNS`` (name, SQL type) is also the schema proposed for an ``obligations`` table
in the views file (``publishing.readmodels``): one row per obligation of a deal as of
the views' day, ``obligation_rows(report)`` giving the rows (add a ``deal`` column).
"""

from __future__ import annotations

from html import escape
from typing import Any, Mapping, Sequence

COLUMNS: tuple[tuple[str, str], ...] = (
    ("key", "TEXT"), ("kind", "TEXT"), ("obligation", "TEXT"), ("clause", "TEXT"),
    ("party", "TEXT"), ("holder", "TEXT"), ("due", "TEXT"), ("state", "TEXT"),
    ("since", "TEXT"), ("by", "TEXT"), ("by_event", "TEXT"), ("violated_since", "TEXT"),
    ("cured_on", "TEXT"), ("triggered", "TEXT"), ("amount", "TEXT"), ("shares", "INTEGER"),
    ("interpretations", "TEXT"), ("events", "TEXT"))
CSV_NAME = "obligations.csv"
SHOWN = ("due", "state", "since", "obligation", "clause", "by", "triggered")


def obligation_rows(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per obligation: lists joined with ``; `` (events with spaces), the
    interpretations as ``name=value``."""
    rows = []
    for o in report.get("obligations", ()):
        row = {c: o.get(c) for c, _ in COLUMNS}
        row["triggered"] = "; ".join(o.get("triggered") or ())
        row["interpretations"] = " ".join(f"{k}={v}" for k, v in
                                          (o.get("interpretations") or {}).items())
        row["events"] = list(o.get("events") or ())
        rows.append(row)
    return rows


def obligations_section(report: Mapping[str, Any]) -> list[str]:
    """The HTML section: every obligation with its state, by due day."""
    rows = obligation_rows(report)
    out = ["<h2>Obligations and their states</h2>",
           "<p>upcoming, due, fulfilled, violated, cured, excused or discharged as of the "
           "pack's day (the full rows, with the events behind each, are in "
           f"<code>{CSV_NAME}</code>).</p>"]
    if not rows:
        return out + ["<p><i>none</i></p>"]
    from .pack_html import _cell, header

    def cell(r: Mapping[str, Any], c: str) -> str:
        if r[c] in (None, ""):
            return "<td>&mdash;</td>"
        html, cls = _cell(r[c], c)
        if c == "state":
            cls = f"status-{escape(str(r[c]))}"
        return f'<td class="{cls}">{html}</td>' if cls else f"<td>{html}</td>"

    head = "".join(f"<th>{escape(header(c))}</th>" for c in SHOWN)
    body = "".join("<tr>" + "".join(cell(r, c) for c in SHOWN) + "</tr>" for r in rows)
    return out + [f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"]


def csv_columns() -> Sequence[str]:
    return [c for c, _ in COLUMNS]


STATE_COLOURS = {"upcoming": "#4c78a8", "due": "#1f4e8c", "fulfilled": "#2e8b57",
                 "violated": "#c0392b", "cured": "#e67e22", "excused": "#8a8f98",
                 "discharged": "#8a8f98", "unknown": "#8e44ad"}


def obligations_lane(report: Mapping[str, Any], lane_class: Any) -> Any:
    """A timeline lane (``pack_timeline.Lane``, passed in): one mark per due day,
    kind and state, coloured by state, its tooltip naming how many and which clause
    (a 1,000-Holder deal's payment obligations share one mark per date)."""
    lane = lane_class("Obligations")
    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
    for o in report.get("obligations", ()):
        if o.get("due"):
            groups.setdefault((o["due"], o["kind"], o["state"]), []).append(o)
    from datetime import date

    for (due, kind, state), rows in sorted(groups.items()):
        first = rows[0]
        tip = (f"{due}: {first['obligation']} ({first['clause']}): {state}" if len(rows) == 1
               else f"{due}: {len(rows)} obligations {kind} ({first['clause']}): {state}")
        text = f"{due} {state}" + (f" ×{len(rows)}" if len(rows) > 1 else "")
        lane.mark(date.fromisoformat(due), STATE_COLOURS.get(state, "#8a8f98"), tip, text)
    return lane


def obligations_legend(report: Mapping[str, Any]) -> str:
    """The Obligations lane's colours, one per state the deal's obligations are in (the
    lane's marks are coloured by state; the deal's legend named none of them)."""
    states = {o.get("state") for o in report.get("obligations", ()) if o.get("due")}
    shown = [s for s in STATE_COLOURS if s in states]
    if not shown:
        return ""
    spans = "".join(f'<span><i class="sw" style="background:{STATE_COLOURS[s]};'
                    f'border-radius:6px"></i>{escape(s)}</span>' for s in shown)
    return f'<p class="legend"><span>Obligations:</span>{spans}</p>'
