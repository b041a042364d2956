"""Issue 30, items 1-5 and 14: the refusals the Registration Rights Agreement implies,
each against the contract's words, with what the history then gives worked by hand.

1. no sale under the shelf while it has ceased to be effective or usable (RRA §1 Transfer
   Restricted Securities (A): "effectively registered ... and disposed of in accordance
   with the Shelf Registration Statement");
2. none inside a Suspension Period (RRA §4(c): Holders "discontinue disposition ...
   pursuant to the Shelf Registration Statement until" advised they may resume);
3. none by a Holder asked for its Questionnaire that delivered none (RRA §4(d): it
   "shall not be permitted to sell any Transfer Restricted Securities pursuant to the
   Shelf Registration Statement");
4. no Notes past the agreement's maximum (the preamble: $60,000,000, $72,000,000 with the
   Initial Purchaser's option in full);
5. no acknowledgment before its notice was sent (RRA §10(E));
14. one batch (or one ``retract`` of several ids) retracting a Suspension Period's start
    and end together, judged as a whole.
"""

from __future__ import annotations

from datetime import date

import pytest

from ledger.errors import RuleViolation
from ledger.events import parse_event
from ledger.store import Ledger
from projections.report import report
from tests.cli_support import ok, refused_unchanged, run
from tests.support import ev, opened

LEHMAN, ALPHA, BETA, BUYER = "Lehman Brothers Inc.", "Alpha Fund", "Beta Fund", "Buyer"
TRS_A = "RRA §1 Transfer Restricted Securities (A)"


def batch(*objs):
    return [parse_event(o, line=i + 1) for i, o in enumerate(objs)]


def sale(day: str, principal: str = "60000000", seller: str = LEHMAN, under_shelf=True):
    return ev("NotesTransferred", day, from_holder=seller, to_holder=BUYER,
              principal=principal, under_shelf=under_shelf)


def effective_deal(ledger, *more, holders=None):
    """Lehman (or ``holders``) from the Closing Date, filed 2004-07-13, effective 2004-10-01."""
    issued = [ev("NotesIssued", "2004-06-30", holder=h, principal=p)
              for h, p in (holders or {LEHMAN: "60000000"}).items()]
    ledger.append(batch(opened("rra"), *issued, ev("ShelfFiled", "2004-07-13"),
                        ev("ShelfEffective", "2004-10-01"), *more))


def refusal(ledger, *objs) -> RuleViolation:
    head = ledger.head()
    with pytest.raises(RuleViolation) as err:
        ledger.append(batch(*objs))
    assert ledger.head() == head
    return err.value


def rep(ledger, as_of: str, **readings):
    return report(ledger.deal_events("rra"), as_of=date.fromisoformat(as_of),
                  interpretations=readings)


def amounts(r, payment_date: str) -> dict:
    return next(p for p in r["additional_interest"]["payments"]
                if p["payment_date"] == payment_date)["amounts"]


def id_of(ledger, type_: str, n: int = 0) -> str:
    return [r["id"] for r in ledger.deal_records("rra") if r["type"] == type_][n]


# ------------------------------------------------------------ 1. a stop order

STOP = ev("ShelfUnusable", "2005-03-01", reason="stop_order")


def test_a_sale_under_the_shelf_during_a_stop_order_is_refused(store_url):
    with Ledger(store_url) as ledger:
        effective_deal(ledger, STOP)
        err = refusal(ledger, sale("2005-03-10"))
        assert (err.field, err.rule) == ("data.under_shelf", TRS_A)
        assert "ceased to be effective or usable on 2005-03-01 (stop_order" in err.message
        assert "under_shelf=false" in err.message
        # the stop order's own day is barred too (the shelf's state at the end of the day)
        assert refusal(ledger, sale("2005-03-01")).rule == TRS_A
        # sold outside the shelf, as the refusal suggests: the Notes stay Transfer
        # Restricted and the Effectiveness Period runs on (to 2006-10-01)
        ledger.append(batch(sale("2005-03-10", under_shelf=False)))
        r = rep(ledger, "2005-03-31")
    # (iii): five Business Days after Tue 2005-03-01: 03-02, 03, 04, 07, 08; default date
    # 03-08, accrual from 03-09; to 2005-03-31: 30/360 days from 03-09 to 04-01 =
    # 30 x 1 + (1 - 9) = 22; 60,000,000 x 0.25% x 22/360 = 150,000 x 22/360 = 9,166.67
    # (the sale accepted under the shelf ended the period on 03-10 by (y): one day, 416.67)
    assert r["registration"]["effectiveness_period_end"] == "2006-10-01"
    assert amounts(r, "2005-07-15") == {BUYER: "9166.67"}


