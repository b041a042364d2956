"""The order in which the letter's events take effect (SPEC §1, Letter ¶2, ¶3).

Projections order by ``(date, seq)`` (SPEC §1). Within one day the letter needs more: a
capitalization recorded on the vesting date counts for it (SPEC §5.2 "on or before the
vesting date"), Camden Warrants issued on a day can vest that day, and a Camden vesting
on the date of an exercise is in force at the exercise or earns a true-up for it, as
``same_day_vesting_and_exercise`` reads Letter ¶3 "after the date of the exercise". So
the *kinds* of one day's events take effect in a fixed order, and events of one kind on
one day in the order they were recorded (``seq``), never in an order derived from their
data: two partial exercises of one warrant on one day take "what remains" in the order
the operator entered them; of two capitalizations, or two ``AdjustmentRecorded`` of one
instrument, recorded for one day, the later-recorded one stands. An ``AdjustmentRecorded``
takes effect where it was recorded among the day's vestings, exercises and conversions
(``same_day_adjustment = as_recorded``), or before them (``before_others``).

The rule itself is ``ledger.dayorder``: the write-side guards sort by the same key, so a
batch is refused exactly when the projection's order of it breaks a rule.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from ledger.dayorder import AS_RECORDED, LETTER_DAY_ORDER, VESTING_FIRST, day_order
from ledger.stored import Event

#: Within a day, under the default reading (``ledger.dayorder``).
DAY_ORDER: dict[str, int] = LETTER_DAY_ORDER


def same_day_reading(interpretations: Mapping[str, str] | None) -> str:
    return (interpretations or {}).get("same_day_vesting_and_exercise", VESTING_FIRST)


def adjustment_reading(interpretations: Mapping[str, str] | None) -> str:
    """``same_day_adjustment`` (SPEC §6): where an ``AdjustmentRecorded`` takes effect
    among its day's exercises, conversions and vestings."""
    return (interpretations or {}).get("same_day_adjustment", AS_RECORDED)


def _fields(e: Event) -> tuple:
    return e.date, e.type, e.seq


def in_effect_order(events: Iterable[Event],
                    interpretations: Mapping[str, str] | None = None) -> list[Event]:
    """The letter's events in the order they take effect: date, then the day's order
    (``ledger.dayorder.day_order``; SPEC §1)."""
    ours = (e for e in events if e.type in DAY_ORDER)
    return day_order(ours, _fields, same_day_reading(interpretations),
                     adjustment_reading(interpretations))
