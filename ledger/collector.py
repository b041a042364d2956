"""Holding off Python's cyclic garbage collector around work that allocates hundreds of
thousands of acyclic objects that stay alive until it ends (a batch being staged, a
deal's events and report, a portfolio's agenda lines): reference counting still frees
whatever is dropped, and the collector's passes would only walk the survivors again and
again (a quarter of a report's time, a tenth of a cold ``report``: issue 17)."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def paused(when: bool = True, *, freeze: bool = False, promote: bool = False
           ) -> Iterator[None]:
    """The collector off for the block (``when``; if it is on), back on however the
    block ends. ``freeze``: what is alive at the end is left out of later collections
    (``gc.freeze``), for a process that only prints it and exits. ``promote``: what is
    alive at the end joins the oldest generation (``gc.freeze`` then ``gc.unfreeze``,
    two list splices), as objects that outlive two young collections do: the first
    young pass after the block would otherwise walk every survivor of it (a 100,000-line
    batch's records and guard states: about 0.2 s), and the collector finds any cycle
    among them at its next full pass, as for any long-lived object. Not done if objects
    were frozen already (unfreezing would release them too)."""
    if not when or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        elif promote and not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        gc.enable()
