"""The market templates (issue 33): three real registration rights agreements of the kind,
from the excerpts in ``/work/shared/agreements/``, each carried by its own terms and
checked against a worked example from its own clause (the arithmetic in the comments).

* ``debentures-rra-2005``: "Registration Defaults" (a)-(c): filed and effective "on or
  prior to the 270th day following the Closing Date", damages "at a rate of 0.25% per
  annum for the first 90 days from and including such 271st day and 0.50% per annum
  thereafter" on "the aggregate outstanding principal amount of the Debentures", a lapse
  cured "within ten Business Days", lapses for a Deferral Period or for selling
  securityholders' information excused; no Trustee notice, no advice to Holders.
* ``senior-notes-2002``: filed "within 90 days after the Issue Date", effective "within
  180 days after the Issue Date", kept effective "until the earliest of (a) the second
  anniversary of the Issue Date or, if later, the second anniversary of the last date on
  which any Senior Convertible Notes are issued upon exercise of the Initial Purchasers'
  option, (b) [the Rule 144(k) date], (c) [all transferred under Rule 144] or (d) [all
  sold]".
* ``edwards-rra-2003``: damages continue on Conversion Shares at the "Applicable
  Conversion Price ... the Conversion Price in effect as of such date".

30/360 (SPEC §2): days = 360*(y2-y1) + 30*(m2-m1) + (d2-d1), the end of a month at 30.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from ledger.errors import RuleViolation
from ledger.events import parse_event
from ledger.store import Ledger
from ledger.terms import TEMPLATES
from projections.report import report
from tests.support import build, d, ev, opened

DEB, NOTES, EDW = "debentures-rra-2005", "senior-notes-2002", "edwards-rra-2003"


def run(objs, as_of: str, **interps) -> dict:
    return report(build(objs), as_of=d(as_of), interpretations=interps)


def amounts(r: dict) -> dict:
    return {p["payment_date"]: p["amounts"] for p in r["additional_interest"]["payments"]}


def deal(template: str, *objs) -> list:
    name = {DEB: "deb", NOTES: "snc", EDW: "edw"}[template]
    return [opened(name, template)] + [{**o, "deal": name} for o in objs]


# ------------------------------------------------------------ the 270/270-day form


def test_the_debentures_deadlines_are_the_270th_day_after_the_closing():
    # 2006-03-01 + 270 days: March 30 + April 30 + May 31 + June 30 + July 31 + August 31
    # + September 30 + October 31 = 244 to 2006-10-31, and 26 more = 2006-11-26
    r = run(deal(DEB, ev("NotesIssued", "2006-03-01", holder="A", principal="100000000")),
            "2006-12-31")
    assert (r["registration"]["filing_deadline"], r["registration"]["effectiveness_deadline"]) \
        == ("2006-11-26", "2006-11-26")
    # "commencing on the 271st day after the Closing Date": accrual from 2006-11-27
    (a, b) = r["registration"]["defaults"]
    assert (a["kind"], a["clause"], a["accrual_from"]) == ("(a)", "Registration Defaults (a)",
                                                           "2006-11-27")
    assert (b["kind"], b["clause"], b["accrual_from"]) == ("(b)", "Registration Defaults (b)",
                                                           "2006-11-27")


def test_the_debentures_damages_are_0_25_for_90_days_then_0_50_flat():
    """Filed 2007-01-10, effective 2007-04-16: defaults (a) and (b) from the 271st day
    2006-11-27, one rate for the deal. Day 1 is 2006-11-27, day 90 is 2007-02-24 (4 days
    of November, 31 of December, 31 of January, 24 of February): 0.25% to 2007-02-24,
    0.50% from 2007-02-25, and never more (the issue: the ledger could only carry the
    0.50% "thereafter" by making a second step last 50 years)."""
    objs = deal(DEB, ev("NotesIssued", "2006-03-01", holder="A", principal="100000000"),
                ev("ShelfFiled", "2007-01-10"), ev("ShelfEffective", "2007-04-16"))
    r = run(objs, "2007-09-30")
    segments = [(s["rate"], s["start"], s["end"]) for s in
                r["additional_interest"]["rate_segments"]]
    assert segments == [("0.25", "2006-11-27", "2007-01-10"), ("0.25", "2007-01-10", "2007-02-25"),
                        ("0.50", "2007-02-25", "2007-04-16")]
    # 2007-03-01 (period 2006-09-01 to 2007-03-01, record date 2007-02-15):
    #   2006-11-27 to 2007-02-25 at 0.25%: 360*1 + 30*(2-11) + (25-27) = 88 days
    #   2007-02-25 to 2007-03-01 at 0.50%: 30*(3-2) + (1-25) = 6 days
    #   100,000,000 x (0.0025 x 88 + 0.005 x 6) / 360 = 100,000,000 x 0.25 / 360 = 69,444.44
    # 2007-09-01: 2007-03-01 to 2007-04-16 at 0.50%: 30*(4-3) + (16-1) = 45 days
    #   100,000,000 x 0.005 x 45 / 360 = 62,500.00
    assert amounts(r) == {"2007-03-01": {"A": "69444.44"}, "2007-09-01": {"A": "62500.00"}}


def _effective_on_time(*more):
    return deal(DEB, ev("NotesIssued", "2006-03-01", holder="A", principal="100000000"),
                ev("ShelfFiled", "2006-10-01"), ev("ShelfEffective", "2006-11-20"), *more)


def test_a_debentures_lapse_is_cured_within_ten_business_days_and_damages_run_on_all_outstanding():
    """(c): a stop order 2007-06-01 (a Friday) cured 2007-06-20. Ten Business Days after
    2007-06-01: June 4-8 and 11-15, so the last day to cure is 2007-06-15; damages from
    2007-06-16 to 2007-06-20 (exclusive): 30/360 30*(6-6) + (20-16) = 4 days, at 0.25%
    (a new default, day 1 of its clock). The excerpt is cut off before (c) says what it
    costs: the template applies (a)/(b)'s ladder and base, "the aggregate outstanding
    principal amount of the Debentures", to (c) as well (its ``market_practice``, "damages
    for (c)"), so B, who bought 40,000,000 under the shelf on 2007-05-15, earns too (under the Infocrossing RRA, a buyer under the shelf holds no Transfer
    Restricted Security and earns nothing).
    A: 60,000,000 x 0.0025 x 4/360 = 1,666.67; B: 40,000,000 x 0.0025 x 4/360 = 1,111.11,
    payable 2007-09-04 (2007-09-01 a Saturday, 09-03 Labor Day)."""
    r = run(_effective_on_time(
        ev("NotesTransferred", "2007-05-15", from_holder="A", to_holder="B",
           principal="40000000", under="shelf"),
        ev("ShelfUnusable", "2007-06-01", reason="stop_order"),
        ev("ShelfUsable", "2007-06-20", cure="order_lifted")), "2007-09-30")
    (c,) = r["registration"]["defaults"]
    assert (c["kind"], c["clause"], c["default_date"], c["accrual_from"], c["accrual_until"]) == \
        ("(c)", "Registration Defaults (c)", "2007-06-15", "2007-06-16", "2007-06-20")
    (pay,) = r["additional_interest"]["payments"]
    assert (pay["payment_date"], pay["paid_on"], pay["record_date"]) == \
        ("2007-09-01", "2007-09-04", "2007-08-15")
    assert pay["amounts"] == {"A": "1666.67", "B": "1111.11"}


def test_a_lapse_for_selling_securityholders_information_is_excused():
    """(c) "other than ... as a result of a requirement to file a post-effective amendment
    or supplement to the Prospectus to make changes to the information regarding selling
    securityholders": no default, however long."""
    r = run(_effective_on_time(
        ev("ShelfUnusable", "2007-06-01", reason="selling_holder_information"),
        ev("ShelfUsable", "2007-07-20", cure="prospectus_supplement")), "2007-09-30")
    assert r["registration"]["defaults"] == []
    assert r["additional_interest"]["accrued_to_as_of"] == "0.00"
    assert any("is excused: not a Registration Default (Registration Defaults (c))" in p
               for p in r["problems"])


