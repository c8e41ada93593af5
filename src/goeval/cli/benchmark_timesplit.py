"""``goeval benchmark timesplit``: targets and truth of a time split, and the baselines evaluated per kind.

Everything a run writes goes into one :class:`~goeval.io.manifest.RunOutput`
(all files appear together, listed in ``manifest.json``); the kinds are
evaluated one at a time and written as they finish, so one kind's results
are in memory at once::

    DIR/README.md, manifest.json, diagnostics.json   the command, the split's counts
    DIR/<kind>_<NS>.txt, truth_<kind>_<NS>.tsv       targets and their t1 truth
    DIR/ia.tsv (ic.tsv)                              the IA (IC) estimated on t0
    DIR/naive_scores.tsv                             the naive list every target gets
    DIR/<kind>/summary.tsv, table1.tsv, curves.tsv, diagnostics.json (protein_stats.npz)
    DIR/<kind>/predictions/<method>.tsv.gz           each hit method's predictions of the kind's targets
"""

from __future__ import annotations

import argparse
import contextlib
import time
from pathlib import Path
from typing import Any

import numpy as np

from goeval.cli.benchmark import check_before_work, format_table1, provenance, readme, write_figures
from goeval.cli.common import (groups_from_args, read_annotations, read_hit_table, read_ontology, run_options_from_args, run_output, say,
                               say_run_output, show)

__all__ = ["run_timesplit", "targets_source", "check_snapshot_order"]

#: Share of the candidate targets the sequence restriction must keep before a warning.
KEPT_WARNING = 0.5


def targets_source(args: argparse.Namespace) -> str:
    """What restricts the targets, said at the start of a run."""
    if args.sequences is not None:
        return f"targets: proteins with a sequence in {args.sequences} (--sequences)"
    if args.hits is not None:
        return (f"targets: proteins that are queries of the hit table {args.hits} (no --sequences: a protein without "
                "any hit is no target; give the FASTA file of the searched sequences to keep them)")
    return "targets: every protein annotated at t1 (no --sequences, no --hits)"


def check_snapshot_order(args: argparse.Namespace) -> None:
    """t1 must be later than t0 when their dates are known (GAF headers, file names); otherwise say so."""
    from goeval.errors import GoevalError
    from goeval.io.snapshots import snapshot_date

    dates = {side: [d for d in (snapshot_date(p) for p in getattr(args, side)) if d is not None] for side in ("t0", "t1")}
    if not dates["t0"] or not dates["t1"]:
        say(args, "the order of t0 and t1 could not be checked (no date in the GAF headers or file names)")
        return
    late0 = max(dates["t0"], key=lambda d: d[0])
    early1 = min(dates["t1"], key=lambda d: d[0])
    if early1[0] <= late0[0]:
        word = "the same date as" if early1[0] == late0[0] else "older than"
        raise GoevalError(f"t1 is {word} t0: t1 {early1[0].isoformat()} (from {early1[1]}), t0 {late0[0].isoformat()} "
                          f"(from {late0[1]}); a time split needs t1 later than t0 (swap --t0 and --t1?).")


def _sequences(args: argparse.Namespace, hits: Any) -> Any:
    """The proteins with a sequence that restrict the targets (FASTA ids, the hit table's queries, or None)."""
    if args.sequences is None:
        return None if hits is None else hits.queries
    from goeval.io.fasta import read_fasta
    from goeval.progress import stage
    from goeval.report.text import plural

    with stage(f"reading the sequences {args.sequences}") as st:
        fasta = read_fasta(args.sequences)
        c = fasta.counts
        stops = ", ".join(f"{n:,} {ch!r}" for ch, n in c["non_amino_acid"].items())
        st.line = f"sequences {args.sequences}: {plural(c['records'], 'sequence')}" + (
            f" ({stops} kept as they are)" if stops else "")
    return fasta.ids


