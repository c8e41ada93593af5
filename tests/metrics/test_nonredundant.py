"""PAN-GO's non-redundant partial-credit F against a brute-force oracle (sets, one protein and threshold at a time)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import ancestors_oracle, random_dag_edges
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from goeval.errors import InputFormatError, InvalidParameterError
from goeval.metrics.nonredundant import (NonredundantEvents, closure_structure, exclusion_mask, nonredundant_curves,
                                         nonredundant_f, nonredundant_sums)
from goeval.ontology import ontology_from_edges


# ------------------------------------------------------------------ oracle
def leaves(terms: set[str], strict: dict[str, set[str]]) -> set[str]:
    """The terms of ``terms`` that are no strict ancestor of another one."""
    return {v for v in terms if not any(v in strict[u] for u in terms)}


def oracle_protein(T: set[str], scores: dict[str, float], tau: float, X: set[str],
                   strict: dict[str, set[str]]) -> dict[str, float] | None:
    """E, L, M, U, Z, pr, rc of one protein at one threshold (None: not a benchmark protein).

    The reference's ``metric_for_protein`` (fpr_metric_sweep.py) rewritten as set operations: a
    predicted leaf equal to a reference leaf is E, one above reference leaves is L (counted once per
    distinct set of those reference leaves), one below a reference leaf M, else U; Z counts the
    reference leaves mapped by none.
    """
    t_star = leaves(T - X, strict)
    if not t_star:
        return None
    p_star = leaves({v for v, s in scores.items() if s >= tau} - X, strict)
    e = m = u = 0
    l_sets: set[frozenset[str]] = set()
    mapped: set[str] = set()
    for v in p_star:
        below = {r for r in t_star if v in strict[r]}
        above = strict[v] & t_star
        if v in t_star:
            e += 1
            mapped.add(v)
        elif below:
            l_sets.add(frozenset(below))
            mapped |= below
        elif above:
            m += 1
            mapped |= above
        else:
            u += 1
    z = len(t_star - mapped)
    num = e + 0.75 * len(l_sets) + 0.5 * m
    pr = num / (e + len(l_sets) + m + u) if p_star else 0.0
    rc = num / (e + len(l_sets) + m + z) if (e + len(l_sets) + m + z) else 0.0
    return {"E": e, "L": len(l_sets), "M": m, "U": u, "Z": z, "pr": pr, "rc": rc, "covered": float(bool(p_star))}


def oracle_curves(truths, scores, taus, X, strict) -> dict[str, np.ndarray]:
    out: dict[str, list[float]] = {k: [] for k in ("E", "L", "M", "U", "Z", "precision", "recall", "n_covered",
                                                  "precision_micro", "recall_micro")}
    for tau in taus:
        rows = [r for T, s in zip(truths, scores) if (r := oracle_protein(T, s, tau, X, strict)) is not None]
        tot = {k: sum(r[k] for r in rows) for k in ("E", "L", "M", "U", "Z", "pr", "rc", "covered")}
        for k in ("E", "L", "M", "U", "Z"):
            out[k].append(tot[k])
        out["n_covered"].append(tot["covered"])
        out["precision"].append(tot["pr"] / tot["covered"] if tot["covered"] else 0.0)
        out["recall"].append(tot["rc"] / len(rows) if rows else 0.0)
        num, found = tot["E"] + 0.75 * tot["L"] + 0.5 * tot["M"], tot["E"] + tot["L"] + tot["M"]
        out["precision_micro"].append(num / (found + tot["U"]) if found + tot["U"] else 0.0)
        out["recall_micro"].append(num / (found + tot["Z"]) if found + tot["Z"] else 0.0)
    return {k: np.array(v, dtype=float) for k, v in out.items()}


# ------------------------------------------------------------------ helpers
def closure_of(edges, terms):
    """(reflexive closure as CSR over ``terms``, strict ancestors per term) by plain graph search."""
    index = {t: i for i, t in enumerate(terms)}
    anc = {t: ancestors_oracle(edges, t) for t in terms}
    rows = [index[t] for t in terms for a in anc[t]]
    cols = [index[a] for t in terms for a in anc[t]]
    n = len(terms)
    csr = sp.csr_array((np.ones(len(rows), bool), (rows, cols)), shape=(n, n))
    return csr, {t: anc[t] - {t} for t in terms}


def run(terms, edges, truths, scores, X, taus, chunk_entries=1 << 16):
    """goeval's curves of propagated truth sets and (consistent) scores given as sets and dicts."""
    anc, strict = closure_of(edges, terms)
    index = {t: i for i, t in enumerate(terms)}
    tm = sp.csr_array(([True] * sum(map(len, truths)), ([i for i, T in enumerate(truths) for _ in T],
                      [index[t] for T in truths for t in T])), shape=(len(truths), len(terms)))
    sm = sp.csr_array(([v for s in scores for v in s.values()], ([i for i, s in enumerate(scores) for _ in s],
                      [index[t] for s in scores for t in s])), shape=(len(truths), len(terms)))
    tm.sort_indices()
    sm.sort_indices()
    ex = np.array([t in X for t in terms])
    got = nonredundant_curves(nonredundant_sums(sm.indptr, sm.indices, sm.data, tm.indptr, tm.indices, anc, ex,
                                                np.asarray(taus, float), chunk_entries=chunk_entries))
    return got, oracle_curves(truths, scores, taus, X, strict)


