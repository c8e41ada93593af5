"""Benchmarks: k-fold cross-validation (CR13 §4.1) and CAFA time splits.

* :func:`cross_validate` - baselines trained on k - 1 folds, evaluated on the
  held-out fold with that fold's IA, statistics pooled over folds;
* :func:`time_split_targets` - no-, limited- and partial-knowledge targets
  between two annotation snapshots, with their truth;
* :func:`remove_known` - the partial-knowledge rule: each protein's known
  terms leave its truth and predictions;
* :func:`assign_folds`, :func:`fold_ia` - seeded folds and per-fold IA;
* :class:`ProteinGroups`, :func:`read_groups` - groups of proteins for
  per-group results (more ways to make them in :mod:`goeval.benchmarks.groups`).
"""

from __future__ import annotations

from goeval.benchmarks.cv import (
    TABLE1_COLUMNS,
    CrossValidation,
    cross_validate,
    pooled_predictions,
    table1_columns,
    table1_records,
)
from goeval.benchmarks.folds import assign_folds, fold_ia, fold_of, ia_from_counts
from goeval.benchmarks.groups import ProteinGroups, read_groups

__all__ = [
    "CrossValidation",
    "ProteinGroups",
    "TABLE1_COLUMNS",
    "assign_folds",
    "cross_validate",
    "fold_ia",
    "fold_of",
    "ia_from_counts",
    "pooled_predictions",
    "read_groups",
    "table1_columns",
    "table1_records",
]
