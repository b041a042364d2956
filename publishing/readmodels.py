"""Read models for analysts: the log and each deal's schedules as SQLite tables
(``deal-ledger views``), kept up to date incrementally.

Two halves:

* **Rows** (pure): ``schedule_rows(report)`` flattens one SPEC §7 report into the rows of
  the schedule tables (``defaults``, ``suspension_periods``, ``payments`` one row per
  Holder per Interest Payment Date, ``deadlines``, ``true_ups`` one row per exercise);
  ``deal_row`` summarises a deal. The auditor pack (``publishing.pack``) writes the same rows
  as CSV.
* **The view file** (I/O): ``ReadModels`` is an eventsourcing ``SQLiteTrackingRecorder``
  (notes §2, pull catch-up loop). ``views`` pages through the notification log from the
  position tracked in the view file, never holding more than one page of events: each
  page's ``events`` rows, the deals it touched (table ``dirty``) and the tracking position
  are written in ONE transaction. Then each dirty deal's report is computed once, from
  that deal's events only, and its schedule rows are replaced (delete, insert) in the same
  transaction that takes it off ``dirty``. A run killed at any point leaves a consistent
  file, and the next run carries on from where the last commit left it.

The schedules depend on ``as_of``; the view file records the ``as_of`` (and the
interpretations and tool version) its rows were computed with in ``meta``, and a run with
another marks every deal dirty. ``rebuild=True`` empties every table and starts over.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any, Iterator, Mapping, Sequence

from eventsourcing.persistence import Tracking
from eventsourcing.sqlite import SQLiteDatastore, SQLiteTrackingRecorder

from ledger.errors import LedgerError, StoreError, UsageError
from ledger.locks import FileLock

FORMAT = "deal-ledger views 1"
PAGE = 5000                 # notifications per page, and per transaction
DEALS_PER_COMMIT = 20       # recomputed deals written per transaction

# ------------------------------------------------------------------------------ rows

# Each schedule table: its columns (after ``deal`` and ``n``, the row's position in the
# report) and their SQLite types. Lists (event ids) are JSON in SQL, space-separated in CSV.
SCHEDULES: dict[str, tuple[tuple[str, str], ...]] = {
    "defaults": (
        ("clause", "TEXT"), ("kind", "TEXT"), ("default_date", "TEXT"),
        ("accrual_from", "TEXT"), ("cured_on", "TEXT"), ("accrual_until", "TEXT"),
        ("stopped_by", "TEXT"), ("episode", "INTEGER"), ("events", "TEXT")),
    "suspension_periods": (
        ("start", "TEXT"), ("end", "TEXT"), ("days", "INTEGER"),
        ("material_transaction", "INTEGER"), ("extended", "INTEGER"),
        ("last_permitted_day", "TEXT"), ("events", "TEXT")),
    "payments": (
        ("payment_date", "TEXT"), ("paid_on", "TEXT"), ("record_date", "TEXT"),
        ("period_start", "TEXT"), ("period_end", "TEXT"), ("accrued_through", "TEXT"),
        ("holder", "TEXT"), ("amount", "TEXT"), ("amount_cents", "INTEGER"),
        ("paid", "TEXT"), ("paid_cents", "INTEGER"), ("status", "TEXT"),
        ("late", "INTEGER")),
    "deadlines": (
        ("obligation", "TEXT"), ("clause", "TEXT"), ("due", "TEXT"), ("status", "TEXT"),
        ("met_on", "TEXT"), ("late_on", "TEXT"), ("holder", "TEXT"), ("events", "TEXT")),
    "true_ups": (
        ("event", "TEXT"), ("instrument", "TEXT"), ("holder", "TEXT"), ("kind", "TEXT"),
        ("type", "TEXT"), ("date", "TEXT"), ("fraction", "TEXT"), ("eligible", "INTEGER"),
        ("shares_issued", "INTEGER"), ("price_at_exercise", "TEXT"),
        ("entitled", "INTEGER"), ("owed", "INTEGER"), ("issued", "INTEGER"),
        ("outstanding", "INTEGER"), ("over_issued", "INTEGER")),
}

# The schedules that apply to each deal kind (the pack writes only these as CSV).
KIND_SCHEDULES = {
    "registration_rights": ("defaults", "suspension_periods", "payments", "deadlines"),
    "antidilution_deferral": ("true_ups",),
}

DEAL_COLUMNS: tuple[tuple[str, str], ...] = (
    ("deal", "TEXT"), ("kind", "TEXT"), ("name", "TEXT"), ("opened_on", "TEXT"),
    ("events", "INTEGER"), ("retracted", "INTEGER"), ("last_seq", "INTEGER"),
    ("as_of", "TEXT"), ("in_default", "INTEGER"), ("accrued_to_as_of", "TEXT"),
    ("paid_to_as_of", "TEXT"), ("true_up_owed", "INTEGER"), ("true_up_issued", "INTEGER"),
    ("true_up_outstanding", "INTEGER"), ("problems", "INTEGER"), ("error", "TEXT"))

EVENT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("seq", "INTEGER"), ("notification_id", "INTEGER"), ("id", "TEXT"), ("deal", "TEXT"),
    ("type", "TEXT"), ("date", "TEXT"), ("data", "TEXT"), ("source", "TEXT"),
    ("key", "TEXT"), ("v", "INTEGER"), ("recorded_at", "TEXT"), ("recorded_by", "TEXT"),
    ("prev_hash", "TEXT"), ("hash", "TEXT"), ("extra", "TEXT"), ("retracted", "INTEGER"))

_RECORD_FIELDS = frozenset(("seq", "id", "deal", "type", "date", "data", "source", "key",
                            "v", "recorded_at", "recorded_by", "prev_hash", "hash"))


def cents(amount: str | None) -> int | None:
    """``"6666.67"`` -> 666667: exact, for SQL sums (amounts stay exact text beside it)."""
    if amount is None:
        return None
    return int(Decimal(amount).scaleb(2).to_integral_exact())


def _row(columns: Sequence[tuple[str, str]], source: Mapping[str, Any],
         **values: Any) -> dict[str, Any]:
    out = {}
    for name, _type in columns:
        out[name] = values[name] if name in values else source.get(name)
    return out


def schedule_rows(report: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The schedule tables' rows of one report, every table present (empty if it does not
    apply). Values as the report has them: dates ISO, amounts exact strings, lists of
    event ids as lists, flags as bools."""
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in SCHEDULES}
    registration = report.get("registration") or {}
    for d in registration.get("defaults", []):
        out["defaults"].append(_row(SCHEDULES["defaults"], d, events=list(d.get("events", []))))
    for p in (report.get("suspensions") or {}).get("periods", []):
        out["suspension_periods"].append(
            _row(SCHEDULES["suspension_periods"], p, events=list(p.get("events", []))))
    for p in (report.get("additional_interest") or {}).get("payments", []):
        amounts, paid = p.get("amounts", {}), p.get("paid", {})
        for holder in sorted(set(amounts) | set(paid)):
            amount, got = amounts.get(holder, "0.00"), paid.get(holder, "0.00")
            # each Holder's own status (a report before per-Holder statuses: the date's)
            statuses = p.get("statuses") or {}
            own = statuses.get(holder, p.get("status"))
            late = (holder in p["late_holders"] if "late_holders" in p
                    else p.get("late"))
            out["payments"].append(_row(
                SCHEDULES["payments"], p, holder=holder, amount=amount,
                amount_cents=cents(amount), paid=got, paid_cents=cents(got), status=own,
                late=late))
    for d in report.get("deadlines", []):
        out["deadlines"].append(_row(SCHEDULES["deadlines"], d, events=list(d.get("events", []))))
    for e in (report.get("true_up") or {}).get("exercises", []):
        out["true_ups"].append(_row(SCHEDULES["true_ups"], e))
    return out