def assert_same(got, want):
    for k in ("E", "L", "M", "U", "Z", "n_covered"):
        assert_array_equal(got[k], want[k], err_msg=k)
    for k in ("precision", "recall", "precision_micro", "recall_micro"):
        assert_allclose(got[k], want[k], rtol=1e-12, atol=1e-12, err_msg=k)


def propagate(scores: dict[str, float], strict) -> dict[str, float]:
    out: dict[str, float] = {}
    for v, s in scores.items():
        for a in strict[v] | {v}:
            out[a] = max(out.get(a, 0.0), s)
    return out


def up(T: set[str], strict) -> set[str]:
    return set().union(*({v} | strict[v] for v in T)) if T else set()


# ------------------------------------------------------------ hand-made cases
#      r
#    / | \
#   a  b  c          d under a and b (two parents); e under d; f under c
#    \ /   |
#     d    f
#     |
#     e
EDGES = [("a", "r"), ("b", "r"), ("c", "r"), ("d", "a"), ("d", "b"), ("e", "d"), ("f", "c")]
TERMS = ["r", "a", "b", "c", "d", "e", "f"]
_, STRICT = closure_of(EDGES, TERMS)
TAUS = [0.1, 0.5, 0.9]


@pytest.mark.parametrize("name,truth,raw,counts", [
    ("E exact", {"d"}, {"d": 0.9}, {"E": 1, "L": 0, "M": 0, "U": 0, "Z": 0}),
    ("L less specific", {"d"}, {"a": 0.9}, {"E": 0, "L": 1, "M": 0, "U": 0, "Z": 0}),
    ("L counted once per set", {"d"}, {"a": 0.9, "b": 0.9}, {"E": 0, "L": 1, "M": 0, "U": 0, "Z": 0}),
    ("M more specific", {"d"}, {"e": 0.9}, {"E": 0, "L": 0, "M": 1, "U": 0, "Z": 0}),
    ("U unrelated", {"d"}, {"f": 0.9}, {"E": 0, "L": 0, "M": 0, "U": 1, "Z": 1}),
    ("Z missed", {"d", "f"}, {"e": 0.9}, {"E": 0, "L": 0, "M": 1, "U": 0, "Z": 1}),
])
def test_each_category_by_hand(name, truth, raw, counts):
    truths, scores = [up(truth, STRICT)], [propagate(raw, STRICT)]
    got, want = run(TERMS, EDGES, truths, scores, {"r"}, TAUS)
    assert_same(got, want)
    for k, v in counts.items():
        assert got[k][-1] == v == want[k][-1], k  # at tau = 0.9 every raw score is in


