"""``publishing.viewworkers.decode_page``: a page of the log as ``events`` rows. Its
fast paths (one C encoder made once, a record's ``deal_prev`` written without the
encoder) must write exactly what encoding each record's fields plainly writes."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from publishing.viewworkers import decode_page

PLAIN = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
BASE = ("seq", "id", "deal", "type", "date", "data", "recorded_at", "recorded_by",
        "prev_hash", "hash")

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=6)
                    | st.floats(allow_nan=False, allow_infinity=False),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=8)
HASHES = st.text("0123456789abcdef", min_size=64, max_size=64)
LINKS = (HASHES | st.text("0123456789abcdefABCDEF\"\\é", min_size=63, max_size=65)
         | st.none() | st.integers())


@st.composite
def records(draw, seq):
    r = {"seq": seq, "id": f"id-{seq}", "deal": draw(st.sampled_from(["a", "b"])),
         "type": draw(st.sampled_from(["NoticeSent", "EventRetracted", "ConsentGiven"])),
         "date": draw(st.sampled_from(["2024-06-29", "2024-06-30", "2024-07-01"])),
         "data": draw(st.dictionaries(st.text(max_size=5), JSON, max_size=4)),
         "recorded_at": "2026-11-24T00:00:00Z", "recorded_by": "me",
         "prev_hash": "0" * 64, "hash": draw(HASHES)}
    for name in ("source", "key", "v"):
        if draw(st.booleans()):
            r[name] = draw(st.text(max_size=4) | st.integers(1, 3))
    if draw(st.integers(0, 3)):
        r["deal_prev"] = draw(LINKS)
    if not draw(st.integers(0, 5)):
        r["zz_other"] = draw(JSON)
    return r


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.integers(1, 8).flatmap(
    lambda n: st.tuples(*[records(seq) for seq in range(1, n + 1)])))
def test_a_page_is_its_records_fields_encoded_plainly(found):
    pairs = [(100 + r["seq"], r) for r in found]
    rows, dirty, later, last = decode_page(pairs, "2024-06-30")
    plain = []
    for nid, r in pairs:
        extra = sorted(set(r) - set(BASE) - {"source", "key", "v"})
        plain.append((r["seq"], nid, r["id"], r["deal"], r["type"], r["date"],
                      PLAIN(r["data"]), r.get("source"), r.get("key"), r.get("v"),
                      r["recorded_at"], r["recorded_by"], r["prev_hash"], r["hash"],
                      PLAIN({k: r[k] for k in extra}) if extra else None, 0))
    assert rows == plain
    # a deal is dirty if an event of it is dated on or before the as-of, or retracts
    counted = [r for r in found if r["date"] <= "2024-06-30" or r["type"] == "EventRetracted"]
    assert dirty == list(dict.fromkeys(r["deal"] for r in counted))
    assert later == {d: [sum(1 for r in found if r["deal"] == d and r not in counted),
                         max(r["seq"] for r in found if r["deal"] == d and r not in counted)]
                     for d in {r["deal"] for r in found if r not in counted}}
    assert last == 100 + len(found)
