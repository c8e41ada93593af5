"""Groups of proteins: read from a file or derived, for per-group results.

A benchmark's results can be broken down by groups of its proteins (species,
sequence identity to the training set, annotation depth...). A protein may
be in several groups or in none; every result also has the group
:data:`~goeval.io.groups.ALL_GROUP` (``all``), every protein. The rules
(``docs/conventions.md``, "Groups of proteins"):

* :func:`read_groups` - a ``protein<TAB>group`` file
  (:func:`goeval.io.groups.read_group_table`); groups in order of first
  appearance in the file;
* :func:`groups_from_files` - one group per annotation file (species files):
  named explicitly, or after the files' names (:func:`file_group_names`);
* :func:`groups_from_taxa` - one group per taxon of a GAF's column 13;
* :func:`identity_groups` - bins of each target's highest percent identity
  to a training protein in a hit table, and ``no hit``;
* :func:`depth_groups` - bins of the number of terms each protein of the
  truth is annotated with;
* :func:`parse_groups_from` - the value of ``--groups-from``.

Every function returns a :class:`ProteinGroups`: the groups (name ->
distinct protein ids), the rule in one line and what was read or left out.
Groups that end up empty are left out and listed in ``counts["empty_groups"]``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from goeval.errors import InvalidParameterError
from goeval.io.files import PathLike
from goeval.io.groups import (
    ALL_GROUP,
    group_name_problem,
    read_annotated_proteins,
    read_gaf_taxa,
    read_group_table,
)
from goeval.io.pairs import PairTable

__all__ = ["ProteinGroups", "ALL_GROUP", "IDENTITY_BINS", "DEPTH_BINS", "NO_HIT", "GROUPS_FROM", "read_groups",
           "groups_from_files", "groups_from_taxa", "identity_groups", "depth_groups", "parse_groups_from",
           "file_group_names", "identity_bin_names", "depth_bin_names"]

#: Default bin edges of :func:`identity_groups` (percent identity).
IDENTITY_BINS: tuple[float, ...] = (30.0, 50.0, 70.0, 95.0)
#: Default bin edges of :func:`depth_groups` (numbers of terms).
DEPTH_BINS: tuple[int, ...] = (1, 3, 7)
#: The group of the targets without a hit to a training protein.
NO_HIT = "no hit"
#: The kinds of ``--groups-from`` and what follows their colon.
GROUPS_FROM = {"files": None, "taxa": None, "identity": IDENTITY_BINS, "depth": DEPTH_BINS}
#: Characters that separate the words of a file name.
_SEPARATORS = "_-. "


@dataclass(frozen=True)
class ProteinGroups:
    """Named groups of proteins (a protein may be in several); order = the order groups are reported in.

    Attributes
    ----------
    groups : dict of str to ndarray
        Group name -> protein ids (object array of str, distinct, in order
        of first appearance). No group may be named ``all``; the functions
        of this module make no empty group.
    rule : str
        How they were made, one line (``file groups.tsv``, ``highest
        identity to the training proteins, bins 30,50,70,95 %``).
    counts : dict
        What was read and left out (lines, repeated lines, proteins without
        a group...), for diagnostics.

    Raises
    ------
    InvalidParameterError
        A group name with a control character, or ``all``.
    """

    groups: dict[str, np.ndarray]
    rule: str
    counts: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in self.groups:
            problem = group_name_problem(name) if isinstance(name, str) and name else "a group name must be a text"
            if problem is not None:
                raise InvalidParameterError(f"The 'groups' parameter of ProteinGroups: {problem}; got {name!r}.")

    @property
    def sizes(self) -> dict[str, int]:
        """Group name -> number of proteins."""
        return {k: int(v.size) for k, v in self.groups.items()}

    def membership(self, proteins: Sequence[str]) -> np.ndarray:
        """Whether each of ``proteins`` is in each group: bool array (n_groups, n_proteins), groups in order.

        Examples
        --------
        >>> g = ProteinGroups({"a": np.array(["P1", "P2"], object), "b": np.array(["P2"], object)}, "example")
        >>> g.membership(["P2", "P3", "P1"]).astype(int).tolist()
        [[1, 0, 1], [1, 0, 0]]
        """
        import pandas as pd  # deferred: pandas only where groups are used

        index = pd.Index(np.asarray(list(proteins), dtype=object))
        out = np.zeros((len(self.groups), len(index)), bool)
        for k, members in enumerate(self.groups.values()):
            out[k] = index.isin(members)
        return out


# ------------------------------------------------------------------ helpers
def _distinct(values: Any) -> np.ndarray:
    """Distinct strings of ``values`` in order of first appearance (object array)."""
    arr = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=object)
    if not arr.size:
        return arr
    _, first = np.unique(arr.astype(str), return_index=True)
    return arr[np.sort(first)]


def _from_pairs(proteins: np.ndarray, groups: np.ndarray) -> dict[str, np.ndarray]:
    """Group -> distinct proteins, from parallel (protein, group) arrays: groups and proteins in row order."""
    if not proteins.size:
        return {}
    keys = np.char.add(np.char.add(groups.astype(str), "\t"), proteins.astype(str))
    _, first = np.unique(keys, return_index=True)
    first.sort()
    p, g = proteins[first], groups[first].astype(str)
    names = _distinct(g)
    by = np.argsort(g, kind="stable")
    gs = g[by]
    out = {}
    for name in names.tolist():
        lo, hi = np.searchsorted(gs, name, "left"), np.searchsorted(gs, name, "right")
        if hi > lo:
            out[name] = p[by[lo:hi]]
    return out


def _table_groups(table: PairTable) -> dict[str, np.ndarray]:
    """The groups of a (protein, group) table, in order of first appearance."""
    return _from_pairs(table.proteins[table.protein_codes], table.terms[table.term_codes])


def _several(groups: dict[str, np.ndarray]) -> int:
    """How many proteins are in more than one group."""
    if not groups:
        return 0
    _, n = np.unique(np.concatenate([v.astype(str) for v in groups.values()]), return_counts=True)
    return int((n > 1).sum())


def _made(groups: dict[str, np.ndarray], names: Sequence[str], rule: str, counts: dict[str, Any]) -> ProteinGroups:
    """The ProteinGroups of ``groups`` in the order of ``names``, the empty ones listed in ``counts``."""
    counts["empty_groups"] = [n for n in names if n not in groups or not groups[n].size]
    kept = {n: groups[n] for n in names if n in groups and groups[n].size}
    counts["groups"] = len(kept)
    counts["proteins_in_several_groups"] = _several(kept)
    return ProteinGroups(kept, rule, counts)


def _paths(value: Any) -> list[PathLike]:
    """One path or a sequence of them, as a list."""
    return [value] if isinstance(value, (str, os.PathLike)) else list(value)


# --------------------------------------------------------------- from files
def read_groups(path: PathLike) -> ProteinGroups:
    """The groups of a groups file (``--groups FILE``): ``protein<TAB>group`` lines.

    The format is :func:`goeval.io.groups.read_group_table`'s; groups come
    in the order of their first line, proteins in the order of their first
    line in the group. A repeated (protein, group) line counts once.

    Returns
    -------
    ProteinGroups
        ``counts``: ``rows``, ``header_lines``, ``duplicate_rows``,
        ``proteins``, ``proteins_in_several_groups``...

    Raises
    ------
    InputFormatError
        As :func:`~goeval.io.groups.read_group_table`, naming file, line and text.
    """
    table = read_group_table(path)
    groups = _table_groups(table)
    counts = {**table.counts, "proteins": int(table.proteins.size)}
    return _made(groups, list(groups), f"file {path}", counts)


def file_group_names(paths: Sequence[PathLike]) -> list[str]:
    """The group name of each annotation file, from its name.

    The name without directories, compression suffix and extension
    (:func:`goeval.io.paths.name_stem`), without dates
    (:func:`goeval.io.snapshots.strip_date`) and separators (``_ - .``
    and spaces) at its ends; when the files give two or more names, the
    words every name starts with and those every name ends with are removed
    too (a common prefix up to a separator, a common suffix from one).
    Files that give the same name make one group.

    Raises
    ------
    InvalidParameterError
        A name that ends up empty (name the groups instead).

    Examples
    --------
    >>> file_group_names(["goa/exp_human_2019-01-29.tsv.gz", "goa/exp_mouse_2019-01-29.tsv.gz"])
    ['human', 'mouse']
    >>> file_group_names(["t0/goa_human_2014-10-12.gaf", "t1/goa_human_2019-01-29.gaf", "t1/goa_fly_2019-01-29.gaf"])
    ['human', 'human', 'fly']
    """
    from goeval.io.paths import name_stem
    from goeval.io.snapshots import strip_date

    names = [strip_date(name_stem(Path(p).name)).strip(_SEPARATORS) for p in paths]
    distinct = list(dict.fromkeys(names))
    if len(distinct) > 1:
        pre = os.path.commonprefix(distinct)
        pre = pre[: max(pre.rfind(c) for c in _SEPARATORS) + 1]
        suf = os.path.commonprefix([n[::-1] for n in distinct])[::-1]
        suf = suf[min((i for i, c in enumerate(suf) if c in _SEPARATORS), default=len(suf)):]
        if all(len(pre) + len(suf) < len(n) for n in distinct):
            names = [n[len(pre): len(n) - len(suf)].strip(_SEPARATORS) for n in names]
    for p, n in zip(paths, names):
        if not n:
            raise InvalidParameterError(f"The 'files' parameter of groups_from_files: the name of {p} gives no group "
                                        "name (only a date and separators); name the groups (name -> files).")
    return names


def groups_from_files(files: Mapping[str, Any] | Sequence[PathLike]) -> ProteinGroups:
    """One group per annotation file or per name: the proteins the files annotate (species files).

    Parameters
    ----------
    files : mapping of str to path(s), or sequence of paths
        Group name -> its files (one path or several), or the files, each
        named by :func:`file_group_names`. Files are ``protein<TAB>term``
        tables or GAF files; every row counts, whatever its evidence code.

    Returns
    -------
    ProteinGroups
        Groups in the order of the mapping or of the files; ``counts``:
        ``files`` (group -> its files), ``proteins``...

    Raises
    ------
    InvalidParameterError
        No file, a group name with a control character or ``all``, a file
        name that gives no group name.
    InputFormatError
        As the readers of the files.
    """
    if isinstance(files, Mapping):
        by_name = {str(k): [str(p) for p in _paths(v)] for k, v in files.items()}
        rule = "annotation files by group"
    else:
        paths = _paths(files)
        by_name = {}
        for name, p in zip(file_group_names(paths), paths):
            by_name.setdefault(name, []).append(str(p))
        rule = "species from the annotation files' names"
    if not by_name or not all(by_name.values()):
        raise InvalidParameterError(f"The 'files' parameter of groups_from_files must name files; got {files!r}.")
    _check_names(by_name, "groups_from_files")
    groups = {}
    for name, paths in by_name.items():
        groups[name] = _distinct(np.concatenate([read_annotated_proteins(p)[0] for p in paths]))
    counts = {"files": by_name, "proteins": int(_distinct(np.concatenate(list(groups.values()))).size)}
    return _made(groups, list(by_name), f"{rule} ({', '.join(by_name)})", counts)


def _check_names(names: Any, func: str) -> None:
    for name in names:
        if (problem := group_name_problem(name) if name else "a group name must not be empty") is not None:
            raise InvalidParameterError(f"The 'files' parameter of {func}: {problem}; got {name!r}.")


def groups_from_taxa(gaf_paths: PathLike | Sequence[PathLike]) -> ProteinGroups:
    """One group per taxon of GAF files' column 13 (``taxon:9606`` -> group ``9606``).

    The protein's taxon is the first of column 13 (``taxon:10090|taxon:9606``
    is ``10090``, the second being an interacting organism); every
    annotation line counts, whatever its evidence and qualifier. A protein
    given two taxa is in both groups (counted).

    Returns
    -------
    ProteinGroups
        Taxa in order of first appearance; ``counts``: ``files``, ``rows``,
        ``gaf_comment_lines``, ``proteins``, ``proteins_in_several_groups``.

    Raises
    ------
    InvalidParameterError
        No file.
    InputFormatError
        As :func:`goeval.io.groups.read_gaf_taxa` (a malformed GAF line or taxon field).
    """
    paths = _paths(gaf_paths)
    if not paths:
        raise InvalidParameterError("The 'gaf_paths' parameter of groups_from_taxa must name at least one GAF file.")
    tables = [read_gaf_taxa(p) for p in paths]
    prot = np.concatenate([t.proteins[t.protein_codes] for t in tables])
    taxa = np.concatenate([t.terms[t.term_codes] for t in tables])
    groups = _from_pairs(prot, taxa)
    counts = {"files": [str(p) for p in paths], "rows": sum(t.counts["rows"] for t in tables),
              "gaf_comment_lines": sum(t.counts["gaf_comment_lines"] for t in tables),
              "proteins": int(_distinct(prot).size)}
    return _made(groups, list(groups), f"taxa of the GAF column 13 ({', '.join(map(str, paths))})", counts)


# ------------------------------------------------------------------- bins
def _edges(values: Any, kind: str, where: str, got: str | None = None) -> tuple:
    """Bin edges of ``kind`` (identity: percents in (0, 100]; depth: integers >= 1), increasing; else an error."""
    try:
        items = [float(v) for v in values]
    except (TypeError, ValueError):
        items = []
    ok = bool(items) and all(b > a for a, b in zip(items, items[1:]))
    if kind == "identity":
        ok = ok and all(0 < v <= 100 for v in items)
        out: tuple = tuple(items)
        need = "increasing percent identities in (0, 100]"
    else:
        ok = ok and all(v >= 1 and v == int(v) for v in items)
        out = tuple(int(v) for v in items) if ok else ()
        need = "increasing integers >= 1"
    if not ok:
        raise InvalidParameterError(f"{where} must be {need}, such as {_text(GROUPS_FROM[kind])}; got {got or repr(values)}.")
    return out


def _text(edges: Sequence[float]) -> str:
    return ",".join(f"{v:g}" for v in edges)


def identity_bin_names(edges: Sequence[float]) -> list[str]:
    """The names of the identity bins ``[0, e1)``, ``[e1, e2)``, ..., ``[ek, 100]``: ``0-30%``, ..., ``95-100%``.

    A last edge of 100 makes the last bin ``100%`` (identity exactly 100).

    Examples
    --------
    >>> identity_bin_names((30, 50, 70, 95))
    ['0-30%', '30-50%', '50-70%', '70-95%', '95-100%']
    >>> identity_bin_names((40, 100))
    ['0-40%', '40-100%', '100%']
    """
    lows, highs = [0.0, *edges], [*edges, 100.0]
    return [f"{lo:g}%" if lo == hi else f"{lo:g}-{hi:g}%" for lo, hi in zip(lows, highs)]


def depth_bin_names(edges: Sequence[int]) -> list[str]:
    """The names of the depth bins ``[1, e1]``, ``[e1 + 1, e2]``, ..., ``[ek + 1, inf)``: ``1``, ``2-3``, ..., ``8+``.

    Examples
    --------
    >>> depth_bin_names((1, 3, 7))
    ['1', '2-3', '4-7', '8+']
    """
    lows = [1, *(e + 1 for e in edges)]
    return [str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in zip(lows, edges)] + [f"{lows[-1]}+"]


def _binned(proteins: np.ndarray, index: np.ndarray, names: list[str]) -> dict[str, np.ndarray]:
    """Bin name -> the proteins whose bin ``index`` it is (order kept; index -1: no bin)."""
    return {name: proteins[index == k] for k, name in enumerate(names)}


# ------------------------------------------------------------------ identity
def _best_identity(hits: Any, targets: np.ndarray, training: np.ndarray) -> tuple[np.ndarray, dict[str, Any]]:
    """Each target's highest pident of a hit with a training protein (either direction, no self hit); -inf: none."""
    import pandas as pd  # deferred: pandas only where groups are used

    ids = pd.Index(hits.ids)
    is_target = ids.isin(targets)
    is_training = ids.isin(training)
    q, s = hits.query_codes, hits.subject_codes
    pid = hits.column("pident", "identity_groups")
    best = np.full(hits.ids.size, -np.inf)
    other = q != s
    used = 0
    for t, o in ((q, s), (s, q)):
        sel = is_target[t] & is_training[o] & other
        np.maximum.at(best, t[sel], pid[sel])
        used += int(sel.sum())
    pos = ids.get_indexer(targets)
    out = np.where(pos >= 0, best[pos], -np.inf)
    counts = {"targets_in_training": int(pd.Index(targets).isin(training).sum()), "hits": len(hits),
              "hits_used": used, "self_hits_skipped": int((~other & is_target[q]).sum()),
              "targets_not_in_hits": int((pos < 0).sum())}
    return out, counts


