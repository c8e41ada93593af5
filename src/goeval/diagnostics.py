"""One diagnostics type for every stage and command.

:class:`Diagnostics` is a dictionary of counts (JSON-ready: what was read,
mapped, remapped, dropped, by reason) plus the warnings raised while it was
filled. Every command prints it through one formatter
(:func:`goeval.report.text.format_report`), so what was dropped is said on
the console, not only in ``diagnostics.json``.

Warnings go through :meth:`Diagnostics.warn`: the message is kept under
``"warnings"`` and issued once as a :class:`~goeval.errors.GoevalWarning`
(the command line prints it as one line, ``goeval: warning: ...``), at the
caller's line: the first frame of the stack outside goeval (a notebook
cell, a script), never a line of goeval or of :mod:`contextlib`. A run
wraps its work in :meth:`Diagnostics.capture`, so that what a lower-level
function says with ``warnings.warn`` (an undefined measure, a negative IA)
is kept in the run's diagnostics too: nothing a run learns is only a
Python warning, and ``diagnostics.json`` is the same however the run was
scheduled.

Sections said on the console as soon as their stage ended (the truth,
the IA: :mod:`goeval.progress`) are listed in :attr:`Diagnostics.said`, so
the end-of-run report does not say them twice.

Run-to-run timings are kept apart (:attr:`Diagnostics.timings`), so the
JSON written for a run depends only on its inputs and options.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from goeval.errors import GoevalWarning

__all__ = ["Diagnostics", "package_versions", "caller_stacklevel"]


class Diagnostics(dict):
    """Counts of a run (a ``dict``) with its warnings and, apart, its timings.

    Examples
    --------
    >>> d = Diagnostics(truth={"rows_read": 3})
    >>> d.add_timing("read", 0.5)
    >>> sorted(d), d.timings
    (['truth'], {'read': 0.5})
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.timings: dict[str, float] = {}
        #: Sections already said on the console as their stage ended (the end-of-run report skips them).
        self.said: set[str] = set()

    @property
    def warnings(self) -> list[str]:
        """Warnings raised so far (also under the ``"warnings"`` key)."""
        return list(self.get("warnings", []))

    def warn(self, message: str, *, _again: bool = False) -> None:
        """Record ``message`` and issue it once as a :class:`GoevalWarning`, at the caller's line
        (:func:`caller_stacklevel`)."""
        seen = self.setdefault("warnings", [])
        if message in seen and not _again:
            return
        if message not in seen:
            seen.append(message)
        warnings.warn(message, GoevalWarning, stacklevel=caller_stacklevel())

    @contextmanager
    def capture(self) -> Iterator["Diagnostics"]:
        """Keep every :class:`GoevalWarning` issued inside the block among these warnings (issued once after it).

        Other warnings pass through unchanged.
        """
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                yield self
            finally:
                pending = list(caught)
        for w in pending:
            if issubclass(w.category, GoevalWarning):
                self.warn(str(w.message), _again=True)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)

    def add_timing(self, stage: str, seconds: float) -> None:
        """Add ``seconds`` to the time of ``stage``."""
        self.timings[stage] = self.timings.get(stage, 0.0) + float(seconds)

    @classmethod
    def wrap(cls, d: dict[str, Any] | None) -> "Diagnostics":
        """``d`` as a :class:`Diagnostics` (itself if it already is one).

        A ``"timings_seconds"`` key is moved to :attr:`timings`.
        """
        if isinstance(d, cls):
            return d
        out = cls(d or {})
        out.timings.update(out.pop("timings_seconds", {}) or {})
        return out


#: Files whose frames a warning never names: goeval's own modules and contextlib (whose ``__exit__`` runs the end
#: of :meth:`Diagnostics.capture`).
_INNER = (os.path.dirname(os.path.abspath(__file__)) + os.sep, os.path.abspath(contextlib.__file__))


def caller_stacklevel() -> int:
    """The ``stacklevel`` that makes a ``warnings.warn`` in the function calling this one name the first frame
    outside goeval (and :mod:`contextlib`): the user's line, in a notebook or a script.

    A stack that is goeval's all the way up (a thread of goeval's own) gives 2: the line that warned.
    """
    frame = sys._getframe(2)  # the caller of the function that warns
    level = 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_INNER):
        frame, level = frame.f_back, level + 1
    return 2 if frame is None else level


def package_versions() -> dict[str, str]:
    """Versions of Python, goeval and the packages a run depends on (``diagnostics["versions"]``)."""
    import platform  # deferred: only a run that records its versions needs them
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for name in ("goeval", "numpy", "scipy", "pandas", "pyarrow", "obonet", "networkx"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:  # pragma: no cover - running from a source tree
            out[name] = "unknown"
    return out
