"""Decision thresholds of a sweep: a grid built from integers, or every distinct score."""

from __future__ import annotations

import math

import numpy as np

from goeval.errors import InvalidParameterError

__all__ = ["MAX_GRID_THRESHOLDS", "grid_thresholds", "arange_thresholds", "exact_thresholds", "grid_multiplier"]

#: Largest number of grid thresholds accepted (a step of 1e-7). Each threshold
#: costs a few hundred bytes per curve and per method and namespace; a smaller
#: step would need gigabytes before any input is read.
MAX_GRID_THRESHOLDS = 10_000_000

def grid_thresholds(step: float) -> np.ndarray:
    """Thresholds ``tau_j = j / N`` for ``j = 1 .. N``, ``N = round(1 / step)``.

    Computed from integers, so 0.06 is exactly the double nearest to 0.06
    (``np.arange(0.01, 1, 0.01)`` gives 0.060000000000000005 there).

    Raises
    ------
    InvalidParameterError
        Unless ``0 < step <= 1``, ``1 / step`` is an integer and the grid has
        at most :data:`MAX_GRID_THRESHOLDS` thresholds.
    """
    if not (isinstance(step, (int, float)) and math.isfinite(step) and 0 < step <= 1):
        raise InvalidParameterError(f"The threshold step must lie in (0, 1]; got {step!r}.")
    n = int(round(1.0 / step))
    if abs(n * step - 1.0) > 1e-9:
        raise InvalidParameterError(
            f"The threshold step must divide 1 exactly (e.g. 0.01, 0.05, 0.1); got {step!r}."
        )
    if n > MAX_GRID_THRESHOLDS:
        raise InvalidParameterError(
            f"The threshold step {step!r} gives {n:,} thresholds (at most {MAX_GRID_THRESHOLDS:,}); "
            "use a larger step, or 'exact' for every distinct score."
        )
    return np.arange(1, n + 1) / n


def arange_thresholds(step: float) -> np.ndarray:
    """CAFA-evaluator's thresholds: ``np.arange(step, 1, step)`` as floats, 0 and 1 excluded.

    The values drift from the decimals they stand for (with step 0.001, 170
    of the 999 thresholds are one unit in the last place above ``j/1000``, so
    a score of exactly that decimal is not predicted there): this grid
    reproduces CAFA-evaluator(-PK)'s scores to the last digit, where
    :func:`grid_thresholds` gives the decimals themselves.

    Raises
    ------
    InvalidParameterError
        Unless ``0 < step < 1`` and the grid has at most :data:`MAX_GRID_THRESHOLDS` thresholds.

    Examples
    --------
    >>> taus = arange_thresholds(0.01)
    >>> taus.size, float(taus[5]) == 0.06, float(taus[5])
    (99, False, 0.060000000000000005)
    """
    if not (isinstance(step, (int, float)) and math.isfinite(step) and 0 < step < 1):
        raise InvalidParameterError(f"The threshold step of an arange grid must lie in (0, 1); got {step!r}.")
    if math.ceil((1 - step) / step) > MAX_GRID_THRESHOLDS:
        raise InvalidParameterError(f"The threshold step {step!r} gives more than {MAX_GRID_THRESHOLDS:,} thresholds.")
    return np.arange(step, 1, step)


def grid_multiplier(thresholds: np.ndarray) -> int:
    """``N`` when ``thresholds`` are a grid of step ``1/N`` - the decimals ``j / N`` (:func:`grid_thresholds`)
    or CAFA-evaluator's floats (:func:`arange_thresholds`) - else 0.

    On such a grid the number of thresholds at or below a score is ``floor(score * N)`` up to one, which the
    sweep corrects against the thresholds themselves (faster than a binary search, the same result).

    Examples
    --------
    >>> grid_multiplier(grid_thresholds(0.01)), grid_multiplier(arange_thresholds(0.001)), grid_multiplier(np.array([0.3]))
    (100, 1000, 0)
    """
    t = np.asarray(thresholds, dtype=np.float64)
    m = t.size
    if m == 0 or not t[0] * (MAX_GRID_THRESHOLDS + 1) >= 1:  # no grid starts below 1 / its size (rank thresholds may)
        return 0
    if np.array_equal(t, np.arange(1, m + 1) / m):
        return m
    n = int(round(1.0 / t[0]))
    if n < 2 or m not in (n - 1, n) or not np.array_equal(t, np.arange(t[0], 1, t[0])):
        return 0
    return n if np.abs(t - np.arange(1, m + 1) / n).max() < 0.25 / n else 0


def exact_thresholds(*score_arrays: np.ndarray) -> np.ndarray:
    """Every distinct positive, finite score (ascending)."""
    s = np.concatenate([np.asarray(a, dtype=np.float64) for a in score_arrays]) if score_arrays else np.zeros(0)
    s = np.unique(s[(s > 0) & np.isfinite(s)])
    return s
