"""Bootstrap intervals of the term-centric measures (``goeval retrieval --bootstrap``).

Resampled: the benchmark proteins of each namespace, the resamples of
:mod:`goeval.stats.resample` (the same draws as the protein-centric
bootstrap of the same benchmark and seed, so that both kinds of interval
come from the same replicates, and every method of a namespace gets the same
resamples). A replicate is a fresh term-centric evaluation of the drawn
proteins: a protein drawn ``m`` times is ``m`` rows of the block's truth and
score matrices, so it counts ``m`` times in every term's ranking, among the
positives and negatives of its ROC AUC and average precision, and in the
number of truth proteins that makes a term a query (``min_positives``,
``auc_min_positives``). Each replicate evaluates every term at once with the
vectorized kernels of the evaluation (one lexicographic sort of all the
stored scores; no loop over terms or proteins); the loop is over replicates.

Interval: :func:`goeval.stats.bootstrap.percentile_interval` of the
replicate values (NaN replicates left out and counted). Every registered
term-centric measure (:data:`goeval.metrics.registry.TERM_MEASURES`, or any
other registered with ``kind='term'`` and ``interval=True``) whose column the
summary holds gets three columns after its own: ``COLUMN_ci_low``,
``COLUMN_ci_high``, ``COLUMN_se`` (the suffixes of
:data:`~goeval.stats.bootstrap.BOOTSTRAP_COLUMNS`).
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, replace
from typing import Any, Iterable, Protocol, Sequence

import numpy as np

from goeval.errors import GoevalWarning, InvalidParameterError
from goeval.metrics.registry import Measure, get_measure, measures
from goeval.progress import stage
from goeval.stats.bootstrap import BOOTSTRAP_COLUMNS, percentile_interval
from goeval.stats.resample import resample_indices, resample_key

__all__ = ["interval_columns", "term_column", "is_term_measure", "term_replicates", "add_term_intervals", "bootstrap_terms", "TermBlockLike",
           "TermReplicates", "REPLICATES_PER_DRAW"]

#: Replicates whose indices are drawn at once (no effect on the values).
REPLICATES_PER_DRAW = 64


class TermBlockLike(Protocol):
    """What a block must offer to be resampled (:class:`goeval.evaluation.terms.TermBlock`)."""

    method: str
    label: str
    proteins: np.ndarray

    def values(self, rows: np.ndarray | None = None, *, strict: bool = True) -> tuple[dict[str, Any], dict[str, Any]]:
        ...


def interval_columns(columns: Iterable[str], ks: Sequence[int]) -> list[str]:
    """The summary columns of the registered term-centric measures with ``interval=True`` among ``columns``.

    Examples
    --------
    >>> interval_columns(["queries", "tap_5", "tap_20", "macro_roc_auc"], [5, 20])
    ['tap_5', 'tap_20', 'macro_roc_auc']
    """
    held = set(columns)
    out = []
    for m in measures("term"):
        names = [m.column.format(k=k) for k in ks] if "{k}" in m.column else [m.column]
        out += [c for c in names if c in held and m.interval and c not in out]
    return out


def term_replicates(blocks: Sequence[TermBlockLike], columns: Sequence[str], n_resamples: int,
                    seed: int = 0) -> list[np.ndarray]:
    """The value of every column in every bootstrap replicate of every block.

    Parameters
    ----------
    blocks : sequence of TermBlock
        One per (method, namespace).
    columns : sequence of str
        Summary columns (:func:`interval_columns`).
    n_resamples : int
        B.
    seed : int
        Seed of the resamples (:mod:`goeval.stats.resample`).

    Returns
    -------
    list of ndarray of shape (len(columns), B)
        Per block; NaN where a replicate leaves the value undefined (no
        query, no term with enough positives, a TAP-k cutoff that is
        undefined under ``insufficient='error'``).
    """
    out = []
    with stage(f"bootstrap: {n_resamples:,} term-centric resamples of {len(blocks):,} "
               f"block{'' if len(blocks) == 1 else 's'}",
               total=n_resamples * len(blocks), unit="resample", unit_scale=True) as st, \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", GoevalWarning)  # undefined per-term values: said by the point evaluation
        for b in blocks:
            n = int(np.asarray(b.proteins).size)
            key = resample_key(b.label, b.proteins)
            values = np.full((len(columns), n_resamples), np.nan)
            for start in range(0, n_resamples, REPLICATES_PER_DRAW):
                stop = min(n_resamples, start + REPLICATES_PER_DRAW)
                for j, rows in enumerate(resample_indices(seed, key, n, start, stop)):
                    row, _ = b.values(np.sort(rows), strict=False)
                    values[:, start + j] = [_number(row.get(c)) for c in columns]
                st.update(stop - start)
            out.append(values)
    return out


def _number(x: Any) -> float:
    return float("nan") if x is None else float(x)


def add_term_intervals(rows: list[dict[str, Any]], replicates: Sequence[np.ndarray], columns: Sequence[str],
                       confidence: float) -> dict[str, int]:
    """Insert ``COLUMN_ci_low``, ``COLUMN_ci_high``, ``COLUMN_se`` after each column of ``columns`` in every
    summary row (in place; rows and ``replicates`` in the same order).

    Returns
    -------
    dict of str to int
        ``"method/namespace/column"`` -> the replicates without a value where the point value is defined
        (a warning says them).
    """
    undefined: dict[str, int] = {}
    for i, (row, values) in enumerate(zip(rows, replicates)):
        added: dict[str, Any] = {}
        for c, v in zip(columns, values):
            lo, hi, se, bad = percentile_interval(v, confidence)
            added[c] = dict(zip(BOOTSTRAP_COLUMNS, (lo, hi, se)))
            if bad and c in row and np.isfinite(_number(row[c])):
                undefined[f"{row['method']}/{row['namespace']}/{c}"] = bad
        new: dict[str, Any] = {}
        for k, v in row.items():
            new[k] = v
            for suffix, x in added.get(k, {}).items():
                new[f"{k}_{suffix}"] = x
        for c in columns:  # a column of another block (absent here): NaN intervals keep the table rectangular
            for suffix in BOOTSTRAP_COLUMNS:
                new.setdefault(f"{c}_{suffix}", float("nan"))
        rows[i] = new
    for where, bad in undefined.items():
        warnings.warn(f"bootstrap: {bad} of {replicates[0].shape[1]} resamples leave {where} undefined; its interval "
                      f"uses the others.", GoevalWarning, stacklevel=2)
    return undefined



@dataclass(kw_only=True)
class TermReplicates:
    """The bootstrap replicates of a term-centric evaluation (what ``goeval compare`` reads back).

    Attributes
    ----------
    blocks : list of (str, str)
        (method, namespace) of each block.
    columns : list of str
        The summary columns resampled (:func:`interval_columns`).
    values : list of ndarray of shape (len(columns), n_resamples)
        Per block, every column's value in every replicate.
    points : list of ndarray of shape (len(columns),)
        Per block, the summary's values.
    keys : list of tuple of int
        Per block, the key of its resamples (:func:`goeval.stats.resample.resample_key`): blocks of one key
        were resampled together (the same proteins drawn).
    n_resamples, seed : int
    confidence : float
    """

    blocks: list[tuple[str, str]]
    columns: list[str]
    values: list[np.ndarray]
    points: list[np.ndarray]
    keys: list[tuple[int, ...]]
    n_resamples: int
    seed: int
    confidence: float


def bootstrap_terms(blocks: Sequence[TermBlockLike], rows: list[dict[str, Any]], ks: Sequence[int], n_resamples: int,
                    seed: int, confidence: float) -> tuple[TermReplicates, dict[str, int]]:
    """Intervals of every term-centric measure of the summary ``rows`` (one per block, in place:
    :func:`add_term_intervals`), and the replicates.

    Returns
    -------
    (TermReplicates, dict of str to int)
        The replicates and the undefined replicates of :func:`add_term_intervals`.
    """
    columns = interval_columns(dict.fromkeys(c for row in rows for c in row), ks)
    points = [np.array([_number(row.get(c)) for c in columns]) for row in rows]
    values = term_replicates(blocks, columns, n_resamples, seed)
    undefined = add_term_intervals(rows, values, columns, confidence)
    reps = TermReplicates(blocks=[(b.method, b.label) for b in blocks], columns=columns, values=values, points=points,
                          keys=[resample_key(b.label, b.proteins) for b in blocks], n_resamples=n_resamples, seed=seed,
                          confidence=confidence)
    return reps, undefined


_TAP = re.compile(r"tap_(\d+)")


def is_term_measure(name: str) -> bool:
    """Whether ``name`` is a registered term-centric measure (or ``tap_K``, TAP-k of one order).

    Examples
    --------
    >>> is_term_measure("macro_roc_auc"), is_term_measure("tap_20"), is_term_measure("fmax"), is_term_measure("x")
    (True, True, False, False)
    """
    if _TAP.fullmatch(str(name).lower()):
        return True
    try:
        return get_measure(name).kind == "term"
    except InvalidParameterError:
        return False


def term_column(name: str, columns: Sequence[str]) -> tuple[Measure, str]:
    """The registered term-centric measure ``name`` and its column among the resampled ``columns``.

    ``tap_K`` names TAP-k of order K; ``tap_k`` (or ``TAP-k``) the only order resampled. The measure
    returned is named after the column (``tap_20``).

    Raises
    ------
    InvalidParameterError
        Not a term-centric measure, a TAP-k without its order when several were resampled, or a column the
        replicates do not hold (naming those they hold).
    """
    held = list(columns)
    tap = _TAP.fullmatch(str(name).lower())
    ms = get_measure("tap_k") if tap else get_measure(name)
    if ms.kind != "term":
        raise InvalidParameterError(f"{ms.name!r} is not a term-centric measure; the replicates hold "
                                    f"{', '.join(held)}.")
    if tap:
        column = f"tap_{int(tap.group(1))}"
    elif "{k}" in ms.column:
        orders = [c for c in held if _TAP.fullmatch(c)]
        if len(orders) != 1:
            raise InvalidParameterError(f"Name the TAP-k order: {' or '.join(orders) or 'tap_K'} (the replicates hold "
                                        f"{', '.join(held)}).")
        column = orders[0]
    else:
        column = ms.column
    if column not in held:
        how = "a run with --ia or --ia-annotations computes it" if ms.needs_ia else \
            "a run with -k K computes it" if tap else "a run without it"
        raise InvalidParameterError(f"The replicates hold no {column!r} ({how}); they hold {', '.join(held)}.")
    return (replace(ms, name=column) if column != ms.column or tap else ms), column
