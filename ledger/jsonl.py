"""Reading a JSON Lines batch (SPEC §3): one event object per line, all or nothing.

Accepted: UTF-8 with or without a byte-order mark, LF or CRLF line ends, blank lines at
the end. Refused, naming the line: bytes that are not UTF-8, a blank line between events,
a line over 1 MiB, invalid JSON (with the column), duplicate fields, JSON nested too
deeply, numbers with exponents (in amounts) or with more digits than any amount has, and
a whole-file JSON array.
"""

from __future__ import annotations

import gc
import json
import os
import re
from datetime import date
from decimal import Decimal
from typing import Any, Callable

from .collector import paused
from .errors import InvalidEvent
from .events import NewEvent, parse_event
from .forked import Child
from .values import BigInteger, ExponentDecimal

MAX_LINE = 1 << 20
PAUSE_GC_AT = 1000   # lines from which the cyclic garbage collector waits for the batch
MAX_DIGITS = 40  # more digits than any amount or share count: kept only to be refused


def _number(text: str) -> Decimal:
    return ExponentDecimal(text) if ("e" in text or "E" in text) else Decimal(text)


def _integer(text: str) -> int | Decimal:
    if len(text.lstrip("-")) > MAX_DIGITS:  # int() refuses 4,300 digits with a puzzle
        return BigInteger(text)
    return int(text)


def _constant(text: str) -> Decimal:
    return Decimal(text.replace("Infinity", "Inf"))


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):  # a field given twice: name the first repeated one
        seen = set()
        for k, _v in pairs:
            if k in seen:
                raise ValueError(f"duplicate field {k!r}")
            seen.add(k)
    return out


# One decoder for every line (``json.loads`` with hooks builds a new one per call).
_DECODER = json.JSONDecoder(parse_float=_number, parse_int=_integer,
                            parse_constant=_constant, object_pairs_hook=_object)


def loads(text: str) -> Any:
    """JSON with exact decimals: no binary floats, exponents marked, NaN/Infinity kept
    as Decimal so the value check can name the field."""
    if text.startswith("\ufeff"):  # as json.loads refuses it
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    try:
        return _DECODER.decode(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def read_input(source: str, option: str | None = None) -> bytes:
    """The bytes of a JSON Lines batch in the file ``source`` (``-``: standard input),
    read a line at a time, at most ``MAX_LINE`` bytes and its newline: a longer line is
    refused as soon as it is seen, naming it, with no more of it read. A file without a
    newline (600 MB of one line, ``/dev/zero``) is never held whole: what is held is the
    batch's lines, each within the limit. ``UsageError`` (naming ``option``) if the file
    cannot be read."""
    import sys

    from .errors import UsageError

    try:
        fh = sys.stdin.buffer if source == "-" else open(source, "rb")
    except OSError as err:
        raise UsageError(f"cannot read {source}: {err.strerror}", field=option) from None
    lines: list[bytes] = []
    try:
        while line := fh.readline(MAX_LINE + 1):
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                raise InvalidEvent(f"the line is longer than {MAX_LINE} bytes", line=len(lines) + 1)
            lines.append(line)
    except OSError as err:
        raise UsageError(f"cannot read {source}: {err.strerror}", field=option) from None
    finally:
        if fh is not sys.stdin.buffer:
            fh.close()
    return b"".join(lines)


def read_bounded(path: str, limit: int, option: str) -> bytes:
    """A whole small file (a terms file), at most ``limit`` bytes: a larger one (or
    ``/dev/zero``) is refused having read ``limit + 1`` bytes of it."""
    from .errors import UsageError

    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}", field=option) from None
    if len(data) > limit:
        raise InvalidEvent(f"{path} is larger than {limit} bytes", field=option)
    return data


