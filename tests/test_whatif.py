"""What if: a changed history, or a switched reading, beside the real one, figure by
figure, without writing the ledger. Every expected amount is worked by hand (30/360
unless said; SPEC §8)."""

from __future__ import annotations

import json
import sqlite3
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import cli
from ledger.errors import UsageError
from ledger.events import parse_event
from publishing.scenarios import scenarios_path
from ledger.store import Ledger
from projections.interpretations import REGISTRY
from projections.report import report
from projections.whatif import Addition, Changes, ScenarioError, resolve_id, whatif
from tests.support import build, ev, opened
from tests.test_registration_support import EFFECTIVE, THREE_SHORT

LEHMAN = "Lehman Brothers Inc."
P = Decimal(60_000_000)
PAY_1 = "additional_interest.payments[payment_date=2005-01-15]"


def money(x: Decimal) -> str:
    return str(x.quantize(Decimal("0.01"), ROUND_HALF_UP))


def rra(*objs, **terms):
    return build([opened(**terms), ev("NotesIssued", "2004-06-30", holder=LEHMAN,
                                      principal="60000000"), *objs])


def rows(result) -> dict[str, tuple]:
    return {r["figure"]: (r["baseline"], r["scenario"]) for r in result["diff"]}


def switched(events, as_of: str, **readings):
    return whatif(events, Changes(interpretations=readings), as_of=date.fromisoformat(as_of))


