"""Progress bars for long-running work, shown only to a person at a terminal.

A bar appears on stderr when tqdm is installed, stderr is a terminal and
progress is not disabled (``--quiet``, :func:`set_enabled` or the
environment variable ``GOEVAL_PROGRESS=0``); otherwise :func:`progress`
returns a silent object with the same methods. Nothing is ever written to
stdout or to a result file, so tables and outputs are the same with or
without a bar.

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

import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

__all__ = ["progress", "progress_iter", "enabled", "set_enabled", "NullBar"]

T = TypeVar("T")

_STATE: dict[str, bool | None] = {"enabled": None}


def set_enabled(value: bool | None) -> None:
    """Force bars on (still only on a terminal) or off; ``None`` restores the default.

    The command line calls ``set_enabled(False)`` for ``--quiet``.
    """
    _STATE["enabled"] = value


def enabled(stream: Any = None) -> bool:
    """Whether a bar would be shown on ``stream`` (default stderr) now.

    True only when tqdm is importable, the stream is a terminal, progress
    was not switched off (:func:`set_enabled`, ``GOEVAL_PROGRESS=0``).
    """
    if _STATE["enabled"] is False or os.environ.get("GOEVAL_PROGRESS", "").strip() in ("0", "no", "off", "false"):
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

    return tqdm(iterable, total=total, desc=desc, unit=unit, file=sys.stderr if stream is None else stream,
                leave=False, dynamic_ncols=True, **kwargs)


def progress_iter(iterable: Iterable[T], *, desc: str | None = None, total: float | None = None,
                  **kwargs: Any) -> Iterator[T]:
    """Iterate ``iterable`` with a bar (when :func:`enabled`), closing it at the end."""
    bar = progress(iterable, desc=desc, total=total, **kwargs)
    try:
        yield from bar
    finally:
        bar.close()
