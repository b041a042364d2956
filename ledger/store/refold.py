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

from typing import Any, Callable, Iterator

from .. import guards
from ..upcasting import upcast

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
    state, last = guards.new_state(), None
    for record in stream_records(view, stream, upto, decode):
        if record is None:   # the walk decoded it: the view cannot have changed
            continue
        for key in ("type", "date"):
            value = record.get(key)
            if type(value) is str:
                record[key] = same.setdefault(value, value)
        guards.fold(state, upcast(record))
        last = record
    return state, last
