"""Paired comparisons of methods on the same benchmark (CAFA's bootstrap "duels").

For two methods A and B of a namespace, on one protein-centric optimum
(``fmax`` by default) or similarity optimum (``wang_bma``, ``lin_max``...:
from the similarity sums kept per protein, resampled and swapped the same
way, :mod:`goeval.metrics.similarity_steps`):

* the difference ``A - B`` of the optima and its bootstrap percentile
  interval, every resample applied to both methods (the resamples of
  :mod:`goeval.stats.bootstrap`: same seed, same resamples);
* the fractions of resamples in which A is better, B is better, or they tie
  (better: higher for a max measure, lower for a min measure; a tie: the
  two optima within a relative 1e-12, the tolerance of the optimum itself);
* a paired permutation p-value: under the null hypothesis that the two
  methods are exchangeable on every protein, each protein's pair of
  per-protein contributions (its step functions under A and under B, over
  a common threshold set) is swapped with probability 1/2, independently;
  the statistic is ``|opt(A') - opt(B')|`` of the two mixed methods (each
  re-optimized over thresholds), and ``p = (1 + #{r : T_r >= T_obs}) /
  (1 + P)`` over P permutations (a ``T_r`` within a relative 1e-12 of
  ``T_obs`` counts as ``>=``);
* with more than two methods, every pair, the p-values adjusted by Holm's
  step-down method within each namespace, and the matrix of win fractions.

Both methods are put on the union of their thresholds; a method's step
functions do not change between its own thresholds, so its curves and
optimum are unchanged (the added thresholds repeat values).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property, partial
from itertools import combinations
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from goeval.errors import InvalidParameterError
from goeval.io.names import held_namespace
from goeval.metrics.registry import Measure
from goeval.progress import stage
from goeval.stats.bootstrap import check_bootstrap_parameters, percentile_interval, replicates_per_batch
from goeval.stats.replicates import (CurveSettings, curve_settings, held_measures, optima_of_stats, protein_optima,
                                     replicate_optima, sums_needed)
from goeval.stats.resample import resample_counts, resample_key, swap_flags
from goeval.sweep import ProteinSteps, SweepStats

__all__ = ["Comparison", "compare", "compare_terms", "holm", "PairedBlocks", "common_steps", "batched", "better", "pair_record",
           "set_holm", "chosen_methods", "compare_groups", "GroupPair",
           "PAIR_COLUMNS", "DUEL_COLUMNS", "GROUP_PAIR_COLUMNS"]

PAIR_COLUMNS = ("namespace", "measure", "method_a", "method_b", "value_a", "value_b", "difference", "ci_low",
                "ci_high", "se", "wins_a", "ties", "wins_b", "p_value", "p_holm", "n_resamples", "n_permutations")
DUEL_COLUMNS = ("namespace", "measure", "method", "opponent", "wins")

RTOL = 1e-12


@dataclass
class Comparison:
    """Result of :func:`compare`.

    Attributes
    ----------
    pairs : list of dict
        One record per (namespace, pair of methods) (:data:`PAIR_COLUMNS`).
    duels : list of dict
        One record per (namespace, method, opponent): the fraction of
        resamples in which ``method`` beats ``opponent`` (:data:`DUEL_COLUMNS`).
    measure : str
    """

    pairs: list[dict[str, Any]] = field(default_factory=list)
    duels: list[dict[str, Any]] = field(default_factory=list)
    measure: str = "fmax"

    def duel_matrix(self, namespace: str) -> tuple[list[str], np.ndarray]:
        """Methods and the (k, k) matrix of win fractions (row beats column; NaN on the diagonal).

        Raises
        ------
        InvalidParameterError
            A namespace without duels (:func:`~goeval.io.names.held_namespace`: the message lists those held).
        """
        namespace = held_namespace(namespace, list(dict.fromkeys(r["namespace"] for r in self.duels)), "duel_matrix")
        rows = [r for r in self.duels if r["namespace"] == namespace]
        names = list(dict.fromkeys(r["method"] for r in rows))
        mat = np.full((len(names), len(names)), np.nan)
        pos = {m: i for i, m in enumerate(names)}
        for r in rows:
            mat[pos[r["method"]], pos[r["opponent"]]] = r["wins"]
        return names, mat


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjustment: ``p_(i) -> max_{j <= i} min(1, (m - j + 1) p_(j))``.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=np.float64)
    order = np.argsort(p, kind="stable")
    m = p.size
    adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj
    return out


def better(a: np.ndarray, b: np.ndarray, direction: str) -> tuple[np.ndarray, np.ndarray]:
    """(a better than b, tie) element-wise; NaN on either side is neither."""
    tol = RTOL * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
    d = a - b if direction == "max" else b - a
    with np.errstate(invalid="ignore"):
        return d > tol, np.abs(d) <= tol


def common_steps(blocks: dict[str, ProteinSteps], label: str) -> dict[str, ProteinSteps]:
    """Every method's steps over the union of their thresholds (same benchmark proteins required)."""
    first = next(iter(blocks.values()))
    for name, s in blocks.items():
        if s.proteins is None or not np.array_equal(s.proteins, first.proteins):
            raise InvalidParameterError(f"The methods compared in {label} must share the benchmark proteins; "
                                        f"{name!r} differs.")
    union = np.unique(np.concatenate([s.thresholds for s in blocks.values()]))
    return {k: (s if np.array_equal(s.thresholds, union) else s.rebinned(union)) for k, s in blocks.items()}


