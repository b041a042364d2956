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
    trustee = by_key["notify-trustee/(ii)/1"]
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
    assert {r["key"] for r in rows} == {"true-up/W-PRICE/1", "true-up/P-SV/1",
                                        "true-up/W-SCO/1"}
    assert all(r["clause"] == "Letter ¶3" and r["events"] for r in rows)


def test_a_mistyped_deal_is_one_line(demo):
    err = refused(run("obligations", "infocrossing-rra-2040", "--db", demo), 2)
    assert "no deal 'infocrossing-rra-2040'" in err
