"""Where the leaves come from: a method's predictions, fed in batches and cut into leaves.

Every evaluation feeds each method's predictions to a :class:`MethodFeed`:
a whole file (or an :class:`~goeval.annotations.Annotations` object) is one
batch, a streamed file many (:meth:`goeval.io.readers.PredictionInput.batches`,
batches ending at protein boundaries). The feed aligns each batch's
proteins with the benchmark, keeps each namespace's rows in the order of
the file and closes a leaf (:class:`~goeval.evaluation.leaves.LeafCutter`)
as soon as it holds enough raw entries, so the leaves - and hence the bits
of every sum - do not depend on how the file was read. The counts of the
method (reading, mapping, alignment) are added up the same way
(:class:`MethodCounts`).

A source is an iterable of events for the engine: ``(label, leaf)`` for a
closed leaf of the method's block in namespace ``label``, and
``(label, None)`` once that block has no more leaves.

* :class:`AnnotationsSource` - predictions in memory (one batch, or several
  Annotations objects one after the other, e.g. one per namespace);
* :class:`FileSource` - a prediction file streamed in batches;
* :class:`SharedScoresSource` - one score vector predicted for every
  benchmark protein (the naive baseline): one :class:`~goeval.evaluation.leaves.SharedLeaf`
  per namespace, swept from the truth (and the known pairs), or its rows made leaf by leaf when a
  protein's rows must exist (per-protein steps, similarity, event sources).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any


import numpy as np

from goeval.annotations import Annotations, TermTally, map_table
from goeval.annotations.top_terms import keep_top_terms, rank_scores, term_ranks
from goeval.io.background import prefetched
from goeval.io.readers import BATCH_ROWS, PredictionInput
from goeval.evaluation.benchmark import Benchmark, NamespaceBenchmark
from goeval.evaluation.leaves import Leaf, LeafCutter, SharedLeaf
from goeval.sparse import column_range, gather_rows

__all__ = ["MethodCounts", "MethodFeed", "AnnotationsSource", "FileSource", "SharedScoresSource", "Event", "source_for",
           "prefetched", "shared_sweep_possible"]

#: ``(namespace label, leaf)``, or ``(label, None)`` when the block of that namespace is complete.
Event = tuple[str, "Leaf | None"]


class MethodCounts:
    """A method's reading, mapping and alignment counts, added over its batches.

    A single batch keeps its diagnostics as they are; the batches of a
    streamed file add up to those of the whole file (the distinct terms
    through one :class:`~goeval.annotations.TermTally`, the reader's own
    counts given at the end).
    """

    _TALLY = tuple(label for _, label in TermTally.LABELS)

    def __init__(self) -> None:
        self.diag: dict[str, Any] | None = None
        self.n_proteins = 0
        self.not_in_truth = 0
        self.not_in_truth_entries = 0
        self.unread_rows = 0
        self.unread_other = 0
        self.examples: list[str] = []

    def add_unread(self, unread: dict[str, Any]) -> None:
        """Count the lines a filtered reader did not parse (proteins outside the benchmark:
        :class:`~goeval.io.predictions.keep.Unread`) as the proteins without truth they are."""
        self.n_proteins += int(unread["proteins"])
        self.not_in_truth += int(unread["proteins"])
        self.not_in_truth_entries += int(unread["rows"])
        self.unread_rows += int(unread["rows"])
        self.unread_other += int(unread["other_lines"])
        self.examples = (list(unread["examples"]) + self.examples)[:10]

    def add_mapping(self, diag: dict[str, Any]) -> None:
        """Add a batch's mapping diagnostics (:func:`~goeval.annotations.map_table`, ``keep_top_terms``)."""
        if "unread" in diag:
            diag = dict(diag)
            self.add_unread(diag.pop("unread"))
        if self.diag is None:
            self.diag = dict(diag)
            return
        for key, value in diag.items():
            old = self.diag.get(key)
            if key in self._TALLY or key in ("source", "max_terms", "max_terms_total"):
                self.diag[key] = value  # a shared tally's report is cumulative
            elif key == "rows_by_term_status":
                self.diag[key] = {k: int(old.get(k, 0)) + int(v) for k, v in value.items()} if old else dict(value)
            elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                self.diag[key] = int(old or 0) + int(value)

    def add_alignment(self, proteins: np.ndarray, missing: np.ndarray, entries_missing: int) -> None:
        """Count a batch's proteins and those without truth (with the first examples)."""
        self.n_proteins += int(proteins.size)
        self.not_in_truth += int(missing.sum())
        self.not_in_truth_entries += int(entries_missing)
        if len(self.examples) < 10:
            self.examples += proteins[missing][: 10 - len(self.examples)].tolist()

    def result(self, reader_counts: dict[str, Any] | None = None) -> dict[str, Any]:
        """The method's diagnostics.

        ``reader_counts`` (a streamed file's own counts) go where a whole
        file's reader puts them, after ``rows_read``; the distinct terms of
        the tally follow ``rows_by_term_status``, as one batch has them.
        """
        src = dict(self.diag or {})
        head = {k: src.pop(k) for k in ("source", "rows_read") if k in src}
        if reader_counts is not None:
            reader_counts = dict(reader_counts)
            if "unread" in reader_counts:  # a streamed file's: counted once, at its end
                self.add_unread(reader_counts.pop("unread"))
            head.update(reader_counts)
        else:  # one batch: its reader's counts are still in place
            while src and next(iter(src)) != "rows_by_term_status":
                key = next(iter(src))
                head[key] = src.pop(key)
        if "rows_by_term_status" in src:
            head["rows_by_term_status"] = src.pop("rows_by_term_status")
        head.update({k: src.pop(k) for k in self._TALLY if k in src})
        if self.unread_rows:
            head["rows_read"] = int(head.get("rows_read", 0)) + self.unread_rows
        d = {**head, **src, "proteins_not_in_truth": self.not_in_truth}
        if self.unread_rows or self.unread_other:
            d["lines_not_parsed"] = {"rows": self.unread_rows, "other_lines": self.unread_other}
        if self.not_in_truth:
            d["proteins_not_in_truth_examples"] = self.examples
            d["entries_of_proteins_not_in_truth"] = self.not_in_truth_entries
        return d


