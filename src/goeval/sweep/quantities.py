"""The per-protein quantities a sweep sums, each declared once (:func:`register_total`, :func:`register_quantity`).

Two kinds of declaration, as scikit-learn derives every curve from the counts of one
``_binary_clf_curve``:

* a **running total** (:class:`RunningTotal`) is a per-entry value summed over a protein's
  predicted entries from the highest threshold down: ``cnt`` (``|P|``), ``tp`` (``|T ∩ P|``),
  ``ia_pred`` (``sum_P ia``), ``ia_tp`` (``sum_{T∩P} ia``). The kernel
  (:func:`goeval.sweep.kernel.chunk_steps`) computes every registered total, integer ones exactly,
  the others with :func:`~goeval.sweep.running_sums`; a total may read the entries' scores;
* a **quantity** (:class:`Quantity`) is a function of a protein's running totals at one threshold,
  its ``|T|`` and ``i(T)`` (:class:`ProteinState`); it names the sums of it the sweep keeps
  (``sum_i w_i i(T_i)**p quantity_i`` for each power ``p``: :data:`STAT_DEFINITIONS`) and its
  rule for one score vector shared by every protein (:mod:`goeval.sweep.shared`), or says it has
  none (``shared=None``: the naive baseline without known terms then makes its rows).

The kernel, the step functions, the partial sums, the shared sweep, the store of per-protein
statistics and the bootstrap read these registries, so a new quantity is one declaration here or
in a user's module. A quantity registered without ``shared=`` fails at once (at import of the
module that declares it), naming the quantity.

Examples
--------
>>> import numpy as np
>>> STAT_DEFINITIONS["it_ru"]
('ru', 1)
>>> st = ProteinState(totals={"cnt": np.array([2.0]), "tp": np.array([1.0]), "ia_pred": np.array([3.0]),
...                           "ia_tp": np.array([1.0])}, n_t=np.array([4.0]), i_t=np.array([5.0]))
>>> {k: float(v[0]) for k, v in protein_state(st).items() if k in ("pr", "rc", "ru", "mi")}
{'pr': 0.5, 'rc': 0.25, 'ru': 4.0, 'mi': 2.0}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from goeval.errors import InvalidParameterError

__all__ = ["RunningTotal", "Quantity", "Entries", "Events", "ProteinState", "register_total", "register_quantity",
           "unregister_quantity", "TOTALS", "QUANTITIES", "STAT_DEFINITIONS", "protein_state", "EVENT_SOURCES",
           "event_totals", "sum_names"]


@dataclass(frozen=True, kw_only=True)
class Entries:
    """The predicted entries of a kernel chunk, in the kernel's order (protein, descending level, column).

    Attributes
    ----------
    cols : ndarray of int64
        Column (term) of each entry.
    tp : ndarray of bool
        Whether the term is in the protein's truth.
    ia : ndarray of float64
        Information accretion of the term (0 without IA).
    scores : ndarray of float64 or None
        The propagated scores (``+inf``: predicted at every threshold); only when a registered total
        declares ``scores=True``.
    """

    cols: np.ndarray
    tp: np.ndarray
    ia: np.ndarray
    scores: np.ndarray | None = None


@dataclass(frozen=True, kw_only=True)
class Events:
    """Per-protein events of an event source, in CSR form over the rows of a leaf: each counts, like a
    real entry, at every threshold up to its level.

    Attributes
    ----------
    indptr : ndarray of int64, shape (n + 1,)
    levels : ndarray of int64, shape (k,)
        Number of thresholds at or below the event (0: it never counts).
    values : dict of str to ndarray of float64, shape (k,)
        Per running total of the source (:attr:`RunningTotal.events`), the value each event adds (``+1`` and
        ``-1`` for a count over an interval of thresholds).
    truth : dict of str to ndarray of float64, shape (n,)
        Per-protein constants of the rows (e.g. the size of a reduced truth set), read by quantities as
        ``s[name]`` (:attr:`Quantity.truth`).
    """

    indptr: np.ndarray
    levels: np.ndarray
    values: dict[str, np.ndarray]
    truth: dict[str, np.ndarray]


@dataclass(frozen=True, kw_only=True)
class RunningTotal:
    """A per-entry value the kernel sums over each protein's entries from the highest threshold down.

    Attributes
    ----------
    name : str
    entry : callable (Entries) -> ndarray, one value per entry, or None
        The value of each real (predicted) entry; None for a total of an event source.
    exact : bool
        Integer values, summed exactly (counts); otherwise summed accurately
        (:func:`~goeval.sweep.running_sums`, within a few ulps of ``math.fsum``).
    scores : bool
        ``entry`` reads :attr:`Entries.scores` (the kernel then sorts with a permutation).
    events : str or None
        The event source whose events it sums (:data:`EVENT_SOURCES`; the values of :class:`Events`): computed
        only in a sweep given that source's events (a run asking for those measures), merged with the real
        entries of the same proteins (a real entry adds 0 to it, an event 0 to the totals of real entries).
        None: a total of the real entries (``entry``), always computed.
    """

    name: str
    entry: Callable[[Entries], np.ndarray] | None = None
    exact: bool = False
    scores: bool = False
    events: str | None = None

    def __post_init__(self) -> None:
        if (self.entry is None) == (self.events is None):
            raise InvalidParameterError(f"The running total {self.name!r} needs either 'entry' (a value per real "
                                        "entry) or 'events' (the name of an event source), not both.")


@dataclass(frozen=True, kw_only=True)
class ProteinState:
    """Running totals of proteins at one threshold (each a float64 array, one value per protein or group),
    with their ``|T|`` (``n_t``), ``i(T)`` (``i_t``), ``w_row`` (1.0 when a protein's truth carries
    information, 0.0 when not; None: every protein) and the per-protein constants of event sources
    (``truth``, :attr:`Events.truth`). ``state[name]`` is the total or the constant ``name``."""

    totals: Mapping[str, np.ndarray]
    n_t: np.ndarray
    i_t: np.ndarray
    w_row: np.ndarray | None = None
    truth: Mapping[str, np.ndarray] = field(default_factory=dict)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.totals[name] if name in self.totals else self.truth[name]


class _Unset:
    def __repr__(self) -> str:
        return "<not given>"


_UNSET: Any = _Unset()


@dataclass(frozen=True, kw_only=True)
class Quantity:
    """A per-protein quantity of the sweep, declared once.

    Attributes
    ----------
    name : str
    value : callable (ProteinState) -> ndarray
        Its per-protein value from the running totals (vectorized; called inside
        ``np.errstate(divide='ignore', invalid='ignore')``). With nothing predicted
        (every total 0) it may be non-zero (``ru = i(T)``): that value is added at every threshold.
    totals : tuple of str
        The running totals it reads (registered ones).
    sums : mapping of str to int
        The sums of it the sweep keeps: sum name -> power ``p`` of ``i(T_i)`` in
        ``sum_i w_i i(T_i)**p quantity_i`` (0, 1 or 2).
    shared : callable (vector, p) -> ndarray, or None
        Its rule for a score vector shared by every protein (:mod:`goeval.sweep.shared`: the change
        of ``sum_i i(T_i)**p quantity_i`` per level of the vector), or None to say it has none (the
        naive baseline without known terms then makes one row per protein). Required.
    description : str
    truth : tuple of str
        The per-protein constants of event sources it reads (:attr:`Events.truth`), besides ``n_t`` and ``i_t``.

    A quantity is computed in a sweep that computes every total it reads: one reading the totals of an
    event source only in a run given that source (:func:`sum_names`).
    """

    name: str
    value: Callable[[ProteinState], np.ndarray]
    totals: tuple[str, ...]
    sums: Mapping[str, int]
    shared: Callable[[Any, int], np.ndarray] | None = _UNSET
    description: str = ""
    truth: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.shared is _UNSET:
            raise InvalidParameterError(
                f"The quantity {self.name!r} declares no rule for a shared score vector: give shared=RULE "
                "(goeval.sweep.shared) or shared=None to say it has none (the naive baseline then makes its rows).")
        if self.shared is not None and not callable(self.shared):
            raise InvalidParameterError(f"The 'shared' parameter of the quantity {self.name!r} must be a function "
                                        f"(vector, p) -> ndarray or None; got {self.shared!r}.")
        bad = {k: p for k, p in self.sums.items() if p not in (0, 1, 2)}
        if not self.sums or bad:
            raise InvalidParameterError(f"The 'sums' parameter of the quantity {self.name!r} must map sum names to "
                                        f"powers 0, 1 or 2 of i(T); got {dict(self.sums)!r}.")


#: The running totals, by name, in registration order.
TOTALS: dict[str, RunningTotal] = {}
#: The per-protein quantities, by name, in registration order.
QUANTITIES: dict[str, Quantity] = {}
#: Every sum of :class:`~goeval.sweep.SweepStats`: name -> (quantity, power p), from the quantities'
#: ``sums`` (kept in step by :func:`register_quantity`). The sum is ``sum_i w_i * i(T_i)**p * quantity_i``
#: with the protein weights ``w_i`` of :func:`~goeval.sweep.sweep` (1 by default).
STAT_DEFINITIONS: dict[str, tuple[str, int]] = {}


def register_total(total: RunningTotal) -> RunningTotal:
    """Add a running total (its name must be new).

    Raises
    ------
    InvalidParameterError
        If the name is taken.
    """
    if total.name in TOTALS:
        raise InvalidParameterError(f"The running total {total.name!r} is already registered.")
    TOTALS[total.name] = total
    return total


def register_quantity(quantity: Quantity) -> Quantity:
    """Add a per-protein quantity and its sums (the sweep computes them from then on).

    Raises
    ------
    InvalidParameterError
        If its name or a sum name is taken, or it reads a total that is not registered.
    """
    if quantity.name in QUANTITIES:
        raise InvalidParameterError(f"The quantity {quantity.name!r} is already registered.")
    unknown = [t for t in quantity.totals if t not in TOTALS]
    if unknown:
        raise InvalidParameterError(f"The quantity {quantity.name!r} reads running totals that are not registered: "
                                    f"{unknown} (known: {list(TOTALS)}).")
    taken = [s for s in quantity.sums if s in STAT_DEFINITIONS]
    if taken:
        raise InvalidParameterError(f"The sums {taken} of the quantity {quantity.name!r} are already registered.")
    QUANTITIES[quantity.name] = quantity
    for s, p in quantity.sums.items():
        STAT_DEFINITIONS[s] = (quantity.name, p)
    return quantity


def unregister_quantity(name: str) -> Quantity:
    """Remove a quantity and its sums (and the running totals no other quantity reads, if not built in)."""
    if name not in QUANTITIES:
        raise InvalidParameterError(f"The 'name' parameter of unregister_quantity must be one of "
                                    f"{sorted(QUANTITIES)}; got {name!r}.")
    quantity = QUANTITIES.pop(name)
    for s in quantity.sums:
        del STAT_DEFINITIONS[s]
    still = {t for q in QUANTITIES.values() for t in q.totals}
    for t in quantity.totals:
        if t not in still and t not in _BUILT_IN_TOTALS:
            del TOTALS[t]
    return quantity


def protein_state(state: ProteinState) -> dict[str, np.ndarray]:
    """The value of every registered quantity of proteins in ``state`` whose totals and constants it holds."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return {name: q.value(state) for name, q in QUANTITIES.items()
                if all(t in state.totals for t in q.totals) and all(t in state.truth for t in q.truth)}


