"""Run a read in a forked child process: start, result, cancel.

goeval starts its slowest reads (the second half of an OBO file, the first
prediction file) in forked children while the parent imports modules and
parses the rest, so a cold run takes about half the time. This module is the
one place that forks, and it guarantees that a child never outlives its
run:

* the child dies with its parent (Linux ``PR_SET_PDEATHSIG``), ignores
  Ctrl-C (the parent decides), and has its standard streams on
  ``/dev/null``, so a pipeline such as ``goeval evaluate ... | tail`` never
  waits for it;
* the child closes the parent's end of its own socket and of every other
  child's, so no process holds a pipe it does not use;
* the result travels back pickled (protocol 5), with every large numpy
  array out of band in an anonymous memory file of its own
  (``memfd_create``): the parent maps it read-only, and nothing is ever written to the file system,
  so a failed, interrupted or killed run cannot leave a file behind;
* a call whose value is an iterable may be started as a stream
  (``start(..., stream=True)``): the child sends each item as it is made
  and :meth:`Background.items` gives them in order, at most a few items
  ahead of the caller (the caller's receipt of each lets the child send one
  more), so the caller works on the first items while the child makes the
  next ones, in the memory of a few items;
* :meth:`Background.result` and :meth:`Background.cancel` reap the child;
  :func:`cancel_all` (called by the command line before it exits, and at
  interpreter exit) kills and reaps any child still running.

``GOEVAL_FORK`` selects the policy: ``auto`` (default: fork large inputs on
Linux), ``always`` (fork even tiny inputs; the tests use it) or ``never``
(everything in-process, lazily when the result is asked for).
"""

from __future__ import annotations

import atexit
import ctypes
import mmap
import os
import pickle
import queue
import signal
import socket
import struct
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from goeval.errors import GoevalError, InvalidParameterError

__all__ = ["Background", "start", "should_fork", "fork_mode", "fork_supported", "cancel_all", "live_children",
           "prefetched", "ordered_map"]

_MODES = ("auto", "always", "never")
_HEADER = struct.Struct("!QQ")  # length of the pickled metadata, number of out-of-band buffers
_MAX_FDS = 200  # descriptors in one message (the kernel allows about 250)
_LIVE: dict[int, "Background"] = {}
_UNWIND_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
#: Items a streamed child sends beyond those the caller has received.
STREAM_AHEAD = 8
_CREDIT = b"\x01"  # the caller's receipt of one item


def fork_mode() -> str:
    """The ``GOEVAL_FORK`` policy: ``'auto'``, ``'always'`` or ``'never'``."""
    mode = os.environ.get("GOEVAL_FORK", "auto").strip().lower() or "auto"
    if mode not in _MODES:
        raise InvalidParameterError(
            f"The GOEVAL_FORK environment variable must be one of {{'auto', 'always', 'never'}}; got {mode!r}.")
    return mode


def fork_supported() -> bool:
    """Whether this platform can run reads in forked children (Linux with ``memfd_create``)."""
    return (sys.platform.startswith("linux") and hasattr(os, "fork") and hasattr(os, "memfd_create")
            and hasattr(socket, "send_fds"))


def should_fork(large: bool) -> bool:
    """Whether to fork a read: ``always``/``never`` as set, ``auto`` when ``large``."""
    mode = fork_mode()
    if mode == "never" or not fork_supported():
        return False
    return mode == "always" or bool(large)


def live_children() -> list[int]:
    """Process ids of the children started here and not yet reaped."""
    return sorted(_LIVE)


def cancel_all() -> None:
    """Kill and reap every child still running (idempotent)."""
    for bg in list(_LIVE.values()):
        bg.cancel()


atexit.register(cancel_all)


