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

An ``AdjustmentRecorded`` (an adjustment outside the deferral, Letter ¶5) has no place of
its own in that kind order unless the reading ``same_day_adjustment`` says so (SPEC §6,
issue 30): by default (``as_recorded``) it takes effect where it was recorded among the
day's vestings, cancellations, exercises and conversions (``day_order``), as SPEC §1 asks;
``before_others`` takes it before them, as the kind order did. Only what SPEC asks is
moved: a capitalization counts for that day's vesting, Camden Warrants issued on a day
can vest that day, the day's vestings take effect together at the first one's place, and
an exercise or conversion takes effect after (``vesting_first``) or before
(``exercise_first``) them whatever its place. When those rules and the recorded order
cannot all hold (an exercise, then an adjustment, then a vesting, under
``vesting_first``), the exercise is what moves: the adjustment keeps its place before the
vesting, and so is in force at the exercise.

Registration Rights events have no kind order (rank 0): ``(date, seq)`` exactly.

``ledger/`` may not import ``projections/``, so the rule lives here and the letter's
projection imports it (``projections.trueup.order``); the guards sort their timelines with
the same ``in_effect_key``, so a batch is accepted iff the projection's order of it
breaks no rule.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, TypeVar

T = TypeVar("T")

VESTING_FIRST = "vesting_first"
EXERCISE_FIRST = "exercise_first"
SAME_DAY_READINGS = (VESTING_FIRST, EXERCISE_FIRST)
AS_RECORDED = "as_recorded"
BEFORE_OTHERS = "before_others"
ADJUSTMENT_READINGS = (AS_RECORDED, BEFORE_OTHERS)

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


def _check(name: str, value: str, values: tuple[str, ...]) -> None:
    if value not in values:
        raise ValueError(f"interpretation {name} has no value {value!r}; choose one of "
                         f"{', '.join(values)}")


def rank(type_: str, same_day: str = VESTING_FIRST, adjustment: str = AS_RECORDED) -> int:
    """The place of an event type in a day without vestings (0 for anything the letter
    does not order): ``as_recorded``, an ``AdjustmentRecorded`` shares the exercises'
    rank, so that ``seq`` orders the two. ``same_day``: the reading of
    ``same_day_vesting_and_exercise``; ``adjustment``: of ``same_day_adjustment`` (SPEC
    §6, Letter ¶3)."""
    _check("same_day_vesting_and_exercise", same_day, SAME_DAY_READINGS)
    _check("same_day_adjustment", adjustment, ADJUSTMENT_READINGS)
    if type_ == "AdjustmentRecorded" and adjustment == AS_RECORDED:
        type_ = EXERCISES[0]
    if same_day == EXERCISE_FIRST and type_ in EXERCISES:
        return _EXERCISE_FIRST_RANK
    return LETTER_DAY_ORDER.get(type_, 0)


def in_effect_key(day: Any, type_: str, seq: int, same_day: str = VESTING_FIRST,
                  adjustment: str = AS_RECORDED) -> tuple[Any, int, int]:
    """``(date, kind's rank in the day, seq)``, for the events of a day without vestings
    (a guard's timeline never holds a vesting with an exercise or an adjustment):
    never the event's data (SPEC §1). ``day`` is a ``date`` or its ISO text (the two
    sort alike). ``day_order`` orders any day."""
    return (day, rank(type_, same_day, adjustment), seq)


#: what ``day_order`` moves together: a day's adjustments, vestings, cancellations,
#: exercises and conversions (ranks 3 to 7); before them the positions, capitalizations
#: and Camden issuances, after them the true-up shares issued
_TOGETHER = range(LETTER_DAY_ORDER["AdjustmentRecorded"], LETTER_DAY_ORDER["WarrantsExercised"] + 1)


def day_order(items: Iterable[T], fields: Callable[[T], tuple[Any, str, int]],
              same_day: str = VESTING_FIRST, adjustment: str = AS_RECORDED) -> list[T]:
    """``items`` (``fields(item)``: its date, type and seq) in the order they take effect
    (module doc). With ``before_others`` the kind order alone; with ``as_recorded`` each
    day's adjustments, vestings, cancellations, exercises and conversions in recorded
    order, but the vestings together at the day's first vesting (``v``), a cancellation
    after them, and an exercise recorded on the wrong side of them moved just past them
    (``vesting_first``) or just before them (``exercise_first``)."""
    if adjustment == BEFORE_OTHERS:
        return sorted(items, key=lambda x: in_effect_key(*fields(x), same_day, adjustment))
    _check("same_day_adjustment", adjustment, ADJUSTMENT_READINGS)
    _check("same_day_vesting_and_exercise", same_day, SAME_DAY_READINGS)
    items = list(items)
    first: dict[Any, int] = {}   # a day's first vesting, by seq
    for x in items:
        day, type_, seq = fields(x)
        if type_ == "CamdenWarrantsVested" and seq < first.get(day, seq + 1):
            first[day] = seq

    def key(x: T) -> tuple[Any, int, int, int, int]:
        day, type_, seq = fields(x)
        kind = LETTER_DAY_ORDER.get(type_, 0)
        if kind not in _TOGETHER:
            return (day, 0 if kind < _TOGETHER[0] else 2, kind, seq, 0)
        v = first.get(day)
        if v is None or type_ == "AdjustmentRecorded":
            return (day, 1, seq, 0, seq)
        if type_ == "CamdenWarrantsVested":
            return (day, 1, v, 1, seq)
        if type_ == "CamdenWarrantsCancelled":
            return (day, 1, v, 2, seq)
        if same_day == VESTING_FIRST:   # an exercise or conversion
            return (day, 1, v, 3, seq) if seq < v else (day, 1, seq, 0, seq)
        return (day, 1, v, 0, seq) if seq > v else (day, 1, seq, 0, seq)

    return sorted(items, key=key)


#: each letter type's ``rank`` under the default readings (what the guards sort by)
RANKS: dict[str, int] = {t: rank(t) for t in LETTER_DAY_ORDER}
