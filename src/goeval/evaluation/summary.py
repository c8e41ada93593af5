"""Curves and optima from sufficient statistics: the result of an evaluation.

:func:`summarize` turns the statistics of every (method, namespace) block -
possibly pooled over folds - into curves (one row per threshold with
coverage > 0, thinned by the curve policy) and the summary (one row per
block and registered measure); :class:`EvaluationResult` holds both.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from goeval.diagnostics import Diagnostics
from goeval.errors import GoevalWarning
from goeval.evaluation.curve_policy import apply_curve_policy, curves_diagnostics, optimum_rows
from goeval.metrics.calibration import CALIBRATION_COLUMNS, WEIGHTED_CALIBRATION_COLUMNS, reliability_columns
from goeval.metrics.protein import (COLUMNS, CURVE_COLUMNS, IA_COLUMNS, Curves, aupr_score, best_index, curve_values,
                                    protein_curves)
from goeval.errors import InvalidParameterError
from goeval.metrics.registry import PROTEIN_CALIBRATION, derived_columns, get_measure, measures
from goeval.options import EvaluationOptions
from goeval.sweep import BlockKey, SweepStats

__all__ = ["EvaluationResult", "TimeSplitResult", "merge_results", "leaderboard", "summarize", "summarize_block",
           "BlockSummary", "optimum_records",
           "area_records", "curve_records", "calibration_rows", "SUMMARY_COLUMNS", "BOOTSTRAP_COLUMNS",
           "RANK_CALIBRATION_NOTE"]

SUMMARY_COLUMNS = ("method", "namespace", "measure", "value", "threshold", "coverage", "precision", "recall", "ru", "mi")
#: Columns a bootstrap adds to the summary (:func:`goeval.stats.add_bootstrap_columns`).
BOOTSTRAP_COLUMNS = ("ci_low", "ci_high", "se")


class EvaluationResult:
    """Result of :func:`goeval.evaluate`.

    Attributes
    ----------
    curves : pandas.DataFrame or None
        One row per (method, namespace, threshold) with coverage > 0: every
        threshold with ``curves='full'`` (the default), the rows kept by
        ``curves='thin'`` (:mod:`goeval.evaluation.curve_policy`), ``None`` with
        ``curves='none'``.
    summary : pandas.DataFrame
        One row per (method, namespace, measure): the optima of the
        registered measures (:mod:`goeval.metrics.registry`): ``fmax``,
        ``wfmax``, ``fmax_micro``, ``smin``, ``wsmin``, ``wfmax_micro``,
        ``smin_terms``, ``max_coverage``) with the values at the optimum,
        then, when requested, the similarity optima of
        :data:`~goeval.metrics.registry.SIMILARITY_MEASURES` (``lin_all``,
        ``jc_bma``, ``jaccard``, ...), then the areas of
        :data:`~goeval.metrics.registry.PROTEIN_AREAS` (``aupr``,
        ``waupr``; no threshold).
    diagnostics : dict
        Every count from reading, mapping and propagation; ``curves``: the
        curve policy and each curve's rows before and after it.
    curve_columns : dict of str to ndarray, or None
        The curves as plain arrays (what ``curves`` is built from).
    summary_records : list of dict
        The summary rows as plain records (with :data:`BOOTSTRAP_COLUMNS`
        after a bootstrap; setting them rebuilds ``summary``).
    stats : dict of (method, namespace) to SweepStats, or None
        The sufficient statistics the curves were computed from (what
        :mod:`goeval.compat` reads to build CAFA-evaluator's columns).
    calibration : pandas.DataFrame or None
        The reliability table (``calibration.tsv``): one row per (method,
        namespace, score bin) with its edges, pairs, true pairs, mean score
        and fraction true (and the IA-weighted ones with IA;
        :data:`~goeval.metrics.calibration.CALIBRATION_COLUMNS`), the bins
        of ``ece`` and ``wece``; ``None`` for rank thresholds.
    calibration_columns : dict of str to ndarray, or None
        The same as plain arrays.

    Notes
    -----
    The DataFrames are built on first access, so the command line, which
    writes the arrays directly, never imports pandas. In a notebook the
    result shows as its headline table (:mod:`goeval.report.headline`: per
    namespace and method Fmax with its threshold and coverage, weighted
    Fmax and Smin, with their intervals after a bootstrap); :meth:`plot`
    draws its figures.
    """

    def __init__(self, curve_columns: dict[str, np.ndarray] | None, summary_records: list[dict[str, Any]],
                 diagnostics: dict[str, Any] | None = None,
                 stats: Mapping[BlockKey, SweepStats] | None = None, *,
                 calibration_columns: dict[str, np.ndarray] | None = None) -> None:
        self.curve_columns = curve_columns
        self.calibration_columns = calibration_columns
        self._summary_records = summary_records
        self.diagnostics = diagnostics if diagnostics is not None else {}
        self.stats = None if stats is None else dict(stats)
        #: Group name -> the result of the group's proteins alone (``evaluate(groups=...)``), else None.
        self.groups: dict[str, "EvaluationResult"] | None = None
        self._frames: dict[str, Any] = {}

    @property
    def summary_records(self) -> list[dict[str, Any]]:
        return self._summary_records

    @summary_records.setter
    def summary_records(self, records: list[dict[str, Any]]) -> None:
        self._summary_records = records
        self._frames.pop("summary", None)

    @property
    def summary_columns(self) -> tuple[str, ...]:
        """:data:`SUMMARY_COLUMNS`, then :data:`BOOTSTRAP_COLUMNS` when the rows have them."""
        extra = BOOTSTRAP_COLUMNS if any("ci_low" in r for r in self._summary_records) else ()
        return SUMMARY_COLUMNS + extra

    def _frame(self, name: str, columns: Any):  # noqa: ANN202 - pandas.DataFrame or None
        """The frame of ``columns`` (None: none), made once, when asked for."""
        if name not in self._frames:
            if columns is None:
                return None
            import pandas as pd  # deferred: pandas (~0.1 s to import) only when a frame is asked for

            self._frames[name] = pd.DataFrame(columns)
        return self._frames[name]

    @property
    def curves(self):  # noqa: ANN201 - pandas.DataFrame or None
        return self._frame("curves", self.curve_columns)

    @property
    def calibration(self):  # noqa: ANN201 - pandas.DataFrame or None
        return self._frame("calibration", self.calibration_columns)

    @property
    def summary(self):  # noqa: ANN201 - pandas.DataFrame
        if "summary" not in self._frames:
            import pandas as pd  # deferred: pandas (~0.1 s to import) only when a frame is asked for

            self._frames["summary"] = pd.DataFrame(self.summary_records, columns=list(self.summary_columns))
        return self._frames["summary"]

    @curves.setter
    def curves(self, frame) -> None:  # noqa: ANN001 - pandas.DataFrame
        self._frames["curves"] = frame

    @summary.setter
    def summary(self, frame) -> None:  # noqa: ANN001 - pandas.DataFrame
        self._frames["summary"] = frame

    def best(self, measure: str = "fmax"):  # noqa: ANN201 - pandas.DataFrame
        """Summary rows of one measure, as a method x namespace table of values.

        ``measure`` is a registered name or alias, in any case (``"Fmax"``,
        ``"smin"``...).

        Raises
        ------
        InvalidParameterError
            For a name the registry does not know, or a measure this result
            does not hold; the message lists those it holds.
        """
        held = list(dict.fromkeys(r["measure"] for r in self.summary_records))
        try:
            name = get_measure(measure).name
        except InvalidParameterError:
            name = None
        if name not in held:
            raise InvalidParameterError(f"The 'measure' parameter of best must be one of this result's measures "
                                        f"{held} (or an alias, in any case); got {measure!r}.")
        sub = self.summary[self.summary["measure"] == name]
        return sub.pivot(index="method", columns="namespace", values="value")

    def save(self, directory: Any, *, curves_gzip: bool = False, plots: bool = False) -> dict[str, Any]:
        """Write the results directory ``goeval evaluate --out DIR`` writes (read back by :func:`goeval.load_results`).

        ``curves.tsv``, ``summary.tsv``, ``calibration.tsv``, ``diagnostics.json``,
        ``timings.json``, ``leaderboard.tsv``, ``manifest.json`` and, after a bootstrap,
        ``protein_stats.npz`` (what :func:`goeval.compare` resamples); with a
        result with groups, ``groups.tsv`` and ``groups/NAME/``; with
        ``plots``, the figures and ``report.html`` too. See
        :func:`goeval.report.save.save_results`.

        Returns
        -------
        dict of str to Path
            What was written.

        Examples
        --------
        >>> import tempfile, goeval
        >>> res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
        ...                       [goeval.example_path("predictions")], ia=goeval.example_path("ia"))
        >>> out = tempfile.mkdtemp()
        >>> sorted(p.name for p in res.save(out).values())
        ['calibration.tsv', 'curves.tsv', 'diagnostics.json', 'leaderboard.tsv', 'summary.tsv', 'timings.json']
        >>> back = goeval.load_results(out)
        >>> back.best("Fmax").equals(res.best("Fmax"))
        True
        """
        from goeval.report.save import save_results  # deferred: the report layer sits above this module

        return save_results(self, directory, curves_gzip=curves_gzip, plots=plots)

    @property
    def methods(self) -> list[str]:
        """The methods of the summary, in order of first appearance."""
        return list(dict.fromkeys(str(r["method"]) for r in self.summary_records))

    @property
    def namespaces(self) -> list[str]:
        """The namespaces of the summary (``all`` left out), in order of first appearance."""
        return [n for n in dict.fromkeys(str(r["namespace"]) for r in self.summary_records) if n != "all"]

    def plot(self, namespace: str | None = None, kind: str = "fig4", **kwargs: Any):  # noqa: ANN201 - Figure
        """One figure of this result (matplotlib, the ``plot`` extra).

        Parameters
        ----------
        namespace : str, optional
            A namespace of this result (:attr:`namespaces`; a label in any
            case, or a GO namespace's OBO name); default: its only one for
            Fig. 4 and its panels, all of them for the coverage and optima.
        kind : {'fig4', 'pr', 'wpr', 'rumi', 'wrumi', 'coverage', 'optima'}
            Clark & Radivojac's Fig. 4, one of its panels, the coverage
            against the threshold, or the optima with their intervals
            (:data:`goeval.report.plots.FIGURE_KINDS`).
        **kwargs
            Passed to the figure (``methods``, ``colors``, ``points``...).

        Returns
        -------
        matplotlib.figure.Figure

        Raises
        ------
        GoevalError
            matplotlib is not installed.
        InvalidParameterError
            An unknown kind, or a namespace this result does not hold (the
            message lists those it holds).

        Examples
        --------
        >>> import goeval
        >>> res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
        ...                       [goeval.example_path("predictions")], ia=goeval.example_path("ia"))
        >>> res.plot().axes[0].get_title()  # doctest: +SKIP
        'MFO: precision-recall'
        >>> res.plot("HPO")
        Traceback (most recent call last):
        ...
        goeval.errors.InvalidParameterError: The 'namespace' parameter of plot must be one of this result's namespaces ['MFO']; got 'HPO'.
        """
        from goeval.report.plots import result_figure  # deferred: the report layer sits above this module

        return result_figure(self, kind, namespace, **kwargs)

    def _repr_html_(self) -> str:
        from goeval.report.headline import headline_html  # deferred: as plot

        return headline_html(self, _title(self))

    def __repr__(self) -> str:
        from goeval.report.headline import headline_text  # deferred: as plot

        return f"<{_title(self)}>\n{headline_text(self)}"


def _title(result: EvaluationResult) -> str:
    """``EvaluationResult: 2 methods x 1 namespace (MFO)``."""
    methods, namespaces = result.methods, result.namespaces
    return (f"{type(result).__name__}: {len(methods)} method{'s' * (len(methods) != 1)} x {len(namespaces)} "
            f"namespace{'s' * (len(namespaces) != 1)} ({', '.join(namespaces)})")


class TimeSplitResult(dict):
    """The results of a time split, one :class:`EvaluationResult` per kind of target (``"NK"``, ``"LK"``, ``"PK"``).

    A ``dict``; in a notebook it shows as one headline table with a
    ``targets`` column first (:mod:`goeval.report.headline`). What
    :func:`goeval.benchmarks.evaluate_time_split` returns and
    :func:`goeval.load_results` reads back from a time split's directory.
    """

    def _repr_html_(self) -> str:
        from goeval.report.headline import headline_html  # deferred: the report layer sits above this module

        return headline_html(dict(self), self._title())

    def _title(self) -> str:
        return f"TimeSplitResult: {', '.join(f'{k} ({len(v.methods)} methods)' for k, v in self.items()) or 'empty'}"

    def __repr__(self) -> str:
        from goeval.report.headline import headline_text  # deferred: as _repr_html_

        return f"<{self._title()}>\n{headline_text(dict(self))}"


def optimum_records(method: str, namespace: str, curves: Mapping[str, np.ndarray],
                    valid: np.ndarray) -> list[dict[str, Any]]:
    """Summary rows (:data:`SUMMARY_COLUMNS`) of every registered protein optimum present in ``curves``.

    In registration order (:func:`~goeval.metrics.registry.measures`): the
    built-in measures, the similarity measures (present when requested),
    then those registered by the user. The optimum is taken over the
    ``valid`` thresholds (coverage > 0); ties within rounding go to the
    lowest threshold (:func:`best_index`; the highest for a measure with ``ties='high'``). A measure undefined at every
    valid threshold (NaN) gets a row of NaN. A measure with ``at`` is read
    at the threshold of that measure's optimum.
    """
    rows = []
    for ms in measures("protein", "optimum"):
        col = ms.column
        ref = ms if ms.at is None else get_measure(ms.at)  # where it is read: its own optimum or another's
        if col not in curves or ref.column not in curves:
            continue
        i = best_index(curves[ref.column], ref.direction, valid, ties=ref.ties)
        if i < 0:
            if valid.any() and np.isnan(curves[ref.column][valid]).all():  # undefined everywhere: said, never 0
                rows.append({"method": method, "namespace": namespace, "measure": ms.name, "value": np.nan,
                             **{c: np.nan for c in SUMMARY_COLUMNS[4:]}})
            continue
        rows.append({
            "method": method, "namespace": namespace, "measure": ms.name, "value": float(curves[col][i]),
            "threshold": float(curves["threshold"][i]),
            **{c: float(curves[getattr(ms, c)][i]) if getattr(ms, c) in curves else np.nan
               for c in ("coverage", "precision", "recall", "ru", "mi")},
        })
    return rows


def area_records(method: str, namespace: str, curves: Mapping[str, np.ndarray],
                 valid: np.ndarray) -> list[dict[str, Any]]:
    """Summary rows of every registered area (``reduce='area'``) present in ``curves``.

    The area is taken over the ``valid`` thresholds (coverage > 0),
    ascending (:func:`~goeval.metrics.protein.aupr_score`); the columns
    that describe one threshold are NaN.
    """
    rows = []
    for ms in measures("protein", "area"):
        if ms.column not in curves or ms.recall not in curves or not valid.any():
            continue
        value = aupr_score(curves[ms.recall][valid], curves[ms.column][valid])
        rows.append({"method": method, "namespace": namespace, "measure": ms.name, "value": value,
                     **{c: np.nan for c in SUMMARY_COLUMNS[4:]}})
    return rows


def curve_records(method: str, namespace: str, stats: SweepStats, options: EvaluationOptions,
                  with_ia: bool) -> list[dict[str, Any]]:
    """Summary rows of every registered whole-curve measure (``reduce='curve'``: ``ece``, ``brier``...; the
    IA-based ones only ``with_ia``; the calibration ones not for rank thresholds, whose scores are ``1 / rank``),
    computed from the block's statistics over every threshold; the columns that describe one threshold are NaN.
    No row for a block where the method covers no protein at any threshold (as its optima and areas)."""
    if not _covers(stats):
        return []
    skip = {ms.name for ms in PROTEIN_CALIBRATION} if options.ranks is not None else set()
    todo = [ms for ms in measures("protein", "curve") if (with_ia or not ms.needs_ia) and ms.name not in skip]
    values = curve_values(stats, todo, normalization=options.normalization, k=options.k,
                          protein_weighting=options.protein_weighting, calibration_bins=options.calibration_bins)
    return [{"method": method, "namespace": namespace, "measure": name, "value": float(value),
             **{c: np.nan for c in SUMMARY_COLUMNS[4:]}} for name, value in values.items()]


def _covers(stats: SweepStats) -> bool:
    """Whether the method covers a protein at some threshold (else a block has no optimum, area or calibration)."""
    return bool(np.any(np.asarray(stats.sums["covered"]) > 0))


def calibration_rows(method: str, namespace: str, stats: SweepStats, options: EvaluationOptions,
                     with_ia: bool) -> dict[str, np.ndarray] | None:
    """The rows of ``calibration.tsv`` of one block (:data:`~goeval.metrics.calibration.CALIBRATION_COLUMNS`,
    the IA-weighted ones too ``with_ia``): the reliability table behind its ``ece`` (``wece``), in the bins
    ``options.calibration_bins``; None for rank thresholds (scores of ``1 / rank``: no calibration)."""
    if options.ranks is not None or not _covers(stats):
        return None
    curves = Curves(stats, options.normalization, options.k, options.protein_weighting, options.calibration_bins)
    table = reliability_columns(curves, with_ia)
    n_bins = table["bin"].size
    return {"method": _repeated(method, n_bins), "namespace": _repeated(namespace, n_bins), **table}


#: Said once (``diagnostics["calibration"]``, and on the console) when the thresholds are ranks.
RANK_CALIBRATION_NOTE = ("calibration (ECE, Brier, calibration.tsv) not computed: the rank thresholds score each "
                         "term 1 / its rank, not a probability")


def _calibration_table(blocks: list[dict[str, np.ndarray]], with_ia: bool) -> dict[str, np.ndarray]:
    """The blocks' rows of ``calibration.tsv`` one after the other (the columns of an empty table, with none)."""
    cols = list(CALIBRATION_COLUMNS) + (list(WEIGHTED_CALIBRATION_COLUMNS) if with_ia else [])
    if blocks:
        return {c: np.concatenate([b[c] for b in blocks]) for c in cols}
    return {c: np.zeros(0, dtype=object if c in ("method", "namespace") else int if c == "bin" else float)
            for c in cols}


