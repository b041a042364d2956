# Over 600 lines: one write-side guard per event type, each beside its clause; they share the timelines they walk.
"""Write-side rules: what the store refuses before anything is written (SPEC §3).

A deal's *guard state* is a compact, JSON-friendly index of its events, kept inside the
deal's aggregate (and its snapshots) so that checking a new event never replays the
deal's history. Rules that depend on order are checked on *timelines*: the entries an
event adds to an account (a holder's Notes, a Camden holder's unvested warrants, an
instrument, the shelf and its Suspension Periods), walked in the order the projections
take them (``ledger.dayorder.in_effect_key``: ``(date, seq)``, with the letter's kinds of
one day in their fixed order, so that a vesting line before the same-day Camden issuance
line is accepted exactly as the projection accepts it). A new
entry that sorts last is checked in O(1) against the timeline's cached end state; a
backdated entry or a retraction re-walks that one timeline, so a correction can never
leave an earlier-recorded, later-dated event breaking a rule.

``check(state, record)`` is pure and raises ``RuleViolation``; ``fold(state, record)``
updates the state in place and is what the aggregate applies, on write and on replay.
``check`` returns the event's timeline entries (``effects``), which the writer passes on
to ``fold`` so that they are computed once per new event.
"""

from __future__ import annotations

from bisect import bisect_right
from datetime import date
from decimal import Decimal
from typing import Any, Callable, Mapping, Sequence

from . import terms_guards
from .registration_terms import INFOCROSSING_TEXT as INFOCROSSING, cite
from .dayorder import RANKS
from .errors import DuplicateKey, RuleViolation
from .resales import QUESTIONNAIRE_TYPES, check_sales, sale_rules, trs_days
from .stored import kind_of_type

Entry = list  # [date, seq, id, op, value]; op is the event type where its rank matters

CLAUSE_TRS = "RRA §1 Transfer Restricted Securities"
CLAUSE_SUSPENSION = "RRA §4(b)(i), §4(c)"


FORMAT = 5  # the layout of the guard state
# 2: the "positions" timeline (Transfer Restricted Securities, for RRA §2(a)(iii)(y),(z))
#    and "pending" timelines (a same-day entry that a later line of its batch cures)
# 3: "ids" maps an event's id to its type alone, or for a NoticeSent with a method to
#    [type, method] (it was [type, date, timelines touched, method]: the timelines are
#    those whose entries name the id, ``_touched``): the snapshot text is a sixth smaller
#    and takes half the time to encode (benchmarks/FINDINGS.md)
# 4: what the refusals of issue 30 read: a telex or fax NoticeSent's date in "ids"
#    ([type, method, date]: an acknowledgment is not before it, RRA §10(E)); the
#    "questionnaires" timeline (RRA §4(d)); the "positions" timeline's end is the
#    principal issued, in cents, and "terms" keeps ``maximum_principal`` (RRA preamble);
#    a ShelfUnusable entry carries its reason
# 5: "terms" holds the deal's terms in force (issue 33: the write-side rules its agreement
#    sets, ``ledger.terms_guards``), "base_terms" those it opened with; the timelines
#    "shares:HOLDER" (Conversion Shares) and "amendments" (consents, affiliations,
#    conversion prices, amendments); a NoticeSent keeps its date in "ids" where the
#    agreement gives it when acknowledged (its terms say by which methods). Older layouts
#    lack these
#    and cannot be brought up to date from the state alone: their snapshots are not read,
#    and the store rebuilds the state from the deal's events (``ledger.store._sound``)
READABLE = (FORMAT,)  # the layouts a stored guard state may have and still be used

POSITION_TYPES = ("NotesIssued", "NotesTransferred", "NotesConverted", "NotesRetired",
                  "ConversionSharesTransferred")
#: the events a Majority of Holders is counted from, besides the positions
CONSENT_TYPES = ("ConsentGiven", "HolderAffiliation", "ConversionPriceAdjusted",
                 "TermsAmended")
SHELF_TYPES = ("ShelfFiled", "ShelfEffective", "ShelfUnusable", "ShelfUsable",
               "SuspensionStarted", "SuspensionExtended", "SuspensionEnded", "Rule144kDate")


def new_state() -> dict[str, Any]:
    return {"format": FORMAT, "kind": None, "opened": None, "terms": {}, "base_terms": {},
            "count": 0, "ids": {}, "retracted": {}, "keys": {}, "timelines": {}}


def upgrade(state: dict[str, Any]) -> dict[str, Any]:
    """A guard state of a readable layout (``READABLE``) as ``fold`` would have made it
    in this one (in place; also returns it). Only this layout is readable (layout 5
    holds facts the older ones never kept), so there is nothing to change."""
    return state


def _type(known: Any) -> str | None:
    """An event's type from its ``ids`` value (``None``: no such event)."""
    return known if known is None or type(known) is str else known[0]


def _touched(state: dict[str, Any], eid: str) -> list[str]:
    """The timelines event ``eid`` added entries to (what layout 2 kept in ``ids``):
    read back from the entries, which name their event; only a retraction asks."""
    return [name for name, timeline in state["timelines"].items()
            if any(e[2] == eid for e in timeline["entries"])]


def _cents(amount: str) -> int:
    return int(Decimal(amount) * 100)


def _money(cents: int) -> str:
    return f"{Decimal(cents) / 100:,.2f}"


# ----------------------------------------------------------------------- effects


