"""Reading a JSON Lines batch (SPEC §3): one event object per line, all or nothing.

Accepted: UTF-8 with or without a byte-order mark, LF or CRLF line ends, blank lines at
the end. Refused, naming the line: bytes that are not UTF-8, a blank line between events,
a line over 1 MiB, invalid JSON (with the column), duplicate fields, JSON nested too
deeply, numbers with exponents (in amounts) or with more digits than any amount has, and
a whole-file JSON array.
"""

from __future__ import annotations

import json
import os
import pickle
from datetime import date
from decimal import Decimal
from typing import Any, Callable

from .errors import InvalidEvent
from .events import NewEvent, parse_event
from .values import BigInteger, ExponentDecimal

MAX_LINE = 1 << 20
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


def read_batch(raw: bytes, on_progress: Callable[[int], None] | None = None
               ) -> list[NewEvent]:
    """Parse and validate a whole batch; ``InvalidEvent`` at the first bad line.
    ``on_progress(n)`` is told of every thousand lines read (and the rest at the end)."""
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
    if len(lines) >= PARALLEL_AT and _may_fork():
        events = _read_in_two(lines, on_progress)
    else:
        events = _read_lines(lines, 1, on_progress)
    if on_progress is not None and len(lines) % 1000:
        on_progress(len(lines) % 1000)
    return events


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


# ------------------------------------------------------- a large batch on two cores

PARALLEL_AT = 20_000   # lines from which a second process checks part of the batch
MAIN_SHARE = 0.55      # the main process also unpacks what the second one sends back


def _may_fork() -> bool:
    """A second process is forked only where that is cheap and safe: a POSIX ``fork``,
    more than one core, and no other thread in this process (a lock another thread
    holds would stay held in the child)."""
    import threading

    return (hasattr(os, "fork") and (os.cpu_count() or 1) > 1
            and threading.active_count() == 1)


def _read_in_two(lines: list[bytes], on_progress: Callable[[int], None] | None
                 ) -> list[NewEvent]:
    """``_read_lines`` of a large batch on two cores: a forked child checks the last
    lines while this process checks the first ones, then sends them back as plain
    tuples. Still all or nothing, and the error is the first bad line's: a bad line of
    this process's part is raised as it is met (the child is stopped); one of the
    child's part is parsed again here, so that the error raised is exactly the one
    ``parse_line`` makes. If the child fails in any other way, this process checks its
    part itself."""
    split = int(len(lines) * MAIN_SHARE)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: never returns, never runs the parent's exit handlers
        status = 1
        try:
            os.close(read_end)
            payload = pickle.dumps(_packed(lines, split), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as out:
                out.write(payload)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    try:
        events = _read_lines(lines[:split], 1, on_progress)
        with os.fdopen(read_end, "rb") as incoming:
            read_end = -1
            payload = incoming.read()
    except BaseException:
        if read_end >= 0:
            os.close(read_end)
        _stop(pid)
        raise
    _, status = os.waitpid(pid, 0)
    try:
        packed = pickle.loads(payload) if status == 0 and payload else None
    except Exception:
        packed = None
    if packed is None:   # the child failed: check its part here
        events += _read_lines(lines[split:], split + 1, on_progress)
        return events
    done, rows = packed
    if done != len(lines) - split:   # the child met a bad line: raise its error here
        number = split + done + 1
        parse_line(lines[number - 1], number)
        events += _read_lines(lines[split:], split + 1)   # pragma: no cover - no error?
        return events
    new = NewEvent
    from_ordinal = date.fromordinal
    for k, (type_, deal, day, data, source, key, number) in enumerate(rows, start=split + 1):
        events.append(new(type_, deal, from_ordinal(day), data, source, key, number))
        if on_progress is not None and k % 1000 == 0:
            on_progress(1000)
    return events


def _packed(lines: list[bytes], split: int) -> tuple[int, list[tuple[Any, ...]]]:
    """In the child: the events of ``lines[split:]`` as plain tuples (cheaper to send
    than the dataclasses), stopping at the first bad line; ``(lines checked, tuples)``."""
    rows = []
    for number, line in enumerate(lines[split:], start=split + 1):
        try:
            e = parse_line(line, number)
        except InvalidEvent:
            break
        rows.append((e.type, e.deal, e.date.toordinal(), e.data, e.source, e.key, e.line))
    return len(rows), rows


def _stop(pid: int) -> None:
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass


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
