"""Input without a newline is bounded in memory (issue 29, item 6).

A batch's line may hold at most 1 MiB (``ledger.jsonl.MAX_LINE``); that limit was applied
after the whole input was read: 600 MB of one line on ``append -`` peaked at 627 MiB, and
``/dev/zero`` into ``append``, ``init --terms``, ``whatif --add`` or ``correct ID FILE``
grew to about 24 GB until the kernel killed it. Each now reads at most the limit and one
byte of a line (a terms file: at most 1 MiB in all), and is refused in one line. The test
runs each as the console script under a 256 MB address-space limit: a command that read
its input whole would die of it (MemoryError) instead of answering.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

from tests.cli_support import ok, run

LIMIT = 256 * 1024 * 1024


def _limited():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def deal_ledger(*args: str, stdin=None, cwd=None) -> subprocess.CompletedProcess:
    script = os.path.join(os.path.dirname(sys.executable), "deal-ledger")
    return subprocess.run([script, *args], stdin=stdin, capture_output=True, text=True,
                          timeout=120, preexec_fn=_limited, cwd=cwd)


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "d.db")
    ok(run("init", "rra", "--template", "infocrossing-rra-2004", "--db", path))
    return path


@pytest.mark.parametrize("args, message", [
    (["append", "/dev/zero"], "line 1: the line is longer than 1048576 bytes"),
    (["init", "x", "--terms", "/dev/zero"], "/dev/zero is larger than 1048576 bytes"),
    (["whatif", "rra", "--as-of", "2005-01-31", "--add", "/dev/zero"],
     "line 1: the line is longer than 1048576 bytes"),
])
def test_dev_zero_is_refused_within_the_limit(db, args, message):
    done = deal_ledger(*args, "--db", db)
    assert done.returncode == 3, done.stderr
    assert message in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert "MemoryError" not in done.stderr and "Traceback" not in done.stderr


def test_correct_with_dev_zero_is_refused_within_the_limit(db):
    from tests.test_cli_operators import log_records

    first = log_records(db)[0]["id"]
    done = deal_ledger("correct", first, "/dev/zero", "--reason", "x", "--db", db)
    assert done.returncode == 3 and "line 1: the line is longer than" in done.stderr, done.stderr


def test_a_600_mb_line_on_standard_input_is_refused_within_the_limit(db):
    """600 MB of one line, no newline, on ``append -``: refused at its first MiB."""
    feeder = subprocess.Popen(["head", "-c", str(600 * 1024 * 1024), "/dev/zero"],
                              stdout=subprocess.PIPE)
    try:
        done = deal_ledger("append", "-", "--db", db, stdin=feeder.stdout)
    finally:
        feeder.stdout.close()
        feeder.kill()
        feeder.wait()
    assert done.returncode == 3, done.stderr
    assert "line 1: the line is longer than 1048576 bytes" in done.stderr


def test_a_long_line_after_good_ones_is_named_by_its_number(db, tmp_path):
    good = ('{"type": "ShelfFiled", "deal": "rra", "date": "2004-07-13", "data": {}}\n')
    batch = tmp_path / "b.jsonl"
    batch.write_bytes(good.encode() + b"x" * (1024 * 1024 + 1))
    done = deal_ledger("append", str(batch), "--db", db)
    assert done.returncode == 3 and "line 2: the line is longer than" in done.stderr


def test_a_line_of_exactly_the_limit_is_read(tmp_path):
    """The limit is the line's bytes without its newline: 1,048,576 bytes are read (and
    judged as JSON), 1,048,577 are refused as too long."""
    from ledger.jsonl import MAX_LINE, read_input

    path = tmp_path / "b.jsonl"
    path.write_bytes(b"a" * MAX_LINE + b"\n" + b"b" * 3 + b"\n")
    assert read_input(str(path)) == b"a" * MAX_LINE + b"\nbbb\n"
    path.write_bytes(b"a" * MAX_LINE)           # no newline at the end: still a line
    assert read_input(str(path)) == b"a" * MAX_LINE
    from ledger.errors import InvalidEvent

    path.write_bytes(b"ok\n" + b"a" * (MAX_LINE + 1))
    with pytest.raises(InvalidEvent) as refused:
        read_input(str(path))
    assert refused.value.line == 2
