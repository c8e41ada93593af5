"""Which measures can be gamed: the Artificial Dilution Series (Plyusnin, Holm & Törönen 2019).

The ADS makes prediction sets of known *signal level* from the truth itself
and rates every measure by two numbers (``docs/metric_check.md`` gives the
construction in full and where it departs from the paper):

* **AP sets** (artificial prediction sets). Per namespace, the truth is
  reduced to each protein's most specific terms (its *leaf pairs*). At
  signal ``s`` a random ``round(s * n)`` of the ``n`` leaf pairs stay as they
  are (the positive set); the terms of the other pairs are shuffled between
  their proteins (the negative set: the paper's permutation that "switches GO
  terms for a pair of genes"), so every protein keeps its number of terms
  and every term its frequency, and no shuffled term lands on a protein whose
  propagated truth holds it. Every predicted term gets a score drawn
  uniformly from 0.01, 0.02, ..., 1.00, independently of whether it is
  right, so a measure sees the signal only through which terms are
  predicted. One permutation per replicate orders the pairs, so the pairs
  kept at a level are kept at every higher level.
* **FP sets** (false-positive sets): ``naive`` (every protein gets every
  term of the benchmark scored by its frequency among the benchmark's
  proteins, the CAFA naive baseline fitted on the truth itself),
  ``all_positive`` (every protein gets every term of the benchmark, score
  1) and ``random`` (every protein gets as many terms as it has leaf pairs,
  drawn uniformly from the benchmark's terms, with random scores).
* **RC**: Spearman's rank correlation between the signal level and the
  measure's value over every AP set (the value negated for a measure whose
  optimum is a minimum, so that a good measure has RC near 1).
* **FPS** of an FP set: the signal level at which the AP sets' median value
  (per level, linearly interpolated between levels) equals the FP set's
  value, the highest such level when the medians are not monotone, 0 below
  the median of signal 0 and 1 at or above the best median; the measure's
  FPS is the highest over the FP sets. A measure that is hard to game has RC
  near 1 and FPS near 0.

Every set is evaluated in one call of :func:`goeval.evaluate` (one method
per set), so every registered protein-centric measure (the user's too) is
rated, with the run's options.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from goeval.annotations import Annotations, propagate
from goeval.errors import GoevalError, InvalidParameterError
from goeval.ontology import Ontology
from goeval.options import EvaluationOptions

__all__ = ["LEVELS", "FP_SETS", "DilutionSeries", "MetricCheck", "dilution_series", "check_levels", "leaf_pairs",
           "rank_correlation", "false_positive_signal", "rate_measures", "metric_check"]

#: Default signal levels: 0, 0.1, ..., 1.
LEVELS: tuple[float, ...] = tuple(round(0.1 * i, 1) for i in range(11))
#: The false-positive sets, in table order.
FP_SETS: tuple[str, ...] = ("naive", "all_positive", "random")
#: Score grid of the AP and random sets: 0.01, 0.02, ..., 1.00.
_GRID = 100
#: Rounds of re-shuffling the terms that landed on a protein already holding them.
_ROUNDS = 50


@dataclass(kw_only=True)
class DilutionSeries:
    """The AP sets and FP sets of one truth.

    Attributes
    ----------
    sets : dict of str to Annotations
        Set name -> predictions (scores on the truth's ontology): ``s0.3_r2``
        (signal 0.3, replicate 2) for AP sets, the :data:`FP_SETS` names.
    signal : dict of str to float
        AP set name -> its signal level.
    replicate : dict of str to int
        AP set name -> its replicate (1-based).
    levels : ndarray
        The signal levels, increasing.
    diagnostics : dict
        Per namespace: ``proteins``, ``leaf_pairs``, ``benchmark_terms`` and
        ``replaced`` (shuffled terms that could not land on a protein without
        them and were redrawn from the namespace's leaf terms, over all
        sets).
    """

    sets: dict[str, Annotations]
    signal: dict[str, float]
    replicate: dict[str, int]
    levels: np.ndarray
    diagnostics: dict[str, Any] = field(default_factory=dict)


@dataclass(kw_only=True)
class MetricCheck:
    """What :func:`metric_check` found.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (namespace, measure): ``rc``, ``fps``, ``fps_<set>`` per
        FP set, the median value at signal 0 and 1 and each FP set's value;
        sorted by namespace, then FPS (then RC, best first).
    values : pandas.DataFrame
        Every set's value of every measure: ``namespace, measure, set,
        signal, replicate, value`` (FP sets: empty signal, replicate 0).
    diagnostics : dict
        The construction's counts and the evaluation's diagnostics.
    """

    table: Any
    values: Any
    diagnostics: dict[str, Any] = field(default_factory=dict)


def check_levels(levels: Sequence[float]) -> np.ndarray:
    """The signal levels as an array.

    Raises
    ------
    InvalidParameterError
        For fewer than two levels, a level outside [0, 1], or levels not strictly increasing.
    """
    lv = np.asarray(levels, dtype=np.float64)
    if lv.ndim != 1 or lv.size < 2 or not np.all(np.isfinite(lv)) or np.any(lv < 0) or np.any(lv > 1) \
            or np.any(np.diff(lv) <= 0):
        raise InvalidParameterError("The 'levels' parameter of dilution_series must be at least two increasing "
                                    f"signal levels in [0, 1]; got {list(levels)!r}.")
    return lv


def leaf_pairs(truth: Annotations, namespace: str) -> tuple[np.ndarray, np.ndarray]:
    """The (row, term) pairs of each protein's most specific terms in one namespace.

    A term is dropped when another term of the same protein lies below it
    (its ancestors are implied by propagation).

    Returns
    -------
    rows, terms : ndarray of int64
        Row of ``truth`` and global term index, sorted by row then term.
    """
    onto = truth.ontology
    s = onto.namespace_slice(namespace)
    m = sp.csr_array(truth.matrix.tocsr()[:, s], dtype=np.bool_)
    m.eliminate_zeros()
    anc = onto.ancestors_csr[s, s].astype(np.int32)
    strict = sp.csr_array(anc - sp.eye_array(anc.shape[0], dtype=np.int32, format="csr"))
    strict.eliminate_zeros()
    below = (m.astype(np.int32) @ strict) > 0  # terms implied by a more specific term of the same protein
    leaves = sp.csr_array(m.astype(np.int8) - m.multiply(below).astype(np.int8))
    leaves.eliminate_zeros()
    coo = leaves.tocoo()
    order = np.lexsort((coo.col, coo.row))
    return coo.row[order].astype(np.int64), coo.col[order].astype(np.int64) + s.start


def _true_keys(true: sp.csr_array, n_terms: int) -> np.ndarray:
    """Sorted keys ``row * n_terms + term`` of the propagated truth."""
    coo = true.tocoo()
    return np.sort(coo.row.astype(np.int64) * n_terms + coo.col.astype(np.int64))


def _invalid(rows: np.ndarray, terms: np.ndarray, true_keys: np.ndarray, n_terms: int) -> np.ndarray:
    """Slots whose term is true for their protein, or repeats an earlier slot's (row, term)."""
    keys = rows * n_terms + terms
    pos = np.searchsorted(true_keys, keys)
    bad = (pos < true_keys.size) & (true_keys[np.minimum(pos, true_keys.size - 1)] == keys)
    order = np.argsort(keys, kind="stable")
    repeat = np.zeros(keys.size, dtype=bool)
    repeat[order[1:]] = keys[order[1:]] == keys[order[:-1]]
    return bad | repeat


def _shuffle_false(rows: np.ndarray, terms: np.ndarray, true_keys: np.ndarray, n_terms: int,
                   rng: np.random.Generator, pool: np.ndarray) -> tuple[np.ndarray, int]:
    """The terms shuffled between the slots so that none is true for (or repeated on) its protein.

    Slots left invalid are re-shuffled with as many random other slots, for
    :data:`_ROUNDS` rounds; those still invalid then get a term drawn from
    ``pool`` (the namespace's leaf terms, so by frequency) until false.
    Returns the terms and how many were redrawn.
    """
    out = terms[rng.permutation(terms.size)]
    for _ in range(_ROUNDS):
        bad = np.flatnonzero(_invalid(rows, out, true_keys, n_terms))
        if bad.size == 0:
            return out, 0
        others = rng.choice(out.size, size=min(out.size, 2 * bad.size), replace=False)
        slots = np.unique(np.concatenate([bad, others]))
        out[slots] = out[slots][rng.permutation(slots.size)]
    bad = np.flatnonzero(_invalid(rows, out, true_keys, n_terms))
    replaced = int(bad.size)
    for _ in range(1000):
        if bad.size == 0:
            break
        out[bad] = pool[rng.integers(pool.size, size=bad.size)]
        bad = np.flatnonzero(_invalid(rows, out, true_keys, n_terms))
    if bad.size:
        raise GoevalError(f"the dilution series could not give {bad.size} proteins a term they are not annotated "
                          "with (do they hold every term of their namespace?).")
    return out, replaced


def _scores(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` scores drawn uniformly from 0.01, 0.02, ..., 1.00."""
    return rng.integers(1, _GRID + 1, size=n) / _GRID


def _annotations(truth: Annotations, rows: np.ndarray, terms: np.ndarray, scores: np.ndarray) -> Annotations:
    m = sp.csr_array((scores, (rows, terms)), shape=truth.matrix.shape)
    m.sort_indices()
    return Annotations(proteins=truth.proteins, matrix=m, ontology=truth.ontology)


@dataclass(kw_only=True)
class _Namespace:
    """One namespace's inputs of the construction."""

    rows: np.ndarray  # leaf pairs
    terms: np.ndarray
    true_keys: np.ndarray
    proteins: np.ndarray  # rows with truth in the namespace
    universe: np.ndarray  # terms of the propagated truth
    frequency: np.ndarray  # naive score of each universe term


def _namespace(truth: Annotations, true: Annotations, label: str) -> _Namespace | None:
    rows, terms = leaf_pairs(truth, label)
    if rows.size == 0:
        return None
    s = truth.ontology.namespace_slice(label)
    sub = true.matrix.tocsc()[:, s]
    counts = np.asarray(sub.sum(axis=0)).ravel()
    universe = np.flatnonzero(counts) + s.start
    proteins = np.unique(rows)
    return _Namespace(rows=rows, terms=terms, true_keys=_true_keys(true.matrix.tocsr(), truth.ontology.n_terms),
                      proteins=proteins, universe=universe, frequency=counts[universe - s.start] / proteins.size)


def _ap_pairs(ns: _Namespace, levels: np.ndarray, rng: np.random.Generator, n_terms: int,
              ) -> tuple[list[tuple[np.ndarray, np.ndarray]], int]:
    """One replicate's (rows, terms) per level: one permutation orders the kept pairs at every level."""
    n = ns.rows.size
    order = rng.permutation(n)
    out, replaced = [], 0
    for s in levels:
        k = int(round(float(s) * n))
        keep, noise = order[:k], order[k:]
        moved, r = _shuffle_false(ns.rows[noise], ns.terms[noise], ns.true_keys, n_terms, rng, ns.terms)
        replaced += r
        out.append((np.concatenate([ns.rows[keep], ns.rows[noise]]), np.concatenate([ns.terms[keep], moved])))
    return out, replaced


def _fp_pairs(ns: _Namespace, rng: np.random.Generator) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The FP sets' (rows, terms, scores) of one namespace."""
    u = ns.universe.size
    rows = np.repeat(ns.proteins, u)
    terms = np.tile(ns.universe, ns.proteins.size)
    out = {"naive": (rows, terms, np.tile(ns.frequency, ns.proteins.size)),
           "all_positive": (rows, terms, np.ones(rows.size))}
    per = np.bincount(ns.rows)[ns.proteins]
    take = np.minimum(per, u)
    r_rows = np.repeat(ns.proteins, take)
    # distinct random terms per protein: the first ``take`` of a random order of the universe, protein by protein
    keys = rng.random((ns.proteins.size, u)).argsort(axis=1) if ns.proteins.size * u <= 1 << 24 else None
    if keys is not None:
        mask = np.arange(u)[None, :] < take[:, None]
        r_terms = ns.universe[keys[mask]]
    else:
        r_terms = np.concatenate([ns.universe[rng.choice(u, size=t, replace=False)] for t in take])
    out["random"] = (r_rows, r_terms, _scores(rng, r_rows.size))
    return out


def dilution_series(truth: Annotations, *, levels: Sequence[float] = LEVELS, replicates: int = 5, seed: int = 0,
                    namespaces: Sequence[str] | None = None) -> DilutionSeries:
    """The AP sets of every signal level and replicate, and the FP sets, of a truth.

    Parameters
    ----------
    truth : Annotations
        The benchmark's truth (bool; propagated or not: each protein's most
        specific terms are used).
    levels : sequence of float
        Increasing signal levels in [0, 1] (default 0, 0.1, ..., 1).
    replicates : int
        AP sets per level (>= 1), each from its own permutation.
    seed : int
        Seed of the :class:`numpy.random.Generator`: the same seed gives the
        same sets.
    namespaces : sequence of str, optional
        Namespaces to build (default: every namespace with truth).

    Returns
    -------
    DilutionSeries

    Raises
    ------
    InvalidParameterError
        For levels that are not increasing in [0, 1], fewer than one
        replicate, or a truth holding scores.
    GoevalError
        When the truth has no annotation in the namespaces.

    Examples
    --------
    >>> import goeval
    >>> onto = goeval.ontology_from_edges([("b", "a"), ("c", "a"), ("d", "b"), ("e", "c")])
    >>> truth = goeval.Annotations.from_pairs(onto, ["p1", "p2"], ["d", "e"])
    >>> ads = dilution_series(truth, levels=[0, 1], replicates=1)
    >>> sorted(ads.sets)
    ['all_positive', 'naive', 'random', 's0_r1', 's1_r1']
    >>> onto.ids[ads.sets["s0_r1"].matrix.indices].tolist()  # signal 0: the terms swapped between proteins
    ['e', 'd']
    """
    lv = check_levels(levels)
    if not isinstance(replicates, (int, np.integer)) or replicates < 1:
        raise InvalidParameterError(f"The 'replicates' parameter of dilution_series must be an integer >= 1; "
                                    f"got {replicates!r}.")
    if truth.is_scores:
        raise InvalidParameterError("The 'truth' parameter of dilution_series must hold annotations (bool), not "
                                    "prediction scores.")
    onto: Ontology = truth.ontology
    true = truth if truth.propagated else propagate(truth)
    labels = list(onto.labels) if namespaces is None else [onto.labels[onto.namespace_index(n)] for n in namespaces]
    rng = np.random.default_rng(seed)
    parts = {lab: ns for lab in labels if (ns := _namespace(truth, true, lab)) is not None}
    if not parts:
        raise GoevalError(f"the truth has no annotation in {', '.join(labels)}: there is nothing to dilute.")
    names = {(i, r): f"s{lv[i]:g}_r{r + 1}" for r in range(replicates) for i in range(lv.size)}
    pieces: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
    diag: dict[str, Any] = {}
    for lab, ns in parts.items():
        replaced = 0
        for r in range(replicates):
            per_level, moved = _ap_pairs(ns, lv, rng, onto.n_terms)
            replaced += moved
            for i, (rows, terms) in enumerate(per_level):
                pieces.setdefault(names[i, r], []).append((rows, terms, _scores(rng, rows.size)))
        for name, piece in _fp_pairs(ns, rng).items():
            pieces.setdefault(name, []).append(piece)
        diag[lab] = {"proteins": int(ns.proteins.size), "leaf_pairs": int(ns.rows.size),
                     "benchmark_terms": int(ns.universe.size), "replaced": replaced}
    sets = {name: _annotations(truth, *(np.concatenate(x) for x in zip(*pieces[name])))
            for name in [*names.values(), *FP_SETS]}
    return DilutionSeries(sets=sets, signal={names[i, r]: float(lv[i]) for (i, r) in names},
                          replicate={names[i, r]: r + 1 for (i, r) in names}, levels=lv, diagnostics=diag)


def rank_correlation(signal: Sequence[float], values: Sequence[float]) -> float:
    """Spearman's rank correlation (average ranks for ties); nan when either side is constant or a value is nan.

    Examples
    --------
    >>> rank_correlation([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4])
    0.894...
    """
    from scipy.stats import rankdata

    x, y = np.asarray(signal, dtype=np.float64), np.asarray(values, dtype=np.float64)
    if x.size < 2 or not np.all(np.isfinite(y)):
        return float("nan")
    rx, ry = rankdata(x), rankdata(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    denom = np.sqrt((rx * rx).sum() * (ry * ry).sum())
    return float((rx * ry).sum() / denom) if denom > 0 else float("nan")


def false_positive_signal(levels: Sequence[float], medians: Sequence[float], value: float) -> float:
    """The signal level at which the AP sets' medians (oriented: higher is better) reach ``value``.

    The medians are joined linearly between levels. The result is the
    highest level ``s`` of that curve where it rises through ``value``: from
    the last level ``i`` whose median is ``<= value``, interpolated towards
    level ``i + 1``; the lowest level when every median exceeds ``value``,
    the highest level when the last median does not.

    Examples
    --------
    >>> false_positive_signal([0, 0.5, 1], [0.1, 0.3, 0.9], 0.6)
    0.75
    >>> false_positive_signal([0, 0.5, 1], [0.1, 0.3, 0.9], 0.05), false_positive_signal([0, 0.5, 1], [0.1, 0.3, 0.9], 1)
    (0.0, 1.0)
    """
    lv, md = np.asarray(levels, dtype=np.float64), np.asarray(medians, dtype=np.float64)
    if not np.isfinite(value) or not np.all(np.isfinite(md)):
        return float("nan")
    below = np.flatnonzero(md <= value)
    if below.size == 0:
        return float(lv[0])
    i = int(below[-1])
    if i == lv.size - 1:
        return float(lv[-1])
    step = md[i + 1] - md[i]
    return float(lv[i] + (value - md[i]) / step * (lv[i + 1] - lv[i]))


def _measure_rows(values: Any, levels: np.ndarray) -> list[dict[str, Any]]:
    """One table row per (namespace, measure) of the long ``values`` frame."""
    from goeval.metrics.registry import get_measure

    rows = []
    for (ns, name), part in values.groupby(["namespace", "measure"], sort=False):
        m = get_measure(name)
        sign = 1.0 if m.higher_is_better else -1.0
        ap = part[part["replicate"] > 0]
        fp = part[part["replicate"] == 0].set_index("set")["value"]
        medians = np.array([ap.loc[ap["signal"] == s, "value"].median() for s in levels])
        row: dict[str, Any] = {"namespace": ns, "measure": name, "label": m.display, "direction": m.direction,
                               "rc": rank_correlation(ap["signal"], sign * ap["value"].to_numpy())}
        fps = {s: false_positive_signal(levels, sign * medians, sign * float(fp[s])) if s in fp else float("nan")
               for s in FP_SETS}
        finite = [v for v in fps.values() if np.isfinite(v)]
        row["fps"] = max(finite) if finite else float("nan")
        row.update({f"fps_{s}": v for s, v in fps.items()})
        row["median_signal0"], row["median_signal1"] = float(medians[0]), float(medians[-1])
        row.update({s: float(fp[s]) if s in fp else float("nan") for s in FP_SETS})
        rows.append(row)
    return rows


def rate_measures(values: Any, levels: Sequence[float]) -> Any:
    """RC and FPS of every measure of a long table of set values (the ``values`` of :class:`MetricCheck`).

    Returns
    -------
    pandas.DataFrame
        The ``table`` of :class:`MetricCheck`: sorted by namespace, FPS
        (lowest first), then RC (highest first); an undefined FPS last.
    """
    import pandas as pd

    lv = check_levels(levels)
    table = pd.DataFrame(_measure_rows(values, lv))
    if table.empty:
        return table
    table["_nofps"] = table["fps"].isna()
    table = table.sort_values(["namespace", "_nofps", "fps", "rc", "measure"], ascending=[True, True, True, False,
                                                                                          True], kind="stable")
    return table.drop(columns="_nofps").reset_index(drop=True)


def _values(summary: Any, series: DilutionSeries) -> Any:
    """The long table of every set's value of every protein-centric optimum and area of the summary."""
    from goeval.metrics.registry import CURVE_REDUCTIONS, measures

    rated = [m.name for m in measures("protein") if m.reduce in CURVE_REDUCTIONS]
    part = summary[summary["measure"].isin(rated) & (summary["namespace"] != "all")]
    out = part[["namespace", "measure", "method", "value"]].rename(columns={"method": "set"}).copy()
    out["signal"] = out["set"].map(series.signal)
    out["replicate"] = out["set"].map(series.replicate).fillna(0).astype(int)
    order = {name: i for i, name in enumerate(rated)}
    out["_m"] = out["measure"].map(order)
    out = out.sort_values(["namespace", "_m", "replicate", "signal"], kind="stable").drop(columns="_m")
    return out[["namespace", "measure", "set", "signal", "replicate", "value"]].reset_index(drop=True)


def _not_rated(values: Any, with_ia: bool) -> dict[str, str]:
    """The registered protein-centric optima and areas without a value, and why."""
    from goeval.metrics.registry import CURVE_REDUCTIONS, SIMILARITY_MEASURES, measures
    from goeval.sweep import STAT_NAMES

    rated = set(values["measure"])
    similarity = {m.name for m in SIMILARITY_MEASURES}
    out = {}
    for m in measures("protein"):
        if m.reduce in CURVE_REDUCTIONS and m.name not in rated:
            out[m.name] = ("needs information accretion (--ia)" if m.needs_ia and not with_ia else
                           "a similarity measure not requested" if m.name in similarity else
                           "an optional measure not requested (measures)" if not set(m.sums()) <= set(STAT_NAMES)
                           else "no value in the summary")
    return out


def metric_check(ontology: Ontology, truth: Annotations, *, ia: np.ndarray | None = None,
                 levels: Sequence[float] = LEVELS, replicates: int = 5, seed: int = 0,
                 options: EvaluationOptions | None = None, ic_annotations: Annotations | None = None,
                 threads: int | None = None) -> MetricCheck:
    """The ADS of a benchmark: every registered protein-centric measure rated by RC and FPS.

    Parameters
    ----------
    ontology : Ontology
    truth : Annotations
        The benchmark's truth, on ``ontology``.
    ia : ndarray of shape (n_terms,), optional
        Information accretion; without it the measures that need it are not
        rated.
    levels, replicates, seed
        As for :func:`dilution_series`.
    options : EvaluationOptions, optional
        How every set is evaluated (:func:`goeval.evaluate`); default: every
        similarity measure with every pairing and every optional measure
        (``measures``: PAN-GO's non-redundant F) besides the other measures,
        no curves kept. Its ``namespaces`` are those diluted.
    ic_annotations : Annotations, optional
        Where the similarity measures' information content comes from
        (default: the truth, the only annotations a check has; the sets are
        built from it anyway).
    threads : int, optional
        Threads of the evaluation (the result does not depend on it).

    Returns
    -------
    MetricCheck

    Examples
    --------
    >>> import goeval
    >>> onto = goeval.ontology_from_edges([("b", "a"), ("c", "a"), ("d", "b"), ("e", "c"), ("f", "c")])
    >>> truth = goeval.Annotations.from_pairs(onto, ["p1", "p2", "p3"], ["d", "e", "f"])
    >>> mc = metric_check(onto, truth, levels=[0, 0.5, 1], replicates=2)  # doctest: +SKIP
    >>> mc.table.set_index("measure").loc["fmax", ["rc", "fps"]]  # doctest: +SKIP
    """
    from dataclasses import replace

    from goeval.api import evaluate
    from goeval.options import OPTIONAL_MEASURES, PAIRING_NAMES, SIMILARITY_NAMES

    opts = options if options is not None else EvaluationOptions(similarity=SIMILARITY_NAMES, pairings=PAIRING_NAMES,
                                                                 measures=OPTIONAL_MEASURES)
    series = dilution_series(truth, levels=levels, replicates=replicates, seed=seed, namespaces=opts.namespaces)
    if opts.similarity and ia is None and "wjaccard" in opts.similarity:
        opts = replace(opts, similarity=tuple(s for s in opts.similarity if s != "wjaccard") or None)
    opts = replace(opts, namespaces=tuple(series.diagnostics), curves="none")
    res = evaluate(ontology, truth, series.sets, options=opts, ia=ia, threads=threads,
                   ic_annotations=(ic_annotations if ic_annotations is not None else truth) if opts.similarity else None)
    values = _values(res.summary, series)
    diag = {"construction": series.diagnostics, "levels": series.levels.tolist(), "replicates": replicates,
            "seed": seed, "not_rated": _not_rated(values, ia is not None), "evaluation": res.diagnostics}
    return MetricCheck(table=rate_measures(values, series.levels), values=values, diagnostics=diag)
