"""The worked examples of the interpretation catalog (``deal-ledger interpretations``,
``deal-ledger clause``): each example's history, computed under each value, gives the
figure its text states (worked by hand in the text itself), so a catalog entry cannot
drift from the engine. Issue 30 added the four readings of SPEC §6 that carry one."""

from __future__ import annotations

import json

import pytest

from projections.interpretations import REGISTRY
from tests.cli_support import ok, run
from tests.letter_support import CAMDEN, DB, DEAL, e, one, report as letter_report
from tests.support import ev, opened
from tests.test_registration_support import LEHMAN, payment, report

EX1 = [ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15")]
W = e("InstrumentRegistered", "2002-02-01", instrument="W", holder=DB, kind="warrant",
      shares=100_000, exercise_price="3.00")
CAP = e("CapitalizationRecorded", "2002-02-01", common_outstanding=10_000_000)


def conversion_judged_on(value: str) -> str:
    objs = [opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="40000000"),
            ev("NotesIssued", "2004-06-30", holder="Alpha", principal="20000000"), *EX1,
            ev("NotesConverted", "2005-01-17", holder="Alpha", principal="20000000",
               shares=1302083)]
    rep = report(objs, "2005-02-01", conversion_judged_on=value)
    return payment(rep, "2005-01-15")["amounts"]["Alpha"]


def shelf_buyer_paid(value: str) -> str:
    objs = [opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
            *EX1, ev("NotesTransferred", "2004-12-01", from_holder=LEHMAN, to_holder="Buyer",
                     principal="60000000", under_shelf=True)]
    rep = report(objs, "2005-02-01", shelf_buyer_paid=value)
    return payment(rep, "2005-01-15")["total"]


def same_day_adjustment(value: str) -> str:
    objs = [opened(DEAL, "infocrossing-letter-2002"), CAP,
            e("CamdenWarrantsIssued", "2002-02-01", holder=CAMDEN, warrants=1_000_000,
              exercise_price="2.00"), W,
            e("CamdenWarrantsVested", "2003-01-01", holder=CAMDEN, warrants=1_000_000),
            e("AdjustmentRecorded", "2003-01-01", instrument="W", new_price="2.70",
              reason="other issuance")]
    return one(letter_report(objs, same_day_adjustment=value)["instruments"],
               instrument="W")["price"]


def later_camden_issuance(value: str) -> str:
    objs = [opened(DEAL, "infocrossing-letter-2002"), CAP, W,
            e("CamdenWarrantsIssued", "2002-06-01", holder=CAMDEN, warrants=1_000_000,
              exercise_price="2.00"),
            e("CamdenWarrantsVested", "2003-01-01", holder=CAMDEN, warrants=1_000_000)]
    return one(letter_report(objs, later_camden_issuance=value)["instruments"],
               instrument="W")["price"]


#: the figure each example's text ends on, worked there by hand
STATED = {("conversion_judged_on", "interest_payment_date"): ("2222.22", "= 2,222.22"),
          ("conversion_judged_on", "payment_day"): ("0.00", "0.00"),
          ("shelf_buyer_paid", "accrued_days"): ("6666.67", "= 6,666.67"),
          ("shelf_buyer_paid", "not_record_holder"): ("0.00", "(0.00)"),
          ("same_day_adjustment", "as_recorded"): ("2.70", "at 2.70"),
          ("same_day_adjustment", "before_others"): ("2.6364", "= 2.6364"),
          ("later_camden_issuance", "not_deferred"): ("3.00", "stays at 3.00"),
          ("later_camden_issuance", "deferred"): ("2.9091", "= 2.9091")}
COMPUTE = {"conversion_judged_on": conversion_judged_on, "shelf_buyer_paid": shelf_buyer_paid,
           "same_day_adjustment": same_day_adjustment,
           "later_camden_issuance": later_camden_issuance}


@pytest.mark.parametrize("name, value", sorted(STATED), ids=lambda x: str(x))
def test_each_example_states_what_the_engine_computes(name, value):
    figure, words = STATED[(name, value)]
    assert words in REGISTRY[name].examples[value]
    assert COMPUTE[name](value) == figure


def test_the_four_new_readings_have_an_example_of_each_value():
    for name in COMPUTE:
        assert set(REGISTRY[name].examples) == set(REGISTRY[name].values), name


def test_the_catalog_shows_the_examples():
    listed = json.loads(ok(run("interpretations", "--json")))
    assert listed["shelf_buyer_paid"]["examples"] == dict(REGISTRY["shelf_buyer_paid"].examples)
    assert "Worked examples" in ok(run("interpretations"))
    page = json.loads(ok(run("clause", "Letter ¶5", "--json")))
    [later] = [i for i in page["interpretations"] if i["name"] == "later_camden_issuance"]
    assert later["examples"]["deferred"].endswith("103,124)")
    assert "for example, not_record_holder" in ok(run("clause", "RRA §3(b)"))
