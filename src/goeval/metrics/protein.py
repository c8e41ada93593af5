"""Protein-centric curves and optima (Clark & Radivojac 2013, §3.2-3.4).

Pure functions of :class:`goeval.sweep.SweepStats`. For protein ``i`` with
propagated truth ``T_i`` and predicted set ``P_i(tau)``:

.. math::

    pr_i = \\frac{|T_i \\cap P_i|}{|P_i|},\\quad
    rc_i = \\frac{|T_i \\cap P_i|}{|T_i|},\\quad
    ru_i = \\sum_{v \\in T_i - P_i} ia(v),\\quad
    mi_i = \\sum_{v \\in P_i - T_i} ia(v)

    wpr_i = \\frac{\\sum_{T_i \\cap P_i} ia}{\\sum_{P_i} ia},\\quad
    wrc_i = \\frac{\\sum_{T_i \\cap P_i} ia}{i(T_i)}

Averages (``normalization``): ``cafa`` - precision-type over the covered
proteins (``|P_i| > 0``; for ``wpr``: ``sum_P ia > 0``), the rest over all
``n``; ``pred`` - all over the covered proteins; ``gt`` - all over ``n``.
``wru``/``wmi`` are the ``i(T_i)``-weighted means of eqs. (4)-(5);
``S_k = (ru^k + mi^k)^{1/k}`` (eq. 6); ``F = 2 pr rc / (pr + rc)``.

CAFA-evaluator's columns: ``tp``, ``fp``, ``fn`` summed over the benchmark
proteins (``|T ∩ P|``, ``|P - T|``, ``|T - P|``); ``ru_terms``, ``mi_terms``,
``s_terms`` - ru, mi and S counting terms instead of bits, averaged like
``ru``; ``wprecision_micro = sum ia(T ∩ P) / sum ia(P)`` and
``wrecall_micro = sum ia(T ∩ P) / sum i(T)`` pooled over proteins
(``pred``: the proteins with ``sum_P ia > 0``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from goeval.errors import GoevalWarning, InvalidParameterError, check_choice
from goeval.lazy import LazyModule
from goeval.metrics.registry import get_measure
from goeval.sweep import STAT_DEFINITIONS, STAT_NAMES, SweepStats, exact_thresholds, grid_thresholds, sweep
from goeval.sweep.quantities import NR_WEIGHTS

sp = LazyModule("scipy.sparse")  # imported by the first call that needs it (start-up: goeval.lazy)

#: How proteins are averaged (:func:`protein_curves`): ``cafa``, ``pred``, ``gt``, and ``cafa-pk``
#: (CAFA-evaluator-PK's counting: ``cafa``, with the information-weighted recall-type means over
#: the proteins whose truth carries information).
NORMALIZATIONS = ("cafa", "pred", "gt", "cafa-pk")

__all__ = [
    "NORMALIZATIONS",
    "protein_curves", "f_score", "s_distance", "CURVE_COLUMNS", "IA_COLUMNS", "UNDEFINED_WITHOUT_INFORMATION",
    "Curves", "CurveColumn", "COLUMNS", "register_column", "unregister_column", "curve_sums", "formula_sums",
    "curve_values",
    "best_index",
    "protein_curve", "fmax_score", "smin_distance", "aupr_score", "BEPROF_CUTS", "beprof_aupr", "curve_beprof_aupr",
]


def f_score(pr: np.ndarray, rc: np.ndarray) -> np.ndarray:
    """Harmonic mean ``2 pr rc / (pr + rc)``; 0 where both are 0."""
    pr, rc = np.asarray(pr, float), np.asarray(rc, float)
    d = pr + rc
    return np.divide(2 * pr * rc, d, out=np.zeros_like(d), where=d > 0)


def s_distance(ru: np.ndarray, mi: np.ndarray, k: float = 2.0) -> np.ndarray:
    """Semantic distance ``S_k = (ru^k + mi^k)^(1/k)`` (CR13 eq. 6), bits.

    Raises
    ------
    InvalidParameterError
        Unless ``k >= 1``.
    """
    if not (np.isfinite(k) and k >= 1):
        raise InvalidParameterError(f"The 'k' parameter of s_distance must be a number >= 1; got {k!r}.")
    # |.|: a sum of non-negative ia can come out as -1e-16 after cancellation,
    # and ia from the 'frequency' estimate may be negative; S_k is a norm.
    ru, mi = np.abs(np.asarray(ru, float)), np.abs(np.asarray(mi, float))
    if k == 2:
        return np.hypot(ru, mi)
    if k == 1:
        return ru + mi
    return (ru**k + mi**k) ** (1.0 / k)


def _div(a: np.ndarray, b: np.ndarray | float) -> np.ndarray:
    b = np.broadcast_to(np.asarray(b, dtype=float), np.shape(a))
    return np.divide(a, b, out=np.zeros(np.shape(a)), where=b > 0)


def _total(x: Any) -> Any:
    """A total of :class:`SweepStats` as a divisor: a float, or a column of shape (B, 1)."""
    return x[..., None] if isinstance(x, np.ndarray) else float(x)


def _weighted_n(stats: SweepStats, normalization: str) -> Any:
    """The denominator of the information-weighted recall-type means: every benchmark protein, or under
    ``cafa-pk`` those whose truth carries information (CAFA-evaluator-PK's ``ne`` of the weighted metrics)."""
    return stats.n_w if normalization == "cafa-pk" and stats.n_w is not None else stats.n


class Curves:
    """What a curve column's formula reads (:attr:`CurveColumn.formula`): the statistics, the curve options
    and the other columns.

    Attributes
    ----------
    stats : SweepStats
        ``stats.sums[NAME]``: the sums of :data:`~goeval.sweep.STAT_NAMES`, shape (m,) or (B, m).
    sums : mapping
        ``stats.sums``.
    normalization, protein_weighting : str
    k : float
    n : float or ndarray of shape (B, 1)
        The benchmark proteins, as a divisor (:meth:`total` makes any total of ``stats`` one).
    calibration_bins : int or sequence of float
        The bins of the calibration measures (:func:`goeval.metrics.calibration.calibration_bins`).

    ``curves[NAME]`` is another column (computed once). The sums a column reads are found by running
    its formula (:func:`curve_sums`), so a formula must read the same sums whatever their values.
    """

    def __init__(self, stats: SweepStats, normalization: str, k: float, protein_weighting: str,
                 calibration_bins: Any = 10) -> None:
        self.stats, self.sums = stats, stats.sums
        self.normalization, self.k, self.protein_weighting = normalization, k, protein_weighting
        self.calibration_bins = calibration_bins
        self.n = _total(stats.n)
        self._done: dict[str, np.ndarray] = {}

    @staticmethod
    def total(x: Any) -> Any:
        """A total of :class:`SweepStats` (``n``, ``n_true``, ``it_sum``...) as a divisor: a float, or a
        column of shape (B, 1)."""
        return _total(x)

    @property
    def information(self) -> SweepStats:
        """The statistics under protein weights ``i(T_i)`` (:meth:`SweepStats.information_weighted`)."""
        return self.stats.information_weighted()

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._done:
            self._done[name] = COLUMNS[name].formula(self)
        return self._done[name]


@dataclass(frozen=True, kw_only=True)
class CurveColumn:
    """A column of :func:`protein_curves`, declared once: its formula over the sums (and other columns).

    Attributes
    ----------
    name : str
    formula : callable (Curves) -> ndarray
        The column over thresholds, from ``c.sums``, the totals of ``c.stats`` and other columns ``c[NAME]``;
        the sums it reads are found from it (:func:`curve_sums`).
    needs_ia : bool
        An IA-based column (computed only with IA).
    undefined_without_information : bool
        NaN when no benchmark protein's truth carries information (the IA-based columns but the counts).
    description : str
    """

    name: str
    formula: Callable[[Curves], np.ndarray]
    needs_ia: bool = False
    undefined_without_information: bool = False
    description: str = ""


#: The curve columns, by name, in the order of ``curves.tsv`` (:func:`register_column` adds to them).
COLUMNS: dict[str, CurveColumn] = {}


class _ColumnNames(Sequence[str]):
    """The names of the registered columns for which ``keep(column)`` holds, in order (a live view)."""

    def __init__(self, keep: Callable[[CurveColumn], bool]) -> None:
        self._keep = keep

    def _names(self) -> list[str]:
        return [name for name, col in COLUMNS.items() if self._keep(col)]

    def __getitem__(self, i: Any) -> Any:
        return self._names()[i]

    def __len__(self) -> int:
        return len(self._names())

    def __contains__(self, name: object) -> bool:
        col = COLUMNS.get(name) if isinstance(name, str) else None
        return col is not None and self._keep(col)

    def __repr__(self) -> str:
        return repr(tuple(self._names()))


def _without_events(column: CurveColumn) -> bool:
    """Whether a sweep without event sources gives the column (not PAN-GO's, say: those need its events)."""
    return set(_sums_of(column.name, column, "cafa", "none")) <= set(STAT_NAMES)


#: Columns of the curves table, in order (IA-based ones only with IA): a live view of :data:`COLUMNS`, those
#: a sweep without event sources gives (the columns of an event source follow them when a run asks for its
#: measures, e.g. ``nr_f``; :data:`COLUMNS` has every one).
CURVE_COLUMNS: Sequence[str] = _ColumnNames(_without_events)
#: The IA-based columns.
IA_COLUMNS: Sequence[str] = _ColumnNames(lambda c: c.needs_ia)
#: The IA-based columns that are undefined when the truth carries no information (all but the counts).
UNDEFINED_WITHOUT_INFORMATION: Sequence[str] = _ColumnNames(lambda c: c.undefined_without_information)


def register_column(column: CurveColumn, *, replace: bool = False) -> CurveColumn:
    """Add a curve column (then in :func:`protein_curves`, ``curves.tsv`` and :func:`curve_sums`).

    Raises
    ------
    InvalidParameterError
        If the name is taken (unless ``replace``).
    """
    if column.name in COLUMNS and not replace:
        raise InvalidParameterError(f"The curve column {column.name!r} is already registered.")
    COLUMNS[column.name] = column
    return column


def unregister_column(name: str) -> CurveColumn:
    """Remove a curve column and return it."""
    if name not in COLUMNS:
        raise InvalidParameterError(f"The 'name' parameter of unregister_column must be one of {list(COLUMNS)}; "
                                    f"got {name!r}.")
    return COLUMNS.pop(name)


class _ReadSums(Mapping[str, np.ndarray]):
    """Sums of zeros that remember which were read."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names, self.read = tuple(names), set()

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self.names:
            raise KeyError(name)
        self.read.add(name)
        return np.zeros(1)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def curve_sums(column: str, normalization: str = "cafa", protein_weighting: str = "none") -> tuple[str, ...]:
    """The sums of :data:`~goeval.sweep.STAT_DEFINITIONS` a curve column is computed from (what its formula
    reads, through the columns it reads), in that order.

    Raises
    ------
    InvalidParameterError
        For a column that is not a curve column.

    Examples
    --------
    >>> curve_sums("s"), curve_sums("precision", "gt")
    (('ru', 'mi'), ('pr',))
    """
    if column not in COLUMNS:
        raise InvalidParameterError(f"The curve column {column!r} is not one of protein_curves' columns "
                                    f"{sorted(COLUMNS)}.")
    return formula_sums(lambda c: c[column], normalization, protein_weighting)


def formula_sums(formula: Callable[[Curves], Any], normalization: str = "cafa",
                 protein_weighting: str = "none") -> tuple[str, ...]:
    """The sums of :data:`~goeval.sweep.STAT_DEFINITIONS` a function of :class:`Curves` reads (found by running it
    on sums of zeros), in that order: a column's formula, or a whole-curve measure's (``Measure(reduce='curve')``)."""
    sums = _ReadSums(STAT_DEFINITIONS)
    stats = SweepStats(thresholds=np.zeros(1), sums=sums, n=1.0, n_true=1.0,  # type: ignore[arg-type]
                       it_sum=1.0, it2_sum=1.0, n_w=1.0)
    with np.errstate(all="ignore"):
        formula(Curves(stats, normalization, 2.0, protein_weighting))
    return tuple(k for k in STAT_DEFINITIONS if k in sums.read)


_READS: dict[tuple[str, int, str, str], tuple[str, ...]] = {}


def _sums_of(name: str, column: CurveColumn, normalization: str, protein_weighting: str) -> tuple[str, ...]:
    """:func:`curve_sums` of a registered column, found once: a column whose sums the statistics lack (those of
    an event source a run did not ask for) is not computed."""
    key = (name, id(column), normalization, protein_weighting)
    if key not in _READS:
        _READS[key] = curve_sums(name, normalization, protein_weighting)
    return _READS[key]


def _mean_ru(stats: SweepStats, normalization: str) -> np.ndarray:
    """Mean ru (CR13 eq. 2) of the plain or the i(T)-weighted statistics."""
    s = stats.sums
    if normalization == "pred":
        # sums over covered proteins only: uncovered ones have ru_i = i(T_i), mi_i = 0
        ru_cov = s["ru"] - (_total(stats.it_sum) - s["it_cov_w"])
        return _div(ru_cov, s["covered_w"])
    return _div(s["ru"], _total(_weighted_n(stats, normalization)))


def _mean_mi(stats: SweepStats, normalization: str) -> np.ndarray:
    """Mean mi (CR13 eq. 3) of the plain or the i(T)-weighted statistics."""
    s = stats.sums
    if normalization == "pred":
        return _div(s["mi"], s["covered_w"])
    return _div(s["mi"], _total(_weighted_n(stats, normalization)))


def _wavg(c: Curves) -> tuple[Any, Any]:
    """The sums the weighted precision and recall average (plain or i(T)-weighted) and their ``n``."""
    if c.protein_weighting == "information":
        info = c.information
        return info.sums, _total(info.n)
    return c.sums, _total(_weighted_n(c.stats, c.normalization))


def _wprecision(c: Curves) -> np.ndarray:
    a, a_n = _wavg(c)
    return _div(a["wpr"], a_n if c.normalization == "gt" else a["covered_w"])


def _wrecall(c: Curves) -> np.ndarray:
    a, a_n = _wavg(c)
    return _div(a["wrc"], a["covered_w"] if c.normalization == "pred" else a_n)


def _in_terms(c: Curves, missed: bool) -> np.ndarray:
    """``ru_terms`` (``missed``) or ``mi_terms``: ``fn``/``fp`` averaged over ``n`` (``pred``: over the
    covered proteins, whose missed terms are ``ntrue_cov - tp``)."""
    if c.normalization == "pred":
        return _div(c.sums["ntrue_cov"] - c.sums["tp"] if missed else c["fp"], c.sums["covered"])
    return _div(c["fn"] if missed else c["fp"], c.n)


def _column(name: str, formula: Callable[[Curves], np.ndarray], description: str, *, ia: bool = False,
            counts: bool = False) -> None:
    register_column(CurveColumn(name=name, formula=formula, needs_ia=ia, description=description,
                                undefined_without_information=ia and not counts))


# The built-in columns (CR13 §3.2-3.4; CAFA-evaluator's tp, fp, fn, terms and micro averages), in order.
_column("threshold", lambda c: c.stats.thresholds.copy(), "the decision threshold")
_column("n_proteins", lambda c: np.rint(np.full(c.sums["covered"].shape, c.n)).astype(np.int64),
        "benchmark proteins")
_column("n_covered", lambda c: np.rint(c.sums["covered"]).astype(np.int64), "proteins with a prediction")
_column("coverage", lambda c: _div(c.sums["covered"], c.n), "share of proteins with a prediction")
_column("precision", lambda c: _div(c.sums["pr"], c.n if c.normalization == "gt" else c.sums["covered"]),
        "mean precision")
_column("recall", lambda c: _div(c.sums["rc"], c.sums["covered"] if c.normalization == "pred" else c.n),
        "mean recall")
_column("f", lambda c: f_score(c["precision"], c["recall"]), "F of the mean precision and recall")
_column("precision_micro", lambda c: _div(c.sums["tp"], c.sums["npred"]), "pooled precision")
_column("recall_micro", lambda c: _div(c.sums["tp"], c.sums["ntrue_cov"] if c.normalization == "pred"
                                       else _total(c.stats.n_true)), "pooled recall")
_column("f_micro", lambda c: f_score(c["precision_micro"], c["recall_micro"]), "F of the pooled precision and recall")
_column("n_covered_w", lambda c: np.rint(c.sums["covered_w"]).astype(np.int64),
        "proteins with a prediction of positive information", ia=True, counts=True)
_column("coverage_w", lambda c: _div(c.sums["covered_w"], _total(_weighted_n(c.stats, c.normalization))),
        "share of proteins with a prediction of positive information", ia=True, counts=True)
_column("wprecision", _wprecision, "mean weighted precision", ia=True)
_column("wrecall", _wrecall, "mean weighted recall", ia=True)
_column("wf", lambda c: f_score(c["wprecision"], c["wrecall"]), "F of the weighted precision and recall", ia=True)
_column("ru", lambda c: _mean_ru(c.stats, c.normalization), "mean remaining uncertainty, bits", ia=True)
_column("mi", lambda c: _mean_mi(c.stats, c.normalization), "mean misinformation, bits", ia=True)
_column("s", lambda c: s_distance(c["ru"], c["mi"], c.k), "semantic distance S_k of ru and mi", ia=True)
_column("wru", lambda c: _mean_ru(c.information, c.normalization), "i(T)-weighted mean ru", ia=True)
_column("wmi", lambda c: _mean_mi(c.information, c.normalization), "i(T)-weighted mean mi", ia=True)
_column("ws", lambda c: s_distance(c["wru"], c["wmi"], c.k), "S_k of wru and wmi", ia=True)
_column("tp", lambda c: c.sums["tp"].copy(), "true positives summed over proteins")
_column("fp", lambda c: c.sums["npred"] - c.sums["tp"], "false positives summed over proteins")
_column("fn", lambda c: _total(c.stats.n_true) - c.sums["tp"],
        "false negatives summed over proteins (an uncovered protein misses its whole truth)")
_column("ru_terms", lambda c: _in_terms(c, True), "ru counted in terms")
_column("mi_terms", lambda c: _in_terms(c, False), "mi counted in terms")
_column("s_terms", lambda c: s_distance(c["ru_terms"], c["mi_terms"], c.k), "S_k counted in terms")
_column("wprecision_micro", lambda c: _div(c.sums["ia_tp"], c.sums["ia_pred"]), "pooled weighted precision", ia=True)
_column("wrecall_micro", lambda c: _div(c.sums["ia_tp"], c.sums["it_cov_w"] if c.normalization == "pred"
                                        else _total(c.stats.it_sum)), "pooled weighted recall", ia=True)
_column("wf_micro", lambda c: f_score(c["wprecision_micro"], c["wrecall_micro"]),
        "F of the pooled weighted precision and recall", ia=True)


def _nr_numerator(c: Curves) -> np.ndarray:
    """``E + 0.75 L + 0.5 M`` summed over the proteins (PAN-GO's partial credit)."""
    w = NR_WEIGHTS
    return w["E"] * c.sums["nr_e_n"] + w["L"] * c.sums["nr_l_n"] + w["M"] * c.sums["nr_m_n"]


def _nr_found(c: Curves) -> np.ndarray:
    return c.sums["nr_e_n"] + c.sums["nr_l_n"] + c.sums["nr_m_n"]


# PAN-GO's non-redundant partial credit (the sums of the event source 'nonredundant'; docs/conventions.md):
# macro precision over the proteins with a non-redundant prediction, recall over the proteins with a reduced
# truth (whatever the normalization), micro from the pooled counts
_column("nr_coverage", lambda c: _div(c.sums["nr_covered"], c.sums["nr_bench"]),
        "non-redundant: share of the benchmark proteins (T* not empty) with a term in P*")
_column("nr_precision", lambda c: _div(c.sums["nr_pr"], c.sums["nr_covered"]),
        "non-redundant partial-credit precision, mean over the proteins with a term in P*")
_column("nr_recall", lambda c: _div(c.sums["nr_rc"], c.sums["nr_bench"]),
        "non-redundant partial-credit recall, mean over the proteins with T* not empty")
_column("nr_f", lambda c: f_score(c["nr_precision"], c["nr_recall"]), "F of the non-redundant precision and recall")
_column("nr_precision_micro", lambda c: _div(_nr_numerator(c), _nr_found(c) + c.sums["nr_u_n"]),
        "non-redundant precision of the pooled counts, (E + 0.75 L + 0.5 M) / (E + L + M + U)")
_column("nr_recall_micro", lambda c: _div(_nr_numerator(c), _nr_found(c) + c.sums["nr_z_n"]),
        "non-redundant recall of the pooled counts, (E + 0.75 L + 0.5 M) / (E + L + M + Z)")
_column("nr_f_micro", lambda c: f_score(c["nr_precision_micro"], c["nr_recall_micro"]),
        "F of the pooled non-redundant precision and recall")
for _k in "elmuz":
    _column(f"nr_{_k}", lambda c, _k=_k: c.sums[f"nr_{_k}_n"].copy(),
            f"non-redundant count {_k.upper()} summed over the benchmark proteins")
del _k


def protein_curves(
    stats: SweepStats,
    *,
    normalization: str = "cafa",
    k: float = 2.0,
    protein_weighting: str = "none",
    with_ia: bool = True,
    release: bool = False,
) -> dict[str, np.ndarray]:
    """Curves over thresholds from sweep statistics: every registered column (:data:`COLUMNS`).

    Parameters
    ----------
    stats : SweepStats
        Sums of shape (n_thresholds,), or (B, n_thresholds) for weights of
        shape (B, n) (then every curve but ``threshold`` has that shape).
    normalization : {'cafa', 'pred', 'gt', 'cafa-pk'}
        ``cafa-pk``: as ``cafa``, with the information-weighted recall-type
        means (weighted recall, ru, mi, weighted coverage) over the proteins
        whose truth carries information (``stats.n_w``), as
        CAFA-evaluator-PK counts them.
    k : float, default 2
        Order of the semantic distance ``S_k``.
    protein_weighting : {'none', 'information'}
        How ``wpr_i``/``wrc_i`` are averaged: plainly (CAFA) or weighted by
        ``i(T_i)`` (CR13 §3.4.1, "as in Equations (4) and (5)"), i.e. the
        plain averages of :meth:`SweepStats.information_weighted`.
    with_ia : bool
        Include the IA-based columns.
    release : bool, default False
        The statistics are handed over: each sum leaves ``stats.sums`` once
        the last column that reads it is made, so that the sums and the
        curves are not all held at once (the same columns and bits).

    Returns
    -------
    dict of str to ndarray of shape (n_thresholds,)
        Keys of :data:`CURVE_COLUMNS` (IA columns only when ``with_ia``).

    Notes
    -----
    ``wru``/``wmi`` (CR13 eqs. 4-5) are ``ru``/``mi`` of the statistics
    under protein weights ``i(T_i)`` (:meth:`SweepStats.information_weighted`).
    When no benchmark protein's truth carries information (``sum_i i(T_i)
    = 0``: an IA giving 0 bits to every truth term), the IA-based columns but
    the counts are NaN (undefined, :data:`UNDEFINED_WITHOUT_INFORMATION`).
    """
    check_choice(normalization, "normalization", "protein_curves", NORMALIZATIONS)
    check_choice(protein_weighting, "protein_weighting", "protein_curves", ("none", "information"))
    c = Curves(stats, normalization, k, protein_weighting)
    have = stats.sums.keys()
    reads = {name: _sums_of(name, col, normalization, protein_weighting) for name, col in COLUMNS.items()
             if with_ia or not col.needs_ia}
    names = [name for name, sums in reads.items() if all(x in have for x in sums)]
    last = {x: j for j, name in enumerate(names) for x in reads[name]}  # the last column that reads each sum
    out = {}
    for j, name in enumerate(names):
        out[name] = c[name]
        if release:  # a sum no column left reads goes now
            for x in [x for x, at in last.items() if at == j]:
                stats.sums.pop(x)
    if with_ia:
        _undefined_without_information(out, stats)
    return out

def curve_values(
    stats: SweepStats,
    measures: Iterable[Any],
    *,
    normalization: str = "cafa",
    k: float = 2.0,
    protein_weighting: str = "none",
    calibration_bins: Any = 10,
) -> dict[str, np.ndarray]:
    """The values of whole-curve measures (``Measure(reduce='curve')``, e.g. ``ece``, ``brier``) from sweep
    statistics.

    Parameters
    ----------
    stats : SweepStats
        Sums of shape (n_thresholds,), or (B, n_thresholds) for weights of shape (B, n).
    measures : iterable of Measure
        Registered measures with ``reduce='curve'``.
    normalization, k, protein_weighting :
        As for :func:`protein_curves`.
    calibration_bins : int or sequence of float, default 10
        The bins of the calibration measures (:func:`goeval.metrics.calibration.calibration_bins`).

    Returns
    -------
    dict of str to ndarray
        Measure name -> its value, of shape () or (B,) (NaN where it is undefined).
    """
    c = Curves(stats, normalization, k, protein_weighting, calibration_bins)
    with np.errstate(divide="ignore", invalid="ignore"):
        return {ms.name: np.asarray(ms.curve(c), dtype=np.float64) for ms in measures}


def _undefined_without_information(out: dict[str, np.ndarray], stats: SweepStats) -> None:
    """NaN in every IA-based column (but the counts) when no benchmark protein's truth carries information.

    With ``i(T_i) = 0`` for every protein (an IA that gives 0 bits to every
    truth term: one for other terms, or another ontology) weighted
    recall is 0/0 for each protein and ru, mi, S measure nothing: they are
    undefined, not 0 (a perfect-looking Smin of 0).
    """
    it = _total(stats.it_sum)  # a float, or a column of shape (B, 1)
    if not np.any(np.asarray(it) == 0):
        return
    for col in UNDEFINED_WITHOUT_INFORMATION:
        out[col] = np.where(np.asarray(it) == 0, np.nan, np.asarray(out[col], dtype=float))


def best_index(values: np.ndarray, kind: str, valid: np.ndarray | None = None, *, rtol: float = 1e-12,
               ties: str = "low") -> int:
    """Index of the optimum; -1 if there is no valid value.

    Values within ``rtol`` (relative) of the optimum are ties - the same
    value computed through different rounding, e.g. F = 2/3 as
    0.6666666666666666 and 0.6666666666666665 - and the first one (the
    lowest threshold) is chosen; ``ties='high'``: the last one (the highest
    threshold, PAN-GO's rule for its non-redundant F).
    """
    v = np.asarray(values, float)
    ok = np.isfinite(v) if valid is None else (np.isfinite(v) & valid)
    if not ok.any():
        return -1
    best = v[ok].max() if kind == "max" else v[ok].min()
    tol = rtol * max(1.0, abs(best))
    near = np.flatnonzero(ok & (np.abs(v - best) <= tol))
    return int(near[-1] if ties == "high" else near[0])


def aupr_score(recall: np.ndarray, precision: np.ndarray) -> float:
    """Area under a protein-centric precision-recall curve (higher is better).

    The interpolation of CAFA-evaluator's plotting notebook (``plot.ipynb``,
    ``cumulate = True``, ``add_extreme_points = True``): along ascending
    thresholds the precision is replaced by its running maximum (the
    envelope made monotone), the points (recall 1, precision 0) and
    (recall 0, precision 1) are added at both ends, and each recall step is
    a rectangle whose height is the envelope at its lower-recall end.

    Parameters
    ----------
    recall, precision : ndarray of shape (n_thresholds,)
        A curve over ascending thresholds (the rows of ``curves.tsv`` of one
        method and namespace: coverage > 0).

    Returns
    -------
    float
        NaN for an empty curve.

    Notes
    -----
    With thresholds :math:`\\tau_1 < \\dots < \\tau_K`, :math:`r_0 = 1`,
    :math:`\\hat p_i = \\max_{j \\le i} p_j`:

    .. math::

        \\mathrm{AUPR} = \\sum_{i=1}^{K} (r_{i-1} - r_i)\\,\\hat p_i + r_K \\cdot 1

    (the notebook's ``(rc.diff(-1).shift(1) * pr).sum()`` on the curve with
    its two added points). The area depends on the thresholds of the curve
    (exact or a grid).

    Examples
    --------
    >>> aupr_score(np.array([0.8, 0.5, 0.2]), np.array([0.4, 0.3, 0.9]))  # 0.2*0.4 + 0.3*0.4 + 0.3*0.9 + 0.2
    0.67
    """
    r = np.asarray(recall, dtype=np.float64)
    p = np.asarray(precision, dtype=np.float64)
    if r.shape != p.shape or r.ndim != 1:
        raise InvalidParameterError(
            f"The 'recall' and 'precision' parameters of aupr_score must be 1-d arrays of one shape; got {r.shape} and {p.shape}.")
    if r.size == 0:
        return float("nan")
    envelope = np.maximum.accumulate(p)
    steps = np.r_[1.0, r[:-1]] - r
    return float(np.sum(np.r_[steps * envelope, r[-1]]))


#: BeProf's decision thresholds (``evaluation.py``, ``fmax``: ``for cut in (c / 100 for c in range(101))``, a term
#: predicted when its score is at least the cut).
BEPROF_CUTS: np.ndarray = np.array([c / 100 for c in range(101)])


def beprof_aupr(thresholds: np.ndarray, recall: np.ndarray, precision: np.ndarray) -> np.ndarray:
    """BeProf's area under a protein-centric precision-recall curve (its ``Aupr``, ``ICAupr`` and ``DPAupr``).

    The curve is read at BeProf's 101 cuts ``0, 0.01, ..., 1`` (:data:`BEPROF_CUTS`): at cut ``c`` the row of
    the lowest threshold at or above ``c`` (no such row: nothing predicted, precision and recall 0); the points
    are joined by straight lines in recall order and the area is the trapezoid rule (``new_compute_performance``:
    ``np.trapz`` of the precisions over the recalls sorted by ``np.argsort``), with no envelope and no end points.
    Points of equal recall are taken in descending order of cut (the recall never decreases as the cut falls),
    so each trapezoid joins two neighbouring cuts; BeProf's unstable sort leaves that order to the machine.

    Parameters
    ----------
    thresholds : ndarray of shape (m,)
        The ascending thresholds of the curve (every distinct score gives BeProf's curve exactly; a grid of
        step 0.01 too, but at cut 0, read at 0.01).
    recall, precision : ndarray of shape (m,) or (B, m)
        The curve over the thresholds (B bootstrap replicates).

    Returns
    -------
    ndarray of shape () or (B,)

    Examples
    --------
    >>> taus = np.array([0.2, 0.5, 0.9])
    >>> float(beprof_aupr(taus, np.array([1.0, 0.5, 0.25]), np.array([0.5, 0.75, 1.0])))  # from (0, 0): 0.25*0.5 + 0.25*0.875 + 0.5*0.625
    0.65625
    """
    t = np.asarray(thresholds, dtype=np.float64)
    r, p = np.asarray(recall, dtype=np.float64), np.asarray(precision, dtype=np.float64)
    if t.ndim != 1 or r.shape != p.shape or r.shape[-1:] != t.shape:
        raise InvalidParameterError(f"The 'recall' and 'precision' parameters of beprof_aupr must have the shape "
                                    f"(m,) or (B, m) of the thresholds, m = {t.size}; got {r.shape} and {p.shape}.")
    at = np.searchsorted(t, BEPROF_CUTS[::-1], side="left")  # descending cut: ascending recall
    pad = np.zeros(r.shape[:-1] + (1,))
    r, p = np.concatenate([r, pad], axis=-1)[..., at], np.concatenate([p, pad], axis=-1)[..., at]
    return np.sum(np.diff(r, axis=-1) * (p[..., 1:] + p[..., :-1]) / 2.0, axis=-1)


def curve_beprof_aupr(c: Curves, precision: str, recall: str) -> np.ndarray:
    """:func:`beprof_aupr` of two columns of the curves ``c`` (``Measure(reduce='curve')``: shape () or (B,)); NaN for
    curves (bootstrap replicates) that cover no protein at any threshold, which have no optimum or area either."""
    covered = np.any(np.asarray(c.sums["covered"]) > 0, axis=-1)
    return np.where(covered, beprof_aupr(c.stats.thresholds, c[recall], c[precision]), np.nan)


# ---------------------------------------------------------------------
# scikit-learn-shaped entry points: (y_true, y_score) -> curve or score
# ---------------------------------------------------------------------
def _namespace_of(ann: Any) -> slice:
    """Column range of the one namespace an Annotations object's terms lie in."""
    onto = ann.ontology
    cols = ann.matrix.tocsr().indices
    ns = np.unique(np.searchsorted(onto.bounds, cols, side="right") - 1)
    if ns.size > 1:
        names = [onto.labels[j] for j in ns]
        raise InvalidParameterError(
            f"y_true spans several namespaces ({names}); evaluate one at a time, e.g. y_true.namespace({names[0]!r})."
        )
    j = int(ns[0]) if ns.size else 0
    return slice(int(onto.bounds[j]), int(onto.bounds[j + 1]))


def _from_annotations(y_true: Any, y_score: Any, ia: Any) -> tuple[Any, Any, Any]:
    """Propagated truth and scores of one namespace as CSR arrays aligned on truth rows."""
    # deferred: goeval.annotations brings the ontology stack (networkx, pyarrow), which the curves of
    # sweep statistics (goeval compare, the bootstrap) never need
    from goeval.annotations import Annotations, propagate

    if not (isinstance(y_true, Annotations) and isinstance(y_score, Annotations)):
        raise InvalidParameterError("y_true and y_score must both be Annotations or both be sparse matrices.")
    if y_true.ontology is not y_score.ontology:
        raise InvalidParameterError("y_true and y_score must be mapped on the same Ontology object.")
    truth = y_true if y_true.propagated else propagate(y_true)
    score = y_score if y_score.propagated else propagate(y_score)
    cols = _namespace_of(truth)
    index = {p: i for i, p in enumerate(score.proteins.tolist())}
    pos = np.fromiter((index.get(p, -1) for p in truth.proteins.tolist()), np.int64, truth.proteins.size)
    sm = score.matrix.tocsr()
    empty = sp.csr_array((1, sm.shape[1]))  # proteins without predictions
    sm = sp.vstack([sm, empty], format="csr")[np.where(pos < 0, sm.shape[0], pos)]
    if ia is not None and np.shape(ia) != (truth.ontology.n_terms,):
        raise InvalidParameterError(
            f"The 'ia' parameter must have one value per term ({truth.ontology.n_terms}); got shape {np.shape(ia)}.")
    ia_local = None if ia is None else np.asarray(ia, dtype=np.float64)[cols]
    return truth.matrix.tocsr()[:, cols], sm[:, cols], ia_local


def _benchmark_stats(y_true: Any, y_score: Any, ia: Any, thresholds: Any, sample_weight: Any) -> SweepStats:
    """Sweep statistics of the proteins with a non-empty truth row."""
    if sp.issparse(y_true) and sp.issparse(y_score):
        tm, sm = sp.csr_array(y_true), sp.csr_array(y_score)
        ia_local = None if ia is None else np.asarray(ia, dtype=np.float64)
        if ia_local is not None and ia_local.shape != (tm.shape[1],):
            raise InvalidParameterError(
                f"The 'ia' parameter must have one value per column ({tm.shape[1]}); got shape {ia_local.shape}.")
    else:
        tm, sm, ia_local = _from_annotations(y_true, y_score, ia)
    if tm.shape != sm.shape:
        raise InvalidParameterError(f"y_true and y_score must have the same shape; got {tm.shape} and {sm.shape}.")
    tm = sp.csr_array(tm != 0)
    tm.sort_indices()
    sm = sm.astype(np.float64).tocsr()
    sm.sum_duplicates()
    if not (np.isfinite(sm.data).all() and (sm.data >= 0).all() and (sm.data <= 1).all()):
        raise InvalidParameterError("The scores of y_score must be finite and lie in [0, 1].")
    bench = np.flatnonzero(np.diff(tm.indptr) > 0)
    w = None
    if sample_weight is not None:
        w = np.asarray(sample_weight, dtype=np.float64)
        if w.shape != (tm.shape[0],):
            raise InvalidParameterError(
                f"The 'sample_weight' parameter must have one value per row of y_true ({tm.shape[0]}); got shape {w.shape}.")
        w = w[bench]
    tm, sm = tm[bench], sm[bench]
    taus = _thresholds(thresholds, sm.data)
    return sweep(sm.indptr, sm.indices, sm.data, tm.indptr, tm.indices, tm.shape[1], taus, ia_local, weights=w)


def _thresholds(thresholds: Any, scores: np.ndarray) -> np.ndarray:
    if isinstance(thresholds, str) and thresholds == "exact":
        return exact_thresholds(scores)
    if isinstance(thresholds, bool) or not isinstance(thresholds, (int, float, np.integer, np.floating)):
        raise InvalidParameterError(
            f"The 'thresholds' parameter must be 'exact' or a step such as 0.01; got {thresholds!r}.")
    return grid_thresholds(float(thresholds))


_INPUTS_DOC = """y_true : scipy sparse matrix of shape (n_proteins, n_terms) or Annotations
        Truth sets (bool or 0/1), assumed closed under ancestors. Proteins
        with an empty row are not benchmark proteins and are left out.
    y_score : scipy sparse matrix of the same shape, or Annotations
        Scores in [0, 1], assumed propagated (consistent); a missing entry is
        never predicted. Given two :class:`~goeval.annotations.Annotations`
        (same ontology, truth of one namespace), both are propagated (scores
        with ``max``) and the scores are matched to the truth by protein id.
    ia : ndarray of shape (n_terms,), optional
        Information accretion (bits) per column (per ontology term for
        Annotations).
    thresholds : 'exact' or float, default 'exact'
        ``'exact'``: every distinct score of the benchmark proteins; a step
        such as 0.01 gives ``tau_j = j * step``.
    sample_weight : ndarray of shape (n_proteins,), optional
        Protein weights (one per row of ``y_true``); integer weights equal
        repeated proteins."""


def protein_curve(
    y_true: Any,
    y_score: Any,
    *,
    ia: np.ndarray | None = None,
    thresholds: str | float = "exact",
    sample_weight: np.ndarray | None = None,
    normalization: str = "cafa",
    k: float = 2.0,
    protein_weighting: str = "none",
) -> dict[str, np.ndarray]:
    """Protein-centric curves over thresholds (the rows of ``curves.tsv``).

    Parameters
    ----------
    {inputs}
    normalization : {{'cafa', 'pred', 'gt'}}, default 'cafa'
    k : float, default 2
        Order of ``S_k``.
    protein_weighting : {{'none', 'information'}}, default 'none'

    Returns
    -------
    dict of str to ndarray of shape (n_covered_thresholds,)
        The columns of :data:`CURVE_COLUMNS` at the thresholds where at least
        one protein is covered (IA-based columns only with ``ia``).

    Notes
    -----
    With :math:`m(\\tau)` covered proteins among :math:`n` (``cafa``):

    .. math::

        pr(\\tau) = \\frac{{1}}{{m(\\tau)}} \\sum_i pr_i(\\tau),\\quad
        rc(\\tau) = \\frac{{1}}{{n}} \\sum_i rc_i(\\tau),\\quad
        F = \\frac{{2\\,pr\\,rc}}{{pr + rc}}

    Clark & Radivojac (2013), *Bioinformatics* 29(13):i53, §3.2-3.4.

    Examples
    --------
    Column 0 is the root, carried by every protein:

    >>> import numpy as np, scipy.sparse as sp
    >>> y_true = sp.csr_array(np.array([[1, 1, 0], [1, 0, 1]], dtype=bool))
    >>> y_score = sp.csr_array(np.array([[1.0, 0.8, 0.3], [1.0, 0.4, 0.0]]))
    >>> cur = protein_curve(y_true, y_score)
    >>> cur["threshold"].tolist(), cur["f"].round(4).tolist()
    ([0.3, 0.4, 0.8, 1.0], [0.6562, 0.75, 0.8571, 0.6667])
    """
    stats = _benchmark_stats(y_true, y_score, ia, thresholds, sample_weight)
    cur = protein_curves(stats, normalization=normalization, k=k, protein_weighting=protein_weighting,
                         with_ia=ia is not None)
    ok = cur["n_covered"] > 0
    return {c: cur[c][ok] for c in CURVE_COLUMNS if c in cur}


def _optimum(cur: dict[str, np.ndarray], name: str, func: str) -> float:
    ms = get_measure(name)
    i = best_index(cur[ms.column], ms.direction)
    if i < 0:
        warnings.warn(f"{func}: no benchmark protein is predicted at any threshold; {ms.name} is undefined (NaN).",
                      GoevalWarning, stacklevel=3)
        return float("nan")
    return float(cur[ms.column][i])


def fmax_score(
    y_true: Any,
    y_score: Any,
    *,
    ia: np.ndarray | None = None,
    weighted: bool = False,
    average: str = "macro",
    thresholds: str | float = "exact",
    sample_weight: np.ndarray | None = None,
    normalization: str = "cafa",
    protein_weighting: str = "none",
) -> float:
    """Fmax: the maximum over thresholds of the F-measure (higher is better).

    Parameters
    ----------
    {inputs}
    weighted : bool, default False
        The information-weighted wFmax (needs ``ia``): precision and recall
        count terms by their information accretion.
    average : {{'macro', 'micro'}}, default 'macro'
        Average per-protein precision and recall (CAFA), or pool tp/fp/fn
        over proteins (``micro``; not with ``weighted``).
    normalization : {{'cafa', 'pred', 'gt'}}, default 'cafa'
    protein_weighting : {{'none', 'information'}}, default 'none'
        For ``weighted``: average wpr_i/wrc_i plainly or by ``i(T_i)``.

    Returns
    -------
    float
        In [0, 1]; NaN with a :class:`~goeval.errors.GoevalWarning` when no
        benchmark protein is predicted at any threshold.

    Notes
    -----
    .. math::

        F_{{max}} = \\max_\\tau \\frac{{2\\,pr(\\tau)\\,rc(\\tau)}}{{pr(\\tau) + rc(\\tau)}}

    over the thresholds where at least one protein is covered; ties within
    rounding go to the lowest threshold. Clark & Radivojac (2013) §3.2.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> y_true = sp.csr_array(np.array([[1, 1, 0], [1, 0, 1]], dtype=bool))
    >>> y_score = sp.csr_array(np.array([[1.0, 0.8, 0.3], [1.0, 0.4, 0.0]]))
    >>> round(fmax_score(y_true, y_score), 4)  # 6/7 at tau = 0.8
    0.8571
    """
    check_choice(average, "average", "fmax_score", ("macro", "micro"))
    if weighted and (ia is None or average == "micro"):
        raise InvalidParameterError("The 'weighted' parameter of fmax_score needs 'ia' and average='macro'.")
    cur = protein_curve(y_true, y_score, ia=ia, thresholds=thresholds, sample_weight=sample_weight,
                        normalization=normalization, protein_weighting=protein_weighting)
    return _optimum(cur, "wfmax" if weighted else "fmax_micro" if average == "micro" else "fmax", "fmax_score")


def smin_distance(
    y_true: Any,
    y_score: Any,
    *,
    ia: np.ndarray | None = None,
    weighted: bool = False,
    k: float = 2.0,
    thresholds: str | float = "exact",
    sample_weight: np.ndarray | None = None,
    normalization: str = "cafa",
) -> float:
    """Smin: the minimum over thresholds of the semantic distance (bits; lower is better).

    Parameters
    ----------
    {inputs}
    weighted : bool, default False
        wSmin: ru and mi averaged with protein weights ``i(T_i)`` (CR13 eqs. 4-5).
    k : float, default 2
        Order of the distance, ``k >= 1``.
    normalization : {{'cafa', 'pred', 'gt'}}, default 'cafa'

    Returns
    -------
    float
        NaN with a :class:`~goeval.errors.GoevalWarning` when no benchmark
        protein is predicted at any threshold.

    Notes
    -----
    .. math::

        S_{{min}} = \\min_\\tau \\left(ru(\\tau)^k + mi(\\tau)^k\\right)^{{1/k}},\\quad
        ru(\\tau) = \\frac{{1}}{{n}} \\sum_i \\sum_{{v \\in T_i - P_i(\\tau)}} ia(v),\\quad
        mi(\\tau) = \\frac{{1}}{{n}} \\sum_i \\sum_{{v \\in P_i(\\tau) - T_i}} ia(v)

    Without ``ia`` every term carries 1 bit, so ru and mi count terms.
    Clark & Radivojac (2013) eqs. (2)-(6).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> y_true = sp.csr_array(np.array([[1, 1, 0], [1, 0, 1]], dtype=bool))
    >>> y_score = sp.csr_array(np.array([[1.0, 0.8, 0.3], [1.0, 0.4, 0.0]]))
    >>> smin_distance(y_true, y_score, ia=np.array([0.0, 1.0, 2.0]))  # ru 1, mi 0 at tau = 0.8
    1.0
    """
    if ia is None:
        n_terms = y_true.ontology.n_terms if hasattr(y_true, "ontology") else np.shape(y_true)[1]
        ia = np.ones(n_terms)
    cur = protein_curve(y_true, y_score, ia=ia, thresholds=thresholds, sample_weight=sample_weight,
                        normalization=normalization, k=k)
    return _optimum(cur, "wsmin" if weighted else "smin", "smin_distance")


for _f in (protein_curve, fmax_score, smin_distance):
    if _f.__doc__:  # None under python -OO
        _f.__doc__ = _f.__doc__.format(inputs=_INPUTS_DOC)
del _f
