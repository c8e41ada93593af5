"""Progress of long-running work: live bars at a terminal, one line per stage elsewhere.

A run is a sequence of *stages* (:func:`stage`: reading the ontology, the
truth, each prediction file, evaluating, the bootstrap, each fold of a
cross-validation...). During a stage a bar with the elapsed time and the
rate appears on stderr when tqdm is installed, stderr is a terminal and
progress is not disabled (``--quiet``, :func:`set_enabled` or the
environment variable ``GOEVAL_PROGRESS=0``); when a stage ends, one line
says what it did and how long it took, through the ``goeval.progress``
logger (the command line prints it on stderr at once, ``-q`` hides it; in
a notebook, ``logging.basicConfig(level="INFO")`` shows it). Nothing is
ever written to stdout or to a result file, so tables and outputs are the
same with or without progress.

Examples
--------
>>> from goeval.progress import progress, progress_iter
>>> with progress(total=3, desc="methods") as bar:
...     for _ in range(3):
...         bar.update(1)
>>> list(progress_iter(range(3), desc="folds"))
[0, 1, 2]
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

__all__ = ["progress", "progress_iter", "enabled", "set_enabled", "NullBar", "stage", "Stage", "TIMER_FORMAT", "write",
           "silenced", "within", "say_stage"]

_LOG = logging.getLogger("goeval.progress")
_WITHIN: ContextVar[str] = ContextVar("goeval_progress_within", default="")

T = TypeVar("T")

_STATE: dict[str, bool | None] = {"enabled": None}


def set_enabled(value: bool | None) -> None:
    """Force bars on (still only on a terminal) or off; ``None`` restores the default.

    The command line calls ``set_enabled(False)`` for ``--quiet``.
    """
    _STATE["enabled"] = value


def silenced() -> bool:
    """Whether progress was switched off (``--quiet``, ``set_enabled(False)``, ``GOEVAL_PROGRESS=0``)."""
    return _STATE["enabled"] is False or os.environ.get("GOEVAL_PROGRESS", "").strip().lower() in (
        "0", "no", "off", "false")


def write(text: str, stream: Any = None) -> None:
    """Write one line on stderr (or ``stream``) without breaking a bar that is showing.

    A line written while a bar is drawn would be glued to it; tqdm's
    ``write`` clears the bars, writes the line and draws them again.
    """
    stream = sys.stderr if stream is None else stream
    tqdm_module = sys.modules.get("tqdm")
    live = tqdm_module is not None and getattr(tqdm_module.tqdm, "_instances", None)
    if live:
        tqdm_module.tqdm.write(text, file=stream)
    else:
        stream.write(text + "\n")
        stream.flush()


def enabled(stream: Any = None) -> bool:
    """Whether a bar would be shown on ``stream`` (default stderr) now.

    True only when tqdm is importable, the stream is a terminal, progress
    was not switched off (:func:`set_enabled`, ``GOEVAL_PROGRESS=0``).
    """
    if silenced():
        return False
    stream = sys.stderr if stream is None else stream
    try:
        if not stream.isatty():
            return False
    except (AttributeError, ValueError):  # closed or not a real stream
        return False
    try:
        import tqdm  # noqa: F401 - optional (plot extra): only whether it is installed
    except ImportError:
        return False
    return True


class NullBar:
    """A bar that shows nothing: the subset of tqdm's interface goeval uses."""

    def __init__(self, iterable: Iterable[Any] | None = None, **_: Any) -> None:
        self.iterable = iterable
        self.n = 0

    def __iter__(self) -> Iterator[Any]:
        return iter(self.iterable if self.iterable is not None else ())

    def update(self, n: float = 1) -> None:
        self.n += n

    def set_description(self, desc: str | None = None, refresh: bool = True) -> None:
        pass

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> "NullBar":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress(iterable: Iterable[Any] | None = None, *, total: float | None = None, desc: str | None = None,
             unit: str = "it", stream: Any = None, **kwargs: Any) -> Any:
    """A progress bar on stderr when :func:`enabled`, else a :class:`NullBar`.

    Parameters
    ----------
    iterable : iterable, optional
        Wrapped and iterated, as with ``tqdm(iterable)``.
    total : float, optional
        Expected number of steps (or bytes, with ``unit="B"``).
    desc, unit : str
        Label and unit of the bar.
    stream : file object, optional
        Where the bar goes (default stderr; never stdout).
    **kwargs
        Passed to ``tqdm.tqdm`` (``unit_scale=True``...).

    Returns
    -------
    tqdm.tqdm or NullBar
        Usable as an iterator and as a context manager, with ``update``.
    """
    if not enabled(stream):
        return NullBar(iterable)
    from tqdm import tqdm  # optional: tqdm (plot extra), checked by enabled()

    stream = sys.stderr if stream is None else stream
    size = {"dynamic_ncols": True} if _has_size(stream) else {"ncols": FALLBACK_SIZE[0], "nrows": FALLBACK_SIZE[1]}
    return tqdm(iterable, total=total, desc=desc, unit=unit, file=stream, leave=False, **size, **kwargs)


