"""A separate OS process that appends events one by one (used by test_concurrency).

usage: python -m tests.concurrency_worker URL WORKER N [convert HOLDER PRINCIPAL]
Prints one line: appended=<n> refused=<n> busy=<n>."""

from __future__ import annotations

import sys

from ledger.errors import LedgerBusy, RuleViolation
from ledger.events import parse_event
from ledger.store import Ledger


def main(argv: list[str]) -> None:
    url, worker, n = argv[0], argv[1], int(argv[2])
    mode = argv[3] if len(argv) > 3 else "notice"
    appended = refused = busy = 0
    with Ledger(url, create=False) as ledger:
        for i in range(n):
            if mode == "convert":
                obj = {"type": "NotesConverted", "deal": "rra", "date": "2005-01-03",
                       "data": {"holder": argv[4], "principal": argv[5], "shares": 1}}
            else:
                obj = {"type": "NoticeSent", "deal": "rra", "date": "2005-01-03",
                       "data": {"to": f"holder {worker}", "subject": f"notice {worker}-{i}",
                                "method": "hand"},
                       "key": f"{worker}-{i}"}
            try:
                ledger.append([parse_event(obj)], user=f"worker-{worker}")
                appended += 1
            except RuleViolation:
                refused += 1
            except LedgerBusy:
                busy += 1
    print(f"appended={appended} refused={refused} busy={busy}")


if __name__ == "__main__":
    main(sys.argv[1:])