class Background:
    """A call ``fn(*args)`` running in a forked child (or deferred in-process).

    Use :func:`start` to create one. ``result()`` returns the value once
    (numpy arrays in it are read-only views of shared memory), re-raising
    the child's exception (a stream's items come from ``items()`` instead);
    ``cancel()`` stops the child and may be called any number of times. Both
    reap the child.
    """

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], name: str, stream: bool = False) -> None:
        self.name = name
        self._fn, self._args = fn, args
        self.stream = stream  #: the call's items are sent one by one (:meth:`items`)
        self._pid: int | None = None
        self._sock: socket.socket | None = None
        self._done = False
        self.forked = False  #: True when a child process was started for this call

    def _fork(self) -> None:
        parent_end, child_end = socket.socketpair()
        # No signal handler may run inside fork's callbacks (an exception raised
        # there would be swallowed): the signals wait until fork has returned.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, _UNWIND_SIGNALS)
        try:
            pid = os.fork()
        except BaseException:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            raise
        if pid == 0:  # pragma: no cover - runs in the child (its coverage is not collected)
            code = 0
            try:
                parent_end.close()
                (_child_stream if self.stream else _child_main)(child_end, self._fn, self._args, mask)
            except BaseException:  # noqa: BLE001 - the child must never return into the caller's code
                code = 1
            finally:
                os._exit(code)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        child_end.close()
        self._pid, self._sock, self.forked = pid, parent_end, True
        _LIVE[pid] = self

    def result(self) -> Any:
        """The value of the call; re-raises its exception.

        The value is handed over, not kept: a second call is an error, so
        that large arrays live only as long as the caller holds them. If the
        child died without answering (killed, out of memory), the call is
        made again in this process.
        """
        if self._done:
            raise GoevalError(f"the result of the {self.name} was already taken")
        try:
            if self._sock is None:
                value = self._fn(*self._args)
            else:
                value = self._receive()
        except BaseException:
            self.cancel()
            raise
        self._done = True
        self._fn, self._args = None, ()  # type: ignore[assignment]
        return value

    def items(self) -> Iterator[Any]:
        """The items of the call (started with ``stream=True``), in order, as the child sends them.

        Iterable once, like :meth:`result`; re-raises the call's exception
        where it was raised, after the items before it. If the child died
        before its first item, the call is made again in this process; after
        it, the read is an error. Leaving the loop early stops the child.
        """
        if self._done or not self.stream:
            raise GoevalError(f"the items of the {self.name} were already taken, or it is not a stream")
        self._done = True
        try:
            if self._sock is None:
                yield from self._fn(*self._args)
            else:
                yield from self._received()
        finally:
            self.cancel()
            self._fn, self._args = None, ()  # type: ignore[assignment]

    def _received(self) -> Iterator[Any]:
        sock, given = self._sock, 0
        assert sock is not None  # noqa: S101 - internal invariant, not user input
        while True:
            message = _recv_message(sock)
            if message is None:  # the child died without a word
                if given:
                    raise GoevalError(f"the {self.name} stopped before its end (its process died)")
                self._reap(kill=True)
                yield from self._fn(*self._args)
                return
            status, value = message
            if status == "error":
                raise value
            if status == "end":
                return
            try:
                sock.sendall(_CREDIT)  # received: the child may send one more
            except OSError:  # pragma: no cover - the child is gone; its messages are still read
                pass
            given += 1
            yield value

    def _receive(self) -> Any:
        sock = self._sock
        assert sock is not None  # noqa: S101 - internal invariant, not user input
        try:
            message = _recv_message(sock)
        except BaseException:
            self._reap(kill=True)
            raise
        self._reap(kill=False)  # the child has answered (or closed its end): it is exiting
        if message is None:  # the child died without a word: do the work here
            return self._fn(*self._args)
        status, value = message
        if status == "error":
            raise value
        return value

    def cancel(self) -> None:
        """Stop the child (if any) and release everything; idempotent."""
        self._reap(kill=True)

    def _reap(self, *, kill: bool) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        pid, self._pid = self._pid, None
        if pid is None:
            return
        _LIVE.pop(pid, None)
        if kill:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover - already gone
                pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:  # pragma: no cover - reaped elsewhere
            pass


def start(fn: Callable[..., Any], /, *args: Any, name: str, fork: bool, stream: bool = False) -> Background:
    """Start ``fn(*args)`` in a forked child (``fork=True``) or defer it.

    Parameters
    ----------
    fn : callable
        A module-level function; its value and exceptions must be picklable.
    *args
        Its arguments (inherited by the child, not pickled).
    name : str
        What the call does, for messages.
    fork : bool
        Fork a child now (use :func:`should_fork`); otherwise ``fn`` runs in
        this process when :meth:`Background.result` is first called.
    stream : bool, default False
        ``fn`` returns an iterable whose items (each picklable) are sent one
        by one, at most :data:`STREAM_AHEAD` ahead of the caller: read them
        with :meth:`Background.items`.
    """
    bg = Background(fn, args, name, stream)
    if fork and fork_supported():
        try:
            bg._fork()
        except OSError:  # pragma: no cover - no fork possible now (limits): stay in-process
            pass
    return bg


# ------------------------------------------------------------------ child side
def _child_setup(mask: set) -> None:  # pragma: no cover - runs in the child
    """Die with the parent, leave Ctrl-C to it, let go of its streams and sockets."""
    parent = os.getppid()
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR2):
        signal.signal(s, signal.SIG_DFL)
    try:
        signal.set_wakeup_fd(-1)  # the parent's wake-up descriptor is not this process's business
    except ValueError:
        pass
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    for other in list(_LIVE.values()):  # other children's parent-side sockets
        if other._sock is not None:
            other._sock.close()
    _LIVE.clear()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


def _child_main(sock: socket.socket, fn: Callable[..., Any], args: tuple[Any, ...],
                mask: set) -> None:  # pragma: no cover
    _child_setup(mask)
    try:
        message: tuple[str, Any] = ("ok", fn(*args))
    except BaseException as exc:  # noqa: BLE001 - forwarded to the parent
        message = ("error", exc)
    _send_last(sock, message)


def _child_stream(sock: socket.socket, fn: Callable[..., Any], args: tuple[Any, ...],
                  mask: set) -> None:  # pragma: no cover - runs in the child
    """The items of ``fn(*args)`` sent one by one (each after the parent's receipt of the item
    :data:`STREAM_AHEAD` before it), then ``end``, or the error where it was raised."""
    _child_setup(mask)
    try:
        sent = 0
        for item in fn(*args):
            if sent >= STREAM_AHEAD and not sock.recv(1):
                return  # the parent closed its end: nobody reads
            _send_message(sock, ("item", item))
            sent += 1
        message: tuple[str, Any] = ("end", None)
    except BaseException as exc:  # noqa: BLE001 - forwarded to the parent
        message = ("error", exc)
    _send_last(sock, message)


