"""Errors a user can cause, each rendered as one line naming the line, field and rule.

Nothing here is a programming error: those stay exceptions with tracebacks. A
``LedgerError`` is always the user's input or the state of the ledger, and the CLI
prints ``str(error)`` and exits with ``error.exit_code``.
"""

from __future__ import annotations


class LedgerError(Exception):
    """A refusal the user can act on."""

    exit_code = 3

    def __init__(self, message: str, *, line: int | None = None, field: str | None = None,
                 rule: str | None = None):
        self.message = message
        self.line = line
        self.field = field
        self.rule = rule
        super().__init__(self.render())

    def at_line(self, line: int | None) -> "LedgerError":
        """The same refusal, now naming the input line it came from."""
        return type(self)(self.message, line=line, field=self.field, rule=self.rule)

    def render(self) -> str:
        parts = []
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.field:
            parts.append(f"field '{self.field}'")
        head = ", ".join(parts)
        text = f"{head}: {self.message}" if head else self.message
        if self.rule:
            text += f" [{self.rule}]"
        return text.replace("\n", " ")


class InvalidEvent(LedgerError):
    """The event is malformed: bad JSON, unknown type or field, bad value."""


class RuleViolation(LedgerError):
    """The event is well formed but breaks a rule of the deal or the ledger."""


class DuplicateKey(RuleViolation):
    """A second event with the same deal and idempotency key."""


class LedgerBusy(LedgerError):
    """Another writer kept winning; nothing was written and the call may be retried."""

    exit_code = 4


class StoreError(LedgerError):
    """The store cannot be opened or written (path, permissions, connection)."""

    exit_code = 5


class Unproved(LedgerError):
    """A signature or proof that does not hold (a checkpoint, a statement, a pack): the
    thing checked fails, as ``verify`` fails."""

    exit_code = 1


class UsageError(LedgerError):
    """A command-line option or argument is wrong."""

    exit_code = 2
