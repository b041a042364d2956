"""Figure paths: naming one figure of a report (used by explain, history and whatif).

A figure is named by a path into the report JSON::

    registration.in_default
    additional_interest.payments[payment_date=2005-01-15].amounts.Lehman Brothers Inc.
    deadlines[obligation^=notify the Trustee][0].due
    true_up.instruments[instrument=W-1].price
    majority."waive §4(b)(iii) advice".share

* ``.`` steps into an object. Keys are matched against the keys that are there, longest
  first, so a key may itself hold dots and spaces (``Lehman Brothers Inc.``). A key in
  double quotes is taken exactly as a JSON string (for keys holding ``[`` or ``"``).
* ``[N]`` takes entry N of a list (from 0; negative counts from the end).
* ``[field=value]`` takes the entries whose ``field`` is ``value``; ``[field^=value]``
  those whose ``field`` starts with ``value``. Selectors in a row narrow the same list
  (``[kind=(iii)][1]`` is the second default (iii)); at the end exactly one entry must be
  left. A value may be a JSON string in double quotes (for one holding ``]``). Values are
  compared as the report writes them: ``true``, ``false``, ``null``, numbers as digits.

``figure_paths(report)`` lists every figure with the selectors chosen for it (payments
by ``payment_date``, defaults by ``kind``, deadlines by ``obligation``, exercises by
``event``...), and those are the paths the what-if diff prints.
"""

from __future__ import annotations

import json
from collections import Counter
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping


class FigureError(ValueError):
    """A figure path that is malformed, missing from the report or ambiguous."""


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


#: What a path resolves to when the figure is not in the report (history, diffs).
ABSENT: Any = _Absent()


@dataclass(frozen=True)
class _Key:
    text: str
    quoted: bool


@dataclass(frozen=True)
class _Select:
    field: str | None    # None: an index
    op: str              # "=", "^=" or "index"
    value: str
    index: int = 0


def _unquote(text: str) -> tuple[str, bool]:
    text = text.strip()
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        try:
            return json.loads(text), True
        except ValueError:
            raise FigureError(f"bad quoted text {text}") from None
    return text, False


def parse_path(text: str) -> list[_Key | _Select]:
    """The tokens of a figure path (module doc); ``FigureError`` if malformed."""
    if not text or not text.strip():
        raise FigureError("the figure path is empty")
    tokens: list[_Key | _Select] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "[":
            j, quoted = i + 1, False
            while j < n and (text[j] != "]" or quoted):
                if text[j] == '"' and text[j - 1] != "\\":
                    quoted = not quoted
                j += 1
            if j >= n:
                raise FigureError(f"unclosed '[' at character {i + 1} of {text!r}")
            tokens.append(_selector(text[i + 1:j]))
            i = j + 1
            if i < n and text[i] == ".":
                i += 1
            continue
        if ch == '"':
            j = i + 1
            while j < n and (text[j] != '"' or text[j - 1] == "\\"):
                j += 1
            if j >= n:
                raise FigureError(f"unclosed '\"' at character {i + 1} of {text!r}")
            tokens.append(_Key(_unquote(text[i:j + 1])[0], True))
            i = j + 1
            if i < n and text[i] not in ".[":
                raise FigureError(f"expected '.' or '[' after a quoted key in {text!r}")
            if i < n and text[i] == ".":
                i += 1
            continue
        j = i
        while j < n and text[j] not in ".[":
            j += 1
        tokens.append(_Key(text[i:j], False))
        i = j
        if i < n and text[i] == ".":
            i += 1
            if i == n:
                tokens.append(_Key("", False))  # a trailing dot belongs to the last key
    if isinstance(tokens[0], _Select):
        raise FigureError("a figure path starts with a key, e.g. registration.in_default")
    return tokens


def _selector(body: str) -> _Select:
    stripped = body.strip()
    if re.fullmatch(r"-?\d+", stripped):
        return _Select(None, "index", stripped, int(stripped))
    m = re.match(r"\s*([^=^\]]+?)\s*(\^=|=)(.*)$", body, re.S)
    if not m:
        raise FigureError(f"[{body}] is neither [N] nor [field=value]")
    value, _ = _unquote(m.group(3))
    return _Select(m.group(1), m.group(2), value)


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (str, int)):
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class Located:
    """A resolved figure: its canonical path, value and the way down to it."""

    path: str
    value: Any
    trail: tuple[tuple[Any, Any], ...]   # (container, key or index), from the root down
    pattern: tuple[str, ...]             # structural: keys, "[]" for list entries, "*" for map keys

    def at(self, depth: int) -> Any:
        """The node after ``depth`` steps (0: the report itself)."""
        if depth == 0:
            return self.trail[0][0] if self.trail else self.value
        container, key = self.trail[depth - 1]
        return container[key]


