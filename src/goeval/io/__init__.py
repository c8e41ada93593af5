"""File input and output: the only part of goeval that touches the file system."""

from goeval.io.obo import RawOntology, read_obo

__all__ = ["RawOntology", "read_obo"]
