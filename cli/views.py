# Over 600 lines: every readable view of a report, one function each, sharing the table helpers at the top.
"""Readable views of a report (rich tables). Formatting only: every figure, date and status
comes from the SPEC §7 object that ``projections.report.report`` returns; nothing here
decides a rule. Each view has a command of the same name (``cli/reports.py``) whose
``--json`` prints the matching part of that object, nested as in the report.

Money is shown with thousands separators and two decimals, share counts as whole numbers
with separators, prices as the report gives them; ``—`` stands for "none" (a null).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable

REGISTRATION_RIGHTS = "registration_rights"
ANTIDILUTION_DEFERRAL = "antidilution_deferral"
HEAD = ("deal", "kind", "as_of", "known_at", "interpretations")
NONE = "—"


# ---------------------------------------------------------------- formatting helpers

def money(text: str | None) -> str:
    """``"6666.67"`` → ``"6,666.67"``: the report's two-decimal string, grouped."""
    return NONE if text is None else f"{Decimal(text):,.2f}"


#: a whole number with exactly two decimals, not inside a longer token
_MONEY_IN_TEXT = re.compile(r"(?<![\w.,-])\d+\.\d{2}(?![\w.,]*\d)")


def money_in_text(text: str, keep: str | None = None) -> str:
    """A line of words with the report's two-decimal amounts grouped for reading:
    ``"(2777.78): 77.78 unpaid"`` → ``"(2,777.78): 77.78 unpaid"``. Only a whole number
    with exactly two decimals is touched (never a date, a clause, a share count or a longer
    decimal), and never inside ``keep`` (a holder's name, user text shown as typed)."""
    def group(part: str) -> str:
        return _MONEY_IN_TEXT.sub(lambda m: money(m.group()), part)

    if keep:
        return keep.join(group(part) for part in text.split(keep))
    return group(text)


def shares(n: int | None) -> str:
    return NONE if n is None else f"{n:,}"


def plain(value: Any):
    """User text (a holder, an obligation, a matter) shown as is, never read as markup."""
    from rich.text import Text

    return Text(NONE if value is None else str(value))


def day(text: str | None, none: str = NONE) -> str:
    return none if text is None else text


def yes_no(flag: bool | None) -> str:
    return NONE if flag is None else ("yes" if flag else "no")


def percent(ratio: str | None) -> str:
    """A report ratio (``"0.791667"``) as a percentage with two decimals."""
    return NONE if ratio is None else f"{Decimal(ratio) * 100:.2f}%"


STATUS_STYLE = {"met": "green", "paid": "green", "missed": "bold red", "underpaid": "bold red",
                "due": "red", "open": "yellow", "accruing": "yellow", "overpaid": "magenta",
                "excused": "cyan"}


def status(text: str | None) -> str:
    if text is None:
        return NONE
    style = STATUS_STYLE.get(text)
    return f"[{style}]{text}[/{style}]" if style else text


def _table(title: str, columns: list[tuple[str, str]], caption: str | None = None):
    """A table whose columns are ``(header, how)``: ``how`` is ``"num"`` (a figure: right
    aligned), ``"fix"`` (a date, an id, a clause, a status: left aligned) or ``"text"``
    (words that wrap); a trailing ``?`` or ``?N`` marks a column a narrow terminal may
    leave out (rank N, 1 by default: lower ranks first, the rightmost first within one). A figure or date is never cut: it keeps its whole
    width on one line, and text wraps between words around it (``_FittedTableBase``)."""
    table = _fitted_table()(title=title, caption=caption, title_justify="left",
                        caption_justify="left")
    for header, spec in columns:
        how, _, rank = spec.partition("?")
        optional = int(rank or 1) if _ else 0
        if how == "num":
            table.add_column(header, justify="right", overflow="fold")
        elif how == "fix":
            table.add_column(header, overflow="fold")
        else:
            table.add_column(header, overflow="fold")
        table.kinds.append((how, optional))  # optional: 0 = always shown, else its rank
    return table


