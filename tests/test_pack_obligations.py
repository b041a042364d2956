"""Issue 16: the auditor pack's obligations.csv and its HTML section."""

from __future__ import annotations

import csv
import io

from publishing.pack_obligations import obligation_rows
from projections.report import report
from tests.cli_support import ok, run
from tests.support import build, d
from tests.test_agenda import _ledger, deal_b


def test_obligations_csv_and_section(tmp_path):
    db = _ledger(tmp_path)
    out = tmp_path / "pack"
    ok(run("export", "b", "--db", db, "--as-of", "2004-10-20", "--out", str(out)))
    rows = list(csv.DictReader(io.StringIO((out / "obligations.csv").read_text(encoding="utf-8-sig"))))
    by_key = {r["key"]: r for r in rows}
    # filed 2004-07-20, after the deadline 2004-07-15: violated from 07-16, cured 07-20
    filing = by_key["file-shelf"]
    assert (filing["state"], filing["violated_since"], filing["cured_on"]) == (
        "cured", "2004-07-16", "2004-07-20")
    assert filing["clause"] == "RRA §2(a)(i)" and "default_date" not in filing["interpretations"]
    html = (out / "index.html").read_text()
    assert "Obligations and their states" in html and "RRA §2(a)(i)" in html
    ok(run("verify", "--pack", str(out)))


def test_rows_flatten_lists():
    rep = report(build(deal_b()), as_of=d("2004-10-20"))
    rows = {r["key"]: r for r in obligation_rows(rep)}
    assert rows["file-shelf"]["triggered"].startswith("Registration Default (i)")
    assert isinstance(rows["file-shelf"]["events"], list)


def test_timeline_lane_marks_each_state():
    from publishing.pack_timeline import Lane
    from publishing.pack_obligations import STATE_COLOURS, obligations_lane

    rep = report(build(deal_b()), as_of=d("2004-10-20"))
    lane = obligations_lane(rep, Lane)
    marks = {(day.isoformat(), colour) for day, colour, _shape, _tip, _text in lane.marks}
    # filing due 2004-07-15, cured (filed 07-20); advice after effectiveness due 10-08
    assert ("2004-07-15", STATE_COLOURS["cured"]) in marks
    assert ("2004-10-08", STATE_COLOURS["violated"]) in marks


def test_the_legend_names_the_colour_of_each_state_on_the_lane():
    # the Obligations lane colours its marks by state, and the legend named none of them
    from publishing.pack_obligations import STATE_COLOURS, obligations_legend

    rep = report(build(deal_b()), as_of=d("2004-10-20"))
    states = {o["state"] for o in rep["obligations"] if o.get("due")}
    html = obligations_legend(rep)
    assert html.startswith('<p class="legend"><span>Obligations:</span>')
    for state in STATE_COLOURS:
        assert (f"background:{STATE_COLOURS[state]};" in html and f"</i>{state}</span>"
                in html) == (state in states), state
    assert "cured" in states and obligations_legend({"obligations": []}) == ""


def _page_text(path) -> str:
    import html
    import re

    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text()))


def test_the_deadlines_and_obligations_tables_say_why_their_words_differ(tmp_path):
    # issue 31, item 8: "keep the Shelf Registration Statement effective" was `missed` in
    # the Deadlines table and `discharged` in the Obligations table, with no word why.
    # Effective 2004-11-15; a Suspension Period 2005-03-01 to 2005-04-20 (no material
    # transaction) passes its 45th day, 2005-03-01 + 44 = 2005-04-14: default (iv)(A)
    # accrues from 2005-04-15 (RRA §3(a)(iv)(A)), inside the Effectiveness Period, which
    # ends on its 2nd anniversary, 2004-11-15 + 2 years = 2006-11-15 (RRA §2(a)(iii)(x))
    import json

    db = str(tmp_path / "ledger.db")
    rra = "infocrossing-rra-2004"
    ok(run("init", rra, "--template", rra, "--db", db))
    lines = [("NotesIssued", "2004-06-30", {"holder": "Lehman Brothers Inc.",
                                            "principal": "60000000"}),
             ("ShelfFiled", "2004-07-13", {}), ("ShelfEffective", "2004-11-15", {}),
             ("SuspensionStarted", "2005-03-01", {"material_transaction": False}),
             ("SuspensionEnded", "2005-04-20", {})]
    ok(run("append", "--db", db, input="".join(json.dumps(
        {"type": t, "deal": rra, "date": day, "data": data}) + "\n" for t, day, data in lines)))
    out = tmp_path / "pack"
    ok(run("export", rra, "--db", db, "--as-of", "2007-12-31", "--out", str(out)))
    text = _page_text(out / "index.html")
    assert ("keep the Shelf Registration Statement effective to the end of the "
            "Effectiveness PeriodRRA §2(a)(iii)(x)2006-11-15missed") in text
    assert ("Obligations: discharged on 2006-11-15 (the end of the Effectiveness Period "
            "(2004-11-15 + 2 years = 2006-11-15)), after a violation from 2005-04-15") in text
    assert ("the end of the Effectiveness Period (2004-11-15 + 2 years = 2006-11-15); "
            "Deadlines: missed (violated from 2005-04-15)") in text
