"""Ontology loader: namespaces, roots, relations, obsolete/alt_id mapping, cycles."""

from __future__ import annotations

import bz2
import gzip
import lzma
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import ancestors_oracle, random_dag_edges, shared_path

import goeval
from goeval.cli import main
from goeval.errors import InputFormatError, OntologyError
from goeval.io.obo import RawOntology, parse_obo_text
from goeval.ontology import TermStatus, build_ontology, ontology_from_edges


def test_tiny_structure(tiny_obo):
    onto = goeval.load_ontology(tiny_obo)
    assert onto.labels == ("BPO", "MFO")
    assert onto.data_version == "tiny/2024-01-01"
    bpo, mfo = onto.stats
    assert bpo.terms == 5 and mfo.terms == 2
    assert bpo.roots == ("GO:0000001",) and mfo.roots == ("GO:0000010",)
    assert bpo.edges == {"is_a": 3, "part_of": 1}
    assert bpo.cross_namespace_edges_dropped == {"is_a": 0, "part_of": 1}
    assert bpo.alt_ids == 1 and bpo.obsolete_terms == 2
    assert onto.diagnostics["relations_not_followed"] == {"regulates": 1}
    anc = set(onto.ids[onto.ancestors("GO:0000005")])
    assert anc == {"GO:0000005", "GO:0000003", "GO:0000001"}
    # parents always have smaller indices than children
    coo = onto.parents.tocoo()
    assert (coo.col < coo.row).all()


def test_resolve_statuses(tiny_obo):
    onto = goeval.load_ontology(tiny_obo)
    idx, st = onto.resolve(["GO:0000002", "GO:0000012", "GO:0000006", "GO:0000007", "GO:9999999"])
    assert st.tolist() == [TermStatus.PRIMARY, TermStatus.ALT_ID, TermStatus.REPLACED, TermStatus.OBSOLETE, TermStatus.UNKNOWN]
    assert onto.ids[idx[1]] == "GO:0000002"
    assert onto.ids[idx[2]] == "GO:0000005"
    assert idx[3] == -1 and idx[4] == -1


def test_relations_option(tiny_obo):
    onto = goeval.load_ontology(tiny_obo, relations=("is_a",))
    assert set(onto.ids[onto.roots("BPO")]) == {"GO:0000001", "GO:0000005"}
    onto2 = goeval.load_ontology(tiny_obo, relations=("is_a", "part_of", "regulates"))
    assert set(onto2.ids[onto2.ancestors("GO:0000004")]) == {"GO:0000004", "GO:0000002", "GO:0000003", "GO:0000001"}


def test_each_edge_keeps_its_relation(tiny_obo):
    """``parent_relations`` names the relation of every edge of ``parents`` (the graph-based similarity
    weighs is_a and part_of differently), and is stored and read back with the ontology."""
    onto = goeval.load_ontology(tiny_obo, cache=False, relations=("is_a", "part_of", "regulates"))
    coo = onto.parents.tocoo()
    got = {(onto.ids[c], onto.ids[p]): onto.relations[k] for c, p, k in zip(coo.row, coo.col, onto.parent_relations)}
    assert got == {("GO:0000002", "GO:0000001"): "is_a", ("GO:0000003", "GO:0000001"): "is_a",
                   ("GO:0000004", "GO:0000002"): "is_a", ("GO:0000004", "GO:0000003"): "regulates",
                   ("GO:0000005", "GO:0000003"): "part_of", ("GO:0000011", "GO:0000010"): "is_a"}
    back = type(onto).from_arrays(onto.to_arrays())
    assert np.array_equal(back.parent_relations, onto.parent_relations)
    small = ontology_from_edges([("b", "a"), ("c", "b", "part_of"), ("c", "a")])
    assert [small.relations[k] for k in small.parent_relations] == ["is_a", "is_a", "part_of"]  # b-a, then c-a, c-b