#: The event sources, by name (the values of :attr:`RunningTotal.events`): name -> a function
#: ``(ontology, lo, hi, options) -> source`` giving a namespace's source, an object with a ``name``,
#: ``events(indptr, cols, scores, truth_indptr, truth_cols, thresholds) -> Events`` (the events of
#: propagated rows) and ``truth(truth_indptr, truth_cols) -> dict`` (the per-protein constants of
#: truth rows). A run computes a source's totals, quantities and sums only when its options ask for it
#: (``EvaluationOptions.measures``).
EVENT_SOURCES: dict[str, Callable[..., Any]] = {}


def event_totals(source: str) -> tuple[str, ...]:
    """The running totals of the event source ``source``."""
    return tuple(name for name, t in TOTALS.items() if t.events == source)


def sum_names(sources: Any = ()) -> tuple[str, ...]:
    """The sums a sweep keeps given the event sources ``sources`` (their names): those of every quantity whose
    running totals are computed (the totals of real entries, and those of ``sources``), in registration order.

    Examples
    --------
    >>> base, nr = sum_names(), sum_names(("nonredundant",))
    >>> set(base) < set(nr), "nr_rc" in nr, "nr_rc" in base
    (True, True, False)
    """
    given = set(sources)
    have = {name for name, t in TOTALS.items() if t.events is None or t.events in given}
    return tuple(s for s, (q, _) in STAT_DEFINITIONS.items() if all(t in have for t in QUANTITIES[q].totals))


