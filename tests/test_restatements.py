"""Restatements (``deal-ledger restatements``; an auditor pack made against a previous
one) and signed packs (``export --key``; ``verify --pack --pubkey``), on the demo ledger
(ILLUSTRATIVE, SPEC §5) on both backends.

The demo's late correction: a stop order of 2005-06-01 (``ShelfUnusable``) was recorded
only on 2005-07-08, with the shelf usable again on 2005-06-15. As known at the end of
2005-07-01 the report as of 2005-06-30 had no Registration Default (iii); with it, the
default runs from the day after the fifth Business Day (2005-06-08) to the cure,
2005-06-09 to 2005-06-15: 6 days at 0.25% a year, 30/360 (RRA §3(a)(iii)). The figures
that moved, by hand:

* Lehman Brothers Inc. (37,000,000 of Transfer Restricted Notes):
  37,000,000 x 0.25% x 6/360 = 1,541.666..., its accrued Additional Interest
  7,118.05 -> 8,659.72; for the Interest Payment Date 2005-07-15, 1,284.72 -> 2,826.39;
* Illustrative Fund A (20,000,000): 20,000,000 x 0.25% x 6/360 = 833.333...,
  3,472.22 -> 4,305.56 (each rounded once over its sub-periods); 694.44 -> 1,527.78;
* the total accrued 10,763.88 -> 13,138.89, the 2005-07-15 total 2,152.77 -> 4,527.78;
* the default (iii) itself, its episode and rate segment, the deadlines and
  obligations it makes (advise the Holders, cure the shelf, notify the Trustee), and the
  Effectiveness Period obligation's cure date and its list of defaults.
"""

from __future__ import annotations

import json
import os


from ledger import proofs
from tests.cli_support import ok, refused, run
from tests.test_statements import demo  # noqa: F401 (a fixture)

RRA = "infocrossing-rra-2004"
BEFORE = "2005-07-01"
MOVED = {
    "additional_interest.accrued_to_as_of": ("10763.88", "13138.89"),
    "additional_interest.by_holder.Lehman Brothers Inc.": ("7118.05", "8659.72"),
    "additional_interest.by_holder.Illustrative Fund A": ("3472.22", "4305.56"),
    "additional_interest.payments[payment_date=2005-07-15].amounts.Lehman Brothers Inc.":
        ("1284.72", "2826.39"),
    "additional_interest.payments[payment_date=2005-07-15].amounts.Illustrative Fund A":
        ("694.44", "1527.78"),
    "additional_interest.payments[payment_date=2005-07-15].total": ("2152.77", "4527.78"),
}
APPEARED = {
    "registration.defaults[kind=(iii)]", "additional_interest.episodes[start=2005-06-09]",
    "additional_interest.rate_segments[start=2005-06-09]",
    "deadlines[obligation=advise the selling Holders: a stop order was issued (2005-06-01)]",
    "deadlines[obligation=notify the Trustee of Registration Default (iii) (default date "
    "2005-06-08)]",
    "obligations[obligation=advise the selling Holders: a stop order was issued "
    "(2005-06-01)]",
    "obligations[obligation=cure the shelf unusable from 2005-06-01 (stop_order) within 5 "
    "Business Days]",
    "obligations[obligation=notify the Trustee of Registration Default (iii) (default date "
    "2005-06-08)]",
}


def _restated(result) -> dict:
    return json.loads(result.stdout)


