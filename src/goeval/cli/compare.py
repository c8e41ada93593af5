"""``goeval compare``: paired comparison of methods from a results directory."""

from __future__ import annotations

import argparse
from pathlib import Path

from goeval.cli.common import add_plugin_argument, check_measure_names, comma_list, say, show, show_warnings
from goeval.cli.parsing import ExtendValues

# The library, and what only a run needs, is imported inside the functions below (start-up: see goeval.cli).

DESCRIPTION = (
    "Paired comparison of evaluated methods on the same benchmark proteins: per namespace the difference "
    "of the optima with its bootstrap interval, the share of resamples each method wins, and a paired "
    "permutation p-value (Holm-adjusted over the pairs); with more than two methods, the matrix of win "
    "fractions. Reads RESULTS_DIR/protein_stats.npz, written by goeval evaluate --bootstrap; a directory of "
    "goeval cafa6 --bootstrap compares the methods on the final CAFA 6 score (--measure cafa6_metric_final, "
    "every (kind, namespace) resampled) or per kind on any other measure. The resamples are the run's own by "
    "default (its --bootstrap count, seed and confidence, from its diagnostics.json), so that the pairs are drawn "
    "from the resamples of the run's intervals. With --groups A,B (a run evaluated per group): each method of group A "
    "against itself in group B, the bootstrap paired over the proteins the groups share and unpaired over the "
    "others. A directory of goeval retrieval --bootstrap compares the methods on a term-centric measure (--measure "
    "roc_auc, average_precision, tap_K, ...) from its stored replicates (term_replicates.npz; no permutation "
    "p-value). See docs/statistics.md."
)

#: The resampling of a run that recorded none (a protein_stats.npz written from Python without a diagnostics.json).
DEFAULT_RESAMPLING = {"n_resamples": 10_000, "seed": 0, "confidence": 0.95}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("results", metavar="RESULTS_DIR", help="output directory of goeval evaluate --bootstrap")
    p.add_argument("--methods", type=comma_list, action=ExtendValues, metavar="A,B",
                   help="methods to compare, at least two (with --groups: one or more; default: all)")
    p.add_argument("--measure", default="fmax",
                   help="protein-centric optimum (a registered measure): fmax (default), wfmax, fmax_micro, smin, wsmin, "
                        "..., a whole-curve value (ece, brier, wece, wbrier) or a similarity optimum the run evaluated "
                        "(wang_bma, lin_max, jaccard, ...); for a goeval cafa6 directory also cafa6_metric_final(_micro); for a "
                        "goeval retrieval directory a term-centric measure (roc_auc, average_precision, ipr_auc, "
                        "peak_tap, tap_K, informative_roc_auc, ...)")
    p.add_argument("--bootstrap", type=int, default=None, metavar="B",
                   help="bootstrap resamples (default: the run's own --bootstrap, from its diagnostics.json; 10000 when "
                        "it recorded none)")
    p.add_argument("--permutations", type=int, default=10_000, metavar="P",
                   help="paired permutations for the p-value (default 10000; 0: none)")
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="seed of the resamples and permutations (default: the run's own; 0 when it recorded none)")
    p.add_argument("--confidence", type=float, default=None, metavar="C",
                   help="coverage of the interval (default: the run's own; 0.95 when it recorded none)")
    p.add_argument("--threads", type=int, default=None, metavar="N", help="threads (default: all cores); results do not depend on it")
    p.add_argument("--groups", type=comma_list, action=ExtendValues, metavar="A,B",
                   help="compare each method (or those of --methods, one or more) between two groups of a run evaluated "
                        "per group: RESULTS_DIR/groups/A/ against RESULTS_DIR/groups/B/ ('all': the whole benchmark), "
                        "the bootstrap paired over the proteins they share and unpaired over the others (no p-value); "
                        "a goeval cafa6 directory: within each kind (KIND/groups/A/ against KIND/groups/B/)")
    p.add_argument("--out", metavar="TSV", help="also write the pairs table to this file")
    p.add_argument("--format", choices=("table", "tsv"), default="table", help="format of the tables printed on stdout")
    add_plugin_argument(p)