def effects(state: dict[str, Any], record: dict[str, Any]) -> list[tuple[str, Entry]]:
    """The timeline entries one event adds, as ``(timeline, entry)`` pairs."""
    t = record["type"]
    if t not in _EFFECT_TYPES:   # most events of a deal touch no timeline
        return []
    data, day, seq, eid = record["data"], record["date"], record["seq"], record["id"]

    def entry(op: str, value: Any = None) -> Entry:
        return [day, seq, eid, op, value]

    if t == "NotesIssued":
        cents = _cents(data["principal"])
        return [(f"notes:{data['holder']}", entry("+", cents)),
                ("positions", entry(t, [data["holder"], cents]
                                    + (["other"] if data.get("upon") == "other" else [])))]
    if t == "NotesTransferred":
        cents = _cents(data["principal"])
        return [(f"notes:{data['from_holder']}", entry("-", -cents)),
                (f"notes:{data['to_holder']}", entry("+", cents)),
                ("positions", entry(t, [data["from_holder"], cents, data["to_holder"],
                                        data.get("under", "private")]))]
    if t in ("NotesConverted", "NotesRetired"):
        cents = _cents(data["principal"])
        shares = int(data.get("shares", 0))
        out = [(f"notes:{data['holder']}", entry("-", -cents)),
               ("positions", entry(t, [data["holder"], cents, shares]))]
        if shares:
            out.append((f"shares:{data['holder']}", entry("+", shares)))
        return out
    if t == "ConversionSharesTransferred":
        n = int(data["shares"])
        return [(f"shares:{data['from_holder']}", entry("-", -n)),
                (f"shares:{data['to_holder']}", entry("+", n)),
                ("positions", entry(t, [data["from_holder"], n, data["to_holder"],
                                        data.get("under", "private")]))]
    if t in SHELF_TYPES:
        return [("shelf", entry(t, data.get("reason") if t == "ShelfUnusable"
                                else data.get("material_transaction")))]
    if t in QUESTIONNAIRE_TYPES:
        return [("questionnaires", entry(t, data["holders"] if t == "QuestionnaireRequested"
                                         else data["holder"] if t == "QuestionnaireDelivered"
                                         else list(data["holders_added"])))]
    if t == "ConsentGiven":
        return [("amendments", entry(t, [data["holder"], data["matter"]]))]
    if t == "HolderAffiliation":
        return [("amendments", entry(t, [data["holder"], bool(data["company_affiliate"])]))]
    if t == "ConversionPriceAdjusted":
        return [("amendments", entry(t, str(data["new_price"])))]
    if t == "TermsAmended":
        return [("amendments", entry(t, [data["matter"], data.get("effective") or day,
                                         data["changes"]]))]
    if t == "CamdenWarrantsIssued":
        return [(f"camden:{data['holder']}", entry(t, data["warrants"]))]
    if t in ("CamdenWarrantsVested", "CamdenWarrantsCancelled"):
        return [(f"camden:{data['holder']}", entry(t, -data["warrants"]))]
    if t == "InstrumentRegistered":
        return [(f"instrument:{data['instrument']}", entry(t, data["kind"]))]
    if t in ("WarrantsExercised", "PreferredConverted"):
        return [(f"instrument:{data['instrument']}", entry(t, data["fraction"]))]
    if t == "TrueUpSharesIssued":
        return [(f"instrument:{data['instrument']}", entry(t))]
    if t == "AdjustmentRecorded" and data["instrument"] != "all":
        return [(f"instrument:{data['instrument']}", entry(t))]
    return []


#: the types ``effects`` gives entries for (an ``AdjustmentRecorded`` of one instrument)
_EFFECT_TYPES = frozenset((*POSITION_TYPES, *SHELF_TYPES, *QUESTIONNAIRE_TYPES,
                           *CONSENT_TYPES, "CamdenWarrantsIssued", "CamdenWarrantsVested",
                           "CamdenWarrantsCancelled", "InstrumentRegistered",
                           "WarrantsExercised", "PreferredConverted", "TrueUpSharesIssued",
                           "AdjustmentRecorded"))


# --------------------------------------------------------------------- timelines


def _initial(name: str) -> Any:
    if name.startswith(("notes:", "camden:", "shares:")) or name in (
            "positions", "questionnaires", "amendments"):
        return 0
    if name == "shelf":
        return {"filed": None, "effective": None, "unusable": False, "suspended": False}
    return {"kind": None, "remaining": "1"}


def _step(name: str, summary: Any, e: Entry, state: dict[str, Any]) -> Any:
    """One entry applied to a timeline's running state; ``RuleViolation`` if it breaks a rule."""
    day, _seq, eid, op, value = e
    if name.startswith(("notes:", "shares:")):   # what a Holder holds, never below none
        after = summary + value
        if after < 0:
            holder, notes = name.split(":", 1)[1], name[0] == "n"
            held, gone = ((f"{_money(summary)} of Notes", _money(-value)) if notes
                          else (f"{summary} Conversion Shares", str(-value)))
            raise RuleViolation(f"{holder} holds {held} on {day} and cannot dispose of {gone}",
                                field="data.principal" if notes else "data.shares",
                                rule=CLAUSE_TRS)
        return after
    if name.startswith("camden:"):
        after = summary + value
        if after < 0:
            raise RuleViolation(
                f"{name[7:]} has {summary} unvested Camden Warrants on {day}; cannot vest or "
                f"cancel {-value}", field="data.warrants", rule="Letter ¶2")
        return after
    if name == "shelf":
        return _step_shelf(summary, e, state)
    if name == "positions":   # the principal issued; the rest is checked across timelines
        return summary + value[1] if op == "NotesIssued" else summary
    if name in ("questionnaires", "amendments"):   # read by ``resales``, ``terms_guards``
        return summary
    return _step_instrument(name[11:], summary, e)


