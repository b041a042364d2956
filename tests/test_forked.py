"""``ledger.forked.Child``: a forked child's answer, or ``None`` when it fails; the answer
is taken without waiting for the child's exit, and the child is reaped later."""

from __future__ import annotations

import os
import signal

import pytest

from ledger import forked

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")


def test_the_childs_answer():
    assert forked.Child(lambda: {"deals": ["a", "b"], "n": 2}).result() == {
        "deals": ["a", "b"], "n": 2}


def _raises():
    raise RuntimeError("broken")


def _dies():
    os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.parametrize("work", [_raises, _dies])
def test_a_child_that_fails_answers_none(work):
    assert forked.Child(work).result() is None


def test_a_child_that_sends_nothing_answers_none():
    assert forked.Child(lambda: os._exit(0)).result() is None


def test_answered_children_are_reaped():
    import time

    children = [forked.Child(lambda i=i: i) for i in range(3)]
    assert [c.result(wait=False) for c in children] == [0, 1, 2]
    deadline = time.monotonic() + 10
    while forked._UNREAPED and time.monotonic() < deadline:
        forked.reap()   # what the next Child does first
        time.sleep(0.01)
    assert forked._UNREAPED == []
    for c in children:   # no zombie left: each was waited for
        with pytest.raises(ChildProcessError):
            os.waitpid(c.pid, os.WNOHANG)


def test_a_blocking_reap_leaves_no_child():
    child = forked.Child(lambda: "answered")
    assert child.result(wait=False) == "answered"
    forked.reap(block=True)
    assert forked._UNREAPED == []
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)


def test_stop_kills_a_child_that_would_not_end():
    import time

    child = forked.Child(lambda: time.sleep(60))
    child.stop()
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)
