"""How one figure changed as the ledger learned things: replay as known (SPEC §1).

``history(events, figure, as_of=...)`` recomputes the report as known at each distinct
``recorded_at`` of the deal's events (one batch is one moment: the store stamps a batch
once) and lists every change of the figure with its value before and after and the events
recorded at that moment. It is pure: the events are given, nothing reads the clock.

Cost: a report is only recomputed at a moment that changes what the report reads: the
live events (known, not retracted) dated on or before ``as_of``, plus those that count
whatever their date (``timeline.READ_ANY_DATE``: the ``DealOpened``, and the calendar's
overrides, SPEC §2). A moment that records only other events dated after ``as_of`` cannot change any
figure and is skipped; same-timestamp events are one moment. So a few thousand events recorded in a
few hundred batches cost a few hundred reports, each over the events known by then.
"""

from __future__ import annotations

from datetime import date, datetime
from itertools import groupby
from typing import Any, Iterable, Mapping, Sequence

from ledger.stored import Event, format_timestamp

from .figures import ABSENT, FigureError, locate, parse_path, strip_basis
from .interpretations import resolve
from .report import report
from .timeline import CORRECTIONS, READ_ANY_DATE, retracted_ids


def moments(events: Iterable[Event]) -> list[tuple[datetime, list[Event]]]:
    """The deal's events grouped by recording moment, in recorded order."""
    ordered = sorted(events, key=lambda e: (e.recorded_at, e.seq))
    return [(t, list(batch)) for t, batch in groupby(ordered, key=lambda e: e.recorded_at)]


def _brief(e: Event) -> dict[str, Any]:
    return {"id": e.id, "seq": e.seq, "type": e.type, "date": e.date.isoformat(),
            "recorded_by": e.recorded_by, "source": e.source,
            **({"retracts": e.data["event_id"]} if e.type == "EventRetracted" else {}),
            **({"reinstates": e.data["retraction_id"]} if e.type == "EventReinstated" else {})}


def _status(before: Any, after: Any) -> str:
    if before is ABSENT:
        return "appeared"
    if after is ABSENT:
        return "disappeared"
    return "changed"


def history(events: Sequence[Event], figure: str, *, as_of: date,
            interpretations: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Every change of ``figure`` (a path, see ``projections.figures``) in the report as of
    ``as_of``, as known at each recording moment. ``FigureError`` if the path is malformed
    or ambiguous, or names nothing at any moment."""
    parse_path(figure)
    in_force = resolve(interpretations)
    steps = moments(events)
    known: list[Event] = []
    retracted: frozenset[str] = frozenset()
    reads: frozenset[str] | None = None      # what the last computed report read
    value: Any = ABSENT
    path = figure
    changes: list[dict[str, Any]] = []
    computed = 0
    last_report: dict[str, Any] | None = None
    for moment, batch in steps:
        known.extend(batch)
        if any(e.type in CORRECTIONS for e in batch):
            retracted = retracted_ids(known)
            now = frozenset(e.id for e in known if e.type not in CORRECTIONS
                            and e.id not in retracted
                            and (e.date <= as_of or e.type in READ_ANY_DATE))
        else:
            now = (reads or frozenset()) | {e.id for e in batch if e.date <= as_of
                                            or e.type in READ_ANY_DATE}
        if reads is not None and now == reads:
            continue
        reads = now
        if not _opened(known):
            continue
        last_report = report(known, as_of=as_of, known_at=moment, interpretations=in_force)
        computed += 1
        found = locate(last_report, figure, missing_ok=True)
        after = strip_basis(found.value) if found.value is not ABSENT else ABSENT
        if found.value is not ABSENT:
            path = found.path
        if after != value:
            changes.append({"known_at": format_timestamp(moment), "status": _status(value, after),
                            "before": None if value is ABSENT else value,
                            "after": None if after is ABSENT else after,
                            "events": [_brief(e) for e in batch]})
            value = after
    if not changes:
        if last_report is None:
            raise FigureError("the deal has no DealOpened event")
        locate(last_report, figure)  # raises, naming what is there
    return {"deal": known[0].deal if known else None, "figure": path, "as_of": as_of.isoformat(),
            "interpretations": in_force, "moments": len(steps), "computed": computed,
            "present": value is not ABSENT, "value": None if value is ABSENT else value,
            "changes": changes}


def _opened(known: list[Event]) -> bool:
    """A ``DealOpened`` counts among ``known``: recorded and not retracted (a deal opened
    with wrong terms, retracted and not yet opened again, has no report)."""
    retracted = retracted_ids(known)
    return any(e.type == "DealOpened" and e.id not in retracted for e in known)
