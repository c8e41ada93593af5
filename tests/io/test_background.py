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


# ------------------------------------------------------------------ streams
def _items(n: int, fail_at: int | None = None, log: str | None = None):
    for i in range(n):
        if log is not None:
            with open(log, "a") as fh:
                fh.write(f"{i}\n")
        if i == fail_at:
            raise InputFormatError("preds.tsv", i, "bad line", "x y")
        yield {"i": i, "codes": np.full(50_000, i, dtype=np.int32)}


def test_stream_items_come_in_order_through_shared_memory():
    job = start(_items, 30, name="test", fork=True, stream=True)
    assert job.forked
    got = list(job.items())
    assert [g["i"] for g in got] == list(range(30)) and live_children() == []
    assert all((g["codes"] == g["i"]).all() and not g["codes"].flags.writeable for g in got)
    del got
    assert _memfd_count() == 0  # each item's memory goes with it
    with pytest.raises(GoevalError, match="already taken"):
        next(job.items())


def test_stream_error_comes_after_the_items_before_it():
    got = []
    with pytest.raises(InputFormatError) as err:
        for item in start(_items, 30, 4, name="test", fork=True, stream=True).items():
            got.append(item["i"])
    assert got == [0, 1, 2, 3] and err.value.line == 4 and live_children() == []


def test_stream_child_runs_at_most_a_few_items_ahead(tmp_path):
    log = tmp_path / "made.txt"
    job = start(_items, 200, None, str(log), name="test", fork=True, stream=True)
    items = job.items()
    assert next(items)["i"] == 0
    time.sleep(1.0)  # time for the child to run ahead as far as it may
    assert len(log.read_text().split()) <= bg.STREAM_AHEAD + 2
    pid = job._pid
    items.close()  # leaving early stops the child
    assert not _alive(pid) and live_children() == []


def test_stream_not_forked_runs_in_process_when_iterated():
    job = start(_items, 3, name="test", fork=False, stream=True)
    assert not job.forked
    assert [g["i"] for g in job.items()] == [0, 1, 2]
