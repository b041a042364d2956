"""The Letter's obligations with their lifecycle (issue 16): the true-up shares of Letter
¶3, read from the true-up engine's report part (``projections.trueup.report``).

Letter ¶3: if a Warrantholder exercised or converted before the cutoff and Camden
Warrants "become Vested Warrants after the date of the exercise", the Company "shall
issue" the difference ``x - y``. The Letter sets no day by which to issue, so an earned
true-up is ``due`` from the vesting that earned it until issued (never ``violated``).
Shares earned after earlier ones were issued are due from the vesting that earned them,
not from the first (a review of stop 19: 1,638 shares earned on 2003-09-30 and issued on
10-15, 322 more earned on 2004-03-31, were shown due since 2003-09-30).
"""

from __future__ import annotations

from datetime import date
from typing import Any, Callable, Mapping

from .lifecycle import Duty

CLAUSE = "Letter ¶3"
ACT = {"WarrantsExercised": "exercise", "PreferredConverted": "conversion"}


def event_dates(by_id: Mapping[str, Any]) -> Callable[[str], date | None]:
    """``true_up_duties``'s ``date_of`` from a deal's events by id (``Timeline.by_id``)."""
    def date_of(event: str) -> date | None:
        found = by_id.get(event)
        return found.date if found is not None else None
    return date_of


def _unvested(true_up: Mapping[str, Any]) -> int:
    return sum(row["unvested"] for row in true_up.get("camden", {}).values())


def true_up_duties(true_up: Mapping[str, Any],
                   date_of: Callable[[str], date | None] = lambda event: None,
                   root: Callable[[str], str] = lambda event: event) -> list[Duty]:
    """One obligation per exercise or conversion before the cutoff (Letter ¶3):
    ``unknown`` when a vesting's true-up cannot be computed (``_unknown``);
    ``upcoming`` while nothing is earned and Camden Warrants may still vest;
    ``discharged`` when nothing is earned and none can (all vested or cancelled);
    ``due`` while some are outstanding, from the vesting at which the shares earned so far
    first exceeded all those issued; ``fulfilled`` by the TrueUpSharesIssued that settled
    it, since its day (``date_of``: an event id's date). Keyed by the exercise
    (``root``: the first event of its correction chain, ``identity``)."""
    unvested = _unvested(true_up)
    out = []
    for ex in true_up["exercises"]:
        if not ex["eligible"]:
            continue
        earned_at = [v for v in ex["vestings"] if v["increment"] > 0]
        issues = [i["event"] for i in ex.get("true_up_shares", ())]
        common = dict(key=f"true-up/{ex['instrument']}/{root(ex['event'])}", kind="true-up",
                      obligation=f"issue {ex['holder']} the true-up shares for the "
                                 f"{ACT.get(ex['type'], ex['type'])} of {ex['instrument']} on "
                                 f"{ex['date']}",
                      clause=CLAUSE, party="Company", holder=ex["holder"],
                      interpretations=("trueup_adjustments", "trueup_dividends",
                                       "same_day_vesting_and_exercise", "camden_tranche_order"),
                      events=tuple(dict.fromkeys(
                          [ex["event"], *(i for v in ex["vestings"] for i in v["events"]),
                           *issues])))
        if ex.get("unknown"):
            out.append(_unknown(ex, common))
            continue
        if ex["owed"] == 0:
            if unvested:
                out.append(Duty(due=None, state="upcoming", shares=0,
                                explanation=f"nothing earned yet; {unvested} Camden Warrants "
                                            f"may still vest", **common))
            else:
                out.append(Duty(due=None, state="discharged", shares=0,
                                by="no Camden Warrant is left to vest (all vested or "
                                   "cancelled) and none earned a true-up", **common))
            continue
        first = date.fromisoformat(earned_at[0]["date"]) if earned_at else None
        explanation = (f"x - y = {ex['owed']} shares earned by the vestings of "
                       + ", ".join(v["date"] for v in earned_at)
                       + f"; issued {ex['issued']}")
        if ex["outstanding"] > 0:
            arose, total = first, 0
            for v in ex["vestings"]:
                total += v["increment"]
                if total > ex["issued"]:
                    arose = date.fromisoformat(v["date"])
                    break
            out.append(Duty(due=arose, state="due", since=arose, shares=ex["outstanding"],
                            explanation=explanation, **common))
        else:
            settled = date_of(issues[-1]) if issues else None
            out.append(Duty(due=first, state="fulfilled", since=settled, shares=ex["owed"],
                            by=f"{ex['issued']} true-up shares issued",
                            by_event=issues[-1] if issues else None,
                            explanation=explanation, **common))
    return out


def _unknown(ex: Mapping[str, Any], common: dict[str, Any]) -> Duty:
    """Letter ¶3, SPEC §5.2: a Camden tranche vested below the price in force, so the
    price falls and shares are owed, but how many cannot be computed: the weighted
    average needs the common shares outstanding, and none is recorded on or before the
    vesting. Not ``discharged`` (nothing says none is owed): ``unknown`` from that
    vesting until the capitalization is recorded, naming the fact to record (issue 30)."""
    day = date.fromisoformat(ex["unknown"][0]["date"])
    missing = f"record the capitalization on or before {day} to compute the true-up"
    return Duty(**{**common, "obligation": f"{common['obligation']}: {missing}"},
                due=day, state="unknown", since=day,
                explanation=f"shares are owed for the vesting of {day}, their number is "
                            f"unknown: the weighted average needs the common shares "
                            f"outstanding, and no CapitalizationRecorded is dated on or "
                            f"before {day} (SPEC §5.2); {missing}")


def exercises_of(history) -> dict[str, Any]:
    """The fields ``true_up_duties`` reads, straight from the true-up replay
    (``projections.trueup.replay.History``), without building the report part (the
    agenda's path: the explanations and the deferred prices are not needed)."""
    out = []
    for acc in history.accounts:
        ex = acc.exercise
        before = 0
        vestings = []
        for step in acc.steps:
            vestings.append({"date": step.date.isoformat(), "increment": step.earned - before,
                             "events": list(step.vestings)})
            before = step.earned
        out.append({"event": ex.event, "instrument": ex.instrument, "holder": ex.holder,
                    "type": ex.type, "date": ex.date.isoformat(), "eligible": ex.eligible,
                    "owed": acc.earned, "issued": acc.issued, "outstanding": acc.outstanding,
                    "vestings": vestings,
                    "true_up_shares": [{"event": e, "shares": n} for e, n in acc.issues],
                    "unknown": [{"vesting": v, "date": d.isoformat()} for d, v in acc.unknown]})
    unvested = sum(iss.unvested for iss in history.book)
    return {"exercises": out, "camden": {"all": {"unvested": unvested}}}
