"""The library's PostgreSQL inserts with their parameters sent in binary (issue 17).

``eventsourcing``'s PostgreSQL recorders insert a batch with one call of their insert
function, its parameter an array of composite stored events
(``originator_id, originator_version, topic, state``). psycopg (here its pure-Python
implementation) sends that array as text by default: every state's bytes escaped to hex,
then quoted again for the composite and again for the array, by regular expressions.
For 100,000 events (63 MB of states) that was 4.8 s of this process's CPU and 7.0 s of
the insert; in binary, the same rows are sent as their bytes: 1.0 s of CPU, 2.2 s in all
(the 100 snapshots of those deals, 17 MB: 1.3 -> 0.5 s).

``binary_params(datastore)``: while it is open, each connection the library's datastore
hands out dumps lists and the datastore's composite types in binary; each is put back to
the text dumpers before it returns to the pool, so the library's other queries on it
(its reads, with their lists of topics) are sent as they always were. What is stored is
the same, byte for byte (tests/test_pgbinary.py). The recorders, their insert function
and their transactions are the library's own.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator


@contextlib.contextmanager
def binary_params(datastore: Any) -> Iterator[None]:
    from psycopg.adapt import PyFormat
    from psycopg.types.array import ListBinaryDumper

    handed_out = datastore.get_connection   # the library's (a bound method)

    @contextlib.contextmanager
    def get_connection() -> Iterator[Any]:
        with handed_out() as conn:
            adapters = conn.adapters
            types = [info.python_type for info in datastore.psycopg_type_adapters.values()
                     if info.python_type is not None]
            text = [(t, adapters.get_dumper(t, PyFormat.TEXT)) for t in types]
            list_text = adapters.get_dumper(list, PyFormat.TEXT)
            for t in types:
                adapters.register_dumper(t, adapters.get_dumper(t, PyFormat.BINARY))
            adapters.register_dumper(list, ListBinaryDumper)
            try:
                yield conn
            finally:   # as the library registered them: text last, so text by default
                adapters.register_dumper(list, list_text)
                for t, dumper in text:
                    adapters.register_dumper(t, dumper)

    datastore.get_connection = get_connection
    try:
        yield
    finally:
        del datastore.get_connection   # the class's method again