def _repeated(text: str, n: int) -> np.ndarray:
    """An object array of ``n`` references to one string (``np.full`` makes a string object per row)."""
    out = np.empty(n, dtype=object)
    out[:] = text
    return out


def _written(column: str, frames: list[dict[str, np.ndarray]]) -> bool:
    """Whether a curve column is written: it is in a frame (the columns of an event source only when a run asked
    for its measures); without frames, when a sweep without event sources gives it."""
    if frames:
        return any(column in f for f in frames)
    return column in CURVE_COLUMNS


def _concat_curves(frames: list[dict[str, np.ndarray]], with_ia: bool, extra: list[str]) -> dict[str, np.ndarray]:
    """The frames one after the other; ``extra`` (similarity, derived) columns last, NaN where a frame lacks one."""
    cols = ["method", "namespace"] + [c for c in COLUMNS if (with_ia or c not in IA_COLUMNS)
                                      and _written(c, frames)] + extra
    if frames:
        return {c: np.concatenate([f[c] if c in f else np.full(f["method"].size, np.nan) for f in frames])
                for c in cols}
    return {c: np.zeros(0, dtype=object if c in ("method", "namespace") else float) for c in cols}


def summarize(
    stats: Mapping[BlockKey, SweepStats],
    options: EvaluationOptions | None = None,
    with_ia: bool = True,
    *,
    diagnostics: dict[str, Any] | None = None,
    release: bool = False,
) -> EvaluationResult:
    """Curves and optima from sufficient statistics (e.g. pooled over folds).

    Parameters
    ----------
    stats : mapping of (method, namespace label) to SweepStats or BlockSummary
        As returned by :func:`namespace_stats` (or sums of such mappings); a
        block may be given already summarized (:func:`summarize_block`, e.g.
        as the engine finished it), and its rows are then taken as they are.
    options : EvaluationOptions, optional
        ``normalization``, ``k`` and ``protein_weighting`` are used here, and
        ``curves``, ``curve_tolerance``, ``curve_points``: the rows of each
        block's curve that are kept (:mod:`goeval.evaluation.curve_policy`), chosen
        right after the block's optima are taken on every threshold, so
        that only one block's full curves are in memory at a time.
    with_ia : bool
        Whether the statistics were computed with IA (IA-based columns and
        measures are then reported).
    diagnostics : dict, optional
        Becomes ``result.diagnostics``, with ``options`` and ``curves`` (the
        policy and each curve's rows before and after it) added.
    release : bool, default False
        ``stats`` is a dict handed over: each block's statistics leave it as
        soon as their curves are taken, so that a block's statistics and its
        full curves are not held at once (a run that needs no statistics
        afterwards, e.g. no bootstrap); ``result.stats`` is then None.

    Returns
    -------
    EvaluationResult
        Curves at the thresholds with coverage > 0 (those the policy keeps;
        ``None`` with ``curves='none'``); one summary row per (method,
        namespace, registered protein measure), always over every threshold.
    """
    opts = EvaluationOptions.resolve(options)
    blocks: list[BlockSummary] = []
    for key in list(stats):
        if isinstance(stats[key], BlockSummary):  # summarized as it finished
            blocks.append(stats.pop(key) if release else stats[key])  # type: ignore[attr-defined]
        else:  # released: the argument the only reference, one block's statistics and full curves alive at once
            blocks.append(summarize_block(key, stats.pop(key) if release else stats[key], opts,  # type: ignore[attr-defined]
                                          with_ia))
    frames = [b.frame for b in blocks if b.frame is not None]
    records = [r for b in blocks for r in b.records]
    extra = {c: None for b in blocks for c in b.extra}  # similarity columns, in order of appearance
    diag = {} if diagnostics is None else diagnostics
    diag["options"] = {**opts.as_dict(), "ia": with_ia}
    diag["curves"] = curves_diagnostics(opts.curves, opts.curve_tolerance, opts.curve_points,
                                        [(*b.key, b.info) for b in blocks])
    curves = None if opts.curves == "none" else _concat_curves(frames, with_ia, list(extra))
    calibration = [b.calibration for b in blocks if b.calibration is not None]
    table = None if opts.ranks is not None else _calibration_table(calibration, with_ia)
    if opts.ranks is not None:
        diag["calibration"] = RANK_CALIBRATION_NOTE
    return EvaluationResult(curves, records, diag, None if release else stats, calibration_columns=table)


