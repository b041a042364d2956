"""The deals whose guard states ``verify``'s walk (``ledger.store.walk``) did not hold to
their snapshots, folded after it, one at a time.

The walk folds each deal's events up to its latest snapshot as they stream past and
holds the deal's state until then. Where many deals' events are interleaved (a batch of
every deal, a thousand deals a batch), that would hold every deal's state at once: a
million events in a thousand deals took 580 MB. So the walk takes a deal's state only if
the states it holds will hold at most ``HELD_EVENTS`` events at their snapshots (each
deal's snapshot version is known before the walk), or if it holds none; a deal met
beyond that is left to this module: after the walk, its events up to the snapshot are
read again from the same consistent view (its rows were checked by the walk already:
chained, hashed, in its stream's order), folded, and compared there. Memory is then
that of the states held plus one deal's; the cost, a second read of those deals'
events (1,000,000 events in 100-deal batches: 1.53x -> 1.63x the CPU of a plain walk of
the chain, 105 -> 86 MiB)."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from .. import guards
from ..upcasting import FIRST_VERSION, VERSION_FIELD, upcast, versions_in_force

#: the events the guard states a walk holds at once will hold (about 0.6 kB each)
HELD_EVENTS = 60_000
PAGE = 2_000


def stream_records(view: Any, stream: Any, upto: int,
                   decode: Callable[[list[bytes]], list[dict[str, Any] | None]]
                   ) -> Iterator[dict[str, Any] | None]:
    """The records of ``stream``'s events at versions 1 to ``upto``, in version order."""
    from .rows import blob

    after = 0
    while after < upto:
        rows = view.stream_rows(stream, after, min(upto, after + PAGE))
        if not rows:
            return
        yield from decode([blob(r[1]) for r in rows])
        after = rows[-1][0]


def refold(view: Any, stream: Any, upto: int,
           decode: Callable[[list[bytes]], list[dict[str, Any] | None]],
           same: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The deal's guard state folded from its events up to version ``upto``, and the
    last record folded."""
    state = guards.new_state()
    # (a record that does not decode was named by the walk: the view cannot have changed)
    return state, fold_records(state, stream_records(view, stream, upto, decode), same)


_IN_FORCE = versions_in_force()


def fold_records(state: dict[str, Any], records: Iterable[dict[str, Any] | None],
                 same: dict[str, str]) -> dict[str, Any] | None:
    """Fold one deal's chained records (``None``s passed over) into its guard state, in
    order; the last record folded. The state keeps each event's type and date: one
    string for each value (``same``), not one per event (a tenth of the memory of the
    states held). A record of its type's current version is folded as it is (``upcast``'s
    own test, made here: a million records)."""
    fold, intern, in_force, last = guards.fold, same.setdefault, _IN_FORCE.get, None
    for record in records:
        if record is None:
            continue
        kind = record.get("type")
        if type(kind) is str:
            record["type"] = kind = intern(kind, kind)
        day = record.get("date")
        if type(day) is str:
            record["date"] = intern(day, day)
        fold(state, record if record.get(VERSION_FIELD, FIRST_VERSION)
             == in_force(kind, FIRST_VERSION) else upcast(record))
        last = record
    return last
