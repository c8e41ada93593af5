"""The frozen :class:`Ontology` and its small types: term statuses, namespace counts.

An :class:`Ontology` is built by :mod:`goeval.ontology.build`; it stores
itself as plain arrays (:meth:`Ontology.to_arrays`) for the compiled cache.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from goeval.errors import InvalidParameterError
from goeval.io.names import GO_LABELS
from goeval.io.obo import RawOntology
from goeval.lazy import LazyModule
from goeval.ontology.dag import closure

sp = LazyModule("scipy.sparse")  # imported by the first call that needs it (start-up: goeval.lazy)

__all__ = ["Ontology", "NamespaceStats", "GO_LABELS", "TermStatus", "NameSource"]

class TermStatus:
    """Codes returned by :meth:`Ontology.resolve` for each looked-up identifier."""

    PRIMARY = 0  #: a live term's primary id
    ALT_ID = 1  #: an ``alt_id`` mapped to its primary id
    REPLACED = 2  #: an obsolete term mapped through its single ``replaced_by``
    OBSOLETE = 3  #: an obsolete term without a single replacement (dropped)
    UNKNOWN = 4  #: not in the ontology (dropped)

    NAMES = ("primary", "alt_id", "replaced_by", "obsolete", "unknown")


@dataclass(frozen=True, kw_only=True)
class NamespaceStats:
    """Counts describing one namespace of a loaded ontology."""

    namespace: str
    label: str
    terms: int
    roots: tuple[str, ...]
    edges: dict[str, int]
    cross_namespace_edges_dropped: dict[str, int]
    alt_ids: int
    obsolete_terms: int
    max_generation: int


@dataclass(frozen=True, eq=False, kw_only=True)
class Ontology:
    """A directed acyclic graph of live terms with compact sparse structure.

    Attributes
    ----------
    ids : ndarray of str, shape (n_terms,)
        Primary identifiers, in index order.
    namespaces : tuple of str
        OBO namespace names, in the order of their index ranges.
    labels : tuple of str
        Short labels (``BPO``, ``MFO``, ``CCO`` for GO; else the namespace name).
    bounds : ndarray of int, shape (n_namespaces + 1,)
        Namespace ``j`` owns term indices ``bounds[j]:bounds[j + 1]``.
    parents : scipy.sparse.csr_array of bool, shape (n_terms, n_terms)
        ``parents[v, u]`` is true when ``u`` is a direct parent of ``v``
        through a followed relation.
    parent_relations : ndarray of int8, shape (parents.nnz,)
        The relation of each edge of ``parents`` (aligned with
        ``parents.indices``), as its position in ``relations``; an edge
        given by two relations has the first one of ``relations``.
    generation : ndarray of int32, shape (n_terms,)
        Longest path length from a root (roots: 0).
    relations : tuple of str
        Relations followed.
    subsets : dict of str to ndarray of int64
        The live terms of each OBO ``subset:`` (e.g. GO's ``gocheck_do_not_annotate``),
        sorted indices; see :meth:`subset`.
    stats : tuple of NamespaceStats
        Per-namespace counts (see ``goeval info``).
    diagnostics : dict
        Ontology-wide counts (obsolete terms, remaps, dropped edges...).
    """

    ids: np.ndarray
    namespaces: tuple[str, ...]
    labels: tuple[str, ...]
    bounds: np.ndarray
    parents: sp.csr_array
    parent_relations: np.ndarray
    generation: np.ndarray
    relations: tuple[str, ...]
    stats: tuple[NamespaceStats, ...]
    diagnostics: dict[str, Any]
    source: str = "<memory>"
    data_version: str | None = None
    subsets: dict[str, np.ndarray] = field(default_factory=dict)
    _index: dict[str, int] = field(default_factory=dict, repr=False)
    _redirect: dict[str, tuple[int, int]] = field(default_factory=dict, repr=False)
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)
    _raw: Any = field(default=None, repr=False)

    @property
    def names(self) -> np.ndarray:
        """Term names in index order (``''`` when absent); parsed on first use."""
        if "names" not in self._cache:
            lookup = self._raw.names() if self._raw is not None else {}
            self._cache["names"] = np.array([lookup.get(t, "") or "" for t in self.ids.tolist()], dtype=object)
            object.__setattr__(self, "_raw", None)  # names parsed: drop the source
        return self._cache["names"]

    @property
    def ancestors_csr(self) -> sp.csr_array:
        """Reflexive-transitive closure, bool CSR of shape (n_terms, n_terms).

        Row ``v`` holds ``v`` and all its ancestors. Computed on first use (one
        sparse product per generation) and kept; about (mean ancestors) x
        n_terms entries, never a dense term x term matrix.
        """
        if "closure" not in self._cache:
            nsv = self.namespace_of
            key = self.generation + (nsv * (int(self.generation.max()) + 1)).astype(np.int32)
            self._cache["closure"] = closure(self.parents, key)
        return self._cache["closure"]

    # ------------------------------------------------------------------ sizes
    @property
    def n_terms(self) -> int:
        """Number of live terms over all namespaces."""
        return int(self.ids.shape[0])

    def __len__(self) -> int:
        return self.n_terms

    def __repr__(self) -> str:
        parts = ", ".join(f"{s.label}: {s.terms}" for s in self.stats)
        return f"<Ontology {self.source!r} ({parts})>"

    # ------------------------------------------------------------- namespaces
    def namespace_index(self, name: str) -> int:
        """Position of a namespace given its label (``MFO``) or OBO name."""
        for j, (ns, lab) in enumerate(zip(self.namespaces, self.labels)):
            if name in (ns, lab) or name.upper() == lab.upper():
                return j
        choices = ", ".join(self.labels)
        raise InvalidParameterError(
            f"Unknown namespace {name!r}; this ontology has {choices}."
        )

    def namespace_slice(self, name: str | int) -> slice:
        """Index range of the terms of one namespace."""
        j = name if isinstance(name, (int, np.integer)) else self.namespace_index(name)
        return slice(int(self.bounds[j]), int(self.bounds[j + 1]))

    @property
    def namespace_of(self) -> np.ndarray:
        """Namespace position of every term, shape (n_terms,)."""
        return np.repeat(np.arange(len(self.namespaces)), np.diff(self.bounds))

    def roots(self, name: str | int | None = None) -> np.ndarray:
        """Indices of the terms without parents (in one namespace, or all)."""
        no_parent = np.flatnonzero(np.diff(self.parents.indptr) == 0)
        if name is None:
            return no_parent
        s = self.namespace_slice(name)
        return no_parent[(no_parent >= s.start) & (no_parent < s.stop)]

    # ---------------------------------------------------------------- lookup
    def index(self, term_id: str) -> int:
        """Index of a primary id (alt_ids and obsolete ids are not accepted here)."""
        try:
            return self._index[term_id]
        except KeyError:
            raise InvalidParameterError(f"Unknown term {term_id!r}.") from None

    def resolve(self, term_ids: Any) -> tuple[np.ndarray, np.ndarray]:
        """Map identifiers to term indices, following alt_id and replaced_by.

        Parameters
        ----------
        term_ids : sequence of str, length n
            Identifiers as found in an input file.

        Returns
        -------
        index : ndarray of int64, shape (n,)
            Term index, ``-1`` where dropped.
        status : ndarray of int8, shape (n,)
            A :class:`TermStatus` code per identifier.
        """
        n = len(term_ids)
        if n < 64:  # a few ids: the dictionaries directly
            idx = np.full(n, -1, dtype=np.int64)
            status = np.full(n, TermStatus.UNKNOWN, dtype=np.int8)
            get, redirect = self._index.get, self._redirect.get
            for i, t in enumerate(term_ids):
                k = get(t)
                if k is not None:
                    idx[i], status[i] = k, TermStatus.PRIMARY
                elif (r := redirect(t)) is not None:
                    idx[i], status[i] = r
            return idx, status
        return self._resolve_many(term_ids)

    def _resolve_many(self, term_ids: Any) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`resolve` through one hash lookup in Arrow (every known id: primary ids, then redirects)."""
        import pyarrow as pa  # deferred: pyarrow (~60 ms) only for long id lists; goeval info never needs it
        import pyarrow.compute as pc  # deferred: pyarrow (~60 ms) only for long id lists; goeval info never needs it

        from goeval.io.arrow import numpy_values, string_array

        if "resolve_table" not in self._cache:
            keys = list(self._index) + list(self._redirect)
            targets = np.fromiter(self._index.values(), np.int64, len(self._index))
            red = list(self._redirect.values())
            self._cache["resolve_table"] = (
                string_array(keys),
                np.r_[targets, np.array([r[0] for r in red], np.int64)],
                np.r_[np.full(targets.size, TermStatus.PRIMARY, np.int8), np.array([r[1] for r in red], np.int8)],
            )
        keys, targets, codes = self._cache["resolve_table"]
        ids = term_ids if isinstance(term_ids, (pa.Array, pa.ChunkedArray)) else string_array(term_ids)
        pos = pc.index_in(ids, value_set=keys)
        found = numpy_values(pc.is_valid(pos))
        where = numpy_values(pos, fill=0).astype(np.int64)
        idx = np.where(found, targets[where] if targets.size else -1, -1).astype(np.int64)
        status = np.where(found, codes[where] if codes.size else TermStatus.UNKNOWN, TermStatus.UNKNOWN).astype(np.int8)
        return idx, status

    # ------------------------------------------------------------- structure
    def ancestors(self, term: int | str, *, include_self: bool = True) -> np.ndarray:
        """Indices of the ancestors of a term (sorted)."""
        v = self.index(term) if isinstance(term, str) else int(term)
        a = self.ancestors_csr.indices[self.ancestors_csr.indptr[v] : self.ancestors_csr.indptr[v + 1]]
        return a if include_self else a[a != v]

    def subset(self, name: str) -> np.ndarray:
        """Indices (sorted) of the live terms tagged ``subset: name`` in the OBO file.

        Parameters
        ----------
        name : str
            A subset name, e.g. ``'gocheck_do_not_annotate'``.

        Returns
        -------
        ndarray of int64
            Empty when no live term carries the subset.
        """
        return self.subsets.get(name, np.zeros(0, dtype=np.int64))

    def parents_of(self, term: int | str) -> np.ndarray:
        """Indices of the direct parents of a term."""
        v = self.index(term) if isinstance(term, str) else int(term)
        return self.parents.indices[self.parents.indptr[v] : self.parents.indptr[v + 1]]

    def to_networkx(self, namespace: str | None = None):  # noqa: ANN201 - networkx type
        """Return the DAG (or one namespace) as a ``networkx.DiGraph``.

        Edges point child -> parent, as in OBO and obonet; node attribute
        ``name`` and ``namespace``.
        """
        import networkx as nx  # imported here: a run never needs it

        s = slice(0, self.n_terms) if namespace is None else self.namespace_slice(namespace)
        g = nx.DiGraph()
        nsof = self.namespace_of
        for v in range(s.start, s.stop):
            g.add_node(self.ids[v], name=self.names[v], namespace=self.namespaces[nsof[v]])
        coo = self.parents[s, s].tocoo()
        g.add_edges_from(zip(self.ids[coo.row + s.start], self.ids[coo.col + s.start]))
        return g

    # --------------------------------------------------------- serialization
    def to_arrays(self) -> dict[str, np.ndarray]:
        """Every field as named numpy arrays of plain dtypes (no Python objects).

        The inverse of :meth:`from_arrays`: ``np.savez`` can store the result
        with ``allow_pickle=False``. Strings (ids, names, redirected ids) are
        one UTF-8 buffer each with their lengths; the scalar fields, the
        namespace statistics and the diagnostics are one JSON text
        (``"meta"``). The term names are stored parsed (``"names"``) when
        they were asked for already, else as the OBO lines they are parsed
        from (``"name_lines"``, parsed on first use exactly as for a fresh
        build, which costs about 0.4 s on GO), so an ontology read back
        never needs the OBO file. The ancestor closure is stored too
        (``"closure_indices"``, ``"closure_indptr"``; computed here if it was
        not yet): about 0.05 s to compute on GO and 0.2 s on a 40,000-term
        ontology of long paths, against a few milliseconds to read back.
        """
        meta = {
            "namespaces": list(self.namespaces),
            "labels": list(self.labels),
            "relations": list(self.relations),
            "stats": [{**s.__dict__, "roots": list(s.roots)} for s in self.stats],
            "diagnostics": self.diagnostics,
            "source": self.source,
            "data_version": self.data_version,
            "subsets": {k: v.tolist() for k, v in self.subsets.items()},
        }
        redirect = self._redirect
        targets = np.fromiter((v[0] for v in redirect.values()), np.int64, len(redirect))
        status = np.fromiter((v[1] for v in redirect.values()), np.int8, len(redirect))
        p = self.parents
        return {
            "meta": _pack_text(json.dumps(meta, ensure_ascii=False, allow_nan=False)),
            **_pack_strings("ids", self.ids.tolist()),
            **self._names_arrays(),
            **_pack_strings("redirect_ids", list(redirect)),
            "redirect_targets": targets,
            "redirect_status": status,
            "bounds": self.bounds,
            "generation": self.generation,
            "parents_data": p.data,
            "parents_indices": p.indices,
            "parents_indptr": p.indptr,
            "parent_relations": self.parent_relations,
            "closure_indices": self.ancestors_csr.indices,
            "closure_indptr": self.ancestors_csr.indptr,
        }

    def _names_arrays(self) -> dict[str, np.ndarray]:
        raw = self._raw
        if "names" in self._cache or not isinstance(raw, NameSource) or raw.fallback is not None:
            return _pack_strings("names", self.names.tolist())
        joined, count = raw.stored if raw.stored is not None else ("\n".join(raw.name_lines), len(raw.name_lines))
        return {"name_lines": _pack_text(joined), "name_lines_count": np.array([count], dtype=np.int64)}

    @classmethod
    def from_arrays(cls, arrays: Any, *, source: str | None = None) -> Ontology:
        """The :class:`Ontology` stored by :meth:`to_arrays` (equal in every field).

        Parameters
        ----------
        arrays : mapping of str to ndarray
            As returned by :meth:`to_arrays` (other keys are ignored).
        source : str, optional
            Replaces the stored ``source`` (the same content read from another path).

        Raises
        ------
        ValueError
            A missing array or arrays that do not fit together (a damaged store).
        """
        try:
            meta = json.loads(_unpack_text(arrays["meta"]))
            ids = _unpack_strings(arrays, "ids")
            n = len(ids)
            if "names" in arrays:
                names, name_source = _unpack_strings(arrays, "names"), None
            else:
                names, name_source = None, NameSource.from_stored(arrays["name_lines"], arrays["name_lines_count"])
            redirect_ids = _unpack_strings(arrays, "redirect_ids")
            targets, status = arrays["redirect_targets"], arrays["redirect_status"]
            bounds, generation = arrays["bounds"], arrays["generation"]
            data, indices, indptr = arrays["parents_data"], arrays["parents_indices"], arrays["parents_indptr"]
            relation_codes = arrays["parent_relations"]
            n_ns = len(meta["namespaces"])
            stored_subsets = meta["subsets"]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"incomplete ontology arrays: {exc!r}") from None
        if ((names is not None and len(names) != n) or targets.shape != (len(redirect_ids),) or status.shape != targets.shape
                or bounds.shape != (n_ns + 1,) or generation.shape != (n,) or indptr.shape != (n + 1,)
                or data.shape != indices.shape or relation_codes.shape != indices.shape
                or int(indptr[-1]) != indices.size or int(bounds[-1]) != n
                or len(meta["labels"]) != n_ns or len(meta["stats"]) != n_ns
                or (indices.size and (int(indices.min()) < 0 or int(indices.max()) >= n))
                or not _valid_subsets(stored_subsets, n)):
            raise ValueError("ontology arrays of inconsistent shapes")
        _check_graph(bounds, generation, data, indices, indptr)
        if relation_codes.dtype != np.int8 or (relation_codes.size and (
                int(relation_codes.min()) < 0 or int(relation_codes.max()) >= len(meta["relations"]))):
            raise ValueError("the parents' relation codes are not positions in the relations followed")
        index = dict(zip(ids, range(n)))
        redirect = dict(zip(redirect_ids, zip(targets.tolist(), status.tolist())))
        _check_terms(arrays, index, redirect, targets, status, meta)
        parents = sp.csr_array((n, n), dtype=data.dtype)
        parents.data, parents.indices, parents.indptr = data, indices, indptr  # dtypes kept as stored
        ids_array = np.array(ids, dtype=object)
        onto = cls(
            ids=ids_array,
            namespaces=tuple(meta["namespaces"]),
            labels=tuple(meta["labels"]),
            bounds=bounds,
            parents=parents,
            parent_relations=relation_codes,
            generation=generation,
            relations=tuple(meta["relations"]),
            stats=tuple(NamespaceStats(**{**s, "roots": tuple(s["roots"])}) for s in meta["stats"]),
            diagnostics=meta["diagnostics"],
            source=meta["source"] if source is None else source,
            data_version=meta["data_version"],
            subsets={k: np.asarray(v, dtype=np.int64) for k, v in meta["subsets"].items()},
            _index=index,
            _redirect=redirect,
            _raw=name_source,
        )
        if names is not None:
            onto._cache["names"] = np.array(names, dtype=object)
        if "closure_indices" in arrays:  # (stores of format 3 have none: computed on first use)
            onto._cache["closure"] = _stored_closure(arrays["closure_indices"], arrays["closure_indptr"], parents)
        return onto


