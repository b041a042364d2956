"""Issue 15 item 2: at 80 columns (and 60) no money amount, date or id of the demo is cut
off. ``deal-ledger demo`` is run in a narrow console; its whole output must hold no ``…``
next to a digit, no line wider than the console, and every figure of both reports that
its tables show, whole (the figures are formatted as the views format them)."""

from __future__ import annotations

import json
import os
import re

import pytest
from click.testing import CliRunner

from cli.main import cli
from cli.views import money, percent, shares
from tests.cli_support import ok, run

RRA = "infocrossing-rra-2004"
LETTER = "infocrossing-letter-2002"
AS_OF = "2007-12-31"


def narrow(columns: int, *args: str) -> str:
    result = CliRunner().invoke(cli, list(args), env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


@pytest.fixture(scope="module")
def ledger(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("narrow") / "demo.db")
    ok(run("demo", "--db", db))
    reports = {deal: json.loads(ok(run("report", deal, "--json", "--db", db, "--as-of", AS_OF)))
               for deal in (RRA, LETTER)}
    return db, reports


def figures_always_shown(rra: dict, letter: dict) -> set[str]:
    """Figures in the columns no width leaves out: the Registration Defaults' dates, each
    payment's total and each Holder's amount, the accrued totals, the consenting amount
    and share, the suspension periods' dates and days, the true-up counts, each
    instrument's price and shares, the Camden Warrants' counts."""
    out: set[str] = set()
    reg = rra["registration"]
    for d in reg["defaults"]:
        out |= {d["default_date"], d["accrual_from"], d["cured_on"]}
    ai = rra["additional_interest"]
    for p in ai["payments"]:
        out |= {p["payment_date"], money(p["total"])}
        out |= {money(a) for a in p["amounts"].values()}
    out |= {money(a) for a in ai["by_holder"].values()} | {money(ai["accrued_to_as_of"])}
    for p in rra["suspensions"]["periods"]:
        out |= {p["start"], p["end"], p["last_permitted_day"]}
    for m in rra["majority"].values():
        out |= {money(m["consenting"]), percent(m["share"])}
    for o in rra["deadlines"]:
        out.add(o["due"])
    t = letter["true_up"]
    for h in t["holders"].values():
        out |= {shares(h["owed"]), shares(h["issued"]), shares(h["outstanding"])}
    for i in t["instruments"]:
        out |= {i["price"], shares(i["shares"])}
    for c in t["camden"].values():
        out |= {shares(c[k]) for k in ("issued", "vested", "cancelled", "unvested")}
    return out


@pytest.mark.parametrize("columns", [80, 60])
def test_the_demo_cuts_no_figure(ledger, columns):
    db, reports = ledger
    out = narrow(columns, "demo", "--db", db + f".{columns}")
    # nothing cut with an ellipsis next to a digit (before the fix: `8,…`, `2005-0…`)
    assert not re.search(r"\d…|…\d", out)
    # no line wider than the console (the one-line commands and the head hash excepted:
    # they are printed whole on purpose, to be copied)
    wide = [ln for ln in out.splitlines() if len(ln) > columns
            and not ln.startswith(("  deal-ledger ", "chain: ", "head "))]
    assert not wide
    # no date split across lines inside a cell (`2005-0` then `1-15`)
    assert not re.search(r"\d{4}-\d{0,2}\s*│", out)
    # every figure of the reports that every width shows is there, whole
    cells = set(re.findall(r"[\d,.\-%]+", out))
    missing = figures_always_shown(reports[RRA], reports[LETTER]) - cells
    assert not missing


def test_the_head_hash_is_printed_whole_at_60_columns(ledger):
    db, _ = ledger
    out = narrow(60, "demo", "--db", db + ".hash")
    log = [json.loads(x) for x in ok(run("log", "--json", "--db", db + ".hash")).splitlines()]
    assert f"chain: ok: 58 events\nhead {log[-1]['hash']}\n" in out


def test_narrow_tables_leave_out_the_optional_columns_first(ledger):
    db, _ = ledger
    wide = narrow(200, "status", RRA, "--db", db, "--as-of", AS_OF)
    at_80 = narrow(80, "status", RRA, "--db", db, "--as-of", AS_OF)
    at_60 = narrow(60, "status", RRA, "--db", db, "--as-of", AS_OF)
    assert "episode" in wide and "accrues to (excl.)" in wide
    # clause 16 + four dates 4 x 10 + episode 7 = 63, + 6 columns x 3 + 1 = 82 > 80
    assert "episode" not in at_80 and "(excl.)" in at_80
    # without episode: 56 + 16 = 72 > 60; without "accrues to" too: 46 + 13 = 59
    assert "(excl.)" not in at_60 and "cured on" in at_60


def test_the_console_is_as_wide_as_columns_says_else_the_terminal_else_120(monkeypatch):
    from cli import common

    monkeypatch.setenv("COLUMNS", "80")
    assert common.console().width == 80
    monkeypatch.delenv("COLUMNS")
    monkeypatch.setattr(common, "_stdout_is_terminal", lambda: False)
    assert common.console().width == 120                     # a pipe or a file
    monkeypatch.setattr(common, "_stdout_is_terminal", lambda: True)
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback: os.terminal_size((93, 40)))
    assert common.console().width == 93                      # the terminal's own width


