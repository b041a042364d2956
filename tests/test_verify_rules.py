"""``verify --rules``: forged events with valid hashes (issue 29, item 3).

A forger who can write the store rewrites the last stored event, recomputes its hash and
the chain head's: the chain is valid again, and ``verify`` said ok while ``interest``
showed the forged payment. ``verify --rules`` judges every event again as ``append``
judged it (the event format and the deal's rules, on the deal's state before it, in the
order written) and names the first that breaks one. Each forgery below is one that
``append`` refuses; each is named on both stores.
"""

from __future__ import annotations

import json

import pytest

from ledger.events import parse_event
from ledger.store import Ledger
from tests.cli_support import run
from tests.db_access import Raw, RawChain, relink
from tests.support import ev, opened

LEHMAN = "Lehman Brothers Inc."


def _history(url: str) -> None:
    with Ledger(url) as ledger:
        ledger.append([parse_event(opened("rra")),
                       parse_event(ev("NotesIssued", "2004-06-30", holder=LEHMAN,
                                      principal="60000000")),
                       parse_event(ev("ShelfFiled", "2004-07-13"))])
        ledger.append([parse_event(ev("ShelfEffective", "2004-11-15"))])


def _forge_last(url: str, change) -> None:
    """Rewrite the last stored event with ``change(record)``, then recompute its hashes
    and the chain head's, as a forger who knows the format would."""
    raw, chain = Raw(url), RawChain(url)
    position, state, *_ = raw.rows()[-1]
    stored = json.loads(state)
    record = stored["record"]
    before = raw.rows()[-2]
    prev = json.loads(before[1])["record"]
    deal_last = {record["deal"]: prev["hash"]} if prev["deal"] == record["deal"] else {}
    change(record)
    relink(record, prev["hash"], deal_last)
    raw.set_state(position, json.dumps(stored, separators=(",", ":")).encode())
    head_position, head_state, *_ = chain.rows()[-1]
    head = json.loads(head_state)
    head["hash"] = record["hash"]
    chain.set_state(head_position, json.dumps(head, separators=(",", ":")).encode())
    raw.drop_tree()


def _payment_to_nobody(record):
    record["type"] = "AdditionalInterestPaid"
    record["date"] = "2005-01-18"
    record["data"] = {"payment_date": "2005-01-15", "holder": "Nobody Holding Notes LLC",
                      "amount": "9999999.00"}


def _conversion_beyond_the_issue(record):
    record["type"] = "NotesConverted"
    record["date"] = "2005-01-10"
    record["data"] = {"holder": LEHMAN, "principal": "75000000", "shares": 4882812}


def _date_in_1850(record):
    record["date"] = "1850-11-15"


def _field_the_schema_lacks(record):
    record["data"] = {"approved_by": "nobody"}


def _holder_not_in_normal_form(record):
    # append stores names in NFC without surrounding spaces; this one would be a second
    # Holder beside "Alpha Fund" for every rule that compares names
    record["type"] = "NotesIssued"
    record["date"] = "2004-07-09"
    record["data"] = {"holder": "Alpha Fund ", "principal": "1000000"}


FORGERIES = [
    (_payment_to_nobody, "Nobody Holding Notes LLC"),
    (_conversion_beyond_the_issue, "principal"),
    (_date_in_1850, "date"),
    (_field_the_schema_lacks, "approved_by"),
    (_holder_not_in_normal_form, "not written as append writes it"),
]


@pytest.mark.parametrize("forge, named", FORGERIES,
                         ids=["payment", "conversion", "1850", "unknown-field", "not-nfc"])
def test_a_forgery_with_valid_hashes_is_named_by_verify_rules(store_url, forge, named):
    _history(store_url)
    _forge_last(store_url, forge)
    plain = run("verify", "--db", store_url)
    assert plain.exit_code == 0, plain.output        # the chain itself is valid again
    judged = run("verify", "--rules", "--db", store_url)
    assert judged.exit_code == 1, judged.output
    line = judged.stderr.strip()
    assert line.startswith("seq 4: it breaks "), line
    assert named in line, line


def test_the_payment_forgery_is_what_interest_would_show(store_url):
    """Why it matters: without --rules, the forged payment is a figure of the report."""
    _history(store_url)
    _forge_last(store_url, _payment_to_nobody)
    out = run("interest", "rra", "--as-of", "2005-02-01", "--json", "--db", store_url)
    assert "Nobody Holding Notes LLC" in out.stdout


def test_an_honest_ledger_passes_verify_rules(store_url):
    from publishing.demo import build_demo

    build_demo(store_url)
    judged = run("verify", "--rules", "--db", store_url)
    assert judged.exit_code == 0 and judged.stdout.startswith("ok: "), judged.output


def test_a_ledger_written_by_an_older_version_passes_verify_rules(tmp_path):
    """Records of schema version 1 are judged in their current shape (upcast), and a
    term a later version added with its default is not a difference."""
    import os
    import shutil

    from tests.test_upgrade import DATA

    db = tmp_path / "v1.db"
    shutil.copyfile(os.path.join(DATA, "ledger-v1.db"), db)
    judged = run("verify", "--rules", "--db", str(db))
    assert judged.exit_code == 0, judged.output


def test_rules_and_a_pack_do_not_go_together(tmp_path):
    result = run("verify", "--rules", "--pack", str(tmp_path))
    assert result.exit_code == 2 and "--rules" in result.stderr