#: The pairs as printed on a terminal: (header, column, decimals); the TSV keeps every column at full precision.
_PAIR_VIEW = (("ns", "namespace", None), ("method_a", "method_a", None), ("method_b", "method_b", None),
              ("value_a", "value_a", 4), ("value_b", "value_b", 4), ("difference", "difference", 4),
              ("CI", None, 4), ("se", "se", 4), ("wins_a", "wins_a", 3), ("ties", "ties", 3),
              ("wins_b", "wins_b", 3), ("p", "p_value", 4), ("p_holm", "p_holm", 4))


def _text_table(header: list[str], columns: list[list[str]]) -> str:
    from goeval.report.text import format_table

    return format_table([list(r) for r in zip(*columns)], header, rule=False)


def _table(records: list[dict], columns: tuple[str, ...], fmt: str) -> str:
    from goeval.io.results import format_cell
    from goeval.report.text import format_column

    if fmt == "tsv":
        rows = [[format_cell(r[c]) for c in columns] for r in records]
        return "\n".join("\t".join(x) for x in [list(columns), *rows])
    cols = [format_column([r[c] for r in records], 3, "-") if c != "method" else [str(r[c]) for r in records]
            for c in columns]
    return _text_table(list(columns), cols)


#: The group pairs (``--groups``) as printed on a terminal, as :data:`_PAIR_VIEW`.
_GROUP_VIEW = (("ns", "namespace", None), ("method", "method", None), ("group_a", "group_a", None),
               ("group_b", "group_b", None), ("n_a", "proteins_a", None), ("n_b", "proteins_b", None),
               ("shared", "proteins_shared", None), ("value_a", "value_a", 4), ("value_b", "value_b", 4),
               ("difference", "difference", 4), ("CI", None, 4), ("se", "se", 4), ("wins_a", "wins_a", 3),
               ("ties", "ties", 3), ("wins_b", "wins_b", 3))


def _view_columns(records: list[dict], view: tuple) -> list[list[str]]:
    """The columns of ``view`` for a terminal (``CI``: ``[ci_low, ci_high]`` in one column)."""
    from goeval.report.text import format_column

    cols = []
    for _header, col, decimals in view:
        if col is None:
            lo = format_column([r["ci_low"] for r in records], decimals)
            hi = format_column([r["ci_high"] for r in records], decimals)
            cols.append([f"[{a}, {b}]" if a else "" for a, b in zip(lo, hi)])
        elif decimals is None:
            cols.append([str(r[col]) for r in records])
        else:
            cols.append(format_column([r[col] for r in records], decimals, "-"))
    return cols


def group_pairs_text(records: list[dict], measure: str) -> list[str]:
    """The group pairs (:data:`goeval.stats.compare.GROUP_PAIR_COLUMNS`) for a terminal, as :func:`pairs_text`."""
    from goeval.report.text import plural

    said = "; ".join(plural(b, "resample") for b in sorted({r["n_resamples"] for r in records}))
    return [f"{measure}: difference = value_a - value_b, the method on group A against group B ({said}, paired over "
            "the shared proteins; full precision: --format tsv or --out)",
            _text_table([h for h, _c, _d in _GROUP_VIEW], _view_columns(records, _GROUP_VIEW))]


def pairs_text(records: list[dict], measure: str) -> list[str]:
    """The pairs table for a terminal: rounded for reading (4 decimals; shares 3), the interval in one column.

    Parameters
    ----------
    records : list of dict
        The pairs (:data:`goeval.stats.compare.PAIR_COLUMNS`).
    measure : str
        The measure compared, said in the title line with the resamples and permutations.

    Returns
    -------
    list of str
        A title line and the table (``--format tsv`` and ``--out`` keep full precision).
    """
    from goeval.report.text import plural

    cols = _view_columns(records, _PAIR_VIEW)
    counts = sorted({(r["n_resamples"], r["n_permutations"]) for r in records})
    said = "; ".join(f"{plural(b, 'resample')}, {plural(p, 'permutation')}" for b, p in counts)
    return [f"{measure}: difference = value_a - value_b ({said}; full precision: --format tsv or --out)",
            _text_table([h for h, _c, _d in _PAIR_VIEW], cols)]


def _duels_text(comparison, fmt: str) -> list[str]:  # noqa: ANN001 - Comparison
    out = []
    for label in dict.fromkeys(r["namespace"] for r in comparison.duels):
        names, mat = comparison.duel_matrix(label)
        records = [{"method": a, **{b: mat[i, j] for j, b in enumerate(names)}} for i, a in enumerate(names)]
        out += ["", f"{label}: share of resamples in which the row beats the column ({comparison.measure})",
                _table(records, ("method", *names), fmt)]
    return out


