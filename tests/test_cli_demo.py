"""``deal-ledger demo`` through click's CliRunner: it builds the ILLUSTRATIVE ledger, shows
every view of both deals as of 2007-12-31 and the chain verification; and its histories
exercise what they claim to (every Registration Default type; the seven Warrantholders,
the four Camden entities, vestings, exercises on both sides of the cutoff, a true-up)."""

from __future__ import annotations

import json
import tempfile

import pytest

from tests.cli_support import ok, run

RRA = "infocrossing-rra-2004"
LETTER = "infocrossing-letter-2002"
AS_OF = "2007-12-31"
WARRANTHOLDERS = {"DB Capital Investors, L.P.", "Sandler Capital Partners V, L.P.",
                  "Sandler Capital Partners V FTE, L.P.", "Sandler Technology Partners, L.P.",
                  "Sandler Co-Investment Partners, L.P.", "Price Family Limited Partners",
                  "Benake L.P."}
CAMDEN = {"Camden Partners Strategic Fund II-A, L.P.",
          "Camden Partners Strategic Fund II-B, L.P.",
          "Cahill Warnock Strategic Partners Fund, L.P.", "Strategic Associates, L.P."}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("demo") / "demo.db")
    return db, ok(run("demo", "--db", db))


def records(db: str, *extra: str) -> list[dict]:
    return [json.loads(x) for x in ok(run("log", "--json", "--db", db, *extra)).splitlines()]


def report(db: str, deal: str) -> dict:
    return json.loads(ok(run("report", deal, "--json", "--db", db, "--as-of", AS_OF)))


def test_demo_says_it_is_illustrative_and_as_of_when(demo):
    db, out = demo
    assert "ILLUSTRATIVE" in out.splitlines()[0]
    assert f"Every view below is as of {AS_OF}." in out
    assert f"{RRA} (ILLUSTRATIVE) as of {AS_OF}" in out
    assert f"{LETTER} (ILLUSTRATIVE) as of {AS_OF}" in out


def test_demo_shows_every_view_of_both_deals(demo):
    db, out = demo
    rra, letter = out.split(f"{LETTER} (ILLUSTRATIVE)")
    for title in ("Registration Defaults", "Interest Payment Dates", "Suspension Periods",
                  "Obligations on", "Consents"):
        assert title in rra
    for title in ("True-up shares per holder", "Exercises and conversions", "Instruments",
                  "Camden Warrants"):
        assert title in letter


def test_demo_ends_with_the_chain_verification(demo):
    db, out = demo
    log = records(db)
    # 30 RRA events that stand, plus the payment recorded wrong and its retraction: 32;
    # and 26 letter events
    assert f"  {RRA}: 32 events" in out and f"  {LETTER}: 26 events" in out
    assert len(log) == 58
    assert "chain: ok: 58 events\nhead " in out
    assert log[-1]["hash"] in out.replace("\n", "")


def test_demo_every_invented_event_is_labelled(demo):
    db, _ = demo
    for r in records(db):
        if r["type"] != "DealOpened":
            assert r["source"].startswith("ILLUSTRATIVE"), r


def test_demo_rra_has_every_registration_default_type(demo):
    db, _ = demo
    defaults = {d["clause"]: d for d in report(db, RRA)["registration"]["defaults"]}
    assert set(defaults) == {"RRA §3(a)(i)", "RRA §3(a)(ii)", "RRA §3(a)(iii)",
                             "RRA §3(a)(iv)(A)", "RRA §3(a)(iv)(B)"}
    # (i): filed 2004-07-20, after the 2004-07-15 deadline
    assert (defaults["RRA §3(a)(i)"]["default_date"], defaults["RRA §3(a)(i)"]["cured_on"]) \
        == ("2004-07-15", "2004-07-20")
    # (iii): stop order Wednesday 2005-06-01; 5 Business Days: 06-02, 03, 06, 07, 08
    assert defaults["RRA §3(a)(iii)"]["default_date"] == "2005-06-08"
    # (iv)(A): suspended from 2005-03-01; the 45th day is 2005-03-01 + 44 = 2005-04-14
    assert defaults["RRA §3(a)(iv)(A)"]["default_date"] == "2005-04-14"
    # (iv)(B): 50 days in the first period + 2005-08-01 to 09-09 (31 + 9 = 40) = 90 in the
    # 360 days ending 2005-09-09; the 91st day is 2005-09-10
    assert (defaults["RRA §3(a)(iv)(B)"]["default_date"],
            defaults["RRA §3(a)(iv)(B)"]["accrual_from"]) == ("2005-09-09", "2005-09-10")