# ---------------------------------------------------------------------------------------------
# The built-in totals and quantities (Clark & Radivojac 2013; CAFA-evaluator's micro averages)
# ---------------------------------------------------------------------------------------------
for _t in (RunningTotal(name="cnt", entry=lambda e: np.ones(e.cols.size, np.int64), exact=True),
           RunningTotal(name="tp", entry=lambda e: e.tp, exact=True),
           RunningTotal(name="ia_pred", entry=lambda e: e.ia),
           RunningTotal(name="ia_tp", entry=lambda e: np.where(e.tp, e.ia, 0.0))):
    register_total(_t)
_BUILT_IN_TOTALS = frozenset(TOTALS)


def _covered(s: ProteinState) -> np.ndarray:
    return (s["cnt"] > 0).astype(np.float64)


def _weighted_rows(x: np.ndarray, s: ProteinState) -> np.ndarray:
    """``x`` of the proteins whose truth carries information (``w_row``), 0 for the others."""
    return x if s.w_row is None else x * s.w_row


def _quantity(name: str, value: Callable[[ProteinState], np.ndarray], totals: tuple[str, ...], sums: dict[str, int],
              shared: Callable[[Any, int], np.ndarray], description: str) -> None:
    register_quantity(Quantity(name=name, value=value, totals=totals, sums=sums, shared=shared,
                               description=description))


