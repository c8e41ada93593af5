"""Bootstrap intervals and paired comparisons of a mean of optima over groups of evaluations.

Some scores average an optimum over several evaluations: the Kaggle CAFA 6
score is the mean over three kinds of targets (NK, LK, PK: three
benchmarks, each its own evaluation) of the mean over MF, BP and CC of the
weighted Fmax. Here a *group* is one evaluation's statistics (a mapping of
(method, namespace) to :class:`~goeval.sweep.SweepStats` with per-protein
statistics) and the *aggregate* of a method is

.. math::

    A = \\frac{1}{|G|} \\sum_{g \\in G} \\frac{1}{|N_g|} \\sum_{o \\in N_g} \\mathrm{opt}_{g,o}

over the groups ``G`` and each group's namespaces ``N_g`` (those with
benchmark proteins); a namespace where the method predicts nothing counts
0, and so does a replicate in which none of its resampled proteins is
covered.

Replicate ``b`` resamples every (group, namespace) independently, with
the resamples of :func:`goeval.stats.bootstrap` (keyed by the namespace and
its benchmark proteins, so a method's block gets the same draws as in its own
evaluation's intervals and every method the same draws), re-optimizes each
block's threshold and averages as above. A paired permutation swaps each
protein's contributions between the two methods in every block, independently
(:class:`~goeval.stats.compare.PairedBlocks`), and recomputes both aggregates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import combinations
from typing import Any

import numpy as np

from goeval.errors import InvalidParameterError
from goeval.metrics.registry import Measure
from goeval.stats.bootstrap import check_bootstrap_parameters, replicates_per_batch
from goeval.stats.compare import PAIR_COLUMNS, PairedBlocks, batched, chosen_methods, pair_record, set_holm
from goeval.stats.replicates import CurveSettings, replicate_optima
from goeval.sweep import ProteinSteps, SweepStats

__all__ = ["Groups", "group_layout", "aggregate_replicates", "compare_aggregate", "PAIR_COLUMNS"]

#: Group name -> that evaluation's statistics by (method, namespace).
Groups = Mapping[str, Mapping[tuple[str, str], SweepStats]]


def group_layout(groups: Groups, namespaces: Mapping[str, Sequence[str]] | None = None) -> dict[str, list[str]]:
    """The namespaces averaged in each group: ``namespaces[g]`` when given, else those in its statistics."""
    out = {}
    for g, stats in groups.items():
        given = None if namespaces is None else namespaces.get(g)
        out[g] = list(given) if given is not None else list(dict.fromkeys(label for _, label in stats))
    return {g: labels for g, labels in out.items() if labels}


def _empty_like(steps: ProteinSteps) -> ProteinSteps:
    """The steps of a method predicting nothing for the same proteins."""
    none = np.zeros(0, np.int64)
    return replace(steps, rows=none, bins=none, totals={k: np.zeros(0) for k in steps.totals},
                   group_bounds=np.zeros_like(steps.group_bounds),
                   similarity=None if steps.similarity is None else steps.similarity.empty())


def _blocks(groups: Groups, layout: Mapping[str, list[str]], methods: Sequence[str], measure: Measure,
            settings: CurveSettings) -> dict[tuple[str, str], PairedBlocks]:
    """Every (group, namespace) with benchmark statistics, each method's steps (empty where it has none)."""
    out = {}
    for g, labels in layout.items():
        for label in labels:
            have = {m: groups[g][(m, label)].protein_steps for m in methods if (m, label) in groups[g]}
            if any(s is None or s.proteins is None for s in have.values()):
                raise InvalidParameterError(f"The statistics of {g} {label} carry no per-protein statistics; "
                                            "evaluate with bootstrap.")
            if have:
                first = next(iter(have.values()))
                steps = {m: have[m] if m in have else _empty_like(first) for m in methods}
                out[(g, label)] = PairedBlocks.of(label, steps, measure, settings)
    return out


def _mean_of_means(cells: Mapping[tuple[str, str], Any], layout: Mapping[str, list[str]], zero: Any) -> Any:
    """Mean over groups of the mean over the group's namespaces; a *cell* is one (group, namespace), as CAFA 6
    says (missing or NaN cells count 0)."""
    means = []
    for g, labels in layout.items():
        vals = [np.nan_to_num(np.asarray(cells.get((g, x), zero), dtype=np.float64), nan=0.0) for x in labels]
        means.append(np.mean(vals, axis=0))
    return np.mean(means, axis=0)


