"""goeval.sweep.partial: merging partials in bounded pieces and folding +inf without a copy, same bits."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import goeval.sweep.partial as partial_mod
from goeval.sweep import SweepPartial, TreeSum, fold_infinite


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
    partial_mod._PIECE_ROWS = piece
    try:  # grown in place: rows moved from the last piece down, every boundary crossed
        mine = SweepPartial(a.keys.copy(), a.values.copy())
        grown = mine.merged(b, grow=True)
    finally:
        partial_mod._PIECE_ROWS = old
    assert np.array_equal(grown.keys, keys) and np.array_equal(grown.values, want)
    assert grown.values is mine.values  # the same array, enlarged


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12))
def test_the_tree_grows_its_own_sums_only_with_the_fold_s_bits(seed, n):
    rng = np.random.default_rng(seed)
    pool = np.unique(rng.integers(0, 200, size=300)).astype(float)
    parts = [_random_partial(rng, pool, int(rng.integers(1, 60))) for _ in range(n)]
    before = [(p.keys.copy(), p.values.copy()) for p in parts]

    def plain(ps):  # the tree of TreeSum, by recursion on a power-of-two split, with new arrays only
        stack = []
        for p in ps:
            size = 1
            while stack and stack[-1][0] == size:
                p, size = stack.pop()[1] + p, size * 2
            stack.append((size, p))
        total = stack[-1][1]
        for _, left in reversed(stack[:-1]):
            total = left + total
        return total

    want = plain(parts)
    acc = TreeSum()
    for p in parts:
        acc.push(p)
    got = acc.result()
    assert np.array_equal(got.keys, want.keys) and np.array_equal(got.values, want.values)  # bit for bit
    for p, (k, v) in zip(parts, before):  # what was pushed is not changed
        assert np.array_equal(p.keys, k) and np.array_equal(p.values, v) and p.values.shape == v.shape


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


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.booleans(), st.integers(0, 2), st.integers(1, 5))
def test_a_handed_over_partial_gives_the_same_statistics_taken_apart_in_place(seed, k, infinite, extra, piece):
    """finish_partial(release=True) (exact thresholds): the same sums, bit for bit, from the partial's values
    taken apart a half at a time (compacted in pieces of a few rows, every boundary crossed), with or without
    a +inf key and with columns beyond the sums; the partial is left empty."""
    from goeval.sweep import finish_partial
    from goeval.sweep.quantities import sum_names

    rng = np.random.default_rng(seed)
    width = len(sum_names()) + extra
    keys = np.sort(rng.choice(np.linspace(0.01, 1.0, 100), size=k, replace=False))
    if infinite:
        keys = np.r_[keys, np.inf]
    values = rng.normal(size=(keys.size, width)) * 10.0 ** rng.integers(-3, 3, size=(keys.size, 1))
    n_t, i_t = rng.integers(1, 5, size=6).astype(float), rng.random(6) * 3
    want = finish_partial(SweepPartial(keys.copy(), values.copy()), None, n_t, i_t)
    mine = SweepPartial(keys.copy(), values.copy())
    old = partial_mod._PIECE_ROWS
    partial_mod._PIECE_ROWS = piece
    try:
        got = finish_partial(mine, None, n_t, i_t, release=True)
    finally:
        partial_mod._PIECE_ROWS = old
    assert np.array_equal(got.thresholds, want.thresholds)
    assert list(got.sums) == list(want.sums)
    for name, v in want.sums.items():
        assert np.array_equal(got.sums[name], v), name
        assert got.sums[name].strides == v.strides  # (the same layout: reversed views of their own arrays)
    assert (got.n, got.n_true, got.it_sum, got.it2_sum) == (want.n, want.n_true, want.it_sum, want.it2_sum)
    assert mine.values.size == 0
    view = SweepPartial(keys.copy(), values.copy())
    held = view.values[:1]  # referred to elsewhere: copied out, not resized under the view
    again = finish_partial(view, None, n_t, i_t, release=True)
    assert all(np.array_equal(again.sums[n], v) for n, v in want.sums.items())
    assert np.array_equal(held, fold_infinite(SweepPartial(keys, values.copy())).values[:1])  # (+inf folded in)
