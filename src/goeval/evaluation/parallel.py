"""Executors for the leaves of an evaluation: a process pool, a local Dask cluster, or a scheduler.

:func:`goeval.evaluate` and :func:`goeval.evaluation.namespace_stats` take
any ``concurrent.futures.Executor`` (``executor=``); the leaves (runs of
proteins of one (method, namespace) block, :func:`goeval.evaluation.leaves.leaf_task`) are submitted to it and
their partial sums added in a fixed tree, so the result is the same, bit
for bit, as a serial run. :func:`dask_executor` opens one from the
command line's ``--dask`` value:

* ``local:N`` - a ``dask.distributed.LocalCluster`` of N single-threaded
  worker processes on this machine, with its scratch space in a temporary
  directory of its own; closed when the context ends, also on an error or
  an interrupt, after which any worker process still running is killed and
  the scratch directory removed;
* ``tcp://HOST:PORT`` (or ``tls://...``) - an existing scheduler (started
  elsewhere, e.g. by dask-jobqueue on a SLURM cluster); only the client is
  closed.

Dask is an optional dependency (``pip install 'goeval[dask]'``).

Examples
--------
>>> parse_dask_address("local:2")
('local', 2)
>>> parse_dask_address("tcp://10.0.0.5:8786")
('tcp://10.0.0.5:8786', None)
"""

from __future__ import annotations

import contextlib
import shutil
import logging
import os
import re
import signal
import sys
import tempfile
import time
import warnings
from multiprocessing import resource_tracker
from typing import Any, Iterator

from goeval.errors import GoevalError, InvalidParameterError

__all__ = ["parse_dask_address", "dask_executor", "require_distributed"]

_LOCAL = re.compile(r"^local(?::(\d+))?$")
_REMOTE = re.compile(r"^(tcp|tls|ucx|inproc|ws|wss)://\S+$")


def parse_dask_address(value: str) -> tuple[str, int | None]:
    """``('local', N)`` for ``local[:N]`` (N defaults to 2), or ``(address, None)`` for a scheduler.

    Raises
    ------
    InvalidParameterError
        For anything else, or N < 1.
    """
    text = str(value).strip()
    m = _LOCAL.match(text)
    if m:
        n = int(m.group(1)) if m.group(1) else 2
        if n < 1:
            raise InvalidParameterError(f"The '--dask' parameter needs at least 1 worker; got {value!r}.")
        return "local", n
    if _REMOTE.match(text):
        return text, None
    raise InvalidParameterError(
        f"The '--dask' parameter must be local:N (a local cluster of N workers) or a scheduler address "
        f"such as tcp://HOST:8786; got {value!r}.")


def require_distributed() -> Any:
    try:
        import distributed  # optional: the dask extra
    except ImportError:
        raise InvalidParameterError(
            "--dask needs Dask's distributed scheduler: pip install 'goeval[dask]'.") from None
    return distributed


