"""Issue 17: the views file brought up to date run after run (each run reads only the
new part of the log and recomputes only the deals it touched) holds exactly what a
rebuild from the whole log holds, after every batch, on random histories.

Each history is a few batches appended one after another over two Registration Rights
deals (the shelf of one already effective, the other's not yet filed): Notes sold, the shelf filed and declared effective, suspensions,
notices, payments of Additional Interest, events dated after the views' day (which move
only a deal's counts), and retractions of events of earlier batches. A batch the
write-side rules refuse is left out, as an operator's would be. After each batch the
incremental file is compared, table by table, with a rebuild of the same log.
"""

from __future__ import annotations

import os
from datetime import date, timedelta

from hypothesis import HealthCheck, given, settings, strategies as st

from ledger.errors import LedgerError
from ledger.events import parse_event
from ledger.store import Ledger
from publishing import readmodels
from tests.support import ev, opened
from publishing import dealstate
from tests.test_views import dump, event_rows, state_rows

AS_OF = date(2005, 12, 31)
DEALS = ("a", "b")
HOLDERS = ("Lehman Brothers Inc.", "Holder B", "Holder C")
EXAMPLES = 25 * (10 if os.environ.get("DEAL_LEDGER_LONG") else 1)


def _day(offset: int) -> str:
    return (date(2004, 7, 1) + timedelta(days=offset)).isoformat()


days = st.integers(min_value=0, max_value=900).map(_day)   # to 2006-12-17: some after AS_OF


@st.composite
def an_event(draw):
    deal = draw(st.sampled_from(DEALS))
    kind = draw(st.sampled_from(["transfer", "filed", "effective", "suspend", "end",
                                 "advise", "notice", "paid", "closure", "retract", "retract"]))
    day = draw(days)
    if kind == "transfer":
        a, b = draw(st.permutations(HOLDERS))[:2]
        return ev("NotesTransferred", day, deal=deal, from_holder=a, to_holder=b,
                  principal=str(draw(st.integers(1, 40)) * 250_000),
                  under_shelf=draw(st.booleans()))
    if kind == "filed":
        return ev("ShelfFiled", day, deal=deal)
    if kind == "effective":
        return ev("ShelfEffective", day, deal=deal)
    if kind == "suspend":
        return ev("SuspensionStarted", day, deal=deal, material_transaction=draw(st.booleans()))
    if kind == "end":
        return ev("SuspensionEnded", day, deal=deal)
    if kind == "advise":
        return ev("HoldersAdvised", day, deal=deal)
    if kind == "notice":
        return ev("NoticeSent", day, deal=deal, to="The Bank of New York, as Trustee",
                  subject="notice", method=draw(st.sampled_from(["hand", "courier", "mail"])))
    if kind == "closure":   # a fact about its day, whatever day it is recorded as made
        return {**ev("CalendarDayDeclared", day, deal=deal),
                "data": {"day": draw(days), "business_day": False, "reason": "closure"}}
    if kind == "paid":
        return ev("AdditionalInterestPaid", day, deal=deal,
                  payment_date=draw(st.sampled_from(["2005-01-15", "2005-07-15",
                                                     "2006-01-15"])),
                  holder=draw(st.sampled_from(HOLDERS)),
                  amount=f"{draw(st.integers(1, 500_000))}.{draw(st.integers(0, 99)):02d}")
    # a retraction of an event of an earlier batch, dated on any day (the day it is
    # recorded as made, which may be after the views' day while its target is not)
    return {"retract": draw(st.integers(min_value=0, max_value=10_000)), "day": day}


