"""The bad-input corpus: malformed and rule-breaking batches given to ``deal-ledger append``.

Every row is one input file and the refusal it must get: exit code 3 (refused events) or 2
(usage), ONE line on stderr naming the input line, the field and the rule, no traceback,
and the store byte for byte as it was (head, row count, and every stored row of the event
and snapshot tables). The corpus runs on SQLite; a representative subset runs on
PostgreSQL. A byte-order mark, CRLF line ends and blank lines at the end are accepted.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

import pytest

from ledger.events import parse_event
from ledger.store import Ledger
from tests.db_access import store_rows
from tests.support import opened

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RRA, LTR = "rra", "ltr"
LEHMAN, FUND_A = "Lehman Brothers Inc.", "Fund A"


def J(type_: str, day: str, deal: str = RRA, key: str | None = None, **data: Any) -> str:
    """One event line."""
    obj: dict[str, Any] = {"type": type_, "deal": deal, "date": day, "data": data}
    if key is not None:
        obj["key"] = key
    return json.dumps(obj)


GOOD = J("TrusteeNotified", "2004-07-20")
NOTE = '"data": {"holder": "Fund A", "principal": %s}}'
ISSUE = '{"type": "NotesIssued", "deal": "rra", "date": "2004-07-20", ' + NOTE


def issue(principal: str) -> str:
    return ISSUE % principal


def convert(shares: str) -> str:
    return ('{"type": "NotesConverted", "deal": "rra", "date": "2005-01-03", "data": '
            '{"holder": "Fund A", "principal": "1000", "shares": %s}}' % shares)


def exercise(fraction: str, instrument: str = "W-2") -> str:
    return ('{"type": "WarrantsExercised", "deal": "ltr", "date": "2003-01-02", "data": '
            '{"instrument": "%s", "fraction": %s, "shares_issued": 10}}' % (instrument, fraction))


@dataclass(frozen=True)
class Case:
    id: str
    content: str | bytes
    line: int | None
    field: str | None
    phrases: tuple[str, ...]
    exit: int = 3
    pg: bool = False  # also run on PostgreSQL
    path: str | None = field(default=None)  # give this path instead of a file

    def bytes(self, ids: dict[str, str]) -> bytes:
        if isinstance(self.content, bytes):
            return self.content
        text = self.content
        for name, value in ids.items():
            text = text.replace("{" + name + "}", value)
        return text.encode("utf-8")


def lines(*ls: str) -> str:
    return "\n".join(ls) + "\n"


C = Case
CORPUS: list[Case] = [
    # ---------------------------------------------------------------- not JSON Lines
    C("json-missing-brace", lines(GOOD, GOOD[:-1]), 2, None, ("not valid JSON", "column")
      , pg=True),
    C("json-trailing-comma", lines('{"type": "ShelfEffective", "deal": "rra", '
                                   '"date": "2004-11-15", "data": {},}'), 1, None,
      ("not valid JSON at column",)),
    C("json-single-quotes", lines("{'type': 'ShelfEffective'}"), 1, None,
      ("not valid JSON", "property name")),
    C("json-two-objects-one-line", lines(GOOD + GOOD), 1, None, ("not valid JSON", "Extra data")),
    C("json-array-of-events", "[" + GOOD + ", " + GOOD + "]\n", 1, None, ("JSON array",),
      pg=True),
    C("json-array-pretty", "[\n  " + GOOD + "\n]\n", 1, None, ("JSON array",)),
    C("json-pretty-printed-object", json.dumps(json.loads(GOOD), indent=2) + "\n", 1, None,
      ("not valid JSON",)),
    C("json-bare-string", lines(GOOD, '"ShelfFiled"'), 2, None, ("must be a JSON object",)),
    C("json-number-line", lines("42"), 1, None, ("must be a JSON object",)),
    C("json-null-line", lines("null"), 1, None, ("must be a JSON object",)),
    C("json-raw-control-char", lines(GOOD[:-2] + '}, "source": "a\tb"}'), 1, None,
      ("not valid JSON", "control character")),
    C("json-duplicate-field", lines('{"type": "ShelfEffective", "type": "ShelfFiled", '
                                    '"deal": "rra", "date": "2004-11-15", "data": {}}'), 1,
      None, ("duplicate field 'type'",)),
    C("json-nested-too-deeply", lines(GOOD, '{"type": "ShelfFiled", "data": ' + "[" * 100_000),
      2, None, ("nested too deeply",)),
    C("empty-line-between", lines(GOOD, "", GOOD), 2, None, ("empty line",), pg=True),
    C("whitespace-line-between", lines(GOOD, "   \t", GOOD), 2, None, ("empty line",)),
    C("empty-file", "", None, None, ("holds no events",)),
    C("only-blank-lines", "\n\n  \n", None, None, ("holds no events",)),
    C("bom-in-the-middle", lines(GOOD, "\ufeff" + GOOD), 2, None, ("not valid JSON",)),
    C("not-utf8-latin1", lines(GOOD).encode() + (
        '{"type": "ConsentGiven", "deal": "rra", "date": "2005-01-03", "data": {"holder": '
        '"Soci\xe9t\xe9", "matter": "m"}}\n').encode("latin-1"), 2, None,
      ("not valid UTF-8", "byte 87")),
    C("not-utf8-utf16", lines(GOOD).encode("utf-16"), 1, None, ("not valid UTF-8",), pg=True),
    C("line-of-10-mb", lines(GOOD, J("ConsentGiven", "2005-01-03", holder="x" * 10_000_000,
                                     matter="m")), 2, None, ("longer than 1048576 bytes",),
      pg=True),
    C("lone-surrogate-in-text", lines(GOOD, '{"type": "ConsentGiven", "deal": "rra", "date": '
                                            '"2005-01-03", "data": {"holder": "x\\ud800", '
                                            '"matter": "m"}}'), 2, "data.holder",
      ("not valid Unicode",)),
    C("lone-surrogate-in-source", lines(GOOD[:-1] + ', "source": "\\udc80"}'), 1, "source",
      ("not valid Unicode",)),
    # ---------------------------------------------------------------- the envelope
    C("unknown-type", lines(J("ShelfFilled", "2004-07-13")), 1, "type", ("unknown event type",),
      pg=True),
    C("type-not-text", lines('{"type": 7, "deal": "rra", "date": "2004-07-13", "data": {}}'), 1,
      "type", ("unknown event type",)),
    C("missing-type", lines('{"deal": "rra", "date": "2004-07-13", "data": {}}'), 1, "type",
      ("is required",)),
    C("missing-deal", lines('{"type": "ShelfEffective", "date": "2004-11-15", "data": {}}'), 1,
      "deal", ("is required",)),
    C("missing-date", lines('{"type": "ShelfEffective", "deal": "rra", "data": {}}'), 1, "date",
      ("is required",)),
    C("missing-data", lines('{"type": "ShelfEffective", "deal": "rra", "date": "2004-11-15"}'),
      1, "data", ("is required",)),
    C("unknown-envelope-field", lines('{"type": "ShelfEffective", "deal": "rra", "date": '
                                      '"2004-11-15", "data": {}, "dat": 1}'), 1, "dat",
      ("unknown field",), pg=True),
    C("store-field-seq", lines(GOOD[:-1] + ', "seq": 99}'), 1, "seq", ("assigned by the store",)),
    C("store-field-version", lines(GOOD[:-1] + ', "v": 2}'), 1, "v", ("assigned by the store",)),
    C("store-field-hash", lines(GOOD[:-1] + ', "hash": "00"}'), 1, "hash",
      ("assigned by the store",)),
    C("data-is-a-list", lines('{"type": "ShelfEffective", "deal": "rra", "date": "2004-11-15", '
                              '"data": []}'), 1, "data", ("must be a JSON object",)),
    C("deal-name-with-slash", lines(J("ShelfEffective", "2004-11-15", deal="../rra")), 1, "deal",
      ("deal name",)),
    C("deal-name-trailing-newline", lines(J("ShelfEffective", "2004-11-15", deal="rra\n")), 1,
      "deal", ("deal name",), pg=True),
    C("terms-out-of-bounds", lines(json.dumps(opened("rra3", filing_deadline_days=10**12))),
      1, "data.terms.filing_deadline_days", ("at most 3660 days",), pg=True),
    C("terms-closing-in-9999", lines(json.dumps(opened(
        "rra3", closing_date="9999-12-31"))), 1, "data.terms.closing_date",
      ("between 1990-01-01 and 2100-12-31",)),
    C("holder-look-alike", lines(J("QuestionnaireDelivered", "2004-09-01",
                                   holder="Lehman Brothers Inc")), 1, "data.holder",
      ("'Lehman Brothers Inc' holds and held no Notes", "did you mean 'Lehman Brothers Inc.'",
       "RRA §1 Holder"), pg=True),
    C("holder-control-character", lines(J("NotesIssued", "2004-07-20", holder="Fund\u202eA",
                                          principal="1")), 1, "data.holder",
      ("control character U+202E",), pg=True),
    C("source-empty", lines(GOOD[:-1] + ', "source": ""}'), 1, "source", ("non-empty text",)),
    C("key-not-text", lines(GOOD[:-1] + ', "key": 5}'), 1, "key", ("non-empty text",)),
    # ---------------------------------------------------------------- data schemas
    C("unknown-data-field", lines(J("ShelfEffective", "2004-11-15", effective=True)), 1,
      "data.effective", ("unknown field", "ShelfEffective schema"), pg=True),
    C("missing-data-field", lines(J("NotesIssued", "2004-07-20", holder="X")), 1,
      "data.principal", ("is required", "NotesIssued schema")),
    C("wrong-type-holder", lines(J("NotesIssued", "2004-07-20", holder=5, principal="1")), 1,
      "data.holder", ("must be text",)),
    C("wrong-type-flag", lines(J("NotesTransferred", "2004-07-20", from_holder=FUND_A,
                                 to_holder="B", principal="1", under_shelf="yes")), 1,
      "data.under_shelf", ("true or false",)),
    C("enum-not-allowed", lines(J("NoticeSent", "2004-07-20", to="T", subject="s",
                                  method="email")), 1, "data.method", ("NoticeSent schema",)),
    C("holders-empty-list", lines(J("QuestionnaireRequested", "2004-09-01", holders=[])), 1,
      "data.holders", ("at least one holder",)),
    # ---------------------------------------------------------------- dates
    C("date-feb-30", lines(J("ShelfEffective", "2004-02-30")), 1, "date",
      ("not a real calendar date",), pg=True),
    C("date-us-format", lines(J("ShelfEffective", "04/07/2004")), 1, "date", ("YYYY-MM-DD",)),
    C("date-unpadded", lines(J("ShelfEffective", "2004-7-4")), 1, "date", ("YYYY-MM-DD",)),
    C("date-with-time", lines(J("ShelfEffective", "2004-07-04T00:00:00")), 1, "date",
      ("YYYY-MM-DD",)),
    C("date-as-number", lines('{"type": "ShelfEffective", "deal": "rra", "date": 20040704, '
                              '"data": {}}'), 1, "date", ("YYYY-MM-DD",)),
    C("date-year-zero", lines(J("ShelfEffective", "0000-01-01")), 1, "date",
      ("not a real calendar date",)),
    C("date-in-data", lines(J("AdditionalInterestPaid", "2005-01-18", payment_date="2005-13-15",
                              holder=LEHMAN, amount="1")), 1, "data.payment_date",
      ("not a real calendar date",)),
    C("date-before-deal-opened", lines(J("ShelfEffective", "2004-06-29")), 1, "date",
      ("before the deal was opened on 2004-06-30", "on or after its deal's opening"), pg=True),
    # ---------------------------------------------------------------- amounts
    C("amount-negative", lines(issue('"-1000"')), 1, "data.principal", ("positive amount",),
      pg=True),
    C("amount-zero", lines(issue("0")), 1, "data.principal", ("positive amount",)),
    C("amount-fractional-cent", lines(issue('"100.001"')), 1, "data.principal",
      ("more than two decimals",), pg=True),
    C("amount-fractional-cent-number", lines(issue("0.005")), 1, "data.principal",
      ("more than two decimals",)),
    C("amount-exponent-number", lines(issue("6e7")), 1, "data.principal", ("exponent",),
      pg=True),
    C("amount-exponent-text", lines(issue('"6E7"')), 1, "data.principal", ("exponent",)),
    C("amount-nan", lines(issue("NaN")), 1, "data.principal", ("finite",), pg=True),
    C("amount-infinity", lines(issue("Infinity")), 1, "data.principal", ("finite",)),
    C("amount-minus-infinity", lines(issue("-Infinity")), 1, "data.principal", ("finite",)),
    C("amount-nan-text", lines(issue('"NaN"')), 1, "data.principal", ("not a decimal number",)),
    C("amount-huge", lines(issue("100000000000000000000")), 1, "data.principal",
      ("too large",), pg=True),
    C("amount-5000-digits", lines(issue("9" * 5000)), 1, "data.principal", ("too large",)),
    C("amount-thousands-separator", lines(issue('"1,000.00"')), 1, "data.principal",
      ("not a decimal number",)),
    C("amount-true", lines(issue("true")), 1, "data.principal", ("true/false",)),
    C("amount-plus-sign", lines(issue('"+100"')), 1, "data.principal", ("not a decimal number",)),
    C("amount-null", lines(issue("null")), 1, "data.principal", ("must be a number",)),
    # ---------------------------------------------------------------- shares, fractions
    C("shares-fractional", lines(convert("10.5")), 1, "data.shares", ("whole number",), pg=True),
    C("shares-as-text", lines(convert('"10"')), 1, "data.shares", ("whole number",)),
    C("shares-one-point-zero", lines(convert("1.0")), 1, "data.shares", ("whole number",)),
    C("shares-zero", lines(convert("0")), 1, "data.shares", ("positive whole number",)),
    C("shares-negative", lines(convert("-5")), 1, "data.shares", ("positive whole number",)),
    C("shares-huge", lines(convert("1" + "0" * 50)), 1, "data.shares", ("too large",)),
    C("fraction-above-one", lines(exercise('"1.5"')), 1, "data.fraction", ("at most 1",)),
    C("fraction-zero", lines(exercise("0")), 1, "data.fraction", ("greater than 0",)),
    # ---------------------------------------------------------------- deals
    C("unknown-deal", lines(J("ShelfEffective", "2004-11-15", deal="nope")), 1, "deal",
      ("never opened",), pg=True),
    C("wrong-kind-letter-event", lines(J("CapitalizationRecorded", "2004-07-13",
                                         common_outstanding=5)), 1, "type",
      ("antidilution_deferral deal", "registration_rights deal"), pg=True),
    C("wrong-kind-rra-event", lines(J("ShelfEffective", "2004-11-15", deal=LTR)), 1, "type",
      ("registration_rights deal",)),
    C("deal-opened-twice", lines(json.dumps(opened(RRA))), 1, "deal", ("already open",)),
    C("duplicate-key-across-batches", lines(J("TrusteeNotified", "2004-07-20", key="notice-1")),
      1, "key", ("key 'notice-1' is recorded already as seq 5",
                 "with other content: type is 'NoticeSent' there and 'TrusteeNotified' here",
                 "idempotency"), pg=True),
    C("duplicate-key-in-batch", lines(J("TrusteeNotified", "2004-07-20", key="k"),
                                      J("TrusteeNotified", "2004-07-21", key="k")), 2, "key",
      ("already has an event with key 'k'",)),
    # ---------------------------------------------------------------- the deals' rules
    C("transfer-beyond-holdings", lines(J("NotesTransferred", "2004-08-02", from_holder=FUND_A,
                                          to_holder="B", principal="1000000.01")), 1,
      "data.principal", ("Fund A holds 1,000,000.00", "cannot dispose", "RRA §1"), pg=True),
    C("conversion-beyond-holdings", lines(J("NotesConverted", "2005-01-03", holder=LEHMAN,
                                            principal="60000001", shares=1)), 1,
      "data.principal", ("cannot dispose",), pg=True),
    C("retirement-by-non-holder", lines(J("NotesRetired", "2005-01-03", holder="Nobody",
                                          principal="1", reason="redeemed")), 1,
      "data.holder", ("'Nobody' holds and held no Notes", "RRA §1 Holder")),
    C("transfer-before-holding", lines(J("NotesTransferred", "2004-07-01", from_holder=FUND_A,
                                         to_holder="B", principal="1")), 1, "data.principal",
      ("holds 0.00",)),
    C("backdated-transfer-breaks-later-conversion",
      lines(J("NotesConverted", "2005-06-01", holder=FUND_A, principal="1000000", shares=65104),
            J("NotesTransferred", "2005-01-03", from_holder=FUND_A, to_holder="B",
              principal="500000")), 2, "data.principal", ("later-recorded event",)),
    C("exercise-beyond-holdings", lines(exercise('"0.5"', "W-1")), 1, "data.fraction",
      ("nothing remains",), pg=True),
    C("exercise-unknown-instrument", lines(exercise('"0.5"', "W-9")), 1, "data.instrument",
      ("not registered",)),
    C("convert-a-warrant-as-preferred",
      lines('{"type": "PreferredConverted", "deal": "ltr", "date": "2003-01-02", "data": '
            '{"instrument": "W-2", "fraction": "0.5", "shares_issued": 1}}'), 1,
      "data.instrument", ("not a preferred",)),
    C("camden-vest-beyond-issued", lines(J("CamdenWarrantsVested", "2003-01-02", deal=LTR,
                                           holder="Camden", warrants=101)), 1, "data.warrants",
      ("unvested",)),
    C("suspension-before-effectiveness", lines(J("SuspensionStarted", "2005-01-03",
                                                 material_transaction=False)), 1, "type",
      ("Effectiveness Period", "RRA §2(a)(iii), §4(b)(i)"), pg=True),
    C("suspension-while-one-is-open",
      lines(J("ShelfEffective", "2004-11-15"),
            J("SuspensionStarted", "2005-01-03", material_transaction=False),
            J("SuspensionStarted", "2005-01-10", material_transaction=True)), 3, "type",
      ("already open", "RRA §4(b)(i), §4(c)"), pg=True),
    C("suspension-ended-none-open", lines(J("SuspensionEnded", "2005-01-03")), 1, "type",
      ("no Suspension Period is open",)),
    C("shelf-filed-twice", lines(J("ShelfFiled", "2004-07-20")), 1, "type", ("already filed",)),
    C("retract-unknown-event", lines(J("EventRetracted", "2005-01-03", event_id="no-such-id",
                                       reason="x")), 1, "data.event_id", ("no event no-such-id",),
      pg=True),
    C("retract-already-retracted", lines(J("EventRetracted", "2005-01-03",
                                           event_id="{RETRACTED}", reason="again")), 1,
      "data.event_id", ("already retracted",), pg=True),
    C("retract-deal-opened", lines(J("EventRetracted", "2005-01-03", event_id="{RRA_OPENED}",
                                     reason="x")), 1, "data.event_id",
      ("every other event of the deal is retracted",)),
    C("retract-event-of-another-deal", lines(J("EventRetracted", "2005-01-03",
                                               event_id="{LTR_EVENT}", reason="x")), 1,
      "data.event_id", ("in deal rra",)),
    C("acknowledge-a-hand-notice", lines(J("NoticeAcknowledged", "2005-01-03",
                                           notice="{HAND_NOTICE}")), 1, "data.notice",
      ("only telex and fax",)),
    # issue 30: the refusals the contract implies (the base: Lehman 60,000,000, Fund A
    # 1,000,000, filed 2004-07-13, not yet effective)
    C("sale-under-the-shelf-during-a-stop-order",
      lines(J("ShelfEffective", "2004-10-01"),
            J("ShelfUnusable", "2005-03-01", reason="stop_order"),
            J("NotesTransferred", "2005-03-10", from_holder=LEHMAN, to_holder="B",
              principal="1000000", under_shelf=True)), 3, "data.under_shelf",
      ("ceased to be effective or usable on 2005-03-01", "under_shelf=false",
       "RRA §1 Transfer Restricted Securities (A)"), pg=True),
    C("sale-under-the-shelf-in-a-suspension-period",
      lines(J("ShelfEffective", "2004-10-01"),
            J("SuspensionStarted", "2005-03-01", material_transaction=False),
            J("NotesTransferred", "2005-03-10", from_holder=LEHMAN, to_holder="B",
              principal="1000000", under_shelf=True)), 3, "data.under_shelf",
      ("inside the Suspension Period begun 2005-03-01", "under_shelf=false", "RRA §4(c)")),
    C("sale-under-the-shelf-by-a-holder-not-named",
      lines(J("QuestionnaireRequested", "2004-08-02", holders="all"),
            J("QuestionnaireDelivered", "2004-08-10", holder=LEHMAN),
            J("ShelfEffective", "2004-10-01"),
            J("NotesTransferred", "2005-01-10", from_holder=FUND_A, to_holder="B",
              principal="1000000", under_shelf=True)), 4, "data.under_shelf",
      ("Fund A was asked for its Questionnaire on 2004-08-02", "under_shelf=false",
       "RRA §4(d)")),
    C("notes-past-the-maximum", lines(issue('"11000000.01"')), 1, "data.principal",
      ("72,000,000.01 of Notes issued", "terms.maximum_principal", "RRA preamble")),
    C("acknowledged-before-sent", lines(J("NoticeAcknowledged", "2005-03-05",
                                          notice="{FAX_NOTICE}")), 1, "date",
      ("was sent on 2005-03-10", "RRA §10(E)")),
    C("bad-line-last-of-five", lines(GOOD, GOOD, GOOD, GOOD, issue('"-1"')), 5,
      "data.principal", ("positive amount",), pg=True),
    # ---------------------------------------------------------------- the input itself
    C("input-file-missing", "", None, None, ("cannot read", "No such file"), exit=2,
      path="does-not-exist.jsonl"),
    C("input-is-a-directory", "", None, None, ("cannot read", "directory"), exit=2, path="."),
]

ACCEPTED = [
    ("bom", b"\xef\xbb\xbf" + lines(GOOD).encode(), 1),
    ("crlf", lines(GOOD, J("HoldersAdvised", "2004-07-21")).replace("\n", "\r\n").encode(), 2),
    ("bom-and-crlf", b"\xef\xbb\xbf" + lines(GOOD, J("HoldersAdvised", "2004-07-21"))
     .replace("\n", "\r\n").encode(), 2),
    ("blank-lines-at-the-end", (lines(GOOD) + "\n\n \n").encode(), 1),
    ("no-final-newline", GOOD.encode(), 1),
]


# ------------------------------------------------------------------------ fixtures


def build_base(url: str) -> dict[str, str]:
    """A small ledger with both deals; returns the ids the corpus refers to."""
    rra = [opened(RRA),
           json.loads(J("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000")),
           json.loads(J("NotesIssued", "2004-07-09", holder=FUND_A, principal="1000000")),
           json.loads(J("ShelfFiled", "2004-07-13")),
           json.loads(J("NoticeSent", "2004-07-14", key="notice-1", to="Trustee", subject="s",
                        method="hand")),
           json.loads(J("NoticeSent", "2004-07-15", to="Trustee", subject="s", method="fax"))]
    ltr = [opened(LTR, "infocrossing-letter-2002"),
           json.loads(J("InstrumentRegistered", "2002-02-01", deal=LTR, instrument="W-1",
                        holder="H", kind="warrant", shares=1000, exercise_price="4.00")),
           json.loads(J("InstrumentRegistered", "2002-02-01", deal=LTR, instrument="W-2",
                        holder="H", kind="warrant", shares=1000, exercise_price="4.00")),
           json.loads(J("CamdenWarrantsIssued", "2002-02-01", deal=LTR, holder="Camden",
                        warrants=100, exercise_price="2.00")),
           json.loads(J("WarrantsExercised", "2003-01-02", deal=LTR, instrument="W-1",
                        fraction="1", shares_issued=1000))]
    with Ledger(url) as ledger:
        ledger.append([parse_event(o, line=i + 1) for i, o in enumerate(rra + ltr)], user="t")
        records = list(ledger.records())
        fax = records[5]["id"]
        ledger.append([parse_event(json.loads(J("EventRetracted", "2004-07-16", event_id=fax,
                                                reason="sent twice")))], user="t")
        ledger.append([parse_event(json.loads(J("NoticeSent", "2005-03-10", to="Trustee",
                                                subject="s", method="fax")))], user="t")
        fax_live = list(ledger.records())[-1]["id"]
    return {"RETRACTED": fax, "RRA_OPENED": records[0]["id"], "HAND_NOTICE": records[4]["id"],
            "LTR_EVENT": records[7]["id"], "FAX_NOTICE": fax_live}


@pytest.fixture(scope="module")
def sqlite_base(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("base") / "base.db")
    ids = build_base(path)
    return path, ids


@pytest.fixture
def sqlite_ledger(sqlite_base, tmp_path):
    path, ids = sqlite_base
    copy = str(tmp_path / "ledger.db")
    shutil.copyfile(path, copy)
    os.chmod(copy, 0o600)
    return copy, ids


@pytest.fixture(scope="module")
def pg_base():
    from tests.conftest import drop_pg, fresh_pg_url

    url = fresh_pg_url()
    ids = build_base(url)
    yield url, ids
    drop_pg(url)


# ------------------------------------------------------------------------ running


def invoke(args: list[str], **kwargs: Any):
    """Run the CLI in-process. An exception other than SystemExit is what the real
    entry point turns into exit 70 (internal error): a bug, so the test fails on it."""
    from click.testing import CliRunner

    from cli.main import cli

    result = CliRunner().invoke(cli, args, catch_exceptions=True, **kwargs)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"internal error (exit 70) on {args}: {result.exception!r}"
                             ) from result.exception
    return result


def fingerprint(url: str) -> tuple:
    with Ledger(url, create=False) as ledger:
        head = ledger.head()
        count = sum(1 for _ in ledger.records())
    return head, count, store_rows(url)


def check_refusal(case: Case, message: str) -> None:
    assert "Traceback" not in message
    lines_out = message.strip("\n").split("\n")
    assert len(lines_out) == 1, f"more than one line on stderr: {message!r}"
    text = lines_out[0]
    assert text.startswith("error: "), text
    if case.line is not None:
        assert text.startswith(f"error: line {case.line}"), text
    if case.field is not None:
        assert f"field '{case.field}'" in text, text
    for phrase in case.phrases:
        assert phrase in text, f"{phrase!r} not in {text!r}"


def append_case(case: Case, url: str, ids: dict[str, str], workdir) -> Any:
    if case.path is not None:
        source = str(workdir / case.path) if case.path != "." else str(workdir)
    else:
        source = str(workdir / f"{case.id}.jsonl")
        with open(source, "wb") as fh:
            fh.write(case.bytes(ids))
    return invoke(["append", source, "--db", url, "--user", "corpus"])


# ------------------------------------------------------------------------ tests


def test_the_corpus_is_big_enough():
    assert len(CORPUS) >= 60
    assert len({c.id for c in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("case", CORPUS, ids=[c.id for c in CORPUS])
def test_refused_on_sqlite(case, sqlite_ledger, tmp_path):
    url, ids = sqlite_ledger
    before = fingerprint(url)
    result = append_case(case, url, ids, tmp_path)
    assert result.exit_code == case.exit, result.output
    assert result.stdout == ""
    check_refusal(case, result.stderr)
    assert fingerprint(url) == before


PG_CASES = [c for c in CORPUS if c.pg]


@pytest.mark.postgres
@pytest.mark.parametrize("case", PG_CASES, ids=[c.id for c in PG_CASES])
def test_refused_on_postgres(case, pg_base, tmp_path):
    url, ids = pg_base
    before = fingerprint(url)
    result = append_case(case, url, ids, tmp_path)
    assert result.exit_code == case.exit, result.output
    check_refusal(case, result.stderr)
    assert fingerprint(url) == before


def test_postgres_subset_is_representative():
    assert len(PG_CASES) >= 25


@pytest.mark.parametrize("name, content, n", ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_accepted_encodings(name, content, n, sqlite_ledger, tmp_path):
    url, _ids = sqlite_ledger
    head, count, _rows = fingerprint(url)
    source = tmp_path / "in.jsonl"
    source.write_bytes(content)
    result = invoke(["append", str(source), "--db", url])
    assert result.exit_code == 0, result.output
    with Ledger(url, create=False) as ledger:
        records = list(ledger.records())
    assert len(records) == count + n
    assert [r["type"] for r in records[count:]][0] == "TrusteeNotified"


@pytest.mark.parametrize("case", [c for c in CORPUS if c.id in (
    "json-missing-brace", "not-utf8-latin1", "json-nested-too-deeply", "lone-surrogate-in-text",
    "conversion-beyond-holdings", "input-file-missing")], ids=lambda c: c.id)
def test_refused_by_the_installed_command(case, sqlite_ledger, tmp_path):
    """The real entry point (``cli.main:main`` in a fresh process): same one line, same
    exit code, no traceback, nothing written."""
    url, ids = sqlite_ledger
    before = fingerprint(url)
    if case.path is None:
        source = tmp_path / "in.jsonl"
        source.write_bytes(case.bytes(ids))
    else:
        source = tmp_path / case.path
    env = {k: v for k, v in os.environ.items() if k != "DEAL_LEDGER_DEBUG"}
    proc = subprocess.run([sys.executable, "-c", "from cli.main import main; main()", "append",
                           str(source), "--db", url], cwd=ROOT, capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == case.exit, proc.stderr
    assert proc.stdout == ""
    check_refusal(case, proc.stderr)
    assert fingerprint(url) == before


def test_refusal_of_standard_input(sqlite_ledger):
    url, _ids = sqlite_ledger
    before = fingerprint(url)
    result = invoke(["append", "-", "--db", url], input=lines(GOOD, issue("0")))
    assert result.exit_code == 3
    check_refusal(Case("stdin", "", 2, "data.principal", ("positive amount",)), result.stderr)
    assert fingerprint(url) == before


@pytest.mark.parametrize("make, phrase", [
    (lambda d: d / "notes.txt", "not a SQLite database"),
    (lambda d: d / "views.db", "not a ledger"),
    (lambda d: d, "is a directory"),
    (lambda d: ":memory:", "not a ledger file path"),
    (lambda d: d / "no" / "such" / "dir.db", "no such directory"),
    (lambda d: "postgresql://u@127.0.0.1:notaport/db", "bad port"),
    (lambda d: "postgresql://u@127.0.0.1:5432/db?sslmode=require", "URL options"),
])
def test_a_db_that_is_not_a_ledger_is_refused(tmp_path, make, phrase):
    """``--db`` naming something else: exit 5, one line, and the thing left alone."""
    import sqlite3

    (tmp_path / "notes.txt").write_text("hello\n")
    c = sqlite3.connect(tmp_path / "views.db")
    c.execute("CREATE TABLE deadlines (x)")
    c.commit()
    c.close()
    target = str(make(tmp_path))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    source = tmp_path / "in.jsonl"
    source.write_text(GOOD + "\n")
    before["in.jsonl"] = source.read_bytes()
    result = invoke(["append", str(source), "--db", target])
    assert result.exit_code == 5, result.output
    assert len(result.stderr.strip().split("\n")) == 1 and phrase in result.stderr
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
