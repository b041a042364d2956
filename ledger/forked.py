"""A forked child process that works out one value and sends it back pickled through a
pipe: how a large append uses the second core (``ledger.jsonl`` parses lines there,
``ledger.staging`` checks deals there). The child never returns into the caller's code
and never runs its exit handlers; anything that goes wrong in it only means no result,
and the caller then does the child's share itself."""

from __future__ import annotations

import gc
import os
import pickle
import signal
from typing import Any, Callable


class Child:
    """``work()`` in a forked child. ``collect=False``: the child never runs the cyclic
    garbage collector (which would write to, and so copy, every page it shares with
    this process)."""

    def __init__(self, work: Callable[[], Any], *, collect: bool = True):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:   # the child
            status = 1
            try:
                if not collect:
                    gc.disable()
                os.close(read_end)
                payload = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write_end, "wb") as out:
                    out.write(payload)
                status = 0
            finally:
                os._exit(status)
        os.close(write_end)
        self.pid = pid
        self._read_end = read_end

    def result(self) -> Any:
        """Waits for the child: what ``work()`` returned, or ``None`` if the child failed
        or sent nothing that unpickles."""
        with os.fdopen(self._read_end, "rb") as incoming:
            self._read_end = -1
            payload = incoming.read()
        _, status = os.waitpid(self.pid, 0)
        if status != 0 or not payload:
            return None
        try:
            return pickle.loads(payload)
        except Exception:
            return None

    def stop(self) -> None:
        """Kills the child (this process is leaving, or does its share itself)."""
        if self._read_end >= 0:
            os.close(self._read_end)
            self._read_end = -1
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass
