"""Path-taking entry points: load files through :mod:`goeval.io`, then compute.

These are the functions a notebook user calls; everything below them works
on in-memory objects. :func:`evaluate` is "load the inputs" followed by
:func:`goeval.evaluation.evaluate_annotations`, with the checks that make a
run loud about what it could not use (an IA file for another namespace,
predictions for none of the benchmark proteins, targets without truth).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FuturesTimeout
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter
from typing import Any

import numpy as np

from goeval.annotations import Annotations, map_table, merge_annotations
from goeval.diagnostics import Diagnostics
from goeval.errors import GoevalError, InvalidParameterError
from goeval.hints import id_form_hint, newer_ontology_hint, stale_ontology_hint
from goeval.information.accretion import InformationAccretion, information_accretion
from goeval.information.content import term_information_content
from goeval.io.files import PathLike, check_input, is_compressed
from goeval.io.gaf import DEFAULT_EVIDENCE
from goeval.io.ia import read_ia
from goeval.io.idlist import read_id_list
from goeval.io.ontology_cache import StartedOntology, load_cached_ontology, start_ontology
from goeval.io.pairs import PairTable
from goeval.io.paths import find_prediction_files, prediction_files
from goeval.io.readers import PredictionInput, SpilledPredictions, prediction_file
from goeval.io.predictions.keep import ProteinFilter
from goeval.io.truth import read_annotation_tables
from goeval.ontology import Ontology, build_ontology
from goeval.options import EvaluationOptions, RunOptions
from goeval.progress import say_stage, stage
from goeval.report.text import describe_ia, describe_reading, describe_targets

__all__ = [
    "load_ontology",
    "load_annotations",
    "load_predictions",
    "load_ia",
    "load_targets",
    "prediction_files",
    "evaluate",
    "check_inputs",
    "ia_values",
    "dropped_terms_warning",
]

#: Share of an evaluated namespace's terms an IA file must cover before a warning.
IA_COVERAGE_WARNING = 0.5
#: Share of truth lines dropped (unknown, obsolete) before a warning.
TRUTH_DROP_WARNING = 0.1


def load_ontology(path: PathLike, relations: Sequence[str] = ("is_a", "part_of"),
                  cache: bool | PathLike = True) -> Ontology:
    """Load an OBO ontology (plain, .gz, .bz2, .xz) following ``relations``.

    Parameters
    ----------
    path : path
        The OBO file.
    relations : sequence of str
        Relations to follow.
    cache : bool or path, default True
        Read the built ontology from the compiled-ontology cache and store it
        there after a parse (True: the user cache directory,
        ``$GOEVAL_CACHE_DIR`` or ``~/.cache/goeval``; a path: that cache file;
        False: always parse). The result is the same either way; see
        :mod:`goeval.io.ontology_cache`.

    Examples
    --------
    >>> import goeval
    >>> onto = goeval.load_ontology(goeval.example_path("ontology"))
    >>> onto.labels, onto.n_terms
    (('MFO',), 9571)
    """
    return load_cached_ontology(path, tuple(relations), cache)[0]


def load_annotations(
    path: PathLike | Sequence[PathLike], ontology: Ontology, *,
    evidence: Sequence[str] | None = DEFAULT_EVIDENCE, gaf: bool | None = None,
) -> Annotations:
    """Load annotations (``protein<TAB>term`` or GAF) mapped on ``ontology``.

    Parameters
    ----------
    path : path or sequence of paths
        One file, or several (e.g. one per species) whose annotations are
        merged: a protein in several files gets the union of its terms.
    ontology : Ontology
    evidence : sequence of str or None
        Evidence codes kept from GAF files (``None`` keeps every code).
    gaf : bool, optional
        Force (or forbid) GAF parsing; by default GAF files are recognised by
        their content (``!gaf-version``, 15 or 17 tab-separated columns), else
        by a ``.gaf`` name (:func:`goeval.io.kinds.sniff`).

    Returns
    -------
    Annotations
        Not propagated; ``diagnostics`` counts every remapped or dropped row
        (per file under ``"parts"`` when there are several).
    """
    return _annotations_of(_truth_tables(path, evidence, gaf), ontology)


def _truth_tables(path: PathLike | Sequence[PathLike], evidence: Sequence[str] | None = DEFAULT_EVIDENCE,
                  gaf: bool | None = None) -> list[PairTable]:
    return read_annotation_tables(path if isinstance(path, (str, Path)) else list(path),
                                  None if evidence is None else tuple(evidence), gaf)


def _annotations_of(tables: list[PairTable], ontology: Ontology) -> Annotations:
    """Annotation tables mapped on ``ontology`` and merged."""
    parts = [map_table(t, ontology) for t in tables]
    return parts[0] if len(parts) == 1 else merge_annotations(parts)


def load_predictions(path: PathLike, ontology: Ontology) -> Annotations:
    """Load one prediction file (CAFA format or 3-column TSV) mapped on ``ontology``."""
    return map_table(prediction_file(path).read(), ontology)


def load_ia(path: PathLike, ontology: Ontology, namespaces: Sequence[str] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """Load an IA file; return ia per term index (bits) and the counts.

    Terms of the ontology missing from the file get 0 (counted, as
    CAFA-evaluator does); file terms that are alt_ids are mapped, unknown or
    obsolete ones are counted and ignored. ``namespaces`` restricts the
    count of missing terms (and ``missing_by_namespace``) to the namespaces
    evaluated.
    """
    terms, values, counts = read_ia(path)
    idx, status = ontology.resolve(terms)
    ia = np.zeros(ontology.n_terms)
    ok = idx >= 0
    seen = np.zeros(ontology.n_terms, bool)
    order = np.argsort(status[ok], kind="stable")[::-1]  # primary ids win over alt_ids of the same term
    ia[idx[ok][order]] = values[ok][order]
    seen[idx[ok]] = True
    counts = dict(counts, source=str(path))
    counts["terms_not_in_ontology"] = int((~ok).sum())
    labels = list(ontology.labels) if namespaces is None else [ontology.labels[ontology.namespace_index(n)]
                                                                for n in namespaces]
    missing = {}
    for label in labels:
        s = ontology.namespace_slice(label)
        missing[label] = {"terms": s.stop - s.start, "missing": int((~seen[s]).sum())}
    counts["missing_by_namespace"] = missing
    counts["ontology_terms_missing_from_file"] = int(sum(v["missing"] for v in missing.values()))
    return ia, counts


def load_targets(path: PathLike) -> np.ndarray:
    """Load a list of protein identifiers (one per line)."""
    return read_id_list(path)


# ---------------------------------------------------------------- evaluate
@dataclass
class _Inputs:
    """Everything an evaluation reads, loaded and mapped on one ontology."""

    ontology: Ontology
    truth: Annotations
    predictions: dict[str, Annotations]
    ia: np.ndarray | None = None
    targets: np.ndarray | None = None
    terms_of_interest: np.ndarray | None = None
    excluded_terms: np.ndarray | None = None
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    known: Annotations | None = None
    ic: np.ndarray | None = None


def _finish(started: Any) -> Any:
    """The value of a started read (a Background or a pending ontology)."""
    return started.result() if hasattr(started, "result") else started()


def _cancel(started: Any) -> None:
    cancel = getattr(started, "cancel", None)
    if cancel is not None:
        cancel()


def check_inputs(**inputs: Any) -> None:
    """The inputs of an evaluation, before anything is read: every path exists and is readable, and
    exclusive inputs are not both given (``ia`` and ``ia_annotations``).

    Keywords are :func:`evaluate`'s input names (``ontology``, ``truth``,
    ``ia``, ``ia_annotations``, ``targets``, ``terms_of_interest``,
    ``excluded_terms``, ``known``, ``ic_annotations``); a value may be a path, a
    list of paths or an object already in memory (not checked).

    Raises
    ------
    InvalidParameterError
        ``ia`` and ``ia_annotations`` both given.
    InputFormatError, FileNotFoundError, PermissionError
        A path that cannot be read (naming it and what it is for).
    """
    if inputs.get("ia") is not None and inputs.get("ia_annotations") is not None:
        raise InvalidParameterError("Give either 'ia' (--ia) or 'ia_annotations' (--ia-annotations), not both.")
    for name, value in inputs.items():
        several = name in _PATH_LISTS and isinstance(value, (list, tuple))  # else a list holds ids, not files
        values = value if several else [value]
        for v in values:
            if isinstance(v, (str, Path)):
                check_input(v, _INPUT_NAMES.get(name, name))


#: Inputs that may be several files (merged); the other inputs given as a list hold identifiers.
_PATH_LISTS = frozenset({"truth", "ia_annotations", "known", "ic_annotations"})
#: How the error messages name each input.
_INPUT_NAMES = {"ia": "IA", "ia_annotations": "IA annotations", "terms_of_interest": "terms of interest",
                "excluded_terms": "excluded terms", "known": "known terms", "ic_annotations": "IC annotations"}


def _resolve_predictions(predictions: Any, pattern: str | None, diag: Diagnostics) -> dict[str, Any]:
    """Method name -> Annotations, started read or path."""
    if isinstance(predictions, Mapping):
        return dict(predictions)
    plist = [predictions] if isinstance(predictions, (str, Path)) else list(predictions)
    found = find_prediction_files(plist, pattern)
    if found.skipped:
        diag["skipped_files"] = [(str(p), why) for p, why in found.skipped]
    for path in found.files.values():
        check_input(path, "prediction")
    return dict(found.files)


def _term_indices(onto: Ontology, ids: Sequence[str] | None, what: str, diag: Diagnostics) -> np.ndarray | None:
    if ids is None:
        return None
    ids = list(load_targets(ids)) if isinstance(ids, (str, Path)) else list(ids)
    idx, _status = onto.resolve(ids)
    if (idx < 0).any():
        bad = [t for t, i in zip(ids, idx) if i < 0][:5]
        diag[f"{what}_unknown"] = int((idx < 0).sum())
        diag.warn(f"{int((idx < 0).sum())} of the {len(ids)} {what} are not in the ontology and are ignored "
                  f"(e.g. {', '.join(bad)}).")
    return idx[idx >= 0]


def _load_ia(onto: Ontology, ia: Any, ia_annotations: Any, opts: EvaluationOptions, diag: Diagnostics,
             namespaces: Sequence[str] | None = None) -> np.ndarray | None:
    """The IA given or estimated; the terms an IA file misses are counted in ``namespaces`` (default: the
    evaluated ones, ``opts.namespaces``)."""
    if ia is not None:
        with stage("reading the IA", quiet=not isinstance(ia, (str, Path))) as st:
            values, counts = ia_values(ia, onto, opts.namespaces if namespaces is None else namespaces)
            if counts:
                diag["ia"] = counts
            if "rows" in counts:
                st.line = describe_ia(counts)
                diag.said.add("ia")
        return values
    if ia_annotations is not None:
        with stage("estimating the IA") as st:
            ann = ia_annotations if isinstance(ia_annotations, Annotations) else load_annotations(ia_annotations, onto)
            est = information_accretion(onto, ann, opts.pseudocount)
            diag["ia"] = {"estimated_from": ann.diagnostics.get("source"), **est.diagnostics}
            st.note = f"from {ann.diagnostics.get('source', 'annotations')}, {ann.proteins.size:,} proteins"
        return est.values
    return None


def ia_values(ia: Any, ontology: Ontology, namespaces: Sequence[str] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """Information accretion in any form a user holds it, as bits per term index of ``ontology``.

    Parameters
    ----------
    ia : path, mapping, ndarray, InformationAccretion or (ndarray, dict)
        An IA file (:func:`load_ia`), a mapping ``term id -> bits`` (alt_ids
        mapped, unknown ids counted), an array of one value per term, an
        :class:`~goeval.information.accretion.InformationAccretion`, or what
        :func:`load_ia` returns.
    ontology : Ontology
    namespaces : sequence of str, optional
        The namespaces evaluated (what the counts of missing terms refer to).

    Returns
    -------
    values : ndarray of float64, shape (n_terms,)
    counts : dict
        What was read and mapped (empty for an array).

    Raises
    ------
    InvalidParameterError
        Any other type, an array of the wrong shape, or an estimate made on another ontology.
    """
    if isinstance(ia, (str, Path)):
        return load_ia(ia, ontology, namespaces)
    if isinstance(ia, tuple) and len(ia) == 2 and isinstance(ia[1], dict):  # what load_ia returns
        ia = ia[0]
    if isinstance(ia, InformationAccretion):
        if ia.ontology is not ontology:
            raise InvalidParameterError("The 'ia' parameter of evaluate was estimated on another Ontology object.")
        return np.asarray(ia.values, np.float64), {"estimated": dict(ia.diagnostics)}
    if isinstance(ia, Mapping):
        return _ia_of_mapping(ia, ontology)
    if isinstance(ia, np.ndarray) or (isinstance(ia, (list, tuple)) and all(isinstance(x, (int, float)) for x in ia)):
        values = np.asarray(ia, np.float64)
        if values.shape != (ontology.n_terms,):
            raise InvalidParameterError(f"The 'ia' parameter of evaluate must hold one value per term "
                                        f"({ontology.n_terms}); got an array of shape {values.shape}.")
        return values, {}
    raise InvalidParameterError("The 'ia' parameter of evaluate must be an IA file, a mapping term -> bits, an array "
                                "of one value per term, an InformationAccretion or what load_ia returns; got "
                                f"{type(ia).__name__}.")


def _ia_of_mapping(ia: Mapping[str, Any], ontology: Ontology) -> tuple[np.ndarray, dict[str, Any]]:
    """IA given as ``term id -> bits``: every id resolved on the ontology, unknown ones counted."""
    terms = list(ia)
    idx, status = ontology.resolve(terms)
    values = np.zeros(ontology.n_terms)
    ok = idx >= 0
    order = np.argsort(status[ok], kind="stable")[::-1]  # primary ids win over alt_ids of the same term
    values[idx[ok][order]] = np.asarray([float(ia[t]) for t in terms], np.float64)[ok][order]
    unknown = [t for t, i in zip(terms, idx) if i < 0]
    counts = {"source": "<mapping>", "terms_read": len(terms), "terms_not_in_ontology": len(unknown)}
    if unknown:
        counts["examples_not_in_ontology"] = unknown[:10]
    return values, counts


def _read_ontology(ontology: Any, opts: EvaluationOptions) -> Ontology:
    """The ontology of an evaluation: given, loaded, or a started read finished (a stage)."""
    if isinstance(ontology, Ontology):
        return ontology
    name = ontology.path if isinstance(ontology, StartedOntology) else ontology
    with stage(f"reading the ontology {name}") as st:
        if isinstance(ontology, (str, Path)):
            onto = load_ontology(ontology, opts.relations)
        elif isinstance(ontology, StartedOntology):
            onto = _finish(ontology)
            st.note = ontology.record.describe_short()
        else:
            onto = build_ontology(_finish(ontology), opts.relations)
        st.line = f"ontology {name}: {onto.n_terms:,} terms" + (f", {st.note}" if st.note else "")
    return onto


def _read_truth(truth: Any, onto: Ontology, diag: Diagnostics, tables: list[PairTable] | None = None) -> Annotations:
    """The truth read (or its ``tables`` already read) and mapped on the ontology (a stage whose line says what
    was read and dropped)."""
    with stage("reading the truth") as st:
        tr = load_annotations(truth, onto) if tables is None else _annotations_of(tables, onto)
        st.line = describe_reading(f"truth {truth}", {**tr.diagnostics, "n_proteins": int(tr.proteins.size)})
    diag.said.add("truth")
    return tr


class PredictionReads:
    """Prediction files read in threads, only the kept proteins' lines parsed (started at once).

    :meth:`tables` waits for them in a stage whose bar counts the bytes of text read (lines/s on a
    terminal) and whose line says what was read.

    Parameters
    ----------
    files : mapping of str to path or PredictionInput
        Method -> prediction file.
    keep : ProteinFilter or None
        The proteins whose lines are parsed (the others are counted).
    threads : int, optional
        Files read at once (default: all cores).
    spill : int, optional
        Instead of tables, each file's kept batches of ``spill`` rows in a
        :class:`~goeval.io.readers.SpilledPredictions` (bounded memory,
        replayed by every evaluation that streams them).
    """

    def __init__(self, files: Mapping[str, Any], keep: ProteinFilter | None, threads: int | None = None,
                 spill: int | None = None) -> None:
        self.files = dict(files)
        self.done = dict.fromkeys(self.files, 0)
        self.pool = ThreadPoolExecutor(max_workers=max(1, min(threads or os.cpu_count() or 1, len(files) or 1)))
        self.futures = {name: self.pool.submit(_read, path, keep, self._noter(name), spill)
                        if isinstance(path, (str, Path, PredictionInput)) else _Started(path)
                        for name, path in self.files.items()}

    def _noter(self, name: str) -> Callable[[int], None]:
        def note(n: int) -> None:
            self.done[name] = n
        return note

    def cancel(self) -> None:
        """Stop the reads not started (those under way end with their file)."""
        for f in self.futures.values():
            f.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)

    def tables(self) -> dict[str, PairTable]:
        """Every file's table, in file order (a stage)."""
        sizes = {name: _file_size(p) for name, p in self.files.items()}
        plain = not any(is_compressed(str(p)) for p in self.files.values() if isinstance(p, (str, Path, PredictionInput)))
        out: dict[str, PairTable] = {}
        with stage(f"reading {_plural_files(len(self.files))}", total=sum(sizes.values()) if plain else None,
                   unit="B", unit_scale=True, quiet=not self.files) as st:
            shown = 0
            for name, fut in self.futures.items():
                while True:
                    try:
                        out[name] = fut.result(timeout=0.25)
                        break
                    except FuturesTimeout:
                        shown = self._show(st, shown)
            self._show(st, shown)
            lines = sum(_lines(t) for t in out.values())
            st.line = f"predictions: {_plural_files(len(out))}, {_bytes(sum(sizes.values()))}, {lines:,} lines"
        self.pool.shutdown()
        return out

    def _show(self, st: Any, shown: int) -> int:
        now = sum(self.done.values())
        st.update(now - shown)
        return now


