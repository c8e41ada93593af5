"""Optima of many protein weightings at once (bootstrap and permutation replicates).

A replicate is a weight vector over a namespace's benchmark proteins. Its
curves are those of :func:`goeval.metrics.protein.protein_curves` computed
from the weighted sums (:meth:`goeval.sweep.ProteinSteps.stats`), and its
optimum is taken as in the summary (:func:`goeval.metrics.protein.best_index`:
the thresholds with at least one covered protein *in that replicate*, ties
within a relative 1e-12 to the lowest threshold), so the threshold is
re-optimized in every replicate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np

from goeval.errors import InvalidParameterError
from goeval.metrics.protein import aupr_score, curve_values, protein_curves
from goeval.metrics.registry import CURVE_REDUCTIONS, SIMILARITY_MEASURES, Measure, derived_columns, get_measure
from goeval.sweep import STAT_DEFINITIONS, STAT_NAMES, ProteinSteps, SweepStats

__all__ = ["CurveSettings", "curve_settings", "sums_needed", "held_measures", "protein_optima", "replicate_optima", "row_optima", "row_best", "row_areas",
           "optima_of_stats"]


@dataclass(frozen=True, kw_only=True)
class CurveSettings:
    """How curves are averaged: the curve options of an evaluation.

    Parameters
    ----------
    normalization : {'cafa', 'pred', 'gt', 'cafa-pk'}
    k : float
        Order of ``S_k``.
    protein_weighting : {'none', 'information'}
    with_ia : bool
        Whether the statistics carry information accretion.
    calibration_bins : int
        Bins of the calibration measures (``ece``, ``wece``).
    """

    normalization: str = "cafa"
    k: float = 2.0
    protein_weighting: str = "none"
    with_ia: bool = True
    calibration_bins: int = 10

    @classmethod
    def from_options(cls, options: Any, with_ia: bool) -> "CurveSettings":
        """From an :class:`~goeval.options.EvaluationOptions` or its ``as_dict()`` (a run recorded before an
        option existed gets its default)."""
        get = options.get if isinstance(options, dict) else lambda k, d=None: getattr(options, k, d)
        return cls(normalization=get("normalization", "cafa"), k=float(get("k", 2.0)),
                   protein_weighting=get("protein_weighting", "none"), with_ia=bool(with_ia),
                   calibration_bins=int(get("calibration_bins", 10)))


def curve_settings(result: Any, options: Any = None, with_ia: bool | None = None) -> CurveSettings:
    """The curve settings of an evaluation result (``options`` and ``with_ia`` override what it recorded)."""
    opts = options if options is not None else result.diagnostics.get("options", {})
    if with_ia is None:
        with_ia = bool(opts.get("ia", True)) if isinstance(opts, dict) else True
    return CurveSettings.from_options(opts, with_ia)


def sums_needed(measures: Iterable[Measure], settings: CurveSettings) -> tuple[str, ...]:
    """The sums the optima of ``measures`` depend on: :data:`~goeval.sweep.STAT_DEFINITIONS` (in that order), then
    the similarity columns of the similarity optima.

    Each measure says which sums its column reads (:meth:`Measure.sums`); a
    similarity optimum reads its own column of the similarity sums and
    ``covered``, which says at which thresholds an optimum is taken.
    """
    need: set[str] = set()
    columns: list[str] = []
    for ms in measures:
        if ms in SIMILARITY_MEASURES:
            need.add("covered")
            columns.append(ms.column)
        else:
            need.update(ms.sums(settings.normalization, settings.protein_weighting))
    return tuple(k for k in STAT_DEFINITIONS if k in need) + tuple(dict.fromkeys(columns))


def held_measures(steps: ProteinSteps, names: Iterable[str], asked: bool, where: str) -> list[str]:
    """``names`` but the similarity optima whose column ``steps`` do not hold (similarity measures not
    evaluated); with ``asked`` (named by the caller) such a measure is an error instead.

    Raises
    ------
    InvalidParameterError
        ``asked`` and a similarity optimum without per-protein similarity statistics in ``where``.
    """
    held = set(() if steps.similarity is None else steps.similarity.columns)
    sims = {m.name: m.column for m in SIMILARITY_MEASURES}
    names = list(names)
    lacking = [x for x in names if x in sims and sims[x] not in held]
    if lacking and asked:
        raise InvalidParameterError(
            f"The statistics of {where} hold no per-protein similarity statistics of {', '.join(lacking)}: evaluate "
            "with that similarity measure and a bootstrap (goeval evaluate --similarity ... --bootstrap B; a "
            "protein_stats.npz written before similarity optima had intervals holds none).")
    return [x for x in names if x not in lacking]


def protein_optima(names: Iterable[str | Measure], *, areas: bool = False, whole: bool = False) -> list[Measure]:
    """The registered protein-centric optima named (or given), checked; with ``areas``, the areas and the
    whole-curve values too (``aupr``, ``ece``: :data:`~goeval.metrics.registry.CURVE_REDUCTIONS`); with ``whole``,
    the whole-curve values (``reduce='curve'``) but not the areas.

    Raises
    ------
    InvalidParameterError
        For a name that is not a protein-centric optimum (or area, or whole-curve value).
    """
    out = []
    reduces = CURVE_REDUCTIONS if areas else ("optimum", "curve") if whole else ("optimum",)
    for x in names:
        ms = x if isinstance(x, Measure) else get_measure(x)
        if ms.kind != "protein" or ms.reduce not in reduces:
            raise InvalidParameterError(
                f"The 'measures' parameter must name protein-centric optima (e.g. fmax, smin{', aupr' if areas else ''}"
                f"{', ece' if areas or whole else ''}); got {ms.name!r}.")
        out.append(ms)
    return out


def row_optima(values: np.ndarray, valid: np.ndarray, direction: str, rtol: float = 1e-12) -> np.ndarray:
    """Optimum of every row, as :func:`~goeval.metrics.protein.best_index` takes it.

    Parameters
    ----------
    values, valid : ndarray of shape (B, m)
    direction : {'max', 'min'}

    Returns
    -------
    ndarray of float64, shape (B,)
        ``values[b, i]`` at the lowest ``i`` within ``rtol`` (relative, at
        least absolute ``rtol``) of the row's optimum over its valid finite
        values; NaN for a row without any.
    """
    v = np.asarray(values, dtype=np.float64)
    idx, found = row_best(v, valid, direction, rtol)
    out = v[np.arange(v.shape[0]), idx]
    out[~found] = np.nan
    return out


def row_best(values: np.ndarray, valid: np.ndarray, direction: str,
             rtol: float = 1e-12, ties: str = "low") -> tuple[np.ndarray, np.ndarray]:
    """The index of every row's optimum as :func:`row_optima` takes it (``ties='high'``: the highest of the
    tied thresholds, as :func:`~goeval.metrics.protein.best_index`), and whether the row has one.

    Returns
    -------
    idx : ndarray of int64, shape (B,)
    found : ndarray of bool, shape (B,)
    """
    v = np.asarray(values, dtype=np.float64)
    ok = valid & np.isfinite(v)
    fill = -np.inf if direction == "max" else np.inf
    masked = np.where(ok, v, fill)
    best = masked.max(axis=1) if direction == "max" else masked.min(axis=1)
    tol = rtol * np.maximum(1.0, np.abs(best))
    with np.errstate(invalid="ignore"):
        near = ok & (np.abs(v - best[:, None]) <= tol[:, None])
    if ties == "high":
        return near.shape[1] - 1 - near[:, ::-1].argmax(axis=1), near.any(axis=1)
    return near.argmax(axis=1), near.any(axis=1)


def _at_optimum(cur: Mapping[str, np.ndarray], ms: Measure, valid: np.ndarray) -> np.ndarray:
    """Every row's ``ms.column`` at the optimum of the measure ``ms.at`` in that row (NaN where it has none)."""
    ref = get_measure(ms.at)
    idx, found = row_best(cur[ref.column], valid, ref.direction, ties=ref.ties)
    out = np.asarray(cur[ms.column], dtype=np.float64)[np.arange(idx.size), idx]
    out[~found] = np.nan
    return out


