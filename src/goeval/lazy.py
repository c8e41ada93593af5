"""Lazy imports: a package's public names imported from their modules on first use, and modules imported
on first attribute access (:class:`LazyModule`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports", "LazyModule"]


def lazy_exports(package: str, exports: Mapping[str, str],
                 namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` of ``package`` exporting ``name -> module`` lazily.

    A name is imported from its module when first asked for and then kept in
    the package's ``namespace`` (its ``globals()``).
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(list(namespace) + list(exports))

    return __getattr__, __dir__


class LazyModule:
    """A module imported on its first attribute access.

    ``sp = LazyModule("scipy.sparse")`` at the top of a module lets its
    functions use ``sp.csr_array`` while importing the module costs nothing:
    scipy.sparse (about 0.13 s) is then imported by the first call that uses
    it, not by the command line's start-up, which forks the prediction reader
    before it (:mod:`goeval.cli.evaluate`).

    Examples
    --------
    >>> LazyModule("math").pi
    3.141592653589793
    """

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<LazyModule {self._name!r}>"