def _read(path: Any, keep: ProteinFilter | None, progress: Callable[[int], None],
          spill: int | None = None) -> PairTable | SpilledPredictions:
    """One prediction file read whole through the reader of its kind (only the kept proteins' lines parsed),
    or its kept batches spilled."""
    pred = prediction_file(path) if isinstance(path, (str, Path)) else path
    if spill is not None:
        return SpilledPredictions(pred, keep, spill, progress)
    return pred.read(keep=keep, progress=progress)


def _lines(read: PairTable | SpilledPredictions) -> int:
    """The lines of a file read (rows kept and rows not parsed)."""
    counts = read.counts if isinstance(read, PairTable) else (read.scan.counts if read.scan is not None else {})
    return int(counts.get("rows", 0)) + int(counts.get("unread", {}).get("rows", 0))


class _Started:
    """A read started by the caller (a :class:`~goeval.io.background.Background`), waited for as a future."""

    def __init__(self, pending: Any) -> None:
        self.pending = pending

    def result(self, timeout: float | None = None) -> Any:
        return _finish(self.pending)

    def cancel(self) -> bool:
        _cancel(self.pending)
        return True


def _read_predictions(predictions: dict[str, Any], reads: PredictionReads, onto: Ontology) -> dict[str, Annotations]:
    """Every method's predictions mapped on the ontology, in the methods' order."""
    tables = reads.tables()
    out = {}
    for name, value in predictions.items():
        if isinstance(value, Annotations):
            out[name] = value
        else:  # read by ``reads`` (or a read the caller started, waited for there)
            out[name] = map_table(tables.pop(name), onto)
    return out