@dataclass(kw_only=True)
class BlockSummary:
    """What :func:`summarize` keeps of one block once its statistics are gone: its summary rows, its curve rows
    (after the curve policy), the policy's counts, its reliability table and its similarity columns."""

    key: BlockKey
    records: list[dict[str, Any]]
    frame: dict[str, np.ndarray] | None
    info: dict[str, Any]
    calibration: dict[str, np.ndarray] | None
    extra: list[str]


def summarize_block(key: BlockKey, st: SweepStats, options: EvaluationOptions, with_ia: bool = True, *,
                    release: bool = False) -> BlockSummary:
    """One block of :func:`summarize`: its curves and optima from its statistics, the curves thinned by the
    policy right after the optima are taken on every threshold.

    Given a block's statistics as soon as it is finished (an engine's ``on_block``), it lets the statistics
    go before the next blocks' are made: :func:`summarize` takes the result in place of the statistics, with
    the same rows and bits. ``release``: the statistics are handed over, and their sums leave ``st.sums`` as
    the curves are made (:func:`protein_curves`), so that a caller that holds ``st`` does not keep them alive
    (``st`` is left without sums).
    """
    name, label = key
    opts = options
    records = curve_records(name, label, st, opts, with_ia)
    reliable = calibration_rows(name, label, st, opts, with_ia)
    sim = {} if st.similarity is None else _similarity_curves(st.similarity, opts.normalization)
    no_information, n_bench = with_ia and st.it_sum == 0, st.n
    cur = protein_curves(st, normalization=opts.normalization, k=opts.k,
                         protein_weighting=opts.protein_weighting, with_ia=with_ia, release=release)
    if opts.ranks is not None:  # rank thresholds: the threshold column says k (inf: every term), not 1 / k
        with np.errstate(divide="ignore", over="ignore"):  # 1 / the smallest float: inf, the rank 'all'
            cur["threshold"] = np.round(1.0 / cur["threshold"])
    if release:
        st.sums.clear()
        st.similarity = None
    del st  # the block's statistics go before its curves are thinned (when the caller lets them go)
    cur.update(sim)
    sim.update(derived_columns(cur))  # measures computed from the curves: extra columns, as similarity
    cur.update(sim)
    ok = cur["n_covered"] > 0
    n_ok = int(ok.sum())
    if no_information and ok.any():
        warnings.warn(f"{name} {label}: the IA gives 0 bits to every truth term of the {int(n_bench):,} benchmark "
                      "proteins (it covers none of them: an IA of other terms or another ontology?); the "
                      "IA-based measures (weighted F, ru, mi, S) are undefined and written as nan.", GoevalWarning)
    records = [*optimum_records(name, label, cur, ok), *area_records(name, label, cur, ok), *records]
    # the optima's rows among the covered thresholds (kept by 'thin')
    optima = np.cumsum(ok)[optimum_rows(cur, ok)] - 1
    frame = {"method": _repeated(name, n_ok), "namespace": _repeated(label, n_ok)}
    columns = [col for col in COLUMNS if col in cur] + list(sim) if opts.curves != "none" else ["threshold"]
    for col in columns:  # moved one at a time: one block's full curves alive once
        values = cur.pop(col)
        frame[col] = values if n_ok == values.size else values[ok]
    del cur
    frame, info = apply_curve_policy(frame, opts.curves, tolerance=opts.curve_tolerance,
                                     max_points=opts.curve_points, keep=optima)
    return BlockSummary(key=key, records=records, frame=frame, info=info, calibration=reliable, extra=list(sim))