def _cell_lines(console: Any, cell: Any) -> list[str]:
    from rich.text import Text

    text = cell if isinstance(cell, Text) else console.render_str(str(cell))
    return text.plain.split("\n")


def _longest_word(lines: list[str]) -> int:
    from rich.cells import cell_len

    return max((cell_len(w) for line in lines for w in line.split()), default=0)


class _FittedTableBase:
    """Mixed into rich's ``Table`` (imported lazily): before rendering, each figure or
    date column ("num", "fix") is given exactly the width of its widest cell, each text
    column at least its longest word; when that cannot fit the console, the optional
    columns are left out, rightmost first. Rich then wraps the text columns in what is
    left, so no figure, date or id is ever truncated or folded at 80 columns."""

    TEXT_MIN = 12  # a text column wraps, but not into a sliver

    def _fit(self, console: Any, max_width: int) -> None:
        from rich.cells import cell_len

        needs = []
        for column, (how, _) in zip(self.columns, self.kinds):
            cells = [line for c in column._cells for line in _cell_lines(console, c)]
            header = _cell_lines(console, column.header)
            if how in ("num", "fix"):
                need = max([cell_len(x) for x in cells] + [_longest_word(header), 1])
            else:
                full = max([cell_len(x) for x in cells + header] + [1])
                need = max(_longest_word(cells + header), min(full, self.TEXT_MIN))
            needs.append(need)
        keep = [True] * len(self.columns)

        def total() -> int:
            shown = [n for n, k in zip(needs, keep) if k]
            return sum(shown) + 3 * len(shown) + 1  # padding 1+1 and a border per column

        droppable = sorted((rank, -i) for i, (_, rank) in enumerate(self.kinds) if rank)
        for _, minus_i in droppable:
            if total() <= max_width:
                break
            keep[-minus_i] = False
        # room to spare: figures' headers on one line rather than wrapped, the headers
        # that need the least room first (so that most of them fit)
        spare = max_width - total()
        wants = sorted((max(cell_len(x) for x in _cell_lines(console, column.header))
                        - needs[i], i) for i, column in enumerate(self.columns)
                       if keep[i] and self.kinds[i][0] in ("num", "fix"))
        for grow, i in wants:
            if 0 < grow <= spare:
                needs[i] += grow
                spare -= grow
        for column, (how, _), need in zip(self.columns, self.kinds, needs):
            if how in ("num", "fix"):
                column.width = need
            else:
                column.min_width = need
        self.columns[:] = [c for c, shown in zip(self.columns, keep) if shown]
        self.kinds = [k for k, shown in zip(self.kinds, keep) if shown]
        for index, column in enumerate(self.columns):
            column._index = index

    def __rich_console__(self, console: Any, options: Any):
        self._fit(console, self.width or options.max_width)
        yield from super().__rich_console__(console, options)


@functools.cache
def _fitted_table() -> type:
    """``FittedTable``: rich's ``Table`` with ``_FittedTableBase`` (rich is imported only
    when a table is drawn)."""
    from rich.table import Table

    class FittedTable(_FittedTableBase, Table):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.kinds: list[tuple[str, int]] = []

    return FittedTable


# ---------------------------------------------------------------- header

def show_head(result: dict[str, Any], out: Any, switched_from: dict[str, str] | None = None
              ) -> None:
    """Which deal, as of which day, as known when, under which readings (SPEC §6: shown
    in every report). ``switched_from`` maps each interpretation to its default; those
    that differ are named, the rest summed up as "defaults"."""
    from rich.markup import escape

    known = (f"as known at {result['known_at']}" if result.get("known_at")
             else "with everything recorded")
    out.print(f"[bold]{escape(result['deal'])}[/bold] ({result['kind']}) as of "
              f"[bold]{result['as_of']}[/bold], {known}")
    chosen = result.get("interpretations") or {}
    if switched_from is None:
        names = [f"{k}={v}" for k, v in chosen.items()]
        out.print("interpretations: " + (", ".join(names) or "none"))
    else:
        names = [f"{k}={v}" for k, v in chosen.items() if switched_from.get(k) != v]
        out.print("interpretations: " + (", ".join(names) + "; others default" if names
                                          else "all defaults (deal-ledger interpretations)"))
    problems = list(result.get("problems") or []) + list(
        (result.get("true_up") or {}).get("problems") or [])
    for p in problems:
        out.print(f"[bold red]problem:[/bold red] {escape(str(p))}")


