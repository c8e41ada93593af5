"""Streaming evaluation: prediction files read in batches, evaluated leaf by leaf, in bounded memory.

A prediction file grouped by protein (every protein's lines together, as
CAFA files are) is read once, by :class:`goeval.io.stream.PredictionBatches`,
in batches that end at protein boundaries (every line validated as the
whole-file reader does). Each batch is mapped on the ontology, cut into the same leaves
as the in-memory evaluation (:mod:`goeval.evaluation.chunked`: runs of benchmark
proteins in file order, closed greedily at :data:`~goeval.evaluation.chunked.LEAF_ENTRIES`
raw entries per namespace), and every closed leaf is swept at once (here
or on an executor) and added to the block's fixed tree; a leaf that is
still open at the end of a batch waits for the next batch. Peak memory is
a few batches and leaves plus the truth, whatever the file's size, and
the statistics are those of the in-memory evaluation bit for bit.

With an executor and at least as many files as workers, each file is one
task: the worker streams the file itself (it must see the same path: a
local cluster, or a file system shared by the cluster's nodes), so only the
ontology and the benchmark travel, and many methods are evaluated side by
side. With fewer files, they are read here and their leaves are swept on
the workers.

What needs a whole method in memory (per-protein statistics for the
bootstrap, semantic similarity, known terms, roots predicted for every
protein) is not streamed: :func:`stream_unsupported` names the reason and
the caller falls back to the in-memory evaluation, as it does for a file
that is not grouped by protein.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterator

import numpy as np

from goeval.sparse import column_block, gather_rows
from goeval.annotations import map_table
from goeval.evaluation.chunked import BlockAccumulator, BlockSpec, Leaf, LeafCutter, LeafDispatch, executor_workers
from goeval.evaluation import Prepared
from goeval.annotations.top_terms import keep_top_terms
from goeval.ontology import TermStatus
from goeval.options import EvaluationOptions
from goeval.sweep import SweepStats

#: Rows of a prediction file read at a time.
BATCH_ROWS = 1 << 20

__all__ = ["BATCH_ROWS", "stream_unsupported", "NamespaceContext", "stream_method"]

def stream_unsupported(opts: EvaluationOptions, *, bootstrap: Any = None, known: Any = None) -> str | None:
    """Why an evaluation with these options cannot be streamed (None: it can)."""
    if bootstrap is not None:
        return "the bootstrap needs every protein's statistics"
    if opts.similarity is not None:
        return "the similarity measures need whole methods"
    if known is not None:
        return "known terms are removed from whole methods"
    if opts.root_as_prediction:
        return "roots predicted for every protein need whole methods"
    return None


@dataclass
class NamespaceContext:
    """One namespace's benchmark, shared by every streamed method."""

    label: str
    lo: int
    hi: int
    bench: np.ndarray  # truth rows of the benchmark proteins
    bench_pos: np.ndarray  # truth row -> benchmark index (-1: not in the benchmark)
    truth: tuple[np.ndarray, np.ndarray]  # indptr, local cols, per benchmark protein
    n_t: np.ndarray
    i_t: np.ndarray
    base: BlockSpec  # method and thresholds still to be set


@dataclass
class _Block:
    """A streamed method's state in one namespace."""

    ctx: NamespaceContext
    spec: BlockSpec
    cutter: LeafCutter = field(default_factory=LeafCutter)
    pending: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    acc: BlockAccumulator = field(default_factory=BlockAccumulator)
    proteins: int = 0
    entries: int = 0


