"""Explaining figures: every kind of figure says its rule, clause (stated plainly),
interpretations, input events and arithmetic, and the arithmetic, recomputed, gives the
figure. Expected values are worked by hand from the contract (SPEC §8, SPEC §5)."""

from __future__ import annotations

import json
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

import pytest
from click.testing import CliRunner

from cli.main import cli
from publishing.demo import letter_history, rra_history
from ledger.events import parse_event
from ledger.store import Ledger
from projections.clauses import CLAUSES, RATE_TIERS
from projections.explain import explain, figure_paths
from projections.figures import FigureError, locate
from projections.interpretations import REGISTRY
from projections.report import report
from tests.support import build, ev, opened

LEHMAN = "Lehman Brothers Inc."
FUND = "Illustrative Fund A"
P = Decimal(60_000_000)
CENT = Decimal("0.01")


def close(a: Decimal, b: Decimal) -> bool:
    """Equal to 20 decimal places (the evaluator carries 60 digits, Decimal's default 28)."""
    return abs(a - b) < Decimal("1e-20")


def money(x: Decimal) -> str:
    return str(x.quantize(CENT, ROUND_HALF_UP))


def rra(*objs, holders=None):
    issued = [ev("NotesIssued", "2004-06-30", holder=h, principal=p)
              for h, p in (holders or {LEHMAN: "60000000"}).items()]
    return build([opened(), *issued, *objs])


