"""The senior notes' template (``senior-notes-2002``) on who still holds Transfer Restricted
Securities: Notes issued other than upon the Initial Purchasers' option, and Notes sold
under Rule 144 or privately (issue 33 review).

The legend's (iii)(a): the shelf is kept effective until "the second anniversary of the
Issue Date or, if later, the second anniversary of the last date on which any Senior
Convertible Notes are issued upon exercise of the Initial Purchasers' option". Damages
(market practice, as the template says) run on Transfer Restricted Notes only and are paid
to their Record Holders; a Note sold under Rule 144 is no longer restricted (the template's
``transfer_restricted.until``: ``rule_144_sale``), one sold privately still is.

30/360 (SPEC §2): days = 360*(y2-y1) + 30*(m2-m1) + (d2-d1).
"""

from __future__ import annotations

import pytest

from ledger.errors import RuleViolation
from ledger.events import parse_event
from ledger.store import Ledger
from tests.support import ev
from tests.test_market_templates import NOTES, amounts, deal, run


def _notes(*more, effective="2002-08-15"):
    return deal(NOTES, ev("NotesIssued", "2002-03-05", holder="A", principal="100000000"),
                *more, ev("ShelfFiled", "2002-05-01"), ev("ShelfEffective", effective))


def test_a_reissue_is_no_option_issue_and_does_not_move_the_period_end(tmp_path):
    """The option: B 15,000,000 issued 2002-03-20 ``upon="option"``; a reissue: C
    5,000,000 issued 2003-01-10 ``upon="other"`` (not upon the option). The period ends on
    the second anniversary of the option issue, 2002-03-20 + 2 years = 2004-03-20, not of
    the reissue (2005-01-10, where the last NotesIssued of any kind put it). A stop order
    from 2004-06-01, never cured, falls outside it: no default, 0.00 accrued; a Suspension
    Period starting 2004-04-01 is refused."""
    objs = _notes(ev("NotesIssued", "2002-03-20", holder="B", principal="15000000",
                     upon="option"),
                  ev("NotesIssued", "2003-01-10", holder="C", principal="5000000",
                     upon="other"),
                  ev("ShelfUnusable", "2004-06-01", reason="stop_order"))
    r = run(objs, "2004-09-30")
    assert r["registration"]["effectiveness_period_end"] == "2004-03-20"
    assert r["registration"]["effectiveness_period_basis"]["clause"] == \
        "Registration Agreement (as the Note summarises it) (iii)(a)"
    assert r["registration"]["defaults"] == []
    assert r["additional_interest"]["accrued_to_as_of"] == "0.00"
    with Ledger(str(tmp_path / "l.db")) as ledger:
        ledger.append([parse_event(o) for o in objs])
        with pytest.raises(RuleViolation, match="the Effectiveness Period ended on 2004-03-20"):
            ledger.append([parse_event({**ev("SuspensionStarted", "2004-04-01",
                                             material_transaction=False), "deal": "snc"})])


def _sold(under: str):
    """Effective 2002-12-15, after the 180th day 2002-09-01: default (ii) from 2002-09-02
    to 2002-12-15; 0.25% for its first 90 days (to 2002-11-30), 0.50% from 2002-12-01.
    A sells 40,000,000 to B on 2002-09-15, the first Interest Payment Date, ``under``."""
    return run(_notes(ev("NotesTransferred", "2002-09-15", from_holder="A", to_holder="B",
                         principal="40000000", under=under), effective="2002-12-15"),
               "2003-04-30")


def test_notes_sold_under_rule_144_leave_transfer_restricted_status_and_earn_nothing():
    """2002-09-15 (record date 2002-09-01, A holding all): 2002-09-02 to 09-15, 13 days at
    0.25%: 100,000,000 x 0.0025 x 13/360 = 9,027.78 to A.
    2003-03-15 (record date 2003-03-01): 2002-09-15 to 12-01 = 30*(12-9) + (1-15) = 76
    days at 0.25%, 12-01 to 12-15 = 14 days at 0.50%. The 40,000,000 sold under Rule 144
    on 09-15 are no Transfer Restricted Securities from that day: B earns nothing on
    them; A on its 60,000,000: 60,000,000 x (0.0025 x 76 + 0.005 x 14)/360 =
    60,000,000 x 0.26/360 = 43,333.33."""
    r = _sold("rule_144")
    paid = amounts(r)
    assert paid["2002-09-15"] == {"A": "9027.78"}
    assert paid["2003-03-15"] == {"A": "43333.33"}     # B: none


def test_notes_sold_privately_stay_restricted_and_earn_for_their_buyer():
    """As above, sold privately: the 40,000,000 stay Transfer Restricted Securities, and B,
    their Record Holder on 2003-03-01, is paid on them: 40,000,000 x 0.26/360 = 28,888.89;
    A 43,333.33 as above (together 100,000,000 x 0.26/360 = 72,222.22, as if unsold)."""
    paid = amounts(_sold("private"))
    assert paid["2002-09-15"] == {"A": "9027.78"}
    assert paid["2003-03-15"] == {"A": "43333.33", "B": "28888.89"}
