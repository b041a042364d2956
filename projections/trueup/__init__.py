"""The Letter (February 1, 2002): deferred anti-dilution and true-up shares (SPEC §5).

Modules, each beside the words it implements:

* ``instruments``: the Warrantholders' Warrants and Series A Preferred ("Shares"), their
  prices and share counts (Letter ¶1; Warrant Agreement Art. IV; Certificate §12);
* ``camden``: the Camden Warrants, issued, vested ("Vested Warrants") or cancelled (¶2);
* ``adjustments``: the deferred adjustment each vesting applies, and ``AdjustmentRecorded``
  (¶2, ¶4, ¶5);
* ``trueup``: the true-up ``x - y`` for exercises and conversions before the cutoff (¶3);
* ``deferred``: what would still apply if every unvested Camden Warrant vested (¶2);
* ``order``: the order in which one day's events take effect; ``replay``: the walk over
  the events; ``arithmetic``: exact rounding; ``report``: the SPEC §7 ``true_up`` part.

All are pure functions of the timeline and the interpretations in force.
"""

from .report import build

__all__ = ["build"]
