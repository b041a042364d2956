"""Readable views of reports (rich tables). Formatting only: the figures come from
``projections``."""

from __future__ import annotations

from typing import Any


def show_demo(db: str, out: Any) -> None:
    from ledger.chain import verify
    from ledger.store import Ledger

    with Ledger(db, create=False) as ledger:
        verdict = verify(ledger)
    out.print(f"chain: {verdict.line()}")


def show_report(result: dict[str, Any], out: Any) -> None:
    """Every readable view of one report, in the order a reader needs them."""
    import json

    out.print_json(json.dumps(result))