# ---------------------------------------------------------------- registration rights

def headings(result: dict[str, Any]) -> dict[str, str]:
    """The clauses the headings name: the deal's own (``publishing.terms.headings``, set
    on the report by the command that shows it), else the Infocrossing RRA's."""
    from publishing.terms import INFOCROSSING_HEADINGS

    return result.get(HEADINGS) or INFOCROSSING_HEADINGS


#: where a command puts the deal's headings on a report it shows (never in --json)
HEADINGS = "_headings"
#: and the agreement's own sentence for each clause the report cites (issue 35)
AGREEMENT_WORDS = "_agreement_words"


def _short(section: str) -> str:
    from ledger.registration_terms import short_section

    return short_section(section)


def show_status(result: dict[str, Any], out: Any) -> None:
    """RRA §2(a), §3(a): the shelf's deadlines and dates, and the Registration Defaults."""
    reg = result["registration"]
    h = headings(result)
    summary = _table(f"Shelf Registration Statement ({h['shelf']})",
                     [("", "text"), ("date", "fix")])
    summary.add_row(f"Filing Deadline ({_short(h['filing'])})", day(reg.get("filing_deadline")))
    summary.add_row("filed on", day(reg.get("filed_on"), "not filed"))
    summary.add_row(f"Effectiveness Target Date ({_short(h['effectiveness'])})",
                    day(reg.get("effectiveness_deadline")))
    summary.add_row("declared effective on", day(reg.get("effective_on"), "not effective"))
    summary.add_row(f"Effectiveness Period ends ({_short(h['period'])})",
                    day(reg.get("effectiveness_period_end")))
    summary.add_row(f"in default on {result['as_of']}",
                    "[bold red]yes[/bold red]" if reg.get("in_default") else "no")
    out.print(summary)
    defaults = reg.get("defaults") or []
    if not defaults:
        out.print(f"No Registration Default ({h['damages']}).")
        return
    table = _table(f"Registration Defaults ({h['damages']}); accrual runs to the cure, "
                   f"exclusive",
                   [("clause", "fix"), ("default date", "fix"), ("accrual from", "fix"),
                    ("cured on", "fix"), ("accrues to (excl.)", "fix?"), ("episode", "num?")])
    for d in defaults:
        table.add_row(plain(d["clause"]), day(d["default_date"]), day(d["accrual_from"]),
                      day(d.get("cured_on"), "not cured"), day(d.get("accrual_until")),
                      str(d["episode"]) if d.get("episode") is not None else NONE)
    out.print(table)


def show_interest(result: dict[str, Any], out: Any) -> None:
    """RRA §3(a), §3(b): Additional Interest per Interest Payment Date and Holder."""
    ai = result["additional_interest"]
    payments = ai.get("payments") or []
    if not payments:
        out.print("No Interest Payment Date with Additional Interest.")
    else:
        schedule = _table(f"Interest Payment Dates with Additional Interest "
                          f"({headings(result)['payment']})",
                          [("payment date", "fix"), ("pays on", "fix?"),
                           ("record date", "fix?"), ("period", "text"), ("amount", "num"),
                           ("paid", "num?2"), ("status", "text")],
                          caption=f"day count {ai.get('day_count', NONE)}; paid to the Record "
                                  "Holders; the period ends on the payment date, exclusive")
        for p in payments:
            late = " (late)" if p.get("late") else ""
            schedule.add_row(p["payment_date"], day(p.get("paid_on")), day(p.get("record_date")),
                             f"{p['period_start']} → {p['period_end']}", money(p["total"]),
                             money(p.get("paid_total")), status(p["status"]) + late)
        out.print(schedule)
        table = _table("Additional Interest per Holder (each amount rounded once, half-up)",
                       [("payment date", "fix"), ("holder", "text"), ("amount", "num"),
                        ("paid", "num?"), ("payment status", "text")])
        for p in payments:
            amounts, paid = p.get("amounts") or {}, p.get("paid") or {}
            holders = list(amounts) + [h for h in paid if h not in amounts]
            own = p.get("statuses") or {}
            late_holders = p.get("late_holders") or []
            for i, holder in enumerate(holders):
                table.add_row(p["payment_date"] if i == 0 else "", plain(holder),
                              money(amounts.get(holder)), money(paid.get(holder)),
                              status(own.get(holder, p["status"]))
                              + (" (late)" if holder in late_holders else ""),
                              end_section=i == len(holders) - 1)
        out.print(table)
    totals = _table(f"Accrued through {ai.get('accrued_through', result['as_of'])}",
                    [("holder", "text"), ("accrued", "num")])
    for holder, amount in (ai.get("by_holder") or {}).items():
        totals.add_row(plain(holder), money(amount))
    totals.add_row("[bold]total accrued[/bold]", f"[bold]{money(ai['accrued_to_as_of'])}[/bold]",
                   end_section=True)
    if "paid_to_as_of" in ai:
        totals.add_row("total paid", money(ai["paid_to_as_of"]))
    out.print(totals)


