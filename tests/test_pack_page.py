"""Issue 31, item 11: the auditor pack's page. Amounts carry their currency and thousands
separators wherever they stand; the Obligations lane of the timeline clusters due days
too close to tell apart; an RRA pack lists the RRA's readings only (a Letter pack the
Letter's); the subtitle is in words; a pack made ``--known-at`` names the recorded events
its figures leave out.

The deal is SPEC §8 example 1 (Lehman Brothers Inc., $60,000,000; filed 2004-07-13,
effective 2004-11-15): 60,000,000 x 0.25% x 16/360 = 6,666.67 owed for 2005-01-15, paid on
2005-01-18, unpaid as of 2005-02-01.
"""

from __future__ import annotations

import html
import json
import re
from datetime import date, timedelta

from projections.interpretations import REGISTRY
from publishing.pack_obligations import STATE_COLOURS, obligations_lane
from publishing.pack_timeline import Lane
from tests.cli_support import ok, run

RRA, LETTER = "infocrossing-rra-2004", "infocrossing-letter-2002"
LEHMAN = "Lehman Brothers Inc."


def ledger(tmp_path) -> str:
    db = str(tmp_path / "ledger.db")
    ok(run("init", RRA, "--template", RRA, "--db", db))                       # seq 1
    lines = [("NotesIssued", "2004-06-30", {"holder": LEHMAN, "principal": "60000000"}),
             ("ShelfFiled", "2004-07-13", {}), ("ShelfEffective", "2004-11-15", {})]
    ok(run("append", "--db", db, input="".join(json.dumps(
        {"type": t, "deal": RRA, "date": day, "data": data}) + "\n"
        for t, day, data in lines)))                                         # seq 2..4
    return db


def page(tmp_path, db: str, deal: str = RRA, *extra: str) -> str:
    out = tmp_path / f"pack-{deal}-{len(list(tmp_path.iterdir()))}"
    ok(run("export", deal, "--db", db, "--out", str(out), *extra))
    ok(run("verify", "--pack", str(out)))
    return (out / "index.html").read_text(encoding="utf-8")


def visible(text: str) -> str:
    text = re.sub(r"<style>.*?</style>", " ", text, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def test_every_amount_carries_usd_and_thousands_separators(tmp_path):
    text = visible(page(tmp_path, ledger(tmp_path), RRA, "--as-of", "2005-02-01"))
    # the obligation to pay: its "triggered" cell read "6666.67 unpaid"
    assert "USD 6,666.67 unpaid" in text
    assert "Additional Interest accrued to the as-of date USD 6,666.67" in text
    assert "principal: USD 60,000,000.00" in text
    # no amount anywhere without its separators, and every amount with its currency
    assert not re.search(r"(?<![\d,.])\d{4,}\.\d{2}(?!\d)", text)
    for found in re.finditer(r"(?<![\d,.])\d{1,3}(,\d{3})*\.\d{2}(?![\d%])", text):
        assert text[:found.start()].endswith("USD "), text[found.start() - 40:found.end()]


def test_the_subtitle_is_in_words(tmp_path):
    db = ledger(tmp_path)
    first = page(tmp_path, db, RRA, "--as-of", "2005-02-01")
    sub = visible(re.search(r'<p class="sub">(.*?)</p>', first, re.S).group(1))
    assert "Registration Rights Agreement" in sub and "registration_rights" not in sub
    assert "everything recorded" in sub
    known = page(tmp_path, db, RRA, "--as-of", "2005-02-01", "--known-at", "2030-01-01")
    sub = visible(re.search(r'<p class="sub">(.*?)</p>', known, re.S).group(1))
    # a date means the end of that day (--known-at), shown in words, not ISO 8601 'T...Z'
    assert "as known at 2030-01-01 23:59:59.999999 UTC" in sub and "T23" not in sub


def test_a_pack_known_at_names_the_events_it_leaves_out(tmp_path):
    db = ledger(tmp_path)
    recorded = [json.loads(x) for x in ok(run("log", "--json", "--db", db)).splitlines()]
    ok(run("record", "TrusteeNotified", "--deal", RRA, "--date", "2004-11-01", "--db", db))
    late = json.loads(ok(run("log", "--json", "--db", db)).splitlines()[-1])   # seq 5
    text = visible(page(tmp_path, db, RRA, "--as-of", "2005-02-01", "--known-at",
                        recorded[-1]["recorded_at"]))
    assert "they leave out the 1 event(s) of the deal recorded later" in text
    assert (f"seq 5 TrusteeNotified of 2004-11-01 , recorded "     # (tags make spaces)
            f"{late['recorded_at'].replace('T', ' ').rstrip('Z')} UTC ( {late['id'][:8]} )"
            in text)


def test_a_pack_lists_its_own_agreements_readings(tmp_path):
    db = ledger(tmp_path)
    ok(run("init", LETTER, "--template", LETTER, "--db", db))
    for deal, mine, other in ((RRA, "default_date", "trueup_adjustments"),
                              (LETTER, "trueup_adjustments", "default_date")):
        text = page(tmp_path, db, deal, "--as-of", "2005-02-01")
        section = text[text.index("<h2>Interpretations in force</h2>"):]
        section = section[:section.index("</table>")]
        assert f"<td>{mine}</td>" in section and f"<td>{other}</td>" not in section, deal
        names = re.findall(r"<tr><td>(\w+)</td>", section)
        assert names and all(REGISTRY[n].clause.startswith("RRA") == (deal == RRA)
                             for n in names), (deal, names)


def test_obligations_due_close_together_are_one_mark():
    # the demo's first weeks: due 2004-07-15 (cured), 07-19 and 07-27 (fulfilled), then
    # 2004-09-30 (cured); 14 px of a 3.5-year axis over 906 px is int(14 x 1279 / 906)
    # = 19 days: the first three are one mark, coloured by its most pressing state
    report = {"obligations": [
        {"due": "2004-07-15", "state": "cured", "obligation": "file", "clause": "RRA §2(a)(i)"},
        {"due": "2004-07-19", "state": "fulfilled", "obligation": "advise", "clause": "x"},
        {"due": "2004-07-27", "state": "fulfilled", "obligation": "advise", "clause": "x"},
        {"due": "2004-09-30", "state": "cured", "obligation": "quest.", "clause": "y"}]}
    lane = obligations_lane(report, Lane, timedelta(days=int(14 * 1279 / 906)))
    assert [(d, colour, text) for d, colour, _shape, _tip, text in lane.marks] == [
        (date(2004, 7, 15), STATE_COLOURS["cured"], "2004-07-15 to 07-27: 1 cured, 2 fulfilled"),
        (date(2004, 9, 30), STATE_COLOURS["cured"], "2004-09-30 cured")]
    assert lane.marks[0][3].startswith("2004-07-15: file (RRA §2(a)(i)): cured; 2004-07-19")


def test_no_two_obligation_marks_of_the_demo_overlap(tmp_path):
    db = str(tmp_path / "demo.db")
    ok(run("demo", "--db", db))
    text = page(tmp_path, db, RRA, "--as-of", "2007-12-31")
    svg = text[text.index(">Obligations</text>"):text.index("</svg>")]
    xs = sorted(float(x) for x in re.findall(r'<circle cx="([\d.]+)"', svg))
    assert len(xs) >= 5
    # a dot is 10 px wide: at least 13 px apart, none drawn over another
    assert all(b - a >= 13 for a, b in zip(xs, xs[1:])), xs
