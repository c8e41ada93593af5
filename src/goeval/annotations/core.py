"""Sparse protein x term annotations and predictions, mapped on an ontology.

An :class:`Annotations` object holds one sparse row per protein over the
global term index of an :class:`~goeval.ontology.Ontology` (bool for truth
sets, float64 for prediction scores). Nothing here opens files: readers in
:mod:`goeval.io` return :class:`~goeval.io.pairs.PairTable` objects, which
:func:`map_table` turns into annotations, counting every remapped or
dropped row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from goeval.errors import InvalidParameterError
from goeval.io.pairs import PairTable
from goeval.ontology import Ontology, TermStatus
from goeval.sparse import column_range, row_indptr

__all__ = ["Annotations", "map_table", "merge_annotations", "TermTally"]


@dataclass(eq=False, kw_only=True)
class Annotations:
    """Sparse annotations (truth) or scores (predictions) of proteins.

    Attributes
    ----------
    proteins : ndarray of str, shape (n_proteins,)
        Protein identifiers, one per row.
    matrix : scipy.sparse.csr_array, shape (n_proteins, n_terms)
        ``bool`` for truth sets, ``float64`` scores in [0, 1] for predictions;
        columns are term indices of ``ontology``.
    ontology : Ontology
    propagated : bool
        Whether the rows are closed under ancestors.
    diagnostics : dict
        Counts from reading and mapping.
    """

    proteins: np.ndarray
    matrix: sp.csr_array
    ontology: Ontology
    propagated: bool = False
    diagnostics: dict[str, Any] = field(default_factory=dict)

    @property
    def is_scores(self) -> bool:
        """True for predictions (float scores), False for truth sets."""
        return self.matrix.dtype != np.bool_

    def __repr__(self) -> str:
        kind = "scores" if self.is_scores else "annotations"
        return f"<Annotations {kind}: {self.matrix.shape[0]} proteins, {self.matrix.nnz} entries, propagated={self.propagated}>"

    def namespace(self, name: str | int, *, drop_empty: bool = True) -> "Annotations":
        """The rows restricted to one namespace's terms (columns keep global indices)."""
        s = self.ontology.namespace_slice(name)
        m = self.matrix.tocsr()
        ptr, cols, data = column_range(m, s.start, s.stop)
        counts = np.diff(ptr)
        if drop_empty:
            sel = np.flatnonzero(counts > 0)
            ptr = np.r_[0, np.cumsum(counts[sel])]
        else:
            sel = np.arange(m.shape[0])
        sub = sp.csr_array((data, cols, ptr), shape=(sel.size, m.shape[1]))
        return Annotations(proteins=self.proteins[sel], matrix=sub, ontology=self.ontology, propagated=self.propagated,
                           diagnostics=dict(self.diagnostics))

    def to_frame(self):  # noqa: ANN201 - pandas.DataFrame
        """Long table ``protein, term[, score]`` (pandas)."""
        import pandas as pd  # deferred: pandas (~0.1 s to import) only for this table

        coo = self.matrix.tocoo()
        d = {"protein": self.proteins[coo.row], "term": self.ontology.ids[coo.col]}
        if self.is_scores:
            d["score"] = coo.data
        return pd.DataFrame(d)

    @classmethod
    def from_pairs(
        cls, ontology: Ontology, proteins: Any, terms: Any, scores: Any = None
    ) -> "Annotations":
        """Build from parallel sequences of ids (and scores), e.g. in a notebook."""
        return map_table(PairTable.from_arrays(proteins, terms, scores), ontology)


def map_table(table: PairTable, ontology: Ontology, *, tally: "TermTally | None" = None) -> Annotations:
    """Map a :class:`PairTable` onto ``ontology`` term indices.

    alt_ids are mapped to their primary id, obsolete terms with a single
    ``replaced_by`` to the replacement; other obsolete and unknown terms are
    dropped. Duplicated (protein, term) pairs keep the maximum score. Scores
    of exactly 0 can never reach a threshold (thresholds are > 0) and are
    dropped. Every such row is counted in ``diagnostics``.

    Parameters
    ----------
    table : PairTable
    ontology : Ontology
    tally : TermTally, optional
        Collects the distinct remapped and dropped terms of this table (and
        of the other batches of the same file); the ``diagnostics`` then say
        those of every table added so far. Default: this table's alone.
    """
    idx, status = ontology.resolve(table.terms)
    tally = TermTally() if tally is None else tally
    tally.add(table.terms, status)
    diag = _term_status_diagnostics(table, status, tally)
    rows, cols, scores = _kept_rows(table, idx, diag)
    proteins, rows = _renumber_proteins(table.proteins, rows, diag)
    m = _build_matrix(rows, cols, scores, proteins.size, ontology.n_terms, diag)
    return Annotations(proteins=proteins, matrix=m, ontology=ontology, propagated=False, diagnostics=diag)


