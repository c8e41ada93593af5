"""Seeded fold assignment."""

from __future__ import annotations

import numpy as np
import pytest

from goeval.benchmarks import assign_folds, fold_of
from goeval.errors import InvalidParameterError
from goeval.io.folds import read_folds
from conftest import shared_path


def test_assign_folds_is_seeded_balanced_and_order_free():
    prots = [f"p{i}" for i in range(23)]
    a = assign_folds(prots, 5, seed=3)
    assert a.tolist() == assign_folds(prots, 5, seed=3).tolist()
    assert np.bincount(a).tolist() in ([5, 5, 5, 4, 4], sorted(np.bincount(a).tolist(), reverse=True))
    assert np.bincount(a).max() - np.bincount(a).min() <= 1
    b = assign_folds(prots[::-1], 5, seed=3)
    assert dict(zip(prots, a.tolist())) == dict(zip(prots[::-1], b.tolist()))
    with pytest.raises(InvalidParameterError, match="'k' parameter"):
        assign_folds(prots, 1)


def test_fold_of():
    assert fold_of(["b", "z", "a"], ["a", "b"], [1, 0]).tolist() == [0, -1, 1]


def test_reproduces_the_shared_fold_file():
    """k = 10, seed 2013 over the annotated proteins gives splits/folds10.tsv."""
    t = read_folds(shared_path("data", "splits", "folds10.tsv"))
    assert assign_folds(t.proteins, 10, 2013).tolist() == t.folds.tolist()
