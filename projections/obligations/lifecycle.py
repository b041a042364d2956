"""One obligation's lifecycle as of a date: the record every agreement's module builds,
and how it reads in the report (SPEC §7 ``obligations``, issue 16)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from operator import attrgetter
from typing import Any, Mapping

from projections.registration.money import fixed

STATES = ("upcoming", "due", "fulfilled", "violated", "cured", "excused", "discharged",
          "unknown")
OPEN = frozenset(("upcoming", "due", "violated", "unknown"))
"""The states of an obligation still to be performed on its ``as_of``: what the agenda
lists (``outlook(..., open_only=True)``)."""
ONE_DAY = timedelta(days=1)


@dataclass(slots=True)
class Duty:
    """An obligation and its state on ``as_of``.

    ``key`` is stable across corrections (the kind and the id of its trigger, followed
    back to the first event of its correction chain: ``identity``), so a calendar can
    follow one obligation whose date moves, and a late-recorded earlier trigger only adds
    one. ``due`` is
    the last day to perform. ``since`` is the day the state began. ``by``/``by_event``
    say what fulfilled, cured, excused or discharged it. ``triggers`` names what a
    violation sets off (shown while it has not happened: the at-risk view). Treated as
    immutable (not frozen only because a frozen dataclass is several times slower to
    make, and a 1,000-Holder deal has 40,000 of these)."""

    key: str
    kind: str
    obligation: str
    clause: str
    party: str
    due: date | None
    state: str
    since: date | None = None
    by: str | None = None
    by_event: str | None = None
    violated_since: date | None = None
    triggered: tuple[str, ...] = ()
    triggers: str | None = None
    cured_on: date | None = None
    holder: str | None = None
    amount: Decimal | None = None
    shares: int | None = None
    interpretations: tuple[str, ...] = ()
    events: tuple[str, ...] = ()
    explanation: str = ""

    def to_json(self, readings: Mapping[str, str]) -> dict[str, Any]:
        return duties_json([self], readings)[0]


def pending(due: date, as_of: date) -> tuple[str, date | None]:
    """Not done: ``upcoming`` before its last day, ``due`` on it, ``violated`` from the
    day after (the state, and the day it began; ``None`` for ``upcoming``)."""
    if as_of < due:
        return "upcoming", None
    if as_of == due:
        return "due", due
    return "violated", due + ONE_DAY


def deadline_state(due: date, done_on: date | None, as_of: date
                   ) -> tuple[str, date | None, date | None]:
    """(state, since, violated_since) of something due on ``due``, done on ``done_on``
    (``None``: not done by ``as_of``): on time = fulfilled; late = cured (violated from
    the day after ``due`` until ``done_on``)."""
    if done_on is not None and done_on <= due:
        return "fulfilled", done_on, None
    if done_on is not None:
        return "cured", done_on, due + ONE_DAY
    state, since = pending(due, as_of)
    return state, since, since if state == "violated" else None


class _Isos(dict):
    """Day -> its ISO text, made on the first ask (``None`` -> ``None``): a subscript of a
    dict costs no Python call, which a function per date field of 40,000 rows would."""

    def __missing__(self, day: date) -> str:
        text = self[day] = day.isoformat()
        return text


def duties_json(duties, readings: Mapping[str, str]) -> list[dict[str, Any]]:
    """The report's ``obligations``: by due date (undated last), then key. Dates and
    interpretation maps are formatted once each (a 1,000-Holder deal has 40,000 rows
    sharing a few dozen dates)."""
    isos = _Isos({None: None})
    maps: dict[tuple[str, ...], dict[str, str | None]] = {}
    # sorted by (due or date.max, key) as two stable sorts on C keys, without a Python
    # key function per row: by key, then by due, the undated (and any due date.max,
    # which ties with them) after the dated ones, by key
    by_key = sorted(duties, key=_KEY)
    dated = [d for d in by_key if d.due is not None and d.due != date.max]
    dated.sort(key=_DUE)
    out = []
    for d in dated + [d for d in by_key if d.due is None or d.due == date.max]:
        interps = maps.get(d.interpretations)
        if interps is None:
            interps = maps[d.interpretations] = {n: readings.get(n) for n in d.interpretations}
        amount = d.amount
        out.append({
            "key": d.key, "kind": d.kind, "obligation": d.obligation, "clause": d.clause,
            "party": d.party, "holder": d.holder, "due": isos[d.due], "state": d.state,
            "since": isos[d.since], "by": d.by, "by_event": d.by_event,
            "violated_since": isos[d.violated_since], "triggered": list(d.triggered),
            "triggers": d.triggers, "cured_on": isos[d.cured_on],
            "amount": None if amount is None else fixed(amount),
            "shares": d.shares, "interpretations": dict(interps),
            "events": list(d.events), "explanation": d.explanation})
    return out


_KEY = attrgetter("key")
_DUE = attrgetter("due")
