"""goeval.diagnostics: a run's counts and warnings; a warning names the caller's line, never goeval's own."""

from __future__ import annotations

import warnings

import goeval
from goeval.diagnostics import Diagnostics
from goeval.errors import GoevalWarning


def _caught(call) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [w for w in caught if issubclass(w.category, GoevalWarning)]


def test_a_warning_names_the_line_that_called_warn():
    diag = Diagnostics()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        diag.warn("a fact")
    (w,) = caught
    assert (w.filename, str(w.message)) == (__file__, "a fact") and diag.warnings == ["a fact"]


def test_a_run_s_warnings_name_the_caller_s_line_not_contextlib():
    """Warnings raised inside a run (kept by Diagnostics.capture and issued again at its end, as goeval.evaluate
    does) and the run's own checks point at the line of the user's code that ran it."""
    onto = goeval.load_ontology(goeval.example_path("ontology"))
    truth = goeval.load_annotations(goeval.example_path("truth"), onto)
    targets = list(truth.proteins[:3]) + ["NOT_A_PROTEIN"]
    caught = _caught(lambda: goeval.evaluate(onto, truth, [goeval.example_path("predictions")], targets=targets))
    assert any("1 of the 4 targets have no truth annotation" in str(w.message) for w in caught)
    assert {w.filename for w in caught} == {__file__}


def test_capture_keeps_a_lower_level_warning_and_issues_it_at_the_caller():
    diag = Diagnostics()

    def run():
        with diag.capture():
            warnings.warn("undefined", GoevalWarning)

    caught = _caught(run)
    assert [str(w.message) for w in caught] == ["undefined"] and caught[0].filename == __file__
    assert diag.warnings == ["undefined"]