def _file_size(value: Any) -> int:
    path = value if isinstance(value, (str, Path)) else getattr(value, "path", None)
    try:
        return os.path.getsize(path) if path is not None else 0
    except OSError:
        return 0


def _bytes(n: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n} GB"  # pragma: no cover - the loop returns


def _plural_files(n: int) -> str:
    return "1 prediction file" if n == 1 else f"{n} prediction files"


def _load_inputs(ontology: Any, truth: Any, predictions: dict[str, Any], opts: EvaluationOptions, *,
                 ia: Any, ia_annotations: Any, targets: Any, terms_of_interest: Any, excluded_terms: Any,
                 diag: Diagnostics, threads: int | None = None) -> _Inputs:
    """Finish started reads, read the rest, map everything on the ontology.

    The prediction files not already started are read in ``threads``
    threads (default: all cores) while the ontology is parsed (pyarrow
    releases the GIL); mapping happens in file order, so results do not
    depend on the number of threads.
    """
    clock = perf_counter()
    paths = {n: p for n, p in predictions.items() if not isinstance(p, Annotations)}  # files, or reads started
    tables = None if isinstance(truth, Annotations) else _truth_tables(truth)
    reads = PredictionReads(paths, ProteinFilter.of([truth] if tables is None else tables), threads)
    try:
        onto = _read_ontology(ontology, opts)
        diag.add_timing("ontology", perf_counter() - clock)
        tr = truth if tables is None else _read_truth(truth, onto, diag, tables)
        preds = _read_predictions(predictions, reads, onto)
    except BaseException:
        reads.cancel()
        raise
    diag.add_timing("truth and predictions", perf_counter() - clock - diag.timings["ontology"])
    tg = None
    if targets is not None:
        tg = load_targets(targets) if isinstance(targets, (str, Path)) else np.asarray(list(targets), dtype=object)
    return _Inputs(onto, tr, preds, _load_ia(onto, ia, ia_annotations, opts, diag, _truth_namespaces(onto, tr, opts)), tg,
                   _term_indices(onto, terms_of_interest, "terms of interest", diag),
                   _term_indices(onto, excluded_terms, "excluded terms", diag), diag)