def identity_groups(hits: Any, targets: Sequence[str], training: Sequence[str],
                    bins: Sequence[float] = IDENTITY_BINS, *, hit_columns: Sequence[str] | None = None) -> ProteinGroups:
    """Targets binned by their highest percent identity to a training protein, from a hit table.

    For each target, the highest ``pident`` of a hit between it and a
    training protein, in either direction (query the target and subject a
    training protein, or the reverse); a hit of a protein with itself is
    never counted, even when the target is a training protein. Bins are
    half-open, ``[0, e1)``, ``[e1, e2)``, ..., and the last closed,
    ``[ek, 100]`` (:func:`identity_bin_names`: ``0-30%``, ``30-50%``,
    ``50-70%``, ``70-95%``, ``95-100%``); a target without such a hit is
    in :data:`NO_HIT` (``no hit``), the last group.

    Parameters
    ----------
    hits : HitTable or path
        The hit table (:func:`goeval.io.hits.read_hits`, with ``hit_columns``); it needs ``pident``.
    targets, training : sequence of str
        The proteins grouped, and the training proteins.
    bins : sequence of float, default (30, 50, 70, 95)
        Increasing edges in (0, 100].

    Returns
    -------
    ProteinGroups
        ``counts``: ``targets``, ``training``, ``targets_in_training``,
        ``hits``, ``hits_used``, ``self_hits_skipped``, ``targets_not_in_hits``,
        ``no_hit``...

    Raises
    ------
    InvalidParameterError
        Bad ``bins``, no ``pident`` column.
    InputFormatError
        As :func:`~goeval.io.hits.read_hits`.
    """
    edges = _edges(bins, "identity", "The 'bins' parameter of identity_groups")
    if isinstance(hits, (str, os.PathLike)):
        from goeval.io.hits import read_hits

        hits = read_hits(hits, None if hit_columns is None else tuple(hit_columns))
    tg, tr = _distinct(targets), _distinct(training)
    best, counts = _best_identity(hits, tg, tr)
    found = np.isfinite(best)
    index = np.where(found, np.searchsorted(np.asarray(edges), best, side="right"), -1)
    names = identity_bin_names(edges)
    groups = {**_binned(tg, index, names), NO_HIT: tg[~found]}
    counts = {"targets": int(tg.size), "training": int(tr.size), **counts, "no_hit": int((~found).sum()),
              "bins": list(edges)}
    rule = f"highest identity to the training proteins ({getattr(hits, 'source', 'hits')}), bins {_text(edges)} %"
    return _made(groups, [*names, NO_HIT], rule, counts)


