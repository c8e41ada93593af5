"""Loading an evaluation's inputs: the ontology, truth, predictions, IA and targets, read and mapped.

The path-taking loaders a notebook calls (:func:`load_ontology`,
:func:`load_annotations`, :func:`load_predictions`, :func:`load_ia`,
:func:`load_targets`), the checks made before anything is read
(:func:`check_inputs`), and :func:`load_inputs`, which reads everything an
evaluation needs at once - the prediction files in threads
(:class:`PredictionReads`, only the truth proteins' lines parsed) while the
ontology is parsed - into one :class:`Inputs`. :func:`goeval.evaluate`
(:mod:`goeval.api`) is this followed by the engine.
"""

from __future__ import annotations

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
from goeval.errors import InvalidParameterError
from goeval.information.accretion import InformationAccretion, information_accretion
from goeval.information.content import term_information_content
from goeval.io.files import PathLike, check_input, check_inputs, is_compressed
from goeval.io.gaf import DEFAULT_EVIDENCE
from goeval.io.ia import read_ia
from goeval.io.idlist import read_id_list
from goeval.io.ontology_cache import StartedOntology, load_cached_ontology
from goeval.io.pairs import PairTable
from goeval.io.paths import find_prediction_files, prediction_files
from goeval.io.predictions.keep import ProteinFilter
from goeval.io.readers import PredictionInput, SpilledPredictions, as_prediction_input, prediction_file
from goeval.io.truth import read_annotation_tables
from goeval.ontology import Ontology
from goeval.options import EvaluationOptions
from goeval.progress import stage
from goeval.report.text import describe_ia, describe_reading

__all__ = ["load_ontology", "load_annotations", "load_predictions", "load_ia", "load_targets", "prediction_files",
           "check_inputs", "ia_values", "Inputs", "load_inputs", "load_extra", "PredictionReads", "resolve_predictions",
           "deferred_files", "finish_started", "cancel_started"]


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
@dataclass(kw_only=True)
class Inputs:
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


def finish_started(started: Any) -> Any:
    """The value of a started read (a Background or a pending ontology)."""
    return started.result() if hasattr(started, "result") else started()


def cancel_started(started: Any) -> None:
    cancel = getattr(started, "cancel", None)
    if cancel is not None:
        cancel()


def resolve_predictions(predictions: Any, pattern: str | None, diag: Diagnostics) -> dict[str, Any]:
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
            onto = finish_started(ontology)
            st.note = ontology.record.describe_short()
        else:
            from goeval.ontology import build_ontology  # deferred: a compiled ontology is never built

            onto = build_ontology(finish_started(ontology), opts.relations)
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
    pred = as_prediction_input(path)
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
        return finish_started(self.pending)

    def cancel(self) -> bool:
        cancel_started(self.pending)
        return True


def _read_predictions(predictions: dict[str, Any], reads: PredictionReads, onto: Ontology) -> dict[str, Any]:
    """Every method's predictions mapped on the ontology, in the methods' order (batches being read already,
    :class:`~goeval.io.readers.StartedBatches`, as they are: the engine takes them)."""
    tables = reads.tables()
    out = {}
    for name, value in predictions.items():
        if isinstance(value, Annotations) or getattr(value, "started", False):
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


def load_inputs(ontology: Any, truth: Any, predictions: dict[str, Any], opts: EvaluationOptions, *,
                 ia: Any, ia_annotations: Any, targets: Any, terms_of_interest: Any, excluded_terms: Any,
                 diag: Diagnostics, threads: int | None = None) -> Inputs:
    """Finish started reads, read the rest, map everything on the ontology.

    The prediction files not already started are read in ``threads``
    threads (default: all cores) while the ontology is parsed (pyarrow
    releases the GIL) and its closure computed (the truth's propagation
    needs it next); mapping happens in file order, so results do not
    depend on the number of threads.
    """
    clock = perf_counter()
    # files, or reads started (not batches being read already: the engine takes them as they come)
    paths = {n: p for n, p in predictions.items() if not isinstance(p, Annotations) and not getattr(p, "started", False)}
    tables = None if isinstance(truth, Annotations) else _truth_tables(truth)
    reads = PredictionReads(paths, ProteinFilter.of([truth] if tables is None else tables), threads)
    try:
        onto = _read_ontology(ontology, opts)
        diag.add_timing("ontology", perf_counter() - clock)
        tr = truth if tables is None else _read_truth(truth, onto, diag, tables)
        if paths and not tr.propagated:
            onto.ancestors_csr  # noqa: B018 - needed next (the truth propagated): made while the files are read
        preds = _read_predictions(predictions, reads, onto)
    except BaseException:
        reads.cancel()
        raise
    diag.add_timing("truth and predictions", perf_counter() - clock - diag.timings["ontology"])
    tg = None
    if targets is not None:
        tg = load_targets(targets) if isinstance(targets, (str, Path)) else np.asarray(list(targets), dtype=object)
    return Inputs(ontology=onto, truth=tr, predictions=preds,
                  ia=_load_ia(onto, ia, ia_annotations, opts, diag, _truth_namespaces(onto, tr, opts)), targets=tg,
                  terms_of_interest=_term_indices(onto, terms_of_interest, "terms of interest", diag),
                  excluded_terms=_term_indices(onto, excluded_terms, "excluded terms", diag), diagnostics=diag)


def _truth_namespaces(onto: Ontology, truth: Annotations, opts: EvaluationOptions) -> list[str]:
    """The namespaces evaluated (``opts.namespaces``, default all) in which the truth has a term, in ontology order."""
    cols = truth.matrix.tocsr().indices
    held = set(np.unique(onto.namespace_of[cols]).tolist()) if cols.size else set()
    asked = {onto.namespace_index(n) for n in (opts.namespaces or onto.labels)}
    return [onto.labels[j] for j in sorted(held & asked)]


def deferred_files(preds: dict[str, Any], stream: bool, executor: Any,
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
    return {}, {n: as_prediction_input(p) for n, p in preds.items()}


def _per_file_tasks(executor: Any, n_files: int) -> bool:
    from goeval.evaluation.engine import executor_workers  # deferred: as _evaluate_inputs

    return n_files >= executor_workers(executor)


def load_extra(inputs: Inputs, known: Any, ic_annotations: Any, opts: EvaluationOptions) -> None:
    """The known terms and the IC of the similarity measures, on the inputs' ontology."""
    onto = inputs.ontology
    if known is not None:
        inputs.known = known if isinstance(known, Annotations) else load_annotations(known, onto)
        inputs.diagnostics["known"] = dict(inputs.known.diagnostics, n_proteins=int(inputs.known.proteins.size))
    if opts.similarity and ic_annotations is not None:
        ann = ic_annotations if isinstance(ic_annotations, Annotations) else load_annotations(ic_annotations, onto)
        inputs.ic = term_information_content(onto, ann, opts.pseudocount).values
        inputs.diagnostics["ic"] = {"estimated_from": ann.diagnostics.get("source")}
