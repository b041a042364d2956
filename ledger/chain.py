"""Verifying the log's hash chain (SPEC §3): each event's ``hash`` is SHA-256 over its
canonical JSON including ``prev_hash``, and ``prev_hash`` is the hash before it.

The walk follows the notification log (the order rows were committed), so a changed
byte, a deleted row, two swapped rows or a cut-off tail each name the first bad ``seq``.
Rewriting the whole chain after an edit leaves it self-consistent; ``expect`` catches
that too: a head hash kept elsewhere must still be in the log.
"""

from __future__ import annotations

from dataclasses import dataclass

from .store import GENESIS, Ledger, record_hash


@dataclass(frozen=True)
class Verdict:
    ok: bool
    count: int
    head_hash: str
    bad_seq: int | None = None
    reason: str | None = None

    def line(self) -> str:
        if self.ok:
            return f"ok: {self.count} events, head {self.head_hash}"
        if self.bad_seq is None:
            return str(self.reason)
        return f"seq {self.bad_seq}: {self.reason}"


def verify(ledger: Ledger, expect: str | None = None) -> Verdict:
    expected_seq, prev = 1, GENESIS
    seen_expect = expect is None or expect == GENESIS
    recorder, mapper = ledger.app.recorder, ledger.app.mapper
    position = 0
    while True:
        page = recorder.select_notifications(start=position, limit=2000,
                                             topics=ledger._topics, inclusive_of_start=False)
        if not page:
            break
        for n in page:
            try:
                record = mapper.to_domain_event(n).record
                stated_seq = record["seq"]
            except Exception:
                return Verdict(False, expected_seq - 1, prev, expected_seq,
                               "the stored bytes of this event cannot be decoded "
                               f"(notification {n.id} was altered)")
            if stated_seq != expected_seq:
                what = ("missing or out of order" if stated_seq > expected_seq
                        else "out of order")
                return Verdict(False, expected_seq - 1, prev, expected_seq,
                               f"event {what}: the log has seq {stated_seq} here")
            if record.get("prev_hash") != prev:
                return Verdict(False, expected_seq - 1, prev, expected_seq,
                               "prev_hash does not match the hash of the event before it")
            if record_hash(record) != record.get("hash"):
                return Verdict(False, expected_seq - 1, prev, expected_seq,
                               "hash does not match the event's content (it was changed)")
            prev = record["hash"]
            if prev == expect:
                seen_expect = True
            expected_seq += 1
        position = page[-1].id
    head = ledger.head()
    count = expected_seq - 1
    if head.seq != count or head.hash != prev:
        return Verdict(False, count, prev, count + 1,
                       f"the chain head says seq {head.seq} but the log ends at seq {count} "
                       "(events were removed)")
    if not seen_expect:
        return Verdict(False, count, prev, None,
                       f"the log no longer extends the expected head {expect}: history "
                       "before it was rewritten")
    return Verdict(True, count, prev)
