"""The command line (click): options, tables and ``--json`` over ``publishing``,
``projections`` and ``ledger``. No rules live here."""
