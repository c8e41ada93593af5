"""Information accretion of ontology terms (Clark & Radivojac 2013, §2, §4).

The ontology is read as a Bayesian network whose conditional probability
tables reduce to one number per term, ``Pr(v | Pa(v))``, estimated from
propagated annotations:

.. math::

    ia(v) = -\\log_2 \\Pr(v \\mid \\mathcal{P}(v))
          = -\\log_2 \\frac{n(v) + c}{n(\\mathcal{P}(v)) + c}

where ``n(v)`` counts proteins annotated with ``v`` and ``n(P(v))`` those
annotated with every parent of ``v``; ``c`` is the pseudo-count (1 in the
paper: "a pseudo-count of one was added to each term, and the total number
of proteins incremented"). Roots have ``ia = 0``. The information content
of a consistent set of terms is ``i(T) = sum_{v in T} ia(v)`` (bits).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from goeval.sparse import gather_rows
from goeval.annotations import Annotations, propagate
from goeval.errors import GoevalError, GoevalWarning, InvalidParameterError, check_choice
from goeval.ontology import Ontology

__all__ = ["InformationAccretion", "information_accretion", "information_content"]


@dataclass(eq=False, kw_only=True)
class InformationAccretion:
    """Per-term information accretion over an ontology's global term index.

    Attributes
    ----------
    values : ndarray of float64, shape (n_terms,)
        ``ia(v)`` in bits (0 for terms of namespaces without annotations).
    n_term : ndarray of int64, shape (n_terms,)
        ``n(v)``: annotated proteins per term.
    n_parents : ndarray of int64, shape (n_terms,)
        ``n(P(v))``: proteins annotated with all parents (roots: proteins of
        the namespace).
    namespaces : tuple of str
        Labels of the namespaces with annotations.
    diagnostics : dict
        Counts of special cases (zero-parent-count terms, negative values...).
    """

    ontology: Ontology
    values: np.ndarray
    n_term: np.ndarray
    n_parents: np.ndarray
    namespaces: tuple[str, ...]
    pseudocount: float
    method: str
    diagnostics: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, term: str) -> float:
        return float(self.values[self.ontology.index(term)])

    def terms(self, namespaces: tuple[str, ...] | None = None) -> np.ndarray:
        """Indices of the terms of the given (default: annotated) namespaces."""
        out = [np.arange(self.ontology.namespace_slice(ns).start, self.ontology.namespace_slice(ns).stop)
               for ns in (namespaces or self.namespaces)]
        return np.concatenate(out) if out else np.zeros(0, np.int64)


def _counts(ontology: Ontology, truth: sp.csr_array) -> tuple[np.ndarray, np.ndarray]:
    """n(v) and n(P(v)) from a propagated bool matrix (proteins x terms).

    A term with one parent has ``n(P(v)) = n(parent)``. For a term with several
    parents only the proteins of its rarest parent can have them all: those
    (term, protein) candidates are checked against the other parents with
    one binary search each in the sorted (protein, term) keys.
    """
    m = truth.tocsr()
    m.sort_indices()
    n_terms = ontology.n_terms
    n_term = np.bincount(m.indices, minlength=n_terms).astype(np.int64)
    par = ontology.parents
    npar = np.diff(par.indptr)
    n_par = np.zeros(n_terms, np.int64)
    single = np.flatnonzero(npar == 1)
    n_par[single] = n_term[par.indices[par.indptr[single]]]
    multi = np.flatnonzero(npar > 1)
    if multi.size and m.nnz:
        rows = np.repeat(np.arange(m.shape[0], dtype=np.int64), np.diff(m.indptr))
        keys = rows * n_terms + m.indices  # sorted: CSR rows in order, columns sorted
        by_term = sp.csr_array((np.ones(m.nnz, bool), (m.indices, rows)), shape=(n_terms, m.shape[0]))
        by_term.sort_indices()
        # parents of each multi-parent term; the rarest one first
        lens, pars = gather_rows(par.indptr, par.indices, multi)
        owner = np.repeat(np.arange(multi.size), lens)
        order = np.lexsort((n_term[pars], owner))
        pars = pars[order]
        first = np.r_[0, np.cumsum(lens)[:-1]]
        rarest = pars[first]
        # candidate (term, protein) pairs from the rarest parent's proteins
        cnt, cand_prot = gather_rows(by_term.indptr, by_term.indices, rarest)
        cand_term = np.repeat(np.arange(multi.size), cnt)
        ok = np.ones(cand_prot.size, bool)
        for j in range(1, int(lens.max())):  # the j-th parent of each term that has one
            has = lens[cand_term] > j
            idx = np.flatnonzero(has)
            q = pars[first[cand_term[idx]] + j]
            look = cand_prot[idx].astype(np.int64) * n_terms + q
            pos = np.minimum(np.searchsorted(keys, look), keys.size - 1)
            ok[idx] &= keys[pos] == look
        n_par[multi] = np.bincount(cand_term[ok], minlength=multi.size)
    # roots: their "parent set" is empty, every protein of the namespace qualifies
    per_ns = np.zeros(len(ontology.namespaces), np.int64)
    nsof = ontology.namespace_of
    if m.nnz:
        rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
        pairs = np.unique(rows.astype(np.int64) * len(ontology.namespaces) + nsof[m.indices])
        per_ns = np.bincount(pairs % len(ontology.namespaces), minlength=len(ontology.namespaces))
    roots = npar == 0
    n_par[roots] = per_ns[nsof[roots]]
    return n_term, n_par


def _check_ia_options(pseudocount: float, method: str) -> None:
    check_choice(method, "method", "information_accretion", ("bayesian", "frequency"))
    if not (np.isfinite(pseudocount) and pseudocount >= 0):
        raise InvalidParameterError(
            f"The 'pseudocount' parameter of information_accretion must be a finite number >= 0; got {pseudocount!r}."
        )


def _truth_matrix(annotations: Annotations) -> sp.csr_array:
    """The propagated truth sets as CSR (propagated here if they are not yet)."""
    if not annotations.propagated:
        annotations = propagate(annotations)
    if annotations.is_scores:
        raise InvalidParameterError("information_accretion needs truth annotations (bool), not prediction scores.")
    return annotations.matrix.tocsr()


def _check_finite_without_pseudocount(
    ontology: Ontology, counted: np.ndarray, n_term: np.ndarray, n_par: np.ndarray
) -> None:
    """With ``c = 0``, raise if a counted term has ``n(v) = 0 < n(P(v))`` (infinite ia)."""
    inf = counted & (n_term == 0) & (n_par > 0)
    if inf.any():
        ex = ", ".join(ontology.ids[np.flatnonzero(inf)[:5]])
        raise GoevalError(
            f"With pseudocount 0, {int(inf.sum())} {'term has' if inf.sum() == 1 else 'terms have'} n(v) = 0 < n(P(v)) "
            "and an infinite "
            f"information accretion (e.g. {ex}); use a pseudocount > 0 (the paper uses 1)."
        )


def _bayesian_ia(n_term: np.ndarray, n_par: np.ndarray, c: float, counted: np.ndarray) -> np.ndarray:
    """``ia(v) = -log2((n(v) + c) / (n(P(v)) + c))`` on the counted terms, 0 elsewhere."""
    values = np.zeros(n_term.size)
    ok = counted & ~((n_par + c) == 0)
    values[ok] = -np.log2((n_term[ok] + c) / (n_par[ok] + c))
    return values


def _frequency_information(
    ontology: Ontology, n_term: np.ndarray, n_par: np.ndarray, c: float,
    roots: np.ndarray, present: np.ndarray, in_present: np.ndarray,
) -> np.ndarray:
    """``i(v) = -log2((n(v) + c) / (N + c))``, ``N`` the proteins of the namespace (0 where undefined)."""
    nsof = ontology.namespace_of
    per_ns = {j: n_par[roots & (nsof == j)].max(initial=0) for j in present.tolist()}
    total = np.array([per_ns.get(j, 0) for j in nsof], dtype=np.float64)
    ok = in_present & ((n_term + c) > 0) & ((total + c) > 0)
    i_v = np.zeros(ontology.n_terms)
    i_v[ok] = -np.log2((n_term[ok] + c) / (total[ok] + c))
    return i_v


def _ia_from_information(ontology: Ontology, i_v: np.ndarray, roots: np.ndarray) -> np.ndarray:
    """``ia(v) = i(v) - sum of ia(u)`` over the proper ancestors ``u``, one generation at a time."""
    values = np.zeros(ontology.n_terms)
    anc = ontology.ancestors_csr
    gen_order = np.argsort(ontology.generation, kind="stable")
    cuts = np.flatnonzero(np.diff(ontology.generation[gen_order])) + 1
    for blk in np.split(gen_order, cuts):  # one vectorized step per generation
        sub = anc[blk]
        rows = np.repeat(np.arange(blk.size), np.diff(sub.indptr))
        other = sub.indices != blk[rows]
        s = np.bincount(rows[other], weights=values[sub.indices[other]], minlength=blk.size)
        values[blk] = np.where(roots[blk], 0.0, i_v[blk] - s)
    return values


def information_accretion(
    ontology: Ontology,
    annotations: Annotations,
    pseudocount: float = 1.0,
    *,
    method: str = "bayesian",
) -> InformationAccretion:
    """Estimate information accretion from (experimental) annotations.

    Parameters
    ----------
    ontology : Ontology
    annotations : Annotations
        Truth sets; propagated here if they are not yet.
    pseudocount : float, default 1
        ``c`` >= 0 added to ``n(v)`` and to ``n(P(v))``.
    method : {'bayesian', 'frequency'}
        ``bayesian`` (default, CR13 §2): ``ia(v) = -log2((n(v)+c)/(n(P(v))+c))``.
        ``frequency`` (CR13 §5, the ad hoc alternative that keeps each term's
        information content equal to its relative frequency): with
        ``i(v) = -log2((n(v)+c)/(N+c))`` (``N`` proteins of the namespace),
        ``ia(v) = i(v) - sum_{u in anc(v), u != v} ia(u)``, so that the
        information of the consistent graph of a single term equals ``i(v)``.
        The paper writes the sum over ``P(v)``; summing over all proper
        ancestors is what makes ``i({v} ∪ anc(v)) = i(v)`` hold in a DAG,
        which is the stated purpose. Values can be negative; they are kept
        and counted.

    Returns
    -------
    InformationAccretion

    Raises
    ------
    InvalidParameterError
        ``pseudocount < 0`` or an unknown method.
    GoevalError
        With ``c = 0``, a term with ``n(v) = 0 < n(P(v))`` (infinite ia).

    Notes
    -----
    With ``c = 0``, terms with ``n(P(v)) = 0`` get ``ia = 0`` and are counted
    in ``diagnostics['zero_parent_count']``. Roots always have ``ia = 0``.

    References
    ----------
    Clark & Radivojac (2013), Bioinformatics 29:i53, §2 (Fig. 1), §4, §5.

    Examples
    --------
    The ontology and a data set of Fig. 1 of the paper (4 proteins):

    >>> import goeval

    >>> onto = goeval.ontology_from_edges([("b", "a"), ("c", "a"), ("d", "b"), ("e", "c")])
    >>> truth = goeval.Annotations.from_pairs(
    ...     onto, ["p1", "p2", "p2", "p3", "p3", "p4"], ["e", "d", "c", "b", "c", "c"])
    >>> ia = goeval.information_accretion(onto, truth, pseudocount=0)
    >>> [ia[t] for t in "abcde"]
    [0.0, 1.0, 0.0, 1.0, 2.0]
    """
    _check_ia_options(pseudocount, method)
    truth = _truth_matrix(annotations)
    n_term, n_par = _counts(ontology, truth)
    nsof = ontology.namespace_of
    present = np.unique(nsof[truth.indices]) if truth.nnz else np.zeros(0, np.int64)
    in_present = np.isin(nsof, present)
    c = float(pseudocount)
    roots = np.diff(ontology.parents.indptr) == 0
    diag: dict[str, Any] = {"proteins": int(truth.shape[0]), "pseudocount": c, "method": method}
    zero_par = in_present & ~roots & (n_par == 0)
    if c == 0:
        _check_finite_without_pseudocount(ontology, in_present & ~roots, n_term, n_par)
    diag["zero_parent_count"] = int(zero_par.sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        if method == "bayesian":
            values = _bayesian_ia(n_term, n_par, c, in_present & ~roots)
        else:
            i_v = _frequency_information(ontology, n_term, n_par, c, roots, present, in_present)
            values = _ia_from_information(ontology, i_v, roots)
            values[~in_present] = 0.0
    values[roots] = 0.0
    values[~np.isfinite(values)] = 0.0
    values += 0.0  # -log2(1) is -0.0: print it as 0.0
    diag["negative"] = int((values < 0).sum())
    diag["namespaces"] = [ontology.labels[j] for j in present.tolist()]
    if diag["negative"]:
        warnings.warn(
            f"{diag['negative']} {'term has' if diag['negative'] == 1 else 'terms have'} a negative information "
            "accretion (kept, not clamped).",
            GoevalWarning,
            stacklevel=2,
        )
    return InformationAccretion(ontology=ontology, values=values, n_term=n_term, n_parents=n_par,
                                namespaces=tuple(ontology.labels[j] for j in present.tolist()), pseudocount=c,
                                method=method, diagnostics=diag)


def information_content(ia: np.ndarray, annotations: Annotations) -> np.ndarray:
    """Information content ``i(T) = sum_{v in T} ia(v)`` of each protein's set.

    Parameters
    ----------
    ia : ndarray of float64, shape (n_terms,)
        Information accretion per term (bits).
    annotations : Annotations
        Sets (propagated ones give the paper's ``i(T)``).

    Returns
    -------
    ndarray of float64, shape (n_proteins,)
        Bits.
    """
    m = annotations.matrix.tocsr()
    rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
    return np.bincount(rows, weights=np.asarray(ia)[m.indices], minlength=m.shape[0])