def test_a_late_correction_restates_exactly_the_figures_it_moved(demo):
    db, _, _ = demo
    result = run("restatements", RRA, "--from", BEFORE, "--as-of", "2005-06-30", "--json",
                 "--db", db)
    assert result.exit_code == 1, result.output    # something was restated
    found = _restated(result)
    by_figure = {r["figure"]: r for r in found["restated"]}
    for figure, (before, after) in MOVED.items():
        assert (by_figure[figure]["before"], by_figure[figure]["after"]) == (before, after)
        assert by_figure[figure]["clause"] == "RRA §3(a), §3(b)"
    assert {f for f, r in by_figure.items() if r["status"] == "appeared"} == APPEARED
    effectiveness = ("obligations[obligation=keep the Shelf Registration Statement effective "
                     "and usable for the Effectiveness Period]")
    changed = {f for f, r in by_figure.items() if r["status"] == "changed"}
    assert changed == set(MOVED) | {f"{effectiveness}.{k}" for k in
                                    ("cured_on", "since", "triggered")} | {
        "obligations[obligation=pay Lehman Brothers Inc. the Additional Interest for the "
        "Interest Payment Date 2005-07-15].amount",
        "obligations[obligation=pay Illustrative Fund A the Additional Interest for the "
        "Interest Payment Date 2005-07-15].amount"}
    # moved by the batch recorded on 2005-07-08: the stop order, the advice, the cure
    moved = by_figure["additional_interest.accrued_to_as_of"]["moved_by"]
    assert [m["known_at"] for m in moved] == ["2005-07-08T11:00:00.000000Z"]
    assert [e["type"] for e in moved[0]["events"]] == ["ShelfUnusable", "HoldersAdvised",
                                                       "ShelfUsable"]
    assert all(e["recorded_at"] == "2005-07-08T11:00:00.000000Z" for e in moved[0]["events"])


def test_the_consistency_proof_between_the_two_heads_checks(demo):
    db, _, _ = demo
    found = _restated(run("restatements", RRA, "--from", BEFORE, "--as-of", "2005-06-30",
                          "--json", "--db", db))
    c = found["consistency"]
    assert proofs.verify_consistency(c["from_size"], c["to_size"],
                                     bytes.fromhex(c["from_root"]), bytes.fromhex(c["to_root"]),
                                     [bytes.fromhex(p) for p in c["proof"]]) is None
    assert c["from_size"] < c["to_size"]


def test_nothing_restated_exits_0(demo):
    db, _, _ = demo
    out = ok(run("restatements", RRA, "--from", "2030-01-01", "--as-of", "2005-06-30",
                 "--db", db))
    assert "0 figure(s) restated" in out


def test_from_a_signed_checkpoint(demo, tmp_path):
    db, key, pub = demo
    cp = str(tmp_path / "cp")
    ok(run("checkpoint", "--key", key, "--out", cp, "--db", db))
    ok(run("record", "AdditionalInterestPaid", "--deal", RRA, "--date", "2005-07-20",
           "--db", db, "payment_date=2005-07-15", "holder=Illustrative Fund A",
           "amount=1527.78"))
    result = run("restatements", RRA, "--from", cp, "--pubkey", pub, "--as-of", "2007-12-31",
                 "--json", "--db", db)
    assert result.exit_code == 1
    found = _restated(result)
    by_figure = {r["figure"]: r for r in found["restated"]}
    payment = "additional_interest.payments[payment_date=2005-07-15]"
    assert by_figure[f"{payment}.paid.Illustrative Fund A"]["status"] == "appeared"
    assert by_figure[f"{payment}.statuses.Illustrative Fund A"]["before"] == "due"
    assert by_figure[f"{payment}.statuses.Illustrative Fund A"]["after"] == "paid"
    assert found["before"]["what"].startswith(f"the checkpoint {cp}")
    assert found["consistency"]["to_size"] == found["consistency"]["from_size"] + 1
    # a checkpoint needs its key
    assert "--pubkey" in refused(run("restatements", RRA, "--from", cp, "--db", db), 2)


def test_a_pack_against_the_previous_one(demo, tmp_path):
    db, key, pub = demo
    first, second = str(tmp_path / "p2005"), str(tmp_path / "p2007")
    ok(run("export", RRA, "--as-of", "2005-06-30", "--known-at", BEFORE, "--out", first,
           "--db", db))
    ok(run("export", RRA, "--as-of", "2007-12-31", "--out", second, "--previous", first,
           "--key", key, "--db", db))
    section = json.load(open(os.path.join(second, "restatements.json")))
    by_figure = {r["figure"]: r for r in section["restated"]}
    for figure, (before, after) in MOVED.items():
        assert (by_figure[figure]["before"], by_figure[figure]["after"]) == (before, after)
    assert section["previous"]["as_of"] == "2005-06-30"
    assert "Restatements since the previous pack" in open(os.path.join(second,
                                                                      "index.html")).read()
    said = ok(run("verify", "--pack", second, "--pubkey", pub))
    assert "manifest.sig: signed by ledger.example.com/demo" in said
    # the restatements from the same pack, on the command line, say the same
    result = run("restatements", RRA, "--from", first, "--json", "--db", db)
    assert {r["figure"] for r in _restated(result)["restated"]} == set(by_figure)


