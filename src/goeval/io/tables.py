"""Former home of the table readers; its names now live in one module per format.

Kept only so that code written against it goes on importing: new code
imports from :mod:`goeval.io.truth`, :mod:`goeval.io.gaf`,
:mod:`goeval.io.predictions`, :mod:`goeval.io.ia`, :mod:`goeval.io.idlist`
and :mod:`goeval.io.pairs`.
"""

from __future__ import annotations

from goeval.io.gaf import DEFAULT_EVIDENCE, read_gaf
from goeval.io.ia import read_ia
from goeval.io.idlist import read_id_list
from goeval.io.pairs import PairTable
from goeval.io.predictions import read_predictions, start_read_predictions
from goeval.io.truth import read_truth

__all__ = [
    "PairTable",
    "read_truth",
    "read_gaf",
    "read_predictions",
    "read_ia",
    "read_id_list",
    "start_read_predictions",
    "DEFAULT_EVIDENCE",
]
