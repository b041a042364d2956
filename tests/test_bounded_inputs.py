"""Every input bounded (issue 11, items 6-12): deal terms a real deal could have, and how a
deal opened with wrong terms is corrected; --as-of and --known-at at the ends of the
calendar; look-alike names; a --db that is not a regular file; formula-like CSV cells;
leftovers of a killed export; views that could not be made; malformed PostgreSQL URLs.

Each refusal is checked the same way (``tests.cli_support.refused_unchanged``): the exit
code, one line on stderr naming the field, nothing on stdout, no traceback, and the SQLite
ledger byte for byte as it was.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import time
import unicodedata

import pytest

from ledger.events import parse_event
from ledger.store import Ledger
from ledger.terms import TEMPLATES, validate_terms
from tests.cli_support import ok, refused, refused_unchanged, run
from tests.support import ev, opened
from tests.test_terms import letter, refused_term, rra_terms

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RRA, LTR = "rra", "ltr"
LEHMAN, FUND_A = "Lehman Brothers Inc.", "Fund A"
BENAKE_NFC = unicodedata.normalize("NFC", "Benaké L.P.")
BENAKE_NFD = unicodedata.normalize("NFD", "Benaké L.P.")
RRA_KIND, LTR_KIND = "registration_rights", "antidilution_deferral"


def line(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False) + "\n"


def records(db: str) -> list[dict]:
    with Ledger(db, create=False) as ledger:
        return list(ledger.records())


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> str:
    """Both deals, Lehman with 60,000,000 and Benaké (NFC) with 1,000,000 of Notes."""
    path = str(tmp_path_factory.mktemp("bounded") / "base.db")
    objs = [opened(RRA),
            ev("NotesIssued", "2004-06-30", holder=LEHMAN, principal="60000000"),
            ev("NotesIssued", "2004-07-09", holder=BENAKE_NFC, principal="1000000"),
            opened(LTR, "infocrossing-letter-2002")]
    with Ledger(path) as ledger:
        ledger.append([parse_event(o) for o in objs], user="t")
    assert not os.path.exists(path + "-wal") or os.path.getsize(path + "-wal") == 0
    return path


@pytest.fixture
def db(base, tmp_path) -> str:
    copy = str(tmp_path / "ledger.db")
    shutil.copyfile(base, copy)
    return copy


def report(db: str, deal: str = RRA, *extra: str) -> dict:
    return json.loads(ok(run("report", deal, "--db", db, "--json", *extra)))


# ============================================================ 6. deal terms bounded

# Version 1 terms (the flat names deals were opened with before issue 33) read as version
# 2: each refusal names the version 2 term it became (``ledger.terms_v1``).
@pytest.mark.parametrize("term, terms, phrase", [
    ("filing.count", rra_terms(filing_deadline_days=10**12), "at most 3660 days"),
    ("effectiveness.count", rra_terms(effectiveness_deadline_days=10**9),
     "at most 3660 days"),
    ("effectiveness_period.ends.0.years", rra_terms(effectiveness_period_years=8000),
     "from 1 to 50 years"),
    ("closing_date", rra_terms(closing_date="9999-12-31"),
     "between 1990-01-01 and 2100-12-31"),
    ("closing_date", rra_terms(closing_date="1989-12-31"),
     "between 1990-01-01 and 2100-12-31"),
    ("suspensions.windows.1.in_days",
     rra_terms(suspension_limits={"long_window_days": 10**9}), "at most 3660 days"),
    ("suspensions.windows.0.days", rra_terms(suspension_limits={"window_limit": 91}),
     "91 days cannot fit in a window of 90 days"),
    ("suspensions.single.material_days",
     rra_terms(suspension_limits={"single_material": 30}), "at least days (45)"),
    ("defaults.unusable.cure.count", rra_terms(cure_business_days=10**7),
     "at most 260 Business Days"),
    ("questionnaire.deadline.count", rra_terms(questionnaire_business_days=10**7),
     "at most 260 Business Days"),
    ("questionnaire.late_amendment.within.count", rra_terms(amendment_business_days=261),
     "at most 260 Business Days"),
    ("trustee_notice.within.count", rra_terms(trustee_notice_business_days=10**7),
     "at most 260 Business Days"),
    ("advise_holders.within.count", rra_terms(advise_holders_business_days=10**7),
     "at most 260 Business Days"),
    ("notices.methods.1.count", rra_terms(mail_notice_business_days=10**7),
     "at most 260 days"),
    ("questionnaire.form_deadline.count", rra_terms(questionnaire_form_days=3661),
     "at most 3660 days"),
    ("filing.count", rra_terms(filing_deadline_days="15"), "valid integer"),
    ("damages.steps.0.set", rra_terms(rates={"first": "-0.25"}), "must not be negative"),
    ("damages.steps.3.add", rra_terms(rates={"step": "25.01"}), "at most 25"),
    ("damages.steps.1.after_days", rra_terms(rates={"first_days": 3661}), "from 0 to 3660"),
    ("damages.steps.3.anniversary", rra_terms(rates={"step_from_anniversary": 1}),
     "at least the anniversary before it (2)"),
    ("maturity", rra_terms(maturity="2004-06-01"), "must be after the first Interest Payment"),
    ("maturity", rra_terms(maturity="2054-07-15"), "within 50 years of the closing date"),
    ("payment.first_interest_payment_date",
     rra_terms(first_interest_payment_date="2004-06-15"),
     "after the closing date 2004-06-30 and within a year"),
    ("payment.first_interest_payment_date",
     rra_terms(first_interest_payment_date="2006-01-15"), "within a year"),
    ("payment.first_interest_payment_date",
     rra_terms(first_interest_payment_date="2005-01-16"),
     "not on one of the interest_payment_dates (01-15, 07-15)"),
    ("effectiveness.count", rra_terms(effectiveness_deadline_days=10),
     "at least filing.count (15)"),
    ("payment.interest_payment_dates.1", rra_terms(interest_payment_dates=["01-15", "01-15"]),
     "listed twice"),
    ("payment.record_dates.1", rra_terms(record_dates=["01-01", "01-01"]), "listed twice"),
])
def test_rra_terms_out_of_bounds_are_refused_naming_the_term(term, terms, phrase):
    refused_term(RRA_KIND, terms, term, phrase)


@pytest.mark.parametrize("term, terms, phrase", [
    ("agreement_date", letter(agreement_date="2101-01-01", true_up_cutoff="2102-01-01"),
     "between 1990-01-01 and 2100-12-31"),
    ("true_up_cutoff", letter(true_up_cutoff="2002-02-01"), "after the agreement date"),
    ("true_up_cutoff", letter(true_up_cutoff="2052-02-02"), "within 50 years"),
    ("warrantholders.1", letter(warrantholders=["Benake L.P.", " Benake L.P. "]),
     "listed twice"),
    ("camden_entities.0", letter(camden_entities=["Camden\u200bPartners"]),
     "control character U+200B"),
])
def test_letter_terms_out_of_bounds_are_refused_naming_the_term(term, terms, phrase):
    refused_term(LTR_KIND, terms, term, phrase)


def test_terms_at_their_bounds_are_accepted():
    """The edges themselves are terms a deal may have."""
    edge = rra_terms(closing_date="2100-12-31", first_interest_payment_date="2101-01-15",
                     maturity="2150-12-31", filing_deadline_days=3660,
                     effectiveness_deadline_days=3660, effectiveness_period_years=50,
                     rates={"first": "0", "step": "25"})
    assert validate_terms(RRA_KIND, edge)["maturity"] == "2150-12-31"
    assert validate_terms(RRA_KIND, edge)["effectiveness_period"]["ends"][0]["years"] == 50
    early = rra_terms(closing_date="1990-01-01", first_interest_payment_date="1990-07-15",
                      maturity="1991-01-15")
    assert validate_terms(RRA_KIND, early)["closing_date"] == "1990-01-01"


def test_the_templates_are_within_the_bounds():
    for t in TEMPLATES.values():
        assert validate_terms(t["kind"], t["terms"]) == t["terms"]


@pytest.mark.parametrize("changes, field", [
    ({"filing_deadline_days": 10**12}, "data.terms.filing.count"),
    ({"closing_date": "9999-12-31"}, "data.terms.closing_date"),
    ({"rates": {"first": "-1"}}, "data.terms.damages.steps.0.set"),
    ({"maturity": "2004-01-01"}, "data.terms.maturity"),
])
def test_init_with_terms_out_of_bounds_is_refused_and_writes_nothing(db, tmp_path, changes,
                                                                      field):
    spec = {"kind": RRA_KIND, "name": "n", "date": "2004-06-30", "terms": rra_terms(**changes)}
    terms_file = tmp_path / "terms.json"
    terms_file.write_text(json.dumps(spec))
    message = refused_unchanged(db, 3, "init", "other", "--terms", str(terms_file), "--db", db)
    assert f"field '{field}'" in message


def _recorded_at(db: str, event_type: str, deal: str = "fix") -> list[str]:
    return [r["recorded_at"] for r in records(db) if r["type"] == event_type
            and r["deal"] == deal]


def test_a_deal_opened_with_wrong_terms_is_retracted_and_opened_again(db, tmp_path):
    """RRA §2(a)(i): the filing deadline is 15 days after the Closing Date 2004-06-30:
    2004-07-15. Opened by mistake with 30 days (2004-06-30 + 30 = 2004-07-30), the deal is
    corrected by retracting its events, then its DealOpened, and opening it again; the
    report as known before the correction still shows what was known then."""
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"kind": RRA_KIND, "name": "n", "date": "2004-06-30",
                                 "terms": rra_terms(filing_deadline_days=30)}))
    ok(run("init", "fix", "--terms", str(wrong), "--db", db))
    ok(run("record", "NotesIssued", "--deal", "fix", "--date", "2004-06-30", "--db", db,
           f"holder={LEHMAN}", "principal=60000000"))
    assert report(db, "fix")["registration"]["filing_deadline"] == "2004-07-30"
    by_type = {r["type"]: r["id"] for r in records(db) if r["deal"] == "fix"}
    opened_id, issued_id = by_type["DealOpened"], by_type["NotesIssued"]

    # the DealOpened cannot go while another event of the deal counts
    message = refused_unchanged(db, 3, "retract", opened_id, "--reason", "wrong terms",
                                "--db", db)
    assert "every other event of the deal is retracted" in message and issued_id in message
    ok(run("retract", issued_id, "--reason", "re-entered after the deal is reopened",
           "--db", db))
    ok(run("retract", opened_id, "--reason", "filing deadline is 15 days", "--db", db))
    (closed_at,) = _recorded_at(db, "EventRetracted")[-1:]

    # closed: no report, no event, until it is opened again
    message = refused_unchanged(db, 2, "report", "fix", "--db", db)
    assert "DealOpened is retracted" in message
    message = refused_unchanged(db, 3, "record", "TrusteeNotified", "--deal", "fix", "--date",
                                "2004-07-20", "--db", db)
    assert "DealOpened was retracted; open it again" in message
    views_out = str(tmp_path / "views.db")
    assert run("views", "--out", views_out, "--db", db, "--as-of", "2005-01-31").exit_code == 1

    ok(run("init", "fix", "--template", "infocrossing-rra-2004", "--db", db))
    ok(run("record", "NotesIssued", "--deal", "fix", "--date", "2004-06-30", "--db", db,
           f"holder={LEHMAN}", "principal=60000000"))
    now = report(db, "fix", "--as-of", "2005-01-31")
    assert now["registration"]["filing_deadline"] == "2004-07-15"
    assert now["additional_interest"]["by_holder"].keys() == {LEHMAN}
    # as known before the correction: the wrong terms, as they were recorded
    (first_opened_at, _again) = _recorded_at(db, "DealOpened")
    before = report(db, "fix", "--as-of", "2005-01-31", "--known-at", first_opened_at)
    assert before["registration"]["filing_deadline"] == "2004-07-30"
    # explain cites the DealOpened in force as known then
    old_id, new_id = [r["id"] for r in records(db) if r["type"] == "DealOpened"
                      and r["deal"] == "fix"]
    for extra, cited in (((), new_id), (("--known-at", first_opened_at), old_id)):
        shown = json.loads(ok(run("explain", "fix", "additional_interest.day_count", "--json",
                                  "--as-of", "2005-01-31", "--db", db, *extra)))
        assert [e["id"] for e in shown["explanation"]["events"]] == [cited]
    # between the retraction and the new DealOpened, the deal had no terms
    assert "DealOpened is retracted" in refused(
        run("report", "fix", "--db", db, "--known-at", closed_at), 2)
    ok(run("verify", "--db", db))
    assert run("views", "--out", views_out, "--db", db, "--as-of", "2005-01-31").exit_code == 0


def test_a_deal_stored_with_unbounded_terms_is_named_and_can_be_corrected(db):
    """A ledger written before terms were bounded may hold a 10**12-day filing deadline
    (stored here past the input check, as then): its report names the term in one line
    instead of an internal error, and the deal is corrected by retracting its DealOpened
    and opening it again (RRA §2(a)(i): 15 days after 2004-06-30 is 2004-07-15)."""
    from datetime import date

    from ledger.events import NewEvent

    from tests.support import INFOCROSSING_V1

    terms = {**INFOCROSSING_V1, "filing_deadline_days": 10**12}
    with Ledger(db) as ledger:
        ledger.append([NewEvent("DealOpened", "old", date(2004, 6, 30),
                                {"kind": RRA_KIND, "name": "n", "terms": terms})], user="then")
    message = refused_unchanged(db, 3, "report", "old", "--as-of", "2005-01-31", "--db", db)
    assert "field 'DealOpened'" in message
    assert "terms.filing.count: must be at most 3660 days" in message
    opened_id = records(db)[-1]["id"]
    ok(run("retract", opened_id, "--reason", "filing deadline is 15 days", "--db", db))
    ok(run("init", "old", "--template", "infocrossing-rra-2004", "--db", db))
    assert report(db, "old", "--as-of", "2005-01-31")["registration"]["filing_deadline"] == \
        "2004-07-15"


def test_a_deal_opened_twice_is_still_refused(db):
    message = refused_unchanged(db, 3, "init", RRA, "--template", "infocrossing-rra-2004",
                                "--db", db)
    assert "already open" in message


# ============================================================ 7. calendar extremes

EXTREMES = [("--as-of", "9999-12-31"), ("--as-of", "0001-01-01"),
            ("--known-at", "0001-01-01T00:00:00+14:00"),
            ("--known-at", "9999-12-31T23:59:59-12:00"),
            ("--as-of", "2201-01-01"), ("--as-of", "1899-12-31"),
            ("--known-at", "1899-12-31"), ("--known-at", "1900-01-01T00:00:00+14:00")]

COMMANDS = {
    "report": ["report", RRA],
    "status": ["status", RRA],
    "deadlines": ["deadlines", RRA],
    "interest": ["interest", RRA],
    "suspensions": ["suspensions", RRA],
    "consents": ["consents", RRA],
    "trueup": ["trueup", LTR],
    "instruments": ["instruments", LTR],
    "explain": ["explain", RRA, "registration.filing_deadline"],
    "whatif": ["whatif", RRA, "--interpret", "default_date=first_breach_day"],
    "export": ["export", RRA, "--out", "PACK"],
    "history": ["history", RRA, "--figure", "registration.filing_deadline"],
    "views": ["views", "--out", "VIEWS"],
}
AS_OF_ONLY = ("history", "views")


@pytest.mark.parametrize("option, value", EXTREMES, ids=[f"{o}={v}" for o, v in EXTREMES])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_calendar_extremes_are_refused_in_one_line(db, tmp_path, command, option, value):
    if command in AS_OF_ONLY and option == "--known-at":
        pytest.skip(f"{command} has no --known-at")
    args = [str(tmp_path / a) if a in ("PACK", "VIEWS") else a for a in COMMANDS[command]]
    message = refused_unchanged(db, 2, *args, option, value, "--db", db)
    assert f"field '{option}'" in message and "the years 1900 to 2200" in message
    assert not os.path.exists(tmp_path / "PACK") and not os.path.exists(tmp_path / "VIEWS")


@pytest.mark.parametrize("command", [c for c in COMMANDS if c not in ("export", "views")])
@pytest.mark.parametrize("as_of", ["1900-01-01", "2200-12-31"])
def test_the_ends_of_the_accepted_range_are_answered(db, command, as_of):
    ok(run(*COMMANDS[command], "--as-of", as_of, "--db", db))


def test_known_at_at_the_end_of_the_range_is_answered(db):
    late = report(db, RRA, "--as-of", "2005-01-31", "--known-at", "2200-12-31T23:59:59Z")
    assert late == report(db, RRA, "--as-of", "2005-01-31") | {
        "known_at": "2200-12-31T23:59:59.000000Z"}
    early = refused(run("report", RRA, "--db", db, "--known-at", "1900-01-01T00:00:00Z"), 2)
    assert "not yet opened" in early


# ============================================================ 8. look-alike names

def test_a_deal_name_with_a_trailing_newline_is_refused(db):
    bad = {**opened("infocrossing-rra-2004\n")}
    message = refused_unchanged(db, 3, "append", "-", "--db", db, input=line(bad))
    assert "field 'deal'" in message and "deal name" in message
    message = refused_unchanged(db, 3, "init", "rra2\n", "--template", "infocrossing-rra-2004",
                                "--db", db)
    assert "field 'deal'" in message


HOLDER_EVENTS = [
    ("QuestionnaireDelivered", "holder", {}),
    ("ConsentGiven", "holder", {"matter": "waive §4(b)(iii)"}),
    ("AdditionalInterestPaid", "holder", {"payment_date": "2005-01-15", "amount": "1.00"}),
    ("HolderAffiliation", "holder", {"company_affiliate": True}),
    ("NotesTransferred", "from_holder", {"to_holder": "Fund B", "principal": "1"}),
    ("NotesConverted", "holder", {"principal": "1000", "shares": 65}),
    ("NotesRetired", "holder", {"principal": "1", "reason": "redeemed"}),
]


@pytest.mark.parametrize("event_type, field, data", HOLDER_EVENTS,
                         ids=[h[0] for h in HOLDER_EVENTS])
@pytest.mark.parametrize("name", ["Lehman Brothers Inc", "lehman brothers inc.",
                                  "Lehman  Brothers Inc."])
def test_an_event_naming_no_holder_is_refused_with_the_closest_name(db, event_type, field,
                                                                    data, name):
    obj = ev(event_type, "2005-01-18", **{field: name, **data})
    message = refused_unchanged(db, 3, "append", "-", "--db", db, input=line(obj))
    assert f"field 'data.{field}'" in message
    assert f"{name!r} holds and held no Notes of deal rra" in message
    assert f"did you mean {LEHMAN!r}?" in message and "[RRA §1 Holder]" in message


def test_a_name_like_no_holder_lists_the_holders(db):
    obj = ev("ConsentGiven", "2005-01-18", holder="Zeta Capital", matter="m")
    message = refused_unchanged(db, 3, "append", "-", "--db", db, input=line(obj))
    assert f"its Holders: {BENAKE_NFC!r}, {LEHMAN!r}" in message


@pytest.mark.parametrize("event_type, field, data", HOLDER_EVENTS,
                         ids=[h[0] for h in HOLDER_EVENTS])
def test_the_same_event_naming_the_holder_is_accepted(db, event_type, field, data):
    ok(run("append", "-", "--db", db, input=line(
        ev(event_type, "2005-01-18", **{field: LEHMAN, **data}))))


def test_a_holder_made_in_the_same_batch_or_by_a_transfer_counts(db):
    ok(run("append", "-", "--db", db, input=(
        line(ev("NotesIssued", "2004-08-02", holder="Fund C", principal="100"))
        + line(ev("ConsentGiven", "2004-08-03", holder="Fund C", matter="m"))
        + line(ev("NotesTransferred", "2004-08-04", from_holder="Fund C", to_holder="Fund D",
                  principal="100"))
        + line(ev("QuestionnaireDelivered", "2004-08-05", holder="Fund D")))))


def test_a_retracted_issuance_makes_no_holder(db):
    ok(run("record", "NotesIssued", "--deal", RRA, "--date", "2004-08-02", "--db", db,
           "holder=Typo Fund", "principal=100"))
    issued = records(db)[-1]["id"]
    ok(run("retract", issued, "--reason", "typo", "--db", db))
    message = refused_unchanged(db, 3, "record", "ConsentGiven", "--deal", RRA, "--date",
                                "2004-08-03", "--db", db, "holder=Typo Fund", "matter=m")
    assert "'Typo Fund' holds and held no Notes" in message


def test_names_are_nfc_and_stripped_on_input(db):
    """An NFD "Benaké L.P." and "Lehman Brothers Inc. " are the Holders already there:
    stored in NFC without the space, so a consent by either counts, and a payment to the
    trailing-space Lehman is Lehman's, not a second Holder's."""
    ok(run("append", "-", "--db", db, input=(
        line(ev("ConsentGiven", "2004-08-03", holder=BENAKE_NFD, matter="m"))
        + line(ev("NotesTransferred", "2004-08-04", from_holder=BENAKE_NFD,
                  to_holder="  Fund E\u00a0", principal="1000")))))
    ok(run("record", "AdditionalInterestPaid", "--deal", RRA, "--date", "2005-01-18", "--db",
           db, "holder=Lehman Brothers Inc. ", "payment_date=2005-01-15", "amount=1.00"))
    stored = records(db)[-3:]
    assert stored[0]["data"]["holder"] == BENAKE_NFC
    assert stored[1]["data"]["from_holder"] == BENAKE_NFC
    assert stored[1]["data"]["to_holder"] == "Fund E"
    assert stored[2]["data"]["holder"] == LEHMAN
    rep = report(db, RRA, "--as-of", "2005-01-31")
    assert set(rep["additional_interest"]["payments"][0]["paid"]) == {LEHMAN}
    ok(run("verify", "--db", db))


@pytest.mark.parametrize("name, code", [("Lehman\u202eInc.", "U+202E"),
                                        ("Lehman\nBrothers", "U+000A"),
                                        ("Lehman\u200bBrothers Inc.", "U+200B"),
                                        ("Lehman\u0000", "U+0000")])
def test_control_characters_in_a_name_are_refused(db, name, code):
    obj = ev("NotesIssued", "2004-08-02", holder=name, principal="1")
    message = refused_unchanged(db, 3, "append", "-", "--db", db, input=line(obj))
    assert "field 'data.holder'" in message and f"control character {code}" in message


def test_normalising_new_input_leaves_stored_hashes_alone(tmp_path):
    """A v1 ledger written before names were normalised still verifies: records are
    hashed as stored, never re-normalised."""
    copy = str(tmp_path / "v1.db")
    shutil.copyfile(os.path.join(ROOT, "tests", "data", "ledger-v1.db"), copy)
    assert run("verify", "--db", copy).exit_code == 0


# ============================================================ 9. a --db that is not a file

def _run_entry_point(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "DEAL_LEDGER_DEBUG"}
    return subprocess.run([sys.executable, "-c", "from cli.main import main; main()", *args],
                          cwd=ROOT, capture_output=True, text=True, env=env, timeout=60,
                          input=line(ev("TrusteeNotified", "2004-07-20")))


@pytest.mark.parametrize("args", [["log"], ["report", RRA], ["verify"],
                                  ["record", "TrusteeNotified", "--deal", RRA, "--date",
                                   "2004-07-20"], ["append", "-"]])
def test_a_fifo_as_db_is_refused_at_once(tmp_path, args):
    fifo = str(tmp_path / "ledger.db")
    os.mkfifo(fifo)
    started = time.monotonic()
    proc = _run_entry_point(*args, "--db", fifo)
    assert time.monotonic() - started < 30
    assert proc.returncode == 5, proc.stderr
    assert proc.stdout == "" and proc.stderr.count("\n") == 1
    assert "is a FIFO (named pipe), not a ledger file" in proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["ledger.db"]  # no lock or journal beside it


def test_a_device_as_db_is_refused():
    from ledger.store.connection import check_regular_file
    from ledger.errors import StoreError

    with pytest.raises(StoreError, match="is a device, not a ledger file"):
        check_regular_file("/dev/null")
    check_regular_file("/no/such/ledger.db")  # a new ledger: nothing to refuse yet


# ============================================================ 10. CSV formula injection

@pytest.mark.parametrize("text, written", [
    ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
    ("+1+1", "'+1+1"), ("-1+1", "'-1+1"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"),
    ("\rx", "'\rx"), ("-", "'-"),
    ("-5.00", "-5.00"), ("-5", "-5"), ("5.00", "5.00"), ("Lehman Brothers Inc.", "Lehman Brothers Inc."),
    ("a=b", "a=b"), ("", ""),
])
def test_csv_text_cells_are_neutralised_and_numbers_kept(text, written):
    from publishing.pack import csv_safe

    assert csv_safe(text) == written


def test_a_formula_named_holder_is_neutralised_in_the_pack(db, tmp_path):
    """No ShelfFiled: default (i) accrues from 2004-07-16, so every Holder of record has an
    amount for 2005-01-15; the formula-like names get a leading quote in the CSV, the
    amounts are the report's exactly, and the pack verifies."""
    names = ['=HYPERLINK("http://evil","x")', "+Fund", "-Fund", "@Fund"]
    ok(run("append", "-", "--db", db, input="".join(
        line(ev("NotesIssued", "2004-06-30", holder=n, principal="1000000")) for n in names)))
    pack = str(tmp_path / "pack")
    ok(run("export", RRA, "--out", pack, "--as-of", "2005-06-30", "--db", db))
    with open(os.path.join(pack, "additional_interest.csv"), newline="",
              encoding="utf-8-sig") as fh:   # the pack's CSVs start with a byte order mark
        rows = [r for r in csv.DictReader(fh) if r["payment_date"] == "2005-01-15"]
    with open(os.path.join(pack, "report.json")) as fh:
        amounts = next(p for p in json.load(fh)["additional_interest"]["payments"]
                       if p["payment_date"] == "2005-01-15")["amounts"]
    by_holder = {r["holder"]: r for r in rows}
    for n in names:
        row = by_holder["'" + n]
        assert row["amount"] == amounts[n] and row["amount_cents"] == amounts[n].replace(".", "")
    assert by_holder[LEHMAN]["amount"] == amounts[LEHMAN]
    with open(os.path.join(pack, "index.html"), encoding="utf-8") as fh:
        assert "no spreadsheet runs it as a formula" in fh.read()
    ok(run("verify", "--pack", pack))


