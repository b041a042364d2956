"""The auditor pack: `export DEAL --out DIR` and `verify --pack DIR` (offline).

Values are checked against SPEC §8 example 1 worked by hand; tampering is checked file by
file, and again by a forger who also reseals the manifest."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from tests.cli_support import run
from publishing.demo import AS_OF, LETTER, RRA, build_demo
from ledger.events import parse_event
from publishing.pack import MANIFEST
from ledger.store import Ledger
from ledger.store.canonical import record_hash
from tests.support import ev, opened

RRA_FILES = {"events.jsonl", "chain.json", "head.txt", "report.json", "interpretations.json",
             "defaults.csv", "suspension_periods.csv", "additional_interest.csv",
             "deadlines.csv", "obligations.csv", "index.html", "manifest.json"}
LETTER_FILES = {"events.jsonl", "chain.json", "head.txt", "report.json",
                "interpretations.json", "true_ups.csv", "obligations.csv", "index.html",
                "manifest.json"}


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> str:
    db = str(tmp_path_factory.mktemp("demo") / "demo.db")
    build_demo(db)
    return db


@pytest.fixture(scope="module")
def rra_pack(demo_db, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("packs") / "rra"
    result = run("export", RRA, "--db", demo_db, "--out", str(out), "--as-of", AS_OF)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def letter_pack(demo_db, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("packs") / "letter"
    result = run("export", LETTER, "--db", demo_db, "--out", str(out), "--as-of", AS_OF)
    assert result.exit_code == 0, result.output
    return out


def copy(pack: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(pack, target)
    return target


def reseal(pack: Path) -> None:
    """What a forger does after editing files: rewrite the manifest's SHA-256s and its
    own seal, so that only the deeper checks can catch the edit."""
    manifest = json.loads((pack / MANIFEST).read_text())
    for name in manifest["files"]:
        data = (pack / name).read_bytes()
        manifest["files"][name] = {"sha256": hashlib.sha256(data).hexdigest(),
                                   "bytes": len(data)}
    manifest["manifest_sha256"] = "0" * 64
    body = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()
    digest = hashlib.sha256(body).hexdigest()
    (pack / MANIFEST).write_bytes(body.replace(b'"' + b"0" * 64 + b'"',
                                               f'"{digest}"'.encode()))


def verify(pack: Path):
    return run("verify", "--pack", str(pack))


# ------------------------------------------------------------------------ it verifies


def test_a_pack_of_each_demo_deal_holds_its_files_and_verifies(rra_pack, letter_pack):
    assert {p.name for p in rra_pack.iterdir()} == RRA_FILES
    assert {p.name for p in letter_pack.iterdir()} == LETTER_FILES
    for pack, deal in ((rra_pack, RRA), (letter_pack, LETTER)):
        result = verify(pack)
        assert result.exit_code == 0, result.output
        assert result.output.startswith(f"ok: pack of {deal}:")
        assert "report.json recomputes as of " + AS_OF in result.output


def test_events_are_exactly_what_log_json_prints(demo_db, rra_pack):
    logged = run("log", "--deal", RRA, "--json", "--db", demo_db)
    assert logged.exit_code == 0
    assert (rra_pack / "events.jsonl").read_text() == logged.output


def test_chain_names_the_ledger_head_and_each_event(demo_db, rra_pack, letter_pack):
    verified = run("verify", "--db", demo_db)
    head = verified.output.split()[-1]  # "ok: 58 events, head <hash>"
    for pack in (rra_pack, letter_pack):
        chain = json.loads((pack / "chain.json").read_text())
        manifest = json.loads((pack / MANIFEST).read_text())
        assert (pack / "head.txt").read_text() == head + "\n"
        assert chain["head"]["hash"] == manifest["ledger"]["head_hash"] == head
        assert chain["head"]["seq"] == manifest["ledger"]["head_seq"] == 58
        lines = [json.loads(x) for x in (pack / "events.jsonl").read_text().splitlines()]
        assert [e["hash"] for e in chain["events"]] == [r["hash"] for r in lines]
        assert all(record_hash(r) == r["hash"] for r in lines)
    # the demo records the RRA's consents last (2005-11-03): its last event IS the head,
    # proved offline
    rra_events = (rra_pack / "events.jsonl").read_text().splitlines()
    assert json.loads(rra_events[-1])["hash"] == head


def test_manifest_records_every_file_and_the_arguments(rra_pack):
    manifest = json.loads((rra_pack / MANIFEST).read_text())
    assert set(manifest["files"]) == RRA_FILES - {MANIFEST}
    for name, entry in manifest["files"].items():
        data = (rra_pack / name).read_bytes()
        assert entry == {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    assert manifest["as_of"] == AS_OF and manifest["known_at"] is None
    assert manifest["interpretations"]["default_date"] == "last_compliant_day"
    assert manifest["tool"]["name"] == "deal-ledger" and manifest["tool"]["version"]
    # the letter's 25 events recorded before the RRA's first batch (2004-07-23): 15 at its
    # closing, then 10 through 2004-07-02; the RRA's 32 follow, the last being the head
    assert manifest["events"] == {"count": 32, "first_seq": 26, "last_seq": 58}


def test_interpretations_file_describes_each_reading_in_force(rra_pack):
    doc = json.loads((rra_pack / "interpretations.json").read_text())
    assert doc["window_breach"]["value"] == "usability_default"
    assert doc["window_breach"]["clause"] == "RRA §4(b)(i), §3(a)(iii), §3(a)(iv)"
    assert doc["window_breach"]["reading"].startswith("days past the 45 (60)-in-90 right")
    assert doc["window_breach"]["is_default"] is True


def test_the_same_export_twice_gives_the_same_bytes(demo_db, rra_pack, tmp_path):
    again = tmp_path / "again"
    assert run("export", RRA, "--db", demo_db, "--out", str(again),
               "--as-of", AS_OF).exit_code == 0
    for name in RRA_FILES:
        assert (again / name).read_bytes() == (rra_pack / name).read_bytes(), name


# ------------------------------------------------------------------ every edit is named


@pytest.mark.parametrize("name", sorted(RRA_FILES))
def test_editing_any_file_fails_naming_it(rra_pack, tmp_path, name):
    pack = copy(rra_pack, tmp_path)
    data = bytearray((pack / name).read_bytes())
    middle = len(data) // 2
    data[middle] = ord("7") if data[middle] != ord("7") else ord("8")
    (pack / name).write_bytes(bytes(data))
    result = verify(pack)
    assert result.exit_code == 1
    assert result.output.startswith(f"{name}: "), result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("name", sorted(RRA_FILES))
def test_a_trailing_newline_is_an_edit_too(rra_pack, tmp_path, name):
    pack = copy(rra_pack, tmp_path)
    with open(pack / name, "ab") as f:
        f.write(b"\n")
    result = verify(pack)
    assert result.exit_code == 1 and result.output.startswith(f"{name}: ")


def test_a_removed_or_added_file_is_named(rra_pack, tmp_path):
    pack = copy(rra_pack, tmp_path)
    (pack / "deadlines.csv").unlink()
    result = verify(pack)
    assert result.exit_code == 1 and result.output.startswith("deadlines.csv: is missing")
    pack2 = tmp_path / "second"
    shutil.copytree(rra_pack, pack2)
    (pack2 / "notes.txt").write_text("hello")
    result = verify(pack2)
    assert result.exit_code == 1 and result.output.startswith("notes.txt: is not listed")


def _edit_event(pack: Path, seq: int, change) -> None:
    lines = (pack / "events.jsonl").read_text().splitlines()
    records = [json.loads(x) for x in lines]
    for r in records:
        if r["seq"] == seq:
            change(r)
    (pack / "events.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
                for r in records))


def test_forger_who_reseals_the_manifest_is_caught_by_the_event_hash(rra_pack, tmp_path):
    pack = copy(rra_pack, tmp_path)
    _edit_event(pack, 27, lambda r: r["data"].update(principal="70000000.00"))  # line 2
    reseal(pack)
    result = verify(pack)
    assert result.exit_code == 1
    assert result.output.startswith("events.jsonl: line 2 (seq 27): the hash does not match")


def test_forger_who_rehashes_the_event_is_caught_by_the_chain(rra_pack, tmp_path):
    pack = copy(rra_pack, tmp_path)

    def change(r):
        r["data"]["principal"] = "70000000.00"
        r["hash"] = record_hash(r)
    _edit_event(pack, 27, change)  # line 2: NotesIssued, seq 27
    chain = json.loads((pack / "chain.json").read_text())
    new_hash = json.loads((pack / "events.jsonl").read_text().splitlines()[1])["hash"]
    chain["events"][1]["hash"] = new_hash
    (pack / "chain.json").write_text(json.dumps(chain, indent=2, ensure_ascii=False) + "\n")
    reseal(pack)
    result = verify(pack)
    assert result.exit_code == 1
    assert result.output.startswith("events.jsonl: seq 28: prev_hash is not the hash of seq 27")


def test_forger_who_edits_a_figure_is_caught_by_recomputing(rra_pack, tmp_path):
    pack = copy(rra_pack, tmp_path)
    report = json.loads((pack / "report.json").read_text())
    report["additional_interest"]["accrued_to_as_of"] = "1.00"
    (pack / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    reseal(pack)
    result = verify(pack)
    assert result.exit_code == 1
    assert result.output.startswith("report.json: differs from the report recomputed")
    assert "$.additional_interest.accrued_to_as_of" in result.output


@pytest.mark.parametrize("version", [None, "0.0.0"], ids=["same_version", "other_version"])
def test_forger_who_edits_a_schedule_is_caught_by_recomputing(rra_pack, tmp_path, version):
    # other_version, a review (stop 19): with another version in the resealed manifest,
    # the CSV and HTML were not recomputed, and an edited amount verified "ok"
    pack = copy(rra_pack, tmp_path)
    if version is not None:
        manifest = json.loads((pack / MANIFEST).read_text())
        manifest["tool"]["version"] = version
        (pack / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    text = (pack / "additional_interest.csv").read_text()
    (pack / "additional_interest.csv").write_text(text.replace("5833.33", "5933.33", 1))
    reseal(pack)
    result = verify(pack)
    assert result.exit_code == 1
    said = ("" if version is None else f" (the pack names deal-ledger {version}")
    assert result.output.startswith("additional_interest.csv: differs from the file "
                                    "recomputed from events.jsonl" + said)


def test_a_pack_rebuilt_without_its_last_events_is_named_against_the_ledger(
        demo_db, rra_pack, tmp_path):
    # a review (stop 19): the stop order and every event after it dropped, the pack
    # rebuilt around the rest with the ledger's real head: offline it verifies (nothing
    # in it is missing between its first and last events), and so does the head against
    # the ledger; held against the ledger, the first event it lacks is named
    from datetime import date

    from publishing.pack import build_pack

    records = [json.loads(line) for line in (rra_pack / "events.jsonl").read_text().splitlines()]
    head = json.loads((rra_pack / "chain.json").read_text())["head"]
    stop = next(r for r in records if r["type"] == "ShelfUnusable")
    forged = tmp_path / "forged"
    forged.mkdir()
    for name, data in build_pack([r for r in records if r["seq"] < stop["seq"]], head,
                                 as_of=date.fromisoformat(AS_OF)).items():
        (forged / name).write_bytes(data)
    assert verify(forged).exit_code == 0
    result = run("verify", "--pack", str(forged), "--against-ledger", "--db", demo_db)
    assert result.exit_code == 1
    assert result.output.startswith(f"events.jsonl: the ledger holds the deal's event seq "
                                    f"{stop['seq']} (ShelfUnusable dated {stop['date']}")
    honest = run("verify", "--pack", str(rra_pack), "--against-ledger", "--db", demo_db)
    assert honest.exit_code == 0, honest.output
    assert (f"the deal's {len(records)} events up to it are the pack's, seq by seq and hash "
            "by hash") in honest.output
    assert run("verify", "--against-ledger", "--db", demo_db).exit_code != 0


def test_forger_who_moves_the_head_is_caught(rra_pack, tmp_path):
    pack = copy(rra_pack, tmp_path)  # the RRA's last event is the ledger's head
    chain = json.loads((pack / "chain.json").read_text())
    chain["head"]["hash"] = "ab" * 32
    (pack / "chain.json").write_text(json.dumps(chain, indent=2, ensure_ascii=False) + "\n")
    reseal(pack)
    result = verify(pack)
    assert result.exit_code == 1
    assert result.output.startswith("chain.json: the head is seq 58 but its hash is not")


# ------------------------------------------------------------------------- index.html


def test_index_html_is_self_contained_with_an_svg_timeline(rra_pack, letter_pack):
    for pack in (rra_pack, letter_pack):
        page = (pack / "index.html").read_text()
        assert "<svg" in page and "</svg>" in page
        assert "http://" not in page and "https://" not in page
        assert not re.search(r"\b(src|href|xlink:href|action)\s*=", page, re.I)
        assert not re.search(r"url\(|@import|<script|<link|<iframe|<img", page, re.I)
    rra = (rra_pack / "index.html").read_text()
    # tables: the first payment to Lehman, and the (ii) default's accrual (SPEC §8 ex. 1)
    assert "2005-01-18" in rra and "5,833.33" in rra and "2004-10-29" in rra
    assert "Suspension Period 2005-03-01 to 2005-04-20: 50 days" in rra  # timeline bar
    letter = (letter_pack / "index.html").read_text()
    assert "Camden Warrants vested" in letter and "True-up shares by holder" in letter


# ------------------------------------------------------- SPEC §8 example 1 by hand


def example_one(db: str) -> None:
    with Ledger(db) as ledger:
        ledger.append([parse_event(o) for o in (
            opened("ex1"),
            ev("NotesIssued", "2004-06-30", deal="ex1", holder="Lehman Brothers Inc.",
               principal="60000000"),
            ev("ShelfFiled", "2004-07-13", deal="ex1"),
            ev("ShelfEffective", "2004-11-15", deal="ex1"))])


def test_example_one_schedules_hold_the_hand_worked_figures(tmp_path):
    db = str(tmp_path / "ex1.db")
    example_one(db)
    out = tmp_path / "pack"
    result = run("export", "ex1", "--db", db, "--out", str(out), "--as-of", "2005-06-30")
    assert result.exit_code == 0, result.output
    assert verify(out).exit_code == 0
    rows = list(csv.DictReader(io.StringIO((out / "additional_interest.csv").read_text(
        encoding="utf-8-sig"))))
    first = rows[0]
    # 60,000,000 x 0.0025 x 16/360 = 6,666.67; Jan 15 2005 is a Saturday, Jan 17 MLK Day
    assert (first["payment_date"], first["paid_on"], first["record_date"]) == (
        "2005-01-15", "2005-01-18", "2005-01-01")
    assert (first["period_start"], first["period_end"]) == ("2004-06-30", "2005-01-15")
    assert (first["holder"], first["amount"], first["amount_cents"]) == (
        "Lehman Brothers Inc.", "6666.67", "666667")
    defaults = list(csv.DictReader(io.StringIO((out / "defaults.csv").read_text(
        encoding="utf-8-sig"))))
    assert [(d["clause"], d["default_date"], d["accrual_from"], d["accrual_until"])
            for d in defaults] == [("RRA §3(a)(ii)", "2004-10-28", "2004-10-29",
                                    "2004-11-15")]


def test_switched_interpretation_and_known_at_are_kept_and_reverified(tmp_path):
    db = str(tmp_path / "ex1.db")
    example_one(db)
    out = tmp_path / "pack"
    result = run("export", "ex1", "--db", db, "--out", str(out), "--as-of", "2005-06-30",
                 "--interpret", "default_date=first_breach_day", "--known-at", "2100-01-01")
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["interpretations"]["default_date"] == "first_breach_day"
    assert manifest["known_at"] == "2100-01-01T23:59:59.999999Z"
    rows = list(csv.DictReader(io.StringIO((out / "additional_interest.csv").read_text(
        encoding="utf-8-sig"))))
    # a day later: accrual 2004-10-30 to 2004-11-15, 30/360 days = 15: 6,250.00
    assert rows[0]["amount"] == "6250.00"
    assert verify(out).exit_code == 0


# ----------------------------------------------------------------------- bad input


def test_bad_input_is_one_line_naming_the_field(demo_db, rra_pack, tmp_path):
    cases = [
        (("export", RRA, "--db", demo_db, "--out", str(rra_pack)), "--out"),
        (("export", "no-such-deal", "--db", demo_db, "--out", str(tmp_path / "x")), "DEAL"),
        (("export", RRA, "--db", demo_db, "--out", str(tmp_path / "y"), "--as-of",
          "2007-02-30"), "--as-of"),
        (("export", RRA, "--db", demo_db, "--out", str(tmp_path / "z"), "--interpret",
          "default_date=never"), "--interpret"),
        (("export", RRA, "--db", demo_db, "--out", str(tmp_path / "w"), "--known-at",
          "2000-01-01"), "--known-at"),
        (("verify", "--pack", str(tmp_path / "nowhere")), "--pack"),
        (("verify", "--pack", str(rra_pack), "--expect", "ab" * 32), "--expect"),
    ]
    for args, field in cases:
        result = run(*args)
        assert result.exit_code == 2, (args, result.output)
        assert f"field '{field}'" in result.output, (args, result.output)
        assert len(result.output.strip().splitlines()) == 1, result.output
        assert "Traceback" not in result.output
    assert not (tmp_path / "x").exists() and not (tmp_path / "w").exists()


def test_a_resealed_file_of_the_wrong_shape_is_named_not_a_crash(rra_pack, tmp_path):
    pack = copy(rra_pack, tmp_path)
    chain = json.loads((pack / "chain.json").read_text())
    chain["events"] = "none"
    (pack / "chain.json").write_text(json.dumps(chain))
    reseal(pack)
    result = verify(pack)
    assert result.exit_code == 1 and result.output.startswith("chain.json: "), result.output
