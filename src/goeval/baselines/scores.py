"""Per-namespace baseline scores: training checks, the hits x terms kernel,
the top-N cut and the assembly of per-namespace scores into Annotations
(shared by :mod:`~goeval.baselines.naive` and :mod:`~goeval.baselines.homology`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from goeval.sparse import column_range, gather_rows
from goeval.annotations import Annotations, merge_annotations, propagate
from goeval.errors import InvalidParameterError
from goeval.annotations.top_terms import keep_top_terms
from goeval.ontology import Ontology

__all__ = ["NamespaceScores", "training", "namespace_columns", "reduce_hits", "assemble", "top_terms", "labels",
           "combine_annotations"]

#: Cells of the dense per-chunk accumulator (targets x training terms); bounds memory (32 MiB of float64).
_CELLS = 1 << 22


@dataclass
class NamespaceScores:
    """Scores of one namespace as CSR pieces over the target rows.

    ``counts[i]`` entries for target ``i``; ``cols`` are global term indices,
    increasing within each row; ``data`` the scores.
    """

    counts: np.ndarray
    cols: np.ndarray
    data: np.ndarray


def training(ontology: Ontology, train: Annotations, func: str) -> Annotations:
    """Check the training annotations and return them propagated."""
    if not isinstance(train, Annotations):
        raise InvalidParameterError(f"The 'train' parameter of {func} must be an Annotations object; got {type(train).__name__}.")
    if train.ontology is not ontology:
        raise InvalidParameterError(f"The 'train' parameter of {func} must be mapped on the given ontology; got annotations of another Ontology object.")
    if train.is_scores:
        raise InvalidParameterError(f"The 'train' parameter of {func} must hold annotations (bool), not prediction scores.")
    return train if train.propagated else propagate(train)


def labels(ontology: Ontology, namespaces: Any, func: str) -> list[str]:
    """Namespace labels in ontology order (all by default)."""
    if namespaces is None:
        return list(ontology.labels)
    if isinstance(namespaces, str):
        namespaces = [namespaces]
    chosen = {ontology.namespace_index(n) for n in namespaces}
    if not chosen:
        raise InvalidParameterError(f"The 'namespaces' parameter of {func} must name at least one namespace; got {namespaces!r}.")
    return [ontology.labels[j] for j in sorted(chosen)]


def namespace_columns(train: Annotations, label: str) -> tuple[np.ndarray, np.ndarray]:
    """(indptr, global term indices) of every training row restricted to one namespace."""
    s = train.ontology.namespace_slice(label)
    ptr, cols, _ = column_range(train.matrix.tocsr(), s.start, s.stop)
    return ptr, cols.astype(np.int64)


def reduce_hits(
    target: np.ndarray, subject: np.ndarray, value: np.ndarray, n_targets: int,
    ptr: np.ndarray, cols: np.ndarray, how: str,
) -> NamespaceScores:
    """Reduce hit values over (target, term) cells of the subjects' term sets.

    For every target ``x`` and term ``v`` supported by at least one hit,
    ``max`` gives ``max {value_h : h hit of x, v in T(subject_h)}`` and
    ``sum`` gives the sum of those values (added in hit order, as
    ``numpy.bincount`` does).

    Targets are processed in chunks whose dense accumulator (targets x the
    training terms of the namespace) stays under ``_CELLS`` cells; within a
    chunk the hit x term pairs are expanded from the CSR rows of the subjects
    and reduced with ``bincount`` / ``maximum.at``: no loop over hits or terms.
    ``target`` must be non-decreasing.
    """
    used = np.unique(cols)
    width = max(1, used.size)
    local = np.searchsorted(used, cols)
    per = max(1, _CELLS // width)
    starts = np.searchsorted(target, np.arange(0, n_targets + per, per).clip(max=n_targets))
    counts = np.zeros(n_targets, np.int64)
    out_c, out_v = [], []
    for k in range(starts.size - 1):
        a, b = starts[k], starts[k + 1]
        if a == b:
            continue
        t0 = k * per
        lens, terms = gather_rows(ptr, local, subject[a:b])
        key = np.repeat((target[a:b] - t0) * width, lens) + terms
        vals = np.repeat(value[a:b], lens)
        size = min(per, n_targets - t0) * width
        if how == "max":
            acc = np.full(size, -np.inf)
            np.maximum.at(acc, key, vals)
        else:
            acc = np.bincount(key, weights=vals, minlength=size)
        mark = np.zeros(size, bool)  # supported cells (a sum of zero weights included)
        mark[key] = True
        cells = np.flatnonzero(mark)
        r, c = np.divmod(cells, width)
        counts[t0 : t0 + min(per, n_targets - t0)] = np.bincount(r, minlength=min(per, n_targets - t0))
        out_c.append(used[c])
        out_v.append(acc[cells])
    cat = (lambda xs, dt: np.concatenate(xs) if xs else np.zeros(0, dt))
    return NamespaceScores(counts, cat(out_c, np.int64), cat(out_v, np.float64))


#: Keep the ``n`` best-scoring terms of each protein in each namespace (ties by
#: depth, then term id): :func:`goeval.annotations.top_terms.keep_top_terms`, the cut of
#: ``goeval evaluate --max-terms``, applied here to baseline predictions.
top_terms = keep_top_terms


def assemble(ontology: Ontology, targets: np.ndarray, parts: list[NamespaceScores],
             diagnostics: dict[str, Any], max_terms: int | None = None) -> Annotations:
    """Put per-namespace scores (namespaces in ontology order) into one Annotations."""
    n = targets.size
    counts = np.zeros(n, np.int64)
    for p in parts:
        counts += p.counts
    rows = np.concatenate([np.repeat(np.arange(n, dtype=np.int32), p.counts) for p in parts]) if len(parts) > 1 else None
    cols = np.concatenate([p.cols for p in parts]) if parts else np.zeros(0, np.int64)
    data = np.concatenate([p.data for p in parts]) if parts else np.zeros(0)
    if len(parts) > 1:  # namespaces in column order: a stable sort keeps columns sorted per row
        order = np.argsort(rows, kind="stable")
        data, cols = data[order], cols[order]
    del rows
    m = sp.csr_array((data, cols.astype(np.int32), np.r_[0, np.cumsum(counts)]), shape=(n, ontology.n_terms))
    pred = Annotations(proteins=np.asarray(targets, dtype=object), matrix=m, ontology=ontology, propagated=True,
                       diagnostics=diagnostics)
    return pred if max_terms is None else top_terms(pred, max_terms)


#: Union of several annotation sets (kept under its first name).
combine_annotations = merge_annotations
