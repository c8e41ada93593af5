"""Groups of proteins: read from a file, derived from files, taxa, sequence identity and annotation depth."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import goeval
from goeval.benchmarks import ProteinGroups, read_groups
from goeval.benchmarks.groups import (
    NO_HIT,
    depth_groups,
    file_group_names,
    groups_from_files,
    groups_from_taxa,
    identity_groups,
    parse_groups_from,
)
from goeval.errors import InputFormatError, InvalidParameterError
from goeval.io.hits import HitTable

from conftest import shared_path


def as_lists(groups: ProteinGroups) -> dict[str, list[str]]:
    return {k: v.tolist() for k, v in groups.groups.items()}


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# ------------------------------------------------------------------ a groups file
def test_read_groups_order_repeats_and_several_groups(tmp_path):
    p = write(tmp_path, "g.tsv", "protein\tgroup\nP3\tmouse\nP1\thuman\nP2\thuman\nP1\tkinases\nP1\thuman\n"
                                 "P4\tmouse\nP3\tkinases\n")
    g = read_groups(p)
    assert as_lists(g) == {"mouse": ["P3", "P4"], "human": ["P1", "P2"], "kinases": ["P1", "P3"]}
    assert g.rule == f"file {p}"
    c = g.counts
    assert (c["rows"], c["duplicate_rows"], c["header_lines"], c["proteins"], c["proteins_in_several_groups"]) == \
        (7, 1, 1, 4, 2)
    assert all(v.dtype == object for v in g.groups.values())


def test_read_groups_malformed_line(tmp_path):
    p = write(tmp_path, "g.tsv", "P1\thuman\nP2\n")
    with pytest.raises(InputFormatError, match=r"g.tsv, line 2: expected 'protein<TAB>group'"):
        read_groups(p)


# ------------------------------------------------------------------ identity
def hits_table(rows):
    q, s, pid = zip(*rows)
    return HitTable.from_arrays(q, s, pident=list(pid))


def test_identity_bins_both_directions_self_hits_and_edges():
    rows = [
        ("t1", "t1", 100.0),  # self hit: never counted
        ("t1", "r1", 29.99),  # -> 0-30%
        ("t2", "r1", 30.0),  # edge: 30 is in 30-50%
        ("r2", "t3", 95.0),  # other direction; edge: 95 is in 95-100%
        ("t3", "r1", 40.0),  # lower than its best
        ("t4", "t5", 99.0),  # target to target: not training
        ("t4", "x", 99.0),  # x is no training protein
        ("r1", "r1", 100.0),  # r1 is a target and a training protein: its self hit never counts...
        ("r1", "r2", 70.0),  # ... its hit to another training protein does: 70 is in 70-95%
        ("t6", "r2", 100.0),  # 100 is in 95-100%
        ("r2", "t7", 49.9999),  # -> 30-50%
    ]
    g = identity_groups(hits_table(rows), ["t1", "t2", "t3", "t4", "t5", "r1", "t6", "t7", "t8", "t2"],
                        ["r1", "r2"])
    assert as_lists(g) == {"0-30%": ["t1"], "30-50%": ["t2", "t7"], "70-95%": ["r1"], "95-100%": ["t3", "t6"],
                           NO_HIT: ["t4", "t5", "t8"]}
    c = g.counts
    assert c["empty_groups"] == ["50-70%"] and c["targets"] == 9 and c["no_hit"] == 3
    assert c["targets_not_in_hits"] == 1 and c["self_hits_skipped"] == 2 and c["targets_in_training"] == 1
    assert c["hits_used"] == 7
    assert g.rule == "highest identity to the training proteins (<memory>), bins 30,50,70,95 %"


def oracle_identity(rows, targets, training, edges):
    best = {}
    for q, s, pid in rows:
        for t, o in ((q, s), (s, q)):
            if t != o and t in targets and o in training:
                best[t] = max(best.get(t, -1.0), pid)
    out = {}
    for t in dict.fromkeys(targets):
        if t not in best:
            out.setdefault(NO_HIT, []).append(t)
            continue
        k = sum(best[t] >= e for e in edges)
        out.setdefault(k, []).append(t)
    return out


@pytest.mark.parametrize("seed", range(5))
def test_identity_bins_equal_a_plain_oracle(seed):
    rng = np.random.default_rng(seed)
    names = [f"p{i}" for i in range(30)]
    rows = [(str(rng.choice(names)), str(rng.choice(names)), float(rng.choice([0, 10, 30, 50, 69.5, 70, 95, 100])))
            for _ in range(80)]
    targets = [str(x) for x in rng.choice(names, 15)]
    training = [str(x) for x in rng.choice(names, 15)]
    edges = (30.0, 50.0, 70.0, 95.0)
    g = identity_groups(hits_table(rows), targets, training, edges)
    expected = oracle_identity(rows, targets, training, edges)
    names_of = ["0-30%", "30-50%", "50-70%", "70-95%", "95-100%"]
    assert as_lists(g) == {(names_of[k] if k != NO_HIT else NO_HIT): v for k, v in
                           sorted(expected.items(), key=lambda kv: 99 if kv[0] == NO_HIT else kv[0])}


def test_identity_custom_bins_and_hit_file(tmp_path):
    p = write(tmp_path, "hits.tsv", "qseqid\tsseqid\tpident\nt1\tr1\t100\nt2\tr1\t45\n")
    g = identity_groups(p, ["t1", "t2"], ["r1"], (40, 100))
    assert as_lists(g) == {"40-100%": ["t2"], "100%": ["t1"]}
    assert g.counts["empty_groups"] == ["0-40%", NO_HIT]
    with pytest.raises(InvalidParameterError, match="'pident' column"):
        identity_groups(HitTable.from_arrays(["a"], ["b"], evalue=[0.0]), ["a"], ["b"])
    with pytest.raises(InvalidParameterError, match="increasing percent identities in \\(0, 100\\]"):
        identity_groups(p, ["t1"], ["r1"], (50, 30))


# ------------------------------------------------------------------ depth
def test_depth_bins_count_terms_as_annotated():
    onto = goeval.ontology_from_edges([(f"t{i}", "t0") for i in range(1, 10)])
    n_terms = {"a": 1, "b": 2, "c": 3, "d": 4, "e": 7, "f": 8, "g": 9}
    pairs = [(p, f"t{i}") for p, n in n_terms.items() for i in range(1, n + 1)]  # leaves only: t0 is never given
    pairs += [("a", "t1")]  # a repeated pair counts once
    truth = goeval.Annotations.from_pairs(onto, [p for p, _ in pairs], [t for _, t in pairs])
    g = depth_groups(truth)
    assert as_lists(g) == {"1": ["a"], "2-3": ["b", "c"], "4-7": ["d", "e"], "8+": ["f", "g"]}
    assert g.counts["proteins_without_terms"] == 0 and g.counts["terms"] == sum(n_terms.values())
    assert as_lists(depth_groups(truth, (2, 8))) == {"1-2": ["a", "b"], "3-8": ["c", "d", "e", "f"], "9+": ["g"]}
    with pytest.raises(InvalidParameterError, match="as annotated"):
        depth_groups(goeval.propagate(truth))
    with pytest.raises(InvalidParameterError, match="increasing integers >= 1"):
        depth_groups(truth, (0, 3))


def test_depth_leaves_proteins_without_terms_out(tiny_obo):
    onto = goeval.load_ontology(tiny_obo)
    # GO:0000012 is an alt id of GO:0000002: one term; GO:0000007 is obsolete without replacement: dropped
    truth = goeval.Annotations.from_pairs(onto, ["a", "b", "b", "b", "b"],
                                          ["GO:0000004", "GO:0000010", "GO:0000002", "GO:0000012", "GO:0000007"])
    assert as_lists(depth_groups(truth)) == {"1": ["a"], "2-3": ["b"]}
    mfo = truth.namespace("MFO", drop_empty=False)
    g = depth_groups(mfo)
    assert as_lists(g) == {"1": ["b"]} and g.counts["proteins_without_terms"] == 1
    assert g.counts["empty_groups"] == ["2-3", "4-7", "8+"]


# ------------------------------------------------------------------ files and taxa
def test_file_group_names():
    assert file_group_names(["goa/exp_human_2019-01-29.tsv.gz", "goa/exp_mouse_2019-01-29.tsv.gz"]) == \
        ["human", "mouse"]
    # t0 and t1 files of a species give one name; dates with dots, GAF names
    assert file_group_names(["a/GO.goa_human_2014.10.12.gz", "b/GO.goa_human_2019.01.29.gz",
                             "b/GO.goa_fly_2019.01.29.gz"]) == ["human", "human", "fly"]
    # a common prefix is cut only at a separator: hamster and human stay whole
    assert file_group_names(["hamster_exp.tsv", "human_exp.tsv"]) == ["hamster", "human"]
    assert file_group_names(["only/exp_human_2019-01-29.tsv"]) == ["exp_human"]
    assert file_group_names(["x/a_b.tsv", "y/a_b_c.tsv"]) == ["b", "b_c"]
    with pytest.raises(InvalidParameterError, match="gives no group name"):
        file_group_names(["x/2019-01-29.tsv", "x/human_2019-01-29.tsv"])


def test_groups_from_files_by_name_and_by_mapping(tmp_path):
    h0 = write(tmp_path, "exp_human_2014-10-12.tsv", "protein\tterm\nP1\tGO:1\nP2\tGO:1\n")
    h1 = write(tmp_path, "exp_human_2019-01-29.tsv", "protein\tterm\nP3\tGO:1\nP1\tGO:2\n")
    m1 = write(tmp_path, "exp_mouse_2019-01-29.tsv", "protein\tterm\nM1\tGO:1\nP2\tGO:5\n")
    g = groups_from_files([h0, h1, m1])
    assert as_lists(g) == {"human": ["P1", "P2", "P3"], "mouse": ["M1", "P2"]}
    assert g.counts["files"] == {"human": [str(h0), str(h1)], "mouse": [str(m1)]}
    assert g.counts["proteins"] == 4 and g.counts["proteins_in_several_groups"] == 1
    assert g.rule == "species from the annotation files' names (human, mouse)"
    g = groups_from_files({"Homo sapiens": h1, "mus": [m1]})
    assert as_lists(g) == {"Homo sapiens": ["P3", "P1"], "mus": ["M1", "P2"]}
    with pytest.raises(InvalidParameterError, match="'all' is the name of the whole benchmark"):
        groups_from_files({"all": h1})
    with pytest.raises(InvalidParameterError, match="must name files"):
        groups_from_files([])


def gaf_line(protein, taxon):
    return "\t".join(["UniProtKB", protein, "X", "", "GO:0005515", "PMID:1", "IEA", "", "F", "", "", "protein",
                      taxon, "20190101", "UniProt", "", ""]) + "\n"


def test_groups_from_taxa(tmp_path):
    a = write(tmp_path, "a.gaf", "!gaf-version: 2.1\n" + gaf_line("P1", "taxon:9606") +
              gaf_line("P2", "taxon:10090|taxon:9606") + gaf_line("P1", "taxon:9606"))
    b = tmp_path / "b.gaf.gz"
    with gzip.open(b, "wt") as fh:
        fh.write(gaf_line("P3", "taxon:9606") + gaf_line("P2", "taxon:10116"))
    g = groups_from_taxa([a, b])
    assert as_lists(g) == {"9606": ["P1", "P3"], "10090": ["P2"], "10116": ["P2"]}
    assert g.counts["rows"] == 5 and g.counts["proteins"] == 3 and g.counts["proteins_in_several_groups"] == 1
    assert as_lists(groups_from_taxa(b)) == {"9606": ["P3"], "10116": ["P2"]}


# ------------------------------------------------------------------ the value of --groups-from, the type
@pytest.mark.parametrize("text, expected", [
    ("files", ("files", ())), ("taxa", ("taxa", ())), ("identity", ("identity", (30.0, 50.0, 70.0, 95.0))),
    ("identity:30,40,50,70,95", ("identity", (30.0, 40.0, 50.0, 70.0, 95.0))), ("identity:33.3", ("identity", (33.3,))),
    ("depth:1,3,7", ("depth", (1, 3, 7))), ("depth", ("depth", (1, 3, 7))), (" Depth:2, 5 ", ("depth", (2, 5))),
])
def test_parse_groups_from(text, expected):
    assert parse_groups_from(text) == expected


@pytest.mark.parametrize("text, message", [
    ("species", "must be 'files', 'taxa', 'identity"), ("files:2", "must be 'files'"), ("taxa:1", "must be 'files'"),
    ("identity:", "plain numbers"), ("identity:30,,50", "plain numbers"), ("identity:-5,30", "plain numbers"),
    ("identity:50,30", "increasing percent identities"), ("identity:30,101", "in (0, 100]"),
    ("identity:0,30", "in (0, 100]"), ("depth:1.5", "increasing integers >= 1"), ("depth:0,3", "integers >= 1"),
    ("depth:3,3", "increasing integers"),
])
def test_parse_groups_from_errors(text, message):
    with pytest.raises(InvalidParameterError, match="--groups-from") as e:
        parse_groups_from(text)
    assert message in str(e.value) and repr(text) in str(e.value)


def test_protein_groups_membership_and_names():
    g = ProteinGroups({"a": np.array(["P1", "P2"], object), "b": np.array(["P3"], object)}, "by hand")
    assert g.membership(np.array(["P3", "P1", "P9"], object)).tolist() == [[False, True, False], [True, False, False]]
    assert g.sizes == {"a": 2, "b": 1}
    for bad in ("all", "a\tb", ""):
        with pytest.raises(InvalidParameterError):
            ProteinGroups({bad: np.array(["P1"], object)}, "by hand")


# ------------------------------------------------------------------ the shared data
def test_identity_bins_of_the_time_split_targets_are_plausible():
    """The 2019 human proteins without a 2014 annotation (with a sequence: the hit table's queries), binned by
    identity to the 2014 annotated proteins of the seven species in the DIAMOND table."""
    hits_path = shared_path("data", "hits", "diamond_allvsall_2014.tsv.gz")
    goa = shared_path("data", "goa")
    from goeval.io.groups import read_annotated_proteins
    from goeval.io.hits import read_hits

    training = np.concatenate([read_annotated_proteins(p)[0] for p in sorted(goa.glob("*_2014-10-12.*"))]).astype(str)
    human = read_annotated_proteins(goa / "exp_human_2019-01-29.tsv.gz")[0].astype(str)
    hits = read_hits(hits_path)
    targets = human[~np.isin(human, training) & np.isin(human, hits.queries.astype(str))]
    g = identity_groups(hits, targets, training)
    sizes = g.sizes
    print("identity bins of the human time-split targets:", sizes, g.counts)
    assert sum(sizes.values()) == targets.size > 1000
    order = ["0-30%", "30-50%", "50-70%", "70-95%", "95-100%", NO_HIT]
    assert list(sizes) == [n for n in order if n in sizes]
    for name in ("30-50%", "50-70%", "70-95%", "95-100%"):
        assert sizes.get(name, 0) > 0.02 * targets.size  # every informative bin is populated
    assert g.counts["targets_in_training"] == 0 and g.counts["targets_not_in_hits"] == 0
    assert g.counts["self_hits_skipped"] == 0  # no-knowledge targets are queries, not in the 2014 database
    # human targets are mostly close to a mouse or rat ortholog annotated in 2014
    assert sizes["70-95%"] + sizes["95-100%"] > sizes["0-30%"] + sizes.get(NO_HIT, 0)
