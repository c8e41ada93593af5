"""Sufficient statistics of a protein-centric sweep: what is summed, and :class:`SweepStats`."""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Iterable

import numpy as np

from goeval.errors import InvalidParameterError
from goeval.sweep.quantities import QUANTITIES, STAT_DEFINITIONS, sum_names

if TYPE_CHECKING:
    from goeval.sweep.steps import ProteinSteps

__all__ = ["BASE_QUANTITIES", "STAT_DEFINITIONS", "STAT_NAMES", "SweepStats", "BlockKey"]

#: The key of a *block*, the unit an evaluation's statistics come in (one :class:`SweepStats` each):
#: (method, namespace label).
BlockKey = tuple[str, str]

#: The per-protein quantities (:data:`~goeval.sweep.quantities.QUANTITIES`, a live view: a quantity
#: registered later is in it): covered ``[|P_i| > 0]``, pr ``tp/|P|`` (0 when not covered), rc
#: ``tp/|T|``, tp ``|T ∩ P|``, npred ``|P|``, ntrue_cov ``|T|`` of covered proteins, covered_w
#: ``[sum_P ia > 0]``, wpr ``sum_{T∩P} ia / sum_P ia``, wrc ``sum_{T∩P} ia / i(T)``, ru
#: ``sum_{T-P} ia``, mi ``sum_{P-T} ia``, ia_tp ``sum_{T∩P} ia`` and ia_pred ``sum_P ia`` (the last
#: two pooled for micro averages).
BASE_QUANTITIES = QUANTITIES.keys()

class _SumNames(Sequence[str]):
    """The names of the sums of a sweep without event sources (:func:`~goeval.sweep.quantities.sum_names`),
    in registration order: a live view."""

    def __getitem__(self, i: Any) -> Any:
        return sum_names()[i]

    def __len__(self) -> int:
        return len(sum_names())

    def __iter__(self) -> Iterator[str]:
        return iter(sum_names())

    def __contains__(self, name: object) -> bool:
        return name in sum_names()

    def __repr__(self) -> str:
        return repr(sum_names())


#: Per-threshold sums produced by :func:`sweep` (all over benchmark proteins), a live view of the
#: sums of :data:`STAT_DEFINITIONS` a sweep keeps without event sources (name -> (quantity, power p);
#: the sum is ``sum_i w_i * i(T_i)**p * quantity_i``: the ``it_*`` sums are the plain sums under the
#: protein weights ``w_i * i(T_i)`` (``it2_cov_w``: ``w_i * i(T_i)**2``), used for ``wru``/``wmi``
#: (CR13 eqs. 4-5) and for ``protein_weighting='information'`` (CR13 §3.4.1)). The sums of an event
#: source (PAN-GO's non-redundant counts) are kept only in a sweep given its events.
STAT_NAMES: Sequence[str] = _SumNames()

#: How the sums of the i(T)-weighted view (:meth:`SweepStats.information_weighted`)
#: are read from the plain ones: under weights ``w_i i(T_i)``, covered_w is
#: it_cov_w, and the view's own ``it_cov_w`` is it2_cov_w.
_INFORMATION_VIEW = {
    "covered": "it_cov", "covered_w": "it_cov_w", "wpr": "it_wpr", "wrc": "it_wrc",
    "ru": "it_ru", "mi": "it_mi", "it_cov_w": "it2_cov_w",
}


class _RenamedSums(Mapping[str, np.ndarray]):
    """The sums of ``source`` under other names (``names``: view name -> source name), read on access."""

    def __init__(self, source: Mapping[str, np.ndarray], names: Mapping[str, str]) -> None:
        self.source, self.names = source, names

    def __getitem__(self, name: str) -> np.ndarray:
        return self.source[self.names[name]]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


