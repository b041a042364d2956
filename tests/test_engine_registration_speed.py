"""The Registration Rights engine's fast paths give what the plain rules give (issue 17,
ENGINE, second round).

* ``holder_amounts`` reads the Notes a Holder claims (``_claimed``) without a row per
  lot; ``claims`` (built on ``fates``) is the rule as written. Both, and the amounts,
  are held to each other on random histories with transfers, shelf sales, conversions
  and retirements, under every ``conversion_forfeits`` reading.
* a holdings snapshot is read back from the lots when asked for (their principal
  history, the event that emptied each); the table (Holders in the same order, the same
  lots and principal) is that of a book that stopped on that day.
* the interest periods remembered per schedule are the periods worked out afresh.
* the notices' JSON is written straight from the rule's findings, and the days deemed
  given (with their arithmetic) remembered across deals are the rule's, worked out
  afresh.
* ``money`` answers an amount already in cents from its own text.
"""

from __future__ import annotations

import os
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

from hypothesis import HealthCheck, given, settings, strategies as st

from ledger.calendar import FED, BusinessCalendar, Override
from ledger.dealterms import registration_terms
from projections.interpretations import resolve
from projections.registration import holdings as H
from projections.registration.engine import compute
from projections.registration.interest import _claimed, claims, holder_amounts, judged_day
from projections.registration.money import CENT, money
from projections.registration.schedule import interest_periods, periods_through
from projections.timeline import build_timeline, parsed_terms
from tests.support import build, ev, opened

