"""A cache of each deal's agenda lines, for portfolios (issue 16/17: 1,000 deals).

The file (JSON, written whole: a temporary file renamed over it) holds the options the
lines were computed with, the log position they reflect (the last notification id read
and that record's ``seq`` and ``hash``) and each deal's lines and window end.

Freshness: the cache is used only when its options are the same (as-of day, window,
``known_at``, interpretations) and the record at its position is still the one it saw
(same id, ``seq`` and ``hash``: the same log, not another file or a rewritten one). The
records after its position name the deals they touch; those deals are computed again
from the store, every other deal's lines are reused. Otherwise everything is computed
and the file written afresh. It is derived data only: deleting it loses nothing.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import date
from typing import Any, Mapping

VERSION = 2  # 2: lines carry their due day


def _key(options: Mapping[str, Any]) -> dict[str, Any]:
    def text(v):
        return v.isoformat() if hasattr(v, "isoformat") else v
    return {"as_of": text(options["as_of"]), "start": text(options.get("start")),
            "days": options.get("days"), "business_days": options.get("business_days"),
            "known_at": text(options.get("known_at")),
            "interpretations": dict(sorted((options.get("interpretations") or {}).items()))}


def _load(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        return doc if isinstance(doc, dict) and doc.get("version") == VERSION else None
    except (OSError, ValueError):
        return None


def _save(path: str, doc: dict[str, Any]) -> None:
    from ledger.errors import UsageError

    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".agenda-cache-", suffix=".json")
    except OSError as err:
        raise UsageError(f"cannot write the cache in {folder}: {err.strerror}",
                         field="--cache") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, separators=(",", ":"))
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


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


def cached_lines(ledger: Any, path: str, options: Mapping[str, Any]
                 ) -> dict[str, tuple[list[dict[str, Any]], date]]:
    """Each deal's agenda lines (``publishing.agenda.deal_agenda``), from the cache where
    fresh (module doc), computed where not; the cache file is brought up to date."""
    from ledger.events import Event

    from .agenda import deal_agenda

    key = _key(options)
    doc = _load(path)
    per_deal: dict[str, tuple[list[dict[str, Any]], date]] = {}
    if doc is not None and doc.get("options") == key and doc.get("at"):
        ok, touched, last = _still_there(ledger, doc["at"])
        if ok:
            for deal, (lines, end) in doc["deals"].items():
                if deal not in touched:
                    per_deal[deal] = (lines, date.fromisoformat(end))
            for deal in sorted(d for d in touched if d is not None):
                found = deal_agenda(ledger.deal_events(deal), **options)
                if found is not None:
                    per_deal[deal] = found
                else:
                    per_deal.pop(deal, None)
            if touched:
                _save(path, {"version": VERSION, "options": key, "at": last,
                             "deals": {k: [v[0], v[1].isoformat()] for k, v in per_deal.items()}})
            return per_deal
    histories: dict[str, list[Event]] = {}
    last = None
    for nid, record in ledger.notifications():
        histories.setdefault(record.get("deal"), []).append(Event.from_record(record))
        last = {"id": nid, "seq": record.get("seq"), "hash": record.get("hash")}
    for deal in sorted(histories):
        found = deal_agenda(histories[deal], **options)
        if found is not None:
            per_deal[deal] = found
    _save(path, {"version": VERSION, "options": key, "at": last,
                 "deals": {k: [v[0], v[1].isoformat()] for k, v in per_deal.items()}})
    return per_deal
