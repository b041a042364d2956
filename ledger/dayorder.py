"""The order in which one day's events take effect: one rule for the write side
(``ledger.guards``) and the read side (``projections``) (SPEC §1; Letter ¶2, ¶3).

SPEC §1: events are taken by ``(date, seq)``, and events of one day "count in the order
they were recorded, never in an order derived from their content". The letter needs one
thing more: *kinds* of events of one day take effect in a fixed order, so that a
capitalization recorded on a vesting date counts for that vesting (SPEC §5.2 "on or
before the vesting date"), Camden Warrants issued on a day can vest that day, and a
vesting on the date of an exercise is, or is not, in force at the exercise as the
interpretation ``same_day_vesting_and_exercise`` says (Letter ¶3 "after the date of the
exercise"). Within one kind, ``seq`` alone decides: two exercises of one warrant on one
day, each a fraction of what remains, mean what they meant in the order the operator
entered them; of two capitalization records on one day the later-recorded one counts.

Registration Rights events have no kind order (rank 0): ``(date, seq)`` exactly.

``ledger/`` may not import ``projections/``, so the rule lives here and the letter's
projection imports it (``projections.trueup.order``); the guards sort their timelines with
the same ``in_effect_key``, so a batch is accepted iff the projection's order of it
breaks no rule.
"""

from __future__ import annotations

from typing import Any

VESTING_FIRST = "vesting_first"
EXERCISE_FIRST = "exercise_first"
SAME_DAY_READINGS = (VESTING_FIRST, EXERCISE_FIRST)

EXERCISES = ("WarrantsExercised", "PreferredConverted")

#: Within a day (``vesting_first``, the default): positions first, then the
#: capitalization, the Camden issuance, other adjustments, vestings, cancellations,
#: exercises and conversions, and settlements last.
LETTER_DAY_ORDER: dict[str, int] = {
    "InstrumentRegistered": 0,
    "CapitalizationRecorded": 1,
    "CamdenWarrantsIssued": 2,
    "AdjustmentRecorded": 3,
    "CamdenWarrantsVested": 5,
    "CamdenWarrantsCancelled": 6,
    "WarrantsExercised": 7,
    "PreferredConverted": 7,
    "TrueUpSharesIssued": 8,
}
_EXERCISE_FIRST_RANK = 4     # after the day's adjustments, before its vestings


def rank(type_: str, same_day: str = VESTING_FIRST) -> int:
    """The place of an event type in its day (0 for anything the letter does not order).
    ``same_day``: the reading of ``same_day_vesting_and_exercise`` (SPEC §6, Letter ¶3)."""
    if same_day not in SAME_DAY_READINGS:
        raise ValueError(f"interpretation same_day_vesting_and_exercise has no value "
                         f"{same_day!r}; choose one of {', '.join(SAME_DAY_READINGS)}")
    if same_day == EXERCISE_FIRST and type_ in EXERCISES:
        return _EXERCISE_FIRST_RANK
    return LETTER_DAY_ORDER.get(type_, 0)


def in_effect_key(day: Any, type_: str, seq: int, same_day: str = VESTING_FIRST
                  ) -> tuple[Any, int, int]:
    """``(date, kind's rank in the day, seq)``: never the event's data (SPEC §1). ``day``
    is a ``date`` or its ISO text (the two sort alike)."""
    return (day, rank(type_, same_day), seq)
