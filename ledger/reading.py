"""Reading a deal out of the store for a computation: the library calls the CLI wraps.

The projections are pure functions of a deal's events; this module is the one place that
fetches those events from a ``Ledger`` and turns command-line text (``--as-of``,
``--known-at``, ``--interpret NAME=VALUE``) into the values they take, refusing bad text
with a ``UsageError`` that names the option.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Iterable, Mapping

from .errors import UsageError
from .events import Event, parse_timestamp
from .values import parse_day


def as_of_date(text: str | None, today: date) -> date:
    """``--as-of``: an ISO date; ``today`` when not given (the caller reads the clock)."""
    if text is None:
        return today
    try:
        return parse_day(text)
    except ValueError as err:
        raise UsageError(str(err), field="--as-of") from None


def known_at_time(text: str | None) -> datetime | None:
    """``--known-at``: an ISO 8601 timestamp (``Z``, an offset, or naive UTC) or a date
    (the end of that day, UTC); ``None`` means everything recorded so far."""
    if text is None:
        return None
    value = text.strip()
    try:
        if len(value) == 10:
            return parse_timestamp(parse_day(value).isoformat() + "T23:59:59.999999Z")
        return parse_timestamp(value)
    except ValueError:
        raise UsageError(f"not a timestamp like 2026-01-31T12:00:00Z or a date: {text!r}",
                         field="--known-at") from None


def interpretation_choices(pairs: Iterable[str]) -> dict[str, str]:
    """``--interpret NAME=VALUE`` pairs, each checked against the registry (SPEC §6)."""
    from projections.interpretations import resolve

    chosen: dict[str, str] = {}
    for item in pairs:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise UsageError(f"{item!r} is not NAME=VALUE", field="--interpret")
        if name in chosen and chosen[name] != value:
            raise UsageError(f"{name} given twice with different values", field="--interpret")
        chosen[name] = value
    try:
        resolve(chosen)
    except ValueError as err:
        raise UsageError(str(err), field="--interpret") from None
    return chosen


def deal_events(ledger: Any, deal: str) -> list[Event]:
    """Every stored event of ``deal`` (retracted ones included: the timeline drops them
    as known at the time asked); ``UsageError`` naming the known deals if there is none."""
    events = ledger.deal_events(deal)
    if not events:
        known = ledger.deals()
        hint = f"; known: {', '.join(known)}" if known else "; the ledger is empty"
        raise UsageError(f"no deal {deal!r} in the ledger{hint}", field="DEAL")
    return events


def deal_report(events: list[Event], *, as_of: date, known_at: datetime | None = None,
                interpretations: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The SPEC §7 report of one deal's events; ``UsageError`` if nothing of the deal was
    recorded by ``known_at``."""
    from projections.report import report

    if known_at is not None and not any(e.type == "DealOpened" and e.recorded_at <= known_at
                                        for e in events):
        raise UsageError(f"the deal was not yet opened in the ledger at {known_at.isoformat()}",
                         field="--known-at")
    return report(events, as_of=as_of, known_at=known_at, interpretations=interpretations)
