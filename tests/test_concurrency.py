"""Several OS processes appending to one ledger at once: every event kept exactly once,
seq gap-free, the chain valid, and the deal's rules hold across writers."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter

import pytest

from ledger.chain import verify
from ledger.events import parse_event
from ledger.store import Ledger
from tests.support import ev, opened

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_workers(url: str, n_procs: int, n_each: int, *extra: str) -> list[str]:
    procs = [subprocess.Popen([sys.executable, "-m", "tests.concurrency_worker", url, str(w),
                               str(n_each), *extra], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for w in range(n_procs)]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
        outs.append(out.strip())
    return outs


def _open(url):
    with Ledger(url) as ledger:
        ledger.append([parse_event(opened("rra")),
                       parse_event(ev("NotesIssued", "2004-06-30", holder="L",
                                      principal="5000"))])


@pytest.mark.parametrize("n_procs, n_each", [(2, 150), (8, 1000)])
def test_concurrent_appends_keep_every_event(store_url, n_procs, n_each):
    _open(store_url)
    outs = run_workers(store_url, n_procs, n_each)
    assert outs == [f"appended={n_each} refused=0 busy=0"] * n_procs
    with Ledger(store_url, create=False) as ledger:
        records = list(ledger.records())
        assert verify(ledger).ok
    assert [r["seq"] for r in records] == list(range(1, 2 + n_procs * n_each + 1))
    keys = Counter(r.get("key") for r in records if r["type"] == "NoticeSent")
    assert len(keys) == n_procs * n_each and set(keys.values()) == {1}


def test_two_operators_cannot_together_convert_more_than_held(store_url):
    _open(store_url)  # L holds 5,000.00
    outs = run_workers(store_url, 4, 3, "convert", "L", "1000")
    appended = sum(int(o.split()[0].split("=")[1]) for o in outs)
    refused = sum(int(o.split()[1].split("=")[1]) for o in outs)
    assert (appended, refused) == (5, 7)  # 5 × 1,000 = 5,000 held; 12 tried
    with Ledger(store_url, create=False) as ledger:
        assert verify(ledger).ok
