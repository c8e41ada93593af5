"""Rank-based comparison measures: ROC_n, pooled ROC_n, AP/MAP, term-centric AUC.

The retrieval-list measures take the same :class:`~goeval.metrics.tapk.RetrievalLists`
as :func:`~goeval.metrics.tapk.tap_k` and rank records the same way (stable,
input order inside ties). :func:`term_centric_scores` ranks proteins per GO
term from sparse matrices and treats ties like scikit-learn;
:func:`informative_roc_auc` is its ROC AUC over informative terms only
([DGSE]_) and :func:`weighted_term_mean` its per-term values averaged with
term weights, such as :func:`depth_weights` ([BeProf]_'s weights).

References
----------
.. [TAP] H. D. Carroll et al. (2010). Threshold Average Precision (TAP-k).
   *Bioinformatics* 26(14):1708, §2.3.1-2.3.3.
.. [GR96] M. Gribskov, N. L. Robinson (1996). Use of receiver operating
   characteristic (ROC) analysis to evaluate sequence matching.
   *Computers & Chemistry* 20(1):25-33.
.. [CAFA2] Y. Jiang et al. (2016). An expanded evaluation of protein function
   prediction methods shows an improvement in accuracy. *Genome Biology*
   17:184 (term-centric evaluation: AUC per term over proteins).
.. [DGSE] M. Kulmanov et al. (2024). Protein function prediction as
   approximate semantic entailment. *Nature Machine Intelligence* 6:220;
   code: bio-ontology-research-group/deepgo2, ``evaluate_terms.py``.
.. [BeProf] W. Zhang et al. (2023). A comprehensive computational benchmark
   for evaluating deep learning-based protein function prediction approaches.
   *Briefings in Bioinformatics*; code: CSUBioGroup/BeProf, ``evaluation.py``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from goeval.errors import GoevalWarning, InvalidParameterError
from goeval.metrics.tapk import RetrievalList, RetrievalLists, as_retrieval_lists

__all__ = [
    "TermCentricResult",
    "average_precision_lists",
    "depth_weights",
    "informative_roc_auc",
    "mean_average_precision",
    "pooled_roc_n_score",
    "roc_n_scores",
    "term_centric_scores",
    "weighted_term_mean",
]


def _check_n(n: int, func: str) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InvalidParameterError(f"The 'n' parameter of {func} must be an integer >= 1; got {n!r}.")


def _roc_n_sums(
    rel: NDArray[np.bool_], seg: NDArray[np.int64], crel: NDArray[np.int64], pos: NDArray[np.int64],
    n_lists: int, n: int,
) -> NDArray[np.int64]:
    """Sum over f = 1..n of the relevant records ranked before the f-th irrelevant one."""
    cfp = pos + 1 - crel
    mask = ~rel & (cfp <= n)
    sums = np.bincount(seg[mask], weights=crel[mask], minlength=n_lists).astype(np.int64)
    n_fp = np.bincount(seg[mask], minlength=n_lists)
    retrieved = np.bincount(seg[rel], minlength=n_lists)
    return sums + (n - n_fp) * retrieved


def _divide_or_nan(num: NDArray, den: NDArray, what: str) -> NDArray[np.float64]:
    out = np.full(num.shape, np.nan)
    ok = den > 0
    out[ok] = num[ok] / den[ok]
    if not ok.all():
        warnings.warn(
            f"{what} is undefined for {int((~ok).sum())} {'query' if (~ok).sum() == 1 else 'queries'} with T(q) = 0; "
            "they get NaN and are left out of averages.",
            GoevalWarning,
            stacklevel=3,
        )
    return out


def roc_n_scores(
    lists: RetrievalLists | Iterable[RetrievalList], n: int = 50, *, higher_is_better: bool = True
) -> NDArray[np.float64]:
    r"""ROC_n score of every retrieval list ([TAP]_ §2.3.1, [GR96]_).

    Parameters
    ----------
    lists : RetrievalLists or iterable of RetrievalList
    n : int, default 50
        Number of irrelevant records at which the ROC curve is truncated.
    higher_is_better : bool, default True
        False for E-values.

    Returns
    -------
    ndarray of shape (n_queries,)
        In [0, 1]; NaN (with a :class:`~goeval.errors.GoevalWarning`) where
        T(q) = 0.

    Notes
    -----
    With :math:`t_f` the number of relevant records ranked before the
    :math:`f`-th irrelevant record,

    .. math:: \mathrm{ROC}_n = \frac{1}{n\,T(q)} \sum_{f=1}^{n} t_f ,

    the area under the ROC curve up to the :math:`n`-th irrelevant record
    divided by :math:`n/F`. A list with fewer than :math:`n` irrelevant
    records is taken to continue with irrelevant records only, so the missing
    :math:`t_f` equal the number of relevant records retrieved. Records with
    equal scores keep their input order.
    """
    _check_n(n, "roc_n_scores")
    lists = as_retrieval_lists(lists)
    r = lists.ranked(higher_is_better)
    sums = _roc_n_sums(r.rel, r.seg, r.crel, r.pos, len(lists), n)
    return _divide_or_nan(sums.astype(np.float64), (n * lists.n_relevant).astype(np.float64), "ROC_n")


def pooled_roc_n_score(
    lists: RetrievalLists | Iterable[RetrievalList], n: int = 50, *, higher_is_better: bool = True
) -> float:
    r"""Pooled ROC_n: ROC_n of all lists merged and sorted on the score ([TAP]_ §2.3.2).

    Parameters
    ----------
    lists : RetrievalLists or iterable of RetrievalList
    n : int, default 50
    higher_is_better : bool, default True

    Returns
    -------
    float
        :math:`\frac{1}{n \sum_q T(q)} \sum_{f=1}^{n} t_f` over the pooled
        list; NaN when no query has a relevant record. Equal scores keep the
        order of the queries, then the order inside each list.
    """
    _check_n(n, "pooled_roc_n_score")
    lists = as_retrieval_lists(lists)
    r = lists.ranked(higher_is_better)
    order = np.argsort(-r.g, kind="stable")
    rel = r.rel[order]
    pos = np.arange(rel.size, dtype=np.int64)
    crel = np.cumsum(rel, dtype=np.int64)
    total = _roc_n_sums(rel, np.zeros(rel.size, np.int64), crel, pos, 1, n)[0]
    t = int(lists.n_relevant.sum())
    return float(total / (n * t)) if t > 0 else float("nan")


def average_precision_lists(
    lists: RetrievalLists | Iterable[RetrievalList], *, higher_is_better: bool = True
) -> NDArray[np.float64]:
    r"""Average precision of every list ([TAP]_ §2.3.3).

    Notes
    -----
    .. math:: \mathrm{AP}(q) = \frac{1}{T(q)} \sum_{j} \frac{j}{t_j},

    summing over the retrieved relevant records, the :math:`j`-th at rank
    :math:`t_j`; relevant records not retrieved contribute precision 0. NaN
    (with a warning) where T(q) = 0.

    Returns
    -------
    ndarray of shape (n_queries,)
    """
    lists = as_retrieval_lists(lists)
    r = lists.ranked(higher_is_better)
    summed = np.bincount(r.seg[r.rel], weights=r.prec[r.rel], minlength=len(lists))
    return _divide_or_nan(summed, lists.n_relevant.astype(np.float64), "Average precision")


def mean_average_precision(
    lists: RetrievalLists | Iterable[RetrievalList],
    *,
    higher_is_better: bool = True,
    weights: ArrayLike | None = None,
) -> float:
    r"""(Weighted) mean of :func:`average_precision_lists` over queries with T(q) > 0.

    .. math:: \mathrm{MAP} = \sum_{q: T(q) > 0} w_q \mathrm{AP}(q) / \sum_{q: T(q) > 0} w_q
    """
    lists = as_retrieval_lists(lists)
    ap = average_precision_lists(lists, higher_is_better=higher_is_better)
    w = lists.weights if weights is None else np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.shape != ap.shape or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise InvalidParameterError(
            f"The 'weights' parameter of mean_average_precision must hold {ap.size} finite weights >= 0."
        )
    ok = ~np.isnan(ap)
    den = w[ok].sum()
    return float(np.dot(w[ok], ap[ok]) / den) if den > 0 else float("nan")


@dataclass(frozen=True, eq=False, kw_only=True)
class TermCentricResult:
    """Per-term ROC AUC and average precision (arrays of shape (n_selected,)).

    Attributes
    ----------
    term_index : ndarray of int
        Columns of the input matrices that were evaluated.
    n_positives : ndarray of int
        Truth proteins per evaluated term.
    roc_auc : ndarray of float
        NaN where every protein is positive.
    average_precision : ndarray of float
    macro_roc_auc, macro_average_precision : float
        Means over the evaluated terms (NaN entries left out).
    """

    term_index: NDArray[np.int64]
    n_positives: NDArray[np.int64]
    roc_auc: NDArray[np.float64]
    average_precision: NDArray[np.float64]
    macro_roc_auc: float
    macro_average_precision: float


def _nanmean(a: NDArray[np.float64]) -> float:
    ok = ~np.isnan(a)
    return float(a[ok].mean()) if ok.any() else float("nan")


def _check_term_centric_inputs(truth: sp.sparray | sp.spmatrix, scores: sp.sparray | sp.spmatrix,
                                min_positives: int) -> None:
    if isinstance(min_positives, bool) or not isinstance(min_positives, (int, np.integer)) or min_positives < 1:
        raise InvalidParameterError(
            f"The 'min_positives' parameter of term_centric_scores must be an integer >= 1; got {min_positives!r}."
        )
    if truth.shape != scores.shape:
        raise InvalidParameterError(
            f"truth and scores must have the same shape; got {truth.shape} and {scores.shape}."
        )


def _selected_terms(
    truth: sp.sparray | sp.spmatrix, scores: sp.sparray | sp.spmatrix, min_positives: int,
    keep: NDArray[np.bool_] | None = None,
) -> tuple[sp.csc_array, sp.csc_array, NDArray[np.int64], NDArray[np.int64]]:
    """The terms with at least ``min_positives`` truth proteins (and ``keep``, when given, true).

    Returns their truth and score columns (CSC, no duplicates or stored
    zeros, sorted indices), their column indices and their positives.
    """
    t = sp.csc_array(truth, dtype=bool)
    t.sum_duplicates()
    t.eliminate_zeros()
    npos_all = np.diff(t.indptr)
    chosen = npos_all >= min_positives
    sel = np.flatnonzero(chosen if keep is None else chosen & keep)
    t = t[:, sel]
    t.sort_indices()
    s = sp.csc_array(scores, dtype=np.float64)[:, sel]
    s.sum_duplicates()
    s.eliminate_zeros()
    s.sort_indices()
    if np.isnan(s.data).any():
        raise InvalidParameterError("scores must not contain NaN.")
    return t, s, sel, npos_all[sel].astype(np.int64)


def _positive_flags(t: sp.csc_array, s: sp.csc_array, n_prot: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Column of each stored score, and 1 where its protein is a positive of that term (else 0)."""
    m = t.shape[1]
    tcol = np.repeat(np.arange(m, dtype=np.int64), np.diff(t.indptr))
    scol = np.repeat(np.arange(m, dtype=np.int64), np.diff(s.indptr))
    tkeys = tcol * n_prot + t.indices
    skeys = scol * n_prot + s.indices
    at = np.searchsorted(tkeys, skeys)
    flag = np.zeros(skeys.size, dtype=np.int64)
    inb = at < tkeys.size
    flag[inb] = tkeys[at[inb]] == skeys[inb]
    return scol, flag