#: Objects keyed by data (a holder, a matter, an interpretation), not by field names.
MAP_KEYS = frozenset({"by_holder", "amounts", "paid", "basis", "majority", "holders", "camden",
                      "interpretations", "inputs"})


def dotted_prefixes(siblings: Iterable[str]) -> frozenset[str]:
    """Every ``p`` such that some sibling key starts with ``p + "."``: the keys that must
    be quoted in a path, or ``a.b`` would be read as ``a`` then ``b``."""
    out = set()
    for s in siblings:
        at = s.find(".")
        while at >= 0:
            out.add(s[:at])
            at = s.find(".", at + 1)
    return frozenset(out)


def quote_key(key: str, siblings: Iterable[str], prefixes: frozenset[str] | None = None
              ) -> str:
    """``key`` as a path step: quoted as a JSON string when it could be misread.
    ``prefixes`` (``dotted_prefixes(siblings)``) may be given when quoting many keys of
    one object."""
    if prefixes is None:
        prefixes = dotted_prefixes(siblings)
    if key == "" or any(c in key for c in '[]"') or key.startswith(" ") or key in prefixes:
        return json.dumps(key, ensure_ascii=False)
    return key


def _select_text(sel: _Select) -> str:
    if sel.op == "index":
        return f"[{sel.index}]"
    value = sel.value
    if "]" in value or value.startswith('"') or value != value.strip():
        value = json.dumps(value, ensure_ascii=False)
    return f"[{sel.field}{sel.op}{value}]"


def locate(report: Mapping[str, Any], path: str, *, missing_ok: bool = False) -> Located:
    """Resolve ``path`` in ``report``. A figure not there raises ``FigureError`` naming
    what is there, or with ``missing_ok`` gives a ``Located`` whose value is ``ABSENT``;
    a malformed or ambiguous path always raises."""
    tokens = parse_path(path)
    node: Any = report
    trail: list[tuple[Any, Any]] = []
    pattern: list[str] = []
    shown: list[str] = []
    parent_key: str | None = None
    i = 0

    def missing(msg: str) -> Located:
        if missing_ok:
            return Located(_join(shown), ABSENT, tuple(trail), tuple(pattern))
        raise FigureError(msg)

    while i < len(tokens):
        tok = tokens[i]
        where = _join(shown) or "the report"
        if isinstance(tok, _Key):
            if not isinstance(node, dict):
                raise FigureError(f"{where} is {_kind(node)}, not an object: cannot take "
                                  f"key {tok.text!r}")
            key, used = _match_key(node, tokens, i)
            if key is None:
                keys = ", ".join(list(node)[:12]) or "none"
                return missing(f"no {tok.text!r} in {where}; keys there: {keys}")
            pattern.append("*" if parent_key in MAP_KEYS else key)
            trail.append((node, key))
            shown.append(("." if shown else "") + quote_key(key, node))
            parent_key, node, i = key, node[key], i + used
            continue
        if not isinstance(node, list):
            raise FigureError(f"{where} is {_kind(node)}, not a list: cannot select "
                              f"{_select_text(tok)}")
        picked = list(range(len(node)))
        while i < len(tokens) and isinstance(tokens[i], _Select):
            sel = tokens[i]
            if sel.op == "index":
                if not -len(picked) <= sel.index < len(picked):
                    return missing(f"{where} has {len(picked)} matching entries; "
                                   f"no [{sel.index}]")
                picked = [picked[sel.index]]
            else:
                picked = [k for k in picked if isinstance(node[k], dict) and sel.field in node[k]
                          and _matches(node[k][sel.field], sel)]
            shown.append(_select_text(sel))
            i += 1
        if not picked:
            fields = sorted({f for e in node if isinstance(e, dict) for f in e})[:12]
            return missing(f"no entry of {where} matches {''.join(shown[-1:])}; "
                           f"{len(node)} entries, fields: {', '.join(fields) or 'none'}")
        if len(picked) > 1:
            raise FigureError(f"{len(picked)} entries of {where} match "
                              f"{''.join(s for s in shown if s.startswith('['))}; narrow it "
                              "with another [field=value] or [N]")
        pattern.append("[]")
        trail.append((node, picked[0]))
        parent_key, node = None, node[picked[0]]
    return Located(_join(shown), node, tuple(trail), tuple(pattern))


