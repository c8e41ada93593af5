"""Baseline predictors: Naive, BLAST, GOtcha (CR13 §4.1) and two modern homology scorings.

Every function takes loaded objects (an :class:`~goeval.ontology.Ontology`,
training :class:`~goeval.annotations.Annotations`, a
:class:`~goeval.io.hits.HitTable`) and returns prediction scores as
:class:`~goeval.annotations.Annotations` on the same ontology: floats in
[0, 1], max-consistent (``propagated=True``), per namespace, ready for
:func:`goeval.evaluate`.

======================  ==========================================================
``naive``               n_train(v) / N_train, the same list for every target
``blast``               max pident / 100 over usable hits annotated with v
``gotcha``              (2 + sum w) / (2 + sum w over all hits), w = min(500, -log10 E)
``diamondscore``        sum of bitscores of hits with v / sum of all (DeepGOPlus)
``knn_identity``        sum of pident of hits with v / sum of all (kNN transfer)
======================  ==========================================================

Usable hits (:func:`usable_hits`): the target's rows without self hits,
with the subject in the training set and annotated in the namespace, after
the optional E-value / identity / coverage filters; every removed row is
counted by reason.
"""

from __future__ import annotations

from goeval.baselines.scores import combine_annotations, top_terms
from goeval.baselines.hits import REASONS, UsableHits, usable_hits
from goeval.baselines.homology import blast, diamondscore, gotcha, gotcha_weight, knn_identity
from goeval.baselines.naive import naive, naive_list, naive_scores

__all__ = [
    "METHODS",
    "HIT_METHODS",
    "REASONS",
    "UsableHits",
    "blast",
    "combine_annotations",
    "diamondscore",
    "gotcha",
    "gotcha_weight",
    "knn_identity",
    "naive",
    "naive_list",
    "naive_scores",
    "top_terms",
    "usable_hits",
]

#: Hit-based methods by command-line name.
HIT_METHODS = {"blast": blast, "gotcha": gotcha, "diamondscore": diamondscore, "knn-identity": knn_identity}
#: Every baseline by command-line name (naive takes no hits).
METHODS = ("naive", *HIT_METHODS)