def _truth_namespaces(onto: Ontology, truth: Annotations, opts: EvaluationOptions) -> list[str]:
    """The namespaces evaluated (``opts.namespaces``, default all) in which the truth has a term, in ontology order."""
    cols = truth.matrix.tocsr().indices
    held = set(np.unique(onto.namespace_of[cols]).tolist()) if cols.size else set()
    asked = {onto.namespace_index(n) for n in (opts.namespaces or onto.labels)}
    return [onto.labels[j] for j in sorted(held & asked)]


def evaluate(
    ontology: Ontology | PathLike,
    truth: Annotations | PathLike,
    predictions: Mapping[str, Annotations] | Sequence[PathLike] | PathLike,
    *,
    options: EvaluationOptions | None = None,
    ia: np.ndarray | PathLike | None = None,
    ia_annotations: Annotations | PathLike | None = None,
    targets: Sequence[str] | PathLike | None = None,
    terms_of_interest: Sequence[str] | PathLike | None = None,
    excluded_terms: Sequence[str] | PathLike | None = None,
    pattern: str | None = None,
    preset: str | None = None,
    threads: int | None = None,
    bootstrap: int | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    known: Annotations | PathLike | Sequence[PathLike] | None = None,
    ic_annotations: Annotations | PathLike | Sequence[PathLike] | None = None,
    executor: Any = None,
    stream: bool = False,
    run: RunOptions | None = None,
    allow_empty: bool = False,
    **option_overrides: Any,
):  # noqa: ANN201 - EvaluationResult
    """Protein-centric evaluation: curves over thresholds and their optima.

    Parameters
    ----------
    ontology : Ontology or path
        The ontology (an OBO path is loaded with ``options.relations``,
        through the compiled-ontology cache; give
        ``load_ontology(path, cache=False)`` to bypass it).
    truth : Annotations or path
        Ground truth (``protein<TAB>term`` or GAF); propagated here.
    predictions : mapping name -> Annotations, or paths
        Files and directories (walked; non-prediction files are skipped and
        reported) give one method per file.
    options : EvaluationOptions, optional
        How to evaluate; single fields can be given as keywords instead
        (``thresholds=0.01``, ``normalization='cafa'``, ``propagation``,
        ``exclude_roots``, ``root_as_prediction``, ``k``, ``namespaces``,
        ``protein_weighting``, ``relations``, ``pseudocount``), validated the
        same way (see :class:`~goeval.options.EvaluationOptions`).
    ia : ndarray of shape (n_terms,) or path, optional
        Information accretion (bits). Without it (and without
        ``ia_annotations``) the IA-based measures are not computed.
    ia_annotations : Annotations or path, optional
        Estimate IA from these annotations instead (``options.pseudocount``).
    targets : list of str or path, optional
        Benchmark proteins (e.g. no-knowledge targets).
    terms_of_interest, excluded_terms : list of str or path, optional
        Restrict the evaluation to / remove these terms.
    pattern : str, optional
        Glob choosing the prediction files in directories (``*.tsv.gz``).
    preset : {'cafa5', 'cafa6'}, optional
        Start from a named option set (:data:`goeval.options.PRESETS`);
        ``options`` must then be None, keywords override the preset.
        Both need IA.
    threads : int, optional
        Threads reading prediction files and evaluating methods (default: all
        cores). Results do not depend on it, bit for bit.
    bootstrap : int, optional
        B >= 2: add bootstrap percentile intervals (``ci_low``, ``ci_high``,
        ``se``) of the optima, from B resamples of each namespace's benchmark
        proteins shared by every method (``docs/statistics.md``).
    seed : int, default 0
        Seed of the resamples (the same seed gives the same bits).
    confidence : float, default 0.95
        Coverage of the intervals.
    known : Annotations or path(s), optional
        Each protein's known terms (e.g. its annotations at t0, CAFA's
        partial-knowledge evaluation): they are propagated and removed from
        that protein's truth and predictions.
    ic_annotations : Annotations or path(s), optional
        Annotations the term information content of ``similarity`` measures
        is estimated from (default: the source of an estimated IA, else the
        truth, with a warning that test annotations then inform the measure).
    executor : concurrent.futures.Executor, optional
        Where the evaluation's (method, namespace, chunk of proteins) tasks
        run: a ``ProcessPoolExecutor``, a Dask ``Client.get_executor()``
        (:func:`goeval.evaluation.parallel.dask_executor`), anything with ``submit``.
        The chunks and the order their sums are added in are fixed, so the
        result is the serial one, bit for bit (``threads`` then only reads).
    stream : bool, default False
        Read prediction files in batches and evaluate them leaf by leaf
        (:mod:`goeval.evaluation.sources`): memory no longer grows with the
        files. A file not grouped by protein is read whole instead, with a
        warning. The same bits either way, with every option.
    run : RunOptions, optional
        The run options (``threads``, ``executor``, ``stream``, ``bootstrap``,
        ``seed``, ``confidence``, ``pattern``, ``preset``) as one validated
        object, instead of one by one.
    allow_empty : bool, default False
        When nothing at all is evaluated, return the result without rows
        (``diagnostics["nothing_evaluated"]`` says why: the caller says it)
        instead of raising: for a caller that evaluates parts of a larger
        run, one of which may legitimately hold nothing.

    Returns
    -------
    EvaluationResult
        ``.curves``, ``.summary`` (pandas) and ``.diagnostics``
        (a :class:`~goeval.diagnostics.Diagnostics`).

    Raises
    ------
    InvalidParameterError
        An invalid option, before any file is read.
    InputFormatError
        A missing or malformed input, naming file and line.
    GoevalError
        Nothing at all was evaluated ("nothing was evaluated: " and why: no
        prediction of a benchmark protein, no truth in the evaluated
        namespaces, no target with truth...), as ``goeval evaluate`` fails;
        ``allow_empty=True`` returns the empty result instead.

    Warns
    -----
    GoevalWarning
        About inputs the run could not use (an IA file for another
        namespace, predictions for none of the benchmark proteins, targets
        without truth), an ontology that looks older or newer than the
        annotations, and (with ``allow_empty``) when nothing at all was
        evaluated. Each names the line of the caller's code that ran the
        evaluation.

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
    run = _run_options(run, threads=threads, executor=executor, stream=stream, bootstrap=bootstrap, seed=seed,
                       confidence=confidence, pattern=pattern, preset=preset)
    opts = run.options(options, with_ia=ia is not None or ia_annotations is not None, **option_overrides)
    threads, executor, stream, pattern = run.threads, run.executor, run.stream, run.pattern
    bootstrap, seed, confidence = run.bootstrap, run.seed, run.confidence
    diag = Diagnostics()
    check_inputs(ontology=ontology, truth=truth, ia=ia, ia_annotations=ia_annotations, targets=targets,
                 terms_of_interest=terms_of_interest, excluded_terms=excluded_terms, known=known,
                 ic_annotations=ic_annotations)
    with diag.capture():  # what lower-level functions warn about is a fact of this run
        preds = _resolve_predictions(predictions, pattern, diag)
        preds, stream_files = _deferred_files(preds, stream, executor, diag)
        started = [v for v in [ontology, *preds.values()] if hasattr(v, "cancel")]
        if isinstance(ontology, (str, Path)):
            ontology = start_ontology(ontology, opts.relations)
            started.append(ontology)
        try:
            inputs = _load_inputs(ontology, truth, preds, opts, ia=ia, ia_annotations=ia_annotations, targets=targets,
                                  terms_of_interest=terms_of_interest, excluded_terms=excluded_terms, diag=diag,
                                  threads=threads)
        finally:
            for s in started:
                _cancel(s)
        _load_extra(inputs, known, ic_annotations if ic_annotations is not None else (
            ia_annotations if opts.similarity else None), opts)
        res = _evaluate_inputs(inputs, opts, threads, (bootstrap, seed, confidence), executor, stream_files, stream)
    why = res.diagnostics.get("nothing_evaluated")
    if why and not allow_empty:
        raise GoevalError(f"nothing was evaluated: {why}.")
    return res


def _deferred_files(preds: dict[str, Any], stream: bool, executor: Any,
                    diag: Diagnostics) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(predictions read now, prediction files read by the evaluation): the files are left to the evaluation when
    they are streamed, or when an executor has no more workers than files (each file is then one task, read
    and evaluated on a worker)."""
    files = all(isinstance(p, (str, Path, PredictionInput)) for p in preds.values())
    if not stream and not (files and preds and executor is not None and _per_file_tasks(executor, len(preds))):
        return preds, None
    if not files:
        diag.warn("the prediction files are read whole, not streamed: predictions were given in memory.")
        return preds, None
    return {}, {n: prediction_file(p) if isinstance(p, (str, Path)) else p for n, p in preds.items()}


