"""An ILLUSTRATIVE ledger for both agreements, for ``deal-ledger demo``.

The parties and the contract terms are real; the dates after signing, the amounts
transferred, share counts and prices are invented to exercise every rule: each
Registration Default type (i), (ii), (iii), (iv)(A), (iv)(B), a missed Questionnaire,
transfers, a sale under the shelf, a conversion, a payment and an underpayment; Camden
vestings before and after exercises on both sides of the 2004-02-01 cutoff, a
cancellation, a true-up issued, and Camden Warrants still unvested (a deferred adjustment).

It is recorded as an operator would have recorded it: in batches over three and a half
years (fixed ``recorded_at`` moments, no wall clock), one of them late and backdated, one
payment recorded wrong then retracted and corrected, so that ``history``, ``--known-at``
and ``log`` have something to show. ``AS_OF`` is the day the demo's reports are judged on: late enough to show it all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ledger.events import NewEvent, parse_event, parse_timestamp
from ledger.terms import TEMPLATES

RRA = "infocrossing-rra-2004"
LETTER = "infocrossing-letter-2002"
SRC = "ILLUSTRATIVE: invented for the demo"
AS_OF = "2007-12-31"

LEHMAN = "Lehman Brothers Inc."
FUND_A = "Illustrative Fund A"
FUND_B = "Illustrative Fund B"
FUND_C = "Illustrative Fund C"


def _e(deal: str, type_: str, day: str, **data: Any) -> dict[str, Any]:
    return {"type": type_, "deal": deal, "date": day, "data": data, "source": SRC}


def _opened(deal: str, template: str) -> dict[str, Any]:
    t = TEMPLATES[template]
    return {"type": "DealOpened", "deal": deal, "date": t["date"].isoformat(),
            "data": {"kind": t["kind"], "name": t["name"], "terms": t["terms"]},
            "source": f"template {template}; its clauses: deal-ledger clause --list"}


@dataclass(frozen=True)
class Mistake:
    """An event recorded wrong, retracted by a later ``Correction``."""
    event: dict[str, Any]


@dataclass(frozen=True)
class Correction:
    """Retract ``wrong`` (a ``Mistake``'s event) and record ``event`` in one batch, as
    ``deal-ledger correct`` does."""
    wrong: dict[str, Any]
    reason: str
    event: dict[str, Any]


def _standing(batches: list[tuple[str, list[Any]]]) -> list[dict[str, Any]]:
    """The events that stand once every correction is made, in recording order."""
    out = []
    for _, items in batches:
        for item in items:
            if isinstance(item, Correction):
                out.append(item.event)
            elif not isinstance(item, Mistake):
                out.append(item)
    return out


def _rra_recorded() -> list[tuple[str, list[Any]]]:
    """The RRA's history as an operator recorded it: batches at the moments they were
    appended (``recorded_at``), each a few days after what it reports, with a late,
    backdated record (the stop order of 2005-06-01, learned of and recorded on 2005-07-08),
    a payment first recorded wrong (Fund A's, as the amount owed) and corrected two weeks
    later (a retraction and its replacement, in one batch), and an affiliation statement
    dated at closing but recorded in November 2005."""
    r = lambda *a, **k: _e(RRA, *a, **k)  # noqa: E731
    fund_a_paid_wrong = r("AdditionalInterestPaid", "2005-01-18", payment_date="2005-01-15",
                          holder=FUND_A, amount="2777.78")
    return [
        ("2004-07-23T16:00:00Z", [
            _opened(RRA, RRA),
            r("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
            r("NotesIssued", "2004-07-09", holder=LEHMAN, principal="12000000"),
            # (i): filed five days after the 2004-07-15 Shelf Filing Deadline
            r("ShelfFiled", "2004-07-20", file_number="333-000000 (illustrative)"),
            r("TrusteeNotified", "2004-07-19"),
            r("HoldersAdvised", "2004-07-22"),
        ]),
        ("2004-08-04T15:30:00Z", [
            r("NotesTransferred", "2004-08-02", from_holder=LEHMAN, to_holder=FUND_A,
              principal="20000000"),
            r("NotesTransferred", "2004-08-02", from_holder=LEHMAN, to_holder=FUND_B,
              principal="10000000"),
        ]),
        ("2004-09-16T14:00:00Z", [
            r("QuestionnaireRequested", "2004-09-01", holders="all"),
            r("QuestionnaireDelivered", "2004-09-10", holder=LEHMAN),
            r("QuestionnaireDelivered", "2004-09-15", holder=FUND_A),
        ]),
        ("2004-10-21T14:00:00Z", [
            r("QuestionnaireDelivered", "2004-10-20", holder=FUND_B),  # after its deadline
        ]),
        ("2004-11-18T16:00:00Z", [
            r("AmendmentFiled", "2004-10-29", kind="pre_effective", holders_added=[FUND_B],
              principal_added="10000000"),
            # (ii): effective 18 days after the 2004-10-28 Effectiveness Target Date
            r("ShelfEffective", "2004-11-15"),
            r("HoldersAdvised", "2004-11-17"),
        ]),
        ("2005-01-19T17:00:00Z", [
            r("AdditionalInterestPaid", "2005-01-18", payment_date="2005-01-15", holder=LEHMAN,
              amount="5833.33"),
            Mistake(fund_a_paid_wrong),
        ]),
        ("2005-02-03T10:00:00Z", [
            Correction(fund_a_paid_wrong, "the trustee's statement shows 2,700.00 paid to "
                                          "Fund A, not the 2,777.78 owed",
                       r("AdditionalInterestPaid", "2005-01-18", payment_date="2005-01-15",
                         holder=FUND_A, amount="2700.00")),
        ]),
        # (iv)(A): a 50-day Suspension Period, no material transaction
        ("2005-03-01T18:00:00Z", [r("SuspensionStarted", "2005-03-01",
                                    material_transaction=False)]),
        ("2005-04-21T09:00:00Z", [r("SuspensionEnded", "2005-04-20")]),
        ("2005-05-04T15:00:00Z", [
            r("NotesTransferred", "2005-05-02", from_holder=LEHMAN, to_holder=FUND_C,
              principal="5000000", under_shelf=True),
        ]),
        # (iii): a stop order not cured within five Business Days, learned of late: the
        # three events are recorded on 2005-07-08, dated when they happened
        ("2005-07-08T11:00:00Z", [
            r("ShelfUnusable", "2005-06-01", reason="stop_order"),
            r("HoldersAdvised", "2005-06-02"),
            r("ShelfUsable", "2005-06-15", cure="order_lifted"),
        ]),
        # (iv)(B): a 50-day material-transaction suspension takes the 360-day total to 100
        ("2005-08-01T18:00:00Z", [r("SuspensionStarted", "2005-08-01",
                                    material_transaction=True)]),
        ("2005-09-21T09:00:00Z", [r("SuspensionEnded", "2005-09-20")]),
        ("2005-10-05T15:00:00Z", [
            r("NotesConverted", "2005-10-03", holder=FUND_A, principal="5000000",
              shares=325520),
            r("NoticeSent", "2005-10-04", to="Wells Fargo Bank, National Association",
              subject="conversion of Notes", method="mail"),
        ]),
        ("2005-11-03T16:00:00Z", [
            r("HolderAffiliation", "2004-06-30", holder=FUND_C, company_affiliate=False),
            r("ConsentGiven", "2005-11-01", holder=LEHMAN, matter="waive §4(b)(iii) advice"),
            r("ConsentGiven", "2005-11-02", holder=FUND_A, matter="waive §4(b)(iii) advice"),
        ]),
    ]


def rra_history() -> list[dict[str, Any]]:
    """The RRA's events as they stand (the wrong payment and its retraction left out)."""
    return _standing(_rra_recorded())


WARRANTS = [
    ("W-DB", "DB Capital Investors, L.P.", 400000),
    ("W-SV", "Sandler Capital Partners V, L.P.", 250000),
    ("W-SVFTE", "Sandler Capital Partners V FTE, L.P.", 60000),
    ("W-STP", "Sandler Technology Partners, L.P.", 40000),
    ("W-SCO", "Sandler Co-Investment Partners, L.P.", 30000),
    ("W-PRICE", "Price Family Limited Partners", 100000),
    ("W-BENAKE", "Benake L.P.", 20000),
]
CAMDEN = [
    ("Camden Partners Strategic Fund II-A, L.P.", 300000),
    ("Camden Partners Strategic Fund II-B, L.P.", 50000),
    ("Cahill Warnock Strategic Partners Fund, L.P.", 40000),
    ("Strategic Associates, L.P.", 10000),
]


def _letter_recorded() -> list[tuple[str, list[Any]]]:
    """The letter's history as recorded: the closing's instruments at once, then each
    exercise, conversion, vesting and issue a few days after it happened."""
    l = lambda *a, **k: _e(LETTER, *a, **k)  # noqa: E731,E741
    closing = [_opened(LETTER, LETTER),
               l("CapitalizationRecorded", "2002-02-01", common_outstanding=6000000)]
    for instrument, holder, shares in WARRANTS:
        closing.append(l("InstrumentRegistered", "2002-02-01", instrument=instrument,
                         holder=holder, kind="warrant", shares=shares, exercise_price="4.00"))
    closing += [
        l("InstrumentRegistered", "2002-02-01", instrument="P-DB",
          holder="DB Capital Investors, L.P.", kind="preferred", quantity=1000,
          stated_value="1000", conversion_price="8.00"),
        l("InstrumentRegistered", "2002-02-01", instrument="P-SV",
          holder="Sandler Capital Partners V, L.P.", kind="preferred", quantity=600,
          stated_value="1000", conversion_price="8.00"),
    ]
    for holder, warrants in CAMDEN:
        closing.append(l("CamdenWarrantsIssued", "2002-02-01", holder=holder,
                         warrants=warrants, exercise_price="2.00"))
    return [
        ("2002-02-05T15:00:00Z", closing),
        # before any vesting: exercised and converted at the original prices
        ("2003-03-05T15:00:00Z", [l("WarrantsExercised", "2003-03-03", instrument="W-PRICE",
                                    fraction="1", shares_issued=100000)]),
        ("2003-06-04T15:00:00Z", [l("PreferredConverted", "2003-06-02", instrument="P-SV",
                                    fraction="0.5", shares_issued=37500)]),
        ("2003-10-02T15:00:00Z", [
            l("CamdenWarrantsVested", "2003-09-30", holder=CAMDEN[0][0], warrants=150000),
            l("CamdenWarrantsVested", "2003-09-30", holder=CAMDEN[1][0], warrants=50000),
        ]),
        # 100,000 × 4.00 / 3.9355 = 101,638.9… → 101,638 shares: 1,638 owed, all issued
        ("2003-10-16T15:00:00Z", [l("TrueUpSharesIssued", "2003-10-15", instrument="W-PRICE",
                                    shares=1638)]),
        ("2004-02-03T15:00:00Z", [
            l("WarrantsExercised", "2004-01-30", instrument="W-SCO", fraction="1",
              shares_issued=30491),
            l("CapitalizationRecorded", "2004-01-31", common_outstanding=6200000),
        ]),
        ("2004-04-01T15:00:00Z", [l("CamdenWarrantsVested", "2004-03-31", holder=CAMDEN[2][0],
                                    warrants=40000)]),
        # after the cutoff: at 3.9231, 20,000 × 4.00 / 3.9231 = 20,392.0… → 20,392; half
        ("2004-05-05T15:00:00Z", [l("WarrantsExercised", "2004-05-03", instrument="W-BENAKE",
                                    fraction="0.5", shares_issued=10196)]),
        ("2004-07-02T15:00:00Z", [l("CamdenWarrantsCancelled", "2004-06-30",
                                    holder=CAMDEN[3][0], warrants=10000)]),
        # 50,000 of Fund II-A's warrants stay unvested: their adjustment is still deferred
        ("2004-10-01T15:00:00Z", [l("CamdenWarrantsVested", "2004-09-30", holder=CAMDEN[0][0],
                                    warrants=100000)]),
    ]


def letter_history() -> list[dict[str, Any]]:
    return _standing(_letter_recorded())


def recording_batches() -> list[tuple[str, list[Any]]]:
    """Both deals' batches in the order they were recorded (``recorded_at`` ascending)."""
    return sorted(_rra_recorded() + _letter_recorded(), key=lambda batch: batch[0])


def demo_events() -> list[NewEvent]:
    objs = rra_history() + letter_history()
    return [parse_event(o, line=i + 1) for i, o in enumerate(objs)]


def build_demo(db: str) -> dict[str, int]:
    """Append the demo's batches to the ledger at ``db``, each stamped with its fixed
    recording moment (no wall clock: the history reads the same every run; only the
    event ids, hence the hashes, differ); the events appended per deal."""
    from ledger.store import Ledger

    counts = {RRA: 0, LETTER: 0}
    recorded: dict[int, dict[str, Any]] = {}  # id() of a Mistake's event -> its record
    line = 0
    with Ledger(db, create=True) as ledger:
        for moment, items in recording_batches():
            objs: list[dict[str, Any]] = []
            for item in items:
                if isinstance(item, Mistake):
                    objs.append(item.event)
                elif isinstance(item, Correction):
                    wrong = recorded[id(item.wrong)]
                    objs.append({"type": "EventRetracted", "deal": wrong["deal"],
                                 "date": wrong["date"], "source": SRC,
                                 "data": {"event_id": wrong["id"], "reason": item.reason}})
                    objs.append(item.event)
                else:
                    objs.append(item)
            events = [parse_event(o, line=line + k) for k, o in enumerate(objs, 1)]
            line += len(objs)
            ledger.clock = lambda at=parse_timestamp(moment): at
            done = ledger.append(events, user="demo")
            for obj, record in zip(objs, done.records):
                recorded[id(obj)] = record
                counts[record["deal"]] += 1
    return counts


# The "as known at" example the demo prints: as of 2005-06-30, before the stop order of
# 2005-06-01 was recorded (2005-07-08), the ledger knew no Registration Default (iii).
KNOWN_AT_EXAMPLE = {"as_of": "2005-06-30", "known_at": "2005-07-01T00:00:00Z"}
