"""The per-protein statistics of a run as named arrays (``protein_stats.npz``).

``goeval evaluate --bootstrap`` stores, next to ``summary.tsv``, every
(method, namespace)'s per-protein step functions
(:class:`~goeval.sweep.ProteinSteps`) and the curve options, so that
``goeval compare RESULTS_DIR`` recomputes any resample or permutation
without reading the inputs again. The file is a NumPy ``.npz`` archive
(no pickled objects):

* ``format``: ``"goeval-protein-stats 1"``; ``meta``: a JSON text with the
  curve options (``normalization``, ``k``, ``protein_weighting``, ``ia``)
  and the block list ``[[method, namespace], ...]``;
* for block ``i``: ``i/thresholds``, ``i/proteins`` (unicode), ``i/n_t``,
  ``i/i_t``, ``i/rows``, ``i/bins``, ``i/cnt``, ``i/tp``, ``i/ia_pred``,
  ``i/ia_tp`` (and ``i/NAME`` for each running total registered,
  :data:`goeval.sweep.quantities.TOTALS`), ``i/row_bounds``, ``i/group_bounds``, and under
  ``normalization='cafa-pk'`` ``i/weighted_rows`` (1.0 for a protein whose
  truth carries information);
* the point statistics of block ``i`` as they were summed by the evaluation
  (leaf by leaf, :mod:`goeval.evaluation.engine`): ``i/sums/NAME`` for every sum and
  ``i/totals`` (``n``, ``n_true``, ``it_sum``, ``it2_sum``, and ``n_w`` when
  recorded), so that a
  comparison read back starts from the same bits (files without them, of
  earlier versions, get the sums recomputed from the step functions);
* when similarity measures were evaluated, their per-protein step functions
  (:class:`~goeval.metrics.similarity_steps.SimilaritySteps`):
  ``i/similarity/columns`` (unicode, ``lin_bma`` ...), ``i/similarity/rows``,
  ``i/similarity/bins``, ``i/similarity/sums`` (changes, one column per
  similarity column), ``i/similarity/defined`` (int8, the same) and
  ``i/similarity/group_bounds``, and the evaluation's similarity sums
  ``i/similarity/point_sums`` and ``i/similarity/point_defined`` (one row
  per column). Files of earlier versions hold none: they are read as
  before, and a similarity optimum cannot be compared from them (said as
  such).

A file written before a running total was registered (e.g. the score sums of the calibration
measures) lacks that total and the sums that read it: it is read all the same, those totals and sums
are NaN and listed in the options (``missing_sums``), and :func:`stored_measures` says which measures
the file can and cannot compare.

Its size is about 60 bytes per (protein, distinct score) group before
compression (synth3k, three namespaces: 256,031 groups).

``goeval retrieval --bootstrap`` stores its term-centric replicates the
same way, in ``term_replicates.npz`` (:func:`term_replicates_arrays`,
:func:`read_term_replicates`): ``format`` ``"goeval-term-replicates 1"``;
``meta``, a JSON text with the blocks ``[[method, namespace], ...]``, the
summary columns resampled (``columns``) and ``n_resamples``, ``seed``,
``confidence``; for block ``i``: ``i/values`` (float64, one row per column,
one column per replicate), ``i/point`` (the summary's values) and ``i/key``
(four uint32 words, the key of its resamples: the blocks of one key were
resampled together). A replicate's term-centric values cannot be summed
from per-protein step functions (each term ranks the drawn proteins), so the
values themselves are stored: ``goeval compare`` pairs them, replicate by
replicate, without the inputs.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from goeval.errors import InputFormatError, InvalidParameterError
from goeval.io.manifest import check_run_file
from goeval.io.names import check_name
from goeval.io.results import read_arrays, write_arrays
from goeval.sweep import STAT_NAMES, ProteinSteps, SweepStats
from goeval.sweep.quantities import QUANTITIES, STAT_DEFINITIONS, TOTALS

__all__ = ["protein_stats_arrays", "protein_stats_from_arrays", "write_protein_stats", "read_protein_stats",
           "stored_measures", "check_stored_sums", "PROTEIN_STATS_FILE", "FORMAT", "TERM_REPLICATES_FILE",
           "TERM_FORMAT", "term_replicates_arrays", "term_replicates_from_arrays", "read_term_replicates"]

#: File name of the per-protein statistics in a results directory.
PROTEIN_STATS_FILE = "protein_stats.npz"
FORMAT = "goeval-protein-stats 1"
#: File name of the term-centric bootstrap replicates of a ``goeval retrieval`` results directory, and its format.
TERM_REPLICATES_FILE = "term_replicates.npz"
TERM_FORMAT = "goeval-term-replicates 1"
_FIELDS = ("thresholds", "n_t", "i_t", "rows", "bins", "row_bounds", "group_bounds")
#: The running totals every file of this format holds; the others (registered later) may be absent.
_CORE_TOTALS = ("cnt", "tp", "ia_pred", "ia_tp")


def _fields() -> tuple[str, ...]:
    """Every array of a block: :data:`_FIELDS` and the running totals of the real entries (``cnt``, ``tp``,
    ``ia_pred``, ``ia_tp`` and those registered, :data:`goeval.sweep.quantities.TOTALS`); those of an event
    source are there when the evaluation asked for its measures (with its per-protein constants, ``i/truth/NAME``)."""
    return _FIELDS + tuple(k for k, t in TOTALS.items() if t.events is None)


def _event_fields(arrays: Mapping[str, np.ndarray], i: int) -> tuple[str, ...]:
    """The running totals of event sources stored for block ``i``."""
    return tuple(k for k, t in TOTALS.items() if t.events is not None and f"{i}/{k}" in arrays)


def protein_stats_arrays(stats: Mapping[tuple[str, str], SweepStats], options: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Named arrays of every block's per-protein statistics (what :func:`write_protein_stats` stores).

    Parameters
    ----------
    stats : mapping of (method, namespace) to SweepStats
        With ``protein_steps`` (an evaluation with ``bootstrap``).
    options : mapping
        ``result.diagnostics["options"]`` (``normalization``, ``k``, ``protein_weighting``, ``ia``).

    Raises
    ------
    InvalidParameterError
        For statistics without per-protein statistics.
    """
    blocks = list(stats)
    meta = {"blocks": [list(k) for k in blocks],
            **{k: options.get(k) for k in ("normalization", "k", "protein_weighting", "ia")}}
    out = {"format": np.array(FORMAT), "meta": np.array(json.dumps(meta))}
    for i, key in enumerate(blocks):
        steps = stats[key].protein_steps
        if steps is None or steps.proteins is None:
            raise InvalidParameterError(f"The statistics of {key} carry no per-protein statistics; evaluate with bootstrap.")
        for f in _FIELDS:
            out[f"{i}/{f}"] = getattr(steps, f)
        for f, values in steps.totals.items():
            out[f"{i}/{f}"] = values
        out[f"{i}/proteins"] = np.asarray(steps.proteins, dtype=str)
        if steps.weighted_rows is not None:
            out[f"{i}/weighted_rows"] = np.asarray(steps.weighted_rows, dtype=np.float64)
        for f, values in (steps.truth or {}).items():
            out[f"{i}/truth/{f}"] = np.asarray(values, dtype=np.float64)
        st = stats[key]
        for name, arr in st.sums.items():
            out[f"{i}/sums/{name}"] = np.asarray(arr)
        totals = [st.n, st.n_true, st.it_sum, st.it2_sum] + ([] if st.n_w is None else [st.n_w])
        out[f"{i}/totals"] = np.array(totals, dtype=np.float64)
        if steps.similarity is not None:
            out.update(_similarity_arrays(i, steps.similarity, st.similarity))
    return out


