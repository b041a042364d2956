"""What the events mean: pure functions from a deal's events to reports.

Nothing here does I/O, reads the clock or imports click. Every function takes the
events plus ``as_of``, ``known_at`` and the interpretations in force.
"""
