"""The compiled-ontology cache: a built :class:`~goeval.ontology.Ontology` on disk.

Parsing an OBO file takes about a second for GO; reading back the ontology
built from it takes a few hundredths. The cache stores
:meth:`Ontology.to_arrays <goeval.ontology.Ontology.to_arrays>` as an
uncompressed ``.npz`` (read with ``allow_pickle=False``) together with its
key, a JSON entry ``cache_key``:

* the SHA-256 of the OBO file's bytes as stored (compressed or not),
* the relations followed, in order,
* :data:`FORMAT_VERSION` and goeval's version.

Where: ``$GOEVAL_CACHE_DIR``, else ``$XDG_CACHE_HOME/goeval``, else
``~/.cache/goeval``, one file per key (``<obo name>-<key>.npz``), or an
explicit file (``cache=PATH``; an existing directory is used as the cache
directory).

A cache file is never trusted: one that cannot be read (truncated, damaged,
not a cache), was made for another key, or whose arrays are not a graph a
build can make (:meth:`Ontology.from_arrays
<goeval.ontology.Ontology.from_arrays>` checks index ranges, acyclic
parents, redirects) is reported with a one-line warning and rebuilt. The key
is public (anyone can hash the OBO file), so the bytes of a cache file are
used only when nobody else can have written them, as ssh asks of
``~/.ssh``: the folder and the file must be owned by the user and writable
by neither group nor others. A folder that is not is not used at all (a
warning, the OBO is parsed, nothing is written there); a file that is not
is rebuilt. A new folder is made with mode 0700, a file written 0600.
Writing is atomic (a hidden temporary file in the same directory, created
exclusively, renamed into place); a failed or interrupted write removes it,
and a directory that cannot be written is a warning, not an error. Only
regular files are cached (a FIFO or ``/dev/stdin`` is read as before).

Storing costs a few hundredths of a second: the term names are stored as
the OBO lines they are parsed from when they were not asked for yet (as a
fresh build, the ontology parses them on first use).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from goeval import __version__
from goeval.errors import InvalidParameterError
from goeval.io.files import PathLike, temporary_name, unlink_quietly
from goeval.io.obo import PendingOntology, start_read_obo

if TYPE_CHECKING:
    from goeval.ontology import Ontology

__all__ = ["FORMAT_VERSION", "CacheRecord", "StartedOntology", "cache_dir", "cache_key", "start_ontology",
           "load_cached_ontology"]

#: Version of the stored layout; part of the key (bump it when the arrays or the build change).
FORMAT_VERSION = 4
_FORMAT = "goeval-compiled-ontology"
_KEY_ENTRY = "cache_key"
_KEY_NAMES = {"obo_sha256": "OBO file content", "relations": "list of relations",
              "format_version": "cache format version", "goeval": "goeval version", "format": "format"}
_log = logging.getLogger("goeval.cache")


def cache_dir() -> Path:
    """The user cache directory: ``$GOEVAL_CACHE_DIR``, ``$XDG_CACHE_HOME/goeval`` or ``~/.cache/goeval``."""
    explicit = os.environ.get("GOEVAL_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "goeval"


def _goeval_version() -> str:
    return __version__


def file_sha256(path: PathLike) -> str:
    """SHA-256 (hex) of a file's bytes as stored."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def cache_key(path: PathLike, relations: Sequence[str]) -> dict[str, Any]:
    """What a cache file must have been made from to be used for ``path`` and ``relations``."""
    return {"format": _FORMAT, "format_version": FORMAT_VERSION, "goeval": _goeval_version(),
            "obo_sha256": file_sha256(path), "relations": list(relations)}


def _key_digest(key: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]