class TermTally:
    """The distinct terms remapped (alt_id, obsolete replaced) or dropped (unknown, obsolete) while mapping.

    One tally may see the batches of a whole file, so the distinct counts
    are those of the file whichever way it was read.
    """

    LABELS = ((TermStatus.UNKNOWN, "unknown_terms"), (TermStatus.OBSOLETE, "obsolete_terms_dropped"),
              (TermStatus.ALT_ID, "alt_id_remapped"), (TermStatus.REPLACED, "obsolete_replaced"))

    def __init__(self) -> None:
        self.terms: dict[int, set[str]] = {code: set() for code, _ in self.LABELS}

    def add(self, terms: np.ndarray, status: np.ndarray) -> None:
        """Add the distinct ``terms`` of a table with their :class:`TermStatus` codes."""
        for code, seen in self.terms.items():
            hit = status == code
            if hit.any():
                seen.update(terms[hit].tolist())

    def report(self) -> dict[str, Any]:
        """``{label: {"distinct": n, "examples": [first 10, sorted]}}`` of every status seen."""
        return {label: {"distinct": len(self.terms[code]), "examples": sorted(self.terms[code])[:10]}
                for code, label in self.LABELS if self.terms[code]}


def _term_status_diagnostics(table: PairTable, status: np.ndarray, tally: TermTally) -> dict[str, Any]:
    """The table's counts, its rows by term status and the tally's remapped and dropped terms."""
    names = TermStatus.NAMES
    if len(table):
        row_status_counts = np.bincount(status[table.term_codes], minlength=len(names))
    else:
        row_status_counts = np.zeros(5, np.int64)
    diag: dict[str, Any] = {"source": table.source, "rows_read": len(table), **table.counts}
    diag["rows_by_term_status"] = {names[k]: int(row_status_counts[k]) for k in range(len(names))}
    diag.update(tally.report())
    return diag