def show_suspensions(result: dict[str, Any], out: Any) -> None:
    """RRA §4(b)(i), §3(a)(iv): Suspension Periods, the windows' use and what remains."""
    s = result["suspensions"]
    periods = s.get("periods") or []
    if periods:
        table = _table(f"Suspension Periods ({headings(result)['suspensions']}); end exclusive",
                       [("#", "num?2"), ("start", "fix"), ("end", "fix"), ("days", "num"),
                        ("material transaction", "fix?"), ("last permitted day", "fix")])
        for i, p in enumerate(periods, start=1):
            table.add_row(str(i), p["start"], day(p.get("end"), "open"), str(p["days"]),
                          yes_no(p.get("material_transaction")),
                          day(p.get("last_permitted_day")))
        out.print(table)
    else:
        out.print("No Suspension Period.")

    windows = s["windows"] if "windows" in s else [_window(s, label, n) for label, n in zip(
        headings(result)["windows"].split(", "), ("90", "360"))]
    if not windows:
        out.print("No suspension window in the deal's terms.")
    else:
        _allowances(result, windows, out)
    breaches = s.get("breaches") or []
    if not breaches:
        out.print("No suspension beyond its limits.")
        return
    table = _table("Suspension days beyond the limits",
                   [("clause", "fix"), ("kind", "text?"), ("period start", "fix?"),
                    ("first day", "fix"), ("last day", "fix"), ("days", "num"), ("limit", "num")])
    for b in breaches:
        table.add_row(plain(b.get("clause")), plain(b.get("kind")), day(b.get("period_start")),
                      day(b.get("first_day")), day(b.get("last_day")), str(b.get("days", NONE)),
                      str(b.get("limit", NONE)))
    out.print(table)


def _allowances(result: dict[str, Any], windows: list[dict[str, Any]], out: Any) -> None:
    """The suspension allowances table: a column per window."""

    def n(w: dict[str, Any], key: str) -> str:
        return NONE if w.get(key) is None else str(w[key])

    def with_material(w: dict[str, Any], key: str) -> str:
        material = w.get(f"{key}_material")
        return n(w, key) + (f" ({material} with a material transaction)"
                            if material is not None else "")

    def most(w: dict[str, Any]) -> str:
        end = w.get("max_end")
        return n(w, "max") + (f" (window ending {end})" if end else "")

    table = _table(f"Suspension allowances on {result['as_of']} "
                   f"({headings(result)['limit_defaults']})",
                   [("", "text"), *((f"{w['window']} window", "text") for w in windows)])
    table.add_row(f"suspended days in the window ending {result['as_of']}",
                  *(n(w, "trailing") for w in windows))
    table.add_row("most in any window so far", *(most(w) for w in windows))
    table.add_row("limit", *(with_material(w, "limit") for w in windows))
    table.add_row("remaining", *(with_material(w, "remaining") for w in windows))
    table.add_row("grows again on", *(day(w.get("grows_on")) for w in windows))
    out.print(table)


