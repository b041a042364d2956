"""Issue 16: properties of the obligation lifecycle over random registration histories
(the strategy of ``test_registration_properties``): every state is one of the seven and
means what it says about its dates, and an obligation met stays met on any later day."""

from __future__ import annotations

import os
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from projections.obligations import STATES
from projections.report import report
from tests.support import build
from tests.test_registration_properties import histories

LONG = int(os.environ.get("DEAL_LEDGER_LONG", "0") or 0)
SETTINGS = settings(max_examples=40 * (25 if LONG else 1), deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
DEADLINES = ("file-shelf", "shelf-effective", "advise-holders", "questionnaire",
             "late-questionnaire-amendment", "cure-unusable", "end-suspension",
             "notify-trustee", "pay-additional-interest")
STAYS_MET = ("file-shelf", "shelf-effective", "advise-holders", "questionnaire",
             "cure-unusable", "end-suspension")


def obligations(events, as_of, readings):
    return report(events, as_of=as_of, interpretations=readings)["obligations"]


@SETTINGS
@given(histories())
def test_each_state_says_what_it_means(history):
    objs, as_of, readings = history
    found = obligations(build(objs), as_of, readings)
    day = as_of.isoformat()
    assert len({o["key"] for o in found}) == len(found)
    for o in found:
        assert o["state"] in STATES, o
        assert o["clause"]
        if o["kind"] not in DEADLINES:
            continue
        if o["state"] == "upcoming":
            assert o["due"] is None or o["due"] > day, o
        elif o["state"] == "due":
            assert o["due"] is None or o["due"] == day, o
        elif o["state"] == "fulfilled":
            assert o["since"] is None or (o["since"] <= day and
                                          (o["due"] is None or o["since"] <= o["due"])), o
            assert o["by_event"] is None or o["by_event"] in o["events"] or \
                o["kind"] == "pay-additional-interest", o
        elif o["state"] == "violated":
            assert o["violated_since"] <= day, o
            assert o["due"] is None or o["violated_since"] > o["due"], o
        elif o["state"] == "cured":
            assert o["violated_since"] <= o["cured_on"] <= day, o


@SETTINGS
@given(histories(), st.integers(1, 1500))
def test_an_obligation_met_stays_met(history, later):
    objs, as_of, readings = history
    events = build(objs)
    then = {o["key"]: o for o in obligations(events, as_of, readings)
            if o["kind"] in STAYS_MET and o["state"] == "fulfilled"}
    now = {o["key"]: o for o in obligations(events, as_of + timedelta(days=later), readings)}
    for key, o in then.items():
        assert now[key]["state"] == "fulfilled", (o, now.get(key))
        assert now[key]["due"] == o["due"]
