"""What an offline check of a directory says (an auditor pack, a Holder statement): ok and
why, or the file at fault and what is wrong with it (``FileVerdict``); and the exception
a check raises to say so from deep inside (``Fault``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FileVerdict:
    """``line()`` names the file at fault, or sums up."""

    ok: bool
    reason: str
    file: str | None = None

    def line(self) -> str:
        if self.ok:
            return f"ok: {self.reason}"
        return f"{self.file}: {self.reason}" if self.file else self.reason


class Fault(Exception):
    """A file of the directory checked, and what is wrong with it."""

    def __init__(self, file: str, reason: str):
        super().__init__(reason)
        self.file = file
        self.reason = reason
