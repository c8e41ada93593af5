"""Former home of the streamed prediction readers, now in :mod:`goeval.io.predictions`.

Kept only so that code written against it goes on importing; new code
imports from :mod:`goeval.io.predictions`.
"""

from __future__ import annotations

from goeval.io.predictions import (
    PredictionBatches,
    PredictionScan,
    UngroupedPredictionsError,
    iter_prediction_batches,
    scan_predictions,
)

__all__ = ["PredictionScan", "scan_predictions", "iter_prediction_batches", "PredictionBatches",
           "UngroupedPredictionsError"]
