"""Threshold-sweep kernels: per-threshold sufficient statistics.

For protein ``i`` the predicted set ``P_i(tau) = {v : s_i(v) >= tau}`` only
changes at that protein's own scores, so every per-protein quantity
(``|P|``, ``|T ∩ P|``, ``sum_P ia``, ``sum_{T ∩ P} ia``) is a step function
of ``tau``. The kernel maps each propagated score to its *level* (the number
of thresholds ``<= score``), sorts each protein's entries by level once
(one ``np.sort`` of packed integer keys), takes cumulative sums over the
levels, and scatters the *changes* of every per-protein measure into the
threshold bins with ``np.bincount``; a reverse cumulative sum then gives,
for every threshold, the sum over proteins. Nothing loops over thresholds
or proteins in Python, and the statistics are additive over disjoint sets of
proteins: the kernel's *chunks* (runs of rows that bound its memory) and the
evaluation's *leaves* (the units of work a thread or a worker sweeps, which a
distributed backend only has to add).

This is the multi-threshold analogue of scikit-learn's
``_binary_clf_curve``.

The stages, one module each:

* :mod:`~goeval.sweep.thresholds` - the decision thresholds (a grid built
  from integers, or every distinct score);
* :mod:`~goeval.sweep.quantities` - what is summed, each per-protein quantity
  declared once (:func:`~goeval.sweep.quantities.register_quantity`: its value from
  the protein's running totals, its sums, its shared rule);
* :mod:`~goeval.sweep.stats` - :class:`SweepStats`, the sums over thresholds;
* :mod:`~goeval.sweep.kernel` - :func:`sweep`, the kernel itself;
* :mod:`~goeval.sweep.steps` - :class:`ProteinSteps`, every protein's step
  functions kept (bootstrap, paired comparisons);
* :mod:`~goeval.sweep.partial` - :class:`SweepPartial`, the unfinished sums
  of a set of proteins (a leaf), added in a fixed tree (:class:`TreeSum`).
"""

from goeval.sweep.kernel import running_sums, sweep, truth_totals
from goeval.sweep.partial import SweepPartial, TreeSum, finish_partial, fold_infinite, sweep_partial, tree_sum
from goeval.sweep.stats import BASE_QUANTITIES, STAT_DEFINITIONS, STAT_NAMES, BlockKey, SweepStats
from goeval.sweep.steps import ProteinSteps, assemble_steps, protein_steps
from goeval.sweep.thresholds import (MAX_GRID_THRESHOLDS, arange_thresholds, exact_thresholds, grid_multiplier,
                                     grid_thresholds)

__all__ = ["SweepStats", "sweep", "running_sums", "ProteinSteps", "protein_steps", "assemble_steps",
           "SweepPartial", "TreeSum", "tree_sum", "sweep_partial", "finish_partial", "fold_infinite", "truth_totals",
           "grid_thresholds", "arange_thresholds", "exact_thresholds", "grid_multiplier", "MAX_GRID_THRESHOLDS", "STAT_NAMES",
           "STAT_DEFINITIONS",
           "BASE_QUANTITIES", "BlockKey"]
