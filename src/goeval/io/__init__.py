"""File input and output: the only part of goeval that touches the file system.

One module per input format, each with a small public surface:
:mod:`~goeval.io.obo` (ontologies), :mod:`~goeval.io.truth`
(``protein<TAB>term``), :mod:`~goeval.io.gaf`, :mod:`~goeval.io.predictions`
(CAFA predictions, whole or streamed), :mod:`~goeval.io.ia`,
:mod:`~goeval.io.idlist`, :mod:`~goeval.io.fasta`, :mod:`~goeval.io.hits`.
They share :mod:`~goeval.io.files` (opening, compression, atomic writes),
:mod:`~goeval.io.text` (the line rule), :mod:`~goeval.io.tsv` (the
vectorized parser) and :mod:`~goeval.io.pairs` (the tables they return);
:mod:`~goeval.io.kinds` is the one place that tells a file's kind. Outputs
are written by :mod:`~goeval.io.results`. Submodules are imported on demand,
so reading a table does not import the ontology parser and vice versa.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["RawOntology", "read_obo"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("goeval.io.obo"), name)
    raise AttributeError(f"module 'goeval.io' has no attribute {name!r}")