def deal_row(report: Mapping[str, Any] | None, records: Sequence[Mapping[str, Any]],
             retracted: int, as_of: date, error: str | None = None) -> dict[str, Any]:
    """One ``deals`` row: who the deal is, how many events, and the report's headline."""
    # the latest DealOpened: the one in force if the first was retracted and the deal
    # opened again (a new one is only accepted once the previous one is retracted)
    opened = next((r for r in reversed(records) if r["type"] == "DealOpened"), None)
    row = {name: None for name, _ in DEAL_COLUMNS}
    row.update(deal=records[0]["deal"], events=len(records), retracted=retracted,
               last_seq=records[-1]["seq"], as_of=as_of.isoformat(), error=error)
    if opened is not None:
        row.update(kind=opened["data"].get("kind"), name=opened["data"].get("name"),
                   opened_on=opened["date"])
    if report is None:
        return row
    row["kind"] = report.get("kind", row["kind"])
    ai = report.get("additional_interest") or {}
    if "registration" in report:
        row.update(in_default=report["registration"].get("in_default"),
                   accrued_to_as_of=ai.get("accrued_to_as_of"),
                   paid_to_as_of=ai.get("paid_to_as_of"))
    holders = (report.get("true_up") or {}).get("holders")
    if holders is not None:
        row.update(true_up_owed=sum(h.get("owed", 0) for h in holders.values()),
                   true_up_issued=sum(h.get("issued", 0) for h in holders.values()),
                   true_up_outstanding=sum(h.get("outstanding", 0) for h in holders.values()))
    problems = list(report.get("problems") or []) + list(
        (report.get("true_up") or {}).get("problems") or [])
    row["problems"] = len(problems)
    return row


