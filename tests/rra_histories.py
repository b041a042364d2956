"""Random registration rights deals for the differential test (``test_rra_differential``):
terms drawn as well as histories (issue 33).

``deal_terms`` draws the terms of an agreement, schema version 2: the Infocrossing RRA's
(a third of the time) or terms changed from them clause by clause, with the blocks of the
market templates (``ledger/templates``) among the choices: deadlines from other anchors,
in Business Days, rolled; Registration Default kinds switched off; other cure periods and
excusing causes; damages ladders (a step every so many days, anniversary steps, a cap),
on Notes restricted or outstanding, on Conversion Shares at the conversion price; who is
paid and in what; suspension limits as windows of days or months, a number of periods;
Effectiveness Period ends (an anniversary of another day, the Rule 144(k) date); which
sales end the restriction; a reading the deal pins. Every draw is terms the schema
accepts (``ledger.terms.registration_problems`` is asked, never the engine).

``deal_history`` draws one deal's events under its terms: issues, transfers and sales
``under`` the shelf, Rule 144 or privately, conversions and their Conversion Shares
(sold on too), retirements, the conversion price adjusted, the Rule 144(k) date, the
shelf, unusable spans and Suspension Periods, Questionnaires, calendar overrides,
payments (in cash or shares, as the terms pay), consents and amendments under the
amendment clause. Events the write side may refuse for a reason the model foretells
(a Suspension Period after the Effectiveness Period, a Questionnaire where there is none,
an amendment short of its majority) are drawn on purpose: the test compares refusals.
"""

from __future__ import annotations

import copy
from datetime import date, timedelta
from typing import Any

from hypothesis import strategies as st

from ledger.terms import TEMPLATES, registration_problems

CLOSING = date(2004, 6, 30)
HOLDERS = ["A", "B", "C", "D", "E", "F"]
OVERFLOW = "Overflow Fund"     # Notes issued to it may pass the maximum (issue 30)
NOTICE_REF = "ref:notice:"     # an acknowledgment's notice, by its deal and subject
EVENT_REF = "ref:event:"       # a retraction's target, by its place before the walk

#: the Infocrossing RRA's terms (schema version 2), JSON as a terms file gives them
BASE: dict[str, Any] = TEMPLATES["infocrossing-rra-2004"]["terms"]


def _market(name: str, key: str) -> Any:
    return copy.deepcopy(TEMPLATES[name]["terms"][key])


def days(n: int) -> timedelta:
    return timedelta(days=n)


def event(type_: str, on: str, deal: str = "rra", **data: Any) -> dict[str, Any]:
    """One public event object."""
    return {"type": type_, "deal": deal, "date": on, "data": data}


# ------------------------------------------------------------------ the terms

LADDERS = {
    "infocrossing": None,    # the base's own
    "debentures": lambda: _market("debentures-rra-2005", "damages")["steps"],
    "senior": lambda: _market("senior-notes-2002", "damages")["steps"],
}
RATES = ["0.25", "0.50", "1.00"]


def _step(**kw: Any) -> dict[str, Any]:
    return {**kw, "section": "drawn"}


@st.composite
def ladder(draw) -> list[dict[str, Any]]:
    """A damages ladder: the rate from day 1, then steps after days of a default
    (recurring, some), anniversary steps (of the closing or the Issue Date)."""
    steps = [_step(after_days=0, set=draw(st.sampled_from(RATES)))]
    after = 0
    for _ in range(draw(st.integers(0, 2))):
        after += draw(st.sampled_from([30, 60, 90]))
        how = draw(st.sampled_from(["set", "add"]))
        step = _step(after_days=after, **{how: draw(st.sampled_from(RATES))})
        if how == "add" and draw(st.booleans()):
            step["every_days"] = draw(st.sampled_from([30, 90]))
        steps.append(step)
    if draw(st.integers(0, 3)) == 0:
        years = draw(st.integers(1, 3))
        step = _step(anniversary=years, of=draw(st.sampled_from(["closing", "issue_date"])),
                     add=draw(st.sampled_from(RATES)))
        if draw(st.booleans()):
            step["every_year"] = True
        steps.append(step)
    return steps


