"""A cache of each deal's agenda lines, for portfolios (issue 16/17: 1,000 deals).

The file (JSON, written whole: a temporary file renamed over it) holds the options the
lines were computed with, the as-of day, the log position they reflect (the last
notification id read and that record's ``seq`` and ``hash``), each deal's lines, window
end and, for a Letter deal, the as-of days its lines hold for
(``publishing.agenda.letter_lines_hold``). Beside it, ``FILE.records`` keeps the stored
records of the deals whose lines move with the day (Registration Rights), each deal's as
one JSON text, and the log position they reflect, so that a daily run computes those
deals again without reading them back from the store (only a run on another day reads
that file; the deals touched since its position are read from the store). A deal's text
is decoded where the deal is computed (``publishing.agenda._entries``, in the forked
workers when there are many): decoding every record in this process, before the work
is shared out, was a sixth of a daily run.

Freshness: the cache is used only when its options other than the as-of day are the
same (window, ``known_at``, interpretations) and the record at its position is still the
one it saw (same id, ``seq`` and ``hash``: the same log, not another file or a rewritten
one). The records after its position name the deals they touch; those deals are
computed again from the store. An untouched deal's lines are reused on the same as-of
day; on another day (a daily run) a Letter deal's lines are reused while the day is in
the range they hold for and the window runs ``--days`` from the as-of day, and every
Registration Rights deal is computed again (its accruals, deadlines and suspension room
move with the day). Otherwise everything is computed and the file written afresh. It is
derived data only: deleting it loses nothing.
"""

from __future__ import annotations

import json
import os
from datetime import date
from typing import Any, Callable, Mapping

VERSION = 3  # 2: lines carry their due day; 3: keyed without the as-of day, records kept
RECORDS_VERSION = 4  # of FILE.records; 4: each deal's records as one JSON text

#: ``publishing.agenda.compute_entries``: each deal's lines from its records.
Compute = Callable[..., dict[str, tuple[list[dict[str, Any]], date, Any]]]


def _key(options: Mapping[str, Any]) -> dict[str, Any]:
    def text(v):
        return v.isoformat() if hasattr(v, "isoformat") else v
    return {"start": text(options.get("start")),
            "days": options.get("days"), "business_days": options.get("business_days"),
            "known_at": text(options.get("known_at")),
            "interpretations": dict(sorted((options.get("interpretations") or {}).items()))}


def _load(path: str, version: int = VERSION) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        return doc if isinstance(doc, dict) and doc.get("version") == version else None
    except (OSError, ValueError):
        return None


def _save(path: str, doc: dict[str, Any], ledger_url: str) -> None:
    from .outputs import replace_whole

    replace_whole(path, json.dumps(doc, separators=(",", ":")).encode("utf-8"),  # C encoder
                  ledger_url=ledger_url, field="--cache", prefix=".agenda-cache-")


def _still_there(ledger: Any, at: Mapping[str, Any]) -> tuple[bool, set[str], dict | None]:
    """(is the cached position's record unchanged, deals touched after it, the last
    position now)."""
    position = at["id"]
    touched: set[str] = set()
    last = None
    first = True
    for nid, record in ledger.notifications(start=max(0, position - 1)):
        if first:
            first = False
            if nid != position or record.get("seq") != at["seq"] or record.get("hash") != at["hash"]:
                return False, set(), None
            last = {"id": nid, "seq": record.get("seq"), "hash": record.get("hash")}
            continue
        touched.add(record.get("deal"))
        last = {"id": nid, "seq": record.get("seq"), "hash": record.get("hash")}
    return (not first), touched, last


def _doc(key: Mapping[str, Any], as_of: date, last: Any, per_deal: Mapping[str, tuple]
         ) -> dict[str, Any]:
    return {"version": VERSION, "options": key, "as_of": as_of.isoformat(), "at": last,
            "deals": {k: [v[0], v[1].isoformat(), None if v[2] is None else list(v[2])]
                      for k, v in per_deal.items()}}