def test_redundant_ancestor_is_removed_but_returns_below_its_descendants_score():
    # a at 0.9 and d at 0.5: at 0.5 only d is a leaf (E), at 0.9 a is (L)
    got, want = run(TERMS, EDGES, [up({"d"}, STRICT)], [propagate({"a": 0.9, "d": 0.5}, STRICT)], {"r"}, TAUS)
    assert_same(got, want)
    assert got["E"].tolist() == [1, 1, 0] and got["L"].tolist() == [0, 0, 1]


@pytest.mark.parametrize("X,counts", [
    ({"r"}, {"E": 0, "L": 0, "M": 1, "U": 0, "Z": 0}),  # e below the reference leaf d
    ({"r", "d"}, {"E": 0, "L": 0, "M": 1, "U": 0, "Z": 0}),  # d excluded: T* = {a, b}, e below both (one M)
    ({"r", "e"}, {"E": 1, "L": 0, "M": 0, "U": 0, "Z": 0}),  # e excluded: d becomes the predicted leaf
    ({"r", "a", "b", "d"}, {"E": 0, "L": 0, "M": 0, "U": 0, "Z": 0}),  # nothing left of the truth: no benchmark protein
])
def test_each_exclusion_by_hand(X, counts):
    got, want = run(TERMS, EDGES, [up({"d"}, STRICT)], [propagate({"e": 0.9}, STRICT)], X, TAUS)
    assert_same(got, want)
    for k, v in counts.items():
        assert got[k][-1] == v, k


def test_proteins_without_predictions_count_in_recall_and_z_only():
    got, want = run(TERMS, EDGES, [up({"d"}, STRICT), up({"f"}, STRICT)], [propagate({"d": 0.9}, STRICT), {}],
                    {"r"}, TAUS)
    assert_same(got, want)
    assert got["precision"][-1] == 1.0 and got["recall"][-1] == 0.5 and got["Z"][-1] == 1


def test_best_threshold_ties_go_to_the_higher_threshold():
    anc, _ = closure_of(EDGES, TERMS)
    cols = {t: i for i, t in enumerate(TERMS)}
    truth = np.zeros((1, len(TERMS)), bool)
    truth[0, [cols[t] for t in up({"d"}, STRICT)]] = True
    score = np.zeros((1, len(TERMS)))
    for t, s in propagate({"d": 0.7}, STRICT).items():
        score[0, cols[t]] = s
    ex = np.array([t == "r" for t in TERMS])
    assert nonredundant_f(sp.csr_array(truth), sp.csr_array(score), ancestors=anc, excluded=ex,
                          thresholds=0.1) == (1.0, 0.7)


def test_exclusion_mask_defaults_and_term_files(tmp_path):
    onto = ontology_from_edges([("GO:0005515", "GO:0005488"), ("GO:0005488", "GO:0003674"), ("GO:0000001", "GO:0003674")])
    mask = exclusion_mask(onto)
    assert sorted(onto.ids[mask].tolist()) == ["GO:0003674", "GO:0005488", "GO:0005515"]
    assert onto.ids[exclusion_mask(onto, roots=False, binding=False, terms=[["GO:0000001"]])].tolist() == ["GO:0000001"]
    with pytest.raises(InputFormatError, match="GO:9999999.*not a term") as e:
        exclusion_mask(onto, terms=[["GO:9999999"]], sources=["x.txt"])
    assert e.value.path == "x.txt"


# ------------------------------------------------------------ random cases
_GRID = (0.1, 0.25, 0.5, 0.75, 1.0)


def _random_dag(seed: int, n_terms: int, shuffled: bool) -> tuple:
    """(rng, edges, terms, strict ancestors) of a random DAG; ``shuffled``: the terms named in random order."""
    rng = np.random.default_rng(seed)
    edges = random_dag_edges(rng, n_terms)
    terms = [f"t{i}" for i in (rng.permutation(n_terms) if shuffled else range(n_terms))]
    _, strict = closure_of(edges, terms)
    return rng, edges, terms, strict