EX1 = [ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15")]
AMOUNT_1 = f"{PAY_1}.amounts.{LEHMAN}"

# ------------------------------------------------------- one test per interpretation

#: The interpretations a test below switches (SPEC §6 and any added since).
COVERED = {"default_date", "rate_after_second_anniversary", "overlapping_defaults",
           "conversion_forfeits", "no_questionnaire_request", "questionnaire_deadline",
           "window_breach", "default_after_effectiveness_period", "trueup_dividends",
           "questionnaire_entitlement_judged_on", "registered_securities",
           "window_material_allowance", "rate_clock",
           "trueup_adjustments", "camden_tranche_order", "same_day_vesting_and_exercise",
           "conversion_judged_on", "shelf_buyer_paid", "same_day_adjustment",
           "later_camden_issuance"}


def _reading(name):
    assert name in COVERED
    return name


def test_default_date():
    result = switched(rra(*EX1), "2005-02-01", **{_reading("default_date"): "first_breach_day"})
    # last_compliant_day: accrual 2004-10-29 .. 11-14, 16 days; first_breach_day: from
    # 2004-10-30, 15 days
    assert rows(result)[AMOUNT_1] == (money(P * Decimal("0.0025") * 16 / 360),
                                      money(P * Decimal("0.0025") * 15 / 360)) == (
        "6666.67", "6250.00")
    assert rows(result)["registration.defaults[kind=(ii)].default_date"] == (
        "2004-10-28", "2004-10-29")
    assert rows(result)["interpretations.default_date"] == ("last_compliant_day",
                                                            "first_breach_day")


def test_rate_after_second_anniversary():
    events = rra(*EFFECTIVE, ev("ShelfUnusable", "2006-07-03", reason="other"),
                 ev("ShelfUsable", "2006-08-01", cure="exchange_act_report"))
    result = switched(events, "2007-02-01", **{
        _reading("rate_after_second_anniversary"): "first_90_days_always_quarter_point"})
    # 5 Business Days after Mon 2006-07-03 (07-04 a holiday) is 07-11: accrual from 07-12;
    # [07-12, 07-15) = 3 days: calendar 3.00% (after the 2nd anniversary) vs 0.25%
    july = f"additional_interest.payments[payment_date=2006-07-15].amounts.{LEHMAN}"
    assert rows(result)[july] == (
        money(P * Decimal("0.03") * 3 / 360), money(P * Decimal("0.0025") * 3 / 360)) == (
        "15000.00", "1250.00")


def test_overlapping_defaults():
    events = rra(ev("ShelfFiled", "2004-11-30"), ev("ShelfEffective", "2004-12-15"))
    result = switched(events, "2005-02-01", **{_reading("overlapping_defaults"): "additive"})
    # episode: 0.25% [07-16, 10-14) 88 days, then 1.00% [10-14, 12-15) 61 days;
    # additive: 0.25% 88 days, 1.00% 15 days, 1.25% [10-29, 11-30) 31 days, 0.25% 15 days
    episode = P * (Decimal("0.0025") * 88 + Decimal("0.01") * 61) / 360
    additive = P * (Decimal("0.0025") * 88 + Decimal("0.01") * 15 + Decimal("0.0125") * 31
                    + Decimal("0.0025") * 15) / 360
    assert rows(result)[AMOUNT_1] == (money(episode), money(additive)) == (
        "138333.33", "132500.00")


def test_conversion_forfeits():
    events = rra(*EX1, ev("NotesConverted", "2004-12-01", holder=LEHMAN, principal="20000000",
                          shares=1302083))
    result = switched(events, "2005-02-01", **{_reading("conversion_forfeits"): "future_only"})
    # unpaid: only the 40,000,000 still held on the record date earn; future_only: the
    # converted 20,000,000 keep the 16 days accrued before the conversion
    assert rows(result)[AMOUNT_1] == (
        money(Decimal(40_000_000) * Decimal("0.0025") * 16 / 360),
        money(P * Decimal("0.0025") * 16 / 360)) == ("4444.44", "6666.67")


def test_no_questionnaire_request():
    result = switched(rra(*EX1), "2005-02-01",
                      **{_reading("no_questionnaire_request"): "not_entitled"})
    assert rows(result)[AMOUNT_1] == (money(P * Decimal("0.0025") * 16 / 360), "0.00")


def test_questionnaire_deadline():
    if "questionnaire_deadline" not in REGISTRY:
        pytest.skip("no questionnaire_deadline interpretation in this tree")
    events = rra(*EX1, ev("QuestionnaireRequested", "2004-09-01", holders="all"),
                 ev("QuestionnaireDelivered", "2004-09-25", holder=LEHMAN))
    result = switched(events, "2005-02-01",
                      **{_reading("questionnaire_deadline"): "section_2b_business_days"})
    # the Questionnaire's own deadline: 20 days after 2004-09-01 = 09-21, delivered 09-25:
    # late, not entitled. 20 Business Days (Labor Day 09-06 skipped) = 09-30: on time
    assert rows(result)[AMOUNT_1] == ("0.00", money(P * Decimal("0.0025") * 16 / 360))


def test_window_breach():
    events = rra(*THREE_SHORT)
    result = switched(events, "2005-08-01", **{_reading("window_breach"): "report_only"})
    # 20 + 15 + 20 days; the 90-day window ending 2005-05-18 holds 46 > 45: (iii) accrues
    # [2005-05-19, 2005-05-21), 2 days; report_only: nothing accrues
    baseline, scenario = rows(result)["additional_interest.payments[payment_date=2005-07-15]"]
    assert baseline["amounts"] == {LEHMAN: money(P * Decimal("0.0025") * 2 / 360)} == {
        LEHMAN: "833.33"}
    assert scenario is None
    assert rows(result)["registration.defaults[kind=(iii)]"][1] is None


def test_default_after_effectiveness_period():
    events = rra(*EFFECTIVE, ev("ShelfUnusable", "2006-09-01", reason="other"),
                 ev("ShelfUsable", "2006-10-20", cure="prospectus_supplement"))
    result = switched(events, "2007-02-01", **{_reading("default_after_effectiveness_period"):
                                              "continues"})
    # ends: [2006-09-12, 10-01) = 19 days at 3.00%; continues: [09-12, 10-20) = 38 days
    january = f"additional_interest.payments[payment_date=2007-01-15].amounts.{LEHMAN}"
    assert rows(result)[january] == (
        money(P * Decimal("0.03") * 19 / 360), money(P * Decimal("0.03") * 38 / 360)) == (
        "95000.00", "190000.00")


def test_trueup_dividends():
    camden = "Camden Partners Strategic Fund II-A, L.P."
    db = "DB Capital Investors, L.P."

    def e(type_, day, **data):
        return ev(type_, day, deal="ltr", **data)

    events = build([opened("ltr", "infocrossing-letter-2002"),
                    e("CapitalizationRecorded", "2002-02-01", common_outstanding=10_000_000),
                    e("CamdenWarrantsIssued", "2002-02-01", holder=camden, warrants=1_000_000,
                      exercise_price="1.50"),
                    e("InstrumentRegistered", "2002-03-01", instrument="P-1", holder=db,
                      kind="preferred", quantity=1000, stated_value="100.00",
                      conversion_price="8.00"),
                    e("PreferredConverted", "2003-01-10", instrument="P-1", fraction="1",
                      shares_issued=12_500),
                    e("CamdenWarrantsVested", "2003-06-30", holder=camden, warrants=500_000)])
    result = switched(events, "2004-01-01", **{_reading("trueup_dividends"): "to_vesting_date"})
    # B = 500,000 × 1.50 / 8.00 = 93,750; P' = 8.00 × 10,093,750 / 10,500,000 = 7.690476…
    # → 7.6905; x = 1000 × 100.00 / 7.6905 = 13,003.05… → 13,003; owed 13,003 - 12,500
    price = (Decimal("8.00") * (10_000_000 + 93_750) / 10_500_000).quantize(
        Decimal("0.0001"), ROUND_HALF_UP)
    x = int(Decimal(100_000) / price)
    assert (price, x) == (Decimal("7.6905"), 13_003)
    assert result["baseline"]["true_up"]["holders"][db]["owed"] == x - 12_500 == 503
    # to_vesting_date: 30/360 days 2003-01-10 → 2003-06-30 = 5 × 30 + 20 = 170; accrued
    # = 100,000 × 8% × 170/360 = 3,777.78; x = 103,777.78 / 7.6905 = 13,494.3… → 13,494
    assert result["scenario"]["true_up"]["holders"][db]["owed"] == 13_494 - 12_500 == 994
    baseline, scenario = rows(result)["true_up.notes"]
    assert baseline == [] and "to_vesting_date" in scenario[0]


def test_questionnaire_entitlement_judged_on():
    events = rra(*EX1, ev("QuestionnaireRequested", "2004-12-20", holders=[LEHMAN]))
    result = switched(events, "2005-02-01",
                      **{_reading("questionnaire_entitlement_judged_on"): "record_date"})
    # the form's deadline 2004-12-20 + 20 days = 2005-01-09, no delivery: passed before the
    # Interest Payment Date 01-15 (nothing), not before the record date 01-01 (16 days)
    assert rows(result)[AMOUNT_1] == ("0.00", money(P * Decimal("0.0025") * 16 / 360))


def test_registered_securities():
    events = build([opened(), ev("NotesIssued", "2004-06-30", holder="A", principal="30000000"),
                    ev("NotesIssued", "2004-06-30", holder="B", principal="30000000"),
                    *EFFECTIVE, ev("QuestionnaireDelivered", "2004-09-01", holder="A"),
                    ev("NotesTransferred", "2005-03-01", from_holder="A", to_holder="C",
                       principal="30000000", under_shelf=True)])
    result = switched(events, "2005-08-01",
                      **{_reading("registered_securities"): "named_selling_holders"})
    # all_notes: B still holds TRS, (x) 2006-10-01; named: only A was named and sold all
    assert rows(result)["registration.effectiveness_period_end"] == ("2006-10-01",
                                                                     "2005-03-01")


def test_window_material_allowance():
    events = rra(*EFFECTIVE, ev("SuspensionStarted", "2005-03-01", material_transaction=True),
                 ev("SuspensionEnded", "2005-03-31"),
                 ev("SuspensionStarted", "2005-04-10", material_transaction=False),
                 ev("SuspensionEnded", "2005-05-05"))
    result = switched(events, "2005-08-01",
                      **{_reading("window_material_allowance"): "any_in_window"})
    # 30 + 16 = 46 > 45 on 04-25; (iii) after 5 Business Days: 05-03, 05-04 (2 days);
    # any_in_window: 60 in 90, at most 55: nothing
    baseline, scenario = rows(result)["additional_interest.payments[payment_date=2005-07-15]"]
    assert baseline["amounts"] == {LEHMAN: money(P * Decimal("0.0025") * 2 / 360)}
    assert scenario is None


def test_rate_clock():
    events = rra(*EX1, ev("ShelfUnusable", "2005-03-01", reason="other"),
                 ev("ShelfUsable", "2005-07-01", cure="exchange_act_report"))
    result = switched(events, "2005-08-01", **{_reading("rate_clock"): "once_per_deal"})
    # 60M x (0.0025 x 88 + 0.01 x 24)/360 vs 60M x (0.0025 x 72 + 0.01 x 40)/360
    july = f"additional_interest.payments[payment_date=2005-07-15].amounts.{LEHMAN}"
    assert rows(result)[july] == (money(P * Decimal("0.46") / 360),
                                  money(P * Decimal("0.58") / 360)) == ("76666.67", "96666.67")


def _letter(*objs, camden_price="1.50", issued=((1_000_000, "1.50"),)):
    """Opened, capitalization 10,000,000, Camden issuances of 2002-02-01, W-1: DB
    Capital's Warrant for 100,000 shares at 3.00; then ``objs`` (type, date, data)."""
    camden = "Camden Partners Strategic Fund II-A, L.P."

    def e(type_, day, **data):
        return ev(type_, day, deal="ltr", **data)

    return build([opened("ltr", "infocrossing-letter-2002"),
                  e("CapitalizationRecorded", "2002-02-01", common_outstanding=10_000_000),
                  *(e("CamdenWarrantsIssued", "2002-02-01", holder=camden, warrants=n,
                      exercise_price=p) for n, p in issued),
                  e("InstrumentRegistered", "2002-03-01", instrument="W-1",
                    holder="DB Capital Investors, L.P.", kind="warrant", shares=100_000,
                    exercise_price="3.00"),
                  *(e(t, d, **({"holder": camden} if t == "CamdenWarrantsVested" else {}),
                      **data) for t, d, data in objs)])


def test_trueup_adjustments():
    events = _letter(("WarrantsExercised", "2002-06-01",
                      {"instrument": "W-1", "fraction": "1", "shares_issued": 100_000}),
                     ("AdjustmentRecorded", "2002-07-01",
                      {"instrument": "W-1", "new_price": "1.50", "reason": "2-for-1 split"}),
                     ("CamdenWarrantsVested", "2002-09-01", {"warrants": 1_000_000}),
                     issued=((1_000_000, "1.00"),))
    result = switched(events, "2003-01-01", **{_reading("trueup_adjustments"): "camden_only"})
    # all: P' = 1.50 × (10,000,000 + 666,666.67) / 11,000,000 = 1.4545, x = 300,000 / 1.4545
    # = 206,256, owed 106,256; camden_only: P' = (30,000,000 + 1,000,000) / 11,000,000
    # = 2.8182, x = 300,000 / 2.8182 = 106,450, owed 6,450
    assert rows(result)["true_up.holders.DB Capital Investors, L.P..owed"] == (106_256, 6_450)


def test_camden_tranche_order():
    events = _letter(("CamdenWarrantsVested", "2002-09-01", {"warrants": 500_000}),
                     issued=((300_000, "1.50"), (400_000, "2.00")))
    result = switched(events, "2003-01-01",
                      **{_reading("camden_tranche_order"): "latest_first"})
    # earliest: (30,000,000 + 300,000 × 1.50 + 200,000 × 2.00) / 10,500,000 = 2.938095… →
    # 2.9381; latest: (30,000,000 + 400,000 × 2.00 + 100,000 × 1.50) / 10,500,000
    # = 2.947619… → 2.9476
    assert rows(result)["true_up.instruments[instrument=W-1].price"] == ("2.9381", "2.9476")


def test_same_day_vesting_and_exercise():
    events = _letter(("WarrantsExercised", "2002-09-01",
                      {"instrument": "W-1", "fraction": "1", "shares_issued": 100_000}),
                     ("CamdenWarrantsVested", "2002-09-01", {"warrants": 500_000}))
    result = switched(events, "2003-01-01",
                      **{_reading("same_day_vesting_and_exercise"): "exercise_first"})
    # vesting_first: priced at 2.9286, no true-up; exercise_first: priced at 3.00, then
    # x = 300,000 / 2.9286 = 102,438, owed 2,438
    assert rows(result)["true_up.holders.DB Capital Investors, L.P..owed"] == (0, 2_438)


def test_conversion_judged_on():
    alpha = "Alpha Fund"
    events = build([opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN,
                                 principal="40000000"),
                    ev("NotesIssued", "2004-06-30", holder=alpha, principal="20000000"), *EX1,
                    ev("NotesConverted", "2005-01-17", holder=alpha, principal="20000000",
                       shares=1302083)])
    result = switched(events, "2005-02-01", **{_reading("conversion_judged_on"): "payment_day"})
    # default (ii) 2004-10-29 to 11-15: 16 days (30/360); Alpha converted on Mon 01-17,
    # after the Interest Payment Date Sat 01-15 and before the day it is paid (Tue 01-18,
    # 01-17 being Martin Luther King Day): owed 20,000,000 x 0.25% x 16/360 = 2,222.22 on
    # the Interest Payment Date; judged by the day of payment, forfeited: 0.00
    assert rows(result)[f"{PAY_1}.amounts.{alpha}"] == (
        money(Decimal(20_000_000) * Decimal("0.0025") * 16 / 360), "0.00") == ("2222.22",
                                                                             "0.00")