@dataclass(kw_only=True)
class _OpenLeaf:
    """A method's open leaf in one namespace: its rows since the last leaf closed, the cutter that closes it,
    and the namespace's counts of the method."""

    nb: NamespaceBenchmark
    cutter: LeafCutter
    pending: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    proteins: int = 0
    entries: int = 0
    seen: np.ndarray | None = None  # benchmark proteins with predictions (roots predicted for the others)

    def leaf(self) -> Leaf:
        """The open leaf's pieces as one :class:`Leaf` (and the pieces cleared)."""
        lens, cols, scores, idx = (np.concatenate([p[k] for p in self.pending]) for k in range(4))
        self.pending = []
        tl, tc = gather_rows(self.nb.truth_indptr, self.nb.truth_cols, idx)
        w = None if self.nb.weighted_rows is None else self.nb.weighted_rows[idx]
        return Leaf(pred_indptr=np.r_[0, np.cumsum(lens)], pred_cols=cols, pred_scores=scores,
                    truth_indptr=np.r_[0, np.cumsum(tl)], truth_cols=tc, truth_rows=self.nb.rows[idx], bench=idx,
                    weighted_rows=w)

    def add(self, lens: np.ndarray, cols: np.ndarray, scores: np.ndarray, idx: np.ndarray) -> Iterator[Leaf]:
        """Rows of this namespace in file order (proteins with at least one entry); the leaves they close."""
        bounds = np.r_[0, np.cumsum(lens)]
        start = 0
        for cut in [*self.cutter.cuts(lens), None]:
            stop = lens.size if cut is None else cut
            if stop > start:
                a, b = int(bounds[start]), int(bounds[stop])
                self.pending.append((lens[start:stop], cols[a:b], scores[a:b], idx[start:stop]))
            if cut is not None:
                yield self.leaf()
            start = stop