def _tie_groups(
    s: sp.csc_array, scol: NDArray[np.int64], flag: NDArray[np.int64], npos: NDArray[np.int64], n_prot: int
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Groups of equal score per term, terms in order and scores descending.

    Returns each group's term and its positive and negative proteins. The
    proteins without a stored score form one group of score 0 per term.
    """
    m = npos.size
    # one synthetic entry per term for its block of proteins with score 0
    n_zero = n_prot - np.diff(s.indptr)
    zpos = npos - np.bincount(scol, weights=flag, minlength=m).astype(np.int64)
    has_zero = n_zero > 0
    col = np.concatenate([scol, np.flatnonzero(has_zero)])
    val = np.concatenate([s.data, np.zeros(int(has_zero.sum()))])
    pos = np.concatenate([flag, zpos[has_zero]])
    neg = np.concatenate([1 - flag, (n_zero - zpos)[has_zero]])
    order = np.lexsort((-val, col))
    col, val, pos, neg = col[order], val[order], pos[order], neg[order]
    new = np.ones(col.size, dtype=bool)
    new[1:] = (col[1:] != col[:-1]) | (val[1:] != val[:-1])
    starts = np.flatnonzero(new)
    gcol = col[starts]
    gpos = np.add.reduceat(pos, starts) if starts.size else np.zeros(0, np.int64)
    gneg = np.add.reduceat(neg, starts) if starts.size else np.zeros(0, np.int64)
    return gcol, gpos, gneg


def _auc_and_ap(
    gcol: NDArray[np.int64], gpos: NDArray[np.int64], gneg: NDArray[np.int64], npos: NDArray[np.int64], n_prot: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """ROC AUC (NaN, with a warning, for terms without negatives) and AP per term from its tie groups."""
    m = npos.size
    cstart = np.searchsorted(gcol, np.arange(m))
    tps = np.cumsum(gpos)
    fps = np.cumsum(gneg)
    tps = tps - np.concatenate([[0], tps])[cstart][gcol]
    fps = fps - np.concatenate([[0], fps])[cstart][gcol]
    area2 = gneg * (2 * tps - gpos)
    nneg = n_prot - npos
    auc2 = np.add.reduceat(area2, cstart) if m else np.zeros(0, np.int64)
    auc = np.full(m, np.nan)
    ok = nneg > 0
    auc[ok] = auc2[ok] / (2.0 * npos[ok] * nneg[ok])
    if not ok.all():
        warnings.warn(
            f"ROC AUC is undefined for {int((~ok).sum())} {'term' if (~ok).sum() == 1 else 'terms'} annotated to every "
            "protein; they get NaN.",
            GoevalWarning,
            stacklevel=3,
        )
    prec_gain = np.where(gpos > 0, gpos * (tps / np.maximum(tps + fps, 1)), 0.0)
    ap = (np.add.reduceat(prec_gain, cstart) if m else np.zeros(0)) / np.maximum(npos, 1)
    return auc, ap


def term_centric_scores(truth: sp.sparray | sp.spmatrix, scores: sp.sparray | sp.spmatrix,
                        min_positives: int = 10) -> TermCentricResult:
    r"""ROC AUC and average precision per GO term over proteins ranked by score ([CAFA2]_).

    Parameters
    ----------
    truth : sparse bool matrix of shape (n_proteins, n_terms)
        Propagated annotations.
    scores : sparse float matrix of shape (n_proteins, n_terms)
        Propagated scores; a protein without a stored score for a term (or
        with an explicit 0) has score 0 and ranks with the other zeros.
    min_positives : int, default 10
        Terms with fewer truth proteins are not evaluated (at least 1).

    Returns
    -------
    TermCentricResult

    Notes
    -----
    For term :math:`v` with :math:`P` positive and :math:`N` negative
    proteins, let :math:`\mathrm{tp}_i, \mathrm{fp}_i` be the counts with a
    score :math:`\ge s_i` at the :math:`i`-th distinct score (descending).
    Tied scores form one threshold, exactly as scikit-learn's
    ``roc_auc_score`` and ``average_precision_score``:

    .. math::

        \mathrm{AUC} = \frac{1}{PN} \sum_i (\mathrm{fp}_i - \mathrm{fp}_{i-1})
            \frac{\mathrm{tp}_i + \mathrm{tp}_{i-1}}{2},
        \qquad
        \mathrm{AP} = \sum_i \frac{\mathrm{tp}_i - \mathrm{tp}_{i-1}}{P}
            \frac{\mathrm{tp}_i}{\mathrm{tp}_i + \mathrm{fp}_i}.

    The AUC numerator is summed in integers, so it is exact. All terms are
    processed together: one lexicographic sort of the stored scores, one
    block of zero scores per term, segment sums; no dense matrix.
    """
    _check_term_centric_inputs(truth, scores, min_positives)
    return _term_centric(truth, scores, min_positives)


def _term_centric(truth: sp.sparray | sp.spmatrix, scores: sp.sparray | sp.spmatrix, min_positives: int,
                  keep: NDArray[np.bool_] | None = None) -> TermCentricResult:
    """:func:`term_centric_scores` of the terms with ``min_positives`` truth proteins and ``keep`` true."""
    n_prot = truth.shape[0]
    t, s, sel, npos = _selected_terms(truth, scores, min_positives, keep)
    scol, flag = _positive_flags(t, s, n_prot)
    gcol, gpos, gneg = _tie_groups(s, scol, flag, npos, n_prot)
    auc, ap = _auc_and_ap(gcol, gpos, gneg, npos, n_prot)
    return TermCentricResult(
        term_index=sel.astype(np.int64),
        n_positives=npos,
        roc_auc=auc,
        average_precision=ap,
        macro_roc_auc=_nanmean(auc),
        macro_average_precision=_nanmean(ap),
    )


def _term_vector(values: ArrayLike, n_terms: int, name: str, func: str) -> NDArray[np.float64]:
    v = np.asarray(values, dtype=np.float64)
    if v.shape != (n_terms,) or np.isnan(v).any():
        raise InvalidParameterError(
            f"The '{name}' parameter of {func} must hold one number per term ({n_terms}), no NaN; got shape {v.shape}."
        )
    return v


def informative_roc_auc(truth: sp.sparray | sp.spmatrix, scores: sp.sparray | sp.spmatrix,
                        information: ArrayLike, cutoff: float = 0.5) -> TermCentricResult:
    r"""ROC AUC per informative GO term and their mean, DeepGO-SE's term-centric AUC ([DGSE]_).

    Parameters
    ----------
    truth, scores : sparse matrices of shape (n_proteins, n_terms)
        As for :func:`term_centric_scores`.
    information : array-like of shape (n_terms,)
        Information of each term, in bits (goeval uses the information
        accretion of the ``--ia`` file).
    cutoff : float, default 0.5
        A term is informative when its information is at least ``cutoff``
        (DeepGO-SE's 0.5 bits) and it has at least one positive and one
        negative protein.

    Returns
    -------
    TermCentricResult
        Over the informative terms only: ``roc_auc`` and
        ``average_precision`` per term (never NaN), ``macro_roc_auc`` their
        mean (NaN when no term is informative).

    Notes
    -----
    Each term's ROC AUC is that of :func:`term_centric_scores` (ties as
    scikit-learn's ``roc_curve`` and ``auc``, which DeepGO-SE calls); a term
    annotated to every protein has no negatives and is not informative, so
    no warning is given for it. Unlike :func:`term_centric_scores` there is
    no ``min_positives``: one positive protein suffices, as in DeepGO-SE.
    """
    if truth.shape != scores.shape:
        raise InvalidParameterError(
            f"truth and scores must have the same shape; got {truth.shape} and {scores.shape}."
        )
    if isinstance(cutoff, bool) or not isinstance(cutoff, (int, float, np.integer, np.floating)) \
            or not np.isfinite(cutoff):
        raise InvalidParameterError(f"The 'cutoff' parameter of informative_roc_auc must be a finite number; "
                                    f"got {cutoff!r}.")
    info = _term_vector(information, truth.shape[1], "information", "informative_roc_auc")
    t = sp.csc_array(truth, dtype=bool)
    t.sum_duplicates()
    t.eliminate_zeros()
    has_negative = np.diff(t.indptr) < truth.shape[0]
    return _term_centric(t, scores, 1, keep=(info >= cutoff) & has_negative)


def weighted_term_mean(values: ArrayLike, weights: ArrayLike) -> float:
    r"""Mean of per-term values weighted by term, :math:`\sum_v w_v x_v / \sum_v w_v`.

    Parameters
    ----------
    values : array-like of shape (n,)
        Per-term values, e.g. ``average_precision`` of a
        :class:`TermCentricResult`; NaN entries are left out.
    weights : array-like of shape (n,)
        Their weights, e.g. the information accretion of the terms or
        :func:`depth_weights`; a negative weight counts as 0.

    Returns
    -------
    float
        NaN when no term with a value has a positive weight.
    """
    x = np.asarray(values, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != x.shape or np.isnan(w).any():
        raise InvalidParameterError(f"The 'weights' parameter of weighted_term_mean must hold {x.size} numbers, "
                                    f"no NaN; got shape {w.shape}.")
    ok = ~np.isnan(x)
    w = np.maximum(w[ok], 0.0)
    den = w.sum()
    return float(np.dot(w, x[ok]) / den) if den > 0 else float("nan")


def depth_weights(information: ArrayLike, depth: ArrayLike) -> NDArray[np.float64]:
    r"""BeProf's depth weight of every term, :math:`\log_2(\mathrm{depth}_v)\, \max(i_v, 0)` ([BeProf]_).

    Parameters
    ----------
    information : array-like of shape (n,)
        Information of each term in bits (a negative value counts as 0).
    depth : array-like of int, shape (n,)
        Terms on the shortest path from the term up to its root, the root
        itself 1 (:func:`goeval.ontology.dag.shortest_depths`, BeProf's
        ``get_depth``), so a root weighs 0 and a child of a root its
        information.

    Returns
    -------
    ndarray of float, shape (n,)
        0 where the depth is below 1 (a term reaching no root).
    """
    info = np.asarray(information, dtype=np.float64)
    d = np.asarray(depth, dtype=np.float64)
    if d.shape != info.shape:
        raise InvalidParameterError(f"The 'depth' parameter of depth_weights must hold {info.size} depths; "
                                    f"got shape {d.shape}.")
    return np.log2(np.maximum(d, 1.0)) * np.maximum(info, 0.0)
