"""``ledger.store.jsontext``: an encoder made once writes what the encoder writes."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from ledger.store.jsontext import compact, made_once

VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=6)
                      | st.floats(allow_nan=False),
                      lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                      max_leaves=10)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(VALUES, st.booleans(), st.booleans())
def test_made_once_writes_what_the_encoder_writes(value, ascii_only, sort_keys):
    encoder = json.JSONEncoder(ensure_ascii=ascii_only, sort_keys=sort_keys,
                               separators=(",", ":"))
    assert made_once(encoder)(value) == encoder.encode(value)
    assert compact(sort_keys=sort_keys)(value) == json.dumps(
        value, separators=(",", ":"), ensure_ascii=False, sort_keys=sort_keys)
