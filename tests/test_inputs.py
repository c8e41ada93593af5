"""Loading an evaluation's inputs: what is done while the prediction files are read."""

from __future__ import annotations

import goeval
from goeval import inputs


def test_closure_made_while_the_predictions_are_read(monkeypatch):
    """The ontology's closure (the truth's propagation needs it next) is computed before the prediction reads are
    waited for, so that it costs nothing while a reader works; the result is the same."""
    seen = []
    wait = inputs._read_predictions

    def waiting(predictions, reads, onto):  # noqa: ANN001, ANN202 - the function it wraps
        seen.append("closure" in onto._cache)
        return wait(predictions, reads, onto)

    args = (goeval.example_path("ontology"), goeval.example_path("truth"), [goeval.example_path("predictions")])
    want = goeval.evaluate(*args, ia=goeval.example_path("ia"), thresholds=0.01).summary
    monkeypatch.setattr(inputs, "_read_predictions", waiting)
    got = goeval.evaluate(*args, ia=goeval.example_path("ia"), thresholds=0.01).summary
    assert seen == [True]
    assert got.equals(want)