@pytest.mark.parametrize("opener,suffix", [(gzip.open, ".gz"), (bz2.open, ".bz2"), (lzma.open, ".xz")])
def test_compressed(tiny_obo, tmp_path, opener, suffix):
    target = tmp_path / ("tiny.obo" + suffix)
    with open(tiny_obo, "rb") as src, opener(target, "wb") as dst:
        shutil.copyfileobj(src, dst)
    a, b = goeval.load_ontology(tiny_obo), goeval.load_ontology(target)
    assert a.ids.tolist() == b.ids.tolist()
    assert (a.parents != b.parents).nnz == 0


def test_default_namespace(tmp_path):
    obo = tmp_path / "hp.obo"
    obo.write_text("format-version: 1.2\ndefault-namespace: human_phenotype\n\n"
                   "[Term]\nid: HP:1\nname: All\n\n[Term]\nid: HP:2\nis_a: HP:1\n")
    onto = goeval.load_ontology(obo)
    assert onto.namespaces == ("human_phenotype",) and onto.labels == ("human_phenotype",)
    assert onto.namespace_slice("human_phenotype") == slice(0, 2)


def test_cycle_is_named(tmp_path):
    obo = tmp_path / "cyc.obo"
    obo.write_text("[Term]\nid: X:1\n\n[Term]\nid: X:2\nis_a: X:1\nis_a: X:4\n\n"
                   "[Term]\nid: X:3\nis_a: X:2\n\n[Term]\nid: X:4\nis_a: X:3\n")
    with pytest.raises(OntologyError, match=r"cycle: .*X:[234].*X:[234]"):
        goeval.load_ontology(obo)


def test_tag_line_without_colon(tmp_path):
    obo = tmp_path / "bad.obo"
    obo.write_text("format-version: 1.2\n\n[Term]\nid: X:1\nname X one\n")
    with pytest.raises(InputFormatError) as e:
        goeval.load_ontology(obo)
    assert e.value.line == 5 and "colon" in str(e.value) and "bad.obo" in str(e.value)


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_empty_file(tmp_path, content):
    obo = tmp_path / "empty.obo"
    obo.write_bytes(content)
    with pytest.raises(InputFormatError, match="empty"):
        goeval.load_ontology(obo)


def test_missing_file(tmp_path):
    with pytest.raises(InputFormatError, match="no such file"):
        goeval.load_ontology(tmp_path / "nope.obo")


def test_non_utf8(tmp_path):
    obo = tmp_path / "latin.obo"
    obo.write_bytes(b"[Term]\nid: X:1\nname: caf\xe9\n")
    with pytest.raises(InputFormatError) as e:
        goeval.load_ontology(obo)
    assert e.value.line == 3 and "UTF-8" in str(e.value)


def test_duplicate_id(tmp_path):
    obo = tmp_path / "dup.obo"
    obo.write_text("[Term]\nid: X:1\n\n[Term]\nid: X:1\nname: other\n")
    with pytest.raises(OntologyError, match="more than one"):
        goeval.load_ontology(obo)


@pytest.mark.parametrize("seed", range(5))
def test_closure_matches_graph_search(seed):
    rng = np.random.default_rng(seed)
    edges = random_dag_edges(rng, 60)
    onto = ontology_from_edges(edges)
    for t in onto.ids:
        assert set(onto.ids[onto.ancestors(t)]) == ancestors_oracle(edges, t)
    # generation = longest path from the root
    g = onto.to_networkx()
    import networkx as nx

    for t in onto.ids:
        longest = max((len(p) - 1 for p in nx.all_simple_paths(g, t, "t0")), default=0) if t != "t0" else 0
        assert onto.generation[onto.index(t)] == longest


def test_to_networkx_edges_point_to_parents(tiny_obo):
    g = goeval.load_ontology(tiny_obo).to_networkx("BPO")
    assert g.has_edge("GO:0000002", "GO:0000001") and not g.has_edge("GO:0000001", "GO:0000002")


