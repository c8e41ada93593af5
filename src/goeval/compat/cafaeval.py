"""A drop-in home for CAFA-evaluator (``cafaeval``) and Kaggle CAFA 5 users.

* :func:`cafa_eval` - ``cafaeval.evaluation.cafa_eval``'s signature and
  return value (``df``, ``dfs_best``), computed by goeval on exact decimal
  thresholds;
* :func:`cafaeval_frames` - the same two DataFrames from any goeval
  :class:`~goeval.evaluation.EvaluationResult` (what
  ``goeval evaluate --layout cafaeval`` writes with
  :func:`goeval.io.cafaeval_layout.write_cafaeval_layout`);
* :func:`cafa5_score`, :func:`cafa5_records` - the single CAFA 5 score: the
  mean over the benchmark's namespaces of the weighted Fmax.

Column by column (``docs/cafaeval.md``): CAFA-evaluator divides ``tp``,
``fp`` and ``fn`` by the number of benchmark proteins (``-norm cafa``/``gt``),
so its ``tp`` is goeval's ``tp / n_proteins``; its ``ru``/``mi``/``s`` count
terms (goeval's ``ru_terms``/``mi_terms``/``s_terms``); its ``*_w`` columns are
goeval's IA-based ones.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from goeval.api import evaluate
from goeval.errors import InvalidParameterError
from goeval.metrics.protein import best_index, protein_curves
from goeval.ontology import GO_LABELS
from goeval.sweep import SweepStats

__all__ = [
    "cafa_eval",
    "cafaeval_frames",
    "cafaeval_columns",
    "cafa5_score",
    "cafa5_records",
    "benchmark_namespaces",
    "CAFAEVAL_COLUMNS",
    "CAFAEVAL_BEST",
]

#: CAFA-evaluator 1.3.0's columns of ``evaluation_all.tsv`` after the index
#: (``filename``, ``ns``, ``tau``); with IA the same names with ``_w`` follow.
CAFAEVAL_COLUMNS: tuple[str, ...] = (
    "n", "tp", "fp", "fn", "pr", "rc", "cov", "mi", "ru", "f", "s", "pr_micro", "rc_micro", "f_micro",
)

#: The ``evaluation_best_<metric>.tsv`` files: metric -> optimum direction, in cafaeval's order.
CAFAEVAL_BEST: tuple[tuple[str, str], ...] = (
    ("f", "max"), ("f_w", "max"), ("s", "min"), ("f_micro", "max"), ("f_micro_w", "max"),
)

_NAMESPACE_NAMES = {label: name for name, label in GO_LABELS.items()}

#: cafaeval column -> goeval curve column (``None``: computed from the statistics).
_PLAIN = {
    "n": "n_covered", "tp": None, "fp": "mi_terms", "fn": "ru_terms", "pr": "precision", "rc": "recall",
    "cov": "coverage", "mi": "mi_terms", "ru": "ru_terms", "f": "f", "s": "s_terms",
    "pr_micro": "precision_micro", "rc_micro": "recall_micro", "f_micro": "f_micro",
}
_WEIGHTED = {
    "n": "n_covered_w", "tp": None, "fp": "mi", "fn": "ru", "pr": "wprecision", "rc": "wrecall",
    "cov": "coverage_w", "mi": "mi", "ru": "ru", "f": "wf", "s": "s",
    "pr_micro": "wprecision_micro", "rc_micro": "wrecall_micro", "f_micro": "wf_micro",
}


def cafaeval_columns(stats: SweepStats, *, normalization: str = "cafa", k: float = 2.0,
                     protein_weighting: str = "none", with_ia: bool = True) -> dict[str, np.ndarray]:
    """CAFA-evaluator's columns of one method and namespace, at every threshold of ``stats``.

    Parameters
    ----------
    stats : SweepStats
        Sums of shape (n_thresholds,) (:func:`goeval.evaluation.namespace_stats`).
    normalization, k, protein_weighting
        As for :func:`~goeval.metrics.protein.protein_curves`.
    with_ia : bool
        Add the ``*_w`` columns.

    Returns
    -------
    dict of str to ndarray of float64
        ``tau`` then :data:`CAFAEVAL_COLUMNS` (and their ``_w`` forms), every
        value float as in cafaeval's frame.

    Notes
    -----
    ``tp`` is the sum over proteins of ``|T ∩ P|`` (``_w``: of
    ``sum_{T∩P} ia``) divided like ``ru``: by the benchmark proteins
    ``n`` (``cafa``, ``gt``; ``cafa-pk``: those with truth left, and for
    ``_w`` with informative truth left) or the covered ones (``pred``).
    """
    cur = protein_curves(stats, normalization=normalization, k=k, protein_weighting=protein_weighting,
                         with_ia=with_ia)
    s = stats.sums
    n_w = stats.n_w if normalization == "cafa-pk" and stats.n_w is not None else stats.n
    out: dict[str, np.ndarray] = {"tau": cur["threshold"].astype(np.float64)}
    parts = [("", _PLAIN, s["tp"], s["covered"], float(stats.n))]
    if with_ia:
        parts.append(("_w", _WEIGHTED, s["ia_tp"], s["covered_w"], float(n_w)))
    for suffix, mapping, tp, covered, n in parts:
        den = covered if normalization == "pred" else np.full(tp.shape, n)
        for name in CAFAEVAL_COLUMNS:
            col = mapping[name]
            if col is None:
                value = np.divide(tp, den, out=np.zeros(tp.shape), where=den > 0)
            else:
                value = cur[col]
            out[name + suffix] = np.asarray(value, dtype=np.float64)
    return out


def _namespace_name(label: str) -> str:
    """The OBO namespace name cafaeval writes in ``ns`` (``MFO`` -> ``molecular_function``)."""
    return _NAMESPACE_NAMES.get(label, label)


def _filename(method: str, diagnostics: Mapping[str, Any]) -> str:
    """cafaeval's ``filename``: the path below the prediction directory with '/' -> '_', extensions kept."""
    source = diagnostics.get("methods", {}).get(method, {}).get("source")
    last = method.rsplit("/", 1)[-1]
    name = Path(str(source)).name if source else ""
    suffix = name[len(last):] if name.startswith(last) else ""
    return method.replace("/", "_") + suffix