# --------------------------------------------------------------------- depth
def depth_groups(truth: Any, bins: Sequence[int] = DEPTH_BINS) -> ProteinGroups:
    """The proteins of the truth binned by their number of terms, as annotated (not propagated).

    A protein's depth is the number of distinct terms of its row of
    ``truth`` (every namespace it holds; pass ``truth.namespace(...)`` for
    one namespace's): the terms as given after mapping onto the ontology
    (alt ids merged with their primary term), no ancestor added. Bins are
    closed, ``[1, e1]``, ``[e1 + 1, e2]``, ..., and ``[ek + 1, inf)``
    (:func:`depth_bin_names`: ``1``, ``2-3``, ``4-7``, ``8+``). A protein
    with no term is in no group (counted).

    Parameters
    ----------
    truth : Annotations
        The truth, unpropagated.
    bins : sequence of int, default (1, 3, 7)
        Increasing integers >= 1.

    Returns
    -------
    ProteinGroups
        ``counts``: ``proteins``, ``proteins_without_terms``, ``terms``
        (the truth's entries), ``bins``...

    Raises
    ------
    InvalidParameterError
        Bad ``bins``; scores or propagated annotations instead of the truth.
    """
    edges = _edges(bins, "depth", "The 'bins' parameter of depth_groups")
    if truth.is_scores or truth.propagated:
        raise InvalidParameterError("The 'truth' parameter of depth_groups must be the truth as annotated "
                                    "(neither scores nor propagated): depth counts the annotated terms.")
    m = sp.csr_array(truth.matrix, copy=True)
    m.eliminate_zeros()
    m.sum_duplicates()
    n = np.diff(m.indptr)
    index = np.where(n > 0, np.searchsorted(np.asarray(edges), n, side="left"), -1)
    names = depth_bin_names(edges)
    counts = {"proteins": int(truth.proteins.size), "proteins_without_terms": int((n == 0).sum()),
              "terms": int(n.sum()), "bins": list(edges)}
    rule = f"number of truth terms per protein (as annotated, not propagated), bins {_text(edges)}"
    return _made(_binned(np.asarray(truth.proteins, dtype=object), index, names), names, rule, counts)


