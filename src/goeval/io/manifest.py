"""A run owns its output directory: the manifest of what it wrote, and the check of what is read back.

Every command that writes a results directory (``evaluate``, ``retrieval``,
``benchmark cv``, ``benchmark timesplit``) writes all its files through one
:class:`RunOutput`: they appear together, with ``manifest.json`` listing
each file's size and SHA-256. When the directory holds the files of an
earlier run, those listed in the earlier manifest that this run does not
write again (a ``protein_stats.npz`` of a bootstrap, ``plots/``, a report)
are removed once the new files are in place, so the directory never mixes
two runs. Files no goeval manifest lists (the user's own), or changed since
the earlier run, are never touched; the run names them on the console.
``goeval plot`` and ``goeval report`` add their files to the manifest of
the directory they write into. A run whose measures include some that are
not goeval's own (plugins: :mod:`goeval.metrics.plugins`) records where
each came from (``measures``: name -> module, distribution, version, how
it was loaded), so that a reader without them can say which plugin to load.

The folder may be someone else's, so its manifest is untrusted input: read
within bounds, each entry that is not a plain path inside the folder
(``../victim``, ``/abs/victim``, ``plots/fig.png`` with ``plots`` a link to
elsewhere: :func:`goeval.io.files.inside_output`) is refused with a
warning naming it, and nothing outside the folder is ever removed.

:func:`check_run_file` is what ``compare``, ``report`` and ``plot`` call on
every file they read: a file the manifest does not list, or whose content
differs from what the run wrote, or that is a symbolic link, is an error
naming the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goeval.errors import GoevalError, GoevalWarning, InputFormatError, OutputError
from goeval.io.files import OutputSet, PathLike, inside_output, outside_problem, read_json
from goeval.io.names import bad_character

__all__ = ["MANIFEST_FILE", "FORMAT", "Manifest", "RunOutput", "read_manifest", "find_manifest", "check_run_file",
           "check_manifest_slot", "add_to_manifest", "file_digest"]

#: File name of the manifest in a results directory.
MANIFEST_FILE = "manifest.json"
#: Its ``format`` entry.
FORMAT = "goeval-manifest 1"

_SHA256 = re.compile(r"[0-9a-f]{64}")


def file_digest(path: PathLike) -> dict[str, Any]:
    """``{"bytes": size, "sha256": hex digest}`` of a file's bytes on disk."""
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        for data in iter(lambda: fh.read(1 << 20), b""):
            h.update(data)
            size += len(data)
    return {"bytes": size, "sha256": h.hexdigest()}


@dataclass
class Manifest:
    """What one run wrote into a directory.

    Attributes
    ----------
    directory : Path
    command : list of str
        The command line of the run (empty when called from Python).
    files : dict of str to dict
        Path relative to ``directory`` (``/``-separated) -> ``bytes``,
        ``sha256`` and, for files added later, ``added_by``.
    measures : dict of str to dict
        The measures of the run that are not goeval's own -> where each came
        from (:func:`goeval.metrics.plugins.measure_sources`: ``module``,
        ``distribution``, ``version``, ``loaded_by``, ``file``; all text);
        written only when there are some.
    """

    directory: Path
    command: list[str] = field(default_factory=list)
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    measures: dict[str, dict[str, str]] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        from goeval import __version__

        doc = {"format": FORMAT, "goeval": __version__, "command": self.command, "files": self.files}
        if self.measures:
            doc["measures"] = self.measures
        return doc