def _random_protein(rng: np.random.Generator, terms: list[str], strict: dict) -> tuple[set, dict]:
    """A protein's closed truth and its raw scores (before propagation), on the grid :data:`_GRID`."""
    truth = up(set(rng.choice(terms, size=int(rng.integers(0, 4)), replace=True).tolist()), strict)
    raw = {t: float(rng.choice(_GRID)) for t in rng.choice(terms, size=int(rng.integers(0, 5))).tolist()}
    return truth, raw

@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_terms=st.integers(2, 14), n_prot=st.integers(1, 6),
       chunk=st.sampled_from([1, 3, 1 << 16]))
def test_random_cases_equal_the_oracle(seed, n_terms, n_prot, chunk):
    rng, edges, terms, strict = _random_dag(seed, n_terms, shuffled=False)
    truths, scores = [], []
    for _ in range(n_prot):
        truth, raw = _random_protein(rng, terms, strict)
        truths.append(truth)
        scores.append(propagate(raw, strict))
    X = {t for t in terms if rng.random() < 0.25} | {"t0"}
    got, want = run(terms, edges, truths, scores, X, [0.1, 0.2, 0.25, 0.5, 0.6, 0.75, 1.0], chunk_entries=chunk)
    assert_same(got, want)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_terms=st.integers(2, 14), n_prot=st.integers(1, 6),
       chunk=st.sampled_from([1, 3, 1 << 16]))
def test_rows_not_closed_or_not_propagated_equal_the_oracle(seed, n_terms, n_prot, chunk):
    """Predicted rows with ancestors missing (known pairs removed, terms filtered) or scored below a descendant
    ('fill' propagation), columns in no particular order: the passes by generation."""
    rng, edges, terms, strict = _random_dag(seed, n_terms, shuffled=True)
    truths, scores = [], []
    for _ in range(n_prot):
        truth, raw = _random_protein(rng, terms, strict)
        truths.append(truth)
        s = {t: v for t, v in sorted(propagate(raw, strict).items()) if rng.random() < 0.8}
        scores.append({t: (float(rng.choice(_GRID)) if rng.random() < 0.3 else v) for t, v in s.items()})
    X = {t for t in terms if rng.random() < 0.25}
    got, want = run(terms, edges, truths, scores, X, [0.1, 0.2, 0.25, 0.5, 0.6, 0.75, 1.0], chunk_entries=chunk)
    assert_same(got, want)


def test_closure_structure_is_the_transitive_reduction_with_its_generations():
    anc, _ = closure_of(EDGES, TERMS)
    st = closure_structure(anc)
    index = {t: i for i, t in enumerate(TERMS)}
    want = sp.csr_array((np.ones(len(EDGES), bool), ([index[c] for c, _ in EDGES], [index[p] for _, p in EDGES])),
                        shape=(len(TERMS), len(TERMS)))
    assert (st.parents != want).nnz == 0
    assert dict(zip(TERMS, st.generation.tolist())) == {"r": 0, "a": 1, "b": 1, "c": 1, "d": 2, "e": 3, "f": 2}
    assert_array_equal(st.anc_indptr, anc.indptr)
    with pytest.raises(InvalidParameterError, match="cycle"):
        closure_structure(sp.csr_array(np.ones((2, 2), bool)))


def test_a_term_that_is_never_a_leaf_makes_no_event():
    # e at 0.9 propagated to d, a, b, r at 0.9: d (in T*) is never a leaf, only e (M) is, and T* = {d} is mapped
    anc, _ = closure_of(EDGES, TERMS)
    index = {t: i for i, t in enumerate(TERMS)}
    truth, scores = sorted(index[t] for t in up({"d"}, STRICT)), propagate({"e": 0.9}, STRICT)
    cols = sorted(index[t] for t in scores)
    source = NonredundantEvents(structure=closure_structure(anc), excluded=np.array([t == "r" for t in TERMS]))
    ev = source.events(np.array([0, len(cols)]), np.array(cols), np.array([scores[TERMS[c]] for c in cols]),
                       np.array([0, len(truth)]), np.array(truth), np.array([0.5, 0.9]))
    counts = {k: int(np.abs(v).sum()) for k, v in ev.values.items()}
    assert counts == {"nr_e": 0, "nr_l": 0, "nr_m": 2, "nr_u": 0, "nr_mapped": 2}
    assert ev.levels.size == 4 and ev.truth["nr_star"].tolist() == [1.0]