# ------------------------------------------------------------- --groups-from
def parse_groups_from(text: str) -> tuple[str, tuple]:
    """The kind and the numbers of a ``--groups-from`` value.

    ``files`` and ``taxa`` take no numbers; ``identity`` and ``depth`` take
    bin edges after a colon (``identity:30,50,70,95``, ``depth:1,3,7``),
    their defaults (:data:`IDENTITY_BINS`, :data:`DEPTH_BINS`) without one.

    Returns
    -------
    (str, tuple)
        ``("files", ())``, ``("identity", (30.0, 50.0, 70.0, 95.0))``, ``("depth", (1, 3, 7))``...

    Raises
    ------
    InvalidParameterError
        Another kind, numbers after ``files`` or ``taxa``, edges that are
        not increasing numbers of the kind.

    Examples
    --------
    >>> parse_groups_from("identity:30,50,70,95"), parse_groups_from("depth")
    (('identity', (30.0, 50.0, 70.0, 95.0)), ('depth', (1, 3, 7)))
    >>> parse_groups_from("taxa")
    ('taxa', ())
    """
    where = "The 'groups_from' parameter (--groups-from)"
    kind, colon, rest = str(text).strip().partition(":")
    kind = kind.strip().lower()
    if kind not in GROUPS_FROM or (colon and GROUPS_FROM[kind] is None):
        raise InvalidParameterError(f"{where} must be 'files', 'taxa', 'identity[:E1,E2,...]' (percent identities) "
                                    f"or 'depth[:K1,K2,...]' (numbers of terms); got {text!r}.")
    if GROUPS_FROM[kind] is None:
        return kind, ()
    if not colon:
        return kind, tuple(GROUPS_FROM[kind])
    values = [v.strip() for v in rest.split(",")]
    if not all(v.isascii() and v.replace(".", "", 1).isdigit() for v in values):
        raise InvalidParameterError(f"{where} takes {kind} bin edges as plain numbers separated by commas, "
                                    f"such as '{kind}:{_text(GROUPS_FROM[kind])}'; got {text!r}.")
    return kind, _edges(values, kind, f"{where}: the {kind} bin edges", repr(text))