@dataclass
class CacheRecord:
    """What the cache did for one load.

    Attributes
    ----------
    path : Path or None
        The cache file (None when caching is off or impossible).
    status : str
        ``'off'`` (not asked for, or the OBO is not a regular file), ``'hit'``
        (read from the cache), ``'miss'`` (to be parsed), ``'written'``
        (parsed and stored), ``'not written'`` (parsed; see ``reason``).
    reason : str
        Why the cache was not used or not written ('' otherwise).
    timings : dict of str to float
        Seconds spent (``ontology cache key``, ``ontology cache load``,
        ``ontology cache write``).
    """

    path: Path | None = None
    status: str = "off"
    reason: str = ""
    timings: dict[str, float] = field(default_factory=dict)

    def describe_short(self) -> str:
        """Where the ontology came from, in a few words (the stage line of its reading)."""
        if self.status == "hit":
            return f"from the compiled cache {self.path}"
        if self.status == "written":
            return f"parsed, compiled into the cache {self.path}"
        if self.status == "off":
            return f"parsed; cache off{f': {self.reason}' if self.reason else ''}"
        return f"parsed; cache {self.status}{f': {self.reason}' if self.reason else ''}"

    def describe(self) -> str:
        """One line for the console."""
        spent = sum(self.timings.values())
        if self.status == "hit":
            return f"ontology read from the compiled cache {self.path} ({spent:.3f} s)"
        if self.status == "written":
            return f"ontology parsed from its OBO file and compiled into the cache {self.path}"
        if self.status == "miss":
            return f"ontology to be parsed from its OBO file, then compiled into the cache {self.path}"
        if self.status == "off":
            return f"ontology cache off{f' ({self.reason})' if self.reason else ''}"
        return f"ontology cache {self.path}: {self.status}{f' ({self.reason})' if self.reason else ''}"


def _cache_file(obo: Path, key: dict[str, Any], cache: bool | PathLike) -> Path:
    if cache is True or Path(cache).is_dir():  # type: ignore[arg-type]
        directory = cache_dir() if cache is True else Path(cache)  # type: ignore[arg-type]
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", obo.name)[:80] or "ontology"
        return directory / f"{stem}-{_key_digest(key)}.npz"
    return Path(cache)  # type: ignore[arg-type]


def _current_uid() -> int | None:
    """The user's id (None where files have no owner to check)."""
    return os.getuid() if hasattr(os, "getuid") else None


def _untrusted(st: os.stat_result) -> str:
    """Why a cache folder or file with status ``st`` may hold someone else's bytes ('' when only the user's).

    Trusted: owned by the current user and writable by neither its group nor
    others (as ssh asks of ``~/.ssh``); nobody else (but root) can then have
    written it. Said as ``owned by user id 1001, not by you (user id 1000)``
    or ``writable by its group and others``.
    """
    uid = _current_uid()
    if uid is None:
        return ""
    if st.st_uid != uid:
        return f"owned by user id {st.st_uid}, not by you (user id {uid})"
    writers = [who for who, bit in (("its group", stat.S_IWGRP), ("others", stat.S_IWOTH)) if st.st_mode & bit]
    return f"writable by {' and '.join(writers)}" if writers else ""


def _folder_problem(folder: Path) -> str:
    """Why the cache ``folder`` is not used ('' when it is the user's own, or not there yet: it is made 0700)."""
    try:
        st = os.stat(folder)
    except OSError:  # not there yet, or not a folder: writing makes it, or fails with its own notice
        return ""
    return _untrusted(st) if stat.S_ISDIR(st.st_mode) else ""


