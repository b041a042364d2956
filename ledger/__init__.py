"""What happened: the record's language. The event catalog and its values, deal terms, the
business calendar and day counts, write-side guards, upcasting. How the record is kept
(the store, its hash chain, locks and connections) is the package ``ledger.store``.
Imports nothing above it (``projections``, ``publishing``, ``cli``)."""

from . import upcasters  # noqa: E402,F401 (the schema steps of stored records, registered)
