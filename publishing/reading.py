"""Reading a deal out of the store for a computation: the library calls the CLI wraps.

The projections are pure functions of a deal's events; this module is the one place that
fetches those events from a ``Ledger`` and turns command-line text (``--as-of``,
``--known-at``, ``--interpret NAME=VALUE``) into the values they take, refusing bad text
with a ``UsageError`` that names the option.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Iterable, Mapping

from ledger.errors import UsageError
from ledger.stored import Event, parse_timestamp
from ledger.dates import parse_day


# The days a computation may be asked about: every date of a deal's terms (1990-2100,
# ``ledger.terms``) with room on both sides, and far from the ends of the calendar
# (0001-01-01, 9999-12-31), where the day after, a year later or a time zone shift does
# not exist. Outside it, ``--as-of`` and ``--known-at`` are refused (exit 2).
FIRST_YEAR, LAST_YEAR = 1900, 2200
RANGE = f"the years {FIRST_YEAR} to {LAST_YEAR}"


def as_of_date(text: str | None, today: date) -> date:
    """``--as-of``: an ISO date in ``RANGE``; ``today`` when not given (the caller reads
    the clock)."""
    if text is None:
        return today
    try:
        day = parse_day(text)
    except ValueError as err:
        raise UsageError(str(err), field="--as-of") from None
    if not FIRST_YEAR <= day.year <= LAST_YEAR:
        raise UsageError(f"{day} is outside {RANGE}, the days a report can be asked for",
                         field="--as-of")
    return day


def known_at_time(text: str | None) -> datetime | None:
    """``--known-at``: an ISO 8601 timestamp (``Z``, an offset, or naive UTC) or a date
    (the end of that day, UTC), in ``RANGE`` (UTC); ``None`` means everything recorded
    so far."""
    if text is None:
        return None
    value = text.strip()
    try:
        if len(value) == 10:
            moment = parse_timestamp(parse_day(value).isoformat() + "T23:59:59.999999Z")
        else:
            moment = parse_timestamp(value)
    except OverflowError:  # 0001-01-01T00:00:00+14:00 is before the first UTC instant
        moment = None
    except ValueError:
        raise UsageError(f"not a timestamp like 2026-01-31T12:00:00Z or a date: {text!r}",
                         field="--known-at") from None
    if moment is None or not FIRST_YEAR <= moment.year <= LAST_YEAR:
        raise UsageError(f"{value} is outside {RANGE} (UTC), the times a report can be "
                         "asked for", field="--known-at")
    return moment


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


def deal_events(ledger: Any, deal: str, *, cache_dir: str | None = None) -> list[Event]:
    """Every stored event of ``deal`` (retracted ones included: the timeline drops them
    as known at the time asked); ``UsageError`` naming the known deals if there is none.
    ``cache_dir``: read through the deal's cache file there (``ledger.store.dealcache``)."""
    events = (ledger.deal_events(deal) if cache_dir is None
              else ledger.deal_events(deal, cache_dir=cache_dir))
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

    check_opened(events, known_at)
    try:
        return report(events, as_of=as_of, known_at=known_at, interpretations=interpretations)
    except (ArithmeticError, ValueError, TypeError, KeyError):
        check_terms(events, known_at)  # a deal opened before terms were bounded, say
        raise


def check_terms(events: list[Event], known_at: datetime | None) -> None:
    """``RuleViolation`` naming the term, if the terms in force (of the latest
    ``DealOpened`` known at ``known_at``) are outside what ``ledger.terms`` accepts now:
    a ledger written before terms were bounded may hold a deadline of 10**12 days, which
    no report can compute. The way out is the correction of any event: retract."""
    from ledger.errors import RuleViolation
    from ledger.terms import validate_terms

    opened = [e for e in events if e.type == "DealOpened"
              and (known_at is None or e.recorded_at <= known_at)]
    if not opened:
        return
    latest = max(opened, key=lambda e: e.seq)
    try:
        validate_terms(latest.data["kind"], dict(latest.data["terms"]))
    except ValueError as err:
        raise RuleViolation(f"deal {latest.deal} was opened (event {latest.id}, seq "
                            f"{latest.seq}) with terms no report can use: {err}; correct it "
                            "by retracting the deal's other events, then its DealOpened, "
                            "and opening it again", field="DealOpened",
                            rule="ledger.terms bounds") from None


def check_opened(events: list[Event], known_at: datetime | None) -> None:
    """``UsageError`` unless the deal has a ``DealOpened`` that counts as known at
    ``known_at``: recorded by then, and not retracted by then (a deal opened with wrong
    terms is corrected by retracting its ``DealOpened`` and opening it again)."""
    from projections.timeline import retracted_ids

    known = events if known_at is None else [e for e in events if e.recorded_at <= known_at]
    when = "now" if known_at is None else f"at {known_at.isoformat()}"
    if not any(e.type == "DealOpened" for e in known):
        raise UsageError(f"the deal was not yet opened in the ledger {when}",
                         field="--known-at")
    retracted = retracted_ids(known)
    if all(e.id in retracted for e in known if e.type == "DealOpened"):
        deal = known[0].deal
        raise UsageError(f"deal {deal}'s DealOpened is retracted and the deal was not opened "
                         f"again {when}; it has no terms to compute with",
                         field="--known-at" if known_at is not None else "DEAL")