def test_the_debentures_agreement_owes_no_trustee_notice_and_no_advice_to_holders():
    """The issue: the ledger "still owed a Trustee notice and 'advise Holders' duties the
    agreement does not have, and cited Infocrossing's section numbers"."""
    objs = deal(DEB, ev("NotesIssued", "2006-03-01", holder="A", principal="100000000"),
                ev("ShelfFiled", "2007-01-10"), ev("ShelfEffective", "2007-04-16"))
    r = run(objs, "2007-09-30")
    kinds = {o["kind"] for o in r["obligations"]}
    assert not kinds & {"notify-trustee", "advise-holders"}
    assert [o["obligation"] for o in r["deadlines"]] == [
        "Shelf Registration Statement declared effective", "file the Shelf Registration Statement"]
    assert {o["clause"] for o in r["deadlines"]} == {"Registration Defaults (a)",
                                                     "Registration Defaults (b)"}
    cited = [s["basis"]["clause"] for s in r["additional_interest"]["rate_segments"]]
    assert set(cited) == {"Registration Defaults (a), (b)"}
    assert not any("RRA §" in str(o) for o in (r["registration"], r["obligations"]))


# ------------------------------------------------------------ the 90/180-day form


def _notes(*more, effective="2002-08-15"):
    return deal(NOTES, ev("NotesIssued", "2002-03-05", holder="A", principal="100000000"),
                *more, ev("ShelfFiled", "2002-05-01"), ev("ShelfEffective", effective))


