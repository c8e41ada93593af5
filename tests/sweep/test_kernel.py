"""The sweep kernel's shortcuts give the bits of the plain computation (goeval.sweep.kernel)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from goeval.sweep.kernel import TruthFlags, _carried, _compensated, chunk_steps, running_sums

_VALUES = st.one_of(st.just(0.0), st.just(0.0), st.just(0.0), st.just(-0.0),
                    st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_VALUES, min_size=1, max_size=12), min_size=1, max_size=15), st.data())
def test_running_sums_of_a_mostly_zero_array_have_the_bits_of_the_whole_array(runs, data):
    """A run of +0.0 entries only, a run starting or ending on zeros, -0.0: the entries without the +0.0 ones
    (the shortcut) give every bit of the compensated sums over the whole array, runs of several proteins too."""
    x = np.array([v for r in runs for v in r])
    lengths = np.array([len(r) for r in runs])
    ends = np.cumsum(lengths) - 1
    first_of_protein = data.draw(st.lists(st.booleans(), min_size=len(runs), max_size=len(runs)))
    first_of_protein[0] = True
    starts = np.maximum.accumulate(np.where(first_of_protein, ends - lengths + 1, 0))  # running from the protein's start
    got, want = running_sums(x, ends, starts), _compensated(x, ends, starts)
    assert got.tobytes() == want.tobytes()


def test_scores_carried_by_a_plain_sort_equal_those_of_the_permutation():
    """Columns ascending within rows (CSR's order) take the plain sort of (group, entry) keys; the same entries
    with a row's columns reversed take the permutation of the packed key: the same groups, totals and bits."""
    rng = np.random.default_rng(0)
    n_rows, n_cols = 40, 300
    cols = [np.sort(rng.choice(n_cols, int(rng.integers(1, 60)), replace=False)) for _ in range(n_rows)]
    scores = [np.round(rng.random(c.size), 2) for c in cols]
    indptr = np.r_[0, np.cumsum([c.size for c in cols])]
    truth = [np.sort(rng.choice(n_cols, 8, replace=False)) for _ in range(n_rows)]
    flags = TruthFlags(np.r_[0, np.cumsum([t.size for t in truth])], np.concatenate(truth), n_cols)
    iav, taus = rng.random(n_cols) * 4, np.unique(np.concatenate(scores))
    taus = taus[taus > 0]
    flipped = [c[::-1] for c in cols[:1]] + cols[1:]  # one row out of order: no plain sort
    runs = []
    for cs, ss in ((cols, scores), (flipped, [s[::-1] for s in scores[:1]] + scores[1:])):
        runs.append(chunk_steps(0, n_rows, indptr, np.concatenate(cs), np.concatenate(ss), flags, iav, taus, 0))
    plain, permuted = runs
    assert np.array_equal(plain.rows, permuted.rows) and np.array_equal(plain.bins, permuted.bins)
    assert plain.totals.keys() == permuted.totals.keys()
    for name in plain.totals:
        assert plain.totals[name].tobytes() == permuted.totals[name].tobytes(), name


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=30), st.integers(0, 3), st.sampled_from([3, 999, 70000]),
       st.data())
def test_entries_carried_by_radix_sorts_are_in_the_order_of_the_packed_key(lengths, first_row, m, data):
    """Rows and descending levels of 16 bits take two radix sorts, others (70,000 levels) the sort of the
    packed keys: the entries come out in the order of a stable sort of their groups (row, descending level)."""
    rows = np.repeat(np.arange(first_row, first_row + len(lengths)), lengths).astype(np.int64)
    if not rows.size:
        return
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    cols = np.concatenate([np.sort(rng.choice(100, k, replace=False)) for k in lengths]).astype(np.int64)
    desc = rng.integers(0, m + 1, rows.size)
    grp = rows * (m + 1) + desc
    tp, scores = rng.random(rows.size) < 0.3, rng.random(rows.size)
    order = np.argsort(grp, kind="stable")  # oracle: a stable sort of the groups
    got = _carried(grp, rows, cols, tp, scores, desc)
    for a, b in zip(got, (grp[order], cols[order], tp[order], scores[order])):
        assert np.array_equal(a, b)
