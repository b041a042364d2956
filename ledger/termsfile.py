"""A terms file: ``{kind, name, date, terms}`` of a deal to open (``init --terms FILE``,
``terms check FILE``), written by hand or started by ``terms new --from TEMPLATE``.

JSON, with ``//`` comments allowed on their own lines or after a value (``terms new``
writes each rule's clause and words beside it): they are dropped before the JSON is read,
never inside a string. Numbers are read exactly (``Decimal``), as an event line's are.
The file holds the four keys and nothing else: a key the ledger does not read (a
``clauses`` list, say) is refused by name rather than silently dropped (issue 33). A file
drafted from an agreement's text (``terms draft``, issue 35) may also hold ``missing``: the
terms the text did not give, each to be filled in and taken off the list; a file whose
``missing`` is not empty opens no deal (``terms check`` names each).
"""

from __future__ import annotations

from typing import Any

from .errors import InvalidEvent
from .jsonl import MAX_LINE, loads, read_bounded

KEYS = ("kind", "name", "date", "terms")
#: what a drafted file may hold besides: the terms still to fill in
DRAFT_KEYS = ("missing",)


def without_comments(text: str) -> str:
    """``text`` with every ``//`` comment (to the end of its line) outside a JSON string
    removed; the lines stay where they were, so an error names the file's own line."""
    out: list[str] = []
    for line in text.split("\n"):
        in_string = escaped = False
        cut = len(line)
        for i, ch in enumerate(line):
            if in_string:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
            elif ch == "/" and line[i + 1:i + 2] == "/":
                cut = i
                break
        out.append(line[:cut])
    return "\n".join(out)


def read_terms_file(path: str, field: str = "--terms", *,
                    unfilled: bool = False) -> dict[str, Any]:
    """The file's ``{kind, name, date, terms}``; ``UsageError`` if it cannot be read,
    ``InvalidEvent`` naming the line if it is not JSON, or a key missing or unknown, or
    (unless ``unfilled``) terms a draft left to fill in (``missing``)."""
    try:   # a terms file is one object, within the line limit (issue 29)
        raw = read_bounded(path, MAX_LINE, field).decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InvalidEvent(f"not UTF-8 text: {err}", field=field) from None
    try:
        spec = loads(without_comments(raw))
    except ValueError as err:
        raise InvalidEvent(f"not valid JSON: {err}", field=field) from None
    spec = check_spec(spec, field)
    if spec.get("missing") and not unfilled:
        raise InvalidEvent(f"has terms not filled in yet: {', '.join(spec['missing'])} (fill "
                           f"each in and take it off \"missing\"; `deal-ledger terms check "
                           f"{path}` lists them)", field=field, rule="terms draft")
    return spec


def check_spec(spec: Any, field: str = "--terms") -> dict[str, Any]:
    """``spec`` is ``{kind, name, date, terms}``, no key missing and none other."""
    if not isinstance(spec, dict):
        raise InvalidEvent("must be a JSON object {kind, name, date, terms}", field=field)
    missing = [k for k in KEYS if k not in spec]
    if missing:
        raise InvalidEvent(f"is missing {', '.join(missing)}", field=field)
    unknown = [k for k in spec if k not in KEYS + DRAFT_KEYS]
    if unknown:
        raise InvalidEvent(f"has a key the ledger does not read: {', '.join(unknown)} (a "
                           f"terms file holds kind, name, date and terms only; a rule's "
                           f"clause goes in its section)", field=field,
                           rule="terms file")
    missing = spec.get("missing", [])
    if not isinstance(missing, list) or not all(isinstance(m, str) for m in missing):
        raise InvalidEvent("missing: must be a list of the terms still to fill in (paths "
                           "such as \"terms.maturity\")", field=field, rule="terms file")
    return spec
