"""The truth side of an evaluation: every evaluated namespace's benchmark proteins, truth and totals.

A :class:`Benchmark` is built once per evaluation (once per fold of a
cross-validation, once per kind of a time split) from the truth
annotations: they are propagated once, the known pairs of partial
knowledge leave them, the targets restrict them, and each evaluated
namespace gets a :class:`NamespaceBenchmark` - its benchmark proteins (those
with a non-empty truth there), their truth in local columns and the totals
``|T_i|`` and ``i(T_i)`` that every block of the namespace is finished with.
Everything a leaf of the namespace needs besides its own rows (the
namespace's parents, the kept columns, the IA) is here too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any

import numpy as np
import scipy.sparse as sp

from goeval.annotations import Annotations, drop_pairs, pair_keys, propagate
from goeval.diagnostics import Diagnostics
from goeval.errors import InvalidParameterError
from goeval.io.predictions.keep import ProteinFilter
from goeval.metrics.plugins import PluginSet, current_plugins
from goeval.ontology import Ontology
from goeval.options import EvaluationOptions
from goeval.sparse import column_range, select_columns
from goeval.sweep import truth_totals

__all__ = ["NamespaceGraph", "NamespaceBenchmark", "Benchmark", "make_benchmark", "term_mask", "namespace_indices",
           "group_proteins", "group_targets",
           "check_term_values"]


@dataclass(frozen=True)
class NamespaceGraph:
    """The parents of one namespace in local indices: all :func:`~goeval.annotations.propagate_rows` needs.

    Attributes
    ----------
    generation : ndarray of int32, shape (width,)
    parents : scipy.sparse.csr_array of bool, shape (width, width)
    """

    generation: np.ndarray
    parents: Any

    @classmethod
    def of(cls, ontology: Ontology, lo: int, hi: int) -> "NamespaceGraph":
        pp = ontology.parents
        a, b = int(pp.indptr[lo]), int(pp.indptr[hi])
        ptr = (pp.indptr[lo:hi + 1] - a).astype(np.int64)
        parents = sp.csr_array((pp.data[a:b], pp.indices[a:b] - lo, ptr), shape=(hi - lo, hi - lo))
        return cls(np.asarray(ontology.generation[lo:hi]), parents)


@dataclass(kw_only=True)
class NamespaceBenchmark:
    """One namespace's benchmark: its proteins, their truth (local columns) and totals.

    Attributes
    ----------
    index, label : int, str
        The namespace (``ontology.namespaces[index]``).
    lo, hi : int
        Its term range; local column ``c`` is term ``lo + c``.
    rows : ndarray of int64, shape (n,)
        Truth rows of the benchmark proteins (increasing): the targets with
        a non-empty truth in the namespace.
    proteins : ndarray of str, shape (n,)
    position : ndarray of int64, shape (n_truth_rows,)
        Benchmark index of every truth row (-1: not in this benchmark).
    truth_indptr, truth_cols : ndarrays
        The benchmark proteins' truth, CSR, local columns.
    n_t, i_t : ndarray of float64, shape (n,)
        ``|T_i|`` and ``i(T_i)`` (bits).
    graph : NamespaceGraph
    allowed : ndarray of bool, shape (width,), or None
        Columns kept after propagation (None: all).
    roots : ndarray of int, or None
        Local roots predicted for every protein (``root_as_prediction``).
    ia, ic : ndarray of float64, shape (width,), or None
        Information accretion and term information content (bits).
    weighted_rows : ndarray of float64, shape (n,), or None
        Under ``normalization='cafa-pk'``: 1.0 for a protein whose truth
        (before its known terms are removed) carries information, 0.0 for one
        the information-weighted measures leave out (CAFA-evaluator-PK's rows
        of the weighted metrics); None otherwise (every protein counts).
    """

    index: int
    label: str
    lo: int
    hi: int
    rows: np.ndarray
    proteins: np.ndarray
    position: np.ndarray
    truth_indptr: np.ndarray
    truth_cols: np.ndarray
    n_t: np.ndarray
    i_t: np.ndarray
    graph: NamespaceGraph
    allowed: np.ndarray | None
    roots: np.ndarray | None
    ia: np.ndarray | None
    ic: np.ndarray | None = None
    weighted_rows: np.ndarray | None = None

    @property
    def width(self) -> int:
        return self.hi - self.lo

    @property
    def n(self) -> int:
        return int(self.rows.size)


@dataclass(kw_only=True)
class Benchmark:
    """The truth of an evaluation, prepared once for every block of it.

    Attributes
    ----------
    ontology : Ontology
    proteins : ndarray of str
        Truth proteins in truth order (the rows of ``known_keys``).
    namespaces : list of NamespaceBenchmark
        Evaluated namespaces that have benchmark proteins, in namespace order.
    known_keys : ndarray of int64 or None
        Sorted keys ``truth row * n_terms + term`` of the known pairs
        (partial knowledge), removed from every leaf's predictions.
    plugins : PluginSet
        The measure plugins loaded where it was made: a worker that reads a whole file loads them when it
        unpickles the benchmark, before its blocks are made.
    """

    ontology: Ontology
    proteins: np.ndarray
    namespaces: list[NamespaceBenchmark]
    known_keys: np.ndarray | None = None
    plugins: PluginSet = field(default_factory=current_plugins, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._row_of = {p: i for i, p in enumerate(self.proteins.tolist())}
        self._keep: ProteinFilter | None = None

    @property
    def keep(self) -> ProteinFilter:
        """The truth proteins as a reader's filter: only their prediction lines are parsed."""
        if self._keep is None:
            self._keep = ProteinFilter(self._row_of)
        return self._keep

    def truth_rows(self, proteins: np.ndarray) -> np.ndarray:
        """The truth row of each protein (-1 for a protein without truth)."""
        get = self._row_of.get
        return np.fromiter((get(p, -1) for p in np.asarray(proteins, dtype=object).tolist()), np.int64,
                           len(proteins))