def read_batch(raw: bytes, on_progress: Callable[[int], None] | None = None
               ) -> list[NewEvent]:
    """Parse and validate a whole batch; ``InvalidEvent`` at the first bad line.
    ``on_progress(n)`` is told of every thousand lines read (and the rest at the end)."""
    lines = split_lines(raw)
    # every event made stays alive in the batch: the collector's passes meanwhile free
    # nothing (7-10% of the parse of 100,000 lines), and the batch joins the oldest
    # generation at the end rather than being walked by the next young pass
    with paused(len(lines) >= PAUSE_GC_AT, promote=True):
        if len(lines) >= PARALLEL_AT and _may_fork():
            events = _read_in_two(lines, on_progress)
        else:
            events = _read_lines(lines, 1, on_progress)
    if on_progress is not None and len(lines) % 1000:
        on_progress(len(lines) % 1000)
    return events


def split_lines(raw: bytes) -> list[bytes]:
    """The batch's lines, without a byte-order mark or the blank lines at its end;
    ``InvalidEvent`` if it holds none, or is a whole-file JSON array."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    lines = raw.split(b"\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise InvalidEvent("the input holds no events")
    if lines[0].lstrip().startswith(b"["):
        raise InvalidEvent("a JSON array is not JSON Lines: give one event object per line",
                           line=1)
    return lines


# The text of the first "deal" field of a line, where it is a deal name: a guess made
# without parsing (a "deal" field nested in ``data`` may come first), which
# ``ledger.store.bulk`` uses only to share the lines out by deal and checks once each is parsed.
_DEAL_FIELD = re.compile(rb'"deal"[ \t]*:[ \t]*"([A-Za-z0-9][A-Za-z0-9._-]{0,79})"')


def deal_guesses(lines: list[bytes]) -> list[str] | None:
    """Each line's deal as ``_DEAL_FIELD`` reads it, or ``None`` if a line has none."""
    search = _DEAL_FIELD.search
    out: list[str] = []
    for line in lines:
        found = search(line)
        if found is None:
            return None
        out.append(found[1].decode("ascii"))
    return out


def _read_lines(lines: list[bytes], first: int,
                on_progress: Callable[[int], None] | None = None) -> list[NewEvent]:
    """``parse_line`` of each line, numbered from ``first``; ``on_progress(1000)`` at
    every thousandth line of the batch."""
    events = []
    for number, line in enumerate(lines, start=first):
        events.append(parse_line(line, number))
        if on_progress is not None and number % 1000 == 0:
            on_progress(1000)
    return events


def parse_line(line: bytes, number: int) -> NewEvent:
    if len(line) > MAX_LINE:
        raise InvalidEvent(f"the line is longer than {MAX_LINE} bytes", line=number)
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidEvent(f"not valid UTF-8 (byte {err.start + 1})", line=number) from None
    text = text.rstrip("\r")
    if not text.strip():
        raise InvalidEvent("empty line: JSON Lines has one event object on every line",
                           line=number)
    try:
        obj = loads(text)
    except json.JSONDecodeError as err:
        raise InvalidEvent(f"not valid JSON at column {err.colno}: {err.msg}",
                           line=number) from None
    except ValueError as err:
        msg = " ".join(str(err).split())
        raise InvalidEvent(f"not valid JSON: {msg}", line=number) from None
    # Text decoded as UTF-8 holds no lone surrogate: only a JSON escape (\uD800 to
    # \uDFFF) can make one, so a line without "\ud" or "\uD" needs no search for one.
    return parse_event(obj, line=number,
                       unicode_checked=b"\\ud" not in line and b"\\uD" not in line)


# ------------------------------------------------------- a large batch on two cores

PARALLEL_AT = 20_000   # lines from which a second process helps check the batch
CHUNK = 1000           # lines the two processes claim at a time


def _may_fork() -> bool:
    """A second process is forked only where that is cheap and safe: a POSIX ``fork``,
    more than one core, and no other thread in this process (a lock another thread
    holds would stay held in the child)."""
    import threading

    return (hasattr(os, "fork") and (os.cpu_count() or 1) > 1
            and threading.active_count() == 1)