class _MethodDiagnostics:
    """The counts of ``map_table`` and of the alignment with the truth, added over batches."""

    def __init__(self, source: str, counts: dict[str, Any]) -> None:
        self.source, self.counts = source, counts
        self.rows = 0
        self.status = np.zeros(len(TermStatus.NAMES), np.int64)
        self.terms: dict[int, set[str]] = {c: set() for c in (TermStatus.UNKNOWN, TermStatus.OBSOLETE,
                                                              TermStatus.ALT_ID, TermStatus.REPLACED)}
        self.sums = {"zero_scores_dropped": 0, "proteins_without_kept_rows": 0, "duplicate_pairs": 0}
        self.max_terms: int | None = None
        self.max_terms_dropped = 0
        self.not_in_truth = self.not_in_truth_entries = self.n_proteins = 0
        self.examples: list[str] = []

    def add_batch(self, table: Any, ontology: Any, mapped: dict[str, Any]) -> None:
        _, status = ontology.resolve(table.terms)
        self.rows += len(table)
        if len(table):
            self.status += np.bincount(status[table.term_codes], minlength=self.status.size)
        for code, seen in self.terms.items():
            seen.update(table.terms[status == code].tolist())
        for key in self.sums:
            self.sums[key] += int(mapped.get(key, 0))

    def add_alignment(self, proteins: np.ndarray, missing: np.ndarray, entries_missing: int) -> None:
        self.n_proteins += int(proteins.size)
        self.not_in_truth += int(missing.sum())
        self.not_in_truth_entries += entries_missing
        if len(self.examples) < 10:
            self.examples += proteins[missing][: 10 - len(self.examples)].tolist()

    def result(self) -> dict[str, Any]:
        """The method's diagnostics, keys in the order of the in-memory evaluation."""
        names = TermStatus.NAMES
        d: dict[str, Any] = {"source": self.source, "rows_read": self.rows, **self.counts}
        d["rows_by_term_status"] = {names[k]: int(self.status[k]) for k in range(len(names))}
        for code, label in ((TermStatus.UNKNOWN, "unknown_terms"), (TermStatus.OBSOLETE, "obsolete_terms_dropped"),
                            (TermStatus.ALT_ID, "alt_id_remapped"), (TermStatus.REPLACED, "obsolete_replaced")):
            if self.terms[code]:
                d[label] = {"distinct": len(self.terms[code]), "examples": sorted(self.terms[code])[:10]}
        d.update(self.sums)
        if self.max_terms is not None:
            d["max_terms"], d["max_terms_dropped"] = self.max_terms, self.max_terms_dropped
        d["proteins_not_in_truth"] = self.not_in_truth
        if self.not_in_truth:
            d["proteins_not_in_truth_examples"] = self.examples
            d["entries_of_proteins_not_in_truth"] = self.not_in_truth_entries
        return d


def _leaf_of(block: _Block) -> Leaf:
    """The open leaf's pieces as one :class:`~goeval.evaluation.chunked.Leaf` (and the pieces cleared)."""
    lens = np.concatenate([p[0] for p in block.pending])
    cols = np.concatenate([p[1] for p in block.pending])
    scores = np.concatenate([p[2] for p in block.pending])
    idx = np.concatenate([p[3] for p in block.pending])
    block.pending = []
    t_ptr, t_cols = block.ctx.truth
    tl, tc = gather_rows(t_ptr, t_cols, idx)
    return Leaf(np.r_[0, np.cumsum(lens)], cols, scores, np.r_[0, np.cumsum(tl)], tc, block.ctx.bench[idx])


def _feed(block: _Block, pm: Any, pos: np.ndarray, dispatch: LeafDispatch) -> None:
    """A batch's rows of one namespace into the block's leaves (closed leaves dispatched)."""
    ctx = block.ctx
    brow = np.where(pos >= 0, ctx.bench_pos[np.maximum(pos, 0)], -1)
    sel = np.flatnonzero(brow >= 0)
    p_ptr, p_cols, p_data = column_block(pm, ctx.lo, ctx.hi, sel)
    lens = np.diff(p_ptr)
    has = lens > 0
    block.proteins += int(has.sum())
    block.entries += int(p_cols.size)
    lens, idx = lens[has], brow[sel][has]
    cols = (p_cols - ctx.lo).astype(np.int32)
    bounds = np.r_[0, np.cumsum(lens)]
    start = 0
    for cut in [*block.cutter.cuts(lens), None]:
        stop = lens.size if cut is None else cut
        if stop > start:
            a, b = int(bounds[start]), int(bounds[stop])
            block.pending.append((lens[start:stop], cols[a:b], p_data[a:b], idx[start:stop]))
        if cut is not None:
            dispatch.submit(block.acc, block.spec, _leaf_of(block))
        start = stop


@dataclass
class StreamSetup:
    """What streaming a method's file needs besides the file: small enough to ship to a worker.

    Attributes
    ----------
    ontology : Ontology
        Without its cached closure and its OBO text (:func:`shippable`).
    proteins : ndarray of str
        The truth's proteins, in truth order.
    contexts : list of NamespaceContext
    opts : EvaluationOptions
    batch_rows : int
        Rows read at a time.
    """

    ontology: Any
    proteins: np.ndarray
    contexts: list[NamespaceContext]
    opts: EvaluationOptions
    batch_rows: int = 1 << 20


def shippable(ontology: Any) -> Any:
    """The ontology without what a worker does not need (the cached closure, the OBO text for names)."""
    return replace(ontology, _cache={}, _raw=None)


