"""The refusals of the Registration Rights Agreement the reference model draws (issue 30,
items 1-5), written again from the contract, day by day, sharing no code with
``ledger.guards`` or ``ledger.resales``.

A history is *broken* when one of its live events breaks one of these rules; the write
side refuses an event exactly when the history with it is broken (the history before it
never is). Each finding is ``(clause, event id)``:

* a sale under the shelf (``NotesTransferred``, ``under_shelf: true``) on a day on which
  the shelf is not yet effective, or at whose end the last ``ShelfUnusable`` /
  ``ShelfUsable`` is an unusable one: "RRA §1 Transfer Restricted Securities (A)" (only
  Notes "effectively registered ... and disposed of in accordance with the Shelf
  Registration Statement" stop being Transfer Restricted);
* one on a day at whose end the last ``SuspensionStarted`` / ``SuspensionEnded`` is a
  start: "RRA §4(c)" (Holders "discontinue disposition");
* one by a Holder asked for its Questionnaire by then (named in the request, or a Holder
  of Transfer Restricted Notes at the end of the day of a request to ``"all"``) that by
  then had neither delivered one nor been added by an ``AmendmentFiled``: "RRA §4(d)";
* Notes issued past the terms' ``maximum_principal``: "RRA preamble" (the Notes are
  "$60,000,000 ($72,000,000 if the Initial Purchaser exercises its option ... in full)");
* a ``NoticeAcknowledged`` dated before its ``NoticeSent``: "RRA §10(E)" (a fax is given
  "when receipt acknowledged", which is not before it was sent).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Iterable, Mapping

from .rra_notes import book_at, holders_of_trs, live_events
from .rra_time import day_of, money

TRS_A = "RRA §1 Transfer Restricted Securities (A)"
SUSPENDED = "RRA §4(c)"
NOT_NAMED = "RRA §4(d)"
MAXIMUM = "RRA preamble"
NOTICES = "RRA §10(E)"


def _last_before(evs: list[Mapping[str, Any]], types: tuple[str, str], day) -> str | None:
    """The type of the last of ``types`` dated on or before ``day`` (timeline order)."""
    last = None
    for e in evs:
        if e["type"] in types and day_of(e["date"]) <= day:
            last = e["type"]
    return last


def _sale_breaks(evs: list[Mapping[str, Any]], sale: Mapping[str, Any]) -> str | None:
    day, seller = day_of(sale["date"]), sale["data"]["from_holder"]
    if not any(e["type"] == "ShelfEffective" and day_of(e["date"]) <= day for e in evs):
        return TRS_A
    if _last_before(evs, ("ShelfUnusable", "ShelfUsable"), day) == "ShelfUnusable":
        return TRS_A
    if _last_before(evs, ("SuspensionStarted", "SuspensionEnded"), day) == "SuspensionStarted":
        return SUSPENDED
    named = any(day_of(e["date"]) <= day and (
        (e["type"] == "QuestionnaireDelivered" and e["data"]["holder"] == seller)
        or (e["type"] == "AmendmentFiled" and seller in e["data"]["holders_added"]))
        for e in evs)
    if named:
        return None
    for e in evs:
        if e["type"] != "QuestionnaireRequested" or day_of(e["date"]) > day:
            continue
        who = e["data"]["holders"]
        if (seller in who) if who != "all" else (
                seller in holders_of_trs(book_at(evs, day_of(e["date"])))):
            return NOT_NAMED
    return None


def broken(events: Iterable[Mapping[str, Any]], deal: str) -> list[tuple[str, str]]:
    """Every ``(clause, event id)`` of the deal's live history that breaks a rule above."""
    evs = live_events(events, deal, None)
    out = []
    for e in evs:
        if e["type"] == "NotesTransferred" and e["data"].get("under_shelf"):
            clause = _sale_breaks(evs, e)
            if clause:
                out.append((clause, e["id"]))
    terms = next(e for e in evs if e["type"] == "DealOpened")["data"]["terms"]
    cap = terms.get("maximum_principal")
    issued = [e for e in evs if e["type"] == "NotesIssued"]
    if cap is not None and sum((money(e["data"]["principal"]) for e in issued),
                               Decimal(0)) > Decimal(str(cap)):
        out.append((MAXIMUM, issued[-1]["id"]))
    sent = {e["id"]: e for e in evs if e["type"] == "NoticeSent"}
    for e in evs:
        notice = sent.get(e["data"].get("notice")) if e["type"] == "NoticeAcknowledged" else None
        if notice is not None and day_of(e["date"]) < day_of(notice["date"]):
            out.append((NOTICES, e["id"]))
    return out
