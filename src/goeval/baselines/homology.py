"""Homology-transfer baselines: BLAST, GOtcha, DIAMONDScore, kNN-identity.

Each transfers the propagated training annotations T(s) of the usable hits
s of a target x (:func:`goeval.baselines.hits.usable_hits`) and scores every
term v supported by at least one usable hit. All scores lie in [0, 1] and
are max-consistent (an ancestor never scores below a descendant): a hit
supporting v supports every ancestor of v, the reductions (max, sums of
non-negative weights) are monotone in the set of supporting hits, and
floating-point rounding is monotone too. Terms without a supporting hit and
targets without a usable hit get no score.

The work is one sparse hits x terms reduction per namespace
(:func:`goeval.baselines.scores.reduce_hits`); no Python loop runs over
hits or terms.

References
----------
.. [CR13] Clark W.T., Radivojac P. (2013) Information-theoretic evaluation of
   predicted ontological annotations. Bioinformatics 29(13):i53-i61, §4.1.
.. [GOtcha] Martin D.M., Berriman M., Barton G.J. (2004) GOtcha: a new method
   for prediction of protein function assessed by the annotation of seven
   genomes. BMC Bioinformatics 5:178.
.. [DGP] Kulmanov M., Hoehndorf R. (2020) DeepGOPlus: improved protein
   function prediction from sequence. Bioinformatics 36(2):422-429.
.. [NetGO] You R. et al. (2018) GOLabeler / (2019) NetGO: improving large-scale
   protein function prediction with massive network information. Nucleic
   Acids Res. 47(W1):W379-W387 (the kNN homology component).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from goeval.annotations import Annotations
from goeval.baselines.scores import NamespaceScores, assemble, labels, namespace_columns, reduce_hits, training
from goeval.baselines.hits import UsableHits, unique_targets, usable_hits
from goeval.io.hits import HitTable
from goeval.ontology import Ontology

__all__ = ["blast", "gotcha", "diamondscore", "knn_identity", "gotcha_weight", "GOTCHA_C", "GOTCHA_MAX_WEIGHT"]

#: GOtcha's constant c added to every r-score (CR13 §4.1).
GOTCHA_C = 2.0
#: Cap of the GOtcha hit weight -log10 E (E = 0 gives this weight).
GOTCHA_MAX_WEIGHT = 500.0


def gotcha_weight(evalue: np.ndarray) -> np.ndarray:
    """GOtcha hit weight ``w = min(500, max(0, -log10 E))``; ``E = 0`` gives 500.

    Examples
    --------
    >>> gotcha_weight(np.array([0.0, 1e-600, 1e-5, 1.0, 10.0])).tolist()
    [500.0, 500.0, 5.0, 0.0, 0.0]
    """
    with np.errstate(divide="ignore"):
        w = -np.log10(np.asarray(evalue, dtype=np.float64))
    return np.minimum(GOTCHA_MAX_WEIGHT, np.maximum(0.0, w)) + 0.0  # + 0.0: -log10(1) = -0.0 becomes 0.0


def _max_score(u: UsableHits, hits: HitTable, ptr: np.ndarray, cols: np.ndarray) -> tuple[NamespaceScores, dict[str, int]]:
    value = hits.column("pident", "blast")[u.row] / 100.0
    res = reduce_hits(u.target, u.subject, value, u.targets.size, ptr, cols, "max")
    return res, {}


def _ratio_score(u: UsableHits, weight: np.ndarray, ptr: np.ndarray, cols: np.ndarray,
                 c: float) -> tuple[NamespaceScores, dict[str, int]]:
    """``(c + sum of w over hits supporting v) / (c + sum of w over all hits)``."""
    n = u.targets.size
    res = reduce_hits(u.target, u.subject, weight, n, ptr, cols, "sum")
    total = np.bincount(u.target, weights=weight, minlength=n)  # same hit order as the cells' sums
    rows = np.repeat(np.arange(n), res.counts)
    denom = c + total[rows]
    ok = denom > 0
    extra = {}
    if not ok.all():  # c = 0 and every hit of the target weighs 0: undefined, not predicted
        zero = np.zeros(n, bool)
        zero[rows[~ok]] = True
        extra["targets_with_zero_total_weight"] = int(zero.sum())
        res = NamespaceScores(np.bincount(rows[ok], minlength=n), res.cols[ok], res.data[ok])
        denom, rows = denom[ok], rows[ok]
    res.data = (c + res.data) / denom
    return res, extra


def _score(method: str, u: UsableHits, hits: HitTable, ptr: np.ndarray, cols: np.ndarray) -> tuple[NamespaceScores, dict[str, int]]:
    if method == "blast":
        return _max_score(u, hits, ptr, cols)
    if method == "gotcha":
        return _ratio_score(u, gotcha_weight(hits.column("evalue", "gotcha")[u.row]), ptr, cols, GOTCHA_C)
    if method == "diamondscore":
        return _ratio_score(u, hits.column("bitscore", "diamondscore")[u.row], ptr, cols, 0.0)
    return _ratio_score(u, hits.column("pident", "knn_identity")[u.row], ptr, cols, 0.0)


def _homology(method: str, ontology: Ontology, train: Annotations, hits: HitTable, targets: Any,
              namespaces: Any, filters: dict[str, float | None], max_terms: int | None) -> Annotations:
    func = method if method != "knn-identity" else "knn_identity"
    train = training(ontology, train, func)
    tlist, repeated = (hits.queries, 0) if targets is None else unique_targets(targets)
    diag: dict[str, Any] = {"method": method, "targets": int(tlist.size), "repeated_targets_dropped": repeated,
                            "filters": dict(filters), "namespaces": {}}
    parts = []
    for label in labels(ontology, namespaces, func):
        u, counts = usable_hits(hits, train, label, tlist, **filters)
        ptr, cols = namespace_columns(train, label)
        res, extra = _score(method, u, hits, ptr, cols)
        parts.append(res)
        diag["namespaces"][label] = {
            "hits": counts,
            "training_proteins": int(np.count_nonzero(np.diff(ptr))),
            "targets_with_usable_hits": int(np.unique(u.target).size),
            "targets_with_predictions": int(np.count_nonzero(res.counts)),
            "predictions": int(res.data.size),
            **extra,
        }
    return assemble(ontology, tlist, parts, diag, max_terms)


_DOC_PARAMS = """
    Parameters
    ----------
    ontology : Ontology
    train : Annotations
        Training annotations on ``ontology`` (truth sets; propagated here if
        they are not). Every protein of it is in the training set.
    hits : HitTable
        Alignment hits (:func:`goeval.io.hits.read_hits`).
    targets : sequence of str, optional
        Proteins to predict (rows of the result, in this order); default
        every query of ``hits``.
    namespaces : sequence of str, optional
        Namespace labels or names; default all.
    max_evalue, min_identity, min_coverage : float, optional
        Hit filters of :func:`goeval.baselines.hits.usable_hits` (off by default).
    max_terms : int, optional
        Keep the best ``max_terms`` terms per target and namespace
        (:func:`goeval.baselines.top_terms`; ties by depth, then term id).

    Returns
    -------
    Annotations
        Float scores in [0, 1], ``propagated=True`` (max-consistent), one row
        per target (empty without a usable hit); ``diagnostics`` holds the hit
        counts by removal reason per namespace.
