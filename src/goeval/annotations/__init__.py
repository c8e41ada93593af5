"""Annotations: sparse protein x term sets and scores, their propagation and known pairs.

* :mod:`~goeval.annotations.core` - :class:`Annotations`, :func:`map_table`
  (tables read by :mod:`goeval.io` mapped on an ontology, every remapped or
  dropped row counted), :func:`merge_annotations`;
* :mod:`~goeval.annotations.propagation` - :func:`propagate` (truth: ancestor
  closure; predictions: ``max`` or ``fill``) and its kernel :func:`propagate_rows`;
* :mod:`~goeval.annotations.pairs` - known (protein, term) pairs removed
  from truth and predictions (partial knowledge);
* :mod:`~goeval.annotations.top_terms` - the N best terms per protein and namespace.
"""

from goeval.annotations.core import Annotations, TermTally, map_table, merge_annotations
from goeval.annotations.pairs import drop_pairs, in_pairs, pair_keys, remove_pairs
from goeval.annotations.propagation import PROPAGATION_BUFFER_CELLS, is_consistent, propagate, propagate_rows

__all__ = [
    "Annotations", "TermTally", "map_table", "merge_annotations", "propagate", "propagate_rows", "is_consistent",
    "pair_keys", "in_pairs", "drop_pairs", "remove_pairs", "PROPAGATION_BUFFER_CELLS",
]
