"""The upcasters of the stored records (``ledger.upcasting``), one per schema step,
registered when the record's language is loaded.

* ``DealOpened`` 1 -> 2 (issue 33): a registration rights deal's terms of version 1
  (Infocrossing's shape with its numbers as parameters) restated in the terms schema of
  version 2 (``ledger.terms_v1``).
* ``NotesTransferred`` 1 -> 2 (issue 33): ``under_shelf`` (true / false) becomes
  ``under`` (``shelf`` / ``private``); a sale may now also be ``rule_144``.
"""

from __future__ import annotations

from typing import Any

from . import terms_v1
from .upcasting import register


def deal_opened_v1_to_v2(record: dict[str, Any]) -> dict[str, Any]:
    data = record["data"]
    if data.get("kind") == "registration_rights" and terms_v1.is_v1(data.get("terms")):
        record["data"] = {**data, "terms": terms_v1.upcast(data["terms"])}
    return record


def notes_transferred_v1_to_v2(record: dict[str, Any]) -> dict[str, Any]:
    data = dict(record["data"])
    shelf = data.pop("under_shelf", False)
    data.setdefault("under", "shelf" if shelf else "private")
    record["data"] = data
    return record


def under_shelf_input(data: dict[str, Any], line: int | None) -> dict[str, Any]:
    """A ``NotesTransferred`` written with ``under_shelf`` (its field before issue 33) in
    the current shape, ``under``, as ``notes_transferred_v1_to_v2`` reads a stored one:
    a batch or a what-if file written before still appends."""
    from .errors import InvalidEvent
    from .values import _flag   # (the input side: pydantic is loaded there anyway)

    if "under" in data:
        raise InvalidEvent("give under (shelf, rule_144 or private), not also under_shelf "
                           "(its old name)", line=line, field="data.under_shelf",
                           rule="NotesTransferred schema")
    try:
        flag = _flag(data["under_shelf"])
    except ValueError as err:
        raise InvalidEvent(str(err), line=line, field="data.under_shelf",
                           rule="NotesTransferred schema") from None
    out = {k: v for k, v in data.items() if k != "under_shelf"}
    out["under"] = "shelf" if flag else "private"
    return out


register("DealOpened", 1, deal_opened_v1_to_v2)
register("NotesTransferred", 1, notes_transferred_v1_to_v2)