def _step_shelf(s: dict[str, Any], e: Entry, state: dict[str, Any]) -> dict[str, Any]:
    day, _seq, eid, op, material = e
    s = dict(s)

    def refuse(msg: str, rule: str, field: str = "type") -> None:
        raise RuleViolation(f"{msg} (on {day})", field=field, rule=rule)

    if op == "ShelfFiled":
        if s["filed"]:
            refuse(f"the Shelf Registration Statement was already filed on {s['filed']}",
                   "RRA §2(a)(i)")
        s["filed"] = day
    elif op == "ShelfEffective":
        if s["effective"]:
            refuse(f"the shelf was already declared effective on {s['effective']}",
                   "RRA §2(a)(ii)")
        s["effective"] = day
    elif op == "Rule144kDate":
        if s.get("rule_144k"):
            refuse(f"the Rule 144(k) date was already recorded ({s['rule_144k']}); retract "
                   f"it first", "Rule 144(k)")
        s["rule_144k"] = day
    elif op == "ShelfUnusable":
        if not s["effective"]:
            refuse("the shelf cannot cease to be effective or usable before it is effective",
                   "RRA §3(a)(iii)")
        if s["unusable"]:
            refuse("the shelf is already unusable; record ShelfUsable first", "RRA §3(a)(iii)")
        s["unusable"] = True
    elif op == "ShelfUsable":
        if not s["unusable"]:
            refuse("no ShelfUnusable is open to cure", "RRA §3(a)(iii)")
        s["unusable"] = False
    elif op == "SuspensionStarted":
        if s["suspended"]:
            refuse("a Suspension Period is already open; end it first", CLAUSE_SUSPENSION)
        if not s["effective"] or day < s["effective"]:
            refuse("a Suspension Period can only start during the Effectiveness Period, "
                   "after the shelf is effective", "RRA §2(a)(iii), §4(b)(i)")
        end = terms_guards.period_end(state, s)
        if end is not None and date.fromisoformat(day) >= end[0]:
            refuse(f"the Effectiveness Period ended on {end[0].isoformat()}", end[1])
        s["suspended"] = "material" if material else "ordinary"
    elif op == "SuspensionExtended":
        if not s["suspended"]:
            refuse("no Suspension Period is open to extend", CLAUSE_SUSPENSION)
        s["suspended"] = "material"
    elif op == "SuspensionEnded":
        if not s["suspended"]:
            refuse("no Suspension Period is open to end", CLAUSE_SUSPENSION)
        s["suspended"] = False
    return s


def _step_instrument(instrument: str, s: dict[str, Any], e: Entry) -> dict[str, Any]:
    day, _seq, eid, op, value = e
    s = dict(s)
    if op == "InstrumentRegistered":
        if s["kind"]:
            raise RuleViolation(f"instrument {instrument} is already registered",
                                field="data.instrument", rule="Letter ¶1")
        s["kind"] = value
        return s
    if not s["kind"]:
        raise RuleViolation(f"instrument {instrument} is not registered on or before {day}",
                            field="data.instrument", rule="Letter ¶1")
    if op in ("WarrantsExercised", "PreferredConverted"):
        want = "warrant" if op == "WarrantsExercised" else "preferred"
        if s["kind"] != want:
            raise RuleViolation(f"instrument {instrument} is a {s['kind']}, not a {want}",
                                field="data.instrument", rule="Letter ¶3")
        remaining = Decimal(s["remaining"])
        if remaining <= 0:
            raise RuleViolation(f"nothing remains of instrument {instrument} on {day} to "
                                f"exercise or convert", field="data.fraction",
                                rule="Letter ¶3")
        s["remaining"] = str(remaining * (1 - Decimal(value)))
    return s


def _live(state: dict[str, Any], entries: list[Entry]) -> list[Entry]:
    retracted = state["retracted"]
    return [e for e in entries if e[2] not in retracted]


def _key(e: Entry) -> tuple[str, int, int]:
    """The projections' order (``ledger.dayorder``) under the default readings. A
    timeline never holds both a vesting and an exercise or an adjustment, so neither
    ``same_day_vesting_and_exercise`` nor ``same_day_adjustment`` can change what it
    accepts; an adjustment and an exercise of one day are walked as they were recorded.
    (``in_effect_key``, inlined: it runs for every entry of every event appended or
    replayed.)"""
    return (e[0], _DAY_RANK(e[3], 0), e[1])


_DAY_RANK = RANKS.get


def _walk(name: str, entries: list[Entry], state: dict[str, Any],
          new_id: str | None = None, ahead: frozenset[str] = frozenset()) -> Any:
    """Replay one timeline in the projections' order; name the existing event that breaks.
    ``ahead``: entries of the same batch not yet checked; one of them breaking is its own
    line's refusal, not this one's, so the walk stops there (returns None)."""
    summary = _initial(name)
    for e in sorted(entries, key=_key):
        try:
            summary = _step(name, summary, e, state)
        except RuleViolation as err:
            if e[2] == new_id:
                raise
            if e[2] in ahead:
                return None
            raise RuleViolation(f"this would break the later-recorded event {e[2]} of {e[0]}: "
                                f"{err.message}", field=err.field, rule=err.rule) from None
    return summary


def _sorts_last(timeline: dict[str, Any], e: Entry) -> bool:
    """Whether ``e`` can be stepped from the timeline's cached end: it sorts last, and the
    end is known (a timeline is *pending* while an entry of it waits for a same-day,
    earlier-sorting entry recorded after it: a Camden vesting line before its issuance)."""
    last = timeline.get("last")
    if timeline.get("pending"):
        return False
    return last is None or _key(e) >= tuple(last)


def _settle(name: str, timeline: dict[str, Any], entries: list[Entry],
            state: dict[str, Any]) -> None:
    """Re-walk a timeline into its end; if an entry breaks a rule (only possible while a
    batch is being checked, or replaying one: its cure is recorded later but sorts first),
    the timeline is *pending* until the entry that cures it is folded."""
    try:
        timeline["end"] = _walk(name, entries, state)
        timeline["pending"] = False
    except RuleViolation:
        timeline["end"], timeline["pending"] = None, True


# --------------------------------------------- the Effectiveness Period, (y) and (z)


def _trs_gone_on(positions: list[Entry], effective: str,
                 frees: frozenset[str] = frozenset({"shelf"})) -> str | None:
    """RRA §2(a)(iii)(y),(z): the first day, on or after ``effective``, at whose end no
    Note is a Transfer Restricted Security (all sold under the shelf, converted or
    retired) and no Conversion Share has been issued (Conversion Shares stay TRS and no
    event records their sale): the day the Effectiveness Period has ended. Lots are
    taken as the engine takes them, TRS first (``resales.trs_days``)."""
    before = None   # (TRS total, Conversion Shares) at the end of the last day seen
    for day, _trs, total, shares in trs_days(positions, frees):
        if day > effective and before == (0, 0):
            return effective            # nothing restricted at the end of the effective day
        if day >= effective and (total, shares) == (0, 0):
            return day
        before = (total, shares)
    return effective if before == (0, 0) else None


