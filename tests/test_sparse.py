"""goeval.sparse: the helpers against numpy's own answers."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from goeval.sparse import dense_unique


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 300), st.lists(st.integers(0, 10**6), max_size=200))
def test_dense_unique_is_numpys_unique(n, raw):
    values = np.array([v % n for v in raw], dtype=np.int64)
    distinct, inverse = dense_unique(values, n)
    want, want_inv = np.unique(values, return_inverse=True)
    assert np.array_equal(distinct, want) and np.array_equal(inverse, want_inv.ravel())
    assert inverse.dtype == np.int64


def test_dense_unique_of_a_few_among_many_values_sorts():
    values = np.array([900_000, 5, 900_000])
    distinct, inverse = dense_unique(values, 1_000_000)
    assert distinct.tolist() == [5, 900_000] and inverse.tolist() == [1, 0, 1]