def test_the_notes_deadlines_count_from_the_issue_date():
    # 2002-03-05 + 90: March 26 + April 30 + May 31 = 87 to 2002-05-31, +3 = 2002-06-03;
    # + 180: + June 30 + July 31 + August 31 = 179 to 2002-08-31, +1 = 2002-09-01
    r = run(_notes(), "2002-12-31")
    assert (r["registration"]["filing_deadline"], r["registration"]["effectiveness_deadline"]) \
        == ("2002-06-03", "2002-09-01")


def test_the_notes_ladder_adds_0_25_each_90_days_to_a_cap_of_0_50():
    """Effective 2002-12-15, after the 180th day 2002-09-01: default (ii) from 2002-09-02.
    Day 1 is 2002-09-02, day 90 is 2002-11-30; 0.25% then 0.25 + 0.25 = 0.50% from
    2002-12-01 (and would be 0.75% from day 181, but for the cap of 0.50%).
    2002-09-15 (record date 2002-09-01): 2002-09-02 to 2002-09-15: 13 days at 0.25%:
      100,000,000 x 0.0025 x 13/360 = 9,027.78
    2003-03-15: 2002-09-15 to 2002-12-01: 30*(12-9) + (1-15) = 76 days at 0.25%;
      2002-12-01 to 2002-12-15: 14 days at 0.50%:
      100,000,000 x (0.0025 x 76 + 0.005 x 14) / 360 = 100,000,000 x 0.26 / 360 = 72,222.22"""
    r = run(_notes(effective="2002-12-15"), "2003-04-30")
    assert amounts(r) == {"2002-09-15": {"A": "9027.78"}, "2003-03-15": {"A": "72222.22"}}
    late = run(_notes(effective="2003-06-30"), "2003-06-30")
    rates = {s["start"]: s["rate"] for s in late["additional_interest"]["rate_segments"]}
    # day 91 (2002-12-01) 0.50%; day 181 (2003-03-01) stays 0.50%: the cap
    assert rates == {"2002-09-02": "0.25", "2002-12-01": "0.50", "2003-03-01": "0.50",
                     "2003-05-30": "0.50"}