_SIMILARITY_FIELDS = ("columns", "rows", "bins", "sums", "defined", "group_bounds", "point_sums", "point_defined")


def _similarity_arrays(i: int, sim: Any, point: Any) -> dict[str, np.ndarray]:
    """Block ``i``'s similarity steps and its point similarity sums (``point``: the evaluation's)."""
    cols = list(sim.columns)
    arrays = {"columns": np.asarray(cols, dtype=str), "rows": sim.rows, "bins": sim.bins, "sums": sim.sums,
              "defined": sim.defined, "group_bounds": sim.group_bounds,
              "point_sums": np.array([point.sums[c] for c in cols]).reshape(len(cols), -1),
              "point_defined": np.array([point.defined[c] for c in cols]).reshape(len(cols), -1)}
    return {f"{i}/similarity/{k}": v for k, v in arrays.items()}


def _read_similarity(arrays: Mapping[str, np.ndarray], i: int, block: tuple[str, str], steps: ProteinSteps,
                     source: str | None) -> tuple[Any, Any]:
    """Block ``i``'s similarity steps and point sums (None, None when the file holds none), checked."""
    # deferred: the similarity kernel is read only for files that hold similarity statistics
    from goeval.metrics.similarity import SimilarityStats
    from goeval.metrics.similarity_steps import SimilaritySteps

    if f"{i}/similarity/columns" not in arrays:
        return None, None
    a = {}
    for f in _SIMILARITY_FIELDS:
        if f"{i}/similarity/{f}" not in arrays:
            raise InputFormatError(source, None, f"the similarity statistics of block {block} lack the array {f} "
                                                 "(a damaged file)")
        a[f] = np.asarray(arrays[f"{i}/similarity/{f}"])
    cols = [str(c) for c in a["columns"].reshape(-1)]
    q, g, m, n = len(cols), a["rows"].shape[0], steps.thresholds.size, steps.n_proteins
    ok = (len(set(cols)) == q and all(c in _similarity_columns() for c in cols)
          and a["rows"].shape == a["bins"].shape == (g,) and a["sums"].shape == a["defined"].shape == (g, q)
          and a["point_sums"].shape == a["point_defined"].shape == (q, m)
          and all(a[f].dtype.kind in "iuf" for f in _SIMILARITY_FIELDS[1:])
          and all(np.isfinite(a[f]).all() for f in _SIMILARITY_FIELDS[1:])
          and ((0 <= a["rows"]) & (a["rows"] < n)).all() and ((0 <= a["bins"]) & (a["bins"] < m)).all()
          and (np.abs(a["defined"]) <= 1).all() and a["group_bounds"].ndim == 1 and a["group_bounds"].size >= 1
          and a["group_bounds"][0] == 0 and a["group_bounds"][-1] == g and (np.diff(a["group_bounds"]) >= 0).all())
    if not ok:
        raise InputFormatError(source, None, f"the similarity statistics of block {block} disagree in shape, name "
                                             "unknown columns or hold values out of range (a damaged file)")
    sim = SimilaritySteps(thresholds=steps.thresholds, columns=tuple(cols), n_proteins=n,
                          rows=a["rows"].astype(np.int64), bins=a["bins"].astype(np.int64),
                          sums=a["sums"].astype(np.float64), defined=a["defined"].astype(np.int8),
                          group_bounds=a["group_bounds"].astype(np.int64))
    point = SimilarityStats(steps.thresholds, {c: a["point_sums"][k].astype(np.float64) for k, c in enumerate(cols)},
                            {c: a["point_defined"][k].astype(np.float64) for k, c in enumerate(cols)}, n)
    return sim, point


