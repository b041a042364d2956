"""An iCalendar (RFC 5545) file of every dated obligation (issue 16): one VEVENT per
obligation of each deal, with the ``icalendar`` package.

* ``UID``: ``<obligation key>@<deal>.deal-ledger``; the key is the obligation's kind and
  the id of its trigger, followed back through corrections to the first event of its
  correction chain (``projections.obligations.identity``), so a correction that moves a
  date updates the same event in a calendar program, and a late-recorded earlier
  trigger adds an event without moving the others.
* ``SEQUENCE``: how many times the obligation's due day changed, as known at each
  recording moment of the deal's log (``_replay``): a retraction and its
  replacement that move a deadline raise it by one; nothing else does.
* ``STATUS:CANCELLED`` when the obligation is discharged or excused, else ``CONFIRMED``.
* An obligation that was listed at an earlier recording moment and is no longer (a
  correction withdrew its trigger, say one of two Suspension Periods) keeps its UID as a
  ``CANCELLED`` event on its last due day, its ``SEQUENCE`` one higher:
  left out, a calendar program would keep showing it (a review of stop 19 found a
  withdrawn period's ``end-suspension/2`` left behind while ``/1``, an ordinal then,
  moved onto the other).
* ``VALARM``: one per ``remind`` entry, that many Business Days before the due day (the
  deal's calendar, RRA §1 Business Day), at 09:00 in New York (``ALARM_AT``: the city
  whose banks make the Business Days), written in UTC as RFC 5545 §3.8.6.3 requires of a
  date-time trigger: 13:00Z in summer, 14:00Z in winter (it was 09:00 UTC, 4 or 5 a.m.
  in New York: issue 31, item 13).
* ``DESCRIPTION``: the clause, the state and a one-line explanation.
* ``DTSTAMP``: the latest recorded_at counted (``known_at``), never the wall clock, so
  the same ledger and options give the same bytes.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from typing import Any, Iterable, Mapping, Sequence

from ledger.events import Event

PRODID = "-//deal-ledger//obligations//EN"
#: when a reminder goes off, local time, and where (RRA §1 Business Day: New York City)
ALARM_AT = (time(9), "America/New_York")
CANCELLED_STATES = ("discharged", "excused")


def _replay(events: Sequence[Event], *, as_of: date, known_at: datetime | None,
            interpretations: Mapping[str, str] | None
            ) -> tuple[dict[str, int], dict[str, Any]]:
    """Replaying the deal as known at each distinct recorded_at (up to ``known_at``): per
    obligation key, how many times its due day changed, and the last dated duty listed
    under it at any moment."""
    from projections.obligations.outlook import outlook

    moments = sorted({e.recorded_at for e in events
                      if known_at is None or e.recorded_at <= known_at})
    last: dict[str, Any] = {}
    changes: dict[str, int] = {}
    for m in moments:
        try:
            o = outlook(events, as_of=as_of, known_at=m, interpretations=interpretations)
        except ValueError:   # not opened yet as known then
            continue
        for d in o.duties:
            if d.due is None:
                continue
            before = last.get(d.key)
            if before is not None and before.due != d.due:
                changes[d.key] = changes.get(d.key, 0) + 1
            last[d.key] = d
    return changes, last


def business_days_before(calendar: Any, day: date, n: int) -> date:
    """The ``n``-th Business Day before ``day`` (``day`` itself never counts)."""
    count = 0
    while count < n:
        day -= timedelta(days=1)
        if calendar.is_business_day(day):
            count += 1
    return day


def _vevent(d: Any, deal: str, stamp: datetime, sequence: int, status: str, state: str,
            description: str) -> Any:
    """One obligation's VEVENT, without alarms."""
    from icalendar import Event as VEvent

    v = VEvent()
    v.add("uid", f"{d.key}@{deal}.deal-ledger")
    v.add("dtstamp", stamp)
    v.add("dtstart", d.due)
    v.add("dtend", d.due + timedelta(days=1))
    v.add("summary", f"{deal}: {d.obligation}")
    v.add("sequence", sequence)
    v.add("status", status)
    v.add("categories", [d.kind, state])
    v.add("description", description)
    return v


def feed(histories: Mapping[str, list[Event]], *, as_of: date,
         known_at: datetime | None = None, interpretations: Mapping[str, str] | None = None,
         remind: Iterable[int] = ()) -> bytes:
    """The calendar of the deals in ``histories`` (pure: no store, no clock)."""
    from icalendar import Alarm, Calendar

    from projections.obligations.outlook import outlook
    from projections.timeline import retracted_ids

    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("x-wr-calname", "deal-ledger obligations")
    remind = sorted(set(remind), reverse=True)
    for deal in sorted(histories):
        events = [e for e in histories[deal] if known_at is None or e.recorded_at <= known_at]
        dead = retracted_ids(events)
        if not any(e.type == "DealOpened" and e.id not in dead for e in events):
            continue
        stamp = max(e.recorded_at for e in events).astimezone(timezone.utc)
        o = outlook(events, as_of=as_of, interpretations=interpretations)
        sequence, listed = _replay(events, as_of=as_of, known_at=known_at,
                                   interpretations=interpretations)
        now = {d.key for d in o.duties}
        for key in sorted(set(listed) - now):   # withdrawn by a correction
            d = listed[key]
            cal.add_component(_vevent(
                d, deal, stamp, sequence.get(key, 0) + 1, "CANCELLED", "withdrawn",
                f"{d.clause} — withdrawn: a correction recorded since removed what called "
                "for it."))
        for d in o.duties:
            if d.due is None:
                continue
            by = f" ({d.by})" if d.by else ""
            v = _vevent(d, deal, stamp, sequence.get(d.key, 0),
                        "CANCELLED" if d.state in CANCELLED_STATES else "CONFIRMED", d.state,
                        f"{d.clause} — {d.state}{by}. {d.explanation}".strip())
            for n in remind:
                a = Alarm()
                a.add("action", "DISPLAY")
                a.add("description", f"{d.obligation}: due {d.due} ({d.clause})")
                at = business_days_before(o.timeline.calendar, d.due, n)
                a.add("trigger", alarm_time(at), parameters={"VALUE": "DATE-TIME"})
                v.add_component(a)
            cal.add_component(v)
    return cal.to_ical()


def alarm_time(day: date) -> datetime:
    """``ALARM_AT`` on ``day``, in UTC (daylight saving time as New York keeps it)."""
    from zoneinfo import ZoneInfo

    local, zone = ALARM_AT
    return datetime.combine(day, local, tzinfo=ZoneInfo(zone)).astimezone(timezone.utc)


def calendar_file(ledger: Any, out: str, *, deals: Iterable[str] | None = None,
                  **options: Any) -> int:
    """Write ``feed`` of the ledger's deals to ``out`` (whole or not at all); the number
    of events written."""
    from .agenda import deal_histories
    from .outputs import refuse_ledger, replace_whole
    from ledger.errors import UsageError

    if not out.strip():   # `--out ''` ended in an internal error (issue 31, item 7)
        raise UsageError(f"give the calendar file's path, not {out!r}", field="--out")
    refuse_ledger(out, ledger.url, "--out")   # before the work, and again when written
    histories = deal_histories(ledger, deals)
    missing = sorted(set(deals or ()) - set(histories))
    if missing:
        raise UsageError(f"no deal {missing[0]!r} in the ledger", field="--deal")
    data = feed(histories, **options)
    replace_whole(out, data, ledger_url=ledger.url, field="--out", prefix=".calendar-")
    return data.count(b"BEGIN:VEVENT")
