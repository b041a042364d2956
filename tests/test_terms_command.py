"""``deal-ledger terms`` (issue 33): show, schema, check, new; and ``init --terms`` with the
files they make (a key the ledger does not read is refused, no longer dropped)."""

from __future__ import annotations

import json

from ledger.terms import TEMPLATES
from tests.cli_support import ok, run

DEB = "debentures-rra-2005"


def test_terms_show_states_each_rule_with_its_clause(tmp_path):
    """The issue's own example: "damages: 0.25% a year for the first 90 days of a
    default, then 0.50%; cap 0.50%"."""
    db = str(tmp_path / "l.db")
    ok(run("init", "deb", "--template", DEB, "--db", db))
    out = ok(run("terms", "show", "deb", "--as-of", "2007-01-01", "--db", db))
    assert ("Registration Defaults: damages: 0.25% a year for the first 90 days of a default, "
            "then 0.50%; cap 0.50%") in " ".join(out.split())
    assert "Registration Defaults (c): Registration Default (c): the shelf unusable" in out
    assert "no such duty (trustee notice)" in out and "no such duty (advise holders)" in out
    assert "readings the deal fixes: overlapping_defaults=episode" in out
    data = json.loads(ok(run("terms", "show", "deb", "--json", "--as-of", "2007-01-01",
                             "--db", db)))
    filing = next(r for r in data["rules"] if r["path"] == "filing")
    assert filing == {"path": "filing", "section": "Registration Defaults (a)",
                      "words": "the shelf is filed not later than 270 days after the Closing "
                               "Date", "quote": filing["quote"]}
    assert "the 270th day following the Closing Date" in filing["quote"]


def test_terms_show_of_the_infocrossing_template_cites_its_sections(tmp_path):
    db = str(tmp_path / "l.db")
    ok(run("init", "rra", "--template", "infocrossing-rra-2004", "--db", db))
    out = " ".join(ok(run("terms", "show", "rra", "--as-of", "2005-01-01", "--db", db)).split())
    assert "RRA §2(a)(i): the shelf is filed not later than 15 days after the date hereof" in out
    assert ("RRA §3(b): the Company notifies the Trustee within two Business Days after each "
            "default date") in out


def test_terms_schema_is_a_json_schema_that_describes_each_term():
    schema = json.loads(ok(run("terms", "schema")))
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert schema["additionalProperties"] is False          # unknown terms are refused
    deadline = schema["$defs"]["Deadline"]
    assert set(deadline["properties"]["anchor"]["enum"]) >= {"date_hereof", "issue_date",
                                                             "last_option_issue"}
    assert "the day it counts from" in deadline["properties"]["anchor"]["description"]
    assert "ladder" in schema["$defs"]["Damages"]["properties"]["steps"]["description"]


def test_terms_new_writes_a_commented_file_that_checks_and_opens_a_deal(tmp_path):
    path = tmp_path / "terms.json"
    out = ok(run("terms", "new", "--from", DEB, "--out", str(path)))
    assert "wrote" in out and path.exists()
    text = path.read_text()
    assert "// market practice, trustee_notice, advise_holders: the excerpt shows no" in text
    assert "    // Registration Default (c): the shelf unusable" not in text  # only top rules
    assert "    // damages: 0.25% a year for the first 90 days" in text
    checked = ok(run("terms", "check", str(path)))
    assert checked.startswith(f"{path}: valid registration_rights terms")
    db = str(tmp_path / "l.db")
    ok(run("init", "deb", "--terms", str(path), "--db", db))
    # writing over a file is refused
    again = run("terms", "new", "--from", DEB, "--out", str(path))
    assert again.exit_code == 2 and "exists" in again.stderr


def test_terms_check_lists_every_problem_with_its_path_and_rule(tmp_path):
    t = TEMPLATES[DEB]
    terms = json.loads(json.dumps(t["terms"]))
    terms["filing"]["count"] = "270"                  # a type
    terms["damages"]["cap"] = "x"                     # another
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"kind": t["kind"], "name": t["name"],
                                "date": "2006-03-01", "terms": terms}))
    result = run("terms", "check", str(path))
    assert result.exit_code == 3
    lines = result.stderr.strip().split("\n")
    assert lines == [
        f"error: {path}: field 'terms.filing.count': Input should be a valid integer "
        "[the terms schema (deal-ledger terms schema)]",
        f"error: {path}: field 'terms.damages.cap': Input should be a valid decimal "
        "[the terms schema (deal-ledger terms schema)]"]
    terms["filing"]["count"], terms["damages"]["cap"] = 270, "0.50"
    terms["damages"]["steps"][0]["after_days"] = 5    # a ladder that starts late
    path.write_text(json.dumps({"kind": t["kind"], "name": t["name"],
                                "date": "2006-03-01", "terms": terms}))
    result = run("terms", "check", str(path), "--json")
    assert result.exit_code == 3
    assert json.loads(result.stdout)["problems"] == [{
        "path": "terms.damages.steps.0", "problem": "the first step sets the rate from day 1 "
        "of a default (after_days 0, set)", "rule": "a check across terms "
                                                    "(ledger/terms_checks.py)"}]


def test_a_terms_file_with_a_key_the_ledger_does_not_read_is_refused(tmp_path):
    """Issue 33: a `clauses` key in an `init --terms` file was silently dropped."""
    t = TEMPLATES["infocrossing-rra-2004"]
    path = tmp_path / "terms.json"
    path.write_text(json.dumps({"kind": t["kind"], "name": t["name"], "date": "2004-06-30",
                                "terms": t["terms"], "clauses": {"filing": "RRA §2(a)(i)"}}))
    db = str(tmp_path / "l.db")
    result = run("init", "x", "--terms", str(path), "--db", db)
    assert result.exit_code == 3
    assert "has a key the ledger does not read: clauses" in result.stderr
    assert run("terms", "check", str(path)).exit_code == 3


def test_comments_in_a_terms_file_are_not_read_inside_strings(tmp_path):
    from ledger.termsfile import without_comments

    text = '{"name": "see http://example.com // here", // a comment\n "x": 1} // end'
    assert json.loads(without_comments(text)) == {"name": "see http://example.com // here",
                                                  "x": 1}


def test_terms_new_writes_a_private_new_file_and_never_through_a_link(tmp_path):
    # what a person fills in is kept private (0600, as every file deal-ledger writes) and
    # a link planted at --out is refused, its target untouched
    import os
    import stat

    path = tmp_path / "mine.terms.json"
    ok(run("terms", "new", "--from", DEB, "--out", str(path), "--db", str(tmp_path / "l.db")))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    victim = tmp_path / "victim"
    victim.write_text("keep")
    link = tmp_path / "link.json"
    link.symlink_to(victim)
    result = run("terms", "new", "--from", DEB, "--out", str(link))
    assert result.exit_code == 2 and "exists: give a new file" in result.stderr
    assert victim.read_text() == "keep"