def _kind_dirs(results: Path) -> dict[str, Path]:
    """The per-kind results directories of a ``goeval cafa6`` directory (empty for any other)."""
    from goeval.compat.cafa6 import KINDS

    if not (results / "cafa6.tsv").is_file():
        return {}
    return {k: results / k for k in KINDS if (results / k).is_dir()}


def resampling(args: argparse.Namespace, folder: Path) -> dict:
    """The resampling of the comparison: ``--bootstrap``, ``--seed``, ``--confidence`` where given, else the run's
    own (``diagnostics.json`` of ``folder``: its ``bootstrap`` entry), else :data:`DEFAULT_RESAMPLING`.

    Returns
    -------
    dict
        ``n_resamples``, ``seed``, ``confidence`` (checked) and ``from``: what they come from, for the console.

    Raises
    ------
    InputFormatError
        The run's recorded resampling is not a valid one (naming ``diagnostics.json``).
    """
    from goeval.errors import InputFormatError, InvalidParameterError
    from goeval.io.results_dir import read_json_document
    from goeval.stats.bootstrap import check_bootstrap_parameters

    path = folder / "diagnostics.json"
    run = read_json_document(path).get("bootstrap") if path.is_file() else None
    given = {"n_resamples": args.bootstrap, "seed": args.seed, "confidence": args.confidence}
    if isinstance(run, dict):
        try:
            stored = check_bootstrap_parameters(run.get("n_resamples"), run.get("seed"), run.get("confidence"), "compare")
        except InvalidParameterError as exc:
            raise InputFormatError(path, None, f"its 'bootstrap' entry is not a resampling goeval wrote ({exc})") from None
        base, source = dict(zip(("n_resamples", "seed", "confidence"), stored)), f"the run's own, from {path}"
    else:
        base, source = DEFAULT_RESAMPLING, "goeval's defaults: the run recorded no bootstrap"
    out = {k: base[k] if v is None else v for k, v in given.items()}
    out["from"] = source if any(v is None for v in given.values()) else "as given"
    return out


def _say_resampling(args: argparse.Namespace, r: dict) -> None:
    said = f"resampling: {r['n_resamples']:,} resamples, seed {r['seed']}, confidence {r['confidence']:g}"
    say(args, f"{said}, {r['from']} (--bootstrap, --seed, --confidence to change)" if r["from"] != "as given" else said)


def _compare_kinds(args: argparse.Namespace, kinds: dict[str, Path], r: dict):  # noqa: ANN202 - Comparison
    """Methods of a cafa6 directory: on the final score (an aggregate measure), or per kind."""
    from goeval.io.results_dir import read_json_document
    from goeval.metrics.registry import cell_measure, get_measure
    from goeval.stats.aggregate import compare_aggregate
    from goeval.stats.compare import Comparison, compare
    from goeval.stats.replicates import CurveSettings
    from goeval.stats.store import PROTEIN_STATS_FILE, read_protein_stats

    read = {k: read_protein_stats(d / PROTEIN_STATS_FILE) for k, d in kinds.items()}
    for k, d in kinds.items():
        check_blocks_against_summary(read[k][0], d / PROTEIN_STATS_FILE)
        _check_sums(args, read[k][1], d / PROTEIN_STATS_FILE)
    ms = get_measure(args.measure)
    common = dict(n_resamples=r["n_resamples"], permutations=args.permutations, seed=r["seed"],
                  confidence=r["confidence"], threads=args.threads)
    if ms.reduce == "kind_mean":
        top = read_json_document(Path(args.results) / "diagnostics.json")
        options = next(iter(read.values()))[1]
        settings = CurveSettings.from_options(options, bool(options.get("ia")))
        pairs = compare_aggregate({k: st for k, (st, _o) in read.items()}, args.methods, cell_measure(ms), settings,
                                  name=ms.name, namespaces=top.get("targets"), **common)
        return Comparison(pairs, [], ms.name)
    out = Comparison(measure=ms.name)
    for kind, (stats, options) in read.items():
        part = compare(stats, args.methods, ms.name, options=options, with_ia=bool(options.get("ia")), **common)
        out.pairs += [{**r, "namespace": f"{kind}/{r['namespace']}"} for r in part.pairs]
        out.duels += [{**r, "namespace": f"{kind}/{r['namespace']}"} for r in part.duels]
    return out