def test_the_notes_effectiveness_period_ends_two_years_after_the_issue_date():
    """Effective 2002-08-15: the period ends 2004-03-05, the second anniversary of the
    Issue Date, not 2004-08-15 (two years after effectiveness, the Infocrossing RRA's
    (x)). A stop order from 2004-04-01 is outside it: no default (the issue: the ledger
    "charged 61,093.75 for a lapse that the agreement does not cover")."""
    lapse = ev("ShelfUnusable", "2004-04-01", reason="stop_order")
    r = run(_notes() + [{**lapse, "deal": "snc"}], "2004-06-30")
    assert r["registration"]["effectiveness_period_end"] == "2004-03-05"
    assert r["registration"]["effectiveness_period_basis"]["clause"] == \
        "Registration Agreement (as the Note summarises it) (iii)(a)"
    assert r["registration"]["defaults"] == []
    assert r["additional_interest"]["accrued_to_as_of"] == "0.00"
    # what the Infocrossing shape charged for it: 5 Business Days after 2004-04-01 (April
    # 2, 5, 6, 7, 8) is 2004-04-08; accrual from 2004-04-09 through 2004-06-30:
    # 30*(7-4) + (1-9) = 82 days, at the 3.00% of its §3(a)(iii) (past the second
    # anniversary of the closing, 2004-03-05): 100,000,000 x 0.03 x 82/360 = 683,333.33
    infocrossing = [opened("rra", filing_deadline_days=90, effectiveness_deadline_days=180,
                           closing_date="2002-03-05", first_interest_payment_date="2002-09-15",
                           interest_payment_dates=["03-15", "09-15"],
                           record_dates=["03-01", "09-01"], maturity="2009-03-15"),
                    ev("NotesIssued", "2002-03-05", holder="A", principal="100000000"),
                    ev("ShelfFiled", "2002-05-01"), ev("ShelfEffective", "2002-08-15"), lapse]
    old = run(infocrossing, "2004-06-30")
    assert old["registration"]["effectiveness_period_end"] == "2004-08-15"
    assert old["additional_interest"]["accrued_to_as_of"] == "683333.33"


def test_the_option_issue_and_the_rule_144k_date_end_the_notes_period(tmp_path):
    """(a) "or, if later, the second anniversary of the last date on which any Senior
    Convertible Notes are issued upon exercise of the Initial Purchasers' option": the
    option issued 2002-03-20 moves the end to 2004-03-20; (b) the Rule 144(k) date,
    2004-03-10, comes first; a Suspension Period cannot start after it."""
    option = ev("NotesIssued", "2002-03-20", holder="B", principal="15000000")
    r = run(_notes(option), "2004-06-30")
    assert r["registration"]["effectiveness_period_end"] == "2004-03-20"
    k = ev("Rule144kDate", "2004-03-10")
    r = run(_notes(option) + [{**k, "deal": "snc"}], "2004-06-30")
    assert r["registration"]["effectiveness_period_end"] == "2004-03-10"
    assert r["registration"]["effectiveness_period_basis"]["clause"].endswith("(iii)(b)")
    with Ledger(str(tmp_path / "l.db")) as ledger:
        ledger.append([parse_event(o) for o in _notes(option) + [{**k, "deal": "snc"}]])
        with pytest.raises(RuleViolation, match="the Effectiveness Period ended on 2004-03-10"):
            ledger.append([parse_event({**ev("SuspensionStarted", "2004-03-12",
                                             material_transaction=False), "deal": "snc"})])


# --------------------------------------------- damages on the Conversion Shares


def _edwards(*more):
    return deal(EDW, ev("NotesIssued", "2003-05-09", holder="A", principal="140000000"),
                ev("NotesIssued", "2003-05-09", holder="B", principal="10000000"),
                ev("ShelfFiled", "2003-07-28"),
                ev("NotesConverted", "2003-11-20", holder="B", principal="10000000",
                   shares=182949), *more, ev("ShelfEffective", "2003-12-05"))


def test_damages_continue_on_conversion_shares_at_the_applicable_conversion_price():
    """Effective 2003-12-05, after the 180th day 2003-11-05: default (ii) 2003-11-06 to
    2003-12-05. B converts its 10,000,000 into 182,949 shares (18.2949 a $1,000) on
    2003-11-20 and holds them on the record date 2004-05-01; at the Applicable Conversion
    Price of 54.66 they stand for 182,949 x 54.66 = 9,999,992.34.
    2003-11-15 (record 2003-11-01): 2003-11-06 to 2003-11-15, 9 days at 0.25%:
      A 140,000,000 x 0.0025 x 9/360 = 8,750.00; B 10,000,000 x 0.0025 x 9/360 = 625.00
    2004-05-15: the Debentures' days before the conversion stay owed to B (the form pays on
      the shares; reading conversion_forfeits=future_only), then the shares:
      10,000,000 x 0.0025 x 5/360 (2003-11-15 to 11-20) = 347.2222...
      + 9,999,992.34 x 0.0025 x 15/360 (2003-11-20 to 12-05) = 1,041.6659...
      = 1,388.8881 -> 1,388.89 (the issue: "the ledger paid the converting Holder 0")
      A 140,000,000 x 0.0025 x 20/360 = 19,444.44"""
    r = run(_edwards(), "2004-06-30")
    assert amounts(r) == {"2003-11-15": {"A": "8750.00", "B": "625.00"},
                          "2004-05-15": {"A": "19444.44", "B": "1388.89"}}
    assert r["interpretations"]["conversion_forfeits"] == "future_only"   # the deal fixes it
    basis = r["additional_interest"]["payments"][1]["basis"]["B"]
    assert "9999992.34 × 0.25% × 15/360 [2003-11-20, 2003-12-05)" in basis["arithmetic"]
    assert "Applicable Conversion Price" in basis["rule"]


