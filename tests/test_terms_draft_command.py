"""``deal-ledger terms draft AGREEMENT [--template NAME] [--out FILE] [--explain]`` (issue
35), through click's CliRunner: the written file (commented, private, never over a file or
the ledger), ``--explain`` term by term, ``terms check`` and ``init`` refusing a draft with
terms still missing, ``--template`` filling them and saying which; and a deal opened from a
draft keeping its citations: ``report``, ``explain``, ``clause`` and the pack quote the
agreement's own sentence."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from ledger.termsfile import without_comments
from tests.cli_support import ok, refused, run

DATA = Path(__file__).resolve().parent / "data" / "agreements"
DEBENTURES = str(DATA / "debentures-rra-registration-defaults-clause.txt")
RRA = str(Path(__file__).resolve().parent.parent / "ledger" / "contracts"
          / "registration-rights-agreement-2004-06-30.txt")


def test_explain_prints_each_term_with_its_section_quotation_and_value():
    out = ok(run("terms", "draft", DEBENTURES, "--explain"))
    lines = out.splitlines()
    assert lines[0].endswith("8 terms found, 16 missing, 2 sentences read two ways")
    at = lines.index('filing = {"anchor": "closing", "count": 270, "unit": "calendar", '
                     '"roll": "none", "section": "Registration Defaults (a)", "quote": "(a) '
                     'if the Shelf Registration Statement (which shall be, if the Company is '
                     'then a Well-Known Seasoned Issuer, an Automatic Shelf Registration '
                     'Statement) is not filed with the Commission on or prior to the 270th day '
                     'following the Closing Date"}')
    assert lines[at + 1].startswith('  Registration Defaults (a): "(a) if the Shelf '
                                    'Registration Statement')
    assert lines[at + 2] == "  read as: 'days' without more: calendar days"
    assert ("MISSING damages.cap: the ladder ends at 0.50% a year; the text states no maximum "
            "for Registration Defaults that overlap (write the cap, or null for none)") in lines
    assert any(x.startswith("TWO READINGS readings.overlapping_defaults (Registration "
                            "Defaults (a),(b))") and "episode (the ledger's default) | "
                            "additive | highest" in x for x in lines)


def test_the_written_draft_is_commented_private_and_fails_check_until_filled(tmp_path):
    path = tmp_path / "terms.json"
    out = ok(run("terms", "draft", DEBENTURES, "--out", str(path)))
    assert out.startswith(f"wrote {path}: ") and "16 missing" in out
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    text = path.read_text()
    # the quotation and section above each term found; why beside each term missing
    assert ('    // Registration Defaults (c): "(c) if the Shelf Registration Statement has '
            'been declared or\n') in text
    assert '    "terms.damages.cap",  // the ladder ends at 0.50% a year' in text
    spec = json.loads(without_comments(text))
    assert spec["missing"][:3] == ["terms.closing_date", "date", "terms.maturity"]
    assert spec["terms"]["damages"]["steps"][1]["set"] == "0.50"
    check = run("terms", "check", str(path))
    assert check.exit_code == 3
    problems = check.stderr.splitlines()
    assert problems[0] == (f"error: {path}: field 'terms.closing_date': not found in the "
                           "agreement's text: fill it in, then take it off \"missing\" "
                           "[terms draft]")
    assert len(problems) == 16          # each missing term once, nothing else
    db = str(tmp_path / "l.db")
    message = refused(run("init", "deb", "--terms", str(path), "--db", db), 3)
    assert "has terms not filled in yet: terms.closing_date, date, terms.maturity" in message
    assert not os.path.exists(db)


def test_a_terms_file_s_missing_list_must_name_terms(tmp_path):
    path = tmp_path / "terms.json"
    ok(run("terms", "new", "--from", "debentures-rra-2005", "--out", str(path)))
    spec = json.loads(without_comments(path.read_text()))
    path.write_text(json.dumps({**spec, "missing": "maturity"}))
    assert "missing: must be a list of the terms still to fill in" in refused(
        run("terms", "check", str(path)), 3)
    path.write_text(json.dumps({**spec, "missing": []}))   # all filled in: it opens
    ok(run("init", "deb", "--terms", str(path), "--db", str(tmp_path / "l.db")))


def test_a_template_fills_the_missing_terms_and_says_which(tmp_path):
    path = tmp_path / "terms.json"
    out = ok(run("terms", "draft", DEBENTURES, "--template", "debentures-rra-2005",
                 "--out", str(path)))
    assert "0 missing, 17 filled from the template debentures-rra-2005" in out
    text = path.read_text()
    assert ("// Filled from the template debentures-rra-2005: closing_date, maturity, "
            "conversion_price, effectiveness_period") in text
    assert "// filled from the template debentures-rra-2005 (the cap when (a)-(c) overlap" in text
    assert "valid registration_rights terms" in ok(run("terms", "check", str(path)))
    spec = json.loads(without_comments(text))
    assert "missing" not in spec
    # read from the text: 270 days; from the template (market practice): the 0.50 cap
    assert spec["terms"]["filing"]["count"] == 270
    assert spec["terms"]["damages"]["cap"] == "0.50"
    assert spec["terms"]["readings"] == {"overlapping_defaults": "episode",
                                         "window_breach": "usability_default"}


def test_without_out_the_file_is_printed_and_json_gives_the_draft_as_data():
    printed = ok(run("terms", "draft", DEBENTURES))
    assert printed.startswith("// Drafted by `deal-ledger terms draft` from "
                              "debentures-rra-registration-defaults-clause.txt")
    assert json.loads(without_comments(printed))["kind"] == "registration_rights"
    data = json.loads(ok(run("terms", "draft", DEBENTURES, "--json")))
    assert [m["path"] for m in data["missing"]][:2] == ["closing_date", "date"]
    assert {"path": "defaults.unusable", "section": "Registration Defaults (c)"}.items() <= \
        next(t for t in data["found"] if t["path"] == "defaults.unusable").items()


def test_refusals_write_nothing(tmp_path):
    existing = tmp_path / "terms.json"
    existing.write_text("mine")
    message = refused(run("terms", "draft", DEBENTURES, "--out", str(existing)), 2)
    assert "exists: give a new file" in message and existing.read_text() == "mine"
    db = tmp_path / "l.db"
    ok(run("init", "rra", "--template", "infocrossing-rra-2004", "--db", str(db)))
    before = db.read_bytes()
    message = refused(run("terms", "draft", DEBENTURES, "--out", str(tmp_path / "l.db-wal"),
                          "--db", str(db)), 2)
    assert "write-ahead log" in message and db.read_bytes() == before
    assert "unknown template 'nope'" in refused(
        run("terms", "draft", DEBENTURES, "--template", "nope"), 2)
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n")
    assert "is empty" in refused(run("terms", "draft", str(empty)), 3)
    prose = tmp_path / "prose.txt"
    prose.write_text("A letter about lunch on Tuesday.\n")
    assert "no term of a registration rights agreement found" in refused(
        run("terms", "draft", str(prose)), 2)
    assert "cannot read" in refused(run("terms", "draft", str(tmp_path / "none.txt")), 2)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("l.db")) == [
        "empty.txt", "prose.txt", "terms.json"]


def _drafted_deal(tmp_path):
    """A deal opened from the debentures excerpt's draft (missing terms from its template),
    its Debentures issued at the closing and never registered: in default from the 271st
    day (2006-03-01 + 270 days = 2006-11-26 the deadline, accrual from 2006-11-27)."""
    terms = tmp_path / "terms.json"
    ok(run("terms", "draft", DEBENTURES, "--template", "debentures-rra-2005", "--out",
           str(terms)))
    db = str(tmp_path / "l.db")
    ok(run("init", "deb", "--terms", str(terms), "--db", db))
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps({"type": "NotesIssued", "deal": "deb", "date": "2006-03-01",
                                 "data": {"holder": "Fund A", "principal": "10000000"},
                                 "source": "ILLUSTRATIVE"}) + "\n")
    ok(run("append", str(batch), "--db", db))
    return db


FILING_WORDS = ("is not filed with the Commission on or prior to the 270th day following "
                "the Closing Date")


def test_a_drafted_deal_quotes_the_agreement_in_report_explain_clause_and_pack(tmp_path):
    db = _drafted_deal(tmp_path)
    report = " ".join(ok(run("report", "deb", "--as-of", "2007-01-31", "--db", db)).split())
    assert "The agreement's words (each clause this report cites)" in report
    assert f"Registration Defaults (a): \"(a) if the Shelf Registration Statement" in report
    assert FILING_WORDS in report and '"0.50% per annum thereafter"' in report
    explained = " ".join(ok(run("explain", "deb", "registration.defaults[0]", "--as-of",
                                "2007-01-31", "--db", db)).replace("│", " ").split())
    assert "Registration Defaults (a): (a) if the Shelf Registration Statement" in explained
    assert FILING_WORDS in explained
    page = json.loads(ok(run("clause", "Registration Defaults (a)", "--deal", "deb",
                             "--as-of", "2007-01-31", "--json", "--db", db)))
    assert page["clause"] == "Registration Defaults (a)"
    assert FILING_WORDS in page["contract_text"]
    assert "registration.filing_deadline" in [f["figure"] for f in page["figures"]]
    # 10,000,000 x 0.25% x 64/360 (2006-11-27 to 2007-01-31 exclusive of the cure, 30/360:
    # 4 days of November + 30 of December + 30 of January = 64) = 4,444.44
    assert {"figure": "additional_interest.accrued_to_as_of", "value": "4444.44"} in \
        page["figures"]
    listed = ok(run("clause", "--list", "--deal", "deb", "--db", db))
    assert listed.startswith("Registration Defaults (a): the shelf is filed not later than "
                             "270 days after the Closing Date")
    assert "did you mean Registration Defaults (c)" in refused(
        run("clause", "Registration Defaults (x)", "--deal", "deb", "--db", db), 2)
    pack = tmp_path / "pack"
    ok(run("export", "deb", "--out", str(pack), "--as-of", "2007-01-31", "--db", db))
    html = (pack / "index.html").read_text()
    assert "<h2>The agreement's words</h2>" in html and FILING_WORDS in html
    assert ok(run("verify", "--pack", str(pack))).startswith("ok: pack of deb")


def test_explain_reads_the_figures_of_a_market_deal_s_suspension_windows(tmp_path):
    """``suspensions.windows[N]`` of a deal with its own windows failed explain (a
    KeyError on ``max_end``, issue 33's code): each is under its window's clause."""
    db = _drafted_deal(tmp_path)
    out = " ".join(ok(run("explain", "deb", "suspensions.windows[1].max_end", "--as-of",
                          "2007-01-31", "--db", db)).split())
    assert "suspensions, 12-month window, max end" in out
    assert "Deferral Period (market practice): the Company may suspend" in out


def test_the_infocrossing_draft_opens_a_deal_whose_clauses_are_the_shipped_text(tmp_path):
    path = tmp_path / "rra.json"
    ok(run("terms", "draft", RRA, "--template", "infocrossing-rra-2004", "--out", str(path)))
    assert json.loads(without_comments(path.read_text()))["terms"]["text"] == \
        "registration-rights-agreement-2004-06-30.txt"
    db = str(tmp_path / "l.db")
    ok(run("init", "rra", "--terms", str(path), "--db", db))
    page = json.loads(ok(run("clause", "RRA §2(a)(i)", "--deal", "rra", "--json",
                             "--as-of", "2004-12-31", "--db", db)))
    assert page["source"] == "ledger/contracts/registration-rights-agreement-2004-06-30.txt"
    assert "not later than 15 days after the date hereof" in " ".join(
        page["contract_text"].split())