@contextlib.contextmanager
def dask_executor(value: str, *, timeout: float = 30.0) -> Iterator[Any]:
    """An executor on a Dask cluster (see the module's docstring); closed when the context ends.

    Parameters
    ----------
    value : str
        ``local:N`` or a scheduler address.
    timeout : float
        Seconds to wait for the scheduler (a remote one) before giving up.

    Yields
    ------
    concurrent.futures.Executor
        ``Client.get_executor()``.

    Raises
    ------
    InvalidParameterError
        A malformed value, Dask not installed.
    GoevalError
        When the scheduler cannot be reached.
    """
    kind, n = parse_dask_address(value)
    distributed = require_distributed()
    # Dask's log lines are not goeval's messages: its errors reach goeval as exceptions, and an
    # interrupt while the cluster starts leaves asyncio tasks whose failures would be logged
    for name in ("distributed", "distributed.scheduler", "distributed.worker", "distributed.nanny",
                 "distributed.core", "asyncio", "tornado.application"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if kind == "local":
        with _local_executor(distributed, n) as executor:
            yield executor
        return
    client = _connect(distributed, kind, timeout)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
            yield client.get_executor()
    finally:
        client.close()


@contextlib.contextmanager
def _local_executor(distributed: Any, n: int) -> Iterator[Any]:
    """The executor of a LocalCluster of ``n`` workers that leaves nothing behind, however it ends.

    On exit, interrupted or not: the client and the cluster are closed, and
    so is a cluster whose start was interrupted (it is not returned to us
    but goes on starting, and restarting killed workers, in Dask's thread);
    worker processes still running are killed and reaped (:class:`_ChildGuard`);
    the scratch directory (Dask's ``temporary-directory`` for the whole
    span, so that a cluster still starting writes there too) is removed;
    the resource tracker started for the cluster is stopped and reaped.
    """
    scratch: list[str] = []  # created inside the protected span: an interrupt at any moment removes it
    try:
        scratch.append(tempfile.mkdtemp(prefix="goeval-dask-"))
        with _cluster_executor(distributed, n, scratch[0]) as executor:
            yield executor
    finally:
        for path in scratch:
            _finish_despite_interrupts(lambda: shutil.rmtree(path, ignore_errors=True))


@contextlib.contextmanager
def _cluster_executor(distributed: Any, n: int, scratch: str) -> Iterator[Any]:
    """The LocalCluster's executor with Dask's scratch space in ``scratch``; everything closed on exit."""
    import dask  # optional: the dask extra
    from distributed.deploy.spec import SpecCluster  # optional: the dask extra

    with dask.config.set({"temporary-directory": scratch}), _ChildGuard() as guard, warnings.catch_warnings():
        # a file task carries the ontology and the benchmark (a few MiB): expected, not worth a warning
        warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
        cluster = client = None
        tracker = _Tracker()
        clusters_before = set(SpecCluster._instances)
        try:
            tracker.start()
            cluster = _local_cluster(distributed, n, scratch)
            client = distributed.Client(cluster)
            yield client.get_executor()
        finally:
            started = [c for c in set(SpecCluster._instances) - clusters_before if c is not cluster]
            for close in (getattr(client, "close", None), getattr(cluster, "close", None),
                          *(c.close for c in started), guard.stop_new_children,
                          lambda: shutil.rmtree(scratch, ignore_errors=True), tracker.stop):
                _finish_despite_interrupts(close)


class _Tracker:
    """multiprocessing's resource tracker, started for the cluster quietly and stopped (reaped) after it.

    Workers killed after an interrupt leave semaphores that the tracker
    removes with a warning each: it is started with those warnings off. A
    tracker this process already had is left running; one started here is
    stopped once the workers are gone, so that it is reaped by this process
    rather than left to end on its own after it.
    """

    QUIET = "ignore::UserWarning:multiprocessing.resource_tracker"

    def start(self) -> None:
        self.tracker = resource_tracker._resource_tracker
        self.before = self.tracker._pid
        if self.QUIET not in sys.warnoptions:  # the tracker's interpreter flags are taken from here
            sys.warnoptions.append(self.QUIET)
        resource_tracker.ensure_running()

    def stop(self) -> None:
        """Close the tracker's pipe and reap it (killed if it has not ended within 5 s); never blocks
        on a tracker that Dask's thread is still using (then it ends with this process)."""
        tracker = getattr(self, "tracker", None)
        if tracker is None or tracker._pid is None or tracker._pid == self.before:
            return
        if not tracker._lock.acquire(timeout=2):
            return
        try:
            fd, pid = tracker._fd, tracker._pid
            if fd is None:
                return
            os.close(fd)
            tracker._fd = None
            end = time.monotonic() + 5
            while os.waitpid(pid, os.WNOHANG) == (0, 0):
                if time.monotonic() > end:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    break
                time.sleep(0.02)
            tracker._pid = None
        except ChildProcessError:
            tracker._pid = None
        finally:
            tracker._lock.release()


def _finish_despite_interrupts(step: Any, tries: int = 3) -> None:
    """Run a clean-up step; a termination raised again meanwhile restarts it (at most ``tries`` times).

    Errors of the step itself are ignored: a cluster closed after an
    interrupt may complain, and the next steps end what it left.
    """
    if step is None:
        return
    for _ in range(tries):
        try:
            step()
            return
        except KeyboardInterrupt:
            continue
        except Exception:  # noqa: BLE001 - see the docstring
            return


class _ChildGuard:
    """Stops the worker processes a local cluster left running.

    A run interrupted while its cluster starts or stops (Ctrl-C, SIGTERM)
    must not leave a process behind, and the cluster's own thread may still
    be starting workers: until no new one has appeared for a short while,
    the child processes of this process that did not exist on entry and
    run Python's ``multiprocessing`` (its resource tracker aside: it ends
    with this process) are killed and reaped. A termination
    raised again meanwhile (the command line repeats an ignored one) does
    not cut this short; the first one goes on unwinding afterwards.
    """

    QUIET = 0.3  # seconds without a new child before the guard is done
    LIMIT = 10.0  # seconds at most

    def __enter__(self) -> "_ChildGuard":
        import psutil  # optional: psutil comes with the dask extra

        self.me = psutil.Process()
        self.before = {c.pid for c in self.me.children(recursive=True)}
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop_new_children()

    def stop_new_children(self) -> None:
        end = time.monotonic() + self.LIMIT
        quiet_since = time.monotonic()
        while time.monotonic() < end:
            try:
                if self._kill_once():
                    quiet_since = time.monotonic()
                elif time.monotonic() - quiet_since >= self.QUIET:
                    return
                time.sleep(0.05)
            except KeyboardInterrupt:  # a repeated termination: finish the clean-up first
                continue

    def _kill_once(self) -> bool:
        """Kill and reap the new children still running; whether there were any."""
        import psutil  # optional: psutil comes with the dask extra

        new = [c for c in self.me.children(recursive=True) if c.pid not in self.before and _is_ours(c)]
        for c in new:
            with contextlib.suppress(psutil.Error):
                c.kill()
        psutil.wait_procs(new, timeout=5)
        return bool(new)


def _is_ours(proc: Any) -> bool:
    """A worker process started by multiprocessing (not its resource tracker, which ends with this
    process and must not be restarted empty, and whose warnings are turned off, see _local_cluster)."""
    import psutil  # optional: psutil comes with the dask extra

    try:
        cmd = " ".join(proc.cmdline())
    except psutil.Error:
        return False
    return "multiprocessing" in cmd and "resource_tracker import main" not in cmd


def _local_cluster(distributed: Any, n: int, scratch: str) -> Any:
    """A LocalCluster of ``n`` single-threaded worker processes, with glibc's allocator left adaptive.

    Dask's nannies set ``MALLOC_TRIM_THRESHOLD_`` in their workers' environment;
    any fixed malloc threshold turns off glibc's dynamic mmap threshold, so
    every large temporary array of the sweep kernels is mapped, page-faulted
    and unmapped again: the leaves ran about 3x slower in such a worker
    than in a plain process. The variable is left unset for goeval's own
    cluster (set ``distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_:
    null`` in the Dask configuration of workers you start yourself).
    """
    import dask  # optional: the dask extra

    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
        return distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                                        local_directory=scratch, silence_logs=logging.CRITICAL)


def _connect(distributed: Any, address: str, timeout: float) -> Any:
    try:
        return distributed.Client(address, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise GoevalError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
