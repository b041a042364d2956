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

from tests.reference.rra_consents import amendment_refused, majority_on
from tests.reference.rra_model import (DEFAULTS, VALUES, effectiveness_period_end,
                                      live_events, merge, model)
from tests.reference.rra_refusals import broken, clauses
from tests.reference.stored import T0, stored
from tests.rra_histories import CLOSING, EVENT_REF, NOTICE_REF, deal_history
from tests.support import build, ev, opened

LONG = bool(os.environ.get("DEAL_LEDGER_LONG"))
EXAMPLES = int(os.environ.get("RRA_EXAMPLES", 300)) * (25 if LONG else 1)

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


ORDERED = ("NotesIssued", "NotesTransferred", "NotesConverted", "NotesRetired",
           "ConversionSharesTransferred", "Rule144kDate", "ConversionPriceAdjusted",
           "ConsentGiven", "HolderAffiliation", "TermsAmended",
           "ShelfFiled", "ShelfEffective", "ShelfUnusable", "ShelfUsable",
           "SuspensionStarted", "SuspensionExtended", "SuspensionEnded", "NoticeSent")

#: the event types the write side may refuse for a reason the model foretells
JUDGED = ("SuspensionStarted", "SuspensionExtended", "SuspensionEnded",
          "QuestionnaireRequested", "TermsAmended")


def terms_in_force(live: list[dict]) -> dict:
    """The deal's terms with every live amendment recorded so far merged in, in order."""
    terms = next(e for e in live if e["type"] == "DealOpened")["data"]["terms"]
    for e in sorted((e for e in live if e["type"] == "TermsAmended"), key=lambda e: e["seq"]):
        terms = merge(terms, e["data"]["changes"])
    return terms


def model_refusal(kept: list[dict], obj: dict, refused_periods: dict[str, bool]
                  ) -> str | None:
    """Why the model says the write side must refuse ``obj`` after the events ``kept``
    (recorded and accepted so far), or ``None``."""
    deal = obj["deal"]
    live = live_events(stored(kept), deal, None)
    terms = terms_in_force(live)
    t = obj["type"]
    if t == "QuestionnaireRequested":
        return "no Questionnaire" if terms.get("questionnaire") is None else None
    if t == "TermsAmended":
        return amendment_refused(terms, live, stored(kept + [obj])[-1])
    if t == "SuspensionStarted":
        if terms.get("suspensions") is None:
            return "no right to suspend"
        on = date.fromisoformat(obj["date"])
        end = effectiveness_period_end(stored(kept), deal=deal, as_of=on)
        return f"the Effectiveness Period ended on {end}" if end is not None and end <= on \
            else None
    if refused_periods.get(deal):
        return "its Suspension Period was refused"
    if t == "SuspensionExtended":
        s = terms["suspensions"]
        if (s.get("single") or {}).get("material_days") is None and all(
                w.get("material_days") is None for w in s["windows"]):
            return "no material-transaction extension"
    return None


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


def adjudicate(objs: list[dict]) -> tuple[list[dict], list[tuple[dict, str | None, str | None]]]:
    """Record ``objs`` in order, as an operator told of each refusal would: each event
    judged by the guards and by the model, which must agree on the rules the model
    draws: those of issue 30 (``rra_refusals.broken``: refused by the same clause, or
    accepted) and, for the ``JUDGED`` types, those of the deal's own terms (issue 33,
    ``model_refusal``: returned as ``(event, the guard's refusal, the model's)`` for the
    test to compare); a refused sale recorded again ``under`` private, any other refused
    event left out. References to an acknowledgment's notice and a retraction's target are
    resolved to the ids the kept events get. A refusal under an older rule, which the
    model does not draw, leaves the history out."""
    states: dict[str, dict] = {}
    log: list[dict] = []
    ids: dict[str, str] = {}
    verdicts = []
    refused_periods: dict[str, bool] = {}
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
            foretold = (model_refusal(log, attempt, refused_periods)
                        if attempt["type"] in JUDGED else None)
            err = _guard(states, log, attempt)
            found = _model(log, attempt)
            if attempt["type"] in JUDGED:
                verdicts.append((attempt, None if err is None else str(err), foretold or (
                    "; ".join(c for c, _ in found) if found else None)))
                if attempt["type"] == "SuspensionStarted":
                    refused_periods[attempt["deal"]] = err is not None
                if err is not None:
                    break
            elif err is not None and err.rule not in _new_rules(log, attempt):
                assume(False)   # an older rule, not drawn here (as before issue 30)
            note(f"{attempt['type']} {attempt['date']}: guards "
                 f"{'accept' if err is None else err.rule}, model {found or 'accepts'}")
            if attempt["type"] not in JUDGED:
                assert (err is None) == (not found), (attempt, str(err), found)
            if err is None:
                log.append(attempt)
                ids[f"{EVENT_REF}{place}"] = f"e{len(log)}"
                if attempt["type"] == "NoticeSent":
                    ids[f"{NOTICE_REF}{attempt['deal']}/{attempt['data']['subject']}"] = \
                        f"e{len(log)}"
                break
            assert err.rule in {clause for clause, _id in found}, (str(err), found)
            refused = f"{attempt['type']} by {err.rule}"
        label(f"refused: {refused}")
    return log, verdicts


