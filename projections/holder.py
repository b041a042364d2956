"""One Holder's figures, and the events they rest on, for a statement that Holder can
check alone (``publishing.statement``).

**Whose events** (``concerns``): an event concerns the Holders it names, every Holder if
it names none (the deal's own: the shelf, suspensions, notices to the Trustee, a
Questionnaire requested of all), and, in the letter agreement, the holder of the
instrument it names. A retraction concerns whom its target concerns.

**What a Holder's figures rest on, per agreement** (the statement keeps the deal's
events and the Holder's own, and leaves the other Holders' out):

* **Registration rights** (RRA §3(a), §3(b)): a Holder's Additional Interest for an
  Interest Payment Date is the principal of Transfer Restricted Notes *it* held on the
  Record Date times the rate in force for the days of each Registration Default. The
  defaults and rates are the deal's (filing, effectiveness, Suspension Periods, the
  shelf unusable); the principal is the Holder's own position: its Notes issued to it,
  transferred to it or from it (the counterparty's name is in those events), converted
  or retired, whether it delivered its Questionnaire when asked (RRA §3(a) last
  paragraph), and what it was paid. One thing of other Holders enters it: where its
  Notes came from. Which of the Notes it received are Transfer Restricted, and since
  when, follows from the lots they left (RRA §1 Transfer Restricted Securities (A),
  (B); ``projections.registration.holdings``: Transfer Restricted Notes leave first,
  earliest issued first), so the Notes events of each Holder its Notes came from (and
  of theirs, back along the line) up to the last day Notes passed from it are kept
  (``sources``); that Holder's payments, Questionnaire, consents and later trades are
  not. Under the reading ``registered_securities`` = ``named_selling_holders`` the end
  of the Effectiveness Period depends on every Holder named in the shelf: the check
  below then keeps every event.
* **The letter agreement** (Letter ¶2, ¶3): a Warrantholder's true-up shares and its
  instruments' prices and shares follow from the deal's events (the capitalization,
  the Camden Warrants issued, vested and cancelled, adjustments to every instrument)
  and its own instruments' registration, exercises, conversions and true-up issues; no
  other Warrantholder's instrument enters them.

The statement's maker holds this to the figures: the Holder's figures computed from the
statement's events alone must equal those computed from every event of the deal, or
the other Holders' events are kept as well, and the statement says so.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping, Sequence

from ledger.stored import Event

from .figures import ABSENT, locate

#: fields naming one Holder, by the event types that have them
HOLDER_FIELDS = ("holder", "from_holder", "to_holder")
#: fields naming several Holders (a list, or "all")
HOLDER_LISTS = ("holders", "holders_added")
#: the letter's events that name an instrument, not its holder
INSTRUMENT_TYPES = ("WarrantsExercised", "PreferredConverted", "TrueUpSharesIssued",
                    "AdjustmentRecorded")
#: the letter's events of the Camden Warrants: the deal's own (every Warrantholder's
#: adjustments follow from them), though they name Camden as their holder
CAMDEN_TYPES = ("CamdenWarrantsIssued", "CamdenWarrantsVested", "CamdenWarrantsCancelled")

EVERYONE = "everyone"


def concerns(events: Sequence[Event]) -> dict[str, frozenset[str] | str]:
    """Each event's id -> the Holders it concerns, or ``EVERYONE`` (module doc)."""
    instruments: dict[str, str] = {}
    out: dict[str, frozenset[str] | str] = {}
    by_id = {e.id: e for e in events}
    for e in sorted(events, key=lambda e: e.seq):
        out[e.id] = _named(e, instruments)
        if e.type == "InstrumentRegistered":
            instruments[e.data["instrument"]] = e.data["holder"]
    for e in events:
        if e.type == "EventRetracted" and e.data["event_id"] in by_id:
            out[e.id] = out[e.data["event_id"]]
    return out


def _named(e: Event, instruments: Mapping[str, str]) -> frozenset[str] | str:
    data = e.data
    if e.type in CAMDEN_TYPES:
        return EVERYONE
    if e.type in INSTRUMENT_TYPES:
        instrument = data.get("instrument")
        if instrument == "all" or instrument not in instruments:
            return EVERYONE
        return frozenset({instruments[instrument]})
    names = {data[f] for f in HOLDER_FIELDS if isinstance(data.get(f), str)}
    for f in HOLDER_LISTS:
        value = data.get(f)
        if value == "all":
            return EVERYONE
        if isinstance(value, list):
            names.update(v for v in value if isinstance(v, str))
    return frozenset(names) if names else EVERYONE


POSITION_TYPES = ("NotesIssued", "NotesTransferred", "NotesConverted", "NotesRetired")