@pytest.mark.parametrize("columns", [80, 60])
def test_interpretations_never_fold_a_name_or_value_a_user_types(columns):
    # the 5-column table folded `last_complian|t_day` and `§3(a)(i)-(iv|)` at 80 columns;
    # narrow consoles get one block per interpretation, each reading as NAME=VALUE,
    # ready for --interpret, with what it means
    from projections.interpretations import REGISTRY

    out = narrow(columns, "interpretations")
    lines = out.splitlines()
    # a line is wider than the console only when it is one word that must stay whole
    # (rate_after_second_anniversary=first_90_days_always_quarter_point: is 66 characters)
    assert all(len(line) <= columns or " " not in line.strip() for line in lines), lines
    for i in REGISTRY.values():
        assert re.search(rf"^{re.escape(i.name)} \(", out, re.M)
        assert f" {i.name}={i.default} (the default)" in " ".join(out.split())
        for value in i.alternatives:
            assert re.search(rf"^  {re.escape(i.name)}={re.escape(value)}(:|$)", out, re.M)


def test_explain_and_whatif_shorten_between_words_never_inside_a_figure(ledger):
    # explain's event lines cut the deal's name to "Notes due 20..." and whatif's added or
    # removed obligations to "...Shelf Registrati..."; a cut now falls between words.
    # (The arithmetic's "5833.333333…" is a repeating decimal, not a cut, and stays.)
    from cli.analysts import shorten

    db, _ = ledger
    out = narrow(80, "explain", RRA, "--db", db, "--as-of", AS_OF,
                 f"additional_interest.payments[payment_date=2005-01-15].amounts.Lehman Brothers Inc.")
    assert "Notes due 20..." not in out and "Notes due ...;" in out
    assert not re.search(r"\w\.\.\.", out), re.findall(r".{20}\w\.\.\.", out)
    assert shorten("principal=20000000, under_shelf=false", 30) == "principal=20000000 ..."
    assert shorten("a" * 50, 20) == "a" * 50    # one word: kept whole


def test_whatif_at_80_columns_keeps_every_date_whole(ledger, tmp_path):
    # the three-column what-if table folded its values inside dates at 80 columns
    # ("cured_on=2005" / "-04-20"); rows are blocks there now: the figure's path on a line
    # of its own (whole, as explain --list prints it), its two sides wrapped between words
    db, _ = ledger
    later = tmp_path / "suspend.jsonl"
    later.write_text(json.dumps({"type": "SuspensionStarted", "deal": RRA, "date": "2006-03-01",
                                 "data": {"material_transaction": False}}) + "\n")
    out = narrow(80, "whatif", RRA, "--db", db, "--as-of", "2006-02-01", "--add", str(later),
                 "--through", "2006-05-01", "--verbose")
    lines = out.splitlines()
    assert "registration.defaults[kind=(iv)(A)][1]" in lines
    assert "    scenario: upcoming, due 2006-07-17, 15673.61" in lines
    for line in lines:
        # wider than 80 only as a figure's whole path (no indent, copied into explain)
        assert len(line) <= 80 or not line.startswith(" "), line
        assert not re.search(r"(^|[^\d])\d{4}-\d{0,2}$|^\s*-?\d{2}(-\d{2})?[,)]", line), line


def test_an_event_without_data_leaves_no_stray_space_in_explain(ledger):
    # "ShelfEffective 2004-11-15 seq 40 c21f3ba0 ; source: ..." had a space before ";"
    db, _ = ledger
    out = narrow(80, "explain", RRA, "--db", db, "--as-of", AS_OF, "registration.effective_on")
    assert re.search(r"ShelfEffective 2004-11-15 seq \d+ [0-9a-f]{8}; source:", out), out


@pytest.mark.parametrize("columns", [80, 60])
def test_interest_periods_read_on_two_lines_at_most_never_cutting_a_date(ledger, columns):
    # QA: at 80 columns the "period" cell stacked into three lines per row, "2004-06-30" /
    # "to" / "2005-01-15". It reads "start → end" now: one line when there is room, else
    # "start →" over "end", each date whole. The demo's three Interest Payment Dates
    # (RRA §3(b): January 15 and July 15): the first period runs from Closing, 2004-06-30,
    # each later one from the previous payment date, to the payment date (exclusive).
    db, _ = ledger
    out = narrow(columns, "interest", RRA, "--db", db, "--as-of", AS_OF)
    lines = out.splitlines()
    assert all(len(line) <= columns for line in lines)
    assert not re.search(r"\d…|…\d", out)
    for start, end in [("2004-06-30", "2005-01-15"), ("2005-01-15", "2005-07-15"),
                       ("2005-07-15", "2006-01-15")]:
        [i] = [i for i, line in enumerate(lines) if f"{start} →" in line]
        col = lines[i].index(f"{start} →")
        whole = f"{start} → {end}" in lines[i]
        below = lines[i + 1][col:col + 10] == end
        assert whole or below, lines[i:i + 3]
    # no row's period spreads over a third line: no cell holding only "to" or "→"
    assert not re.search(r"│\s+(to|→)\s+│", out)
    wide = narrow(200, "interest", RRA, "--db", db, "--as-of", AS_OF)
    assert "2004-06-30 → 2005-01-15" in wide
