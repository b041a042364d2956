"""Explaining the Letter's true-up figures (Letter ¶2, ¶3; SPEC §5).

One explainer per kind of figure of the report's ``true_up`` part. The price
adjustments (P') and the shares an exercise would have got (x) carry their computation as
data (``projections.trueup.adjustments``, ``projections.trueup.trueup``): ``recompute``
re-does it from the exact inputs and the rounding rule. What an exercise has earned and
is owed, the shares of an instrument, the Camden Warrants unvested and the totals are
worked out here, as steps, from the report's own figures.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any, Mapping

from projections.explanation import (RECOMPUTE, Context, added, deal_opened, extend, generic,
                                     plain, words)
from ledger.dates import parse_timestamp
from projections.timeline import retracted_ids
from projections.worked import Step, Worked, round_fraction, show


def recompute(computation: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Re-compute a figure from its computation data (``projections.basis``): the exact
    inputs, the operation and the rounding rule, never the display text. One check:
    ``[{expression, stated, computed, result, ok}]`` (empty if there is no computation or
    nothing was computed)."""
    if not computation or computation.get("result") is None:
        return []
    x = {k: Fraction(v) for k, v in computation["exact"].items()}
    op, rounding = computation["operation"], computation["rounding"]
    if op == "weighted_average":
        if "B" in x and x["B"] != x["paid"] / x["P"]:   # B must be paid / P, exactly
            return [{"expression": f"B = paid / P = {computation['exact']['paid']} / "
                                   f"{computation['exact']['P']}",
                     "stated": computation["exact"]["B"], "computed": show(x["paid"] / x["P"]),
                     "result": computation["exact"]["B"], "ok": False}]
        value = x["P"] * (x["A"] + x["paid"] / x["P"]) / (x["A"] + x["C"])
        expression = (f"P × (A + B) / (A + C), P = {computation['exact']['P']}, A = "
                      f"{computation['exact']['A']}, B = {computation['exact']['paid']} / P, "
                      f"C = {computation['exact']['C']}")
    elif op == "full_ratchet":
        value = min(x["P"], x["camden"])
        expression = f"min({computation['exact']['P']}, {computation['exact']['camden']})"
    elif op == "shares":
        extra = x.get("dividends", Fraction(0))
        value = (x["portion"] * x["aggregate"] + extra) / x["price"]
        expression = (f"({computation['exact']['portion']} × {computation['exact']['aggregate']}"
                      f" + {computation['exact'].get('dividends', '0')}) / "
                      f"{computation['exact']['price']}")
    else:
        return []
    places = int(rounding["decimals"])
    got = round_fraction(value, places, rounding["mode"])
    stated = computation["result"]
    return [{"expression": expression, "stated": f"{stated} ({rounding['mode']}, {places} "
             "decimals; from the computation data)", "computed": show(value),
             "result": stated, "ok": got == Fraction(Decimal(stated))}]

def _driven_text(ex: Mapping[str, Any]) -> str:
    """The vesting that sets what an exercise has earned, with the A, B, C, P and P' of
    its adjustment (issue 13: headline true-up figures show them)."""
    d = ex.get("driven_by")
    if not d:
        return ""
    shown = ", ".join(f"{k} {d[k]}" for k in ("A", "B", "C", "P", "P'") if k in d)
    return f"; driven by the vesting of {d['date']}" + (f": {shown}" if shown else "")


def _exercise_node(c: Context, ex: Mapping[str, Any]) -> dict:
    node = c.from_basis(ex["basis"], f"{ex['type']} of {ex['instrument']} on {ex['date']}: "
                                     f"owed {ex['owed']}, issued {ex['issued']}"
                                     f"{_driven_text(ex)}")
    if ex.get("vestings"):
        best = max(ex["vestings"], key=lambda s: s["x"])
        earned = f"{best['x']} - {ex['shares_issued']} = {ex['owed']}"
        if best["x"] < ex["shares_issued"]:
            earned = f"max(0, {best['x']} - {ex['shares_issued']}) = 0"
        extend(node, f"; owed (earned so far) = the largest x ({best['x']}, at the vesting of "
                     f"{best['date']}) less the shares issued at the exercise: {earned}; "
                     f"over_issued = max(0, {ex['issued']} - {ex['owed']}) = "
                     f"{ex['over_issued']}", (
                         _floor(best["x"], ex["shares_issued"], ex["owed"], "owed"),
                         _floor(ex["issued"], ex["owed"], ex["over_issued"], "over_issued")))
    return node