# ------------------------------------------------------ checking stored arrays
def _stored_closure(indices: np.ndarray, indptr: np.ndarray, parents: sp.csr_array) -> sp.csr_array:
    """The stored ancestor closure as :attr:`Ontology.ancestors_csr` makes it, after the checks that keep a
    damaged store from indexing out of bounds: CSR rows of increasing distinct terms in ``[0, n)``, each
    holding its own term (reflexive) and its parents. (That each row holds its parents' rows is not checked:
    it costs what computing the closure costs; the file is trusted as the rest of it is.)"""
    n = parents.shape[0]
    if (indices.dtype.kind != "i" or indptr.dtype.kind != "i" or indices.ndim != 1 or indptr.shape != (n + 1,)
            or int(indptr[0]) != 0 or int(indptr[-1]) != indices.size):
        raise ValueError("stored ancestor closure of inconsistent shapes")
    lens = np.diff(indptr)
    if (lens < 1).any():
        raise ValueError("stored ancestor closure with an empty row")
    if indices.size and (int(indices.min()) < 0 or int(indices.max()) >= n):
        raise ValueError("stored ancestor closure naming terms out of range")
    rising = np.diff(indices) > 0
    rising[indptr[1:-1] - 1] = True  # (each row starts afresh)
    rows = np.repeat(np.arange(n), lens)
    if not rising.all() or (np.bincount(rows[indices == rows], minlength=n) != 1).any():
        raise ValueError("stored ancestor closure with unsorted or repeated terms, or a term not its own ancestor")
    keys = rows.astype(np.int64) * n + indices  # ascending: rows in order, terms rising within each
    edges = np.repeat(np.arange(n, dtype=np.int64), np.diff(parents.indptr)) * n + parents.indices
    at = np.minimum(np.searchsorted(keys, edges), max(keys.size - 1, 0))
    if edges.size and (keys[at] != edges).any():
        raise ValueError("stored ancestor closure without a term's parent")
    return sp.csr_array((np.ones(indices.size, bool), indices, indptr), shape=(n, n))