def _kept_rows(
    table: PairTable, idx: np.ndarray, diag: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Protein codes, term indices and scores of the rows with a known term (and a score > 0)."""
    cols = idx.astype(np.int32)[table.term_codes]  # int32: half the memory of int64
    rows = table.protein_codes
    scores = table.scores
    keep = cols >= 0
    if scores is not None:
        keep &= scores > 0
        diag["zero_scores_dropped"] = int((scores == 0).sum())
    if not keep.all():
        rows, cols = rows[keep], cols[keep]
        scores = None if scores is None else scores[keep]
    return rows, cols, scores


def _renumber_proteins(
    all_proteins: np.ndarray, rows: np.ndarray, diag: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray]:
    """The proteins that still have a row, in order of first appearance of their code, and the rows renumbered."""
    used = np.zeros(all_proteins.size, bool)
    used[rows] = True
    diag["proteins_without_kept_rows"] = int(all_proteins.size - used.sum())
    proteins = all_proteins[used]
    if not used.all():
        rows = (np.cumsum(used, dtype=np.int64) - 1).astype(np.int32)[rows]
    return proteins, rows


def _build_matrix(
    rows: np.ndarray, cols: np.ndarray, scores: np.ndarray | None, n_rows: int, n_terms: int,
    diag: dict[str, Any],
) -> sp.csr_array:
    """The CSR matrix of the pairs (columns ascending in each row), duplicated pairs counted and merged (scores:
    their maximum)."""
    if scores is not None and (packed := _packed_sort(rows, cols, n_terms)) is not None:
        key, at = packed  # one sort of (row, term, position) keys: the duplicates and the scores' order at once
        dup = int(np.count_nonzero(key[1:] == key[:-1])) if key.size else 0
        diag["duplicate_pairs"] = dup
        if not dup:
            r, c = np.divmod(key, n_terms)
            return sp.csr_array((scores[at], c.astype(np.int32), row_indptr(r, n_rows)), shape=(n_rows, n_terms))
        del key, at
    else:
        key = rows.astype(np.int64) * n_terms + cols
        key.sort(kind="stable")  # rows grouped: timsort merges the row runs, about twice as fast as the default
        dup = int(np.count_nonzero(key[1:] == key[:-1])) if key.size else 0
        diag["duplicate_pairs"] = dup
    if scores is None:
        key = key[np.r_[True, key[1:] != key[:-1]]] if key.size else key
        data = np.ones(key.size, bool)
    else:
        key, data = _max_of_duplicates(rows, cols, scores, n_terms)
    r, c = np.divmod(key, n_terms)
    del key
    indptr = row_indptr(r, n_rows)
    return sp.csr_array((data, c.astype(np.int32), indptr), shape=(n_rows, n_terms))


def _packed_sort(rows: np.ndarray, cols: np.ndarray, n_terms: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The sorted ``row * n_terms + col`` keys and the position of each in the input, from one sort of keys that
    carry their position in their low bits (cheaper than ``argsort``; timsort merges the grouped rows); None when
    the packed key would not fit in 63 bits."""
    n = rows.size
    idx_bits = max(1, int(n).bit_length())
    if (int(rows.max()) + 1 if n else 1) * n_terms >= 1 << (63 - idx_bits):
        return None
    key = ((rows.astype(np.int64) * n_terms + cols) << idx_bits) | np.arange(n, dtype=np.int64)
    key.sort(kind="stable")
    at = key & ((1 << idx_bits) - 1)
    key >>= idx_bits
    return key, at


def _max_of_duplicates(
    rows: np.ndarray, cols: np.ndarray, scores: np.ndarray, n_terms: int
) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct (row, term) keys and the maximum score of each."""
    key = rows.astype(np.int64) * n_terms + cols
    order = np.lexsort((-scores, key))
    key, scores = key[order], scores[order]
    first = np.r_[True, key[1:] != key[:-1]] if key.size else np.zeros(0, bool)
    return key[first], scores[first]


def merge_annotations(parts: list[Annotations]) -> Annotations:
    """Union of several annotation sets on one ontology (e.g. one file per species).

    A protein present in several parts gets the union of its terms; the
    result is propagated when every part is. ``diagnostics`` keeps each
    part's diagnostics and counts the proteins found in more than one part.
    """
    if not parts:
        raise InvalidParameterError("The 'parts' parameter of merge_annotations must hold at least one Annotations; got none.")
    onto = parts[0].ontology
    if any(p.ontology is not onto for p in parts) or any(p.is_scores for p in parts):
        raise InvalidParameterError("The 'parts' parameter of merge_annotations must hold truth annotations on one Ontology object.")
    allp = np.concatenate([np.asarray(p.proteins, dtype=object) for p in parts])
    uniq, first, inv = np.unique(allp.astype(str), return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # first-appearance order
    pos = np.empty(uniq.size, np.int64)
    pos[order] = np.arange(uniq.size)
    offsets = np.cumsum([0] + [p.matrix.shape[0] for p in parts])
    rows, cols = [], []
    for k, p in enumerate(parts):
        coo = p.matrix.tocoo()
        rows.append(pos[inv[offsets[k] + coo.row]])
        cols.append(coo.col.astype(np.int64))
    r, c = np.concatenate(rows), np.concatenate(cols)
    m = sp.coo_array((np.ones(r.size, bool), (r, c)), shape=(uniq.size, onto.n_terms)).tocsr()
    m.sum_duplicates()
    m.sort_indices()
    diag: dict[str, Any] = {"source": ", ".join(str(p.diagnostics.get("source")) for p in parts),
                            "parts": [p.diagnostics for p in parts],
                            "proteins_in_several_parts": int(allp.size - uniq.size)}
    for key in ("rows_read", "duplicate_pairs", "proteins_without_kept_rows", "gaf_rows_NOT_qualifier",
                "gaf_rows_other_evidence"):
        diag[key] = int(sum(int(p.diagnostics.get(key, 0) or 0) for p in parts))
    status: dict[str, int] = {}
    for p in parts:
        for k, v in p.diagnostics.get("rows_by_term_status", {}).items():
            status[k] = status.get(k, 0) + int(v)
    diag["rows_by_term_status"] = status
    return Annotations(proteins=allp[first[order]], matrix=sp.csr_array(m), ontology=onto,
                       propagated=all(p.propagated for p in parts), diagnostics=diag)
