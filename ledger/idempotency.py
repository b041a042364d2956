"""Sending a batch again is safe (issue 31): the idempotency key of SPEC §3.

SPEC §3's optional ``key`` is the idempotency key: "a second event with the same deal and
key is refused as a duplicate" (``guards.check``, ``DuplicateKey``). A batch re-sent after
a timeout or a crash is the same facts again, not a conflict, so the store answers it as
event stores answer an idempotent append (EventStoreDB, Axon: the same event id again is
accepted and writes nothing):

* every keyed line of the batch already recorded, with the same content (type, deal,
  date, data, source): "already recorded: seq a..b", nothing written, success;
* a key recorded with other content: refused, naming both the line and the event;
* some lines recorded and others not: refused (a batch is all or nothing, and a batch
  that was written was written whole: this one is another batch);
* nothing recorded: the guards' refusal stands (two lines of the batch with one key).

``append --batch-id ID`` gives the whole batch one key: line N is keyed ``ID#N`` (a line
with its own ``key`` keeps it), so the batch re-sent is recorded already line by line.
Two identical lines in one batch are most often one line pasted twice: refused, naming
both line numbers, unless the operator says they are two events (``--allow-duplicates``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from .errors import DuplicateKey, InvalidEvent, RuleViolation, UsageError
from .upcasting import upcast

if TYPE_CHECKING:   # a reader of the ledger does not import the validators
    from .events import NewEvent

RULE = "idempotency: one key, one event"
DUPLICATE_LINES_RULE = "a batch holds each event once (--allow-duplicates for two alike)"
COMPARED = ("type", "deal", "date", "data", "source")
MAX_BATCH_ID = 200


def refuse_duplicate_lines(lines: Sequence[bytes], first: int = 1) -> None:
    """``InvalidEvent`` naming the first line that repeats an earlier one byte for byte
    (surrounding spaces and the line end aside), and that earlier line."""
    seen: dict[bytes, int] = {}
    for number, line in enumerate(lines, start=first):
        text = line.strip()
        earlier = seen.setdefault(text, number)
        if earlier != number:
            raise InvalidEvent(f"the same as line {earlier}: lines {earlier} and {number} are "
                               "identical; if they are two events, append with "
                               "--allow-duplicates", line=number, rule=DUPLICATE_LINES_RULE)


def batch_keyed(batch: Sequence[NewEvent], batch_id: str) -> list[NewEvent]:
    """The batch with every line that has no ``key`` keyed ``BATCH_ID#N`` (N: its line)."""
    text = batch_id.strip()
    if not text or len(text) > MAX_BATCH_ID or any(c < " " for c in text):
        raise UsageError(f"a batch id is one line of 1 to {MAX_BATCH_ID} characters",
                         field="--batch-id")
    return [e if e.key is not None else replace(e, key=f"{text}#{e.line or k}")
            for k, e in enumerate(batch, start=1)]


def _content(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {name: obj.get(name) for name in COMPARED}


def _first_difference(given: Mapping[str, Any], stored: Mapping[str, Any]) -> str:
    for name in COMPARED:
        if name == "data" and given.get(name) != stored.get(name):
            a, b = given.get("data") or {}, stored.get("data") or {}
            for field in [*b, *(f for f in a if f not in b)]:
                if a.get(field) != b.get(field):
                    return (f"data.{field} is {b.get(field)!r} there and {a.get(field)!r} "
                            "here")
        elif given.get(name) != stored.get(name):
            return f"{name} is {stored.get(name)!r} there and {given.get(name)!r} here"
    return "the same content"


def recorded_already(batch: Sequence[NewEvent], refusal: DuplicateKey,
                     lookup: Callable[[str, str], Mapping[str, Any] | None]
                     ) -> list[Mapping[str, Any]]:
    """The records of a batch that is recorded already, line for line (module doc);
    otherwise the refusal that fits. ``refusal``: what the guards said of the batch;
    ``lookup(deal, key)``: the record of the deal holding that key, if any."""
    found: list[Mapping[str, Any] | None] = []
    for k, new in enumerate(batch, start=1):
        record = lookup(new.deal, new.key) if new.key is not None else None
        if record is not None:
            given, stored = new.envelope(), upcast(record)
            if _content(given) != _content(stored):
                raise DuplicateKey(
                    f"key {new.key!r} is recorded already as seq {record.get('seq')} "
                    f"(event {str(record.get('id'))[:8]}, {record.get('type')} of "
                    f"{record.get('date')}) with other content: "
                    f"{_first_difference(given, stored)}", line=new.line or k, field="key",
                    rule=RULE)
        found.append(record)
    if all(r is not None for r in found):
        return [r for r in found if r is not None]
    if not any(r is not None for r in found):
        raise refusal
    done = [new.line or k for k, (new, r) in enumerate(zip(batch, found), start=1) if r]
    new_lines = [new.line or k for k, (new, r) in enumerate(zip(batch, found), start=1)
                 if r is None]
    raise RuleViolation(f"line(s) {spans(done)} are recorded already (seq "
                        f"{spans([r['seq'] for r in found if r])}) and line(s) "
                        f"{spans(new_lines)} are not: a batch is written whole or not at "
                        "all; send the new lines alone", line=new_lines[0], field="key",
                        rule=RULE)


def spans(numbers: Sequence[int]) -> str:
    """``5..7, 9``: the numbers as runs."""
    runs: list[list[int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}..{b}" for a, b in runs)