# The shared rules call the methods of goeval.sweep.shared.SharedVector (v) at power p.
_quantity("covered", _covered, ("cnt",), {"covered": 0, "it_cov": 1},
          lambda v, p: v.indicator(v.count > 0, v.total(p)), "[|P| > 0]")
_quantity("pr", lambda s: np.where(s["cnt"] > 0, s["tp"] / s["cnt"], 0.0), ("cnt", "tp"), {"pr": 0},
          lambda v, p: v.changes(v.ratio(v.from_top(v.delta("t", p)), v.count)), "|T ∩ P| / |P| (0 when not covered)")
_quantity("rc", lambda s: np.where(s.n_t > 0, s["tp"] / s.n_t, 0.0), ("tp",), {"rc": 0},
          lambda v, p: v.delta("r", p), "|T ∩ P| / |T|")
_quantity("tp", lambda s: s["tp"], ("tp",), {"tp": 0}, lambda v, p: v.delta("t", p), "|T ∩ P|")
_quantity("npred", lambda s: s["cnt"], ("cnt",), {"npred": 0}, lambda v, p: v.d_count * v.total(p), "|P|")
_quantity("ntrue_cov", lambda s: _covered(s) * s.n_t, ("cnt",), {"ntrue_cov": 0},
          lambda v, p: v.indicator(v.count > 0, float((v.weights[p] * v.n_t).sum())), "|T| of covered proteins")
_quantity("covered_w", lambda s: _weighted_rows((s["ia_pred"] > 0).astype(np.float64), s), ("ia_pred",),
          {"covered_w": 0, "it_cov_w": 1, "it2_cov_w": 2}, lambda v, p: v.indicator(v.ia > 0, v.total(p)),
          "[sum_P ia > 0]")