def _valid_subsets(subsets: Any, n: int) -> bool:
    """Stored subsets are name -> ascending distinct term indices in ``[0, n)``."""
    if not isinstance(subsets, dict):
        return False
    for values in subsets.values():
        if not isinstance(values, list) or not all(isinstance(v, int) and 0 <= v < n for v in values):
            return False
        if any(a >= b for a, b in zip(values, values[1:])):
            return False
    return True


def _check_graph(bounds: np.ndarray, generation: np.ndarray, data: np.ndarray, indices: np.ndarray,
                 indptr: np.ndarray) -> None:
    """Check stored arrays (shapes already checked) are a graph a build can make.

    The namespace bounds and the parents' CSR rows run from 0 and never go
    back; each row lists distinct parents in increasing order, all in the
    term's namespace; every term's generation is 0 for a root and one more
    than its parents' largest otherwise, so every edge goes to a lower
    generation and the parents form no cycle; and the terms of a namespace
    are in generation order (the ancestor closure relies on it).

    Raises
    ------
    ValueError
        The first of these that does not hold.
    """
    if (any(a.dtype.kind != "i" for a in (bounds, generation, indices, indptr)) or data.dtype != np.bool_
            or indices.ndim != 1):
        raise ValueError("ontology arrays of unexpected types (signed integer indices and boolean parents expected)")
    counts, sizes = np.diff(indptr), np.diff(bounds)
    if int(indptr[0]) != 0 or (counts < 0).any() or int(bounds[0]) != 0 or (sizes < 0).any() or not data.all():
        raise ValueError("the parent rows or the namespace bounds do not run forward from 0")
    rows = np.repeat(np.arange(counts.size), counts)
    namespace = np.repeat(np.arange(sizes.size), sizes)
    if (np.diff(indices) <= 0)[rows[1:] == rows[:-1]].any():
        raise ValueError("a term lists a parent twice, or its parents out of order")
    if (namespace[indices] != namespace[rows]).any():
        raise ValueError("an edge goes across namespaces")
    expected = np.zeros(counts.size, np.int64)
    if indices.size:
        has = counts > 0
        expected[has] = np.maximum.reduceat(generation[indices].astype(np.int64), indptr[:-1][has]) + 1
    if not np.array_equal(expected, generation):
        raise ValueError("the generations do not fit the parents (the parents form a cycle, or the generations "
                         "are another graph's)")
    if ((np.diff(generation) < 0) & (namespace[1:] == namespace[:-1])).any():
        raise ValueError("the terms of a namespace are not in generation order")