EXAMPLE_1 = [ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15")]
PAY_1 = "additional_interest.payments[payment_date=2005-01-15]"


def explained(events, figure, as_of="2005-02-01", **readings):
    rep = report(events, as_of=date.fromisoformat(as_of), interpretations=readings)
    return explain(rep, figure, events)


def clause_refs(node):
    return [c["clause"] for c in node["clauses"]]


def all_nodes(node):
    yield node
    for p in node["parts"]:
        yield from all_nodes(p)


# ---------------------------------------------------------------- Additional Interest


def test_spec_example_1_amount_is_explained_and_its_arithmetic_reproduces_it():
    events = rra(*EXAMPLE_1)
    out = explained(events, f"{PAY_1}.amounts.{LEHMAN}")
    # by hand: 30/360 days 2004-10-29 .. 2004-11-15 = 30 × (11 - 10) + (15 - 29) = 16;
    # 60,000,000 × 0.0025 × 16 / 360 = 6,666.666… → 6,666.67
    by_hand = P * Decimal("0.0025") * 16 / 360
    assert out["value"] == money(by_hand) == "6666.67"
    node = out["explanation"]
    assert "60000000 × 0.25% × 16/360" in node["arithmetic"]
    [check] = node["checks"]
    assert check["ok"] and check["result"] == "6666.67" == money(by_hand)
    assert check["expression"].startswith("60000000 × 0.25% × 16/360 [2004-10-29, 2004-11-15)")
    assert out["arithmetic_checks_ok"] is True and out["reproduces_figure"] is True
    assert clause_refs(node) == ["RRA §3(a)", "RRA §3(b)"]
    assert node["clauses"][0]["statement"] == CLAUSES["RRA §3(a)"]
    # the inputs: the opening, the Notes issued, the shelf filed and declared effective
    types = {e["type"]: e for e in node["events"]}
    assert {"DealOpened", "NotesIssued", "ShelfEffective"} <= set(types)
    issued = types["NotesIssued"]
    assert (issued["id"], issued["date"], issued["data"]["principal"]) == (
        "e2", "2004-06-30", "60000000")
    assert issued["recorded_at"] == "2026-01-01T00:02:00.000000Z"
    # the rate: tier (i), 0.25% for the first 90 days, stated plainly as a rate tier
    [segment] = node["parts"]
    assert clause_refs(segment) == ["RRA §3(a)(i)"]
    assert segment["clauses"][0]["statement"] == RATE_TIERS["RRA §3(a)(i)"]
    assert "days 1-17 of the rate clock from 2004-10-29: 0.25%" in segment["arithmetic"]
    assert {"overlapping_defaults", "rate_after_second_anniversary"} <= {
        i["name"] for i in segment["interpretations"]}


def test_act_360_example_1_reproduces_7083_33():
    events = build([opened(day_count="ACT/360"),
                    ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
                    *EXAMPLE_1])
    out = explained(events, f"{PAY_1}.amounts.{LEHMAN}")
    # actual days 2004-10-29 .. 2004-11-14 = 3 + 14 = 17: 60,000,000 × 0.0025 × 17 / 360
    assert out["value"] == money(P * Decimal("0.0025") * 17 / 360) == "7083.33"
    assert out["reproduces_figure"] is True and out["arithmetic_checks_ok"] is True


def test_totals_add_up_the_holders_and_the_payments():
    holders = {LEHMAN: "42000000", FUND: "18000000"}
    events = rra(*EXAMPLE_1, ev("SuspensionStarted", "2005-03-01", material_transaction=False),
                 ev("SuspensionEnded", "2005-04-20"), holders=holders)
    # (ii): 16 days (30/360) payable 2005-01-15; (iv)(A): 2005-04-15 .. 04-20, 5 days,
    # payable 2005-07-15 (SPEC §8 example 2); each holder's amount rounded once
    lehman = [money(Decimal(42_000_000) * Decimal("0.0025") * d / 360) for d in (16, 5)]
    fund = [money(Decimal(18_000_000) * Decimal("0.0025") * d / 360) for d in (16, 5)]
    assert (lehman, fund) == (["4666.67", "1458.33"], ["2000.00", "625.00"])
    out = explained(events, f"additional_interest.by_holder.{LEHMAN}", as_of="2005-08-01")
    assert out["value"] == money(sum(map(Decimal, lehman))) == "6125.00"
    assert out["explanation"]["arithmetic"] == "4666.67 + 1458.33 = 6125.00"
    assert out["reproduces_figure"] and out["arithmetic_checks_ok"]
    assert len(out["explanation"]["parts"]) == 2
    total = explained(events, "additional_interest.accrued_to_as_of", as_of="2005-08-01")
    assert total["value"] == "8750.00"            # 6,125.00 + 2,625.00
    assert total["explanation"]["arithmetic"] == "2625.00 + 6125.00 = 8750.00"
    assert total["reproduces_figure"] and total["arithmetic_checks_ok"]
    pay = explained(events, f"{PAY_1}.total", as_of="2005-08-01")
    assert pay["explanation"]["arithmetic"] == "2000.00 + 4666.67 = 6666.67"
    assert pay["reproduces_figure"] is True


def test_payment_date_explains_the_roll_to_the_next_business_day():
    out = explained(rra(*EXAMPLE_1), f"{PAY_1}.paid_on")
    assert out["value"] == "2005-01-18"
    text = out["explanation"]["arithmetic"]
    # Jan 15, 2005 is a Saturday, Jan 16 a Sunday, Jan 17 Martin Luther King Jr. Day
    assert "2005-01-15 Saturday" in text and "2005-01-16 Sunday" in text
    assert "2005-01-17 Federal Reserve holiday: " in text and "Martin Luther King" in text
    assert "record date 2005-01-01" in text
    assert "RRA §1 Record Holder" in clause_refs(out["explanation"])


def test_paid_amounts_come_from_the_payment_events():
    events = rra(*EXAMPLE_1, ev("AdditionalInterestPaid", "2005-01-18", payment_date="2005-01-15",
                                holder=LEHMAN, amount="6000.00"),
                 ev("AdditionalInterestPaid", "2005-01-20", payment_date="2005-01-15",
                    holder=LEHMAN, amount="666.67"))
    out = explained(events, f"{PAY_1}.paid.{LEHMAN}")
    assert out["value"] == "6666.67"
    assert out["explanation"]["arithmetic"] == "6000.00 + 666.67 = 6666.67"
    assert [e["id"] for e in out["explanation"]["events"]] == ["e5", "e6"]
    status = explained(events, f"{PAY_1}.status")
    assert status["value"] == "paid"


# ----------------------------------------------------------- defaults and deadlines


def test_default_ii_states_its_clause_reading_and_deadline_arithmetic():
    events = rra(*EXAMPLE_1)
    out = explained(events, "registration.defaults[kind=(ii)].accrual_from")
    node = out["explanation"]
    assert out["value"] == "2004-10-29"
    assert clause_refs(node) == ["RRA §3(a)(ii)"]
    assert node["clauses"][0]["statement"].startswith("Registration Default (ii)")
    [reading] = node["interpretations"]
    assert (reading["name"], reading["value"]) == ("default_date", "last_compliant_day")
    assert "accrual starts the day after it" in reading["reading"]
    # 120 days after 2004-06-30 is 2004-10-28
    assert date(2004, 6, 30) + timedelta(days=120) == date(2004, 10, 28)
    assert "2004-06-30 + 120 days = 2004-10-28" in node["arithmetic"]
    assert [e["type"] for e in node["events"]] == ["DealOpened", "ShelfEffective"]
    alt = explained(events, "registration.defaults[kind=(ii)].accrual_from",
                    default_date="first_breach_day")
    assert alt["value"] == "2004-10-30"
    assert alt["explanation"]["interpretations"][0]["value"] == "first_breach_day"


def test_in_default_names_the_accruing_default():
    events = rra(ev("ShelfFiled", "2004-07-13"))
    out = explained(events, "registration.in_default", as_of="2004-11-01")
    assert out["value"] is True
    node = out["explanation"]
    assert "2004-11-01 lies in the accrual of (ii)" in node["arithmetic"]
    assert clause_refs(node["parts"][0]) == ["RRA §3(a)(ii)"]
    cured = explained(rra(*EXAMPLE_1), "registration.in_default")
    assert cured["value"] is False
    assert ("no listed Registration Default accrues on 2005-02-01"
            in cured["explanation"]["arithmetic"])


def test_trustee_notice_deadline_counts_business_days():
    out = explained(rra(*EXAMPLE_1), "deadlines[obligation^=notify the Trustee].due")
    # 2004-10-28 is a Thursday: + 2 Business Days = Fri 10-29, Mon 11-01
    assert out["value"] == "2004-11-01"
    node = out["explanation"]
    assert clause_refs(node) == ["RRA §3(b)"]
    assert "2004-10-28 + 2 Business Days = 2004-11-01" in node["arithmetic"]


def test_filing_deadline_and_the_shelf_dates():
    events = rra(*EXAMPLE_1)
    out = explained(events, "registration.filing_deadline")
    assert out["value"] == "2004-07-15"
    assert "2004-06-30 + 15 days = 2004-07-15" in out["explanation"]["arithmetic"]
    filed = explained(events, "registration.filed_on")
    assert [e["id"] for e in filed["explanation"]["events"]] == ["e3"]
    end = explained(events, "registration.effectiveness_period_end")
    assert end["value"] == "2006-11-15"
    assert clause_refs(end["explanation"]) == ["RRA §2(a)(iii)(x)"]


def test_suspension_45th_day_spec_example_2():
    events = rra(ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-10-01"),
                 ev("SuspensionStarted", "2005-03-01", material_transaction=False),
                 ev("SuspensionEnded", "2005-04-20"))
    out = explained(events, "suspensions.periods[start=2005-03-01].last_permitted_day",
                    as_of="2005-08-01")
    # the 45th day is start + 44: 2005-03-01 + 44 days = 2005-04-14
    assert date(2005, 3, 1) + timedelta(days=44) == date(2005, 4, 14)
    assert out["value"] == "2005-04-14"
    assert out["explanation"]["arithmetic"] == "2005-03-01 + 44 days = 2005-04-14"
    assert clause_refs(out["explanation"]) == ["RRA §3(a)(iv)(A)"]
    amount = explained(events, "additional_interest.payments[payment_date=2005-07-15]"
                               f".amounts.{LEHMAN}", as_of="2005-08-01")
    # 60,000,000 × 0.0025 × 5 / 360 = 2,083.33
    assert amount["value"] == money(P * Decimal("0.0025") * 5 / 360) == "2083.33"
    assert amount["reproduces_figure"] is True
    # issue 31, item 9: the amount's explanation names the default that made each of its
    # days accrue, its clause and its events: (iv)(A), default date the 45th day
    # 2005-04-14, caused by the SuspensionStarted (e5) not ended (e6) by then
    [segment] = amount["explanation"]["parts"]
    assert segment["title"] == "rate 0.25% from 2005-04-15 to 2005-04-19"
    [cause] = segment["parts"]
    assert cause["title"] == "Registration Default (iv)(A) (default date 2005-04-14)"
    assert clause_refs(cause) == ["RRA §3(a)(iv)(A)"]
    assert [e["id"] for e in cause["events"]] == ["e5", "e6"]
    assert [e["type"] for e in cause["events"]] == ["SuspensionStarted", "SuspensionEnded"]


def test_consent_share_is_recomputed():
    events = rra(ev("ConsentGiven", "2005-01-03", holder=LEHMAN, matter="waiver"),
                 holders={LEHMAN: "40000000", FUND: "20000000"})
    out = explained(events, 'majority.waiver.share')
    # 40,000,000 / 60,000,000 = 0.666666… → 0.666667
    assert out["value"] == "0.666667"
    assert out["reproduces_figure"] is True and out["arithmetic_checks_ok"] is True
    assert clause_refs(out["explanation"]) == [
        "RRA §1 Majority of Holders", "RRA §10(D)", "RRA §10(H)"]


# ------------------------------------------------------------------------- true-ups

DB = "DB Capital Investors, L.P."
CAMDEN = "Camden Partners Strategic Fund II-A, L.P."


def letter(*objs):
    def e(type_, day, **data):
        return ev(type_, day, deal="ltr", **data)

    return build([opened("ltr", "infocrossing-letter-2002"),
                  e("CapitalizationRecorded", "2002-02-01", common_outstanding=10_000_000),
                  e("CamdenWarrantsIssued", "2002-02-01", holder=CAMDEN, warrants=1_000_000,
                    exercise_price="1.50"),
                  e("InstrumentRegistered", "2002-03-01", instrument="W-1", holder=DB,
                    kind="warrant", shares=100_000, exercise_price="3.00"),
                  e("InstrumentRegistered", "2002-03-01", instrument="W-2", holder=DB,
                    kind="warrant", shares=50_000, exercise_price="3.00"),
                  *(e(t, d, **data) for t, d, data in objs)])


TRUE_UP = letter(("WarrantsExercised", "2002-06-01",
                  {"instrument": "W-1", "fraction": "1", "shares_issued": 100_000}),
                 ("CamdenWarrantsVested", "2002-09-01", {"holder": CAMDEN, "warrants": 500_000}))
# P' = 3.00 × (A + B) / (A + C), A = 10,000,000, C = 500,000, B = 500,000 × 1.50 / 3.00
B1 = Decimal(500_000) * Decimal("1.50") / Decimal("3.00")
P1 = (Decimal("3.00") * (10_000_000 + B1) / (10_000_000 + 500_000)).quantize(
    Decimal("0.0001"), ROUND_HALF_UP)
X1 = int(Decimal(100_000) * Decimal("3.00") / P1)


def test_true_up_owed_is_explained_by_x_minus_y():
    assert (B1, P1, X1) == (250_000, Decimal("2.9286"), 102_438)
    out = explained(TRUE_UP, "true_up.exercises[event=e6].owed", as_of="2003-01-01")
    assert out["value"] == X1 - 100_000 == 2_438
    node = out["explanation"]
    assert f"x = 100000 × 3.00 / {P1} = {X1} (rounded down)" in node["arithmetic"]
    assert out["reproduces_figure"] is True and out["arithmetic_checks_ok"] is True
    assert clause_refs(node) == ["Letter ¶3"]
    assert node["clauses"][0]["statement"].startswith("For an exercise or conversion before "
                                                      "February 1, 2004")
    assert [i["name"] for i in node["interpretations"]] == [
        "trueup_dividends", "trueup_adjustments", "same_day_vesting_and_exercise"]
    holder = explained(TRUE_UP, f"true_up.holders.{DB}.owed", as_of="2003-01-01")
    assert holder["value"] == 2_438 and holder["reproduces_figure"] is True


def test_price_and_shares_of_an_instrument_still_held():
    out = explained(TRUE_UP, "true_up.instruments[instrument=W-2].price", as_of="2003-01-01")
    assert out["value"] == str(P1)
    node = out["explanation"]
    assert node["arithmetic"] == f"registered at 3.00 → {P1}"
    assert out["reproduces_figure"] is True and out["arithmetic_checks_ok"] is True
    [adjustment] = node["parts"]
    assert clause_refs(adjustment) == ["Letter ¶2", "Warrant Agreement Art. IV"]
    assert "3.00 × (10000000 + 250000) / (10000000 + 500000)" in adjustment["arithmetic"]
    shares = explained(TRUE_UP, "true_up.instruments[instrument=W-2].shares", as_of="2003-01-01")
    # 50,000 × 3.00 / 2.9286 = 51,219.01… → 51,219
    assert shares["value"] == int(Decimal(50_000) * Decimal("3.00") / P1) == 51_219
    assert shares["explanation"]["arithmetic"] == f"50000 × 3.00 / {P1} = 51219 (rounded down)"
    assert shares["reproduces_figure"] is True and shares["arithmetic_checks_ok"] is True
    deferred = explained(TRUE_UP, "true_up.instruments[instrument=W-2].deferred_price_if_all_vest",
                         as_of="2003-01-01")
    assert deferred["arithmetic_checks_ok"] is True and deferred["reproduces_figure"] is True


# ------------------------------------------------------------- every figure, both deals


@pytest.mark.parametrize("history, as_of", [(rra_history, "2007-01-01"),
                                            (letter_history, "2007-01-01")])
def test_every_figure_of_the_demo_reports_can_be_explained(history, as_of):
    events = build(history())
    rep = report(events, as_of=date.fromisoformat(as_of))
    paths = figure_paths(rep)
    assert len(paths) > 100
    for path, value in paths.items():
        assert locate(rep, path).value == value, path
        out = explain(rep, path, events)
        assert out["arithmetic_checks_ok"] is True, path
        assert out["reproduces_figure"] is not False, path
    kinds = [p for p in paths if p.startswith(("registration.defaults", "deadlines",
                                               "additional_interest.payments",
                                               "true_up.exercises", "true_up.instruments",
                                               "true_up.holders", "true_up.adjustments"))]
    assert kinds
    for path in kinds:
        node = explain(rep, path, events)["explanation"]
        assert node["clause"] and all(c["statement"] != "(no plain statement)"
                                      for n in all_nodes(node) for c in n["clauses"]), path


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_figure_explains_under_each_alternative_reading(name):
    events = build(rra_history() if REGISTRY[name].clause.startswith("RRA") else letter_history())
    reading = {name: REGISTRY[name].alternatives[0]}
    rep = report(events, as_of=date(2007, 1, 1), interpretations=reading)
    for path in figure_paths(rep):
        out = explain(rep, path, events)
        assert out["arithmetic_checks_ok"] is True, path
        assert out["reproduces_figure"] is not False, path


# --------------------------------------------------------------------- figure paths


def test_paths_select_entries_by_field_prefix_index_and_quoted_keys():
    rep = report(rra(*EXAMPLE_1, ev("ConsentGiven", "2005-01-03", holder=LEHMAN,
                                    matter="waive [x]. y")), as_of=date(2005, 2, 1))
    assert locate(rep, f"{PAY_1}.amounts.{LEHMAN}").value == "6666.67"
    assert locate(rep, f'{PAY_1}.amounts."{LEHMAN}"').value == "6666.67"
    assert locate(rep, "additional_interest.payments[0].total").value == "6666.67"
    assert locate(rep, "additional_interest.payments[-1].total").value == "6666.67"
    assert locate(rep, "deadlines[clause=RRA §3(b)][due^=2004-11].due").value == "2004-11-01"
    assert locate(rep, 'majority."waive [x]. y".majority').value is True
    [matter] = [p for p in figure_paths(rep) if p.startswith("majority") and p.endswith(".share")]
    assert matter == 'majority."waive [x]. y".share'


@pytest.mark.parametrize("path, message", [
    ("registration.nothing", "no 'nothing' in registration; keys there: filing_deadline"),
    ("deadlines[status=excused]", "no entry of deadlines matches [status=excused]"),
    ("deadlines[clause=RRA §2(a)(i)][due=x", "unclosed '['"),
    ("deadlines[nonsense]", "[nonsense] is neither [N] nor [field=value]"),
    ("deadlines[status=missed]", "4 entries of deadlines match [status=missed]; narrow it"),
    ("registration.in_default.x", "is the value false, not an object"),
    ("", "the figure path is empty"),
])
def test_bad_paths_say_what_is_wrong(path, message):
    rep = report(rra(*EXAMPLE_1), as_of=date(2005, 2, 1))
    with pytest.raises(FigureError) as err:
        explain(rep, path, [])
    assert message in str(err.value)


def test_the_arithmetic_checker_catches_a_wrong_result():
    """The checker recomputes steps (data), never text: a step whose recorded result is
    wrong fails, wherever it sits in the tree."""
    from fractions import Fraction

    from projections.worked import Step, recheck

    def amount(result, exact=Fraction(20_000, 3)):
        # 60,000,000 × 0.25% × 16/360 = 6,666.666… → 6,666.67 (half-up, cents)
        day_count = Step("day_count", ("30/360", date(2004, 10, 29), date(2004, 11, 15)),
                         Fraction(16, 360))
        product = Step("product", (P, Step("percent", (Decimal("0.25"),), Fraction(1, 400)),
                                   day_count), exact)
        return Step("round", (product,), result, rounding=("half_up", 2))

    assert recheck([amount(Decimal("6666.67"))])[0]["ok"] is True
    assert recheck([amount(Decimal("6666.66"))])[0]["ok"] is False
    assert recheck([amount(Decimal("6666.67"), exact=Fraction(6666))])[0]["ok"] is False
    # 100,000 × 3.00 / 2.9286 = 102,438.025… → 102,438 rounded down
    shares = Step("quotient", (Step("product", (100_000, Decimal("3.00")), 300_000),
                               Decimal("2.9286")), Fraction(300_000) / Fraction("2.9286"))
    assert recheck([Step("round", (shares,), 102_438, rounding=("down", 0))])[0]["ok"] is True
    assert recheck([Step("round", (shares,), 102_439, rounding=("down", 0))])[0]["ok"] is False
    # 2004-06-30 + 15 days = 2004-07-15 (RRA §2(a)(i)); 14 would be wrong
    assert recheck([Step("plus_days", (date(2004, 6, 30), 15), date(2004, 7, 15))])[0]["ok"]
    assert not recheck([Step("plus_days", (date(2004, 6, 30), 14), date(2004, 7, 15))])[0]["ok"]
    # 2004-11-25 (Thanksgiving, a Thursday) + 2 Business Days: Fri 26th, Mon 29th
    from ledger.calendar import FED
    assert recheck([Step("plus_business_days", (date(2004, 11, 24), 2, FED),
                         date(2004, 11, 29))])[0]["ok"]
    assert not recheck([Step("plus_business_days", (date(2004, 11, 24), 2, FED),
                             date(2004, 11, 26))])[0]["ok"]


def test_a_mutated_engine_result_is_caught_by_explain():
    """Mutate the steps a report carries (as a wrong engine would record them): explain
    says the arithmetic does not hold."""
    from dataclasses import replace

    from projections.worked import Worked

    events = rra(*EXAMPLE_1)
    rep = report(events, as_of=date(2005, 2, 1))
    basis = rep["additional_interest"]["payments"][0]["basis"][LEHMAN]
    [rounded] = basis["arithmetic"].steps
    # the engine says 6,666.67; a wrong one says 6,666.68 with the same operands
    basis["arithmetic"] = Worked(str(basis["arithmetic"]), (replace(rounded,
                                                                    result=Decimal("6666.68")),))
    out = explain(rep, f"{PAY_1}.amounts.{LEHMAN}", events)
    assert out["arithmetic_checks_ok"] is False
    assert out["explanation"]["checks"][0]["computed"] == "6666.67"
    # a report read back from JSON carries no steps: nothing is claimed re-checked
    plain = json.loads(json.dumps(report(events, as_of=date(2005, 2, 1))))
    out = explain(plain, f"{PAY_1}.amounts.{LEHMAN}", events)
    assert str(basis["arithmetic"]) in out["arithmetic_unchecked"]
    assert out["explanation"]["checks"] == [] and out["reproduces_figure"] is None


def test_wrong_report_figures_are_caught_by_the_recheck():
    """A report whose figures were mutated (as a wrong engine would give them): the
    re-check, redone from the data, says the arithmetic does not hold."""
    events = rra(*EXAMPLE_1, ev("SuspensionStarted", "2005-03-01", material_transaction=False),
                 ev("SuspensionEnded", "2005-04-20"))
    rep = report(events, as_of=date(2005, 5, 1))
    # SuspensionStarted 2005-03-01, ended 2005-04-20: days 03-01 .. 04-19 = 31 + 19 = 50;
    # the 90 days ending 2005-05-01 start 2005-02-01 and hold all 50
    assert rep["suspensions"]["trailing_90"] == 50
    ok_ = explain(rep, "suspensions.trailing_90", events)
    assert ok_["arithmetic_checks_ok"] and ok_["reproduces_figure"] is True
    assert ok_["explanation"]["arithmetic"] == "50 = 50"
    # 45 - 50 < 0: nothing left of the 45-in-90 allowance
    assert explain(rep, "suspensions.remaining_90", events)["arithmetic_checks_ok"]
    rep["suspensions"]["trailing_90"] = 49
    assert explain(rep, "suspensions.trailing_90", events)["arithmetic_checks_ok"] is False
    rep["suspensions"]["periods"][0]["days"] = 49
    assert explain(rep, "suspensions.periods[0].days", events)["arithmetic_checks_ok"] is False
    # the payment total: 6,666.67 (SPEC §8 example 1); a total of 6,666.68 does not add up
    rep["additional_interest"]["payments"][0]["total"] = "6666.68"
    assert explain(rep, f"{PAY_1}.total", events)["arithmetic_checks_ok"] is False


def test_each_holder_of_one_position_gets_its_own_forfeit_text():
    """conversion_forfeits=all_unpaid. A and B hold 30,000,000 each (SPEC §8.1): 30,000,000 ×
    0.25% × 16/360 = 3,333.33 each for 2005-01-15. A is paid 1,000.00 on 2005-01-20 and
    converts on 2005-02-01: the unpaid 2,333.33… is lost, A is owed 1,000.00. B converts
    nothing: its text must not say B lost anything (the text was shared by position and
    showed A's 1,000.000000 for B; found by re-checking every step)."""
    objs = [opened(), *(ev("NotesIssued", "2004-06-30", holder=h, principal="30000000")
                        for h in ("A", "B")),
            ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15"),
            ev("AdditionalInterestPaid", "2005-01-20", payment_date="2005-01-15", holder="A",
               amount="1000.00"),
            ev("NotesConverted", "2005-02-01", holder="A", principal="30000000",
               shares=1953125)]
    events = build(objs)
    rep = report(events, as_of=date(2005, 3, 1), interpretations={
        "conversion_forfeits": "all_unpaid"})
    pay = rep["additional_interest"]["payments"][0]
    assert pay["amounts"] == {"A": "1000.00", "B": "3333.33"}
    assert pay["basis"]["A"]["arithmetic"].endswith(
        "less the part unpaid on the day its Notes were converted "
        "(conversion_forfeits=all_unpaid) = 1000.000000 → 1000.00")
    assert pay["basis"]["B"]["arithmetic"] == (
        "30000000 × 0.25% × 16/360 [2004-10-29, 2004-11-15) = 3333.333333… → 3333.33")
    for holder in ("A", "B"):
        out = explain(rep, f"{PAY_1}.amounts.{holder}", events)
        assert out["arithmetic_checks_ok"] and out["reproduces_figure"], holder


def test_every_figure_of_the_demo_is_rechecked_and_holds():
    """Every figure path of both demo deals: every step re-done holds, and what is not
    re-checked is only text that carries no data."""
    from publishing.demo import AS_OF

    for history in (rra_history, letter_history):
        events = build(history())
        rep = report(events, as_of=date.fromisoformat(AS_OF))
        operations = 0
        for path in figure_paths(rep):
            out = explain(rep, path, events)
            assert out["arithmetic_checks_ok"], path
            assert out["arithmetic_unchecked"] == [], path
            assert out["reproduces_figure"] is not False, path
            operations += out["arithmetic_operations_rechecked"]
        assert operations > 100


# ------------------------------------------------------------------------------ CLI


@pytest.fixture
def db(tmp_path):
    url = str(tmp_path / "l.db")
    with Ledger(url) as ledger:
        objs = [opened("rra"), ev("NotesIssued", "2004-06-30", holder=LEHMAN,
                                  principal="60000000"),
                ev("ShelfFiled", "2004-07-13", file_number="333-117340"),
                ev("ShelfEffective", "2004-11-15")]
        objs[3]["source"] = "SEC notice of effectiveness, file 333-117340"
        ledger.append([parse_event(o, line=k) for k, o in enumerate(objs, 1)], user="tester")
    return url


def test_cli_explain_prints_the_tree(db):
    result = CliRunner().invoke(cli, ["explain", "rra", f"{PAY_1}.amounts.{LEHMAN}",
                                      "--as-of", "2005-02-01", "--db", db],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    out = result.output
    assert f"{PAY_1}.amounts.{LEHMAN} = 6666.67" in out
    assert "RRA §3(a):" in out and "RRA §3(a)(i): Rate tier (i)" in out
    assert "60000000 × 0.25% × 16/360" in out
    assert ("re-checked: 60000000 × 0.25% × 16/360 [2004-10-29, 2004-11-15) rounded "
            "half-up to 2 decimals = 6666.67 ok") in out
    # 5 operations for the amount (percent, day count, product, round ... ) and the rate
    # segment's day numbers: every one re-done from the data
    assert "arithmetic re-checked: all hold (" in out and "operations re-done" in out
    assert "source: SEC notice of effectiveness, file 333-117340" in out and "by tester" in out
    assert "; ends on the figure: yes" in out


def test_cli_explain_json_is_the_library_result(db):
    args = ["explain", "rra", "registration.defaults[kind=(ii)].default_date", "--as-of",
            "2005-02-01", "--db", db, "--json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    with Ledger(db, create=False) as ledger:
        events = ledger.deal_events("rra")
    assert data == explain(report(events, as_of=date(2005, 2, 1)),
                           "registration.defaults[kind=(ii)].default_date", events)
    assert data["value"] == "2004-10-28"


def test_cli_explain_bad_figure_is_one_line(db):
    result = CliRunner().invoke(cli, ["explain", "rra", "registration.nope", "--db", db])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1
    assert result.output.startswith("error: field 'FIGURE': no 'nope' in registration")
    missing = CliRunner().invoke(cli, ["explain", "rra", "--db", db])
    assert missing.exit_code == 2 and "field 'FIGURE'" in missing.output
    bad_deal = CliRunner().invoke(cli, ["explain", "nodeal", "registration.in_default",
                                        "--db", db])
    assert bad_deal.exit_code == 2 and "no deal 'nodeal'" in bad_deal.output


def test_cli_explain_lists_the_figures(db):
    result = CliRunner().invoke(cli, ["explain", "rra", "--list", "--as-of", "2005-02-01",
                                      "--db", db])
    assert result.exit_code == 0
    assert f"{PAY_1}.amounts.{LEHMAN} = 6666.67" in result.output.splitlines()


def test_a_camden_figure_cites_only_the_events_the_report_counted():
    # a review (stop 19): explain of true_up.camden.<holder>.vested cited every vesting
    # stored, also one recorded after --known-at and one retracted
    from datetime import datetime, timezone

    from tests.letter_support import CAMDEN, DEAL, camden_137

    t = [datetime(2026, 1, 1, 0, m, tzinfo=timezone.utc) for m in range(10)]
    objs = camden_137(600_000) + [   # e1..e6; a second vesting recorded later, e7
        {**ev("CamdenWarrantsVested", "2003-09-30", deal=DEAL),
         "data": {"holder": CAMDEN, "warrants": 100_000}},
        ev("EventRetracted", "2003-10-01", deal=DEAL, event_id="e6", reason="in error")]
    events = build(objs, recorded=[t[1]] * 6 + [t[3], t[5]])
    path = f"true_up.camden.{CAMDEN}.vested"
    cited = lambda x: [ev_["id"] for ev_ in x["explanation"]["events"]]  # noqa: E731
    # known at t2: only e6 (600,000) counts
    early = report(events, as_of=date(2007, 12, 31), known_at=t[2])
    x = explain(early, path, events)
    assert (x["value"], cited(x)) == (600_000, ["e6"])
    # known at t4: e6 and e7, 600,000 + 100,000
    mid = report(events, as_of=date(2007, 12, 31), known_at=t[4])
    x = explain(mid, path, events)
    assert (x["value"], cited(x)) == (700_000, ["e6", "e7"])
    # now: e6 retracted, e7 alone
    now = report(events, as_of=date(2007, 12, 31))
    x = explain(now, path, events)
    assert (x["value"], cited(x)) == (100_000, ["e7"])