# ------------------------------------------------------------ real data
def test_cafa2_slice_micro_and_macro_equal_the_oracle():
    import goeval
    from conftest import shared_path
    from goeval.annotations import propagate

    d = shared_path("data", "cafa2")
    onto = goeval.load_ontology(d / "mfo_from_mfoa_mat.obo.gz")
    truth = propagate(goeval.load_annotations(d / "groundtruth_leafonly_MFO_NK.tsv", onto))
    pred = propagate(goeval.load_predictions(d / "BB4S_mfo_NK.tsv.gz", onto))
    ids = onto.ids.tolist()
    anc = onto.ancestors_csr
    strict = {t: {ids[a] for a in anc.indices[anc.indptr[i]:anc.indptr[i + 1]]} - {t} for i, t in enumerate(ids)}
    rows = {p: i for i, p in enumerate(pred.proteins.tolist())}
    tm, sm = truth.matrix.tocsr(), pred.matrix.tocsr()
    truths = [{ids[c] for c in tm.indices[tm.indptr[i]:tm.indptr[i + 1]]} for i in range(tm.shape[0])]
    scores = [{} if (j := rows.get(p)) is None else dict(zip((ids[c] for c in sm.indices[sm.indptr[j]:sm.indptr[j + 1]]),
              sm.data[sm.indptr[j]:sm.indptr[j + 1]].tolist())) for p in truth.proteins.tolist()]
    X = set(np.asarray(ids, dtype=object)[exclusion_mask(onto)].tolist())
    taus = [0.3, 0.46, 0.51, 0.8]
    want = oracle_curves(truths, scores, taus, X, strict)
    macro, tau = nonredundant_f(truth, pred, thresholds=0.01)
    micro, tau_micro = nonredundant_f(truth, pred, thresholds=0.01, average="micro")
    assert (round(macro, 4), tau, round(micro, 4), tau_micro) == (0.3344, 0.46, 0.2411, 0.51)
    f = 2 * want["precision"] * want["recall"] / (want["precision"] + want["recall"])
    fm = 2 * want["precision_micro"] * want["recall_micro"] / (want["precision_micro"] + want["recall_micro"])
    assert_allclose([f[1], fm[2]], [macro, micro], rtol=1e-12)


# ------------------------------------------------- through the engine and the registry
def _cli(args):
    from goeval.cli import main

    return main([str(a) for a in args])


@pytest.fixture(scope="module")
def nr_run(tmp_path_factory):
    """``goeval evaluate --measures nonredundant --bootstrap`` on the CAFA2 MFO slice, two copies of BLAST, and
    the same run without ``--measures``."""
    import shutil

    import goeval

    d = goeval.example_path
    tmp = tmp_path_factory.mktemp("nr")
    preds = tmp / "preds"
    preds.mkdir()
    for name in ("a", "b"):
        shutil.copy(d("predictions"), preds / f"{name}.tsv.gz")
    common = ["evaluate", "--ontology", d("ontology"), "--truth", d("truth"), "--predictions", preds,
              "--thresholds", "0.01", "-q"]
    assert _cli([*common, "--measures", "nonredundant", "--bootstrap", "30", "--out", tmp / "nr"]) == 0
    assert _cli([*common, "--bootstrap", "30", "--out", tmp / "plain"]) == 0
    return tmp, common


