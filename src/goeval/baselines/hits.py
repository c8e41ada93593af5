"""Selection of the usable hits of each target (CONVENTIONS §6).

A hit row (x, s) of a hit table is *usable* for namespace o when

* x is a target (every query when no target list is given),
* s != x (self hits removed),
* s is a protein of the training set and is annotated in o,
* it passes the optional filters (E-value, identity, coverage),
* it is the first row of the pair (x, s) in the table (aligners list a
  pair's best HSP first; BLAST may report several HSPs of one pair).

Every removed row is counted under the first reason in that order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow.compute as pc

from goeval.sparse import column_range
from goeval.annotations import Annotations
from goeval.errors import InvalidParameterError
from goeval.io.arrow import numpy_values, string_array
from goeval.io.hits import HitTable

__all__ = ["UsableHits", "usable_hits", "REASONS", "unique_targets"]

#: Reasons a hit row is not used, in the order they are tested.
REASONS: tuple[str, ...] = (
    "query_not_target",
    "self_hit",
    "subject_not_in_training_set",
    "subject_not_annotated_in_namespace",
    "evalue_above_max",
    "identity_below_min",
    "coverage_below_min",
    "duplicate_pair",
)


@dataclass(kw_only=True)
class UsableHits:
    """Usable hits of the targets in one namespace, grouped by target.

    Attributes
    ----------
    namespace : str
        Namespace label.
    targets : ndarray of str, shape (n_targets,)
        The targets (rows of the predictions).
    target : ndarray of int64, shape (n_usable,)
        Target index of each usable hit (non-decreasing).
    subject : ndarray of int64, shape (n_usable,)
        Row of the subject in the training annotations.
    row : ndarray of int64, shape (n_usable,)
        Row of the hit in the hit table (to read any of its columns).
    """

    namespace: str
    targets: np.ndarray
    target: np.ndarray
    subject: np.ndarray
    row: np.ndarray

    def __len__(self) -> int:
        return int(self.row.size)


def _positions(ids: np.ndarray, universe: np.ndarray) -> np.ndarray:
    """Position of each id in ``universe`` (-1 when absent), vectorized."""
    if ids.size == 0:
        return np.zeros(0, np.int64)
    pos = pc.index_in(string_array(ids), value_set=string_array(universe))
    return numpy_values(pos, fill=-1).astype(np.int64)


def unique_targets(targets: object) -> tuple[np.ndarray, int]:
    """Distinct target ids in order of first appearance, and the number of repeats dropped."""
    arr = np.asarray(list(targets), dtype=object)
    if arr.size == 0:
        return arr, 0
    _, first = np.unique(arr.astype(str), return_index=True)
    first.sort()
    return arr[first], int(arr.size - first.size)


def _coverage(hits: HitTable) -> np.ndarray:
    """Query coverage in percent: ``qcovhsp``, else 100 (|qend - qstart| + 1) / qlen."""
    v = hits.values
    if "qcovhsp" in v:
        return v["qcovhsp"]
    if all(c in v for c in ("qstart", "qend", "qlen")):
        with np.errstate(divide="ignore", invalid="ignore"):
            return 100.0 * (np.abs(v["qend"] - v["qstart"]) + 1.0) / v["qlen"]
    raise InvalidParameterError(
        "The 'min_coverage' parameter of usable_hits needs a 'qcovhsp' column or the 'qstart', 'qend' and "
        f"'qlen' columns in the hit table {hits.source}; it has {', '.join(hits.columns)}."
    )


def _filters(hits: HitTable, max_evalue: float | None, min_identity: float | None,
             min_coverage: float | None) -> list[tuple[str, np.ndarray]]:
    """(reason, failing mask) for each requested filter."""
    out = []
    if max_evalue is not None:
        out.append(("evalue_above_max", hits.column("evalue", "usable_hits") > max_evalue))
    if min_identity is not None:
        out.append(("identity_below_min", hits.column("pident", "usable_hits") < min_identity))
    if min_coverage is not None:
        out.append(("coverage_below_min", ~(_coverage(hits) >= min_coverage)))
    return out


def _first_of_pair(q: np.ndarray, s: np.ndarray, alive: np.ndarray, n_ids: int) -> np.ndarray:
    """Mask of the alive rows that repeat an earlier alive (query, subject) pair."""
    idx = np.flatnonzero(alive)
    key = q[idx].astype(np.int64) * n_ids + s[idx]
    order = np.argsort(key, kind="stable")
    ks = key[order]
    dup = np.zeros(alive.size, bool)
    dup[idx[order[1:][ks[1:] == ks[:-1]]]] = True
    return dup


def usable_hits(
    hits: HitTable,
    train: Annotations,
    namespace: str,
    targets: object = None,
    max_evalue: float | None = None,
    min_identity: float | None = None,
    min_coverage: float | None = None,
) -> tuple[UsableHits, dict[str, int]]:
    """Select the usable hits of each target in one namespace.

    Parameters
    ----------
    hits : HitTable
    train : Annotations
        Training annotations (propagated or not; only which proteins have a
        term of ``namespace`` matters here).
    namespace : str
        Namespace label (``MFO``) or name.
    targets : sequence of str, optional
        Targets; default every query of ``hits`` (first-appearance order).
    max_evalue : float, optional
        Keep hits with E-value <= max_evalue.
    min_identity : float, optional
        Keep hits with pident >= min_identity (percent).
    min_coverage : float, optional
        Keep hits with query coverage >= min_coverage (percent; column
        ``qcovhsp``, else computed from ``qstart``, ``qend``, ``qlen``).

    Returns
    -------
    UsableHits
    counts : dict of str to int
        ``rows`` read, one count per reason in :data:`REASONS` (each removed
        row under its first reason) and ``usable``; they add up to ``rows``.
    """
    label = train.ontology.labels[train.ontology.namespace_index(namespace)]
    if targets is None:
        tlist, _ = hits.queries, 0
    else:
        tlist, _ = unique_targets(targets)
    q, s = hits.query_codes, hits.subject_codes
    tpos = _positions(hits.ids, tlist)
    spos = _positions(hits.ids, train.proteins)
    sl = train.ontology.namespace_slice(label)
    ptr, _, _ = column_range(train.matrix.tocsr(), sl.start, sl.stop)
    annotated = np.r_[np.diff(ptr) > 0, False]  # index -1 (absent) -> False
    tests = [
        ("query_not_target", tpos[q] < 0),
        ("self_hit", q == s),
        ("subject_not_in_training_set", spos[s] < 0),
        ("subject_not_annotated_in_namespace", ~annotated[spos[s]]),
        *_filters(hits, max_evalue, min_identity, min_coverage),
    ]
    alive = np.ones(len(hits), bool)
    counts = {"rows": len(hits)}
    for reason in REASONS[:-1]:
        fail = dict(tests).get(reason)
        counts[reason] = 0 if fail is None else int(np.count_nonzero(fail & alive))
        if fail is not None:
            alive &= ~fail
    dup = _first_of_pair(q, s, alive, hits.ids.size)
    counts["duplicate_pair"] = int(dup.sum())
    alive &= ~dup
    rows = np.flatnonzero(alive)
    tgt = tpos[q[rows]]
    order = np.argsort(tgt, kind="stable")
    rows, tgt = rows[order], tgt[order]
    counts["usable"] = int(rows.size)
    return UsableHits(namespace=label, targets=tlist, target=tgt, subject=spos[s[rows]], row=rows), counts