_quantity("wpr", lambda s: np.where(s["ia_pred"] > 0, s["ia_tp"] / s["ia_pred"], 0.0), ("ia_pred", "ia_tp"),
          {"wpr": 0, "it_wpr": 1}, lambda v, p: v.changes(v.ratio(v.from_top(v.delta("q", p)), v.ia)),
          "sum_{T∩P} ia / sum_P ia")
_quantity("wrc", lambda s: np.where(s.i_t > 0, s["ia_tp"] / s.i_t, 0.0), ("ia_tp",), {"wrc": 0, "it_wrc": 1},
          lambda v, p: v.delta("w", p), "sum_{T∩P} ia / i(T)")
_quantity("ru", lambda s: s.i_t - s["ia_tp"], ("ia_tp",), {"ru": 0, "it_ru": 1}, lambda v, p: -v.delta("q", p),
          "sum_{T-P} ia")
_quantity("mi", lambda s: _weighted_rows(s["ia_pred"] - s["ia_tp"], s), ("ia_pred", "ia_tp"), {"mi": 0, "it_mi": 1},
          lambda v, p: v.d_ia * v.total(p) - v.delta("q", p), "sum_{P-T} ia")
_quantity("ia_tp", lambda s: s["ia_tp"], ("ia_tp",), {"ia_tp": 0}, lambda v, p: v.delta("q", p),
          "sum_{T∩P} ia (pooled for micro averages)")
_quantity("ia_pred", lambda s: _weighted_rows(s["ia_pred"], s), ("ia_pred",), {"ia_pred": 0},
          lambda v, p: v.d_ia * v.total(p), "sum_P ia (pooled for micro averages)")
del _t


# ---------------------------------------------------------------------------------------------
# Calibration (goeval.metrics.calibration): sums of the predicted scores, s^2 and s on true terms,
# plain and IA-weighted. A score above 1 (+inf: a root counted as predicted at every threshold) counts
# as 1, a certain prediction.
# ---------------------------------------------------------------------------------------------
def _capped(scores: np.ndarray) -> np.ndarray:
    """Scores as probabilities: at most 1 (``+inf``, predicted at every threshold, is certain)."""
    return np.minimum(scores, 1.0)


def _true_terms(v: Any, p: int) -> np.ndarray:
    """Per entry of a shared vector: ``sum_i i(T_i)^p`` over the proteins whose truth holds its term."""
    return v.term_sum(v.weights[p])[v.cols]


_CALIBRATION = (  # name, per-entry value, shared rule, weighted (IA) or not, description
    ("score", lambda e: _capped(e.scores), lambda v, p: v.level_sum(_capped(v.scores)) * v.total(p), False,
     "sum_P s"),
    ("score2", lambda e: _capped(e.scores) ** 2, lambda v, p: v.level_sum(_capped(v.scores) ** 2) * v.total(p),
     False, "sum_P s^2"),
    ("score_tp", lambda e: np.where(e.tp, _capped(e.scores), 0.0),
     lambda v, p: v.level_sum(_true_terms(v, p) * _capped(v.scores)), False, "sum_{T∩P} s"),
    ("ia_score", lambda e: e.ia * _capped(e.scores), lambda v, p: v.level_sum(v.ia_v * _capped(v.scores)) * v.total(p),
     True, "sum_P ia s"),
    ("ia_score2", lambda e: e.ia * _capped(e.scores) ** 2,
     lambda v, p: v.level_sum(v.ia_v * _capped(v.scores) ** 2) * v.total(p), True, "sum_P ia s^2"),
    ("ia_score_tp", lambda e: np.where(e.tp, e.ia * _capped(e.scores), 0.0),
     lambda v, p: v.level_sum(_true_terms(v, p) * v.ia_v * _capped(v.scores)), False, "sum_{T∩P} ia s"),
)
for _name, _entry, _rule, _rows, _text in _CALIBRATION:
    register_total(RunningTotal(name=_name, entry=_entry, scores=True))
    _quantity(_name, (lambda n, r: (lambda s: _weighted_rows(s[n], s) if r else s[n]))(_name, _rows), (_name,),
              {_name: 0}, _rule, _text)