class _Claims:
    """Chunks of the batch shared out between this process, which takes them from the
    front, and a forked child, which takes them from the back, until they meet: on a
    busy machine whichever process gets the CPU does the work, so a child that is not
    scheduled costs nothing but its last chunk. In shared memory, under a lock."""

    def __init__(self, chunks: int):
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self.chunks = chunks
        self.taken = ctx.RawArray("q", 2)   # [from the front, from the back]
        self.lock = ctx.Lock()

    def front(self) -> int | None:
        with self.lock:
            i = self.taken[0]
            if i >= self.chunks - self.taken[1]:
                return None
            self.taken[0] = i + 1
            return i

    def back(self) -> int | None:
        with self.lock:
            j = self.taken[1]
            if self.taken[0] >= self.chunks - j:
                return None
            self.taken[1] = j + 1
            return self.chunks - 1 - j


def _read_in_two(lines: list[bytes], on_progress: Callable[[int], None] | None
                 ) -> list[NewEvent]:
    """``_read_lines`` of a large batch on two cores: this process checks chunks of
    lines from the front, a forked child from the back (``_Claims``), and the child
    sends its events back as plain tuples. Still all or nothing, and the error raised
    is the first bad line's: every chunk this process takes comes before every chunk
    the child took, so a bad line met here is raised at once (the child is stopped);
    the child stops at its first bad line, this process checks every chunk before it,
    and then parses that line again here, so that the error is exactly the one
    ``parse_line`` makes. If the child fails in any other way, this process checks its
    chunks itself."""
    count = len(lines)
    chunks = -(-count // CHUNK)
    try:
        claims = _Claims(chunks)
    except OSError:   # no shared memory or semaphores here: one process
        return _read_lines(lines, 1, on_progress)
    # While the child lives, the two share this process's memory copy-on-write: a
    # collection of the cyclic garbage collector in either would walk (write to) every
    # object and copy every page. Objects older than the fork are kept out of this
    # process's collections until the child is gone; the child never collects.
    gc.freeze()
    child = Child(lambda: _packed(lines, claims), collect=False)
    events: list[NewEvent] = []
    try:
        while (i := claims.front()) is not None:
            events += _read_lines(lines[i * CHUNK:(i + 1) * CHUNK], i * CHUNK + 1,
                                  on_progress)
        found = child.result()
    except BaseException:
        child.stop()
        gc.unfreeze()
        raise
    gc.unfreeze()
    try:
        done, bad = found if found is not None else (None, None)
    except Exception:   # the child sent something else
        done, bad = None, None
    first = len(events)   # the first line (from 0) this process did not check
    if bad is not None:   # the child's first bad line; every line before it is good
        parse_line(lines[bad - 1], bad)
    if done is None or sum(len(rows) for rows in done.values()) != count - first:
        # the child failed (or sent something else): check the rest here
        return events + _read_lines(lines[first:], first + 1, on_progress)
    new, from_ordinal = NewEvent, date.fromordinal
    for i in sorted(done):
        for type_, deal, day, data, source, key, number in done[i]:
            events.append(new(type_, deal, from_ordinal(day), data, source, key, number))
            if on_progress is not None and number % 1000 == 0:
                on_progress(1000)
    return events


def _packed(lines: list[bytes], claims: _Claims
            ) -> tuple[dict[int, list[tuple[Any, ...]]], int | None]:
    """In the child: the events of the chunks it claims from the back, as plain tuples
    (cheaper to send than the dataclasses), by chunk; it stops at its first bad line,
    whose number it sends instead of the error."""
    done: dict[int, list[tuple[Any, ...]]] = {}
    while (j := claims.back()) is not None:
        rows = []
        for number, line in enumerate(lines[j * CHUNK:(j + 1) * CHUNK], start=j * CHUNK + 1):
            try:
                e = parse_line(line, number)
            except InvalidEvent:
                return done, number
            rows.append((e.type, e.deal, e.date.toordinal(), e.data, e.source, e.key,
                         e.line))
        done[j] = rows
    return done, None
