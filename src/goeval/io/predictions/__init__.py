"""Prediction files (CAFA format, or ``target term score`` tables): the one home of the format.

* :func:`read_predictions` reads a whole file (vectorized), and
  :func:`start_read_predictions` starts that read in a forked child;
* :func:`scan_predictions`, :func:`iter_prediction_batches` and
  :class:`PredictionBatches` read it in bounded memory, in parts of whole
  lines.

All of them apply one set of rules (:mod:`goeval.io.predictions.rules`: the
header lines, the ``END`` line, the reference line parser) and raise the same
:class:`~goeval.errors.InputFormatError` (file, line number, text) for the
same file.
"""

from __future__ import annotations

from goeval.io.predictions.batches import (
    PredictionBatches,
    PredictionScan,
    UngroupedPredictionsError,
    iter_prediction_batches,
    scan_predictions,
)
from goeval.io.predictions.reader import read_predictions, start_read_predictions

__all__ = [
    "read_predictions",
    "start_read_predictions",
    "PredictionScan",
    "PredictionBatches",
    "scan_predictions",
    "iter_prediction_batches",
    "UngroupedPredictionsError",
]