def _save_records(path: str, last: Any, per_deal: Mapping[str, tuple],
                  records: Mapping[str, list | str], ledger_url: str) -> None:
    """The records of the deals whose lines move with the day, beside the cache: each
    deal's as one JSON text (``records``: the records, or their text as kept)."""
    def text(found: list | str) -> str:
        return found if isinstance(found, str) else json.dumps(found, separators=(",", ":"))
    _save(path + ".records", {"version": RECORDS_VERSION, "at": last, "texts": {
        k: text(records[k]) for k, v in per_deal.items() if v[2] is None and k in records}},
        ledger_url)


def _kept_records(ledger: Any, path: str) -> dict[str, str]:
    """The records kept beside the cache of the deals not touched since the position
    they reflect, each deal's as its JSON text (none if that position's record is not
    the one they saw)."""
    doc = _load(path + ".records", RECORDS_VERSION)
    if doc is None or not doc.get("at") or not isinstance(doc.get("texts"), dict):
        return {}
    ok, touched, _ = _still_there(ledger, doc["at"])
    return {k: v for k, v in doc["texts"].items()
            if k not in touched and isinstance(v, str)} if ok else {}


def _holds(entry: list, as_of: date) -> bool:
    """A Letter deal's lines hold on ``as_of`` (``publishing.agenda.letter_lines_hold``)."""
    holds = entry[2]
    if holds is None:
        return False
    lo, hi = holds
    day = as_of.isoformat()
    return (lo is None or lo <= day) and (hi is None or day < hi)


def cached_lines(ledger: Any, path: str, options: Mapping[str, Any], compute_entries: Compute,
                 window_end: Callable[..., date]
                 ) -> dict[str, tuple[list[dict[str, Any]], date, Any]]:
    """Each deal's agenda lines, from the cache where fresh (module doc), computed where
    not; the cache file is brought up to date. The agenda hands in how it computes them
    (``publishing.agenda.compute_entries``, ``window_end``): the cache keeps what the
    agenda computes and imports none of it."""
    from ledger.errors import UsageError

    if not path.strip() or os.path.isdir(path):
        raise UsageError(f"give the cache file's path, not {path!r}", field="--cache")
    from .outputs import refuse_ledger

    for written in (path, path + ".records"):   # before anything is read or computed
        refuse_ledger(written, ledger.url, "--cache")
    as_of = options["as_of"]
    key = _key(options)
    doc = _load(path)
    per_deal: dict[str, tuple[list[dict[str, Any]], date, Any]] = {}
    if doc is not None and doc.get("options") == key and doc.get("at"):
        ok, touched, last = _still_there(ledger, doc["at"])
        if ok:
            same_day = doc.get("as_of") == as_of.isoformat()
            # the window's end, when it is the same for every deal (--days from as_of)
            moved = (None if options.get("start") is not None
                     or options.get("business_days") is not None
                     else window_end(as_of, options.get("days"), None, None))
            stale: set[str] = {d for d in touched if d is not None}
            for deal, entry in doc["deals"].items():
                if deal in stale:
                    continue
                holds = None if entry[2] is None else tuple(entry[2])
                if same_day:
                    per_deal[deal] = (entry[0], date.fromisoformat(entry[1]), holds)
                elif moved is not None and _holds(entry, as_of):
                    per_deal[deal] = (entry[0], moved, holds)
                else:
                    stale.add(deal)
            # another day: the deals whose lines move with it, from their kept records
            # (texts, decoded where each deal is computed)
            daily = bool(stale - touched)
            records: dict[str, Any] = _kept_records(ledger, path) if daily else {}
            read = False
            if stale:
                for deal in stale:   # a touched deal's, or one not kept: from the store
                    if deal in touched or deal not in records:
                        records[deal] = ledger.deal_records(deal)
                        read = True
                per_deal.update(compute_entries({deal: records[deal] for deal in stale},
                                                options, given="texts"))
            if stale or not same_day:
                _save(path, _doc(key, as_of, last, per_deal), ledger.url)
            if daily and read:   # else the kept records and their position still hold
                _save_records(path, last, per_deal, records, ledger.url)
            return per_deal
    records = {}
    last = None
    for nid, record in ledger.notifications():
        records.setdefault(record.get("deal"), []).append(record)
        last = {"id": nid, "seq": record.get("seq"), "hash": record.get("hash")}
    per_deal = compute_entries(records, options, records=True)
    _save(path, _doc(key, as_of, last, per_deal), ledger.url)
    _save_records(path, last, per_deal, records, ledger.url)
    return per_deal