def test_demo_rra_shows_an_underpayment(demo):
    db, out = demo
    # Fund A holds 20,000,000 on the 2005-01-01 record date; default days in the first
    # period (30/360): (i) 2004-07-16 to 07-20 = 4, (ii) 2004-10-29 to 11-15 = 16; 20 days.
    # 20,000,000 × 0.0025 × 20/360 = 2,777.78; paid 2,700.00. Lehman keeps 72,000,000 -
    # 30,000,000 = 42,000,000: × 0.0025 × 20/360 = 5,833.33, paid in full.
    fund_a = [ln for ln in out.splitlines() if "2005-01-15" in ln and "Illustrative Fund A" in ln]
    assert len(fund_a) == 1 and "2,777.78" in fund_a[0] and "2,700.00" in fund_a[0]
    [payment] = [p for p in report(db, RRA)["additional_interest"]["payments"]
                 if p["payment_date"] == "2005-01-15"]
    assert payment["status"] == "underpaid"
    assert payment["amounts"]["Lehman Brothers Inc."] == "5833.33"


def test_demo_letter_has_the_parties_vestings_exercises_and_a_true_up(demo):
    db, _ = demo
    t = report(db, LETTER)["true_up"]
    warrants = {i["holder"] for i in t["instruments"] if i["kind"] == "warrant"}
    assert warrants == WARRANTHOLDERS
    issued = {r["data"]["holder"] for r in records(db, "--type", "CamdenWarrantsIssued")}
    assert issued == CAMDEN
    assert len(records(db, "--type", "CamdenWarrantsVested")) >= 3
    eligible = {(e["date"] < "2004-02-01", e["eligible"]) for e in t["exercises"]}
    assert eligible == {(True, True), (False, False)}          # both sides of the cutoff
    [true_up] = records(db, "--type", "TrueUpSharesIssued")
    # W-PRICE: 100,000 × 4.00 at 3.9355 after the two 2003-09-30 vestings:
    # 400,000 / 3.9355 = 101,638.9… → 101,638; 1,638 owed then, 1,638 issued
    assert true_up["data"] == {"instrument": "W-PRICE", "shares": 1638}
    assert t["holders"]["Price Family Limited Partners"]["issued"] == 1638
    assert not t.get("discrepancies")


