"""Resampling statistics from per-protein sufficient statistics.

* :func:`bootstrap` - percentile intervals of the protein-centric optima
  from resamples of each namespace's benchmark proteins, shared by every
  method (:mod:`goeval.stats.bootstrap`);
* :func:`compare` - paired comparisons of methods: the bootstrap interval of
  a difference, the share of resamples each method wins ("duels") and a
  paired permutation test with Holm's correction (:mod:`goeval.stats.compare`);
* :func:`write_protein_stats` / :func:`read_protein_stats` - the per-protein
  statistics of a run, stored so that ``goeval compare`` needs no re-evaluation.

The method is described in ``docs/statistics.md``.
"""

from __future__ import annotations

from goeval.stats.bootstrap import (
    BOOTSTRAP_COLUMNS,
    add_bootstrap_columns,
    bootstrap,
    bootstrap_replicates,
    percentile_interval,
)
from goeval.stats.compare import Comparison, compare, compare_groups, holm
from goeval.stats.replicates import CurveSettings, replicate_optima
from goeval.stats.resample import resample_counts, resample_indices, resample_key, swap_flags
from goeval.stats.store import PROTEIN_STATS_FILE, read_protein_stats, write_protein_stats

__all__ = [
    "BOOTSTRAP_COLUMNS",
    "Comparison",
    "CurveSettings",
    "PROTEIN_STATS_FILE",
    "add_bootstrap_columns",
    "bootstrap",
    "bootstrap_replicates",
    "compare",
    "compare_groups",
    "holm",
    "percentile_interval",
    "read_protein_stats",
    "replicate_optima",
    "resample_counts",
    "resample_indices",
    "resample_key",
    "swap_flags",
    "write_protein_stats",
]