def test_a_sale_on_the_day_the_shelf_is_usable_again_is_accepted(store_url):
    with Ledger(store_url) as ledger:
        effective_deal(ledger, STOP, ev("ShelfUsable", "2005-03-20", cure="order_lifted"))
        assert refusal(ledger, sale("2005-03-19")).rule == TRS_A
        ledger.append(batch(sale("2005-03-20")))


def test_a_late_stop_order_over_an_accepted_sale_is_refused_unless_cured_before_it(store_url):
    with Ledger(store_url) as ledger:
        effective_deal(ledger)
        ledger.append(batch(sale("2005-03-10", principal="30000000")))
        sold = id_of(ledger, "NotesTransferred")
        err = refusal(ledger, ev("ShelfUnusable", "2005-03-01", reason="stop_order"))
        assert err.rule == TRS_A and f"sale under the shelf {sold} of 2005-03-10" in err.message
        # cured (in the same batch) before the sale: the sale stands
        ledger.append(batch(ev("ShelfUnusable", "2005-03-01", reason="stop_order"),
                            ev("ShelfUsable", "2005-03-08", cure="order_lifted")))
        # retracting that cure would bar the sale again
        cure = id_of(ledger, "ShelfUsable")
        err = refusal(ledger, ev("EventRetracted", "2005-04-01", event_id=cure,
                                 reason="entered in error"))
        assert err.field == "data.event_id" and err.rule == TRS_A
        # corrected (`correct`: the retraction and the replacement in one batch) to another
        # day still before the sale, it stands; to one after it, refused
        assert refusal(ledger, ev("EventRetracted", "2005-04-01", event_id=cure,
                                  reason="wrong day"),
                       ev("ShelfUsable", "2005-03-11", cure="order_lifted")).rule == TRS_A
        ledger.append(batch(ev("EventRetracted", "2005-04-01", event_id=cure, reason="wrong day"),
                            ev("ShelfUsable", "2005-03-09", cure="order_lifted")))


# ----------------------------------------------------- 2. a Suspension Period

SUSPENDED = [ev("SuspensionStarted", "2005-03-01", material_transaction=False),
             ev("SuspensionEnded", "2005-04-20")]


def test_a_sale_under_the_shelf_during_a_suspension_period_is_refused(store_url):
    with Ledger(store_url) as ledger:
        effective_deal(ledger, *SUSPENDED)
        err = refusal(ledger, sale("2005-03-10"))
        assert (err.field, err.rule) == ("data.under_shelf", "RRA §4(c)")
        assert "inside the Suspension Period begun 2005-03-01" in err.message
        assert "under_shelf=false" in err.message
        r = rep(ledger, "2005-07-20")
        # SPEC §8 example 2: 50 days suspended, the 45th day 2005-04-14; (iv)(A) accrues
        # 04-15 to 04-20: 30/360 days 5; 60,000,000 x 0.25% x 5/360 = 2,083.33 on 07-15
        # (the sale accepted ended the Effectiveness Period on 03-10: nothing)
        assert amounts(r, "2005-07-15") == {LEHMAN: "2083.33"}
        # use of the prospectus may resume from the day the period ended
        ledger.append(batch(sale("2005-04-20")))


def test_a_suspension_recorded_late_over_a_sale_is_refused(store_url):
    with Ledger(store_url) as ledger:
        effective_deal(ledger, *SUSPENDED)
        ledger.append(batch(sale("2005-04-25", principal="10000000")))
        err = refusal(ledger, ev("SuspensionStarted", "2005-04-22", material_transaction=True))
        assert err.rule == "RRA §4(c)" and "of 2005-04-25 barred" in err.message
        ended = id_of(ledger, "SuspensionEnded")
        err = refusal(ledger, ev("EventRetracted", "2005-05-01", event_id=ended,
                                 reason="still suspended"))
        assert err.rule == "RRA §4(c)"


