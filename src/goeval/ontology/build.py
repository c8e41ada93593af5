"""Building an :class:`~goeval.ontology.core.Ontology` from parsed OBO stanzas or from edges.

Live terms are numbered namespace by namespace and, inside a namespace, by
generation; alt_ids and obsolete ids become redirects; every dropped edge and
every conflict is counted in the ontology's diagnostics.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from goeval.errors import InvalidParameterError, OntologyError
from goeval.io.obo import RawOntology
from goeval.ontology.core import GO_LABELS, NamespaceStats, NameSource, Ontology, TermStatus
from goeval.ontology.dag import generations

__all__ = ["build_ontology", "ontology_from_edges"]

_GO_ORDER = ("biological_process", "molecular_function", "cellular_component")


def _raise_cycle(ids: list[str], rows: np.ndarray, cols: np.ndarray, bad: np.ndarray, source: str) -> None:
    import networkx as nx  # only to name a cycle (a run that reads the compiled ontology never imports it)

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


@dataclass(kw_only=True)
class _Edges:
    """Followed edges between live terms (temporary indices) and what was dropped."""

    child: np.ndarray  # int64, one per distinct (child, parent) pair
    parent: np.ndarray
    relation: np.ndarray  # position in ``relations`` of the first relation giving the pair
    not_followed: Counter[str]
    unknown_target: Counter[str]
    cross: Counter[tuple[int, str]]  # (namespace position, relation) -> edges dropped


@dataclass(kw_only=True)
class _Order:
    """Final term order (namespace range, generation, id) and the parent matrix in it."""

    ids: np.ndarray
    nsv: np.ndarray
    generation: np.ndarray
    bounds: np.ndarray
    parents: sp.csr_array
    parent_relations: np.ndarray  # int8, aligned with parents.indices
    new_of_old: np.ndarray


@dataclass(kw_only=True)
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
            raise OntologyError(f"{src}: term {tid!r} is defined by more than one [Term] stanza.")
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
    return _Edges(child=child[first], parent=parent[first], relation=rel_code[first], not_followed=not_followed,
                  unknown_target=unknown_target, cross=cross)


def _order(tmp_ids: list[str], tmp_ns: np.ndarray, n_ns: int, edges: _Edges, src: str) -> _Order:
    """Number terms by namespace range, generation and id; a cycle is an error."""
    n = len(tmp_ids)
    ones = np.ones(edges.child.size, bool)
    tmp_par = sp.csr_array((ones, (edges.child, edges.parent)), shape=(n, n))
    tmp_par.sort_indices()
    gen = generations(tmp_par)
    if (gen < 0).any():
        _raise_cycle(tmp_ids, edges.child, edges.parent, np.flatnonzero(gen < 0), src)
    order = np.lexsort((np.array(tmp_ids, dtype=object).astype(str), gen, tmp_ns))
    new_of_old = np.empty(n, dtype=np.int64)
    new_of_old[order] = np.arange(n)
    nsv = tmp_ns[order]
    coords = (new_of_old[edges.child], new_of_old[edges.parent])
    parents = sp.csr_array((ones, coords), shape=(n, n))
    parents.sort_indices()
    codes = sp.csr_array((edges.relation.astype(np.int16) + 1, coords), shape=(n, n))  # same (unique) coordinates
    codes.sort_indices()
    return _Order(
        ids=np.array(tmp_ids, dtype=object)[order],
        nsv=nsv,
        generation=gen[order].astype(np.int32),
        bounds=np.searchsorted(nsv, np.arange(n_ns + 1)).astype(np.int64),
        parents=parents,
        parent_relations=(codes.data - 1).astype(np.int8),
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
    import networkx as nx  # as in _raise_cycle

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
    return _Redirects(redirect=redirect, alt_count=alt_count, obsolete_ns=obs_ns, counts=counts,
                      conflicts=claims.summary())


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
        "duplicate_stanzas_merged": list(reader.get("duplicate_stanzas_merged", [])),
    }


def _subsets(live: list[dict[str, Any]], index: dict[str, int]) -> dict[str, np.ndarray]:
    """Each ``subset:`` name -> the sorted indices of the live terms tagged with it."""
    members: dict[str, list[int]] = {}
    for t in live:
        for name in t.get("subset", ()):
            members.setdefault(name, []).append(index[t["id"]])
    return {name: np.unique(np.array(v, dtype=np.int64)) for name, v in sorted(members.items())}


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
        parent_relations=order.parent_relations,
        generation=order.generation,
        relations=relations,
        stats=tuple(_namespace_stats(order, edges, red, ns_order, relations)),
        diagnostics=_diagnostics(raw, live, len(obsolete), edges, red, relations),
        source=src,
        data_version=data_version if isinstance(data_version, str) else None,
        subsets=_subsets(live, index),
        _index=index,
        _redirect=red.redirect,
        _raw=NameSource(raw),
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