def _similarity_columns() -> set[str]:
    from goeval.metrics.registry import SIMILARITY_MEASURES

    return {m.column for m in SIMILARITY_MEASURES}


def _listed_blocks(arrays: Mapping[str, np.ndarray],
                   source: str | None) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The ``meta`` entry and its blocks: each (method, namespace) of valid names (:mod:`goeval.io.names`),
    listed once."""
    try:
        meta = json.loads(str(arrays["meta"]))
        blocks = [(m, ns) for m, ns in meta["blocks"]]
    except (KeyError, ValueError, TypeError, RecursionError) as exc:
        raise InputFormatError(source, None, f"its 'meta' entry is not the list of blocks: {exc}") from None
    for m, ns in blocks:
        check_name(m, "method", source)
        check_name(ns, "namespace", source)
    twice = sorted(b for b, n in Counter(blocks).items() if n > 1)
    if twice:  # the arrays of one would be read as the other's
        raise InputFormatError(source, None, "its 'meta' lists the block(s) " + ", ".join(
            f"{m} ({ns})" for m, ns in twice) + " twice (a damaged or crafted file)")
    return meta, blocks


def _absent_totals(arrays: Mapping[str, np.ndarray], n_blocks: int) -> tuple[str, ...]:
    """The running totals registered now (:data:`~goeval.sweep.quantities.TOTALS`, not the core ones) that the
    file holds for no block: written before they existed."""
    return tuple(t for t, total in TOTALS.items() if t not in _CORE_TOTALS and total.events is None
                 and not any(f"{i}/{t}" in arrays for i in range(n_blocks)))


def _sums_reading(totals: tuple[str, ...]) -> tuple[str, ...]:
    """The sums (:data:`~goeval.sweep.STAT_NAMES`) of the quantities that read any of ``totals``."""
    bases = {q for q, quantity in QUANTITIES.items() if set(quantity.totals) & set(totals)}
    return tuple(n for n in STAT_NAMES if STAT_DEFINITIONS[n][0] in bases)


def _checked_meta(arrays: Mapping[str, np.ndarray], source: str | None) -> dict[str, Any]:
    """The ``meta`` entry of stored arrays, and every block's arrays present, of one length and finite; the totals
    and sums the file was written without in ``missing_totals`` and ``missing_sums``."""
    meta, blocks = _listed_blocks(arrays, source)
    absent = _absent_totals(arrays, len(blocks))
    held = tuple(t for t, total in TOTALS.items() if t not in absent and total.events is None)
    for i, block in enumerate(blocks):
        missing = [f for f in (*_FIELDS, *held, "proteins") if f"{i}/{f}" not in arrays]
        if missing:
            raise InputFormatError(source, None, f"block {block} lacks the arrays {', '.join(missing)}")
        events = _event_fields(arrays, i)
        truth = tuple(k for k in arrays if k.startswith(f"{i}/truth/"))
        groups = {arrays[f"{i}/{f}"].shape for f in ("rows", "bins", *held, *events)}
        proteins = {arrays[f"{i}/{f}"].shape for f in ("n_t", "i_t", "proteins")} | {arrays[k].shape for k in truth}
        numbers = [arrays[f"{i}/{f}"] for f in (*_FIELDS, *held, *events)] + [arrays[k] for k in truth]
        if len(groups) != 1 or len(proteins) != 1 or not all(np.isfinite(a).all() for a in numbers):
            raise InputFormatError(source, None, f"the arrays of block {block} disagree in length or hold values that "
                                                 "are not finite (a damaged file)")
        _check_point_sums(arrays, i, block, source, _sums_reading(absent))
    meta["blocks"] = blocks
    meta["missing_totals"], meta["missing_sums"] = list(absent), list(_sums_reading(absent))
    return meta


def _check_point_sums(arrays: Mapping[str, np.ndarray], i: int, block: tuple[str, str], source: str | None,
                      absent: tuple[str, ...] = ()) -> None:
    """The point statistics of block ``i`` (``i/sums/NAME``, ``i/totals``), when stored: every sum there (but the
    ``absent`` ones of a file written before them), numbers, all finite."""
    if f"{i}/totals" not in arrays:  # a file of an earlier version: the sums are recomputed from the step functions
        return
    names = [n for n in STAT_NAMES if n not in absent]
    missing = [n for n in names if f"{i}/sums/{n}" not in arrays]
    if missing or np.asarray(arrays[f"{i}/totals"]).shape not in ((4,), (5,)):
        raise InputFormatError(source, None, f"the point statistics of block {block} are incomplete (" + (
            f"no sums {', '.join(missing)}" if missing else "totals of another length") + "; a damaged file)")
    for name in [f"{i}/sums/{n}" for n in names] + [f"{i}/totals"]:
        a = np.asarray(arrays[name])
        if a.dtype.kind not in "iuf" or not np.isfinite(a).all():
            raise InputFormatError(source, None, f"the entry {name} of block {block} holds values that are not finite "
                                                 "numbers (a damaged file); run goeval evaluate --bootstrap again")


def protein_stats_from_arrays(arrays: Mapping[str, np.ndarray],
                              source: str | None = None) -> tuple[dict[tuple[str, str], SweepStats], dict[str, Any]]:
    """Statistics (sums recomputed, ``protein_steps`` attached) and the options of stored arrays.

    Raises
    ------
    InputFormatError
        A block's arrays (its similarity statistics among them) are missing, disagree in length or are not
        finite, a block is listed twice,
        or a method or namespace name holds a control character (:mod:`goeval.io.names`), naming ``source``.
    """
    meta = _checked_meta(arrays, source)
    stats: dict[tuple[str, str], SweepStats] = {}
    for i, (method, label) in enumerate(meta.pop("blocks")):
        rows_w = np.asarray(arrays[f"{i}/weighted_rows"]) if f"{i}/weighted_rows" in arrays else None
        prefix = f"{i}/truth/"
        truth = {k[len(prefix):]: np.asarray(v) for k, v in arrays.items() if k.startswith(prefix)}
        n_groups = np.asarray(arrays[f"{i}/rows"]).shape
        # a total the file was written without: NaN (its sums are listed in meta["missing_sums"], never compared)
        real = {f: np.asarray(arrays[f"{i}/{f}"]) if f"{i}/{f}" in arrays else np.full(n_groups, np.nan)
                for f, t in TOTALS.items() if t.events is None}
        steps = ProteinSteps(**{f: np.asarray(arrays[f"{i}/{f}"]) for f in _FIELDS},
                             totals={**real, **{f: np.asarray(arrays[f"{i}/{f}"]) for f in _event_fields(arrays, i)}},
                             proteins=np.asarray(arrays[f"{i}/proteins"]).astype(object), weighted_rows=rows_w,
                             truth=truth or None)
        st = steps.stats()
        if f"{i}/totals" in arrays:  # the evaluation's own sums (the same values, summed leaf by leaf)
            st.sums = {name: np.asarray(arrays[f"{i}/sums/{name}"]) if name not in meta["missing_sums"]
                       else st.sums[name] for name in st.sums}
            totals = [float(x) for x in arrays[f"{i}/totals"]]
            st.n, st.n_true, st.it_sum, st.it2_sum = int(totals[0]), int(totals[1]), totals[2], totals[3]
            st.n_w = int(totals[4]) if len(totals) > 4 else None
        steps.similarity, st.similarity = _read_similarity(arrays, i, (method, label), steps, source)
        st.protein_steps = steps
        stats[(method, label)] = st
    return stats, meta


def write_protein_stats(path: str | os.PathLike[str], result: Any) -> Path:
    """Write the per-protein statistics of ``result`` (an :class:`~goeval.evaluation.EvaluationResult`
    evaluated with ``bootstrap``) to ``path`` atomically."""
    return write_arrays(path, protein_stats_arrays(result.stats or {}, result.diagnostics.get("options", {})))


def read_protein_stats(path: str | os.PathLike[str]) -> tuple[dict[tuple[str, str], SweepStats], dict[str, Any]]:
    """Read a file of :func:`write_protein_stats`: (statistics by (method, namespace), options).

    Raises
    ------
    InputFormatError
        If the file is missing, damaged (truncated, arrays missing or not
        finite) or is not such a file.
    GoevalError
        The run that wrote its directory (``manifest.json``) did not write it.
    """
    arrays = read_arrays(path, FORMAT, "run goeval evaluate with --bootstrap to write it")
    check_run_file(path)
    return protein_stats_from_arrays(arrays, str(path))


def stored_measures(options: Mapping[str, Any], names: Any = None) -> tuple[list[str], list[str]]:
    """Which protein-centric measures stored statistics can compare, and which they cannot for lack of sums.

    Parameters
    ----------
    options : mapping
        The options :func:`read_protein_stats` returns (``missing_sums``: the sums of a file written before
        their running totals existed; ``normalization``, ``protein_weighting``).
    names : iterable of str, optional
        The measures asked about; default every registered protein-centric optimum, area and whole-curve value
        of the sweep's curves (similarity optima are not stored).

    Returns
    -------
    (list of str, list of str)
        The measures whose every sum the file holds, and the others (in registration order).
    """
    from goeval.metrics.registry import CURVE_REDUCTIONS, get_measure, measures

    todo = [m for m in measures("protein") if m.reduce in CURVE_REDUCTIONS] if names is None else \
        [get_measure(n) for n in names]
    lacking = set(options.get("missing_sums") or ())
    norm, weighting = options.get("normalization") or "cafa", options.get("protein_weighting") or "none"
    can, cannot = [], []
    for ms in todo:
        try:
            reads = set(ms.sums(norm, weighting))
        except InvalidParameterError:  # not a measure of the sweep's curves (a similarity optimum): not stored
            continue
        (cannot if lacking & reads else can).append(ms.name)
    return can, cannot


def check_stored_sums(measure: str, options: Mapping[str, Any], source: Any) -> None:
    """Refuse to compare ``measure`` on stored statistics that lack its sums (a file of an earlier goeval).

    Raises
    ------
    GoevalError
        Naming ``source``, the sums it lacks and the measures it can compare.
    """
    from goeval.errors import GoevalError

    from goeval.metrics.registry import get_measure

    _, cannot = stored_measures(options, [measure])
    if cannot:
        held, _ = stored_measures(options)
        ms = get_measure(measure)
        reads = ms.sums(options.get("normalization") or "cafa", options.get("protein_weighting") or "none")
        lacking = [n for n in options.get("missing_sums") or () if n in reads]
        raise GoevalError(f"{source}: written by an earlier goeval, without the sums {ms.name} reads "
                          f"({', '.join(lacking)}): it cannot compare {ms.name}; it can compare {', '.join(held)} "
                          "(or run goeval evaluate --bootstrap again).")


def term_replicates_arrays(reps: Any) -> dict[str, np.ndarray]:
    """Named arrays of term-centric replicates (:class:`goeval.stats.term_bootstrap.TermReplicates`), what
    ``term_replicates.npz`` holds."""
    meta = {"blocks": [list(b) for b in reps.blocks], "columns": list(reps.columns),
            "n_resamples": int(reps.n_resamples), "seed": int(reps.seed), "confidence": float(reps.confidence)}
    out = {"format": np.array(TERM_FORMAT), "meta": np.array(json.dumps(meta))}
    for i, (values, point, key) in enumerate(zip(reps.values, reps.points, reps.keys)):
        out[f"{i}/values"] = np.asarray(values, dtype=np.float64)
        out[f"{i}/point"] = np.asarray(point, dtype=np.float64)
        out[f"{i}/key"] = np.asarray(key, dtype=np.uint32)
    return out


def term_replicates_from_arrays(arrays: Mapping[str, np.ndarray], source: str | None = None) -> Any:
    """The :class:`~goeval.stats.term_bootstrap.TermReplicates` of stored arrays, checked.

    Raises
    ------
    InputFormatError
        Naming ``source``: a ``meta`` entry that is not the blocks, columns and resampling, a block listed twice
        or named with a control character, or a block's arrays missing, of another shape, or not numbers
        (a NaN value is a replicate without a value; infinities are refused).
    """
    from goeval.stats.bootstrap import check_bootstrap_parameters
    from goeval.stats.term_bootstrap import TermReplicates

    meta, blocks = _listed_blocks(arrays, source)
    try:
        columns = [str(c) for c in meta["columns"]]
        n, seed, conf = check_bootstrap_parameters(meta["n_resamples"], meta["seed"], meta["confidence"], "compare")
    except (KeyError, TypeError, InvalidParameterError) as exc:
        raise InputFormatError(source, None, f"its 'meta' entry lacks a valid column list or resampling: {exc}") from None
    values, points, keys = [], [], []
    for i, block in enumerate(blocks):
        got = {f: np.asarray(arrays[f"{i}/{f}"]) if f"{i}/{f}" in arrays else None for f in ("values", "point", "key")}
        ok = (all(a is not None and a.dtype.kind in "iuf" for a in got.values())
              and got["values"].shape == (len(columns), n) and got["point"].shape == (len(columns),)
              and got["key"].shape == (4,) and not np.isinf(got["values"]).any() and not np.isinf(got["point"]).any())
        if not ok:
            raise InputFormatError(source, None, f"the arrays of block {block} are missing, disagree in shape with its "
                                                 "'meta' or hold values that are not numbers (a damaged file)")
        values.append(got["values"].astype(np.float64))
        points.append(got["point"].astype(np.float64))
        keys.append(tuple(int(x) for x in got["key"]))
    return TermReplicates(blocks=blocks, columns=columns, values=values, points=points, keys=keys, n_resamples=n,
                          seed=seed, confidence=conf)


def read_term_replicates(path: str | os.PathLike[str]) -> Any:
    """Read a ``term_replicates.npz`` (:func:`term_replicates_arrays`), checked as
    :func:`term_replicates_from_arrays` does.

    Raises
    ------
    InputFormatError
        If the file is missing, damaged or is not such a file.
    GoevalError
        The run that wrote its directory (``manifest.json``) did not write it.
    """
    arrays = read_arrays(path, TERM_FORMAT, "run goeval retrieval with --bootstrap to write it")
    check_run_file(path)
    return term_replicates_from_arrays(arrays, str(path))
