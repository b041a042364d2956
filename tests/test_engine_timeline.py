"""A timeline's index by type, and its events, are the plain filter's (issue 17, ENGINE,
third round).

``build_timeline`` skips the retraction and calendar passes when no event of those types
is known, and ``Timeline.of_type`` answers from positions by type. Held to the plain
definitions (SPEC §1: the events known, less the retracted ones and the retractions,
dated on or before ``as_of``, by ``(date, seq)``; ``of_type`` is ``[e for e in events if
e.type in types]``) on random histories with retractions (some retracted again,
some reinstated: issue 31),
calendar days, events recorded out of date order and events after ``as_of``.
"""

from __future__ import annotations

import os
from datetime import date, datetime, timedelta, timezone

from hypothesis import HealthCheck, given, settings, strategies as st

from projections.timeline import build_timeline
from tests.support import build, ev, opened

LONG = 20 if os.environ.get("DEAL_LEDGER_LONG") else 1
SETTINGS = settings(max_examples=200 * LONG, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
TYPES = ["ShelfFiled", "HoldersAdvised", "TrusteeNotified", "ConsentGiven"]
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


@st.composite
def histories(draw):
    objs = [opened()]
    for _ in range(draw(st.integers(0, 25))):
        day = (date(2004, 7, 1) + timedelta(days=draw(st.integers(0, 400)))).isoformat()
        kind = draw(st.sampled_from(TYPES + ["retract", "reinstate", "calendar"]))
        if kind == "ConsentGiven":
            objs.append(ev(kind, day, holder="A", matter="waiver of RRA §2(a)(ii)"))
        elif kind == "retract":
            if len(objs) > 1:   # an earlier event, possibly a retraction
                target = draw(st.integers(2, len(objs)))
                objs.append(ev("EventRetracted", day, event_id=f"e{target}",
                               reason="entered in error"))
        elif kind == "reinstate":   # withdraws an earlier retraction (issue 31)
            retractions = [i for i, o in enumerate(objs, 1) if o["type"] == "EventRetracted"]
            if retractions:
                target = draw(st.sampled_from(retractions))
                objs.append(ev("EventReinstated", day, retraction_id=f"e{target}",
                               reason="retracted in error"))
        elif kind == "calendar":
            objs.append({"type": "CalendarDayDeclared", "deal": "rra", "date": day,
                         "data": {"day": day, "business_day": False, "reason": "storm"}})
        else:
            objs.append(ev(kind, day))
    as_of = date(2004, 7, 1) + timedelta(days=draw(st.integers(0, 420)))
    known = draw(st.none() | st.integers(0, len(objs) + 1))
    picks = draw(st.lists(st.sampled_from(TYPES + ["DealOpened", "EventRetracted",
                                                   "EventReinstated", "CalendarDayDeclared",
                                                   "NotesIssued"]),
                          max_size=4))
    return objs, as_of, known, picks


def plain_events(events, as_of, known_at):
    """SPEC §1, §3.1 as written: an event counts unless a retraction of it counts; a
    retraction counts unless it is retracted or reinstated away by one that counts."""
    known = [e for e in events if known_at is None or e.recorded_at <= known_at]
    against: dict[str, list[str]] = {}
    for e in known:
        if e.type == "EventRetracted":
            against.setdefault(e.data["event_id"], []).append(e.id)
        elif e.type == "EventReinstated":
            against.setdefault(e.data["retraction_id"], []).append(e.id)

    def counts(event_id: str) -> bool:
        return not any(counts(r) for r in against.get(event_id, ()))

    live = [e for e in known if counts(e.id)
            and e.type not in ("EventRetracted", "EventReinstated")]
    return tuple(sorted((e for e in live if e.date <= as_of), key=lambda e: (e.date, e.seq)))


@SETTINGS
@given(history=histories())
def test_a_timeline_is_the_plain_filter(history):
    objs, as_of, known, picks = history
    events = build(objs)
    known_at = None if known is None else T0 + timedelta(minutes=known)
    try:
        timeline = build_timeline(list(reversed(events)), as_of, known_at)
    except ValueError:   # the opening not known yet
        assert known is not None and known < 1
        return
    assert timeline.events == plain_events(events, as_of, known_at)
    assert timeline.of_type(*picks) == [e for e in timeline.events if e.type in picks]
    for kind in TYPES:
        assert timeline.of_type(kind) == [e for e in timeline.events if e.type == kind]
    # the calendar: the days declared by the live events known, whatever their date
    assert set(timeline.calendar.overrides) == {
        e.data["day"] for e in events if e.type == "CalendarDayDeclared"
        and (known_at is None or e.recorded_at <= known_at) and e.id not in timeline.retracted}