def stream_method(name: str, path: Any, setup: StreamSetup, batches: Any, *,
                  executor: Any = None) -> tuple[dict[str, SweepStats], dict[str, Any]]:
    """One prediction file evaluated batch by batch: statistics per namespace label, diagnostics.

    Parameters
    ----------
    name : str
        The method.
    path : path
        Its prediction file.
    setup : StreamSetup
        The ontology, the truth's proteins and the evaluated namespaces.
    batches : goeval.io.stream.PredictionBatches
        The file's batches (one pass; its ``scan`` gives the reader's counts
        at the end).
    executor : concurrent.futures.Executor, optional
        Where the leaves are swept.

    Raises
    ------
    UngroupedPredictionsError
        When a protein comes back in a later batch (the caller reads the
        file whole instead).
    """
    onto, opts = setup.ontology, setup.opts
    t_index = {p: i for i, p in enumerate(setup.proteins.tolist())}
    blocks = [_Block(c, replace(c.base, method=name, thresholds=opts.grid)) for c in setup.contexts]
    md = _MethodDiagnostics(str(path), {})
    dispatch = LeafDispatch(executor)
    try:
        for table in prefetched(batches):
            _one_batch(table, onto, t_index, opts, blocks, md, dispatch)
        for block in blocks:
            if block.pending:
                dispatch.submit(block.acc, block.spec, _leaf_of(block))
        dispatch.drain()
    finally:
        dispatch.cancel()
    md.counts = dict(batches.scan.counts)
    return _results(blocks, md)


def prefetched(iterable: Any, depth: int = 1) -> Iterator[Any]:
    """The items of ``iterable``, the next ones read ahead in a thread (the CSV reader releases the GIL).

    At most ``depth`` items wait beyond the one being used. An exception of
    the reader is raised here, in order; when the consumer stops early the
    reader thread stops at its next item.
    """
    import queue
    import threading

    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    done = object()

    def put(item: Any) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in iterable:
                if not put((None, item)):
                    return
            put((None, done))
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer
            put((exc, None))

    thread = threading.Thread(target=produce, name="goeval-batch-reader", daemon=True)
    thread.start()
    try:
        while True:
            exc, item = q.get()
            if exc is not None:
                raise exc
            if item is done:
                return
            yield item
    finally:
        stop.set()
        thread.join()


def stream_file(name: str, path: Any, setup: StreamSetup,
                executor: Any = None) -> tuple[tuple[str, int | None] | None, Any]:
    """Stream one file in a single pass: (None, (statistics, diagnostics)), or ((protein, line), None)
    when a protein comes back in a later batch (the file must then be read whole).

    The task an executor runs per method file: the worker reads the file
    itself (it must see the same path), so only the setup travels. Called
    here with an ``executor``, the file is read here and its leaves are
    swept there.
    """
    from goeval.errors import UngroupedPredictionsError
    from goeval.io.stream import PredictionBatches

    try:
        return None, stream_method(name, path, setup, PredictionBatches(path, batch_rows=setup.batch_rows),
                                   executor=executor)
    except UngroupedPredictionsError as exc:
        return (exc.protein, exc.line), None


def _one_batch(table: Any, onto: Any, t_index: dict[str, int], opts: EvaluationOptions, blocks: list[_Block],
               md: _MethodDiagnostics, dispatch: LeafDispatch) -> None:
    ann = map_table(table, onto)
    md.add_batch(table, onto, ann.diagnostics)
    if opts.max_terms is not None:
        ann = keep_top_terms(ann, opts.max_terms)
        md.max_terms = opts.max_terms
        md.max_terms_dropped += int(ann.diagnostics.get("max_terms_dropped", 0))
    pos = np.fromiter((t_index.get(p, -1) for p in ann.proteins.tolist()), np.int64, ann.proteins.size)
    pm = ann.matrix.tocsr()
    md.add_alignment(ann.proteins, pos < 0, int(np.diff(pm.indptr)[pos < 0].sum()))
    for block in blocks:
        _feed(block, pm, pos, dispatch)


def _results(blocks: list[_Block], md: _MethodDiagnostics) -> tuple[dict[str, SweepStats], dict[str, Any]]:
    diag = md.result()
    diag["namespaces"] = {}
    out: dict[str, SweepStats] = {}
    for block in blocks:
        st, counts = block.acc.finish(block.spec, block.ctx.n_t, block.ctx.i_t)
        d = {"proteins_with_predictions": block.proteins, "entries": block.entries,
             "entries_after_propagation": counts["entries_after_propagation"], "evaluated": st is not None}
        if st is not None:
            d["thresholds"] = int(st.thresholds.size)
            out[block.ctx.label] = st
        diag["namespaces"][block.ctx.label] = d
    diag["n_proteins"] = md.n_proteins
    return out, diag