def _options(result: Any) -> dict[str, Any]:
    opts = result.diagnostics.get("options", {}) if result.diagnostics else {}
    return {"normalization": opts.get("normalization", "cafa"), "k": float(opts.get("k", 2.0)),
            "protein_weighting": opts.get("protein_weighting", "none")}


def cafaeval_frames(result: Any, *, below_one: bool = False,
                    filenames: Mapping[str, str] | None = None) -> tuple[Any, dict[str, Any]]:
    """CAFA-evaluator's ``(df, dfs_best)`` from a goeval result.

    Parameters
    ----------
    result : EvaluationResult
        From :func:`goeval.evaluate` (it keeps the sweep statistics).
    below_one : bool, default False
        Keep only thresholds below 1, as cafaeval's grid
        ``np.arange(step, 1, step)``.
    filenames : mapping of method to str, optional
        The ``filename`` of each method; by default its path below the
        prediction directory with '/' replaced by '_' and the file's
        extensions kept (``sub/pred_1.tsv`` -> ``sub_pred_1.tsv``).

    Returns
    -------
    df : pandas.DataFrame
        Index (``filename``, ``ns``, ``tau``), columns :data:`CAFAEVAL_COLUMNS`
        then their ``_w`` forms (with IA); rows with ``cov > 0``.
    dfs_best : dict of str to pandas.DataFrame
        For ``f``, ``f_w``, ``s``, ``f_micro``, ``f_micro_w`` (those present):
        the row of the optimum of each (filename, ns) - ties within 1e-12
        (relative) to the lowest threshold - with ``cov_max``, the largest
        ``cov`` (``cov_w`` for the ``_w`` metrics) over the thresholds.

    Raises
    ------
    InvalidParameterError
        For a result without sweep statistics.
    """
    import pandas as pd  # deferred: pandas (~0.1 s to import) only for these frames

    if getattr(result, "stats", None) is None:
        raise InvalidParameterError(
            "The 'result' parameter of cafaeval_frames must come from goeval.evaluate or evaluate_annotations "
            "(it needs the sweep statistics).")
    opts = _options(result)
    with_ia = bool(result.diagnostics.get("options", {}).get("ia", True))
    frames = []
    for (method, label), st in result.stats.items():
        cols = cafaeval_columns(st, with_ia=with_ia, **opts)
        keep = cols["n"] > 0
        if below_one:
            keep &= cols["tau"] < 1.0
        name = (filenames or {}).get(method) or _filename(method, result.diagnostics)
        frame = pd.DataFrame({c: v[keep] for c, v in cols.items()})
        frame.insert(0, "ns", _namespace_name(label))
        frame.insert(0, "filename", name)
        frames.append(frame)
    if not frames:
        return None, {}
    df = pd.concat(frames, ignore_index=True).set_index(["filename", "ns", "tau"])
    return df, best_frames(df)


