"""``--csv`` on every tabular command (issue 15, item 9), and the auditor pack's CSV files
as a spreadsheet opens them (UTF-8 with a byte order mark).

The figures are SPEC §8 example 1, worked by hand: Lehman holds $60,000,000; the
Effectiveness Target Date is 2004-10-28 (closing 2004-06-30 + 120 days), the shelf is
effective on 2004-11-15, so Registration Default (ii) accrues from 2004-10-29 to
2004-11-15 (exclusive): 30/360 days = (11 - 10) x 30 + (15 - 29) = 16; at 0.25% a year
60,000,000 x 0.0025 x 16/360 = 6,666.67, payable on 2005-01-15."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.cli_support import ok, refused, run

RRA = "infocrossing-rra-2004"
LETTER = "infocrossing-letter-2002"
LEHMAN = "Lehman Brothers Inc."
AS_OF = ("--as-of", "2005-06-30")


def ev(type_: str, day: str, deal: str = RRA, **data) -> dict:
    return {"type": type_, "deal": deal, "date": day, "data": data}


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("csv") / "ledger.db")
    ok(run("init", RRA, "--template", RRA, "--db", path))
    ok(run("init", LETTER, "--template", LETTER, "--db", path))
    ok(run("append", "--db", path, input="".join(json.dumps(e) + "\n" for e in (
        ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
        ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15"),
        ev("ConsentGiven", "2004-12-01", holder=LEHMAN, matter="waiver of §4(b)(iii)"),
        ev("InstrumentRegistered", "2002-02-01", deal=LETTER, instrument="W-1",
           holder="=HYPERLINK(1)", kind="warrant", shares=1000, exercise_price="5.00")))))
    return path


def table(*args: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(ok(run(*args)))))


def test_interest_rows_are_exact(db):
    rows = table("interest", RRA, *AS_OF, "--csv", "--db", db)
    assert len(rows) == 1
    row = rows[0]
    assert (row["payment_date"], row["holder"], row["amount"], row["amount_cents"]) == \
        ("2005-01-15", LEHMAN, "6666.67", "666667")      # not "6,666.67"


def test_status_is_the_registration_defaults(db):
    rows = table("status", RRA, *AS_OF, "--csv", "--db", db)
    assert [(r["clause"], r["default_date"], r["accrual_from"], r["cured_on"]) for r in rows] \
        == [("RRA §3(a)(ii)", "2004-10-28", "2004-10-29", "2004-11-15")]


def test_consents_per_matter(db):
    rows = table("consents", RRA, *AS_OF, "--csv", "--db", db)
    # Lehman holds all 60,000,000 and consents: 60,000,000 / 60,000,000 = 1, a majority
    assert rows == [{"matter": "waiver of §4(b)(iii)", "consenting": "60000000.00",
                     "outstanding": "60000000.00", "share": "1.000000", "majority": "true",
                     "holders": LEHMAN}]


def test_every_view_and_table_has_a_header_and_rows(db):
    for args in (("deadlines", RRA), ("suspensions", RRA), ("trueup", LETTER),
                 ("instruments", LETTER)):
        out = ok(run(*args, *AS_OF, "--csv", "--db", db))
        header = out.splitlines()[0]
        assert "," in header and "│" not in out and "—" not in out
    assert table("interpretations", "--csv")[0].keys() >= {"name", "default", "clause"}
    assert table("types", "--csv")[0]["type"] == "DealOpened"
    assert [r["type"] for r in table("log", "--csv", "--db", db)][:2] == ["DealOpened"] * 2
    rows = table("history", RRA, "registration.in_default", *AS_OF, "--csv", "--db", db)
    assert rows[-1]["after"] == "false"
    rows = table("whatif", RRA, "--interpret", "rate_clock=once_per_deal", *AS_OF, "--csv",
                 "--db", db)
    assert rows == [] or set(rows[0]) == {"figure", "change", "baseline", "scenario"}
    assert ok(run("scenarios", "--csv", "--db", db)).splitlines()[0].startswith("name,deal")
    figures = {r["figure"]: r["value"] for r in table("explain", RRA, "--list", "--csv",
                                                        *AS_OF, "--db", db)}
    assert figures["additional_interest.accrued_to_as_of"] == "6666.67"
    refused(run("explain", RRA, "registration.in_default", "--csv", "--db", db), 2)


def test_a_formula_is_written_as_text(db):
    rows = table("instruments", LETTER, *AS_OF, "--csv", "--db", db)
    assert [r["holder"] for r in rows if r["instrument"] == "W-1"] == ["'=HYPERLINK(1)"]
    assert [r["price"] for r in rows if r["instrument"] == "W-1"] == ["5.00"]


def test_json_and_csv_together_are_refused(db):
    err = refused(run("interest", RRA, "--json", "--csv", "--db", db), 2)
    assert "--json or --csv" in err


def test_pack_csvs_open_in_a_spreadsheet_and_verify(db, tmp_path):
    from tests.test_pack import reseal

    pack = tmp_path / "pack"
    ok(run("export", RRA, "--out", str(pack), *AS_OF, "--db", db))
    for name in ("defaults.csv", "additional_interest.csv", "deadlines.csv",
                 "suspension_periods.csv"):
        data = (pack / name).read_bytes()
        assert data.startswith(b"\xef\xbb\xbf"), name
    rows = list(csv.DictReader(io.StringIO(
        (pack / "additional_interest.csv").read_text(encoding="utf-8-sig"))))
    assert rows[0]["amount"] == "6666.67"
    assert ok(run("verify", "--pack", str(pack))).startswith("ok")
    # a pack written before the byte order mark still verifies, once its manifest
    # lists the bytes it holds
    for name in ("defaults.csv", "additional_interest.csv"):
        path = pack / name
        path.write_bytes(path.read_bytes()[3:])
    reseal(pack)
    assert ok(run("verify", "--pack", str(pack))).startswith("ok")