def _sql_value(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if isinstance(value, bool):
        return int(value)
    return value


# ------------------------------------------------------------------------- the file


@dataclass
class ViewsRun:
    """What one ``views`` run did, for the summary line."""

    out: str
    events: int = 0                       # events read from the log in this run
    deals: int = 0                        # deals whose schedules were recomputed
    position: int = 0                     # notification id the view file is up to
    seq: int = 0                          # the last event seq it holds
    as_of: str = ""
    rebuilt: bool = False
    errors: dict[str, str] = field(default_factory=dict)

    def line(self) -> str:
        text = (f"{self.out}: {self.events} event(s) processed, {self.deals} deal(s) "
                f"recomputed, position {self.position} (seq {self.seq}), as of {self.as_of}")
        if self.rebuilt:
            text += ", rebuilt"
        if self.errors:
            text += (f"; {len(self.errors)} deal(s) could not be computed "
                     f"(see deals.error): {', '.join(sorted(self.errors))}")
        return text


_PY_TYPES = {"TEXT": str, "INTEGER": int}
_TABLES = ("meta", "dirty", "events", "deals", *SCHEDULES)
# indexes built after the bulk of a (re)build rather than row by row during it
_LATE_INDEXES = (("events_by_deal", ("deal", "seq")), ("events_by_id", ("id",)),
                 ("events_by_type", ("type",)))


def database(conn: Any) -> Any:
    """sqlite-utils over a raw connection; inside an open transaction its writes are
    savepoints of that transaction."""
    import sqlite_utils

    return sqlite_utils.Database(conn, recursive_triggers=False, execute_plugins=False)


def create_tables(db: Any) -> None:
    """The read-model tables (sqlite-utils), if they are not there yet."""
    def spec(columns: Sequence[tuple[str, str]]) -> dict[str, type]:
        return {name: _PY_TYPES[sql_type] for name, sql_type in columns}

    db["meta"].create({"key": str, "value": str}, pk="key", if_not_exists=True)
    db["dirty"].create({"deal": str}, pk="deal", if_not_exists=True)
    db["events"].create(spec(EVENT_COLUMNS), pk="seq", if_not_exists=True)
    db["deals"].create(spec(DEAL_COLUMNS), pk="deal", if_not_exists=True)
    for name, columns in SCHEDULES.items():
        db[name].create({"deal": str, "n": int, **spec(columns)}, pk=("deal", "n"),
                        if_not_exists=True)


class ReadModels(SQLiteTrackingRecorder):
    """The view file: an eventsourcing ``SQLiteTrackingRecorder`` whose tracking row
    shares each transaction with the read-model rows it accounts for."""

    def __init__(self, path: str):
        self.path = path
        self._tuned: set[int] = set()
        super().__init__(SQLiteDatastore(path, lock_timeout=30))
        self.create_table()

    def _create_table(self, c: Any) -> None:
        super()._create_table(c)  # the library's tracking table
        create_tables(database(c.sqlite_cursor.connection))
        c.execute("INSERT OR IGNORE INTO meta VALUES ('format', ?)", (FORMAT,))

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """A write transaction on a pooled connection, ``synchronous=NORMAL``: in WAL
        mode a commit survives the process being killed, and the file is a cache of the
        log that ``--rebuild`` remakes anyway."""
        with self.datastore.get_connection(commit=True) as conn:
            raw = conn._sqlite_conn
            if id(raw) not in self._tuned:
                raw.execute("PRAGMA synchronous=NORMAL")
                self._tuned.add(id(raw))
            with conn.transaction(commit=True) as cursor:
                yield cursor

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(sql, params)
            return [tuple(r) for r in c.fetchall()]

    def meta(self) -> dict[str, str]:
        return dict(self.query("SELECT key, value FROM meta"))

    def close(self) -> None:
        self.datastore.close()


def _check_out_file(out: str, ledger_url: str) -> None:
    """Refuse to write views into the ledger itself or into an unrelated SQLite file."""
    import sqlite3

    directory = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(directory):
        raise UsageError(f"no such directory: {directory}", field="--out")
    if not os.path.exists(out):
        return
    if os.path.exists(ledger_url) and os.path.samefile(out, ledger_url):
        raise UsageError("the views file cannot be the ledger itself", field="--out")
    if os.path.getsize(out) == 0:
        return
    try:
        conn = sqlite3.connect(f"file:{out}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table'")}
            fmt = (conn.execute("SELECT value FROM meta WHERE key='format'").fetchone()
                   if "meta" in tables else None)
        finally:
            conn.close()
    except sqlite3.Error as err:
        raise UsageError(f"{out} is not a SQLite file this command wrote ({err})",
                         field="--out") from None
    if tables and (fmt is None or fmt[0] != FORMAT):
        raise UsageError(f"{out} is a SQLite file this command did not write; "
                         "choose another path", field="--out")