def _similarity_curves(stats: Any, normalization: str) -> dict[str, np.ndarray]:
    from goeval.metrics.similarity import similarity_curves  # deferred: only runs with similarity measures

    return similarity_curves(stats, normalization)


def merge_results(results: list[EvaluationResult]) -> EvaluationResult:
    """Evaluations of disjoint methods on one benchmark as one, in the order a single run gives.

    Curves, summary rows and statistics come in namespace order, then
    method order (the methods of ``results[0]`` first); per-method
    diagnostics are put together and the curve counts added. Every number
    is the one of its own evaluation: the blocks of a method do not depend
    on the other methods of its run, nor do bootstrap resamples (keyed by
    seed, namespace and benchmark proteins).

    Raises
    ------
    InvalidParameterError
        Two results share a method.
    """
    if len(results) == 1:
        return results[0]
    methods = [m for r in results for m in r.diagnostics.get("methods", {})]
    if len(set(methods)) != len(methods):
        raise InvalidParameterError("merge_results takes evaluations of different methods; "
                                    f"got {methods} (a method twice).")
    ns_rank = {label: i for i, label in enumerate(results[0].diagnostics.get("namespaces", {}))}
    m_rank = {m: i for i, m in enumerate(methods)}

    def rank(method: str, namespace: str) -> tuple[int, int]:
        return ns_rank.get(namespace, len(ns_rank)), m_rank.get(method, len(m_rank))

    records = sorted((r for res in results for r in res.summary_records), key=lambda r: rank(r["method"],
                                                                                            r["namespace"]))
    stats = None if any(r.stats is None for r in results) else dict(sorted(
        ((k, v) for r in results for k, v in r.stats.items()), key=lambda kv: rank(*kv[0])))
    merged = EvaluationResult(_merged_curves([r.curve_columns for r in results], rank), records,
                              _merged_diagnostics(results, rank), stats,
                              calibration_columns=_merged_curves([r.calibration_columns for r in results], rank))
    if all(r.groups for r in results):  # each group's results merged the same way
        merged.groups = {g: merge_results([r.groups[g] for r in results]) for g in results[0].groups}
    return merged


