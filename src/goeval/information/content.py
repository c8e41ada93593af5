"""Term information content from annotation frequencies (Resnik 1995).

The information content of a term is the surprisal of its relative
frequency among the annotated proteins of its namespace:

.. math::

    IC(v) = -\\log_2 p(v), \\qquad p(v) = \\frac{n(v) + c}{N + c}

where ``n(v)`` counts the proteins whose *propagated* annotation contains
``v``, ``N`` the proteins with at least one annotation in the namespace of
``v`` (proteins, not annotation rows), and ``c`` the pseudo-count (1 by
default, as for information accretion: Clark & Radivojac 2013, §4, "a
pseudo-count of one was added to each term, and the total number of
proteins incremented").

This is *not* information accretion (:mod:`goeval.information.accretion`): IA is the
conditional surprisal of a term given its parents; IC is the marginal
surprisal, the quantity behind the term similarities of Resnik, Lin,
Jiang & Conrath and Schlicker et al. (:mod:`goeval.metrics.similarity`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from goeval.annotations import Annotations, propagate
from goeval.errors import GoevalError, InvalidParameterError
from goeval.ontology import Ontology

__all__ = ["TermInformationContent", "term_information_content"]


@dataclass(eq=False, kw_only=True)
class TermInformationContent:
    """Per-term information content over an ontology's global term index.

    Attributes
    ----------
    ontology : Ontology
    values : ndarray of float64, shape (n_terms,)
        ``IC(v) = -log2 p(v)`` in bits.
    probability : ndarray of float64, shape (n_terms,)
        ``p(v) = (n(v) + c) / (N + c)``, the relative frequency behind
        ``IC`` (1 for the terms of namespaces without annotations).
    n_term : ndarray of int64, shape (n_terms,)
        ``n(v)``: proteins whose propagated annotation contains ``v``.
    n_namespace : ndarray of int64, shape (n_terms,)
        ``N``: annotated proteins of the namespace of ``v``.
    pseudocount : float
    namespaces : tuple of str
        Labels of the namespaces with annotations.
    diagnostics : dict
        Counts: proteins, unannotated terms per namespace, namespaces.
    """

    ontology: Ontology
    values: np.ndarray
    probability: np.ndarray
    n_term: np.ndarray
    n_namespace: np.ndarray
    pseudocount: float
    namespaces: tuple[str, ...]
    diagnostics: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, term: str) -> float:
        return float(self.values[self.ontology.index(term)])


def _namespace_totals(ontology: Ontology, m: sp.csr_array) -> np.ndarray:
    """``N`` per namespace: proteins with at least one term in it."""
    n_ns = len(ontology.namespaces)
    if m.nnz == 0:
        return np.zeros(n_ns, np.int64)
    rows = np.repeat(np.arange(m.shape[0], dtype=np.int64), np.diff(m.indptr))
    pairs = np.unique(rows * n_ns + ontology.namespace_of[m.indices])
    return np.bincount(pairs % n_ns, minlength=n_ns).astype(np.int64)


def term_information_content(
    ontology: Ontology, annotations: Annotations, pseudocount: float = 1.0
) -> TermInformationContent:
    """Information content of every term from (experimental) annotations.

    Parameters
    ----------
    ontology : Ontology
    annotations : Annotations
        Truth sets (bool), propagated here if they are not yet; the
        proteins of each namespace are those with a term in it.
    pseudocount : float, default 1
        ``c >= 0``, added to ``n(v)`` and to ``N``.

    Returns
    -------
    TermInformationContent

    Raises
    ------
    InvalidParameterError
        ``pseudocount`` negative or not finite; score annotations.
    GoevalError
        With ``c = 0``, a term of an annotated namespace that no protein
        carries (its IC would be infinite); use ``c > 0``.

    Notes
    -----
    .. math:: IC(v) = -\\log_2 \\frac{n(v) + c}{N + c}

    *Roots.* A root carried by every annotated protein of its namespace
    (the single root of a GO namespace) has ``n = N`` and therefore
    ``IC = 0`` exactly, for every ``c``. In a namespace with several roots,
    a root carried by only some proteins has ``IC > 0``. A term never
    annotated gets ``IC = log2(N + c) - log2(c)`` (finite for ``c > 0``).
    Terms of namespaces without any annotation get ``IC = 0`` (``p = 1``)
    and are counted in ``diagnostics['terms_of_unannotated_namespaces']``.

    References
    ----------
    Resnik P (1995), IJCAI; Clark & Radivojac (2013), Bioinformatics 29:i53, §4.

    Examples
    --------
    >>> import goeval
    >>> from goeval.information.content import term_information_content
    >>> onto = goeval.ontology_from_edges([("b", "a"), ("c", "a"), ("d", "b"), ("e", "c")])
    >>> truth = goeval.Annotations.from_pairs(
    ...     onto, ["p1", "p2", "p2", "p3", "p3", "p4"], ["e", "d", "c", "b", "c", "c"])
    >>> ic = term_information_content(onto, truth, pseudocount=0)
    >>> [ic[t] for t in "abcde"]
    [0.0, 1.0, 0.0, 2.0, 2.0]
    """
    if not (isinstance(pseudocount, (int, float, np.floating)) and np.isfinite(pseudocount) and pseudocount >= 0):
        raise InvalidParameterError(
            f"The 'pseudocount' parameter of term_information_content must be a finite number >= 0; got {pseudocount!r}."
        )
    if not annotations.propagated:
        annotations = propagate(annotations)
    if annotations.is_scores:
        raise InvalidParameterError("term_information_content needs truth annotations (bool), not prediction scores.")
    m = annotations.matrix.tocsr()
    c = float(pseudocount)
    n_term = np.bincount(m.indices, minlength=ontology.n_terms).astype(np.int64)
    per_ns = _namespace_totals(ontology, m)
    n_ns = per_ns[ontology.namespace_of]
    annotated = n_ns > 0
    if c == 0:
        unseen = annotated & (n_term == 0)
        if unseen.any():
            ex = ", ".join(ontology.ids[np.flatnonzero(unseen)[:5]])
            raise GoevalError(
                f"With pseudocount 0, {int(unseen.sum())} {'term is' if unseen.sum() == 1 else 'terms are'} carried "
                f"by no protein and {'has' if unseen.sum() == 1 else 'have'} an "
                f"infinite information content (e.g. {ex}); use a pseudocount > 0 (the paper uses 1)."
            )
    prob = np.ones(ontology.n_terms)
    prob[annotated] = (n_term[annotated] + c) / (n_ns[annotated] + c)
    values = -np.log2(prob) + 0.0  # -log2(1) is -0.0: print it as 0.0
    labels = tuple(ontology.labels[j] for j in np.flatnonzero(per_ns).tolist())
    diag = {
        "proteins": int(m.shape[0]),
        "pseudocount": c,
        "namespaces": list(labels),
        "proteins_per_namespace": {ontology.labels[j]: int(per_ns[j]) for j in range(per_ns.size)},
        "terms_never_annotated": int((annotated & (n_term == 0)).sum()),
        "terms_of_unannotated_namespaces": int((~annotated).sum()),
    }
    return TermInformationContent(ontology=ontology, values=values, probability=prob, n_term=n_term, n_namespace=n_ns,
                                  pseudocount=c, namespaces=labels, diagnostics=diag)