def _exercise(c: Context) -> dict:
    ex = c.loc.at(3)
    if len(c.loc.pattern) > 4 and c.loc.pattern[3] == "vestings":
        k = c.loc.trail[4][1]
        parts = ex["basis"].get("parts") or []
        if k < len(parts):
            step = ex["vestings"][k]
            node = c.from_basis(parts[k], f"the vesting of {step['date']} for {ex['instrument']}"
                                          f": x = {step['x']}, y = {step['y']}, owed "
                                          f"{step['owed']}")
            before = ex["vestings"][k - 1]["earned"] if k else 0
            now = step["x"] - ex["shares_issued"]
            grows = now >= before and now >= 0
            earned = (f"earned = {step['x']} - {ex['shares_issued']} = {step['earned']}"
                      if grows else f"earned stays {step['earned']}")
            steps = [Step("difference", (step["x"], ex["shares_issued"]), step["earned"],
                          "earned")] if grows else []
            if "increment" in step:
                earned += f"; increment = {step['earned']} - {before} = {step['increment']}"
                steps.append(Step("difference", (step["earned"], before), step["increment"],
                                  "increment"))
            extend(node, f"; {earned}", steps)
            if not node["parts"]:   # a report made before x carried its day's P'
                node["parts"] += [
                    c.from_basis(a["basis"], f"the price at the vesting: {a['before']} → "
                                             f"{a['after']}")
                    for a in c.report["true_up"].get("adjustments", [])
                    if a["event"] == step["event"] and a["instrument"] == ex["instrument"]]
            return node
    return _exercise_node(c, ex)


def _totals_node(c: Context, title: str, field: str, rows: list[Mapping[str, Any]],
                 extra: int = 0) -> dict:
    values = [str(r[field]) for r in rows] + ([str(extra)] if extra else [])
    return c.node(title, clause="Letter ¶3",
                  rule=f"the sum of {field} over the exercises and conversions"
                       + (" and true-up shares credited to no exercise" if extra else ""),
                  arithmetic=added(values, str(c.loc.value)),
                  parts=[_exercise_node(c, r) for r in rows])


def _unallocated(c: Context, instruments: set[str]) -> int:
    return sum(d.get("unallocated", 0) for d in c.report["true_up"].get("discrepancies", [])
               if d.get("kind") == "true_up_over_issued" and d.get("instrument") in instruments)


def _trueup_holder(c: Context) -> dict:
    holder, field = c.loc.trail[2][1], c.loc.trail[-1][1]
    t = c.report["true_up"]
    if field not in ("owed", "issued", "outstanding", "over_issued"):
        return generic(c)
    rows = [e for e in t["exercises"] if e["holder"] == holder]
    mine = {i["instrument"] for i in t["instruments"] if i["holder"] == holder}
    extra = _unallocated(c, mine) if field in ("issued", "over_issued") else 0
    return _totals_node(c, f"true-up shares {field} for {holder}: {c.loc.value}", field, rows,
                        extra)