def _check_terms(arrays: Any, index: dict[str, int], redirect: dict[str, Any], targets: np.ndarray,
                 status: np.ndarray, meta: dict[str, Any]) -> None:
    """Check the stored ids, redirects and namespaces are what a build makes (shapes already checked).

    Ids are distinct, non-empty and without white space (as the OBO reader
    reads them); a redirected id is no live id, and it leads to a term
    (alt_id, replaced_by) or to a drop (obsolete, target -1); namespaces are
    distinct names, and each one's statistics are for its own terms.

    Raises
    ------
    ValueError
        The first of these that does not hold.
    """
    if targets.dtype.kind != "i" or status.dtype.kind != "i":
        raise ValueError("ontology arrays of unexpected types (signed integer redirects expected)")
    for name, values in (("ids", index), ("redirect_ids", redirect)):
        lengths = arrays[f"{name}_lengths"]
        if len(values) != lengths.size:
            raise ValueError(f"a term id is stored twice ({name})")
        if (lengths.size and int(lengths.min()) == 0) or _NOT_IN_AN_ID.search(_unpack_text(arrays[name])):
            raise ValueError(f"an empty term id, or one with a space ({name})")
    if not index.keys().isdisjoint(redirect):
        raise ValueError("an id is both a live term and redirected")
    to_term = (status == TermStatus.ALT_ID) | (status == TermStatus.REPLACED)
    dropped = status == TermStatus.OBSOLETE
    if not (to_term | dropped).all() or (targets[dropped] != -1).any() or (
            targets[to_term].size and (int(targets[to_term].min()) < 0 or int(targets[to_term].max()) >= len(index))):
        raise ValueError("a redirect of an unknown kind or to a term out of range")
    names, bounds = meta["namespaces"], arrays["bounds"]
    if len(set(names)) != len(names) or not all(isinstance(x, str) for x in [*names, *meta["labels"]]):
        raise ValueError("namespaces that are not distinct names")
    for j, s in enumerate(meta["stats"]):
        terms = int(bounds[j + 1] - bounds[j])
        if not isinstance(s, dict) or s.get("namespace") != names[j] or s.get("terms") != terms:
            raise ValueError(f"the statistics of namespace {j} are not its own")


