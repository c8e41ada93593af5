"""Wang's graph-based term similarity (Wang et al. 2007, Bioinformatics 23:1274), vectorized.

Every edge ``child -> parent`` has the weight of its relation (``is_a``
0.8 and ``part_of`` 0.6 by default, :data:`DEFAULT_WANG_WEIGHTS`). The
*S-value* of an ancestor ``a`` of a term ``t`` (``t`` itself included) is
the largest product of the edge weights over the paths from ``t`` up to
``a``, ``S_t(t) = 1``; the semantic value of ``t`` is ``SV(t) = sum_a
S_t(a)``. The similarity of two terms is

.. math::

    \\mathrm{wang}(t, p) = \\frac{\\sum_{a \\in A(t) \\cap A(p)} (S_t(a) + S_p(a))}{SV(t) + SV(p)}

(``A(x)`` the ancestors of ``x``), in [0, 1], 1 for ``t = p`` and 0 for
terms without a common ancestor.

The S-values of a namespace are one sparse matrix (terms x ancestors,
:func:`wang_svalues`), built once per ontology and weights by one pass per
generation from the roots down (``S_t(a) = max over the parents q of t of
w(t, q) S_q(a)``); the similarities of arrays of term pairs are row sums of
elementwise products of its gathered rows (:func:`wang_pairs`), each
distinct pair computed once.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from goeval.errors import InvalidParameterError
from goeval.lazy import LazyModule
from goeval.ontology import Ontology
from goeval.sparse import gather_rows

sp = LazyModule("scipy.sparse")  # imported by the first call that needs it (start-up: goeval.lazy)

__all__ = ["DEFAULT_WANG_WEIGHTS", "SValues", "wang_weights", "wang_svalues", "wang_pairs"]

#: Wang et al.'s weights of the semantic contribution of a parent through each relation (GOSemSim's too).
DEFAULT_WANG_WEIGHTS: tuple[tuple[str, float], ...] = (("is_a", 0.8), ("part_of", 0.6))

_ITEM = re.compile(r"^\s*([^=\s]+)\s*=\s*(\S+)\s*$")


def _weight(relation: str, value: Any, func: str) -> float:
    try:
        w = float(value.strip()) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        w = float("nan")
    if isinstance(value, bool) or not 0 < w <= 1:
        raise InvalidParameterError(f"The 'wang_weights' parameter of {func} gives {relation!r} the weight "
                                    f"{value!r}; a weight must be a number in (0, 1].")
    return w


def wang_weights(value: Any = None, func: str = "evaluate") -> tuple[tuple[str, float], ...]:
    """Edge weights per relation: the defaults updated by ``value`` (sorted by relation).

    Parameters
    ----------
    value : mapping of str to float, sequence of (str, float) pairs, str or None
        ``{"is_a": 0.8, "part_of": 0.6}``, or the text ``"is_a=0.8,part_of=0.6"``
        (the command line's). Relations not given keep their default
        (:data:`DEFAULT_WANG_WEIGHTS`); others (``regulates=0.7``) are added.
    func : str
        Named in error messages.

    Raises
    ------
    InvalidParameterError
        An item that is not ``RELATION=WEIGHT``, a relation given twice, a weight outside (0, 1].

    Examples
    --------
    >>> wang_weights("part_of=0.7")
    (('is_a', 0.8), ('part_of', 0.7))
    >>> wang_weights(["is_a=0.9", "part_of=0.5"])
    (('is_a', 0.9), ('part_of', 0.5))
    """
    out = dict(DEFAULT_WANG_WEIGHTS)
    if value is None:
        return tuple(sorted(out.items()))
    if not isinstance(value, (str, Mapping)) and value and all(isinstance(x, str) for x in value):
        value = ",".join(value)  # the command line's repetitions: --wang-weights is_a=0.7 --wang-weights part_of=0.5
    if isinstance(value, str):
        pairs = []
        for item in value.split(","):
            m = _ITEM.match(item)
            if m is None:
                raise InvalidParameterError(f"The 'wang_weights' parameter of {func} takes RELATION=WEIGHT items "
                                            f"separated by commas (is_a=0.8,part_of=0.6); got {value!r}.")
            pairs.append((m.group(1), m.group(2)))
    else:
        pairs = list(value.items()) if isinstance(value, Mapping) else [tuple(x) for x in value]
    names = [str(r) for r, _ in pairs]
    dup = sorted({r for r in names if names.count(r) > 1})
    if dup:
        raise InvalidParameterError(f"The 'wang_weights' parameter of {func} gives {dup} more than once; got {value!r}.")
    for r, w in pairs:
        out[str(r)] = _weight(str(r), w, func)
    return tuple(sorted(out.items()))


@dataclass(frozen=True, kw_only=True)
class SValues:
    """The S-values of the terms ``[lo, hi)`` of one namespace (local indices).

    Attributes
    ----------
    matrix : scipy.sparse.csr_array of float64, shape (width, width)
        ``matrix[t, a] = S_t(a)`` for every ancestor ``a`` of ``t`` (itself
        included), sorted indices; no other entry.
    total : ndarray of float64, shape (width,)
        ``SV(t)``, the row sums.
    weights : tuple of (str, float)
        The weights per relation they were built with.
    """

    matrix: sp.csr_array
    total: np.ndarray
    weights: tuple[tuple[str, float], ...]


def _edge_weights(ontology: Ontology, lo: int, hi: int, weights: tuple[tuple[str, float], ...]) -> np.ndarray:
    """The weight of each edge of the rows ``[lo, hi)`` of ``ontology.parents``."""
    table = dict(weights)
    ptr = ontology.parents.indptr
    codes = ontology.parent_relations[ptr[lo] : ptr[hi]]
    used = sorted({ontology.relations[k] for k in np.unique(codes).tolist()})
    missing = [r for r in used if r not in table]
    if missing:
        raise InvalidParameterError(
            f"The Wang similarity has no weight for the relation(s) {missing} the ontology follows; give one "
            f"(wang_weights, --wang-weights {missing[0]}=W) or leave the relation out (relations, --relations).")
    return np.array([table[r] for r in ontology.relations], np.float64)[codes]


def _generation_rows(child: np.ndarray, parent: np.ndarray, w: np.ndarray, indptr: np.ndarray, indices: np.ndarray,
                     data: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, ancestor, S) of children whose parents' rows are final: the max over parents of ``w S_parent``."""
    if child.size == 0:
        return child, child, np.zeros(0)
    lens, pos = gather_rows(indptr, np.arange(indices.size), parent)
    rows = np.r_[np.repeat(child, lens), np.unique(child)]
    cols = np.r_[indices[pos], np.unique(child)]
    vals = np.r_[np.repeat(w, lens) * data[pos], np.ones(np.unique(child).size)]
    key = rows * n + cols
    order = np.argsort(key, kind="stable")
    key, vals = key[order], vals[order]
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    best = np.maximum.reduceat(vals, first) if vals.size else vals
    r, c = np.divmod(key[first], n)
    return r, c, best


def _build(ontology: Ontology, lo: int, hi: int, weights: tuple[tuple[str, float], ...]) -> SValues:
    n = hi - lo
    ew = _edge_weights(ontology, lo, hi, weights)
    par = ontology.parents
    counts = np.diff(par.indptr[lo : hi + 1]).astype(np.int64)
    e_child = np.repeat(np.arange(n, dtype=np.int64), counts)
    e_parent = par.indices[par.indptr[lo] : par.indptr[hi]].astype(np.int64) - lo
    gen = ontology.generation[lo:hi].astype(np.int64)
    indptr = np.zeros(n + 1, np.int64)
    indices, data = np.zeros(0, np.int64), np.zeros(0)
    cuts = np.flatnonzero(np.diff(gen)) + 1
    for a, b in zip(np.r_[0, cuts], np.r_[cuts, n]):  # terms are in generation order in their namespace
        sel = (e_child >= a) & (e_child < b)
        roots = np.setdiff1d(np.arange(a, b), e_child[sel])
        r, c, v = _generation_rows(e_child[sel], e_parent[sel], ew[sel], indptr, indices, data, n)
        r, c, v = np.r_[r, roots], np.r_[c, roots], np.r_[v, np.ones(roots.size)]
        order = np.lexsort((c, r))
        indices, data = np.r_[indices, c[order]], np.r_[data, v[order]]
        indptr[a + 1 : b + 1] = indptr[a] + np.cumsum(np.bincount(r - a, minlength=b - a))
    m = sp.csr_array((data, indices, indptr), shape=(n, n))
    return SValues(matrix=m, total=np.add.reduceat(data, indptr[:-1]) if n else np.zeros(0), weights=weights)


_CACHE: "weakref.WeakKeyDictionary[Ontology, dict[tuple, SValues]]" = weakref.WeakKeyDictionary()


def wang_svalues(ontology: Ontology, lo: int, hi: int, weights: Any = None) -> SValues:
    """The S-values of the namespace ``[lo, hi)`` (local indices), cached per ontology object and weights.

    Parameters
    ----------
    ontology : Ontology
    lo, hi : int
        A namespace's term range (``ontology.bounds``).
    weights : see :func:`wang_weights`
        Every relation the ontology follows needs one.

    Raises
    ------
    InvalidParameterError
        Invalid weights, or a followed relation without a weight.
    """
    w = wang_weights(weights, "wang_svalues")
    per = _CACHE.setdefault(ontology, {})
    if (lo, hi, w) not in per:
        per[(lo, hi, w)] = _build(ontology, lo, hi, w)
    return per[(lo, hi, w)]


def _chunk_numerators(sv: SValues, ut: np.ndarray, up: np.ndarray) -> np.ndarray:
    """``sum over common ancestors of S_t + S_p`` for pairs sorted by ``t``: the rows of the distinct ``t`` as
    dense rows, looked up at the ancestors of each ``p``."""
    m, n = sv.matrix, sv.total.size
    ts, tl = np.unique(ut, return_inverse=True)
    lens_t, pos_t = gather_rows(m.indptr, np.arange(m.indices.size), ts)
    dense = np.zeros((ts.size, n))
    dense[np.repeat(np.arange(ts.size), lens_t), m.indices[pos_t]] = m.data[pos_t]
    lens, pos = gather_rows(m.indptr, np.arange(m.indices.size), up)
    owner = np.repeat(np.arange(up.size), lens)
    d = dense[tl.reshape(-1)[owner], m.indices[pos]]
    return np.bincount(owner, weights=np.where(d > 0, d + m.data[pos], 0.0), minlength=up.size)


def wang_pairs(sv: SValues, t: np.ndarray, p: np.ndarray, *, chunk_cells: int = 1 << 23) -> np.ndarray:
    """Wang similarity of the term pairs ``(t[i], p[i])`` (local indices of ``sv``'s namespace).

    Each distinct pair is computed once. Pairs are taken by groups of
    their first term: the S-value rows of the group's distinct first terms
    are made dense (about ``chunk_cells`` values at once), and each pair's
    numerator is the sum, over the ancestors ``a`` of its second term, of
    ``S_t(a) + S_p(a)`` where ``S_t(a) > 0`` (``a`` a common ancestor).

    Returns
    -------
    ndarray of float64, shape (k,)
    """
    t, p = np.asarray(t, np.int64).reshape(-1), np.asarray(p, np.int64).reshape(-1)
    n = sv.total.size
    key, inv = np.unique(t * n + p, return_inverse=True)
    ut, up = np.divmod(key, n)
    out = np.empty(key.size)
    group = np.r_[0, np.cumsum(ut[1:] != ut[:-1])] if key.size else key
    per = max(1, chunk_cells // max(n, 1))  # distinct first terms per chunk
    bounds = np.searchsorted(group, np.arange(0, int(group[-1]) + 1 + per, per)) if key.size else [0]
    for a, b in zip(bounds[:-1], bounds[1:]):
        if b > a:
            num = _chunk_numerators(sv, ut[a:b], up[a:b])
            out[a:b] = num / (sv.total[ut[a:b]] + sv.total[up[a:b]])
    out[ut == up] = 1.0  # exactly (the two sums of the same row may round apart)
    return out[inv.reshape(-1)]
