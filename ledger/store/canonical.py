"""A record's bytes: what its hash covers and what the library's row holds.

Every event record is hashed over its canonical JSON (sorted keys, no spaces, UTF-8: SPEC
§3), and written as the library's stored state from the same JSON pieces
(``_record_pieces``), so that the write path makes both texts at once. Also the ids the
store gives: each deal's stream id (``deal_id``, a ``uuid5``), each event's random id
(``new_ids``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import uuid
from typing import Any, Sequence

from ..upcasting import VERSION_FIELD
from .chainhead import NAMESPACE
from .jsontext import made_once


@functools.lru_cache(maxsize=4096)
def deal_id(deal: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"deal:{deal}")


# One encoder for every hash: ``json.dumps`` with keyword arguments builds a new encoder
# on each call. The same settings as ``json.dumps(record, sort_keys=True,
# separators=(",", ":"), ensure_ascii=False)``, so the same bytes.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# The library's JSONTranscoder settings (``eventsourcing.persistence``): what its mapper
# writes for an event is ``encode(vars(event))`` less the originator's id and version.
_STORED_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
_quote = json.encoder.encode_basestring  # what both encoders quote text with
_json_loads = json.loads


_canonical_text = made_once(_CANONICAL)
_stored_text = made_once(_STORED_JSON)


def canonical(record: dict[str, Any]) -> bytes:
    """The bytes a hash covers: sorted keys, no spaces, UTF-8."""
    return _canonical_text(record).encode("utf-8")


def record_hash(record: dict[str, Any]) -> str:
    """SHA-256 over the canonical JSON of the event without its own ``hash``."""
    if "hash" in record:
        record = {k: v for k, v in record.items() if k != "hash"}
    return hashlib.sha256(canonical(record)).hexdigest()


def _sorted_flat(data: dict[str, Any]) -> bool:
    """Whether ``data`` encodes the same sorted or not: keys in order, and no object or
    array inside (an array may hold objects)."""
    last = ""
    for k, v in data.items():
        if k < last or isinstance(v, (dict, list)):
            return False
        last = k
    return True


_BASE_KEYS = ("type", "deal", "date", "data", VERSION_FIELD, "id", "seq", "recorded_at",
              "recorded_by", "prev_hash", "deal_prev")
_RECORD_KEYS = {(source, key): frozenset(_BASE_KEYS + ("source",) * source + ("key",) * key)
                for source in (False, True) for key in (False, True)}


def _record_texts(record: dict[str, Any], who: str) -> tuple[str, str]:
    """A new record (every field but ``hash``, as ``Ledger._stage`` builds it, with
    ``recorded_by`` already JSON-quoted in ``who``) as two JSON texts made from the same
    pieces: its canonical form (what ``record_hash`` covers: sorted keys, no spaces) and
    its stored form up to its hash (the fields in the order the record has them, as the
    library's transcoder writes them). Equal, byte for byte, to ``canonical(record)`` and
    to the transcoder's text of the record with its hash (tests/test_store.py)."""
    if record.keys() != _RECORD_KEYS[("source" in record, "key" in record)]:
        # not the shape ``_stage`` builds: the encoders themselves (same bytes, slower)
        body = _STORED_JSON.encode(record)
        return canonical(record).decode("utf-8"), body[:-1] + ',"hash":"'
    c0, c1, c2, s0 = _record_pieces(record, who)
    prev, deal_prev = record["prev_hash"], record["deal_prev"]
    return (f"{c0}{deal_prev}{c1}{prev}{c2}",
            f'{s0}{prev}","deal_prev":"{deal_prev}","hash":"')


def _record_pieces(record: dict[str, Any], who: str) -> tuple[str, str, str, str]:
    """``_record_texts`` with the chain links left as holes, for a record of the shape
    ``_stage`` builds (its ``prev_hash`` and ``deal_prev`` are not read): the canonical
    text is ``c0 + deal_prev + c1 + prev_hash + c2``, the stored one up to its hash
    ``s0 + prev_hash + '","deal_prev":"' + deal_prev + '","hash":"'``. The links are
    the only parts that depend on the rest of the log (``ledger.store.staging``)."""
    data = record["data"]
    sorted_data = _canonical_text(data)
    plain_data = sorted_data if _sorted_flat(data) else _stored_text(data)
    kind, deal, day = _quote(record["type"]), _quote(record["deal"]), record["date"]
    source, key = record.get("source"), record.get("key")
    source_q = None if source is None else _quote(source)
    key_q = None if key is None else _quote(key)
    v, eid, seq, stamp = record[VERSION_FIELD], record["id"], record["seq"], record["recorded_at"]
    key_c = "" if key_q is None else f'"key":{key_q},'
    source_c = "" if source_q is None else f'"source":{source_q},'
    source_s = "" if source_q is None else f',"source":{source_q}'
    key_s = "" if key_q is None else f',"key":{key_q}'
    return (f'{{"data":{sorted_data},"date":"{day}","deal":{deal},"deal_prev":"',
            f'","id":"{eid}",{key_c}"prev_hash":"',
            f'","recorded_at":"{stamp}","recorded_by":{who},"seq":{seq},{source_c}'
            f'"type":{kind},"v":{v}}}',
            f'{{"type":{kind},"deal":{deal},"date":"{day}","data":{plain_data}{source_s}'
            f'{key_s},"v":{v},"id":"{eid}","seq":{seq},"recorded_at":"{stamp}",'
            f'"recorded_by":{who},"prev_hash":"')


_VERSION_NIBBLE = bytes((b & 0x0F) | 0x40 for b in range(256))  # 0100xxxx: version 4
_VARIANT_BITS = bytes((b & 0x3F) | 0x80 for b in range(256))    # 10xxxxxx: RFC 4122


class Ids(Sequence):
    """``count`` random (version 4) UUIDs as text, as ``str(uuid.uuid4())`` gives them,
    from one read of the system's random source instead of one per id, each written out
    when asked for: the lines of a large batch are staged on two processes
    (``ledger.store.staging``), and each writes out the ids of its own lines."""

    __slots__ = ("_hex", "_count")

    def __init__(self, count: int):
        raw = bytearray(os.urandom(16 * count))
        raw[6::16] = raw[6::16].translate(_VERSION_NIBBLE)
        raw[8::16] = raw[8::16].translate(_VARIANT_BITS)
        self._hex, self._count = raw.hex(), count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            return [self[i] for i in range(self._count)[k]]
        if k < 0:
            k += self._count
        if not 0 <= k < self._count:
            raise IndexError("id index out of range")
        h, i = self._hex, 32 * k
        return f"{h[i:i + 8]}-{h[i + 8:i + 12]}-{h[i + 12:i + 16]}-{h[i + 16:i + 20]}-{h[i + 20:i + 32]}"


def new_ids(count: int) -> Sequence[str]:
    """``Ids(count)``."""
    return Ids(count)
