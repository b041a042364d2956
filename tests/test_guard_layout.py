"""The guard state's layout 5 (``ledger.guards.FORMAT``) and the snapshots of layouts 2,
3 and 4 that ledgers written before it hold: appends do not read them (they lack what
the refusals of issue 30 read: a fax notice's date, the Questionnaires, the principal
issued; and what those of issue 33 read: the deal's terms in force), and rebuild the
deal's state from its events instead; ``verify`` still checks their seals.

Layout 2 kept, for every event id, ``[type, date, timelines touched, method]``; layout 3
kept the type (with its method for a NoticeSent), and read the timelines back from
their entries (which name their event); layout 4 keeps a telex or fax notice's date too;
layout 5 the deal's terms (``terms``, ``base_terms``), the Conversion Shares and the
consents and amendments.
``_layout_2`` below writes a state in the old layout as the old ``fold`` made it: the
timelines in the order ``guards.effects`` gives them, the method of a NoticeSent
(``None`` if it has none) and ``None`` for every other type.
"""

from __future__ import annotations

import copy
import json

import pytest

from ledger import guards
from ledger.store.chain import verify
from ledger.errors import RuleViolation
from ledger.store import Ledger
from ledger.store.canonical import deal_id
from ledger.store.stream import seal
from tests.support import ev, opened
from tests.test_integrity import RawSnapshots, _append


def _layout_2(state: dict, records: list[dict]) -> dict:
    """``state`` (layout 3, of ``records``) in layout 2, as the code before it folded it."""
    old = copy.deepcopy(state)
    old["format"] = 2
    old["ids"] = {r["id"]: [r["type"], r["date"], [name for name, _e in guards.effects({}, r)],
                            r["data"].get("method") if r["type"] == "NoticeSent" else None]
                  for r in records}
    return old


def _deal(url: str) -> None:
    """120 events, so that the second batch takes a snapshot (at version 100): two
    Holders, notices sent by fax and by hand, a transfer."""
    _append(url, [opened("rra"),
                  ev("NotesIssued", "2004-06-30", holder="H", principal="10000000"),
                  ev("NotesIssued", "2004-06-30", holder="G", principal="5000000")])
    _append(url, [ev("NoticeSent", "2004-07-01", to="H", subject=f"n{i}",
                     method=("fax", "hand")[i % 2]) for i in range(110)]
            + [ev("NotesTransferred", "2004-07-02", from_holder="H", to_holder="G",
                  principal="1000000")]
            + [ev("TrusteeNotified", "2004-07-03", about=f"t{i}") for i in range(6)])


def _records(url: str) -> list[dict]:
    with Ledger(url, create=False) as ledger:
        return [r for r in ledger.records() if r["deal"] == "rra"]


def _fold(records: list[dict]) -> dict:
    state = guards.new_state()
    for r in records:
        guards.fold(state, r)
    return state


def _to_layout(url: str, layout: int, edit=None) -> int:
    """Rewrite the deal's latest snapshot in ``layout`` (2; 3: ``ids`` without the
    notices' dates; 4: without the terms of issue 33), sealed as the old code sealed it
    (``edit``: a change to make to the old state first). Returns its version."""
    snaps = RawSnapshots(url)
    (oid, version, raw), = snaps.states()
    doc = json.loads(raw.decode())
    state = doc["state"]
    assert state["guard"]["format"] == guards.FORMAT == 5
    upto = [r for r in _records(url) if r["seq"] <= state["at"][0]]
    old = _layout_2(state["guard"], upto)
    if layout == 4:
        old = copy.deepcopy(state["guard"])
        old["format"] = 4
        del old["base_terms"]
        old["terms"] = {"maximum_principal": old["terms"]["maximum_principal"]}
    if layout == 3:
        old["format"] = 3
        old["ids"] = {eid: v[0] if v[3] is None else [v[0], v[3]]
                      for eid, v in old["ids"].items()}
    if edit is not None:
        edit(old)
    state["guard"] = old
    state["seal"] = seal(old, state["at"], version)
    snaps.set_state(oid, version, json.dumps(doc, separators=(",", ":")).encode())
    return version


