"""``python -m benchmarks.agenda [--deals N] [--cache DIR]``: the agenda across a
portfolio (issue 16/17 target: 1,000 deals in under 1 s).

The ledger: ``N`` deals, each a copy of the demo's two histories (the RRA deal, 30
events, every Registration Default type; the Letter deal, 26 events) under its own name,
so N/2 of each kind. It is built once (cached by N) and the agenda is timed warm and cold
in this process: ``publishing.agenda.agenda`` reading the store (one pass over the log)
and computing every deal's obligations as of the demo's day, median of 3; then with
``--cache``: the first run, the same day again, the next day (a daily run with nothing
recorded since) and the next day after 10 events in 10 deals.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from datetime import date


def build_ledger(path: str, deals: int) -> None:
    from ledger.events import parse_event
    from ledger.store import Ledger
    from publishing.demo import letter_history, rra_history

    objs = []
    for i in range(deals):
        history = rra_history() if i % 2 == 0 else letter_history()
        name = f"deal-{i:05d}"
        for o in history:
            objs.append({**o, "deal": name})
    with Ledger(path, create=True) as ledger:
        for at in range(0, len(objs), 20_000):
            chunk = objs[at:at + 20_000]
            ledger.append([parse_event(o, line=at + k + 1) for k, o in enumerate(chunk)])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.agenda")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(),
                                                        "deal-ledger-bench-agenda"))
    args = parser.parse_args(argv)
    os.makedirs(args.cache, exist_ok=True)
    path = os.path.join(args.cache, f"agenda-{args.deals}.db")
    if not os.path.exists(path):
        t = time.perf_counter()
        build_ledger(path, args.deals)
        print(f"built {args.deals} deals in {time.perf_counter() - t:.1f} s: {path}")
    from ledger.store import Ledger
    from publishing.agenda import agenda

    options = dict(as_of=date(2005, 10, 1), days=90)

    def timed(db: str, **extra) -> tuple[float, dict]:
        with Ledger(db) as ledger:
            t = time.perf_counter()
            result = agenda(ledger, **{**options, **extra})
            return time.perf_counter() - t, result

    runs = [timed(path) for _ in range(3)]
    result = runs[-1][1]
    cold = statistics.median(t for t, _ in runs)
    print(f"agenda over {args.deals} deals ({len(result['items'])} lines, "
          f"{result['overdue']} overdue), computed from the store: median {cold:.3f} s "
          f"(runs: {', '.join(f'{t:.3f}' for t, _ in runs)})")
    work = tempfile.mkdtemp(prefix="agenda-bench-")
    db = os.path.join(work, "l.db")
    shutil.copy(path, db)
    cache = os.path.join(work, "agenda.json")
    built, _ = timed(db, cache=cache)
    warm = [timed(db, cache=cache) for _ in range(3)]
    assert warm[-1][1] == result
    print(f"  --cache: first run {built:.3f} s; fresh cache median "
          f"{statistics.median(t for t, _ in warm):.3f} s")
    # a daily run: the next day, nothing recorded since (the Letter deals' lines hold)
    def day_copy() -> None:   # the cache and its records as the first day's run left them
        for suffix in ("", ".records"):
            shutil.copy(cache + suffix, cache + ".day" + suffix)

    nxt = []
    for _ in range(3):
        day_copy()
        nxt.append(timed(db, cache=cache + ".day", as_of=date(2005, 10, 2)))
    _, plain = timed(path, as_of=date(2005, 10, 2))
    assert nxt[-1][1] == plain
    print(f"  --cache, the next day (a daily run): median "
          f"{statistics.median(t for t, _ in nxt):.3f} s "
          f"(runs: {', '.join(f'{t:.3f}' for t, _ in nxt)})")
    from ledger.events import parse_event

    day_copy()
    with Ledger(db) as ledger:
        ledger.append([parse_event({"type": "HoldersAdvised", "deal": f"deal-{i:05d}",
                                    "date": "2004-07-21", "data": {}}, line=k + 1)
                       for k, i in enumerate(range(0, 20, 2))])
    inc, got = timed(db, cache=cache)
    _, plain = timed(db)
    assert got == plain
    print(f"  --cache after 10 events in 10 deals, the same day: {inc:.3f} s")
    inc, got = timed(db, cache=cache + ".day", as_of=date(2005, 10, 2))
    _, plain = timed(db, as_of=date(2005, 10, 2))
    assert got == plain
    print(f"  --cache after 10 events in 10 deals, the next day: {inc:.3f} s")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