def test_evaluate_measures_nonredundant_equals_nonredundant_f(nr_run):
    import json

    import pandas as pd

    import goeval
    from goeval.annotations import propagate

    tmp, _ = nr_run
    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = propagate(goeval.load_annotations(goeval.example_path("truth"), onto))
    pred = propagate(goeval.load_predictions(goeval.example_path("predictions"), onto))
    summary = pd.read_csv(tmp / "nr" / "summary.tsv", sep="\t")
    a = summary[summary["method"] == "a"].set_index("measure")
    for name, average, want in (("nr_fmax", "macro", (0.3344, 0.46)), ("nr_fmax_micro", "micro", (0.2411, 0.51))):
        value, tau = nonredundant_f(truth, pred, thresholds=0.01, average=average)
        row = a.loc[name]
        assert (round(row["value"], 4), row["threshold"]) == want == (round(value, 4), tau)
        assert_allclose(row["value"], value, rtol=1e-12)
        assert row["ci_low"] <= row["value"] <= row["ci_high"] and row["se"] > 0  # bootstrap intervals
    curves = pd.read_csv(tmp / "nr" / "curves.tsv", sep="\t")
    assert {"nr_f", "nr_f_micro", "nr_precision", "nr_recall", "nr_e", "nr_z"} <= set(curves.columns)
    options = json.loads((tmp / "nr" / "diagnostics.json").read_text())["options"]
    assert options["measures"] == ["nonredundant"]
    assert options["nonredundant_exclude"] == ["roots", "binding", "do-not-annotate"]


def test_asking_for_nonredundant_changes_no_other_number(nr_run):
    import pandas as pd

    tmp, _ = nr_run
    nr = pd.read_csv(tmp / "nr" / "summary.tsv", sep="\t")
    plain = pd.read_csv(tmp / "plain" / "summary.tsv", sep="\t")
    assert not plain["measure"].str.startswith("nr_").any()
    pd.testing.assert_frame_equal(nr[~nr["measure"].str.startswith("nr_")].reset_index(drop=True), plain)
    curves, plain_curves = (pd.read_csv(tmp / x / "curves.tsv", sep="\t") for x in ("nr", "plain"))
    assert not any(c.startswith("nr_") for c in plain_curves.columns)
    pd.testing.assert_frame_equal(curves[list(plain_curves.columns)], plain_curves)


def test_compare_reads_nr_fmax(nr_run, capsys):
    import pandas as pd

    tmp, _ = nr_run
    assert _cli(["compare", tmp / "nr", "--measure", "nr_fmax", "--bootstrap", "30", "--out", tmp / "c.tsv"]) == 0
    pairs = pd.read_csv(tmp / "c.tsv", sep="\t")
    assert set(pairs["measure"]) == {"nr_fmax"} and (pairs["difference"] == 0).all()
    assert _cli(["compare", tmp / "plain", "--measure", "nr_fmax", "--out", tmp / "c2.tsv"]) == 2  # not computed
    assert "nr_fmax" in capsys.readouterr().err


def test_each_group_gets_the_nonredundant_f_of_a_run_on_its_proteins(nr_run, tmp_path):
    import pandas as pd

    import goeval
    from goeval.io.truth import read_truth

    _, common = nr_run
    proteins = list(dict.fromkeys(read_truth(goeval.example_path("truth")).proteins.tolist()))
    odd = [p for k, p in enumerate(proteins) if k % 2]
    groups, targets = tmp_path / "groups.tsv", tmp_path / "odd.txt"
    groups.write_text("".join(f"{p}\t{'odd' if k % 2 else 'even'}\n" for k, p in enumerate(proteins)))
    targets.write_text("\n".join(odd) + "\n")
    args = [*common, "--measures", "nonredundant"]
    assert _cli([*args, "--groups", groups, "--out", tmp_path / "g"]) == 0
    assert _cli([*args, "--targets", targets, "--out", tmp_path / "odd"]) == 0
    got = pd.read_csv(tmp_path / "g" / "groups" / "odd" / "summary.tsv", sep="\t").set_index(["method", "measure"])
    want = pd.read_csv(tmp_path / "odd" / "summary.tsv", sep="\t").set_index(["method", "measure"])
    for key in [("a", "nr_fmax"), ("a", "nr_fmax_micro")]:
        assert got.loc[key, "value"] == want.loc[key, "value"] and got.loc[key, "threshold"] == want.loc[key, "threshold"]


