"""Term-centric evaluation (goeval.evaluation.terms): groups of proteins."""

from __future__ import annotations


def test_each_group_is_the_term_evaluation_of_its_proteins():
    """groups=: each group's summary, terms and TAP curve are those of targets= its proteins."""
    import pandas as pd

    import goeval
    from goeval.evaluation.terms import evaluate_terms

    d = goeval.example_path
    onto = goeval.load_ontology(d("ontology"))
    truth = goeval.load_annotations(d("truth"), onto)
    preds = {"b": goeval.load_predictions(d("predictions"), onto)}
    prots = truth.proteins.tolist()
    groups = {"first": prots[:200], "rest": prots[150:]}
    res = evaluate_terms(onto, truth, preds, groups=groups)
    for name, proteins in groups.items():
        alone = evaluate_terms(onto, truth, preds, targets=proteins)
        for frame in ("summary", "terms", "curves"):
            pd.testing.assert_frame_equal(getattr(res.groups[name], frame), getattr(alone, frame), check_exact=True)
    pd.testing.assert_frame_equal(res.summary, evaluate_terms(onto, truth, preds).summary, check_exact=True)


def test_informative_and_weighted_columns_with_ia():
    """With ia: the informative-term ROC AUC and the ia-/depth-weighted AP, the other columns unchanged."""
    import math
    import warnings

    import networkx as nx
    import numpy as np
    import pandas as pd
    import pytest

    import goeval
    from goeval.errors import GoevalWarning, InvalidParameterError
    from goeval.evaluation.terms import evaluate_terms

    d = goeval.example_path
    onto = goeval.load_ontology(d("ontology"))
    truth = goeval.load_annotations(d("truth"), onto)
    preds = {"b": goeval.load_predictions(d("predictions"), onto)}
    ia, _ = goeval.load_ia(d("ia"), onto)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GoevalWarning)
        plain = evaluate_terms(onto, truth, preds)
        res = evaluate_terms(onto, truth, preds, ia=ia, informative_cutoff=1.0)
    row = res.summary.iloc[0]
    pd.testing.assert_frame_equal(res.summary[plain.summary.columns], plain.summary)
    terms = res.terms.set_index("term")
    # informative: ia >= 1 bit, a positive and a negative benchmark protein; the mean of their ROC AUC
    n_bench = int(terms.loc[onto.ids[onto.roots()[0]], "n_positives"])  # the root is annotated to every protein
    ia_of = dict(zip(onto.ids, ia))
    informative = [t for t, r in terms.iterrows() if ia_of[t] >= 1.0 and 0 < r["n_positives"] < n_bench]
    assert sorted(terms.index[terms["informative_roc_auc"].notna()]) == sorted(informative)
    assert row["informative_terms"] == len(informative) > 0
    assert row["informative_roc_auc"] == pytest.approx(np.mean([terms.loc[t, "informative_roc_auc"]
                                                                for t in informative]), rel=1e-12)
    both = terms["roc_auc"].notna() & terms["informative_roc_auc"].notna()
    assert both.any() and np.allclose(terms.loc[both, "roc_auc"], terms.loc[both, "informative_roc_auc"], rtol=1e-12)
    # weighted AP: the AP of the terms with >= 10 positives, weighted by ia or by log2(shortest depth) x ia
    g = onto.to_networkx()
    root = onto.ids[onto.roots()[0]]
    ap = terms["average_precision"].dropna()
    w = np.array([max(ia_of[t], 0.0) for t in ap.index])
    dw = np.array([math.log2(nx.shortest_path_length(g, t, root) + 1) for t in ap.index]) * w
    assert row["ia_weighted_average_precision"] == pytest.approx(np.dot(w, ap) / w.sum(), rel=1e-12)
    assert row["depth_weighted_average_precision"] == pytest.approx(np.dot(dw, ap) / dw.sum(), rel=1e-12)
    assert res.diagnostics["options"]["informative_cutoff"] == 1.0
    with pytest.raises(InvalidParameterError, match="'informative_cutoff'"):
        evaluate_terms(onto, truth, preds, ia=ia, informative_cutoff=float("nan"))