def _check_sums(args: argparse.Namespace, options: dict, path: Path) -> None:
    """A file of an earlier goeval, without some sums: the measures it cannot compare said, the one asked for
    refused if among them (:func:`goeval.stats.store.check_stored_sums`)."""
    from goeval.metrics.registry import cell_measure, get_measure
    from goeval.stats.store import check_stored_sums, stored_measures

    if not options.get("missing_sums"):
        return
    _, cannot = stored_measures(options)
    say(args, f"{path}: written by an earlier goeval, without the sums of {', '.join(cannot)}: those cannot be "
              "compared (run goeval evaluate --bootstrap again to compare them)")
    ms = get_measure(args.measure)
    check_stored_sums(ms.name if ms.reduce != "kind_mean" else cell_measure(ms).name, options, path)


def _stats_path(results: str) -> Path:
    """``protein_stats.npz`` of a results directory (or the file given); a time split's top is refused with its kinds."""
    from goeval.errors import GoevalError
    from goeval.io.results_dir import kind_dirs
    from goeval.stats.store import PROTEIN_STATS_FILE

    p = Path(results)
    if not p.is_dir():
        return p
    kinds = [d for d in kind_dirs(p) if (d / "summary.tsv").is_file()]
    if not (p / PROTEIN_STATS_FILE).is_file() and kinds:
        have = [k for k in kinds if (k / PROTEIN_STATS_FILE).is_file()]
        how = (", ".join(f"goeval compare {k}" for k in have) if have else
               f"run the time split with --bootstrap to write a {PROTEIN_STATS_FILE} per kind")
        raise GoevalError(f"{p}: a time split keeps its results per kind of target ({', '.join(map(str, kinds))}); "
                          f"compare one kind: {how}.")
    return p / PROTEIN_STATS_FILE


def check_blocks_against_summary(stats: dict, path: Path) -> None:
    """The (method, namespace) blocks of ``protein_stats.npz`` are those of the ``summary.tsv`` beside it.

    Without a ``summary.tsv``, the file was checked on its own when it was read (names, every block listed once,
    its arrays; :func:`goeval.stats.read_protein_stats`), which is all there is to check for a file written
    from Python; but when the directory's ``manifest.json`` lists a ``summary.tsv`` (the run wrote one), its
    absence is an error: a removed summary does not skip the check.

    Raises
    ------
    GoevalError
        A block the summary does not list, or a summary the run wrote that is missing.
    """
    from goeval.errors import GoevalError
    from goeval.io.manifest import check_run_file
    from goeval.io.results_dir import REQUIRED_COLUMNS, read_table

    summary_path = path.parent / "summary.tsv"
    if not summary_path.is_file():
        _check_summary_not_removed(summary_path)
        return
    check_run_file(summary_path)
    summary = read_table(summary_path, REQUIRED_COLUMNS["summary"])
    listed = set(zip(summary["method"], summary["namespace"]))
    stray = sorted(k for k in stats if k not in listed)
    if stray:
        raise GoevalError(f"{path}: holds {', '.join(f'{m} ({ns})' for m, ns in stray)}, which {summary_path} does not "
                          "list: the two files come from different runs; run goeval evaluate --bootstrap again.")


def _check_summary_not_removed(summary_path: Path) -> None:
    """Refuse when the manifest of the directory lists ``summary_path`` (absent): the run wrote it."""
    from goeval.errors import GoevalError
    from goeval.io.manifest import MANIFEST_FILE, find_manifest
    from goeval.stats.store import PROTEIN_STATS_FILE

    m = find_manifest(summary_path.parent)
    if m is None:
        return
    try:
        name = (summary_path.parent.resolve() / summary_path.name).relative_to(m.directory.resolve()).as_posix()
    except ValueError:
        return
    if name in m.files:
        raise GoevalError(f"{summary_path} is missing, though the run that wrote {m.directory}/ wrote it "
                          f"({m.directory / MANIFEST_FILE} lists it): the methods of {PROTEIN_STATS_FILE} cannot be "
                          "checked against the run's summary; restore it or run goeval evaluate --bootstrap again.")


