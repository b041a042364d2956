"""Learning the event types from the CLI (issue 15, item 6): ``types``, ``record TYPE
--help``, "did you mean" for a mistyped type, field, holder or deal, and a refused value
that names the values accepted."""

from __future__ import annotations

import csv
import io
import json

import pytest

from ledger.catalog import catalog, describe
from ledger.events import CATALOG, parse_event
from tests.cli_support import ok, refused, run
from tests.test_cli_imports import loaded_after

RRA = "infocrossing-rra-2004"
LEHMAN = "Lehman Brothers Inc."


@pytest.fixture
def rra(tmp_path) -> str:
    db = str(tmp_path / "ledger.db")
    ok(run("init", RRA, "--template", RRA, "--db", db))
    ok(run("record", "NotesIssued", "--deal", RRA, "--date", "2004-06-30",
           f"holder={LEHMAN}", "principal=60000000", "--db", db))
    return db


def test_types_lists_every_type_with_its_fields():
    out = ok(run("types"))
    for name in CATALOG:
        assert f"\n{name} (" in "\n" + out
    # NotesTransferred: from_holder, to_holder, principal required; under optional
    block = out.split("\nNotesTransferred (")[1].split("\n\n")[0]
    assert "from_holder" in block and "principal    required; amount" in block
    assert "under        optional, default private; one of: shelf, rule_144, private" in block
    assert '"type": "NotesTransferred"' in block


def test_every_example_line_is_an_event_the_ledger_accepts():
    for info in catalog():
        if info.name == "DealOpened":   # its terms come from a template (see its note)
            assert "init" in info.note
            continue
        parsed = parse_event(info.example)
        assert parsed.type == info.name


def test_types_json_and_csv():
    rows = json.loads(ok(run("types", "--json")))
    assert [r["type"] for r in rows] == list(CATALOG)
    suspension = next(r for r in rows if r["type"] == "SuspensionStarted")
    assert suspension["fields"] == [{"name": "material_transaction", "required": True,
                                     "accepts": "true or false"}]
    table = list(csv.DictReader(io.StringIO(ok(run("types", "ShelfUnusable", "--csv")))))
    assert table == [{"type": "ShelfUnusable", "kind": "registration_rights",
                      "field": "reason", "required": "true",
                      "accepts": "one of: stop_order, ceased_effective, "
                                 "material_misstatement, selling_holder_information, other",
                      "default": "", "example": '"stop_order"'}]


def test_types_of_one_kind_and_a_mistyped_type():
    out = ok(run("types", "--kind", "antidilution_deferral"))
    assert "InstrumentRegistered" in out and "NotesIssued" not in out
    assert "EventRetracted" in out                        # a type of any deal
    err = refused(run("types", "ShelfFild"), 2)
    assert "did you mean 'ShelfFiled'" in err


def test_record_type_help_shows_that_types_fields():
    out = ok(run("record", "NotesRetired", "--help"))
    assert "Fields of NotesRetired" in out
    assert "one of: redeemed, repurchased, cancelled, matured" in out
    assert "deal-ledger record NotesRetired --deal infocrossing-rra-2004" in out
    assert "Example" in out or "For example" in out
    shelf = ok(run("record", "ShelfFiled", "--help"))
    assert "file_number" in shelf and "optional" in shelf
    plain = ok(run("record", "--help"))
    assert "Fields of" not in plain and "deal-ledger types" in plain
    # options before the type, with their values, are not taken for it
    placed = ok(run("record", "--deal", RRA, "--date", "2004-07-13", "ShelfFiled", "--help"))
    assert "Fields of ShelfFiled" in placed
    wrong = ok(run("record", "ShelfFild", "--help"))
    assert "did you mean 'ShelfFiled'" in wrong


def test_record_suggests_the_type_and_the_field(rra):
    err = refused(run("record", "NotesIsued", "--deal", RRA, "--date", "2004-07-01",
                      f"holder={LEHMAN}", "principal=1", "--db", rra), 3)
    assert "did you mean 'NotesIssued'" in err
    err = refused(run("record", "NotesRetired", "--deal", RRA, "--date", "2004-07-01",
                      f"holder={LEHMAN}", "principle=1000", "reason=redeemed", "--db", rra), 3)
    assert "field 'data.principle'" in err and "did you mean 'principal'" in err


def test_a_refused_value_names_what_is_accepted(rra):
    err = refused(run("record", "SuspensionStarted", "--deal", RRA, "--date", "2005-03-01",
                      "material_transaction=yes", "--db", rra), 3)
    assert "field 'data.material_transaction'" in err and "true or false" in err
    err = refused(run("record", "NoticeSent", "--deal", RRA, "--date", "2005-03-01",
                      "to=Trustee", "subject=x", "method=email", "--db", rra), 3)
    for accepted in ("hand", "mail", "telex", "fax", "courier"):
        assert accepted in err


def test_a_mistyped_holder_is_answered_with_the_holders_name(rra):
    err = refused(run("record", "NotesRetired", "--deal", RRA, "--date", "2004-07-01",
                      "holder=Lehman Brothers", "principal=1000", "reason=redeemed",
                      "--db", rra), 3)
    assert f"did you mean '{LEHMAN}'" in err


def test_describe_reads_the_models():
    info = describe("InstrumentRegistered")
    required = {f.name for f in info.fields if f.required}
    assert required == {"instrument", "holder", "kind"}
    assert "a warrant needs shares and exercise_price" in info.note


@pytest.mark.parametrize("args", [["types", "--help"], ["log", "--help"],
                                  ["record", "--help"]])
def test_help_still_imports_no_heavy_library(args):
    assert loaded_after(args) == []