# ------------------------------------------------ 3. a Holder not named in it

ASKED = [ev("QuestionnaireRequested", "2004-08-02", holders="all"),
         ev("QuestionnaireDelivered", "2004-08-10", holder=LEHMAN)]


def test_a_sale_under_the_shelf_by_a_holder_that_did_not_deliver_is_refused(store_url):
    with Ledger(store_url) as ledger:
        # "all" on 2004-08-02 asks the Holders of Transfer Restricted Securities at the
        # end of that day: Lehman and Alpha; only Lehman delivers
        effective_deal(ledger, *ASKED, holders={LEHMAN: "40000000", ALPHA: "20000000"})
        err = refusal(ledger, sale("2005-01-10", "20000000", seller=ALPHA))
        assert (err.field, err.rule) == ("data.under_shelf", "RRA §4(d)")
        assert f"{ALPHA} was asked for its Questionnaire on 2004-08-02" in err.message
        assert "under_shelf=false" in err.message
        ledger.append(batch(sale("2005-01-10", "10000000")))          # Lehman delivered
        # Beta got its Notes after the request: never asked, not refused
        ledger.append(batch(ev("NotesTransferred", "2004-09-01", from_holder=LEHMAN,
                               to_holder=BETA, principal="5000000"),
                            sale("2005-01-11", "5000000", seller=BETA)))
        # Alpha delivers late (after its deadline): delivered, so it may sell
        ledger.append(batch(ev("QuestionnaireDelivered", "2004-12-15", holder=ALPHA),
                            sale("2005-01-12", "20000000", seller=ALPHA)))
        # and the delivery cannot be taken back from under that sale
        delivered = id_of(ledger, "QuestionnaireDelivered", 1)
        assert refusal(ledger, ev("EventRetracted", "2005-02-01", event_id=delivered,
                                  reason="entered in error")).rule == "RRA §4(d)"


def test_a_holder_named_by_an_amendment_may_sell_and_a_late_request_is_refused(store_url):
    with Ledger(store_url) as ledger:
        effective_deal(ledger, *ASKED, holders={LEHMAN: "40000000", ALPHA: "20000000"})
        ledger.append(batch(ev("AmendmentFiled", "2004-12-01", kind="post_effective",
                               holders_added=[ALPHA], principal_added="20000000"),
                            sale("2005-01-10", "5000000", seller=ALPHA)))
        ledger.append(batch(ev("NotesTransferred", "2004-09-01", from_holder=LEHMAN,
                               to_holder=BETA, principal="5000000"),
                            sale("2005-01-11", "5000000", seller=BETA)))
        # a request to Beta recorded now, dated before its sale: Beta sold undelivered
        err = refusal(ledger, ev("QuestionnaireRequested", "2004-12-01", holders=[BETA]))
        assert err.rule == "RRA §4(d)" and "barred" in err.message
        # dated after the sale, the request bars nothing
        ledger.append(batch(ev("QuestionnaireRequested", "2005-02-01", holders=[BETA])))


# ------------------------------------------------------ 4. the maximum principal

def test_notes_past_the_agreements_maximum_are_refused(store_url):
    with Ledger(store_url) as ledger:
        ledger.append(batch(opened("rra"), ev("NotesIssued", "2004-06-30", holder=LEHMAN,
                                              principal="60000000")))
        # 60,000,000 + 15,000,000 = 75,000,000 > 72,000,000 (the option in full)
        err = refusal(ledger, ev("NotesIssued", "2004-07-09", holder=LEHMAN,
                                 principal="15000000"))
        assert err.field == "data.principal" and err.rule.startswith("RRA preamble")
        assert "75,000,000.00 of Notes issued, past the 72,000,000.00" in err.message
        # 60,000,000 + 12,000,000 = 72,000,000: the option exercised in full
        ledger.append(batch(ev("NotesIssued", "2004-07-09", holder=LEHMAN,
                               principal="12000000")))
        assert "72,000,000.01" in refusal(ledger, ev("NotesIssued", "2004-07-10",
                                                     holder=ALPHA, principal="0.01")).message
        # an issue retracted is not issued: its room comes back
        option = id_of(ledger, "NotesIssued", 1)
        ledger.append(batch(ev("EventRetracted", "2004-07-10", event_id=option,
                               reason="the option was for 10,000,000"),
                            ev("NotesIssued", "2004-07-09", holder=LEHMAN,
                               principal="10000000"),
                            ev("NotesIssued", "2004-07-20", holder=ALPHA,
                               principal="2000000")))


