"""Helpers forked at the start of ``deal-ledger agenda`` (issue 17): on a machine with more
than one core, the processes that will share the deals with this one are forked before
the ledger is opened, not after. Each imports the engines and loads the Fed holiday
tables while this process imports the store and opens the ledger, then waits for the
moment of the log to read (``ledger.store.logread.StreamSplit``); this process imports the
engines afterwards, while the helpers already compute. Before, the second core idled
through all of it (about a sixth of the command).

A helper that is not needed (a ledger of few deals, on PostgreSQL, with another
transcoder, or a failure opening it) is stopped, not waited for. What a helper computes
comes back as ``publishing.agenda._in_pool``'s children's does, and a helper that fails
only means its share is done here.
"""

from __future__ import annotations

import os
import pickle
from datetime import date
from typing import Any


class Helpers:
    """``workers - 1`` forked processes waiting for their share of ``every_deal_entries``
    with ``options`` and ``render``, as of ``day``'s years (``_preload``)."""

    def __init__(self, workers: int, day: date, options: dict[str, Any], render: Any):
        from ledger.forked import Child
        from ledger.store.logread import split_spans

        from .agenda import parts

        self.day = day
        self.chunks = split_spans(parts(workers))   # the same for every ledger
        self.taken, self.offered = os.pipe()
        self.go: list[int] = []
        self.children: list[Any] = []
        try:
            for _ in range(workers - 1):
                wait, go = os.pipe()
                self.go.append(go)
                # a helper keeps only the read ends: it holds none of the pipes open for
                # writing, so that it sees their end when this process closes them
                closing = [self.offered, *self.go]
                try:
                    self.children.append(Child(lambda wait=wait, closing=closing: self._help(
                        wait, closing, options, render), collect=False))
                finally:
                    os.close(wait)
        except OSError:   # no more processes or pipes to be had: none of them, then
            self.dismiss()
            raise

    def _help(self, wait: int, closing: list[int], options: dict[str, Any],
              render: Any) -> dict[int, Any] | None:
        """In a helper: the engines imported, then its share of the chunks once the
        moment of the log comes through ``wait`` (``None`` if it is closed first)."""
        from . import agenda

        for end in closing:
            os.close(end)
        agenda._preload(self.day)
        with os.fdopen(wait, "rb") as incoming:
            message = incoming.read()
        if not message:
            return None
        agenda._WORK = (pickle.loads(message), options, render)
        return agenda.share(agenda._range_entries, self.chunks, self.taken)

    def run(self, split: Any, options: dict[str, Any], render: Any) -> list[tuple[str, Any]]:
        """``(deal, entry)`` of every deal stream of ``split``, shared between this
        process and the helpers, in chunk order (``publishing.agenda._in_pool``)."""
        from . import agenda

        try:
            agenda.offer(self.offered, len(self.chunks))
            self.offered = -1
            message = pickle.dumps(split, protocol=pickle.HIGHEST_PROTOCOL)
            while self.go:
                try:
                    with os.fdopen(self.go.pop(), "wb") as outgoing:
                        outgoing.write(message)
                except OSError:   # a helper that has failed already: its share is done here
                    pass
            agenda._preload(self.day)
            agenda._WORK = (split, options, render)
            done = agenda.share(agenda._range_entries, self.chunks, self.taken)
            found = agenda.gather(agenda._range_entries, self.chunks, done, self.children)
            self.children = []
            return found
        finally:
            agenda._WORK = None
            self.dismiss()

    def dismiss(self) -> None:
        """Stops the helpers not waited for and closes the pipes (again: nothing)."""
        for child in self.children:
            child.stop()
        self.children = []
        for end in (self.taken, self.offered, *self.go):
            if end >= 0:
                os.close(end)
        self.taken = self.offered = -1
        self.go = []


def start_helpers(day: date, options: dict[str, Any], render: Any) -> Helpers | None:
    """The helpers for an agenda of every deal, forked now; ``None`` on one core or
    where processes cannot be forked (``publishing.agenda._pool_size``)."""
    from .agenda import POOL_MIN_DEALS, _pool_size

    workers = _pool_size(POOL_MIN_DEALS)
    if workers < 2:
        return None
    try:
        return Helpers(workers, day, options, render)
    except OSError:   # no process could be forked: this one computes every deal
        return None