def best_frames(df: Any) -> dict[str, Any]:
    """``dfs_best`` of a frame shaped like cafaeval's ``df`` (see :func:`cafaeval_frames`)."""
    out = {}
    groups = [g for _, g in df.groupby(level=["filename", "ns"], sort=False)]
    for metric, direction in CAFAEVAL_BEST:
        if metric not in df.columns:
            continue
        cov = "cov_w" if metric.endswith("_w") else "cov"
        rows = []
        for g in groups:
            i = best_index(g[metric].to_numpy(), direction)
            if i >= 0:
                rows.append(g.iloc[[i]].assign(cov_max=float(g[cov].max())))
        if rows:
            import pandas as pd  # deferred: pandas (~0.1 s to import) only for these frames

            out[metric] = pd.concat(rows)
    return out


def _prediction_filenames(pred_dir: Path) -> dict[str, Path]:
    """Every file below ``pred_dir`` (as cafaeval walks it) by its cafaeval ``filename``."""
    files = {}
    for root, _dirs, names in os.walk(pred_dir):
        for name in names:
            path = Path(root) / name
            files[str(path.relative_to(pred_dir)).replace(os.sep, "_")] = path
    return dict(sorted(files.items()))


def cafa_eval(obo_file: Any, pred_dir: Any, gt_file: Any, ia: Any = None, no_orphans: bool = False,
              norm: str = "cafa", prop: str = "max", max_terms: int | None = None, th_step: float = 0.01,
              n_cpu: int = 1) -> tuple[Any, dict[str, Any]]:
    """``cafaeval.evaluation.cafa_eval`` computed by goeval: ``(df, dfs_best)``.

    Parameters
    ----------
    obo_file, pred_dir, gt_file : path
        Ontology, directory of prediction files (walked; every file is a
        method, named by its path below ``pred_dir`` with '/' -> '_'),
        ground truth.
    ia : path, optional
        Information accretion file (adds the ``*_w`` columns).
    no_orphans : bool
        Remove the roots from truth and predictions (goeval's
        ``exclude_roots``: proteins annotated only to a root leave the
        benchmark, where cafaeval keeps them in ``n``).
    norm : {'cafa', 'pred', 'gt'}
    prop : {'max', 'fill'}
    max_terms : int, optional
        The ``max_terms`` best-scoring terms per protein and namespace
        (:func:`goeval.evaluation.keep_top_terms`; cafaeval keeps up to
        ``max_terms + 1`` in file order).
    th_step : float
        Threshold step; ``1 / th_step`` must be an integer. The thresholds
        are ``j * th_step`` exactly, ``j = 1 .. 1/th_step - 1`` (cafaeval's
        ``np.arange(th_step, 1, th_step)`` drifts from them).
    n_cpu : int
        Threads for reading the prediction files (0: all cores).

    Returns
    -------
    df, dfs_best
        As :func:`cafaeval_frames` (``df`` is None when nothing was evaluated).

    Examples
    --------
    >>> df, best = cafa_eval("go.obo", "predictions/", "truth.tsv", ia="IA.txt")  # doctest: +SKIP
    >>> best["f_w"][["f_w", "cov_max"]]  # doctest: +SKIP
    """
    if isinstance(n_cpu, bool) or not isinstance(n_cpu, int) or n_cpu < 0:
        raise InvalidParameterError(f"The 'n_cpu' parameter of cafa_eval must be an integer >= 0; got {n_cpu!r}.")
    pred_dir = Path(pred_dir)
    files = _prediction_filenames(pred_dir)
    if not files:
        raise InvalidParameterError(f"The 'pred_dir' parameter of cafa_eval must be a directory holding "
                                    f"prediction files; found none in {str(pred_dir)!r}.")
    res = evaluate(obo_file, gt_file, {name: path for name, path in files.items()}, ia=ia,
                   exclude_roots=bool(no_orphans), normalization=norm, propagation=prop, max_terms=max_terms,
                   thresholds=th_step, threads=n_cpu or None, allow_empty=True)
    if res.diagnostics.get("nothing_evaluated"):  # CAFA-evaluator returns empty frames: said, not raised
        res.diagnostics.warn(f"nothing was evaluated: {res.diagnostics['nothing_evaluated']}.")
    return cafaeval_frames(res, below_one=True, filenames={name: name for name in files})


