"""``deal-ledger clause REF``: the contract's words (checked against the contract file read
here, independently), our plain statement, the rules and interpretations citing it, and
the figures of a deal relying on it; ``--list``; an unknown REF refused with suggestions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ledger.events import parse_event
from ledger.store import Ledger
from projections.clauses import CLAUSES
from publishing.clauses import normalize
from tests.cli_support import ok, refused, run
from tests.support import ev, opened

CONTRACTS = Path(__file__).resolve().parent.parent / "ledger" / "contracts"
LEHMAN = "Lehman Brothers Inc."


def words(text: str) -> str:
    return " ".join(text.split())


def test_rra_2b_prints_the_contracts_words_and_ours():
    out = ok(run("clause", "RRA §2(b)"))
    rra = words((CONTRACTS / "registration-rights-agreement-2004-06-30.txt").read_text())
    # the paragraph as the contract has it, from "(b) To have" to the $1 million proviso
    start = rra.index("(b) To have its Transfer Restricted Securities included")
    end = rra.index("is more than $1 million.", start) + len("is more than $1 million.")
    assert rra[start:end] in words(out)
    assert "3. Additional Interest" not in out and "(c) " not in out   # nothing after (b)
    assert CLAUSES["RRA §2(b)"] in words(out)
    # each rule in words (issue 31, item 14: a lawyer was shown Python names and RST
    # ``markup``), its wrapped lines indented under it; the names are in --json
    from click.testing import CliRunner

    from cli.main import cli

    at_80 = CliRunner().invoke(cli, ["clause", "RRA §2(b)"], env={"COLUMNS": "80"}).output
    rules = at_80[at_80.index("Rules that implement it"):at_80.index("Interpretations")]
    assert "projections." not in rules and "``" not in rules
    assert ('  - RRA §2(b), §4(d): each Holder asked delivers "prior to or on the 20th\n'
            '      Business Day after the date of a written request"') in rules
    assert "  - questionnaire_deadline (RRA §3(a), §2(b), Exhibit A):" in at_80
    assert "        section_2b_business_days: the Questionnaire Deadline of RRA §2(b):" in at_80
    lines = at_80[at_80.index("Rules that implement it"):].splitlines()
    for line in lines:   # a wrapped line never starts at the margin: only the headings
        assert not line or line.startswith("  ") or line.startswith(
            ("Rules that implement", "Interpretations that touch")), line
    page = json.loads(ok(run("clause", "RRA §2(b)", "--json")))
    assert "projections.registration.deadlines.questionnaire_deadlines" in [
        r["rule"] for r in page["rules"]]


def test_letter_2_is_the_second_body_paragraph():
    out = ok(run("clause", "Letter ¶2"))
    letter = words((CONTRACTS / "letter-agreement-2002-02-01.txt").read_text())
    start = letter.index("Notwithstanding any contrary provision contained in the Transaction")
    end = letter.index("in accordance with the terms of the Transaction Documents.", start)
    assert letter[start:end] in words(out)
    assert "prior to February 1, 2004" not in out      # that is ¶3
    assert "projections.trueup.adjustments.weighted_average" in [
        r["rule"] for r in json.loads(ok(run("clause", "Letter ¶2", "--json")))["rules"]]
    assert "camden_tranche_order" in out


def test_a_sub_clause_cut_out_of_its_section():
    out = words(ok(run("clause", "rra", "3(a)(ii)")))   # unquoted, in any case, read alike
    assert out.startswith("RRA §3(a)(ii)")
    assert ("(ii) the Shelf Registration Statement has not been declared effective by the "
            "Commission prior to or on the Effectiveness Target Date;") in out
    assert "(iii) except as provided" not in out
    inline = words(ok(run("clause", "RRA §3(a)(iv)(A)")))
    assert "(A) runs inside §3(a)(iv); its text is shown whole" in inline
    assert "such suspension has not been terminated or (B) Suspension Periods exceed" in inline
    term = words(ok(run("clause", "RRA §1 Business Day")))
    assert ("BUSINESS DAY: A day other than a Saturday or Sunday or any day on which banking "
            "institutions in New York City are authorized or obligated by law or executive "
            "order to close.") in term


def test_list_names_every_clause_we_cite():
    out = ok(run("clause", "--list"))
    assert out.count("\n") == len(CLAUSES)
    assert "RRA §2(b): " in out and "Letter ¶2: " in out
    rows = json.loads(ok(run("clause", "--list", "--json")))
    assert {r["clause"] for r in rows} == set(CLAUSES)


def test_an_unknown_clause_is_refused_with_the_closest():
    err = refused(run("clause", "RRA §2(c)"), 2)
    assert "no clause 'RRA §2(c)' is cited" in err and "RRA §2(b)" in err
    err = refused(run("clause"), 2)
    assert "give the clause REF" in err


def test_help_shows_an_example():
    out = ok(run("clause", "--help"))
    assert 'deal-ledger clause "RRA §2(b)"' in out


@pytest.mark.parametrize("text, ref", [
    ("rra 2b", "RRA §2(b)"), ("RRA §3(a)(iv)(A)", "RRA §3(a)(iv)(A)"),
    ("RRA 3(a)iv", "RRA §3(a)(iv)"), ("letter 3", "Letter ¶3"), ("Letter ¶2", "Letter ¶2"),
    ("rra 1 business day", "RRA §1 Business Day"), ("RRA §10(E)", "RRA §10(E)"),
])
def test_references_are_read_as_the_code_cites_them(text, ref):
    assert normalize(text) == ref


@pytest.fixture
def db(tmp_path):
    url = str(tmp_path / "l.db")
    with Ledger(url) as ledger:
        objs = [opened("rra"), ev("NotesIssued", "2004-06-30", holder=LEHMAN,
                                  principal="60000000"),
                ev("ShelfFiled", "2004-07-13"), ev("ShelfEffective", "2004-11-15")]
        ledger.append([parse_event(o, line=k) for k, o in enumerate(objs, 1)], user="tester")
    return url


def test_the_figures_of_a_deal_that_rely_on_a_clause(db):
    page = json.loads(ok(run("clause", "RRA §3(b)", "--deal", "rra", "--db", db,
                             "--as-of", "2005-02-01", "--json")))
    figures = {f["figure"]: f["value"] for f in page["figures"]}
    # 2004-10-28 (Effectiveness Target Date, a Thursday) + 2 Business Days = 2004-11-01
    notice = [v for f, v in figures.items()
              if re.match(r"deadlines\[obligation=notify the Trustee.*\]\.due$", f)]
    assert notice == ["2004-11-01"]
    # the Additional Interest paid on 2005-01-15: 60,000,000 × 0.25% × 16/360 = 6,666.67
    assert figures["additional_interest.payments[payment_date=2005-01-15].total"] == "6666.67"
    assert not any(f.startswith("registration.filing_deadline") for f in figures)   # §2(a)(i)
    text = ok(run("clause", "RRA §3(b)", "--deal", "rra", "--db", db, "--as-of", "2005-02-01"))
    assert "Figures of rra as of 2005-02-01 that rely on it" in text


def test_a_figure_path_is_printed_whole_at_80_columns(tmp_path):
    # the demo's letter figures are paths such as
    # true_up.exercises[event=<36-character id>].vestings[event=<id>].price_inputs.B, 130
    # characters; an 80-column console folded them inside the second id, so the path could
    # no longer be copied into `explain`. Each is one line, as `explain --list` prints it.
    from click.testing import CliRunner

    from cli.main import cli
    from publishing.demo import build_demo

    demo = str(tmp_path / "demo.db")
    build_demo(demo)
    res = CliRunner().invoke(cli, ["clause", "Letter ¶3", "--deal", "infocrossing-letter-2002",
                                   "--as-of", "2007-12-31", "--db", demo],
                             env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    paths = [line.strip().split(" = ")[0] for line in res.stdout.splitlines()
             if line.startswith("  true_up.")]
    assert paths and any(len(p) > 80 for p in paths)
    listed = ok(run("explain", "infocrossing-letter-2002", "--list", "--as-of", "2007-12-31",
                    "--db", demo))
    known = {line.split(" = ")[0] for line in listed.splitlines()}
    assert set(paths) <= known