"""


def blast(ontology: Ontology, train: Annotations, hits: HitTable, targets: Any = None, *,
          namespaces: Any = None, max_evalue: float | None = None, min_identity: float | None = None,
          min_coverage: float | None = None, max_terms: int | None = None) -> Annotations:
    return _homology("blast", ontology, train, hits, targets, namespaces,
                     dict(max_evalue=max_evalue, min_identity=min_identity, min_coverage=min_coverage), max_terms)


def gotcha(ontology: Ontology, train: Annotations, hits: HitTable, targets: Any = None, *,
           namespaces: Any = None, max_evalue: float | None = None, min_identity: float | None = None,
           min_coverage: float | None = None, max_terms: int | None = None) -> Annotations:
    return _homology("gotcha", ontology, train, hits, targets, namespaces,
                     dict(max_evalue=max_evalue, min_identity=min_identity, min_coverage=min_coverage), max_terms)


def diamondscore(ontology: Ontology, train: Annotations, hits: HitTable, targets: Any = None, *,
                 namespaces: Any = None, max_evalue: float | None = None, min_identity: float | None = None,
                 min_coverage: float | None = None, max_terms: int | None = None) -> Annotations:
    return _homology("diamondscore", ontology, train, hits, targets, namespaces,
                     dict(max_evalue=max_evalue, min_identity=min_identity, min_coverage=min_coverage), max_terms)


def knn_identity(ontology: Ontology, train: Annotations, hits: HitTable, targets: Any = None, *,
                 namespaces: Any = None, max_evalue: float | None = None, min_identity: float | None = None,
                 min_coverage: float | None = None, max_terms: int | None = None) -> Annotations:
    return _homology("knn-identity", ontology, train, hits, targets, namespaces,
                     dict(max_evalue=max_evalue, min_identity=min_identity, min_coverage=min_coverage), max_terms)


blast.__doc__ = r"""BLAST baseline of Clark & Radivojac (2013, §4.1).

    .. math::

        s(x, v) = \max \{ \mathrm{pident}(x, s) / 100 : s \in H(x),\ v \in T(s) \}

    where H(x) are the usable hits of target x and T(s) the propagated
    training annotation of subject s (the root gets the maximum over all
    usable hits). ``pident / 100`` is that float division; a hit of 100 %
    identity gives exactly 1.0. Needs the ``pident`` column.
