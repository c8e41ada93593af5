"""Bootstrap confidence intervals of the protein-centric optima, from sufficient statistics.

Resampled: the benchmark proteins of each namespace, with replacement, ``n``
draws out of ``n`` (CAFA2: 10,000 resamples of the benchmark, shared by every
model). A resample is a vector of counts ``w_i`` (how often protein ``i`` was
drawn), the same for every method of the namespace
(:mod:`goeval.stats.resample`), and the replicate's statistics are the sums
of the per-protein step functions weighted by ``w`` - all replicates of a
batch in one sparse product (:meth:`goeval.sweep.ProteinSteps.stats`), never
a re-evaluation. The coverage, the micro-averaged pools and the
``i(T)``-weighted means all follow the weights; the thresholds are the
block's own (exact scores or the grid) and the optimum is re-taken in every
replicate (:mod:`goeval.stats.replicates`).

Interval: the percentile interval ``[q((1 - c)/2), q((1 + c)/2)]`` of the
replicate optima, with numpy's default quantile definition
(``method="linear"``, Hyndman & Fan type 7: linear interpolation between
order statistics at position ``(B - 1) q``); ``se`` is their standard
deviation with ``ddof=1``. Replicates in which no protein is covered at any
threshold have no optimum; they are left out of the interval (with a
warning that counts them).

Every optimum and area of the summary whose registry entry has
``interval=True`` gets an interval (all of goeval's own: ``fmax`` ...
``max_coverage``, ``aupr``, ``waupr``, and the similarity optima
``lin_bma``, ``wang_max``, ``jaccard`` ...): each is a function of the
curves, which are functions of the resampled per-protein sums, and the
area is re-taken in every replicate as the summary takes it. The
similarity sums are kept per protein beside the others
(:class:`goeval.metrics.similarity_steps.SimilaritySteps`, the
``similarity`` of the block's :class:`~goeval.sweep.ProteinSteps`), so a
similarity optimum is resampled the same way: the replicate's similarity
curves (mean over the proteins where the value is defined, or under
``normalization='gt'`` over all resampled proteins) re-optimized over the
thresholds where the replicate covers a protein, as the summary takes it.
:func:`add_bootstrap_columns` says on the console which measures of the
summary have no interval and why (also under
``diagnostics["bootstrap"]["without_interval"]``).
"""

from __future__ import annotations

import os
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterable, Mapping

import numpy as np

from goeval.errors import GoevalWarning, InvalidParameterError
from goeval.options import CONFIDENCE, RESAMPLES, SEED, validate
from goeval.metrics.registry import CURVE_REDUCTIONS, get_measure, interval_measures
from goeval.sweep import STAT_DEFINITIONS
from goeval.progress import say_stage, stage
from goeval.stats.replicates import CurveSettings, curve_settings, held_measures, replicate_optima, sums_needed
from goeval.stats.resample import resample_counts, resample_key
from goeval.sweep import BlockKey, ProteinSteps, SweepStats

__all__ = [
    "BOOTSTRAP_COLUMNS", "replicates_per_batch", "bootstrap", "bootstrap_replicates", "percentile_interval",
    "add_bootstrap_columns", "check_bootstrap_parameters", "no_interval_reason",
]

#: Columns added to the summary rows of those measures.
BOOTSTRAP_COLUMNS: tuple[str, ...] = ("ci_low", "ci_high", "se")
#: Replicates per sparse product: between 16 and 128, fewer with many
#: thresholds (a batch's sums take about 12 x 2**17 x 8 bytes). Measured on
#: synth3k (BPO, 969 thresholds): 0.5 ms per replicate at 32-128, 0.9 ms at
#: 512 and 1.5 ms at 4096 (the product's output rows leave the caches).
BATCH_ELEMENTS = 1 << 17


def check_bootstrap_parameters(n_resamples: Any, seed: Any, confidence: Any, func: str = "bootstrap") -> tuple[int, int, float]:
    """Validated ``(n_resamples, seed, confidence)`` (the constraints of :mod:`goeval.options`); the parameter error otherwise."""
    v = validate({"n_resamples": n_resamples, "seed": seed, "confidence": confidence},
                 {"n_resamples": RESAMPLES, "seed": SEED, "confidence": CONFIDENCE}, func)
    return v["n_resamples"], v["seed"], v["confidence"]