def test_a_deal_whose_terms_state_no_maximum_takes_any_principal(store_url):
    with Ledger(store_url) as ledger:
        ledger.append(batch(opened("rra", maximum_principal=None),
                            ev("NotesIssued", "2004-06-30", holder=LEHMAN,
                               principal="500000000")))


# --------------------------------------------------- 5. an early acknowledgment

def test_an_acknowledgment_before_its_notice_was_sent_is_refused(store_url):
    with Ledger(store_url) as ledger:
        effective_deal(ledger, ev("NoticeSent", "2005-03-10", to="Trustee",
                                  subject="Suspension Notice", method="fax"))
        fax = id_of(ledger, "NoticeSent")
        err = refusal(ledger, ev("NoticeAcknowledged", "2005-03-05", notice=fax))
        assert (err.field, err.rule) == ("date", "RRA §10(E)")
        assert "was sent on 2005-03-10" in err.message
        ledger.append(batch(ev("NoticeAcknowledged", "2005-03-11", notice=fax)))
        r = rep(ledger, "2005-04-01")
    # by facsimile, deemed given "when receipt acknowledged": 2005-03-11
    [notice] = r["notices"]
    assert notice["deemed_given"] == "2005-03-11"


# ------------------------------------- 14. a Suspension Period retracted whole

TWO_PERIODS = [ev("SuspensionStarted", "2005-03-01", material_transaction=False),
               ev("SuspensionEnded", "2005-03-20"),
               ev("SuspensionStarted", "2005-05-01", material_transaction=False),
               ev("SuspensionEnded", "2005-05-20")]


@pytest.mark.parametrize("order", ["start_first", "end_first"])
def test_a_suspension_period_retracted_start_and_end_in_one_batch(store_url, order):
    with Ledger(store_url) as ledger:
        effective_deal(ledger, *TWO_PERIODS)
        start, end = id_of(ledger, "SuspensionStarted"), id_of(ledger, "SuspensionEnded")
        # one at a time, each leaves the later period breaking a rule: refused
        alone = [refusal(ledger, ev("EventRetracted", "2005-03-01", event_id=one,
                                    reason="recorded in error")) for one in (start, end)]
        pair = [start, end] if order == "start_first" else [end, start]
        ledger.append(batch(*(ev("EventRetracted", "2005-03-01", event_id=i,
                                 reason="recorded in error") for i in pair)))
        r = rep(ledger, "2005-06-01")
    assert all("or with it in one batch" in err.message for err in alone)
    # what is left: 2005-05-01 to 2005-05-20 exclusive, 19 days
    assert [(p["start"], p["end"], p["days"]) for p in r["suspensions"]["periods"]] == [
        ("2005-05-01", "2005-05-20", 19)]


def test_retract_takes_several_ids_in_one_batch(tmp_path):
    db = str(tmp_path / "l.db")
    with Ledger(db) as ledger:
        effective_deal(ledger, *TWO_PERIODS)
        start, end = id_of(ledger, "SuspensionStarted"), id_of(ledger, "SuspensionEnded")
    message = refused_unchanged(db, 3, "retract", start[:8], "--reason", "error", "--db", db)
    out = ok(run("retract", start[:8], end[:8], "--reason", "recorded in error", "--db", db))
    # what it retracts is shown first (issue 31), then what was written
    assert out.splitlines()[0].startswith("retracts seq 5 SuspensionStarted rra 2005-03-01")
    assert out.splitlines()[1].startswith("retracts seq 6 SuspensionEnded")
    assert "appended 2 event(s)" in out
    assert "or with it in one batch" in message
    with Ledger(db) as ledger:
        assert len([r for r in ledger.deal_records("rra") if r["type"] == "EventRetracted"]) == 2
