"""``goeval info ONTOLOGY``: what the loader made of an OBO file."""

from __future__ import annotations

import argparse
import json
import time

from goeval.cli.common import add_cache_options, cache_arg, comma_list, say, show
from goeval.cli.parsing import ExtendValues

# The library, and what only a run needs, is imported inside the functions below (start-up: see goeval.cli).


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("ontology", metavar="ONTOLOGY", help="OBO file (.obo, .gz, .bz2, .xz)")
    p.add_argument("--relations", type=comma_list, action=ExtendValues, default=("is_a", "part_of"), metavar="R1,R2",
                   help="relations to follow (default: is_a,part_of)")
    add_cache_options(p)
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")


def run(args: argparse.Namespace) -> int:
    from goeval.io.ontology_cache import load_cached_ontology
    from goeval.io.results import jsonable
    from goeval.report.text import format_table

    clock = time.perf_counter()
    onto, cache = load_cached_ontology(args.ontology, tuple(args.relations), cache_arg(args))
    seconds = time.perf_counter() - clock
    cache_info = {"status": cache.status, "path": None if cache.path is None else str(cache.path),
                  "reason": cache.reason or None, "load_seconds": round(seconds, 4)}
    if args.format == "json":
        show(args, json.dumps(jsonable({
            "source": onto.source, "data_version": onto.data_version, "relations": list(onto.relations),
            "namespaces": [s.__dict__ for s in onto.stats], "diagnostics": onto.diagnostics,
            "cache": cache_info,
        }), indent=2))
        return 0
    say(args, f"{onto.source}  (data-version: {onto.data_version or 'n/a'}; relations: {', '.join(onto.relations)})",
        _cache_line(cache, seconds))
    rows = []
    for s in onto.stats:
        rows.append([
            s.label, s.namespace, str(s.terms), ",".join(s.roots) if len(s.roots) <= 3 else f"{len(s.roots)} roots",
            *(str(s.edges[r]) for r in onto.relations),
            str(sum(s.cross_namespace_edges_dropped.values())), str(s.alt_ids), str(s.obsolete_terms),
            str(s.max_generation),
        ])
    header = ["ns", "namespace", "terms", "roots", *(f"{r} edges" for r in onto.relations),
              "cross-ns dropped", "alt_ids", "obsolete", "depth"]
    # the table and what its columns mean: stdout; what was read and dropped: messages
    show(args, format_table(rows, header), *(line.format(relations=" and ".join(onto.relations))
                                             for line in CROSS_NS_NOTE))
    say(args, *summary_lines(onto.diagnostics))
    return 0


#: The note under the table (its lines): what its "cross-ns dropped" column counts.
CROSS_NS_NOTE = ("note: cross-ns dropped: the {relations} edges from a term of the namespace to a parent in another",
                 "      namespace, not followed (each namespace is its own graph: nothing propagates across them)")


def _cache_line(cache, seconds: float) -> str:  # noqa: ANN001 - CacheRecord
    """Whether the compiled-ontology cache was used, where it is, and the load time."""
    where = f" {cache.path}" if cache.path is not None else ""
    what = {"hit": f"read from the compiled cache{where}",
            "written": f"parsed from the OBO file and compiled into the cache{where}",
            "not written": f"parsed from the OBO file; the cache{where} could not be written ({cache.reason})",
            }.get(cache.status, f"parsed from the OBO file, no cache ({cache.reason or 'off'})")
    return f"loaded in {seconds:.3f} s: {what}"


def summary_lines(d: dict) -> list[str]:  # noqa: ANN001 - Ontology.diagnostics
    """The text summary of an ontology's diagnostics: what was mapped, dropped or tolerated."""
    dropped = (d["obsolete_without_replacement"] + d["obsolete_with_several_replacements"]
               + d.get("obsolete_with_unresolved_replacement", 0))
    chain = d.get("obsolete_replaced_through_chain", 0)
    lines = [
        f"obsolete terms: {d['obsolete_terms']} ({d['obsolete_with_single_replacement']} mapped through "
        f"replaced_by{f', {chain} of them through a chain' if chain else ''}; {dropped} dropped when used: "
        f"{d['obsolete_without_replacement']} without replacement, {d['obsolete_with_several_replacements']} with "
        f"several, {d.get('obsolete_with_unresolved_replacement', 0)} whose replacement is unknown or dropped)"
    ]
    conflicts = d.get("alt_id_conflicts", {})
    if any(conflicts.get(k) for k in ("equal_to_live_id", "claimed_by_several_terms", "equal_to_obsolete_id")):
        lines.append(
            f"alt_id conflicts: {conflicts['equal_to_live_id']} equal to a live term's id (ignored), "
            f"{conflicts['claimed_by_several_terms']} claimed by several terms (first claimant kept), "
            f"{conflicts['equal_to_obsolete_id']} equal to an obsolete term's id (read as that term)")
        lines += [f"  e.g. {x}" for x in conflicts.get("examples", [])]
    if d["relations_not_followed"]:
        lines.append("relations not followed: " + ", ".join(f"{k} {v}" for k, v in d["relations_not_followed"].items()))
    if d["edges_to_unknown_or_obsolete_terms_dropped"]:
        lines.append("edges to unknown or obsolete terms dropped: " + ", ".join(
            f"{k} {v}" for k, v in d["edges_to_unknown_or_obsolete_terms_dropped"].items()))
    if d.get("unknown_obo_tags"):
        lines.append("lines with tags OBO does not define, skipped: " + ", ".join(
            f"{k} {v}" for k, v in d["unknown_obo_tags"].items()))
        lines += [f"  e.g. {x}" for x in d.get("unknown_obo_tag_examples", [])]
    if d.get("unknown_stanza_types"):
        lines.append("stanzas of unknown types, ignored: " + ", ".join(
            f"[{k}] {v}" for k, v in d["unknown_stanza_types"].items()))
    return lines