def benchmark_namespaces(result: Any) -> list[str]:
    """Namespaces with benchmark proteins (else those in the summary), in ontology order."""
    ns = result.diagnostics.get("namespaces", {}) if result.diagnostics else {}
    labels = [k for k, v in ns.items() if v.get("benchmark_proteins", 0) > 0]
    if not labels:
        labels = list(dict.fromkeys(r["namespace"] for r in result.summary_records))
    return labels


def cafa5_score(result: Any, method: str | None = None) -> tuple[float, dict[str, float]]:
    """The Kaggle CAFA 5 score of one method: the mean of the weighted Fmax over namespaces.

    Parameters
    ----------
    result : EvaluationResult
        An evaluation with IA (``goeval.evaluate(..., preset="cafa5")``).
    method : str, optional
        Needed when the result holds several methods.

    Returns
    -------
    score : float
        ``mean over the benchmark's namespaces of wfmax``; a namespace with
        benchmark proteins where the method predicts nothing counts 0.
    per_namespace : dict of str to float
        ``wfmax`` per namespace label.

    Raises
    ------
    InvalidParameterError
        Without IA-based results, for an unknown method, or for no method
        given when there are several.

    Examples
    --------
    >>> import goeval
    >>> res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
    ...                       [goeval.example_path("predictions")], ia=goeval.example_path("ia"), preset="cafa5")
    >>> score, per = cafa5_score(res)
    >>> round(score, 4), list(per)
    (0.4116, ['MFO'])
    """
    methods = list(dict.fromkeys(r["method"] for r in result.summary_records))
    if method is None:
        if len(methods) != 1:
            raise InvalidParameterError(
                f"The 'method' parameter of cafa5_score must name one of {methods}; got None.")
        method = methods[0]
    elif method not in methods:
        raise InvalidParameterError(f"The 'method' parameter of cafa5_score must be one of {methods}; got {method!r}.")
    if not any(r["measure"] == "wfmax" for r in result.summary_records):
        raise InvalidParameterError("cafa5_score needs the weighted Fmax: evaluate with an IA file (CAFA 5's IA.txt).")
    wf = {r["namespace"]: float(r["value"]) for r in result.summary_records
          if r["method"] == method and r["measure"] == "wfmax"}
    per = {label: wf.get(label, 0.0) for label in benchmark_namespaces(result)}
    return (float(np.mean(list(per.values()))) if per else float("nan")), per


def cafa5_records(result: Any) -> list[dict[str, Any]]:
    """Summary rows of ``cafa5_score`` (namespace ``all``), one per method, to append to ``summary.tsv``.

    The per-namespace values are the ``wfmax`` rows of the summary. Columns
    are those of :data:`goeval.evaluation.SUMMARY_COLUMNS` (the threshold
    columns NaN).
    """
    rows = []
    for method in dict.fromkeys(r["method"] for r in result.summary_records):
        score, _ = cafa5_score(result, method)
        rows.append({"method": method, "namespace": "all", "measure": "cafa5_score", "value": score,
                     "threshold": np.nan, "coverage": np.nan, "precision": np.nan, "recall": np.nan,
                     "ru": np.nan, "mi": np.nan})
    return rows