def _send_last(sock: socket.socket, message: tuple[str, Any]) -> None:  # pragma: no cover - child side
    """Send the child's last message (its result, ``end`` or its error; an unpicklable one as an error), then close."""
    try:
        _send_message(sock, message)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        _send_message(sock, ("error", GoevalError(f"the background read failed: {exc}")))
    finally:
        sock.close()


def _send_message(sock: socket.socket, message: tuple[str, Any]) -> None:  # pragma: no cover - child side
    """Send ``message``: pickled metadata on the socket, each large buffer in its own memory file.

    One memory file per buffer lets the parent release each array on its
    own (a view kept alive on one array does not pin the others).
    """
    buffers: list[pickle.PickleBuffer] = []
    meta = pickle.dumps(message, protocol=5, buffer_callback=buffers.append)
    if len(buffers) > _MAX_FDS:  # too many descriptors for one message: everything in band
        meta, buffers = pickle.dumps(message, protocol=5), []
    views = [b.raw() for b in buffers]
    fds = []
    try:
        for v in views:
            fd = os.memfd_create("goeval-background", os.MFD_CLOEXEC)
            fds.append(fd)
            os.ftruncate(fd, v.nbytes)
            _write_at(fd, v.cast("B"), 0)  # written, not mapped: the pages never count in this child's RSS
        meta = pickle.dumps(([v.nbytes for v in views], meta), protocol=5)
        socket.send_fds(sock, [_HEADER.pack(len(meta), len(views))], fds)
    finally:
        for fd in fds:
            os.close(fd)
    sock.sendall(meta)


def _write_at(fd: int, data: memoryview, offset: int) -> None:  # pragma: no cover - child side
    while data.nbytes:
        n = os.pwrite(fd, data[: 1 << 30], offset)
        data, offset = data[n:], offset + n


# ----------------------------------------------------------------- parent side
def _recv_exact(sock: socket.socket, n: int, head: bytes = b"") -> bytes | None:
    parts, got = [head], len(head)
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def _recv_message(sock: socket.socket) -> tuple[str, Any] | None:
    """The child's message, or None when it closed the socket without one."""
    data, fds, _flags, _addr = socket.recv_fds(sock, _HEADER.size, _MAX_FDS)
    try:
        head = _recv_exact(sock, _HEADER.size, data) if data else None
        if head is None:
            return None
        meta_len, n_buffers = _HEADER.unpack(head)
        meta = _recv_exact(sock, meta_len)
        if meta is None or len(fds) != n_buffers:
            return None
        sizes, inner = pickle.loads(meta)
        buffers = [memoryview(mmap.mmap(fd, size, access=mmap.ACCESS_READ)) if size else memoryview(b"")
                   for fd, size in zip(fds, sizes)]
    finally:
        for fd in fds:
            os.close(fd)
    return pickle.loads(inner, buffers=buffers)


def prefetched(iterable: Any, depth: int = 1) -> Iterator[Any]:
    """The items of ``iterable``, the next ones read ahead in a thread (the CSV reader releases the GIL).

    At most ``depth`` items wait beyond the one being used. An exception of
    the reader is raised here, in order; when the consumer stops early the
    reader thread stops at its next item.
    """
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    done = object()

    def put(item: Any) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in iterable:
                if not put((None, item)):
                    return
            put((None, done))
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer
            put((exc, None))

    thread = threading.Thread(target=produce, name="goeval-batch-reader", daemon=True)
    thread.start()
    try:
        while True:
            exc, item = q.get()
            if exc is not None:
                raise exc
            if item is done:
                return
            yield item
    finally:
        stop.set()
        thread.join()


def ordered_map(fn: Callable[[Any], Any], iterable: Any, workers: int, depth: int | None = None) -> Iterator[Any]:
    """``fn`` of each item of ``iterable``, computed ``workers`` at a time in threads, given in order.

    At most ``depth`` (default ``2 * workers``) items are in flight. An
    exception of ``fn`` is raised here, at its item, and one of ``iterable``
    after the results of the items before it; when the consumer stops early,
    the items not started are dropped.
    """
    from concurrent.futures import ThreadPoolExecutor

    if workers <= 1:
        yield from map(fn, iterable)
        return
    depth = depth or 2 * workers
    pending: list[Any] = []
    items, error = iter(iterable), None
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="goeval-parse") as pool:
        try:
            while True:
                try:
                    item = next(items)
                except StopIteration:
                    break
                except Exception as exc:  # noqa: BLE001 - raised after the items before it
                    error = exc
                    break
                pending.append(pool.submit(fn, item))
                if len(pending) >= depth:
                    yield pending.pop(0).result()
            while pending:
                yield pending.pop(0).result()
        finally:
            for fut in pending:
                fut.cancel()
    if error is not None:
        raise error