def _new_rules(log: list[dict], obj: dict) -> set[str]:
    """The clauses of the refusals of issue 30, as the deal's terms cite them."""
    opened = [e for e in stored(log + [obj]) if e["deal"] == obj["deal"]
              and e["type"] == "DealOpened"]
    return set(clauses(opened[-1]["data"]["terms"]).values()) if opened else set()


def _outside_the_shelf(obj: dict) -> dict | None:
    """A refused sale under the shelf, recorded as the refusal suggests (none else)."""
    if obj["type"] in ("NotesTransferred", "ConversionSharesTransferred") and \
            obj["data"].get("under") == "shelf":
        return {**obj, "data": {**obj["data"], "under": "private"}}
    return None


@st.composite
def scenarios(draw):
    main = draw(deal_history("rra", big=True, except_4bi=FIXED["except_4bi"]))
    other = (draw(deal_history("rra-b", big=False, except_4bi=FIXED["except_4bi"]))
             if draw(st.booleans()) else [])
    # record: the spine (shelf, positions, notices, consents, amendments) in date order;
    # the rest anywhere after their deal's opening (late entries; an event of a Holder
    # once it holds or held Notes, an acknowledgment after its notice); the two deals
    # interleaved
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
            holder = e["data"].get("holder")
            after = 1 if holder is None else next(
                (i + 1 for i, x in enumerate(merged) if holder in (
                    x["data"].get("holder") if x["type"] == "NotesIssued" else None,
                    x["data"].get("to_holder") if x["type"] == "NotesTransferred" else None)),
                None)
            if e["type"] == "NoticeAcknowledged":
                subject = e["data"]["notice"].rpartition("/")[2]
                after = next(i for i, x in enumerate(merged, 1) if x["type"] == "NoticeSent"
                             and x["data"]["subject"] == subject)
            if after is not None:
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
    log, verdicts = adjudicate(log)
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
    return log, as_of, known_at, drawn, verdicts


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


def engine_dates(rep: dict) -> dict[str, str | None]:
    reg = rep["registration"]
    return {k: reg.get(k) for k in ("filing_deadline", "effectiveness_deadline",
                                    "effectiveness_period_end")}


def model_dates(result) -> dict[str, str | None]:
    def iso(d):
        return d.isoformat() if d is not None else None
    return {"filing_deadline": iso(result.filing_deadline),
            "effectiveness_deadline": iso(result.effectiveness_deadline),
            "effectiveness_period_end": iso(result.effectiveness_period_end)}


def engine_majorities(rep: dict) -> dict[str, tuple[Decimal, Decimal, bool]]:
    return {m: (Decimal(v["consenting"]), Decimal(v["total"]), v["majority"])
            for m, v in (rep.get("majority") or {}).items()}


def model_majorities(log, deal, as_of, known_at) -> dict[str, tuple[Decimal, Decimal, bool]]:
    """Each matter consented to, on ``as_of`` under the terms in force then."""
    live = [e for e in live_events(stored(log), deal, known_at)
            if date.fromisoformat(e["date"]) <= as_of]
    terms = terms_in_force([e for e in live if e["type"] != "TermsAmended" or date.fromisoformat(
        e["data"].get("effective") or e["date"]) <= as_of])
    out = {}
    for matter in sorted({e["data"]["matter"] for e in live if e["type"] == "ConsentGiven"}):
        m = majority_on(terms, live, as_of, matter)
        out[matter] = (m.consenting, m.total, m.carried)
    return out


def check(log, as_of, known_at, drawn, verdicts=()):
    for obj, refusal, foretold in verdicts:   # refusals: the write side and the model agree
        assert (refusal is None) == (foretold is None), (obj, refusal, foretold)
        label(f"judged {obj['type']}: {'refused' if refusal else 'accepted'}")
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
        assert engine_dates(rep) == model_dates(result), deal
        assert engine_majorities(rep) == model_majorities(log, deal, as_of, known_at), deal
        compared += 1
        terms = mine[0]["data"]["terms"]
        paying = any(result.amounts.values())
        label(f"terms: base {terms['damages']['base']}, shares "
              f"{terms['damages']['conversion_shares']}, paid to "
              f"{terms['payment']['paid_to']} in {terms['payment']['paid_in']}"
              f"{', amounts owed' if paying else ''}")
        label(f"suspension windows: {len((terms.get('suspensions') or {}).get('windows', ()))}"
              f"; amendments: {sum(e['type'] == 'TermsAmended' for e in mine)}")
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
    log, as_of, known_at, drawn, verdicts = scenario
    note(f"as_of={as_of} known_at={known_at} interpretations={drawn}")
    for e in log:
        note(str(e))
    try:
        check(log, as_of, known_at, drawn, verdicts)
    except AssertionError:
        if os.environ.get("RRA_DUMP"):   # for a look at a counter-example by hand
            import json
            with open(os.environ["RRA_DUMP"], "w") as f:
                json.dump({"log": log, "as_of": str(as_of), "known_at": str(known_at),
                           "drawn": drawn}, f, indent=1)
        raise