LONG = 20 if os.environ.get("DEAL_LEDGER_LONG") else 1
SETTINGS = settings(max_examples=150 * LONG, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
CLOSING = date(2004, 6, 30)
NAMES = ["A", "B", "C", "D", "E", "F"]


@st.composite
def trading(draw):
    """A deal whose Holders trade a lot: Notes issued to two to four Holders, the shelf
    filed late (a Registration Default accrues from 2004-10-29 to its effectiveness) and
    up to 40 moves on random days: transfers (of all a Holder holds, so that it leaves
    and may come back), shelf sales, conversions, retirements."""
    holders = draw(st.lists(st.sampled_from(NAMES[:4]), min_size=2, max_size=4, unique=True))
    balance = {h: draw(st.integers(1, 20)) * 1_000_000 for h in holders}
    objs = [opened()] + [ev("NotesIssued", CLOSING.isoformat(), holder=h, principal=str(p))
                         for h, p in balance.items()]
    objs.append(ev("ShelfFiled", "2004-07-13"))
    effective = CLOSING + timedelta(days=draw(st.integers(60, 900)))
    objs.append(ev("ShelfEffective", effective.isoformat()))
    moves = []
    for _ in range(draw(st.integers(0, 40))):
        moves.append((draw(st.integers(1, 1500)), draw(st.sampled_from(
            ["transfer", "transfer", "all", "shelf_sale", "convert", "retire"])),
            draw(st.sampled_from(NAMES)), draw(st.sampled_from(NAMES)),
            draw(st.integers(1, 4))))
    for offset, kind, frm, to, quarters in sorted(moves):
        held = balance.get(frm, 0)
        amount = held if kind == "all" else held * quarters // 4 // 1000 * 1000
        if amount <= 0 or (kind in ("transfer", "all", "shelf_sale") and to == frm):
            continue
        day = (CLOSING + timedelta(days=offset)).isoformat()
        balance[frm] -= amount
        if kind in ("transfer", "all", "shelf_sale"):
            balance[to] = balance.get(to, 0) + amount
            objs.append(ev("NotesTransferred", day, from_holder=frm, to_holder=to,
                           principal=str(amount), under_shelf=kind == "shelf_sale"))
        elif kind == "convert":
            objs.append(ev("NotesConverted", day, holder=frm, principal=str(amount),
                           shares=max(1, amount // 1536)))
        else:
            objs.append(ev("NotesRetired", day, holder=frm, principal=str(amount),
                           reason="redeemed"))
    as_of = CLOSING + timedelta(days=draw(st.integers(30, 1800)))
    forfeits = draw(st.sampled_from(["unpaid", "future_only", "all_unpaid"]))
    readings = {"conversion_forfeits": forfeits,
                "conversion_judged_on": draw(st.sampled_from(["interest_payment_date",
                                                              "payment_day"])),
                "shelf_buyer_paid": draw(st.sampled_from(["accrued_days",
                                                          "not_record_holder"]))}
    return objs, as_of, readings


def plain_holder_amounts(period, cutoff, accrual, holdings, questionnaires, readings):
    """``holder_amounts`` as it read ``claims`` row by row (before issue 17's second
    round): the plain path the fast one must equal. The amount from the windows is the
    engine's ``holder_amount``: what is compared is how the claims are read."""
    from projections.registration.interest import holder_amount

    forfeits = readings["conversion_forfeits"]
    no_request = readings["no_questionnaire_request"]
    converted_by = judged_day(period, readings)
    not_record = readings["shelf_buyer_paid"] == "not_record_holder"
    last_day = min(period.end, cutoff)
    judged_on = min(period.payment_date
                    if readings["questionnaire_entitlement_judged_on"] == "payment_date"
                    else period.record_date, cutoff)
    factor = accrual.total
    out = {}
    if last_day <= period.start or factor(period.start, last_day) is None:
        return out
    start = period.start
    for holder, rows in sorted(claims(period, holdings, forfeits, converted_by).items()):
        live, lost, unheld, ended, last_forfeit, turned = {}, {}, {}, False, None, set()
        for q, lot, forfeit in rows:
            lo = max(start, lot.issued_on)
            end = lot.trs_end
            hi = last_day if end is None or end > last_day else end
            if lo < hi and factor(lo, hi) is not None:
                # a row of Notes held on the record date (not retired or converted before)
                held = lot.ended_on is None or lot.ended_on > period.record_date
                if held and lot.converted_on is not None and \
                        period.payment_date <= lot.converted_on < period.paid_on:
                    turned.add("conversion_judged_on")
                if held and lot.trs_until is not None and lot.trs_until <= period.record_date:
                    turned.add("shelf_buyer_paid")
                    if not_record:
                        unheld[(lo, hi)] = unheld.get((lo, hi), 0) + q
                        continue
                into = lost if forfeit else live
                into[(lo, hi)] = into.get((lo, hi), 0) + q
                ended = ended or lot.ended_on is not None
                if forfeit:
                    last_forfeit = max(filter(None, (last_forfeit, lot.converted_on)))
        if live or lost or unheld:
            right = questionnaires.entitlement(holder, judged_on, no_request)
            out[holder] = holder_amount(holder, live, lost, ended, right, factor, holdings,
                                        last_day, last_forfeit, unheld, tuple(sorted(turned)))
    return out


@SETTINGS
@given(deal=trading())
def test_claimed_lots_and_amounts_are_the_rules(deal):
    objs, as_of, readings = deal
    forfeits = readings["conversion_forfeits"]
    timeline = build_timeline(build(objs), as_of)
    r = compute(timeline, resolve(readings))
    terms = parsed_terms(timeline.terms, registration_terms)
    for period in interest_periods(terms, timeline.calendar, as_of):
        if period.record_date not in r.holdings.snapshots:
            continue
        judged = judged_day(period, r.readings)
        rule = {h: sorted((lot.id, q, lost) for q, lot, lost in rows)
                for h, rows in claims(period, r.holdings, forfeits, judged).items()}
        lose = forfeits in ("unpaid", "all_unpaid")
        fast = {h: sorted([(lot.id, lot.principal, lose and lot.converted_on is not None
                            and lot.converted_on < judged) for lot in leaves]
                          + [(lot.id, lot.principal, False) for lot in retired])
                for h, (leaves, retired) in _claimed(period, r.holdings, forfeits).items()}
        assert fast == rule
        args = (period, r.cutoff, r.accrual, r.holdings, r.questionnaires, r.readings)
        assert holder_amounts(*args) == plain_holder_amounts(*args)


def plain_table(events, day):
    """The Holders at the end of ``day`` the plain way: apply the position events dated
    on or before it to a fresh book and read its lots as they are then (each lot as its
    id, issue day, shelf-sale day and principal: the lots of two books are not the same
    objects)."""
    book = H._Book()
    for count, e in enumerate([e for e in events if e.date <= day], start=1):
        book.apply(e, count)
    return {h: tuple((lot.id, lot.issued_on, lot.trs_until, lot.principal)
                     for lot in lots.values())
            for h, lots in book.held.items() if lots}


def as_read(snapshot):
    return {h: tuple((lot.id, lot.issued_on, lot.trs_until, p) for lot, p in zip(lots, ps))
            for h, (lots, ps) in snapshot.held.items()}


@SETTINGS
@given(deal=trading(), days=st.lists(st.integers(0, 1800), max_size=12))
def test_a_snapshot_read_back_from_the_lots_is_the_holders_then(deal, days):
    """A snapshot's table is worked out from the lots when read (their principal history
    and the event that emptied each): the same Holders, in the same order, with the same
    lots and principal as a book that stopped at that day."""
    objs, _, _ = deal
    timeline = build_timeline(build(objs), date(2010, 1, 1))
    events = timeline.of_type(*H.POSITION_EVENTS)
    wanted = [CLOSING + timedelta(days=d) for d in days]
    holdings = H.build_holdings(events, wanted)
    for day in sorted(set(wanted), reverse=True):   # read late ones first: order-free
        made = as_read(holdings.at(day))
        expected = plain_table(events, day)
        assert list(made.items()) == list(expected.items())


def test_remembered_interest_periods_are_worked_out_afresh():
    terms = parsed_terms(opened()["data"]["terms"], registration_terms)
    for through in (date(2004, 6, 30), date(2005, 1, 15), date(2013, 7, 14),
                    date(2030, 1, 1)):
        assert periods_through(terms, FED, through) == tuple(
            interest_periods(terms, BusinessCalendar(), through))
        assert periods_through(terms, FED, through) is periods_through(terms, FED, through)
    # a calendar with declared days is never answered from the Fed calendar's memory:
    # 2005-07-15 (a Friday) declared closed pays on Monday 2005-07-18
    closed = BusinessCalendar.from_overrides([Override(date(2005, 7, 15), False, "storm")])
    paid = {p.payment_date: p.paid_on for p in periods_through(terms, closed,
                                                                 date(2006, 1, 1))}
    assert paid[date(2005, 7, 15)] == date(2005, 7, 18)
    assert {p.payment_date: p.paid_on for p in periods_through(
        terms, FED, date(2006, 1, 1))}[date(2005, 7, 15)] == date(2005, 7, 15)


@settings(max_examples=500 * LONG, derandomize=True, deadline=None)
@given(amount=st.decimals(allow_nan=False, allow_infinity=False, places=None,
                          min_value=Decimal("-1e12"), max_value=Decimal("1e12"))
       | st.integers(-10**9, 10**9).map(lambda c: Decimal(c).scaleb(-2))
       | st.integers(-10**6, 10**6))
def test_money_is_the_quantized_text(amount):
    # e.g. Decimal("6666.67") -> "6666.67"; Decimal("1.5") -> "1.50"; 5 -> "5.00"
    assert money(amount) == format(Decimal(amount).quantize(CENT, rounding=ROUND_HALF_UP),
                                   "f")


@st.composite
def notice_histories(draw):
    """Notices by every method on random days (some the same day and method), telex and
    fax answered before, after or never (some twice), acknowledgements of notices that
    do not exist, and declared closed or open days."""
    objs = [opened()]
    n = draw(st.integers(1, 25))
    for i in range(n):
        day = CLOSING + timedelta(days=draw(st.integers(0, 60)))
        objs.append(ev("NoticeSent", day.isoformat(), to=draw(st.sampled_from(
            ["The Bank of New York, as Trustee", "Holder A"])), subject=f"notice {i}",
            method=draw(st.sampled_from(["hand", "mail", "telex", "fax", "courier"]))))
    for _ in range(draw(st.integers(0, 12))):
        target = draw(st.integers(2, n + 4))     # ids e2.. are the notices; beyond: none
        day = CLOSING + timedelta(days=draw(st.integers(0, 70)))
        objs.append(ev("NoticeAcknowledged", day.isoformat(), notice=f"e{target}"))
    for _ in range(draw(st.integers(0, 4))):
        day = CLOSING + timedelta(days=draw(st.integers(0, 80)))
        objs.append({"type": "CalendarDayDeclared", "deal": "rra", "date": "2004-06-30",
                     "data": {"day": day.isoformat(), "business_day": draw(st.booleans()),
                              "reason": "declared"}})
    return objs


@SETTINGS
@given(objs=notice_histories())
def test_notices_json_is_the_notices_as_json(objs):
    from projections.registration.notices import NOTICE_EVENTS, notices_json, read_notices
    from projections.registration.report import iso

    timeline = build_timeline(build(objs), date(2005, 1, 1))
    terms = parsed_terms(timeline.terms, registration_terms)
    events = timeline.of_type(*NOTICE_EVENTS)
    readings = resolve(None)
    plain = [{"event": n.event, "to": n.to, "subject": n.subject, "method": n.method,
              "sent_on": iso(n.sent_on), "deemed_given": iso(n.deemed_given),
              "basis": n.basis.to_json(readings)}
             for n in read_notices(events, terms, timeline.calendar)]
    fast = notices_json(events, terms, timeline.calendar)
    assert fast == plain
    # the same key order and the arithmetic as the same text carrying its steps
    assert [list(f) for f in fast] == [list(p) for p in plain]
    assert [list(f["basis"]) for f in fast] == [list(p["basis"]) for p in plain]
    assert [f["basis"]["arithmetic"].steps for f in fast] == [
        p["basis"]["arithmetic"].steps for p in plain]
    r = compute(timeline, readings)
    assert r.notices == tuple(read_notices(events, terms, timeline.calendar))
    # the days and texts remembered across deals (on the Fed calendar, and by telex or
    # fax on any) are what the rule gives for this notice, worked out afresh
    from projections.registration import notices as N

    for n, e in zip(r.notices, [e for e in events if e.type == "NoticeSent"]):
        ack = next((a for a in events if a.type == "NoticeAcknowledged"
                    and a.data["notice"] == e.id and a.date >= e.date), None)
        day, text = N.deemed_given(e, ack, terms, timeline.calendar)
        assert (n.deemed_given, str(n.basis.arithmetic)) == (day, str(text))
        assert n.basis.arithmetic.steps == text.steps
    N._GIVEN.clear()
    N._ANSWERED.clear()
    assert notices_json(events, terms, timeline.calendar) == fast


@SETTINGS
@given(deal=trading())
def test_payments_made_without_their_constructor_are_the_constructors(deal):
    """``payments`` fills each ``Payment``'s fields at once (a frozen dataclass's
    ``__init__`` sets them one by one, by name): every field is there, equal to what the
    constructor makes of the same values, and the Interest Payment Dates' accrual
    windows with nothing to accrue (``Accrual.total`` is None there) are the rule's."""
    import dataclasses
    from fractions import Fraction

    from ledger.daycount import year_fraction
    from projections.registration.payments import Payment

    objs, as_of, readings = deal
    timeline = build_timeline(build(objs), as_of)
    r = compute(timeline, resolve(readings))
    for pay in r.payments:
        values = {f.name: getattr(pay, f.name) for f in dataclasses.fields(Payment)}
        assert set(vars(pay)) == set(values)
        assert Payment(**values) == pay and repr(Payment(**values)) == repr(pay)
    for (lo, hi), total in r.accrual.cache.items():
        rule = sum((Fraction(run.rate) / 100 * year_fraction(r.accrual.convention,
                                                             max(run.start, lo),
                                                             min(run.end, hi))
                    for run in r.accrual.runs if max(run.start, lo) < min(run.end, hi)),
                   Fraction(0))
        assert total == (rule if rule else None)