class MethodFeed:
    """One method's predictions, fed batch by batch, cut into the leaves of its blocks.

    Parameters
    ----------
    benchmark : Benchmark
    max_terms : int, optional
        The best terms kept per protein and namespace, batch by batch (a
        protein's lines are all in one batch).
    max_terms_total : int, optional
        The best terms kept per protein over all namespaces together (after
        ``max_terms``).
    leaf_entries : int, optional
        Raw entries per leaf (default :data:`~goeval.evaluation.leaves.LEAF_ENTRIES`).
    ranks : bool, default False
        Rank thresholds: each batch's scores become ``1 / rank`` in their
        protein and namespace (:func:`~goeval.annotations.top_terms.rank_scores`,
        after the caps), a protein's lines being all in one batch.
    """

    def __init__(self, benchmark: Benchmark, *, max_terms: int | None = None, max_terms_total: int | None = None,
                 leaf_entries: int | None = None, ranks: bool = False) -> None:
        self.benchmark = benchmark
        self.max_terms = max_terms
        self.max_terms_total = max_terms_total
        self.ranks = ranks
        self.counts = MethodCounts()
        self.open_leaves = [_OpenLeaf(nb=nb, cutter=LeafCutter(leaf_entries),
                                      seen=np.zeros(nb.n, bool) if nb.roots is not None else None)
                            for nb in benchmark.namespaces]

    def feed(self, ann: Annotations) -> Iterator[Event]:
        """The leaves closed by one batch (rows in file order)."""
        if self.max_terms is not None:
            ann = keep_top_terms(ann, self.max_terms)
        if self.max_terms_total is not None:
            ann = keep_top_terms(ann, self.max_terms_total, per_namespace=False)
        if self.ranks:  # rank thresholds: each score becomes 1 / its rank in the protein's namespace
            ann = rank_scores(ann)
        self.counts.add_mapping(ann.diagnostics)
        pos = self.benchmark.truth_rows(ann.proteins)
        pm = ann.matrix.tocsr()
        self.counts.add_alignment(ann.proteins, pos < 0, int(np.diff(pm.indptr)[pos < 0].sum()))
        for open_leaf in self.open_leaves:
            yield from ((open_leaf.nb.label, leaf) for leaf in self._rows(open_leaf, pm, pos))

    def _rows(self, open_leaf: _OpenLeaf, pm: Any, pos: np.ndarray) -> Iterator[Leaf]:
        nb = open_leaf.nb
        brow = np.where(pos >= 0, nb.position[np.maximum(pos, 0)], -1)
        sel = np.flatnonzero(brow >= 0)
        p_ptr, p_cols, p_data = column_range(pm, nb.lo, nb.hi, sel)
        lens = np.diff(p_ptr)
        has = lens > 0
        open_leaf.proteins += int(has.sum())
        open_leaf.entries += int(p_cols.size)
        idx = brow[sel][has]
        if open_leaf.seen is not None:
            open_leaf.seen[idx] = True
        yield from open_leaf.add(lens[has], (p_cols - nb.lo).astype(np.int32), p_data, idx)

    def finish(self) -> Iterator[Event]:
        """The last open leaf of every namespace (with the unpredicted proteins when roots are predicted), then
        each block's end."""
        for open_leaf in self.open_leaves:
            if open_leaf.seen is not None and not open_leaf.seen.all():
                rest = np.flatnonzero(~open_leaf.seen)
                empty = np.zeros(0)
                yield from ((open_leaf.nb.label, leaf) for leaf in open_leaf.add(np.zeros(rest.size, np.int64),
                                                                     empty.astype(np.int32), empty, rest))
            if open_leaf.pending:
                yield open_leaf.nb.label, open_leaf.leaf()
            yield open_leaf.nb.label, None

    @classmethod
    def of(cls, benchmark: Benchmark, options: Any) -> "MethodFeed":
        """The feed of a method evaluated with ``options`` (an :class:`~goeval.options.EvaluationOptions`:
        its caps on the terms of a protein, its rank thresholds)."""
        return cls(benchmark, max_terms=options.max_terms, max_terms_total=options.max_terms_total,
                   ranks=options.ranks is not None)

    def namespace_counts(self) -> dict[str, dict[str, int]]:
        """Per namespace label: proteins with predictions and raw entries."""
        return {c.nb.label: {"proteins_with_predictions": c.proteins, "entries": c.entries} for c in self.open_leaves}