def test_layout_5_keeps_what_the_refusals_read(sqlite_url):
    _deal(sqlite_url)
    state = _fold(_records(sqlite_url))
    notices = [v for v in state["ids"].values() if type(v) is list]
    # 55 fax notices with their day (an acknowledgment is not before it, RRA §10(E)),
    # 55 hand notices with their method alone (never acknowledged)
    assert sorted(map(len, notices)) == [2] * 55 + [3] * 55
    assert {tuple(v) for v in notices if len(v) == 3} == {("NoticeSent", "fax", "2004-07-01")}
    assert state["timelines"]["positions"]["end"] == 15_000_000_00   # cents issued
    assert state["terms"]["maximum_principal"] == "72000000"
    assert state["terms"]["notices"]["section"] == "RRA §10(E)"   # the deal's terms (5)
    assert guards.upgrade(state) is state and guards.READABLE == (5,)


def test_the_new_layout_takes_less_text():
    # what layout 3 was for: the same deal's state encodes smaller (hand notices)
    from ledger.store.canonical import _canonical_text

    state = guards.new_state()
    records = []
    for seq, e in enumerate([opened("rra"), ev("NotesIssued", "2004-06-30", holder="H",
                                               principal="10000000")]
                            + [ev("NoticeSent", "2004-07-01", to="H", subject=f"n{i}",
                                  method="hand") for i in range(200)], start=1):
        record = {**e, "seq": seq, "id": f"{seq:08d}-0000-4000-8000-000000000000"}
        guards.fold(state, record, guards.check(state, record))
        records.append(record)
    new, old = len(_canonical_text(state)), len(_canonical_text(_layout_2(state, records)))
    # 200 hand notices: 16 bytes less each (the date and the timelines touched); the
    # deal's terms (layout 5) weigh the same in both
    assert old - new >= 200 * 16, (new, old)


@pytest.mark.parametrize("layout", [2, 3, 4])
def test_an_older_layout_snapshot_is_not_read_and_appends_rebuild(store_url, layout):
    _deal(store_url)
    _to_layout(store_url, layout)
    with Ledger(store_url, create=False) as ledger:
        assert verify(ledger).ok
        assert ledger._from_snapshot("rra") is None   # not read: rebuilt from the events
    records = _records(store_url)
    fax = next(r for r in records if r["data"].get("method") == "fax")
    hand = next(r["id"] for r in records if r["data"].get("method") == "hand")
    transfer = next(r["id"] for r in records if r["type"] == "NotesTransferred")
    # the rules that read what the old layouts lacked (a fax notice's day) or kept (a
    # notice's method, the timelines an event touched) all hold
    with pytest.raises(RuleViolation, match="a notice sent by hand is not acknowledged"):
        _append(store_url, [ev("NoticeAcknowledged", "2004-08-01", notice=hand)])
    with pytest.raises(RuleViolation, match="names no NoticeSent"):
        _append(store_url, [ev("NoticeAcknowledged", "2004-08-01", notice=transfer)])
    with pytest.raises(RuleViolation, match="cannot be acknowledged before"):
        _append(store_url, [ev("NoticeAcknowledged", "2004-06-30", notice=fax["id"])])
    # G holds 6,000,000 (5,000,000 + the transfer): selling 6,000,000 then retracting the
    # transfer would leave G short
    _append(store_url, [ev("NoticeAcknowledged", "2004-08-01", notice=fax["id"]),
                        ev("NotesTransferred", "2004-08-02", from_holder="G", to_holder="H",
                           principal="6000000")])
    with pytest.raises(RuleViolation, match=f"retracting {transfer} would leave the deal"):
        _append(store_url, [ev("EventRetracted", "2004-08-03", event_id=transfer, reason="entered in error")])
    with Ledger(store_url, create=False) as ledger:
        assert verify(ledger).ok
        assert ledger._deal("rra").guard == _fold(_records(store_url))


def test_an_older_layout_snapshot_edited_and_resealed_is_never_trusted(store_url):
    _deal(store_url)

    def fax_for_hand(old):   # a hand notice made acknowledgeable
        eid = next(e for e, v in old["ids"].items() if v[3] == "hand")
        old["ids"][eid][3] = "fax"
        return eid

    hand = []
    _to_layout(store_url, 2, lambda old: hand.append(fax_for_hand(old)))
    with pytest.raises(RuleViolation, match="a notice sent by hand is not acknowledged"):
        _append(store_url, [ev("NoticeAcknowledged", "2004-08-01", notice=hand[0])])


# ------------------------------------------- random histories: what layout 2 kept

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