def _per_file_tasks(executor: Any, n_files: int) -> bool:
    from goeval.evaluation.engine import executor_workers  # deferred: as _evaluate_inputs

    return n_files >= executor_workers(executor)


def _load_extra(inputs: _Inputs, known: Any, ic_annotations: Any, opts: EvaluationOptions) -> None:
    """The known terms and the IC of the similarity measures, on the inputs' ontology."""
    onto = inputs.ontology
    if known is not None:
        inputs.known = known if isinstance(known, Annotations) else load_annotations(known, onto)
        inputs.diagnostics["known"] = dict(inputs.known.diagnostics, n_proteins=int(inputs.known.proteins.size))
    if opts.similarity and ic_annotations is not None:
        ann = ic_annotations if isinstance(ic_annotations, Annotations) else load_annotations(ic_annotations, onto)
        inputs.ic = term_information_content(onto, ann, opts.pseudocount).values
        inputs.diagnostics["ic"] = {"estimated_from": ann.diagnostics.get("source")}


def _run_options(run: RunOptions | None, **given: Any) -> RunOptions:
    """``run``, or the run options given one by one (not both)."""
    if run is None:
        return RunOptions(**given)
    defaults = RunOptions()
    if any(v != getattr(defaults, k) for k, v in given.items()):
        raise InvalidParameterError("Give the run options either as 'run' or one by one, not both.")
    if not isinstance(run, RunOptions):
        raise InvalidParameterError(f"The 'run' parameter of evaluate must be a RunOptions; got {type(run).__name__}.")
    return run


