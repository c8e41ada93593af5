"""Protein-centric evaluation of one or more methods (orchestration).

Takes already-loaded objects (an :class:`~goeval.ontology.Ontology`, truth
:class:`~goeval.annotations.Annotations`, predictions per method, optional
IA) and returns curves and optima (pandas DataFrames on demand); the arithmetic is in
:mod:`goeval.sweep` and :mod:`goeval.metrics.protein`. See
:func:`goeval.evaluate` for the path-taking entry point.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from goeval._csr import column_block
from goeval.annotations import _BUFFER_CELLS, Annotations, _propagate_block
from goeval.errors import InvalidParameterError, check_choice
from goeval.metrics.protein import CURVE_COLUMNS, IA_COLUMNS, best_index, protein_curves
from goeval.metrics.registry import PROTEIN_MEASURES
from goeval.ontology import Ontology
from goeval.sweep import exact_thresholds, grid_thresholds, sweep

__all__ = ["EvaluationResult", "evaluate_annotations", "SUMMARY_COLUMNS"]

SUMMARY_COLUMNS = ("method", "namespace", "measure", "value", "threshold", "coverage", "precision", "recall", "ru", "mi")


class EvaluationResult:
    """Result of :func:`goeval.evaluate`.

    Attributes
    ----------
    curves : pandas.DataFrame
        One row per (method, namespace, threshold) with coverage > 0.
    summary : pandas.DataFrame
        One row per (method, namespace, measure): ``fmax``, ``wfmax``,
        ``fmax_micro``, ``smin``, ``wsmin`` with the values at the optimum.
    diagnostics : dict
        Every count from reading, mapping and propagation.
    curve_columns : dict of str to ndarray
        The curves as plain arrays (what ``curves`` is built from).
    summary_records : list of dict
        The summary rows as plain records.

    Notes
    -----
    The DataFrames are built on first access, so the command line, which
    writes the arrays directly, never imports pandas.
    """

    def __init__(self, curve_columns: dict[str, np.ndarray], summary_records: list[dict[str, Any]],
                 diagnostics: dict[str, Any] | None = None) -> None:
        self.curve_columns = curve_columns
        self.summary_records = summary_records
        self.diagnostics = diagnostics if diagnostics is not None else {}
        self._frames: dict[str, Any] = {}

    @property
    def curves(self):  # noqa: ANN201 - pandas.DataFrame
        if "curves" not in self._frames:
            import pandas as pd

            self._frames["curves"] = pd.DataFrame(self.curve_columns)
        return self._frames["curves"]

    @property
    def summary(self):  # noqa: ANN201 - pandas.DataFrame
        if "summary" not in self._frames:
            import pandas as pd

            self._frames["summary"] = pd.DataFrame(self.summary_records, columns=list(SUMMARY_COLUMNS))
        return self._frames["summary"]

    @curves.setter
    def curves(self, frame) -> None:  # noqa: ANN001 - pandas.DataFrame
        self._frames["curves"] = frame

    @summary.setter
    def summary(self, frame) -> None:  # noqa: ANN001 - pandas.DataFrame
        self._frames["summary"] = frame

    def best(self, measure: str = "fmax"):  # noqa: ANN201 - pandas.DataFrame
        """Summary rows of one measure, as a method x namespace table of values."""
        sub = self.summary[self.summary["measure"] == measure]
        return sub.pivot(index="method", columns="namespace", values="value")

    def __repr__(self) -> str:
        methods = sorted({r["method"] for r in self.summary_records})
        return f"<EvaluationResult: {len(methods)} methods, {len(self.summary_records)} optima>"


def _select_terms(indptr: np.ndarray, cols: np.ndarray, data: np.ndarray | None, allowed: np.ndarray):  # noqa: ANN202
    keep = allowed[cols]
    if keep.all():
        return indptr, cols, data
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))[keep]
    ptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=indptr.size - 1))]
    return ptr, cols[keep], None if data is None else data[keep]


@dataclass
class Prepared:
    """Propagated truth and predictions aligned on truth rows (see :func:`prepare`)."""

    ontology: Ontology
    truth: Any  # csr (truth proteins x terms), sorted
    proteins: np.ndarray
    rows: np.ndarray  # truth rows in the benchmark (after ``targets``)
    aligned: dict[str, tuple[Any, np.ndarray]]


@dataclass
class NamespaceBlock:
    """One method's propagated predictions and the truth of one namespace.

    Rows are the benchmark proteins of the namespace (non-empty truth);
    columns are local to the namespace (``term - lo``).
    """

    namespace: int
    label: str
    method: str
    proteins: np.ndarray
    truth_indptr: np.ndarray
    truth_cols: np.ndarray
    pred_indptr: np.ndarray
    pred_cols: np.ndarray
    pred_scores: np.ndarray

    @property
    def n_bench(self) -> int:
        return int(self.proteins.size)


def term_mask(ontology: Ontology, terms_of_interest: Any, excluded_terms: Any, exclude_roots: bool) -> np.ndarray:
    """Boolean mask of the terms kept in an evaluation."""
    allowed = np.ones(ontology.n_terms, bool)
    if terms_of_interest is not None:
        allowed[:] = False
        allowed[np.asarray(terms_of_interest, dtype=np.int64)] = True
    if excluded_terms is not None:
        allowed[np.asarray(excluded_terms, dtype=np.int64)] = False
    if exclude_roots:
        allowed[ontology.roots()] = False
    return allowed


def prepare(
    ontology: Ontology,
    truth: Annotations,
    predictions: Mapping[str, Annotations],
    targets: Any,
    diag: dict[str, Any],
) -> Prepared:
    """Propagate the truth once and align every method's rows with it."""
    from goeval.annotations import propagate

    if truth.ontology is not ontology:
        raise InvalidParameterError("truth was mapped on another Ontology object; load both with the same one.")
    tr = truth if truth.propagated else propagate(truth)
    tm = tr.matrix.tocsr()
    tm.sort_indices()
    diag["truth"] = dict(tr.diagnostics)
    t_index = {p: i for i, p in enumerate(tr.proteins.tolist())}

    def indexer(ids: Any) -> np.ndarray:
        return np.fromiter((t_index.get(p, -1) for p in ids), np.int64, len(ids))

    rows_all = np.arange(tm.shape[0])
    if targets is not None:
        tg = np.asarray(list(dict.fromkeys(np.asarray(targets, dtype=object).tolist())), dtype=object)
        pos = indexer(tg)
        diag["targets"] = {"listed": int(tg.size), "without_truth": int((pos < 0).sum()),
                           "examples_without_truth": tg[pos < 0][:10].tolist()}
        rows_all = np.sort(pos[pos >= 0])
    aligned: dict[str, tuple[Any, np.ndarray]] = {}
    diag["methods"] = {}
    for name, pred in predictions.items():
        if pred.ontology is not ontology:
            raise InvalidParameterError(f"predictions of {name!r} were mapped on another Ontology object.")
        pos = indexer(pred.proteins)
        d = dict(pred.diagnostics)
        missing = pos < 0
        d["proteins_not_in_truth"] = int(missing.sum())
        if missing.any():
            d["proteins_not_in_truth_examples"] = pred.proteins[missing][:10].tolist()
            d["entries_of_proteins_not_in_truth"] = int(np.diff(pred.matrix.indptr)[missing].sum())
        pm = pred.matrix.tocsr()
        present = np.flatnonzero(~missing)
        order = present[np.argsort(pos[present], kind="stable")]
        same = order.size == pm.shape[0] and bool((order == np.arange(order.size)).all())
        aligned[name] = (pm if same else pm[order], pos[order])
        diag["methods"][name] = d
    return Prepared(ontology, tm, tr.proteins, rows_all, aligned)