# ------------------------------------------------------------- real releases
@pytest.mark.parametrize(
    "name,terms,alt,obsolete",
    [("go_2014-10-27.obo.gz", (26686, 9818, 3639), 1790, 1850), ("go_2019-01-29.obo.gz", (29694, 11113, 4206), 2432, 2334)],
)
def test_real_go_releases(name, terms, alt, obsolete):
    onto = goeval.load_ontology(shared_path("data", "go", name))
    assert onto.labels == ("BPO", "MFO", "CCO")
    assert tuple(s.terms for s in onto.stats) == terms
    assert [s.roots for s in onto.stats] == [("GO:0008150",), ("GO:0003674",), ("GO:0005575",)]
    d = onto.diagnostics
    assert d["obsolete_terms"] == obsolete
    # alt_ids of live terms are counted per namespace; the README total includes obsolete terms' alt_ids
    n_alt = d["alt_ids"]
    assert 0 < n_alt <= alt
    assert d["cross_namespace_edges_dropped"]["is_a"] == 0
    assert d["cross_namespace_edges_dropped"]["part_of"] in (1090, 1092)


def test_release_differences_are_reported():
    """2014 terms seen through the 2019 release: alt_ids and obsolete ids are mapped or counted."""
    old = goeval.load_ontology(shared_path("data", "go", "go_2014-10-27.obo.gz"))
    new = goeval.load_ontology(shared_path("data", "go", "go_2019-01-29.obo.gz"))
    idx, st = new.resolve(old.ids)
    counts = np.bincount(st, minlength=5)
    # shared/data README, caveat 2: of the 40,143 live 2014 terms, 584 are only alt_ids and 365
    # are obsolete in 2019. Two of those alt_ids belong to obsolete 2019 terms, so goeval maps
    # them as obsolete (582 + 2, 365 + 2 = 4 replaced + 363 dropped).
    assert counts.tolist() == [40143 - 949, 582, 4, 363, 0]


# ------------------------------------------------ replaced_by chains, alt_id conflicts
OBO_DATA = Path(__file__).resolve().parents[1] / "data" / "obo"


def test_replaced_by_chains_of_any_length_are_followed():
    onto = goeval.load_ontology(OBO_DATA / "replaced_by_chain.obo")
    ids = ["T:3", "T:4", "T:5", "T:6", "T:30", "T:7", "T:8", "T:9", "T:13"]
    idx, st = onto.resolve(ids)
    mapped = {t: (onto.ids[i] if i >= 0 else None) for t, i in zip(ids, idx)}
    # T:3 -> T:4 -> T:5 -> T:12 (an alt_id of live T:2): three obsolete terms, then an alt_id
    assert mapped["T:3"] == mapped["T:4"] == mapped["T:5"] == "T:2"
    # T:6 -> T:13 (an alt_id of obsolete T:30) -> T:3 -> ... -> T:2
    assert mapped["T:6"] == mapped["T:30"] == mapped["T:13"] == "T:2"
    assert st[:5].tolist() == [TermStatus.REPLACED] * 5 and st[8] == TermStatus.REPLACED
    # T:7 -> T:8 (two replacements): dropped; T:9 -> unknown T:99: dropped
    assert mapped["T:7"] is mapped["T:8"] is mapped["T:9"] is None
    assert st[5:8].tolist() == [TermStatus.OBSOLETE] * 3
    d = onto.diagnostics
    assert d["obsolete_terms"] == 8 and d["obsolete_with_single_replacement"] == 5
    assert d["obsolete_replaced_through_chain"] == 4  # T:3, T:4, T:6, T:30 (T:5 points at an alt_id)
    assert d["obsolete_with_several_replacements"] == 1 and d["obsolete_with_unresolved_replacement"] == 2
    assert d["obsolete_without_replacement"] == 0


