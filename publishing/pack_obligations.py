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


def discharged_though_missed(report: Mapping[str, Any]
                             ) -> list[tuple[int, Mapping[str, Any]]]:
    """Each deadline (by its place in ``deadlines``) that is ``missed`` while the
    obligation of the same duty (the same due day, its events and maybe more: a waiver's
    consents) is ``discharged``: the two
    tables of one pack seemed to contradict each other (issue 31, item 8: keeping the
    shelf effective, violated and cured during the Effectiveness Period, is missed as a
    deadline and discharged at the period's end as an obligation; an advice waived by
    the Holders is missed and discharged by the waiver). Each table then says so."""
    obligations = [o for o in report.get("obligations", ()) if o.get("state") == "discharged"]
    out = []
    for i, d in enumerate(report.get("deadlines") or ()):
        if d.get("status") != "missed":
            continue
        match = next((o for o in obligations if o.get("due") == d.get("due")
                      and set(o.get("events") or ()) >= set(d.get("events") or ())), None)
        if match is not None:
            out.append((i, match))
    return out


def deadline_note(o: Mapping[str, Any]) -> str:
    """Why the Obligations table shows the deadline's duty ``discharged``."""
    violated = (f", after a violation from {o['violated_since']}"
                if o.get("violated_since") else "")
    return f"Obligations: discharged on {o.get('since')} ({o.get('by')}){violated}"


def obligation_note(report: Mapping[str, Any]) -> dict[str, str]:
    """The obligations' ``by`` cells saying why the Deadlines table counts them missed."""
    out = {}
    for _i, o in discharged_though_missed(report):
        why = (f"violated from {o['violated_since']}" if o.get("violated_since")
               else f"not done by its day {o.get('due')}")
        out[o["key"]] = f"{o.get('by')}; Deadlines: missed ({why})"
    return out


def obligations_section(report: Mapping[str, Any]) -> list[str]:
    """The HTML section: every obligation with its state, by due day."""
    rows = obligation_rows(report)
    notes = obligation_note(report)
    rows = [{**r, "by": notes.get(r["key"], r["by"])} for r in rows]
    out = ["<h2>Obligations and their states</h2>",
           "<p>upcoming, due, fulfilled, violated, cured, excused or discharged as of the "
           "pack's day (the full rows, with the events behind each, are in "
           f"<code>{CSV_NAME}</code>).</p>"]
    if not rows:
        return out + ["<p><i>none</i></p>"]
    from .pack_cells import cell, header

    def td(r: Mapping[str, Any], c: str) -> str:
        if r[c] in (None, ""):
            return "<td>&mdash;</td>"
        html, cls = cell(r[c], c)
        if c == "state":
            cls = f"status-{escape(str(r[c]))}"
        return f'<td class="{cls}">{html}</td>' if cls else f"<td>{html}</td>"

    head = "".join(f"<th>{escape(header(c))}</th>" for c in SHOWN)
    body = "".join("<tr>" + "".join(td(r, c) for c in SHOWN) + "</tr>" for r in rows)
    return out + [f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"]


def csv_columns() -> Sequence[str]:
    return [c for c, _ in COLUMNS]


STATE_COLOURS = {"upcoming": "#4c78a8", "due": "#1f4e8c", "fulfilled": "#2e8b57",
                 "violated": "#c0392b", "cured": "#e67e22", "excused": "#8a8f98",
                 "discharged": "#8a8f98", "unknown": "#8e44ad"}


#: the states by how much a reader must see them: a cluster of obligations is coloured
#: by its first state here
SEVERITY = ("violated", "due", "cured", "upcoming", "fulfilled", "excused", "discharged")


def due_days(report: Mapping[str, Any]) -> list[Any]:
    """The obligations' due days (the timeline's axis must reach them)."""
    from datetime import date

    return [date.fromisoformat(o["due"]) for o in report.get("obligations", ()) if o.get("due")]


def obligations_lane(report: Mapping[str, Any], lane_class: Any, within: Any = None) -> Any:
    """A timeline lane (``pack_timeline.Lane``, passed in): one mark per cluster of due
    days, coloured by its most pressing state, labelled with its days and how many are
    in each state; its tooltip names each obligation. ``within`` (a ``timedelta``): due
    days closer than that to a cluster's first day join it (issue 31, item 11: at the
    chart's scale a dozen obligations of a few weeks overlapped, their labels a
    staircase far from their marks; the Obligations table below has each one)."""
    from datetime import date, timedelta

    lane = lane_class("Obligations")
    within = within or timedelta(0)
    dated = sorted(((date.fromisoformat(o["due"]), o) for o in report.get("obligations", ())
                    if o.get("due")), key=lambda pair: pair[0])
    clusters: list[list[tuple[Any, Mapping[str, Any]]]] = []
    for due, o in dated:
        if clusters and due - clusters[-1][0][0] <= within:
            clusters[-1].append((due, o))
        else:
            clusters.append([(due, o)])
    for cluster in clusters:
        first, last = cluster[0][0], cluster[-1][0]
        states: dict[str, int] = {}
        for _due, o in cluster:
            states[o["state"]] = states.get(o["state"], 0) + 1
        worst = min(states, key=lambda s: SEVERITY.index(s) if s in SEVERITY else 99)
        counts = ", ".join(f"{n} {s}" for s, n in sorted(
            states.items(), key=lambda kv: SEVERITY.index(kv[0]) if kv[0] in SEVERITY else 99))
        if len(cluster) == 1:
            counts = cluster[0][1]["state"]
        days = first.isoformat() + (f" to {last.isoformat()[5:]}" if last != first else "")
        tip = "; ".join(f"{due}: {o['obligation']} ({o['clause']}): {o['state']}"
                        for due, o in cluster)
        lane.mark(first, STATE_COLOURS.get(worst, "#8a8f98"), tip,
                  f"{days}: {counts}" if len(cluster) > 1 else f"{days} {counts}")
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