class AnnotationsSource:
    """A method's predictions held in memory: one Annotations object, or several fed in turn."""

    def __init__(self, method: str, predictions: Annotations | Iterable[Annotations], feed: MethodFeed) -> None:
        self.method = method
        self.parts = [predictions] if isinstance(predictions, Annotations) else predictions
        self.feed = feed

    def __iter__(self) -> Iterator[Event]:
        for ann in self.parts:
            yield from self.feed.feed(ann)
        yield from self.feed.finish()

    def diagnostics(self) -> dict[str, Any]:
        return self.feed.counts.result()


class FileSource:
    """A prediction file streamed in batches (:meth:`goeval.io.readers.PredictionInput.batches`).

    Iterating raises :class:`~goeval.errors.UngroupedPredictionsError` when a
    protein comes back in a later batch (the file must then be read whole).
    """

    def __init__(self, method: str, batches: Any, feed: MethodFeed) -> None:
        self.method = method
        self.batches = batches
        self.feed = feed
        self.tally = TermTally()

    def __iter__(self) -> Iterator[Event]:
        onto = self.feed.benchmark.ontology
        for table in prefetched(self.batches):
            yield from self.feed.feed(map_table(replace(table, counts={}), onto, tally=self.tally))
        yield from self.feed.finish()

    def diagnostics(self) -> dict[str, Any]:
        return self.feed.counts.result(dict(self.batches.scan.counts))


def source_for(method: str, predictions: Any, benchmark: Benchmark, options: Any, *, stream: bool = False,
               batch_rows: int = BATCH_ROWS) -> Any:
    """The source of one method's predictions on ``benchmark``: the one factory of the evaluation's sources.

    Parameters
    ----------
    method : str
    predictions : Annotations, PredictionInput or source
        Predictions in memory; a file (:func:`goeval.io.readers.prediction_file`,
        or its kept batches spilled), read whole - only the benchmark's
        proteins' lines parsed - or, with ``stream``, in batches of
        ``batch_rows`` rows; or a source of its own, returned as it is.
    benchmark : Benchmark
    options : EvaluationOptions
        Its caps on the terms of a protein (:meth:`MethodFeed.of`).
    stream : bool, default False
    batch_rows : int
    """
    if isinstance(predictions, Annotations):
        return AnnotationsSource(method, predictions, MethodFeed.of(benchmark, options))
    if not isinstance(predictions, PredictionInput):
        return predictions
    feed = MethodFeed.of(benchmark, options)
    if stream:
        return FileSource(method, predictions.batches(batch_rows, keep=benchmark.keep), feed)
    return AnnotationsSource(method, map_table(predictions.read(keep=benchmark.keep), benchmark.ontology), feed)


