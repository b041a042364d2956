"""The Registration Rights engine against the plain day-by-day reference model
(``tests/reference/rra_model.py``) over random histories (hypothesis).

Each history holds up to six Holders (issues, transfers, sales under the shelf in and out,
conversions, retirements), Questionnaires, the shelf's filing and effectiveness, spans
of unusability and their cures, Suspension Periods with and without a material
transaction and extensions, calendar overrides, payments, amendments, and a second deal
interleaved in the log; recorded partly out of date order, some loose events retracted
(and some retractions withdrawn by an EventReinstated, issue 31),
with a random ``known_at``.
Each event goes through ``ledger.guards`` in recording order, and the model's own
refusals (``tests/reference/rra_refusals.py``: sales under the shelf before it is
effective, while it is unusable, inside a Suspension Period or by a Holder asked for its
Questionnaire that delivered none; Notes past the maximum; an acknowledgment before its
notice) must agree with the guards', event by event: what one refuses the other refuses,
naming the same clause. A refused sale is then recorded as the refusal suggests, with
``under_shelf: false``; any other refused event is left out (as the store writes
nothing); a history the guards refuse for an older rule the model does not draw is left
out of the draw, as before. For a random ``as_of`` and random interpretations, every
Registration Default (its accrual days, per clause), every Holder's amount per payment
date and ``accrued_to_as_of`` must be equal to the cent.

Interpretations: values are drawn from those both the model and the engine's registry
(``projections.interpretations.REGISTRY``) know; a reading the engine does not list yet is
given to the model at the value the engine has built in (``LEGACY``), so that the new
readings join the draw by themselves once the engine lists them.

Known engine defects (issue 12, fixed on branch rra-engine) are probed at import: while
the engine still has one, the histories that show it are left out of the draw (each has
a named example in ``test_rra_reference_examples.py``); once fixed they come back.

``DEAL_LEDGER_LONG=1`` multiplies the examples by 25.
"""

from __future__ import annotations

import os
from datetime import date, timedelta
from decimal import Decimal

from hypothesis import HealthCheck, Phase, assume, given, note, seed, settings
from hypothesis import strategies as st

from ledger import guards
from ledger.errors import LedgerError
from ledger.events import parse_event
from projections.interpretations import REGISTRY
from projections.report import report
from hypothesis import event as label

from tests.reference.rra_model import (DEFAULTS, VALUES, effectiveness_period_end,
                                      live_events, model)
from tests.reference.rra_refusals import broken
from tests.reference.stored import T0, stored
from tests.support import build, ev, opened

LONG = bool(os.environ.get("DEAL_LEDGER_LONG"))
EXAMPLES = int(os.environ.get("RRA_EXAMPLES", 300)) * (25 if LONG else 1)
CLOSING = date(2004, 6, 30)
HOLDERS = ["A", "B", "C", "D", "E", "F"]

#: what the engine does for a reading its registry does not name yet
LEGACY = {"questionnaire_entitlement_judged_on": "record_date"}


def engine_values(name: str) -> tuple[str, ...]:
    """The values of ``name`` both sides know (the model's default alone if the engine
    has none yet)."""
    if name in REGISTRY:
        return tuple(v for v in VALUES[name] if v in REGISTRY[name].values)
    return ()


def model_readings(drawn: dict[str, str]) -> dict[str, str]:
    out = {}
    for name in DEFAULTS:
        if name in drawn:
            out[name] = drawn[name]
        elif name not in REGISTRY:
            out[name] = LEGACY.get(name, DEFAULTS[name])
        elif name in ("conversion_forfeits",) and "all_unpaid" not in REGISTRY[name].values:
            out[name] = DEFAULTS[name]
    return out


# ------------------------------------------------------------------ defect probes

def event(type_: str, on: str, deal: str = "rra", **data) -> dict:
    """One public event object (``tests.support.ev`` cannot take a ``day`` field)."""
    return {"type": type_, "deal": deal, "date": on, "data": data}



def _accrued(objs, as_of, **interps) -> str:
    return report(build(objs), as_of=as_of,
                  interpretations=interps)["additional_interest"]["accrued_to_as_of"]


