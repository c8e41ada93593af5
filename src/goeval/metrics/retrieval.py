"""Per-GO-term retrieval: each term is a query that retrieves proteins.

For a term :math:`v` the retrieval list holds the proteins with a (propagated)
score for :math:`v`, best first, and T(q) is the number of proteins annotated
with :math:`v` in the truth. On these lists goeval computes TAP-k, the
BioCreative AUC of the interpolated P/R curve, and the TAP curve.

References
----------
.. [TAP] H. D. Carroll et al. (2010), *Bioinformatics* 26(14):1708, §2.3.4.
.. [BC] BioCreative II.5 "Result evaluation" page (2009), §3.1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from goeval.errors import InvalidParameterError
from goeval.metrics.iprauc import dense_rank, ipr_auc_segments
from goeval.metrics.tapk import RetrievalLists, TapCurve, TapkResult, tap_curve, tap_k

__all__ = ["TermRetrievalResult", "term_queries", "term_retrieval"]


def _rank_order(
    col: NDArray[np.int64], val: NDArray[np.float64], tie: NDArray[np.int64], n_col: int, n_tie: int
) -> NDArray[np.int64]:
    """Permutation sorting by (col, -val, tie): one integer sort when the packed key fits in int64."""
    uniq, vrank = dense_rank(-val)
    if n_col * max(uniq.size, 1) * max(n_tie, 1) < 2**62:
        key = (col * uniq.size + vrank) * n_tie + tie
        return np.argsort(key, kind="stable")
    return np.lexsort((tie, -val, col))


def term_queries(
    truth: sp.sparray | sp.spmatrix,
    scores: sp.sparray | sp.spmatrix,
    protein_ids: Sequence[str] | ArrayLike,
    *,
    min_positives: int = 1,
    query_weights: ArrayLike | None = None,
    term_ids: Sequence[str] | None = None,
) -> tuple[RetrievalLists, NDArray[np.int64]]:
    r"""Build one retrieval list per GO term from sparse matrices.

    Parameters
    ----------
    truth : sparse bool matrix of shape (n_proteins, n_terms)
        Propagated annotations.
    scores : sparse float matrix of shape (n_proteins, n_terms)
        Propagated scores; only stored non-zero entries are retrieved (a
        score of 0 means "not predicted").
    protein_ids : sequence of str, length n_proteins
        Break ties in score: ascending id.
    min_positives : int, default 1
        Only terms with at least this many truth proteins become queries
        (0 keeps every term; T(q) = 0 terms then follow ``zero_relevant``).
    query_weights : array-like of shape (n_terms,), optional
        Weight of each term (e.g. its information accretion); default 1.
    term_ids : sequence of str, length n_terms, optional
        Query ids; default the column index as a string.

    Returns
    -------
    lists : RetrievalLists
        Already ranked: score descending, then protein id ascending.
    term_index : ndarray of int, shape (n_queries,)
        Column of each query.

    Notes
    -----
    .. math:: T(v) = |\{i : v \in T_i\}| ,\qquad
              L(v) = (i : s_i(v) > 0) \text{ by } (-s_i(v), \mathrm{id}_i).

    All lists are ranked by one global lexicographic sort on (term, -score,
    protein id); relevance comes from a search of the sorted truth entries.
    """
    if isinstance(min_positives, bool) or not isinstance(min_positives, (int, np.integer)) or min_positives < 0:
        raise InvalidParameterError(
            f"The 'min_positives' parameter of term_queries must be an integer >= 0; got {min_positives!r}."
        )
    if truth.shape != scores.shape:
        raise InvalidParameterError(f"truth and scores must have the same shape; got {truth.shape} and {scores.shape}.")
    n_prot, n_terms = truth.shape
    pid = np.asarray(protein_ids, dtype=str).reshape(-1)
    if pid.size != n_prot:
        raise InvalidParameterError(f"protein_ids must have {n_prot} entries (one per row); got {pid.size}.")
    if term_ids is not None and len(term_ids) != n_terms:
        raise InvalidParameterError(f"term_ids must have {n_terms} entries (one per column); got {len(term_ids)}.")
    if query_weights is None:
        w_all = np.ones(n_terms)
    else:
        w_all = np.asarray(query_weights, dtype=np.float64).reshape(-1)
        if w_all.size != n_terms or not np.all(np.isfinite(w_all)) or np.any(w_all < 0):
            raise InvalidParameterError(f"query_weights must hold {n_terms} finite weights >= 0.")
    id_rank = np.empty(n_prot, dtype=np.int64)
    id_rank[np.argsort(pid, kind="stable")] = np.arange(n_prot)

    t = sp.csc_array(truth, dtype=bool)
    t.sum_duplicates()
    t.eliminate_zeros()
    n_rel_all = np.diff(t.indptr)
    sel = np.flatnonzero(n_rel_all >= min_positives)
    t = t[:, sel]
    t.sort_indices()
    s = sp.csc_array(scores, dtype=np.float64)[:, sel]
    s.sum_duplicates()
    s.eliminate_zeros()
    if np.isnan(s.data).any():
        raise InvalidParameterError("scores must not contain NaN.")
    m = sel.size
    scol = np.repeat(np.arange(m, dtype=np.int64), np.diff(s.indptr))
    rows = s.indices.astype(np.int64)
    order = _rank_order(scol, s.data, id_rank[rows], m, n_prot)
    scol, rows, vals = scol[order], rows[order], s.data[order]
    tkeys = np.repeat(np.arange(m, dtype=np.int64), np.diff(t.indptr)) * n_prot + t.indices
    skeys = scol * n_prot + rows
    at = np.searchsorted(tkeys, skeys)
    rel = np.zeros(skeys.size, dtype=bool)
    inb = at < tkeys.size
    rel[inb] = tkeys[at[inb]] == skeys[inb]
    ids = tuple(str(i) for i in sel) if term_ids is None else tuple(str(term_ids[i]) for i in sel)
    lists = RetrievalLists(
        ids=ids,
        n_relevant=n_rel_all[sel],
        weights=w_all[sel],
        offsets=s.indptr.astype(np.int64),
        scores=vals,
        relevance=rel,
    )
    return lists, sel.astype(np.int64)


@dataclass(frozen=True, eq=False, kw_only=True)
class TermRetrievalResult:
    """Result of :func:`term_retrieval` (arrays of shape (n_queries,)).

    Attributes
    ----------
    term_index : ndarray of int
        Column of each evaluated term.
    lists : RetrievalLists
        The per-term retrieval lists.
    tapk : TapkResult
        Per-term APCP (``tapk.apcp``), the cutoff and overall TAP-k.
    ipr_auc : ndarray of float
        BioCreative AUC iP/R per term with n = T(q).
    mean_ipr_auc : float
        Weighted mean of ``ipr_auc`` (the TAP query weights).
    curve : TapCurve or None
        TAP as a function of the cutoff, with its peak.
    """

    term_index: NDArray[np.int64]
    lists: RetrievalLists
    tapk: TapkResult
    ipr_auc: NDArray[np.float64]
    mean_ipr_auc: float
    curve: TapCurve | None


def term_retrieval(
    truth: sp.sparray | sp.spmatrix,
    scores: sp.sparray | sp.spmatrix,
    protein_ids: Sequence[str] | ArrayLike,
    k: int | None,
    *,
    min_positives: int = 1,
    query_weights: ArrayLike | None = None,
    term_ids: Sequence[str] | None = None,
    quantile: float = 0.5,
    insufficient: str = "lowest",
    zero_relevant: str = "paper",
    threshold: float | None = None,
    curve: bool = True,
) -> TermRetrievalResult:
    r"""TAP-k, AUC iP/R and the TAP curve over GO terms as queries.

    Parameters
    ----------
    truth, scores, protein_ids, min_positives, query_weights, term_ids
        As in :func:`term_queries`.
    k, quantile, insufficient, zero_relevant, threshold
        As in :func:`~goeval.metrics.tapk.tap_k` (scores: higher is better).
    curve : bool, default True
        Also compute :func:`~goeval.metrics.tapk.tap_curve`.

    Returns
    -------
    TermRetrievalResult

    Notes
    -----
    Per term :math:`v`, :math:`\mathrm{APCP}_{E_k}(v)` ([TAP]_ eq. (1)) and
    :math:`A(v) = \frac{1}{T(v)} \sum_j \max_{j' \ge j} j'/t_{j'}` ([BC]_
    §3.1, 0 when T(v) = 0); TAP-k and the mean AUC are weighted means over
    the terms with the query weights.
    """
    lists, term_index = term_queries(
        truth, scores, protein_ids, min_positives=min_positives, query_weights=query_weights, term_ids=term_ids
    )
    tk = tap_k(lists, k, quantile=quantile, insufficient=insufficient, zero_relevant=zero_relevant,
               threshold=threshold)
    auc = ipr_auc_segments(lists.relevance, lists.offsets, lists.n_relevant)
    w = lists.weights
    mean_auc = float(np.dot(w, auc) / w.sum()) if w.sum() > 0 else float("nan")
    cv = tap_curve(lists, zero_relevant=zero_relevant) if curve else None
    return TermRetrievalResult(term_index=term_index, lists=lists, tapk=tk, ipr_auc=auc, mean_ipr_auc=mean_auc,
                               curve=cv)