def _instrument(c: Context) -> dict:
    inst = c.loc.at(3)
    t = c.report["true_up"]
    field = c.loc.trail[3][1] if len(c.loc.trail) > 3 else None
    name = inst["instrument"]
    adjustments = [a for a in t.get("adjustments", []) if a["instrument"] == name]
    adj_nodes = [c.from_basis(a["basis"], f"{a['cause']} {a['date']}: {a['before']} → "
                                          f"{a['after']}") for a in adjustments]
    deferred = ("deferred_price_if_all_vest", "deferred_shares_if_all_vest")
    if field in deferred and inst.get("deferred_basis"):
        return c.from_basis(inst["deferred_basis"], f"{name} if every unvested Camden Warrant "
                                                    f"vested: price "
                                                    f"{inst['deferred_price_if_all_vest']}, shares "
                                                    f"{inst['deferred_shares_if_all_vest']}")
    if field in ("owed", "issued", "outstanding", "over_issued"):
        rows = [e for e in t["exercises"] if e["instrument"] == name]
        extra = _unallocated(c, {name}) if field in ("issued", "over_issued") else 0
        return _totals_node(c, f"true-up shares {field} for {name}: {c.loc.value}", field, rows,
                            extra)
    if field == "price_history" and len(c.loc.trail) > 4:
        h = c.loc.at(5)
        k = next((k for k, a in enumerate(adjustments) if a["event"] == h["event"]), None)
        before = len(c.loc.trail) > 5 and c.loc.trail[5][1] == "before"
        if k is not None and not (before and k == 0):
            return adj_nodes[k - 1] if before else adj_nodes[k]
    registered = c.events.get(inst["registered"])
    data = registered.data if registered is not None else {}
    warrant = inst["kind"] == "warrant"
    first = data.get("exercise_price") if warrant else data.get("conversion_price")
    chain = " → ".join([plain(first) or "?"] + [a["after"] for a in adjustments])
    clause = f"Letter ¶2; {inst['clause']}"
    if field == "shares":
        units = data.get("shares") if warrant else data.get("quantity")
        unit_value = data.get("exercise_price") if warrant else data.get("stated_value")
        remaining = 1 - Decimal(inst["exercised_fraction"])
        portion = f"{plain(remaining)} × " if remaining != 1 else ""
        factors = ((remaining,) if remaining != 1 else ()) + (units, unit_value)
        product = Step("product", factors, _product(factors))
        text = Worked(f"{portion}{units} × {plain(unit_value)} / {inst['price']} = "
                      f"{inst['shares']} (rounded down)", (Step("round", (Step(
                          "quotient", (product, inst["price"]),
                          product.result / Fraction(Decimal(inst["price"]))),),
                          inst["shares"], "shares", rounding=("down", 0)),))
        return c.node(f"{name}: {inst['shares']} shares at {inst['price']}", clause=clause,
                      events=[inst["registered"]],
                      rule="the part not yet exercised × the registered aggregate (shares × "
                           "exercise price, or quantity × stated value) / the price in force, "
                           "rounded down",
                      arithmetic=text, parts=adj_nodes)
    if field == "exercised_fraction":
        ids = [e["event"] for e in t["exercises"] if e["instrument"] == name]
        return c.node(f"{name}: {inst['exercised_fraction']} exercised or converted",
                      clause="Letter ¶3", events=ids,
                      rule="each exercise or conversion takes a fraction of what remains")
    return c.node(f"{name}: price {inst['price']}", clause=clause,
                  events=[inst["registered"], *(a["event"] for a in adjustments)],
                  rule="the registered price, then each adjustment in force (Camden vestings "
                       "under Letter ¶2, and AdjustmentRecorded events) in date order",
                  arithmetic=words(f"registered at {chain}"), parts=adj_nodes)


def _adjustment(c: Context) -> dict:
    a = c.loc.at(3)
    return c.from_basis(a["basis"], f"{a['cause']} {a['date']} for {a['instrument']}: "
                                    f"{a['before']} → {a['after']}")


def _vesting(c: Context) -> dict:
    v = c.loc.at(3)
    t = c.report["true_up"]
    day = v.get("adjusted_with") or v["event"]   # one adjustment per vesting day (SPEC §5.2)
    adjustments = [a for a in t.get("adjustments", []) if a["event"] == day]
    return c.node(f"{v['warrants']} Camden Warrants of {v['holder']} vested {v['date']}",
                  clause="Letter ¶2",
                  events=[v["event"], *(tr["issuance"] for tr in v["tranches"])],
                  rule="as Camden Warrants become Vested Warrants the deferred anti-dilution "
                       "applies, for the vested warrants only, to every instrument still held",
                  parts=[c.from_basis(a["basis"], f"{a['instrument']}: {a['before']} → "
                                                  f"{a['after']}") for a in adjustments])


