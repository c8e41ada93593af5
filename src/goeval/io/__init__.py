"""File input and output: the only part of goeval that touches the file system.

Submodules: :mod:`~goeval.io.obo` (ontologies), :mod:`~goeval.io.tables`
(truth, GAF, predictions, IA), :mod:`~goeval.io.results` (outputs),
:mod:`~goeval.io.retrieval_lists`, :mod:`~goeval.io.biocreative`,
:mod:`~goeval.io.paths`. They are imported on demand, so reading a table
does not import the ontology parser and vice versa.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["RawOntology", "read_obo"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("goeval.io.obo"), name)
    raise AttributeError(f"module 'goeval.io' has no attribute {name!r}")