def test_demo_without_db_builds_in_a_new_temp_directory(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    out = ok(run("demo"))
    [made] = list(tmp_path.glob("deal-ledger-demo-*/demo.db"))
    assert str(made) in out


def test_demo_refuses_an_existing_demo_ledger(demo):
    db, _ = demo
    result = run("demo", "--db", db)
    assert result.exit_code == 3 and result.stderr.count("\n") == 1
    assert "already open" in result.stderr and "Traceback" not in result.output
    assert len(records(db)) == 58


# ---------------------------------------------------------------- the recorded history

def test_demo_is_recorded_in_batches_at_fixed_moments(demo):
    db, _ = demo
    log = records(db)
    moments = [r["recorded_at"] for r in log]
    assert moments == sorted(moments)                        # recorded_at never goes back
    # 10 letter batches + 15 RRA batches, from the letter's closing to the consents
    assert len(set(moments)) == 25
    assert moments[0] == "2002-02-05T15:00:00.000000Z"
    assert moments[-1] == "2005-11-03T16:00:00.000000Z"
    # no wall clock: every moment is one the demo chose, years before it runs
    assert all(m < "2006" for m in moments)


def test_demo_records_the_stop_order_late_and_backdated(demo):
    db, _ = demo
    [unusable] = records(db, "--type", "ShelfUnusable")
    assert unusable["date"] == "2005-06-01"
    assert unusable["recorded_at"] == "2005-07-08T11:00:00.000000Z"


def test_demo_retracts_and_corrects_a_payment(demo):
    db, _ = demo
    paid = [r for r in records(db, "--type", "AdditionalInterestPaid")
            if r["data"]["holder"] == "Illustrative Fund A"]
    [retraction] = records(db, "--type", "EventRetracted")
    wrong, right = paid
    assert wrong["data"]["amount"] == "2777.78" and right["data"]["amount"] == "2700.00"
    assert retraction["data"]["event_id"] == wrong["id"]
    # the retraction and the replacement are one batch, as `deal-ledger correct` makes
    assert retraction["recorded_at"] == right["recorded_at"] == "2005-02-03T10:00:00.000000Z"
    assert retraction["seq"] + 1 == right["seq"]


def test_demo_known_at_shows_what_the_ledger_knew_then(demo):
    db, out = demo
    def accrued(*known_at: str) -> str:
        r = json.loads(ok(run("report", RRA, "--json", "--db", db, "--as-of", "2005-06-30",
                              *known_at)))
        return r["additional_interest"]["accrued_to_as_of"]
    # 2005-01-15: Lehman 42,000,000 and Fund A 20,000,000 (Fund B's Questionnaire was
    # late: nothing owed); (i) 4 days + (ii) 16 days at 0.25%, 30/360:
    #   Lehman 42,000,000 x 0.0025 x 20/360 = 5,833.33; Fund A 20,000,000 x ... = 2,777.78
    #   = 8,611.11
    # (iv)(A) 2005-04-15 to 04-20, 5 days, before Fund C's 2005-05-02 purchase under the
    # shelf; paid to the record holders of 2005-07-01: Fund A 20,000,000 x 0.0025 x 5/360
    # = 694.444; Fund C 5,000,000 x 0.0025 x 5/360 = 173.611; Lehman 37,000,000 x 0.0025
    # x 5/360 = 1,284.722
    # (iii) 2005-06-09 to 06-15, 6 days (Fund C's Notes were sold under the shelf: none):
    #   Fund A 20,000,000 x 0.0025 x 6/360 = 833.333; Lehman 37,000,000 x ... = 1,541.667
    # each Holder's amount rounded once: Fund A 694.444 + 833.333 = 1,527.78, Fund C
    # 173.61, Lehman 1,284.722 + 1,541.667 = 2,826.39; 4,527.78 in all
    assert accrued() == "13138.89"                     # 8,611.11 + 4,527.78
    # as known at 2005-07-01, before the stop order was recorded on 2005-07-08: no (iii);
    # Fund A 694.44 + Fund C 173.61 + Lehman 1,284.72 = 2,152.77
    assert accrued("--known-at", "2005-07-01T00:00:00Z") == "10763.88"  # 8,611.11 + 2,152.77
    flat = " ".join(out.split())
    assert ("Additional Interest accrued as of 2005-06-30: 13,138.89 with everything "
            "recorded, 10,763.88 as known at 2005-07-01T00:00:00Z") in flat


def test_demo_known_at_shows_the_payment_as_first_recorded(demo):
    db, _ = demo
    def fund_a(*known_at: str) -> str:
        r = json.loads(ok(run("report", RRA, "--json", "--db", db, "--as-of", "2005-06-30",
                              *known_at)))
        [p] = [p for p in r["additional_interest"]["payments"]
               if p["payment_date"] == "2005-01-15"]
        return p["paid"]["Illustrative Fund A"]
    assert fund_a("--known-at", "2005-01-20") == "2777.78"   # as first recorded
    assert fund_a() == "2700.00"                                # as corrected on 2005-02-03


def test_demo_history_lists_the_late_stop_order(demo):
    db, _ = demo
    changes = json.loads(ok(run("history", RRA, "--db", db, "--as-of", "2005-06-30",
                                "--figure", "additional_interest.accrued_to_as_of",
                                "--json")))
    text = json.dumps(changes)
    assert "2005-07-08T11:00:00" in text and "10763.88" in text and "13138.89" in text


def test_the_commands_it_suggests_work_as_printed(tmp_path):
    # issue 31, item 16: after the README's set-up (`.venv/bin/deal-ledger demo`, the
    # virtual environment not on PATH) the "Try:" lines began `deal-ledger ...`: command
    # not found. The real console script, PATH without it; each line run as printed.
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).with_name("deal-ledger")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DEAL_LEDGER_CACHE": "off",
           "COLUMNS": "100", "TMPDIR": str(tmp_path)}
    (tmp_path / "bin").mkdir()
    os.symlink(script, tmp_path / "bin" / "deal-ledger")   # as `.venv/bin/deal-ledger`
    done = subprocess.run(["bin/deal-ledger", "demo"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    tried = [t for t in done.stdout[done.stdout.index("Try"):].splitlines()
             if t.startswith("  ")]
    assert len(tried) == 3 and all(t.startswith("  bin/deal-ledger ") for t in tried), tried
    assert "temporary file: `bin/deal-ledger demo --db demo.db`" in " ".join(
        done.stdout.split())
    for line in tried:
        ran = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=300)
        assert ran.returncode == 0 and ran.stdout, (line, ran.stderr)