def _leaf_executor(executor: Any, threads: int | None, parallel: bool) -> Any:
    """Where the leaves run: the given executor, else ``threads`` threads when there is more than one method
    or a file is streamed (one method in memory is swept here: the same speed in less memory), else here."""
    if executor is not None:
        return contextlib.nullcontext(executor)
    n = threads or os.cpu_count() or 1
    if n > 1 and parallel:
        return ThreadPoolExecutor(max_workers=n, thread_name_prefix="goeval-leaf")
    return contextlib.nullcontext(None)


def _evaluate_inputs(inputs: _Inputs, opts: EvaluationOptions, threads: int | None = None,
                     boot: tuple[int | None, int, float] = (None, 0, 0.95), executor: Any = None,
                     stream_files: dict[str, Any] | None = None, stream: bool = False):  # noqa: ANN202
    """The loaded inputs through the engine (:mod:`goeval.evaluation`), then summarized and checked."""
    # deferred: the engine and the bootstrap (~40 ms) load after the command line has forked its readers
    # (goeval evaluate imports this module to check its inputs first); goeval ia and propagate never need them
    from goeval.evaluation import summarize
    from goeval.evaluation.engine import Plan  # deferred: as summarize
    from goeval.evaluation.run import evaluate_blocks, evaluated, prepare_benchmark  # deferred: as summarize

    diag = inputs.diagnostics
    clock = perf_counter()
    _check_targets(inputs, diag)
    onto = inputs.ontology
    diag["ontology"] = {"source": onto.source, **onto.diagnostics}
    bench = prepare_benchmark(onto, inputs.truth, inputs.ia, opts, diag, targets=inputs.targets,
                              terms_of_interest=inputs.terms_of_interest, excluded_terms=inputs.excluded_terms,
                              ic=inputs.ic, known=inputs.known)
    plan = Plan(opts, None, boot[0] is not None, opts.similarity is not None)
    preds = inputs.predictions if stream_files is None else stream_files
    with _leaf_executor(executor, threads, stream_files is not None or len(preds) > 1) as ex:
        stats = evaluated(evaluate_blocks(bench, preds, plan, diag, executor=ex, stream=stream and stream_files is not None))
    for name, why in diag.get("streaming", {}).get("in_memory", {}).items():
        diag.warn(f"method {name}: {stream_files[name]} is read whole, not streamed ({why}).")
    _say_methods(diag)
    with stage("summarizing", min_seconds=1.0) as st:
        res = summarize(stats, opts, inputs.ia is not None, diagnostics=diag)
        st.note = f"{len(res.summary):,} optima"
    if boot[0] is not None:
        from goeval.stats.bootstrap import add_bootstrap_columns  # deferred: as summarize

        add_bootstrap_columns(res, boot[0], boot[1], boot[2], threads=threads)
    diag.add_timing("evaluation", perf_counter() - clock)
    if "truth" in diag:
        diag["truth"]["n_proteins"] = int(inputs.truth.proteins.size)
    _check_result(res, inputs, opts)
    return res


