"""goeval: ontology-aware evaluation of protein function prediction.

The pipeline, one module per stage::

    io -> ontology -> annotations (propagation) -> ia -> sweep -> metrics -> report / cli

Quick start
-----------
>>> import goeval
>>> res = goeval.evaluate(goeval.example_path("ontology"), goeval.example_path("truth"),
...                       [goeval.example_path("predictions")], ia=goeval.example_path("ia"))
>>> res.summary.columns.tolist()[:4]
['method', 'namespace', 'measure', 'value']

Public names are imported on first use, so ``import goeval`` (and the
command line) start quickly.
"""

from __future__ import annotations

from goeval.lazy import lazy_exports

__version__ = "0.1.0"

_EXPORTS = {
    "Annotations": "goeval.annotations",
    "is_consistent": "goeval.annotations",
    "map_table": "goeval.annotations",
    "propagate": "goeval.annotations",
    "evaluate": "goeval.api",
    "load_annotations": "goeval.inputs",
    "load_ia": "goeval.inputs",
    "load_ontology": "goeval.inputs",
    "load_predictions": "goeval.inputs",
    "load_targets": "goeval.inputs",
    "example_path": "goeval.data",
    "GoevalError": "goeval.errors",
    "GoevalWarning": "goeval.errors",
    "InputFormatError": "goeval.errors",
    "InvalidParameterError": "goeval.errors",
    "OntologyError": "goeval.errors",
    "InformationAccretion": "goeval.information.accretion",
    "information_accretion": "goeval.information.accretion",
    "information_content": "goeval.information.accretion",
    "TermInformationContent": "goeval.information.content",
    "term_information_content": "goeval.information.content",
    "Ontology": "goeval.ontology",
    "build_ontology": "goeval.ontology",
    "ontology_from_edges": "goeval.ontology",
    "evaluate_terms": "goeval.evaluation.terms",
    "EvaluationResult": "goeval.evaluation.summary",
    "TimeSplitResult": "goeval.evaluation.summary",
    "load_results": "goeval.report.save",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports("goeval", _EXPORTS, globals())
