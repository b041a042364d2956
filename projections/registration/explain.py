"""Explaining the Registration Rights Agreement's figures (the shelf, the defaults, the
Additional Interest, the suspensions, the deadlines, the consents and the notices).

One explainer per kind of figure of the report's ``registration``, ``additional_interest``,
``suspensions``, ``deadlines``, ``majority`` and ``notices`` parts, each building an
explanation node (``projections.explanation``) from the figure's basis. The arithmetic of
amounts, deadlines, defaults and consents comes with the steps the engine recorded
(``projections.worked``); sums of the report's figures, suspended days and the allowance
left are worked out here, as steps, from the report's own figures.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any, Iterable, Mapping

from projections.explanation import Context, added, checks_of, deal_opened, generic, words
from projections.worked import Step, Worked, show

def _default_item(c: Context) -> dict:
    d = c.loc.at(3)
    return c.from_basis(d["basis"], f"Registration Default {d['kind']}: default date "
                                    f"{d['default_date']}, accrual from {d['accrual_from']}")


def _deadline_entry(c: Context, clause: str) -> dict | None:
    return next((o for o in c.report.get("deadlines", []) if o["clause"] == clause), None)


def _shelf_deadline(clause: str, what: str):
    def explain_it(c: Context) -> dict:
        o = _deadline_entry(c, clause)
        if o is None:
            return c.node(f"the {what}", clause=clause, rule=f"the {what} (no deadline entry)")
        return c.from_basis(o["basis"], f"the {what}: {o['due']} ({o['status']})")
    return explain_it


def _shelf_event(clause: str, event_type: str, what: str):
    def explain_it(c: Context) -> dict:
        o = _deadline_entry(c, clause)
        ids = c.of_type(o["events"] if o else [], event_type)
        if c.loc.value is None:
            return c.node(f"not {what} as of {c.report.get('as_of')}", clause=clause,
                          rule=f"no {event_type} event dated on or before as_of is known")
        return c.node(f"{what} on {c.loc.value}", clause=clause, events=ids,
                      rule=f"the date of the {event_type} event")
    return explain_it


def _period_end(c: Context) -> dict:
    basis = c.report["registration"].get("effectiveness_period_basis")
    if not basis:
        return c.node("no Effectiveness Period yet", clause="RRA §2(a)(iii)",
                      rule="the Effectiveness Period starts when the shelf is declared effective")
    return c.from_basis(basis, f"the Effectiveness Period ends {c.loc.value}")


def _accruing(d: Mapping[str, Any], day: str) -> bool:
    return d["accrual_from"] <= day and (d["accrual_until"] is None or day < d["accrual_until"])


def _in_default(c: Context) -> dict:
    as_of = c.report["as_of"]
    defaults = c.report["registration"]["defaults"]
    live = [d for d in defaults if _accruing(d, as_of)]
    parts = [c.from_basis(d["basis"], f"Registration Default {d['kind']} accrues from "
                                      f"{d['accrual_from']} to "
                                      f"{d['accrual_until'] or 'its cure'} (exclusive)")
             for d in live]
    text = (f"{as_of} lies in the accrual of " + ", ".join(d["kind"] for d in live)
            if live else f"no listed Registration Default accrues on {as_of} "
                         f"({len(defaults)} listed)")
    if not live and defaults:
        last = max(defaults, key=lambda d: d["accrual_until"] or "9999")
        parts = [c.from_basis(last["basis"], f"the latest, Registration Default {last['kind']}, "
                                             f"accrued until {last['accrual_until']} (exclusive)")]
    return c.node(f"in default on {as_of}: {str(c.loc.value).lower()}", clause="RRA §3(a)",
                  rule="in default while a Registration Default accrues Additional Interest: "
                       "from the day after its default date to the day before its cure",
                  arithmetic=words(text), parts=parts)


def _payment(c: Context) -> Mapping[str, Any]:
    return c.loc.at(3)


def _segments_in(c: Context, start: str, end: str) -> list[dict]:
    """The rate segments of an interest period, each with the Registration Defaults that
    made it accrue: their kind, default date, clause and events (issue 31, item 9: an
    amount's explanation cited §3(a) and the rate, never the default that caused it)."""
    ai = c.report["additional_interest"]
    return [c.from_basis(s["basis"], f"rate {s['rate']}% from {s['start']} to {s['last_day']}",
                         topic="rate", parts=_defaults_of(c, s["defaults"]))
            for s in ai.get("rate_segments", []) if s["start"] < end and s["end"] > start]


def _amount_node(c: Context, pay: Mapping[str, Any], holder: str, deep: bool = True) -> dict:
    basis = pay["basis"][holder]
    parts = _segments_in(c, pay["period_start"], pay["period_end"]) if deep else []
    return c.from_basis(basis, f"Additional Interest for {holder} on the Interest Payment "
                               f"Date {pay['payment_date']}: {pay['amounts'][holder]}",
                        parts=parts)


def _payment_amount(c: Context) -> dict:
    return _amount_node(c, _payment(c), c.loc.trail[4][1])


def _payment_total(c: Context) -> dict:
    pay = _payment(c)
    holders = list(pay["amounts"])
    return c.node(f"total Additional Interest for {pay['payment_date']}: {pay['total']}",
                  clause="RRA §3(a), §3(b)",
                  rule="the sum of each Record Holder's amount, each rounded once",
                  arithmetic=added([pay["amounts"][h] for h in holders], pay["total"]),
                  parts=[_amount_node(c, pay, h, deep=False) for h in holders])


def _paid_events(c: Context, pay: Mapping[str, Any], holder: str | None) -> list[str]:
    ids = c.of_type(pay.get("paid_events", []), "AdditionalInterestPaid")
    return [i for i in ids if holder is None or c.events[i].data.get("holder") == holder]


def _paid_holder(c: Context) -> dict:
    pay, holder = _payment(c), c.loc.trail[4][1]
    ids = _paid_events(c, pay, holder)
    amounts = [format(c.events[i].data["amount"], "f") for i in ids]
    return c.node(f"paid to {holder} for {pay['payment_date']}: {c.loc.value}",
                  clause="RRA §3(b)", events=ids,
                  rule="the AdditionalInterestPaid events for this holder and payment date",
                  arithmetic=added(amounts, str(c.loc.value)))


def _paid_total(c: Context) -> dict:
    pay = _payment(c)
    ids = _paid_events(c, pay, None)
    return c.node(f"paid for {pay['payment_date']}: {pay['paid_total']}", clause="RRA §3(b)",
                  events=ids, rule="the AdditionalInterestPaid events for this payment date",
                  arithmetic=added([format(c.events[i].data["amount"], "f") for i in ids],
                                       pay["paid_total"]))


def _payment_status(c: Context) -> dict:
    pay = _payment(c)
    as_of = c.report["as_of"]
    return c.node(f"status of {pay['payment_date']}: {pay['status']}"
                  + (", late" if pay.get("late") else ""),
                  clause="RRA §3(b)", events=_paid_events(c, pay, None),
                  rule="accruing while the interest period is open on as_of; then due, paid, "
                       "underpaid or overpaid by comparing each Holder's payments with its "
                       "amount; late when a Holder is short after the payment day",
                  arithmetic=words(f"amounts {pay['total']}, paid {pay['paid_total']}; period ends "
                              f"{pay['period_end']}, payable {pay['paid_on']}, as of {as_of}"),
                  parts=[_payment_total(c)])


def _payment_schedule(c: Context) -> dict:
    from ledger.calendar import FED

    pay = _payment(c)
    due, paid_on = date.fromisoformat(pay["payment_date"]), date.fromisoformat(pay["paid_on"])
    skipped = []
    day = due
    while day < paid_on:
        skipped.append(f"{day} {FED.closed_reason(day) or 'declared closed by an override'}")
        day += timedelta(days=1)
    roll = (f"{due} is a Business Day" if not skipped
            else f"not Business Days: {'; '.join(skipped)}; paid on {paid_on}")
    clause = "RRA §3(b), §1 Record Holder, §1 Business Day"
    return c.node(f"Interest Payment Date {pay['payment_date']}", clause=clause,
                  rule="semi-annually in arrears for the interest period ending on the Interest "
                       "Payment Date, to the Record Holders on the record date; a day that is "
                       "not a Business Day pays on the next Business Day",
                  arithmetic=words(f"period {pay['period_start']} to {pay['period_end']}; record date "
                              f"{pay['record_date']}; {roll}"))


def _holder_total(c: Context) -> dict:
    holder = c.loc.trail[-1][1]
    ai = c.report["additional_interest"]
    pays = [p for p in ai["payments"] if holder in p["amounts"]]
    return c.node(f"Additional Interest for {holder} to {c.report['as_of']}: {c.loc.value}",
                  clause="RRA §3(a), §3(b)",
                  rule="the sum of the holder's amount for each Interest Payment Date, each "
                       "rounded once, counting days up to and including as_of",
                  arithmetic=added([p["amounts"][holder] for p in pays], str(c.loc.value)),
                  parts=[_amount_node(c, p, holder) for p in pays])


def _accrued_total(c: Context) -> dict:
    ai = c.report["additional_interest"]
    by = ai["by_holder"]
    parts = []
    for h in by:
        sub = c.at(f"additional_interest.by_holder.{json.dumps(h, ensure_ascii=False)}")
        parts.append(_holder_total(sub))
    return c.node(f"Additional Interest accrued to {c.report['as_of']}: {c.loc.value}",
                  clause="RRA §3(a), §3(b)", rule="the sum over the Holders",
                  arithmetic=added(list(by.values()), str(c.loc.value)), parts=parts)


def _paid_to_as_of(c: Context) -> dict:
    ai = c.report["additional_interest"]
    pays = [p for p in ai["payments"] if p["paid_events"]]
    ids = [i for p in pays for i in _paid_events(c, p, None)]
    return c.node(f"Additional Interest paid to {c.report['as_of']}: {c.loc.value}",
                  clause="RRA §3(b)", events=ids, rule="the sum of AdditionalInterestPaid",
                  arithmetic=added([p["paid_total"] for p in pays], str(c.loc.value)))


def _defaults_of(c: Context, indices: Iterable[int]) -> list[dict]:
    ds = c.report["registration"]["defaults"]
    return [c.from_basis(ds[k]["basis"], f"Registration Default {ds[k]['kind']} "
                                         f"(default date {ds[k]['default_date']})")
            for k in indices if 0 <= k < len(ds)]


def _episode(c: Context) -> dict:
    ep = c.loc.at(3)
    return c.node(f"default episode {ep['episode']}: {ep['start']} to {ep['end']}",
                  clause="RRA §3(a)", interpretations=["overlapping_defaults"],
                  rule="overlapping or adjacent Registration Defaults form one episode with one "
                       "rate clock; a new episode after a cure starts again at the first rate",
                  parts=_defaults_of(c, ep["defaults"]))


def _rate_segment(c: Context) -> dict:
    s = c.loc.at(3)
    return c.from_basis(s["basis"], f"rate {s['rate']}% from {s['start']} to {s['last_day']}",
                        topic="rate", parts=_defaults_of(c, s["defaults"]))


def _day_count(c: Context) -> dict:
    return c.node(f"day count {c.loc.value}", rule="the deal's day_count term, set when the deal "
                  "was opened: 30/360 US unless its terms say otherwise", events=deal_opened(c))


def _accrued_through(c: Context) -> dict:
    return c.node(f"days counted through {c.loc.value}", clause="RRA §3(a)",
                  rule="Additional Interest is counted up to and including as_of")


# ------------------------------------------------------------------- suspensions


def _limits(c: Context) -> Mapping[str, Any]:
    return c.report["suspensions"]


def _period_node(c: Context, p: Mapping[str, Any]) -> dict:
    end = p["end"] or f"{c.report['as_of']} (still open)"
    stop = (date.fromisoformat(p["end"]) if p["end"]
            else date.fromisoformat(c.report["as_of"]) + timedelta(days=1))
    return c.node(f"Suspension Period from {p['start']}: {p['days']} days",
                  clause="RRA §4(b)(i), §4(c)", events=p["events"],
                  rule="a Suspension Period covers the days from SuspensionStarted to the day "
                       "before SuspensionEnded (an open one counts through as_of)",
                  arithmetic=Worked(f"{p['start']} up to {end}: {p['days']} days", (
                      Step("days", (date.fromisoformat(p["start"]), stop), p["days"],
                           "days of the Suspension Period"),)))


def _suspension_period(c: Context) -> dict:
    p = c.loc.at(3)
    field = c.loc.trail[3][1] if len(c.loc.trail) > 3 else None
    if field == "last_permitted_day":
        limit = (_limits(c)["limit_90_material"] if p["material_transaction"]
                 else _limits(c)["limit_90"])
        return c.node(f"its {limit}th day: {p['last_permitted_day']}", clause="RRA §3(a)(iv)(A)",
                      events=p["events"],
                      rule="a Suspension Period must end by its 45th day (60th with a material "
                           "transaction): start + 44 (59) days",
                      arithmetic=Worked(
                          f"{p['start']} + {limit - 1} days = {p['last_permitted_day']}",
                          (Step("plus_days", (date.fromisoformat(p["start"]), limit - 1),
                                date.fromisoformat(p["last_permitted_day"]),
                                "its last permitted day"),)),
                      parts=[_period_node(c, p)])
    return _period_node(c, p)


def _window_days(c: Context, length: int, last: date | None = None
                 ) -> tuple[list[Step], list[Mapping[str, Any]]]:
    """The suspended days of each Suspension Period inside the ``length``-day window
    ending on ``last`` (as_of by default), as steps, and the periods they fall in."""
    as_of = date.fromisoformat(c.report["as_of"])
    last = last or as_of
    first = last - timedelta(days=length - 1)
    counts, used = [], []
    for p in _limits(c)["periods"]:
        start = date.fromisoformat(p["start"])
        stop = date.fromisoformat(p["end"]) if p["end"] else as_of + timedelta(days=1)
        lo, hi = max(start, first), min(stop, last + timedelta(days=1))
        days = (hi - lo).days
        if days > 0:
            counts.append(Step("days", (lo, hi), days, f"suspended from {p['start']}",
                               text=str(days)))
            used.append(p)
    return counts, used


def _window_sum(counts: list[Step], total: Any) -> Worked:
    text = " + ".join(str(s.result) for s in counts) or "nothing to add up"
    return Worked(f"{text} = {total}", (Step("sum", tuple(counts), total, "days in the window"),))


def _trailing(c: Context) -> dict:
    key = c.loc.trail[-1][1]
    length = 90 if key.endswith("90") else 360
    counts, used = _window_days(c, length)
    return c.node(f"suspended days in the {length} days ending {c.report['as_of']}: "
                  f"{c.loc.value}", clause="RRA §4(b)(i), §3(a)(iv)(B)",
                  rule=f"days of Suspension Periods inside the trailing {length}-day window",
                  arithmetic=_window_sum(counts, c.loc.value),
                  parts=[_period_node(c, p) for p in used])


def _suspension_figure(c: Context) -> dict:
    key = c.loc.trail[-1][1]
    s = _limits(c)
    if key.startswith("max_"):
        length = key.split("_")[1]
        end = s.get(f"max_{length}_window_end")
        most = s[f"max_{length}"]
        return c.node(f"most suspended days in any {length}-day window so far: {most}",
                      clause="RRA §4(b)(i), §3(a)(iv)(B)",
                      rule=f"the largest total of suspended days in a {length}-day window "
                           "ending on or before as_of",
                      arithmetic=_window_most(c, int(length), end, most),
                      parts=[_period_node(c, p) for p in s["periods"]])
    if key.startswith("remaining_"):
        rest = key[len("remaining_"):]
        limit = s[f"limit_{rest}"]
        used = s["trailing_360" if rest == "360" else "trailing_90"]
        return c.node(f"suspension days still allowed ({rest}): {c.loc.value}",
                      clause="RRA §4(b)(i)", rule="the limit less the days in the trailing window",
                      arithmetic=Worked(f"{limit} - {used} = {c.loc.value}" if limit >= used
                                        else f"max(0, {limit} - {used}) = 0", (
                          Step("max", (Step("difference", (limit, used), limit - used), 0),
                               c.loc.value, "days still allowed"),)))
    if key.startswith("limit_"):
        return c.node(f"suspension limit {key}: {c.loc.value}", clause="RRA §4(b)(i), §3(a)(iv)",
                      rule="45 days in any 90-day period (60 with a material transaction), 90 "
                           "in any 360-day period (the deal's suspension_limits term)")
    if key.startswith("grows_"):
        return c.node(f"the allowance grows again on {c.loc.value}", clause="RRA §4(b)(i)",
                      rule="the first day the trailing window drops a suspended day, assuming "
                           "no suspension after as_of")
    return generic(c)


def _window_most(c: Context, length: int, end: str | None, most: int) -> Worked:
    """``the window ending END holds MOST days``, the days counted again as steps."""
    text = f"the window ending {end} holds {most} days"
    if not end:
        return words(text)
    counts, _ = _window_days(c, length, date.fromisoformat(end))
    return Worked(text, (Step("sum", tuple(counts), most, f"days in the window ending {end}"),))


def _breach(c: Context) -> dict:
    b = c.loc.at(3)
    return c.from_basis(b["basis"], f"suspension breach ({b['kind']}) from {b['first_day']} to "
                                    f"{b['last_day']}")


# ------------------------------------------------------------ deadlines and consents


def _deadline(c: Context) -> dict:
    o = c.loc.at(2)
    return c.from_basis(o["basis"], f"{o['obligation']}: due {o['due']}, {o['status']}")


def _majority(c: Context) -> dict:
    m = c.loc.at(2)
    node = c.from_basis(m["basis"], f"consent to {c.loc.trail[1][1]!r}: {m['share']} of the "
                                    f"principal counted, majority {str(m['majority']).lower()}")
    field = c.loc.trail[2][1] if len(c.loc.trail) > 2 else None
    if field == "share" and Decimal(m["total"]):
        share = Fraction(Decimal(m["consenting"])) / Fraction(Decimal(m["total"]))
        places = len(m["share"].partition(".")[2])
        node["arithmetic"] = Worked(
            f"{m['consenting']} / {m['total']} = {show(share)} → {m['share']}",
            (Step("round", (Step("quotient", (m["consenting"], m["total"]), share),),
                  m["share"], "the share", rounding=("half_up", places)),))
        node["checks"], node["unchecked"] = checks_of(node["arithmetic"], None)
    elif field == "total":
        node["arithmetic"] = None
        node["checks"], node["unchecked"] = [], []
        node["rule"] = ("the principal of the Notes outstanding, restricted conversion shares at "
                        "shares × conversion price, less what the company and its affiliates "
                        "hold (RRA §10(H))")
    return node


def _notice(c: Context) -> dict:
    n = c.loc.at(2)
    return c.from_basis(n["basis"], f"notice to {n['to']} by {n['method']}: deemed given "
                                    f"{n['deemed_given']}")


_R = ("registration",)
_AI = ("additional_interest",)
_S = ("suspensions",)
_PAY = _AI + ("payments", "[]")

#: (pattern prefix, exact?, explainer), most specific first.
EXPLAINERS: tuple[tuple[tuple[str, ...], bool, Any], ...] = (
    (_R + ("defaults", "[]"), False, _default_item),
    (_R + ("filing_deadline",), True, _shelf_deadline("RRA §2(a)(i)", "Shelf Filing Deadline")),
    (_R + ("effectiveness_deadline",), True,
     _shelf_deadline("RRA §2(a)(ii)", "Effectiveness Target Date")),
    (_R + ("filed_on",), True, _shelf_event("RRA §2(a)(i)", "ShelfFiled", "filed")),
    (_R + ("effective_on",), True,
     _shelf_event("RRA §2(a)(ii)", "ShelfEffective", "declared effective")),
    (_R + ("effectiveness_period_end",), True, _period_end),
    (_R + ("in_default",), True, _in_default),
    (_PAY + ("amounts", "*"), True, _payment_amount),
    (_PAY + ("basis", "*"), False, _payment_amount),
    (_PAY + ("total",), True, _payment_total),
    (_PAY + ("paid", "*"), True, _paid_holder),
    (_PAY + ("paid_total",), True, _paid_total),
    (_PAY + ("status",), True, _payment_status),
    (_PAY + ("late",), True, _payment_status),
    (_PAY, False, _payment_schedule),
    (_AI + ("by_holder", "*"), True, _holder_total),
    (_AI + ("accrued_to_as_of",), True, _accrued_total),
    (_AI + ("paid_to_as_of",), True, _paid_to_as_of),
    (_AI + ("episodes", "[]"), False, _episode),
    (_AI + ("rate_segments", "[]"), False, _rate_segment),
    (_AI + ("day_count",), True, _day_count),
    (_AI + ("accrued_through",), True, _accrued_through),
    (_S + ("periods", "[]"), False, _suspension_period),
    (_S + ("breaches", "[]"), False, _breach),
    (_S + ("trailing_90",), True, _trailing),
    (_S + ("trailing_360",), True, _trailing),
    (_S, False, _suspension_figure),
    (("deadlines", "[]"), False, _deadline),
    (("majority", "*"), False, _majority),
    (("notices", "[]"), False, _notice),
)
