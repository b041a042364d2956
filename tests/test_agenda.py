"""Issue 16: the agenda across several deals, with a known answer worked out by hand;
its exit code; ``--known-at`` reproducing an agenda as it stood; the room to suspend near
each limit. Calendar facts: 2004-07-13 Tue, 2004-07-15 Thu, 2004-07-20 Tue,
2004-10-01 Fri, 2004-10-20 Wed, 2004-10-28 Thu; Columbus Day 2004-10-11."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta

from projections.obligations.outlook import outlook
from publishing.agenda import agenda_of
from tests import letter_support as L
from tests.cli_support import ok, run
from tests.support import T0, build, d, ev, first_ids, keyed, opened

LEHMAN = "Lehman Brothers Inc."


def deal_a():
    """Filed 2004-07-13 on time, never effective, Holders never advised."""
    return [opened("a"), ev("NotesIssued", "2004-06-30", deal="a", holder=LEHMAN,
                            principal="60000000"), ev("ShelfFiled", "2004-07-13", deal="a")]


def deal_b():
    """Filed 2004-07-20 (5 days late), effective 2004-10-01; nobody notified."""
    return [opened("b"), ev("NotesIssued", "2004-06-30", deal="b", holder=LEHMAN,
                            principal="60000000"),
            ev("ShelfFiled", "2004-07-20", deal="b"), ev("ShelfEffective", "2004-10-01", deal="b")]


def histories(start=1):
    out = {}
    for objs in (deal_a(), deal_b(), L.camden_137(1_000_000)):
        events = build(objs, start_seq=start)
        start += len(events)
        out[events[0].deal] = events
    return out


def key(deal: str, text: str) -> str:
    """An obligation key of ``histories()``, its trigger named by type (``keyed``)."""
    starts = {"a": 1, "b": 1 + len(deal_a()), "ltr": 1 + len(deal_a()) + len(deal_b())}
    objs = {"a": deal_a, "b": deal_b, "ltr": lambda: L.camden_137(1_000_000)}[deal]()
    return keyed(objs, text, starts[deal])


EXPECTED = {
    # a: advise the selling Holders within 5 Business Days of the filing 2004-07-13:
    # Jul 14, 15, 16, 19, 20 -> due 2004-07-20, overdue from 2004-07-21
    ("2004-07-21", "a", "overdue", key("a", "advise-holders/ShelfFiled/#ShelfFiled")),
    # a: effective by 2004-10-28 (120 days after 2004-06-30), in the window to 10-30
    ("2004-10-28", "a", "due", "shelf-effective"),
    ("2004-10-28", "a", "at_risk", "shelf-effective"),
    # b: default (i) date 2004-07-15 + 2 Business Days (Fri 16, Mon 19) = 2004-07-19
    ("2004-07-20", "b", "overdue", key("b", "notify-trustee/(i)/#DealOpened")),
    # b: filing 2004-07-20 + 5 Business Days (21, 22, 23, 26, 27) = 2004-07-27
    ("2004-07-28", "b", "overdue", key("b", "advise-holders/ShelfFiled/#ShelfFiled")),
    # b: effective 2004-10-01 + 5 Business Days (Oct 4, 5, 6, 7, 8) = 2004-10-08
    ("2004-10-09", "b", "overdue", key("b", "advise-holders/ShelfEffective/#ShelfEffective")),
    # b: a suspension from 2004-10-20: its 45th day 10-20 + 44 = 2004-12-03; 90 in 360:
    # its 90th day 10-20 + 89 = 2005-01-17
    ("2004-12-03", "b", "at_risk", "suspension-room/single_period"),
    ("2005-01-17", "b", "at_risk", "suspension-room/aggregate"),
    # b: default (i) accrued 2004-07-16 to 2004-07-20: 4 days;
    # 60,000,000 x 0.0025 x 4/360 = 1,666.67, payable 2005-01-18 (Jan 15 Sat, 17 MLK)
    ("2005-01-18", "b", "at_risk", f"next-payment/2005-01-15/{LEHMAN}"),
    # ltr: the true-up earned at the vesting of 2002-09-01, not yet issued
    ("2002-09-01", "ltr", "due", key("ltr", "true-up/W/#WarrantsExercised")),
}


def lines(result):
    return {(i["date"], i["deal"], i["category"], i["key"]) for i in result["items"]}


def test_agenda_across_deals_has_the_known_answer():
    result = agenda_of(histories(), as_of=d("2004-10-20"), days=10)
    assert lines(result) == EXPECTED
    assert result["overdue"] == 4 and result["to"] == "2004-10-30"
    dates = [i["date"] for i in result["items"]]
    assert dates == sorted(dates)
    [pay] = [i for i in result["items"] if i["kind"] == "payment"]
    assert pay["amount"] == "1666.67" and pay["clause"] == "RRA §3(a), §3(b)"
    assert all(i["clause"] for i in result["items"])


def test_business_days_window():
    # 6 Business Days after 2004-10-20 (Wed): 21, 22, 25, 26, 27, 28 -> 2004-10-28
    result = agenda_of(histories(), as_of=d("2004-10-20"), business_days=6)
    assert result["to"] == "2004-10-28"
    assert ("2004-10-28", "a", "due", "shelf-effective") in lines(result)
    result = agenda_of(histories(), as_of=d("2004-10-20"), business_days=5)
    assert ("2004-10-28", "a", "due", "shelf-effective") not in lines(result)


def test_known_at_reproduces_the_agenda_as_it_stood():
    h = histories()
    # later, the operator records that Holders of deal a were advised on 2004-07-16
    late = build([ev("HoldersAdvised", "2004-07-16", deal="a")], start_seq=100,
                 recorded=[T0 + timedelta(days=30)])
    h["a"] = h["a"] + late
    before = T0 + timedelta(days=1)
    then = agenda_of(h, as_of=d("2004-10-20"), days=10, known_at=before)
    assert lines(then) == EXPECTED
    now = agenda_of(h, as_of=d("2004-10-20"), days=10)
    assert lines(now) == EXPECTED - {("2004-07-21", "a", "overdue",
                                      key("a", "advise-holders/ShelfFiled/#ShelfFiled"))}
    assert now["overdue"] == 3


def room(objs, start, deal="rra"):
    o = outlook(build([opened(deal), ev("NotesIssued", "2004-06-30", deal=deal, holder=LEHMAN,
                                        principal="60000000"),
                       ev("ShelfFiled", "2004-07-13", deal=deal),
                       ev("ShelfEffective", "2004-10-01", deal=deal), *objs]),
                as_of=d(start))
    return {k.key: (k.day.isoformat(), k.days) for k in o.risks
            if k.kind in ("suspension_limit", "allowance_grows")}


def test_room_to_suspend_near_the_90_day_limit():
    # 40 days suspended 2005-03-01..2005-04-09 (ended 04-10). From 2005-04-20 the 90-day
    # window holds 40 + n; n = 6 exceeds 45 on 04-25: room 5 days, to 2005-04-24.
    # Its own 45th day: 04-20 + 44 = 2005-06-03. 90 in 360: 40 + n > 90 at n = 51:
    # 04-20 + 50 = 06-09, last day 2005-06-08 (50 days). The 90-day allowance grows again
    # when 2005-03-01 leaves the window: 03-01 + 90 = 2005-05-30; the 360-day one
    # 2005-03-01 + 360 = 2006-02-24.
    got = room([ev("SuspensionStarted", "2005-03-01", material_transaction=False),
                ev("SuspensionEnded", "2005-04-10")], "2005-04-20")
    assert got == {"suspension-room/window": ("2005-04-24", 5),
                   "suspension-room/single_period": ("2005-06-03", 45),
                   "suspension-room/aggregate": ("2005-06-08", 50),
                   "suspension-allowance/90": ("2005-05-30", None),
                   "suspension-allowance/360": ("2006-02-24", None)}


def test_room_to_suspend_near_the_360_day_limit():
    # 44 days 2005-01-01..2005-02-13 and 44 days 2005-05-01..2005-06-13: 88 in 360.
    # From 2005-09-01 (the 90-day window is empty): 88 + n > 90 at n = 3: room 2 days,
    # to 2005-09-02.
    got = room([ev("SuspensionStarted", "2005-01-01", material_transaction=False),
                ev("SuspensionEnded", "2005-02-14"),
                ev("SuspensionStarted", "2005-05-01", material_transaction=False),
                ev("SuspensionEnded", "2005-06-14")], "2005-09-01")
    assert got["suspension-room/aggregate"] == ("2005-09-02", 2)
    assert got["suspension-room/single_period"] == ("2005-10-15", 45)
    # 2005-01-01 + 360 days = 2005-12-27
    assert got["suspension-allowance/360"] == ("2005-12-27", None)


def test_no_room_while_a_suspension_is_open():
    assert room([ev("SuspensionStarted", "2005-03-01", material_transaction=False)],
                "2005-03-10") == {}


# --- the command: exit codes, --json, --csv -----------------------------------------

def _ledger(tmp_path):
    db = str(tmp_path / "l.db")
    for deal, objs in (("a", deal_a()[1:]), ("b", deal_b()[1:])):
        ok(run("init", deal, "--template", "infocrossing-rra-2004", "--db", db))
        ok(run("append", "--db", db, input="".join(json.dumps(o) + "\n" for o in objs)))
    return db


def test_exit_code_is_1_when_something_is_overdue_and_0_when_not(tmp_path):
    db = _ledger(tmp_path)
    res = run("agenda", "--db", db, "--as-of", "2004-10-20", "--days", "10")
    assert res.exit_code == 1
    assert "overdue" in res.stdout and "RRA §3(b)" in res.stdout
    # on 2004-07-14 nothing is overdue yet: a's advice is due 07-20
    res = run("agenda", "--db", db, "--as-of", "2004-07-14", "--deal", "a", "--days", "10")
    assert res.exit_code == 0, res.output
    assert "2004-07-20" in res.stdout


def test_json_and_csv(tmp_path):
    db = _ledger(tmp_path)
    res = run("agenda", "--db", db, "--as-of", "2004-10-20", "--days", "10", "--json")
    data = json.loads(res.stdout)
    assert data["overdue"] == 4 and data["deals"] == ["a", "b"]
    res = run("agenda", "--db", db, "--as-of", "2004-10-20", "--days", "10", "--csv")
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert len(rows) == len(data["items"]) and rows[0]["clause"]


def test_the_window_runs_through_n_days_after_its_first_day(tmp_path):
    # a review (stop 19): --days 0 gave 10-20..10-20 and --days 10 10-20..10-30, while the
    # help called N "the window's length"; the help now says what it does
    db = _ledger(tmp_path)
    for n, end in (("0", "2004-10-20"), ("10", "2004-10-30")):
        data = json.loads(run("agenda", "--db", db, "--as-of", "2004-10-20", "--days", n,
                              "--json").stdout)
        assert (data["from"], data["to"]) == ("2004-10-20", end)
    assert "through N calendar days after it" in " ".join(run("agenda", "--help").stdout.split())


def test_bad_options_are_one_line(tmp_path):
    db = _ledger(tmp_path)
    res = run("agenda", "--db", db, "--days", "3", "--business-days", "2")
    assert res.exit_code == 2 and res.stderr.startswith("error: ")
    res = run("agenda", "--db", db, "--deal", "nope")
    assert res.exit_code == 2 and "nope" in res.stderr and "Traceback" not in res.output


# --- the cache: reused while fresh, recomputed where touched -------------------------

def test_cache_gives_the_same_agenda_and_follows_appends(tmp_path):
    db, cache = _ledger(tmp_path), str(tmp_path / "agenda.json")
    args = ("agenda", "--db", db, "--as-of", "2004-10-20", "--days", "10", "--json")
    plain = json.loads(run(*args).stdout)
    first = json.loads(run(*args, "--cache", cache).stdout)     # computed, then kept
    again = json.loads(run(*args, "--cache", cache).stdout)     # reused
    assert plain == first == again
    with open(cache) as fh:
        kept = json.load(fh)
    assert set(kept["deals"]) == {"a", "b"}
    # the Holders of deal a advised on 2004-07-16: a is recomputed, b reused
    ok(run("append", "--db", db, input=json.dumps(ev("HoldersAdvised", "2004-07-16",
                                                     deal="a")) + "\n"))
    fresh = json.loads(run(*args).stdout)
    cached = json.loads(run(*args, "--cache", cache).stdout)
    assert cached == fresh and cached["overdue"] == 3
    # other options: computed afresh
    other = json.loads(run(*args[:-1], "--deal", "a", "--json", "--cache", cache).stdout)
    assert other["deals"] == ["a"]


def test_cache_of_another_ledger_is_not_used(tmp_path):
    cache = str(tmp_path / "agenda.json")
    db = _ledger(tmp_path)
    args = ("--as-of", "2004-10-20", "--days", "10", "--json", "--cache", cache)
    run("agenda", "--db", db, *args)
    other = str(tmp_path / "other.db")
    ok(run("init", "c", "--template", "infocrossing-rra-2004", "--db", other))
    res = json.loads(run("agenda", "--db", other, *args).stdout)
    assert res["deals"] == ["c"]


def test_next_payment_if_the_default_runs_on():
    # never effective: default (ii) accrues from 2004-10-29. As of 2004-11-30: through
    # 11-30, 30/360 days 10-29 -> 12-01 = 32: 60,000,000 x 0.0025 x 32/360 = 13,333.33.
    # If not cured before the period ends (2005-01-15): 10-29 -> 01-15 = 76 days:
    # 60,000,000 x 0.0025 x 76/360 = 31,666.67
    o = outlook(build([opened(), ev("NotesIssued", "2004-06-30", holder=LEHMAN,
                                    principal="60000000"), ev("ShelfFiled", "2004-07-13")]),
                as_of=d("2004-11-30"))
    [pay] = [k for k in o.risks if k.kind == "payment"]
    assert pay.day == d("2005-01-18") and pay.amount == "13333.33"
    assert pay.text.endswith("31666.67 if no default is cured before 2005-01-15")


def test_bad_from_and_unwritable_paths_are_one_line(tmp_path):
    from tests.cli_support import refused

    db = _ledger(tmp_path)
    assert "--from" in refused(run("agenda", "--db", db, "--from", "2005-13-01"), 2)
    assert "--cache" in refused(run("agenda", "--db", db, "--cache",
                                    str(tmp_path / "no" / "c.json")), 2)
    assert "--out" in refused(run("calendar", "--db", db, "--out",
                                  str(tmp_path / "no" / "x.ics")), 2)


def test_an_overdue_line_names_its_due_day_beside_the_day_it_is_dated():
    # an overdue line is dated (and sorted) by the first day of the breach; its `due` is
    # the clause's day, which a reader checks against the contract:
    # b: default (i) date 2004-07-15 (Thu) + 2 Business Days (Fri 16, Mon 19) = 2004-07-19,
    #    violated from 2004-07-20
    # b: effective 2004-10-01 (Fri) + 5 Business Days (Oct 4, 5, 6, 7, 8) = 2004-10-08,
    #    violated from 2004-10-09
    result = agenda_of(histories(), as_of=d("2004-10-20"), days=10)
    due = {(i["deal"], i["key"]): (i["date"], i["due"]) for i in result["items"]
           if i["category"] == "overdue"}
    assert due[("b", key("b", "notify-trustee/(i)/#DealOpened"))] == ("2004-07-20",
                                                                      "2004-07-19")
    assert due[("b", key("b", "advise-holders/ShelfEffective/#ShelfEffective"))] == (
        "2004-10-09", "2004-10-08")
    assert all(i["due"] for i in result["items"])


def test_the_agenda_wraps_at_80_columns_never_inside_a_date(tmp_path):
    import re

    db = _ledger(tmp_path)
    from click.testing import CliRunner

    from cli.main import cli

    def at(columns, *more):
        return CliRunner().invoke(cli, ["agenda", "--db", db, "--as-of", "2004-10-20",
                                        "--days", "10", *more], env={"COLUMNS": columns})

    res = at("80")
    assert res.exit_code == 1
    out = res.stdout.splitlines()
    assert all(len(line) <= 80 for line in out), out
    # every line of the agenda starts with its date; what follows wraps under its text
    body = out[1:]
    assert all(re.match(r"\d{4}-\d{2}-\d{2}  |            \S", line) for line in body), body
    text = " ".join(" ".join(body).split())
    assert "RRA §3(b): notify the Trustee of Registration Default (i) (default date " \
           "2004-07-15) (due 2004-07-19)" in text
    # into a pipe (no COLUMNS) each line of the agenda stays one line, for grep
    res = at(None)
    assert len(res.stdout.splitlines()) == 1 + len(json.loads(at(None, "--json").stdout)["items"])


def test_the_readme_agenda_on_the_demo_worked_by_hand(tmp_path):
    # deal-ledger agenda --as-of 2005-03-01 --days 60 on the demo: the window ends
    # 2005-03-01 + 60 days = 2005-04-30 (Mar 1 + 30 = Mar 31, + 30 = Apr 30)
    from publishing.demo import build_demo

    db = str(tmp_path / "demo.db")
    build_demo(db)
    res = run("agenda", "--db", db, "--as-of", "2005-03-01", "--days", "60", "--json")
    assert res.exit_code == 1                                     # something is overdue
    result = json.loads(res.stdout)
    assert (result["from"], result["to"], result["overdue"]) == ("2005-03-01", "2005-04-30", 2)
    got = {(i["category"], i["key"]): i for i in result["items"]}
    first = first_ids(db)   # the triggers the keys name
    rra, ltr = "infocrossing-rra-2004", "infocrossing-letter-2002"
    # RRA §3(b): default (ii) date 2004-10-28 (Thu) + 2 Business Days (Fri 10-29,
    # Mon 11-01) = 2004-11-01; never notified: overdue from 2004-11-02
    trustee = got[("overdue", f"notify-trustee/(ii)/{first[(rra, 'DealOpened')]}")]
    assert (trustee["date"], trustee["due"], trustee["clause"]) == (
        "2004-11-02", "2004-11-01", "RRA §3(b)")
    # RRA §3(a), §3(b): Interest Payment Date 2005-01-15 is a Saturday, Monday 01-17 is
    # Martin Luther King Jr. Day: payable Tue 2005-01-18. Fund A held 20,000,000 on the
    # record date 2005-01-01; 0.25% x (4 + 16)/360 (30/360 days of [07-16, 07-20) and of
    # [10-29, 11-15): 31 October days count as 30) x
    # 20,000,000 = 2,777.78; 2,700.00 paid: 77.78 unpaid, overdue from 2005-01-19
    pay = got[("overdue", "pay-additional-interest/2005-01-15/Illustrative Fund A")]
    assert (pay["date"], pay["due"], pay["amount"]) == ("2005-01-19", "2005-01-18", "2777.78")
    assert pay["text"].endswith(": 77.78 unpaid")
    # RRA §4(b)(i), §3(a)(iv): the Suspension Period begun 2005-03-01 (not material) may
    # run 45 days: its 45th day 2005-03-01 + 44 = 2005-04-14 (Mar 31 is + 30, Apr 14 + 44)
    suspension = f"end-suspension/{first[(rra, 'SuspensionStarted')]}"
    assert got[("due", suspension)]["due"] == "2005-04-14"
    assert got[("at_risk", suspension)]["date"] == "2005-04-14"
    # Letter ¶3: three true-ups earned by the Camden vestings, not yet (all) issued
    assert {k for c, k in got if c == "due" and k.startswith("true-up/")} == {
        f"true-up/{w}/{first[(ltr, w)]}" for w in ("W-PRICE", "P-SV", "W-SCO")}
    assert len(result["items"]) == 7


def test_json_and_csv_at_once_is_a_usage_error(tmp_path):
    # agenda printed JSON for --json --csv where every other table refuses the pair
    from tests.cli_support import refused

    db = _ledger(tmp_path)
    err = refused(run("agenda", "--db", db, "--as-of", "2004-10-20", "--json", "--csv"), 2)
    assert "give --json or --csv, not both" in err


def test_the_agenda_text_groups_money_and_json_csv_keep_the_exact_text(tmp_path):
    # QA: the text agenda printed "(2777.78)"; money there reads "2,777.78" now, as in
    # every table. The demo on 2007-12-31: Fund A's Additional Interest for 2005-01-15 is
    # 0.25% x 20/360 x 20,000,000 = 2,777.78 (see the test above), 2,700.00 paid:
    # 77.78 unpaid. Fund A for 2005-07-15 (20,000,000 on the record date 2005-07-01):
    # 30/360 days of (iv)(A) [04-15, 04-20) = 5 and of (iii) [06-09, 06-15) = 6, so
    # 20,000,000 x 0.25% x 11/360 = 1,527.777... = 1,527.78, nothing paid.
    from publishing.demo import build_demo

    db = str(tmp_path / "demo.db")
    build_demo(db)
    text = " ".join(run("agenda", "--db", db, "--as-of", "2007-12-31").stdout.split())
    assert ("pay Illustrative Fund A the Additional Interest for the Interest Payment Date "
            "2005-01-15 (2,777.78): 77.78 unpaid (due 2005-01-18)") in text
    assert "(1,527.78): 1,527.78 unpaid" in text
    assert "2777.78" not in text and "1527.78" not in text
    assert "(1571 shares)" in text                    # a share count is not money
    # JSON and CSV: the report's exact text, ungrouped
    items = json.loads(run("agenda", "--db", db, "--as-of", "2007-12-31", "--json").stdout)
    [pay] = [i for i in items["items"]
             if i["key"] == "pay-additional-interest/2005-01-15/Illustrative Fund A"]
    assert pay["amount"] == "2777.78" and pay["text"].endswith("(2777.78): 77.78 unpaid")
    rows = list(csv.DictReader(io.StringIO(
        run("agenda", "--db", db, "--as-of", "2007-12-31", "--csv").stdout)))
    [row] = [r for r in rows if r["key"] == pay["key"]]
    assert row["amount"] == "2777.78" and row["text"].endswith("(2777.78): 77.78 unpaid")
    # the obligations table's "by / triggered" groups too
    out = " ".join(run("obligations", "infocrossing-rra-2004", "--db", db, "--as-of",
                       "2007-12-31").stdout.split())
    assert "1,527.78 unpaid" in out and "paid 5,833.33" in out


def test_the_log_read_as_plain_json_and_through_the_librarys_mapper_agree(tmp_path):
    # issue 17: a plain-JSON ledger's records are read as `log` reads them; a ledger
    # whose library has a compressor or a cipher through the library's mapper: the same
    # agenda either way
    from ledger.store import Ledger
    from publishing.agenda import agenda
    from publishing.demo import build_demo

    db = str(tmp_path / "demo.db")
    build_demo(db)
    found = []
    for direct in (True, False):
        with Ledger(db, create=False) as ledger:
            ledger._direct = direct
            assert ledger.plain_json is direct
            found.append(agenda(ledger, as_of=d("2005-10-01"), days=90))
    assert found[0] == found[1] and found[0]["items"]
