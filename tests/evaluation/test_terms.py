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
            pd.testing.assert_frame_equal(getattr(res.groups[name], frame), getattr(alone, frame))
    pd.testing.assert_frame_equal(res.summary, evaluate_terms(onto, truth, preds).summary)
