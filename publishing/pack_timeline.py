"""The auditor pack's timeline: one inline SVG, one lane per kind of fact.

Every mark and bar carries its label as visible text (a tooltip does not print), placed
under it on as many rows as the lane needs so that no two labels overlap; a period too
short to see at the chart's scale is drawn at a minimum width; deadlines have a lane of
their own, apart from what was done (a filing five days late is five days, well under a
pixel apart at this scale); the axis runs from the deal's opening to the as-of date.
Pure: the same report and events give the same bytes (``verify --pack`` re-renders it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from html import escape
from typing import Any, Iterable, Mapping, Sequence

from .pack_cells import money

COLOURS = {"default": "#d1495b", "suspension": "#edae49", "period": "#cfe3f6",
           "filed": "#00798c", "effective": "#30638e", "deadline": "#1d2330",
           "payment": "#6a4c93", "vesting": "#2a9d8f", "exercise": "#e76f51",
           "ineligible": "#9aa1ad", "cutoff": "#a4161a", "trueup": "#264653",
           "asof": "#5b6475", "opened": "#5b6475"}

WIDTH, LEFT, RIGHT_PAD = 1100, 178, 16
BAND, ROW, FONT = 22, 13, 10.5
MIN_BAR = 6          # px: a two-day default stays visible on a twenty-year axis
CHAR = 5.9           # px per character at FONT (a generous estimate for sans-serif)
CLUSTER = 14         # px: obligations due closer than this are one mark


@dataclass
class Lane:
    label: str
    bars: list[tuple[date, date, str, str, str]] = field(default_factory=list)
    marks: list[tuple[date, str, str, str, str]] = field(default_factory=list)

    def bar(self, start: date | None, end: date | None, colour: str, tip: str,
            text: str) -> None:
        if start is not None and end is not None:
            self.bars.append((start, max(end, start), colour, tip, text))

    def mark(self, day: date | None, colour: str, tip: str, text: str,
             shape: str = "dot") -> None:
        if day is not None:
            self.marks.append((day, colour, shape, tip, text))

    def days(self) -> Iterable[date]:
        for s, e, *_ in self.bars:
            yield s
            yield e
        for d, *_ in self.marks:
            yield d


def _d(text: Any) -> date | None:
    if not text:
        return None
    try:
        return date.fromisoformat(str(text)[:10])
    except ValueError:
        return None


def _md(day: Any) -> str:
    """``2004-07-20`` → ``07-20``: the year is on the axis."""
    return str(day)[5:10] if day else "?"


def registration_lanes(report: Mapping[str, Any], as_of: date) -> list[Lane]:
    reg = report.get("registration") or {}
    deadlines = Lane("Deadlines")
    deadlines.mark(_d(reg.get("filing_deadline")), COLOURS["deadline"],
                   f"filing deadline {reg.get('filing_deadline')} (RRA §2(a)(i))",
                   f"filing deadline {reg.get('filing_deadline')}", "diamond")
    deadlines.mark(_d(reg.get("effectiveness_deadline")), COLOURS["deadline"],
                   f"effectiveness deadline {reg.get('effectiveness_deadline')} "
                   "(RRA §2(a)(ii))",
                   f"effectiveness deadline {reg.get('effectiveness_deadline')}", "diamond")
    shelf = Lane("Shelf")
    shelf.bar(_d(reg.get("effective_on")), _d(reg.get("effectiveness_period_end")) or as_of,
              COLOURS["period"], "Effectiveness Period "
              f"{reg.get('effective_on')} to {reg.get('effectiveness_period_end') or '...'}",
              f"Effectiveness Period to {reg.get('effectiveness_period_end') or '...'}")
    shelf.mark(_d(reg.get("filed_on")), COLOURS["filed"], f"filed {reg.get('filed_on')}",
               f"filed {reg.get('filed_on')}")
    shelf.mark(_d(reg.get("effective_on")), COLOURS["effective"],
               f"declared effective {reg.get('effective_on')}",
               f"effective {reg.get('effective_on')}")
    defaults = Lane("Registration Defaults")
    for d in reg.get("defaults", []):
        start = _d(d.get("accrual_from"))
        end = _d(d.get("accrual_until")) or _d(d.get("cured_on")) or as_of + timedelta(1)
        clause = str(d.get("clause") or "").replace("RRA §3(a)", "") or "?"
        defaults.bar(start, end, COLOURS["default"],
                     f"{d.get('clause')}: default date {d.get('default_date')}, accrues "
                     f"{d.get('accrual_from')} to {d.get('accrual_until') or 'as of'} "
                     f"(exclusive), cured {d.get('cured_on') or 'not yet'}",
                     f"{clause} {d.get('accrual_from')} to "
                     f"{_md(d.get('accrual_until')) if d.get('accrual_until') else 'now'}")
    suspensions = Lane("Suspension Periods")
    for p in (report.get("suspensions") or {}).get("periods", []):
        end = _d(p.get("end")) or as_of + timedelta(1)
        suspensions.bar(_d(p.get("start")), end, COLOURS["suspension"],
                        f"Suspension Period {p.get('start')} to {p.get('end') or 'open'}: "
                        f"{p.get('days')} days"
                        + (" (material transaction)" if p.get("material_transaction") else ""),
                        f"{p.get('start')}, {p.get('days')} days")
    payments = Lane("Interest Payment Dates")
    for p in (report.get("additional_interest") or {}).get("payments", []):
        payments.mark(_d(p.get("paid_on")) or _d(p.get("payment_date")), COLOURS["payment"],
                      f"{p.get('payment_date')} (paid on {p.get('paid_on')}): total "
                      f"{money(p.get('total'))}, paid {money(p.get('paid_total', '0'))}, "
                      f"{p.get('status')}",
                      f"{p.get('payment_date')} {p.get('status')}")
    return [deadlines, shelf, defaults, suspensions, payments]


def true_up_lanes(report: Mapping[str, Any], records: Sequence[Mapping[str, Any]]
                  ) -> list[Lane]:
    t = report.get("true_up") or {}
    cutoff = Lane("True-up cutoff")
    cutoff.mark(_d(t.get("true_up_cutoff")), COLOURS["cutoff"],
                f"exercises and conversions before {t.get('true_up_cutoff')} earn true-ups "
                "(Letter ¶3)", f"cutoff {t.get('true_up_cutoff')}", "diamond")
    vestings = Lane("Camden vestings")
    for v in t.get("vestings", []):
        warrants = v.get("warrants")
        vestings.mark(_d(v.get("date")), COLOURS["vesting"],
                      f"{v.get('date')}: {v.get('holder')} {warrants} Camden "
                      "Warrants vested",
                      f"{v.get('date')} "
                      + (f"{warrants:,}" if isinstance(warrants, int) else str(warrants)))
    exercises = Lane("Exercises / conversions")
    for e in t.get("exercises", []):
        exercises.mark(_d(e.get("date")),
                       COLOURS["exercise"] if e.get("eligible") else COLOURS["ineligible"],
                       f"{e.get('date')}: {e.get('instrument')} ({e.get('holder')}) "
                       f"{e.get('type')}, {'eligible' if e.get('eligible') else 'not eligible'}"
                       f", owed {e.get('owed')}",
                       f"{e.get('date')} {e.get('instrument')}")
    issued = Lane("True-up shares issued")
    for r in records:
        if r["type"] == "TrueUpSharesIssued":
            shares = r["data"].get("shares")
            issued.mark(_d(r["date"]), COLOURS["trueup"],
                        f"{r['date']}: {shares} true-up shares for "
                        f"{r['data'].get('instrument')}",
                        f"{r['date']} "
                        + (f"{shares:,}" if isinstance(shares, int) else str(shares))
                        + f" for {r['data'].get('instrument')}")
    return [cutoff, vestings, exercises, issued]


class _Labels:
    """Labels of one lane on rows under its band: each on the first row where it does
    not touch the one before (widths estimated from the character count)."""

    def __init__(self, right: float):
        self.right = right
        self.rows: list[float] = []     # per row, the x where it is free again
        self.placed: list[tuple[int, float, str, str]] = []  # row, x, anchor, text

    def add(self, at: float, text: str) -> None:
        width = CHAR * len(text) + 8
        start, anchor = (at, "start") if at + width <= self.right else (at - width, "end")
        start = max(start, LEFT)
        for row, free in enumerate(self.rows):
            if free <= start:
                break
        else:
            row = len(self.rows)
            self.rows.append(0.0)
        self.rows[row] = start + width
        self.placed.append((row, at if anchor == "end" else start, anchor, text))


def svg(report: Mapping[str, Any], records: Sequence[Mapping[str, Any]],
        as_of: date) -> str:
    """The timeline of one deal as of ``as_of``, from its opening to the as-of date."""
    opened = max(((r["seq"], _d(r["date"])) for r in records if r["type"] == "DealOpened"),
                 default=(0, None))[1] or min(_d(r["date"]) for r in records)
    if report["kind"] == "registration_rights":
        lanes = registration_lanes(report, as_of)
    else:
        lanes = true_up_lanes(report, records)
    from .pack_obligations import due_days, obligations_lane

    days = [d for lane in lanes for d in lane.days()] + due_days(report) + [opened, as_of]
    lo, hi = min(days), max(days)
    hi = max(hi, lo + timedelta(days=30))
    span = (hi - lo).days
    right = WIDTH - RIGHT_PAD
    # obligations due within CLUSTER px of each other are one mark (a dot is 10 px wide)
    lanes.append(obligations_lane(report, Lane,
                                  timedelta(days=int(CLUSTER * span / (right - LEFT)))))

    def x(day: date) -> float:
        day = min(max(day, lo), hi)
        return round(LEFT + (day - lo).days * (right - LEFT) / span, 1)

    top = 30
    body: list[str] = []
    y = top
    for lane in lanes:
        labels = _Labels(right)
        shapes: list[str] = []
        mid = y + BAND / 2
        for start, end, colour, tip, text in lane.bars:
            bx = x(start)
            bw = max(x(end) - bx, MIN_BAR)
            shapes.append(f'<rect x="{bx}" y="{y + 3}" width="{round(bw, 1)}" '
                          f'height="{BAND - 6}" rx="2" fill="{colour}" opacity="0.85">'
                          f"<title>{escape(tip)}</title></rect>")
            labels.add(bx, text)
        for day, colour, shape, tip, text in lane.marks:
            mx = x(day)
            if shape == "diamond":
                pts = f"{mx},{mid - 7} {mx + 6},{mid} {mx},{mid + 7} {mx - 6},{mid}"
                shapes.append(f'<polygon points="{pts}" fill="#fff" stroke="{colour}" '
                              f'stroke-width="1.6"><title>{escape(tip)}</title></polygon>')
            else:
                shapes.append(f'<circle cx="{mx}" cy="{mid}" r="5" fill="{colour}">'
                              f"<title>{escape(tip)}</title></circle>")
            labels.add(mx, text)
        height = BAND + ROW * len(labels.rows) + 8
        body.append(f'<text x="8" y="{mid + 4}" font-size="12" font-weight="600" '
                    f'fill="#1d2330">{escape(lane.label)}</text>')
        body.append(f'<line x1="{LEFT}" y1="{mid}" x2="{right}" y2="{mid}" stroke="#e3e6ec"/>')
        body.extend(shapes)
        for row, lx, anchor, text in labels.placed:
            body.append(f'<text x="{round(lx, 1)}" y="{y + BAND + ROW * row + 9}" '
                        f'font-size="{FONT}" text-anchor="{anchor}" fill="#1d2330">'
                        f"{escape(text)}</text>")
        body.append(f'<line x1="8" y1="{y + height - 2}" x2="{right}" y2="{y + height - 2}" '
                    'stroke="#eef0f4"/>')
        y += height
    bottom = y
    height = bottom + 24
    out = [f'<svg role="img" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
           f'height="{height}" aria-label="timeline of {escape(report["deal"])}">',
           f"<title>Timeline of {escape(report['deal'])} from {lo.isoformat()} to "
           f"{hi.isoformat()}</title>"]
    years = list(range(lo.year + 1, hi.year + 1))
    step = next(s for s in (1, 2, 5, 10, 20, 50) if len(years) / s <= 16)
    for year in years:
        if year % step:
            continue
        gx = x(date(year, 1, 1))
        out.append(f'<line x1="{gx}" y1="{top - 4}" x2="{gx}" y2="{bottom}" '
                   'stroke="#eef0f4"/>')
        out.append(f'<text x="{gx}" y="{bottom + 15}" font-size="11" text-anchor="middle" '
                   f'fill="#5b6475">{year}</text>')
    out.extend(body)
    for lane in lanes:  # the cutoff rules the whole chart: what is left of it counts
        for day, colour, shape, tip, _ in lane.marks:
            if shape == "diamond" and lane.label == "True-up cutoff":
                rx = x(day)
                out.append(f'<line x1="{rx}" y1="{top}" x2="{rx}" y2="{bottom}" '
                           f'stroke="{colour}" stroke-dasharray="2 3"><title>{escape(tip)}'
                           "</title></line>")
    for day, text, anchor in ((opened, f"opened {opened.isoformat()}", "start"),
                              (as_of, f"as of {as_of.isoformat()}", "end")):
        if lo <= day <= hi:
            lx = x(day)
            out.append(f'<line x1="{lx}" y1="{top - 6}" x2="{lx}" y2="{bottom}" '
                       f'stroke="{COLOURS["asof"]}" stroke-dasharray="4 3"/>')
            out.append(f'<text x="{lx}" y="{top - 10}" font-size="11" '
                       f'text-anchor="{anchor}" fill="{COLOURS["asof"]}">{escape(text)}</text>')
    out.append("</svg>")
    out.append(legend(report["kind"]))
    from .pack_obligations import obligations_legend

    out.append(obligations_legend(report))
    return "\n".join(out)


def legend(kind: str) -> str:
    if kind == "registration_rights":
        items = [("default", "Registration Default (accrual, end exclusive)"),
                 ("suspension", "Suspension Period"), ("period", "Effectiveness Period"),
                 ("filed", "filed"), ("effective", "declared effective"),
                 ("payment", "Interest Payment Date (when paid)")]
        diamond = "deadline"
        note = f"<span>short periods are drawn {MIN_BAR} px wide at least</span>"
    else:
        items = [("vesting", "Camden vesting"), ("exercise", "eligible exercise"),
                 ("ineligible", "not eligible"), ("trueup", "true-up issued")]
        diamond = "cutoff"
        note = ""
    spans = "".join(f'<span><i class="sw" style="background:{COLOURS[k]}"></i>'
                    f"{escape(t)}</span>" for k, t in items)
    return f'<p class="legend">{spans}<span>&#9671; {diamond}</span>{note}</p>'
