"""A stored row's values as the readers take them, whoever wrote the row. Light: the
streamed readers (``logread``, the agenda's helpers) import it without the library."""

from __future__ import annotations

from typing import Any


def blob(value: Any) -> bytes:
    """A row's ``state`` as bytes: the library writes a BLOB (bytes, a memoryview on
    PostgreSQL); a row put there by another program may hold text, which is read as
    UTF-8 for the reader to judge (and name, if it is not a record)."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    return bytes(value)


def state_of(mapper: Any, raw: bytes) -> dict[str, Any]:
    """A stored row's state as the library's mapper decodes it (its cipher, compressor
    and transcoder), without making the domain event."""
    if mapper.cipher:
        raw = mapper.cipher.decrypt(raw)
    if mapper.compressor:
        raw = mapper.compressor.decompress(raw)
    return mapper.transcoder.decode(raw)
