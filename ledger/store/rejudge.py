"""What ``append`` would say of a stored event, judged again (``verify --rules``): the event
format (``ledger.events.parse_event``, stored as append stores it) and the deal's rules
(``ledger.guards.check`` on its state before the event, with the rest of its batch)."""

from __future__ import annotations

from typing import Any

from .. import guards


def judge(state: dict[str, Any], record: dict[str, Any], batch: Any, index: int
           ) -> tuple[str | None, Any]:
    """What ``append`` would say of ``record`` (upcast to the current shape) on the deal's
    ``state`` before it: ``(problem, None)``, or ``(None, its effects)`` for ``fold``."""
    from ..errors import LedgerError
    from ..events import parse_event

    obj = {k: record[k] for k in ("type", "deal", "date", "data") if k in record}
    for name in ("source", "key"):
        if record.get(name) is not None:
            obj[name] = record[name]
    try:
        stored_as = parse_event(obj).envelope()
    except LedgerError as err:
        return f"it breaks the event format append checks: {_plain(err)}", None
    except Exception as err:  # not even an object of the event format
        return f"it is not an event append would accept ({type(err).__name__})", None
    if _differs(obj, stored_as):
        return ("it breaks the form append stores an event in: a value is not written as "
                "append writes it (it was written outside deal-ledger)"), None
    try:
        return None, guards.check(state, record, batch, index)
    except LedgerError as err:
        return f"it breaks a rule append enforces: {_plain(err)}", None


def _differs(stored: Any, normal: Any) -> bool:
    """Whether a value stored differs from the form append gives it (``normal``). Only
    what is stored is compared: a field a later version added with its default (a new
    optional term) is not in an older record and is not a difference; nor is a term
    with its default that the form leaves out (an older record upcast writes it: the
    ``of`` of a damages step, issue 33), in a list's items as anywhere."""
    if isinstance(stored, dict) and isinstance(normal, dict):
        return any(k in normal and _differs(v, normal[k]) for k, v in stored.items())
    if isinstance(stored, list) and isinstance(normal, list) and len(stored) == len(normal):
        return any(_differs(a, b) for a, b in zip(stored, normal))
    return stored != normal


def _plain(err: Exception) -> str:
    """A refusal's text without the line of a batch it would have named."""
    text = str(err)
    return text.split(": ", 1)[1] if text.startswith("line ") and ": " in text else text