# ============================================================ 11. leftovers

def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_export_removes_the_temporaries_of_killed_exports(db, tmp_path):
    from publishing.pack import STALE_SECONDS

    old = time.time() - STALE_SECONDS - 5
    dead = _dead_pid()
    made = {}
    for name, mtime in ((f".pack-{dead}-abc123", old),        # killed long ago: removed
                        (f".pack-{dead}-fresh1", None),       # just written: left
                        (f".pack-{os.getppid()}-live99", old),  # a live export: left
                        (".pack-legacy", old),                # not ours to judge: left
                        (f".pack-{dead}-file", old)):         # not a directory: left
        path = tmp_path / name
        if name.endswith("-file"):
            path.write_text("x")
        else:
            path.mkdir()
            (path / "report.json").write_text("{}")
        if mtime is not None:
            os.utime(path, (mtime, mtime))
        made[name] = path
    ok(run("export", RRA, "--out", str(tmp_path / "pack"), "--as-of", "2005-01-31", "--db", db))
    left = sorted(n for n in os.listdir(tmp_path) if n.startswith(".pack-"))
    assert left == sorted([f".pack-{dead}-fresh1", f".pack-{os.getppid()}-live99",
                           ".pack-legacy", f".pack-{dead}-file"])


def test_an_interrupted_export_leaves_no_temporary(db, tmp_path, monkeypatch):
    import publishing.pack

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(publishing.pack.os, "fsync", interrupted)
    result = run("export", RRA, "--out", str(tmp_path / "pack"), "--as-of", "2005-01-31",
                 "--db", db)
    assert result.exit_code != 0
    assert [n for n in os.listdir(tmp_path) if n.startswith(".pack-") or n == "pack"] == []


