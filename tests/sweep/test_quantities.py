"""Per-protein quantities declared once (goeval.sweep.quantities): the kernel, the steps and the shared sweep read them."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal
import scipy.sparse as sp

from goeval.errors import InvalidParameterError
from goeval.sweep import STAT_NAMES, grid_thresholds, protein_steps, sweep
from goeval.sweep.quantities import (QUANTITIES, STAT_DEFINITIONS, TOTALS, Quantity, RunningTotal, register_quantity,
                                     register_total, unregister_quantity)
from goeval.sweep.shared import shared_supported


def test_a_quantity_without_a_shared_rule_fails_naming_it():
    """Forgetting the shared rule is an error at declaration, never a naive baseline that silently loses its fast path."""
    with pytest.raises(InvalidParameterError, match="quantity 'npred2' declares no rule for a shared score vector"):
        Quantity(name="npred2", value=lambda s: s["cnt"], totals=("cnt",), sums={"npred2": 0})


def test_saying_there_is_no_shared_rule_makes_rows():
    q = register_quantity(Quantity(name="npred2", value=lambda s: s["cnt"], totals=("cnt",), sums={"npred2": 0},
                                   shared=None))
    try:
        assert not shared_supported() and "npred2" in STAT_NAMES
    finally:
        unregister_quantity(q.name)
    assert shared_supported() and "npred2" not in STAT_DEFINITIONS


def test_a_quantity_reads_registered_totals_only():
    with pytest.raises(InvalidParameterError, match="reads running totals that are not registered: \\['nope'\\]"):
        register_quantity(Quantity(name="x", value=lambda s: s["nope"], totals=("nope",), sums={"x": 0}, shared=None))
    assert "x" not in QUANTITIES


def test_a_new_total_and_quantity_reach_sweep_and_steps():
    """The per-protein sum of the predicted scores at >= tau, summed by the kernel with no other change."""
    register_total(RunningTotal(name="score_sum", entry=lambda e: e.scores, scores=True))
    register_quantity(Quantity(name="score_sum", value=lambda s: s["score_sum"], totals=("score_sum",),
                               sums={"score_sum": 0}, shared=None))
    try:
        rng = np.random.default_rng(3)
        n, n_cols = 40, 25
        truth = rng.random((n, n_cols)) < 0.2
        truth[:, 0] = True
        scores = np.where(rng.random((n, n_cols)) < 0.4, np.round(rng.random((n, n_cols)), 2), 0.0)
        s, t = sp.csr_array(scores), sp.csr_array(truth)
        pi, pc, ps, ti, tc = s.indptr, s.indices, s.data, t.indptr, t.indices
        taus = grid_thresholds(0.05)
        st = sweep(pi, pc, ps, ti, tc, n_cols, taus, chunk_entries=50)
        want = np.array([scores[scores >= t].sum() for t in taus])
        np.testing.assert_allclose(st.sums["score_sum"], want, rtol=1e-12)
        assert_array_equal(protein_steps(pi, pc, ps, ti, tc, n_cols, taus, chunk_entries=50).stats().sums["score_sum"],
                           st.sums["score_sum"])
    finally:
        unregister_quantity("score_sum")
    assert "score_sum" not in TOTALS
