"""The frozen ontology: integer term indices, namespaces, sparse DAG, closure.

Terms are numbered namespace by namespace (one contiguous range of indices each) and,
inside a namespace, by *generation* (the length of the longest path from a
root), so every parent has a smaller index than each of its children.
Edges point child -> parent as in OBO (``is_a``); :meth:`Ontology.ancestors`
hides that convention.

* :mod:`~goeval.ontology.core` - :class:`Ontology`, :class:`TermStatus`,
  :class:`NamespaceStats`;
* :mod:`~goeval.ontology.build` - :func:`build_ontology` (from parsed OBO
  stanzas) and :func:`ontology_from_edges`;
* :mod:`~goeval.ontology.dag` - the sparse DAG algorithms they use
  (generations, ancestor closure).

References
----------
Clark WT, Radivojac P (2013). Information-theoretic evaluation of predicted
ontological annotations. Bioinformatics 29(13):i53-i61, §2-3.
"""

from typing import TYPE_CHECKING, Any

from goeval.ontology.core import GO_LABELS, NamespaceStats, Ontology, TermStatus

if TYPE_CHECKING:
    from goeval.ontology.build import build_ontology, ontology_from_edges

__all__ = ["Ontology", "NamespaceStats", "build_ontology", "ontology_from_edges", "GO_LABELS", "TermStatus"]


def __getattr__(name: str) -> Any:
    """The builders (and with them the OBO parser's module), imported on first use: a run that reads the
    compiled ontology never builds one (PEP 562)."""
    if name in ("build_ontology", "ontology_from_edges"):
        from goeval.ontology import build

        return getattr(build, name)
    raise AttributeError(f"module 'goeval.ontology' has no attribute {name!r}")