def views(ledger: Any, out: str, *, as_of: date, rebuild: bool = False,
          page: int = PAGE, deals_per_commit: int = DEALS_PER_COMMIT) -> ViewsRun:
    """Bring the view file ``out`` up to date with ``ledger`` (a ``ledger.store.Ledger``)
    as of ``as_of``: stream the notifications after the tracked position, then recompute
    the schedules of every deal they touched. One run at a time per file."""
    _check_out_file(out, ledger.url)
    with FileLock(out + ".lock"):
        try:
            models = ReadModels(out)
        except Exception as err:  # an unreadable, locked or corrupt file
            raise StoreError(f"cannot open the views file {out}: {err}",
                             field="--out") from None
        try:
            return _views(ledger, models, as_of=as_of, rebuild=rebuild, page=page,
                          deals_per_commit=deals_per_commit)
        finally:
            models.close()


def _tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("deal-ledger")
    except PackageNotFoundError:
        return "unknown"


def _settings(as_of: date) -> dict[str, str]:
    """What the schedule rows depend on besides the events: recompute all if it changes."""
    from projections.interpretations import resolve

    return {"as_of": as_of.isoformat(),
            "interpretations": json.dumps(resolve(), sort_keys=True),
            "tool_version": _tool_version()}


def _first_record(ledger: Any) -> dict[str, Any] | None:
    page = ledger.app.recorder.select_notifications(
        start=0, limit=1, topics=ledger._topics, inclusive_of_start=False)
    return ledger.app.mapper.to_domain_event(page[0]).record if page else None


def _record_at(ledger: Any, position: int) -> dict[str, Any] | None:
    page = ledger.app.recorder.select_notifications(
        start=position, limit=1, stop=position, topics=ledger._topics)
    return ledger.app.mapper.to_domain_event(page[0]).record if page else None


def _views(ledger: Any, models: ReadModels, *, as_of: date, rebuild: bool, page: int,
           deals_per_commit: int) -> ViewsRun:
    app_name = ledger.app.name
    result = ViewsRun(out=models.path, as_of=as_of.isoformat(), rebuilt=rebuild)
    first = _first_record(ledger)
    identity = first["hash"] if first else ""
    meta = models.meta()
    if rebuild:
        _reset(models, app_name)
        meta = {}
    position = models.max_tracking_id(app_name) or 0
    if meta.get("ledger") and identity and meta["ledger"] != identity:
        raise UsageError(f"{models.path} holds the views of another ledger (its first event "
                         "differs); run with --rebuild to start over", field="--out")
    if position:
        at = _record_at(ledger, position)
        if at is None or at["hash"] != meta.get("last_hash"):
            raise UsageError(f"the ledger no longer has the event {models.path} stopped at "
                             f"(position {position}, seq {meta.get('last_seq')}): it was "
                             "rewritten or is another ledger; run with --rebuild",
                             field="--out")
    settings = _settings(as_of)
    with models.transaction() as c:
        c.execute("INSERT OR REPLACE INTO meta VALUES ('ledger', ?)", (identity,))
        if any(meta.get(k) != v for k, v in settings.items()):
            # the schedules were computed for another as_of (or reading): all of them again
            c.execute("INSERT OR IGNORE INTO dirty SELECT deal FROM deals")
            c.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", list(settings.items()))
    result.seq = int(meta.get("last_seq") or 0)
    result.position, result.events, result.seq = _stream(ledger, models, app_name,
                                                          position, result.seq, page,
                                                          as_of.isoformat())
    with models.transaction() as c:
        db = database(c.sqlite_cursor.connection)
        for name, columns in _LATE_INDEXES:
            db["events"].create_index(columns, index_name=name, if_not_exists=True)
    result.deals, result.errors = _recompute(models, as_of, result.seq, deals_per_commit)
    return result