def group_proteins(groups: Any) -> dict[str, np.ndarray]:
    """Group name -> its distinct proteins, from a mapping or anything with ``groups`` (a
    :class:`~goeval.benchmarks.groups.ProteinGroups`); ``all`` names the whole benchmark and no group may take it.

    Raises
    ------
    InvalidParameterError
        Not a mapping, empty, or a group named ``all``.
    """
    named = getattr(groups, "groups", groups)
    if not isinstance(named, Mapping) or not named:
        raise InvalidParameterError(f"The 'groups' parameter of evaluate must map group names to proteins (or be "
                                    f"a ProteinGroups or a groups file); got {type(groups).__name__}.")
    if "all" in named:
        raise InvalidParameterError("The 'groups' parameter of evaluate names a group 'all': that is the whole "
                                    "benchmark's name; rename the group.")
    return {str(k): np.asarray(list(dict.fromkeys(map(str, v))), dtype=object) for k, v in named.items()}


def group_targets(targets: Any, proteins: np.ndarray | None) -> np.ndarray | None:
    """A group's benchmark proteins: its proteins among ``targets`` (all of them without targets; None: every
    protein, the whole benchmark)."""
    if proteins is None:
        return None if targets is None else np.asarray(list(targets), dtype=object)
    if targets is None:
        return proteins
    return proteins[np.isin(proteins.astype(str), np.asarray(list(targets), dtype=object).astype(str))]


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


def namespace_indices(ontology: Ontology, namespaces: Any) -> list[int]:
    """Indices of the namespaces to evaluate (labels or OBO names; None or empty: all)."""
    if not namespaces:
        return list(range(len(ontology.namespaces)))
    return [ontology.namespace_index(x) for x in namespaces]


def check_term_values(values: Any, ontology: Ontology, name: str) -> np.ndarray | None:
    """``values`` (bits per term, e.g. the IA) as float64 of shape (n_terms,), or the parameter error."""
    if values is None:
        return None
    v = np.asarray(getattr(values, "values", values), dtype=np.float64)
    if v.shape != (ontology.n_terms,):
        raise InvalidParameterError(f"The {name!r} parameter of evaluate must have one value per term "
                                    f"({ontology.n_terms}); got an array of shape {v.shape}.")
    return v


