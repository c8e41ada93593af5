"""Area under the interpolated precision/recall curve (BioCreative II.5).

References
----------
.. [BC] BioCreative II.5 "Result evaluation" page (2009-03-13), §3.1
   (AUC of the iP/R curve), §3.2.3 (ACT ranking), §4.5 (worked example).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from goeval.errors import InvalidParameterError

__all__ = [
    "ActIprAuc",
    "DocumentIprAuc",
    "act_ipr_auc",
    "ipr_auc",
    "ipr_auc_by_document",
    "ipr_auc_segments",
    "ipr_curve",
]


def _flags(flags: ArrayLike) -> NDArray[np.bool_]:
    arr = np.asarray(flags).reshape(-1)
    if arr.dtype != bool:
        if arr.size and not np.all((arr == 0) | (arr == 1)):
            raise InvalidParameterError("flags must be 0/1 (or boolean), one per ranked hit.")
        arr = arr.astype(bool)
    return arr


def dense_rank(values: NDArray) -> tuple[NDArray, NDArray[np.int64]]:
    """Sorted distinct values and the 0-based rank of each value among them.

    Equivalent to ``np.unique(values, return_inverse=True)``, which is much
    slower on arrays with many repeated values.
    """
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    new = np.ones(ordered.size, dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    rank = np.empty(ordered.size, dtype=np.int64)
    rank[order] = np.cumsum(new) - 1
    return ordered[new], rank


def _interpolated(
    relevance: NDArray[np.bool_], offsets: NDArray[np.int64], n_gold: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """Segment, recall count and interpolated precision of every correct hit."""
    n_seg = offsets.size - 1
    seg = np.repeat(np.arange(n_seg, dtype=np.int64), np.diff(offsets))
    pos = np.arange(relevance.size, dtype=np.int64) - offsets[:-1][seg]
    csum = np.cumsum(relevance, dtype=np.int64)
    crel = csum - np.concatenate([[0], csum])[offsets[:-1]][seg]
    found = np.bincount(seg[relevance], minlength=n_seg)
    bad = np.flatnonzero(found > n_gold)
    if bad.size:
        raise InvalidParameterError(
            f"List {bad[0]} has {found[bad[0]]} correct hits but only {n_gold[bad[0]]} gold answers; "
            "remove duplicate hits or fix the gold count."
        )
    hseg, hcount = seg[relevance], crel[relevance]
    p = hcount / (pos[relevance] + 1)
    if p.size == 0:
        return hseg, hcount, p
    # suffix maximum inside each segment, exact: integer codes of the values plus
    # a per-segment offset that grows along the reversed traversal
    uniq, code = dense_rank(p)
    shift = (n_seg - 1 - hseg) * uniq.size
    best = np.maximum.accumulate((code + shift)[::-1])[::-1] - shift
    return hseg, hcount, uniq[best]


def ipr_auc_segments(relevance: ArrayLike, offsets: ArrayLike, n_gold: ArrayLike) -> NDArray[np.float64]:
    r"""AUC iP/R of many ranked lists at once (see :func:`ipr_auc`).

    Parameters
    ----------
    relevance : array-like of {0, 1} or bool, shape (n_hits,)
        Correctness of each hit, lists concatenated, each in rank order.
    offsets : array-like of int, shape (n_lists + 1,)
        List ``i`` is ``relevance[offsets[i]:offsets[i + 1]]``.
    n_gold : array-like of int, shape (n_lists,)
        Gold answers per list (at least the correct hits listed).

    Returns
    -------
    ndarray of shape (n_lists,)
        0 where ``n_gold`` is 0.
    """
    rel = _flags(relevance)
    off = np.asarray(offsets, dtype=np.int64).reshape(-1)
    n = np.asarray(n_gold, dtype=np.int64).reshape(-1)
    if off.size != n.size + 1 or off[0] != 0 or off[-1] != rel.size or np.any(np.diff(off) < 0):
        raise InvalidParameterError(
            "offsets must run from 0 to len(relevance) without decreasing and be one longer than n_gold."
        )
    hseg, _, interp = _interpolated(rel, off, n)
    summed = np.bincount(hseg, weights=interp, minlength=n.size)
    out = np.zeros(n.size)
    ok = n > 0
    out[ok] = summed[ok] / n[ok]
    return out


def ipr_auc(flags: ArrayLike, n_gold: int) -> float:
    r"""Area under the interpolated precision/recall curve of one ranked list ([BC]_ §3.1).

    Parameters
    ----------
    flags : array-like of {0, 1} or bool, shape (n_hits,)
        Correctness of each hit in rank order.
    n_gold : int
        Number of gold answers (correct hits possible), retrieved or not.

    Returns
    -------
    float
        In [0, 1]; 0 when ``n_gold`` is 0 or nothing is correct.

    Notes
    -----
    With :math:`p(i)` the precision at rank :math:`i` and :math:`t_j` the
    rank of the :math:`j`-th correct hit, the interpolated precision is the
    highest precision at that recall or any higher one, and each correct hit
    adds :math:`1/n` of recall:

    .. math::

        A = \frac{1}{n} \sum_{j} \max_{i \ge t_j} p(i)
          = \frac{1}{n} \sum_{j} \max_{j' \ge j} \frac{j'}{t_{j'}} .

    Examples
    --------
    The page's example ([BC]_ §4.5), 4 gold answers, 10 hits:

    >>> ipr_auc([1, 0, 0, 0, 0, 0, 0, 0, 0, 1], 4)  # system A
    0.3
    >>> round(ipr_auc([0, 1, 1, 0, 0, 0, 0, 0, 0, 0], 4), 6)  # system B
    0.333333
    """
    rel = _flags(flags)
    n = int(n_gold)
    if n < 0:
        raise InvalidParameterError(f"The 'n_gold' parameter of ipr_auc must be >= 0; got {n_gold!r}.")
    return float(ipr_auc_segments(rel, [0, rel.size], [n])[0])


def ipr_curve(flags: ArrayLike, n_gold: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Corners of the interpolated P/R step curve of one ranked list.

    Returns
    -------
    precision, recall : ndarray of shape (n_steps,)
        For each step, its interpolated precision and the highest recall at
        which it holds (recall increasing). The area under the steps is
        :func:`ipr_auc`; empty when nothing is correct or ``n_gold`` is 0.
    """
    rel = _flags(flags)
    n = int(n_gold)
    if n <= 0:
        return np.zeros(0), np.zeros(0)
    _, count, interp = _interpolated(rel, np.array([0, rel.size]), np.array([n]))
    last = np.ones(interp.size, dtype=bool)
    last[:-1] = interp[1:] != interp[:-1]
    return interp[last], count[last] / n


@dataclass(frozen=True)
class DocumentIprAuc:
    """Document-averaged AUC iP/R ([BC]_ §3.1, INT and IPT tasks).

    Attributes
    ----------
    per_document : dict of str to float
        Every gold document, in gold order; documents without results have 0.
    mean : float
        Mean over gold documents (over those with results if ``skip_empty``).
    n_without_results : int
        Gold documents absent from the results.
    ignored_documents : tuple of str
        Result documents absent from the gold standard (not scored).
    """

    per_document: dict[str, float]
    mean: float
    n_without_results: int
    ignored_documents: tuple[str, ...]


def _key(hit: Hashable, undirected: bool) -> Hashable:
    if undirected and isinstance(hit, (tuple, list)):
        return tuple(sorted(hit))
    return hit


def ipr_auc_by_document(
    results: Mapping[str, Sequence[Hashable]],
    gold: Mapping[str, Iterable[Hashable]],
    *,
    skip_empty: bool = False,
    undirected_pairs: bool = False,
) -> DocumentIprAuc:
    r"""Mean AUC iP/R over gold documents.

    Parameters
    ----------
    results : mapping of document id to sequence of hits
        Each document's hits in rank order (rank 1 first).
    gold : mapping of document id to iterable of hits
        Gold answers per document.
    skip_empty : bool, default False
        Average only over gold documents that have results (by default a
        gold document without results scores 0).
    undirected_pairs : bool, default False
        Compare pair hits as unordered pairs ((A, B) equals (B, A)), as the
        IPT task requires ([BC]_ §3.2.2).

    Returns
    -------
    DocumentIprAuc

    Notes
    -----
    .. math:: \bar A = \frac{1}{|D|} \sum_{d \in D} A_d ,

    :math:`D` the gold documents, :math:`A_d` from :func:`ipr_auc` with
    :math:`n` the number of gold answers of :math:`d`. A hit repeated in a
    document's results counts once (the first time); the result validator
    rejects such files anyway.
    """
    per: dict[str, float] = {}
    missing = 0
    for doc, answers in gold.items():
        truth = {_key(h, undirected_pairs) for h in answers}
        hits = results.get(doc)
        if hits is None:
            missing += 1
            per[doc] = 0.0
            continue
        seen: set[Hashable] = set()
        flags = []
        for h in hits:
            key = _key(h, undirected_pairs)
            flags.append(key in truth and key not in seen)
            seen.add(key)
        per[doc] = ipr_auc(np.array(flags, dtype=bool), len(truth))
    scored = [v for d, v in per.items() if not (skip_empty and d not in results)]
    mean = float(np.mean(scored)) if scored else 0.0
    ignored = tuple(d for d in results if d not in gold)
    return DocumentIprAuc(per, mean, missing, ignored)


@dataclass(frozen=True)
class ActIprAuc:
    """AUC iP/R of the article classification task ([BC]_ §3.2.3).

    Attributes
    ----------
    auc : float
    n_gold_positive : int
        Gold documents of class 1 (the gold answers).
    n_ranked : int
        Ranked documents that are in the gold standard.
    ignored_documents : tuple of str
        Ranked documents absent from the gold standard (not scored).
    """

    auc: float
    n_gold_positive: int
    n_ranked: int
    ignored_documents: tuple[str, ...]


def act_ipr_auc(positives: Sequence[str], negatives: Sequence[str], gold: Mapping[str, int]) -> ActIprAuc:
    r"""AUC iP/R of an article classification run.

    Parameters
    ----------
    positives : sequence of str
        Documents classified 1, in rank order (most likely positive first).
    negatives : sequence of str
        Documents classified 0, in rank order (most likely negative first).
    gold : mapping of document id to class (0 or 1)

    Returns
    -------
    ActIprAuc

    Notes
    -----
    The ranking is the positive list followed by the negative list inverted
    (its highest rank first, its rank 1 last); a hit is correct when its gold
    class is 1 and :math:`n` is the number of gold positives. Documents not
    in the gold standard are dropped from the ranking.
    """
    joined = list(positives) + list(negatives)[::-1]
    kept = [d for d in joined if d in gold]
    ignored = tuple(d for d in joined if d not in gold)
    n_pos = sum(1 for c in gold.values() if int(c) == 1)
    flags = np.array([int(gold[d]) == 1 for d in kept], dtype=bool)
    return ActIprAuc(ipr_auc(flags, n_pos), n_pos, len(kept), ignored)