def _merged_curves(columns: list[dict[str, np.ndarray] | None], rank: Any) -> dict[str, np.ndarray] | None:
    """Curve (or calibration) columns put together, rows ordered by (namespace, method), each block's rows in their
    order."""
    if any(c is None for c in columns):
        return None
    cat = {name: np.concatenate([c[name] for c in columns]) for name in columns[0]}
    keys = np.array([rank(m, ns) for m, ns in zip(cat["method"].tolist(), cat["namespace"].tolist())],
                    dtype=np.int64).reshape(-1, 2)
    order = np.lexsort((np.arange(keys.shape[0]), keys[:, 1], keys[:, 0]))
    return {name: values[order] for name, values in cat.items()}


def _merged_diagnostics(results: list[EvaluationResult], rank: Any) -> dict[str, Any]:
    """The first result's diagnostics with every method's counts, every warning, the curves' counts, what was
    streamed and the timings of all."""
    diag = Diagnostics(results[0].diagnostics)
    diag["methods"] = {m: d for r in results for m, d in r.diagnostics.get("methods", {}).items()}
    warned = [w for r in results for w in r.diagnostics.get("warnings", [])]
    if warned:
        diag["warnings"] = list(dict.fromkeys(warned))
    for r in results:
        for stage, seconds in getattr(r.diagnostics, "timings", {}).items():
            diag.add_timing(stage, seconds)
        diag.said |= getattr(r.diagnostics, "said", set())
    streaming = [r.diagnostics["streaming"] for r in results if "streaming" in r.diagnostics]
    if streaming:
        diag["streaming"] = {"streamed": [m for s in streaming for m in s.get("streamed", [])],
                             "in_memory": {m: why for s in streaming for m, why in s.get("in_memory", {}).items()}}
    curves = [r.diagnostics.get("curves") for r in results]
    if all(isinstance(c, dict) for c in curves):
        merged = dict(curves[0])
        for key in ("rows", "written", "thinned", "capped"):
            if key in merged:
                merged[key] = sum(int(c.get(key, 0)) for c in curves)
        merged["blocks"] = sorted((b for c in curves for b in c.get("blocks", [])),
                                  key=lambda b: rank(b["method"], b["namespace"]))
        diag["curves"] = merged
    return diag