def percentile_interval(values: np.ndarray, confidence: float) -> tuple[float, float, float, int]:
    """Percentile interval and standard error of replicate values.

    Returns
    -------
    (ci_low, ci_high, se, n_undefined)
        The ``(1 - c)/2`` and ``(1 + c)/2`` quantiles (numpy ``method="linear"``)
        and the ``ddof=1`` standard deviation of the finite values; NaN when
        fewer than two are finite. ``n_undefined`` counts the NaN values.

    Examples
    --------
    >>> percentile_interval(np.array([0.0, 1.0, 2.0, 3.0, 4.0, np.nan]), 0.5)
    (1.0, 3.0, 1.5811388300841898, 1)
    """
    v = np.asarray(values, dtype=np.float64)
    ok = v[np.isfinite(v)]
    bad = int(v.size - ok.size)
    if ok.size < 2:
        return float("nan"), float("nan"), float("nan"), bad
    lo, hi = np.quantile(ok, [(1 - confidence) / 2, (1 + confidence) / 2], method="linear")
    return float(lo), float(hi), float(np.std(ok, ddof=1)), bad


def replicates_per_batch(m: int, requested: int | None = None) -> int:
    """Replicates per sparse product over ``m`` thresholds (``requested`` when given)."""
    return int(requested) if requested else max(16, min(128, BATCH_ELEMENTS // max(1, m)))


def _blocks_with_steps(stats: Mapping[BlockKey, SweepStats]) -> dict[BlockKey, ProteinSteps]:
    missing = [k for k, st in stats.items() if st.protein_steps is None or st.protein_steps.proteins is None]
    if missing:
        raise InvalidParameterError(
            f"The statistics of {missing[:3]} carry no per-protein statistics; evaluate with bootstrap "
            "(namespace_stats(..., per_protein=True)) or read them from a protein_stats.npz.")
    return {k: st.protein_steps for k, st in stats.items()}  # type: ignore[misc]


def _measures_for(settings: CurveSettings, measures: Iterable[str] | None,
                  blocks: Mapping[BlockKey, ProteinSteps]) -> list[str]:
    """The measures given intervals: those asked for (default: every registered one with ``interval=True`` whose
    sums the statistics hold: an event source's measures when the run asked for them), without the IA-based ones
    when there is no IA."""
    if measures is None:
        held = set.intersection(*(set(steps.names) for steps in blocks.values())) if blocks else set()
        measures = [x for x in interval_measures()  # a similarity optimum's columns: held_measures, per block
                    if {s for s in sums_needed([get_measure(x)], settings) if s in STAT_DEFINITIONS} <= held]
    return [get_measure(x).name for x in measures if settings.with_ia or not get_measure(x).needs_ia]


def bootstrap_replicates(
    stats: Mapping[BlockKey, SweepStats],
    n_resamples: int,
    seed: int = 0,
    measures: Iterable[str] | None = None,
    settings: CurveSettings | None = None,
    *,
    threads: int | None = None,
    batch_size: int | None = None,
) -> dict[BlockKey, dict[str, np.ndarray]]:
    """The optimum of every measure in every bootstrap replicate of every block.

    Parameters
    ----------
    stats : mapping of (method, namespace) to SweepStats
        Statistics carrying their per-protein statistics (``protein_steps``).
    n_resamples : int
        B, the number of resamples of each namespace.
    seed : int
        Seed of the resamples (:mod:`goeval.stats.resample`).
    measures : iterable of str
        Protein-centric optima, similarity optima among them (IA-based ones
        are skipped without IA); default: every one with ``interval=True``,
        the similarity optima of a block where it holds their per-protein
        statistics.
    settings : CurveSettings, optional
        Curve options (default: CAFA's, with IA).
    threads : int, optional
        Threads computing batches (default: all cores); the values do not
        depend on it nor on ``batch_size``.
    batch_size : int, optional
        Replicates per sparse product (default: :data:`BATCH_ELEMENTS` / thresholds, within 16 .. 128).

    Returns
    -------
    dict of (method, namespace) to dict of measure to ndarray of shape (B,)
    """
    settings = settings or CurveSettings()
    blocks = _blocks_with_steps(stats)
    names = _measures_for(settings, measures, blocks)
    per = {k: held_measures(steps, names, measures is not None, f"{k[0]} in {k[1]}") for k, steps in blocks.items()}
    tasks = []
    for (method, label), steps in blocks.items():
        key = resample_key(label, steps.proteins)
        bs = replicates_per_batch(steps.thresholds.size, batch_size)
        tasks += [((method, label), steps, key, s, min(n_resamples, s + bs)) for s in range(0, n_resamples, bs)]
    for k, steps in blocks.items():  # build the cached product operands once, before threads share them
        steps.stats(np.ones((1, steps.n_proteins)), sums_needed([get_measure(x) for x in per[k]], settings))

    def one(task: tuple) -> dict[str, np.ndarray]:
        block, steps, key, start, stop = task
        w = resample_counts(seed, key, steps.n_proteins, start, stop)
        return replicate_optima(steps, w, per[block], settings)

    workers = max(1, min(threads or os.cpu_count() or 1, len(tasks) or 1))

    with stage(f"bootstrap: {n_resamples:,} resamples of {_plural(len(blocks), 'block')}",
               total=n_resamples * len(blocks), unit="resample", unit_scale=True) as st, \
            ThreadPoolExecutor(max_workers=workers) as pool:
        parts = []
        for task, part in zip(tasks, pool.map(one, tasks)):
            parts.append(part)
            st.update(task[4] - task[3])
    out: dict[BlockKey, dict[str, list[np.ndarray]]] = {k: {x: [] for x in per[k]} for k in blocks}
    for task, part in zip(tasks, parts):
        for x in per[task[0]]:
            out[task[0]][x].append(part[x])
    return {k: {x: np.concatenate(v) if v else np.zeros(0) for x, v in d.items()} for k, d in out.items()}


def bootstrap(
    result: Any,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    *,
    measures: Iterable[str] | None = None,
    options: Any = None,
    with_ia: bool | None = None,
    threads: int | None = None,
    batch_size: int | None = None,
) -> list[dict[str, Any]]:
    """Bootstrap percentile intervals of the optima of every method and namespace.

    Parameters
    ----------
    result : EvaluationResult or mapping of (method, namespace) to SweepStats
        An evaluation run with ``bootstrap`` (or ``namespace_stats(...,
        per_protein=True)``), or statistics read by
        :func:`goeval.stats.read_protein_stats`.
    n_resamples : int, default 1000
        B (CAFA2 used 10,000).
    seed : int, default 0
    confidence : float, default 0.95
    measures : iterable of str
        Protein-centric optima or areas; default: every registered one with
        ``interval=True`` (:func:`~goeval.metrics.registry.interval_measures`).
    options : EvaluationOptions or dict, optional
        Curve options; default: those recorded in ``result.diagnostics``.
    with_ia : bool, optional
        Whether IA was used (default: as recorded in the result).
    threads, batch_size
        As for :func:`bootstrap_replicates` (no effect on the values).

    Returns
    -------
    list of dict
        One record per (method, namespace, measure): ``value`` (the point
        estimate, from the unweighted statistics), ``ci_low``, ``ci_high``,
        ``se``, ``n_resamples``, ``n_undefined``.

    Warns
    -----
    GoevalWarning
        When some replicates have no optimum (no protein covered); they are
        left out of the interval.

    Examples
    --------
    >>> import goeval
    >>> from goeval.evaluation import namespace_stats
    >>> from goeval.stats import bootstrap
    >>> onto = goeval.load_ontology(goeval.example_path("ontology"))
    >>> truth = goeval.load_annotations(goeval.example_path("truth"), onto)
    >>> preds = {"blast": goeval.load_predictions(goeval.example_path("predictions"), onto)}
    >>> ia, _ = goeval.load_ia(goeval.example_path("ia"), onto)
    >>> stats = namespace_stats(onto, truth, preds, ia, per_protein=True)
    >>> rows = bootstrap(stats, 200, seed=0)
    >>> [(r["measure"], r["ci_low"] <= r["value"] <= r["ci_high"]) for r in rows][:2]
    [('fmax', True), ('wfmax', True)]
    """
    n_resamples, seed, confidence = check_bootstrap_parameters(n_resamples, seed, confidence)
    stats = result.stats if hasattr(result, "stats") else result
    settings = curve_settings(result, options, with_ia) if hasattr(result, "diagnostics") else \
        CurveSettings.from_options(options or {}, True if with_ia is None else with_ia)
    reps = bootstrap_replicates(stats, n_resamples, seed, measures, settings, threads=threads, batch_size=batch_size)
    records = []
    for (method, label), per in reps.items():
        steps = stats[(method, label)].protein_steps
        point = replicate_optima(steps, np.ones((1, steps.n_proteins)), list(per), settings)
        short: dict[int, list[str]] = {}  # resamples without an optimum -> the measures (of a defined value) short
        for name, values in per.items():
            lo, hi, se, bad = percentile_interval(values, confidence)
            if bad and point[name][0] == point[name][0]:  # an undefined optimum (NaN) has no interval: said once
                short.setdefault(bad, []).append(name)
            records.append({"method": method, "namespace": label, "measure": name, "value": float(point[name][0]),
                            "ci_low": lo, "ci_high": hi, "se": se, "n_resamples": n_resamples, "n_undefined": bad})
        for bad, names in short.items():
            warnings.warn(f"bootstrap: {bad} of {n_resamples} resamples of {method} in {label} cover no protein at "
                          f"any threshold; the intervals of {', '.join(names)} use the other {n_resamples - bad}.",
                          GoevalWarning, stacklevel=2)
    return records


def add_bootstrap_columns(result: Any, n_resamples: int, seed: int = 0, confidence: float = 0.95, **kwargs: Any) -> Any:
    """Add ``ci_low``, ``ci_high``, ``se`` to the summary rows of ``result`` (in place).

    Rows of the bootstrapped measures get the interval of :func:`bootstrap`;
    every other row gets NaN, and the measures without an interval are said
    with the reason (:func:`no_interval_reason`). Returns ``result``.
    """
    rows = bootstrap(result, n_resamples, seed, confidence, **kwargs)
    by_key = {(r["method"], r["namespace"], r["measure"]): r for r in rows}
    done = {r["measure"] for r in rows}
    without = {m: no_interval_reason(m) for m in dict.fromkeys(r["measure"] for r in result.summary_records)
               if m not in done}
    records = []
    for rec in result.summary_records:
        hit = by_key.get((rec["method"], rec["namespace"], rec["measure"]), {})
        records.append({**rec, **{c: hit.get(c, float("nan")) for c in BOOTSTRAP_COLUMNS}})
    result.summary_records = records
    result.diagnostics["bootstrap"] = {
        "n_resamples": n_resamples, "seed": seed, "confidence": confidence,
        "interval": "percentile (numpy quantile, method='linear')", "se": "standard deviation, ddof=1",
        "undefined_resamples": {f"{r['method']}/{r['namespace']}/{r['measure']}": r["n_undefined"]
                                for r in rows if r["n_undefined"]},
    }
    if without:
        result.diagnostics["bootstrap"]["without_interval"] = without
        for why in dict.fromkeys(without.values()):
            say_stage(f"bootstrap: no interval for {', '.join(m for m, w in without.items() if w == why)}: {why}")
    return result


def no_interval_reason(measure: str) -> str:
    """Why the bootstrap gives a summary measure no interval (a measure registered without one, or one not
    asked for).

    Examples
    --------
    >>> no_interval_reason("f2max")
    'not a registered measure'
    """
    try:
        ms = get_measure(measure)
    except InvalidParameterError:
        return "not a registered measure"
    if not ms.interval or ms.reduce not in CURVE_REDUCTIONS:
        return "registered without an interval (interval=False)"
    return "not among the measures asked for"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"
