"""Fold assignment and per-fold information accretion of a cross-validation.

The information accretion of fold f is estimated on fold f's training
proteins only (every annotated protein whose fold is not f; CONVENTIONS §6).
The counts behind it, ``n(v)`` and ``n(P(v))``, are numbers of proteins and
therefore add up over disjoint protein sets: the counts of the training set
of fold f are those of all proteins minus those of fold f. They are
computed once per fold (each fold is a tenth of the data), so the k
estimates cost about one estimate on the whole set.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from goeval.annotations import Annotations, propagate
from goeval.errors import InvalidParameterError
from goeval.information.accretion import information_accretion
from goeval.ontology import Ontology

__all__ = ["assign_folds", "fold_of", "fold_ia", "ia_from_counts"]


def assign_folds(proteins: Any, k: int, seed: int = 0) -> np.ndarray:
    """Random fold of each protein (seeded, reproducible).

    The distinct identifiers are sorted, shuffled with
    ``random.Random(seed).shuffle`` and the protein at position ``i`` gets
    fold ``i % k`` (fold sizes differ by at most one). The algorithm is the
    one of the shared data set's ``splits/folds10.tsv`` (k = 10, seed 2013).

    Parameters
    ----------
    proteins : sequence of str
        Proteins (repeats get the same fold).
    k : int
        Number of folds, >= 2.
    seed : int
        Seed of Python's ``random.Random``.

    Returns
    -------
    ndarray of int64, shape (len(proteins),)
        Fold of each given protein, in the given order.

    Examples
    --------
    >>> assign_folds(["c", "a", "b", "a"], 2, seed=1).tolist()
    [1, 0, 0, 0]
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise InvalidParameterError(f"The 'k' parameter of assign_folds must be an integer >= 2; got {k!r}.")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise InvalidParameterError(f"The 'seed' parameter of assign_folds must be an integer; got {seed!r}.")
    arr = np.asarray(list(proteins), dtype=object)
    uniq = sorted(set(arr.astype(str).tolist()))
    random.Random(int(seed)).shuffle(uniq)
    where = {p: i % int(k) for i, p in enumerate(uniq)}
    return np.fromiter((where[p] for p in arr.astype(str).tolist()), np.int64, arr.size)


def fold_of(proteins: Any, fold_proteins: Any, fold_values: Any) -> np.ndarray:
    """Fold of each protein looked up in a fold table (-1 when absent)."""
    table = dict(zip(np.asarray(fold_proteins, dtype=object).tolist(), np.asarray(fold_values).tolist()))
    arr = np.asarray(proteins, dtype=object)
    return np.fromiter((table.get(p, -1) for p in arr.tolist()), np.int64, arr.size)


def ia_from_counts(ontology: Ontology, n_term: np.ndarray, n_parents: np.ndarray, pseudocount: float) -> np.ndarray:
    r"""Information accretion from the counts ``n(v)`` and ``n(P(v))`` (CR13 §3.1, §4).

    .. math::

        ia(v) = -\log_2 \frac{n(v) + c}{n(P(v)) + c}

    for every non-root term of a namespace with annotations (a root's
    ``n(P(v))`` is the number of proteins annotated in its namespace);
    roots and terms of namespaces without annotations get 0. The same
    values as :func:`goeval.information_accretion` on the annotations the
    counts come from (``pseudocount > 0``).
    """
    c = float(pseudocount)
    roots = np.diff(ontology.parents.indptr) == 0
    nsof = ontology.namespace_of
    present = np.zeros(len(ontology.namespaces), bool)
    present[nsof[roots & (n_parents > 0)]] = True
    ok = present[nsof] & ~roots
    values = np.zeros(ontology.n_terms)
    values[ok] = -np.log2((n_term[ok] + c) / (n_parents[ok] + c))
    values[~np.isfinite(values)] = 0.0
    return values + 0.0  # -log2(1) is -0.0


def fold_ia(ontology: Ontology, truth: Annotations, folds: np.ndarray, pseudocount: float = 1.0) -> dict[int, np.ndarray]:
    """Information accretion of every fold, from its training proteins only.

    Parameters
    ----------
    ontology : Ontology
    truth : Annotations
        Annotations of every protein (propagated here if they are not).
    folds : ndarray of int64, shape (n_proteins,)
        Fold of each row of ``truth`` (every row has one).
    pseudocount : float
        ``c`` of CR13 §4 (1 by default).

    Returns
    -------
    dict of int to ndarray of float64, shape (n_terms,)
        Fold -> ia (bits) estimated on the rows whose fold differs.

    Notes
    -----
    With ``pseudocount > 0`` the training counts are the counts of all rows
    minus those of the fold (integers, so the values equal a direct
    estimate on the training rows); with ``pseudocount = 0`` each fold is
    estimated directly, so that infinite values raise as in
    :func:`goeval.information_accretion`.
    """
    tr = truth if truth.propagated else propagate(truth)
    labels = np.unique(folds)
    if pseudocount == 0:
        return {int(f): information_accretion(ontology, _rows(tr, folds != f), 0.0).values for f in labels}
    per_fold = {int(f): information_accretion(ontology, _rows(tr, folds == f), pseudocount) for f in labels}
    n_term = sum(x.n_term for x in per_fold.values())
    n_par = sum(x.n_parents for x in per_fold.values())
    return {f: ia_from_counts(ontology, n_term - x.n_term, n_par - x.n_parents, pseudocount) for f, x in per_fold.items()}


def _rows(ann: Annotations, mask: np.ndarray) -> Annotations:
    rows = np.flatnonzero(mask)
    return Annotations(proteins=ann.proteins[rows], matrix=ann.matrix[rows], ontology=ann.ontology,
                       propagated=ann.propagated, diagnostics={})