def aggregate_replicates(groups: Groups, measure: Measure, settings: CurveSettings, n_resamples: int, seed: int = 0,
                         *, namespaces: Mapping[str, Sequence[str]] | None = None, threads: int | None = None,
                         batch_size: int | None = None) -> dict[str, dict[str, np.ndarray]]:
    """Bootstrap replicates of every method's aggregate and of each group's mean.

    Parameters
    ----------
    groups : mapping of str to mapping of (method, namespace) to SweepStats
        One evaluation per group, with per-protein statistics.
    measure : Measure
        The protein-centric optimum averaged (e.g. ``wfmax``).
    settings : CurveSettings
    n_resamples, seed
        As for :func:`goeval.stats.bootstrap`.
    namespaces : mapping of str to sequence of str, optional
        The namespaces of each group (default: those in its statistics).
    threads, batch_size
        As for :func:`goeval.stats.bootstrap` (no effect on the values).

    Returns
    -------
    dict of str to dict of str to ndarray of shape (B,)
        Method -> ``"all"`` (the aggregate), each group's mean (its name)
        and each block's optimum (``"group/namespace"``, 0 where undefined).
    """
    n_resamples, seed, _ = check_bootstrap_parameters(n_resamples, seed, 0.95, "aggregate_replicates")
    layout = group_layout(groups, namespaces)
    methods = list(dict.fromkeys(m for stats in groups.values() for m, _ in stats))
    blocks = _blocks(groups, layout, methods, measure, settings)
    cells: dict[str, dict[tuple[str, str], np.ndarray]] = {m: {} for m in methods}
    for key, blk in blocks.items():
        size = replicates_per_batch(next(iter(blk.steps.values())).thresholds.size, batch_size)
        boot = batched(lambda s0, s1, b=blk: b.resampled(seed, s0, s1), n_resamples, size, threads,
                       label=f"bootstrap {'/'.join(map(str, key))}")
        for m in methods:
            cells[m][key] = boot[m]
    zero = np.zeros(n_resamples)
    out = {}
    for m in methods:
        per = {g: _mean_of_means(cells[m], {g: labels}, zero) for g, labels in layout.items()}
        each = {f"{g}/{label}": np.nan_to_num(cells[m].get((g, label), zero), nan=0.0)
                for g, labels in layout.items() for label in labels}
        out[m] = {"all": _mean_of_means(cells[m], layout, zero), **per, **each}
    return out


def _points(blocks: Mapping[tuple[str, str], PairedBlocks], methods: Sequence[str]) -> dict[str, dict]:
    """Each method's optimum in each block (NaN where it covers no protein)."""
    out: dict[str, dict] = {m: {} for m in methods}
    for key, blk in blocks.items():
        ones = np.ones((1, blk.n))
        for m in methods:
            out[m][key] = float(replicate_optima(blk.steps[m], ones, [blk.measure], blk.settings)[blk.measure.name][0])
    return out


def compare_aggregate(groups: Groups, methods: Sequence[str] | None, measure: Measure, settings: CurveSettings, *,
                      name: str, n_resamples: int = 10_000, permutations: int = 10_000, seed: int = 0,
                      confidence: float = 0.95, namespaces: Mapping[str, Sequence[str]] | None = None,
                      threads: int | None = None, batch_size: int | None = None) -> list[dict[str, Any]]:
    """Paired comparison of methods on their aggregate: one row of :data:`PAIR_COLUMNS` per pair.

    The difference of the aggregates, its bootstrap interval, the share of
    resamples each method wins and a paired permutation p-value (Holm-adjusted
    over the pairs), as :func:`goeval.stats.compare` gives them per namespace;
    ``namespace`` is ``all`` and ``measure`` is ``name``.

    Raises
    ------
    InvalidParameterError
        Fewer than two distinct known methods, or statistics without per-protein statistics.
    """
    n_resamples, seed, confidence = check_bootstrap_parameters(n_resamples, seed, confidence, "compare")
    chosen = chosen_methods(list(dict.fromkeys(m for stats in groups.values() for m, _ in stats)), methods)
    layout = group_layout(groups, namespaces)
    blocks = _blocks(groups, layout, chosen, measure, settings)
    point = {m: float(_mean_of_means(v, layout, 0.0)) for m, v in _points(blocks, chosen).items()}
    boot = aggregate_replicates(groups, measure, settings, n_resamples, seed, namespaces=namespaces,
                                threads=threads, batch_size=batch_size)
    perm = _permuted(blocks, layout, chosen, permutations, seed, threads, batch_size)
    pairs = [pair_record("all", replace(measure, name=name), a, b, point, {m: boot[m]["all"] for m in chosen}, perm,
                         confidence) for a, b in combinations(chosen, 2)]
    set_holm(pairs)
    return pairs


def _permuted(blocks: Mapping[tuple[str, str], PairedBlocks], layout: Mapping[str, list[str]], methods: Sequence[str],
              permutations: int, seed: int, threads: int | None, batch_size: int | None) -> dict[str, np.ndarray]:
    """``|A(a') - A(b')|`` of every pair under ``permutations`` paired swaps in every block."""
    if not permutations:
        return {}
    mixed = {}
    for key, blk in blocks.items():
        size = replicates_per_batch(next(iter(blk.steps.values())).thresholds.size, batch_size)
        mixed[key] = batched(lambda s0, s1, b=blk: b.mixed(seed, s0, s1), permutations, size, threads,
                             "permutations", f"compare {'/'.join(map(str, key))}")
    zero = np.zeros(permutations)
    out = {}
    for a, b in combinations(methods, 2):
        pair = f"{a}\0{b}"
        a_agg = _mean_of_means({k: v[pair][0] for k, v in mixed.items()}, layout, zero)
        b_agg = _mean_of_means({k: v[pair][1] for k, v in mixed.items()}, layout, zero)
        out[pair] = np.abs(a_agg - b_agg)
    return out