def sources(events: Sequence[Event], holder: str) -> dict[str, Any]:
    """The Holders whose Notes came to ``holder`` (transferred to it, or to a Holder
    they came from, and so on back), each with the last day Notes passed from it along
    that line: which of the Holder's Notes are Transfer Restricted (RRA §1) follows
    from the lots they came out of (``projections.registration.holdings``), which those
    Holders' own Notes before that day decide."""
    cutoff: dict[str, Any] = {holder: None}
    transfers = sorted((e for e in events if e.type == "NotesTransferred"),
                       key=lambda e: e.seq)
    changed = True
    while changed:
        changed = False
        for e in transfers:
            to, source = e.data["to_holder"], e.data["from_holder"]
            if to not in cutoff or source == holder:
                continue
            limit = cutoff[to]
            if limit is not None and e.date > limit:
                continue
            if source not in cutoff or (cutoff[source] is not None
                                        and cutoff[source] < e.date):
                cutoff[source] = e.date
                changed = True
    del cutoff[holder]
    return cutoff


def kept_for(events: Sequence[Event], holder: str) -> tuple[list[Event], list[Event],
                                                              dict[str, Any]]:
    """The events a statement for ``holder`` keeps (module doc), those it leaves out,
    each in seq order, and the Holders whose Notes came to it (``sources``): of those,
    their Notes' events up to the last day Notes passed from them are kept."""
    whose = concerns(events)
    came_from = sources(events, holder)
    kept, left = [], []
    for e in events:
        who = whose[e.id]
        mine = who == EVERYONE or holder in who
        if not mine and (e.type in POSITION_TYPES or (
                e.type == "EventRetracted" and _retracts_position(e, events))):
            mine = any(h in came_from and e.date <= came_from[h] for h in who)
        (kept if mine else left).append(e)
    return kept, left, came_from


def _retracts_position(e: Event, events: Sequence[Event]) -> bool:
    target = e.data["event_id"]
    return any(x.id == target and x.type in POSITION_TYPES for x in events)


def _q(key: str) -> str:
    """A map key as a figure path step, always quoted (``projections.figures``): the path
    must not depend on which other keys the report has."""
    return json.dumps(key, ensure_ascii=False)


def figure_paths(report: Mapping[str, Any], holder: str) -> list[str]:
    """The paths of the Holder's own figures in ``report`` (``projections.figures``):
    Registration rights: the Additional Interest accrued to it to the as-of date and,
    per Interest Payment Date, its amount, what it was paid and its status (SPEC §4.4);
    the letter: its true-up shares owed, issued, outstanding and over-issued, each of
    its instruments' price, shares and what is owed on them, and each of its exercises
    and conversions."""
    h = _q(holder)
    paths: list[str] = []
    if report.get("kind") == "registration_rights":
        ai = report.get("additional_interest") or {}
        if holder in (ai.get("by_holder") or {}):
            paths.append(f"additional_interest.by_holder.{h}")
        for p in ai.get("payments") or []:
            at = f"additional_interest.payments[payment_date={p['payment_date']}]"
            for field in ("amounts", "paid", "statuses"):
                if holder in (p.get(field) or {}):
                    paths.append(f"{at}.{field}.{h}")
        return paths
    t = report.get("true_up") or {}
    if holder in (t.get("holders") or {}):
        paths += [f"true_up.holders.{h}.{k}" for k in t["holders"][holder]]
    for i in t.get("instruments") or []:
        if i.get("holder") == holder:
            at = f"true_up.instruments[instrument={_q(i['instrument'])}]"
            paths += [f"{at}.{k}" for k in ("price", "shares", "exercised_fraction",
                                           "deferred_price_if_all_vest",
                                           "deferred_shares_if_all_vest", "owed", "issued",
                                           "outstanding", "over_issued") if k in i]
    for x in t.get("exercises") or []:
        if x.get("holder") == holder:
            at = f"true_up.exercises[event={x['event']}]"
            paths += [f"{at}.{k}" for k in ("date", "instrument", "eligible", "shares_issued",
                                           "entitled", "owed", "issued", "outstanding",
                                           "over_issued") if k in x]
    return paths


def figures(report: Mapping[str, Any], holder: str) -> dict[str, Any]:
    """The Holder's figures by path (``figure_paths``), each its value."""
    out = {}
    for path in figure_paths(report, holder):
        value = locate(report, path, missing_ok=True).value
        if value is not ABSENT:
            out[path] = value
    return out


def holders_of(events: Iterable[Event]) -> set[str]:
    """Every Holder named by the deal's events."""
    names: set[str] = set()
    for who in concerns(list(events)).values():
        if who != EVERYONE:
            names.update(who)
    return names