def _load(args: argparse.Namespace, opts: Any) -> tuple[Any, Any, Any, Any, Any]:
    """Ontology, t0, t1 and hits read, the split made: what the run evaluates."""
    from goeval.checks import dropped_terms_warning
    from goeval.benchmarks.timesplit import time_split_targets
    from goeval.diagnostics import Diagnostics
    from goeval.progress import stage

    onto = read_ontology(args)
    a0, a1 = read_annotations(args, args.t0, onto, "t0"), read_annotations(args, args.t1, onto, "t1")
    hits = read_hit_table(args)
    sequences = _sequences(args, hits)
    with stage("finding the targets") as st:
        split = time_split_targets(onto, a0, a1, namespaces=opts.namespaces, sequences=sequences,
                                   drop_binding_only=args.drop_binding_only)
        st.note = ", ".join(f"{kind} {sum(d['targets'] for d in per.values()):,}"
                            for kind, per in split.diagnostics["targets"].items())
    diag = Diagnostics(split.diagnostics)
    diag["t0"], diag["t1"] = a0.diagnostics, a1.diagnostics
    diag["targets_source"] = targets_source(args)
    for what, ann in (("t0", a0), ("t1", a1)):
        message = dropped_terms_warning(ann.diagnostics, what)
        if message:
            diag.warn(message)
    split.diagnostics = diag
    return onto, a0, hits, split, diag


def _check_split(args: argparse.Namespace, split: Any) -> None:
    """No target at all fails with the reason; a sequence restriction that keeps few candidates warns."""
    from goeval.errors import GoevalError

    per = [d for kind in split.diagnostics["targets"].values() for d in kind.values()]
    cand, kept = sum(d["candidates"] for d in per), sum(d["targets"] for d in per)
    no_seq = sum(d["without_sequence"] for d in per)
    if kept == 0:
        if cand == 0:
            why = ("t1 adds no annotation to t0 in the evaluated namespaces (are t0 and t1 the same snapshot, or in "
                   "the wrong order?)")
        elif no_seq == cand:
            where = f"in {args.sequences}" if args.sequences else f"among the queries of {args.hits}"
            why = (f"none of the {cand:,} candidate targets has a sequence {where} (do both name proteins the same "
                   "way?)")
        else:
            why = f"every one of the {cand:,} candidate targets was dropped (protein binding only)"
        raise GoevalError(f"the time split has no target: {why}; nothing was written.")
    if no_seq > KEPT_WARNING * cand:
        split.diagnostics.warn(f"{no_seq:,} of the {cand:,} candidate targets ({no_seq / cand:.0%}) have no sequence "
                               f"and are not targets ({targets_source(args)}).")


def _write_targets(run: Any, onto: Any, split: Any) -> None:
    from goeval.io.results import write_pairs

    for kind, per_ns in split.targets.items():
        truth = split.truth_of(kind)
        for ns, prots in per_ns.items():
            with run.open(f"{kind.lower()}_{ns}.txt") as fh:
                fh.write("".join(f"{p}\n" for p in prots.tolist()))
            t = truth.namespace(ns)
            coo = t.matrix.tocoo()
            with run.open(f"truth_{kind.lower()}_{ns}.tsv") as fh:
                write_pairs(fh, t.proteins[coo.row], onto.ids[coo.col])


def _write_information(run: Any, onto: Any, labels: list[str], information: tuple[Any, Any]) -> None:
    from goeval.io.results import write_ia

    cols = np.concatenate([np.arange(*onto.bounds[onto.namespace_index(x):][:2]) for x in labels])
    for name, values in zip(("ia.tsv", "ic.tsv"), information):
        if values is not None:
            with run.open(name) as fh:
                write_ia(fh, onto.ids[cols], values[cols])


class PredictionFiles:
    """The predictions of each kind as they are evaluated: ``<kind>/predictions/<method>.tsv.gz`` (hit methods,
    namespace after namespace) and ``naive_scores.tsv`` (the one naive list)."""

    def __init__(self, run: Any, onto: Any, enabled: bool) -> None:
        self.run, self.onto, self.enabled = run, onto, enabled
        self.stack = contextlib.ExitStack()
        self.open: dict[tuple[str, str], Any] = {}
        self.naive_written = False

    def __call__(self, kind: str, method: str, label: str | None, predictions: Any) -> None:
        from goeval.io.predictions_out import write_predictions

        if not self.enabled:
            return
        if label is None:  # naive: the same list for every target of every kind
            if not self.naive_written:
                cols, scores = predictions
                with self.run.open("naive_scores.tsv") as fh:
                    fh.write("term\tscore\n")
                    fh.write("".join(f"{t}\t{s!r}\n" for t, s in zip(self.onto.ids[cols].tolist(), scores.tolist())))
                self.naive_written = True
            return
        key = (kind, method)
        if key not in self.open:
            self.open[key] = self.stack.enter_context(self.run.open_gzip(f"{kind.lower()}/predictions/{method}.tsv.gz"))
        write_predictions(self.open[key], predictions.proteins, self.onto.ids, predictions.matrix)

    def close(self) -> None:
        """Close the files of the kind just evaluated (they are committed with the run)."""
        self.stack.close()
        self.stack = contextlib.ExitStack()
        self.open = {}