def test_long_replaced_by_chain():
    # longer than the 10 steps followed before
    n = 25
    stanzas = ["[Term]\nid: L:0\n"] + [
        f"[Term]\nid: L:{i}\nis_obsolete: true\nreplaced_by: L:{i - 1 if i > 1 else 0}\n" for i in range(1, n)
    ]
    onto = build_ontology(parse_obo_text("\n".join(stanzas)))
    idx, st = onto.resolve([f"L:{n - 1}"])
    assert onto.ids[idx[0]] == "L:0" and st[0] == TermStatus.REPLACED


@pytest.mark.parametrize(
    "extra,names",
    [
        ("", {"T:3", "T:4", "T:5"}),  # the fixture: T:3 -> T:4 -> T:5 -> T:3
        ("\n[Term]\nid: T:7\nis_obsolete: true\nreplaced_by: T:7\n", None),  # a term replaced by itself
    ],
)
def test_replaced_by_cycle_is_an_error_naming_the_terms(extra, names, tmp_path):
    text = (OBO_DATA / "replaced_by_cycle.obo").read_text()
    if extra:
        text = text.replace("replaced_by: T:3", "replaced_by: T:1") + extra
        names = {"T:7"}
    obo = tmp_path / "cyc.obo"
    obo.write_text(text)
    with pytest.raises(OntologyError, match="replaced_by links among obsolete terms form a cycle") as e:
        goeval.load_ontology(obo)
    shown = str(e.value).split("cycle: ")[1].split(". ")[0].split(" -> ")
    assert set(shown) == names and shown[0] == shown[-1]


def test_replaced_by_cycle_through_a_term_with_several_replacements():
    text = ("[Term]\nid: A:1\n\n[Term]\nid: A:2\nis_obsolete: true\nreplaced_by: A:3\n\n"
            "[Term]\nid: A:3\nis_obsolete: true\nreplaced_by: A:2\nreplaced_by: A:1\n")
    with pytest.raises(OntologyError, match=r"cycle: A:[23] -> A:[23] -> A:[23]"):
        build_ontology(parse_obo_text(text))


def test_alt_id_conflicts_are_counted_and_shown_by_info(capsys):
    path = OBO_DATA / "alt_id_conflicts.obo"
    onto = goeval.load_ontology(path)
    c = onto.diagnostics["alt_id_conflicts"]
    assert (c["equal_to_live_id"], c["claimed_by_several_terms"], c["equal_to_obsolete_id"]) == (1, 1, 1)
    assert c["examples"] == [
        "T:1 (alt_id of T:2) is the id of a live term; the live term is kept",
        "T:20 is an alt_id of T:2 and of T:3; mapped to T:2",
        "T:9 (alt_id of T:3) is the id of an obsolete term; mapped as that term",
    ]
    idx, st = onto.resolve(["T:1", "T:20", "T:9"])
    assert onto.ids[idx].tolist() == ["T:1", "T:2", "T:3"]
    assert st.tolist() == [TermStatus.PRIMARY, TermStatus.ALT_ID, TermStatus.REPLACED]
    assert onto.diagnostics["alt_ids"] == 1
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().err
    assert ("alt_id conflicts: 1 equal to a live term's id (ignored), 1 claimed by several terms "
            "(first claimant kept), 1 equal to an obsolete term's id (read as that term)") in out
    assert "e.g. T:20 is an alt_id of T:2 and of T:3; mapped to T:2" in out


def test_info_without_conflicts_prints_no_conflict_line(tiny_obo, capsys):
    assert main(["info", str(tiny_obo)]) == 0
    out = capsys.readouterr().err
    assert "alt_id conflicts" not in out and "1 mapped through replaced_by" in out


def test_relationship_with_extra_target_in_hand_made_stanzas():
    raw = RawOntology(header={}, terms=[{"id": "A"}, {"id": "B", "relationship": ["part_of A C"]}])
    with pytest.raises(OntologyError, match="'relationship: part_of A C'"):
        build_ontology(raw)