def _say_methods(diag: Diagnostics) -> None:
    """Say, as soon as they are known, the targets kept and each method's lines read, remapped and dropped."""
    if isinstance(diag.get("targets"), dict) and "listed" in diag["targets"]:
        say_stage(describe_targets(diag["targets"]))
    for name, d in diag.get("methods", {}).items():
        say_stage(describe_reading(name, d))
    diag.said.update(("targets", "methods"))


def _check_targets(inputs: _Inputs, diag: Diagnostics) -> None:
    if inputs.targets is None:
        return
    known = set(inputs.truth.proteins.tolist())
    tg = list(dict.fromkeys(inputs.targets.tolist()))
    hits = sum(t in known for t in tg)
    if hits == 0:
        diag["nothing_evaluated"] = (
            f"none of the {len(tg):,} targets has a truth annotation (e.g. {', '.join(map(str, tg[:3]))}); "
            "check that the targets and the truth use the same protein identifiers")
    elif hits < len(tg):
        diag.warn(f"{len(tg) - hits:,} of the {len(tg):,} targets have no truth annotation and are not evaluated.")


def _check_result(res: Any, inputs: _Inputs, opts: EvaluationOptions) -> None:
    """Warn about what a run could not use; say why under ``diagnostics["nothing_evaluated"]`` when it evaluated
    nothing at all (:func:`evaluate` then fails with that message)."""
    diag = res.diagnostics
    _check_truth_drops(diag)
    _check_ontology_release(diag, inputs.ontology)
    _check_ia_coverage(diag, inputs)
    _check_known(diag, inputs)
    methods, hints = diag.get("methods", {}), {}
    for name, d in methods.items():
        if d.get("missing_end"):
            diag.warn(f"method {name}: {d.get('source')} has CAFA header lines but no final END line; "
                      "the file may be truncated.")
        n = sum(ns.get("proteins_with_predictions", 0) for ns in d.get("namespaces", {}).values())
        if n == 0 and "nothing_evaluated" not in diag:
            hint = id_form_hint(d.get("proteins_not_in_truth_examples", ()), inputs.truth.proteins)
            if hint:
                hints.setdefault("ids", hint)
            diag.warn(f"method {name}: none of its {int(d.get('n_proteins', 0)):,} proteins is a benchmark protein "
                      f"of an evaluated namespace ({hint or 'check the protein identifiers and namespaces'}).")
    if res.summary_records:
        return
    if "nothing_evaluated" not in diag:
        bench = {k: v.get("benchmark_proteins", 0) for k, v in diag.get("namespaces", {}).items()}
        if not methods:
            diag["nothing_evaluated"] = "no prediction file was given"
        elif not any(bench.values()):
            diag["nothing_evaluated"] = "no benchmark protein has a truth annotation in the evaluated namespaces"
        else:
            diag["nothing_evaluated"] = "no method has a prediction for a benchmark protein" + (
                f"; {hints['ids']}" if hints.get("ids") else "")


