"""Time split: target sets by hand, the protein-binding and sequence filters, known terms."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import goeval
from goeval.benchmarks.timesplit import evaluate_time_split, remove_known, time_split_targets
from goeval.evaluation import namespace_stats
from conftest import DATA

D = DATA / "benchmarks"


@pytest.fixture(scope="module")
def snap():
    onto = goeval.load_ontology(D / "toy.obo")
    return onto, goeval.load_annotations(D / "t0.tsv", onto), goeval.load_annotations(D / "t1.tsv", onto)


def lists(split):
    return {k: {ns: v.tolist() for ns, v in per.items()} for k, per in split.targets.items()}


def test_targets_by_hand(snap):
    onto, t0, t1 = snap
    split = time_split_targets(onto, t0, t1)
    # t0: a MF{2}; b BP{11}; c MF{4} BP{11}; d MF{3}.  t1: a MF{4} BP{12}; b MF{5515}; c MF{2} BP{12};
    # d MF{3}; e MF{3} BP{11}; f MF{5515}; g BP{12}
    assert lists(split) == {"NK": {"BPO": ["e", "g"], "MFO": ["e", "f"]},
                            "LK": {"BPO": ["a"], "MFO": ["b"]},
                            "PK": {"BPO": ["c"], "MFO": ["a"]}}  # c's MF {2} and d's {3} are not new
    assert split.diagnostics["targets"]["NK"]["MFO"] == {"candidates": 2, "without_sequence": 0, "targets": 2}
    f = split.truth_of("LK").to_frame()
    assert sorted(zip(f["protein"], f["term"])) == [("a", "GO:0000012"), ("b", "GO:0005515")]
    k = split.known.to_frame()
    assert sorted(zip(k["protein"], k["term"])) == [("a", "GO:0000001"), ("a", "GO:0000002"),
                                                     ("c", "GO:0000010"), ("c", "GO:0000011")]


def test_binding_only_and_sequences(snap):
    onto, t0, t1 = snap
    split = time_split_targets(onto, t0, t1, drop_binding_only=True, sequences=["a", "b", "c", "e", "f"])
    assert lists(split)["NK"] == {"BPO": ["e"], "MFO": ["e"]}  # f: binding only; g: no sequence
    assert lists(split)["LK"] == {"BPO": ["a"], "MFO": []}  # b: binding only
    d = split.diagnostics["targets"]
    assert d["NK"]["MFO"] == {"candidates": 2, "without_sequence": 0, "binding_only_dropped": 1, "targets": 1}
    assert d["NK"]["BPO"]["without_sequence"] == 1


def test_remove_known_by_hand(snap):
    onto, t0, t1 = snap
    truth = goeval.Annotations.from_pairs(onto, ["a", "a"], ["GO:0000004", "GO:0000012"])
    pred = goeval.Annotations.from_pairs(onto, ["a", "a", "a"], ["GO:0000004", "GO:0000003", "GO:0000011"],
                                         [0.5, 0.7, 0.2])
    known = goeval.Annotations.from_pairs(onto, ["a"], ["GO:0000002"])
    tr, pr = remove_known(truth, {"m": pred}, known)
    assert sorted(tr.to_frame()["term"]) == ["GO:0000004", "GO:0000010", "GO:0000011", "GO:0000012"]
    got = dict(zip(pr["m"].to_frame()["term"], pr["m"].to_frame()["score"]))
    # propagated, then GO:1 and GO:2 (known) removed
    assert got == {"GO:0000004": 0.5, "GO:0000003": 0.7, "GO:0000011": 0.2, "GO:0000010": 0.2}
    assert tr.diagnostics["known_pairs_removed"] == 2 and pr["m"].diagnostics["known_pairs_removed"] == 2
    # without known pairs the statistics are those of namespace_stats
    empty = goeval.Annotations.from_pairs(onto, ["zz"], ["GO:0000002"])
    a = namespace_stats(onto, truth, {"m": pred}, known=empty)
    b = namespace_stats(onto, truth, {"m": pred})
    assert a.keys() == b.keys()
    for key in a:
        for name in a[key].sums:
            np.testing.assert_allclose(a[key].sums[name], b[key].sums[name])


def test_evaluate_time_split_runs_every_kind(snap):
    onto, t0, t1 = snap
    split = time_split_targets(onto, t0, t1)
    res = evaluate_time_split(onto, t0, split, methods=["naive"], kinds=("NK", "LK", "PK"))
    assert set(res) == {"NK", "LK", "PK"}
    nk = {(r["namespace"], r["measure"]): r for r in res["NK"].summary_records}
    # naive on t0 MFO (a, c, d: root 3/3, GO:2 2/3, GO:4 1/3, GO:3 1/3); NK MFO e {1, 3}, f {1, 5515}
    # tau = 2/3: P = {1, 2}: pr (1/2 + 1/2)/2, rc (1/2 + 1/2)/2 -> F 0.5; tau = 1: P = {1}: pr 1, rc 1/2 -> 2/3
    assert nk[("MFO", "fmax")]["value"] == pytest.approx(2 / 3) and nk[("MFO", "fmax")]["threshold"] == 1.0


def test_partial_knowledge_targets_evaluated_without_their_known_terms(snap):
    onto, t0, t1 = snap
    split = time_split_targets(onto, t0, t1)
    res = evaluate_time_split(onto, t0, split, methods=["naive"], kinds=("PK",))
    pk = {(r["namespace"], r["measure"]): r for r in res["PK"].summary_records}
    # PK MFO: a, known {1, 2}, truth {1, 2, 4} - known = {4}; naive {1: 1, 2: 2/3, 4: 1/3, 3: 1/3} - known
    # = {4, 3} at 1/3: pr 1/2, rc 1 -> F 2/3 (the root and GO:2, known, are not counted)
    assert pk[("MFO", "fmax")]["value"] == pytest.approx(2 / 3)
    assert pk[("MFO", "fmax")]["threshold"] == pytest.approx(1 / 3)


def _restricted(split, proteins):
    """The split whose targets are those among ``proteins`` (a separate run of one group)."""
    from dataclasses import replace

    keep = np.asarray(list(proteins), dtype=object)
    return replace(split, targets={k: {ns: t[np.isin(t, keep)] for ns, t in per.items()}
                                   for k, per in split.targets.items()})


def _assert_group_is_its_own_split(onto, t0, split, hits, groups, **kw):
    res = evaluate_time_split(onto, t0, split, hits, groups=groups, **kw)
    for kind, kres in res.items():
        assert set(kres.groups) == set(groups)
        for name, proteins in groups.items():
            alone = evaluate_time_split(onto, t0, _restricted(split, proteins), hits, **{**kw, "kinds": (kind,)})
            got = kres.groups[name]
            if kind not in alone:  # the group holds no target of this kind
                assert not got.summary_records
                continue
            assert got.summary.equals(alone[kind].summary), (kind, name)
            assert got.curves.equals(alone[kind].curves), (kind, name)
    return res


@pytest.mark.parametrize("fork", ["never", "always"])
def test_each_group_of_a_time_split_is_the_split_of_its_targets(snap, monkeypatch, fork):
    """In this process or in a forked child (each kind's groups beside the kind's own run), the same bits."""
    monkeypatch.setenv("GOEVAL_FORK", fork)
    onto, t0, t1 = snap
    split = time_split_targets(onto, t0, t1)
    _assert_group_is_its_own_split(onto, t0, split, None, {"ef": ["e", "f"], "ace": ["a", "c", "e"]},
                                   methods=["naive"], kinds=("NK", "LK", "PK"), bootstrap=20, seed=2)


def test_groups_evaluated_aside_say_the_warnings_of_their_own_runs(snap, monkeypatch):
    """A forked child's console is closed: the parent says each group's warnings (as the group's own run says
    them in this process), and nothing is left running."""
    from goeval.io.background import live_children

    onto, t0, t1 = snap
    split = time_split_targets(onto, t0, t1)
    said = {}
    for fork in ("never", "always"):
        monkeypatch.setenv("GOEVAL_FORK", fork)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = evaluate_time_split(onto, t0, split, None, groups={"ef": ["e", "f"]}, methods=["naive"],
                                      kinds=("NK", "PK"), bootstrap=20, seed=2)
        said[fork] = {str(w.message) for w in caught}
        assert not live_children()
    group_warnings = {m for k in res.values() for g in k.groups.values() for m in g.diagnostics.warnings}
    assert group_warnings and group_warnings <= said["always"]
    assert said["always"] == said["never"]


def test_species_groups_of_a_real_time_split_with_the_hit_baselines():
    """Two species of the shared 2014 -> 2019 data, BLAST and GOtcha from the DIAMOND table: each species'
    results equal a split of its targets alone, to the last bit, intervals included."""
    from conftest import shared_path
    from goeval.io.hits import read_hits

    data = shared_path("data")
    onto = goeval.load_ontology(data / "go" / "go_2019-01-29.obo.gz")
    species = ("rat", "zebrafish")
    t0s = {s: goeval.load_annotations(data / "goa" / f"exp_{s}_2014-10-12.tsv.gz", onto) for s in species}
    t1 = goeval.load_annotations([data / "goa" / f"exp_{s}_2019-01-29.tsv.gz" for s in species], onto)
    t0 = goeval.load_annotations([data / "goa" / f"exp_{s}_2014-10-12.tsv.gz" for s in species], onto)
    hits = read_hits(data / "hits" / "diamond_allvsall_2014.tsv.gz",
                     ("qseqid", "sseqid", "pident", "length", "evalue", "bitscore"))
    split = time_split_targets(onto, t0, t1)
    t1s = {s: goeval.load_annotations(data / "goa" / f"exp_{s}_2019-01-29.tsv.gz", onto).proteins for s in species}
    groups = {s: np.union1d(t0s[s].proteins.astype(str), t1s[s].astype(str)) for s in species}
    res = _assert_group_is_its_own_split(onto, t0, split, hits, groups, methods=["naive", "blast", "gotcha"],
                                         kinds=("NK", "LK"), options=goeval.options.EvaluationOptions.resolve(
                                             thresholds=0.01, namespaces=("MFO",)), bootstrap=20, seed=1)
    assert any(g.summary_records for k in res.values() for g in k.groups.values())


@pytest.mark.parametrize("options", [{"thresholds": "exact"}, {"thresholds": 0.01, "normalization": "cafa-pk"}])
def test_naive_partial_knowledge_from_its_levels_equals_its_rows(monkeypatch, options):
    """The naive baseline's PK targets of two species of the shared 2014 -> 2019 data, swept from the
    vector's levels, equal the vector given to each target without its known terms (the rows): the same
    thresholds and counts, every number to 1e-12."""
    from conftest import shared_path
    from goeval.evaluation import sources

    data = shared_path("data")
    onto = goeval.load_ontology(data / "go" / "go_2019-01-29.obo.gz")
    species = ("rat", "zebrafish")
    t0 = goeval.load_annotations([data / "goa" / f"exp_{s}_2014-10-12.tsv.gz" for s in species], onto)
    t1 = goeval.load_annotations([data / "goa" / f"exp_{s}_2019-01-29.tsv.gz" for s in species], onto)
    split = time_split_targets(onto, t0, t1)
    opts = goeval.options.EvaluationOptions.resolve(**options)
    levels = evaluate_time_split(onto, t0, split, methods=["naive"], kinds=("PK",), options=opts)["PK"]
    monkeypatch.setattr(sources, "shared_sweep_possible", lambda plan, benchmark: False)
    rows = evaluate_time_split(onto, t0, split, methods=["naive"], kinds=("PK",), options=opts)["PK"]
    assert levels.diagnostics["methods"] == rows.diagnostics["methods"]  # proteins, entries, known pairs removed
    a, b = levels.summary, rows.summary
    assert len(a) > 0 and a.columns.equals(b.columns)
    for col in a.columns:
        if a[col].dtype.kind == "f":
            np.testing.assert_allclose(a[col], b[col], rtol=1e-12, atol=0, err_msg=col)
        else:
            assert a[col].equals(b[col]), col
    assert levels.curves.shape == rows.curves.shape
    for col in levels.curves.columns:
        x, y = levels.curves[col], rows.curves[col]
        if x.dtype.kind == "f":
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-14, err_msg=col)
        else:
            assert x.equals(y), col


def test_an_interrupted_kind_leaves_no_child_running(snap, monkeypatch):
    """The kind's groups run aside in a forked child: an interrupt of the kind's own run kills and reaps it."""
    from goeval.benchmarks import timesplit
    from goeval.io.background import live_children

    monkeypatch.setenv("GOEVAL_FORK", "always")
    onto, t0, t1 = snap
    split = time_split_targets(onto, t0, t1)
    seen = []

    def interrupted(*args, **kwargs):
        seen.append(live_children())
        raise KeyboardInterrupt

    monkeypatch.setattr(timesplit, "_evaluate_kind", interrupted)
    with pytest.raises(KeyboardInterrupt):
        evaluate_time_split(onto, t0, split, None, groups={"ef": ["e", "f"]}, methods=["naive"], kinds=("NK",))
    assert seen and seen[0], "the groups' child was running while the kind was evaluated"
    assert not live_children()