#: Columns and rows assumed on a terminal that reports no size (the pseudo-terminal of ``script`` or
#: ``docker exec -t``), where tqdm would otherwise draw nothing.
FALLBACK_SIZE = (100, 24)


def _has_size(stream: Any) -> bool:
    """Whether the terminal of ``stream`` reports its width and height."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return False
    return size.columns > 0 and size.lines > 0


def progress_iter(iterable: Iterable[T], *, desc: str | None = None, total: float | None = None,
                  **kwargs: Any) -> Iterator[T]:
    """Iterate ``iterable`` with a bar (when :func:`enabled`), closing it at the end."""
    bar = progress(iterable, desc=desc, total=total, **kwargs)
    try:
        yield from bar
    finally:
        bar.close()


#: The bar of a stage that has counted nothing and knows no total: its name and elapsed time (tqdm's own
#: would read "0it [00:00, ?it/s]" for as long as the stage runs, as if it were stuck).
TIMER_FORMAT = "{desc}: {elapsed}"


class Stage:
    """A stage in progress: :meth:`update` advances its bar.

    Its closing line is ``name: note (time)``; set :attr:`note` to complete
    it, or :attr:`line` to replace ``name: note``. Without a total, its bar
    shows the elapsed time (:data:`TIMER_FORMAT`) until something is counted
    or the total is known.
    """

    def __init__(self, name: str, bar: Any) -> None:
        self.name, self.bar, self.note = name, bar, ""
        self.line: str | None = None
        self.done = 0.0
        self.started = time.perf_counter()

    def update(self, n: float = 1) -> None:
        self.done += n
        self._counting()
        self.bar.update(n)

    def set_total(self, total: float | None) -> None:
        """The stage's size, once it is known."""
        if total is not None and hasattr(self.bar, "total"):
            self.bar.total = total
            self._counting()
            self.bar.refresh()

    def _counting(self) -> None:
        """The bar counts from now on (tqdm's format: done, total, rate)."""
        if getattr(self.bar, "bar_format", None) == TIMER_FORMAT:
            self.bar.bar_format = None

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started


@contextmanager
def within(part: str) -> Iterator[None]:
    """Name the part of a run the stages inside belong to ("NK", "fold 3 of 10"): their bars and lines start with it.

    Examples
    --------
    >>> with within("NK"), stage("evaluating", quiet=True) as st:
    ...     st.name
    'NK: evaluating'
    """
    outer = _WITHIN.get()
    token = _WITHIN.set(f"{outer}{part}: ")
    try:
        yield
    finally:
        _WITHIN.reset(token)


@contextmanager
def stage(name: str, *, total: float | None = None, unit: str = "it", unit_scale: bool = False,
          quiet: bool = False, min_seconds: float = 0.0) -> Iterator[Stage]:
    """One stage of a run: a live bar at a terminal, a line ``name: NOTE (S s)`` when it ends.

    Parameters
    ----------
    name : str
        What the stage does ("reading preds.tsv", "evaluating", "fold 3 of 10").
    total : float, optional
        Its size in ``unit`` (lines, bytes, leaves...), when known; without it the bar shows the elapsed
        time until the stage counts something (a stage done in one call never reads "0it").
    unit, unit_scale
        As tqdm's (``unit_scale=True`` shows 12.3M).
    quiet : bool
        No closing line (a stage too small to mention); the bar is shown all the same.
    min_seconds : float
        Say the closing line only when the stage took at least this long.

    Yields
    ------
    Stage
        ``update(n)`` as work is done; set ``note`` to complete the closing line.

    Examples
    --------
    >>> with stage("counting", total=3) as s:
    ...     for _ in range(3):
    ...         s.update()
    ...     s.note = "3 items"
    """
    prefix = _WITHIN.get()
    name = prefix + name
    timer = {} if total is not None else {"bar_format": TIMER_FORMAT}
    bar = progress(total=total, desc=name, unit=unit, unit_scale=unit_scale, **timer)
    st = Stage(name, bar)
    try:
        yield st
    finally:
        bar.close()
    if not quiet and st.seconds >= min_seconds:
        text = prefix + st.line if st.line is not None else f"{name}{': ' + st.note if st.note else ''}"
        say_stage(f"{text} ({_seconds(st.seconds)})")


def _seconds(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.2f} s" if seconds < 10 else f"{seconds:.1f} s"
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes} min {rest:02d} s"


def say_stage(line: str) -> None:
    """Say a finished stage: through the ``goeval.progress`` logger, else (nothing set up) on stderr.

    A program or notebook that configured logging gets the line as an
    INFO record; one that did not still sees the run advance, one line
    per stage, unless progress is switched off (:func:`silenced`).
    """
    if _LOG.hasHandlers():
        _LOG.info("%s", line)
    elif not silenced():
        write(line)