_NOT_IN_AN_ID = re.compile(r"\s")  # what the OBO reader refuses in an id (it splits values as str.split)


# -------------------------------------------------------------- serialization
def _pack_text(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)


def _unpack_text(array: np.ndarray) -> str:
    if array.dtype != np.uint8 or array.ndim != 1:
        raise ValueError("a text array must be one-dimensional uint8")
    return array.tobytes().decode("utf-8")


def _pack_strings(name: str, strings: list[str]) -> dict[str, np.ndarray]:
    """``strings`` as one UTF-8 buffer (``name``) and their lengths in characters (``name_lengths``)."""
    return {name: _pack_text("".join(strings)),
            f"{name}_lengths": np.fromiter(map(len, strings), np.int64, len(strings))}


def _unpack_strings(arrays: Any, name: str) -> list[str]:
    text, lengths = _unpack_text(arrays[name]), arrays[f"{name}_lengths"]
    if lengths.ndim != 1 or (lengths.size and int(lengths.min()) < 0) or int(lengths.sum()) != len(text):
        raise ValueError(f"the lengths of {name!r} do not match its text")
    ends = np.cumsum(lengths).tolist()
    return [text[a:b] for a, b in zip([0, *ends[:-1]], ends)]


class NameSource:
    """Keeps only what is needed to parse the term names later."""

    def __init__(self, raw: RawOntology) -> None:
        self.name_lines = raw.name_lines
        self.fallback = None if raw.name_lines is not None else {t["id"]: t.get("name", "") for t in raw.terms}
        self.stored: tuple[str, int] | None = None  # name lines joined by newlines, and their count

    @classmethod
    def from_stored(cls, text: np.ndarray, count: np.ndarray) -> NameSource:
        """The name lines stored by :meth:`Ontology.to_arrays` (checked now, split on first use)."""
        joined = _unpack_text(text)
        if count.shape != (1,) or int(count[0]) != (joined.count("\n") + 1 if joined or count[0] else 0):
            raise ValueError("the name lines do not match their count")
        source = cls(RawOntology(header={}, terms=[], name_lines=[]))
        source.name_lines, source.stored = None, (joined, int(count[0]))
        return source

    def lines(self) -> list[str] | None:
        """The name lines (None when the names come from parsed stanzas)."""
        if self.stored is not None:
            joined, count = self.stored
            return joined.split("\n") if count else []
        return self.name_lines

    def names(self) -> dict[str, str]:
        if self.fallback is not None:
            return self.fallback
        return RawOntology(header={}, terms=[], name_lines=self.lines()).names()
