"""The N best-scoring terms of each protein and namespace (``--max-terms``), or of each protein
over all namespaces together (``--max-terms-total``).

CAFA 5 scored at most 500 terms per protein and namespace; CAFA 6 allowed at
most 1500 per protein over MF, BP and CC combined. :func:`keep_top_terms`
keeps the ``n`` highest scores of each (protein, namespace), or of each
protein (``per_namespace=False``); ties at the cut
are broken by depth (the term's ``generation``, an ancestor before its
descendants), then by term identifier, so exactly ``min(n, predicted)`` terms
are kept, whatever the order of the lines of the file, and a max-consistent
prediction stays closed under ancestors (an ancestor scores at least as high
and, when equal, sorts first). This is the cut of
:func:`goeval.baselines.top_terms`.

CAFA-evaluator 1.3.0 (``parser.pred_parser``) instead keeps a line while the
protein's row holds at most ``n`` non-zero scores: up to ``n + 1`` terms, the
first ones of the file whatever their scores (``docs/cafaeval.md``). goeval
does not reproduce that.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from goeval.annotations import Annotations
from goeval.errors import InvalidParameterError
from goeval.ontology import Ontology
from goeval.sparse import keep_entries

__all__ = ["keep_top_terms", "top_terms_mask", "tie_rank", "term_ranks", "rank_scores"]


def tie_rank(ontology: Ontology) -> np.ndarray:
    """Rank of every term by (generation, identifier): the order of ties at the cut.

    Returns
    -------
    ndarray of int64, shape (n_terms,)
    """
    id_rank = np.empty(ontology.n_terms, np.int64)
    id_rank[np.argsort(np.asarray(ontology.ids).astype(str), kind="stable")] = np.arange(ontology.n_terms)
    rank = np.empty(ontology.n_terms, np.int64)
    rank[np.lexsort((id_rank, ontology.generation))] = np.arange(ontology.n_terms)
    return rank


def top_terms_mask(rows: np.ndarray, cols: np.ndarray, data: np.ndarray, n: int, ontology: Ontology,
                   per_namespace: bool = True) -> np.ndarray:
    """Mask of the ``n`` best cells of each (row, namespace), or of each row (``per_namespace=False``).

    Parameters
    ----------
    rows, cols : ndarray of int, shape (nnz,)
        Cells (protein row, global term index), each at most once.
    data : ndarray of float64, shape (nnz,)
        Scores.
    n : int
        Cells kept per (row, namespace).
    ontology : Ontology
    per_namespace : bool, default True
        Cut each (row, namespace) group; False: each row, over all namespaces.

    Returns
    -------
    ndarray of bool, shape (nnz,)

    Notes
    -----
    Only the (row, namespace) groups holding more than ``n`` cells are
    sorted: by one ``argsort`` of a packed integer key (group, descending
    score rank, :func:`tie_rank`), or ``np.lexsort`` when the key would not
    fit in 63 bits.
    """
    keep = np.ones(rows.size, bool)
    if rows.size == 0:
        return keep
    group = rows.astype(np.int64)
    if per_namespace:
        group = group * len(ontology.namespaces) + ontology.namespace_of[cols]
    full = np.bincount(group)[group] > n
    if not full.any():
        return keep
    idx = np.flatnonzero(full)
    _, g = np.unique(group[idx], return_inverse=True)
    scores, inv = np.unique(data[idx], return_inverse=True)
    srank = (scores.size - 1) - inv.astype(np.int64)
    trank = tie_rank(ontology)[cols[idx]]
    n_groups, n_scores, n_terms = int(g.max()) + 1, int(scores.size), int(ontology.n_terms)
    if (n_groups * n_scores * n_terms).bit_length() <= 63:
        order = np.argsort((g * n_scores + srank) * n_terms + trank)  # distinct keys: one cell per (group, term)
    else:  # pragma: no cover - astronomically many groups x scores x terms
        order = np.lexsort((trank, srank, g))
    gs = g[order]
    starts = np.r_[0, np.flatnonzero(gs[1:] != gs[:-1]) + 1]
    position = np.arange(gs.size) - np.repeat(starts, np.diff(np.r_[starts, gs.size]))
    keep[idx[order[position >= n]]] = False
    return keep


def term_ranks(rows: np.ndarray, cols: np.ndarray, data: np.ndarray, ontology: Ontology) -> np.ndarray:
    """The rank of every cell in its (row, namespace): 1 for the highest score, ties in :func:`tie_rank` order.

    The order of :func:`top_terms_mask`: the cells of rank ``<= n`` are those it keeps.

    Returns
    -------
    ndarray of int64, shape (nnz,)
    """
    if rows.size == 0:
        return np.zeros(0, np.int64)
    group = rows.astype(np.int64) * len(ontology.namespaces) + ontology.namespace_of[cols]
    _, g = np.unique(group, return_inverse=True)
    scores, inv = np.unique(data, return_inverse=True)
    srank = (scores.size - 1) - inv.astype(np.int64)
    trank = tie_rank(ontology)[cols]
    n_groups, n_scores, n_terms = int(g.max()) + 1, int(scores.size), int(ontology.n_terms)
    if (n_groups * n_scores * n_terms).bit_length() <= 63:
        order = np.argsort((g * n_scores + srank) * n_terms + trank)
    else:  # pragma: no cover - astronomically many groups x scores x terms
        order = np.lexsort((trank, srank, g))
    gs = g[order]
    starts = np.r_[0, np.flatnonzero(gs[1:] != gs[:-1]) + 1]
    ranks = np.empty(rows.size, np.int64)
    ranks[order] = np.arange(gs.size) - np.repeat(starts, np.diff(np.r_[starts, gs.size])) + 1
    return ranks


def rank_scores(pred: Annotations) -> Annotations:
    """Each prediction's score replaced by ``1 / rank`` in its protein and namespace (rank thresholds).

    With these scores the threshold ``1 / k`` keeps exactly the ``k`` best
    terms of each protein and namespace (ties broken as
    :func:`keep_top_terms` breaks them), and max propagation of the kept
    terms gives their ancestors: every ``k`` of ``--thresholds top:...`` is
    swept at once (:func:`goeval.options.rank_thresholds`). Scores of 0
    (never predicted at any threshold) are dropped and counted
    (``diagnostics['rank_zero_scores_dropped']``).

    Examples
    --------
    >>> import goeval
    >>> onto = goeval.ontology_from_edges([("a", "r"), ("b", "r"), ("c", "a")])
    >>> pred = goeval.Annotations.from_pairs(onto, ["P", "P", "P"], ["a", "b", "c"], [0.2, 0.9, 0.5])
    >>> r = rank_scores(pred).matrix.tocsr()
    >>> sorted(zip(onto.ids[r.indices].tolist(), r.data.tolist()))
    [('a', 0.3333333333333333), ('b', 1.0), ('c', 0.5)]
    """
    if not isinstance(pred, Annotations) or not pred.is_scores:
        raise InvalidParameterError("The 'pred' parameter of rank_scores must be prediction scores (Annotations).")
    m = pred.matrix.tocsr()
    keep = m.data > 0
    zeros = int((~keep).sum())
    if zeros:
        m = sp.csr_array((m.data[keep], m.indices[keep], keep_entries(m.indptr, keep)), shape=m.shape)
    rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
    ranks = term_ranks(rows, m.indices.astype(np.int64), m.data, pred.ontology)
    out = sp.csr_array((1.0 / ranks, m.indices, m.indptr), shape=m.shape)
    diag = dict(pred.diagnostics, rank_zero_scores_dropped=zeros)
    return Annotations(proteins=pred.proteins, matrix=out, ontology=pred.ontology, propagated=pred.propagated,
                       diagnostics=diag)


def keep_top_terms(pred: Annotations, n: int, per_namespace: bool = True) -> Annotations:
    """Keep the ``n`` highest-scoring terms of each protein in each namespace (or over all of them).

    Applied by the evaluation to the predictions as read (before
    propagation, CAFA-evaluator's ``-max_terms`` order); see the module
    notes for the ties and for CAFA-evaluator's defect.

    Parameters
    ----------
    pred : Annotations
        Prediction scores.
    n : int
        Terms kept per protein and namespace (CAFA 5: 500).
    per_namespace : bool, default True
        False: ``n`` terms per protein over all namespaces together (CAFA 6:
        1500 over MF, BP and CC), the same order deciding.

    Returns
    -------
    Annotations
        Same proteins; ``diagnostics['max_terms']`` (``'max_terms_total'``
        when not ``per_namespace``) is ``n`` and
        ``diagnostics['max_terms_dropped']`` (``'max_terms_total_dropped'``)
        counts the (protein, term) scores removed.

    Raises
    ------
    InvalidParameterError
        Unless ``n`` is an integer >= 1 and ``pred`` holds scores.

    Examples
    --------
    >>> import goeval
    >>> onto = goeval.ontology_from_edges([("a", "r"), ("b", "r"), ("c", "a")])
    >>> pred = goeval.Annotations.from_pairs(onto, ["P", "P", "P"], ["a", "b", "c"], [0.2, 0.9, 0.5])
    >>> top = keep_top_terms(pred, 2)
    >>> sorted(onto.ids[top.matrix.indices].tolist()), top.diagnostics["max_terms_dropped"]
    (['b', 'c'], 1)
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InvalidParameterError(f"The 'n' parameter of keep_top_terms must be an integer >= 1; got {n!r}.")
    if not isinstance(pred, Annotations) or not pred.is_scores:
        raise InvalidParameterError("The 'pred' parameter of keep_top_terms must be prediction scores (Annotations).")
    m = pred.matrix.tocsr()
    rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
    keep = top_terms_mask(rows, m.indices.astype(np.int64), m.data, int(n), pred.ontology, per_namespace)
    key = "max_terms" if per_namespace else "max_terms_total"
    diag = dict(pred.diagnostics, **{key: int(n), f"{key}_dropped": int((~keep).sum())})
    if keep.all():
        return Annotations(proteins=pred.proteins, matrix=m, ontology=pred.ontology, propagated=pred.propagated,
                           diagnostics=diag)
    out = sp.csr_array((m.data[keep], m.indices[keep], keep_entries(m.indptr, keep)), shape=m.shape)
    return Annotations(proteins=pred.proteins, matrix=out, ontology=pred.ontology, propagated=pred.propagated,
                       diagnostics=diag)