def _deadline(draw, d: dict[str, Any], low: int, high: int) -> None:
    d["anchor"] = draw(st.sampled_from(["date_hereof", "closing", "issue_date"]))
    d["unit"] = draw(st.sampled_from(["calendar", "business"]))
    d["roll"] = draw(st.sampled_from(["none", "following"]))
    count = draw(st.integers(low, high))
    d["count"] = count if d["unit"] == "calendar" else max(1, count * 5 // 7)


@st.composite
def deal_terms(draw, day_count: str) -> dict[str, Any]:
    """Terms of a registration rights agreement closing on ``CLOSING`` (module doc)."""
    t = copy.deepcopy(BASE)
    t["payment"]["day_count"] = day_count
    if draw(st.integers(0, 2)) == 0:
        return t
    if draw(st.integers(0, 3)) == 0:
        t["issue_date"] = (CLOSING + days(draw(st.integers(1, 10)))).isoformat()
    # the shelf's deadlines
    if draw(st.integers(0, 2)):
        _deadline(draw, t["filing"], 5, 60)
    if draw(st.integers(0, 2)):
        _deadline(draw, t["effectiveness"], 60, 200)
    f, e = t["filing"], t["effectiveness"]
    if (f["anchor"], f["unit"]) == (e["anchor"], e["unit"]) and e["count"] < f["count"]:
        e["count"] = f["count"]
    # Registration Defaults switched off, cure periods, excusing causes
    defaults = t["defaults"]
    for kind in ("filing", "effectiveness", "unusable", "suspension"):
        if draw(st.integers(0, 5)) == 0:
            defaults[kind] = None
    if defaults["unusable"] is not None and draw(st.booleans()):
        defaults["unusable"]["cure"] = {"count": draw(st.integers(1, 20)),
                                        "unit": draw(st.sampled_from(["calendar", "business"]))}
        defaults["unusable"]["excused"] = draw(st.lists(st.sampled_from(
            ["suspension", "selling_holder_information"]), unique=True, max_size=2))
    # the damages
    damages = t["damages"]
    choice = draw(st.sampled_from([*LADDERS, "drawn", "drawn"]))
    if choice == "drawn":
        damages["steps"] = draw(ladder())
    elif LADDERS[choice] is not None:
        damages["steps"] = LADDERS[choice]()
    damages["cap"] = draw(st.sampled_from([None, None, "0.50", "1.00", "2.00"]))
    damages["base"] = draw(st.sampled_from(["transfer_restricted", "outstanding"]))
    damages["conversion_shares"] = draw(st.sampled_from(
        ["none", "none", "applicable_conversion_price"]))
    # the payment
    payment = t["payment"]
    if draw(st.integers(0, 3)) == 0:
        payment.update(interest_payment_dates=["03-01", "09-01"],
                       record_dates=["02-15", "08-15"], first_interest_payment_date="2004-09-01")
    payment["roll"] = draw(st.sampled_from(["none", "following"]))
    payment["paid_to"] = draw(st.sampled_from(
        ["record_holders_of_trs", "record_holders_of_trs", "record_holders",
         "questionnaire_holders", "questionnaire_holders_from_delivery"]))
    payment["paid_in"] = draw(st.sampled_from(["cash", "cash", "cash", "shares"]))
    # suspensions
    which = draw(st.sampled_from(["base", "base", "debentures", "edwards", "senior", "none",
                                  "periods"]))
    if which == "none":
        t["suspensions"] = None
    elif which == "periods":
        t["suspensions"]["max_periods"] = {"periods": draw(st.integers(1, 3)),
                                           "in_days": 360, "section": "drawn"}
    elif which != "base":
        name = {"debentures": "debentures-rra-2005", "edwards": "edwards-rra-2003",
                "senior": "senior-notes-2002"}[which]
        t["suspensions"] = _market(name, "suspensions")
    if t["suspensions"] is None or t["suspensions"].get("single") is None:
        defaults["suspension"] = None
    # the Effectiveness Period's ends
    ends = t["effectiveness_period"]["ends"]
    if draw(st.booleans()):
        ends[0]["years"] = draw(st.integers(1, 3))
        ends[0]["of"] = draw(st.sampled_from(["effective", "issue_date", "last_option_issue",
                                              "closing"]))
    if draw(st.booleans()):
        ends.append({"end": "rule_144k", "section": "drawn"})
    # the restriction
    until = t["transfer_restricted"]["until"]
    for way in ("rule_144_sale", "rule_144k"):
        if draw(st.integers(0, 2)) == 0:
            until.insert(-1, way)
    # the majority, a reading pinned
    majority = t["amendments"]["majority"]
    majority["more_than"] = draw(st.sampled_from(["0.5", "0.5", "0.66"]))
    if draw(st.integers(0, 3)) == 0:
        t["readings"] = {"overlapping_defaults": draw(st.sampled_from(
            ["episode", "additive", "highest"]))}
    if draw(st.integers(0, 5)) == 0:
        t["questionnaire"] = None
    found, problems = registration_problems(t)
    assert not problems, problems     # a draw the schema refuses is a bug of this module
    return t


# ------------------------------------------------------------------ a deal's events

@st.composite
def deal_history(draw, deal: str, big: bool, covered_tail: bool = True,
                 except_4bi: bool = True) -> list[dict[str, Any]]:
    """Event objects of one deal, its ``DealOpened`` first, the rest in date order
    (same-day order is recording order); ``covered_tail``, ``except_4bi``: the engine
    has those fixes (``test_rra_differential.FIXED``)."""
    day_count = draw(st.sampled_from(["30/360", "30/360", "ACT/360", "ACT/365F",
                                      "ACT/ACT-ISDA"]))
    terms = draw(deal_terms(day_count))
    out = [{"type": "DealOpened", "deal": deal, "date": CLOSING.isoformat(),
            "data": {"kind": "registration_rights", "name": "drawn", "terms": terms}}]
    dated: list[tuple[date, int, dict]] = []

    def add(on: date, type_: str, **data: Any) -> None:
        dated.append((max(on, CLOSING), len(dated),
                      event(type_, max(on, CLOSING).isoformat(), deal, **data)))

    holders = HOLDERS[:draw(st.integers(1, 6 if big else 3))]
    for h in holders:   # within the $60,000,000 of the closing
        if draw(st.integers(0, 5)):
            add(CLOSING, "NotesIssued", holder=h,
                principal=str(draw(st.integers(1, 60 // len(holders))) * 1_000_000))
    if draw(st.booleans()):   # the purchaser's option, later
        add(CLOSING + days(draw(st.integers(1, 60))), "NotesIssued",
            holder=draw(st.sampled_from(holders)), principal="12000000")
    if draw(st.integers(0, 3)) == 0:   # more, to a Holder no move draws: past $72M or not
        add(CLOSING + days(draw(st.integers(1, 400))), "NotesIssued", holder=OVERFLOW,
            principal=str(draw(st.integers(1, 40)) * 1_000_000),
            **({"upon": "other"} if draw(st.booleans()) else {}))   # a reissue: no option
    filed = effective = None
    if draw(st.integers(0, 5)):
        filed = CLOSING + days(draw(st.integers(3, 40) | st.integers(10, 20)))
        add(filed, "ShelfFiled")
        if draw(st.integers(0, 5)):
            effective = filed + days(draw(st.integers(10, 150) | st.integers(90, 130)))
            add(effective, "ShelfEffective")
    if draw(st.integers(0, 3)) == 0:
        add(CLOSING + days(draw(st.integers(300, 900))), "Rule144kDate")
    # the shelf after effectiveness: unusable spans and Suspension Periods
    if effective is not None:
        overlap = except_4bi and draw(st.booleans())
        cursors = {"u": effective, "s": effective}
        for _ in range(draw(st.integers(0, 6))):
            kind = draw(st.sampled_from(["u", "s", "s"]))
            lane = kind if overlap else "u"
            if cursors[lane] is None:   # an open span or period ended this lane
                continue
            start = cursors[lane] + days(draw(st.integers(0 if overlap else 1, 70)))
            length = draw(st.integers(1, 75))
            end = start + days(length)
            is_open = draw(st.integers(0, 7)) == 0
            if kind == "u":
                add(start, "ShelfUnusable", reason=draw(st.sampled_from(
                    ["stop_order", "ceased_effective", "material_misstatement", "other",
                     "selling_holder_information"])))
                if not is_open:
                    add(end, "ShelfUsable", cure=draw(st.sampled_from(
                        ["post_effective_amendment", "prospectus_supplement",
                         "exchange_act_report", "order_lifted"])))
            else:
                add(start, "SuspensionStarted", material_transaction=draw(st.booleans()))
                if draw(st.integers(0, 3)) == 0:
                    ext = start + days(draw(st.integers(0, 55)))
                    if ext < end or is_open:
                        add(ext, "SuspensionExtended")
                if not is_open:
                    add(end, "SuspensionEnded")
            cursors[lane] = end
            if is_open:
                cursors[lane] = None   # nothing more on this lane
                if not overlap:
                    break
    _moves(draw, add, dated, holders)
    # Questionnaires
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):
        asked = draw(st.sampled_from(["all", "some"]))
        day = CLOSING + days(draw(st.integers(0, 400)))
        add(day, "QuestionnaireRequested", holders="all" if asked == "all" else sorted(
            draw(st.sets(st.sampled_from(holders), min_size=1))))
    for h in draw(st.lists(st.sampled_from(HOLDERS), max_size=6)):
        add(CLOSING + days(draw(st.integers(0, 450))), "QuestionnaireDelivered", holder=h)
    if effective is not None and draw(st.integers(0, 3)) == 0:
        add(effective + days(draw(st.integers(0, 300))), "AmendmentFiled",
            kind="post_effective", holders_added=sorted(draw(st.sets(st.sampled_from(holders),
                                                                     min_size=1))),
            principal_added="2000000")
    # notices by fax or telex, some acknowledged, a few before they were sent
    for n in range(draw(st.integers(0, 2))):
        sent = CLOSING + days(draw(st.integers(0, 500)))
        add(sent, "NoticeSent", to="Trustee", subject=f"notice {n}",
            method=draw(st.sampled_from(["fax", "telex"])))
        if draw(st.integers(0, 2)):
            add(sent + days(draw(st.integers(-3, 5))), "NoticeAcknowledged",
                notice=f"{NOTICE_REF}{deal}/notice {n}")
    # calendar overrides: a day closed (or a holiday opened), declared maybe later
    for _ in range(draw(st.integers(0, 3))):
        day = CLOSING + days(draw(st.integers(1, 600)))
        add(day + days(draw(st.integers(-5, 30))), "CalendarDayDeclared", day=day.isoformat(),
            business_day=draw(st.booleans()), reason="declared")
    # the conversion price adjusted
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):
        add(CLOSING + days(draw(st.integers(1, 900))), "ConversionPriceAdjusted",
            new_price=draw(st.sampled_from(["12.50", "14.00", "20.00"])), reason="drawn")
    _payments(draw, add, terms, holders)
    _amendments(draw, add, dated, terms, holders)
    dated.sort(key=lambda t: (t[0], t[1]))
    held: set[str] = set()   # a consent or an affiliation of one who held Notes by then
    for _, _, e in dated:
        if e["type"] in ("NotesIssued", "NotesTransferred"):
            held.add(e["data"].get("holder") or e["data"]["to_holder"])
        elif e["type"] in ("ConsentGiven", "HolderAffiliation") and \
                e["data"]["holder"] not in held:
            continue
        out.append(e)
    return out


def _moves(draw, add, dated, holders) -> None:
    """The Notes and Conversion Shares moving: each Holder's balance simulated in date
    order, so that every move is of what its Holder holds (a sale under the shelf when
    none can be made is drawn too: the write side refuses it, issue 30)."""
    moves = sorted(draw(st.lists(st.tuples(
        st.integers(1, 1500), st.sampled_from(["transfer", "transfer", "shelf", "shelf",
                                                "rule_144", "convert", "retire", "shares"]),
        st.sampled_from(holders), st.sampled_from(HOLDERS[:len(holders) + 1]),
        st.sampled_from([1, 2, 4, 4])), max_size=8)))
    position = sorted((d, i, e) for d, i, e in dated if e["type"] == "NotesIssued")
    balance: dict[str, int] = {}
    shares: dict[str, int] = {}
    for d, _, e in position:
        if d == CLOSING:
            balance[e["data"]["holder"]] = balance.get(e["data"]["holder"], 0) + int(
                e["data"]["principal"])
    later_issues = [(d, e) for d, _, e in position if d > CLOSING]
    for offset, kind, frm, to, share in moves:
        day = CLOSING + days(offset)
        for d, e in list(later_issues):
            if d <= day:
                h = e["data"]["holder"]
                balance[h] = balance.get(h, 0) + int(e["data"]["principal"])
                later_issues.remove((d, e))
        if kind == "shares":
            n = shares.get(frm, 0) // share
            if n <= 0 or to == frm:
                continue
            under = draw(st.sampled_from(["private", "rule_144", "shelf"]))
            shares[frm] -= n
            shares[to] = shares.get(to, 0) + n
            add(day, "ConversionSharesTransferred", from_holder=frm, to_holder=to, shares=n,
                under=under)
            continue
        amount = balance.get(frm, 0) // share // 1000 * 1000
        if amount <= 0 or (kind in ("transfer", "shelf", "rule_144") and to == frm):
            continue
        balance[frm] -= amount
        if kind in ("transfer", "shelf", "rule_144"):
            balance[to] = balance.get(to, 0) + amount
            add(day, "NotesTransferred", from_holder=frm, to_holder=to,
                principal=str(amount), under="private" if kind == "transfer" else kind)
        elif kind == "convert":
            n = amount // 1000 * 65
            shares[frm] = shares.get(frm, 0) + n
            add(day, "NotesConverted", holder=frm, principal=str(amount), shares=n)
        else:
            add(day, "NotesRetired", holder=frm, principal=str(amount),
                reason=draw(st.sampled_from(["redeemed", "repurchased", "cancelled"])))


def _payments(draw, add, terms, holders) -> None:
    """Payments on the terms' Interest Payment Dates, in cash or shares as they pay."""
    ipds = terms["payment"]["interest_payment_dates"]
    in_shares = terms["payment"]["paid_in"] == "shares"
    for _ in range(draw(st.integers(0, 3))):
        month, day = (int(x) for x in draw(st.sampled_from(ipds)).split("-"))
        pay = date(draw(st.integers(2005, 2007)), month, day)
        cents = f"{draw(st.integers(1, 60000))}.{draw(st.integers(0, 99)):02d}"
        paid = ({"shares": draw(st.integers(1, 4000)), **({"amount": cents}
                                                           if draw(st.booleans()) else {})}
                if in_shares else {"amount": cents})
        add(pay + days(draw(st.integers(-10, 60))), "AdditionalInterestPaid",
            payment_date=pay.isoformat(), holder=draw(st.sampled_from(holders)), **paid)


def _amendments(draw, add, dated, terms, holders) -> None:
    """Consents to a matter and an amendment resting on them (or short of them): the
    damages ladder, its cap, the cure period of unusability, a suspension window's days,
    changed from the amendment's effective date. Consents and affiliations are dated
    before the amendment's day and no Note moves on it, so that nothing recorded after
    it changes the majority it was judged on."""
    for k in range(draw(st.sampled_from([0, 0, 1, 2]))):
        matter = f"amendment {k + 1}"
        moving = {d for d, _, e in dated if e["type"] in (
            "NotesIssued", "NotesTransferred", "NotesConverted", "NotesRetired",
            "ConversionSharesTransferred")}
        on = CLOSING + days(draw(st.integers(20, 900)))
        while on in moving:
            on += days(1)
        for h in draw(st.lists(st.sampled_from(HOLDERS), max_size=4)):
            add(on - days(draw(st.integers(1, 15))), "ConsentGiven", holder=h, matter=matter)
        if draw(st.integers(0, 4)) == 0:
            add(on - days(draw(st.integers(1, 15))), "HolderAffiliation",
                holder=draw(st.sampled_from(holders)), company_affiliate=draw(st.booleans()))
        changes: dict[str, Any] = {}
        what = draw(st.sampled_from(["steps", "cap", "cure", "window"]))
        if what == "steps":
            changes["damages"] = {"steps": draw(ladder())}
        elif what == "cap":
            changes["damages"] = {"cap": draw(st.sampled_from([None, "0.50", "1.50"]))}
        elif what == "cure" and terms["defaults"]["unusable"] is not None:
            changes["defaults"] = {"unusable": {"cure": {
                "count": draw(st.integers(1, 20)), "unit": "business"}}}
        elif what == "window" and terms["suspensions"] is not None:
            windows = copy.deepcopy(terms["suspensions"]["windows"])
            windows[0]["days"] = draw(st.integers(10, 60))
            if windows[0].get("material_days") is not None:
                windows[0]["material_days"] = max(windows[0]["material_days"], windows[0]["days"])
            changes["suspensions"] = {"windows": windows}
        else:
            changes["damages"] = {"cap": "1.00"}
        effective = on + days(draw(st.sampled_from([0, 0, 10, 45])))
        add(on, "TermsAmended", matter=matter, changes=changes,
            **({"effective": effective.isoformat()} if effective != on else {}))
