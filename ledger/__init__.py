"""What happened: the record. The event catalog and its values, deal terms, the business
calendar and day counts, write-side guards, upcasting, the store, its hash chain, locks and
connections. Imports nothing above it (``projections``, ``publishing``, ``cli``)."""
