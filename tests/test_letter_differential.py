"""The engine (``projections.report``) against the reference model of the Letter
(``tests/reference/letter_model.py``) on random histories the write side accepts.

A history: several Warrantholders with Warrants and Series A Preferred, a capitalization
(sometimes none, sometimes several), Camden Warrants issued on the agreement date to two
Camden Entities, then days (some around the 2004-02-01 cutoff) of vestings in tranches,
cancellations, partial exercises and conversions (several on one day), other adjustments
(``AdjustmentRecorded``), new capitalizations and true-up shares issued; recorded out of
date order (days in a random order; one day's events in the order its kinds take effect,
or with a capitalization recorded after the day's vesting and exercises before it, and an
adjustment recorded anywhere among the day's vestings, cancellations and exercises: the
only same-day orders drawn are the ones SPEC §1, §5.2 and §6 settle); sometimes Camden
Warrants issued after the agreement date (``later_camden_issuance``).
Each history is checked by the write-side guards (``ledger.guards``) before use.

Compared: owed, issued and outstanding per holder and per exercise; eligibility and shares
issued per exercise; the vestings whose true-up cannot be computed (no capitalization:
``unknown``); price and share count per instrument, its price at the end of every
day with events, and what they would be if every
unvested Camden Warrant vested (SPEC §5.3 "the adjustment still deferred").

Interpretations are drawn from the readings both the model and the engine know
(``projections.interpretations.REGISTRY``), so that readings the engine gains are tested
without a change here.

Not drawn, because SPEC does not settle them (see the report of issue 13): a cancellation
recorded before the day's vesting (SPEC §1 says recorded order, the engine takes kinds in
a fixed order; an ``AdjustmentRecorded`` recorded across it is drawn since issue 30:
``same_day_adjustment`` settles it); true-up
shares beyond what is outstanding (which exercise an excess is credited to);
``trueup_dividends = to_vesting_date`` (no dividend terms). Once KNOWN_DEFECTS_AVOIDED is
False, one vesting day can hold tranches at and above P: the model leaves those not below
P out of C and B (SPEC §5.2 "no adjustment if the Camden price is not below P", read per
tranche); SPEC does not say so for a day of several tranches.

CI runs ``EXAMPLES`` seeded examples; ``DEAL_LEDGER_LONG=1`` runs twenty times as many.
"""

from __future__ import annotations

import os
from datetime import date, timedelta
from decimal import ROUND_DOWN, Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import guards
from projections.interpretations import REGISTRY
from projections.report import report
from tests.reference.letter_model import READINGS, public, replay
from tests.reference.rra_notes import live_events
from tests.support import build, opened

#: Issue 13 defects 1 and 2 are fixed on branch letter-engine; until that merges, the
#: histories avoid their shapes (each kept as a named xfail in
#: tests/test_letter_reference_examples.py). Set to False after the merge:
#: * defect 1 (same-day events of one kind ordered by their JSON text): two exercises of one
#:   instrument, two capitalizations or two AdjustmentRecorded on one day, and two Camden
#:   issuances of one entity (same day: their order decides the tranches);
#: * defect 2 (one day's vestings rounded one by one): two vestings on one day, and a
#:   vesting drawing on two issuances (one Camden issuance per entity).
KNOWN_DEFECTS_AVOIDED = False

#: An engine defect the reference model found that issue 13 does not list (reported, no
#: owner yet; the engine is not changed here): under ``full_ratchet`` the engine rounds the
#: Camden price to ``price_decimals`` before asking whether it is below P, so a Camden price
#: equal to P (2.4201, price_decimals 2) adjusts P to 2.42, though SPEC §5.2 says "No
#: adjustment if the Camden price is not below P" (test_letter_model.py
#: ``test_full_ratchet_camden_price_not_below_p_adjusts_nothing``). While True, Camden
#: prices have no more decimals than ``price_decimals``, where the rounding changes nothing.
RATCHET_ROUNDING_AVOIDED = False

