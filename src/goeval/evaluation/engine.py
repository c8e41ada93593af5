"""The evaluation engine: every evaluation is leaves from sources, run somewhere, added in fixed trees.

Two things vary, and nothing else:

* **where the leaves come from** - a :mod:`~goeval.evaluation.sources`
  source per method: predictions in memory, a file streamed in batches, one
  score vector shared by every protein (naive), the folds of a
  cross-validation (several benchmarks pooled into the same blocks);
* **where they run** - a :class:`Runner`: in this thread, or on any
  ``concurrent.futures`` executor (threads, a process pool, a Dask
  client), at most a bounded window of leaves in flight; or, for streamed
  files, whole files on the executor's workers (:func:`file_task`).

The engine keeps the running sums of every output block (method, namespace),
a :class:`BlockSums`: the leaves' results are added in submission order into its fixed pairwise
tree (:class:`~goeval.sweep.TreeSum`), so a block's sums are the same bits
whatever ran its leaves, and finished with the totals of every benchmark
protein (:func:`~goeval.sweep.finish_partial`) into a
:class:`~goeval.sweep.SweepStats` that carries, when asked, its similarity
sums and its per-protein step functions, all from the same leaves.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

import numpy as np

from goeval.errors import UngroupedPredictionsError
from goeval.evaluation.benchmark import Benchmark, NamespaceBenchmark
from goeval.evaluation.leaves import Block, Leaf, LeafResult, leaf_task
from goeval.evaluation.sources import source_for
from goeval.options import EvaluationOptions
from goeval.sparse import gather_rows
from goeval.sweep import BlockKey, SweepStats, TreeSum, assemble_steps, finish_partial, fold_infinite
from goeval.sweep.quantities import EVENT_SOURCES, sum_names

__all__ = ["Plan", "BlockSums", "BlockScores", "Runner", "Engine", "executor_workers",
           "file_task"]

#: Leaves in flight per worker before the oldest result is awaited.
WINDOW_PER_WORKER = 4


@dataclass(frozen=True, kw_only=True)
class Plan:
    """What every block of an evaluation computes.

    Attributes
    ----------
    options : EvaluationOptions
        Propagation, thresholds (``options.grid``; None: exact), roots.
    thresholds : ndarray of float64, or None
        Common thresholds replacing ``options``'s (e.g. given by a caller
        who adds statistics of several evaluations).
    per_protein : bool
        Keep every protein's step functions (bootstrap, comparisons).
    similarity : bool
        Compute the similarity sums of ``options.similarity`` (with each
        namespace benchmark's ``ic``).
    keep_scores : bool
        Keep the propagated scores of whole blocks (term-centric evaluation).
    sweep : bool
        Sweep the leaves (False: only keep what is asked besides).

    The event source of each namespace (``options.measures``) is made once per benchmark and namespace
    (:meth:`events`), its term lists read then.
    """

    options: EvaluationOptions
    thresholds: np.ndarray | None = None
    per_protein: bool = False
    similarity: bool = False
    keep_scores: bool = False
    sweep: bool = True
    _events: dict[tuple[int, int], Any] = field(default_factory=dict, repr=False, compare=False)

    def events(self, nb: NamespaceBenchmark, benchmark: Benchmark) -> Any:
        """The namespace's event source of the optional measures asked for (``options.measures``), or None."""
        names = self.options.measures or ()
        if not names or not self.sweep:
            return None
        key = (id(benchmark.ontology), nb.index)
        if key not in self._events:
            from goeval.metrics import nonredundant  # noqa: F401 - deferred: registers its event source

            (name,) = names  # one optional measure set so far
            self._events[key] = EVENT_SOURCES[name](benchmark.ontology, nb.lo, nb.hi, self.options)
        return self._events[key]

    def block(self, method: str, nb: NamespaceBenchmark, benchmark: Benchmark) -> Block:
        """The :class:`~goeval.evaluation.leaves.Block` of ``method`` in namespace ``nb``."""
        opts = self.options
        known = None if benchmark.known_keys is None else (benchmark.known_keys, nb.lo, benchmark.ontology.n_terms)
        spec = None
        if self.similarity:
            # deferred: the similarity measures' modules (~25 ms of imports) only in runs that ask for them
            from goeval.metrics.similarity import SimilaritySpec

            spec = SimilaritySpec.of(benchmark.ontology, nb.lo, nb.hi, nb.ic, nb.ia, measures=opts.similarity,
                                     pairings=opts.pairings, func="evaluate", wang_weights=opts.wang_weights)
        taus = self.thresholds if self.thresholds is not None else opts.grid
        return Block(method=method, label=nb.label, width=nb.width, graph=nb.graph, propagation=opts.propagation,
                     allowed=nb.allowed, ia=nb.ia, thresholds=taus, roots=nb.roots, known=known,
                     per_protein=self.per_protein, similarity=spec, keep_scores=self.keep_scores, sweep=self.sweep,
                     events=self.events(nb, benchmark))


@dataclass(kw_only=True)
class BlockScores:
    """The propagated scores of one block (a method in one namespace) and the namespace's truth, every
    benchmark protein a row (kept for term-centric evaluation, ``Plan.keep_scores``).

    Columns are local to the namespace (``term - lo``); rows follow the
    benchmark (truth order). ``label`` is the namespace's label and
    ``index`` its index in the ontology (``Ontology.bounds``), as in
    :class:`~goeval.evaluation.benchmark.NamespaceBenchmark`.
    """

    method: str
    label: str
    index: int
    proteins: np.ndarray
    truth_indptr: np.ndarray
    truth_cols: np.ndarray
    pred_indptr: np.ndarray
    pred_cols: np.ndarray
    pred_scores: np.ndarray

    @property
    def n_bench(self) -> int:
        return int(self.proteins.size)


@dataclass(kw_only=True)
class BlockSums:
    """The running sums of one output block: its leaves' results, from one benchmark or several pooled
    (cross-validation folds).

    Results are added in submission order into the block's fixed tree; the
    benchmark proteins of every part count in the totals, predicted or not.
    """

    method: str
    label: str
    block: Block
    parts: list[NamespaceBenchmark] = field(default_factory=list)
    tree: TreeSum = field(default_factory=TreeSum)
    steps: list[tuple[np.ndarray, np.ndarray, Any]] = field(default_factory=list)
    scores: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    entries: int = 0
    kept: int = 0
    known_removed: int = 0
    submitted: int = 0
    added: int = 0

    def offset(self, nb: NamespaceBenchmark) -> int:
        """Index of ``nb``'s first protein among the pooled proteins (``nb`` registered on first use)."""
        total = 0
        for p in self.parts:
            if p is nb:
                return total
            total += p.n
        self.parts.append(nb)
        return total

    @property
    def complete(self) -> bool:
        return self.added == self.submitted

    def add(self, result: LeafResult, bench: np.ndarray) -> None:
        self.tree.push(result.partial)
        self.entries += result.entries
        self.kept += result.kept
        self.known_removed += result.known_removed
        self.added += 1
        if result.steps is not None:
            self.steps.append((bench, result.sizes, result.steps))
        if result.scores is not None:
            self.scores.append((bench, *result.scores))

    def finish(self) -> SweepStats | None:
        """The block's statistics (None when no entry survived)."""
        if self.kept == 0 or not self.parts:
            return None
        n_t = np.concatenate([p.n_t for p in self.parts])
        i_t = np.concatenate([p.i_t for p in self.parts])
        partial = fold_infinite(self.tree.result(), in_place=True)  # (the tree's sum is used only here)
        self.tree = TreeSum()  # its partials are summed in `partial`: let them go before the dense sums are made
        if self.block.thresholds is None and partial.keys.size == 0:
            return None
        source = self.block.events
        truth = None if source is None else {k: np.concatenate(v) for k, v in _by_name(
            [source.truth(p.truth_indptr, p.truth_cols) for p in self.parts]).items()}
        spec = self.block.similarity
        st = finish_partial(partial, self.block.thresholds, n_t, i_t, sources=self.block.sources, truth=truth,
                            release=spec is None)  # (the similarity's columns are read from it below)
        if spec is not None:
            from goeval.metrics.similarity import similarity_stats  # deferred: as in Plan.block
            from goeval.metrics.similarity_steps import SimilaritySteps  # deferred: as in Plan.block

            extra = partial.values[:, len(sum_names(self.block.sources)):]
            st.similarity = similarity_stats(st.thresholds, partial.keys, extra, spec.columns, int(n_t.size))
        if self.block.per_protein:
            proteins = np.concatenate([p.proteins for p in self.parts])
            rows_w = None if self.parts[0].weighted_rows is None else \
                np.concatenate([p.weighted_rows for p in self.parts])
            st.protein_steps = assemble_steps(self.steps, st.thresholds, n_t, i_t, proteins, weighted_rows=rows_w,
                                              truth=truth)
            if spec is not None:
                st.protein_steps.similarity = SimilaritySteps.assemble(
                    [(bench, s.similarity) for bench, _, s in self.steps], st.thresholds, n_t.size, spec.columns)
        return st

    def whole(self) -> BlockScores:
        """The propagated scores of every benchmark protein (``keep_scores``), in benchmark order."""
        nb = self.parts[0]
        n = sum(p.n for p in self.parts)
        sizes = np.zeros(n, np.int64)
        for bench, ptr, _, _ in self.scores:
            sizes[bench] = np.diff(ptr)
        order = np.argsort(np.concatenate([b for b, *_ in self.scores]), kind="stable") if self.scores else []
        cols = np.concatenate([c for *_, c, _ in self.scores])[_entry_order(self.scores, order)] if self.scores \
            else np.zeros(0, np.int32)
        vals = np.concatenate([v for *_, v in self.scores])[_entry_order(self.scores, order)] if self.scores \
            else np.zeros(0)
        t_ptr = np.r_[0, np.cumsum(np.concatenate([np.diff(p.truth_indptr) for p in self.parts]))]
        t_cols = np.concatenate([p.truth_cols for p in self.parts])
        proteins = np.concatenate([p.proteins for p in self.parts])
        return BlockScores(method=self.method, label=self.label, index=nb.index, proteins=proteins, truth_indptr=t_ptr,
                           truth_cols=t_cols, pred_indptr=np.r_[0, np.cumsum(sizes)], pred_cols=cols, pred_scores=vals)


def _by_name(parts: list[dict[str, np.ndarray]]) -> dict[str, list[np.ndarray]]:
    """The arrays of each name over ``parts``, in order."""
    return {k: [p[k] for p in parts] for k in parts[0]} if parts else {}


def _entry_order(pieces: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]], order: Any) -> np.ndarray:
    """Positions of the concatenated pieces' entries, their proteins taken in ``order``."""
    ptr = np.r_[0, np.cumsum(np.concatenate([np.diff(p[1]) for p in pieces]))]
    return gather_rows(ptr, np.arange(ptr[-1]), np.asarray(order))[1]


