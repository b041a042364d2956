"""The order in which the letter's events take effect (SPEC §1, Letter ¶2, ¶3).

Projections order by ``(date, seq)`` (SPEC §1). Within one day the letter needs more: a
Camden vesting "on the date" it happens must be in force for an exercise of the same day
(Letter ¶3 earns a true-up only for vestings "after the date of the exercise", so a
same-day vesting is given at the exercise instead), and a capitalization recorded on the
vesting date counts for it (SPEC §5.2 "on or before the vesting date"). So the events of
one day are taken in a fixed order of kinds, and events of one kind on one day in the
order of their data, then id: never by ``seq``, so that the order in which an operator
entered same-day facts never changes a figure.

Reading chosen here: an ``AdjustmentRecorded`` for ``"all"`` takes effect before the
same day's adjustments of named instruments, so that the more specific record wins
whatever the instruments are called (ordering by data alone made "W-1" sort before
"all" but "w-1" after it).
"""

from __future__ import annotations

import json
from typing import Iterable

from ledger.events import Event

#: Within a day: positions first, then the capitalization, the Camden issuance, other
#: adjustments, vestings, cancellations, exercises and conversions, and settlements last.
DAY_ORDER: dict[str, int] = {
    "InstrumentRegistered": 0,
    "CapitalizationRecorded": 1,
    "CamdenWarrantsIssued": 2,
    "AdjustmentRecorded": 3,
    "CamdenWarrantsVested": 4,
    "CamdenWarrantsCancelled": 5,
    "WarrantsExercised": 6,
    "PreferredConverted": 6,
    "TrueUpSharesIssued": 7,
}


def _content(event: Event) -> str:
    return json.dumps({k: str(v) for k, v in event.data.items()}, sort_keys=True)


def _specific(event: Event) -> int:
    """0 for an adjustment of ``"all"`` instruments, 1 for anything naming one."""
    return 0 if event.type == "AdjustmentRecorded" and event.data["instrument"] == "all" else 1


def in_effect_order(events: Iterable[Event]) -> list[Event]:
    """The letter's events in the order they take effect: date, kind, data, id."""
    ours = (e for e in events if e.type in DAY_ORDER)
    return sorted(ours, key=lambda e: (e.date, DAY_ORDER[e.type], e.type, _specific(e),
                                       _content(e), e.id))
