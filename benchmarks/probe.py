"""The machine's speed at a moment: a fixed pure-Python workload, timed.

Why: on this shared virtual machine the same work costs up to twice the CPU from one
minute to the next (stop 17 and 18, ``FINDINGS.md``: a 20-million-step loop took 1.80 s
and 3.39 s two minutes apart, CPU time included; the kernel reports no steal). A case's
absolute time then says as much about the moment as about the code. ``Runner.job`` times
this probe before and after every case, and the notes give each case's probe against
the quickest of the run, so a reader can tell a slow case from a slow moment. It does
not change any time, ratio or verdict.

A case that runs its command several times (``views`` after new events, the agenda, the
cold ``report``) also probes just before each run (``jobs.run_cli``) and lists each run
with that probe (``runs_note``): the machine can change speed within one case (stop 19:
the views case's probes were 71 ms before and 72 ms after it, while its runs spent 1.7
times the CPU of the same runs by hand at that speed).

The workload is what the cases spend their time on: a loop of small integer arithmetic,
dict lookups and stores, attribute reads and short string building, in one process,
for about a tenth of a second on a quiet machine. It is timed by CPU time
(``time.process_time``), so it measures the core's speed, not waiting for one.
"""

from __future__ import annotations

import time

STEPS = 200_000


class _Cell:
    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        self.value = value


def workload(steps: int = STEPS) -> int:
    """The probe's fixed work; returns a checksum (so that none of it is skipped)."""
    table: dict[str, int] = {}
    cells = [_Cell(i) for i in range(64)]
    total = 0
    for i in range(steps):
        key = f"k{i & 255}"
        cell = cells[i & 63]
        table[key] = table.get(key, 0) + cell.value
        total += (i * 7) % 13 + len(key)
    return total + sum(table.values())


def probe(steps: int = STEPS) -> float:
    """Seconds of CPU that ``workload(steps)`` took just now."""
    start = time.process_time()
    workload(steps)
    return time.process_time() - start


def slowness(before: float, after: float, quickest: float) -> float:
    """How much slower the machine was around a case than at the run's quickest moment:
    the mean of the probes before and after it, over the quickest probe of the run."""
    return (before + after) / 2 / quickest


def note(before: float, after: float, quickest: float) -> str:
    """The note a case's row gets."""
    return (f"machine probe {slowness(before, after, quickest):.2f}x the run's quickest "
            f"({before * 1000:.0f} ms before, {after * 1000:.0f} ms after)")


def runs_note(runs: list[tuple[float, float]]) -> str:
    """Each run's wall time with the probe taken just before it, ``(seconds, probe
    seconds)`` in run order: ``"runs: 5.26 s (probe 72 ms), 6.96 s (probe 125 ms)"``."""
    def spent(seconds: float) -> str:
        return f"{seconds:.2f} s" if seconds >= 1 else f"{seconds * 1000:.0f} ms"

    return "runs: " + ", ".join(f"{spent(s)} (probe {p * 1000:.0f} ms)" for s, p in runs)