def _reset(models: ReadModels, app_name: str) -> None:
    """``--rebuild``: empty every table and forget the position, in one transaction."""
    with models.transaction() as c:
        for name, _columns in _LATE_INDEXES:
            c.execute(f"DROP INDEX IF EXISTS {name}")
        for table in _TABLES:
            c.execute(f"DELETE FROM {table}" + (" WHERE key != 'format'"
                                                 if table == "meta" else ""))
        c.execute("DELETE FROM tracking WHERE application_name = ?", (app_name,))


def counts_as_of(record: Mapping[str, Any], as_of: str) -> bool:
    """Whether a new event can change its deal's report as of ``as_of`` (everything
    known): the timeline (``projections.timeline.build_timeline``) keeps only the events
    dated on or before ``as_of``, and retractions of any date. A deal touched only by
    later-dated events keeps its schedules; only its counts in ``deals`` move."""
    return record["date"] <= as_of or record["type"] == "EventRetracted"


def _stream(ledger: Any, models: ReadModels, app_name: str, position: int, seq: int,
            page: int, as_of: str) -> tuple[int, int, int]:
    """Events after ``position`` into ``events``, one transaction per page with the
    deals whose schedules they change (``dirty``) and the new tracking position.
    Returns (position, count, last seq)."""
    recorder, mapper = ledger.app.recorder, ledger.app.mapper
    stop = recorder.max_notification_id() or 0
    insert = (f"INSERT OR REPLACE INTO events VALUES "
              f"({', '.join('?' for _ in EVENT_COLUMNS)})")
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    count = 0
    while position < stop:
        notifications = recorder.select_notifications(
            start=position, limit=page, stop=stop, topics=ledger._topics,
            inclusive_of_start=False)
        if not notifications:
            break
        rows = []
        dirty: set[str] = set()
        later: dict[str, list[int]] = {}  # deal -> [events dated after as_of, last seq]
        for n in notifications:
            r = mapper.to_domain_event(n).record
            extra = r.keys() - _RECORD_FIELDS
            rows.append((r["seq"], n.id, r["id"], r["deal"], r["type"], r["date"],
                         dumps(r["data"]), r.get("source"), r.get("key"), r.get("v"),
                         r["recorded_at"], r["recorded_by"], r["prev_hash"], r["hash"],
                         dumps({k: r[k] for k in sorted(extra)}) if extra else None, 0))
            if counts_as_of(r, as_of):
                dirty.add(r["deal"])
            else:
                tally = later.setdefault(r["deal"], [0, 0])
                tally[0] += 1
                tally[1] = r["seq"]
        last = notifications[-1]
        seq, last_hash = rows[-1][0], rows[-1][13]
        with models.transaction() as c:
            c.executemany(insert, rows)
            c.executemany("INSERT OR IGNORE INTO dirty VALUES (?)", [(d,) for d in dirty])
            for deal, (n_later, last_seq) in later.items():
                c.execute("UPDATE deals SET events = events + ?, last_seq = ? WHERE deal = ?",
                          (n_later, last_seq, deal))
                # a deal with no row yet (new, or never computed) is computed whole
                c.execute("INSERT OR IGNORE INTO dirty SELECT ? WHERE NOT EXISTS "
                          "(SELECT 1 FROM deals WHERE deal = ?)", (deal, deal))
            c.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                          [("last_seq", str(seq)), ("last_hash", last_hash)])
            models._insert_tracking(c, Tracking(app_name, last.id))
        position = last.id
        count += len(rows)
    return position, count, seq