def _write_kind(run: Any, args: argparse.Namespace, kind: str, res: Any) -> str:
    """The kind's results directory written; its Table 1, for the console."""
    from goeval.benchmarks import table1_columns, table1_records
    from goeval.io.results import CALIBRATION_FILE, decimal_value, write_frames

    d = kind.lower()
    res.diagnostics.update(provenance(args))
    table1 = table1_records(res.summary_records)
    cols = table1_columns(res.summary_records)
    curves = f"{d}/curves.tsv.gz" if args.curves_gzip else f"{d}/curves.tsv"
    tables = {curves: res.curve_columns,
              f"{d}/summary.tsv": [{c: r.get(c) for c in res.summary_columns} for r in res.summary_records],
              f"{d}/table1.tsv": [{c: decimal_value(r[c]) for c in cols} for r in table1],
              f"{d}/{CALIBRATION_FILE}": res.calibration_columns}  # None (not written) for rank thresholds
    if getattr(res, "groups", None):  # every group's optima, a group column (all: the kind's targets)
        from goeval.report.save import GROUPS_TABLE, group_table

        tables[f"{d}/{GROUPS_TABLE}"] = group_table(res)
    write_frames(args.out, tables, {f"{d}/diagnostics.json": dict(res.diagnostics)}, files=run)
    if getattr(res, "groups", None):  # KIND/groups/NAME/ per group, as evaluate and cafa6 write them (compare --groups)
        from goeval.io.results import write_result_tree
        from goeval.report.save import group_parts

        write_result_tree(args.out, group_parts(res, d, args.curves_gzip), files=run)
    if args.bootstrap is not None and res.stats:
        from goeval.stats.store import PROTEIN_STATS_FILE, protein_stats_arrays

        with run.open_binary(f"{d}/{PROTEIN_STATS_FILE}") as fh:
            np.savez_compressed(fh, **protein_stats_arrays(res.stats, res.diagnostics.get("options", {})))
    if getattr(res, "groups", None):
        from goeval.report.text import format_group_table

        return format_table1(table1) + "\n\n" + format_group_table(res)
    return format_table1(table1)


def _warn_unused_methods(kind: str, res: Any) -> None:
    """A method that predicts nothing for the kind's benchmark proteins is said (with its proteins)."""
    for name, d in res.diagnostics.get("methods", {}).items():
        if not any(ns.get("proteins_with_predictions", 0) for ns in d.get("namespaces", {}).values()):
            res.diagnostics.warn(f"{kind}: method {name} predicts no term for any of the benchmark proteins "
                                 "(no usable hit, or nothing learnt from t0 in the evaluated namespaces).")


def _evaluate(args: argparse.Namespace, run: Any, onto: Any, a0: Any, hits: Any, split: Any, opts: Any,
              information: tuple[Any, Any]) -> dict[str, Any]:
    """Every kind evaluated and written in turn; what each evaluated (kind -> number of summary rows)."""
    from goeval.benchmarks.timesplit import iter_time_split
    from goeval.progress import stage, within

    files = PredictionFiles(run, onto, not args.no_predictions)
    done: dict[str, Any] = {}
    try:
        groups = _groups(args, a0, hits, split)
        for kind, res in iter_time_split(onto, a0, split, hits, methods=args.methods, options=opts, kinds=args.kinds,
                                         pseudocount=args.pseudocount, max_evalue=args.max_evalue,
                                         min_identity=args.min_identity, min_coverage=args.min_coverage,
                                         bootstrap=args.bootstrap, seed=args.seed, confidence=args.confidence,
                                         information=information, on_predictions=files,
                                         groups=None if groups is None else groups.groups):
            table = None
            with within(kind), stage(f"writing {kind.lower()}/", min_seconds=1.0):
                files.close()
                _warn_unused_methods(kind, res)
                done[kind] = {"rows": len(res.summary_records), "why": res.diagnostics.get("nothing_evaluated")}
                if res.summary_records:
                    table = _write_kind(run, args, kind, res)
            if table is not None:
                show(args, f"{kind} targets:", table)
            del res  # one kind's results in memory at a time
    finally:
        files.close()
    return done