def namespace_contexts(prep: Prepared, ns_list: list[int], allowed: np.ndarray, opts: EvaluationOptions,
                       iav: np.ndarray | None, diag: dict[str, Any]) -> Iterator[NamespaceContext]:
    """The evaluated namespaces' benchmarks (namespaces without one are counted and skipped)."""
    from goeval.evaluation import namespace_benchmarks, namespace_spec
    from goeval.sweep import truth_totals

    for j, lo, hi, label, bench, t_ptr, t_cols in namespace_benchmarks(prep, ns_list, allowed, diag):
        t_local = t_cols - lo
        ia_ns = None if iav is None else iav[lo:hi]
        n_t, i_t = truth_totals(t_ptr, t_local, ia_ns, hi - lo)
        bench_pos = np.full(prep.truth.shape[0], -1, np.int64)
        bench_pos[bench] = np.arange(bench.size)
        base = namespace_spec(prep, j, allowed, ia_ns, opts)
        yield NamespaceContext(label, lo, hi, bench, bench_pos, (t_ptr, t_local), n_t, i_t, base)


def streamed_stats(ontology: Any, truth: Any, files: dict[str, Any], opts: EvaluationOptions, *, ia: Any = None,
                   targets: Any = None, terms_of_interest: Any = None, excluded_terms: Any = None,
                   executor: Any = None, batch_rows: int | None = None,
                   diagnostics: dict[str, Any] | None = None) -> tuple[dict, dict[str, Any]]:
    """:func:`goeval.evaluation.namespace_stats` for prediction files streamed in batches.

    Each file is read once, in batches; a file that is not grouped by
    protein (a protein comes back in a later batch) is read whole and
    evaluated in memory instead (``diagnostics["streaming"]``
    says which and why). The statistics and the diagnostics are those of
    the in-memory evaluation, bit for bit.

    Returns
    -------
    stats : dict of (method, namespace label) to SweepStats
    diagnostics : dict
    """
    from goeval.evaluation import _check_ia, namespace_indices, prepare, term_mask

    diag = {} if diagnostics is None else diagnostics
    diag.setdefault("ontology", {"source": ontology.source, **ontology.diagnostics})
    iav = _check_ia(ia, ontology)
    allowed = term_mask(ontology, terms_of_interest, excluded_terms, opts.exclude_roots)
    ns_list = namespace_indices(ontology, opts.namespaces)
    prep = prepare(ontology, truth, {}, targets, diag, None, None)
    contexts = list(namespace_contexts(prep, ns_list, allowed, opts, iav, diag))
    setup = StreamSetup(ontology if executor is None else shippable(ontology), prep.proteins, contexts, opts,
                        BATCH_ROWS if batch_rows is None else batch_rows)
    if executor is None or len(files) < executor_workers(executor):
        # here, the leaves (if any executor) on the workers: fewer files than workers
        done = {name: stream_file(name, path, setup, executor) for name, path in files.items()}
    else:  # one task per file: each worker reads its own files
        futures = {name: executor.submit(stream_file, name, path, setup) for name, path in files.items()}
        done = {name: f.result() for name, f in futures.items()}
    per_method: dict[str, dict[str, SweepStats]] = {}
    for name, path in files.items():
        streamed = done[name][1]
        if streamed is None:
            per_method[name] = _in_memory(name, path, ontology, truth, opts, iav, targets, terms_of_interest,
                                          excluded_terms, executor, diag)
        else:
            per_method[name], diag["methods"][name] = streamed
    ungrouped = {n: d[0] for n, d in done.items() if d[1] is None}
    diag["streaming"] = {"streamed": [n for n in files if n not in ungrouped],
                         "in_memory": {n: f"not grouped by protein: {p} comes back at line {line}"
                                       for n, (p, line) in ungrouped.items()}}
    stats = {(n, c.label): per_method[n][c.label] for c in contexts for n in files if c.label in per_method[n]}
    return stats, diag


def _in_memory(name: str, path: Any, ontology: Any, truth: Any, opts: EvaluationOptions, iav: Any, targets: Any,
               terms_of_interest: Any, excluded_terms: Any, executor: Any,
               diag: dict[str, Any]) -> dict[str, SweepStats]:
    """One method read whole (a file that is not grouped): the in-memory evaluation's statistics."""
    from goeval.evaluation import namespace_stats
    from goeval.io.tables import read_predictions

    sub: dict[str, Any] = {}
    pred = map_table(read_predictions(path), ontology)
    st = namespace_stats(ontology, truth, {name: pred}, iav, opts, targets=targets,
                         terms_of_interest=terms_of_interest, excluded_terms=excluded_terms, diagnostics=sub,
                         executor=executor)
    diag["methods"][name] = {**sub["methods"][name], "n_proteins": int(pred.proteins.size)}
    return {label: s for (_, label), s in st.items()}