def _targets_rows(row_of: dict[str, int], targets: Any, diag: Diagnostics) -> np.ndarray:
    """Truth rows of the listed targets (sorted); targets without truth are counted."""
    tg = np.asarray(list(dict.fromkeys(np.asarray(targets, dtype=object).tolist())), dtype=object)
    pos = np.fromiter((row_of.get(p, -1) for p in tg), np.int64, len(tg))
    diag["targets"] = {"listed": int(tg.size), "without_truth": int((pos < 0).sum()),
                       "examples_without_truth": tg[pos < 0][:10].tolist()}
    return np.sort(pos[pos >= 0])


def _without_known(tm: Any, proteins: np.ndarray, known: Annotations, diag: Diagnostics) -> tuple[Any, np.ndarray]:
    """The truth matrix without each protein's known (propagated) pairs, and the keys of those pairs."""
    onto = known.ontology
    kp = known if known.propagated else propagate(known)
    keys = pair_keys(kp, proteins)
    ptr, cols, data, removed = drop_pairs(tm.indptr, tm.indices, tm.data, np.arange(tm.shape[0]), keys, onto.n_terms)
    before, after = np.diff(tm.indptr), np.diff(ptr)
    known_in_truth = np.isin(kp.proteins.astype(str), np.asarray(proteins, dtype=object).astype(str))
    diag["known"] = {**diag.get("known", {}), "source": kp.diagnostics.get("source"), "proteins": int(kp.proteins.size),
                     "pairs_propagated": int(kp.matrix.nnz), "proteins_not_in_truth": int((~known_in_truth).sum()),
                     "truth_pairs_removed": removed,
                     "proteins_left_without_truth": int(((before > 0) & (after == 0)).sum())}
    return sp.csr_array((data, cols, ptr), shape=tm.shape), keys


def _truth_matrix(ontology: Ontology, truth: Annotations, known: Annotations | None,
                  diag: Diagnostics) -> tuple[Any, Any, Annotations, np.ndarray | None]:
    """The propagated truth (sorted CSR) before and after the known pairs are removed, the propagated
    annotations, the known keys."""
    if truth.ontology is not ontology:
        raise InvalidParameterError("truth was mapped on another Ontology object; load both with the same one.")
    if known is not None and (known.ontology is not ontology or known.is_scores):
        raise InvalidParameterError("The 'known' parameter of evaluate must hold annotations (not scores) mapped on "
                                    "the same Ontology object as the truth.")
    tr = truth if truth.propagated else propagate(truth)
    full = tr.matrix.tocsr()
    full.sort_indices()
    diag["truth"] = dict(tr.diagnostics)
    if known is None:
        return full, full, tr, None
    tm, keys = _without_known(full, tr.proteins, known, diag)
    return full, tm, tr, keys


def _rows_with_truth(tm: Any, lo: int, hi: int, rows: np.ndarray, allowed: np.ndarray) -> tuple[np.ndarray, ...]:
    """(rows with a truth term in [lo, hi), their indptr, their global columns), kept columns only."""
    t_ptr, t_cols, _ = column_range(tm, lo, hi, rows)
    t_ptr, t_cols, _ = select_columns(t_ptr, t_cols, None, allowed)
    has = np.diff(t_ptr) > 0
    return rows[has], np.r_[0, np.cumsum(np.diff(t_ptr)[has])], t_cols