@dataclass(kw_only=True)
class SweepStats:
    """Sufficient statistics of a protein-centric sweep (additive over proteins).

    Attributes
    ----------
    thresholds : ndarray of float64, shape (n_thresholds,)
        Ascending decision thresholds.
    sums : dict of str to ndarray of float64, shape (n_thresholds,) or (B, n_thresholds)
        For each name of :data:`STAT_NAMES`, the (weighted) sum over proteins
        at each threshold (:data:`STAT_DEFINITIONS`); one row per weight
        vector when :func:`sweep` was given weights of shape (B, n).
    n : int, float or ndarray of shape (B,)
        Benchmark proteins (non-empty truth); with weights, ``sum_i w_i``.
    n_true : int, float or ndarray of shape (B,)
        ``sum_i w_i |T_i|``.
    it_sum, it2_sum : float or ndarray of shape (B,)
        ``sum_i w_i i(T_i)`` and ``sum_i w_i i(T_i)^2`` (bits, bits^2).
    n_w : int, float, ndarray of shape (B,) or None
        Benchmark proteins whose truth carries information, ``sum_i w_i
        [i(T_i) > 0]``: the denominator of the information-weighted recall
        under ``normalization='cafa-pk'`` (None when not recorded; then ``n``).

    Notes
    -----
    The combination contract (what a backend that evaluates leaves anywhere
    relies on): the statistics of a set of proteins are the sum of those of any
    partition of it into disjoint sets (leaves, folds), computed over the same thresholds with the
    same IA and the same weights per protein. ``a + b``, ``a += b`` and
    :meth:`combine` add every field; the curves and optima of
    :mod:`goeval.metrics.protein` are functions of the combined statistics
    only. Sums over the sets equal the sums of the whole up to floating-point
    rounding (the order of additions differs).
    """

    thresholds: np.ndarray
    sums: dict[str, np.ndarray]
    n: Any
    n_true: Any
    it_sum: Any
    it2_sum: Any
    n_w: Any = None
    #: The per-protein step functions these sums came from, when kept
    #: (:func:`protein_steps`; bootstrap and paired comparisons need them).
    #: Sums added over leaves or folds do not carry them.
    protein_steps: "ProteinSteps | None" = field(default=None, repr=False, compare=False)
    #: Per-threshold sums of the semantic similarities of the same proteins over the
    #: same thresholds (:class:`goeval.metrics.similarity.SimilarityStats`), when
    #: requested; added with the sums.
    similarity: Any = field(default=None, repr=False, compare=False)

    @property
    def n_replicates(self) -> int | None:
        """B for statistics of weights of shape (B, n), else None."""
        first = next(iter(self.sums.values()), None)
        return None if first is None or first.ndim == 1 else int(first.shape[0])

    def __iadd__(self, other: "SweepStats") -> "SweepStats":
        if not np.array_equal(self.thresholds, other.thresholds):
            raise InvalidParameterError("Sweep statistics over different thresholds cannot be added.")
        if set(self.sums) != set(other.sums):
            raise InvalidParameterError("Sweep statistics with different sums cannot be added.")
        if (self.similarity is None) != (other.similarity is None):
            raise InvalidParameterError("Sweep statistics with and without similarity sums cannot be added.")
        for k in self.sums:
            self.sums[k] = self.sums[k] + other.sums[k]
        self.n = self.n + other.n
        self.n_true = self.n_true + other.n_true
        self.it_sum = self.it_sum + other.it_sum
        self.it2_sum = self.it2_sum + other.it2_sum
        self.n_w = None if self.n_w is None or other.n_w is None else self.n_w + other.n_w
        self.protein_steps = None  # the sum is no longer these proteins' alone
        if self.similarity is not None:
            self.similarity = self.similarity + other.similarity
        return self

    def __add__(self, other: "SweepStats") -> "SweepStats":
        out = SweepStats(thresholds=self.thresholds, sums=dict(self.sums), n=self.n, n_true=self.n_true,
                         it_sum=self.it_sum, it2_sum=self.it2_sum, n_w=self.n_w, similarity=self.similarity)
        out += other
        return out

    @classmethod
    def combine(cls, parts: Iterable["SweepStats"]) -> "SweepStats":
        """Sum of the statistics of disjoint sets of proteins (see Notes of the class).

        Raises
        ------
        InvalidParameterError
            For no parts, or parts over different thresholds.
        """
        parts = list(parts)
        if not parts:
            raise InvalidParameterError("The 'parts' parameter of SweepStats.combine must not be empty.")
        first = parts[0]
        total = cls(thresholds=first.thresholds, sums=dict(first.sums), n=first.n, n_true=first.n_true,
                    it_sum=first.it_sum, it2_sum=first.it2_sum, n_w=first.n_w, similarity=first.similarity)
        for p in parts[1:]:
            total += p
        return total

    def information_weighted(self) -> "SweepStats":
        """The statistics under protein weights ``w_i i(T_i)`` (a partial view).

        Holds the sums the IA-based curves read (covered, covered_w, wpr,
        wrc, ru, mi, it_cov_w), ``n = it_sum`` and ``it_sum = it2_sum``, so
        the i(T)-weighted means of CR13 eqs. (4)-(5) and §3.4.1 are the plain
        means of this view. ``n_true`` and ``it2_sum`` are not available (NaN).
        """
        sums = _RenamedSums(self.sums, _INFORMATION_VIEW)  # read on use: a curve reads the sums it needs only
        return SweepStats(thresholds=self.thresholds, sums=sums, n=self.it_sum,  # type: ignore[arg-type]
                          n_true=float("nan"), it_sum=self.it2_sum, it2_sum=float("nan"))

    def replicate(self, b: int) -> "SweepStats":
        """Row ``b`` of statistics swept with weights of shape (B, n)."""
        if self.n_replicates is None:
            raise InvalidParameterError("replicate() needs statistics swept with weights of shape (B, n).")
        return SweepStats(thresholds=self.thresholds, sums={k: v[b] for k, v in self.sums.items()}, n=self.n[b],
                          n_true=self.n_true[b], it_sum=self.it_sum[b], it2_sum=self.it2_sum[b],
                          n_w=None if self.n_w is None else self.n_w[b])