def _camden(c: Context) -> dict:
    holder = c.loc.trail[2][1]
    field = c.loc.trail[-1][1]
    types = {"issued": ("CamdenWarrantsIssued",), "vested": ("CamdenWarrantsVested",),
             "cancelled": ("CamdenWarrantsCancelled",),
             "unvested": ("CamdenWarrantsIssued", "CamdenWarrantsVested",
                          "CamdenWarrantsCancelled")}.get(field, ())
    as_of = c.report["as_of"]
    # the events the report counted: known at its known_at, not retracted by then (a
    # review of stop 19: a vesting recorded later, or retracted, was cited as behind it)
    known_at = parse_timestamp(c.report["known_at"]) if c.report.get("known_at") else None
    known = [e for e in c.events.values() if known_at is None or e.recorded_at <= known_at]
    retracted = retracted_ids(known)
    ids = [e.id for e in sorted(known, key=lambda e: (e.date, e.seq))
           if e.type in types and e.id not in retracted and e.data.get("holder") == holder
           and e.date.isoformat() <= as_of]
    row = c.loc.at(3)
    text = (Worked(f"{row['issued']} - {row['vested']} - {row['cancelled']} = "
                   f"{row['unvested']}", (Step("difference", (row["issued"], row["vested"],
                                                              row["cancelled"]),
                                               row["unvested"], "unvested"),))
            if field == "unvested" else None)
    return c.node(f"Camden Warrants {field} for {holder}: {c.loc.value}", clause="Letter ¶2",
                  events=ids, rule="Camden Warrants are issued unvested, then vest or are "
                                   "cancelled (retracted events aside)", arithmetic=text)


def _capitalization(c: Context) -> dict:
    cap = c.report["true_up"]["capitalization"] or {}
    return c.node(f"capitalization: {cap.get('common_outstanding')} shares recorded "
                  f"{cap.get('date')}", clause="Letter ¶2", events=[cap["event"]] if cap else [],
                  rule="the latest CapitalizationRecorded (A in the weighted-average formula), "
                       "plus Camden Warrants vested since, deemed outstanding")


def _deal_term(c: Context) -> dict:
    key = c.loc.trail[-1][1]
    clause = "Letter ¶3" if key == "true_up_cutoff" else None
    return c.node(f"{key}: {c.loc.value}", clause=clause, events=deal_opened(c),
                  rule="a term of the deal, from its DealOpened event")

def _floor(a: Any, b: Any, result: Any, label: str) -> Step:
    """``max(0, a - b)``."""
    diff = Fraction(Decimal(str(a))) - Fraction(Decimal(str(b)))
    return Step("max", (Step("difference", (a, b), diff), 0), result, label)


def _product(factors: tuple[Any, ...]) -> Fraction:
    out = Fraction(1)
    for f in factors:
        out *= Fraction(Decimal(str(f)))
    return out


# a full ratchet is re-checked from its steps (its computation data does not say whether
# the Camden price as issued was below P), the others from their computation
RECOMPUTE.update({"weighted_average": recompute, "shares": recompute})

_T = ("true_up",)

#: (pattern prefix, exact?, explainer), most specific first.
EXPLAINERS: tuple[tuple[tuple[str, ...], bool, Any], ...] = (
    (_T + ("exercises", "[]"), False, _exercise),
    (_T + ("holders", "*"), False, _trueup_holder),
    (_T + ("instruments", "[]"), False, _instrument),
    (_T + ("adjustments", "[]"), False, _adjustment),
    (_T + ("vestings", "[]"), False, _vesting),
    (_T + ("camden", "*"), False, _camden),
    (_T + ("capitalization",), False, _capitalization),
    (_T + ("formula",), True, _deal_term),
    (_T + ("true_up_cutoff",), True, _deal_term),
    (_T + ("price_decimals",), True, _deal_term),
)
