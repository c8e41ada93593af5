"""goeval.sweep.partial: merging partials in bounded pieces and folding +inf without a copy, same bits."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import goeval.sweep.partial as partial_mod
from goeval.sweep import SweepPartial, fold_infinite


def _random_partial(rng: np.random.Generator, pool: np.ndarray, k: int) -> SweepPartial:
    keys = np.sort(rng.choice(pool, size=min(k, pool.size), replace=False))
    return SweepPartial(keys, rng.normal(size=(keys.size, 5)) * 10.0 ** rng.integers(-6, 6, size=(keys.size, 1)))


def _literal_add(a: SweepPartial, b: SweepPartial) -> tuple[np.ndarray, np.ndarray]:
    """Key by key, the sum a dense accumulation gives (a's value + b's where both hold a key)."""
    keys = np.union1d(a.keys, b.keys)
    out = np.empty((keys.size, a.values.shape[1]))
    for i, k in enumerate(keys):
        ia, ib = np.flatnonzero(a.keys == k), np.flatnonzero(b.keys == k)
        out[i] = a.values[ia[0]] + b.values[ib[0]] if ia.size and ib.size else (
            a.values[ia[0]] if ia.size else b.values[ib[0]])
    return keys, out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 40), st.integers(1, 7))
def test_adding_in_pieces_is_the_literal_key_by_key_sum(seed, ka, kb, piece):
    rng = np.random.default_rng(seed)
    pool = np.unique(rng.integers(0, 60, size=80)).astype(float)
    a, b = _random_partial(rng, pool, ka), _random_partial(rng, pool, kb)
    keys, want = _literal_add(a, b)
    old = partial_mod._PIECE_ROWS
    partial_mod._PIECE_ROWS = piece  # pieces of a few rows: every boundary crossed
    try:
        got = a + b
    finally:
        partial_mod._PIECE_ROWS = old
    assert np.array_equal(got.keys, keys)
    assert np.array_equal(got.values, want)  # bit for bit
    assert np.array_equal((a + b).values, want)


def test_folding_in_place_gives_the_copy_s_bits_without_copying():
    rng = np.random.default_rng(5)
    keys = np.array([0.1, 0.5, 0.9, np.inf])
    values = rng.normal(size=(4, 3))
    copied = fold_infinite(SweepPartial(keys, values.copy()))
    mine = SweepPartial(keys, values.copy())
    folded = fold_infinite(mine, in_place=True)
    assert np.array_equal(folded.keys, copied.keys) and np.array_equal(folded.values, copied.values)
    assert np.shares_memory(folded.values, mine.values)
    assert not np.shares_memory(copied.values, values)
    only_inf = fold_infinite(SweepPartial(np.array([np.inf]), np.ones((1, 3))), in_place=True)
    assert only_inf.keys.size == 0 and only_inf.values.shape == (0, 3)
