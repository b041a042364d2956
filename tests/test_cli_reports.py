"""The computing commands through click's CliRunner: interpretations, report and its
readable views (status, interest, suspensions, deadlines, consents, trueup, instruments).

Every expected figure is worked out by hand in a comment beside it (SPEC §8), never taken
from the program's own output."""

from __future__ import annotations

import json

import pytest

from tests.cli_support import ok, refused, run
from ledger.terms import TEMPLATES

RRA = "infocrossing-rra-2004"
LETTER = "infocrossing-letter-2002"
LEHMAN = "Lehman Brothers Inc."
FUND_A = "Fund A"
DB = "DB Capital Investors, L.P."
SANDLER = "Sandler Capital Partners V, L.P."
CAMDEN = "Camden Partners Strategic Fund II-A, L.P."
HEAD = {"deal", "kind", "as_of", "known_at", "interpretations"}
REGISTRATION_VIEWS = ("status", "interest", "suspensions", "deadlines", "consents")
LETTER_VIEWS = ("trueup", "instruments")


def as_json(*args: str) -> dict:
    return json.loads(ok(run(*args, "--json")))


def ev(type_: str, day: str, deal: str = RRA, **data) -> dict:
    return {"type": type_, "deal": deal, "date": day, "data": data}


def ledger(path, deal: str, template: str, *events: dict, terms_file=None) -> str:
    db = str(path)
    if terms_file:
        ok(run("init", deal, "--terms", str(terms_file), "--db", db))
    else:
        ok(run("init", deal, "--template", template, "--db", db))
    if events:
        ok(run("append", "--db", db, input="".join(json.dumps(e) + "\n" for e in events)))
    return db


def row(out: str, *cells: str) -> str:
    """The one line of a table holding every one of ``cells``."""
    lines = [ln for ln in out.splitlines() if all(c in ln for c in cells)]
    assert len(lines) == 1, (cells, out)
    return lines[0]


