"""Obligations with a lifecycle (issue 16): every obligation of both agreements with its
state as of a date, read from what the engines compute.

* ``lifecycle``: the record (``Duty``), the states and the JSON shape;
* ``registration``: the RRA's obligations, each beside its clause;
* ``letter``: the Letter's true-ups (Letter ¶3).

States: ``upcoming`` (not done, its last day is after ``as_of``), ``due`` (not done,
``as_of`` is its last day; for a continuing obligation: in force and kept so far),
``fulfilled`` (done in time, ``by_event``), ``violated`` (not done by its last day:
``violated_since``, and what it ``triggered``), ``cured`` (done late, or the default it
caused was cured: ``cured_on``, ``by_event``), ``excused`` (a proviso says the Company
was not obliged) and ``discharged`` (it ended without performance being owed any more:
the end of the Effectiveness Period, a waiver by a Majority of Holders (RRA §10(D)), no
Camden Warrant left to vest) and ``unknown`` (owed, but its amount cannot be computed
until a fact is recorded, which the obligation names: a true-up with no capitalization).
"""

from .lifecycle import STATES, Duty, duties_json

__all__ = ["STATES", "Duty", "duties_json"]