def _read(path: Path, key: dict[str, Any]) -> tuple[dict[str, np.ndarray] | None, str]:
    """The arrays of a cache file made for ``key``, or None and why not ('' when absent).

    The file is checked on the open descriptor: a regular file that only
    the user can have written (:func:`_untrusted`).
    """
    try:
        fh = os.fdopen(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb")
    except (FileNotFoundError, NotADirectoryError):  # no cache file yet
        return None, ""
    except OSError as exc:
        return None, f"unreadable ({exc.strerror or exc})"
    with fh:
        st = os.fstat(fh.fileno())
        distrust = _untrusted(st) if stat.S_ISREG(st.st_mode) else "not a regular file"
        if distrust:
            return None, f"not trusted: it is {distrust}"
        try:
            return _read_arrays(fh, key)
        except Exception as exc:  # noqa: BLE001 - a cache file that cannot be read is rebuilt, never trusted
            return None, f"unreadable ({type(exc).__name__}: {exc})"


def _read_arrays(fh: Any, key: dict[str, Any]) -> tuple[dict[str, np.ndarray] | None, str]:
    """The arrays of the open cache file ``fh`` if it was made for ``key`` (see :func:`_read`)."""
    with np.load(fh, allow_pickle=False) as z:
        if _KEY_ENTRY not in z.files:
            return None, "not a goeval ontology cache"
        stored = json.loads(z[_KEY_ENTRY].tobytes().decode("utf-8"))
        if stored != key:
            changed = [_KEY_NAMES.get(k, k) for k in key if not isinstance(stored, dict) or stored.get(k) != key[k]]
            return None, f"made for another {' and '.join(changed) or 'key'}"
        return {k: z[k] for k in z.files}, ""


def _write(path: Path, tmp: Path, key: dict[str, Any], onto: Ontology) -> str:
    """Store ``onto`` at ``path`` through ``tmp`` (same directory); '' or why it failed."""
    try:
        arrays = onto.to_arrays()
        arrays[_KEY_ENTRY] = np.frombuffer(json.dumps(key).encode("utf-8"), dtype=np.uint8)
        if any(a.dtype.hasobject for a in arrays.values()):  # read back with allow_pickle=False
            raise TypeError("an array of Python objects")
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if problem := _folder_problem(path.parent):  # it changed since it was looked at
            return f"not writing into its folder, now {problem}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        with os.fdopen(os.open(tmp, flags, 0o600), "wb") as fh:
            np.savez(fh, **arrays)
        os.replace(tmp, path)
    except OSError as exc:
        unlink_quietly(tmp)
        return f"cannot write it: {exc.strerror or exc}"
    except Exception as exc:  # noqa: BLE001 - a cache that cannot be made must not stop the run
        unlink_quietly(tmp)
        return f"cannot store this ontology ({type(exc).__name__}: {exc})"
    except BaseException:
        unlink_quietly(tmp)
        raise
    return ""


class StartedOntology:
    """An ontology being loaded: from the cache (ready at once) or from its OBO file.

    Returned by :func:`start_ontology`. Calling it returns the
    :class:`Ontology` (on a miss: finishes the parse, builds it and stores
    it); :meth:`cancel` stops the parse (idempotent).
    """

    def __init__(self, path: PathLike, relations: tuple[str, ...], record: CacheRecord,
                 ontology: Ontology | None = None, pending: PendingOntology | None = None,
                 key: dict[str, Any] | None = None, stamp: tuple[int, int] | None = None) -> None:
        self.path, self.relations, self.record = path, relations, record
        self._ontology, self._pending, self._key, self._stamp = ontology, pending, key, stamp

    def __call__(self) -> Ontology:
        if self._ontology is None:
            assert self._pending is not None  # noqa: S101 - internal invariant
            # local: goeval.ontology (scipy.sparse) only after the OBO parse forked; io is below ontology
            from goeval.ontology import build_ontology

            try:
                self._ontology = build_ontology(self._pending(), self.relations)
            finally:
                self._pending.cancel()
            self._store()
        return self._ontology

    @property
    def forked(self) -> bool:
        """Whether part of the OBO parse runs in a forked child process."""
        return self._pending is not None and self._pending.forked

    def _store(self) -> None:
        if self._key is None or self.record.path is None:
            return
        clock = time.perf_counter()
        if _stamp(self.path) != self._stamp:  # the bytes parsed may not be the bytes hashed
            problem = "the OBO file changed while it was read"
        else:
            problem = _write(self.record.path, temporary_name(self.record.path), self._key, self._ontology)
        self.record.timings["ontology cache write"] = time.perf_counter() - clock
        if problem:
            self.record.status, self.record.reason = "not written", problem
            _log.warning(f"ontology cache {self.record.path}: {problem}; continuing without it.")
        else:
            self.record.status = "written"

    def cancel(self) -> None:
        """Stop the OBO parse if it still runs."""
        if self._pending is not None:
            self._pending.cancel()



def start_ontology(path: PathLike, relations: Sequence[str] = ("is_a", "part_of"),
                   cache: bool | PathLike = True) -> StartedOntology:
    """Look ``path``'s compiled ontology up in the cache; on a miss start parsing the OBO file.

    Parameters
    ----------
    path : path
        The OBO file.
    relations : sequence of str
        Relations followed (part of the key).
    cache : bool or path
        True: the user cache directory (:func:`cache_dir`); False: no
        cache; a path: that cache file (or, for an existing directory, that
        cache directory).

    Raises
    ------
    InputFormatError
        As :func:`goeval.io.read_obo`, on a miss.
    """
    relations = tuple(relations)
    record = CacheRecord()
    key, stamp = None, None
    if cache is False or cache is None:
        record.reason = "not asked for"
    elif not _is_regular_file(path):
        record.reason = "the ontology is not a regular file"
    else:
        clock = time.perf_counter()
        stamp = _stamp(path)
        key = cache_key(path, relations)
        record.path = _cache_file(Path(path), key, cache)
        if record.path.exists() and os.path.samefile(record.path, path):
            raise InvalidParameterError(f"The ontology cache file must not be the ontology itself; got {str(path)!r}.")
        record.timings["ontology cache key"] = time.perf_counter() - clock
        if problem := _folder_problem(record.path.parent):
            _refuse_folder(record, problem)
            return StartedOntology(path, relations, record, pending=start_read_obo(path))
        onto, problem = _look_up(path, relations, key, record)
        if onto is not None:
            return StartedOntology(path, relations, record, ontology=onto)
        if problem:
            _log.warning(f"ontology cache {record.path}: {problem}; rebuilding it.")
        record.status = "miss"
    return StartedOntology(path, relations, record, pending=start_read_obo(path), key=key,
                           stamp=stamp)


def _look_up(path: PathLike, relations: tuple[str, ...], key: dict[str, Any],
             record: CacheRecord) -> tuple[Ontology | None, str]:
    """The ontology stored in ``record.path`` for ``key`` (a hit recorded), or None and why not ('' when absent)."""
    clock = time.perf_counter()
    arrays, problem = _read(record.path, key)  # type: ignore[arg-type]
    spent = time.perf_counter() - clock
    if arrays is None:
        return None, problem
    from goeval.ontology import Ontology  # only now: on a miss the OBO parse starts first

    clock = time.perf_counter()  # the import is not the cache's cost (a parse needs it too)
    try:
        onto = Ontology.from_arrays(arrays, source=str(path))
        if onto.relations != relations:
            raise ValueError(f"it follows {', '.join(onto.relations)}, its key says {', '.join(relations)}")
    except Exception as exc:  # noqa: BLE001 - a damaged cache is rebuilt, never trusted
        return None, f"damaged ({type(exc).__name__}: {exc})"
    record.status = "hit"
    record.timings["ontology cache load"] = spent + time.perf_counter() - clock
    return onto, ""


def _refuse_folder(record: CacheRecord, problem: str) -> None:
    """Turn the cache off for a folder someone else may write into, with a warning naming it and why."""
    folder = record.path.parent  # type: ignore[union-attr]
    fix = "use a folder of your own" if problem.startswith("owned") else f"'chmod go-w {folder}', or choose a folder"
    record.path, record.reason = None, f"the cache folder {folder} is {problem}"
    _log.warning(f"ontology cache folder {folder}: it is {problem}, so others may have put files in it; neither "
                 f"reading nor writing the cache there ({fix} with GOEVAL_CACHE_DIR or --ontology-cache).")


def _is_regular_file(path: PathLike) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _stamp(path: PathLike) -> tuple[int, int] | None:
    """Size and modification time of a file (None if it cannot be read)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_size, st.st_mtime_ns


def load_cached_ontology(path: PathLike, relations: Sequence[str] = ("is_a", "part_of"),
                         cache: bool | PathLike = True) -> tuple[Ontology, CacheRecord]:
    """The ontology of ``path`` (from the cache when possible) and what the cache did.

    See :func:`start_ontology`; a new cache file is written before returning.
    """
    started = start_ontology(path, relations, cache)
    try:
        return started(), started.record
    finally:
        started.cancel()