def _window(s: dict[str, Any], label: str, n: str) -> dict[str, Any]:
    """One window's figures as ``suspensions.windows`` gives them, from the keys of a deal
    with two windows of so many days (``_90``: the first, ``_360``: the last)."""
    return {"window": label, "trailing": s.get(f"trailing_{n}"), "max": s.get(f"max_{n}"),
            "max_end": s.get(f"max_{n}_window_end"), "limit": s.get(f"limit_{n}"),
            "limit_material": s.get(f"limit_{n}_material"),
            "remaining": s.get(f"remaining_{n}"),
            "remaining_material": s.get(f"remaining_{n}_material"),
            "grows_on": s.get(f"grows_{n}_on")}


DEADLINE_ORDER = {"open": 0, "missed": 1}
#: the Registration Defaults that break "continuously effective" (RRA §2(a)(iii)): the
#: shelf unusable past the cure (§3(a)(iii)), a suspension past its limits (§3(a)(iv))
def interruptions(result: dict[str, Any]) -> tuple[str, ...]:
    """RRA §2(a)(iii): the Registration Defaults that broke the Shelf Registration
    Statement's continuous effectiveness, as the keep-effective obligation of the report
    lists them (``projections.obligations``: the rule is decided there, not here)."""
    for o in result.get("obligations") or ():
        if o.get("kind") == "keep-effective":
            return tuple(o.get("triggered") or ())
    return ()


def _is_keep_effective(o: dict[str, Any], result: dict[str, Any]) -> bool:
    period = headings(result)["period"]
    return bool(period) and str(o.get("clause", "")).startswith(period)


def show_deadlines(result: dict[str, Any], out: Any) -> None:
    """RRA §2, §3(b), §4: every obligation with its due date; open and missed first."""
    deadlines = result.get("deadlines") or []
    if not deadlines:
        out.print("No obligation with a due date yet.")
        return
    ordered = sorted(deadlines, key=lambda o: (DEADLINE_ORDER.get(o["status"], 2),
                                               o["status"] == "met"))
    table = _table(f"Obligations on {result['as_of']}: open and missed first, then met",
                   [("due", "fix"), ("status", "fix"), ("obligation", "text"),
                    ("clause", "text?"), ("done on", "fix")])
    broken = interruptions(result)
    for o in ordered:
        done = (o["met_on"] if o.get("met_on") else
                f"{o['late_on']} (late)" if o.get("late_on") else NONE)
        what = o["obligation"]
        if broken and _is_keep_effective(o, result):
            # "missed" here means not kept *continuously* (RRA §2(a)(iii)): say how, in the
            # words of the obligations view (which shows it violated, cured, discharged)
            what += f"; interrupted by {'; '.join(broken)}"
        table.add_row(o["due"], status(o["status"]), plain(what), plain(o["clause"]), done)
    out.print(table)


def show_consents(result: dict[str, Any], out: Any) -> None:
    """RRA §1 Majority of Holders, §10(D), §10(H): the consenting share per matter."""
    majority = result.get("majority") or {}
    if not majority:
        out.print(f"No consent recorded ({headings(result)['amendments']}).")
        return
    table = _table(f"Consents ({headings(result)['amendments']}): a Majority of Holders is "
                   f"more than 50%",
                   [("matter", "text"), ("consenting", "num"), ("outstanding", "num?2"),
                    ("share", "num"), ("> 50%", "fix"), ("holders consenting", "text?")])
    for matter, m in majority.items():
        table.add_row(plain(matter), money(m["consenting"]), money(m["total"]), percent(m["share"]),
                      "[bold green]yes[/bold green]" if m["majority"] else "[red]no[/red]",
                      plain(", ".join(m.get("holders") or [])))
    out.print(table)


