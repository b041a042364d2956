"""A forked child process that works out one value and sends it back pickled through a
pipe: how a large append uses the second core (``ledger.jsonl`` parses lines there,
``ledger.store.staging`` checks deals there). The child never returns into the caller's code
and never runs its exit handlers; anything that goes wrong in it only means no result,
and the caller then does the child's share itself."""

from __future__ import annotations

import atexit
import gc
import os
import pickle
import signal
from typing import Any, Callable


_NOTHING = object()
_UNREAPED: list[int] = []   # children whose answer came before their exit


def reap(*, block: bool = False) -> None:
    """Collect the exit of children answered earlier (a finished child stays a zombie
    until its parent waits for it); ``block``: wait for those still exiting."""
    for pid in list(_UNREAPED):
        try:
            done, _ = os.waitpid(pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _UNREAPED.remove(pid)


atexit.register(reap)


class Child:
    """``work()`` in a forked child. ``collect=False``: the child never runs the cyclic
    garbage collector (which would write to, and so copy, every page it shares with
    this process)."""

    def __init__(self, work: Callable[[], Any], *, collect: bool = True):
        reap()
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

    def result(self, *, wait: bool = True) -> Any:
        """Waits for the child's answer: what ``work()`` returned, or ``None`` if the
        child failed or sent nothing that unpickles. ``wait=False``: a whole answer is
        the child's last act before it exits, so this process does not wait for the
        exit itself (the kernel takes down a large child's memory in 20-60 ms); the
        caller reaps it later (``reap``), and an exit status already known to be a
        failure still counts."""
        with os.fdopen(self._read_end, "rb") as incoming:
            self._read_end = -1
            payload = incoming.read()
        try:
            found = pickle.loads(payload) if payload else _NOTHING
        except Exception:
            found = _NOTHING
        try:
            pid, status = os.waitpid(self.pid, 0 if wait or found is _NOTHING
                                     else os.WNOHANG)
        except ChildProcessError:
            pid, status = self.pid, 0
        if pid == 0:
            _UNREAPED.append(self.pid)
        elif status != 0:
            return None
        return None if found is _NOTHING else found

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