def _check_period_end(state: dict[str, Any], new: list[tuple[str, Entry]],
                      retracted: dict[str, Any], new_id: str | None) -> None:
    """SPEC §4.3: "A SuspensionStarted outside the Effectiveness Period (however it
    ended: (x), (y) or (z)) ... is refused"; (x) is checked on the shelf's own timeline,
    (y) and (z) here, across the shelf and the positions, and again whenever a position
    event or a retraction could end the period before a suspension already recorded."""
    timelines = state["timelines"]
    if not any(name == "shelf" for name, _e in new) and not any(
            e[3] == "SuspensionStarted" for e in timelines.get("shelf", {}).get("entries", ())):
        return   # no Suspension Period, recorded or new: none can fall outside the period

    def live(name: str) -> list[Entry]:
        found = timelines.get(name, {}).get("entries", [])
        return [e for e in found if e[2] not in retracted] + [e for n, e in new if n == name]

    shelf = sorted(live("shelf"), key=lambda e: (e[0], e[1]))
    effective = next((e[0] for e in shelf if e[3] == "ShelfEffective"), None)
    starts = [e for e in shelf if e[3] == "SuspensionStarted"]
    if effective is None or not starts:
        return
    moved = [e for n, e in new if n == "positions"]
    if moved and not any(n == "shelf" for n, _ in new):
        if not any(e[0] >= moved[0][0] for e in starts):   # no suspension it could move out
            return
    terms = state["terms"]
    period_ends = terms.get("effectiveness_period", {}).get("ends", ()) if terms else ()
    ends = {e["end"] for e in period_ends} if terms else {"all_sold", "none_outstanding"}
    if not ends & {"all_sold", "none_outstanding"}:
        return   # the agreement's period does not end when the securities are gone
    gone = _trs_gone_on(live("positions"), effective, terms_guards.frees(terms)
                        if terms else frozenset({"shelf"}))
    how = "all sold under the shelf or no longer outstanding"
    k144 = next((e[0] for e in shelf if e[3] == "Rule144kDate"), None)
    if k144 is not None and "rule_144k" in (terms or {}).get("transfer_restricted", {}).get(
            "until", ()):
        freed = max(k144, effective)   # none restricted from the Rule 144(k) date
        if gone is None or freed < gone:
            gone, how = freed, f"none restricted from the Rule 144(k) date {k144}"
    if gone is None:
        return
    rule = ("RRA §2(a)(iii)(y),(z), §4(b)(i)" if not terms or terms.get("text") == INFOCROSSING
            else cite(*(e["section"] for e in period_ends
                        if e["end"] in ("all_sold", "none_outstanding")),
                      (terms.get("suspensions") or {}).get("section", "")))
    for e in starts:
        if e[0] >= gone:
            why = (f"the Effectiveness Period ended on {gone}: no Transfer Restricted "
                   f"Security remained ({how})")
            if e[2] == new_id:
                raise RuleViolation(f"a Suspension Period can only start during the "
                                    f"Effectiveness Period; {why} (on {e[0]})", field="type",
                                    rule=rule)
            raise RuleViolation(f"this would leave the SuspensionStarted {e[2]} of {e[0]} "
                                f"outside the Effectiveness Period: {why}",
                                field="type", rule=rule)


#: the sales a shelf must be effective and usable for, when made under it
SALE_TYPES = ("NotesTransferred", "ConversionSharesTransferred")


def _check_shelf_sales(state: dict[str, Any], new: Sequence[tuple[str, Entry]],
                       retracted: Mapping[str, Any], new_id: str | None, *, since: str = "",
                       every: bool = False, ahead: Sequence[tuple[str, Entry]] = ()) -> None:
    """The sales under the shelf (``resales``): the new event's own (``new``, its
    effects), or with ``every`` each live one dated on or after ``since`` (what a new
    stop order, Suspension Period, Questionnaire request or Holder, or a retraction, could
    leave barred). ``ahead``: entries of the batch's later lines, which take effect with
    this one (a ShelfEffective, a cure, a delivery recorded after the sale in one batch).
    The clauses named, and which sales free a security, are the deal's terms'."""
    timelines = state["timelines"]

    def live(name: str) -> list[Entry]:
        found = timelines.get(name, {}).get("entries", ())
        return ([e for e in found if e[2] not in retracted]
                + [e for n, e in new if n == name] + [e for n, e in ahead if n == name])

    positions = live("positions")
    sales = positions if every else [e for n, e in new if n == "positions"]
    terms = state["terms"]
    check_sales(sales, live("shelf"), live("questionnaires"), positions, new_id, since,
                sale_rules(terms), terms_guards.frees(terms) if terms else frozenset({"shelf"}))


def _judge_sales(state: dict[str, Any], record: dict[str, Any],
                 found: list[tuple[str, Entry]], batch: "Batch | None", index: int) -> None:
    """Which sales under the shelf an appended event could bar (``resales``), judged with
    the batch's later lines if they alone would be barred: a sale its own; a stop order,
    a Suspension Period or a Questionnaire request those on or after its day; a position
    event those on or after its day when a request to "all" Holders dated then or later
    could now ask one more seller."""
    t, day = record["type"], record["date"]
    if t in SALE_TYPES and record["data"].get("under") == "shelf":
        options: dict[str, Any] = {}
    elif t in ("ShelfUnusable", "SuspensionStarted", "QuestionnaireRequested") or (
            t in POSITION_TYPES and any(
                e[3] == "QuestionnaireRequested" and e[4] == "all" and e[0] >= day
                for e in state["timelines"].get("questionnaires", {}).get("entries", ()))):
        options = {"since": day, "every": True}
    else:
        return
    retracted = state["retracted"]
    try:
        _check_shelf_sales(state, found, retracted, record["id"], **options)
    except RuleViolation:
        if batch is None:
            raise
        deal = record["deal"]
        ahead = [(n, e) for n in ("shelf", "questionnaires") for e in batch.later(index, deal, n)]
        gone = batch.retracting(index, deal)
        if not ahead and not gone:
            raise
        _check_shelf_sales(state, found, {**retracted, **dict.fromkeys(gone)}, record["id"],
                           ahead=ahead, **options)


