""""Did you mean ...?": the known names closest to a mistyped one (a type, a field, a deal)."""

from __future__ import annotations

import difflib
from typing import Iterable


def closest(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known names most like ``name``, ignoring case (``difflib``'s ratio >= 0.6)."""
    folded: dict[str, str] = {}
    for k in known:
        folded.setdefault(k.casefold(), k)
    hits = difflib.get_close_matches(name.casefold(), list(folded), n=n, cutoff=0.6)
    return [folded[h] for h in hits]


def did_you_mean(name: str, known: Iterable[str]) -> str | None:
    """``"did you mean 'X' or 'Y'?"``, or ``None`` when nothing is close."""
    close = closest(name, known)
    if not close:
        return None
    return "did you mean " + " or ".join(repr(c) for c in close) + "?"
