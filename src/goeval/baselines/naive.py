"""Naive baseline: term frequencies of the training set (CR13 §4.1)."""

from __future__ import annotations

from typing import Any

import numpy as np

from goeval.annotations import Annotations
from goeval.baselines.scores import NamespaceScores, assemble, labels, namespace_columns, training
from goeval.baselines.hits import unique_targets
from goeval.ontology import Ontology

__all__ = ["naive", "naive_scores", "naive_list"]


def naive_scores(ontology: Ontology, train: Annotations, namespaces: Any = None) -> tuple[np.ndarray, dict[str, Any]]:
    r"""Naive term scores, one per term of the ontology.

    .. math::

        s(v) = n_{\mathrm{train}}(v) / N_{\mathrm{train}}

    the fraction of the namespace's training proteins whose propagated
    annotation contains v; :math:`N_{\mathrm{train}}` is the number of
    training proteins annotated in the namespace (= n_train(root) for a
    single-rooted namespace such as GO's). Terms never seen in training
    score 0 (and are not predicted by :func:`naive`).

    Parameters
    ----------
    ontology : Ontology
    train : Annotations
        Training annotations on ``ontology`` (propagated here if they are not).
    namespaces : sequence of str, optional
        Namespace labels or names; default all (others score 0).

    Returns
    -------
    scores : ndarray of float64, shape (n_terms,)
    diagnostics : dict
        Per namespace: training proteins and terms seen.

    References
    ----------
    Clark W.T., Radivojac P. (2013) Bioinformatics 29(13):i53-i61, §4.1.

    Examples
    --------
    >>> import goeval
    >>> onto = goeval.ontology_from_edges([("b", "a"), ("c", "a"), ("d", "b")])
    >>> train = goeval.Annotations.from_pairs(onto, ["p1", "p2"], ["d", "c"])
    >>> s, _ = naive_scores(onto, train)
    >>> dict(zip(onto.ids.tolist(), s.tolist()))
    {'a': 1.0, 'b': 0.5, 'c': 0.5, 'd': 0.5}
    """
    train = training(ontology, train, "naive")
    scores = np.zeros(ontology.n_terms)
    diag: dict[str, Any] = {}
    for label in labels(ontology, namespaces, "naive"):
        ptr, cols = namespace_columns(train, label)
        n_proteins = int(np.count_nonzero(np.diff(ptr)))
        n_term = np.bincount(cols, minlength=ontology.n_terms)
        s = ontology.namespace_slice(label)
        if n_proteins:
            scores[s] = n_term[s] / n_proteins
        diag[label] = {"training_proteins": n_proteins, "terms_seen": int(np.count_nonzero(n_term[s]))}
    return scores, diag


def naive_list(ontology: Ontology, train: Annotations, namespaces: Any = None, *, max_terms: int | None = None,
               min_score: float = 0.0) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The naive baseline's one list: the terms every target gets and their scores.

    Parameters
    ----------
    ontology, train, namespaces
        As for :func:`naive_scores`.
    max_terms : int, optional
        Keep the best ``max_terms`` terms per namespace (ties by depth, then
        term id; see :func:`goeval.baselines.top_terms`).
    min_score : float, default 0
        Leave out the terms scoring below it (e.g. the first threshold of a
        grid: they are predicted at no threshold).

    Returns
    -------
    cols : ndarray of int64
        Term indices (increasing) with a positive score.
    scores : ndarray of float64
    diagnostics : dict
        Per namespace (``namespaces``): training proteins and terms seen.
    """
    scores, per_ns = naive_scores(ontology, train, namespaces)
    cols = np.flatnonzero((scores > 0) & (scores >= min_score))
    vals = scores[cols]
    if max_terms is not None:
        single = assemble(ontology, np.asarray(["*"], dtype=object),
                          [NamespaceScores(np.array([cols.size]), cols, vals)], {}, max_terms)
        cols, vals = single.matrix.indices.astype(np.int64), single.matrix.data
    return cols, vals, {"namespaces": per_ns}


def naive(ontology: Ontology, train: Annotations, targets: Any, namespaces: Any = None,
          *, max_terms: int | None = None) -> Annotations:
    """Naive baseline: the same list :func:`naive_scores` for every target.

    Parameters
    ----------
    ontology : Ontology
    train : Annotations
        Training annotations on ``ontology``.
    targets : sequence of str
        Proteins to predict (rows of the result; repeats are dropped and counted).
    namespaces : sequence of str, optional
        Namespace labels or names; default all.
    max_terms : int, optional
        Keep the best ``max_terms`` terms per namespace (ties by depth, then
        term id; see :func:`goeval.baselines.top_terms`).

    Returns
    -------
    Annotations
        One row per target, identical rows, float scores, ``propagated=True``
        (frequencies of propagated sets are max-consistent: n(parent) >= n(child)).
        The matrix holds targets x predicted terms entries: for many targets
        and all terms, write with :func:`goeval.io.predictions_out.write_naive`
        from :func:`naive_list` instead, which never builds it.
    """
    cols, vals, info = naive_list(ontology, train, namespaces, max_terms=max_terms)
    tlist, repeated = unique_targets(targets)
    n = tlist.size
    part = NamespaceScores(np.full(n, cols.size, np.int64), np.tile(cols, n), np.tile(vals, n))
    diag = {"method": "naive", "targets": int(n), "repeated_targets_dropped": repeated,
            "namespaces": info["namespaces"], "terms_predicted_per_target": int(cols.size)}
    if max_terms is not None:
        diag["max_terms"] = int(max_terms)
    return assemble(ontology, tlist, [part], diag)