def test_shelf_buyer_paid():
    buyer = "Buyer"
    events = rra(*EX1, ev("NotesTransferred", "2004-12-01", from_holder=LEHMAN,
                          to_holder=buyer, principal="60000000", under_shelf=True))
    result = switched(events, "2005-02-01", **{_reading("shelf_buyer_paid"): "not_record_holder"})
    # the buyer under the shelf holds the Notes on the record date 2005-01-01, as no
    # longer Transfer Restricted: paid the 16 days they accrued while they were (SPEC §4.4),
    # 60,000,000 x 0.25% x 16/360 = 6,666.67; not a Record Holder of TRS: nothing
    assert rows(result)[f"{PAY_1}.amounts.{buyer}"] == ("6666.67", "0.00")


def test_same_day_adjustment():
    events = _letter(("CamdenWarrantsVested", "2003-01-01", {"warrants": 1_000_000}),
                     ("AdjustmentRecorded", "2003-01-01",
                      {"instrument": "W-1", "new_price": "2.70", "reason": "other issuance"}),
                     issued=((1_000_000, "2.00"),))
    result = switched(events, "2003-02-01", **{_reading("same_day_adjustment"): "before_others"})
    # as recorded: the vesting (3.00 to 2.9091), then the adjustment sets 2.70; before the
    # others: 2.70, then the vesting: (10,000,000 x 2.70 + 1,000,000 x 2.00) / 11,000,000
    # = 29 / 11 = 2.636363... -> 2.6364
    assert rows(result)["true_up.instruments[instrument=W-1].price"] == ("2.70", "2.6364")