def test_views_exits_1_when_a_deal_cannot_be_computed(db, tmp_path):
    """A deal whose DealOpened is retracted has no terms: its figures cannot be made. The
    tables are still written (the error in deals.error), and views says so and exits 1."""
    ok(run("init", "gone", "--template", "infocrossing-rra-2004", "--db", db))
    gone = [r["id"] for r in records(db) if r["deal"] == "gone"][0]
    ok(run("retract", gone, "--reason", "opened by mistake", "--db", db))
    out = str(tmp_path / "views.db")
    result = run("views", "--out", out, "--as-of", "2005-01-31", "--db", db)
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: 1 deal(s) could not be computed (gone); gone: ")
    assert result.stderr.count("\n") == 1
    assert "1 deal(s) could not be computed" in result.stdout  # the summary, as before
    import sqlite3

    with sqlite3.connect(out) as conn:
        errors = dict(conn.execute("SELECT deal, error FROM deals WHERE error IS NOT NULL"))
    assert list(errors) == ["gone"]
    json_result = run("views", "--out", out, "--as-of", "2005-01-31", "--db", db, "--json",
                      "--rebuild")
    assert json_result.exit_code == 1 and json.loads(json_result.stdout)["errors"]


# ============================================================ 12. PostgreSQL URLs

BAD_URLS = [("postgresql://[::1/db", "its host cannot be read"),
            ("postgresql://u@[zz]/db", "its host cannot be read"),
            ("postgresql://u@h:notaport/db", "bad port"),
            ("postgresql://u@h:99999/db", "bad port"),
            ("postgresql://u@h:0/db", "bad port: 0 is not a port"),
            ("postgresql://u@h:5432/", "needs a database name")]