def _append(ledger: Ledger, objs: list[dict]) -> bool:
    """Append one batch; ``False`` (nothing written) if the rules refuse it."""
    known = list(ledger.records())
    ready = []
    for obj in objs:
        if "retract" in obj:
            live = [r for r in known if r["type"] not in ("DealOpened", "EventRetracted")]
            if not live:
                continue
            target = live[obj["retract"] % len(live)]
            obj = ev("EventRetracted", obj["day"], deal=target["deal"],
                     event_id=target["id"], reason="entered in error")
        ready.append(parse_event(obj, line=len(ready) + 1))
    try:
        ledger.append(ready)
        return True
    except LedgerError:
        return False


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(batches=st.lists(st.lists(an_event(), min_size=1, max_size=3), min_size=1, max_size=5))
def test_views_run_after_each_batch_equal_a_rebuild(tmp_path_factory, monkeypatch, batches):
    # small parts, so that a history of a few batches has deals of several parts, and
    # last parts that take the next events in (publishing.dealstate)
    monkeypatch.setattr(dealstate, "PART", 3)
    monkeypatch.setattr(dealstate, "SMALL", 2)
    work = tmp_path_factory.mktemp("views")
    db, out = str(work / "ledger.db"), str(work / "views.db")
    with Ledger(db) as ledger:
        first = [opened(deal) for deal in DEALS] + [
            ev("NotesIssued", "2004-06-30", deal=deal, holder=holder, principal="20000000")
            for deal in DEALS for holder in HOLDERS] + [
            ev("ShelfFiled", "2004-07-13", deal="a"), ev("ShelfEffective", "2004-11-15", deal="a")]
        assert _append(ledger, first)
        readmodels.views(ledger, out, as_of=AS_OF, workers=1)
        for n, batch in enumerate(batches):
            if not _append(ledger, batch):
                continue
            readmodels.views(ledger, out, as_of=AS_OF, workers=1)
            fresh = str(work / f"fresh-{n}.db")
            readmodels.views(ledger, fresh, as_of=AS_OF, rebuild=True, workers=1)
            assert dump(out) == dump(fresh), f"after batch {n}: {batch}"
            # each deal's state, advanced run after run, holds the deal's events up to
            # some seq (a deal touched only by later-dated events is not recomputed, and
            # its state waits): the first rows of ``events``; a rebuild's holds them all
            state, events = state_rows(out), event_rows(out)
            assert state.keys() == events.keys()
            for deal, held in state.items():
                assert held == events[deal][:len(held)], f"batch {n}, deal {deal}"
            assert state_rows(fresh) == event_rows(fresh) == events, f"batch {n}"


def test_a_closure_dated_after_the_views_day_recomputes_its_deal(tmp_path):
    # a review (stop 19): views skipped a deal whose only new event was dated after
    # --as-of, but the calendar counts its overrides whatever their date (SPEC §2).
    # Filing deadline 2004-07-15 missed; + 2 Business Days: 07-16, 07-19; the Trustee,
    # notified on 07-20, late. With Fri 07-16 closed: 07-19, 07-20: met
    db, out = str(tmp_path / "ledger.db"), str(tmp_path / "views.db")
    with Ledger(db) as ledger:
        ledger.append([parse_event(o) for o in (
            opened("a"), ev("NotesIssued", "2004-06-30", deal="a", holder=HOLDERS[0],
                            principal="60000000"),
            ev("ShelfFiled", "2004-07-20", deal="a"), ev("TrusteeNotified", "2004-07-20",
                                                         deal="a"))])
        readmodels.views(ledger, out, as_of=date(2004, 7, 31), workers=1)
        notice = "SELECT due, status FROM deadlines WHERE obligation LIKE 'notify%'"
        import sqlite3

        with sqlite3.connect(out) as c:
            assert c.execute(notice).fetchall() == [("2004-07-19", "missed")]
        ledger.append([parse_event({**ev("CalendarDayDeclared", "2004-08-05", deal="a"),
                                    "data": {"day": "2004-07-16", "business_day": False,
                                             "reason": "emergency closure"}})])
        readmodels.views(ledger, out, as_of=date(2004, 7, 31), workers=1)
        with sqlite3.connect(out) as c:
            assert c.execute(notice).fetchall() == [("2004-07-20", "met")]