def _join(shown: list[str]) -> str:
    return "".join(shown)


def _kind(node: Any) -> str:
    if isinstance(node, dict):
        return "an object"
    if isinstance(node, list):
        return "a list"
    return f"the value {_as_text(node)}"


def _matches(value: Any, sel: _Select) -> bool:
    text = _as_text(value)
    return text == sel.value if sel.op == "=" else text.startswith(sel.value)


def _match_key(node: dict, tokens: list, i: int) -> tuple[str | None, int]:
    """The longest key of ``node`` spelled by the key tokens from ``i`` (joined by dots)."""
    tok = tokens[i]
    if tok.quoted:
        return (tok.text, 1) if tok.text in node else (None, 1)
    run = []
    for t in tokens[i:]:
        if not isinstance(t, _Key) or t.quoted:
            break
        run.append(t.text)
    for used in range(len(run), 0, -1):
        key = ".".join(run[:used])
        if key in node:
            return key, used
    return None, 1


# ------------------------------------------------------------- listing every figure

#: Fields that name a list's entries, by the list's key; else the first field in
#: ``_NAMING`` that every entry has, else the index.
LIST_NAMES: dict[str, tuple[str, ...]] = {
    "payments": ("payment_date",), "rate_segments": ("start",), "episodes": ("start",),
    "defaults": ("kind",), "periods": ("start",), "breaches": ("kind",),
    "deadlines": ("obligation",), "notices": ("event",), "exercises": ("event",),
    "instruments": ("instrument",), "adjustments": ("event", "instrument"),
    "vestings": ("event",), "price_history": ("event",), "true_up_shares": ("event",),
    "tranches": ("issuance",), "changes": ("instrument",), "discrepancies": ("kind", "event"),
    "parts": (),
}
_NAMING = ("payment_date", "event", "instrument", "obligation", "start", "kind", "date")

#: Keys that are provenance, not figures: skipped by ``figure_paths(..., figures_only=True)``.
NOISE = frozenset({"basis", "effectiveness_period_basis", "deferred_basis", "events",
                   "paid_events"})


def entry_selectors(key: str | None, entries: list) -> list[str]:
    """A selector text for each entry of a list: by its naming fields, with an ordinal
    where two entries share them."""
    if not entries or not all(isinstance(e, dict) for e in entries):
        return [f"[{k}]" for k in range(len(entries))]
    fields = LIST_NAMES.get(key or "")
    if fields is None:
        fields = next(((f,) for f in _NAMING if all(f in e for e in entries)), ())
    fields = tuple(f for f in fields if all(f in e for e in entries))
    if not fields:
        return [f"[{k}]" for k in range(len(entries))]
    names = ["".join(_select_text(_Select(f, "=", _as_text(e[f]))) for f in fields)
             for e in entries]
    seen: dict[str, int] = {}
    counts = Counter(names)   # one pass: a report lists 40,000 per-Holder obligations
    out = []
    for n in names:
        k = seen.get(n, 0)
        seen[n] = k + 1
        out.append(n + (f"[{k}]" if counts[n] > 1 else ""))
    return out


def figure_paths(report: Mapping[str, Any], *, figures_only: bool = True
                 ) -> dict[str, Any]:
    """Every leaf of ``report`` by its canonical path (lists of plain values are leaves);
    ``figures_only`` leaves out the ``basis`` trees and event-id lists (``NOISE``)."""
    out: dict[str, Any] = {}

    def walk(node: Any, prefix: str, key: str | None) -> None:
        if isinstance(node, dict):
            if not node:
                out[prefix] = {}
            dotted = dotted_prefixes(node)
            for k, v in node.items():
                if figures_only and k in NOISE:
                    continue
                walk(v, (prefix + "." if prefix else "") + quote_key(k, node, dotted), k)
        elif isinstance(node, list) and any(isinstance(e, (dict, list)) for e in node):
            for sel, entry in zip(entry_selectors(key, node), node):
                walk(entry, prefix + sel, None)
        else:
            out[prefix] = node

    walk(report, "", None)
    return out


def strip_basis(value: Any) -> Any:
    """``value`` without its ``basis`` trees and event-id lists: the figures only."""
    if isinstance(value, dict):
        return {k: strip_basis(v) for k, v in value.items() if k not in NOISE}
    if isinstance(value, list):
        return [strip_basis(v) for v in value]
    return value