LONG = int(__import__("os").environ.get("DEAL_LEDGER_LONG", "1") or 1)
HOLDERS = st.sampled_from(["A", "B", "C"])
DAYS = st.sampled_from(["2004-07-01", "2004-07-02", "2004-08-01"])
CENTS = st.integers(1, 500).map(lambda n: f"{n}.00")
_EVENTS = st.one_of(
    st.builds(lambda h, p: ("NotesIssued", {"holder": h, "principal": p}), HOLDERS, CENTS),
    st.builds(lambda f, t, p, u: ("NotesTransferred", {"from_holder": f, "to_holder": t,
                                                       "principal": p, "under_shelf": u}),
              HOLDERS, HOLDERS, CENTS, st.booleans()),
    st.builds(lambda h, p: ("NotesConverted", {"holder": h, "principal": p, "shares": 3}),
              HOLDERS, CENTS),
    st.builds(lambda h, p: ("NotesRetired", {"holder": h, "principal": p}), HOLDERS, CENTS),
    st.sampled_from([("ShelfFiled", {}), ("ShelfEffective", {}),
                     ("SuspensionStarted", {"material_transaction": False}),
                     ("SuspensionEnded", {}), ("ShelfUnusable", {}), ("ShelfUsable", {})]),
    st.builds(lambda h, w: ("CamdenWarrantsIssued", {"holder": h, "warrants": w}),
              HOLDERS, st.integers(1, 5)),
    st.builds(lambda h, w: ("CamdenWarrantsVested", {"holder": h, "warrants": w}),
              HOLDERS, st.integers(1, 5)),
    st.builds(lambda i, k: ("InstrumentRegistered", {"instrument": i, "kind": k}),
              st.sampled_from(["W1", "P1"]), st.sampled_from(["warrant", "preferred"])),
    st.builds(lambda i: ("WarrantsExercised", {"instrument": i, "fraction": "0.5"}),
              st.sampled_from(["W1", "P1"])),
    st.builds(lambda m: ("NoticeSent", {"to": "A", "subject": "s", "method": m}),
              st.sampled_from(["fax", "telex", "hand", "mail"])),
    st.just(("ConsentGiven", {"holder": "A", "matter": "m"})),
    st.integers(0, 10**6).map(lambda n: ("EventRetracted", n)),   # n picks the target
)


@settings(max_examples=200 * LONG, deadline=None, derandomize=True)
@given(st.lists(st.tuples(_EVENTS, DAYS), min_size=1, max_size=40))
def test_the_timelines_an_event_touched_are_those_layout_2_kept(steps):
    # fold alone (no check): whatever the history, every event's timelines read back
    # from the entries are the ones guards.effects gave it (what layout 2 stored)
    records = [{"type": "DealOpened", "deal": "rra", "date": "2004-06-30", "seq": 1,
                "id": "e1", "data": {"kind": "registration_rights",
                                     "terms": {"effectiveness_period_years": 2}}}]
    state = guards.fold(guards.new_state(), records[0])
    for (kind, data), day in steps:
        seq = len(records) + 1
        if kind == "EventRetracted":
            live = [r["id"] for r in records
                    if r["type"] not in ("EventRetracted", "DealOpened")
                    and r["id"] not in state["retracted"]]
            if not live:
                continue
            data = {"event_id": live[data % len(live)], "reason": "r"}
        record = {"type": kind, "deal": "rra", "date": day, "seq": seq, "id": f"e{seq}",
                  "data": data}
        guards.fold(state, record)
        records.append(record)
    for r in records:
        kept = {name for name, _e in guards.effects({}, r)}
        assert set(guards._touched(state, r["id"])) == kept, r


def test_every_type_effects_reads_is_one_it_lets_through():
    # ``effects`` returns at once for a type outside ``_EFFECT_TYPES`` (most events touch
    # no timeline): every type its branches name, and every type of the groups it tests,
    # must be in that set, or its entries would silently stop being kept
    import inspect
    import re

    from ledger import guards

    source = inspect.getsource(guards.effects)
    named = set(re.findall(r'"([A-Z][A-Za-z]+)"', source))
    for group in re.findall(r"\b([A-Z_]+_TYPES)\b", source):
        if group != "_EFFECT_TYPES":
            named |= set(getattr(guards, group))
    assert "NotesIssued" in named and "ShelfFiled" in named
    assert named <= guards._EFFECT_TYPES, sorted(named - guards._EFFECT_TYPES)