# ------------------------------------------------------------------------- check


class Batch:
    """The lines of one batch as timeline entries, so that a line refused on its own is
    checked again together with the lines recorded after it in the batch, some of which
    may take effect before it (SPEC §1, ``ledger.dayorder``: a Camden vesting line before
    the same-day issuance line; a line dated before an earlier line). ``records`` need
    type, deal, date, data, seq and id. Consulted only when a line would be refused."""

    def __init__(self, records: Sequence[dict[str, Any]] | Callable[[], Sequence[dict[str, Any]]]):
        # ``records`` may be a function that makes them: a batch whose lines all pass
        # never needs them, so a writer need not build them (``ledger.store``)
        self._records = records
        self._built: dict[tuple[str, str], tuple[list[int], list[Entry]]] | None = None

    @property
    def _groups(self) -> dict[tuple[str, str], tuple[list[int], list[Entry]]]:
        if self._built is None:
            records = self._records() if callable(self._records) else self._records
            self._built = {}
            for i, r in enumerate(records):
                found = effects({}, r) if r["type"] != "EventRetracted" else [
                    (RETRACTS, [r["date"], r["seq"], r["id"], r["type"], r["data"]["event_id"]])]
                for name, e in found:
                    idx, entries = self._built.setdefault((r["deal"], name), ([], []))
                    idx.append(i)
                    entries.append(e)
        return self._built

    def later(self, index: int, deal: str, name: str) -> list[Entry]:
        """Entries of timeline ``name`` from the lines after line ``index``."""
        found = self._groups.get((deal, name))
        if not found:
            return []
        idx, entries = found
        return entries[bisect_right(idx, index):]

    def retracting(self, index: int, deal: str) -> list[str]:
        """The events the lines after line ``index`` retract: a batch that retracts
        several events is judged as a whole (a Suspension Period's start and its end)."""
        return [e[4] for e in self.later(index, deal, RETRACTS)]


RETRACTS = "retracts"   # the batch's EventRetracted lines, in ``Batch`` only


def check(state: dict[str, Any], record: dict[str, Any], batch: Batch | None = None,
          index: int = 0) -> list[tuple[str, Entry]]:
    """Refuse ``record`` if it breaks a rule of the ledger or the deal (SPEC §3, §4.3).
    ``batch``, ``index``: the batch the record is line ``index`` of, so that a line whose
    cure comes later in the batch but takes effect first is judged in the projections'
    order. Returns ``effects(state, record)``, for ``fold``."""
    t, deal = record["type"], record["deal"]
    if t == "DealOpened":
        if state["kind"] is not None:
            raise RuleViolation(f"deal {deal} is already open", field="deal",
                                rule="one DealOpened per deal")
    else:
        if state["kind"] is None:
            if state["count"]:
                raise RuleViolation(f"deal {deal}'s DealOpened was retracted; open it again "
                                    "(a new DealOpened) first", field="deal",
                                    rule=RETRACTION_RULE)
            raise RuleViolation(f"deal {deal} was never opened (append its DealOpened first)",
                                field="deal", rule=NEVER_OPENED)
        kind = kind_of_type(t)
        if kind is not None and kind != state["kind"]:
            raise RuleViolation(f"{t} is an event of a {kind} deal, and {deal} is a "
                                f"{state['kind']} deal", field="type",
                                rule="the types of a deal kind: deal-ledger types --kind KIND")
        if record["date"] < state["opened"]:
            raise RuleViolation(f"dated before the deal was opened on {state['opened']}",
                                field="date",
                                rule="an event is dated on or after its deal's opening")
    key = record.get("key")
    if key is not None and key in state["keys"]:
        raise DuplicateKey(f"deal {deal} already has an event with key {key!r} "
                           f"(event {state['keys'][key]})", field="key", rule="idempotency")
    if t == "EventRetracted":
        _check_retraction(state, record, batch, index)
    elif t == "EventReinstated":
        _check_reinstatement(state, record, batch, index)
    elif t == "NoticeAcknowledged":
        target = state["ids"].get(record["data"]["notice"])
        if _type(target) != "NoticeSent":
            raise RuleViolation("names no NoticeSent of this deal", field="data.notice",
                                rule="RRA §10(E)")
        method = None if type(target) is str else target[1]
        if state["kind"] != "registration_rights" and method not in ("telex", "fax"):
            raise RuleViolation(f"a notice sent by {method} is not acknowledged; only telex "
                                "and fax notices are", field="data.notice", rule="RRA §10(E)")
        terms_guards.check_allowed(state, record, method)
        if len(target) > 2 and record["date"] < target[2]:
            raise RuleViolation(f"the {method} notice {record['data']['notice']} was sent on "
                                f"{target[2]}; its receipt cannot be acknowledged before, on "
                                f"{record['date']}", field="date", rule=_notices_rule(state))
    elif t != "DealOpened":
        terms_guards.check_allowed(state, record, None)
    if t == "TermsAmended":
        terms_guards.check_amendment(state, record)
    for field in HOLDER_FIELDS.get(t, ()):
        _check_known_holder(state, record, field)
    found = effects(state, record)
    timelines = state["timelines"]
    for name, e in found:
        timeline = timelines.get(name)
        try:
            if timeline is None:
                _step(name, _initial(name), e, state)
            elif _sorts_last(timeline, e):
                _step(name, timeline["end"], e, state)
            else:
                _walk(name, _live(state, timeline["entries"]) + [e], state, new_id=e[2])
        except RuleViolation:
            # the lines recorded after this one in the batch: the projection applies
            # those that sort first before it, so a line they cure (or a pending entry
            # they cure) is accepted; a line that breaks is refused on its own line
            ahead = batch.later(index, deal, name) if batch is not None else []
            if not ahead:
                raise
            live = _live(state, timeline["entries"]) if timeline else []
            try:
                _walk(name, live + ahead + [e], state, new_id=e[2],
                      ahead=frozenset(a[2] for a in ahead))
            except RuleViolation:
                pass
            else:
                continue
            raise
    if t in POSITION_TYPES or t in ("SuspensionStarted", "ShelfEffective", "Rule144kDate"):
        _check_period_end(state, found, state["retracted"], record["id"])
    if (t in POSITION_TYPES or t in CONSENT_TYPES) and t != "TermsAmended":
        terms_guards.check_amendments_hold(
            state, state["retracted"], f"{t} dated {record['date']}", "date",
            since=record["date"], extra=found)
    if t == "NotesIssued":
        _check_maximum(state, record, found)
    _judge_sales(state, record, found, batch, index)
    return found


