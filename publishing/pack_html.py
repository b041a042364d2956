"""``index.html`` of the auditor pack: ONE self-contained page.

Everything is inline: the CSS in a ``<style>``, the timeline as an ``<svg>`` (HTML5
inline SVG needs no namespace URL), tooltips as SVG ``<title>``. No script, no font, no
image, no ``src`` or ``href`` at all, so the page opens the same with no network and
cannot leak that it was opened. ``render`` is pure: the same report and events give the
same bytes, so ``verify --pack`` can re-render it and compare.
"""

from __future__ import annotations

from datetime import date, timedelta
from html import escape
from typing import Any, Iterable, Mapping, Sequence

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;
color:#1d2330;background:#fff;max-width:1200px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px
solid #d6dae3;padding-bottom:3px}
.sub{color:#5b6475;margin:0 0 14px}.warn{background:#fff6dd;border:1px solid #e9cf7f;
padding:6px 10px;border-radius:4px}
table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}
th,td{border:1px solid #d6dae3;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f1f3f7;font-weight:600}td.n{text-align:right;font-variant-numeric:
tabular-nums}code,.h{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
font-size:12px}.h{word-break:break-all}
.status-missed,.status-underpaid,.status-due{color:#a4161a;font-weight:600}
.status-met,.status-paid{color:#1b7f3b}.status-open,.status-accruing{color:#8a5a00}
.retracted td{text-decoration:line-through;color:#8a8f99}
svg{background:#fbfcfe;border:1px solid #d6dae3;border-radius:4px}
.legend span{display:inline-block;margin-right:14px}.sw{display:inline-block;width:11px;
height:11px;margin-right:4px;vertical-align:-1px;border-radius:2px}
"""

COLOURS = {"default": "#d1495b", "suspension": "#edae49", "period": "#cfe3f6",
           "filed": "#00798c", "effective": "#30638e", "deadline": "#1d2330",
           "payment": "#6a4c93", "vesting": "#2a9d8f", "exercise": "#e76f51",
           "ineligible": "#9aa1ad", "cutoff": "#a4161a", "trueup": "#264653",
           "asof": "#5b6475"}


def render(report: Mapping[str, Any], records: Sequence[Mapping[str, Any]],
           rows: Mapping[str, Sequence[Mapping[str, Any]]], info: Mapping[str, Any]) -> str:
    """The page: header, timeline, the deal's tables, the events, how to verify."""
    kind = report["kind"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(report['deal'])}: auditor pack as of {escape(info['as_of'])}"
        "</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{escape(report['deal'])}</h1>",
        f'<p class="sub">{escape(_deal_name(records))} &middot; {escape(kind)} &middot; '
        f"as of <b>{escape(info['as_of'])}</b>"
        + (f" &middot; as known at <b>{escape(info['known_at'])}</b>" if info["known_at"]
           else " &middot; everything recorded")
        + f" &middot; deal-ledger {escape(str(info['version']))}</p>",
    ]
    if any("ILLUSTRATIVE" in str(r.get("source", "")) for r in records):
        parts.append('<p class="warn">Some events are marked ILLUSTRATIVE in their source: '
                     "they are not the real deal's history.</p>")
    parts.append("<h2>Timeline</h2>")
    parts.append(timeline_svg(report, records, info))
    if kind == "registration_rights":
        parts.extend(_registration(report, rows))
    else:
        parts.extend(_true_up(report, rows))
    from .pack_obligations import obligations_section

    parts.extend(obligations_section(report))
    parts.extend(_interpretations(info["interpretations"]))
    parts.extend(_events(records, set(info.get("retracted", ()))))
    parts.extend(_verification(info, records))
    parts.append("</body></html>\n")
    return "\n".join(parts)


# ------------------------------------------------------------------------- timeline


def _d(text: Any) -> date | None:
    if not text:
        return None
    try:
        return date.fromisoformat(str(text)[:10])
    except ValueError:
        return None


class _Lane:
    def __init__(self, label: str):
        self.label = label
        self.bars: list[tuple[date, date, str, str]] = []     # start, end, colour, tip
        self.marks: list[tuple[date, str, str, str]] = []     # day, colour, shape, tip

    def bar(self, start: date | None, end: date | None, colour: str, tip: str) -> None:
        if start is not None and end is not None:
            self.bars.append((start, max(end, start), colour, tip))

    def mark(self, day: date | None, colour: str, tip: str, shape: str = "dot") -> None:
        if day is not None:
            self.marks.append((day, colour, shape, tip))

    def days(self) -> Iterable[date]:
        for s, e, *_ in self.bars:
            yield s
            yield e
        for d, *_ in self.marks:
            yield d


def _registration_lanes(report: Mapping[str, Any], as_of: date) -> list[_Lane]:
    reg = report.get("registration") or {}
    shelf = _Lane("Shelf")
    shelf.bar(_d(reg.get("effective_on")), _d(reg.get("effectiveness_period_end")) or as_of,
              COLOURS["period"], "Effectiveness Period "
              f"{reg.get('effective_on')} to {reg.get('effectiveness_period_end') or '...'}")
    shelf.mark(_d(reg.get("filing_deadline")), COLOURS["deadline"],
               f"filing deadline {reg.get('filing_deadline')} (RRA §2(a)(i))", "diamond")
    shelf.mark(_d(reg.get("effectiveness_deadline")), COLOURS["deadline"],
               f"effectiveness deadline {reg.get('effectiveness_deadline')} (RRA §2(a)(ii))",
               "diamond")
    shelf.mark(_d(reg.get("filed_on")), COLOURS["filed"], f"filed {reg.get('filed_on')}")
    shelf.mark(_d(reg.get("effective_on")), COLOURS["effective"],
               f"declared effective {reg.get('effective_on')}")
    defaults = _Lane("Registration Defaults")
    for d in reg.get("defaults", []):
        start = _d(d.get("accrual_from"))
        end = _d(d.get("accrual_until")) or _d(d.get("cured_on")) or as_of + timedelta(1)
        defaults.bar(start, end, COLOURS["default"],
                     f"{d.get('clause')}: default date {d.get('default_date')}, accrues "
                     f"{d.get('accrual_from')} to {d.get('accrual_until') or 'as of'} "
                     f"(exclusive), cured {d.get('cured_on') or 'not yet'}")
    suspensions = _Lane("Suspension Periods")
    for p in (report.get("suspensions") or {}).get("periods", []):
        end = _d(p.get("end")) or as_of + timedelta(1)
        suspensions.bar(_d(p.get("start")), end, COLOURS["suspension"],
                        f"Suspension Period {p.get('start')} to {p.get('end') or 'open'}: "
                        f"{p.get('days')} days"
                        + (" (material transaction)" if p.get("material_transaction") else ""))
    payments = _Lane("Interest Payment Dates")
    for p in (report.get("additional_interest") or {}).get("payments", []):
        payments.mark(_d(p.get("paid_on")) or _d(p.get("payment_date")), COLOURS["payment"],
                      f"{p.get('payment_date')} (paid on {p.get('paid_on')}): total "
                      f"{p.get('total')}, paid {p.get('paid_total', '')}, {p.get('status')}")
    return [shelf, defaults, suspensions, payments]


def _true_up_lanes(report: Mapping[str, Any], records: Sequence[Mapping[str, Any]]
                   ) -> list[_Lane]:
    t = report.get("true_up") or {}
    cutoff = _Lane("True-up cutoff")
    cutoff.mark(_d(t.get("true_up_cutoff")), COLOURS["cutoff"],
                f"exercises and conversions before {t.get('true_up_cutoff')} earn true-ups "
                "(Letter ¶3)", "diamond")
    vestings = _Lane("Camden vestings")
    for v in t.get("vestings", []):
        vestings.mark(_d(v.get("date")), COLOURS["vesting"],
                      f"{v.get('date')}: {v.get('holder')} {v.get('warrants')} Camden "
                      "Warrants vested")
    exercises = _Lane("Exercises / conversions")
    for e in t.get("exercises", []):
        exercises.mark(_d(e.get("date")),
                       COLOURS["exercise"] if e.get("eligible") else COLOURS["ineligible"],
                       f"{e.get('date')}: {e.get('instrument')} ({e.get('holder')}) "
                       f"{e.get('type')}, {'eligible' if e.get('eligible') else 'not eligible'}"
                       f", owed {e.get('owed')}")
    issued = _Lane("True-up shares issued")
    for r in records:
        if r["type"] == "TrueUpSharesIssued":
            issued.mark(_d(r["date"]), COLOURS["trueup"],
                        f"{r['date']}: {r['data'].get('shares')} true-up shares for "
                        f"{r['data'].get('instrument')}")
    return [cutoff, vestings, exercises, issued]


def timeline_svg(report: Mapping[str, Any], records: Sequence[Mapping[str, Any]],
                 info: Mapping[str, Any]) -> str:
    """An inline SVG: one lane per kind of fact, bars for periods, marks for days."""
    as_of = date.fromisoformat(info["as_of"])
    opened = max(((r["seq"], _d(r["date"])) for r in records if r["type"] == "DealOpened"),
                 default=(0, None))[1] or min(_d(r["date"]) for r in records)
    if report["kind"] == "registration_rights":
        lanes = _registration_lanes(report, as_of)
    else:
        lanes = _true_up_lanes(report, records)
    from .pack_obligations import obligations_lane

    lanes.append(obligations_lane(report, _Lane))
    days = [d for lane in lanes for d in lane.days()] + [opened]
    lo = min(days)
    hi = max(max(days), lo + timedelta(days=30))
    if as_of >= lo:
        hi = max(hi, min(as_of, hi + timedelta(days=365)))
    span = (hi - lo).days or 1
    left, width, lane_h, top = 170, 960, 30, 26
    height = top + lane_h * len(lanes) + 30

    def x(day: date) -> float:
        day = min(max(day, lo), hi)
        return round(left + (day - lo).days * (width - left - 40) / span, 1)

    out = [f'<svg role="img" viewBox="0 0 {width} {height}" width="{width}" '
           f'height="{height}" aria-label="timeline of {escape(report["deal"])}">',
           f"<title>Timeline of {escape(report['deal'])} as of {as_of.isoformat()}</title>"]
    years = range(lo.year + 1, hi.year + 1)
    step = 1 if len(years) <= 16 else 5
    for year in years:
        if year % step:
            continue
        gx = x(date(year, 1, 1))
        out.append(f'<line x1="{gx}" y1="{top - 6}" x2="{gx}" y2="{height - 24}" '
                   'stroke="#e3e6ec"/>')
        out.append(f'<text x="{gx}" y="{height - 10}" font-size="11" text-anchor="middle" '
                   f'fill="#5b6475">{year}</text>')
    for i, lane in enumerate(lanes):
        y = top + i * lane_h
        out.append(f'<text x="8" y="{y + 15}" font-size="12" fill="#1d2330">'
                   f"{escape(lane.label)}</text>")
        out.append(f'<line x1="{left}" y1="{y + lane_h / 2}" x2="{width - 12}" '
                   f'y2="{y + lane_h / 2}" stroke="#eef0f4"/>')
        for start, end, colour, tip in lane.bars:
            bx, bw = x(start), max(x(end) - x(start), 2)
            out.append(f'<rect x="{bx}" y="{y + 7}" width="{round(bw, 1)}" height="16" '
                       f'rx="2" fill="{colour}" opacity="0.85"><title>{escape(tip)}'
                       "</title></rect>")
        for day, colour, shape, tip in lane.marks:
            mx, my = x(day), y + lane_h / 2
            if shape == "diamond":
                pts = f"{mx},{my - 7} {mx + 6},{my} {mx},{my + 7} {mx - 6},{my}"
                out.append(f'<polygon points="{pts}" fill="none" stroke="{colour}" '
                           f'stroke-width="1.6"><title>{escape(tip)}</title></polygon>')
            else:
                out.append(f'<circle cx="{mx}" cy="{my}" r="5" fill="{colour}">'
                           f"<title>{escape(tip)}</title></circle>")
    for lane in lanes:  # a cutoff or deadline marked as a diamond also rules the chart
        for day, colour, shape, tip in lane.marks:
            if shape == "diamond" and lane.label == "True-up cutoff":
                rx = x(day)
                out.append(f'<line x1="{rx}" y1="{top}" x2="{rx}" y2="{height - 24}" '
                           f'stroke="{colour}" stroke-dasharray="2 3"><title>{escape(tip)}'
                           "</title></line>")
    if lo <= as_of <= hi:
        ax = x(as_of)
        out.append(f'<line x1="{ax}" y1="{top - 8}" x2="{ax}" y2="{height - 24}" '
                   f'stroke="{COLOURS["asof"]}" stroke-dasharray="4 3"/>')
        anchor = "end" if ax > width - 90 else "middle"
        out.append(f'<text x="{ax}" y="{top - 11}" font-size="11" text-anchor="{anchor}" '
                   f'fill="{COLOURS["asof"]}">as of {as_of.isoformat()}</text>')
    out.append("</svg>")
    out.append(_legend(report["kind"]))
    return "\n".join(out)


def _legend(kind: str) -> str:
    if kind == "registration_rights":
        items = [("default", "Registration Default (accrual)"), ("suspension",
                 "Suspension Period"), ("period", "Effectiveness Period"),
                 ("filed", "filed"), ("effective", "declared effective"),
                 ("payment", "Interest Payment Date")]
    else:
        items = [("vesting", "Camden vesting"), ("exercise", "eligible exercise"),
                 ("ineligible", "not eligible"), ("trueup", "true-up issued")]
    spans = "".join(f'<span><i class="sw" style="background:{COLOURS[k]}"></i>'
                    f"{escape(t)}</span>" for k, t in items)
    return f'<p class="legend">{spans}<span>&#9671; deadline / cutoff</span></p>'


# --------------------------------------------------------------------------- tables


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return " ".join(_short(v) for v in value)
    return escape(str(value))


def _short(event_id: Any) -> str:
    text = str(event_id)
    return f'<code title="{escape(text)}">{escape(text[:8])}</code>'


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str],
          numeric: Iterable[str] = (), empty: str = "none") -> str:
    if not rows:
        return f"<p><i>{escape(empty)}</i></p>"
    numeric = set(numeric)
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = []
    for row in rows:
        cells = []
        for c in columns:
            value = row.get(c)
            cls = ' class="n"' if c in numeric else ""
            if c == "status" and value:
                cls = f' class="status-{escape(str(value))}"'
            cells.append(f"<td{cls}>{_cell(value)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _kv(pairs: Sequence[tuple[str, Any]]) -> str:
    return table([{"item": k, "value": v} for k, v in pairs], ["item", "value"])


def _registration(report: Mapping[str, Any], rows: Mapping[str, Sequence[Mapping[str, Any]]]
                  ) -> list[str]:
    reg = report.get("registration") or {}
    ai = report.get("additional_interest") or {}
    s = report.get("suspensions") or {}
    out = ["<h2>Registration</h2>", _kv([
        ("filing deadline (RRA §2(a)(i))", reg.get("filing_deadline")),
        ("filed on", reg.get("filed_on")),
        ("effectiveness deadline (RRA §2(a)(ii))", reg.get("effectiveness_deadline")),
        ("declared effective on", reg.get("effective_on")),
        ("end of the Effectiveness Period (RRA §2(a)(iii))",
         reg.get("effectiveness_period_end")),
        ("in default on the as-of date", reg.get("in_default")),
        ("Additional Interest accrued to the as-of date", ai.get("accrued_to_as_of")),
        ("Additional Interest paid to the as-of date", ai.get("paid_to_as_of")),
        ("day count", ai.get("day_count"))])]
    out.append("<h2>Registration Defaults (RRA §3(a))</h2>")
    out.append(table(rows["defaults"], ["clause", "default_date", "accrual_from",
                                        "accrual_until", "cured_on", "stopped_by", "episode",
                                        "events"], numeric=["episode"]))
    out.append("<h2>Suspension Periods (RRA §4(b)(i), §3(a)(iv))</h2>")
    out.append(table(rows["suspension_periods"], ["start", "end", "days",
                                                  "material_transaction", "extended",
                                                  "last_permitted_day", "events"],
                     numeric=["days"]))
    out.append(_kv([(f"{k}", s.get(k)) for k in (
        "trailing_90", "trailing_360", "max_90", "max_360", "limit_90", "limit_360",
        "remaining_90", "remaining_360", "grows_90_on", "grows_360_on") if k in s]))
    if s.get("breaches"):
        out.append(table(s["breaches"], ["kind", "clause", "period_start", "first_day",
                                         "last_day", "days", "limit", "window"],
                         numeric=["days", "limit", "window"]))
    out.append("<h2>Additional Interest by Holder and Interest Payment Date (RRA §3(a), "
               "§3(b))</h2>")
    out.append(table(rows["payments"], ["payment_date", "paid_on", "record_date",
                                        "period_start", "period_end", "holder", "amount",
                                        "paid", "status", "late"],
                     numeric=["amount", "paid"]))
    by_holder = ai.get("by_holder") or {}
    if by_holder:
        out.append(table([{"holder": h, "accrued to as of": a} for h, a in by_holder.items()],
                         ["holder", "accrued to as of"], numeric=["accrued to as of"]))
    out.append("<h2>Deadlines</h2>")
    out.append(table(rows["deadlines"], ["obligation", "clause", "due", "status", "met_on",
                                         "late_on", "holder"]))
    majority = report.get("majority") or {}
    if majority:
        out.append("<h2>Consents (Majority of Holders, RRA §1, §10(D))</h2>")
        out.append(table([{"matter": m, **v} for m, v in majority.items()],
                         ["matter", "consenting", "total", "share", "majority"],
                         numeric=["consenting", "total", "share"]))
    out.extend(_problems(report.get("problems")))
    return out


def _true_up(report: Mapping[str, Any], rows: Mapping[str, Sequence[Mapping[str, Any]]]
             ) -> list[str]:
    t = report.get("true_up") or {}
    out = ["<h2>True-up shares by holder (Letter ¶3)</h2>",
           table([{"holder": h, **v} for h, v in (t.get("holders") or {}).items()],
                 ["holder", "owed", "issued", "outstanding", "over_issued"],
                 numeric=["owed", "issued", "outstanding", "over_issued"]),
           "<h2>Exercises and conversions</h2>",
           table(rows["true_ups"], ["date", "instrument", "holder", "type", "fraction",
                                    "eligible", "shares_issued", "price_at_exercise",
                                    "entitled", "owed", "issued", "outstanding"],
                 numeric=["shares_issued", "entitled", "owed", "issued", "outstanding"]),
           "<h2>Instruments</h2>",
           table(t.get("instruments") or [], ["instrument", "holder", "kind", "price",
                                              "shares", "exercised_fraction",
                                              "deferred_price_if_all_vest"],
                 numeric=["price", "shares", "deferred_price_if_all_vest"]),
           "<h2>Camden vestings (Letter ¶2)</h2>",
           table(t.get("vestings") or [], ["date", "holder", "warrants", "vested"],
                 numeric=["warrants", "vested"]),
           "<h2>Terms</h2>",
           _kv([("formula", t.get("formula")), ("true_up_cutoff", t.get("true_up_cutoff")),
                ("price_decimals", t.get("price_decimals"))])]
    out.extend(_problems(list(report.get("problems") or []) + list(t.get("problems") or [])))
    return out


def _problems(problems: Any) -> list[str]:
    if not problems:
        return []
    items = "".join(f"<li>{escape(str(p))}</li>" for p in problems)
    return ["<h2>Problems found in the events</h2>", f"<ul>{items}</ul>"]


def _interpretations(in_force: Mapping[str, str]) -> list[str]:
    from projections.interpretations import REGISTRY

    rows = []
    for name, value in in_force.items():
        i = REGISTRY.get(name)
        rows.append({"name": name, "value": value,
                     "default": "yes" if i and value == i.default else "no (switched)",
                     "clause": i.clause if i else "",
                     "reading": i.readings.get(value, "") if i else ""})
    return ["<h2>Interpretations in force (SPEC §6)</h2>",
            table(rows, ["name", "value", "default", "clause", "reading"])]


def _events(records: Sequence[Mapping[str, Any]], retracted: set[str]) -> list[str]:
    head = "".join(f"<th>{c}</th>" for c in ("seq", "date", "type", "data", "id",
                                             "recorded_at", "by", "hash"))
    body = []
    for r in records:
        data = ", ".join(f"{k}={v}" for k, v in r["data"].items() if k != "terms")
        cls = ' class="retracted"' if r["id"] in retracted else ""
        body.append(f"<tr{cls}><td class=\"n\">{r['seq']}</td><td>{escape(r['date'])}</td>"
                    f"<td>{escape(r['type'])}</td><td>{escape(data[:160])}</td>"
                    f"<td>{_short(r['id'])}</td><td>{escape(r['recorded_at'])}</td>"
                    f"<td>{escape(str(r['recorded_by']))}</td>"
                    f"<td class=\"h\">{escape(r['hash'][:16])}&hellip;</td></tr>")
    return [f"<h2>Events ({len(records)}; retracted ones struck through, never removed)</h2>",
            f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"]


def _verification(info: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> list[str]:
    head = info["head"]
    files = ", ".join(f"<code>{escape(n)}</code>" for n in info["files"])
    return ["<h2>Checking this pack</h2>",
            f"<p>Ledger head when exported: seq {head['seq']}, hash "
            f'<span class="h">{escape(head["hash"])}</span>.</p>',
            "<p>Offline: <code>deal-ledger verify --pack DIR</code> checks every file against "
            "<code>manifest.json</code>, each event's hash, the chain links between this "
            "deal's adjacent events, the head, and recomputes the report. Against the "
            "ledger: <code>deal-ledger verify --expect HEAD</code> with the hash in "
            "<code>head.txt</code>.</p>",
            f"<p>Files: {files}, <code>index.html</code>, <code>manifest.json</code>.</p>",
            "<p>In the CSV files, a text cell that begins with <code>=</code>, "
            "<code>+</code>, <code>-</code>, <code>@</code>, a tab or a carriage return "
            "(a Holder's name, say) is written with a leading single quote "
            "(<code>'</code>), so that no spreadsheet runs it as a formula (OWASP, CSV "
            "injection); the name itself is the one in <code>events.jsonl</code>. Numbers "
            "are written as they are.</p>"]


def _deal_name(records: Sequence[Mapping[str, Any]]) -> str:
    for r in reversed(records):  # the latest DealOpened (see readmodels.deal_row)
        if r["type"] == "DealOpened":
            return str(r["data"].get("name", ""))
    return ""
