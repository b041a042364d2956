"""The tables of the views file (``deal-ledger views``): their columns, keys and meaning,
and the pure functions that make their rows from one SPEC §7 report.

One ``Table`` per table says everything about it once: its columns with SQL type and a
description (the Datasette metadata written beside the file is made from them), its
primary key and its foreign keys. A per-deal table also names the function that makes
its rows from a report (``rows``); adding a table (say ``obligations``) is one
``Table`` and one function, appended to ``DEAL_TABLES``.

Conventions an analyst can rely on:

* money is exact integer **cents** (``*_cents``, US dollars x 100), summed exactly by
  SQL; beside each one a TEXT column holds the same amount as the report prints it
  (``"6666.67"``) for display. Never ``sum()`` the text column: SQLite would make it a
  float;
* dates are ISO text (``YYYY-MM-DD``); flags are 0/1 integers; lists of event ids are
  JSON arrays in SQL (space-separated in the auditor pack's CSV);
* every per-deal row's ``deal`` references ``deals(deal)``, and an event id references
  ``events(id)``: Datasette links them, and ``PRAGMA foreign_key_check`` finds nothing;
* the bookkeeping tables (``_tracking``, ``_meta``, ``_dirty``) start with ``_``, which
  Datasette and sqlite-utils users read as internal (Datasette hides them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, Callable, Mapping, Sequence

from ledger.stored import Event

# The file's schema version. A file written with another one is rebuilt (``views``
# migrates it: drops its tables and replays the log), never half-read.
FORMAT = "deal-ledger views 6"     # 4: _deal_state; 5: _deal_written; 6: deals.label
OLD_FORMATS = ("deal-ledger views 1",)      # version 1: tables meta, dirty, tracking


@dataclass(frozen=True)
class Column:
    name: str
    type: str                      # SQLite type: TEXT or INTEGER
    description: str
    unit: str | None = None        # a Pint unit Datasette can show ("day")


@dataclass(frozen=True)
class Table:
    name: str
    description: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    references: tuple[tuple[str, str, str], ...] = ()   # (column, table, column)
    rows: Callable[[Mapping[str, Any]], list[dict[str, Any]]] | None = None
    hidden: bool = False
    sort: str | None = None        # Datasette's default sort column

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def ddl(self) -> str:
        parts = [f'"{c.name}" {c.type}' for c in self.columns]
        parts.append("PRIMARY KEY (" + ", ".join(f'"{k}"' for k in self.key) + ")")
        parts += [f'FOREIGN KEY ("{col}") REFERENCES "{table}" ("{ref}")'
                  for col, table, ref in self.references]
        return f'CREATE TABLE IF NOT EXISTS "{self.name}" (\n  ' + ",\n  ".join(parts) + "\n)"

    def insert(self) -> str:
        return (f'INSERT INTO "{self.name}" VALUES '
                f'({", ".join("?" for _ in self.columns)})')


def C(name: str, type_: str, description: str, unit: str | None = None) -> Column:
    return Column(name, type_, description, unit)


# --------------------------------------------------------------------- money


def cents(amount: str | None) -> int | None:
    """``"6666.67"`` -> 666667: exact, for SQL sums (the text stays beside it)."""
    if amount is None:
        return None
    return int(Decimal(amount).scaleb(2).to_integral_exact())


# ---------------------------------------------------------- per-deal row makers


def _ids(value: Any) -> list[str]:
    return list(value or [])


def defaults_rows(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """RRA §3(a): each Registration Default of the report, in its order."""
    out = []
    for d in (report.get("registration") or {}).get("defaults", []):
        out.append({**_pick(DEFAULTS, d), "events": _ids(d.get("events"))})
    return out


def suspension_rows(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """RRA §4(b)(i): each Suspension Period."""
    return [{**_pick(SUSPENSION_PERIODS, p), "events": _ids(p.get("events"))}
            for p in (report.get("suspensions") or {}).get("periods", [])]


def payment_rows(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """RRA §3(b): one row per Holder per Interest Payment Date, with what it is owed and
    what it was paid (each Holder's own status; a report before per-Holder statuses
    gives the date's)."""
    out = []
    in_cents = _cents_memo()
    for p in (report.get("additional_interest") or {}).get("payments", []):
        amounts, paid = p.get("amounts", {}), p.get("paid", {})
        statuses = p.get("statuses") or {}
        date_part = _pick(PAYMENTS, p)     # the same for each Holder of the date
        status = p.get("status")
        late_holders = set(p["late_holders"]) if "late_holders" in p else None
        late_all = p.get("late")
        for holder in sorted(set(amounts) | set(paid)):
            amount, got = amounts.get(holder, "0.00"), paid.get(holder, "0.00")
            late = holder in late_holders if late_holders is not None else late_all
            out.append({**date_part, "holder": holder, "amount": amount,
                        "amount_cents": in_cents(amount), "paid": got,
                        "paid_cents": in_cents(got),
                        "status": statuses.get(holder, status), "late": late})
    return out


def _cents_memo() -> Callable[[str | None], int | None]:
    """``cents``, remembered for one call's amounts (a payment date's Holders share a
    few: "0.00" above all)."""
    seen: dict[str | None, int | None] = {}

    def in_cents(amount: str | None) -> int | None:
        found = seen.get(amount, seen)
        if found is seen:
            found = seen[amount] = cents(amount)
        return found  # type: ignore[return-value]
    return in_cents


def deadline_rows(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """SPEC §4.5: each obligation with its due date and status."""
    return [{**_pick(DEADLINES, d), "events": _ids(d.get("events"))}
            for d in report.get("deadlines", [])]


def true_up_rows(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Letter ¶3: each exercise and the true-up shares it earns."""
    return [_pick(TRUE_UPS, e) for e in (report.get("true_up") or {}).get("exercises", [])]


def _pick(table: Table, source: Mapping[str, Any]) -> dict[str, Any]:
    return {name: source.get(name) for name in table.names if name not in ("deal", "n")}


# ------------------------------------------------------------------- tables

_DEAL = C("deal", "TEXT", "The deal (deals.deal).")
_N = C("n", "INTEGER", "The row's position in the deal's report (1, 2, ...).")
_EVENTS = C("events", "TEXT", "The ids of the events this row rests on (a JSON array).")
_DEAL_FK = (("deal", "deals", "deal"),)

DEFAULTS = Table(
    "defaults", "Registration Defaults (RRA §3(a)) of each registration-rights deal, as of "
                "deals.as_of.",
    (_DEAL, _N,
     C("clause", "TEXT", "The clause of the default, e.g. RRA §3(a)(ii)."),
     C("kind", "TEXT", "Which default: filing, effectiveness, suspension, ..."),
     C("default_date", "TEXT", "The day the default occurred (ISO date)."),
     C("accrual_from", "TEXT", "The first day Additional Interest accrues for it."),
     C("cured_on", "TEXT", "The day it was cured (empty while uncured)."),
     C("accrual_until", "TEXT", "The day accrual stops (exclusive; empty while it runs)."),
     C("stopped_by", "TEXT", "What stopped the accrual (cure, maturity, ...)."),
     C("episode", "INTEGER", "The default episode it belongs to (overlapping defaults "
                             "form one episode; the rate restarts with each)."),
     _EVENTS),
    ("deal", "n"), _DEAL_FK, defaults_rows, sort="default_date")

SUSPENSION_PERIODS = Table(
    "suspension_periods", "Suspension Periods (RRA §4(b)(i)) and their lengths.",
    (_DEAL, _N,
     C("start", "TEXT", "First day of the suspension (ISO date)."),
     C("end", "TEXT", "Day it ended (empty while it runs)."),
     C("days", "INTEGER", "Its length in days, as of deals.as_of.", "day"),
     C("material_transaction", "INTEGER", "1 if declared for a material transaction "
                                           "(the longer limits apply)."),
     C("extended", "INTEGER", "1 if the period was extended."),
     C("last_permitted_day", "TEXT", "The last day the limits allow it to run."),
     _EVENTS),
    ("deal", "n"), _DEAL_FK, suspension_rows, sort="start")

PAYMENTS = Table(
    "payments", "Additional Interest (RRA §3(b)) per Holder per Interest Payment Date: "
                "what each Holder of record is owed and what it was paid. Amounts in "
                "exact cents (*_cents) with the report's text beside them.",
    (_DEAL,
     C("payment_date", "TEXT", "The Interest Payment Date (Jan 15 / Jul 15, ISO date)."),
     C("paid_on", "TEXT", "The payment date rolled to a Business Day."),
     C("record_date", "TEXT", "The record date (Jan 1 / Jul 1) deciding who is paid."),
     C("period_start", "TEXT", "First day of the interest period."),
     C("period_end", "TEXT", "Last day of the interest period (the payment date)."),
     C("accrued_through", "TEXT", "The last day accrued so far (a period still running)."),
     C("holder", "TEXT", "The Holder of record on the record date."),
     C("amount", "TEXT", "Amount owed, US dollars, exact text for display (\"6666.67\"); "
                         "sum amount_cents instead."),
     C("amount_cents", "INTEGER", "Amount owed in US cents (exact; sum this)."),
     C("paid", "TEXT", "Amount paid (AdditionalInterestPaid), US dollars, text for display."),
     C("paid_cents", "INTEGER", "Amount paid in US cents (exact; sum this)."),
     C("status", "TEXT", "accruing, due, paid, underpaid or overpaid, for this Holder."),
     C("late", "INTEGER", "1 if paid after the payment date.")),
    ("deal", "payment_date", "holder"), _DEAL_FK, payment_rows, sort="payment_date")

DEADLINES = Table(
    "deadlines", "Obligations with a due date and their status: met, missed or open "
                 "(SPEC §4.5).",
    (_DEAL, _N,
     C("obligation", "TEXT", "What must be done."),
     C("clause", "TEXT", "The clause that requires it."),
     C("due", "TEXT", "The due date (ISO date; empty if none yet)."),
     C("status", "TEXT", "met, missed or open, as of deals.as_of."),
     C("met_on", "TEXT", "The day it was met (empty if not)."),
     C("late_on", "TEXT", "The day it was met late (empty if not)."),
     C("holder", "TEXT", "The Holder it is owed to, if one."),
     _EVENTS),
    ("deal", "n"), _DEAL_FK, deadline_rows, sort="due")

TRUE_UPS = Table(
    "true_ups", "Exercises under the anti-dilution deferral Letter (¶3) and the true-up "
                "shares they earn; shares are whole shares of common stock.",
    (_DEAL, _N,
     C("event", "TEXT", "The exercise event (events.id)."),
     C("instrument", "TEXT", "The instrument exercised."),
     C("holder", "TEXT", "Its holder."),
     C("kind", "TEXT", "Instrument kind (warrant, option, ...)."),
     C("type", "TEXT", "The event type of the exercise."),
     C("date", "TEXT", "The exercise date (ISO date)."),
     C("fraction", "TEXT", "The fraction exercised (exact decimal text)."),
     C("eligible", "INTEGER", "1 if it earns a true-up."),
     C("shares_issued", "INTEGER", "Shares issued on the exercise."),
     C("price_at_exercise", "TEXT", "The exercise price then in force, US dollars (text)."),
     C("entitled", "INTEGER", "Shares it would have had at the adjusted price."),
     C("owed", "INTEGER", "True-up shares earned (entitled - shares_issued)."),
     C("issued", "INTEGER", "True-up shares issued so far."),
     C("outstanding", "INTEGER", "True-up shares still owed (owed - issued)."),
     C("over_issued", "INTEGER", "True-up shares issued beyond those owed.")),
    ("deal", "n"), (*_DEAL_FK, ("event", "events", "id")), true_up_rows, sort="date")



def obligation_rows(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every obligation of both agreements with its state as of deals.as_of (the report's
    ``obligations``, ``projections.obligations``), amounts also in cents."""
    from .pack_obligations import obligation_rows as flat

    return [{**_pick(OBLIGATIONS, o), "amount_cents": cents(o.get("amount"))}
            for o in flat(report)]


OBLIGATIONS = Table(
    "obligations", "Every obligation of each deal with its lifecycle state as of "
                   "deals.as_of: upcoming, due, fulfilled, violated, cured, excused or "
                   "discharged (`deal-ledger agenda` lists them across deals).",
    (_DEAL, _N,
     C("key", "TEXT", "The obligation's stable key within the deal (the calendar's UID)."),
     C("kind", "TEXT", "Which duty: file-shelf, notify-trustee, pay-additional-interest, ..."),
     C("obligation", "TEXT", "What must be done, in words."),
     C("clause", "TEXT", "The clause that requires it, e.g. RRA §2(a)(i)."),
     C("party", "TEXT", "Who owes it (the Company, a Holder)."),
     C("holder", "TEXT", "The Holder it concerns, if one."),
     C("due", "TEXT", "The due date (ISO date; empty if none yet)."),
     C("state", "TEXT", "upcoming, due, fulfilled, violated, cured, excused or discharged."),
     C("since", "TEXT", "The day it entered that state (ISO date)."),
     C("by", "TEXT", "What fulfilled, excused or discharged it, in words."),
     C("by_event", "TEXT", "The event that did (events.id), if one."),
     C("violated_since", "TEXT", "The first day it was violated (empty if never)."),
     C("cured_on", "TEXT", "The day a violation was cured (empty if not)."),
     C("triggered", "TEXT", "What the violation triggered (a Registration Default, ...)."),
     C("amount", "TEXT", "An amount owed, US dollars (exact text), if one."),
     C("amount_cents", "INTEGER", "The same amount in whole cents, for sums.", "cent"),
     C("shares", "INTEGER", "Shares owed (true-ups), if any."),
     C("interpretations", "TEXT", "The readings in force it relied on (name=value ...)."),
     _EVENTS),
    ("deal", "n"), _DEAL_FK, obligation_rows, sort="due")

# The per-deal tables whose rows a report makes, in the order they are written. Append
# a Table here (with its ``rows`` function) to add one.
DEAL_TABLES: tuple[Table, ...] = (DEFAULTS, SUSPENSION_PERIODS, PAYMENTS, DEADLINES, TRUE_UPS,
                                  OBLIGATIONS)

DEALS = Table(
    "deals", "One row per deal: who it is, its events, and its report's headline figures "
             "as of as_of. A deal whose report could not be made has its error here.",
    (C("deal", "TEXT", "The deal's name in the ledger."),
     C("label", "TEXT", "A short label: the deal's name and its agreement (RRA or Letter). "
                        "Datasette shows it for the deal in every table that refers to it "
                        "(the agreement's name, a whole title, made each row ten lines tall)."),
     C("kind", "TEXT", "registration_rights or antidilution_deferral."),
     C("name", "TEXT", "The agreement's name (DealOpened)."),
     C("opened_on", "TEXT", "The DealOpened date (ISO date)."),
     C("events", "INTEGER", "Events of the deal in the file, retractions included."),
     C("retracted", "INTEGER", "How many of them are retracted."),
     C("last_seq", "INTEGER", "The deal's last event (events.seq)."),
     C("as_of", "TEXT", "The day the figures are judged on."),
     C("in_default", "INTEGER", "1 if a Registration Default accrues on as_of."),
     C("accrued_to_as_of", "TEXT", "Additional Interest accrued to as_of, US dollars (text "
                                   "for display)."),
     C("accrued_to_as_of_cents", "INTEGER", "The same in US cents (exact; sum this)."),
     C("paid_to_as_of", "TEXT", "Additional Interest paid to as_of, US dollars (text)."),
     C("paid_to_as_of_cents", "INTEGER", "The same in US cents (exact; sum this)."),
     C("true_up_owed", "INTEGER", "True-up shares earned, all holders (Letter ¶3)."),
     C("true_up_issued", "INTEGER", "True-up shares issued, all holders."),
     C("true_up_outstanding", "INTEGER", "True-up shares still owed, all holders."),
     C("problems", "INTEGER", "How many problems the report lists."),
     C("error", "TEXT", "Why the report could not be made (empty when it was).")),
    ("deal",), sort="deal")

EVENTS = Table(
    "events", "The ledger's events in log order, every stored field, retractions marked.",
    (C("seq", "INTEGER", "The event's position in the ledger (1, 2, ...)."),
     C("notification_id", "INTEGER", "Its notification id in the event store."),
     C("id", "TEXT", "The event id (a UUID)."),
     C("deal", "TEXT", "The deal (deals.deal)."),
     C("type", "TEXT", "The event type (SPEC §3)."),
     C("date", "TEXT", "The day it happened (ISO date)."),
     C("data", "TEXT", "Its data, exact JSON."),
     C("source", "TEXT", "Where it was read from, if given."),
     C("key", "TEXT", "The idempotency key, if given."),
     C("v", "INTEGER", "The version of its type's data shape."),
     C("recorded_at", "TEXT", "When it was recorded (UTC timestamp)."),
     C("recorded_by", "TEXT", "Who recorded it."),
     C("prev_hash", "TEXT", "The hash of the event before it (the chain)."),
     C("hash", "TEXT", "Its SHA-256 chain hash."),
     C("extra", "TEXT", "Any further stored fields, JSON."),
     C("retracted", "INTEGER", "1 if an EventRetracted retracts it.")),
    ("seq",), (("deal", "deals", "deal"),), sort="seq")

META = Table("_meta", "Internal: the file's format, the ledger it mirrors and the settings "
                      "its rows were computed with.",
             (C("key", "TEXT", "Setting."), C("value", "TEXT", "Its value.")),
             ("key",), hidden=True)
DIRTY = Table("_dirty", "Internal: deals waiting to be recomputed.",
              (C("deal", "TEXT", "The deal."),), ("deal",), hidden=True)

STATE = Table(
    "_deal_state", "Internal: each deal's events as the engine reads them, in parts "
                   "(publishing.dealstate), so that recomputing a deal after a few new "
                   "events does not read and decode all its events again.",
    (C("deal", "TEXT", "The deal."),
     C("part", "INTEGER", "The part's number within the deal (0, 1, ...)."),
     C("first_seq", "INTEGER", "The seq of the part's first event."),
     C("last_seq", "INTEGER", "The seq of the part's last event."),
     C("events", "INTEGER", "How many events the part holds."),
     C("rows", "BLOB", "The part's events (publishing.dealstate).")),
    ("deal", "part"), hidden=True)

WRITTEN = Table(
    "_deal_written", "Internal: a digest of each deal's rows in every per-deal table and "
                     "of its retracted events, as last written (publishing.written), so "
                     "that a deal recomputed to the same rows is not rewritten.",
    (C("deal", "TEXT", "The deal."),
     C("digests", "BLOB", "The digests (publishing.written).")),
    ("deal",), hidden=True)

# Every table of ours, parents first (the library's ``_tracking`` is made by the recorder).
TABLES: tuple[Table, ...] = (META, DIRTY, DEALS, EVENTS, *DEAL_TABLES, STATE, WRITTEN)
TRACKING = "_tracking"

# Indexes built after the bulk of a (re)build rather than row by row during it. The
# unique one on events.id is what true_ups.event references.
LATE_INDEXES = (('CREATE INDEX IF NOT EXISTS "events_by_deal" ON "events" ("deal", "seq")',
                 "events_by_deal"),
                ('CREATE UNIQUE INDEX IF NOT EXISTS "events_by_id" ON "events" ("id")',
                 "events_by_id"),
                ('CREATE INDEX IF NOT EXISTS "events_by_type" ON "events" ("type")',
                 "events_by_type"),
                # the few retracted events, by deal: recomputing a deal clears its marks
                # without visiting each of its events (3 ms a 1,000-event deal without it)
                ('CREATE INDEX IF NOT EXISTS "events_retracted" ON "events" ("deal") '
                 'WHERE "retracted" = 1', "events_retracted"))


# The report's sections the tables and the deals row read (``report(sections=...)``):
# the views make only these (a Registration Rights deal's notices are a tenth of its
# report, and no table reads them). A table that reads another must add it here.
REPORT_SECTIONS = frozenset(("registration", "suspensions", "additional_interest",
                             "deadlines", "problems", "obligations", "true_up"))


def schedule_rows(report: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Every per-deal table's rows of one report, each table present (empty if it does
    not apply). Values as the report has them (dates ISO, amounts exact strings, event
    ids as lists, flags as bools) plus the cents. The auditor pack writes them as CSV."""
    return {t.name: t.rows(report) for t in DEAL_TABLES}


def deal_row(report: Mapping[str, Any] | None, events: Sequence[Event],
             retracted: int, as_of: date, error: str | None = None) -> dict[str, Any]:
    """One ``deals`` row: who the deal is, how many events (``events``: all of the deal's
    in the file, in seq order), and the report's headline."""
    # the latest DealOpened: the one in force if the first was retracted and the deal
    # opened again (a new one is only accepted once the previous one is retracted)
    types = [e.type for e in events]
    opened = (events[len(types) - 1 - types[::-1].index("DealOpened")]
              if "DealOpened" in types else None)
    row: dict[str, Any] = {name: None for name in DEALS.names}
    row.update(deal=events[0].deal, events=len(events), retracted=retracted,
               last_seq=events[-1].seq, as_of=as_of.isoformat(), error=error)
    if opened is not None:
        row.update(kind=opened.data.get("kind"), name=opened.data.get("name"),
                   opened_on=opened.date.isoformat())
    row["label"] = deal_label(row["deal"], row["kind"])
    if report is None:
        return row
    row["kind"] = report.get("kind", row["kind"])
    row["label"] = deal_label(row["deal"], row["kind"])
    ai = report.get("additional_interest") or {}
    if "registration" in report:
        row.update(in_default=report["registration"].get("in_default"),
                   accrued_to_as_of=ai.get("accrued_to_as_of"),
                   accrued_to_as_of_cents=cents(ai.get("accrued_to_as_of")),
                   paid_to_as_of=ai.get("paid_to_as_of"),
                   paid_to_as_of_cents=cents(ai.get("paid_to_as_of")))
    holders = (report.get("true_up") or {}).get("holders")
    if holders is not None:
        row.update(true_up_owed=sum(h.get("owed", 0) for h in holders.values()),
                   true_up_issued=sum(h.get("issued", 0) for h in holders.values()),
                   true_up_outstanding=sum(h.get("outstanding", 0) for h in holders.values()))
    problems = list(report.get("problems") or []) + list(
        (report.get("true_up") or {}).get("problems") or [])
    row["problems"] = len(problems)
    return row


def sql_value(value: Any) -> Any:
    """A row value as SQLite stores it: lists and dicts as JSON text, flags as 0/1."""
    kind = type(value)
    if kind is str or kind is int or value is None:   # most values: as they are
        return value
    if isinstance(value, (list, dict)):
        return _SQL_JSON(value)
    if isinstance(value, bool):
        return int(value)
    return value


_SQL_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def sql_rows(report: Mapping[str, Any], deal: str) -> dict[str, list[tuple]]:
    """Every per-deal table's SQL rows of one report, as ``views`` writes them: per
    table, in its column order, ``deal`` and the row number ``n`` filled in and each
    value made by ``sql_value``. The same tuples as converting ``Table.rows`` row by
    row (tests/test_views_rows.py), with the payments, a row per Holder per payment
    date, made straight from the report (``payment_sql_rows``)."""
    out: dict[str, list[tuple]] = {}
    value = sql_value
    for table in DEAL_TABLES:
        if table is PAYMENTS:
            out[table.name] = payment_sql_rows(report, deal)
            continue
        names = table.names
        numbered = "n" in names
        made = []
        for i, row in enumerate(table.rows(report), start=1):
            made.append(tuple([deal if k == "deal" else i if k == "n" and numbered
                               else value(row[k]) for k in names]))
        out[table.name] = made
    return out


def payment_sql_rows(report: Mapping[str, Any], deal: str) -> list[tuple]:
    """``payment_rows`` as SQL tuples in ``PAYMENTS`` column order: each payment date's
    columns converted once for all its Holders."""
    out: list[tuple] = []
    in_cents = _cents_memo()
    value = sql_value
    for p in (report.get("additional_interest") or {}).get("payments", []):
        amounts, paid = p.get("amounts", {}), p.get("paid", {})
        statuses = p.get("statuses") or {}
        head = (deal, value(p.get("payment_date")), value(p.get("paid_on")),
                value(p.get("record_date")), value(p.get("period_start")),
                value(p.get("period_end")), value(p.get("accrued_through")))
        status = p.get("status")
        late_holders = set(p["late_holders"]) if "late_holders" in p else None
        late_all = value(p.get("late"))
        for holder in sorted(set(amounts) | set(paid)):
            amount, got = amounts.get(holder, "0.00"), paid.get(holder, "0.00")
            late = int(holder in late_holders) if late_holders is not None else late_all
            out.append((*head, value(holder), value(amount), in_cents(amount), value(got),
                        in_cents(got), value(statuses.get(holder, status)), late))
    return out


# ----------------------------------------------------------- Datasette metadata


#: the agreement of each deal kind, in a word (a deal's ``label``)
KIND_WORDS = {"registration_rights": "RRA", "antidilution_deferral": "Letter"}


def deal_label(deal: str, kind: str | None) -> str:
    """``infocrossing-rra-2004 (RRA)``: short, and unique as the deal's name is."""
    word = KIND_WORDS.get(kind or "")
    return f"{deal} ({word})" if word else deal


def metadata(database: str) -> dict[str, Any]:
    """Datasette's metadata (``datasette views.db -m views.metadata.json``): a
    description of every table and column, units, default sorts, internal tables hidden.
    ``database`` is the file's name without ``.db`` (Datasette's name for it)."""
    tables: dict[str, Any] = {}
    for t in (*TABLES[2:], META, DIRTY):
        entry: dict[str, Any] = {"description": t.description,
                                 "columns": {c.name: c.description for c in t.columns}}
        units = {c.name: c.unit for c in t.columns if c.unit}
        if units:
            entry["units"] = units
        if t.sort:
            entry["sort"] = t.sort
        if t.hidden:
            entry["hidden"] = True
        if t is DEALS:   # what a reference to a deal shows, not its 120-character name
            entry["label_column"] = "label"
        tables[t.name] = entry
    tables[TRACKING] = {"description": "Internal: the last notification of the ledger's log "
                                       "the file holds (eventsourcing tracking).",
                        "hidden": True}
    return {
        "title": "deal-ledger views",
        "description": ("Read models of a deal-ledger log: its events and each deal's "
                        "schedules as of a day. Money is in exact US cents (*_cents) with "
                        "display text beside; dates are ISO; flags are 0/1."),
        "databases": {database: {"tables": tables}},
    }