MAXIMUM_RULE = "RRA preamble ($60,000,000; $72,000,000 with the Initial Purchaser's option)"


#: a NoticeSent of these methods may be acknowledged where the deal's terms do not say
#: (a deal of another kind): "ids" keeps its date
ACKNOWLEDGED = ("telex", "fax")


def _acknowledged(state: dict[str, Any]) -> tuple[str, ...]:
    """The notice methods given when acknowledged (RRA §10(E): telex and fax), as the
    deal's terms list them: "ids" keeps the date of a notice sent by one."""
    notices = state["terms"].get("notices")
    if notices is None:
        return ACKNOWLEDGED
    return tuple(m["method"] for m in notices["methods"] if m["deemed"] == "when_acknowledged")


def _notices_rule(state: dict[str, Any]) -> str:
    """The deal's notice clause (RRA §10(E))."""
    return (state["terms"].get("notices") or {}).get("section") or "RRA §10(E)"


def _check_maximum(state: dict[str, Any], record: dict[str, Any],
                   found: list[tuple[str, Entry]]) -> None:
    """The preamble: the Initial Purchaser buys "$60,000,000 ($72,000,000 if the Initial
    Purchaser exercises its option thereunder in full) in aggregate principal amount" of
    Notes; the deal's terms carry the most it allows (``maximum_principal``). Notes
    issued past it are not Notes of the agreement."""
    terms = state["terms"]
    cap = terms.get("maximum_principal")
    if cap is None:
        return
    timeline = state["timelines"].get("positions")
    issued = timeline["end"] if timeline is not None else 0
    adding = sum(e[4][1] for name, e in found if name == "positions")
    if issued + adding > _cents(cap):
        raise RuleViolation(f"{_money(adding)} more would make {_money(issued + adding)} of "
                            f"Notes issued, past the {_money(_cents(cap))} the agreement "
                            "provides for (terms.maximum_principal)", field="data.principal",
                            rule=((terms.get("citations") or {}).get("maximum_principal")
                                  or {}).get("section") or MAXIMUM_RULE)


# The events that only make sense for a Holder of Notes of the deal, and the field naming
# it: a name no Notes were ever issued or transferred to is a typo or a look-alike
# ("Lehman Brothers Inc" for "Lehman Brothers Inc."), refused rather than silently
# becoming a Holder of nothing (and, for a questionnaire, leaving the real one unentitled).
HOLDER_FIELDS: dict[str, tuple[str, ...]] = {
    "QuestionnaireDelivered": ("holder",),
    "ConsentGiven": ("holder",),
    "AdditionalInterestPaid": ("holder",),
    "HolderAffiliation": ("holder",),
    "NotesTransferred": ("from_holder",),
    "NotesConverted": ("holder",),
    "NotesRetired": ("holder",),
    "ConversionSharesTransferred": ("from_holder",),
}
# the rule named when an event's deal was never opened (the CLI adds the closest names)
NEVER_OPENED = "a deal begins with its DealOpened"
# where a refusal about retractions sends the user (the event format, shown by the CLI)
RETRACTION_RULE = "retractions: deal-ledger types EventRetracted"
CLAUSE_HOLDER = "RRA §1 Holder"


def holds_or_held(state: dict[str, Any], holder: str) -> bool:
    """True if Notes of the deal were ever issued or transferred to ``holder`` by an
    event that is not retracted (on any date: whether it holds enough on the event's
    date is the Transfer Restricted Securities rule's business)."""
    timeline = state["timelines"].get(f"notes:{holder}")
    if timeline is None:
        return False
    retracted = state["retracted"]
    for e in timeline["entries"]:   # (a loop: the first entry almost always answers)
        if e[3] == "+" and e[2] not in retracted:
            return True
    return False


def known_holders(state: dict[str, Any]) -> list[str]:
    return sorted(name[6:] for name in state["timelines"]
                  if name.startswith("notes:") and holds_or_held(state, name[6:]))


def closest_names(name: str, known: list[str], n: int = 3) -> list[str]:
    """The known names most like ``name`` (case and surrounding spaces ignored)."""
    import difflib

    folded: dict[str, str] = {}
    for k in known:
        folded.setdefault(" ".join(k.casefold().split()), k)
    hits = difflib.get_close_matches(" ".join(name.casefold().split()), list(folded), n=n,
                                     cutoff=0.6)
    return [folded[h] for h in hits]


def _check_known_holder(state: dict[str, Any], record: dict[str, Any], field: str) -> None:
    holder = record["data"][field]
    if holds_or_held(state, holder):
        return
    known = known_holders(state)
    close = closest_names(holder, known)
    if close:
        hint = "did you mean " + " or ".join(repr(c) for c in close) + "?"
    elif known:
        shown = ", ".join(repr(k) for k in known[:5])
        hint = f"its Holders: {shown}{' ...' if len(known) > 5 else ''}"
    else:
        hint = "no Notes of the deal were issued yet"
    raise RuleViolation(f"{holder!r} holds and held no Notes of deal {record['deal']}; {hint}",
                        field=f"data.{field}", rule=CLAUSE_HOLDER)


