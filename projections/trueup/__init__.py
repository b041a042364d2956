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

Paragraphs of the letter are counted from the first of its body: ¶1 the reference
paragraph (Warrant Agreement, Certificate of Designations, the Warrantholders), ¶2 the
deferral (the Shares, the Camden Warrants, Vested Warrants), ¶3 the true-up, ¶4 no
other adjustment, ¶5 limited, not applicable to further issuances, counterparts, ¶6
governing law.

Readings of the letter (and of SPEC §5) this engine had to choose, each where it lives
(those named in SPEC §6 are switchable interpretations):

* the cutoff is strict: "prior to February 1, 2004" (``trueup.eligible``);
* ``same_day_vesting_and_exercise`` (default ``vesting_first``): a vesting on the date
  of an exercise is not "after the date of the exercise": it is in force at the exercise
  and earns no true-up; ``exercise_first`` prices the exercise before it and lets it earn
  a true-up (``ledger.dayorder``, ``replay``);
* one day's events take effect by kind: positions, capitalization (counts for that day's
  vestings), Camden issuance, then the day's adjustments, vestings, cancellations,
  exercises and conversions, then true-up shares; events of one kind on one day in
  recorded order (``seq``), never by their data (SPEC §1): same-day partial exercises
  take "what remains" in the order they were entered; of two capitalizations or two
  adjustments of one day the later-recorded one stands. ``same_day_adjustment``
  (default ``as_recorded``): an ``AdjustmentRecorded`` takes effect where it was recorded
  among the day's vestings, cancellations, exercises and conversions (the vestings
  together, exercises moved by ``same_day_vesting_and_exercise``); ``before_others``
  takes it before them. The guards use the same rule (``ledger.dayorder``, ``order``);
* all the vestings of one day are one adjustment, their ``C`` and ``B`` summed and the
  price rounded once (SPEC §5.2); tranches whose Camden price is not below ``P`` are
  left out of the sum (``adjustments``, ``replay.vested_day``);
* ``trueup_adjustments`` (default ``all``): ``x`` is taken after the vesting with every
  adjustment then in force, including an ``AdjustmentRecorded`` after the exercise
  (flagged: ``y`` is never restated for a split); ``camden_only`` applies only the
  Camden adjustments to the price at the exercise. ``y`` is the shares issued at the
  exercise plus the true-up shares credited to it before the vesting; what an exercise
  has earned never falls (``trueup``);
* shares issued at an exercise below what the price in force implied: a discrepancy,
  reported with whether it is owed under the letter (only through a later vesting's
  ``x - y``) (``trueup.shortfall``, ``report``);
* ``TrueUpSharesIssued`` names an instrument: oldest eligible exercise first, the excess
  to the latest (``trueup.settled``);
* ``trueup_dividends`` (default ``frozen``); ``to_vesting_date`` converts, for preferred,
  the dividends accrued from the conversion to the vesting date at the deal's
  ``preferred_dividends`` terms (``trueup.accrued_dividends``);
* a vesting adjusts every registered position, held or exercised, so that ``x`` can be
  computed (``replay._adjust_all``); a position's registered price is the price in force
  on its registration date (``instruments.registered``);
* broad adds only the Camden Warrants vested since the latest capitalization record to
  ``A``; narrow adds none; a new record ends the deeming; a vesting never raises a price;
  the full ratchet's Camden price is rounded to ``price_decimals``; no capitalization
  means no weighted-average adjustment, reported, and an eligible exercise's true-up for
  a tranche below its price is *unknown* (shares are owed, how many needs the
  capitalization: ``Account.unknown``, the obligation's ``unknown`` state)
  (``adjustments``, ``replay``);
* the share count is rounded down once from the aggregate exercise price or stated
  value, never step by step (``instruments``);
* ``camden_tranche_order`` (default ``earliest_first``): a vesting draws on the holder's
  earliest issuance, a cancellation on its latest; ``latest_first`` the other way
  (``camden``); warrants named beyond what is unvested adjust nothing (``replay``);
* ``later_camden_issuance`` (default ``not_deferred``): Camden Warrants issued after the
  agreement date (the Camden Warrant Agreement is dated as of February 1, 2002) are not
  Camden Warrants of the letter (¶2, ¶5 "any further issuance"): reported in
  ``camden_not_deferred``, kept out of the book; ``deferred`` reads ¶2's definition
  ("issued ... pursuant to" that agreement) and keeps them in (``replay``);
* ``AdjustmentRecorded`` is outside the deferral (¶5) and sets an absolute price; for
  ``"all"`` it sets every registered position, and one price for positions at different
  prices is reported (``adjustments.recorded_adjustment``, ``replay``);
* the adjustment still deferred vests every issuance's unvested warrants on ``as_of``,
  one day, one adjustment, with the capitalization in force (``deferred``);
* positions of holders, and Camden Warrants of entities, not named in the letter are
  counted and reported (``replay``).
"""

from typing import Any

__all__ = ["build"]


def __getattr__(name: str) -> Any:
    """``build`` (``report.build``), imported when first asked for, not with the package:
    the agenda imports ``replay`` alone, and ``report`` brings ``deferred`` and the report
    part's code with it (a third of the package's import, in every agenda process)."""
    if name == "build":
        from .report import build

        return build
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