def _namespace(ontology: Ontology, j: int, truths: tuple[Any, Any], rows: np.ndarray, allowed: np.ndarray,
               opts: EvaluationOptions, ia: np.ndarray | None, ic: np.ndarray | None,
               proteins: np.ndarray) -> NamespaceBenchmark:
    """Namespace ``j``'s benchmark: proteins with truth (under ``cafa-pk``: truth before the known pairs are
    removed, so a protein whose truth is entirely known stays, with an empty truth)."""
    full, tm = truths
    lo, hi = int(ontology.bounds[j]), int(ontology.bounds[j + 1])
    pk = opts.normalization == "cafa-pk"
    bench, t_ptr, t_cols = _rows_with_truth(full if pk else tm, lo, hi, rows, allowed)
    ia_ns = None if ia is None else ia[lo:hi]
    weighted = None
    if pk:
        _, i_full = truth_totals(t_ptr, t_cols - lo, ia_ns, hi - lo)
        weighted = (i_full > 0).astype(np.float64)
        if tm is not full:
            t_ptr, t_cols, _ = column_range(tm, lo, hi, bench)
            t_ptr, t_cols, _ = select_columns(t_ptr, t_cols, None, allowed)
    t_local = t_cols - lo
    n_t, i_t = truth_totals(t_ptr, t_local, ia_ns, hi - lo)
    position = np.full(tm.shape[0], -1, np.int64)
    position[bench] = np.arange(bench.size)
    roots = None
    if opts.root_as_prediction:
        r = ontology.roots(j)
        roots = r[allowed[r]] - lo
    return NamespaceBenchmark(index=j, label=ontology.labels[j], lo=lo, hi=hi, rows=bench, proteins=proteins[bench],
                              position=position, truth_indptr=t_ptr, truth_cols=t_local, n_t=n_t, i_t=i_t,
                              graph=NamespaceGraph.of(ontology, lo, hi),
                              allowed=None if allowed[lo:hi].all() else allowed[lo:hi], roots=roots, ia=ia_ns,
                              ic=None if ic is None else ic[lo:hi], weighted_rows=weighted)


def make_benchmark(
    ontology: Ontology,
    truth: Annotations,
    options: EvaluationOptions,
    diagnostics: Diagnostics,
    *,
    ia: np.ndarray | None = None,
    ic: np.ndarray | None = None,
    targets: Any = None,
    known: Annotations | None = None,
    allowed: np.ndarray | None = None,
) -> Benchmark:
    """The :class:`Benchmark` of an evaluation (counts in ``diagnostics``).

    Parameters
    ----------
    ontology : Ontology
    truth : Annotations
        Truth sets on ``ontology`` (propagated here if needed).
    options : EvaluationOptions
        Its namespaces and ``root_as_prediction`` are read.
    diagnostics : Diagnostics
        Gets ``truth``, ``known``, ``targets`` and, per evaluated namespace,
        ``namespaces[label]`` (benchmark proteins and truth entries).
    ia, ic : ndarray of shape (n_terms,), optional
        Information accretion and information content (bits).
    targets : sequence of str, optional
        The benchmark proteins (others are not evaluated).
    known : Annotations, optional
        Known annotations: their propagated pairs leave the truth (a protein
        whose truth in a namespace becomes empty leaves that namespace's
        benchmark) and, through ``known_keys``, the predictions.
    allowed : ndarray of bool, shape (n_terms,), optional
        Terms kept (:func:`term_mask`; default all).
    """
    ns_list = namespace_indices(ontology, options.namespaces)
    allowed = np.ones(ontology.n_terms, bool) if allowed is None else allowed
    full, tm, tr, keys = _truth_matrix(ontology, truth, known, diagnostics)
    row_of = {p: i for i, p in enumerate(tr.proteins.tolist())}
    rows = np.arange(tm.shape[0]) if targets is None else _targets_rows(row_of, targets, diagnostics)
    spaces = []
    for j in ns_list:
        nb = _namespace(ontology, j, (full, tm), rows, allowed, options, ia, ic, tr.proteins)
        counts = {"benchmark_proteins": nb.n, "truth_entries": int(nb.truth_cols.size)}
        if nb.weighted_rows is not None:  # cafa-pk: who counts where
            counts.update(proteins_with_truth=int((nb.n_t > 0).sum()), proteins_truth_all_known=int((nb.n_t == 0).sum()),
                          proteins_with_informative_truth=int((nb.i_t > 0).sum()))
        diagnostics.setdefault("namespaces", {})[nb.label] = counts
        if nb.n:
            spaces.append(nb)
    return Benchmark(ontology=ontology, proteins=tr.proteins, namespaces=spaces, known_keys=keys)
