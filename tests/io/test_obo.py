"""The OBO reader hands obonet only the tags goeval uses: same result as a full parse."""

from __future__ import annotations

import obonet
import pytest
from conftest import shared_path

import goeval
from goeval.io.obo import parse_obo_text, read_obo


def _edges_from_obonet(path):
    g = obonet.read_obo(str(path), ignore_obsolete=False)
    return g


@pytest.mark.parametrize("fork", ["never", "always"])
def test_same_terms_and_edges_as_full_obonet_parse(tiny_obo, fork, monkeypatch):
    monkeypatch.setenv("GOEVAL_FORK", fork)
    raw = read_obo(tiny_obo)
    g = _edges_from_obonet(tiny_obo)
    assert sorted(t["id"] for t in raw.terms) == sorted(g.nodes)
    names = raw.names()  # names are parsed apart, on demand
    for t in raw.terms:
        node = g.nodes[t["id"]]
        assert names[t["id"]] == node.get("name")
        for tag in ("namespace", "is_a", "relationship", "alt_id", "replaced_by", "is_obsolete"):
            assert t.get(tag) == node.get(tag), (t["id"], tag)


def test_real_go_matches_obonet_and_parallel_equals_serial(monkeypatch):
    path = shared_path("data", "go", "go_2019-01-29.obo.gz")
    monkeypatch.setenv("GOEVAL_FORK", "never")
    one = read_obo(path)
    monkeypatch.setenv("GOEVAL_FORK", "always")
    two = read_obo(path)
    assert one.terms == two.terms and one.header == two.header and one.typedefs == two.typedefs
    g = obonet.read_obo(str(path), ignore_obsolete=False)
    assert len(one.terms) == g.number_of_nodes() == 47347
    sample = one.terms[::97]
    names = one.names()
    assert len(names) == 47347
    for t in sample:
        node = g.nodes[t["id"]]
        assert names[t["id"]] == node.get("name")
        for tag in ("namespace", "is_a", "relationship", "alt_id", "replaced_by"):
            assert t.get(tag) == node.get(tag)


def test_parse_text_and_header():
    raw = parse_obo_text("format-version: 1.4\ndefault-namespace: x\n\n[Term]\nid: A:1\n")
    assert raw.header["default-namespace"] == ["x"] and raw.terms[0]["id"] == "A:1"


def test_modifiers_and_comments_are_stripped(tmp_path):
    obo = tmp_path / "m.obo"
    obo.write_text("[Term]\nid: A:1\n\n[Term]\nid: A:2\nis_a: A:1 {source=\"x\"} ! the root\n"
                   "relationship: part_of A:1 ! the root\n")
    onto = goeval.load_ontology(obo)
    assert onto.ids[onto.parents_of("A:2")].tolist() == ["A:1"]