def dropped_terms_warning(counts: dict[str, Any], what: str) -> str | None:
    """The warning for annotations more than 10 % of whose lines name unknown or obsolete terms (None otherwise).

    ``counts`` are the reading diagnostics of the annotations
    (:func:`goeval.annotations.map_table`); ``what`` names them ("truth", "t0").
    """
    st = counts.get("rows_by_term_status", {})
    read = int(counts.get("rows_read", 0))
    lost = int(st.get("unknown", 0)) + int(st.get("obsolete", 0))
    if read and lost > TRUTH_DROP_WARNING * read:
        return (f"{lost:,} of the {read:,} {what} lines ({lost / read:.0%}) name terms that are unknown or obsolete "
                f"in this ontology and were dropped (is it the ontology release the {what} was made with?).")
    return None


def _check_truth_drops(diag: Diagnostics) -> None:
    message = dropped_terms_warning(diag.get("truth", {}), "truth")
    if message:
        diag.warn(message)


def _check_ontology_release(diag: Diagnostics, onto: Ontology) -> None:
    """Warn when the inputs' terms look like those of an older release of the ontology (unknown ids of its form)
    or of a newer one (merged and obsolete ids): :mod:`goeval.hints`."""
    stale = stale_ontology_hint(diag, onto.ids, onto.source, onto.data_version)
    newer = newer_ontology_hint(diag, onto.source, onto.data_version)
    for hint in (stale, newer):
        if hint:
            diag.warn(f"{hint}.")


def _check_known(diag: Diagnostics, inputs: _Inputs) -> None:
    """Warn about evaluated namespaces where the known terms hold nothing (CAFA-evaluator-PK stops there)."""
    if inputs.known is None:
        return
    onto = inputs.ontology
    cols = inputs.known.matrix.tocsr().indices
    present = set(np.unique(onto.namespace_of[cols]).tolist()) if cols.size else set()
    for label, counts in diag.get("namespaces", {}).items():
        if counts.get("benchmark_proteins") and onto.namespace_index(label) not in present:
            diag.warn(f"the known terms hold no {label} term, so nothing is known in {label} "
                      f"({counts['benchmark_proteins']:,} benchmark proteins); CAFA-evaluator-PK stops with a "
                      "KeyError on such a known file (it must cover every namespace of the ground truth).")


def _check_ia_coverage(diag: Diagnostics, inputs: _Inputs) -> None:
    info = diag.get("ia", {})
    for label, m in info.get("missing_by_namespace", {}).items():
        if not diag.get("namespaces", {}).get(label, {}).get("benchmark_proteins"):
            continue  # not evaluated: no benchmark protein there
        have = m["terms"] - m["missing"]
        if m["terms"] and have < IA_COVERAGE_WARNING * m["terms"]:
            diag.warn(f"the IA file {info.get('source')} gives values for only {have:,} of the {m['terms']:,} "
                      f"{label} terms; the others count 0 bits, so {label}'s weighted measures and S are not "
                      "meaningful (an IA file for another namespace?).")
