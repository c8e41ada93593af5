"""Bootstrap of the term-centric measures (goeval.stats.term_bootstrap): replicates, intervals."""

from __future__ import annotations

import gzip
import warnings

import numpy as np
import pytest

import goeval
from goeval.errors import GoevalWarning


def _lines(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as fh:
        return [line.rstrip("\n").split("\t") for line in fh if line.strip()]


def _inputs():
    d = goeval.example_path
    onto = goeval.load_ontology(d("ontology"))
    ia, _ = goeval.load_ia(d("ia"), onto)
    return onto, ia, _lines(d("truth")), _lines(d("predictions"))


def _drawn(tmp_path, name, truth_rows, pred_rows, drawn):
    """Truth and prediction files of the drawn proteins, a protein drawn m times as m proteins ``P!0 .. P!m-1``
    ('!' sorts below the characters of the ids, so the copies keep the original's place among equal scores)."""
    count = {p: int(c) for p, c in zip(*np.unique(drawn, return_counts=True))}
    assert max(count.values()) < 10
    t, p = tmp_path / f"{name}_truth.tsv", tmp_path / f"{name}_pred.tsv"
    t.write_text("".join(f"{r[0]}!{j}\t{r[1]}\n" for r in truth_rows for j in range(count.get(r[0], 0))))
    p.write_text("".join(f"{r[0]}!{j}\t{r[1]}\t{r[2]}\n" for r in pred_rows for j in range(count.get(r[0], 0))))
    return t, p


def test_each_replicate_is_a_fresh_evaluation_of_the_drawn_proteins(tmp_path):
    """Replicate b of ``evaluate_terms(bootstrap=...)`` is, to 1e-12 in every interval column, the term-centric
    evaluation of the proteins of the protein-centric bootstrap's resample b (same seed), duplicates renamed."""
    from goeval.evaluation import namespace_stats
    from goeval.evaluation.terms import evaluate_terms
    from goeval.stats.resample import resample_indices, resample_key

    onto, ia, truth_rows, pred_rows = _inputs()
    proteins = sorted({r[0] for r in truth_rows})[:60]  # a small benchmark: many terms with few positives
    keep = set(proteins)
    truth_rows = [r for r in truth_rows if r[0] in keep]
    pred_rows = [r for r in pred_rows if r[0] in keep]
    t, p = _drawn(tmp_path, "all", truth_rows, pred_rows, np.array(proteins))  # every protein once, renamed
    truth = goeval.load_annotations(t, onto)
    preds = {"m": goeval.load_predictions(p, onto)}
    opts = dict(k=(1, 3), auc_min_positives=2, ia=ia, query_weights="ia", informative_cutoff=0.2)
    seed, n_boot = 7, 6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GoevalWarning)
        res = evaluate_terms(onto, truth, preds, bootstrap=n_boot, seed=seed, **opts)
        steps = namespace_stats(onto, truth, preds, per_protein=True)[("m", "MFO")].protein_steps
    reps = res.replicates
    assert reps.blocks == [("m", "MFO")] and reps.values[0].shape == (len(reps.columns), n_boot)
    assert {"tap_1", "tap_3", "ipr_auc", "peak_tap", "macro_roc_auc", "macro_average_precision", "informative_roc_auc",
            "ia_weighted_average_precision", "depth_weighted_average_precision"} == set(reps.columns)
    bench = np.asarray(steps.proteins).astype(str)  # the protein-centric bootstrap's benchmark and resamples
    assert reps.keys[0] == resample_key("MFO", bench)
    idx = resample_indices(seed, resample_key("MFO", bench), bench.size, 0, n_boot)
    assert len(set(idx[0].tolist())) < bench.size  # some protein drawn twice
    for b in range(n_boot):
        original = np.array([x.split("!")[0] for x in bench[idx[b]]])
        t, p = _drawn(tmp_path, f"r{b}", truth_rows, pred_rows, original)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", GoevalWarning)
            fresh = evaluate_terms(onto, goeval.load_annotations(t, onto), {"m": goeval.load_predictions(p, onto)},
                                   **opts).summary.iloc[0]
        want = np.array([float(fresh.get(c, np.nan)) for c in reps.columns])
        np.testing.assert_allclose(reps.values[0][:, b], want, rtol=1e-12, atol=1e-12, equal_nan=True)
    assert np.isfinite(reps.values[0]).all()


def test_intervals_follow_each_measure_column():
    """COLUMN_ci_low, COLUMN_ci_high, COLUMN_se after each term-centric measure; the point values unchanged;
    the intervals are the percentile intervals of the replicates."""
    from goeval.evaluation.terms import evaluate_terms
    from goeval.stats.bootstrap import percentile_interval

    d = goeval.example_path
    onto = goeval.load_ontology(d("ontology"))
    truth = goeval.load_annotations(d("truth"), onto)
    preds = {"b": goeval.load_predictions(d("predictions"), onto)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GoevalWarning)
        plain = evaluate_terms(onto, truth, preds, k=(5,))
        res = evaluate_terms(onto, truth, preds, k=(5,), bootstrap=40, seed=3, confidence=0.9)
    s = res.summary
    cols = list(s.columns)
    for c in ("tap_5", "ipr_auc", "peak_tap", "macro_roc_auc", "macro_average_precision"):
        assert cols[cols.index(c) + 1: cols.index(c) + 4] == [f"{c}_ci_low", f"{c}_ci_high", f"{c}_se"]
        j = res.replicates.columns.index(c)
        lo, hi, se, _ = percentile_interval(res.replicates.values[0][j], 0.9)
        assert (s[f"{c}_ci_low"].iloc[0], s[f"{c}_ci_high"].iloc[0], s[f"{c}_se"].iloc[0]) == (lo, hi, se)
        assert lo < hi
    assert s["macro_roc_auc_ci_low"].iloc[0] < s["macro_roc_auc"].iloc[0] < s["macro_roc_auc_ci_high"].iloc[0]
    assert s[plain.summary.columns].equals(plain.summary)
    assert res.diagnostics["bootstrap"]["n_resamples"] == 40
    with pytest.raises(goeval.errors.InvalidParameterError, match="n_resamples"):
        evaluate_terms(onto, truth, preds, bootstrap=0)