del _name, _entry, _rule, _rows, _text
# PAN-GO's non-redundant partial credit (goeval.metrics.nonredundant, docs/conventions.md): counts of
# the event source "nonredundant", each a sum over intervals of thresholds (+1 at the top, -1 at the bottom)
# ---------------------------------------------------------------------------------------------
for _name in ("nr_e", "nr_l", "nr_m", "nr_u", "nr_mapped"):
    register_total(RunningTotal(name=_name, events="nonredundant", exact=True))
_NR = ("nr_e", "nr_l", "nr_m", "nr_u", "nr_mapped")
#: Partial credit of an exact (E), less specific (L) and more specific (M) predicted term.
NR_WEIGHTS = {"E": 1.0, "L": 0.75, "M": 0.5}


def _nr_bench(s: ProteinState) -> np.ndarray:
    """1.0 for a protein of the non-redundant benchmark (its reduced truth ``T*`` not empty)."""
    return (s["nr_star"] > 0).astype(np.float64)


def _nr_count(name: str) -> Callable[[ProteinState], np.ndarray]:
    return lambda s: s[name] * _nr_bench(s)


def _nr_z(s: ProteinState) -> np.ndarray:
    """Z, the terms of ``T*`` no term of ``P*`` is comparable with: ``|T*| - mapped``."""
    return (s["nr_star"] - s["nr_mapped"]) * _nr_bench(s)


def _nr_num(s: ProteinState) -> np.ndarray:
    w = NR_WEIGHTS
    return w["E"] * s["nr_e"] + w["L"] * s["nr_l"] + w["M"] * s["nr_m"]


def _nr_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def _nr_pr(s: ProteinState) -> np.ndarray:
    return _nr_ratio(_nr_num(s), s["nr_e"] + s["nr_l"] + s["nr_m"] + s["nr_u"]) * _nr_bench(s)


def _nr_rc(s: ProteinState) -> np.ndarray:
    return _nr_ratio(_nr_num(s), s["nr_e"] + s["nr_l"] + s["nr_m"] + s["nr_star"] - s["nr_mapped"]) * _nr_bench(s)


def _nr_covered(s: ProteinState) -> np.ndarray:
    return ((s["nr_e"] + s["nr_l"] + s["nr_m"] + s["nr_u"]) > 0) * _nr_bench(s)


for _q in (Quantity(name="nr_bench", value=_nr_bench, totals=("nr_mapped",), truth=("nr_star",), sums={"nr_bench": 0},
                    shared=None, description="[|T*| > 0]: a protein of the non-redundant benchmark (reads no total: "
                                             "one of its source's, to be computed with them)"),
           *(Quantity(name=f"{t}_n", value=_nr_count(t), totals=(t,), truth=("nr_star",), sums={f"{t}_n": 0},
                      shared=None, description=f"the count {t[3:].upper()} of a protein of the benchmark")
             for t in ("nr_e", "nr_l", "nr_m", "nr_u")),
           Quantity(name="nr_z_n", value=_nr_z, totals=("nr_mapped",), truth=("nr_star",), sums={"nr_z_n": 0},
                    shared=None, description="Z = |T*| - mapped"),
           Quantity(name="nr_covered", value=_nr_covered, totals=_NR[:4], truth=("nr_star",), sums={"nr_covered": 0},
                    shared=None, description="[|P*| > 0]"),
           Quantity(name="nr_pr", value=_nr_pr, totals=_NR[:4], truth=("nr_star",), sums={"nr_pr": 0}, shared=None,
                    description="(E + 0.75 L + 0.5 M) / (E + L + M + U), 0 when P* is empty"),
           Quantity(name="nr_rc", value=_nr_rc, totals=_NR, truth=("nr_star",), sums={"nr_rc": 0}, shared=None,
                    description="(E + 0.75 L + 0.5 M) / (E + L + M + Z)")):
    register_quantity(_q)
del _name, _q
_BUILT_IN_TOTALS = frozenset(TOTALS)