""" + _DOC_PARAMS + """
    References
    ----------
    Clark & Radivojac (2013) Bioinformatics 29(13):i53-i61, §4.1.
"""

gotcha.__doc__ = r"""GOtcha baseline (Martin et al. 2004) as used by Clark & Radivojac (2013, §4.1).

    .. math::

        w(x, s) = \min(500, \max(0, -\log_{10} e(x, s))), \quad
        r_v = c + \sum_{s \in H(x),\ v \in T(s)} w(x, s), \quad
        s(x, v) = r_v / r_{\mathrm{root}}

    with c = 2, E-value e = 0 giving w = 500, and
    :math:`r_{\mathrm{root}} = c + \sum_{s \in H(x)} w(x, s)`. Only terms
    with at least one supporting hit are predicted (even when their hits
    all weigh 0, i.e. E >= 1: they score c / r_root). A term supported by
    every usable hit scores exactly 1.0 (its sum and the root's are added
    in the same order). Needs the ``evalue`` column.
""" + _DOC_PARAMS + """
    References
    ----------
    Martin D.M. et al. (2004) BMC Bioinformatics 5:178; Clark & Radivojac
    (2013) Bioinformatics 29(13):i53-i61, §4.1.
"""

diamondscore.__doc__ = r"""DIAMONDScore of DeepGOPlus (Kulmanov & Hoehndorf 2020).

    .. math::

        s(x, v) = \frac{\sum_{s \in H(x),\ v \in T(s)} \mathrm{bitscore}(x, s)}
                       {\sum_{s \in H(x)} \mathrm{bitscore}(x, s)}

    (DeepGOPlus uses every DIAMOND hit with E <= 0.001, the E-value cut of
    ``goeval align``'s default). A target whose hits all have bitscore 0 is
    not predicted (counted). Needs the ``bitscore`` column.
""" + _DOC_PARAMS + """
    References
    ----------
    Kulmanov M., Hoehndorf R. (2020) Bioinformatics 36(2):422-429, eq. (1).
"""

knn_identity.__doc__ = r"""Identity-weighted k-nearest-neighbour transfer (NetGO / MetaGO family).

    .. math::

        s(x, v) = \frac{\sum_{s \in H(x),\ v \in T(s)} \mathrm{pident}(x, s)}
                       {\sum_{s \in H(x)} \mathrm{pident}(x, s)}

    the neighbours being all usable hits (k is set by the aligner's
    ``max_target_seqs`` and the hit filters). It is the kNN voting of the
    homology components of GOLabeler / NetGO (there weighted by bitscore,
    which is :func:`diamondscore`) with sequence identity as the weight, as
    in MetaGO's and CAFA-style identity-weighted transfer. A target whose
    hits all have 0 % identity is not predicted (counted). Needs ``pident``.
""" + _DOC_PARAMS + """
    References
    ----------
    You R. et al. (2019) NetGO. Nucleic Acids Res. 47(W1):W379-W387;
    Zhang C. et al. (2018) MetaGO. J. Mol. Biol. 430(15):2256-2265.
"""