def read_manifest(directory: PathLike) -> Manifest | None:
    """The manifest of ``directory``, or None when it has none.

    ``manifest.json`` is untrusted input (the folder may be someone
    else's): it is read within the bounds of :func:`goeval.io.files.read_json`
    (size, nesting), and each entry of its file list that is not a plain
    path inside the folder (:func:`goeval.io.files.outside_problem`: no
    ``..``, no absolute path) with a size and a SHA-256 is refused with a
    :class:`~goeval.errors.GoevalWarning` naming it; the other entries are
    used.

    Raises
    ------
    InputFormatError
        ``manifest.json`` exists but is a symbolic link, or is not a goeval
        manifest (named).
    """
    p = Path(directory) / MANIFEST_FILE
    if p.is_symlink():
        raise InputFormatError(p, None, f"is a symbolic link (to {os.readlink(p)!r}); goeval writes its manifest "
                                        "as a file: not read")
    if not p.is_file():
        return None
    try:
        doc = read_json(p)
    except InputFormatError as exc:
        raise InputFormatError(p, exc.line, f"not a goeval manifest: {exc.problem}") from None
    files = doc.get("files") if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(files, dict):
        raise InputFormatError(p, None, f"not a goeval manifest (expected format {FORMAT!r} and a list of files)")
    command = doc.get("command") or []
    if not (isinstance(command, list) and all(isinstance(a, str) for a in command)):
        _refused(p, "its 'command' entry is not a list of strings: ignored")
        command = []
    return Manifest(Path(directory), command, _valid_entries(p, files), _valid_measures(p, doc.get("measures")))


def _valid_measures(p: Path, measures: Any) -> dict[str, dict[str, str]]:
    """The ``measures`` entry of a manifest: measure name -> text fields (one that is not is refused, named)."""
    if measures is None:
        return {}
    if not isinstance(measures, dict):
        _refused(p, "its 'measures' entry is not a mapping of measure names to their sources: ignored")
        return {}
    valid = {}
    for name, src in measures.items():
        if not (isinstance(src, dict) and all(isinstance(v, str) for v in src.values())):
            _refused(p, f"the source of the measure {name[:200]!r} is not a mapping of text fields: ignored")
        elif any(bad_character(t) is not None for t in (name, *src, *src.values())):  # said on the console later
            _refused(p, f"the source of the measure {name[:200]!r} holds a control character: ignored")
        else:
            valid[name] = dict(src)
    return valid


def _refused(manifest: Path, what: str) -> None:
    warnings.warn(f"{manifest}: {what}", GoevalWarning, stacklevel=3)


def _entry_problem(directory: Path, name: str, entry: Any) -> str | None:
    """What is wrong with one entry of a manifest's file list (its path in ``directory``, size, digest), or None."""
    problem = outside_problem(directory, name)
    if problem is not None:
        return problem
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "holds a control character (goeval writes no such name)"
    if not isinstance(entry, dict):
        return "is not an object with the file's bytes and sha256"
    size, digest = entry.get("bytes"), entry.get("sha256")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        return f"has a size that is not a number of bytes ({size!r})"
    if not (isinstance(digest, str) and _SHA256.fullmatch(digest)):
        return f"has a sha256 that is not 64 hexadecimal digits ({str(digest)[:80]!r})"
    if not isinstance(entry.get("added_by", ""), str):
        return "has an 'added_by' that is not a string"
    return None