LONG = bool(os.environ.get("DEAL_LEDGER_LONG"))
EXAMPLES = 300
SETTINGS = settings(max_examples=EXAMPLES * (20 if LONG else 1), deadline=None,
                    derandomize=not LONG, database=None)

DEAL = "letter"
AGREEMENT = date(2002, 2, 1)
HOLDERS = ("DB Capital Investors, L.P.", "Sandler Capital Partners V, L.P.",
           "Price Family Limited Partners")
CAMDEN = ("Camden Partners Strategic Fund II-A, L.P.", "Strategic Associates, L.P.")
FORMULAS = ("weighted_average_broad", "weighted_average_narrow", "full_ratchet")
AROUND_CUTOFF = tuple(date(2004, 1, 29) + timedelta(days=i) for i in range(6))
DAYS = tuple(sorted({date(2002 + m // 12, 1 + m % 12, 1 + (7 * m) % 27)
                     for m in range(1, 48)} | set(AROUND_CUTOFF)))
KIND_ORDER = ("InstrumentRegistered", "CapitalizationRecorded", "CamdenWarrantsIssued",
              "AdjustmentRecorded", "CamdenWarrantsVested", "CamdenWarrantsCancelled",
              "WarrantsExercised", "PreferredConverted", "TrueUpSharesIssued")

#: where a day's capitalization and exercises are recorded when they are recorded out of the
#: order their kinds take effect (``KIND_ORDER`` positions)
RECORDED_LATE = {"CapitalizationRecorded": 7.5, "WarrantsExercised": 3.5,
                 "PreferredConverted": 3.5}

#: the readings both sides know; a name the engine lacks is left at the model's default
#: and not passed to the engine
SHARED_READINGS = {name: tuple(v for v in values if v in REGISTRY[name].values)
                   for name, values in READINGS.items() if name in REGISTRY}


def price(low: int, high: int):
    """A price of at most four decimals, in ten-thousandths."""
    return st.integers(low, high).map(lambda n: str(Decimal(n).scaleb(-4)))


def ev(type_: str, day: date, **data: Any) -> dict[str, Any]:
    return {"type": type_, "deal": DEAL, "date": day.isoformat(), "data": data}


@st.composite
def histories(draw) -> dict[str, Any]:
    formula = draw(st.sampled_from(FORMULAS))
    decimals = draw(st.sampled_from([4, 4, 2, 6]))
    readings = {name: draw(st.sampled_from(values)) for name, values in SHARED_READINGS.items()}
    model_readings = {**{n: v[0] for n, v in READINGS.items()}, **readings}
    days: dict[date, list[dict[str, Any]]] = {AGREEMENT: []}
    day0 = days[AGREEMENT]

    # positions (Letter ¶1): registered at once or later
    instruments: dict[str, date] = {}
    for i in range(draw(st.integers(1, 4))):
        name, holder = f"I-{i}", draw(st.sampled_from(HOLDERS))
        on = AGREEMENT if draw(st.integers(0, 3)) else draw(st.sampled_from(DAYS[:12]))
        if draw(st.booleans()):
            obj = ev("InstrumentRegistered", on, instrument=name, holder=holder,
                     kind="warrant", shares=draw(st.integers(10_000, 2_000_000)),
                     exercise_price=draw(price(20_000, 60_000)))
        else:
            obj = ev("InstrumentRegistered", on, instrument=name, holder=holder,
                     kind="preferred", quantity=draw(st.integers(1_000, 100_000)),
                     stated_value=draw(price(100_000, 1_000_000)),
                     conversion_price=draw(price(20_000, 60_000)))
        days.setdefault(on, []).append(obj)
        instruments[name] = on
    if draw(st.integers(0, 9)):
        day0.append(ev("CapitalizationRecorded", AGREEMENT,
                       common_outstanding=draw(st.integers(5_000_000, 20_000_000))))
    # Camden Warrants, issued under the agreement of February 1, 2002 (Letter ¶2)
    unvested: dict[str, int] = {}
    for holder in CAMDEN:
        for _ in range(draw(st.integers(1, 1 if KNOWN_DEFECTS_AVOIDED else 3))):
            n = draw(st.integers(50_000, 1_000_000))
            camden_price = Decimal(draw(price(5_000, 26_000)))
            if RATCHET_ROUNDING_AVOIDED:
                camden_price = camden_price.quantize(Decimal(1).scaleb(-decimals),
                                                     rounding=ROUND_DOWN)
            day0.append(ev("CamdenWarrantsIssued", AGREEMENT, holder=holder, warrants=n,
                           exercise_price=str(camden_price),
                           consideration=draw(st.sampled_from(["0", "0", "1000.00",
                                                               "25000.50"]))))
            unvested[holder] = unvested.get(holder, 0) + n
    later_issue = None
    if draw(st.integers(0, 3)) == 0:   # issued later under the Camden Warrant Agreement
        on, holder = draw(st.sampled_from(DAYS[:20])), draw(st.sampled_from(CAMDEN))
        n = draw(st.integers(50_000, 1_000_000))
        later_issue = (on, holder, n, ev("CamdenWarrantsIssued", on, holder=holder,
                                         warrants=n, exercise_price=draw(price(5_000, 26_000))))

    pending = later_issue
    # later days, in date order, each day's actions in the order their kinds take effect
    remaining = {name: Decimal(1) for name in instruments}
    kinds = {name: next(o for d in days.values() for o in d
                        if o["data"].get("instrument") == name)["data"]["kind"]
             for name in instruments}
    deltas: dict[int, int] = {}   # id(exercise object) -> shares over (+) or short (-)
    trueups: list[tuple[date, str, Decimal]] = []
    for day in sorted(set(draw(st.lists(st.sampled_from(DAYS), min_size=3, max_size=9)))):
        if pending is not None and pending[0] <= day:   # vestable from its day
            unvested[pending[1]] += pending[2]
            pending = None
        actions = draw(st.lists(st.sampled_from(
            ["vest", "vest", "vest", "cancel", "exercise", "exercise", "exercise", "adjust",
             "cap", "trueup", "trueup"]), min_size=1, max_size=6))
        todo: list[dict[str, Any]] = []
        for action in actions:
            if action == "cap":
                todo.append(ev("CapitalizationRecorded", day,
                               common_outstanding=draw(st.integers(5_000_000, 20_000_000))))
            elif action == "adjust":
                target = draw(st.sampled_from(["all", *instruments]))
                todo.append(ev("AdjustmentRecorded", day, instrument=target,
                               new_price=draw(price(20_000, 60_000)), reason="other issuance"))
            elif action in ("vest", "cancel"):
                holder = draw(st.sampled_from(CAMDEN))
                todo.append(ev("CamdenWarrantsVested" if action == "vest"
                               else "CamdenWarrantsCancelled", day, holder=holder,
                               warrants=draw(st.sampled_from([1.0, 0.5, 0.25, 0.1]))))
            elif action == "exercise":
                name = draw(st.sampled_from(sorted(instruments)))
                todo.append(ev("WarrantsExercised" if kinds[name] == "warrant"
                               else "PreferredConverted", day, instrument=name,
                               fraction=draw(st.sampled_from(
                                   ["1", "0.5", "0.5", "0.4", "0.25", "0.3333"])),
                               shares_issued=1))
            else:
                trueups.append((day, draw(st.sampled_from(sorted(instruments))),
                                draw(st.sampled_from([Decimal(1), Decimal("0.5")]))))
        todo.sort(key=lambda o: KIND_ORDER.index(o["type"]))
        seen: set[tuple[str, str]] = set()
        for obj in todo:
            t, data = obj["type"], obj["data"]
            if KNOWN_DEFECTS_AVOIDED:
                shape = {"CapitalizationRecorded": t, "AdjustmentRecorded": t,
                         "CamdenWarrantsVested": t}.get(t) or data.get("instrument", "")
                if (t, shape) in seen:
                    continue
                seen.add((t, shape))
            if t in ("CamdenWarrantsVested", "CamdenWarrantsCancelled"):
                left = unvested[data["holder"]]
                n = int(left * data["warrants"])
                if n < 1:
                    continue
                data["warrants"] = n
                unvested[data["holder"]] = left - n
            elif t in ("WarrantsExercised", "PreferredConverted"):
                name = data["instrument"]
                if instruments[name] > day or remaining[name] <= 0:
                    continue
                remaining[name] *= 1 - Decimal(data["fraction"])
                deltas[id(obj)] = draw(st.sampled_from([0, 0, 0, -1, -250, 3]))
            elif t == "AdjustmentRecorded" and data["instrument"] != "all" \
                    and instruments[data["instrument"]] > day:
                continue
            days.setdefault(day, []).append(obj)
        # recorded in the order the kinds take effect, or with the two same-day orders
        # SPEC settles turned round: a capitalization recorded after the day's vesting still
        # counts for it (§5.2 "on or before the vesting date"), and an exercise recorded
        # before it follows it or not by same_day_vesting_and_exercise (§6)
        order = dict(RECORDED_LATE if draw(st.booleans()) else {})
        if draw(st.booleans()):   # the adjustments anywhere among vestings and exercises
            order["AdjustmentRecorded"] = draw(st.sampled_from([3, 4.5, 5.5, 7.5]))
        days.get(day, []).sort(key=lambda o: order.get(o["type"], KIND_ORDER.index(o["type"])))

    # recorded out of date order: the positions first (the write side refuses an exercise
    # of a position not yet registered), the agreement date's events, then the days shuffled
    later = draw(st.permutations(sorted(d for d in days if d != AGREEMENT)))
    objs = [opened(DEAL, "infocrossing-letter-2002", formula=formula, price_decimals=decimals)]
    objs += [o for day in sorted(days) for o in days[day] if o["type"] == "InstrumentRegistered"]
    for day in (AGREEMENT, *later):
        objs += [o for o in days[day] if o["type"] != "InstrumentRegistered"]
        if day == AGREEMENT and later_issue:   # recorded early, as the positions are
            objs.append(later_issue[3])
    records = _records(objs)

    # shares issued at each exercise: what the price then in force implied (the model's
    # figure; the engine's would do as well), sometimes a few short or over
    implied = {x.event: x.implied for x in replay(records, date(2099, 1, 1),
                                                  model_readings).exercises}
    for record, obj in zip(records, objs):
        if id(obj) in deltas:
            obj["data"]["shares_issued"] = max(1, implied[record["id"]] + deltas[id(obj)])
    # true-up shares issued, recorded last: part or all of what the instrument has
    # outstanding on that day (never more: the engine's allocation of an excess is a
    # reading of its own, SPEC says nothing of it)
    for day, name, share in sorted(trueups):
        m = replay(_records(objs), day, model_readings)
        owed = sum(x.outstanding for x in m.exercises if x.instrument == name)
        shares = int(owed * share)
        if shares >= 1:
            objs.append(ev("TrueUpSharesIssued", day, instrument=name, shares=shares))
    # corrections, recorded last (SPEC §3.1; issue 31): events whose retraction no rule
    # refuses retracted, and a retraction sometimes withdrawn (EventReinstated)
    free = [i for i, o in enumerate(objs, 1) if o["type"] in CORRECTABLE]
    for i in draw(st.lists(st.sampled_from(free), max_size=2, unique=True) if free
                  else st.just([])):
        objs.append(ev("EventRetracted", day_of(objs[i - 1]["date"]), event_id=f"e{i}",
                       reason="entered in error"))
    retractions = [i for i, o in enumerate(objs, 1) if o["type"] == "EventRetracted"]
    if retractions and draw(st.booleans()):
        r = draw(st.sampled_from(retractions))
        objs.append(ev("EventReinstated", day_of(objs[r - 1]["date"]), retraction_id=f"e{r}",
                       reason="retracted in error"))
    as_of = draw(st.sampled_from([date(2006, 12, 31), *DAYS[10:]]))
    return {"objs": objs, "readings": readings, "model_readings": model_readings,
            "as_of": as_of}


#: the types a retraction of which no write-side rule refuses, whatever else was recorded
CORRECTABLE = ("CapitalizationRecorded", "TrueUpSharesIssued")


def day_of(text: str) -> date:
    return date.fromisoformat(text)


def _records(objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The public records the store would give ``objs`` appended in this order."""
    return [{**o, "id": f"e{i + 1}", "seq": i + 1,
             "recorded_at": f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}.000000Z"}
            for i, o in enumerate(objs)]


def accepted(objs: list[dict[str, Any]]) -> None:
    """The write side's rules (``ledger.guards``), event by event in recording order."""
    state = guards.new_state()
    for record in _records(objs):
        found = guards.check(state, record)
        guards.fold(state, record, found)


def differences(objs: list[dict[str, Any]], as_of: date, readings: dict[str, str],
                model_readings: dict[str, str]) -> list[str]:
    """Every figure on which the engine and the model disagree, as text."""
    engine = report(build(objs), as_of=as_of, interpretations=readings)["true_up"]
    # the model reads live events only: the reference's own reading of retractions and
    # reinstatements (tests.reference.rra_notes.live_events), not the engine's
    model = replay(live_events([public(e) for e in build(objs)], DEAL, None), as_of,
                   model_readings)
    out = []
    for holder, row in model.holders().items():
        theirs = engine["holders"].get(holder)
        got = theirs and {k: theirs[k] for k in row}
        if got != row:
            out.append(f"holder {holder}: engine {got}, model {row}")
    for name, row in model.instruments().items():
        theirs = next((i for i in engine["instruments"] if i["instrument"] == name), None)
        got = theirs and {"price": Decimal(theirs["price"]), "shares": theirs["shares"]}
        if got != {"price": row["price"], "shares": row["shares"]}:
            out.append(f"instrument {name}: engine {got}, model {row}")
    for day, name, want in model.prices:
        theirs = next(i for i in engine["instruments"] if i["instrument"] == name)
        got = _price_at_end_of(theirs, day)
        if got != want:
            out.append(f"instrument {name} at the end of {day}: engine {got}, model {want}")
    unvested = sum(1 for i in model.issuances if i.unvested)
    if not (KNOWN_DEFECTS_AVOIDED and unvested > 1):   # defect 2: rounded per issuance
        for name, row in model.if_all_vest().items():
            theirs = next(i for i in engine["instruments"] if i["instrument"] == name)
            got = (None if theirs["deferred_price_if_all_vest"] is None else
                   (Decimal(theirs["deferred_price_if_all_vest"]),
                    theirs["deferred_shares_if_all_vest"]))
            if got != row:
                out.append(f"instrument {name} if all vest: engine {got}, model {row}")
    mine = model.by_exercise()
    for x in engine["exercises"]:
        want = mine.pop(x["event"], None)
        keys = ("eligible", "shares_issued", "owed", "issued", "outstanding", "unknown")
        got = {**{k: x[k] for k in keys if k != "unknown"},
               "unknown": [date.fromisoformat(u["date"]) for u in x["unknown"]]}
        if want is None or got != {k: want[k] for k in keys}:
            out.append(f"exercise {x['event']}: engine {got}, model {want}")
    out += [f"exercise {e}: only in the model" for e in mine]
    return out


def _price_at_end_of(instrument: dict[str, Any], day: str) -> Decimal:
    """An instrument's price at the end of ``day`` from the engine's ``price_history``."""
    history = instrument["price_history"]
    done = [c for c in history if c["date"] <= day]
    if done:
        return Decimal(done[-1]["after"])
    return Decimal(history[0]["before"] if history else instrument["price"])


def show(history: dict[str, Any]) -> str:
    import json

    lines = [json.dumps(o) for o in history["objs"]]
    return "\n".join([f"as_of {history['as_of']}, readings {history['readings']}", *lines])


@SETTINGS
@given(histories())
def test_engine_agrees_with_the_reference_model(history):
    accepted(history["objs"])
    found = differences(history["objs"], history["as_of"], history["readings"],
                        history["model_readings"])
    assert not found, "\n".join(found) + "\n" + show(history)