def _recompute(models: ReadModels, as_of: date, last_seq: int,
               per_commit: int) -> tuple[int, dict[str, str]]:
    """Each dirty deal's report, once, from its events up to ``last_seq``; its rows
    replaced in the transaction that takes it off ``dirty``."""
    dirty = [d for (d,) in models.query("SELECT deal FROM dirty ORDER BY deal")]
    errors: dict[str, str] = {}
    done = 0
    for start in range(0, len(dirty), per_commit):
        batch = [_deal_rows(models, deal, as_of, last_seq)
                 for deal in dirty[start:start + per_commit]]
        with models.transaction() as c:
            for deal, rows, deal_summary, retracted_seqs in batch:
                for table in (*SCHEDULES, "deals", "dirty"):
                    c.execute(f"DELETE FROM {table} WHERE deal = ?", (deal,))
                if deal_summary is None:  # no events of the deal up to last_seq
                    continue
                for table, table_rows in rows.items():
                    if table_rows:  # plain executemany: sqlite-utils made the tables
                        columns = [name for name, _ in SCHEDULES[table]]
                        c.executemany(_INSERT[table], [
                            (deal, n, *(_sql_value(row[k]) for k in columns))
                            for n, row in enumerate(table_rows, start=1)])
                c.execute(_INSERT["deals"], [_sql_value(deal_summary[name])
                                             for name, _ in DEAL_COLUMNS])
                c.execute("UPDATE events SET retracted = 0 WHERE deal = ? AND retracted = 1",
                          (deal,))
                c.executemany("UPDATE events SET retracted = 1 WHERE seq = ?",
                              [(s,) for s in retracted_seqs])
                if deal_summary["error"]:
                    errors[deal] = deal_summary["error"]
                done += 1
    return done, errors


_INSERT = {**{table: f"INSERT INTO {table} VALUES ({', '.join('?' * (len(columns) + 2))})"
              for table, columns in SCHEDULES.items()},
           "deals": f"INSERT INTO deals VALUES ({', '.join('?' * len(DEAL_COLUMNS))})"}

_SELECT_DEAL = ("SELECT seq, id, deal, type, date, data, source, key, v, recorded_at, "
                "recorded_by, prev_hash, hash, extra FROM events "
                "WHERE deal = ? AND seq <= ? ORDER BY seq")


def deal_records(models: ReadModels, deal: str, last_seq: int) -> list[dict[str, Any]]:
    """One deal's stored records, rebuilt from the ``events`` rows streamed from the log
    (every field kept, ``data`` exact JSON), without reading the log a second time."""
    loads = json.loads
    out = []
    for (seq, id_, deal_, type_, day, data, source, key, v, recorded_at, recorded_by,
         prev_hash, hash_, extra) in models.query(_SELECT_DEAL, (deal, last_seq)):
        record: dict[str, Any] = {"type": type_, "deal": deal_, "date": day,
                                  "data": loads(data)}
        if source is not None:
            record["source"] = source
        if key is not None:
            record["key"] = key
        if v is not None:
            record["v"] = v
        record.update(id=id_, seq=seq, recorded_at=recorded_at, recorded_by=recorded_by,
                      prev_hash=prev_hash, hash=hash_)
        if extra:
            record.update(loads(extra))
        out.append(record)
    return out


def _deal_rows(models: ReadModels, deal: str, as_of: date, last_seq: int):
    """(deal, schedule rows, deals row, retracted seqs) of one deal as of ``as_of``."""
    from projections.report import report
    from projections.timeline import retracted_ids

    from ledger.events import Event

    records = deal_records(models, deal, last_seq)
    if not records:
        return deal, {}, None, []
    events = [Event.from_record(r) for r in records]
    retracted = retracted_ids(events)
    seqs = [e.seq for e in events if e.id in retracted]
    try:
        rep = report(events, as_of=as_of, bases=False)  # tables hold figures, not bases
    except (LedgerError, ValueError, ArithmeticError, KeyError, TypeError) as err:
        text = " ".join(f"{type(err).__name__}: {err}".split())[:300]
        return deal, {}, deal_row(None, records, len(seqs), as_of, error=text), seqs
    return deal, schedule_rows(rep), deal_row(rep, records, len(seqs), as_of), seqs
