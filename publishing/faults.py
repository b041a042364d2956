"""What an offline check of a directory says (an auditor pack, a Holder statement): ok and
why, or the file at fault and what is wrong with it (``FileVerdict``); and the exception
a check raises to say so from deep inside (``Fault``); and how such a check reads one of
the directory's files (``read``)."""

from __future__ import annotations

import os
import stat
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


def read(path: str, name: str, what: str, limit: int | None = None) -> bytes:
    """The bytes of the file ``name`` of the directory ``path`` (``what``: "pack",
    "statement"), read only if it is a regular file (a FIFO would block the read for ever,
    a link would lead out of the directory) of at most ``limit`` bytes."""
    full = os.path.join(path, name)
    try:
        info = os.lstat(full)
        if not stat.S_ISREG(info.st_mode) or (limit is not None and info.st_size > limit):
            raise Fault(name, f"is not a regular file of a {what}")
        with open(full, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        raise Fault(name, "is missing") from None
    except OSError as err:
        raise Fault(name, f"cannot be read: {err.strerror}") from None
