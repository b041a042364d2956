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