def group_stats_path(results: Path, name: str) -> Path:
    """``protein_stats.npz`` of group ``name`` of a run evaluated per group (``all``: the run's own).

    Raises
    ------
    GoevalError
        ``results`` has no such group (naming the groups it has).
    """
    from goeval.errors import GoevalError
    from goeval.report.save import group_dir
    from goeval.stats.store import PROTEIN_STATS_FILE

    if name == "all":
        return results / PROTEIN_STATS_FILE
    folder = results / "groups" / group_dir(name)
    if not folder.is_dir():
        have = sorted(p.name for p in (results / "groups").iterdir() if p.is_dir()) if (results / "groups").is_dir() else []
        said = f"its groups: {', '.join(have)}" if have else "it was not evaluated per group (--groups, --groups-from)"
        raise GoevalError(f"{results}: no group {name!r} ({folder} is missing); {said}.")
    return folder / PROTEIN_STATS_FILE


def _compare_kind_groups(args: argparse.Namespace, kinds: dict[str, Path], r: dict) -> list[dict]:
    """``--groups A,B`` on a ``goeval cafa6`` directory: in each kind (``KIND/groups/NAME/``), each method of group A
    against itself in group B, the namespace labelled ``KIND/NS`` as the methods' comparison per kind labels it.

    Raises
    ------
    InvalidParameterError
        A measure over the kinds (the final score): groups are compared within a kind.
    """
    from goeval.errors import InvalidParameterError
    from goeval.metrics.registry import get_measure

    ms = get_measure(args.measure)
    if ms.reduce == "kind_mean":
        raise InvalidParameterError(f"--groups on a goeval cafa6 directory compares the groups within each kind "
                                    f"({', '.join(kinds)}); --measure {ms.name} is a score over the kinds: give a "
                                    "measure of one kind (wfmax, fmax, ...).")
    out = []
    for kind, folder in kinds.items():
        out += [{**x, "namespace": f"{kind}/{x['namespace']}"} for x in _compare_groups(args, folder, r)]
    return out


def _compare_groups(args: argparse.Namespace, results: Path, r: dict) -> list[dict]:
    """``--groups A,B``: each method of group A against itself in group B (:func:`goeval.stats.compare_groups`)."""
    from goeval.stats.compare import compare_groups
    from goeval.stats.store import read_protein_stats

    read = []
    for name in args.groups:
        path = group_stats_path(results, name)
        stats, options = read_protein_stats(path)
        check_blocks_against_summary(stats, path)
        read.append((stats, options))
    (sa, options), (sb, _) = read
    return compare_groups(sa, sb, args.methods, args.measure, names=tuple(args.groups), n_resamples=r["n_resamples"],
                          seed=r["seed"], confidence=r["confidence"], options=options, with_ia=bool(options.get("ia")),
                          threads=args.threads)


def _run_groups(args: argparse.Namespace, results: Path) -> int:
    from goeval.errors import InvalidParameterError
    from goeval.io.results import write_table
    from goeval.report.text import plural
    from goeval.stats.compare import GROUP_PAIR_COLUMNS

    if len(args.groups) != 2 or args.groups[0] == args.groups[1]:
        raise InvalidParameterError(f"--groups must name two different groups, A,B; got {','.join(args.groups)}.")
    show_warnings()
    r = resampling(args, results)
    _say_resampling(args, r)
    kinds = _kind_dirs(results) if results.is_dir() else {}
    records = _compare_kind_groups(args, kinds, r) if kinds else _compare_groups(args, results, r)
    if not records:
        say(args, "no namespace has a method evaluated in both groups; nothing to compare")
        return 1
    show(args, *([_table(records, GROUP_PAIR_COLUMNS, "tsv")] if args.format == "tsv"
                 else group_pairs_text(records, records[0]["measure"])))
    if args.out:
        write_table(args.out, records, GROUP_PAIR_COLUMNS)
        say(args, f"wrote {plural(len(records), 'pair')} to {args.out}")
    return 0