def _check_retraction(state: dict[str, Any], record: dict[str, Any],
                      batch: Batch | None = None, index: int = 0) -> None:
    """Refuse a retraction that would leave the deal breaking a rule. A retraction and
    the event replacing it in one batch (``correct``) are judged together: the lines
    after it in the batch are replayed with what remains, as for any other line."""
    target_id = record["data"]["event_id"]
    target = _type(state["ids"].get(target_id))
    if target is None:
        raise RuleViolation(f"no event {target_id} in deal {record['deal']}",
                            field="data.event_id", rule=RETRACTION_RULE)
    if target_id in state["retracted"]:
        raise RuleViolation(f"event {target_id} was already retracted by "
                            f"{state['retracted'][target_id]}", field="data.event_id",
                            rule=RETRACTION_RULE)
    if target == "EventRetracted":
        raise RuleViolation(f"an EventRetracted cannot be retracted; to undo it: deal-ledger "
                            f"reinstate {target_id[:8]} --reason TEXT", field="data.event_id",
                            rule=RETRACTION_RULE)
    if target == "EventReinstated":
        raise RuleViolation("an EventReinstated cannot be retracted; retract the event it "
                            "reinstated again instead", field="data.event_id",
                            rule=RETRACTION_RULE)
    if target == "DealOpened":
        _check_deal_opened_retraction(state, record, target_id)
        return
    touched = _touched(state, target_id)
    _amendments_still_carried(state, {**state["retracted"], target_id: record["id"]},
                              target_id, "retracting", "data.event_id")
    try:
        _leaves_rules_kept(state, {**state["retracted"], target_id: record["id"]}, touched)
    except RuleViolation as err:
        # judged as a whole with the lines after it in the batch: the events they retract
        # (a Suspension Period's start and end retracted together) and the entries they add
        gone = batch.retracting(index, record["deal"]) if batch is not None else []
        ahead = _ahead(batch, index, record["deal"], touched)
        try:
            if not gone and not any(ahead.values()):
                raise
            _leaves_rules_kept(state, {**state["retracted"], target_id: record["id"],
                                       **dict.fromkeys(gone)}, touched, ahead)
        except RuleViolation:
            raise RuleViolation(f"retracting {target_id} would leave the deal breaking a "
                                f"rule: {err.message}; retract the dependent event first, "
                                "or with it in one batch", field="data.event_id",
                                rule=err.rule) from None


def _amendments_still_carried(state: dict[str, Any], retracted: Mapping[str, Any],
                              target_id: str, doing: str, field: str) -> None:
    """Taking out or putting back a position, a consent, an affiliation, a conversion
    price or an amendment leaves every amendment carried by the majority it rests on
    (issue 33, ``terms_guards.check_amendments_hold``)."""
    target = _type(state["ids"][target_id])
    if target not in POSITION_TYPES and target not in CONSENT_TYPES:
        return
    trial = {**state, "retracted": dict(retracted)}
    if target == "TermsAmended":
        trial["terms"] = terms_guards.amended_terms(trial)
    terms_guards.check_amendments_hold(trial, retracted, f"{doing} {target_id}", field)


def _ahead(batch: Batch | None, index: int, deal: str, touched: list[str]
           ) -> dict[str, list[Entry]]:
    """The entries the lines after line ``index`` of the batch add, per timeline: those
    ``touched`` and what bars a sale under the shelf (its shelf and Questionnaires)."""
    if batch is None:
        return {}
    return {name: batch.later(index, deal, name)
            for name in {*touched, "shelf", "questionnaires"}}


def _leaves_rules_kept(state: dict[str, Any], retracted: Mapping[str, Any], touched: list[str],
                       ahead: Mapping[str, list[Entry]] | None = None) -> None:
    """Refuse (the error of the first event left breaking a rule) if the deal, with
    ``retracted`` the events that no longer count, breaks a rule on a timeline in
    ``touched`` or across them (``ahead``: the later lines of the batch, per timeline)."""
    retracted = dict(retracted)
    trial = {**state, "retracted": retracted}
    if {"positions", "shelf"} & set(touched):
        _check_period_end(state, [], retracted, None)
    if {"positions", "shelf", "questionnaires"} & set(touched):
        _check_shelf_sales(state, [], retracted, None, every=True, ahead=[
            (name, e) for name in ("shelf", "questionnaires")
            for e in (ahead or {}).get(name, ())])
    # (at most one of an event's timelines can break when it is retracted, so the order
    # they are walked in cannot change the refusal)
    for name in touched:
        live = _live(trial, state["timelines"][name]["entries"])
        later = (ahead or {}).get(name, [])
        _walk(name, live + later, trial, ahead=frozenset(a[2] for a in later))


REINSTATEMENT_RULE = "reinstatements: deal-ledger types EventReinstated"


def retracted_by(state: dict[str, Any], retraction_id: str) -> str | None:
    """The event the retraction ``retraction_id`` retracts while it counts."""
    return next((target for target, by in state["retracted"].items() if by == retraction_id),
                None)


