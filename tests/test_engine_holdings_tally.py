"""The Holders tallied, and their lots made only as far as a claim needs them, are the
Holders the plain way (issue 17, ENGINE, third round).

``build_holdings`` tallies the position events (per Holder, TRS principal and other
principal) and makes the lots on first ask, as far as asked (``Holdings.settle``);
``tally=False`` makes every lot at once and answers every snapshot from them, as before.
Held to each other on random histories with transfers (some of more than the seller
holds, some by a Person who holds nothing), shelf sales, conversions, retirements,
consents and Questionnaires, with principals written alike (``5000000`` or
``5000000.00``) or not (``5000000`` beside ``2500000.50``, where the tally must not
answer): every snapshot's sums digit for digit, the problems word for word, and the
whole report (every section, every basis) under every reading that reads the Holders.
"""

from __future__ import annotations

import json
import os
from datetime import date, timedelta
from functools import partial

from hypothesis import HealthCheck, given, settings, strategies as st

from projections.interpretations import resolve
from projections.registration import engine
from projections.registration import holdings as H
from projections.registration.report import build as build_report
from projections.timeline import build_timeline
from tests.support import build, ev, opened

LONG = 20 if os.environ.get("DEAL_LEDGER_LONG") else 1
SETTINGS = settings(max_examples=150 * LONG, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
CLOSING = date(2004, 6, 30)
NAMES = ["A", "B", "C", "D", "E"]
MATTER = "waiver of RRA §2(a)(ii)"


@st.composite
def deals(draw):
    """(event objects, as_of, readings)."""
    style = draw(st.sampled_from(["whole", "cents", "mixed"]))

    def text(amount: int) -> str:
        form = style if style != "mixed" else draw(st.sampled_from(["whole", "cents", "half"]))
        if form == "whole":
            return str(amount)
        if form == "cents":
            return f"{amount}.00"
        return f"{amount - 1}.50"

    holders = draw(st.lists(st.sampled_from(NAMES[:3]), min_size=1, max_size=3, unique=True))
    balance = {h: draw(st.integers(1, 20)) * 1_000_000 for h in holders}
    objs = [opened()] + [ev("NotesIssued", CLOSING.isoformat(), holder=h, principal=text(p))
                         for h, p in balance.items()]
    objs.append(ev("ShelfFiled", "2004-07-13"))
    objs.append(ev("ShelfEffective",
                   (CLOSING + timedelta(days=draw(st.integers(60, 700)))).isoformat()))
    # days anywhere, or in the fortnight between a record date and its payment date,
    # when a sale under the shelf or a conversion still changes what the period owes
    near = st.builds(lambda year, half, k: (date(year, 1 + 6 * half, 1) - CLOSING).days + k,
                     st.integers(2005, 2008), st.integers(0, 1), st.integers(-2, 20))
    moves = sorted(draw(st.lists(st.tuples(
        st.integers(1, 1500) | near,
        st.sampled_from(["transfer", "all", "shelf_sale", "convert", "retire", "oversell",
                         "consent", "consent"]),
        st.sampled_from(NAMES), st.sampled_from(NAMES), st.integers(1, 4)), max_size=30)))
    for offset, kind, frm, to, quarters in moves:
        day = (CLOSING + timedelta(days=offset)).isoformat()
        if kind == "consent":
            objs.append(ev("ConsentGiven", day, holder=frm, matter=MATTER))
            continue
        held = balance.get(frm, 0)
        amount = (held if kind == "all" else held + 1_000_000 if kind == "oversell"
                  else held * quarters // 4 // 1000 * 1000)
        if amount <= 0 or (kind not in ("convert", "retire") and to == frm):
            continue
        balance[frm] = max(0, held - amount)
        if kind in ("transfer", "all", "shelf_sale", "oversell"):
            balance[to] = balance.get(to, 0) + min(amount, held)
            objs.append(ev("NotesTransferred", day, from_holder=frm, to_holder=to,
                           principal=text(amount), under_shelf=kind == "shelf_sale"))
        elif kind == "convert":
            objs.append(ev("NotesConverted", day, holder=frm, principal=text(amount),
                           shares=max(1, amount // 1536)))
        else:
            objs.append(ev("NotesRetired", day, holder=frm, principal=text(amount),
                           reason="redeemed"))
    if draw(st.booleans()):
        objs.append(ev("QuestionnaireRequested", (CLOSING + timedelta(
            days=draw(st.integers(1, 300)))).isoformat(), holders="all"))
        for h in NAMES[:4]:
            if draw(st.booleans()):
                objs.append(ev("QuestionnaireDelivered", (CLOSING + timedelta(
                    days=draw(st.integers(1, 800)))).isoformat(), holder=h))
    if draw(st.booleans()):
        objs.append(ev("AdditionalInterestPaid", "2005-01-18", payment_date="2005-01-15",
                       holder=holders[0], amount=str(draw(st.integers(1, 90000)))))
    as_of = CLOSING + timedelta(days=draw(st.integers(30, 1800)))
    readings = {
        "conversion_forfeits": draw(st.sampled_from(["unpaid", "future_only", "all_unpaid"])),
        "registered_securities": draw(st.sampled_from(["all_notes", "named_selling_holders"])),
        "questionnaire_entitlement_judged_on": draw(st.sampled_from(
            ["payment_date", "record_date"]))}
    return objs, as_of, readings


def sums(snapshot, names):
    return ([(h, str(snapshot.notes(h)), str(snapshot.trs(h))) for h in names],
            snapshot.holders(), snapshot.holders_of_trs())


@SETTINGS
@given(deal=deals(), days=st.lists(st.integers(0, 1900), max_size=10))
def test_the_tally_is_the_lots_summed(deal, days):
    """Each snapshot's principal per Holder (TRS and all, digit for digit), its Holders
    in order, its Holders of TRS; the problems, conversions, TRS totals by day and each
    Holder's events: the tally's are the lots'."""
    objs, _, _ = deal
    timeline = build_timeline(build(objs), date(2010, 1, 1))
    events = timeline.of_type(*H.POSITION_EVENTS)
    alike = len({e.data["principal"].as_tuple().exponent for e in events}) == 1
    wanted = [CLOSING + timedelta(days=d) for d in days] + [CLOSING, date(2010, 1, 1)]
    fast = H.build_holdings(events, wanted)
    plain = H.build_holdings(events, wanted, tally=False)
    names = NAMES + ["nobody"]
    for day in sorted(set(wanted), reverse=True):
        made, rule = fast.at(day), plain.at(day)
        assert (made._sums is not None) == alike   # the tally answers when it can
        assert sums(made, names) == sums(rule, names)
        assert rule.holders() == tuple(rule.held)
    assert fast.problems == plain.problems
    assert (fast.conversions, fast.trs_steps, fast.holder_index) == (
        plain.conversions, plain.trs_steps, plain.holder_index)
    # every snapshot's lots and every ended lot, made on ask
    for day in sorted(set(wanted)):
        assert as_read(fast.at(day)) == as_read(plain.at(day))
    assert ([(lot_row(lot), str(lot.principal)) for lot in fast.ended]
            == [(lot_row(lot), str(lot.principal)) for lot in plain.ended])


def lot_row(lot):
    """A lot's attributes (its principal now depends on how far its book has gone)."""
    return (lot.id, lot.holder, lot.issued_on, lot.trs_until, lot.ended_on, lot.ended_how,
            lot.made_at)


def as_read(snapshot):
    return {h: tuple((lot_row(lot), str(p)) for lot, p in zip(lots, ps))
            for h, (lots, ps) in snapshot.held.items()}


def report_json(objs, as_of, readings, tally: bool, monkeypatch) -> str:
    monkeypatch.setattr(engine, "build_holdings", partial(H.build_holdings, tally=tally))
    rep = build_report(build_timeline(build(objs), as_of), resolve(readings))
    return json.dumps(rep, sort_keys=True, default=str)


@SETTINGS
@given(deal=deals())
def test_a_report_from_the_tally_is_the_plain_report(deal):
    """The whole Registration Rights report (every section, every basis), with the lots
    made only as far as the claims need, is the report with every lot made at once."""
    from _pytest.monkeypatch import MonkeyPatch

    objs, as_of, readings = deal
    with MonkeyPatch.context() as mp:
        fast = report_json(objs, as_of, readings, True, mp)
        plain = report_json(objs, as_of, readings, False, mp)
    assert fast == plain


def test_the_benchmark_deal_makes_few_lots(monkeypatch):
    """The benchmark's deal (one Registration Default in its first interest period, then
    twenty years of trading): the report is the plain one, and its lots are made only
    through the first payable day (2005-01-18), not for the twenty years."""
    from benchmarks.data import deal_events

    objs = [{k: v for k, v in o.items() if k != "source"} for o in deal_events("d", 400)]
    for as_of in (date(2004, 12, 1), date(2005, 1, 20), date(2024, 6, 30)):
        for readings in ({}, {"conversion_forfeits": "all_unpaid"},
                         {"registered_securities": "named_selling_holders"}):
            assert (report_json(objs, as_of, readings, True, monkeypatch)
                    == report_json(objs, as_of, readings, False, monkeypatch))
    monkeypatch.undo()
    timeline = build_timeline(build(objs), date(2024, 6, 30))
    r = engine.compute(timeline, resolve({}))
    lots = r.holdings._lots
    assert len(lots.events) > 150
    assert 0 < lots.book.applied < 30
    assert all(e.date <= date(2005, 1, 18) for e in lots.events[:lots.book.applied])


def plain_steps(events):
    """(day, TRS principal, Conversion Shares) at the end of every day with a position
    event, from a book of lots: the TRS totals as they were kept before."""
    book, steps = H._Book(), []
    for count, e in enumerate(events, start=1):
        book.apply(e, count)
        if steps and steps[-1][0] == e.date:
            steps.pop()
        steps.append((e.date, book.trs_total, book.shares_total))
    return steps


@SETTINGS
@given(deal=deals(), offsets=st.lists(st.integers(0, 1900), min_size=1, max_size=6))
def test_the_effectiveness_period_ends_as_with_a_step_every_day(deal, offsets):
    """The TRS totals are kept for the days they change on only; the Effectiveness
    Period's end (RRA §2(a)(iii)(y),(z): the first day at whose end no TRS is left) is
    the one a step for every day with a position event gives."""
    from ledger.dealterms import registration_terms
    from projections.registration.shelf import effectiveness_period_end
    from projections.timeline import parsed_terms

    objs, _, _ = deal
    timeline = build_timeline(build(objs), date(2010, 1, 1))
    events = timeline.of_type(*H.POSITION_EVENTS)
    terms = parsed_terms(timeline.terms, registration_terms)
    fast = H.build_holdings(events, [])
    every = H.build_holdings(events, [])
    every.trs_steps = tuple(plain_steps(events))
    kept = [s for k, s in enumerate(every.trs_steps)
            if k == 0 or s[1:] != every.trs_steps[k - 1][1:]]
    assert list(fast.trs_steps) == kept
    for offset in offsets:
        [effective] = build([ev("ShelfEffective",
                                (CLOSING + timedelta(days=offset)).isoformat())])
        assert (effectiveness_period_end(effective, terms, fast)
                == effectiveness_period_end(effective, terms, every))


def test_a_step_is_kept_when_only_the_shares_change():
    """Notes sold under the shelf and then converted: the TRS principal stays 0, the
    Conversion Shares go from 0 to 3,255 (5,000,000 / 1,536, as the event says), so
    that day is a step."""
    events = build([opened(), ev("NotesIssued", "2004-06-30", holder="A", principal="10000000"),
                    ev("NotesTransferred", "2005-03-01", from_holder="A", to_holder="B",
                       principal="10000000", under_shelf=True),
                    ev("NotesTransferred", "2005-04-01", from_holder="B", to_holder="C",
                       principal="1000000", under_shelf=False),
                    ev("NotesConverted", "2005-05-02", holder="B", principal="5000000",
                       shares=3255),
                    ev("NotesTransferred", "2005-06-01", from_holder="C", to_holder="A",
                       principal="1000000", under_shelf=False)])
    steps = H.build_holdings(events[1:], []).trs_steps
    assert steps == ((date(2004, 6, 30), 10_000_000, 0), (date(2005, 3, 1), 0, 0),
                     (date(2005, 5, 2), 0, 3255))
    assert steps == tuple(s for k, s in enumerate(plain_steps(events[1:]))
                          if k == 0 or s[1:] != plain_steps(events[1:])[k - 1][1:])