def _groups(args: argparse.Namespace, a0: Any, hits: Any, split: Any) -> Any:
    """``--groups`` / ``--groups-from`` of a time split: species from the --t1 files, a GAF's taxa, identity of
    every target to the t0 proteins in the hits, or depth of the t1 truth; said on the console."""
    from goeval.io.kinds import FileKind, sniff
    from goeval.report.text import plural

    targets = np.unique(np.concatenate([t.astype(str) for per in split.targets.values() for t in per.values()]
                                       or [np.zeros(0, str)]))
    gaf = all(sniff(f) is FileKind.GAF for f in args.t1)
    groups = groups_from_args(args, files=list(args.t1), taxa=list(args.t1) if gaf else None,
                              identity=None if hits is None else (hits, targets, a0.proteins),
                              depth=split.truth)
    if groups is not None:
        sizes = ", ".join(f"{name} {np.isin(p.astype(str), targets).sum():,}" for name, p in groups.groups.items())
        say(args, f"groups ({groups.rule}): {plural(len(groups.groups), 'group')}; targets per group: {sizes}")
    return groups


def _nothing_evaluated(done: dict[str, Any], kinds: list[str]) -> str | None:
    if any(d["rows"] for d in done.values()):
        return None
    if not done:
        return f"no target of the kinds {', '.join(kinds)}"
    return "; ".join(f"{k}: no method has a prediction for a benchmark protein" for k in done)


def run_timesplit(args: argparse.Namespace) -> int:
    """Run ``goeval benchmark timesplit`` (see the module)."""
    from goeval.benchmarks.timesplit import time_split_information
    from goeval.errors import GoevalError

    start = time.perf_counter()
    opts = check_before_work(args, [(args.ontology, "ontology"), *((a, "t0 annotations") for a in args.t0),
                                    *((a, "t1 annotations") for a in args.t1), (args.hits, "hits"),
                                    (args.sequences, "sequences")])
    run_options_from_args(args)  # --bootstrap, --seed, --confidence checked before any work
    say(args, targets_source(args))
    check_snapshot_order(args)
    onto, a0, hits, split, diag = _load(args, opts)
    _check_split(args, split)
    for kind, per_ns in diag["targets"].items():
        say(args, f"{kind}: " + ", ".join(f"{ns} {d['targets']:,} (of {d['candidates']:,} candidates)"
                                         for ns, d in per_ns.items()))
    labels = [onto.labels[onto.namespace_index(n)] for n in (opts.namespaces or onto.labels)]
    information = time_split_information(onto, a0, args.pseudocount, opts.similarity is not None)
    diag.update(provenance(args))
    with run_output(args, args.out) as run:
        _write_targets(run, onto, split)
        _write_information(run, onto, labels, information)
        done = _evaluate(args, run, onto, a0, hits, split, opts, information) if args.evaluate else {}
        why = _nothing_evaluated(done, args.kinds) if args.evaluate else None
        if why:
            raise GoevalError(f"nothing was evaluated: {why}; no result was written.")
        diag["evaluated"] = done
        from goeval.io.results import write_frames

        write_frames(args.out, {}, {"diagnostics.json": dict(diag)}, files=run)
        with run.open("README.md") as fh:
            fh.write(readme(args, "Time split", [
                "Target lists `<kind>_<NS>.txt`, truth `truth_<kind>_<NS>.tsv` (t1 annotations as given; PK: "
                "evaluated with the t0 terms as known), `ia.tsv` estimated on t0; with --evaluate, each kind's "
                "results in `nk/`, `lk/`, `pk/` and the naive list every target gets in `naive_scores.tsv`."]))
    say_run_output(args, run)
    say(args, f"results in {Path(args.out)}/ ({time.perf_counter() - start:.1f} s)")
    write_figures(args)
    return 0
