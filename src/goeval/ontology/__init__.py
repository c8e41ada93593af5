"""The frozen ontology: integer term indices, namespaces, sparse DAG, closure.

Terms are numbered namespace by namespace (one contiguous block each) and,
inside a namespace, by *generation* (the length of the longest path from a
root), so every parent has a smaller index than each of its children.
Edges point child -> parent as in OBO (``is_a``); :meth:`Ontology.ancestors`
hides that convention.

References
----------
Clark WT, Radivojac P (2013). Information-theoretic evaluation of predicted
ontological annotations. Bioinformatics 29(13):i53-i61, §2-3.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from goeval.sparse import gather_rows
from goeval.errors import InvalidParameterError, OntologyError
from goeval.io.obo import RawOntology

__all__ = ["Ontology", "NamespaceStats", "build_ontology", "ontology_from_edges", "GO_LABELS", "TermStatus"]

#: Short labels of the three GO namespaces (CAFA convention).
GO_LABELS = {
    "biological_process": "BPO",
    "molecular_function": "MFO",
    "cellular_component": "CCO",
}
_GO_ORDER = ("biological_process", "molecular_function", "cellular_component")


class TermStatus:
    """Codes returned by :meth:`Ontology.resolve` for each looked-up identifier."""

    PRIMARY = 0  #: a live term's primary id
    ALT_ID = 1  #: an ``alt_id`` mapped to its primary id
    REPLACED = 2  #: an obsolete term mapped through its single ``replaced_by``
    OBSOLETE = 3  #: an obsolete term without a single replacement (dropped)
    UNKNOWN = 4  #: not in the ontology (dropped)

    NAMES = ("primary", "alt_id", "replaced_by", "obsolete", "unknown")


@dataclass(frozen=True)
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


@dataclass(frozen=True, eq=False)
class Ontology:
    """A directed acyclic graph of live terms with compact sparse structure.

    Attributes
    ----------
    ids : ndarray of str, shape (n_terms,)
        Primary identifiers, in index order.
    namespaces : tuple of str
        OBO namespace names, in block order.
    labels : tuple of str
        Short labels (``BPO``, ``MFO``, ``CCO`` for GO; else the namespace name).
    bounds : ndarray of int, shape (n_namespaces + 1,)
        Namespace ``j`` owns term indices ``bounds[j]:bounds[j + 1]``.
    parents : scipy.sparse.csr_array of bool, shape (n_terms, n_terms)
        ``parents[v, u]`` is true when ``u`` is a direct parent of ``v``
        through a followed relation.
    generation : ndarray of int32, shape (n_terms,)
        Longest path length from a root (roots: 0).
    relations : tuple of str
        Relations followed.
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
    generation: np.ndarray
    relations: tuple[str, ...]
    stats: tuple[NamespaceStats, ...]
    diagnostics: dict[str, Any]
    source: str = "<memory>"
    data_version: str | None = None
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
            self._cache["closure"] = _closure(self.parents, key)
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
        import pyarrow as pa
        import pyarrow.compute as pc

        if "resolve_table" not in self._cache:
            keys = list(self._index) + list(self._redirect)
            targets = np.fromiter(self._index.values(), np.int64, len(self._index))
            red = list(self._redirect.values())
            self._cache["resolve_table"] = (
                pa.array(keys, pa.string()),
                np.r_[targets, np.array([r[0] for r in red], np.int64)],
                np.r_[np.full(targets.size, TermStatus.PRIMARY, np.int8), np.array([r[1] for r in red], np.int8)],
            )
        keys, targets, codes = self._cache["resolve_table"]
        ids = term_ids if isinstance(term_ids, (pa.Array, pa.ChunkedArray)) else pa.array(
            np.asarray(term_ids, dtype=object), pa.string())
        pos = pc.index_in(ids, value_set=keys).to_numpy(zero_copy_only=False)
        found = ~np.isnan(pos) if pos.dtype.kind == "f" else np.ones(pos.size, bool)
        where = np.where(found, pos, 0).astype(np.int64)
        idx = np.where(found, targets[where] if targets.size else -1, -1).astype(np.int64)
        status = np.where(found, codes[where] if codes.size else TermStatus.UNKNOWN, TermStatus.UNKNOWN).astype(np.int8)
        return idx, status

    # ------------------------------------------------------------- structure
    def ancestors(self, term: int | str, *, include_self: bool = True) -> np.ndarray:
        """Indices of the ancestors of a term (sorted)."""
        v = self.index(term) if isinstance(term, str) else int(term)
        a = self.ancestors_csr.indices[self.ancestors_csr.indptr[v] : self.ancestors_csr.indptr[v + 1]]
        return a if include_self else a[a != v]

    def parents_of(self, term: int | str) -> np.ndarray:
        """Indices of the direct parents of a term."""
        v = self.index(term) if isinstance(term, str) else int(term)
        return self.parents.indices[self.parents.indptr[v] : self.parents.indptr[v + 1]]

    def to_networkx(self, namespace: str | None = None):  # noqa: ANN201 - networkx type
        """Return the DAG (or one namespace) as a ``networkx.DiGraph``.

        Edges point child -> parent, as in OBO and obonet; node attribute
        ``name`` and ``namespace``.
        """
        import networkx as nx

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
        never needs the OBO file. The ancestor closure is not stored (it is
        recomputed on first use).
        """
        meta = {
            "namespaces": list(self.namespaces),
            "labels": list(self.labels),
            "relations": list(self.relations),
            "stats": [{**s.__dict__, "roots": list(s.roots)} for s in self.stats],
            "diagnostics": self.diagnostics,
            "source": self.source,
            "data_version": self.data_version,
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
        }

    def _names_arrays(self) -> dict[str, np.ndarray]:
        raw = self._raw
        if "names" in self._cache or not isinstance(raw, _NameSource) or raw.fallback is not None:
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
                names, name_source = None, _NameSource.from_stored(arrays["name_lines"], arrays["name_lines_count"])
            redirect_ids = _unpack_strings(arrays, "redirect_ids")
            targets, status = arrays["redirect_targets"], arrays["redirect_status"]
            bounds, generation = arrays["bounds"], arrays["generation"]
            data, indices, indptr = arrays["parents_data"], arrays["parents_indices"], arrays["parents_indptr"]
            n_ns = len(meta["namespaces"])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"incomplete ontology arrays: {exc!r}") from None
        if ((names is not None and len(names) != n) or targets.shape != (len(redirect_ids),) or status.shape != targets.shape
                or bounds.shape != (n_ns + 1,) or generation.shape != (n,) or indptr.shape != (n + 1,)
                or data.shape != indices.shape or int(indptr[-1]) != indices.size or int(bounds[-1]) != n
                or len(meta["labels"]) != n_ns or len(meta["stats"]) != n_ns
                or (indices.size and (int(indices.min()) < 0 or int(indices.max()) >= n))):
            raise ValueError("ontology arrays of inconsistent shapes")
        parents = sp.csr_array((n, n), dtype=data.dtype)
        parents.data, parents.indices, parents.indptr = data, indices, indptr  # dtypes kept as stored
        ids_array = np.array(ids, dtype=object)
        onto = cls(
            ids=ids_array,
            namespaces=tuple(meta["namespaces"]),
            labels=tuple(meta["labels"]),
            bounds=bounds,
            parents=parents,
            generation=generation,
            relations=tuple(meta["relations"]),
            stats=tuple(NamespaceStats(**{**s, "roots": tuple(s["roots"])}) for s in meta["stats"]),
            diagnostics=meta["diagnostics"],
            source=meta["source"] if source is None else source,
            data_version=meta["data_version"],
            _index=dict(zip(ids, range(n))),
            _redirect=dict(zip(redirect_ids, zip(targets.tolist(), status.tolist()))),
            _raw=name_source,
        )
        if names is not None:
            onto._cache["names"] = np.array(names, dtype=object)
        return onto


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


# ---------------------------------------------------------------------- build
class _NameSource:
    """Keeps only what is needed to parse the term names later."""

    def __init__(self, raw: RawOntology) -> None:
        self.name_lines = raw.name_lines
        self.fallback = None if raw.name_lines is not None else {t["id"]: t.get("name", "") for t in raw.terms}
        self.stored: tuple[str, int] | None = None  # name lines joined by newlines, and their count

    @classmethod
    def from_stored(cls, text: np.ndarray, count: np.ndarray) -> _NameSource:
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


def _closure(parents: sp.csr_array, generation: np.ndarray) -> sp.csr_array:
    """Reflexive-transitive closure, one sparse product per generation.

    Indices are sorted by generation, so the rows of generation ``g`` form a
    contiguous block whose parents all lie in earlier, finished blocks.
    """
    n = parents.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    chunks: list[np.ndarray] = []
    done = 0  # rows [0, done) are complete
    nnz = 0
    cuts = np.flatnonzero(np.diff(generation)) + 1
    for start, stop in zip(np.r_[0, cuts], np.r_[cuts, n]):
        start, stop = int(start), int(stop)
        if start == 0 or parents[start:stop].nnz == 0:
            block = sp.csr_array(
                (np.ones(stop - start, np.int8), np.arange(start, stop), np.arange(stop - start + 1)),
                shape=(stop - start, n),
            )
        else:
            ind = np.concatenate(chunks) if chunks else np.zeros(0, np.int64)
            ptr = np.concatenate([indptr[: done + 1], np.full(n - done, nnz)])
            a = sp.csr_array((np.ones(ind.size, np.int8), ind, ptr), shape=(n, n))
            p = parents[start:stop].astype(np.int8)
            eye = sp.csr_array(
                (np.ones(stop - start, np.int8), np.arange(start, stop), np.arange(stop - start + 1)),
                shape=(stop - start, n),
            )
            block = (p @ a + eye).tocsr()
            block.sort_indices()
        chunks.append(block.indices.astype(np.int64))
        indptr[start + 1 : stop + 1] = nnz + block.indptr[1:]
        nnz += block.indices.size
        done = stop
    ind = np.concatenate(chunks).astype(np.int32)
    return sp.csr_array((np.ones(ind.size, bool), ind, indptr), shape=(n, n))


def _generations(parents: sp.csr_array) -> np.ndarray:
    """Longest-path depth of every node (Kahn's algorithm, one step per level).

    Returns -1 for nodes on or below a cycle.
    """
    n = parents.shape[0]
    children = parents.T.tocsr()
    waiting = np.diff(parents.indptr).astype(np.int64)
    gen = np.full(n, -1, dtype=np.int32)
    frontier = np.flatnonzero(waiting == 0)
    g = 0
    while frontier.size:
        gen[frontier] = g
        _lens, kids = gather_rows(children.indptr, children.indices, frontier)
        if kids.size == 0:
            break
        uniq, cnt = np.unique(kids, return_counts=True)
        waiting[uniq] -= cnt
        frontier = uniq[waiting[uniq] == 0]
        g += 1
    return gen


def _raise_cycle(ids: list[str], rows: np.ndarray, cols: np.ndarray, bad: np.ndarray, source: str) -> None:
    import networkx as nx

    badset = set(bad.tolist())
    g = nx.DiGraph()
    g.add_edges_from((ids[r], ids[c]) for r, c in zip(rows, cols) if r in badset and c in badset)
    try:
        cycle = nx.find_cycle(g)
        terms = [u for u, _ in cycle]
    except nx.NetworkXNoCycle:  # pragma: no cover - cannot happen
        terms = [ids[i] for i in bad[:10]]
    shown = " -> ".join(terms[:12] + [terms[0]])
    raise OntologyError(
        f"{source}: the followed relations form a cycle: {shown}. "
        "Remove one of these edges or choose other --relations."
    )


@dataclass
class _Edges:
    """Followed edges between live terms (temporary indices) and what was dropped."""

    child: np.ndarray  # int64, one per distinct (child, parent) pair
    parent: np.ndarray
    relation: np.ndarray  # position in ``relations`` of the first relation giving the pair
    not_followed: Counter[str]
    unknown_target: Counter[str]
    cross: Counter[tuple[int, str]]  # (namespace position, relation) -> edges dropped


@dataclass
class _Order:
    """Final term order (namespace block, generation, id) and the parent matrix in it."""

    ids: np.ndarray
    nsv: np.ndarray
    generation: np.ndarray
    bounds: np.ndarray
    parents: sp.csr_array
    new_of_old: np.ndarray


@dataclass
class _Redirects:
    """alt_id and obsolete-id lookups with their counts."""

    redirect: dict[str, tuple[int, int]]
    alt_count: np.ndarray  # per namespace
    obsolete_ns: np.ndarray  # per namespace
    counts: dict[str, int]
    conflicts: dict[str, Any]


def _check_relations(relations: tuple[str, ...]) -> None:
    if not relations:
        raise InvalidParameterError(
            "The 'relations' parameter of load_ontology must name at least one relation; got none.")


def _fallback_namespace(raw: RawOntology) -> str:
    """``default-namespace`` of the header, else ``ontology``, else ``'ontology'``."""
    default_ns = raw.header.get("default-namespace")
    if isinstance(default_ns, list):
        default_ns = default_ns[0] if default_ns else None
    return default_ns or raw.header.get("ontology") or "ontology"


def _split_live(raw: RawOntology) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """Live stanzas (file order) and obsolete ones by id; a repeated id is an error."""
    src = raw.source
    live: list[dict[str, Any]] = []
    obsolete: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    for term in raw.terms:
        tid = term["id"]
        if tid in seen:
            lines = raw.diagnostics.get("duplicate_id_lines", {}).get(tid)
            where = f" (its 'id:' lines: {', '.join(map(str, lines))})" if lines else ""
            raise OntologyError(f"{src}: term {tid!r} is defined by more than one [Term] stanza{where}.")
        seen.add(tid)
        if str(term.get("is_obsolete", "false")).lower() == "true":
            obsolete[tid] = term
        else:
            live.append(term)
    if not live:
        raise OntologyError(f"{src}: no live (non-obsolete) [Term] stanza; is this an OBO ontology?")
    return live, obsolete


def _namespaces(live: list[dict[str, Any]], fallback_ns: str) -> tuple[list[str], np.ndarray]:
    """Namespace order (GO's three first) and each live term's namespace position."""
    ns_of_term = [t.get("namespace") or fallback_ns for t in live]
    present = list(dict.fromkeys(ns_of_term))
    ns_order = [n for n in _GO_ORDER if n in present] + [n for n in present if n not in _GO_ORDER]
    ns_pos = {n: j for j, n in enumerate(ns_order)}
    return ns_order, np.array([ns_pos[n] for n in ns_of_term], dtype=np.int64)


def _raw_edges(live: list[dict[str, Any]], src: str) -> tuple[list[int], list[str], list[str]]:
    """(child position, parent id, relation) of every ``is_a`` and ``relationship`` tag."""
    e_child = [i for i, t in enumerate(live) for _ in t.get("is_a", ())]
    e_parent = [(p.split()[0] if p else p) for t in live for p in t.get("is_a", ())]
    e_rel = ["is_a"] * len(e_child)
    for i, t in enumerate(live):
        for rel in t.get("relationship", ()):
            parts = rel.split()
            if len(parts) != 2:
                raise OntologyError(
                    f"{src}: term {t['id']!r} has 'relationship: {rel}'; a relationship names a relation "
                    "and one target term.")
            e_child.append(i)
            e_rel.append(parts[0])
            e_parent.append(parts[1])
    return e_child, e_parent, e_rel


def _edges(live: list[dict[str, Any]], tmp_ns: np.ndarray, relations: tuple[str, ...], src: str) -> _Edges:
    """Keep the followed edges between live terms of one namespace; count the others."""
    e_child, e_parent, e_rel = _raw_edges(live, src)
    rel_pos = {r: k for k, r in enumerate(relations)}
    tmp_index = {t["id"]: i for i, t in enumerate(live)}
    child = np.asarray(e_child, dtype=np.int64)
    rel_code = np.fromiter((rel_pos.get(r, -1) for r in e_rel), np.int64, len(e_rel))
    followed = rel_code >= 0
    not_followed: Counter[str] = Counter(r for r, f in zip(e_rel, followed.tolist()) if not f)
    parent = np.fromiter((tmp_index.get(p, -1) for p in e_parent), np.int64, len(e_parent))
    unknown = followed & (parent < 0)
    unknown_target: Counter[str] = Counter(relations[k] for k in rel_code[unknown].tolist())
    ok = followed & ~unknown
    crossing = ok.copy()
    crossing[ok] = tmp_ns[parent[ok]] != tmp_ns[child[ok]]
    cross: Counter[tuple[int, str]] = Counter(
        zip(tmp_ns[child[crossing]].tolist(), (relations[k] for k in rel_code[crossing].tolist()))
    )
    keep = ok & ~crossing
    child, parent, rel_code = child[keep], parent[keep], rel_code[keep]
    # de-duplicate parallel edges (same child/parent through two relations): the first counts
    _, first = np.unique(child * len(live) + parent, return_index=True)
    return _Edges(child[first], parent[first], rel_code[first], not_followed, unknown_target, cross)


def _order(tmp_ids: list[str], tmp_ns: np.ndarray, n_ns: int, edges: _Edges, src: str) -> _Order:
    """Number terms by namespace block, generation and id; a cycle is an error."""
    n = len(tmp_ids)
    ones = np.ones(edges.child.size, bool)
    tmp_par = sp.csr_array((ones, (edges.child, edges.parent)), shape=(n, n))
    tmp_par.sort_indices()
    gen = _generations(tmp_par)
    if (gen < 0).any():
        _raise_cycle(tmp_ids, edges.child, edges.parent, np.flatnonzero(gen < 0), src)
    order = np.lexsort((np.array(tmp_ids, dtype=object).astype(str), gen, tmp_ns))
    new_of_old = np.empty(n, dtype=np.int64)
    new_of_old[order] = np.arange(n)
    nsv = tmp_ns[order]
    parents = sp.csr_array((ones, (new_of_old[edges.child], new_of_old[edges.parent])), shape=(n, n))
    parents.sort_indices()
    return _Order(
        ids=np.array(tmp_ids, dtype=object)[order],
        nsv=nsv,
        generation=gen[order].astype(np.int32),
        bounds=np.searchsorted(nsv, np.arange(n_ns + 1)).astype(np.int64),
        parents=parents,
        new_of_old=new_of_old,
    )


class _AltClaims:
    """Who claims each alt_id; conflicts are counted with a few examples."""

    def __init__(self, index: dict[str, int], obsolete: dict[str, dict[str, Any]]) -> None:
        self.index, self.obsolete = index, obsolete
        self.owner: dict[str, str] = {}
        self.counts = {"equal_to_live_id": 0, "claimed_by_several_terms": 0, "equal_to_obsolete_id": 0}
        self.examples: list[str] = []

    def claim(self, alt: str, term: str) -> bool:
        """Record ``alt`` as an alt_id of ``term``; False when it conflicts (not used)."""
        if alt in self.index:
            kind = "equal_to_live_id"
            text = f"{alt} (alt_id of {term}) is the id of a live term; the live term is kept"
        elif alt in self.owner:
            kind = "claimed_by_several_terms"
            text = f"{alt} is an alt_id of {self.owner[alt]} and of {term}; mapped to {self.owner[alt]}"
        elif alt in self.obsolete:
            kind = "equal_to_obsolete_id"
            text = f"{alt} (alt_id of {term}) is the id of an obsolete term; mapped as that term"
        else:
            self.owner[alt] = term
            return True
        self.counts[kind] += 1
        if len(self.examples) < 5:
            self.examples.append(text)
        return False

    def summary(self) -> dict[str, Any]:
        return {**self.counts, "examples": list(self.examples)}


def _replacement_cycle(obsolete: dict[str, dict[str, Any]], canon: Any, src: str) -> None:
    """Raise when ``replaced_by`` links among obsolete terms form a cycle."""
    import networkx as nx

    g = nx.DiGraph()
    for tid, term in obsolete.items():
        for r in term.get("replaced_by", ()):
            kind, target = canon(r)
            if kind == "obsolete":
                g.add_edge(tid, target)
    try:
        cycle = [u for u, _ in nx.find_cycle(g)]
    except nx.NetworkXNoCycle:
        return
    shown = " -> ".join(cycle[:12] + [cycle[0]])
    raise OntologyError(
        f"{src}: replaced_by links among obsolete terms form a cycle: {shown}. "
        "Fix the replaced_by tags of these terms."
    )


def _follow_replacements(obsolete: dict[str, dict[str, Any]], canon: Any) -> dict[str, str | None]:
    """Live term each obsolete term is replaced by, following chains of single ``replaced_by``.

    ``None`` where a term on the chain has no or several ``replaced_by``, or
    the chain ends at an unknown id. Chains are acyclic (checked before).
    """
    result: dict[str, str | None] = {}
    for tid in obsolete:
        path, cur, found = [], tid, None
        while True:
            if cur in result:
                found = result[cur]
                break
            path.append(cur)
            reps = obsolete[cur].get("replaced_by", ())
            if len(reps) != 1:
                break
            kind, target = canon(reps[0])
            if kind == "live":
                found = target
                break
            if kind != "obsolete":
                break
            cur = target
        for p in path:
            result[p] = found
    return result


def _alt_ids(
    live: list[dict[str, Any]], obsolete: dict[str, dict[str, Any]], order: _Order, index: dict[str, int], n_ns: int
) -> tuple[dict[str, tuple[int, int]], np.ndarray, dict[str, str], _AltClaims]:
    """alt_ids of live terms (redirects and per-namespace counts), alt_ids of obsolete terms, conflicts."""
    claims = _AltClaims(index, obsolete)
    live_alt: dict[str, tuple[int, int]] = {}
    alt_count = np.zeros(n_ns, dtype=np.int64)
    for term in live:
        k = index[term["id"]]
        for a in term.get("alt_id", ()):
            if claims.claim(a, term["id"]):
                live_alt[a] = (k, TermStatus.ALT_ID)
                alt_count[order.nsv[k]] += 1
    obsolete_alt = {a: tid for tid, t in obsolete.items() for a in t.get("alt_id", ()) if claims.claim(a, tid)}
    return live_alt, alt_count, obsolete_alt, claims


def _redirects(live: list[dict[str, Any]], obsolete: dict[str, dict[str, Any]], order: _Order,
               index: dict[str, int], fallback_ns: str, ns_order: list[str], src: str) -> _Redirects:
    """Map alt_ids and obsolete ids to live terms (or to a drop), counting every case."""
    live_alt, alt_count, obsolete_alt, claims = _alt_ids(live, obsolete, order, index, len(ns_order))
    redirect = dict(live_alt)

    def canon(t: str) -> tuple[str, str]:
        if t in index:
            return "live", t
        if t in live_alt:
            return "live", str(order.ids[live_alt[t][0]])
        if t in obsolete:
            return "obsolete", t
        if t in obsolete_alt:
            return "obsolete", obsolete_alt[t]
        return "unknown", t

    _replacement_cycle(obsolete, canon, src)
    target = _follow_replacements(obsolete, canon)
    counts = dict.fromkeys(("single", "none", "several", "unresolved", "chain"), 0)
    ns_pos = {n: j for j, n in enumerate(ns_order)}
    obs_ns = np.zeros(len(ns_order), dtype=np.int64)
    for tid, term in obsolete.items():
        reps = term.get("replaced_by", ())
        ns = term.get("namespace") or fallback_ns
        if ns in ns_pos:
            obs_ns[ns_pos[ns]] += 1
        if target[tid] is not None:
            redirect[tid] = (index[target[tid]], TermStatus.REPLACED)
            counts["single"] += 1
            counts["chain"] += canon(reps[0])[0] == "obsolete"
        else:
            redirect[tid] = (-1, TermStatus.OBSOLETE)
            counts["none" if not reps else "several" if len(reps) > 1 else "unresolved"] += 1
    for a, tid in obsolete_alt.items():
        redirect[a] = redirect[tid]
    return _Redirects(redirect, alt_count, obs_ns, counts, claims.summary())


def _namespace_stats(order: _Order, edges: _Edges, red: _Redirects, ns_order: list[str],
                     relations: tuple[str, ...]) -> list[NamespaceStats]:
    """Per-namespace counts (an edge present through two relations counts for the first)."""
    pr = order.new_of_old[edges.child]
    roots_all = np.flatnonzero(np.diff(order.parents.indptr) == 0)
    stats = []
    for j, ns in enumerate(ns_order):
        lo, hi = int(order.bounds[j]), int(order.bounds[j + 1])
        in_ns = (pr >= lo) & (pr < hi)
        rts = roots_all[(roots_all >= lo) & (roots_all < hi)]
        stats.append(
            NamespaceStats(
                namespace=ns,
                label=GO_LABELS.get(ns, ns),
                terms=hi - lo,
                roots=tuple(order.ids[rts].tolist()),
                edges={r: int(((edges.relation == k) & in_ns).sum()) for k, r in enumerate(relations)},
                cross_namespace_edges_dropped={r: int(edges.cross[(j, r)]) for r in relations},
                alt_ids=int(red.alt_count[j]),
                obsolete_terms=int(red.obsolete_ns[j]),
                max_generation=int(order.generation[lo:hi].max()) if hi > lo else 0,
            )
        )
    return stats


def _diagnostics(raw: RawOntology, live: list[dict[str, Any]], n_obsolete: int, edges: _Edges,
                 red: _Redirects, relations: tuple[str, ...]) -> dict[str, Any]:
    c = red.counts
    reader = getattr(raw, "diagnostics", None) or {}
    return {
        "live_terms": len(live),
        "obsolete_terms": n_obsolete,
        "obsolete_with_single_replacement": c["single"],
        "obsolete_replaced_through_chain": c["chain"],
        "obsolete_without_replacement": c["none"],
        "obsolete_with_several_replacements": c["several"],
        "obsolete_with_unresolved_replacement": c["unresolved"],
        "alt_ids": int(red.alt_count.sum()),
        "alt_id_conflicts": red.conflicts,
        "edges_to_unknown_or_obsolete_terms_dropped": dict(edges.unknown_target),
        "cross_namespace_edges_dropped": {
            r: sum(v for (_j, rr), v in edges.cross.items() if rr == r) for r in relations
        },
        "relations_not_followed": dict(edges.not_followed),
        "terms_without_namespace": int(sum(1 for t in live if not t.get("namespace"))),
        "unknown_obo_tags": dict(reader.get("unknown_tags", {})),
        "unknown_obo_tag_examples": list(reader.get("unknown_tag_examples", [])),
        "unknown_stanza_types": dict(reader.get("unknown_stanza_types", {})),
    }


def build_ontology(raw: RawOntology, relations: tuple[str, ...] | list[str] = ("is_a", "part_of")) -> Ontology:
    """Build an :class:`Ontology` from parsed OBO stanzas.

    Parameters
    ----------
    raw : RawOntology
        Output of :func:`goeval.io.read_obo`.
    relations : sequence of str
        Relations to follow; ``is_a`` comes from ``is_a:`` tags, every other
        name from ``relationship:`` tags.

    Notes
    -----
    An obsolete term is mapped to the live term its chain of single
    ``replaced_by`` links ends at (any length; a link to an alt_id follows
    that alt_id); it is dropped when a term on the chain has no or several
    ``replaced_by`` or the chain ends at an unknown id. An alt_id equal to a
    live id is ignored (the live term is kept); one claimed by several terms
    maps to the first claimant in file order (live terms first); one equal to
    an obsolete id is read as that obsolete term. Each case is counted in
    ``diagnostics`` (``alt_id_conflicts`` with examples).

    Raises
    ------
    OntologyError
        No live term, a duplicated id, a cycle among the followed relations
        or among ``replaced_by`` links, a ``relationship`` value that is not a
        relation and one target.
    """
    relations = tuple(relations)
    _check_relations(relations)
    src = raw.source
    fallback_ns = _fallback_namespace(raw)
    live, obsolete = _split_live(raw)
    ns_order, tmp_ns = _namespaces(live, fallback_ns)
    edges = _edges(live, tmp_ns, relations, src)
    order = _order([t["id"] for t in live], tmp_ns, len(ns_order), edges, src)
    index = {t: i for i, t in enumerate(order.ids.tolist())}
    red = _redirects(live, obsolete, order, index, fallback_ns, ns_order, src)
    data_version = raw.header.get("data-version")
    return Ontology(
        ids=order.ids,
        namespaces=tuple(ns_order),
        labels=tuple(GO_LABELS.get(x, x) for x in ns_order),
        bounds=order.bounds,
        parents=order.parents,
        generation=order.generation,
        relations=relations,
        stats=tuple(_namespace_stats(order, edges, red, ns_order, relations)),
        diagnostics=_diagnostics(raw, live, len(obsolete), edges, red, relations),
        source=src,
        data_version=data_version if isinstance(data_version, str) else None,
        _index=index,
        _redirect=red.redirect,
        _raw=_NameSource(raw),
    )


def ontology_from_edges(
    edges: list[tuple[str, str]] | list[tuple[str, str, str]],
    *,
    namespace: str = "ontology",
    terms: list[str] | None = None,
    relations: tuple[str, ...] = ("is_a", "part_of"),
) -> Ontology:
    """Build a one-namespace ontology from ``(child, parent[, relation])`` edges.

    Handy for notebooks, examples and tests; relation defaults to ``is_a``.

    Examples
    --------
    >>> onto = ontology_from_edges([("b", "a"), ("c", "a"), ("d", "b"), ("e", "c")])
    >>> onto.ids[onto.roots()].tolist(), sorted(onto.ids[onto.ancestors("d")].tolist())
    (['a'], ['a', 'b', 'd'])
    """
    stanzas: dict[str, dict[str, Any]] = {}
    for t in terms or []:
        stanzas.setdefault(t, {"id": t, "namespace": namespace})
    for e in edges:
        child, parent = e[0], e[1]
        rel = e[2] if len(e) > 2 else "is_a"  # type: ignore[misc]
        for t in (child, parent):
            stanzas.setdefault(t, {"id": t, "namespace": namespace})
        if rel == "is_a":
            stanzas[child].setdefault("is_a", []).append(parent)
        else:
            stanzas[child].setdefault("relationship", []).append(f"{rel} {parent}")
    raw = RawOntology(header={"ontology": namespace}, terms=list(stanzas.values()), source="<edges>")
    return build_ontology(raw, relations)
