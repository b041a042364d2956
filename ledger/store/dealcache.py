"""A per-deal file of a deal's stored records, so that a one-deal command in a fresh
process (``report``, a view) does not decode every stored event of the deal again
(issue 17: decoding the library's stored events was a third of a cold ``report``).

It is a copy, never the record: the store stays the only source. A cache file is used
only when the deal's stream in the store still ends where the file says, at the same
version with the same last hash (``Ledger.deal_events`` checks that against the store
first); anything else (an append since, another ledger at the same path, a file that
does not read) and the deal is read from the store and the file written again. The file
is plain JSON (no pickle: reading it runs no code), private to its user (0600, in a 0700
directory), written to a temporary name and renamed, so a reader never sees half a file.

A report checks only that the file ends where the stream does: recomputing every row's
hash would cost a cold report of 10,000 events 75 ms. ``verify`` holds every cache file
of the ledger against the store, row by row (``check``), and removes and names any that
differs, so that a ledger that verifies is never reported from an altered copy (a review
of stop 19 edited a ShelfEffective date in a file, and ``report`` used it while ``verify``
passed).

One file per ledger and deal stream under ``$DEAL_LEDGER_CACHE`` (a directory; ``off``
turns the cache off), else ``$XDG_CACHE_HOME/deal-ledger``, else
``~/.cache/deal-ledger``. Where the directory cannot be written (a read-only home), the
commands work as without a cache.

Layout: a first line ``{"format", "version", "last_hash", "shapes"}`` (the stream's last
version and its record's hash; each distinct key order of the records), then one JSON
array of rows, each ``[shape, value, value, ...]``: the records exactly as stored, less
the repeated keys, and with a ``prev_hash`` or ``deal_prev`` that is the hash of the row
before written ``0`` (a deal's ``deal_prev`` always is), which is what makes reading it
cheaper than the stored events (``ledger.stored.events_of_rows`` reads the rows).
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Sequence

FORMAT = 2
OFF = ("off", "0", "no", "false")
LINKS = ("prev_hash", "deal_prev")  # written 0 where they are the previous row's hash


def cache_dir() -> str | None:
    """Where the cache files go; ``None`` when the cache is off."""
    chosen = os.environ.get("DEAL_LEDGER_CACHE")
    if chosen is not None:
        chosen = chosen.strip()
        if not chosen or chosen.lower() in OFF:
            return None
        return chosen
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "deal-ledger")


def cache_path(directory: str, ledger: str, stream: str) -> str:
    """The file of one deal stream (``stream``: its id in hex) of the ledger ``ledger``
    (its absolute path, or its URL without password)."""
    key = hashlib.sha256(ledger.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return os.path.join(directory, key, f"{stream}.json")


def _read(path: str) -> tuple[dict[str, Any], list[tuple[str, ...]], Any] | None:
    """The file's first line, its shapes and its rows as JSON gives them; ``None`` if it
    is not a cache file of this format."""
    with open(path, "rb") as f:
        head, sep, body = f.read().partition(b"\n")
    meta = json.loads(head)
    if not sep or type(meta) is not dict or meta.get("format") != FORMAT:
        return None
    return meta, [tuple(shape) for shape in meta["shapes"]], json.loads(body)


def load(path: str, version: int, last_hash: str
         ) -> tuple[list[tuple[str, ...]], list[list[Any]]] | None:
    """The shapes and rows of the file at ``path`` (see the layout above) if it holds the
    stream up to ``version``, ending with the record whose hash is ``last_hash``; else
    ``None``."""
    try:
        found = _read(path)
        if found is None:
            return None
        meta, shapes, rows = found
        if meta.get("version") != version or meta.get("last_hash") != last_hash:
            return None
        if type(rows) is not list or len(rows) != version:
            return None
        last = rows[-1]
        if dict(zip(shapes[last[0]], last[1:])).get("hash") != last_hash:
            return None
    except (OSError, ValueError, TypeError, KeyError, IndexError):
        return None
    return shapes, rows  # a row that does not fit its shape fails events_of_rows


def encode(version: int, last_hash: str, records: Sequence[dict[str, Any]]) -> bytes:
    """The file's bytes for the stream up to ``version`` (before the records are handed
    to ``events_of``, which types their values in place)."""
    shapes: dict[tuple[str, ...], int] = {}
    rows = []
    before = None
    for record in records:
        index = shapes.setdefault(tuple(record), len(shapes))
        row = [index]
        for key, value in record.items():
            if key in LINKS:
                if type(value) is not str:
                    raise ValueError(f"a stored {key} that is not text")
                if value == before:
                    value = 0
            row.append(value)
        rows.append(row)
        before = record.get("hash")
    meta = {"format": FORMAT, "version": version, "last_hash": last_hash,
            "shapes": [list(k) for k in shapes]}
    return (json.dumps(meta, separators=(",", ":"), ensure_ascii=False) + "\n"
            + json.dumps(rows, separators=(",", ":"), ensure_ascii=False)
            ).encode("utf-8", "surrogatepass")


def write(path: str, data: bytes) -> None:
    """Put ``data`` at ``path`` whole or not at all; quietly nothing where the directory
    cannot be written (a read-only home, a full disk)."""
    import tempfile

    tmp = None
    try:
        directory = os.path.dirname(path)
        os.makedirs(directory, mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".part-", suffix=".json")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None:
            try:
                os.remove(tmp)
            except OSError:
                pass


def records(path: str) -> tuple[int, str, list[dict[str, Any]]] | None:
    """The stream version and last hash the file at ``path`` says it holds, and the
    records it holds, links filled in; ``None`` if it does not read as a cache file."""
    try:
        found = _read(path)
        if found is None:
            return None
        meta, shapes, rows = found
        out, before = [], None
        for row in rows:
            record = dict(zip(shapes[row[0]], row[1:], strict=True))
            for link in LINKS:
                if record.get(link) == 0:
                    record[link] = before
            out.append(record)
            before = record.get("hash")
        return meta["version"], meta["last_hash"], out
    except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
        return None


def check(directory: str | None, ledger: Any) -> list[str]:
    """Every cache file of ``ledger`` under ``directory`` (none: the cache is off, or the
    ledger is on PostgreSQL, which reads no cache file) held against the store. A file a report would read (it says it ends at a version of its
    deal's stream whose record has the hash it names: ``load``) must hold exactly the
    stream's records up to there; one that does not was altered, and is removed and
    named in the list returned. A file a report would not read (written for another
    ledger since removed from the same path, or that does not read) is removed quietly:
    the next report writes it again."""
    import uuid

    if directory is None or ledger.is_postgres:
        return []
    folder = os.path.dirname(cache_path(directory, os.path.realpath(ledger.url), "x"))
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json")
                       and not n.startswith(".part-"))
    except OSError:
        return []
    bad = []
    for name in names:
        path = os.path.join(folder, name)
        found = records(path)
        try:
            stored = ledger.stream_records(uuid.UUID(hex=name[:-len(".json")]))
        except ValueError:
            stored = []
        if found is None:
            _remove(path)
            continue
        version, last_hash, held = found
        readable = (type(version) is int and 0 < version <= len(stored)
                    and stored[version - 1].get("hash") == last_hash)
        at = next((i for i, (a, b) in enumerate(zip(held, stored)) if a != b), None)
        if at is None and len(held) != version:   # rows missing or added after the last
            at = min(len(held), len(stored))
        if at is None:
            continue
        if not readable:
            _remove(path)
            continue
        seq = stored[at].get("seq") if at < len(stored) else None
        where = (f"at the deal's event seq {seq} (row {at + 1} of the file)" if seq else
                 f"in its length ({len(held)} rows for {version} events)")
        done = _remove(path) or "removed: reports read the ledger again"
        bad.append(f"the cache copy {path} differs from the ledger {where}: altered outside "
                   f"deal-ledger; {done}")
    return bad


def _remove(path: str) -> str | None:
    """Remove ``path``; what went wrong, if anything."""
    try:
        os.remove(path)
    except OSError as err:
        return f"could not be removed ({err.strerror}): remove it by hand"
    return None