def test_later_camden_issuance():
    camden = "Camden Partners Strategic Fund II-A, L.P."
    events = _letter(("CamdenWarrantsVested", "2003-01-01", {"warrants": 1_000_000}),
                     issued=())
    later = build([ev("CamdenWarrantsIssued", "2002-06-01", deal="ltr", holder=camden,
                      warrants=1_000_000, exercise_price="2.00")], start_seq=len(events) + 1)
    events = events[:-1] + later + [events[-1]]
    result = switched(events, "2003-02-01", **{_reading("later_camden_issuance"): "deferred"})
    # issued 2002-06-01, after the Camden Warrant Agreement's date: not deferred, W-1 stays
    # at 3.00; deferred: 3.00 x (10,000,000 + 1,000,000 x 2.00 / 3.00) / 11,000,000 =
    # 32 / 11 = 2.909090... -> 2.9091
    assert rows(result)["true_up.instruments[instrument=W-1].price"] == ("3.00", "2.9091")


def test_every_interpretation_has_a_what_if_test():
    assert COVERED == set(REGISTRY)


# -------------------------------------------------- changed events, through the store


def ledger_of(tmp_path: Path, *objs) -> str:
    url = str(tmp_path / "l.db")
    with Ledger(url) as ledger:
        ledger.append([parse_event(o, line=k) for k, o in enumerate(
            [opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
             *objs], 1)])
    return url


