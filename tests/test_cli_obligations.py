"""``deal-ledger obligations DEAL``: the report's ``obligations`` as a table, ``--json``
and ``--csv``, without piping the report through a script (the README did)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from cli.main import cli
from publishing.demo import LETTER, RRA, build_demo
from tests.cli_support import ok, refused, run
from tests.support import first_ids


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("obligations") / "demo.db")
    build_demo(db)
    return db


def test_json_is_the_reports_obligations(demo):
    listed = json.loads(ok(run("obligations", RRA, "--db", demo, "--as-of", "2005-03-01",
                               "--json")))
    report = json.loads(ok(run("report", RRA, "--db", demo, "--as-of", "2005-03-01", "--json")))
    assert listed == report["obligations"]
    by_key = {o["key"]: o for o in listed}
    # default (ii) date 2004-10-28 (Thu) + 2 Business Days (Fri 10-29, Mon 11-01) =
    # 2004-11-01 (RRA §3(b)); the Trustee was never notified: violated from 2004-11-02
    trustee = by_key[f"notify-trustee/(ii)/{first_ids(demo)[(RRA, 'DealOpened')]}"]
    assert (trustee["due"], trustee["state"], trustee["since"]) == (
        "2004-11-01", "violated", "2004-11-02")


def test_the_table_at_80_columns_and_the_csv(demo):
    res = CliRunner().invoke(cli, ["obligations", RRA, "--db", demo, "--as-of", "2005-03-01"],
                             env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert any(line.startswith("│ 2004-11-01 │ violated  │ 2004-11-02 │") for line in lines)
    rows = list(csv.DictReader(io.StringIO(ok(run("obligations", LETTER, "--db", demo,
                                                 "--as-of", "2007-12-31", "--csv")))))
    # the letter: three exercises and conversions before 2004-02-01 earned true-ups
    first = first_ids(demo)
    assert {r["key"] for r in rows} == {f"true-up/{w}/{first[(LETTER, w)]}"
                                        for w in ("W-PRICE", "P-SV", "W-SCO")}
    assert all(r["clause"] == "Letter ¶3" and r["events"] for r in rows)


def test_a_mistyped_deal_is_one_line(demo):
    err = refused(run("obligations", "infocrossing-rra-2040", "--db", demo), 2)
    assert "no deal 'infocrossing-rra-2040'" in err


def test_deadlines_and_obligations_tell_the_same_story_of_the_effectiveness_period(demo):
    # QA: `deadlines` said keep-effective was "missed", `obligations` "discharged", and
    # neither said why. RRA §2(a)(iii): keep the shelf *continuously* effective for the
    # Effectiveness Period, which ends (x) on the second anniversary of effectiveness:
    # 2004-11-15 + 2 years = 2006-11-15. The demo broke continuity three times, each cured:
    #   (iv)(A) suspension 2005-03-01, still on past its 45th day, ended 2005-04-20;
    #   (iii) stop order 2005-06-01 not cured in 5 Business Days, usable again 2005-06-15;
    #   (iv)(B) suspension 2005-08-01 to 2005-09-20 takes the 360-day total past 90.
    # So both are right in their own words ("missed": not kept continuously; "discharged":
    # the duty ended with the period, after cured violations); both now say how, with the
    # accrual of each default (from the day after its default date, to its cure, exclusive):
    #   (iv)(A): 45th day 2005-03-01 + 44 = 2005-04-14, accrues 2005-04-15 to 2005-04-20;
    #   (iii): 5 Business Days after Wed 2005-06-01 = Wed 06-08, accrues 06-09 to 06-15;
    #   (iv)(B): 50 days + 40 from 2005-08-01: 90th day 08-01 + 39 = 09-09, accrues 09-10
    #   to 09-20.
    story = ("Registration Default (iv)(A) (RRA §3(a)(iv)(A)): Additional Interest from "
             "2005-04-15 to 2005-04-20; Registration Default (iii) (RRA §3(a)(iii)): "
             "Additional Interest from 2005-06-09 to 2005-06-15; Registration Default (iv)(B) "
             "(RRA §3(a)(iv)(B)): Additional Interest from 2005-09-10 to 2005-09-20")

    def cells(*args: str) -> list[list[str]]:   # one line per row at 1000 columns
        res = CliRunner().invoke(cli, [*args, "--db", demo], env={"COLUMNS": "1000"})
        return [[c.strip() for c in line.split("│")[1:-1]]
                for line in ok(res).splitlines() if line.startswith("│")]

    [keep] = [r for r in cells("deadlines", RRA, "--as-of", "2007-12-31") if "keep" in r[2]]
    assert keep == ["2006-11-15", "missed", "keep the Shelf Registration Statement effective "
                    f"to the end of the Effectiveness Period; interrupted by {story}",
                    "RRA §2(a)(iii)(x)", "—"]
    [keep] = [r for r in cells("obligations", RRA, "--as-of", "2007-12-31") if "keep" in r[3]]
    assert keep[:3] == ["2006-11-15", "discharged", "2006-11-15"]
    assert keep[5] == ("the end of the Effectiveness Period (2004-11-15 + 2 years = "
                       f"2006-11-15); {story}")
    # before the period ends: no "period ended"; the JSON is the report's, unchanged
    [keep] = [r for r in cells("deadlines", RRA, "--as-of", "2006-01-01") if "keep" in r[2]]
    assert keep[1] == "open" and keep[2].endswith(f"; interrupted by {story}")
    report = json.loads(ok(run("report", RRA, "--db", demo, "--as-of", "2007-12-31", "--json")))
    [keep] = [o for o in report["deadlines"] if o["clause"].startswith("RRA §2(a)(iii)")]
    assert keep["status"] == "missed" and "interrupted" not in keep["obligation"]