def _base(effective: str = "2004-10-01"):
    return [opened(), ev("NotesIssued", "2004-06-30", holder="L", principal="60000000"),
            ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", effective)]


def probe_first_breach_hole() -> bool:
    """issue 12 defect 1 fixed? (19,166.67 is the contract's figure)"""
    objs = _base() + [ev("SuspensionStarted", "2005-03-01", material_transaction=False),
                      ev("SuspensionEnded", "2005-04-10"),
                      ev("SuspensionStarted", "2005-05-01", material_transaction=False),
                      ev("SuspensionEnded", "2005-07-01")]
    return _accrued(objs, date(2005, 7, 20), default_date="first_breach_day") == "19166.67"


def probe_except_4bi() -> bool:
    """issue 12 defect 2 fixed? (0 is the contract's figure)"""
    objs = _base() + [ev("SuspensionStarted", "2005-03-01", material_transaction=False),
                      ev("ShelfUnusable", "2005-03-02", reason="material_misstatement"),
                      ev("ShelfUsable", "2005-03-30", cure="prospectus_supplement"),
                      ev("SuspensionEnded", "2005-03-30")]
    return _accrued(objs, date(2005, 4, 30)) == "0.00"


def probe_overrides_known_at() -> bool:
    """issue 12 defect 3 fixed? (416.67 is the contract's figure: one day of default)"""
    objs = _base() + [ev("ShelfUnusable", "2005-03-07", reason="stop_order"),
                      event("CalendarDayDeclared", "2005-03-20", day="2005-03-10",
                            business_day=False, reason="emergency closure")]
    return _accrued(objs, date(2005, 3, 16)) == "416.67"


def probe_covered_tail() -> bool:
    """The engine leaves out the days of an unusable span covered by a permitted
    suspension that starts after the span (see test_rra_reference_examples.py
    unusable_then_suspended; 0 is the contract's figure)? Not yet on rra-engine bfe7c68."""
    objs = _base() + [ev("ShelfUnusable", "2005-03-01", reason="material_misstatement"),
                      ev("SuspensionStarted", "2005-03-04", material_transaction=False),
                      ev("ShelfUsable", "2005-03-21", cure="prospectus_supplement"),
                      ev("SuspensionEnded", "2005-03-25")]
    return _accrued(objs, date(2005, 4, 30)) == "0.00"


#: the engine of branch rra-engine (issue 12) is in when its registry has the new readings;
#: a regression after that fails the named examples, not this filter
ROUND_2 = "rate_clock" in REGISTRY
FIXED = {"first_breach_hole": ROUND_2 or probe_first_breach_hole(),
         "except_4bi": ROUND_2 or probe_except_4bi(),
         "overrides_known_at": ROUND_2 or probe_overrides_known_at(),
         "covered_tail": probe_covered_tail()}


# ------------------------------------------------------------------ histories

def days(n: int) -> timedelta:
    return timedelta(days=n)


@st.composite
def deal_history(draw, deal: str, big: bool):
    """Event objects of one deal, in date order (same-day order is recording order)."""
    out = [opened(deal, day_count=draw(st.sampled_from(
        ["30/360", "30/360", "ACT/360", "ACT/365F", "ACT/ACT-ISDA"])))]
    dated: list[tuple[date, int, dict]] = []

    def add(on: date, type_: str, **data):
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
            principal=str(draw(st.integers(1, 40)) * 1_000_000))
    filed = effective = None
    if draw(st.integers(0, 5)):
        filed = CLOSING + days(draw(st.integers(3, 40) | st.integers(10, 20)))
        add(filed, "ShelfFiled")
        if draw(st.integers(0, 5)):
            effective = filed + days(draw(st.integers(10, 150) | st.integers(90, 130)))
            add(effective, "ShelfEffective")
    # the shelf after effectiveness: unusable spans and Suspension Periods
    if effective is not None:
        overlap = FIXED["except_4bi"] and draw(st.booleans())
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
                    ["stop_order", "ceased_effective", "material_misstatement", "other"])))
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
    # the Notes moving: a simulation of each Holder's balance in date order
    moves = sorted(draw(st.lists(st.tuples(
        st.integers(1, 1500), st.sampled_from(["transfer", "transfer", "shelf_sale",
                                                "shelf_sale", "convert", "retire"]),
        st.sampled_from(holders), st.sampled_from(HOLDERS[:len(holders) + 1]),
        st.sampled_from([1, 2, 4, 4])), max_size=8 if big else 4)))
    position = sorted((d, i, e) for d, i, e in dated if e["type"] == "NotesIssued")
    balance: dict[str, int] = {}
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
        amount = balance.get(frm, 0) // share // 1000 * 1000
        if amount <= 0 or (kind in ("transfer", "shelf_sale") and to == frm):
            continue
        balance[frm] -= amount
        if kind in ("transfer", "shelf_sale"):
            balance[to] = balance.get(to, 0) + amount
            add(day, "NotesTransferred", from_holder=frm, to_holder=to,
                principal=str(amount), under_shelf=kind == "shelf_sale")
        elif kind == "convert":
            add(day, "NotesConverted", holder=frm, principal=str(amount),
                shares=amount // 1000 * 65)
        else:
            add(day, "NotesRetired", holder=frm, principal=str(amount),
                reason=draw(st.sampled_from(["redeemed", "repurchased", "cancelled"])))
    # Questionnaires, amendments
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
    # payments
    for _ in range(draw(st.integers(0, 3))):
        pay = date(draw(st.integers(2005, 2007)), draw(st.sampled_from([1, 7])), 15)
        add(pay + days(draw(st.integers(-10, 60))), "AdditionalInterestPaid",
            payment_date=pay.isoformat(), holder=draw(st.sampled_from(holders)),
            amount=f"{draw(st.integers(1, 60000))}.{draw(st.integers(0, 99)):02d}")
    dated.sort(key=lambda t: (t[0], t[1]))
    return out + [e for _, _, e in dated]


ORDERED = ("NotesIssued", "NotesTransferred", "NotesConverted", "NotesRetired",
           "ShelfFiled", "ShelfEffective", "ShelfUnusable", "ShelfUsable",
           "SuspensionStarted", "SuspensionExtended", "SuspensionEnded", "NoticeSent")
OVERFLOW = "Overflow Fund"
NOTICE_REF = "ref:notice:"     # an acknowledgment's notice, by its deal and subject
EVENT_REF = "ref:event:"       # a retraction's target, by its place before the walk


def without_late_suspensions(objs: list[dict], deal: str) -> list[dict]:
    """SPEC §4.3 (issue 12 defect 4): a SuspensionStarted after the Effectiveness Period
    ended by (y) or (z) is refused: leave out such periods (with their extension, end)."""
    far = date(2024, 1, 1)
    end = effectiveness_period_end(stored(objs), deal=deal, as_of=far)
    if end is None:
        return objs
    out, dropping = [], False
    for e in objs:
        if e["type"] == "SuspensionStarted":
            dropping = date.fromisoformat(e["date"]) >= end
        if e["type"] in ("SuspensionStarted", "SuspensionExtended", "SuspensionEnded") \
                and dropping:
            continue
        out.append(e)
    return out


NEW_RULES = ("RRA §1 Transfer Restricted Securities (A)", "RRA §4(c)", "RRA §4(d)",
             "RRA preamble", "RRA §10(E)")


def _guard(states: dict, log: list[dict], obj: dict) -> LedgerError | None:
    """The write side's verdict on ``obj`` appended after ``log`` (folded if accepted)."""
    rec = stored(log + [obj])[-1]
    record = {**parse_event(obj, line=rec["seq"]).envelope(), "id": rec["id"],
              "seq": rec["seq"]}
    state = states.setdefault(obj["deal"], guards.new_state())
    try:
        found = guards.check(state, record)
    except LedgerError as err:
        return err
    guards.fold(state, record, found)
    return None


def _model(log: list[dict], obj: dict) -> list[tuple[str, str]]:
    """The model's findings on the history with ``obj`` (``rra_refusals.broken``)."""
    return broken(stored(log + [obj]), obj["deal"])


def adjudicate(objs: list[dict]) -> list[dict]:
    """Record ``objs`` in order, as an operator told of each refusal would: each event
    judged by the guards and by the model, which must agree on the new rules (refused
    by the same clause, or accepted); a refused sale recorded again with ``under_shelf:
    false``, any other refused event left out. References to an acknowledgment's notice
    and a retraction's target are resolved to the ids the kept events get. A refusal
    under an older rule, which the model does not draw, leaves the history out."""
    states: dict[str, dict] = {}
    log: list[dict] = []
    ids: dict[str, str] = {}
    for place, obj in enumerate(objs):
        data = obj["data"]
        field = next((k for k in ("notice", "event_id", "retraction_id")
                      if str(data.get(k, "")).startswith("ref:")), None)
        if field is not None:
            if data[field] not in ids:
                continue   # what it names was left out
            obj = {**obj, "data": {**data, field: ids[data[field]]}}
        refused = "none"
        for attempt in (obj, _outside_the_shelf(obj)):
            if attempt is None:
                break
            err = _guard(states, log, attempt)
            found = _model(log, attempt)
            rule = err and ("RRA preamble" if err.rule.startswith("RRA preamble (")
                            else err.rule)   # "RRA preamble ($60,000,000; ...)"
            if err is not None and rule not in NEW_RULES:
                assume(False)   # an older rule, not drawn here (as before issue 30)
            note(f"{attempt['type']} {attempt['date']}: guards "
                 f"{'accept' if err is None else err.rule}, model {found or 'accepts'}")
            assert (err is None) == (not found), (attempt, str(err), found)
            if err is None:
                log.append(attempt)
                ids[f"{EVENT_REF}{place}"] = f"e{len(log)}"
                if attempt["type"] == "NoticeSent":
                    ids[f"{NOTICE_REF}{attempt['deal']}/{attempt['data']['subject']}"] = \
                        f"e{len(log)}"
                break
            assert rule in {clause for clause, _id in found}, (str(err), found)
            refused = f"{attempt['type']} by {rule}"
        label(f"refused: {refused}")
    return log


def _outside_the_shelf(obj: dict) -> dict | None:
    """A refused sale under the shelf, recorded as the refusal suggests (none else)."""
    if obj["type"] == "NotesTransferred" and obj["data"].get("under_shelf"):
        return {**obj, "data": {**obj["data"], "under_shelf": False}}
    return None


@st.composite
def scenarios(draw):
    main = without_late_suspensions(draw(deal_history("rra", big=True)), "rra")
    other = (without_late_suspensions(draw(deal_history("rra-b", big=False)), "rra-b")
             if draw(st.booleans()) else [])
    # record: shelf and position events (and notices) in date order; the rest anywhere
    # after their deal's opening (late entries), an acknowledgment after its notice; the
    # two deals interleaved
    def split(objs):
        return ([e for e in objs if e["type"] == "DealOpened" or e["type"] in ORDERED],
                [e for e in objs if not (e["type"] == "DealOpened" or e["type"] in ORDERED)])
    log: list[dict] = []
    for objs in (main, other):
        if not objs:
            continue
        spine, loose = split(objs)
        merged = list(spine)
        for e in loose:
            after = 1
            if e["type"] == "NoticeAcknowledged":
                subject = e["data"]["notice"].rpartition("/")[2]
                after = next(i for i, x in enumerate(merged, 1) if x["type"] == "NoticeSent"
                             and x["data"]["subject"] == subject)
            merged.insert(draw(st.integers(after, len(merged))), e)
        # interleave with what is already in the log, keeping each deal's order
        at = 0
        out = []
        for e in merged:
            take = draw(st.integers(0, 2)) if log[at:] else 0
            out.extend(log[at:at + take])
            at += take
            out.append(e)
        log = out + log[at:]
    # corrections: a retraction of a loose event (SPEC §3.1), recorded later
    loose_at = [i for i, e in enumerate(log)
                if e["type"] not in ORDERED and e["type"] != "DealOpened"]
    for i in draw(st.lists(st.sampled_from(loose_at), max_size=2, unique=True)
                  if loose_at else st.just([])):
        log.append({"type": "EventRetracted", "deal": log[i]["deal"],
                    "date": log[i]["date"], "data": {"event_id": f"{EVENT_REF}{i}",
                                                     "reason": "entered in error"}})
    # undo (issue 31): a retraction withdrawn, and its event sometimes retracted again
    retractions = [i for i, e in enumerate(log) if e["type"] == "EventRetracted"]
    if retractions and draw(st.integers(0, 3)):
        r = draw(st.sampled_from(retractions))
        log.append({"type": "EventReinstated", "deal": log[r]["deal"],
                    "date": log[r]["date"], "data": {"retraction_id": f"{EVENT_REF}{r}",
                                                     "reason": "retracted in error"}})
        if draw(st.booleans()):
            log.append({**log[r], "data": {**log[r]["data"], "reason": "again"}})
    log = adjudicate(log)
    as_of = CLOSING + days(draw(st.integers(1, 1500) | st.integers(300, 1500)))
    known_at = None
    if draw(st.integers(0, 4)) == 0:   # after every DealOpened was recorded
        opened_at = max(i for i, e in enumerate(log, 1) if e["type"] == "DealOpened")
        known_at = T0 + timedelta(minutes=draw(st.integers(opened_at, len(log))))
    drawn = {}
    for name in DEFAULTS:
        values = engine_values(name)
        if values:   # the default half the time: a Holder not entitled owes 0 anyway
            drawn[name] = draw(st.just(values[0]) | st.sampled_from(values))
    return log, as_of, known_at, drawn


# ------------------------------------------------------------------ comparison

def engine_defaults(rep: dict, as_of: date) -> dict[str, list[tuple[date, date]]]:
    maturity = date(2024, 7, 15)
    days_by_kind: dict[str, set[date]] = {}
    for d in rep["registration"]["defaults"]:
        lo = date.fromisoformat(d["accrual_from"])
        hi = min(date.fromisoformat(d["accrual_until"]) if d["accrual_until"] else date.max,
                 as_of + days(1), maturity)
        while lo < hi:
            days_by_kind.setdefault(d["kind"], set()).add(lo)
            lo += days(1)
    out = {}
    for kind, found in sorted(days_by_kind.items()):
        runs: list[list[date]] = []
        for x in sorted(found):
            if runs and runs[-1][1] + days(1) == x:
                runs[-1][1] = x
            else:
                runs.append([x, x])
        out[kind] = [(a, b) for a, b in runs]
    return out


def engine_amounts(rep: dict) -> dict[date, dict[str, Decimal]]:
    out = {}
    for p in rep["additional_interest"]["payments"]:
        row = {h: Decimal(v) for h, v in p["amounts"].items() if Decimal(v)}
        if row:
            out[date.fromisoformat(p["payment_date"])] = row
    return out


def engine_statuses(rep: dict) -> dict[date, dict[str, str]]:
    """Each Holder's own payment status where it is owed or was paid something."""
    out = {}
    for p in rep["additional_interest"]["payments"]:
        row = {h: st for h, st in p["statuses"].items()
               if Decimal(p["amounts"].get(h, "0")) or Decimal(p["paid"].get(h, "0"))}
        if row:
            out[date.fromisoformat(p["payment_date"])] = row
    return out


def model_amounts(result) -> dict[date, dict[str, Decimal]]:
    return {p: {h: v for h, v in row.items() if v} for p, row in result.amounts.items()
            if any(row.values())}


def deal_names(log):
    return sorted({e["deal"] for e in log})


def covered_tail(result, log, deal, as_of, known_at) -> bool:
    """An unusable span whose first day is not suspended and a later day is."""
    known = live_events(stored(log), deal, known_at)
    suspended: set[date] = set()
    periods = {"ShelfUnusable": [], "SuspensionStarted": []}
    open_ = {}
    for e in known:
        on = date.fromisoformat(e["date"])
        if on > as_of:
            continue
        t = e["type"]
        if t in ("ShelfUnusable", "SuspensionStarted"):
            open_.setdefault(t, on)
        elif t in ("ShelfUsable", "SuspensionEnded"):
            key = "ShelfUnusable" if t == "ShelfUsable" else "SuspensionStarted"
            if key in open_:
                periods[key].append((open_.pop(key), on))
    for key, lo in open_.items():
        periods[key].append((lo, as_of + days(1)))
    for lo, hi in periods["SuspensionStarted"]:
        suspended.update(lo + days(k) for k in range((hi - lo).days))
    return any(u not in suspended and any(u + days(k) in suspended
                                          for k in range(1, (c - u).days))
               for u, c in periods["ShelfUnusable"])


def shows_known_defect(result, log, deal, as_of, readings, known_at=None) -> bool:
    """True when the history shows an engine defect not fixed yet (see FIXED)."""
    if not FIXED["covered_tail"] and covered_tail(result, log, deal, as_of, known_at):
        return True
    # an open reading (test_a_named_holder_holding_nothing_under_named_selling_holders):
    # under named_selling_holders the engine judges (y) on the days Notes move, the model
    # every day; they part when an amendment names a Holder holding nothing
    if readings.get("registered_securities") == "named_selling_holders" and any(
            e["type"] == "AmendmentFiled" and e["deal"] == deal for e in log):
        return True
    if not FIXED["first_breach_hole"] and readings.get("default_date") == "first_breach_day":
        if any(d.tag == "window" for d in result.defaults):
            return True
    if not FIXED["overrides_known_at"]:
        if any(e["type"] == "CalendarDayDeclared" and e["deal"] == deal
               and date.fromisoformat(e["date"]) > as_of for e in log):
            return True
    return False


def check(log, as_of, known_at, drawn):
    readings = model_readings(drawn)
    compared = 0
    for deal in deal_names(log):
        mine = [e for e in stored(log) if e["deal"] == deal]
        result = model(stored(log), deal=deal, as_of=as_of, known_at=known_at,
                       interpretations=readings)
        if shows_known_defect(result, log, deal, as_of, readings, known_at):
            continue
        events = [build([{k: v for k, v in e.items() if k not in ("seq", "id", "recorded_at")}],
                        start_seq=e["seq"])[0] for e in mine]
        rep = report(events, as_of=as_of, known_at=known_at, interpretations=drawn)
        note(f"deal {deal}: model defaults {result.defaults_by_kind()}")
        assert engine_defaults(rep, as_of) == result.defaults_by_kind(), deal
        assert engine_amounts(rep) == model_amounts(result), deal
        assert Decimal(rep["additional_interest"]["accrued_to_as_of"]) == \
            result.accrued_to_as_of, deal
        if all("statuses" in p for p in rep["additional_interest"]["payments"]):
            assert engine_statuses(rep) == result.statuses, deal   # issue 12 defect 5
        compared += 1
        label(f"defaults: {'+'.join(sorted(result.defaults_by_kind())) or 'none'}")
        label(f"holders paid: {len({h for row in result.amounts.values() for h in row})}")
    return compared


@seed(int(os.environ.get("RRA_SEED", 20261123)))
@settings(max_examples=EXAMPLES, deadline=None, derandomize=not LONG,
          phases=tuple(Phase) if not os.environ.get("RRA_NO_SHRINK") else
          [Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                 HealthCheck.data_too_large])
@given(scenarios())
def test_engine_equals_the_day_by_day_model(scenario):
    log, as_of, known_at, drawn = scenario
    note(f"as_of={as_of} known_at={known_at} interpretations={drawn}")
    for e in log:
        note(str(e))
    try:
        check(log, as_of, known_at, drawn)
    except AssertionError:
        if os.environ.get("RRA_DUMP"):   # for a look at a counter-example by hand
            import json
            with open(os.environ["RRA_DUMP"], "w") as f:
                json.dump({"log": log, "as_of": str(as_of), "known_at": str(known_at),
                           "drawn": drawn}, f, indent=1)
        raise