def store_state(url: str):
    with Ledger(url, create=False) as ledger:
        head = ledger.head().hash
    with sqlite3.connect(url) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        counts = {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    return head, counts


def event_id(url: str, type_: str) -> str:
    with Ledger(url, create=False) as ledger:
        return next(e.id for e in ledger.deal_events("rra") if e.type == type_)


def jsonl(path: Path, *objs) -> str:
    path.write_text("".join(json.dumps(o) + "\n" for o in objs))
    return str(path)


SUSPENSION = [ev("SuspensionStarted", "2005-03-01", material_transaction=False),
              ev("SuspensionEnded", "2005-04-20")]


def test_an_earlier_effectiveness_removes_exactly_the_default_ii_interest(tmp_path):
    url = ledger_of(tmp_path, *EX1, *SUSPENSION)
    before = store_state(url)
    earlier = jsonl(tmp_path / "eff.jsonl", ev("ShelfEffective", "2004-10-20"))
    args = ["whatif", "rra", "--replace", f"{event_id(url, 'ShelfEffective')}={earlier}",
            "--as-of", "2005-08-01", "--db", url, "--json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert store_state(url) == before          # head hash and every table's row count
    data = json.loads(result.output)
    diff = rows(data)
    # default (ii), 2004-10-29 .. 11-14: 16 days × 0.25% on 60,000,000 = 6,666.67, gone;
    # (iv)(A) 2005-04-15 .. 04-19 (SPEC §8 example 2): 5 days = 2,083.33, unchanged
    ii = money(P * Decimal("0.0025") * 16 / 360)
    iv_a = money(P * Decimal("0.0025") * 5 / 360)
    assert (ii, iv_a) == ("6666.67", "2083.33")
    assert diff["registration.defaults[kind=(ii)]"][0]["default_date"] == "2004-10-28"
    assert diff["registration.defaults[kind=(ii)]"][1] is None
    assert diff[PAY_1][0]["amounts"] == {LEHMAN: ii} and diff[PAY_1][1] is None
    assert diff["additional_interest.accrued_to_as_of"] == (
        str(Decimal(ii) + Decimal(iv_a)), iv_a)
    assert "additional_interest.payments[payment_date=2005-07-15]" not in diff
    assert not any(f.startswith("additional_interest.payments[payment_date=2005-07-15]")
                   for f in diff)
    assert [d["kind"] for d in data["scenario"]["registration"]["defaults"]] == ["(iv)(A)"]
    assert data["baseline"] == report(_events(url), as_of=date(2005, 8, 1))


def _events(url):
    with Ledger(url, create=False) as ledger:
        return ledger.deal_events("rra")


def test_the_answer_leads_with_the_money_then_the_paths_when_asked(tmp_path):
    # issue 31, item 10: the answer was a flat list of report paths. Default (ii) of
    # example 1 under first_breach_day accrues a day later: 2004-10-30 to 2004-11-15,
    # 30/360 days 15, 60,000,000 x 0.0025 x 15/360 = 6,250.00 (against 16 days, 6,666.67)
    url = ledger_of(tmp_path, *EX1)
    args = ["whatif", "rra", "--interpret", "default_date=first_breach_day", "--as-of",
            "2005-02-01", "--db", url]
    result = CliRunner().invoke(cli, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[:4] == [
        "what if (default_date=first_breach_day): rra as of 2005-02-01",
        "  money:",
        f"    {LEHMAN} for 2005-01-15: Additional Interest owed 6,666.67 -> 6,250.00 "
        "(RRA §3(a))",
        "    Additional Interest accrued to the day 6,666.67 -> 6,250.00 (RRA §3(a))"]
    assert lines[4:6] == [
        "  Registration Defaults:",
        "    Registration Default (ii) (RRA §3(a)(ii)): default date 2004-10-28, accrues from "
        "2004-10-29 to 2004-11-15 (exclusive) -> default date 2004-10-29, accrues from "
        "2004-10-30 to 2004-11-15 (exclusive)"]
    assert not any(AMOUNT_1 in line for line in lines)     # no path without --verbose
    assert lines[-1].endswith("other figure(s) differ (--verbose lists them by path)")
    verbose = CliRunner().invoke(cli, [*args, "--verbose"], env={"COLUMNS": "200"})
    assert verbose.output.startswith(result.output.rsplit("\n  and ", 1)[0])
    assert any(AMOUNT_1 in line and "6666.67" in line and "6250.00" in line
               for line in verbose.output.splitlines())


def test_drop_a_payment_makes_it_due_again():
    events = rra(*EX1, ev("AdditionalInterestPaid", "2005-01-18", payment_date="2005-01-15",
                          holder=LEHMAN, amount="6666.67"))
    result = whatif(events, Changes(drop=("e5",)), as_of=date(2005, 2, 1))
    diff = rows(result)
    assert diff[f"{PAY_1}.status"] == ("paid", "due")
    assert diff[f"{PAY_1}.paid.{LEHMAN}"] == ("6666.67", None)
    assert diff["additional_interest.paid_to_as_of"] == ("6666.67", "0.00")
    assert diff[f"{PAY_1}.paid_total"] == ("6666.67", "0.00")


def test_added_events_count_after_the_real_ones_even_with_known_at():
    events = rra(ev("ShelfFiled", "2004-07-13"))
    added = Addition(parse_event(ev("ShelfEffective", "2004-11-15"), line=1), "add.jsonl")
    result = whatif(events, Changes(add=(added,)), as_of=date(2005, 2, 1),
                    known_at=events[-1].recorded_at)
    assert result["added_ids"] == {"whatif-1": "add.jsonl"}
    # the scenario's (ii) is cured 2004-11-15: 16 days; the baseline runs to 2005-01-15
    assert rows(result)[AMOUNT_1] == (money(P * Decimal("0.0025") * 76 / 360),
                                      money(P * Decimal("0.0025") * 16 / 360))
    assert result["scenario"]["known_at"] == result["baseline"]["known_at"] == (
        "2026-01-01T00:03:00.000000Z")
    defaults = result["scenario"]["registration"]["defaults"]
    assert defaults[0]["events"][-1] == "whatif-1"


def test_a_drop_that_leaves_a_later_event_breaking_a_rule_is_refused():
    events = rra(*EX1, *SUSPENSION)
    with pytest.raises(ScenarioError) as err:
        whatif(events, Changes(drop=("e4",)), as_of=date(2005, 8, 1))
    text = str(err.value)
    assert text.startswith("event e5 (SuspensionStarted of 2005-03-01, seq 5), field 'type': "
                           "a Suspension Period can only start during the Effectiveness Period")
    assert text.endswith("[RRA §2(a)(iii), §4(b)(i)]")


def test_event_ids_exact_or_a_unique_prefix():
    by_id = {"abcdef01": None, "abcdef02": None, "12345678": None}
    assert resolve_id("12345678", by_id, "--drop", "d") == "12345678"
    assert resolve_id("123456", by_id, "--drop", "d") == "12345678"
    with pytest.raises(UsageError, match="start of 2 event ids of deal d: abcdef01 .*, "
                                         "abcdef02 "):
        resolve_id("abcdef", by_id, "--drop", "d")
    # a unique prefix of 6 characters or more, or seq:N (issue 31: `1` named whatever
    # event happened to be the only one starting with it)
    with pytest.raises(UsageError, match="give at least 6"):
        resolve_id("1", by_id, "--drop", "d")
    with pytest.raises(UsageError, match="no event '999999'"):
        resolve_id("999999", by_id, "--drop", "d")
    events = {"e1": type("E", (), {"seq": 1})(), "e2": type("E", (), {"seq": 2})()}
    assert resolve_id("seq:2", events, "--drop", "d") == "e2"
    with pytest.raises(UsageError, match="no event 'seq:3'"):
        resolve_id("seq:3", events, "--drop", "d")


@pytest.mark.parametrize("args, code, start", [
    (["--drop", "abcdef99"], 2, "error: field '--drop': no event 'abcdef99' in deal rra"),
    (["--drop", "nosuchevent"], 2, "error: field '--drop': 'nosuchevent' is not an event "
                                   "reference"),
    (["--replace", "nosuchevent"], 2,
     "error: field '--replace': 'nosuchevent' is not EVENT_ID=FILE"),
    (["--add", "missing.jsonl"], 2, "error: field '--add': cannot read missing.jsonl"),
    ([], 2, "error: nothing to change"),
    (["--interpret", "default_date=never"], 2, "error: field '--interpret': interpretation "
                                               "default_date has no value 'never'"),
    (["--scenario", "nope"], 2, "error: field '--scenario': no scenario 'nope'"),
])
def test_bad_options_are_one_line(tmp_path, monkeypatch, args, code, start):
    url = ledger_of(tmp_path, *EX1)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["whatif", "rra", "--db", url, *args])
    assert result.exit_code == code, result.output
    assert result.output.startswith(start), result.output
    assert result.output.count("\n") == 1


def test_bad_files_name_the_file_line_and_field(tmp_path, monkeypatch):
    url = ledger_of(tmp_path, *EX1)
    monkeypatch.chdir(tmp_path)
    good = json.dumps(ev("TrusteeNotified", "2004-11-01", deal="rra"))
    cases = [
        (good + "\n{not json\n", "error: add.jsonl line 2: not valid JSON"),
        (json.dumps(ev("NotesIssued", "2004-07-01", holder="X", principal="-5")) + "\n",
         "error: add.jsonl line 1, field 'data.principal': "),
        (json.dumps(ev("ShelfFiled", "2004-07-20")) + "\n",
         "error: add.jsonl line 1, field 'type': the Shelf Registration Statement was already "
         "filed on 2004-07-13"),
        (good + "\n" + json.dumps(ev("ShelfFiled", "2004-07-20", deal="other")) + "\n",
         "error: add.jsonl line 2, field 'deal': what-if events must be for deal rra"),
    ]
    for text, start in cases:
        (tmp_path / "add.jsonl").write_text(text)
        result = CliRunner().invoke(cli, ["whatif", "rra", "--db", url, "--add", "add.jsonl"])
        assert result.exit_code == 3, result.output
        assert result.output.startswith(start), result.output
        assert result.output.count("\n") == 1
    two = jsonl(tmp_path / "two.jsonl", ev("TrusteeNotified", "2004-11-01"),
                ev("TrusteeNotified", "2004-11-02"))
    result = CliRunner().invoke(cli, ["whatif", "rra", "--db", url, "--replace",
                                      f"{event_id(url, 'ShelfFiled')}={two}"])
    assert result.exit_code == 2
    assert "holds 2 events; a replacement is exactly one" in result.output


def test_save_list_and_rerun_a_scenario(tmp_path, monkeypatch):
    url = ledger_of(tmp_path, *EX1)
    monkeypatch.chdir(tmp_path)
    add = jsonl(tmp_path / "notice.jsonl", ev("TrusteeNotified", "2004-11-01"))
    before = store_state(url)
    runner = CliRunner()
    first = runner.invoke(cli, ["whatif", "rra", "--db", url, "--add", add, "--interpret",
                                "default_date=first_breach_day", "--as-of", "2005-02-01",
                                "--save", "early-notice", "--json"])
    assert first.exit_code == 0, first.output
    saved_file = Path(url + ".scenarios.json")
    assert scenarios_path(url) == saved_file and saved_file.exists()
    saved = json.loads(saved_file.read_text())["scenarios"]["early-notice"]
    assert saved["deal"] == "rra" and saved["drop"] == [] and saved["replace"] == {}
    assert saved["add"] == [{"type": "TrusteeNotified", "deal": "rra", "date": "2004-11-01",
                             "data": {}}]            # the event itself, not the file path
    assert saved["interpretations"] == {"default_date": "first_breach_day"}
    (tmp_path / "notice.jsonl").unlink()             # the scenario no longer needs the file
    again = runner.invoke(cli, ["whatif", "rra", "--db", url, "--scenario", "early-notice",
                                "--as-of", "2005-02-01", "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["diff"] == json.loads(first.stdout)["diff"]
    assert json.loads(again.stdout)["changes"] == json.loads(first.stdout)["changes"]
    assert "scenario 'early-notice' saved in" in first.stderr
    listed = runner.invoke(cli, ["scenarios", "--db", url, "--json"])
    assert json.loads(listed.output) == [{
        "name": "early-notice", "deal": "rra", "saved_at": saved["saved_at"], "add": 1,
        "drop": [], "replace": [], "interpretations": {"default_date": "first_breach_day"}}]
    human = runner.invoke(cli, ["scenarios", "--db", url], env={"COLUMNS": "200"})
    assert "early-notice" in human.output and "default_date=first_breach_day" in human.output
    assert store_state(url) == before


def test_scenarios_of_a_postgresql_ledger_are_named_after_the_database(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert scenarios_path("postgresql://ledger@db.example.com:5432/deals") == (
        tmp_path / "deals.scenarios.json")
    empty = CliRunner().invoke(cli, ["scenarios", "--db", str(tmp_path / "none.db")])
    assert empty.exit_code == 0 and empty.output.startswith("no scenarios saved in")


def test_whatif_reads_the_store_once(tmp_path, monkeypatch):
    url = ledger_of(tmp_path, *EX1)
    calls = []
    original = Ledger.deal_events

    def counted(self, deal):
        calls.append(deal)
        return original(self, deal)

    monkeypatch.setattr(Ledger, "deal_events", counted)
    result = CliRunner().invoke(cli, ["whatif", "rra", "--db", url, "--interpret",
                                      "default_date=first_breach_day"])
    assert result.exit_code == 0, result.output
    assert calls == ["rra"]


def test_a_saved_scenario_keeps_full_ids_for_the_prefixes_given(tmp_path):
    url = ledger_of(tmp_path, *EX1, ev("TrusteeNotified", "2004-11-01"))
    full = event_id(url, "TrusteeNotified")
    result = CliRunner().invoke(cli, ["whatif", "rra", "--db", url, "--drop", full[:8],
                                      "--as-of", "2005-02-01", "--save", "no-notice"])
    assert result.exit_code == 0, result.output
    # the Trustee notice for (ii) (due 2004-11-01) met on time; dropped: violated
    assert ("notify the Trustee of Registration Default (ii) (default date 2004-10-28) "
            "(RRA §3(b)): fulfilled, due 2004-11-01 -> violated, due 2004-11-01"
            in " ".join(result.output.split()))
    saved = json.loads(Path(url + ".scenarios.json").read_text())["scenarios"]["no-notice"]
    assert saved["drop"] == [full]


def test_a_reading_that_changes_no_obligation_changes_no_obligation_row():
    # on the demo, questionnaire_deadline=section_2b_business_days moves Fund B's deadline
    # from 2004-09-21 (request 2004-09-01 + 20 days) to 2004-09-30 (+ 20 Business Days:
    # Sep 6 is Labor Day), but Fund B delivered on 2004-10-20, after both: no state, day or
    # amount changes. The diff listed 22 rows, 18 of them every touched obligation's
    # explanation and interpretations; now: the reading, and Fund B's three "by" texts
    from publishing.demo import RRA, build_demo
    from publishing.reading import deal_events

    import tempfile

    with tempfile.TemporaryDirectory() as where:
        db = str(Path(where) / "demo.db")
        build_demo(db)
        with Ledger(db) as ledger:
            events = deal_events(ledger, RRA)
    result = whatif(events, Changes(interpretations={
        "questionnaire_deadline": "section_2b_business_days"}), as_of=date(2007, 12, 31))
    figures = [r["figure"] for r in result["diff"]]
    assert not [f for f in figures if f.endswith((".explanation", ".by_event"))
                or "].interpretations" in f], figures
    assert figures[0] == "interpretations.questionnaire_deadline"
    by = [r for r in result["diff"] if r["figure"].endswith("].by")]
    assert len(figures) == 4 and len(by) == 3
    assert all(r["baseline"].endswith("deadline 2004-09-21")
               and r["scenario"].endswith("deadline 2004-09-30") for r in by)


def test_changes_as_known_at_a_time_are_checked_against_what_was_known_then():
    # a review (stop 19): whatif --known-at T checked the changes against the whole
    # history. A SuspensionEnded of 04-10 was refused for the SuspensionEnded of 04-20
    # recorded after T; one with no period open at T was accepted. A real ledger holding
    # the history known at T plus the change decides both ways the other way
    from datetime import datetime, timezone

    t = [datetime(2026, 1, 1, 0, m, tzinfo=timezone.utc) for m in range(6)]
    objs = [*EFFECTIVE, ev("SuspensionStarted", "2005-03-01", material_transaction=False),
            ev("SuspensionEnded", "2005-04-20")]
    events = build([opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN,
                                 principal="60000000"), *objs],
                   recorded=[t[1]] * 4 + [t[2], t[4]])
    end = Changes(add=(Addition(parse_event(ev("SuspensionEnded", "2005-04-10"), line=1),
                                "end.jsonl"),))
    # known at t3: the period from 03-01 is open; ended on 04-10 it is 40 days, within
    # the 45 of RRA §4(b)(i): nothing accrues
    result = whatif(events, end, as_of=date(2005, 12, 31), known_at=t[3])
    periods = result["scenario"]["suspensions"]["periods"]
    assert [(p["start"], p["end"], p["days"]) for p in periods] == [
        ("2005-03-01", "2005-04-10", 40)]
    assert result["scenario"]["additional_interest"]["accrued_to_as_of"] == "0.00"
    # known at t1: no period had started, so there is none to end
    with pytest.raises(ScenarioError) as err:
        whatif(events, end, as_of=date(2005, 12, 31), known_at=t[1])
    assert "no Suspension Period is open to end" in str(err.value.render())