def test_the_applicable_conversion_price_changes_with_an_adjustment():
    """The conversion price adjusted to 50.00 from 2003-12-01: the shares stand for
    182,949 x 54.66 = 9,999,992.34 from 11-20 to 12-01 (11 days) and 182,949 x 50.00 =
    9,147,450.00 from 12-01 to 12-05 (4 days):
      347.2222 + 9,999,992.34 x 0.0025 x 11/360 (763.8883) + 9,147,450 x 0.0025 x 4/360
      (254.0958) = 1,365.2063 -> 1,365.21"""
    r = run(_edwards(ev("ConversionPriceAdjusted", "2003-12-01", new_price="50.00",
                        reason="stock split")), "2004-06-30")
    assert amounts(r)["2004-05-15"]["B"] == "1365.21"


def test_conversion_shares_sold_privately_earn_for_their_holder_of_record():
    """B sells 100,000 of its shares privately to C on 2003-11-25; they stay restricted,
    and C, their holder on the record date 2004-05-01, is paid for the whole period on
    them (as a Record Holder of Notes is, SPEC §4.4), from their conversion on 11-20:
      C: 100,000 x 54.66 = 5,466,000 x 0.0025 x 15/360 = 569.375 -> 569.38
      B: 347.2222 (its Debentures' days) + 82,949 x 54.66 = 4,533,992.34 x 0.0025 x
         15/360 (472.2909) = 819.5131 -> 819.51
    Sold under the shelf instead (once it is effective), they would stop earning on the
    day of the sale; a sale under the shelf before it is effective is refused."""
    r = run(_edwards(ev("ConversionSharesTransferred", "2003-11-25", from_holder="B",
                        to_holder="C", shares=100000, under="private")), "2004-06-30")
    assert amounts(r)["2004-05-15"] == {"A": "19444.44", "B": "819.51", "C": "569.38"}


# ------------------------------------------------------------------- the templates


@pytest.mark.parametrize("name", [DEB, NOTES, EDW])
def test_each_market_template_says_which_terms_rest_on_market_practice(name):
    t = TEMPLATES[name]
    assert t["kind"] == "registration_rights" and t["source"] and t["market_practice"]
    rules = [r for r in _rules(t["terms"])]
    assert any(r["section"].startswith("market practice") or "(market practice)" in r["section"]
               for r in rules)
    assert any(r.get("quote") for r in rules)       # and which were read from the excerpt
    assert "market practice" in " ".join(t["market_practice"].values()) or \
        all(v for v in t["market_practice"].values())


def _rules(value):
    if isinstance(value, dict):
        if "section" in value:
            yield value
        for v in value.values():
            yield from _rules(v)
    elif isinstance(value, list):
        for v in value:
            yield from _rules(v)


@pytest.mark.parametrize("name, deal_name", [(DEB, "deb-1"), (NOTES, "snc-1"), (EDW, "edw-1")])
def test_init_opens_a_deal_from_each_market_template(tmp_path, name, deal_name):
    from tests.cli_support import ok, run as cli

    db = str(tmp_path / "l.db")
    ok(cli("init", deal_name, "--template", name, "--db", db))
    out = ok(cli("report", deal_name, "--db", db, "--json", "--as-of",
                 TEMPLATES[name]["date"].isoformat()))
    assert '"kind":"registration_rights"' in out
