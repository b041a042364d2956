"""The labels that number an agreement's items: ``(a)``, ``(ii)``, ``(B)``, ``(x)``, ``(1)``.

A label may belong to more than one sequence (``(i)`` is the ninth letter or the first
roman numeral, ``(x)`` the tenth numeral or the first of ``(x)``, ``(y)``, ``(z)``): which
one is read from the list it continues (``layout`` keeps the lists open).
"""

from __future__ import annotations

import re


def _roman(n: int) -> str:
    tens, units = divmod(n, 10)
    return "x" * tens + ("", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix")[units]


ROMAN = {_roman(n): n for n in range(1, 40)}
#: a label as the text writes it
LABEL = r"\((?:[ivxlIVXL]{1,5}|[a-zA-Z]|\d{1,2})\)"


def kinds(label: str) -> list[str]:
    """The sequences a label may belong to, the likelier first."""
    inner = label.strip("()")
    if inner.isdigit():
        return ["arabic"]
    out = []
    if inner in ("x", "y", "z"):
        out.append("xyz")
    if inner.islower():
        if inner in ROMAN:
            out.append("roman")
        if len(inner) == 1:
            out.append("lower")
    else:
        if inner.lower() in ROMAN:
            out.append("ROMAN")
        if len(inner) == 1:
            out.append("upper")
    return out


def ordinal(label: str, kind: str) -> int:
    """Its place in a list of ``kind`` (``(iv)`` is 4th as a roman numeral)."""
    inner = label.strip("()")
    if kind == "arabic":
        return int(inner)
    if kind in ("roman", "ROMAN"):
        return ROMAN[inner.lower()]
    if kind == "xyz":
        return "xyz".index(inner) + 1
    return ord(inner.lower()) - ord("a") + 1


def first_kind(label: str) -> str | None:
    """The kind of list ``label`` starts, if it is a first label."""
    for kind in kinds(label):
        if ordinal(label, kind) == 1:
            return kind
    return None


def has_successor(rest: str, label: str, kind: str) -> bool:
    """Whether the label after ``label`` in its list (``(b)`` after ``(a)``, ``(ii)``
    after ``(i)``) comes later in ``rest``."""
    for m in re.finditer(LABEL, rest):
        if continues(m.group(0), kind, label):
            return True
    return False


def continues(label: str, kind: str, previous: str) -> bool:
    """Whether ``label`` comes right after ``previous`` in a list of ``kind``."""
    return kind in kinds(label) and ordinal(label, kind) == ordinal(previous, kind) + 1
