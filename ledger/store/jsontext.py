"""JSON text by one C encoder made once: ``JSONEncoder.encode`` (and ``json.dumps`` with
any option) makes a new C encoder on every call, a third of the time of encoding a small
value. Used where many small values are encoded: the store's record texts and hashes,
the views' ``events`` rows, the agenda's JSON lines. Light: it imports only ``json``."""

from __future__ import annotations

import json
from typing import Any, Callable


def made_once(encoder: json.JSONEncoder) -> Callable[[Any], str]:
    """``encoder.encode`` through one C encoder made once. The same text (the same C code,
    the same settings) for acyclic JSON values; the circular-reference check is left out,
    so a cycle would end in ``RecursionError`` instead of ``ValueError`` (the values
    encoded come from JSON or are flat, and hold none). Without the C accelerator, the
    encoder's own ``encode``."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return encoder.encode
    quote = (json.encoder.encode_basestring_ascii if encoder.ensure_ascii
             else json.encoder.encode_basestring)
    c_encode = make(None, encoder.default, quote, None, encoder.key_separator,
                    encoder.item_separator, encoder.sort_keys, encoder.skipkeys,
                    encoder.allow_nan)
    join = "".join
    return lambda value: join(c_encode(value, 0))


def compact(*, sort_keys: bool = False) -> Callable[[Any], str]:
    """``json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=...)``,
    made once."""
    return made_once(json.JSONEncoder(sort_keys=sort_keys, separators=(",", ":"),
                                      ensure_ascii=False))