def run(args: argparse.Namespace) -> int:
    from goeval.io.files import check_output_file

    results = Path(args.results)
    check_measure_names(args.measure, results if results.is_dir() else results.parent)
    if _term_run(args, results):
        return _run_terms(args, results)
    if args.groups:
        if args.out:
            check_output_file(args.out)
        return _run_groups(args, results)
    kinds = _kind_dirs(results) if results.is_dir() else {}
    path = None if kinds else _stats_path(args.results)
    if args.out:
        check_output_file(args.out)
    from goeval.stats.compare import compare
    from goeval.stats.store import read_protein_stats

    show_warnings()
    r = resampling(args, results if kinds else path.parent)
    _say_resampling(args, r)
    if kinds:
        result = _compare_kinds(args, kinds, r)
    else:
        stats, options = read_protein_stats(path)
        check_blocks_against_summary(stats, path)
        _check_sums(args, options, path)
        result = compare(stats, args.methods, args.measure, n_resamples=r["n_resamples"], permutations=args.permutations,
                         seed=r["seed"], confidence=r["confidence"], options=options, with_ia=bool(options.get("ia")),
                         threads=args.threads)
    return _show_comparison(args, result)


def _show_comparison(args: argparse.Namespace, result) -> int:  # noqa: ANN001 - Comparison
    """Print the pairs (and the duels of more than two methods), write ``--out``; 1 when nothing was compared."""
    from goeval.io.results import write_table
    from goeval.report.text import plural
    from goeval.stats.compare import PAIR_COLUMNS

    if not result.pairs:
        say(args, "no namespace has two of the methods evaluated; nothing to compare")
        return 1
    lines = ([_table(result.pairs, PAIR_COLUMNS, "tsv")] if args.format == "tsv"
             else pairs_text(result.pairs, result.measure))
    if len({r["method"] for r in result.duels}) > 2:
        lines += _duels_text(result, args.format)
    show(args, *lines)
    if args.out:
        write_table(args.out, result.pairs, PAIR_COLUMNS)
        say(args, f"wrote {plural(len(result.pairs), 'pair')} to {args.out}")
    return 0


def _term_run(args: argparse.Namespace, results: Path) -> bool:
    """Whether the comparison is of a term-centric measure (from ``term_replicates.npz``); a protein-centric
    measure asked of a ``goeval retrieval`` directory is refused, naming the measures it can compare."""
    from goeval.errors import GoevalError
    from goeval.stats.store import PROTEIN_STATS_FILE, TERM_REPLICATES_FILE
    from goeval.stats.term_bootstrap import is_term_measure

    if is_term_measure(args.measure):
        return True
    if results.is_dir() and (results / "retrieval_summary.tsv").is_file() and not (results / PROTEIN_STATS_FILE).exists():
        held = results / TERM_REPLICATES_FILE
        how = ("--measure roc_auc, average_precision, tap_K, ipr_auc, peak_tap, ..." if held.is_file() else
               "run goeval retrieval with --bootstrap B to store its replicates, then --measure roc_auc, ...")
        raise GoevalError(f"{results} is a goeval retrieval directory: it compares term-centric measures, not "
                          f"{args.measure!r}; {how}")
    return False


def _run_terms(args: argparse.Namespace, results: Path) -> int:
    """A term-centric measure: the methods' stored replicates paired (:func:`goeval.stats.compare.compare_terms`)."""
    from goeval.errors import InvalidParameterError
    from goeval.io.files import check_output_file
    from goeval.stats.compare import compare_terms
    from goeval.stats.store import TERM_REPLICATES_FILE, read_term_replicates
    from goeval.stats.term_bootstrap import term_column

    if args.groups:
        raise InvalidParameterError("--groups compares protein-centric measures; a term-centric measure is compared "
                                    "between the methods of one run (goeval retrieval --bootstrap).")
    path = results / TERM_REPLICATES_FILE if results.is_dir() else results
    if args.out:
        check_output_file(args.out)
    show_warnings()
    reps = read_term_replicates(path)
    for flag, given, stored in (("--bootstrap", args.bootstrap, reps.n_resamples), ("--seed", args.seed, reps.seed)):
        if given is not None and given != stored:
            raise InvalidParameterError(f"{path} holds the run's {reps.n_resamples:,} replicates of seed {reps.seed} "
                                        f"(term-centric values cannot be resampled again without the inputs); "
                                        f"{flag} {given} needs a new run: goeval retrieval --bootstrap B --seed S.")
    term_column(args.measure, reps.columns)  # an unknown measure said before the resampling line
    conf = reps.confidence if args.confidence is None else args.confidence
    say(args, f"resampling: {reps.n_resamples:,} resamples, seed {reps.seed}, confidence {conf:g}, the run's own, "
              f"from {path}; no permutation p-value for a term-centric measure (its values are stored per replicate)")
    return _show_comparison(args, compare_terms(reps, args.methods, args.measure, confidence=args.confidence))
