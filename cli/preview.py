"""How a change is shown, money first (issue 31): ``append --dry-run`` and ``whatif``
print ``projections.impact`` the same way: the money per Holder and date (before ->
after), the Registration Defaults that moved, the obligations whose state or day moved,
then how many other figures differ (by path with ``--verbose``). Plain lines, wrapped at
the console's width, never a table that folds a figure."""

from __future__ import annotations

import textwrap
from typing import Any, Mapping

import click

from .formats import plain_text

NONE = "(none)"
ARROW = "->\u00a0"   # "-> 6,666.67" stays on one line when wrapped (a no-break space)


def _value(v: Any) -> str:
    from .views import money

    if v is None:
        return NONE
    if isinstance(v, str) and v.replace(".", "", 1).lstrip("-").isdigit() and "." in v:
        return money(v)
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return str(v)


def _obligation(o: Mapping[str, Any] | None) -> str:
    if o is None:
        return NONE
    text = f"{o['state']}, due\u00a0{o['due'] or 'no day'}"   # the day and amount unbroken
    return text + (f",\u00a0{_value(o['amount'])}" if o.get("amount") else "")


def impact_lines(impact: Mapping[str, Any], *, verbose: bool = False) -> list[str]:
    """The lines of one deal's ``projections.impact``, money first."""
    out: list[str] = []
    money = impact["money"]
    if money:
        out.append("money:")
        for r in money:
            who = " ".join(p for p in (r["holder"], r["payment_date"] and
                                       f"for {r['payment_date']}") if p)
            out.append(f"  {who + ': ' if who else ''}{r['figure']} {_value(r['before'])} "
                       f"{ARROW}{_value(r['after'])} ({r['clause']})")
    if impact["defaults"]:
        out.append("Registration Defaults:")
        for r in impact["defaults"]:
            out.append(f"  {r['default']} ({r['clause']}): {r['before'] or NONE} "
                       f"{ARROW}{r['after'] or NONE}")
    if impact["obligations"]:
        out.append("obligations:")
        for r in impact["obligations"]:
            out.append(f"  {r['obligation']} ({r['clause']}): {_obligation(r['baseline'])} "
                       f"{ARROW}{_obligation(r['scenario'])}")
    other = impact["other"]
    if other and verbose:
        out.append(f"other figures ({len(other)}):")
        for r in other:
            base = "(absent)" if r["change"] == "added" else brief(r["baseline"])
            new = "(absent)" if r["change"] == "removed" else brief(r["scenario"])
            out.append(f"  {r['figure']}: {base} {ARROW}{new}")
    elif other:
        out.append(f"and {len(other)} other figure(s) differ (--verbose lists them by path)")
    if not out:
        out.append("no figure changes")
    return out


def brief(value: Any) -> str:
    """A figure for a table cell; an entry added or removed whole as ``field=value, ...``."""
    if isinstance(value, dict):
        text = ", ".join(f"{k}={plain_text(v, '—')}" for k, v in value.items())
        return shorten(text, 120)
    return plain_text(value, "—")


def shorten(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters between words, never inside one: an
    event's name was cut to ``Notes due 20...`` and an obligation to ``Registrati...``.
    A single word longer than the limit is kept whole (a figure or an id is never cut)."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit - 3)
    if cut <= 0:
        return text
    return text[:cut].rstrip(",;:") + " ..."


def echo_wrapped(lines: list[str], width: int, indent: str = "") -> None:
    for line in lines:
        lead = indent + " " * (len(line) - len(line.lstrip(" ")))
        click.echo(("\n".join(textwrap.wrap(line, width, initial_indent=indent,
                                            subsequent_indent=lead + "    ",
                                            break_long_words=False, break_on_hyphens=False))
                    or indent).replace("\u00a0", " "))


def show_preview(db: str, batch: list[Any], as_of: str | None, user: str | None, *,
                 as_json: bool, verbose: bool) -> None:
    """``append --dry-run``: ``publishing.preview.preview`` printed (or as JSON)."""
    from publishing import reading
    from publishing.preview import preview

    from .common import console, open_ledger, print_json, today

    from .writes import deal_hint

    day = reading.as_of_date(as_of, today()) if as_of else None
    with open_ledger(db, create=False) if _exists(db) else _empty() as ledger, \
            deal_hint(ledger, [e.deal for e in batch]):
        result = preview(ledger, batch, as_of=day, user=user)
    if as_json:
        print_json(result)
    elif result["already"]:
        from ledger.idempotency import spans

        click.echo(f"dry run: already recorded: seq "
                   f"{spans([r['seq'] for r in result['already']])}; an append would write "
                   "nothing")
    else:
        first, last = result["seqs"]
        width = console().width
        echo_wrapped([f"dry run: {result['count']} event(s) would be appended as seq "
                      f"{first}..{last}; nothing was written"], width)
        for d in result["deals"]:
            opened = ", which they open" if d["opened"] else ""
            echo_wrapped([f"{d['deal']}: {d['events']} event(s){opened}, judged as of "
                          f"{d['as_of']}"], width)
            echo_wrapped(impact_lines(d["impact"], verbose=verbose), width, "  ")
    from .views import money_in_text

    for text in result["warnings"]:
        click.echo(f"warning: {money_in_text(text)}", err=True)


def _exists(db: str) -> bool:
    import os

    from ledger.store.connection import is_postgres_url

    return is_postgres_url(db) or os.path.exists(db)


class _empty:
    """No ledger file yet: a dry run checks against an empty ledger in memory and leaves
    no file behind."""

    def __enter__(self):
        import tempfile

        from ledger.store import Ledger

        self._dir = tempfile.TemporaryDirectory(prefix="deal-ledger-dry-run-")
        self._ledger = Ledger(f"{self._dir.name}/ledger.db", create=True)
        return self._ledger.__enter__()

    def __exit__(self, *exc):
        try:
            return self._ledger.__exit__(*exc)
        finally:
            self._dir.cleanup()
