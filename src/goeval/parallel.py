"""Executors for the leaves of an evaluation: a process pool, a local Dask cluster, or a scheduler.

:func:`goeval.evaluate` and :func:`goeval.evaluation.namespace_stats` take
any ``concurrent.futures.Executor`` (``executor=``); the (method, namespace,
chunk of proteins) tasks of :mod:`goeval.chunked` are submitted to it and
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
import logging
import re
import warnings
from typing import Any, Iterator

from goeval.errors import InvalidParameterError

__all__ = ["parse_dask_address", "dask_executor"]

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


def _require_distributed() -> Any:
    try:
        import distributed
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
    distributed = _require_distributed()
    for name in ("distributed", "distributed.scheduler", "distributed.worker", "distributed.nanny"):
        logging.getLogger(name).setLevel(logging.ERROR)  # their INFO lines are not goeval's messages
    if kind != "local":
        client = _connect(distributed, kind, timeout)
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
                yield client.get_executor()
        finally:
            client.close()
        return
    import tempfile

    with _ChildGuard() as guard, tempfile.TemporaryDirectory(prefix="goeval-dask-") as scratch, \
            warnings.catch_warnings():
        # a file task carries the ontology and the benchmark (a few MiB): expected, not worth a warning
        warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
        cluster = client = None
        try:
            cluster = _local_cluster(distributed, n, scratch)
            client = distributed.Client(cluster)
            yield client.get_executor()
        finally:
            for part in (client, cluster):
                if part is not None:
                    try:
                        part.close()
                    except BaseException:  # noqa: BLE001 - closing after an interrupt: the guard ends the rest
                        pass
            guard.stop_new_children()


class _ChildGuard:
    """Stops the worker processes (and multiprocessing's resource tracker) a local cluster left running.

    A run interrupted while its cluster starts or stops (Ctrl-C, SIGTERM)
    must not leave a process behind: the child processes of this process
    that did not exist on entry and run Python's ``multiprocessing`` are
    killed and reaped on exit, whatever ``LocalCluster.close`` managed.
    """

    def __enter__(self) -> "_ChildGuard":
        import psutil

        self.me = psutil.Process()
        self.before = {c.pid for c in self.me.children(recursive=True)}
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop_new_children()

    def stop_new_children(self) -> None:
        import psutil

        new = [c for c in self.me.children(recursive=True) if c.pid not in self.before and _is_ours(c)]
        for c in new:
            with contextlib.suppress(psutil.Error):
                c.kill()
        psutil.wait_procs(new, timeout=10)


def _is_ours(proc: Any) -> bool:
    """A process started by multiprocessing (a Dask worker, a nanny's process, the resource tracker)."""
    import psutil

    try:
        return any("multiprocessing" in part for part in proc.cmdline())
    except psutil.Error:
        return False


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
    import dask

    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
        return distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                                        local_directory=scratch, silence_logs=logging.CRITICAL)


def _connect(distributed: Any, address: str, timeout: float) -> Any:
    from goeval.errors import GoevalError

    try:
        return distributed.Client(address, timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise GoevalError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
