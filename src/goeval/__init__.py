"""goeval: ontology-aware evaluation of protein function prediction.

The pipeline, one module per stage::

    io -> ontology -> annotations (propagation) -> ia -> sweep -> metrics -> report / cli

Quick start
-----------
>>> import goeval
>>> onto = goeval.load_ontology(goeval.example_path("ontology"))     # doctest: +SKIP
>>> result = goeval.evaluate(onto, truth="truth.tsv", predictions=["m.tsv"])  # doctest: +SKIP
>>> result.summary                                                    # doctest: +SKIP
"""

from __future__ import annotations

__version__ = "0.1.0"

from goeval.annotations import Annotations, is_consistent, map_table, propagate
from goeval.api import evaluate, load_annotations, load_ia, load_ontology, load_predictions, load_targets
from goeval.data import example_path
from goeval.errors import GoevalError, GoevalWarning, InputFormatError, InvalidParameterError, OntologyError
from goeval.ia import InformationAccretion, information_accretion, information_content
from goeval.ontology import Ontology, build_ontology, ontology_from_edges

__all__ = [
    "Annotations",
    "GoevalError",
    "GoevalWarning",
    "InformationAccretion",
    "InputFormatError",
    "InvalidParameterError",
    "Ontology",
    "OntologyError",
    "build_ontology",
    "example_path",
    "information_accretion",
    "information_content",
    "is_consistent",
    "evaluate",
    "load_annotations",
    "load_targets",
    "load_ia",
    "load_ontology",
    "load_predictions",
    "map_table",
    "ontology_from_edges",
    "propagate",
]
