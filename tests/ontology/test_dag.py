"""Tests of goeval.ontology.dag: shortest-path depths (BeProf's depth)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_dag_edges

from goeval.ontology import ontology_from_edges
from goeval.ontology.dag import shortest_depths


def beprof_depth(parents: dict[str, set[str]], term: str, root: str) -> int:
    """BeProf's ``Ontology.get_depth``: layers searched upwards until one holds the root."""
    q, layer = [term], 1
    while q:
        above = set()
        for t in q:
            above |= parents.get(t, set())
        if not above:
            break
        layer += 1
        if root in above:
            return layer
        q = list(above)
    return layer


@pytest.mark.parametrize("seed", range(6))
def test_shortest_depths_are_beprofs_get_depth(seed):
    rng = np.random.default_rng(seed)
    edges = random_dag_edges(rng, 80)
    onto = ontology_from_edges(edges)
    parents: dict[str, set[str]] = {}
    for c, p in edges:
        parents.setdefault(c, set()).add(p)
    depth = shortest_depths(onto.parents)
    for t in onto.ids:
        assert depth[onto.index(t)] == beprof_depth(parents, t, "t0"), t
    assert depth[onto.index("t0")] == 1


def test_shortest_depth_takes_the_shortest_path_not_the_longest():
    # t3 is a child of the root and of t2 (at depth 3): its depth is 2, its generation 3
    onto = ontology_from_edges([("t1", "t0"), ("t2", "t1"), ("t3", "t2"), ("t3", "t0")])
    depth = shortest_depths(onto.parents)
    assert [int(depth[onto.index(t)]) for t in ("t0", "t1", "t2", "t3")] == [1, 2, 3, 2]
    assert int(onto.generation[onto.index("t3")]) == 3