def batched(fn: Callable[[int, int], dict[str, Any]], total: int, size: int, threads: int | None,
            what: str = "resamples", label: str = "") -> dict[str, Any]:
    """``fn(start, stop)`` over ``[0, total)`` in batches of ``size`` (in threads), each value concatenated
    along its first axis (tuples of arrays element by element); a progress stage (``label``) counts ``what``."""
    ranges = [(s, min(total, s + size)) for s in range(0, total, size)]
    if not ranges:
        return {}
    workers = max(1, min(threads or os.cpu_count() or 1, len(ranges)))
    with stage(f"{label + ': ' if label else ''}{total:,} {what}", total=total, unit=what.rstrip("s"), unit_scale=True) as st, \
            ThreadPoolExecutor(max_workers=workers) as pool:
        parts = []
        for (lo, hi), part in zip(ranges, pool.map(lambda r: fn(*r), ranges)):
            parts.append(part)
            st.update(hi - lo)

    def cat(values: list[Any]) -> Any:
        if isinstance(values[0], tuple):
            return tuple(np.concatenate(x) for x in zip(*values))
        return np.concatenate(values)

    return {k: cat([p[k] for p in parts]) for k in parts[0]}


@dataclass(kw_only=True)
class PairedBlocks:
    """The blocks of several methods in one namespace, on the same benchmark proteins and one common threshold
    set: their optima under the shared bootstrap resamples and under paired permutations.

    Attributes
    ----------
    label : str
        The namespace (it keys the resamples, with the proteins).
    steps : dict of str to ProteinSteps
        Per method, over the same thresholds (:func:`common_steps`).
    measure : Measure
        A protein-centric optimum.
    settings : CurveSettings
    names : tuple of str
        The sums the optimum reads (:func:`~goeval.stats.replicates.sums_needed`).
    """

    label: str
    steps: dict[str, ProteinSteps]
    measure: Measure
    settings: CurveSettings
    names: tuple[str, ...]

    @classmethod
    def of(cls, label: str, blocks: dict[str, ProteinSteps], measure: Measure,
           settings: CurveSettings) -> "PairedBlocks":
        """The methods' blocks ``blocks`` (method -> steps) paired, on the union of their thresholds (a
        similarity optimum needs every method's per-protein similarity statistics)."""
        for m, s in blocks.items():
            held_measures(s, [measure.name], True, f"{m} in {label}")
        return cls(label=label, steps=common_steps(blocks, label), measure=measure, settings=settings,
                   names=sums_needed([measure], settings))

    @property
    def n(self) -> int:
        return next(iter(self.steps.values())).n_proteins

    @property
    def key(self) -> tuple[int, ...]:
        return resample_key(self.label, next(iter(self.steps.values())).proteins)

    def optima(self, st: SweepStats) -> np.ndarray:
        return optima_of_stats(st, [self.measure], self.settings)[self.measure.name]

    def resampled(self, seed: int, start: int, stop: int) -> dict[str, np.ndarray]:
        w = resample_counts(seed, self.key, self.n, start, stop)
        return {m: self.optima(s.stats(w, self.names)) for m, s in self.steps.items()}

    def mixed(self, seed: int, start: int, stop: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """``(opt(A'), opt(B'))`` of every pair under swaps ``start .. stop - 1`` (keys ``"A\\0B"``): A' has
        A's contributions where a protein is not swapped and B's where it is, B' the others."""
        swap = swap_flags(seed, self.key, self.n, start, stop)
        keep = 1.0 - swap
        on = {m: (s.stats(keep, self.names), s.stats(swap, self.names)) for m, s in self.steps.items()}
        return {f"{a}\0{b}": (self.optima(on[a][0] + on[b][1]), self.optima(on[a][1] + on[b][0]))
                for a, b in combinations(self.steps, 2)}

    def permuted(self, seed: int, start: int, stop: int) -> dict[str, np.ndarray]:
        """``|opt(A') - opt(B')|`` of every pair under swaps ``start .. stop - 1`` (keys ``"A\\0B"``)."""
        return {k: np.abs(a - b) for k, (a, b) in self.mixed(seed, start, stop).items()}


def pair_record(label: str, measure: Measure, a: str, b: str, point: dict[str, float], boot: dict[str, np.ndarray],
                perm: dict[str, np.ndarray], confidence: float) -> dict[str, Any]:
    """One row of :data:`PAIR_COLUMNS`: methods ``a`` and ``b`` with their point values, bootstrap replicates
    (the same resamples) and permutation statistics ``perm["a\\0b"]`` (``p_holm`` left NaN)."""
    va, vb = point[a], point[b]
    lo, hi, se, _bad = percentile_interval(boot[a] - boot[b], confidence)
    win, tie = better(boot[a], boot[b], measure.direction)
    lose, _ = better(boot[b], boot[a], measure.direction)
    defined = max(1, int((np.isfinite(boot[a]) & np.isfinite(boot[b])).sum()))
    p = float("nan")
    t = perm.get(f"{a}\0{b}")
    if t is not None and t.size:
        obs = abs(va - vb)
        p = float((1 + np.count_nonzero(t >= obs - RTOL * max(1.0, obs))) / (1 + t.size))
    return {"namespace": label, "measure": measure.name, "method_a": a, "method_b": b, "value_a": va,
            "value_b": vb, "difference": va - vb, "ci_low": lo, "ci_high": hi, "se": se,
            "wins_a": float(win.sum() / defined), "ties": float(tie.sum() / defined),
            "wins_b": float(lose.sum() / defined),
            "p_value": p, "p_holm": float("nan"), "n_resamples": int(boot[a].size),
            "n_permutations": 0 if t is None else int(t.size)}


def set_holm(pairs: list[dict[str, Any]]) -> None:
    """Fill ``p_holm`` of the rows with a p-value: Holm's adjustment over them (in place)."""
    ok = [r for r in pairs if np.isfinite(r["p_value"])]
    for r, q in zip(ok, holm([r["p_value"] for r in ok])):
        r["p_holm"] = float(q)


def _compare_namespace(ns: PairedBlocks, n_resamples: int, permutations: int, seed: int, confidence: float,
                       threads: int | None, batch_size: int | None) -> tuple[list[dict], list[dict]]:
    ones = np.ones((1, ns.n))
    point = {m: float(replicate_optima(s, ones, [ns.measure], ns.settings)[ns.measure.name][0])
             for m, s in ns.steps.items()}
    for s in ns.steps.values():  # build the cached product operands before the threads share them
        s.stats(ones, ns.names)
    size = replicates_per_batch(next(iter(ns.steps.values())).thresholds.size, batch_size)
    what = f"compare {ns.label} {ns.measure.name}"
    boot = batched(lambda s0, s1: ns.resampled(seed, s0, s1), n_resamples, size, threads, label=what)
    perm = batched(lambda s0, s1: ns.permuted(seed, s0, s1), permutations, size, threads, "permutations", what)
    pairs = [pair_record(ns.label, ns.measure, a, b, point, boot, perm, confidence)
             for a, b in combinations(ns.steps, 2)]
    set_holm(pairs)
    return pairs, _duels(ns.label, ns.measure, boot)


def _duels(label: str, measure: Measure, boot: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """The rows of :data:`DUEL_COLUMNS` of every ordered pair of the methods of ``boot`` (their replicates)."""
    duels = []
    for a in boot:
        for b in boot:
            if a != b:
                win, _tie = better(boot[a], boot[b], measure.direction)
                defined = max(1, int((np.isfinite(boot[a]) & np.isfinite(boot[b])).sum()))
                duels.append({"namespace": label, "measure": measure.name, "method": a, "opponent": b,
                              "wins": float(win.sum() / defined)})
    return duels


def chosen_methods(known: Sequence[str], methods: Sequence[str] | None) -> list[str]:
    """The methods compared: ``methods`` (at least two distinct ones among ``known``), default all of ``known``.

    Raises
    ------
    InvalidParameterError
        Fewer than two methods evaluated (said as such when no method was named), or ``methods`` naming an
        unknown method, a method twice or fewer than two.

    Examples
    --------
    >>> chosen_methods(["A", "B", "C"], None), chosen_methods(["A", "B", "C"], ["C", "A"])
    (['A', 'B', 'C'], ['C', 'A'])
    >>> chosen_methods(["BLAST"], None)
    Traceback (most recent call last):
    ...
    goeval.errors.InvalidParameterError: A comparison needs at least two methods evaluated in one run; the statistics hold one method, 'BLAST': evaluate the methods to compare together (with a bootstrap: goeval evaluate --bootstrap B; goeval retrieval --bootstrap B for the term-centric measures).
    """
    known = list(known)
    if methods is None and len(known) < 2:
        held = f"one method, {known[0]!r}" if known else "no method"
        raise InvalidParameterError(f"A comparison needs at least two methods evaluated in one run; the statistics hold "
                                    f"{held}: evaluate the methods to compare together (with a bootstrap: goeval "
                                    "evaluate --bootstrap B; goeval retrieval --bootstrap B for the term-centric "
                                    "measures).")
    chosen = known if methods is None else list(methods)
    if any(m not in known for m in chosen) or len(set(chosen)) < 2 or len(set(chosen)) != len(chosen):
        raise InvalidParameterError(f"The 'methods' parameter of compare must name at least two distinct methods "
                                    f"among {known}; got {chosen}.")
    return chosen


def _select(stats: Mapping[tuple[str, str], SweepStats], methods: Sequence[str] | None) -> dict[str, dict[str, ProteinSteps]]:
    chosen = chosen_methods(list(dict.fromkeys(m for m, _ in stats)), methods)
    out: dict[str, dict[str, ProteinSteps]] = {}
    for (m, label), st in stats.items():
        if m in chosen:
            if st.protein_steps is None:
                raise InvalidParameterError(f"The statistics of {m!r} in {label} carry no per-protein statistics; "
                                            "evaluate with bootstrap or per_protein=True.")
            out.setdefault(label, {})[m] = st.protein_steps
    return {label: {m: d[m] for m in chosen if m in d} for label, d in out.items()}


def compare(
    result: Any,
    methods: Sequence[str] | None = None,
    measure: str = "fmax",
    *,
    n_resamples: int = 10_000,
    permutations: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    options: Any = None,
    with_ia: bool | None = None,
    threads: int | None = None,
    batch_size: int | None = None,
) -> Comparison:
    """Paired comparison of methods per namespace (see the module docstring).

    Parameters
    ----------
    result : EvaluationResult or mapping of (method, namespace) to SweepStats
        Statistics with their per-protein statistics (an evaluation with
        ``bootstrap``, ``namespace_stats(..., per_protein=True)``, or
        :func:`goeval.stats.read_protein_stats`).
    methods : sequence of str, optional
        At least two methods, in the order of the pairs (default: all).
    measure : str, default 'fmax'
        A protein-centric optimum (``fmax``, ``wfmax``, ``fmax_micro``, ``smin``, ``wsmin``, ...) or a
        similarity optimum the statistics hold per protein (``wang_bma``, ``lin_max``, ``jaccard``...).
    n_resamples : int, default 10000
        Bootstrap resamples (the same as :func:`goeval.stats.bootstrap` draws for this seed).
    permutations : int, default 10000
        Paired permutations (0: no p-values).
    seed : int, default 0
    confidence : float, default 0.95
    options, with_ia
        Curve options (default: those recorded in ``result``).
    threads, batch_size
        Parallel batches (no effect on the values).

    Returns
    -------
    Comparison
        Namespaces where fewer than two of the methods were evaluated are skipped.

    Examples
    --------
    >>> import goeval
    >>> from goeval.evaluation import namespace_stats
    >>> onto = goeval.load_ontology(goeval.example_path("ontology"))
    >>> truth = goeval.load_annotations(goeval.example_path("truth"), onto)
    >>> blast = goeval.load_predictions(goeval.example_path("predictions"), onto)
    >>> stats = namespace_stats(onto, truth, {"A": blast, "B": blast}, per_protein=True)
    >>> row = compare(stats, n_resamples=100, permutations=100, with_ia=False).pairs[0]
    >>> row["difference"], row["ties"], row["p_value"]
    (0.0, 1.0, 1.0)
    """
    n_resamples, seed, confidence = check_bootstrap_parameters(n_resamples, seed, confidence, "compare")
    if isinstance(permutations, bool) or not isinstance(permutations, (int, np.integer)) or permutations < 0:
        raise InvalidParameterError(f"The 'permutations' parameter of compare must be an integer >= 0; got {permutations!r}.")
    # a whole-curve value (ece, brier) on the pair's union of thresholds is the method's own: its sums are
    # cumulative, and no score lies between a threshold of its own and the next one of the union
    ms = protein_optima([measure], whole=True)[0]
    stats = result.stats if hasattr(result, "stats") else result
    settings = curve_settings(result, options, with_ia) if hasattr(result, "diagnostics") else \
        CurveSettings.from_options(options or {}, True if with_ia is None else with_ia)
    if ms.needs_ia and not settings.with_ia:
        raise InvalidParameterError(f"The measure {ms.name!r} needs information accretion; the statistics have none.")
    out = Comparison(measure=ms.name)
    for label, blocks in _select(stats, methods).items():
        if len(blocks) < 2:
            continue
        ns = PairedBlocks.of(label, blocks, ms, settings)
        pairs, duels = _compare_namespace(ns, n_resamples, int(permutations), seed, confidence, threads, batch_size)
        out.pairs += pairs
        out.duels += duels
    return out


def compare_terms(replicates: Any, methods: Sequence[str] | None = None, measure: str = "roc_auc", *,
                  confidence: float | None = None) -> Comparison:
    """Paired comparison of methods on a term-centric measure, from the replicates of ``goeval retrieval
    --bootstrap`` (:class:`goeval.stats.term_bootstrap.TermReplicates`).

    Every method of a namespace was resampled with the same draws of the benchmark proteins (one resample key),
    so the replicates pair up one by one: the difference ``A - B`` with its percentile interval, the shares of
    replicates each method wins, and the duels, as :func:`compare`. There is no permutation p-value
    (``p_value`` NaN, ``n_permutations`` 0): a swap of a protein's two methods changes every term's ranking, which
    the stored values cannot give.

    Parameters
    ----------
    replicates : TermReplicates
        E.g. ``result.replicates`` of :func:`goeval.evaluation.terms.evaluate_terms` with ``bootstrap``, or
        :func:`goeval.stats.store.read_term_replicates`.
    methods : sequence of str, optional
        At least two methods (default: all).
    measure : str, default 'roc_auc'
        A term-centric measure (``roc_auc``, ``average_precision``, ``tap_20``, ``ipr_auc``, ...;
        :func:`goeval.stats.term_bootstrap.term_column`).
    confidence : float, optional
        Coverage of the interval (default: the run's).

    Raises
    ------
    InvalidParameterError
        Methods of one namespace resampled with different proteins, or a measure the replicates do not hold.
    """
    from goeval.stats.term_bootstrap import term_column

    conf = replicates.confidence if confidence is None else check_bootstrap_parameters(
        replicates.n_resamples, replicates.seed, confidence, "compare")[2]
    ms, column = term_column(measure, replicates.columns)
    j = replicates.columns.index(column)
    chosen = chosen_methods(list(dict.fromkeys(m for m, _ in replicates.blocks)), methods)
    spaces: dict[str, dict[str, int]] = {}
    for i, (m, label) in enumerate(replicates.blocks):
        if m in chosen:
            spaces.setdefault(label, {})[m] = i
    out = Comparison(measure=ms.name)
    for label, at in spaces.items():
        at = {m: at[m] for m in chosen if m in at}
        if len(at) < 2:
            continue
        if len({replicates.keys[i] for i in at.values()}) > 1:
            raise InvalidParameterError(f"The methods compared in {label} must share the benchmark proteins (one "
                                        "resample key); they were resampled with different proteins.")
        point = {m: float(replicates.points[i][j]) for m, i in at.items()}
        boot = {m: replicates.values[i][j] for m, i in at.items()}
        out.pairs += [pair_record(label, ms, a, b, point, boot, {}, conf) for a, b in combinations(at, 2)]
        out.duels += _duels(label, ms, boot)
    return out


# ------------------------------------------------------------ one method, a group against another
@dataclass(kw_only=True)
class GroupPair:
    """One method's blocks of two groups in one namespace: the strata of their proteins and the resamples.

    The proteins fall into three strata: A's alone, those of both, B's
    alone. A resample draws each stratum with replacement, its own size
    (keyed by the namespace and the stratum's proteins, as
    :mod:`goeval.stats.resample` keys a benchmark); group A's replicate
    weighs its proteins by the counts of its two strata, B's by the counts of
    its own, so a shared protein counts the same in both (paired) and the
    others are drawn independently (unpaired). Disjoint groups: each
    group's resamples are those of its own bootstrap (same seed); the same
    proteins: fully paired.

    Attributes
    ----------
    label : str
    a, b : ProteinSteps
        The method's per-protein statistics in group A and in group B.
    measure : Measure
    settings : CurveSettings
    """

    label: str
    a: ProteinSteps
    b: ProteinSteps
    measure: Measure
    settings: CurveSettings

    @cached_property
    def strata(self) -> list[tuple[tuple[int, ...], np.ndarray, np.ndarray]]:
        """``(key, positions in A, positions in B)`` of every non-empty stratum (-1: not in that group)."""
        pa, pb = np.asarray(self.a.proteins).astype(str), np.asarray(self.b.proteins).astype(str)
        in_b = {p: i for i, p in enumerate(pb.tolist())}
        at_b = np.array([in_b.get(p, -1) for p in pa.tolist()], dtype=np.int64)
        shared = at_b >= 0
        only_b = np.flatnonzero(~np.isin(pb, pa[shared]))
        parts = [(pa[~shared], np.flatnonzero(~shared), np.full(int((~shared).sum()), -1)),
                 (pa[shared], np.flatnonzero(shared), at_b[shared]),
                 (pb[only_b], np.full(only_b.size, -1), only_b)]
        return [(resample_key(self.label, proteins), ia, ib) for proteins, ia, ib in parts if proteins.size]

    @property
    def shared(self) -> int:
        """How many proteins the two groups share."""
        return sum(int((ia >= 0).sum()) for _k, ia, ib in self.strata if (ib >= 0).any())

    def resampled(self, seed: int, start: int, stop: int) -> dict[str, np.ndarray]:
        """The optima of A and of B under resamples ``start .. stop - 1`` (keys ``"a"``, ``"b"``)."""
        wa, wb = np.zeros((stop - start, self.a.n_proteins)), np.zeros((stop - start, self.b.n_proteins))
        for key, ia, ib in self.strata:
            w = resample_counts(seed, key, ia.size, start, stop)
            wa[:, ia[ia >= 0]] = w[:, ia >= 0]
            wb[:, ib[ib >= 0]] = w[:, ib >= 0]
        return {side: replicate_optima(s, w, [self.measure], self.settings)[self.measure.name]
                for side, s, w in (("a", self.a, wa), ("b", self.b, wb))}


GROUP_PAIR_COLUMNS = ("namespace", "measure", "method", "group_a", "group_b", "proteins_a", "proteins_b",
                      "proteins_shared", "value_a", "value_b", "difference", "ci_low", "ci_high", "se", "wins_a", "ties",
                      "wins_b", "n_resamples")


def _group_record(pair: GroupPair, method: str, names: tuple[str, str], boot: dict[str, np.ndarray],
                  confidence: float) -> dict[str, Any]:
    point = {side: float(replicate_optima(s, np.ones((1, s.n_proteins)), [pair.measure], pair.settings)
                         [pair.measure.name][0]) for side, s in (("a", pair.a), ("b", pair.b))}
    rec = pair_record(pair.label, pair.measure, "a", "b", point, boot, {}, confidence)
    rec.update(method=method, group_a=names[0], group_b=names[1], proteins_a=pair.a.n_proteins,
               proteins_b=pair.b.n_proteins, proteins_shared=pair.shared)
    return {c: rec[c] for c in GROUP_PAIR_COLUMNS}


def compare_groups(
    a: Any,
    b: Any,
    methods: Sequence[str] | None = None,
    measure: str = "fmax",
    *,
    names: tuple[str, str] = ("A", "B"),
    n_resamples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    options: Any = None,
    with_ia: bool | None = None,
    threads: int | None = None,
    batch_size: int | None = None,
) -> list[dict[str, Any]]:
    """Each method of two groups, the one against the other: the difference of its optima with a bootstrap interval.

    The bootstrap is paired over the proteins the groups share and unpaired
    over the others (:class:`GroupPair`); there is no permutation p-value
    (a permutation swaps a protein's two methods: between groups, read the
    interval).

    Parameters
    ----------
    a, b : EvaluationResult or mapping of (method, namespace) to SweepStats
        The two groups' statistics with their per-protein statistics (e.g.
        ``result.groups["human"]`` of an evaluation with ``bootstrap``, or
        :func:`goeval.stats.read_protein_stats` of ``groups/NAME/``).
    methods : sequence of str, optional
        The methods compared (default: every method of both groups).
    measure : str, default 'fmax'
        A protein-centric optimum.
    names : (str, str), default ('A', 'B')
        The groups' names, written in the records.
    n_resamples, seed, confidence
        The bootstrap (:mod:`goeval.stats.resample`).
    options, with_ia
        Curve options (default: those recorded in ``a``).
    threads, batch_size
        Parallel batches (no effect on the values).

    Returns
    -------
    list of dict
        One record per (namespace, method) evaluated in both groups
        (:data:`GROUP_PAIR_COLUMNS`); ``difference`` = ``value_a -
        value_b``, ``wins_a`` the share of resamples in which the method does
        better on A.

    Raises
    ------
    InvalidParameterError
        A method named that is not in both groups, or statistics without per-protein statistics.
    """
    n_resamples, seed, confidence = check_bootstrap_parameters(n_resamples, seed, confidence, "compare_groups")
    ms = protein_optima([measure])[0]
    sa, sb = (getattr(x, "stats", None) if hasattr(x, "stats") else x for x in (a, b))
    if sa is None or sb is None:
        raise InvalidParameterError("compare_groups needs the groups' statistics: evaluate with bootstrap (or "
                                    "per_protein=True), or read groups/NAME/protein_stats.npz.")
    settings = curve_settings(a, options, with_ia) if hasattr(a, "diagnostics") else \
        CurveSettings.from_options(options or {}, True if with_ia is None else with_ia)
    if ms.needs_ia and not settings.with_ia:
        raise InvalidParameterError(f"The measure {ms.name!r} needs information accretion; the statistics have none.")
    both = [m for m in dict.fromkeys(m for m, _ in sa) if m in {m for m, _ in sb}]
    chosen = both if methods is None else list(methods)
    if not chosen or any(m not in both for m in chosen):
        raise InvalidParameterError(f"The 'methods' parameter of compare_groups must name methods evaluated in both "
                                    f"groups ({both}); got {chosen}.")
    out = []
    for (method, label), st in sa.items():
        other = sb.get((method, label))
        if method not in chosen or other is None:
            continue
        if st.protein_steps is None or other.protein_steps is None:
            raise InvalidParameterError(f"The statistics of {method!r} in {label} carry no per-protein statistics; "
                                        "evaluate with bootstrap or per_protein=True.")
        pair = GroupPair(label=label, a=st.protein_steps, b=other.protein_steps, measure=ms, settings=settings)
        _ = pair.strata  # found once, before the threads share them
        size = replicates_per_batch(max(st.protein_steps.thresholds.size, other.protein_steps.thresholds.size),
                                    batch_size)
        boot = batched(partial(pair.resampled, seed), n_resamples, size, threads,
                       label=f"compare {label} {method}: {names[0]} against {names[1]}")
        out.append(_group_record(pair, method, names, boot, confidence))
    return out
