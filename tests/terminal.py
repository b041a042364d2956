"""The real console script (``deal-ledger``, as installed beside this Python) run in a
pseudo-terminal, as an operator at a terminal runs it: standard input, output and error
are a terminal of ``columns`` columns, and a prompt is answered as it appears. Standard
library only (``os.openpty``)."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

PROMPT = b"[y/N]: "


@dataclass(frozen=True)
class Session:
    code: int
    screen: str        # everything the terminal showed, prompts and answers included
    prompts: int       # how many times the command asked


def in_terminal(args: Sequence[str], answers: Sequence[str] = (), *, columns: int = 80,
                env: dict[str, str] | None = None, cwd: str | None = None,
                timeout: float = 120) -> Session:
    """Run ``deal-ledger ARGS`` in a terminal; answer each ``[y/N]`` prompt with the next
    of ``answers`` (a prompt with no answer left fails the test by timing out)."""
    script = Path(sys.executable).with_name("deal-ledger")
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    base = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "CI")}
    base["DEAL_LEDGER_CACHE"] = "off"
    proc = subprocess.Popen([str(script), *args], stdin=slave, stdout=slave, stderr=slave,
                            env={**base, **(env or {})}, cwd=cwd, start_new_session=True)
    os.close(slave)
    screen, given, deadline = b"", 0, time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    data = os.read(master, 4096)
                except OSError:   # the command ended and closed the terminal
                    break
                if not data:
                    break
                screen += data
                if screen.count(PROMPT) > given and given < len(answers):
                    os.write(master, answers[given].encode() + b"\r")
                    given += 1
            elif proc.poll() is not None:
                break
        else:
            raise AssertionError(f"deal-ledger {' '.join(args)} did not end; it showed: "
                                 f"{screen.decode(errors='replace')}")
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    text = screen.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return Session(code, text, screen.count(PROMPT))