def executor_workers(executor: Any) -> int:
    """About how many tasks ``executor`` runs at once (a Dask client's threads, a pool's workers; else 2)."""
    client = getattr(executor, "_client", None)
    if client is not None:
        try:
            return max(1, sum(client.nthreads().values()))
        except Exception:  # noqa: BLE001 - a client that cannot say: assume two
            return 2
    return max(1, int(getattr(executor, "_max_workers", 2) or 2))


class Runner:
    """Where leaves run: here, or on a ``concurrent.futures`` executor with a bounded window.

    Results are added to their block's sums in submission order, so each block's
    tree receives its leaves in leaf order whichever task finishes first;
    at most ``window`` leaves (their rows and results) are held at once.
    """

    def __init__(self, executor: Any = None, window: int | None = None) -> None:
        self.executor = executor
        self.window = window if window is not None else (
            executor_workers(executor) * WINDOW_PER_WORKER if executor is not None else 0)
        self.inflight: deque[tuple[BlockSums, np.ndarray, Any]] = deque()
        self.on_added: Any = None
        self.on_proteins: Any = None  # called with a leaf's number of proteins once it is added (progress)

    def submit(self, sums: BlockSums, leaf: Leaf, offset: int) -> None:
        sums.submitted += 1
        bench = leaf.bench + offset
        if self.executor is None:
            sums.add(leaf_task(sums.block, leaf), bench)
            if self.on_proteins is not None:
                self.on_proteins(bench.size)
            return
        self.inflight.append((sums, bench, self.executor.submit(leaf_task, sums.block, leaf)))
        while len(self.inflight) > self.window:
            self._collect()

    def _collect(self) -> None:
        sums, bench, fut = self.inflight.popleft()
        sums.add(fut.result(), bench)
        if self.on_proteins is not None:
            self.on_proteins(bench.size)
        if self.on_added is not None:
            self.on_added()

    def drain(self) -> None:
        while self.inflight:
            self._collect()

    def cancel(self) -> None:
        for *_, fut in self.inflight:
            fut.cancel()
        self.inflight.clear()