def row_areas(recall: np.ndarray, precision: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """The area of every row as the summary takes it: :func:`~goeval.metrics.protein.aupr_score` over the row's
    valid thresholds, the same bits; NaN for a row without any.

    The valid thresholds of a row are a prefix (coverage falls as the
    threshold rises), so the rows with the same number of them are added
    at once, each row's terms in aupr_score's order; a row whose valid
    thresholds are not a prefix is taken on its own.

    Parameters
    ----------
    recall, precision, valid : ndarray of shape (B, m)

    Examples
    --------
    >>> r, p = np.array([[0.8, 0.5, 0.2], [0.8, 0.5, 0.2]]), np.array([[0.4, 0.3, 0.9], [0.4, 0.3, 0.9]])
    >>> row_areas(r, p, np.array([[True, True, True], [True, True, False]])).tolist()
    [0.67, 0.7]
    """
    r, p = np.asarray(recall, dtype=np.float64), np.asarray(precision, dtype=np.float64)
    b, m = r.shape
    n_valid = valid.sum(axis=1)
    prefix = np.where(valid.all(axis=1), m, np.argmin(valid, axis=1)) == n_valid
    envelope = np.maximum.accumulate(p, axis=1)
    steps = np.concatenate([np.ones((b, 1)), r[:, :-1]], axis=1) - r
    out = np.full(b, np.nan)
    for n in np.unique(n_valid[prefix & (n_valid > 0)]):
        rows = prefix & (n_valid == n)
        out[rows] = np.concatenate([steps[rows, :n] * envelope[rows, :n], r[rows, n - 1:n]], axis=1).sum(axis=1)
    for i in np.flatnonzero(~prefix):
        out[i] = aupr_score(r[i][valid[i]], p[i][valid[i]])
    return out


def optima_of_stats(stats: SweepStats, measures: list[Measure], settings: CurveSettings) -> dict[str, np.ndarray]:
    """Optima (and areas) of every row of statistics with sums of shape (B, m) (missing sums read as 0; the
    similarity optima from ``stats.similarity``, their curves as the summary takes them)."""
    first = next(iter(stats.sums.values()))
    zero = np.broadcast_to(np.zeros(1), first.shape)
    names = [*STAT_NAMES, *(k for k in stats.sums if k not in STAT_NAMES)]  # an event source's sums too
    full = SweepStats(thresholds=stats.thresholds, sums={k: stats.sums.get(k, zero) for k in names},
                      n=stats.n, n_true=stats.n_true, it_sum=stats.it_sum, it2_sum=stats.it2_sum, n_w=stats.n_w)
    cur = protein_curves(full, normalization=settings.normalization, k=settings.k,
                         protein_weighting=settings.protein_weighting,
                         with_ia=settings.with_ia and any(
                             ms.needs_ia or (ms.at is not None and get_measure(ms.at).needs_ia) for ms in measures))
    if stats.similarity is not None:  # in the order of the summary: similarity columns, then derived ones
        from goeval.metrics.similarity import similarity_curves  # deferred: only with similarity measures

        cur.update(similarity_curves(stats.similarity, settings.normalization, warn=False))
    cur.update(derived_columns(cur))
    valid = cur["n_covered"] > 0
    whole = curve_values(full, [ms for ms in measures if ms.reduce == "curve"], normalization=settings.normalization,
                         k=settings.k, protein_weighting=settings.protein_weighting,
                         calibration_bins=settings.calibration_bins)
    return {ms.name: whole[ms.name] if ms.reduce == "curve" else
            row_areas(cur[ms.recall], cur[ms.column], valid) if ms.reduce == "area" else
            _at_optimum(cur, ms, valid) if ms.at is not None else
            row_optima(cur[ms.column], valid, ms.direction) for ms in measures}


def replicate_optima(steps: ProteinSteps, weights: np.ndarray, measures: Iterable[str | Measure],
                     settings: CurveSettings) -> dict[str, np.ndarray]:
    """The optimum (or area) of each measure under each row of protein weights.

    Parameters
    ----------
    steps : ProteinSteps
        One method's per-protein statistics in one namespace.
    weights : ndarray of float64, shape (B, n)
        One weight vector per replicate (bootstrap counts: a protein drawn
        twice counts twice). A row of ones gives the summary's value, bit
        for bit.
    measures : iterable of str or Measure
        Protein-centric optima (``fmax``, ``wfmax``, ``fmax_micro``, ``smin``, ``wsmin``, ...), areas
        (``aupr``, ``waupr``) or similarity optima whose per-protein statistics ``steps`` hold
        (``steps.similarity``: ``lin_bma``, ``wang_max``, ``jaccard``...).
    settings : CurveSettings

    Returns
    -------
    dict of str to ndarray of shape (B,)
        Measure name -> optimum per replicate (NaN where no protein is covered).
    """
    ms = protein_optima(measures, areas=True)
    held_measures(steps, [x.name for x in ms], True, "these proteins")
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 2:
        raise InvalidParameterError(f"The 'weights' parameter of replicate_optima must have shape (B, n); got {w.shape}.")
    st = steps.stats(w, sums_needed(ms, settings))
    return optima_of_stats(st, ms, settings)
