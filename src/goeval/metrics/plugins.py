"""Measures from other packages: plugins loaded into the registry, and where each measure came from.

A measure registered in a user's module (:func:`goeval.metrics.registry.register`)
exists only in the process that imported that module. A *plugin* is such a
module, loaded by goeval itself, so that every process has the same
measures: ``goeval evaluate`` computes them, and ``goeval compare``,
``report`` and ``plot`` read them back from the results folder.

A plugin is found two ways:

* **installed**: a distribution declares an entry point in the group
  ``goeval.measures`` (:data:`ENTRY_POINT_GROUP`), e.g. in its
  ``pyproject.toml``::

      [project.entry-points."goeval.measures"]
      f2 = "my_measures"                 # a module: importing it registers its measures
      more = "my_measures.extra:setup"   # or a callable, called with no argument

  Every such entry point is loaded by every command that evaluates or
  reads results;
* **named**: ``--plugin MODULE`` (repeatable), ``load_plugins(["MODULE"])``
  from Python: an importable module name (``my_measures``,
  ``lab.measures``) or the path of a ``.py`` file (a name ending in
  ``.py``, or holding a path separator), imported under its file's stem.

Loading is idempotent (a plugin is loaded once per process). A plugin that
fails to import, or whose call or registration fails, is an error naming
the plugin and its error, and the measures it had registered are removed
again. Finding the entry points costs about a millisecond when none is
installed: the metadata of the installed distributions is only parsed when
one of their ``entry_points.txt`` names the group
(:func:`installed_plugins`).

:func:`measure_sources` says where every measure not built into goeval
comes from (its module, its distribution and version, how it was loaded);
each results folder records it in its ``manifest.json`` (``measures``), and
:func:`unregistered_measure` turns a measure of a folder that is not
registered into a message naming the plugin to load.

Examples
--------
>>> from goeval.metrics.plugins import measure_sources
>>> measure_sources(["fmax"])  # built in: nothing to record
{}
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from goeval.errors import GoevalError
from goeval.metrics import registry

__all__ = ["ENTRY_POINT_GROUP", "Plugin", "PluginSet", "current_plugins", "load_plugins", "installed_plugins", "loaded_plugins", "measure_sources",
           "unregistered_measure", "is_built_in"]

#: The entry-point group whose entry points are measure plugins.
ENTRY_POINT_GROUP = "goeval.measures"


@dataclass(frozen=True, kw_only=True)
class Plugin:
    """A module of measures loaded into the registry.

    Attributes
    ----------
    name : str
        As it was named: the entry point's name, the module name or the
        ``.py`` file given.
    module : str
        The module imported.
    loaded_by : str
        How: ``entry point NAME = VALUE`` (of :data:`ENTRY_POINT_GROUP`) or
        ``--plugin NAME``.
    distribution, version : str
        The installed distribution that provides the module (empty when
        none does: a module on the path, a file).
    file : str
        The ``.py`` file of a plugin given by path (empty otherwise).
    measures : tuple of str
        The measures it registered.
    """

    name: str
    module: str
    loaded_by: str
    distribution: str = ""
    version: str = ""
    file: str = ""
    measures: tuple[str, ...] = ()

    def record(self) -> dict[str, str]:
        """What a results folder records of it for each of its measures (``manifest.json``, ``measures``)."""
        out = {"module": self.module, "loaded_by": self.loaded_by, "distribution": self.distribution,
               "version": self.version, "file": self.file}
        return {k: v for k, v in out.items() if v}


_LOADED: dict[str, Plugin] = {}


def load_plugins(modules: Iterable[str] = (), *, entry_points: bool = True) -> tuple[Plugin, ...]:
    """Load measure plugins: the installed entry points of :data:`ENTRY_POINT_GROUP`, then ``modules``.

    Parameters
    ----------
    modules : iterable of str
        Importable module names, or paths of ``.py`` files (``--plugin``).
    entry_points : bool
        Also load every installed plugin (:func:`installed_plugins`).

    Returns
    -------
    tuple of Plugin
        Every plugin asked for, in order (one loaded earlier in this process
        is returned as it was loaded, not imported again).

    Raises
    ------
    GoevalError
        A plugin that cannot be found or imported, whose callable fails, or
        whose registration fails (a name already taken): the message names
        the plugin and its error; the measures it registered before failing
        are removed.
    """
    out = [_load_entry_point(ep) for ep in installed_plugins()] if entry_points else []
    out += [_load_named(str(name)) for name in modules]
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class PluginSet:
    """The plugins loaded in a process, as a task carries them to a worker: unpickled, it loads them there
    (:func:`load_plugins`, once per process), before the task runs, so that a worker started with spawn (a
    process pool, a Dask cluster) knows the quantities, columns and measures they register.

    Attributes
    ----------
    modules : tuple of str
        The plugins named (``--plugin``): module names, or the absolute paths of files.
    entry_points : bool
        Whether the installed plugins (entry points of :data:`ENTRY_POINT_GROUP`) were loaded.
    """

    modules: tuple[str, ...] = ()
    entry_points: bool = False

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _restore, (self.modules, self.entry_points)


_RESTORED: set[tuple[tuple[str, ...], bool]] = set()


def _restore(modules: tuple[str, ...], entry_points: bool) -> PluginSet:
    """A :class:`PluginSet` unpickled: its plugins loaded in this process (the first time it is seen here)."""
    key = (tuple(modules), bool(entry_points))
    if key not in _RESTORED:
        load_plugins(modules, entry_points=entry_points)
        _RESTORED.add(key)
    return PluginSet(*key)


def current_plugins() -> PluginSet:
    """The plugins loaded in this process (:func:`loaded_plugins`) as a :class:`PluginSet`."""
    named = tuple(p.file or p.module for p in _LOADED.values() if p.loaded_by.startswith("--plugin"))
    return PluginSet(named, any(p.loaded_by.startswith("entry point") for p in _LOADED.values()))


def loaded_plugins() -> tuple[Plugin, ...]:
    """The plugins loaded in this process, in loading order."""
    return tuple(_LOADED.values())


def installed_plugins() -> tuple[Any, ...]:
    """The installed entry points of :data:`ENTRY_POINT_GROUP` (``importlib.metadata.EntryPoint``).

    The metadata of the installed distributions is parsed only when an
    ``entry_points.txt`` of a distribution on ``sys.path`` names the group
    (or ``sys.path`` holds a zip file, whose distributions are not listed
    cheaply): importing :mod:`importlib.metadata` alone costs tens of
    milliseconds, which every command would otherwise pay.
    """
    if not _group_may_be_installed():
        return ()
    from importlib.metadata import entry_points

    return tuple(entry_points(group=ENTRY_POINT_GROUP))


def _group_may_be_installed() -> bool:
    needle = ENTRY_POINT_GROUP.encode()
    for entry in sys.path:
        where = entry or "."
        if os.path.isfile(where):
            return True  # a zip on the path: let importlib.metadata look
        try:
            names = os.listdir(where)
        except OSError:
            continue
        for name in names:
            if not name.lower().endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(where, name, "entry_points.txt"), "rb") as fh:
                    if needle in fh.read():
                        return True
            except OSError:
                continue
    return False


def _load_entry_point(ep: Any) -> Plugin:
    dist = getattr(ep, "dist", None)
    dist_name = str(getattr(dist, "name", "") or "")
    version = str(getattr(dist, "version", "") or "")
    key = f"entry point {dist_name}:{ep.name}"
    if key in _LOADED:
        return _LOADED[key]
    what = (f"the plugin {ep.name!r} (entry point {ep.name} = {ep.value} of the group {ENTRY_POINT_GROUP}"
            + (f", distribution {dist_name} {version}" if dist_name else "") + ")")
    remedy = f"fix or uninstall {dist_name or 'its distribution'}"

    def load() -> None:
        obj = ep.load()
        if ep.attr and callable(obj):
            obj()

    module = ep.module
    added = _registering(load, what, remedy, module)
    plugin = Plugin(name=ep.name, module=module, loaded_by=f"entry point {ep.name} = {ep.value}",
                    distribution=dist_name, version=version, measures=added)
    _LOADED[key] = plugin
    return plugin


def _load_named(name: str) -> Plugin:
    is_file = name.endswith(".py") or os.sep in name or "/" in name
    key = f"file {Path(name).resolve()}" if is_file else f"module {name}"
    if key in _LOADED:
        return _LOADED[key]
    what, remedy = f"the plugin {name!r} (--plugin)", "check the name, or that it is importable here"
    if is_file:
        path = Path(name).resolve()
        module = path.stem
        added = _registering(lambda: _import_file(path, module), what, "check the file", module)
        plugin = Plugin(name=name, module=module, loaded_by=f"--plugin {path}", file=str(path), measures=added)
    else:
        added = _registering(lambda: importlib.import_module(name), what, remedy, name)
        plugin = Plugin(name=name, module=name, loaded_by=f"--plugin {name}", measures=added,
                        **_distribution_of(name))
    _LOADED[key] = plugin
    return plugin


def _import_file(path: Path, module: str) -> None:
    import importlib.util

    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    if module in sys.modules:
        if getattr(sys.modules[module], "__file__", None) == str(path):
            return
        raise ImportError(f"a module named {module!r} is already imported (from "
                          f"{getattr(sys.modules[module], '__file__', None) or 'elsewhere'}); rename the file")
    spec = importlib.util.spec_from_file_location(module, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"not a Python module: {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[module]
        raise


def _registering(load: Any, what: str, remedy: str, module: str) -> tuple[str, ...]:
    """Run ``load``; return the measures registered by it (or earlier, by ``module`` and its submodules).

    On failure the measures it registered are removed and a :class:`GoevalError` names the plugin.
    """
    before = set(_names())
    try:
        load()
    except Exception as exc:  # noqa: BLE001 - any error of the user's code is said with the plugin's name
        for name in set(_names()) - before:
            registry.unregister(name)
        raise GoevalError(f"{what} could not be loaded: {type(exc).__name__}: {exc} ({remedy}).") from exc
    return tuple(m.name for m in registry.measures()
                 if m.name not in before or _within(registry.registered_by(m.name), module))


def _names() -> list[str]:
    return [m.name for m in registry.measures()]


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _distribution_of(module: str) -> dict[str, str]:
    """``distribution`` and ``version`` of the installed distribution providing ``module`` (empty: none)."""
    from importlib.metadata import PackageNotFoundError, packages_distributions, version

    top = module.split(".", 1)[0]
    names = packages_distributions().get(top) or []
    if not names:
        return {}
    try:
        return {"distribution": names[0], "version": version(names[0])}
    except PackageNotFoundError:  # pragma: no cover - listed but gone
        return {"distribution": names[0]}


def is_built_in(name: str) -> bool:
    """Whether a registered measure is goeval's own (registered by goeval's code, not by a plugin or a script)."""
    return _within(registry.registered_by(name), "goeval")


def measure_sources(names: Iterable[str] | None = None) -> dict[str, dict[str, str]]:
    """Where each registered measure that is not goeval's own comes from.

    Parameters
    ----------
    names : iterable of str, optional
        Only these measures (default: every registered one).

    Returns
    -------
    dict of str to dict
        Measure name -> ``module`` and, when known, ``distribution``,
        ``version``, ``loaded_by`` (``entry point NAME = VALUE`` or
        ``--plugin NAME``) and ``file``. A measure a script registered
        itself has its module (``__main__``) and file. Built-in measures
        are not listed: every measure a folder holds and this mapping does
        not name is goeval's own, of the version its manifest records.
    """
    wanted = None if names is None else set(names)
    by_plugin = {m: p for p in _LOADED.values() for m in p.measures}
    out: dict[str, dict[str, str]] = {}
    for m in registry.measures():
        if (wanted is not None and m.name not in wanted) or is_built_in(m.name):
            continue
        if m.name in by_plugin:
            out[m.name] = by_plugin[m.name].record()
            continue
        module = registry.registered_by(m.name)
        file = getattr(sys.modules.get(module), "__file__", None) or ""
        out[m.name] = {k: v for k, v in {"module": module, "file": str(file)}.items() if v}
    return out


def unregistered_measure(name: str, where: str, recorded: Mapping[str, Mapping[str, str]] | None) -> str:
    """What to say of a measure ``name`` that a results folder holds (``where``) and the registry does not know.

    ``recorded`` is the folder's record (:func:`measure_sources` of its run,
    kept in ``manifest.json``); the message names the module recorded
    there and how to load it: ``--plugin MODULE`` (or the file), or the
    distribution to install (its entry point is then loaded by every
    command).
    """
    src = (recorded or {}).get(name)
    head = f"{where} holds the measure {name!r}, which is not registered here"
    if not src:
        return (f"{head}, and its run recorded no plugin for it (manifest.json): load the module that registers it "
                "with --plugin MODULE (docs/architecture.md, Share a measure: a plugin).")
    module, file = src.get("module", "?"), src.get("file", "")
    came = f"the module {module!r}" + (f" ({file})" if file else "")
    if src.get("distribution"):
        came += f" of the distribution {src['distribution']} {src.get('version', '')}".rstrip()
    if module == "__main__":
        return (f"{head}: the run that wrote it registered it in its script{f' {file}' if file else ''}; put that "
                "registration in a module and load it with --plugin MODULE (docs/architecture.md, Share a measure: "
                "a plugin).")
    how = f"--plugin {file}" if file else f"--plugin {module}"
    if src.get("distribution"):
        how += f", or install {src['distribution']} (its entry point is then loaded by every goeval command)"
    return f"{head}: the run that wrote it loaded it from {came}; load it with {how}."
