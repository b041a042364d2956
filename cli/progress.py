"""Progress on long work: a ``rich`` bar on stderr when stderr is a terminal, nothing
otherwise (CI, pipes, files), so a script's output never carries bar fragments.

Library functions below the CLI take a plain callback, ``advance(n)``, and know nothing of
``rich``; the command wraps it::

    with progress("appending", total=len(lines)) as advance:
        ledger.append(events, on_progress=advance)
"""

from __future__ import annotations

import contextlib
import sys
from typing import Callable, Iterator


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError, OSError):  # a replaced or closed stream
        return False


def _console():
    """Where the bar is drawn: standard error (a test puts a terminal of its own here)."""
    from rich.console import Console

    return Console(stderr=True)


@contextlib.contextmanager
def progress(label: str, total: int | None = None, *, unit: str = "events"
             ) -> Iterator[Callable[[int], None]]:
    """Yield ``advance(n)``: a bar on a terminal's stderr, a no-op anywhere else."""
    if not _stderr_is_terminal():
        yield lambda n=1: None
        return
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)
    from rich.table import Column

    # the count keeps its whole width (``export`` at 80 columns showed ``61000/1234…``):
    # the bar gives way first
    digits = len(str(total) if total is not None else "?")
    bar = Progress(TextColumn("{task.description}", table_column=Column(no_wrap=True)),
                   BarColumn(bar_width=None),
                   MofNCompleteColumn(table_column=Column(min_width=2 * digits + 1,
                                                          no_wrap=True)),
                   TextColumn(unit), TimeElapsedColumn(), TimeRemainingColumn(),
                   console=_console(), transient=True)
    with bar:
        task = bar.add_task(label, total=total)
        yield lambda n=1: bar.advance(task, n)
