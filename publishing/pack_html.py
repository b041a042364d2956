"""``index.html`` of the auditor pack: ONE self-contained page.

Everything is inline: the CSS in a ``<style>``, the timeline as an ``<svg>`` (HTML5
inline SVG needs no namespace URL), tooltips as SVG ``<title>``. No script, no font, no
image, no ``src`` or ``href`` at all, so the page opens the same with no network and
cannot leak that it was opened. ``render`` is pure: the same report and events give the
same bytes, so ``verify --pack`` can re-render it and compare.

It reads as a report, on screen and on paper: every table under a heading, columns
named in words, money with thousands separators, shares of a total as percentages,
event data as plain text, dates never broken across lines, and a print stylesheet (the
timeline's labels are visible text, ``pack_timeline``).
"""

from __future__ import annotations

from datetime import date
from html import escape
from typing import Any, Mapping, Sequence

from . import pack_timeline
from .pack_cells import keep_dates_whole, kv, money_in_text, readable, short, table

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
h3{font-size:14px;margin:18px 0 4px}svg{max-width:100%;height:auto}
td.d,td.n,.nw,td.ids code{white-space:nowrap}td.data{max-width:560px}
@media print{
body{margin:0;max-width:none;font-size:11px;color:#000}
h2{break-after:avoid;border-color:#888}h3{break-after:avoid}
table,svg,.legend{break-inside:avoid}tr{break-inside:avoid}thead{display:table-header-group}
table{font-size:9.5px}th,td{padding:2px 4px}code,.h{font-size:9px}
th{background:#eee}.warn{background:none;border:1px solid #000}
svg{border-color:#888}.status-met,.status-paid{color:#000}
}
@page{margin:14mm}
"""

def render(report: Mapping[str, Any], records: Sequence[Mapping[str, Any]],
           rows: Mapping[str, Sequence[Mapping[str, Any]]], info: Mapping[str, Any],
           headings: Mapping[str, str] | None = None,
           words: Sequence[Mapping[str, Any]] = ()) -> str:
    """The page: header, timeline, the deal's tables, the events, how to verify;
    ``headings``: the clauses its headings name (``publishing.terms.headings``: the
    deal's own; the Infocrossing RRA's if not given); ``words``: the agreement's own
    sentence for each clause the report cites (``publishing.terms.agreement_words``)."""
    from .terms import INFOCROSSING_HEADINGS

    h = headings or INFOCROSSING_HEADINGS
    kind = report["kind"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(report['deal'])}: auditor pack as of {escape(info['as_of'])}"
        "</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{escape(report['deal'])}</h1>",
        f'<p class="sub">{escape(_deal_name(records))} &middot; {escape(KINDS.get(kind, kind))}'
        f" &middot; as of <b>{escape(info['as_of'])}</b>"
        + (f" &middot; as known at <b>{escape(moment(info['known_at']))}</b>"
           if info["known_at"] else " &middot; everything recorded")
        + f" &middot; deal-ledger {escape(str(info['version']))}</p>",
    ]
    parts.extend(_not_known(records, info["known_at"]))
    if any("ILLUSTRATIVE" in str(r.get("source", "")) for r in records):
        parts.append('<p class="warn">Some events are marked ILLUSTRATIVE in their source: '
                     "they are not the real deal's history.</p>")
    parts.append("<h2>Timeline</h2>")
    parts.append(pack_timeline.svg(report, records, date.fromisoformat(info["as_of"]), h))
    if kind == "registration_rights":
        parts.extend(_registration(report, rows, h))
    else:
        parts.extend(_true_up(report, rows))
    from .pack_obligations import obligations_section

    parts.extend(obligations_section(report))
    parts.extend(_agreement_words(words))
    if info.get("restatements"):
        parts.extend(_restatements(info["restatements"]))
    parts.extend(_interpretations(info["interpretations"], kind))
    parts.extend(_events(records, set(info.get("retracted", ()))))
    parts.extend(_verification(info, records))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _registration(report: Mapping[str, Any], rows: Mapping[str, Sequence[Mapping[str, Any]]],
                  h: Mapping[str, str]) -> list[str]:
    reg = report.get("registration") or {}
    ai = report.get("additional_interest") or {}
    s = report.get("suspensions") or {}
    out = ["<h2>Registration</h2>", kv([
        (f"Filing Deadline ({h['filing']})", reg.get("filing_deadline"), ""),
        ("filed on", reg.get("filed_on"), ""),
        (f"Effectiveness Target Date ({h['effectiveness']})", reg.get("effectiveness_deadline"), ""),
        ("declared effective on", reg.get("effective_on"), ""),
        (f"end of the Effectiveness Period ({h['period']})",
         reg.get("effectiveness_period_end"), ""),
        ("in default on the as-of date", reg.get("in_default"), ""),
        ("Additional Interest accrued to the as-of date", ai.get("accrued_to_as_of"),
         "amount"),
        ("Additional Interest paid to the as-of date", ai.get("paid_to_as_of"), "amount"),
        ("day count", ai.get("day_count"), "")])]
    out.append(f"<h2>Registration Defaults ({escape(h['damages'])})</h2>")
    out.append(table(rows["defaults"], ["clause", "default_date", "accrual_from",
                                        "accrual_until", "cured_on", "stopped_by", "episode",
                                        "events"]))
    out.append(f"<h2>Suspension Periods ({escape(h['limits'])})</h2>")
    out.append(table(rows["suspension_periods"], ["start", "end", "days",
                                                  "material_transaction", "extended",
                                                  "last_permitted_day", "events"]))
    out.append(f"<h3>Suspension allowances on {escape(str(report.get('as_of')))}</h3>")
    figures = [("suspended days in the window ending on the as-of date", "trailing", ""),
               ("most suspended days in any window so far", "max", ""),
               ("limit", "limit", ""), ("remaining", "remaining", ""),
               ("grows again on", "grows", "_on")]
    if "windows" in s:   # a deal with other windows than two of so many days
        columns = [str(i) for i in range(len(s["windows"]))]
        allowance = [{"what": what, **{c: w.get("grows_on" if key == "grows" else key)
                                       for c, w in zip(columns, s["windows"])}}
                     for what, key, _end in figures]
        names = {c: f"{w['window']} window" for c, w in zip(columns, s["windows"])}
    else:
        columns = ["90", "360"]
        allowance = [{"what": what, "90": s.get(f"{key}_90{end}"),
                      "360": s.get(f"{key}_360{end}")}
                     for what, key, end in figures
                     if f"{key}_90{end}" in s or f"{key}_360{end}" in s]
        names = {c: f"{label} window" for c, label in zip(columns, h["windows"].split(", "))}
    out.append(table(allowance, ["what", *columns], headers={"what": "", **names}))
    if s.get("breaches"):
        out.append("<h3>Suspension days beyond the limits</h3>")
        out.append(table(s["breaches"], ["kind", "clause", "period_start", "first_day",
                                         "last_day", "days", "limit", "window"],
                         headers={"period_start": "period start"}))
    out.append(f"<h2>Additional Interest by Holder and Interest Payment Date "
               f"({escape(h['interest'])})</h2>")
    out.append(table(rows["payments"], ["payment_date", "paid_on", "record_date",
                                        "period_start", "period_end", "holder", "amount",
                                        "paid", "status", "late"]))
    by_holder = ai.get("by_holder") or {}
    if by_holder:
        out.append(f"<h3>Additional Interest accrued by Holder through "
                   f"{escape(str(ai.get('accrued_through', report.get('as_of'))))}</h3>")
        out.append(table([{"holder": h, "accrued": a} for h, a in by_holder.items()],
                         ["holder", "accrued"]))
    out.append(f"<h2>Deadlines ({escape(h['duties'])})</h2>")
    from .pack_obligations import deadline_note, discharged_though_missed

    deadlines = [dict(r) for r in rows["deadlines"]]
    for i, o in discharged_though_missed(report):
        deadlines[i]["note"] = deadline_note(o)
    out.append("<p>Whether each was done by its day (met, missed, open, excused); where "
               "it stands now is in Obligations below, whose words differ where a duty "
               "missed was cured, or discharged (the note says why).</p>")
    out.append(table(deadlines, ["obligation", "clause", "due", "status", "met_on", "late_on",
                                 "holder", *(["note"] if any("note" in r for r in deadlines)
                                             else [])],
                     headers={"note": "the Obligations table"}))
    majority = report.get("majority") or {}
    if majority:
        out.append(f"<h2>Consents (Majority of Holders, {escape(h['consents'])})</h2>")
        out.append(table([{"matter": m, **v} for m, v in majority.items()],
                         ["matter", "consenting", "total", "share", "majority", "holders"],
                         headers={"majority": "majority (more than 50%)",
                                  "holders": "holders consenting"}))
    out.extend(_problems(report.get("problems")))
    return out


def _true_up(report: Mapping[str, Any], rows: Mapping[str, Sequence[Mapping[str, Any]]]
             ) -> list[str]:
    t = report.get("true_up") or {}
    out = ["<h2>True-up shares by holder (Letter ¶3)</h2>",
           table([{"holder": h, **v} for h, v in (t.get("holders") or {}).items()],
                 ["holder", "owed", "issued", "outstanding", "over_issued"]),
           "<h2>Exercises and conversions (Letter ¶3)</h2>",
           table(rows["true_ups"], ["date", "instrument", "holder", "type", "fraction",
                                    "eligible", "shares_issued", "price_at_exercise",
                                    "entitled", "owed", "issued", "outstanding"],
                 headers={"fraction": "fraction exercised"}),
           "<h2>Instruments (Letter ¶2)</h2>",
           table(t.get("instruments") or [], ["instrument", "holder", "kind", "price",
                                              "shares", "exercised_fraction",
                                              "deferred_price_if_all_vest",
                                              "deferred_shares_if_all_vest"]),
           "<h2>Camden vestings (Letter ¶2)</h2>",
           table(t.get("vestings") or [], ["date", "holder", "warrants", "vested"],
                 headers={"warrants": "warrants vesting", "vested": "vested in all"}),
           "<h2>Terms</h2>",
           kv([("formula", t.get("formula"), ""),
                ("true-up cutoff (Letter ¶3)", t.get("true_up_cutoff"), ""),
                ("price decimals", t.get("price_decimals"), "")])]
    out.extend(_problems(list(report.get("problems") or []) + list(t.get("problems") or [])))
    return out


def _restatements(section: Mapping[str, Any]) -> list[str]:
    """The figures of the previous pack's day that this pack knows otherwise."""
    previous = section["previous"]
    rows = [{"figure": item["figure"], "status": item["status"],
             "before": _cell(item["before"]), "after": _cell(item["after"]),
             "clause": item.get("clause") or "",
             "recorded": "; ".join(f"{m['known_at']}: " + ", ".join(
                 f"seq {e['seq']} {e['type']}" for e in m["events"])
                 for m in item["moved_by"])} for item in section["restated"]]
    return [f"<h2>Restatements since the previous pack (head seq {previous['head_seq']}, "
            f"as of {escape(str(previous['as_of']))})</h2>",
            f"<p>{len(rows)} figure(s) of {escape(str(previous['as_of']))} changed between "
            f"the previous pack and this one ({section['events_between']} event(s) recorded "
            "between); the consistency proof from its head to this pack's is in "
            "restatements.json.</p>",
            table(rows, ["figure", "status", "before", "after", "clause", "recorded"],
                  headers={"recorded": "moved by the events recorded"})]


def _cell(value: Any) -> str:
    import json

    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _problems(problems: Any) -> list[str]:
    if not problems:
        return []
    items = "".join(f"<li>{keep_dates_whole(escape(money_in_text(str(p))))}</li>"
                    for p in problems)
    return ["<h2>Problems found in the events</h2>", f"<ul>{items}</ul>"]


#: a deal's kind in words (the subtitle showed ``registration_rights``)
KINDS = {"registration_rights": "Registration Rights Agreement",
         "antidilution_deferral": "anti-dilution deferral letter agreement"}


def moment(stamp: str) -> str:
    """``2005-07-01T00:00:00Z`` → ``2005-07-01 00:00:00 UTC`` (to the microsecond when
    it has one: a time cut short would be before the moment)."""
    text = stamp.replace("T", " ")
    if text.endswith("Z"):
        text = text[:-1]
        if text.endswith(".000000"):
            text = text[:-7]
        text += " UTC"
    return text


def _not_known(records: Sequence[Mapping[str, Any]], known_at: str | None) -> list[str]:
    """A pack made ``--known-at``: the recorded events its figures leave out (recorded
    later), each named, so that a reader of ``events.jsonl`` knows why they do not count."""
    if not known_at:
        return []
    from ledger.dates import parse_timestamp

    at = parse_timestamp(known_at)
    later = [r for r in records if parse_timestamp(r["recorded_at"]) > at]
    if not later:
        return [f'<p class="warn">The figures are as known at {escape(moment(known_at))}: '
                "every event of the deal in this pack was recorded by then.</p>"]
    items = "".join(f"<li>seq {r['seq']} {escape(r['type'])} of "
                    f'<span class="nw">{escape(r["date"])}</span>, recorded '
                    f"{escape(moment(r['recorded_at']))} (<code>{escape(r['id'][:8])}</code>)"
                    "</li>" for r in later)
    return [f'<p class="warn">The figures are as known at {escape(moment(known_at))}: '
            f"they leave out the {len(later)} event(s) of the deal recorded later, which "
            "are in the events below and in <code>events.jsonl</code>:</p>",
            f"<ul>{items}</ul>"]


def _agreement_words(words: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each clause the report cites, in the agreement's own words (its terms carry them,
    from a template or from ``terms draft``, issue 35)."""
    if not words:
        return []
    rows = [{"clause": w["clause"],
             "words": " ... ".join(f"\u201c{q}\u201d" for q in w["quotes"])} for w in words]
    return ["<h2>The agreement's words</h2>",
            table(rows, ["clause", "words"], headers={"words": "the agreement's sentence"})]


def _interpretations(in_force: Mapping[str, str], kind: str) -> list[str]:
    """The readings of the deal's own agreement (an RRA pack listed the Letter's too):
    those whose clause is the agreement's (``RRA ...``, or the Letter's)."""
    from projections.interpretations import REGISTRY

    rows = []
    for name, value in in_force.items():
        i = REGISTRY.get(name)
        if i is not None and i.clause.startswith("RRA") != (kind == "registration_rights"):
            continue
        rows.append({"name": name, "value": value,
                     "default": "yes" if i and value == i.default else "no (switched)",
                     "clause": i.clause if i else "",
                     "reading": i.readings.get(value, "") if i else ""})
    return ["<h2>Interpretations in force</h2>",
            table(rows, ["name", "value", "default", "clause", "reading"],
                  headers={"name": "interpretation", "value": "reading in force",
                           "default": "the default", "reading": "what it means"})]


def event_data(record: Mapping[str, Any]) -> str:
    """An event's data as a reader would write it: ``holder: Lehman Brothers Inc.;
    principal: 60,000,000.00`` (a deal's terms are in ``events.jsonl``)."""
    data = {k: v for k, v in record["data"].items() if k != "terms"}
    if "terms" in record["data"]:
        data["terms"] = "in events.jsonl"
    return readable(data)


def _events(records: Sequence[Mapping[str, Any]], retracted: set[str]) -> list[str]:
    head = "".join(f"<th>{c}</th>" for c in ("seq", "date", "type", "data", "id",
                                             "recorded at", "by", "hash"))
    body = []
    for r in records:
        cls = ' class="retracted"' if r["id"] in retracted else ""
        body.append(f"<tr{cls}><td class=\"n\">{r['seq']}</td>"
                    f"<td class=\"d\">{escape(r['date'])}</td>"
                    f"<td>{escape(r['type'])}</td><td class=\"data\">"
                    f"{keep_dates_whole(escape(event_data(r)))}</td>"
                    f"<td>{short(r['id'])}</td>"
                    f"<td class=\"d\">{escape(r['recorded_at'][:19].replace('T', ' '))}</td>"
                    f"<td>{escape(str(r['recorded_by']))}</td>"
                    f"<td class=\"h nw\">{escape(r['hash'][:16])}&hellip;</td></tr>")
    return [f"<h2>Events ({len(records)}; retracted ones struck through, never removed; a "
            "retraction withdrawn by an EventReinstated is struck through too)</h2>",
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