def _check_reinstatement(state: dict[str, Any], record: dict[str, Any],
                         batch: Batch | None = None, index: int = 0) -> None:
    """An ``EventReinstated`` withdraws a retraction made in error (issue 31): it names an
    ``EventRetracted`` of the deal that still counts, and the event that retraction took
    out counts again, so it is judged as that event would be if appended now: the deal
    must break no rule with it back (a second ShelfFiled recorded since, a suspension
    that would now overlap, a sale under the shelf it would bar, is refused, naming
    it)."""
    retraction_id = record["data"]["retraction_id"]
    known = _type(state["ids"].get(retraction_id))
    if known is None:
        raise RuleViolation(f"no event {retraction_id} in deal {record['deal']}",
                            field="data.retraction_id", rule=REINSTATEMENT_RULE)
    if known != "EventRetracted":
        by = state["retracted"].get(retraction_id)
        hint = (f"; it was retracted by {by}: reinstate that one" if by is not None
                and _type(state["ids"].get(by)) == "EventRetracted" else "")
        raise RuleViolation(f"event {retraction_id} ({known}) is not an EventRetracted; only "
                            f"a retraction is reinstated{hint}", field="data.retraction_id",
                            rule=REINSTATEMENT_RULE)
    if retraction_id in state["retracted"]:
        raise RuleViolation(f"the retraction {retraction_id} was already withdrawn by "
                            f"{state['retracted'][retraction_id]}", field="data.retraction_id",
                            rule=REINSTATEMENT_RULE)
    target_id = retracted_by(state, retraction_id)
    if target_id is None:   # a ledger altered outside deal-ledger: never silently accepted
        raise RuleViolation(f"the retraction {retraction_id} retracts nothing that is still "
                            "retracted", field="data.retraction_id", rule=REINSTATEMENT_RULE)
    if _type(state["ids"].get(target_id)) == "DealOpened":
        raise RuleViolation(f"the deal is open under another DealOpened; its retracted "
                            f"DealOpened {target_id} cannot count beside it",
                            field="data.retraction_id", rule="one DealOpened per deal")
    retracted = {k: v for k, v in state["retracted"].items() if k != target_id}
    touched = _touched(state, target_id)
    _amendments_still_carried(state, retracted, target_id, "reinstating", "data.retraction_id")
    try:
        try:
            _leaves_rules_kept(state, retracted, touched)
        except RuleViolation:
            ahead = _ahead(batch, index, record["deal"], touched)
            if not any(ahead.values()):
                raise
            _leaves_rules_kept(state, retracted, touched, ahead)
    except RuleViolation as err:
        raise RuleViolation(f"reinstating {target_id} would leave the deal breaking a rule: "
                            f"{err.message}; retract the event that took its place first",
                            field="data.retraction_id", rule=err.rule) from None


def _check_deal_opened_retraction(state: dict[str, Any], record: dict[str, Any],
                                  target_id: str) -> None:
    """A deal opened with wrong terms is corrected as any event is (SPEC §3.1: retract it
    and append the right one), but only once nothing else of the deal counts: every other
    event retracted first. Then no event is ever read under terms other than those it was
    recorded under, and the deal's name is free for a new ``DealOpened``."""
    retracted = state["retracted"]
    live = [eid for eid, known in state["ids"].items()
            if _type(known) not in ("DealOpened", "EventRetracted") and eid not in retracted]
    if live:
        raise RuleViolation(f"a DealOpened can only be retracted when every other event of "
                            f"the deal is retracted; {len(live)} are not (first: {live[0]})",
                            field="data.event_id", rule=RETRACTION_RULE)


# -------------------------------------------------------------------------- fold


def fold(state: dict[str, Any], record: dict[str, Any],
         found: list[tuple[str, Entry]] | None = None) -> dict[str, Any]:
    """Apply one stored event to the guard state (in place; also returns it). ``found``:
    the event's ``effects`` if already computed (what ``check`` returned for it)."""
    t, data = record["type"], record["data"]
    if t == "DealOpened":
        state["kind"] = data["kind"]
        state["opened"] = record["date"]
        state["terms"] = state["base_terms"] = (
            terms_guards.guard_terms(data["terms"]) if data["kind"] == "registration_rights"
            else {})
    state["count"] += 1
    timelines = state["timelines"]
    for name, e in (effects(state, record) if found is None else found):
        timeline = timelines.get(name)
        if timeline is None:
            timeline = timelines[name] = {"entries": [], "end": _initial(name), "last": None}
        # ``_key`` as the list "last" keeps (a list compares as the tuple does): fold runs
        # for every entry of every event appended or replayed (``verify``: a million)
        key, last = [e[0], _DAY_RANK(e[3], 0), e[1]], timeline["last"]
        latest = last is None or key >= last
        if latest and not timeline.get("pending"):   # _sorts_last, with its key at hand
            try:
                timeline["end"] = _step(name, timeline["end"], e, state)
            except RuleViolation:   # its cure is recorded later in the batch (``check``)
                timeline["end"], timeline["pending"] = None, True
        else:
            _settle(name, timeline, _live(state, timeline["entries"]) + [e], state)
        if latest:   # (an equal key leaves an equal list)
            timeline["last"] = key
        timeline["entries"].append(e)
    method = data.get("method") if t == "NoticeSent" else None
    state["ids"][record["id"]] = (t if method is None else [t, method, record["date"]]
                                  if method in _acknowledged(state) else [t, method])
    if record.get("key") is not None:
        state["keys"][record["key"]] = record["id"]
    if t == "TermsAmended":
        state["terms"] = terms_guards.amended_terms(state)
    if t == "EventRetracted":
        target_id = data["event_id"]
        state["retracted"][target_id] = record["id"]
        target = _type(state["ids"][target_id])
        if target == "DealOpened":  # the deal is closed until reopened
            state["kind"], state["opened"], state["terms"], state["base_terms"] = \
                None, None, {}, {}
        _resettle(state, target_id)
        if target == "TermsAmended":
            state["terms"] = terms_guards.amended_terms(state)
    elif t == "EventReinstated":   # the retraction is withdrawn (retracted by this event)
        retraction_id = data["retraction_id"]
        target_id = retracted_by(state, retraction_id)
        if target_id is not None:
            del state["retracted"][target_id]
            _resettle(state, target_id)
            if _type(state["ids"][target_id]) == "TermsAmended":
                state["terms"] = terms_guards.amended_terms(state)
        state["retracted"][retraction_id] = record["id"]
    return state


def _resettle(state: dict[str, Any], target_id: str) -> None:
    """Walk again the timelines of an event that stopped or started counting."""
    for name in _touched(state, target_id):
        timeline = state["timelines"][name]
        live = _live(state, timeline["entries"])
        _settle(name, timeline, live, state)
        timeline["last"] = max((list(_key(e)) for e in live), default=None)
