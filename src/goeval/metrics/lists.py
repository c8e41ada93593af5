"""Retrieval lists: the records of many queries, ranked by score.

The data that TAP-k, ROC_n and average precision are computed from
(:mod:`goeval.metrics.tapk`, :mod:`goeval.metrics.ranking`) and that
:mod:`goeval.io.retrieval_lists` reads, kept apart from both so that the
reader does not depend on the measures.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from goeval.errors import InvalidParameterError

__all__ = ["RetrievalList", "RetrievalLists", "Ranked"]


def _as_relevance(relevance: ArrayLike) -> NDArray[np.bool_]:
    arr = np.asarray(relevance)
    if arr.dtype == bool:
        return arr
    if arr.size and not np.all((arr == 0) | (arr == 1)):
        raise InvalidParameterError("Relevance must be 0 or 1 (or boolean) for every record.")
    return arr.astype(bool)



@dataclass(frozen=True, eq=False, kw_only=True)
class RetrievalList:
    """One query's retrieval list.

    Parameters
    ----------
    id : str
        Query identifier.
    n_relevant : int
        T(q), the number of records relevant to the query, retrieved or not.
    scores : array-like of shape (n_records,)
        Record scores (or E-values), best first.
    relevance : array-like of shape (n_records,)
        1 (or True) for a relevant record, 0 otherwise.
    weight : float, default 1.0
        Query weight in the averages and in the quantile defining E_k.
    """

    id: str
    n_relevant: int
    scores: NDArray[np.float64]
    relevance: NDArray[np.bool_]
    weight: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "scores", np.asarray(self.scores, dtype=np.float64).reshape(-1))
        object.__setattr__(self, "relevance", _as_relevance(self.relevance).reshape(-1))
        if self.scores.shape != self.relevance.shape:
            raise InvalidParameterError(
                f"Query {self.id!r}: scores and relevance must have the same length; "
                f"got {self.scores.size} and {self.relevance.size}."
            )


@dataclass(frozen=True, eq=False, kw_only=True)
class RetrievalLists:
    """Retrieval lists of many queries stored as concatenated arrays.

    The records of query ``q`` are ``scores[offsets[q]:offsets[q + 1]]`` (and
    likewise ``relevance``). Inside a list, records with equal scores keep
    their stored order (TAP convention C6).

    Parameters
    ----------
    ids : sequence of str, length n_queries
    n_relevant : array-like of int, shape (n_queries,)
        T(q) of each query; at least the number of relevant records listed.
    weights : array-like of float, shape (n_queries,)
        Finite, non-negative query weights.
    offsets : array-like of int, shape (n_queries + 1,)
        Non-decreasing, ``offsets[0] == 0``, ``offsets[-1] == n_records``.
    scores : array-like of float, shape (n_records,)
        No NaN.
    relevance : array-like of {0, 1} or bool, shape (n_records,)

    Raises
    ------
    InvalidParameterError
        If the arrays are inconsistent, a weight is negative or not finite, a
        score is NaN, or a list holds more relevant records than its T(q).
    """

    ids: tuple[str, ...]
    n_relevant: NDArray[np.int64]
    weights: NDArray[np.float64]
    offsets: NDArray[np.int64]
    scores: NDArray[np.float64]
    relevance: NDArray[np.bool_]

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "ids", tuple(str(i) for i in self.ids))
        n = len(self.ids)
        put(self, "n_relevant", np.asarray(self.n_relevant, dtype=np.int64).reshape(-1))
        put(self, "weights", np.asarray(self.weights, dtype=np.float64).reshape(-1))
        put(self, "offsets", np.asarray(self.offsets, dtype=np.int64).reshape(-1))
        put(self, "scores", np.asarray(self.scores, dtype=np.float64).reshape(-1))
        put(self, "relevance", _as_relevance(self.relevance).reshape(-1))
        if self.n_relevant.shape != (n,) or self.weights.shape != (n,) or self.offsets.shape != (n + 1,):
            raise InvalidParameterError(
                f"RetrievalLists with {n} ids needs n_relevant and weights of length {n} "
                f"and offsets of length {n + 1}."
            )
        m = self.scores.size
        bad_offsets = self.offsets[0] != 0 or self.offsets[-1] != m or np.any(np.diff(self.offsets) < 0)
        if self.relevance.size != m or bad_offsets:
            raise InvalidParameterError(
                "RetrievalLists offsets must start at 0, never decrease and end at the "
                "number of records; scores and relevance must have equal lengths."
            )
        if np.any(self.n_relevant < 0):
            raise InvalidParameterError("T(q), the number of relevant records, must be >= 0.")
        if not np.all(np.isfinite(self.weights)) or np.any(self.weights < 0):
            raise InvalidParameterError("Query weights must be finite and >= 0.")
        if np.isnan(self.scores).any():
            raise InvalidParameterError("Scores must not be NaN; drop or fix those records.")
        listed = np.bincount(self.segment_ids()[self.relevance], minlength=n)
        bad = np.flatnonzero(listed > self.n_relevant)
        if bad.size:
            q = bad[0]
            raise InvalidParameterError(
                f"Query {self.ids[q]!r} lists {listed[q]} relevant records but T(q) = "
                f"{self.n_relevant[q]}; T(q) must count every relevant record."
            )

    @classmethod
    def from_lists(cls, lists: Iterable[RetrievalList]) -> RetrievalLists:
        """Concatenate :class:`RetrievalList` objects."""
        lists = list(lists)
        sizes = [lst.scores.size for lst in lists]
        return cls(
            ids=tuple(lst.id for lst in lists),
            n_relevant=np.array([lst.n_relevant for lst in lists], dtype=np.int64),
            weights=np.array([lst.weight for lst in lists], dtype=np.float64),
            offsets=np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]),
            scores=np.concatenate([lst.scores for lst in lists]) if lists else np.zeros(0),
            relevance=np.concatenate([lst.relevance for lst in lists]) if lists else np.zeros(0, bool),
        )

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, q: int) -> RetrievalList:
        lo, hi = self.offsets[q], self.offsets[q + 1]
        return RetrievalList(id=self.ids[q], n_relevant=int(self.n_relevant[q]), scores=self.scores[lo:hi],
                             relevance=self.relevance[lo:hi], weight=float(self.weights[q]))

    def __iter__(self) -> Iterator[RetrievalList]:
        return (self[q] for q in range(len(self)))

    @property
    def lengths(self) -> NDArray[np.int64]:
        """Number of records of each list, shape (n_queries,)."""
        return np.diff(self.offsets)

    def segment_ids(self) -> NDArray[np.int64]:
        """Query index of every record, shape (n_records,)."""
        return np.repeat(np.arange(len(self), dtype=np.int64), self.lengths)

    def ranked(self, higher_is_better: bool = True) -> Ranked:
        """Rank every list best-first (stable) and return the running counts.

        Scores are turned into a *goodness* ``g`` (the score, or minus the
        E-value), so that the cutoff ``g >= g0`` is inclusive in both
        orientations (convention C1) and E-values give exactly the results of
        the negated scores. Lists already ranked are not re-sorted; otherwise
        a stable sort keeps the stored order inside ties (C6).
        """
        g = self.scores if higher_is_better else -self.scores
        rel = self.relevance
        seg = self.segment_ids()
        same = seg[1:] == seg[:-1]
        if np.any(same & (g[1:] > g[:-1])):
            order = np.lexsort((-g, seg))
            g, rel = g[order], rel[order]
        pos = np.arange(g.size, dtype=np.int64) - self.offsets[:-1][seg]
        csum = np.cumsum(rel, dtype=np.int64)
        before = np.concatenate([[0], csum])[self.offsets[:-1]]
        crel = csum - before[seg]
        return Ranked(g, rel, seg, pos, crel, crel / (pos + 1))


class Ranked(NamedTuple):
    """Lists ranked best-first; all arrays have shape (n_records,)."""

    g: NDArray[np.float64]  #: goodness (score, or minus the E-value)
    rel: NDArray[np.bool_]  #: relevance
    seg: NDArray[np.int64]  #: query index
    pos: NDArray[np.int64]  #: 0-based rank inside the list
    crel: NDArray[np.int64]  #: relevant records at or above this rank
    prec: NDArray[np.float64]  #: precision at this rank, crel / (pos + 1)