def show_notices(result: dict[str, Any], out: Any) -> None:
    """RRA §10(E): when each notice is deemed given."""
    notices = result.get("notices") or []
    if not notices:
        return
    table = _table(f"Notices ({headings(result)['notices']})", [("sent", "fix"), ("method", "fix?"),
                                            ("deemed given", "fix"), ("to", "text"),
                                            ("subject", "text")])
    for n in notices:
        table.add_row(day(n.get("sent_on")), plain(n.get("method")),
                      day(n.get("deemed_given"), "not yet"), plain(n.get("to")),
                      plain(n.get("subject")))
    out.print(table)


# ---------------------------------------------------------------- letter (true-up)

def show_trueup(result: dict[str, Any], out: Any) -> None:
    """Letter ¶3: true-up shares per Warrantholder, and per exercise or conversion."""
    from rich.markup import escape

    t = result["true_up"]
    cutoff = t.get("true_up_cutoff")
    table = _table("True-up shares per holder (Letter ¶3)",
                   [("holder", "text"), ("owed", "num"), ("issued", "num"),
                    ("outstanding", "num")],
                   caption="owed = every true-up share earned so far; outstanding = owed "
                           "- issued")
    for holder, h in (t.get("holders") or {}).items():
        table.add_row(plain(holder), shares(h["owed"]), shares(h["issued"]),
                      shares(h["outstanding"]))
    out.print(table)
    exercises = t.get("exercises") or []
    if exercises:
        rule = f"before {cutoff}" if cutoff else "before the cutoff"
        table = _table(f"Exercises and conversions: eligible if dated {rule}",
                       [("instrument", "fix"), ("holder", "text"), ("date", "fix"),
                        ("eligible", "fix?"), ("shares issued", "num?"), ("entitled", "num?"),
                        ("owed", "num")])
        for e in exercises:
            table.add_row(plain(e["instrument"]), plain(e.get("holder")), e["date"],
                          yes_no(e["eligible"]), shares(e["shares_issued"]),
                          shares(e["entitled"]), shares(e["owed"]))
        out.print(table)
    else:
        out.print("No exercise or conversion.")
    for d in t.get("discrepancies") or []:
        what = ", ".join(f"{k}={v}" for k, v in d.items() if k not in ("event", "note"))
        out.print(f"[yellow]note:[/yellow] {escape(what)}")


def show_instruments(result: dict[str, Any], out: Any) -> None:
    """Letter ¶2, ¶3: each Warrant and Series A Preferred position now, and the adjustment
    still deferred (if every unvested Camden Warrant vested)."""
    t = result["true_up"]
    formula = t.get("formula")
    table = _table("Instruments (Letter ¶2): current price and shares",
                   [("instrument", "fix"), ("holder", "text"), ("kind", "fix?"),
                    ("price", "num"), ("shares", "num"), ("exercised", "num?"),
                    ("deferred\nprice", "num?2"), ("deferred\nshares", "num?2")],
                   caption="deferred: the price and shares if every unvested Camden Warrant "
                           f"vested on {result['as_of']}"
                           + (f"; formula {formula}" if formula else ""))
    for i in t.get("instruments") or []:
        table.add_row(plain(i["instrument"]), plain(i["holder"]), i["kind"], day(i.get("price")),
                      shares(i.get("shares")), day(i.get("exercised_fraction")),
                      day(i.get("deferred_price_if_all_vest")),
                      shares(i.get("deferred_shares_if_all_vest")))
    out.print(table)
    camden = t.get("camden") or {}
    if camden:
        table = _table("Camden Warrants", [("holder", "text"), ("issued", "num"),
                                           ("vested", "num"), ("cancelled", "num"),
                                           ("unvested", "num")])
        for holder, c in camden.items():
            table.add_row(plain(holder), shares(c.get("issued")), shares(c.get("vested")),
                          shares(c.get("cancelled")), shares(c.get("unvested")))
        out.print(table)


# ---------------------------------------------------------------- the views