def namespace_blocks(
    prep: Prepared, ns_list: list[int], allowed: np.ndarray, propagation: str, diag: dict[str, Any]
):  # noqa: ANN201 - Iterator[NamespaceBlock]
    """Yield a :class:`NamespaceBlock` per (namespace, method), predictions propagated."""
    ontology, tm, rows_all = prep.ontology, prep.truth, prep.rows
    for j in ns_list:
        lo, hi = int(ontology.bounds[j]), int(ontology.bounds[j + 1])
        label = ontology.labels[j]
        t_ptr, t_cols, _ = column_block(tm, lo, hi, rows_all)
        t_ptr, t_cols, _ = _select_terms(t_ptr, t_cols, None, allowed)
        has = np.diff(t_ptr) > 0
        bench = rows_all[has]
        n_bench = int(bench.size)
        t_ptr = np.r_[0, np.cumsum(np.diff(t_ptr)[has])]
        diag.setdefault("namespaces", {})[label] = {"benchmark_proteins": n_bench, "truth_entries": int(t_cols.size)}
        if n_bench == 0:
            continue
        bench_pos = np.full(tm.shape[0], -1, dtype=np.int64)
        bench_pos[bench] = np.arange(n_bench)
        for name, (pm, target_row) in prep.aligned.items():
            md = diag["methods"][name].setdefault("namespaces", {}).setdefault(label, {})
            brow = bench_pos[target_row]
            sel = np.flatnonzero(brow >= 0)  # increasing benchmark rows
            p_ptr, p_cols, p_data = column_block(pm, lo, hi, sel)
            md["proteins_with_predictions"] = int((np.diff(p_ptr) > 0).sum())
            md["entries"] = int(p_cols.size)
            counts = np.zeros(n_bench, dtype=np.int64)
            counts[brow[sel]] = np.diff(p_ptr)
            full_ptr = np.r_[0, np.cumsum(counts)]
            cnt, c, v = _propagate_block(full_ptr, p_cols, p_data, ontology, lo, hi, propagation, _BUFFER_CELLS)
            del p_cols, p_data
            c -= lo  # local columns (int32, in place)
            md["entries_after_propagation"] = int(c.size)
            ptr = np.r_[0, np.cumsum(cnt)]
            ptr, c, v = _select_terms(ptr, c, v, allowed[lo:hi])
            yield NamespaceBlock(j, label, name, prep.proteins[bench], t_ptr, t_cols - lo, ptr, c, v)
            del c, v