def _valid_entries(p: Path, files: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The entries of a manifest's file list that pass :func:`_entry_problem`; each other one is warned about."""
    valid = {}
    for name, entry in files.items():
        problem = _entry_problem(p.parent, name, entry)
        if problem is None:
            valid[name] = entry
        else:
            _refused(p, f"the entry {name[:200]!r} {problem}: refused (not used to check or remove a file)")
    return valid


def find_manifest(path: PathLike) -> Manifest | None:
    """The manifest that covers a directory: its own, else its parent's or grandparent's (a time split's ``nk/``,
    ``plots/``, ``nk/plots/``), the nearest one."""
    d = Path(path)
    for candidate in (d, d.parent, d.parent.parent):
        m = read_manifest(candidate)
        if m is not None:
            return m
    return None


def check_run_file(path: PathLike, manifest: Manifest | None = None, *, folder: PathLike | None = None) -> None:
    """Check that a results file is one the run of its directory wrote, unchanged.

    Parameters
    ----------
    path : str or path-like
        The file about to be read.
    manifest : Manifest, optional
        Default: :func:`find_manifest` of its directory. Without a manifest
        there is nothing to check membership against (a directory of an
        older goeval), but the file is still refused if it is a link.
    folder : str or path-like, optional
        Without a manifest: the results folder the user named, in which no
        link is followed (default: the file's own folder).

    Raises
    ------
    InputFormatError
        The file is a symbolic link, or lies in a linked folder inside the
        results folder: goeval writes no links there, so it is not the run's
        file (a link to ``/elsewhere/edited.tsv`` would be read unchecked).
    GoevalError
        The manifest does not list the file, or its size or SHA-256 differ.
    """
    p = Path(path)
    m = manifest if manifest is not None else find_manifest(p.parent)
    top = m.directory if m is not None else Path(folder) if folder is not None else p.parent
    try:
        name = p.relative_to(top).as_posix()  # as named: a link on the way must not take the file elsewhere
    except ValueError:
        top, name = p.parent, p.name
    problem = outside_problem(top, name, link_ok=False)
    if problem is not None:
        raise InputFormatError(p, None, f"{name!r} {problem} inside the results folder {top}/: goeval writes no "
                                        "links there, so this is not a file of its run and is not read (put the "
                                        "file itself in its place to read it)")
    if m is None:
        return
    entry = m.files.get(name)
    where = m.directory / MANIFEST_FILE
    if entry is None:
        raise GoevalError(f"{p}: not written by the run that wrote {m.directory}/ ({where} does not list it): the "
                          "directory mixes runs; remove the file or run the command again.")
    if file_digest(p) != {"bytes": entry["bytes"], "sha256": entry["sha256"]}:
        raise GoevalError(f"{p}: changed since the run that wrote {m.directory}/ (its size or SHA-256 differ from "
                          f"{where}'s): the directory mixes runs, or the file was edited or truncated.")


def check_manifest_slot(directory: PathLike) -> None:
    """Before any work: ``directory/manifest.json``, when present, must be a goeval manifest (it is replaced).

    A symbolic link there is replaced as a link (the file it points to is
    untouched), so it does not stop the run.

    Raises
    ------
    OutputError
        It is another program's file (or too large or too deeply nested to be goeval's).
    """
    if (Path(directory) / MANIFEST_FILE).is_symlink():
        return
    try:
        with warnings.catch_warnings():  # its refused entries are said once, when the run reads it to clean up
            warnings.simplefilter("ignore", GoevalWarning)
            read_manifest(directory)
    except InputFormatError as exc:
        raise OutputError(f"{Path(directory) / MANIFEST_FILE}: exists and is not a goeval manifest ({exc.problem}); "
                          "a run would replace it: choose another --out.") from None


class RunOutput(OutputSet):
    """Every file of one run, written together with the manifest that lists them.

    :meth:`commit` hashes the files, adds ``manifest.json``, moves
    everything into place at once, then removes the files of the earlier
    run (those its manifest lists) that this run did not write.

    Parameters
    ----------
    directory : str or path-like
    command : sequence of str, optional
        The command line, kept in the manifest.
    measures : mapping, optional
        Where the run's measures that are not goeval's own came from
        (:attr:`Manifest.measures`).
    """

    def __init__(self, directory: PathLike, command: Iterable[str] = (),
                 measures: dict[str, dict[str, str]] | None = None) -> None:
        super().__init__(directory)
        self.command = [str(a) for a in command]
        self.measures = dict(measures or {})
        self.removed: list[str] = []
        self.foreign: list[str] = []
        #: Names this run replaces even without an earlier manifest (e.g. either curves table): removed after the
        #: commit when present and not written.
        self.replaces: set[str] = set()

    def commit(self) -> dict[str, Path]:
        previous = _previous(self.directory)
        files = {target.relative_to(self.directory).as_posix(): file_digest(tmp) for tmp, target in self._pending}
        manifest = Manifest(self.directory, self.command, files, self.measures)
        with self.open(MANIFEST_FILE) as fh:
            json.dump(manifest.as_json(), fh, indent=1)
            fh.write("\n")
        done = super().commit()
        self.removed = _remove_stale(self.directory, previous, set(files))
        self.removed += _remove_replaced(self.directory, self.replaces - set(files))
        self.foreign = _unlisted(self.directory, set(files) | {MANIFEST_FILE})
        return done


def _previous(directory: Path) -> Manifest | None:
    try:
        return read_manifest(directory)
    except InputFormatError as exc:  # a link, or not goeval's (a run checks the latter before any work)
        warnings.warn(f"{exc}; the files of the earlier run are not removed (the manifest is replaced)",
                      GoevalWarning, stacklevel=3)
        return None


def _remove_stale(directory: Path, previous: Manifest | None, written: set[str]) -> list[str]:
    """Remove the files of the earlier run that this one did not write, if they are still as that run left
    them (and the directories they leave empty); an entry outside the directory (:func:`inside_output`) is
    refused with a warning naming it."""
    if previous is None:
        return []
    removed = []
    for name in sorted(set(previous.files) - written):
        try:
            p = inside_output(directory, name)
        except OutputError as exc:
            _refused(directory / MANIFEST_FILE, f"an entry of the earlier run is not removed: {exc}")
            continue
        entry = previous.files[name]
        # a link planted at the name of a file of the earlier run is left, as any file that run did not write
        if p.is_file() and not p.is_symlink() and file_digest(p) == {"bytes": entry["bytes"],
                                                                      "sha256": entry["sha256"]}:
            _unlink(p)
            removed.append(name)
            _remove_empty_parents(p.parent, directory)
    return removed


def _remove_replaced(directory: Path, names: set[str]) -> list[str]:
    removed = []
    for name in sorted(names):
        if outside_problem(directory, name) is not None:
            continue  # this run's own names (curves tables): only a linked folder on the way fails, and is left
        p = inside_output(directory, name)
        if p.is_file() and not p.is_symlink():
            _unlink(p)
            removed.append(name)
    return removed


def _unlink(p: Path) -> None:
    try:
        p.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise OutputError(f"{p}: cannot remove this file of an earlier run: {exc.strerror or exc}.") from None


def _remove_empty_parents(d: Path, top: Path) -> None:
    while d != top and top in d.parents:
        try:
            d.rmdir()
        except OSError:
            return
        d = d.parent


def _unlisted(directory: Path, written: set[str]) -> list[str]:
    """Files in ``directory`` (one level of subdirectories) that no manifest of this run lists."""
    out = []
    for p in sorted(directory.iterdir()):
        if p.is_file() and p.name not in written and not p.name.startswith("."):
            out.append(p.name)
        elif p.is_dir() and not p.is_symlink() and not p.name.startswith("."):
            out += [f"{p.name}/{q.name}" for q in sorted(p.iterdir())
                    if q.is_file() and f"{p.name}/{q.name}" not in written and not q.name.startswith(".")]
    return out


def add_to_manifest(directory: PathLike, written: dict[str, Path], added_by: str) -> bool:
    """List files written into a results directory after its run (figures, a report) in its manifest.

    ``written`` maps names to the paths written; those inside the
    directory covered by a manifest (:func:`find_manifest`) are added with
    their size, SHA-256 and ``added_by``; a file reached through a linked
    folder is not inside it (:func:`goeval.io.files.outside_problem`) and
    is not listed. Returns whether a manifest was updated (a directory
    without one is left as it is).
    """
    m = find_manifest(directory)
    if m is None:
        return False
    for path in written.values():
        try:
            name = Path(path).relative_to(m.directory).as_posix()
        except ValueError:
            continue
        if outside_problem(m.directory, name, link_ok=False) is None:
            m.files[name] = {**file_digest(path), "added_by": added_by}
    with OutputSet(m.directory) as out:
        with out.open(MANIFEST_FILE) as fh:
            json.dump(m.as_json(), fh, indent=1)
            fh.write("\n")
    return True