def test_the_naive_baseline_makes_its_rows_for_nonredundant():
    """The non-redundant quantities have no rule for a shared vector: the naive baseline's rows are made."""
    from goeval.sweep.shared import shared_supported

    assert shared_supported() and not shared_supported(("nonredundant",))


def test_unknown_excluded_term_file_is_an_error_naming_the_file(nr_run, tmp_path, capsys):
    _, common = nr_run
    bad = tmp_path / "x.txt"
    bad.write_text("GO:9999999\n")
    assert _cli([*common, "--measures", "nonredundant", "--nonredundant-terms", bad, "--out", tmp_path / "o"]) == 2
    err = capsys.readouterr().err
    assert "x.txt" in err and "GO:9999999" in err and "Traceback" not in err


def test_ties_go_to_the_higher_threshold_in_the_summary_as_in_the_reference(tmp_path):
    """Exact thresholds: the non-redundant F is the same at neighbouring thresholds where only a redundant
    ancestor changes; the summary reports the highest of them, as nonredundant_f (the reference's rule)."""
    import pandas as pd

    import goeval
    from goeval.annotations import propagate

    d = goeval.example_path
    assert _cli(["evaluate", "--ontology", d("ontology"), "--truth", d("truth"), "--predictions", d("predictions"),
                 "--measures", "nonredundant", "-q", "--out", tmp_path / "x"]) == 0
    row = pd.read_csv(tmp_path / "x" / "summary.tsv", sep="\t").set_index("measure").loc["nr_fmax"]
    onto = goeval.load_ontology(d("ontology"))
    truth = propagate(goeval.load_annotations(d("truth"), onto))
    pred = propagate(goeval.load_predictions(d("predictions"), onto))
    assert (row["value"], row["threshold"]) == pytest.approx(nonredundant_f(truth, pred), rel=1e-12)
    assert row["threshold"] == 0.4667  # the lowest tied threshold is 0.4662


def test_row_best_breaks_ties_as_best_index():
    from goeval.metrics.protein import best_index
    from goeval.stats.replicates import row_best

    v = np.array([[0.1, 0.5, 0.5, 0.2], [0.5, 0.5, 0.5, 0.5]])
    ok = np.ones_like(v, bool)
    assert row_best(v, ok, "max")[0].tolist() == [1, 0] and row_best(v, ok, "max", ties="high")[0].tolist() == [2, 3]
    assert [best_index(r, "max", ties="high") for r in v] == [2, 3]


def test_each_truth_row_is_reduced_once_per_run(monkeypatch, tmp_path):
    """T* of a protein is computed once: for its events, then read by the source's truth (not reduced again), so
    the rows reduced in a run are at most the benchmark's proteins (before: the leaves' rows and every row again);
    the numbers are those of the run that reduced every row twice (the nr_* rows equal nonredundant_f, above)."""
    import pickle

    import goeval
    from goeval.metrics import nonredundant as nr

    reduced = []
    real = nr._reduced_truth
    monkeypatch.setattr(nr, "_reduced_truth", lambda st, n_rows, *a: reduced.append(n_rows) or real(st, n_rows, *a))
    d = goeval.example_path
    assert _cli(["evaluate", "--ontology", d("ontology"), "--truth", d("truth"), "--predictions", d("predictions"),
                 "--measures", "nonredundant", "--thresholds", "0.01", "-q", "--out", tmp_path / "o"]) == 0
    assert 411 <= sum(reduced) <= 421  # the 411 predicted proteins of the slice's 421 (before: 411 + 421)
    source = nr.NonredundantEvents(structure=nr.closure_structure(sp.eye_array(2, format="csr")),
                                   excluded=np.zeros(2, bool))
    source._stars[b"x"] = 1
    assert pickle.loads(pickle.dumps(source))._stars == {}  # a worker's source starts empty
