"""Pure array functions computing evaluation measures.

Protein-centric (Clark & Radivojac 2013), scikit-learn shaped, on sparse
``(proteins x terms)`` truth and score matrices or
:class:`~goeval.annotations.Annotations`:

* :func:`fmax_score`, :func:`smin_distance`, :func:`protein_curve`;
* from sweep statistics: :func:`protein_curves`, :func:`f_score`,
  :func:`s_distance`, :func:`best_index`; from a curve: :func:`aupr_score`.

Retrieval and term-centric: :func:`tap_k`, :func:`tap_curve` (TAP-k),
:func:`ipr_auc`, :func:`ipr_curve` (BioCreative II.5 AUC iP/R),
:func:`roc_n_scores`, :func:`pooled_roc_n_score`,
:func:`average_precision_lists`, :func:`mean_average_precision`,
:func:`term_centric_scores` (CAFA term-centric ROC AUC / AP),
:func:`informative_roc_auc` (DeepGO-SE's ROC AUC over informative terms),
:func:`weighted_term_mean`, :func:`depth_weights` (per-term values averaged
with information or BeProf's depth weights), :func:`term_queries`,
:func:`term_retrieval`.

Semantic similarity (Resnik, Lin, Jiang-Conrath, Schlicker; all-pair and
best-match averaging; Jaccard, simGIC): :func:`term_similarity`,
:func:`pair_similarity`, :func:`set_similarity`, :func:`similarity_sweep`,
:func:`similarity_curves`, :func:`similarity_columns`,
:class:`SimilarityStats`, :func:`mica_information`,
:func:`most_informative_common_ancestor`.

The measure registry: :class:`Measure`, :func:`register`,
:func:`get_measure`, :func:`measures`, :data:`PROTEIN_MEASURES`,
:data:`PROTEIN_AREAS`, :data:`PROTEIN_AGGREGATES`, :data:`TERM_MEASURES`,
:data:`SIMILARITY_MEASURES`; measures of other packages:
:func:`load_plugins` (:mod:`goeval.metrics.plugins`).

Names are imported on first use, so ``import goeval.metrics`` (and the
command line) stay fast.

Examples
--------
>>> from goeval.metrics import ipr_auc
>>> ipr_auc([True, False, True], n_gold=2)
0.8333333333333333
"""

from __future__ import annotations

from goeval.lazy import lazy_exports

_EXPORTS = {
    "fmax_score": "goeval.metrics.protein",
    "smin_distance": "goeval.metrics.protein",
    "protein_curve": "goeval.metrics.protein",
    "protein_curves": "goeval.metrics.protein",
    "f_score": "goeval.metrics.protein",
    "s_distance": "goeval.metrics.protein",
    "best_index": "goeval.metrics.protein",
    "aupr_score": "goeval.metrics.protein",
    "CURVE_COLUMNS": "goeval.metrics.protein",
    "tap_k": "goeval.metrics.tapk",
    "tap_curve": "goeval.metrics.tapk",
    "RetrievalList": "goeval.metrics.tapk",
    "RetrievalLists": "goeval.metrics.tapk",
    "TapkResult": "goeval.metrics.tapk",
    "TapCurve": "goeval.metrics.tapk",
    "ipr_auc": "goeval.metrics.iprauc",
    "ipr_curve": "goeval.metrics.iprauc",
    "ipr_auc_by_document": "goeval.metrics.iprauc",
    "roc_n_scores": "goeval.metrics.ranking",
    "pooled_roc_n_score": "goeval.metrics.ranking",
    "average_precision_lists": "goeval.metrics.ranking",
    "mean_average_precision": "goeval.metrics.ranking",
    "term_centric_scores": "goeval.metrics.ranking",
    "TermCentricResult": "goeval.metrics.ranking",
    "informative_roc_auc": "goeval.metrics.ranking",
    "weighted_term_mean": "goeval.metrics.ranking",
    "depth_weights": "goeval.metrics.ranking",
    "term_queries": "goeval.metrics.retrieval",
    "term_retrieval": "goeval.metrics.retrieval",
    "Measure": "goeval.metrics.registry",
    "register": "goeval.metrics.registry",
    "get_measure": "goeval.metrics.registry",
    "measures": "goeval.metrics.registry",
    "load_plugins": "goeval.metrics.plugins",
    "PROTEIN_MEASURES": "goeval.metrics.registry",
    "PROTEIN_AREAS": "goeval.metrics.registry",
    "PROTEIN_AGGREGATES": "goeval.metrics.registry",
    "TERM_MEASURES": "goeval.metrics.registry",
    "SIMILARITY_MEASURES": "goeval.metrics.registry",
    "term_similarity": "goeval.metrics.similarity",
    "pair_similarity": "goeval.metrics.similarity",
    "set_similarity": "goeval.metrics.similarity",
    "similarity_sweep": "goeval.metrics.similarity",
    "similarity_curves": "goeval.metrics.similarity",
    "similarity_columns": "goeval.metrics.similarity",
    "SimilarityStats": "goeval.metrics.similarity",
    "mica_information": "goeval.metrics.similarity",
    "most_informative_common_ancestor": "goeval.metrics.similarity",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports("goeval.metrics", _EXPORTS, globals())