@dataclass
class BlockOutcome:
    """A finished block: its statistics (None: nothing evaluated; what the engine's ``on_block`` made of them
    when it has one) and its counts."""

    stats: SweepStats | Any | None
    counts: dict[str, Any]
    whole: BlockScores | None = None


class Engine:
    """The one driver: sources' leaves to a runner, blocks finished in order.

    Parameters
    ----------
    plan : Plan
    runner : Runner
    pooled : bool, default False
        Blocks of the same (method, namespace) from several benchmarks (the
        folds of a cross-validation) share one :class:`BlockSums`, finished by
        :meth:`finish`; otherwise a block is finished as soon as its source
        says it is complete (one block's tree in memory at a time).
    on_block : callable, optional
        ``on_block((method, label), stats)`` of every finished block's statistics: what the outcome keeps in
        their place (e.g. :func:`~goeval.evaluation.summary.summarize_block`, so that a run whose statistics are
        not needed afterwards holds one block's at a time, not every block's until the end).
    """

    def __init__(self, plan: Plan, runner: Runner, *, pooled: bool = False,
                 on_block: Callable[[BlockKey, SweepStats], Any] | None = None) -> None:
        self.plan, self.runner, self.pooled, self.on_block = plan, runner, pooled, on_block
        self.sums: dict[BlockKey, BlockSums] = {}
        self.done: dict[BlockKey, BlockOutcome] = {}
        self.closing: deque[BlockSums] = deque()
        self.submitted_proteins = 0  # over every block so far (progress)
        runner.on_added = self._finish_ready

    def run(self, source: Iterable[tuple[str, Leaf | None]], method: str, benchmark: Benchmark) -> None:
        """Submit one source's leaves (one method on one benchmark); its blocks finish as they complete.

        A source that raises leaves its blocks unfinished: :meth:`discard`
        them (to evaluate the method again another way) or :meth:`abort`.
        """
        blocks: dict[str, tuple[BlockSums, int]] = {}
        for nb in benchmark.namespaces:
            block = self.plan.block(method, nb, benchmark)
            sums = self.sums.get((method, nb.label))
            if sums is None:
                sums = self.sums[(method, nb.label)] = BlockSums(method=method, label=nb.label, block=block)
            sums.block = block  # pooled: the next part's IA, IC and known pairs
            blocks[nb.label] = (sums, sums.offset(nb))
        for label, leaf in source:
            sums, offset = blocks[label]
            if leaf is not None:
                self.submitted_proteins += leaf.bench.size
                self.runner.submit(sums, leaf, offset)
            elif not self.pooled:
                self.closing.append(sums)
                self._finish_ready()

    def discard(self, method: str) -> None:
        """Forget the unfinished blocks of ``method`` (results still in flight land in the forgotten sums)."""
        for key in [k for k in self.sums if k[0] == method]:
            del self.sums[key]
        self.closing = deque(p for p in self.closing if p.method != method)

    def abort(self) -> None:
        """Cancel the leaves in flight (after an error or an interrupt)."""
        self.runner.cancel()

    def _finish_ready(self) -> None:
        while self.closing and self.closing[0].complete:
            self._finish(self.closing.popleft())

    def _finish(self, sums: BlockSums) -> None:
        st = sums.finish()
        counts: dict[str, Any] = {"entries_after_propagation": sums.entries}
        if sums.block.known is not None:
            counts["known_pairs_removed"] = sums.known_removed
        whole = sums.whole() if self.plan.keep_scores and sums.parts else None
        counts["evaluated"] = st is not None or whole is not None  # swept, or its scores kept (term-centric)
        if st is not None:
            counts["thresholds"] = int(st.thresholds.size)
            if self.on_block is not None:
                st = self.on_block((sums.method, sums.label), st)
        self.done[(sums.method, sums.label)] = BlockOutcome(st, counts, whole)
        del self.sums[(sums.method, sums.label)]

    def finish(self) -> dict[BlockKey, BlockOutcome]:
        """Every block's outcome (the runner drained, the remaining blocks finished)."""
        self.runner.drain()
        self._finish_ready()
        for sums in list(self.sums.values()):
            self._finish(sums)
        return self.done


def file_task(method: str, pred: Any, plan: Plan, benchmark: Benchmark, batch_rows: int,
              stream: bool = True) -> tuple[Any, Any]:
    """One prediction file through an engine of its own, streamed or read whole (the task of a worker that
    reads the file).

    Returns
    -------
    (outcomes, diagnostics), or ``((protein, line), None)`` when a protein
    comes back in a later batch (the file must then be read whole).
    """
    engine = Engine(plan, Runner())
    source = source_for(method, pred, benchmark, plan.options, stream=stream, batch_rows=batch_rows)
    feed = source.feed
    try:
        engine.run(source, method, benchmark)
    except UngroupedPredictionsError as exc:
        return (exc.protein, exc.line), None
    return engine.finish(), (source.diagnostics(), feed.namespace_counts(), feed.counts.n_proteins)


def shippable(benchmark: Benchmark) -> Benchmark:
    """The benchmark with an ontology stripped of what a worker does not need (its closure cache, OBO text)."""
    return replace(benchmark, ontology=replace(benchmark.ontology, _cache={}, _raw=None))