@pytest.mark.parametrize("url, phrase", BAD_URLS, ids=[u for u, _ in BAD_URLS])
@pytest.mark.parametrize("args", [
    ["whatif", RRA, "--interpret", "default_date=first_breach_day", "--save", "s"],
    ["whatif", RRA, "--scenario", "s"],
    ["scenarios"],
    ["report", RRA],
    ["log"],
], ids=["whatif-save", "whatif-scenario", "scenarios", "report", "log"])
def test_a_malformed_postgres_url_is_exit_5_everywhere(tmp_path, monkeypatch, url, phrase,
                                                       args):
    monkeypatch.chdir(tmp_path)
    message = refused(run(*args, "--db", url), 5)
    assert "field '--db'" in message and phrase in message
    assert os.listdir(tmp_path) == []  # no scenarios file written


def test_the_postgres_port_is_the_one_given_or_5432():
    from ledger.store.connection import env_for

    assert env_for("postgresql://u@h/db", False)["POSTGRES_PORT"] == "5432"
    assert env_for("postgresql://u@h:5433/db", False)["POSTGRES_PORT"] == "5433"
    assert env_for("postgresql://u@h:1/db", False)["POSTGRES_PORT"] == "1"


def test_a_fifo_in_a_pack_is_named_not_waited_on(db, tmp_path):
    pack = tmp_path / "pack"
    ok(run("export", RRA, "--out", str(pack), "--as-of", "2005-01-31", "--db", db))
    (pack / "head.txt").unlink()
    os.mkfifo(pack / "head.txt")
    proc = _run_entry_point("verify", "--pack", str(pack))
    assert proc.returncode == 1 and "head.txt: is not a regular file" in proc.stderr