class SharedScoresSource:
    """One score vector predicted for every benchmark protein (the naive baseline).

    Without per-protein steps, similarity sums or kept scores
    (:func:`shared_sweep_possible`), each namespace is one
    :class:`~goeval.evaluation.leaves.SharedLeaf`: the vector is propagated
    once and swept from per-term sums of the truth
    (:func:`goeval.sweep.shared.shared_partial`) or, with known pairs
    (partial knowledge) or ``cafa-pk``'s weighting, from its levels and each
    protein's known and true terms (:func:`goeval.sweep.shared.known_partial`),
    never one row per protein and term. Otherwise the leaves are runs of about
    :data:`~goeval.evaluation.leaves.LEAF_ENTRIES` entries in benchmark order,
    the vector propagated once per leaf and given to each of its proteins
    (never every row at once).

    Parameters
    ----------
    method : str
    cols, scores : ndarray
        Global term indices and scores of the vector (positive scores).
    feed : MethodFeed
        Its benchmark's namespaces receive the vector's terms of their namespace.
    diagnostics : dict, optional
        What the method's diagnostics say of the vector (e.g. how it was trained).
    plan : Plan, optional
        The engine's plan; without it the rows are made.
    """

    def __init__(self, method: str, cols: np.ndarray, scores: np.ndarray, feed: MethodFeed,
                 diagnostics: dict[str, Any] | None = None, *, plan: Any = None) -> None:
        self.method = method
        self.cols, self.scores = np.asarray(cols, np.int64), np.asarray(scores, np.float64)
        self.feed = feed
        self.info = {"source": "one score vector for every benchmark protein", **(diagnostics or {})}
        self.shared = plan is not None and shared_sweep_possible(plan, feed.benchmark)
        if feed.max_terms is not None:
            self.cols, self.scores = _top_of_vector(feed.benchmark, self.cols, self.scores, feed.max_terms)
        if feed.ranks:  # rank thresholds: 1 / the term's rank in its namespace, as for a file's rows
            keep = self.scores > 0
            self.cols, self.scores = self.cols[keep], self.scores[keep]
            ranks = term_ranks(np.zeros(self.cols.size, np.int64), self.cols, self.scores, feed.benchmark.ontology)
            self.scores = 1.0 / ranks

    def __iter__(self) -> Iterator[Event]:
        for open_leaf in self.feed.open_leaves:
            nb = open_leaf.nb
            inside = (self.cols >= nb.lo) & (self.cols < nb.hi)
            c, v = (self.cols[inside] - nb.lo).astype(np.int32), self.scores[inside]
            if not c.size:
                continue
            open_leaf.proteins += nb.n
            open_leaf.entries += nb.n * c.size
            if open_leaf.seen is not None:
                open_leaf.seen[:] = True
            yield from ((nb.label, leaf) for leaf in self._leaves(open_leaf, c, v))
        rows = [c.nb.rows for c in self.feed.open_leaves]
        self.feed.counts.n_proteins = int(np.unique(np.concatenate(rows)).size) if rows else 0
        yield from self.feed.finish()

    def _leaves(self, open_leaf: _OpenLeaf, c: np.ndarray, v: np.ndarray) -> Iterator[SharedLeaf]:
        """One leaf of every benchmark protein (swept from the truth), or runs of about
        :data:`~goeval.evaluation.leaves.LEAF_ENTRIES` entries, each protein given the vector."""
        nb = open_leaf.nb
        per = nb.n if self.shared else max(1, open_leaf.cutter.leaf_entries // c.size)
        for a in range(0, nb.n, per):
            idx = np.arange(a, min(nb.n, a + per))
            if self.shared:
                t_ptr, t_cols = nb.truth_indptr, nb.truth_cols
            else:
                t_len, t_cols = gather_rows(nb.truth_indptr, nb.truth_cols, idx)
                t_ptr = np.r_[0, np.cumsum(t_len)]
            w = None if nb.weighted_rows is None else nb.weighted_rows[idx]
            yield SharedLeaf(cols=c, scores=v, truth_indptr=t_ptr, truth_cols=t_cols, truth_rows=nb.rows[idx],
                             bench=idx, from_truth=self.shared, weighted_rows=w)

    def diagnostics(self) -> dict[str, Any]:
        out = {**self.info, "proteins_not_in_truth": 0}
        if self.feed.max_terms is not None:
            out["max_terms"] = int(self.feed.max_terms)
        return out


def shared_sweep_possible(plan: Any, benchmark: Benchmark) -> bool:
    """Whether a shared vector can be swept without its rows: no per-protein steps, similarity sums or kept
    scores, and either (no known pairs nor per-protein weighting) a rule for every sum of the sweep (per-term
    sums of the truth), or (known pairs, ``cafa-pk``) no event source asked for (per-level sums,
    :func:`goeval.sweep.shared.known_partial`; the events need the rows)."""
    from goeval.sweep.shared import shared_supported

    if plan.per_protein or plan.similarity or plan.keep_scores:
        return False
    if benchmark.known_keys is None and all(nb.weighted_rows is None for nb in benchmark.namespaces):
        return shared_supported(tuple(plan.options.measures or ()))
    return not plan.options.measures


def _top_of_vector(benchmark: Benchmark, cols: np.ndarray, scores: np.ndarray,
                   max_terms: int) -> tuple[np.ndarray, np.ndarray]:
    """The vector's ``max_terms`` best terms per namespace (the rule of ``--max-terms``)."""
    import scipy.sparse as sp

    onto = benchmark.ontology
    order = np.argsort(cols, kind="stable")
    m = sp.csr_array((scores[order], cols[order], np.array([0, cols.size])), shape=(1, onto.n_terms))
    top = keep_top_terms(Annotations(proteins=np.asarray(["*"], dtype=object), matrix=m, ontology=onto, propagated=True,
                                     diagnostics={}), max_terms).matrix
    return top.indices.astype(np.int64), np.asarray(top.data, np.float64)
