"""goeval.io.tables and goeval.io.stream only re-export the names that moved to one module per format."""

from __future__ import annotations

import goeval.io.predictions as predictions
from goeval.io import gaf, ia, idlist, pairs, stream, tables, truth


def test_former_names_are_the_new_objects():
    assert tables.read_truth is truth.read_truth and tables.read_gaf is gaf.read_gaf
    assert tables.read_ia is ia.read_ia and tables.read_id_list is idlist.read_id_list
    assert tables.PairTable is pairs.PairTable and tables.DEFAULT_EVIDENCE is gaf.DEFAULT_EVIDENCE
    assert tables.read_predictions is predictions.read_predictions
    assert tables.start_read_predictions is predictions.start_read_predictions
    for name in stream.__all__:
        assert getattr(stream, name) is getattr(predictions, name)