def test_a_deal_reopened_replays_the_same_on_both_stores(store_url):
    """The write side's state of a deal retracted and opened again is the same when a
    new process rebuilds it from the store: closed after the retraction, open under the
    new DealOpened after it (RRA §2(a)(i): 15 days after 2004-06-30 is 2004-07-15)."""
    from publishing import reading
    from ledger.errors import RuleViolation

    def append(ledger, *objs):
        return ledger.append([parse_event(o) for o in objs], user="t").records

    with Ledger(store_url) as ledger:
        (first, issued) = append(ledger, opened("fix", filing_deadline_days=30),
                                 ev("NotesIssued", "2004-06-30", "fix", holder=LEHMAN,
                                    principal="1000"))
        append(ledger, ev("EventRetracted", "2004-06-30", "fix", event_id=issued["id"],
                          reason="r"))
        append(ledger, ev("EventRetracted", "2004-06-30", "fix", event_id=first["id"],
                          reason="r"))
    with Ledger(store_url) as ledger:  # a new process: the state comes from the store
        with pytest.raises(RuleViolation, match="DealOpened was retracted"):
            append(ledger, ev("TrusteeNotified", "2004-07-20", "fix"))
        append(ledger, opened("fix"))
    with Ledger(store_url) as ledger:
        with pytest.raises(RuleViolation, match="'Lehman Brothers Inc.' holds and held no"):
            append(ledger, ev("ConsentGiven", "2004-07-20", "fix", holder=LEHMAN, matter="m"))
        append(ledger, ev("NotesIssued", "2004-06-30", "fix", holder=LEHMAN, principal="1000"),
               ev("ConsentGiven", "2004-07-20", "fix", holder=LEHMAN, matter="m"))
        from datetime import date

        rep = reading.deal_report(ledger.deal_events("fix"), as_of=date(2005, 1, 31))
    assert rep["registration"]["filing_deadline"] == "2004-07-15"
    assert rep["majority"]["m"]["majority"] is True