def leaderboard(records: list[dict[str, Any]], measure: str | None = None) -> list[dict[str, Any]]:
    """One row per method, best first: the mean over namespaces of a headline measure, and each namespace's.

    Parameters
    ----------
    records : list of dict
        Summary rows (``method``, ``namespace``, ``measure``, ``value``, and
        ``ci_low``, ``ci_high`` after a bootstrap).
    measure : str, optional
        Default ``wfmax`` when the rows hold it (an IA was given), else ``fmax``.

    Returns
    -------
    list of dict
        ``rank``, ``method``, ``measure``, ``value`` (the mean over the
        namespaces any method was evaluated in; a namespace a method has no
        row in counts 0, as in the CAFA 5 and 6 scores), then per namespace
        its value (and ``<ns>_ci_low``, ``<ns>_ci_high`` with a bootstrap).
        Ties share the better rank (``1, 2, 2, 4``); equal values are listed
        by method name.

    Examples
    --------
    >>> rows = [{"method": m, "namespace": ns, "measure": "fmax", "value": v}
    ...         for m, ns, v in (("a", "MFO", 0.5), ("a", "BPO", 0.3), ("b", "MFO", 0.6))]
    >>> [(r["rank"], r["method"], r["value"]) for r in leaderboard(rows)]
    [(1, 'a', 0.4), (2, 'b', 0.3)]
    """
    if measure is None:
        measure = "wfmax" if any(r["measure"] == "wfmax" for r in records) else "fmax"
    rows = [r for r in records if r["measure"] == measure]
    spaces = list(dict.fromkeys(r["namespace"] for r in rows))
    cells = {(r["method"], r["namespace"]): r for r in rows}
    ci = any("ci_low" in r for r in rows)
    board = []
    for method in dict.fromkeys(r["method"] for r in rows):
        values = [float(cells[(method, ns)]["value"]) if (method, ns) in cells else 0.0 for ns in spaces]
        row = {"rank": 0, "method": method, "measure": measure, "value": float(np.mean(values))}
        for ns, v in zip(spaces, values):
            row[ns] = v if (method, ns) in cells else float("nan")
            if ci:
                cell = cells.get((method, ns), {})
                row[f"{ns}_ci_low"], row[f"{ns}_ci_high"] = cell.get("ci_low", np.nan), cell.get("ci_high", np.nan)
        board.append(row)
    return ranked(board)


def ranked(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Leaderboard rows best first (highest ``value``, equal values by ``method``) with their ``rank``: ties share
    the better rank (``1, 2, 2, 4``)."""
    rows = sorted(rows, key=lambda r: (-r["value"], r["method"]))
    for k, row in enumerate(rows):
        row["rank"] = rows[k - 1]["rank"] if k and row["value"] == rows[k - 1]["value"] else k + 1
    return rows