# SPEC §8 example 1: sole holder Lehman, $60,000,000 from 2004-06-30, no questionnaire,
# filed 2004-07-13, effective 2004-11-15.
EXAMPLE_1 = [ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
             ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15")]

# SPEC §8 example 2: the same deal, effective 2004-10-01; a 50-day Suspension Period.
EXAMPLE_2 = [ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
             ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-10-01"),
             ev("SuspensionStarted", "2005-03-01", material_transaction=False),
             ev("SuspensionEnded", "2005-04-20")]


def letter_events() -> list[dict]:
    """One Warrant exercised before the cutoff, one after; a first Camden vesting."""
    e = lambda *a, **k: ev(*a, deal=LETTER, **k)  # noqa: E731
    return [
        e("CapitalizationRecorded", "2002-02-01", common_outstanding=6000000),
        e("InstrumentRegistered", "2002-02-01", instrument="W-1", holder=DB, kind="warrant",
          shares=100000, exercise_price="4.00"),
        e("InstrumentRegistered", "2002-02-01", instrument="W-2", holder=SANDLER,
          kind="warrant", shares=50000, exercise_price="4.00"),
        e("CamdenWarrantsIssued", "2002-02-01", holder=CAMDEN, warrants=400000,
          exercise_price="2.00"),
        e("WarrantsExercised", "2003-03-03", instrument="W-1", fraction="1",
          shares_issued=100000),
        e("CamdenWarrantsVested", "2003-09-30", holder=CAMDEN, warrants=150000),
        e("TrueUpSharesIssued", "2003-10-15", instrument="W-1", shares=1000),
        # after the 2004-02-01 cutoff; at 3.9512: 0.5 × 200,000 / 3.9512 = 25,308.7… → 25,308
        e("WarrantsExercised", "2004-05-03", instrument="W-2", fraction="0.5",
          shares_issued=25308),
    ]


@pytest.fixture
def example_1(tmp_path):
    return ledger(tmp_path / "ex1.db", RRA, RRA, *EXAMPLE_1)


@pytest.fixture
def example_2(tmp_path):
    return ledger(tmp_path / "ex2.db", RRA, RRA, *EXAMPLE_2)


@pytest.fixture
def letter(tmp_path):
    return ledger(tmp_path / "letter.db", LETTER, LETTER, *letter_events())


# ---------------------------------------------------------------- interpretations

SPEC_6 = {"default_date": "last_compliant_day", "rate_after_second_anniversary": "calendar",
          "overlapping_defaults": "episode", "conversion_forfeits": "unpaid",
          "no_questionnaire_request": "entitled", "questionnaire_deadline": "questionnaire_form",
          "window_breach": "usability_default", "window_material_allowance": "period",
          "rate_clock": "per_episode", "questionnaire_entitlement_judged_on": "payment_date",
          "registered_securities": "all_notes",
          "default_after_effectiveness_period": "ends", "trueup_dividends": "frozen",
          "trueup_adjustments": "all", "camden_tranche_order": "earliest_first",
          "same_day_vesting_and_exercise": "vesting_first",
          "conversion_judged_on": "interest_payment_date", "shelf_buyer_paid": "accrued_days",
          "same_day_adjustment": "as_recorded", "later_camden_issuance": "not_deferred"}


def test_interpretations_json_lists_spec_6_with_defaults():
    listed = json.loads(ok(run("interpretations", "--json")))
    assert {n: i["default"] for n, i in listed.items()} == SPEC_6
    assert listed["default_date"]["alternatives"] == ["first_breach_day"]
    assert listed["conversion_forfeits"]["alternatives"] == ["all_unpaid", "future_only"]
    assert listed["window_breach"]["alternatives"] == ["report_only", "suspension_default"]
    assert listed["overlapping_defaults"]["clause"] == "RRA §3(a)"


def test_interpretations_table_names_each_one():
    out = ok(run("interpretations"))
    out = out.partition("Worked examples")[0]   # the table (the examples follow it)
    for name, default in SPEC_6.items():
        assert default in row(out, name)
    assert "first_breach_day" in row(out, "default_date")


# ---------------------------------------------------------------- report

def test_report_json_has_the_spec_7_keys_for_registration_rights(example_1):
    r = as_json("report", RRA, "--db", example_1, "--as-of", "2005-02-01")
    assert HEAD | {"registration", "suspensions", "additional_interest", "deadlines",
                   "majority"} <= set(r)
    assert (r["deal"], r["kind"], r["as_of"], r["known_at"]) == (
        RRA, "registration_rights", "2005-02-01", None)
    assert r["interpretations"] == SPEC_6
    assert {"filing_deadline", "effectiveness_deadline", "filed_on", "effective_on",
            "effectiveness_period_end", "in_default", "defaults"} <= set(r["registration"])
    assert {"clause", "default_date", "accrual_from", "cured_on", "episode",
            "events"} <= set(r["registration"]["defaults"][0])
    assert {"periods", "trailing_90", "trailing_360", "max_90", "max_360", "limit_90",
            "limit_360", "breaches"} <= set(r["suspensions"])
    ai = r["additional_interest"]
    assert {"accrued_to_as_of", "by_holder", "payments"} <= set(ai)
    assert {"payment_date", "paid_on", "record_date", "period_start", "period_end", "amounts",
            "total", "paid", "status"} <= set(ai["payments"][0])
    assert {"obligation", "clause", "due", "status", "met_on", "events"} <= set(
        r["deadlines"][0])
    assert r["majority"] == {}


def test_report_json_has_the_spec_7_keys_for_antidilution_deferral(letter):
    r = as_json("report", LETTER, "--db", letter, "--as-of", "2004-12-31")
    assert HEAD | {"true_up"} <= set(r) and "registration" not in r
    assert r["kind"] == "antidilution_deferral"
    t = r["true_up"]
    assert {"holders", "instruments", "exercises"} <= set(t)
    assert {"owed", "issued", "outstanding"} <= set(t["holders"][DB])
    assert {"instrument", "holder", "kind", "price", "shares", "exercised_fraction",
            "deferred_price_if_all_vest"} <= set(t["instruments"][0])
    assert {"event", "instrument", "date", "eligible", "shares_issued", "entitled",
            "owed"} <= set(t["exercises"][0])


def test_report_switches_an_interpretation(example_1):
    r = as_json("report", RRA, "--db", example_1, "--as-of", "2005-02-01",
                "--interpret", "default_date=first_breach_day")
    assert r["interpretations"]["default_date"] == "first_breach_day"
    # accrual starts a day later, 2004-10-30; 30/360 days to 2004-11-15 = 15 - 30 + 30 = 15
    # 60,000,000 × 0.0025 × 15/360 = 6,250.00
    assert r["additional_interest"]["payments"][0]["amounts"] == {LEHMAN: "6250.00"}
    out = ok(run("report", RRA, "--db", example_1, "--as-of", "2005-02-01",
                 "--interpret", "default_date=first_breach_day"))
    assert "interpretations: default_date=first_breach_day; others default" in out


@pytest.mark.parametrize("reading", [
    "questionnaire_entitlement_judged_on=record_date",
    "registered_securities=named_selling_holders", "conversion_forfeits=all_unpaid",
    "window_breach=suspension_default", "window_material_allowance=any_in_window",
    "rate_clock=once_per_deal"])
def test_report_switches_each_reading_issue_12_added(example_1, reading):
    name, value = reading.split("=")
    r = as_json("report", RRA, "--db", example_1, "--as-of", "2005-02-01",
                "--interpret", reading)
    assert r["interpretations"] == {**SPEC_6, name: value}
    # none of them touches example 1: 60,000,000 x 0.0025 x 16/360 = 6,666.67
    assert r["additional_interest"]["payments"][0]["amounts"] == {LEHMAN: "6666.67"}


def test_report_as_known_at_an_earlier_time(example_1, tmp_path):
    records = [json.loads(x) for x in ok(run("log", "--json", "--db", example_1)).splitlines()]
    batch_at = records[-1]["recorded_at"]                      # the example's batch
    ok(run("record", "AdditionalInterestPaid", "--deal", RRA, "--date", "2005-01-18",
           "payment_date=2005-01-15", f"holder={LEHMAN}", "amount=6666.67", "--db", example_1))
    now = as_json("interest", RRA, "--db", example_1, "--as-of", "2005-02-01")
    then = as_json("interest", RRA, "--db", example_1, "--as-of", "2005-02-01",
                   "--known-at", batch_at)
    assert now["additional_interest"]["payments"][0]["status"] == "paid"
    assert then["additional_interest"]["payments"][0]["status"] == "due"
    assert then["known_at"] is not None


def test_report_table_shows_every_registration_view(example_1):
    out = ok(run("report", RRA, "--db", example_1, "--as-of", "2005-02-01"))
    assert f"{RRA} (registration_rights) as of 2005-02-01" in out
    assert "interpretations: all defaults" in out
    for title in ("Shelf Registration Statement (RRA §2(a))", "Registration Defaults",
                  "Interest Payment Dates", "Suspension allowances", "Obligations on",
                  "No consent recorded"):
        assert title in out
    assert "{" not in out                                      # no raw JSON


def test_report_table_shows_every_letter_view(letter):
    out = ok(run("report", LETTER, "--db", letter, "--as-of", "2004-12-31"))
    assert f"{LETTER} (antidilution_deferral) as of 2004-12-31" in out
    for title in ("True-up shares per holder", "Exercises and conversions", "Instruments",
                  "Camden Warrants"):
        assert title in out
    assert "Registration Defaults" not in out


@pytest.mark.parametrize("args, option", [
    (["--as-of", "2005-02-30"], "--as-of"),
    (["--as-of", "yesterday"], "--as-of"),
    (["--interpret", "default_date=sometimes"], "--interpret"),
    (["--interpret", "no_such_reading=x"], "--interpret"),
    (["--interpret", "default_date"], "--interpret"),
    (["--known-at", "soon"], "--known-at"),
])
def test_report_refuses_bad_options_in_one_line(example_1, args, option):
    for command in ("report", "status"):
        for extra in ([], ["--json"]):
            err = refused(run(command, RRA, "--db", example_1, *args, *extra), 2)
            assert f"field '{option}'" in err


def test_report_refuses_an_unknown_deal_naming_the_known_ones(example_1):
    err = refused(run("report", "nope", "--db", example_1, "--json"), 2)
    assert "field 'DEAL'" in err and "'nope'" in err and RRA in err


def test_report_refuses_a_time_before_the_deal_was_recorded(example_1):
    err = refused(run("report", RRA, "--db", example_1, "--known-at", "2000-01-01"), 2)
    assert "field '--known-at'" in err


# ---------------------------------------------------------------- each view: kinds

@pytest.mark.parametrize("view", REGISTRATION_VIEWS)
def test_a_registration_view_refuses_a_letter_deal(letter, view):
    for extra in ([], ["--json"]):
        err = refused(run(view, LETTER, "--db", letter, *extra), 2)
        assert "field 'DEAL'" in err and "antidilution_deferral" in err and view in err


@pytest.mark.parametrize("view", LETTER_VIEWS)
def test_a_letter_view_refuses_a_registration_deal(example_1, view):
    err = refused(run(view, RRA, "--db", example_1), 2)
    assert "field 'DEAL'" in err and "registration_rights" in err and view in err


@pytest.mark.parametrize("view, part", [
    ("status", "registration"), ("interest", "additional_interest"),
    ("suspensions", "suspensions"), ("deadlines", "deadlines"), ("consents", "majority")])
def test_a_registration_view_json_is_its_part_of_the_report(example_1, view, part):
    whole = as_json("report", RRA, "--db", example_1, "--as-of", "2005-02-01")
    mine = as_json(view, RRA, "--db", example_1, "--as-of", "2005-02-01")
    assert set(mine) == HEAD | {part}
    assert mine[part] == whole[part] and mine["as_of"] == "2005-02-01"


def test_letter_views_json_split_the_true_up(letter):
    whole = as_json("report", LETTER, "--db", letter, "--as-of", "2004-12-31")["true_up"]
    trueup = as_json("trueup", LETTER, "--db", letter, "--as-of", "2004-12-31")
    instruments = as_json("instruments", LETTER, "--db", letter, "--as-of", "2004-12-31")
    assert set(trueup) == set(instruments) == HEAD | {"true_up"}
    assert trueup["true_up"]["holders"] == whole["holders"]
    assert trueup["true_up"]["exercises"] == whole["exercises"]
    assert "instruments" not in trueup["true_up"]
    assert instruments["true_up"] == {"instruments": whole["instruments"]}


# ---------------------------------------------------------------- status

def test_status_of_example_1(example_1):
    r = as_json("status", RRA, "--db", example_1, "--as-of", "2005-02-01")["registration"]
    # 2004-06-30 + 15 days = 2004-07-15; + 120 days: July 31 + August 31 + September 30
    # = 92 days to 2004-09-30, + 28 = 120 → 2004-10-28
    assert r["filing_deadline"] == "2004-07-15" and r["effectiveness_deadline"] == "2004-10-28"
    assert r["filed_on"] == "2004-07-13" and r["effective_on"] == "2004-11-15"
    assert r["effectiveness_period_end"] == "2006-11-15"       # 2nd anniversary of effect
    assert r["in_default"] is False
    [d] = r["defaults"]
    assert (d["clause"], d["default_date"], d["accrual_from"], d["cured_on"], d["episode"]) \
        == ("RRA §3(a)(ii)", "2004-10-28", "2004-10-29", "2004-11-15", 1)
    out = ok(run("status", RRA, "--db", example_1, "--as-of", "2005-02-01"))
    assert "2004-07-15" in row(out, "Filing Deadline")
    assert "2004-07-13" in row(out, "filed on")
    assert "2004-10-28" in row(out, "Effectiveness Target Date")
    assert "2004-11-15" in row(out, "declared effective on")
    assert "2006-11-15" in row(out, "Effectiveness Period ends")
    assert row(out, "in default on 2005-02-01").split("│")[2].strip() == "no"
    line = row(out, "RRA §3(a)(ii)")
    assert "2004-10-28" in line and "2004-10-29" in line and "2004-11-15" in line


def test_status_while_in_default(example_1):
    # as of 2004-11-01 the shelf is not yet effective: default (ii) accrues, not cured
    out = ok(run("status", RRA, "--db", example_1, "--as-of", "2004-11-01"))
    assert row(out, "in default on 2004-11-01").split("│")[2].strip() == "yes"
    assert "not cured" in row(out, "RRA §3(a)(ii)")
    assert "not effective" in row(out, "declared effective on")


# ---------------------------------------------------------------- interest

def test_interest_of_example_1_end_to_end(example_1):
    out = ok(run("interest", RRA, "--db", example_1, "--as-of", "2005-02-01"))
    # default (ii) accrues 2004-10-29 to 2004-11-15 exclusive; 30/360 days =
    # 30 × (11 - 10) + (15 - 29) = 16; 60,000,000 × 0.0025 × 16/360 = 6,666.666… → 6,666.67
    # 2005-01-15 is a Saturday and Monday 2005-01-17 is Martin Luther King Day: pays 01-18;
    # record date 2005-01-01; nothing paid by 2005-02-01, after the payment day: due, late
    line = row(out, "2005-01-15", "2005-01-18")
    assert "2005-01-01" in line and "6,666.67" in line and "due (late)" in line
    assert "2004-06-30 → 2005-01-15" in line                 # first period: from Closing
    assert "6,666.67" in row(out, LEHMAN, "2005-01-15")
    assert "6,666.67" in row(out, "total accrued")
    assert "30/360" in out


def test_interest_paid_in_full(example_1):
    ok(run("record", "AdditionalInterestPaid", "--deal", RRA, "--date", "2005-01-18",
           "payment_date=2005-01-15", f"holder={LEHMAN}", "amount=6666.67", "--db", example_1))
    p = as_json("interest", RRA, "--db", example_1, "--as-of", "2005-02-01")
    [payment] = p["additional_interest"]["payments"]
    assert payment["paid"] == {LEHMAN: "6666.67"} and payment["status"] == "paid"
    out = ok(run("interest", RRA, "--db", example_1, "--as-of", "2005-02-01"))
    assert row(out, "2005-01-15", "2005-01-18").split("│")[-2].strip() == "paid"
    assert "6,666.67" in row(out, "total paid")


def test_interest_with_act_360(tmp_path):
    terms = tmp_path / "terms.json"
    t = TEMPLATES[RRA]
    terms.write_text(json.dumps({"kind": t["kind"], "name": t["name"], "date": "2004-06-30",
                                 "terms": {**t["terms"], "day_count": "ACT/360"}}))
    db = ledger(tmp_path / "act.db", RRA, RRA, *EXAMPLE_1, terms_file=terms)
    # ACT/360: 2004-10-29 to 2004-11-15 is 3 + 14 = 17 actual days;
    # 60,000,000 × 0.0025 × 17/360 = 7,083.333… → 7,083.33 (SPEC §8 example 1)
    out = ok(run("interest", RRA, "--db", db, "--as-of", "2005-02-01"))
    assert "7,083.33" in row(out, "2005-01-15", "2005-01-18")
    assert "ACT/360" in out


def test_interest_of_example_2(example_2):
    # default (iv)(A) accrues 2005-04-15 to 2005-04-20 exclusive: 5 days (30/360 too);
    # 60,000,000 × 0.0025 × 5/360 = 2,083.333… → 2,083.33, payable Friday 2005-07-15
    p = as_json("interest", RRA, "--db", example_2, "--as-of", "2005-07-31")
    [payment] = [x for x in p["additional_interest"]["payments"]
                 if x["payment_date"] == "2005-07-15"]
    assert payment["amounts"] == {LEHMAN: "2083.33"} and payment["paid_on"] == "2005-07-15"
    assert payment["record_date"] == "2005-07-01"
    out = ok(run("interest", RRA, "--db", example_2, "--as-of", "2005-07-31"))
    assert "2,083.33" in row(out, "2005-07-15", "2005-07-01")


# ---------------------------------------------------------------- suspensions

def test_suspensions_of_example_2(example_2):
    s = as_json("suspensions", RRA, "--db", example_2, "--as-of", "2005-04-30")["suspensions"]
    # 2005-03-01 to 2005-04-20 exclusive: 31 days of March + 19 of April = 50;
    # its 45th day is 2005-03-01 + 44 = 2005-04-14
    assert s["periods"] == [{**s["periods"][0], "start": "2005-03-01", "end": "2005-04-20",
                             "days": 50, "material_transaction": False}]
    # the 90 days ending 2005-04-30 start 2005-01-31 and hold all 50; so do the 360
    assert (s["trailing_90"], s["trailing_360"], s["max_90"], s["max_360"]) == (50, 50, 50, 50)
    assert (s["limit_90"], s["limit_360"]) == (45, 90)
    [b] = s["breaches"]                                        # days 46-50: (iv)(A)
    assert (b["clause"], b["first_day"], b["last_day"], b["days"]) == (
        "RRA §3(a)(iv)(A)", "2005-04-15", "2005-04-19", 5)
    out = ok(run("suspensions", RRA, "--db", example_2, "--as-of", "2005-04-30"))
    line = row(out, "2005-03-01", "2005-04-20")
    assert "50" in line and "2005-04-14" in line and "│ no" in line
    # remaining: 45 - 50 → 0 (60 - 50 = 10 with a material transaction); 90 - 50 = 40
    remaining = row(out, "remaining")
    assert "0 (10 with a material transaction)" in remaining and "│ 40" in remaining
    # the earliest suspended day in the window, 2005-03-01, leaves the 90-day window on
    # 2005-03-01 + 90 = 2005-05-30 and the 360-day one on 2005-03-01 + 360 = 2006-02-24
    assert "2005-05-30" in row(out, "grows again on") and "2006-02-24" in row(
        out, "grows again on")
    assert "2005-04-15" in row(out, "RRA §3(a)(iv)(A)", "2005-04-19")


def test_suspensions_none(example_1):
    out = ok(run("suspensions", RRA, "--db", example_1, "--as-of", "2005-02-01"))
    assert "No Suspension Period." in out and "No suspension beyond its limits." in out


# ---------------------------------------------------------------- deadlines

def test_deadlines_of_example_1_open_and_missed_first(example_1):
    d = as_json("deadlines", RRA, "--db", example_1, "--as-of", "2005-02-01")["deadlines"]
    by_clause = {}
    for o in d:
        by_clause.setdefault(o["clause"], []).append(o)
    [filing] = by_clause["RRA §2(a)(i)"]
    assert (filing["due"], filing["status"], filing["met_on"]) == ("2004-07-15", "met",
                                                                    "2004-07-13")
    [effect] = by_clause["RRA §2(a)(ii)"]
    assert (effect["due"], effect["status"], effect["met_on"]) == ("2004-10-28", "missed",
                                                                    None)
    # the Trustee is to hear of default (ii) within 2 Business Days after Thursday
    # 2004-10-28: Friday 10-29, Monday 11-01; no TrusteeNotified: missed
    [trustee] = by_clause["RRA §3(b)"]
    assert (trustee["due"], trustee["status"]) == ("2004-11-01", "missed")
    out = ok(run("deadlines", RRA, "--db", example_1, "--as-of", "2005-02-01"))
    lines = out.splitlines()
    first_met = min(i for i, ln in enumerate(lines) if "│ met " in ln)
    last_other = max(i for i, ln in enumerate(lines) if "│ missed " in ln or "│ open " in ln)
    assert last_other < first_met
    assert "2004-07-13" in row(out, "2004-07-15", "met", "file the Shelf")
    assert "missed" in row(out, "2004-11-01", "Trustee")


# ---------------------------------------------------------------- consents

def test_consents_per_matter(tmp_path):
    db = ledger(tmp_path / "c.db", RRA, RRA, *EXAMPLE_1,
                ev("NotesTransferred", "2004-08-02", from_holder=LEHMAN, to_holder=FUND_A,
                   principal="20000000"),
                ev("ConsentGiven", "2005-03-01", holder=FUND_A, matter="waiver"),
                ev("ConsentGiven", "2005-03-02", holder=LEHMAN, matter="amendment"))
    m = as_json("consents", RRA, "--db", db, "--as-of", "2005-04-01")["majority"]
    # Fund A holds 20,000,000 of 60,000,000 = 1/3: not more than half
    assert (m["waiver"]["consenting"], m["waiver"]["total"], m["waiver"]["share"],
            m["waiver"]["majority"]) == ("20000000.00", "60000000.00", "0.333333", False)
    # Lehman keeps 60,000,000 - 20,000,000 = 40,000,000 = 2/3: a majority
    assert (m["amendment"]["consenting"], m["amendment"]["share"],
            m["amendment"]["majority"]) == ("40000000.00", "0.666667", True)
    out = ok(run("consents", RRA, "--db", db, "--as-of", "2005-04-01"))
    waiver = row(out, "waiver")
    assert "20,000,000.00" in waiver and "60,000,000.00" in waiver and "33.33%" in waiver
    assert waiver.split("│")[5].strip() == "no"
    amendment = row(out, "amendment")
    assert "40,000,000.00" in amendment and "66.67%" in amendment
    assert amendment.split("│")[5].strip() == "yes"


def test_consents_none(example_1):
    out = ok(run("consents", RRA, "--db", example_1, "--as-of", "2005-02-01"))
    assert "No consent recorded" in out


# ---------------------------------------------------------------- trueup and instruments

# The Camden vesting on 2003-09-30 (broad weighted average, SPEC §5.2):
#   A = 6,000,000; C = 150,000; B = 150,000 × 2.00 / 4.00 = 75,000
#   P' = 4.00 × (6,000,000 + 75,000) / (6,000,000 + 150,000) = 3.951219… → 3.9512
# W-1 exercised in full before the cutoff: x = 100,000 × 4.00 / 3.9512 = 101,235.07… →
#   101,235; y = 100,000; owed 1,235; 1,000 issued; outstanding 235.


def test_trueup_per_holder_and_exercise(letter):
    t = as_json("trueup", LETTER, "--db", letter, "--as-of", "2004-12-31")["true_up"]
    assert {k: t["holders"][DB][k] for k in ("owed", "issued", "outstanding")} == {
        "owed": 1235, "issued": 1000, "outstanding": 235}
    assert {k: t["holders"][SANDLER][k] for k in ("owed", "issued", "outstanding")} == {
        "owed": 0, "issued": 0, "outstanding": 0}
    w1, w2 = t["exercises"]
    assert (w1["instrument"], w1["date"], w1["eligible"], w1["shares_issued"],
            w1["entitled"], w1["owed"]) == ("W-1", "2003-03-03", True, 100000, 101235, 1235)
    assert (w2["instrument"], w2["date"], w2["eligible"], w2["shares_issued"],
            w2["owed"]) == ("W-2", "2004-05-03", False, 25308, 0)
    out = ok(run("trueup", LETTER, "--db", letter, "--as-of", "2004-12-31"))
    [holder] = [ln for ln in out.splitlines() if ln.startswith(f"│ {DB} ")]
    assert [c.strip() for c in holder.split("│")[2:5]] == ["1,235", "1,000", "235"]
    line = row(out, "W-1", "2003-03-03")
    assert [c.strip() for c in line.split("│")[4:8]] == ["yes", "100,000", "101,235", "1,235"]
    line = row(out, "W-2", "2004-05-03")
    assert "│ no " in line and "25,308" in line
    assert "before 2004-02-01" in out


def test_trueup_before_any_vesting_owes_nothing(letter):
    t = as_json("trueup", LETTER, "--db", letter, "--as-of", "2003-06-30")["true_up"]
    [w1] = t["exercises"]                                      # W-2 not yet exercised
    assert w1["owed"] == 0 and t["holders"][DB]["owed"] == 0


def test_instruments_current_and_deferred(letter):
    i = {x["instrument"]: x for x in
         as_json("instruments", LETTER, "--db", letter, "--as-of", "2004-12-31")
         ["true_up"]["instruments"]}
    # W-2: half left; 0.5 × 50,000 × 4.00 / 3.9512 = 25,308.7… → 25,308 shares
    # if the 250,000 unvested Camden Warrants vested: A = 6,000,000 + 150,000 vested since
    # the record = 6,150,000; C = 250,000; P' × (A + C) = P × A + C × 2.00:
    # (3.9512 × 6,150,000 + 500,000) / 6,400,000 = 24,799,880 / 6,400,000 = 3.87498… →
    # 3.8750; shares 100,000 / 3.8750 = 25,806.4… → 25,806
    w2 = i["W-2"]
    assert (w2["price"], w2["shares"], w2["exercised_fraction"],
            w2["deferred_price_if_all_vest"]) == ("3.9512", 25308, "0.5", "3.8750")
    assert w2.get("deferred_shares_if_all_vest", 25806) == 25806
    assert i["W-1"]["shares"] == 0 and i["W-1"]["exercised_fraction"] == "1"
    out = ok(run("instruments", LETTER, "--db", letter, "--as-of", "2004-12-31"))
    cells = [c.strip() for c in row(out, "W-2").split("│")[1:-1]]
    assert cells == ["W-2", SANDLER, "warrant", "3.9512", "25,308", "0.5", "3.8750", "25,806"]
    # Camden: 400,000 issued, 150,000 vested, 250,000 unvested
    assert [c.strip() for c in row(out, CAMDEN).split("│")[2:6]] == [
        "400,000", "150,000", "0", "250,000"]
