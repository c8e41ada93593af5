"""Path-taking entry points: load files through :mod:`goeval.io`, then compute.

These are the functions a notebook user calls; everything below them works
on in-memory objects.
"""

from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from goeval.annotations import Annotations, map_table
from goeval.errors import GoevalWarning, InvalidParameterError
from goeval.io import _files
from goeval.io.obo import read_obo, start_read_obo
from goeval.io.paths import prediction_files
from goeval.io.tables import DEFAULT_EVIDENCE, read_gaf, read_ia, read_id_list, read_predictions, read_truth
from goeval.ontology import Ontology, build_ontology

__all__ = [
    "load_ontology",
    "load_annotations",
    "load_predictions",
    "load_ia",
    "load_targets",
    "prediction_files",
    "evaluate",
]

PathLike = _files.PathLike


def load_ontology(path: PathLike, relations: Sequence[str] = ("is_a", "part_of")) -> Ontology:
    """Load an OBO ontology (plain, .gz, .bz2, .xz) following ``relations``.

    Examples
    --------
    >>> import goeval
    >>> onto = goeval.load_ontology(goeval.example_path("ontology"))
    >>> onto.labels, onto.n_terms
    (('MFO',), 9571)
    """
    return build_ontology(read_obo(path), tuple(relations))


def load_annotations(
    path: PathLike, ontology: Ontology, *, evidence: Sequence[str] | None = DEFAULT_EVIDENCE, gaf: bool | None = None
) -> Annotations:
    """Load truth annotations (``protein<TAB>term`` or GAF) mapped on ``ontology``.

    GAF files are recognised by their ``!gaf-version`` header (or ``gaf=True``);
    ``evidence`` filters GAF rows (``None`` keeps every code).
    """
    if gaf or (gaf is None and str(path).lower().rstrip(".gz").endswith((".gaf", ".gpa"))):
        table = read_gaf(path, None if evidence is None else tuple(evidence))
    else:
        table = read_truth(path)
    return map_table(table, ontology)


def load_predictions(path: PathLike, ontology: Ontology) -> Annotations:
    """Load one prediction file (CAFA format or 3-column TSV) mapped on ``ontology``."""
    return map_table(read_predictions(path), ontology)


def load_ia(path: PathLike, ontology: Ontology) -> tuple[np.ndarray, dict[str, Any]]:
    """Load an IA file; return ia per term index (bits) and the counts.

    Terms of the ontology missing from the file get 0 (counted, as
    CAFA-evaluator does); file terms that are alt_ids are mapped, unknown or
    obsolete ones are counted and ignored.
    """
    terms, values, counts = read_ia(path)
    idx, status = ontology.resolve(terms)
    ia = np.zeros(ontology.n_terms)
    ok = idx >= 0
    seen = np.zeros(ontology.n_terms, bool)
    # primary ids win over alt_ids that map to the same term
    order = np.argsort(status[ok], kind="stable")[::-1]
    ia[idx[ok][order]] = values[ok][order]
    seen[idx[ok]] = True
    counts = dict(counts, source=str(path))
    counts["terms_not_in_ontology"] = int((~ok).sum())
    counts["ontology_terms_missing_from_file"] = int((~seen).sum())
    return ia, counts


def load_targets(path: PathLike) -> np.ndarray:
    """Load a list of protein identifiers (one per line)."""
    return read_id_list(path)


