"""What is published: reads the record (``ledger``), computes its meaning (``projections``)
and hands it out: a deal's report as read from the store, what-if scenarios kept on disk,
the auditor pack and its HTML page, the SQL read models, the illustrative demo ledger.

It sits above both: ``ledger`` and ``projections`` never import it; ``cli`` is a thin
layer of options and printing over it (see README, "How the code is laid out").
"""
