"""Bundled example data (see ``data/cafa2_mfo/README.md`` for provenance)."""

from __future__ import annotations

from pathlib import Path

from goeval.errors import InvalidParameterError

__all__ = ["example_path", "EXAMPLES"]

_HERE = Path(__file__).parent

#: Names accepted by :func:`example_path`.
EXAMPLES = {
    "ontology": "cafa2_mfo/mfo_from_mfoa_mat.obo.gz",
    "truth": "cafa2_mfo/groundtruth_leafonly_MFO_NK.tsv",
    "predictions": "cafa2_mfo/BB4S_mfo_NK.tsv.gz",
    "ia": "cafa2_mfo/mfo_IA.tsv.gz",
    "targets": "cafa2_mfo/mfo_all_type1.txt",
}


def example_path(name: str) -> Path:
    """Path of a bundled example file.

    Parameters
    ----------
    name : {'ontology', 'truth', 'predictions', 'ia', 'targets'}
        The CAFA2 MFO no-knowledge slice (MIT licence): its ontology, leaf
        ground truth, BLAST baseline (BB4S) predictions, information
        accretion and target list.
    """
    try:
        return _HERE / EXAMPLES[name]
    except KeyError:
        raise InvalidParameterError(
            f"The 'name' parameter of example_path must be one of {sorted(EXAMPLES)}; got {name!r}."
        ) from None