def evaluate(
    ontology: Ontology | PathLike,
    truth: Annotations | PathLike,
    predictions: Mapping[str, Annotations] | Sequence[PathLike] | PathLike,
    *,
    ia: np.ndarray | PathLike | None = None,
    ia_annotations: Annotations | PathLike | None = None,
    pseudocount: float = 1.0,
    relations: Sequence[str] = ("is_a", "part_of"),
    thresholds: str | float = "exact",
    normalization: str = "cafa",
    propagation: str = "max",
    exclude_roots: bool = False,
    root_as_prediction: bool = False,
    k: float = 2.0,
    namespaces: Sequence[str] | None = None,
    targets: Sequence[str] | PathLike | None = None,
    protein_weighting: str = "none",
    terms_of_interest: Sequence[str] | None = None,
    excluded_terms: Sequence[str] | None = None,
):  # noqa: ANN201 - EvaluationResult
    """Protein-centric evaluation: curves over thresholds and their optima.

    Parameters
    ----------
    ontology : Ontology or path
        The ontology (an OBO path is loaded with ``relations``).
    truth : Annotations or path
        Ground truth (``protein<TAB>term`` or GAF); propagated here.
    predictions : mapping name -> Annotations (or path, or started read), or paths
        Files and directories (walked) give one method per file.
    ia : ndarray of shape (n_terms,) or path, optional
        Information accretion (bits). Without it (and without
        ``ia_annotations``) the IA-based measures are not computed.
    ia_annotations : Annotations or path, optional
        Estimate IA from these annotations instead (pseudo-count ``pseudocount``).
    thresholds : 'exact' or float
        ``'exact'``: every distinct propagated score (the reported optimum is
        the true one); a float step such as 0.01 gives ``tau_j = j * step``.
    normalization : {'cafa', 'pred', 'gt'}
    propagation : {'max', 'fill'}
    exclude_roots : bool
        Drop root terms from truth and predictions (CAFA2 ``noroot``).
    root_as_prediction : bool
        Count the root as predicted for every protein (CR13 §3.4).
    k : float
        Order of ``S_k``.
    namespaces : list of str, optional
        Labels (``BPO``...) or OBO names; default all.
    targets : list of str or path, optional
        Benchmark proteins (e.g. no-knowledge targets).
    protein_weighting : {'none', 'information'}
    terms_of_interest, excluded_terms : list of str, optional
        Restrict the evaluation to / remove these terms.

    Returns
    -------
    EvaluationResult
        ``.curves``, ``.summary`` (pandas) and ``.diagnostics``.

    Examples
    --------
    >>> import goeval
    >>> res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
    ...                       [goeval.example_path("predictions")], ia=goeval.example_path("ia"),
    ...                       thresholds=0.01)
    >>> row = res.summary.set_index("measure").loc["fmax"]
    >>> round(float(row["value"]), 3), float(row["threshold"])
    (0.486, 0.46)
    """
    from goeval.evaluation import evaluate_annotations
    from goeval.ia import information_accretion

    import time

    from goeval.evaluation import check_options

    check_options(thresholds, normalization, propagation, protein_weighting, k)  # before reading anything
    clock = time.perf_counter
    timings: dict[str, float] = {}
    t0 = clock()
    diag_extra: dict[str, Any] = {"timings_seconds": timings}
    pred_paths: dict[str, Path] = {}
    if not isinstance(predictions, Mapping):
        plist = [predictions] if isinstance(predictions, (str, Path)) else list(predictions)
        pred_paths = prediction_files(plist)
    # The ontology is parsed (half of it in a forked process) while the
    # prediction files are read: a started read (a callable returning a
    # PairTable, see goeval.io.tables.start_read_predictions) is used as is,
    # otherwise the first file is read in a thread (pyarrow releases the GIL).
    if isinstance(ontology, Ontology):
        finish_obo = None
    elif callable(ontology):  # a read started with goeval.io.obo.start_read_obo
        finish_obo = ontology
    else:
        finish_obo = start_read_obo(ontology)
    preds: dict[str, Annotations] = {}
    started: dict[str, Any] = {}
    if isinstance(predictions, Mapping):
        for name, value in predictions.items():
            if isinstance(value, Annotations):
                preds[name] = value
            elif callable(value):
                started[name] = value
            else:
                pred_paths[name] = Path(value)
    with ThreadPoolExecutor(max_workers=1) as pool:
        futures = {name: pool.submit(read_predictions, p) for name, p in pred_paths.items()}
        onto = ontology if finish_obo is None else build_ontology(finish_obo(), tuple(relations))
        timings["ontology"] = clock() - t0
        tr = truth if isinstance(truth, Annotations) else load_annotations(truth, onto)
        timings["truth"] = clock() - t0 - sum(timings.values())
        for name in list(started):
            table = started.pop(name)()
            preds[name] = map_table(table, onto)
            del table
        for name in list(futures):
            table = futures.pop(name).result()  # drop the future: it holds the table
            preds[name] = map_table(table, onto)
            del table
        timings["predictions (wait + map)"] = clock() - t0 - sum(timings.values())
    ia_arr = None
    if ia is not None and ia_annotations is not None:
        raise InvalidParameterError("Give either 'ia' or 'ia_annotations', not both.")
    if ia is not None:
        if isinstance(ia, np.ndarray):
            ia_arr = ia
        else:
            ia_arr, diag_extra["ia"] = load_ia(ia, onto)
            if diag_extra["ia"]["ontology_terms_missing_from_file"]:
                diag_extra["ia"]["note"] = "terms missing from the IA file have ia = 0"
    elif ia_annotations is not None:
        ann = ia_annotations if isinstance(ia_annotations, Annotations) else load_annotations(ia_annotations, onto)
        est = information_accretion(onto, ann, pseudocount)
        ia_arr = est.values
        diag_extra["ia"] = {"estimated_from": ann.diagnostics.get("source"), **est.diagnostics}
    tg = None
    if targets is not None:
        tg = load_targets(targets) if isinstance(targets, (str, Path)) else np.asarray(list(targets), dtype=object)

    def term_idx(ids: Sequence[str] | None, what: str) -> np.ndarray | None:
        if ids is None:
            return None
        idx, _status = onto.resolve(list(ids))
        if (idx < 0).any():
            bad = [t for t, i in zip(ids, idx) if i < 0][:5]
            warnings.warn(f"{int((idx < 0).sum())} {what} are not in the ontology and are ignored (e.g. {bad}).",
                          GoevalWarning, stacklevel=3)
            diag_extra[f"{what}_unknown"] = int((idx < 0).sum())
        return idx[idx >= 0]

    timings["ia and options"] = clock() - t0 - sum(timings.values())
    res = evaluate_annotations(
        onto, tr, preds, ia=ia_arr, thresholds=thresholds, normalization=normalization,
        propagation=propagation, exclude_roots=exclude_roots, root_as_prediction=root_as_prediction,
        k=k, namespaces=list(namespaces) if namespaces else None, targets=tg,
        protein_weighting=protein_weighting,
        terms_of_interest=term_idx(terms_of_interest, "terms of interest"),
        excluded_terms=term_idx(excluded_terms, "excluded terms"),
    )
    timings["evaluation"] = clock() - t0 - sum(timings.values())
    res.diagnostics.update(diag_extra)
    return res