def _part(*keys: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda result: {k: result[k] for k in keys if k in result}


def _true_up(*, only: str | None = None, without: str | None = None
             ) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def pick(result: dict[str, Any]) -> dict[str, Any]:
        t = result["true_up"]
        if only is not None:
            return {"true_up": {only: t[only]}}
        return {"true_up": {k: v for k, v in t.items() if k != without}}
    return pick


@dataclass(frozen=True)
class View:
    """A readable view: the command name, the deal kind it reads, what ``--json`` prints
    beside the head, and how to draw it."""
    name: str
    kind: str
    help: str
    part: Callable[[dict[str, Any]], dict[str, Any]]
    show: Callable[[dict[str, Any], Any], None]


VIEWS: dict[str, View] = {v.name: v for v in (
    View("status", REGISTRATION_RIGHTS,
         "Filing and effectiveness deadlines and dates, whether in default, and the "
         "Registration Defaults of DEAL (RRA §2(a), §3(a)).",
         _part("registration"), show_status),
    View("interest", REGISTRATION_RIGHTS,
         "Additional Interest of DEAL per Interest Payment Date and Holder: amount, paid, "
         "status, and totals (RRA §3(a), §3(b)).",
         _part("additional_interest"), show_interest),
    View("suspensions", REGISTRATION_RIGHTS,
         "Suspension Periods of DEAL, days used in the trailing 90 and 360 days, the most "
         "in any window, what remains and when it grows again, breaches (RRA §4(b)(i), "
         "§3(a)(iv)).",
         _part("suspensions"), show_suspensions),
    View("deadlines", REGISTRATION_RIGHTS,
         "Every obligation of DEAL with its due date and status, open and missed first "
         "(RRA §2, §3(b), §4).",
         _part("deadlines"), show_deadlines),
    View("consents", REGISTRATION_RIGHTS,
         "Consents of DEAL per matter and whether they make a Majority of Holders "
         "(RRA §1, §10(D), §10(H)).",
         _part("majority"), show_consents),
    View("trueup", ANTIDILUTION_DEFERRAL,
         "True-up shares of DEAL per holder (owed, issued, outstanding) and per exercise or "
         "conversion (Letter ¶3).",
         _true_up(without="instruments"), show_trueup),
    View("instruments", ANTIDILUTION_DEFERRAL,
         "Warrants and Series A Preferred of DEAL: current price and shares, fraction "
         "exercised, and the price if every unvested Camden Warrant vested (Letter ¶2).",
         _true_up(only="instruments"), show_instruments),
)}

REPORT_ORDER = {REGISTRATION_RIGHTS: ("status", "interest", "suspensions", "deadlines",
                                      "consents"),
                ANTIDILUTION_DEFERRAL: ("trueup", "instruments")}


def view_json(view: View, result: dict[str, Any]) -> dict[str, Any]:
    """What ``VIEW --json`` prints: the report's head and the view's part, nested as in
    the whole report."""
    return {**{k: result[k] for k in HEAD if k in result}, **view.part(result)}


def views_for(kind: str) -> tuple[str, ...]:
    return REPORT_ORDER.get(kind, ())


def show_view(view: View, result: dict[str, Any], out: Any,
              switched_from: dict[str, str] | None = None) -> None:
    show_head(result, out, switched_from)
    view.show(result, out)


def show_report(result: dict[str, Any], out: Any,
                switched_from: dict[str, str] | None = None) -> None:
    """Every readable view of one report, in the order a reader needs them."""
    show_head(result, out, switched_from)
    for name in views_for(result["kind"]):
        out.print()
        VIEWS[name].show(result, out)
    if result["kind"] == REGISTRATION_RIGHTS and result.get("notices"):
        out.print()
        show_notices(result, out)
    if result.get(AGREEMENT_WORDS):
        out.print()
        show_agreement_words(result, out)


def show_agreement_words(result: dict[str, Any], out: Any) -> None:
    """The agreement's own sentence for each clause the report cites (the deal's terms
    carry it, from the template or from ``terms draft``)."""
    from rich.markup import escape

    out.print("[bold]The agreement's words[/bold] (each clause this report cites)")
    for w in result[AGREEMENT_WORDS]:
        said = " ... ".join(f'"{q}"' for q in w["quotes"])
        out.print(f"[bold]{escape(w['clause'])}[/bold]: {escape(said)}")