def _reseal(out: str) -> None:
    """The pack's manifest made again over its files as they now are (a forger's)."""
    import hashlib

    from publishing.pack import _SELF, _ZERO, _seal

    path = os.path.join(out, "manifest.json")
    doc = json.load(open(path))
    for name, entry in doc["files"].items():
        data = open(os.path.join(out, name), "rb").read()
        entry.update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    doc[_SELF] = _ZERO
    with open(path, "wb") as fh:
        fh.write(_seal((json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()))


def test_an_altered_restatement_section_fails(demo, tmp_path):
    db, _, _ = demo
    first, second = str(tmp_path / "p1"), str(tmp_path / "p2")
    ok(run("export", RRA, "--as-of", "2005-06-30", "--known-at", BEFORE, "--out", first,
           "--db", db))
    for day in ("2007-12-30", "2007-12-31"):
        ok(run("record", "HoldersAdvised", "--deal", RRA, "--date", day, "--db", db))
    ok(run("export", RRA, "--as-of", "2007-12-31", "--out", second, "--previous", first,
           "--db", db))
    ok(run("verify", "--pack", second))
    path = os.path.join(second, "restatements.json")
    doc = json.load(open(path))
    saved = list(doc["previous"]["consistency"]["proof"])
    assert saved
    doc["previous"]["consistency"]["proof"][0] = "00" * 32
    with open(path, "w") as fh:
        json.dump(doc, fh, indent=2)
    _reseal(second)
    result = run("verify", "--pack", second)
    assert result.exit_code == 1
    assert result.stderr.startswith("restatements.json: its consistency proof does not "
                                    "check"), result.stderr
    # a restated figure changed (its proof intact) and the manifest resealed: the section
    # made again from the pack's events differs
    doc["previous"]["consistency"]["proof"] = saved
    doc["restated"][0]["after"] = "0.00"
    with open(path, "w") as fh:
        json.dump(doc, fh, indent=2)
    _reseal(second)
    result = run("verify", "--pack", second)
    assert result.exit_code == 1
    assert result.stderr.startswith("restatements.json: differs from the file recomputed"), \
        result.stderr


def test_a_signed_pack(demo, tmp_path):
    db, key, pub = demo
    out = str(tmp_path / "pack")
    ok(run("export", RRA, "--as-of", "2007-12-31", "--out", out, "--key", key, "--db", db))
    assert os.path.exists(os.path.join(out, "manifest.sig"))
    ok(run("verify", "--pack", out, "--pubkey", pub))
    said = ok(run("verify", "--pack", out))
    assert "signed (not checked: give --pubkey KEY.pub)" in said
    other = str(tmp_path / "other.key")
    ok(run("keygen", "--name", "x.example/y", "--out", other, "--db", str(tmp_path / "n.db")))
    result = run("verify", "--pack", out, "--pubkey", other + ".pub")
    assert result.exit_code == 1 and result.stderr.startswith("manifest.sig: ")
    # a file changed and the manifest resealed (its own SHA-256 made again) is not what
    # was signed
    with open(os.path.join(out, "head.txt"), "a") as fh:
        fh.write(" ")
    _reseal(out)
    result = run("verify", "--pack", out, "--pubkey", pub)
    assert result.exit_code == 1
    assert result.stderr.startswith("manifest.sig: signs another manifest"), result.stderr


def test_an_unsigned_pack_checked_with_a_key_fails(demo, tmp_path):
    db, _, pub = demo
    out = str(tmp_path / "pack")
    ok(run("export", RRA, "--as-of", "2007-12-31", "--out", out, "--db", db))
    result = run("verify", "--pack", out, "--pubkey", pub)
    assert result.exit_code == 1
    assert result.stderr.startswith("manifest.sig: is missing: the pack is not signed")