def check_options(
    thresholds: str | float, normalization: str, propagation: str, protein_weighting: str, k: float
) -> np.ndarray | None:
    """Validate the evaluation options; return the threshold grid (None: exact).

    Raises
    ------
    InvalidParameterError
        With the parameter's name, its allowed values and the value given.
    """
    check_choice(normalization, "normalization", "evaluate", ("cafa", "pred", "gt"))
    check_choice(propagation, "propagation", "evaluate", ("max", "fill"))
    check_choice(protein_weighting, "protein_weighting", "evaluate", ("none", "information"))
    if not (np.isfinite(k) and k >= 1):
        raise InvalidParameterError(f"The 'k' parameter of evaluate must be a number >= 1; got {k!r}.")
    if isinstance(thresholds, str) and thresholds == "exact":
        return None
    try:
        step = float(thresholds)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"The 'thresholds' parameter of evaluate must be 'exact' or a step such as 0.01; got {thresholds!r}."
        ) from None
    return grid_thresholds(step)


def evaluate_annotations(
    ontology: Ontology,
    truth: Annotations,
    predictions: Mapping[str, Annotations],
    *,
    ia: np.ndarray | None = None,
    thresholds: str | float = "exact",
    normalization: str = "cafa",
    propagation: str = "max",
    exclude_roots: bool = False,
    root_as_prediction: bool = False,
    k: float = 2.0,
    namespaces: list[str] | None = None,
    targets: np.ndarray | list[str] | None = None,
    protein_weighting: str = "none",
    terms_of_interest: np.ndarray | None = None,
    excluded_terms: np.ndarray | None = None,
) -> EvaluationResult:
    """Evaluate methods against truth, per namespace (see :func:`goeval.evaluate`)."""
    grid = check_options(thresholds, normalization, propagation, protein_weighting, k)
    diag: dict[str, Any] = {"ontology": {"source": ontology.source, **ontology.diagnostics}}
    with_ia = ia is not None
    iav = np.zeros(ontology.n_terms) if ia is None else np.asarray(ia, dtype=np.float64)
    if iav.shape != (ontology.n_terms,):
        raise InvalidParameterError(f"ia must have one value per term ({ontology.n_terms}); got shape {iav.shape}.")

    allowed = term_mask(ontology, terms_of_interest, excluded_terms, exclude_roots)
    ns_list = list(range(len(ontology.namespaces))) if not namespaces else [ontology.namespace_index(x) for x in namespaces]
    prepared = prepare(ontology, truth, predictions, targets, diag)

    curve_frames: list[dict[str, np.ndarray]] = []
    summary_rows: list[dict[str, Any]] = []
    for blk in namespace_blocks(prepared, ns_list, allowed, propagation, diag):
        j, label, name, n_bench = blk.namespace, blk.label, blk.method, blk.n_bench
        lo, hi = int(ontology.bounds[j]), int(ontology.bounds[j + 1])
        width = hi - lo
        md = diag["methods"][name]["namespaces"][label]
        ia_local = iav[lo:hi] if with_ia else None
        t_ptr, t_cols_local = blk.truth_indptr, blk.truth_cols
        ptr, c, v = blk.pred_indptr, blk.pred_cols, blk.pred_scores  # local columns
        del blk
        if root_as_prediction:
            roots = ontology.roots(j)
            roots = roots[allowed[roots]] - lo
            # the roots come first so that, for a root also predicted with a score, the
            # stable sort below keeps the +inf entry (predicted at every threshold)
            rr = np.r_[np.repeat(np.arange(n_bench), roots.size), np.repeat(np.arange(n_bench), np.diff(ptr))]
            c = np.r_[np.tile(roots, n_bench), c]
            v = np.r_[np.full(n_bench * roots.size, np.inf), v]
            key = rr * width + c
            order = np.argsort(key, kind="stable")
            rr, c, v = rr[order], c[order], v[order]
            dup = np.r_[False, key[order][1:] == key[order][:-1]]
            rr, c, v = rr[~dup], c[~dup], v[~dup]
            ptr = np.r_[0, np.cumsum(np.bincount(rr, minlength=n_bench))]
        if c.size == 0:
            md["evaluated"] = False
            continue
        taus = grid if grid is not None else exact_thresholds(v)
        stats = sweep(ptr, c, v, t_ptr, t_cols_local, width, taus, ia_local)
        del ptr, c, v
        cur = protein_curves(stats, normalization=normalization, k=k, protein_weighting=protein_weighting, with_ia=with_ia)
        ok = cur["n_covered"] > 0
        md["evaluated"] = True
        md["thresholds"] = int(taus.size)
        n_ok = int(ok.sum())
        frame = {"method": np.full(n_ok, name, dtype=object), "namespace": np.full(n_ok, label, dtype=object)}
        frame.update({col: cur[col][ok] for col in CURVE_COLUMNS if col in cur})
        curve_frames.append(frame)
        for ms in PROTEIN_MEASURES:
            col = ms.column
            if col not in cur:
                continue
            i = best_index(cur[col], ms.direction, ok)
            if i < 0:
                continue
            summary_rows.append({
                "method": name, "namespace": label, "measure": ms.name, "value": float(cur[col][i]),
                "threshold": float(cur["threshold"][i]), "coverage": float(cur[ms.coverage][i]),
                "precision": float(cur[ms.precision][i]), "recall": float(cur[ms.recall][i]),
                "ru": float(cur[ms.ru][i]) if ms.ru in cur else np.nan,
                "mi": float(cur[ms.mi][i]) if ms.mi in cur else np.nan,
            })
    cols = ["method", "namespace"] + [c for c in CURVE_COLUMNS if with_ia or c not in IA_COLUMNS]
    if curve_frames:
        curves = {c: np.concatenate([f[c] for f in curve_frames]) for c in cols}
    else:
        curves = {c: np.zeros(0, dtype=object if c in ("method", "namespace") else float) for c in cols}
    diag["options"] = {
        "thresholds": "exact" if grid is None else f"grid step {1 / grid.size:g} ({grid.size} thresholds)",
        "normalization": normalization, "propagation": propagation, "exclude_roots": exclude_roots,
        "root_as_prediction": root_as_prediction, "k": k, "protein_weighting": protein_weighting,
        "ia": with_ia,
    }
    return EvaluationResult(curves, summary_rows, diag)
