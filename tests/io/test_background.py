"""The forked background reads: results, errors, and nothing left behind."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

from goeval.errors import GoevalError, InputFormatError, InvalidParameterError
from goeval.io import background as bg
from goeval.io.background import cancel_all, live_children, should_fork, start

pytestmark = pytest.mark.skipif(not bg.fork_supported(), reason="forked reads need Linux")


def _arrays(n: int) -> dict:
    return {"codes": np.arange(n, dtype=np.int32), "scores": np.linspace(0, 1, n),
            "names": np.asarray(["a", "b"], dtype=object), "n": n}


def _fail(path: str) -> None:
    raise InputFormatError(path, 3, "bad line", "x y")


def _sleep_forever() -> None:  # pragma: no cover - killed by the parent
    while True:
        time.sleep(1)


def _exit_silently() -> int:  # pragma: no cover - runs in the child
    os._exit(0)


def _memfd_count() -> int:
    return sum("goeval-background" in os.readlink(f"/proc/self/fd/{fd}")
               for fd in os.listdir("/proc/self/fd") if os.path.exists(f"/proc/self/fd/{fd}"))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_result_travels_through_shared_memory_read_only():
    job = start(_arrays, 100_000, name="test", fork=True)
    assert job.forked and live_children() == [job._pid]
    out = job.result()
    assert live_children() == []
    np.testing.assert_array_equal(out["codes"], np.arange(100_000, dtype=np.int32))
    np.testing.assert_array_equal(out["scores"], np.linspace(0, 1, 100_000))
    assert out["names"].tolist() == ["a", "b"] and out["n"] == 100_000
    assert not out["scores"].flags.writeable
    with pytest.raises(GoevalError, match="already taken"):  # handed over, not kept alive here
        job.result()


def test_child_exception_is_reraised_with_its_line():
    job = start(_fail, "preds.tsv", name="test", fork=True)
    with pytest.raises(InputFormatError) as err:
        job.result()
    assert err.value.line == 3 and err.value.path == "preds.tsv"
    assert live_children() == []


def test_cancel_kills_and_reaps_a_running_child():
    job = start(_sleep_forever, name="test", fork=True)
    pid = job._pid
    assert _alive(pid)
    job.cancel()
    job.cancel()  # idempotent
    assert not _alive(pid) and live_children() == []


def test_cancel_all_reaps_every_child():
    jobs = [start(_sleep_forever, name="test", fork=True) for _ in range(2)]
    pids = [j._pid for j in jobs]
    cancel_all()
    assert live_children() == [] and not any(_alive(p) for p in pids)


def test_child_dying_silently_falls_back_to_in_process(monkeypatch):
    job = start(_exit_silently, name="test", fork=True)
    # the in-process fallback would exit this process: replace the function first
    job._fn = lambda: 42
    assert job.result() == 42 and live_children() == []


def test_not_forked_runs_lazily_in_process():
    calls = []
    job = start(lambda: calls.append(1) or 7, name="test", fork=False)
    assert not job.forked and calls == []
    assert job.result() == 7 and calls == [1]


def test_no_descriptor_or_file_left_behind(tmp_path):
    before = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
    for _ in range(3):
        start(_arrays, 10_000, name="test", fork=True).result()
    with pytest.raises(InputFormatError):
        start(_fail, "x", name="test", fork=True).result()
    start(_arrays, 10, name="test", fork=True).cancel()
    after = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
    assert after == before
    assert _memfd_count() == 0


def test_interrupted_wait_cancels_the_child():
    job = start(_sleep_forever, name="test", fork=True)
    pid = job._pid

    def interrupt(signum, frame):  # noqa: ANN001
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(KeyboardInterrupt):
            job.result()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert not _alive(pid) and live_children() == []


@pytest.mark.parametrize(("mode", "large", "expected"), [
    ("always", False, True), ("never", True, False), ("auto", True, True), ("auto", False, False)])
def test_fork_policy(monkeypatch, mode, large, expected):
    monkeypatch.setenv("GOEVAL_FORK", mode)
    assert should_fork(large) is expected


def test_bad_fork_policy_is_a_parameter_error(monkeypatch):
    monkeypatch.setenv("GOEVAL_FORK", "sometimes")
    with pytest.raises(InvalidParameterError, match="GOEVAL_FORK"):
        should_fork(True)
