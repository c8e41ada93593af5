"""The report's paired comparison: :func:`goeval.stats.compare.compare` on a results directory's
``protein_stats.npz``, with the run's own bootstrap settings.

A directory written with ``--bootstrap B`` holds every (method, namespace)'s
per-protein statistics; the report compares every pair of methods of a
namespace (per kind of target for a time split) on the measures asked
(Fmax by default), with the run's B resamples, seed and confidence, so that
its intervals come from the same resamples as the summary's, and B paired
permutations for the p-values (Holm-adjusted over the pairs of a namespace
and measure). ``goeval compare DIR --bootstrap B --permutations B --seed S
--confidence C`` gives the same numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goeval.errors import GoevalError

__all__ = ["PairedComparison", "paired_comparison", "compared_measures", "COMPARED_MEASURES"]

#: What the report compares by default: the headline measure (the default of ``goeval compare``).
COMPARED_MEASURES: tuple[str, ...] = ("fmax",)


@dataclass
class PairedComparison:
    """The pairs of a results directory and how they were computed.

    Attributes
    ----------
    pairs : list of dict
        :data:`goeval.stats.compare.PAIR_COLUMNS`, and ``targets`` (the kind)
        for a time split.
    settings : dict of str to dict
        Per kind ("" for one result): ``n_resamples``, ``permutations``,
        ``seed``, ``confidence``.
    notes : list of str
        What was not compared, and why (one method, a measure without IA).
    """

    pairs: list[dict[str, Any]] = field(default_factory=list)
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def sentences(self) -> list[str]:
        """How to read the table and how to get the same numbers from ``goeval compare``."""
        said = sorted({(s["n_resamples"], s["permutations"], s["seed"], s["confidence"])
                       for s in self.settings.values()})
        how = "; ".join(f"{b:,} bootstrap resamples (seed {seed}, the run's own: the same resamples as the "
                        f"intervals above), {p:,} paired permutations, {c:.0%} intervals" for b, p, seed, c in said)
        flags = "; ".join(f"--bootstrap {b} --permutations {p} --seed {seed} --confidence {c:g}"
                          for b, p, seed, c in said)
        folder = "each kind's folder (RESULTS_DIR/nk ...)" if any(self.settings) else "RESULTS_DIR"
        return ["A - B: the difference of the two methods' optima; CI: its bootstrap percentile interval, every "
                "resample applied to both methods; A better, B better: the share of resamples in which each is "
                "better; p: a paired permutation p-value (each protein's pair of contributions swapped at random), "
                "p (Holm): adjusted over the pairs of a namespace and measure.",
                f"Computed from protein_stats.npz with {how}; goeval compare on {folder} with {flags} gives the "
                "same numbers (docs/statistics.md).", *self.notes]


def compared_measures(names: Sequence[str]) -> tuple[str, ...]:
    """The registered protein-centric optima ``names`` names (aliases such as ``Fmax`` allowed), each once.

    Raises
    ------
    InvalidParameterError
        A name the registry does not know (the error lists those it knows), or a measure that is not a
        protein-centric optimum (an area, a term-centric measure).
    """
    from goeval.stats.replicates import protein_optima

    return tuple(dict.fromkeys(m.name for m in protein_optima(names)))


def paired_comparison(results: Any, measures: Sequence[str] = COMPARED_MEASURES, *,
                      threads: int | None = None) -> PairedComparison | None:
    """Compare every pair of methods of ``results`` from its ``protein_stats.npz`` (per kind for a time split).

    Parameters
    ----------
    results : ResultsDir
        A results directory read by :func:`goeval.io.results_dir.read_results_dir`.
    measures : sequence of str
        Protein-centric optima to compare on (default Fmax).
    threads : int, optional
        Threads of the resampling (no effect on the values).

    Returns
    -------
    PairedComparison or None
        None when no folder of the results holds a ``protein_stats.npz``.

    Raises
    ------
    InputFormatError
        A ``protein_stats.npz`` that cannot be read (named, with the problem).
    GoevalError
        A ``protein_stats.npz`` the run did not write (a link, a file of another run), or one holding methods
        that ``summary.tsv`` beside it does not list.
    """
    from goeval.stats.store import PROTEIN_STATS_FILE

    measures = compared_measures(measures)
    parts = dict(getattr(results, "parts", None) or {}) or {"": results}
    found = {k: p for k, p in parts.items() if _present(p.path / PROTEIN_STATS_FILE)}
    if not found:
        return None
    out = PairedComparison()
    out.notes += [f"{k} targets: no {PROTEIN_STATS_FILE} (the kind was not bootstrapped): not compared"
                  for k in parts if k not in found]
    from goeval.progress import within

    for kind, part in found.items():
        with within("paired comparison" + (f", {kind}" if kind else "")):
            _compare_part(out, kind, part, measures, threads)
    return out


def _present(p: Path) -> bool:
    """A file, or a link there (which :func:`goeval.io.manifest.check_run_file` then refuses, naming it)."""
    return p.is_file() or p.is_symlink()


def _compare_part(out: PairedComparison, kind: str, part: Any, measures: Sequence[str], threads: int | None) -> None:
    from goeval.metrics.registry import get_measure
    from goeval.stats.compare import compare
    from goeval.stats.store import PROTEIN_STATS_FILE, read_protein_stats, stored_measures

    path = part.path / PROTEIN_STATS_FILE
    stats, options = read_protein_stats(path)
    _check_blocks(stats, part.summary, path)
    where = f"{kind} targets: " if kind else ""
    methods = list(dict.fromkeys(m for m, _ns in stats))
    if len(methods) < 2:
        out.notes.append(f"{where}one method ({', '.join(methods)}): nothing to compare")
        return
    settings = _settings(part.diagnostics)
    out.settings[kind] = settings
    _, lacking = stored_measures(options, measures)
    for name in measures:
        if get_measure(name).needs_ia and not options.get("ia"):
            out.notes.append(f"{where}{name} not compared: the run had no information accretion")
            continue
        if get_measure(name).name in lacking:
            out.notes.append(f"{where}{name} not compared: {PROTEIN_STATS_FILE} was written by an earlier goeval, "
                             "without its sums (run goeval evaluate --bootstrap again)")
            continue
        result = compare(stats, None, name, n_resamples=settings["n_resamples"], permutations=settings["permutations"],
                         seed=settings["seed"], confidence=settings["confidence"], options=options,
                         with_ia=bool(options.get("ia")), threads=threads)
        out.pairs += [{"targets": kind, **r} if kind else r for r in result.pairs]


def _settings(diagnostics: Mapping[str, Any]) -> dict[str, Any]:
    """The run's bootstrap settings (``diagnostics.json``), its resamples also the permutations' number."""
    boot = diagnostics.get("bootstrap") if isinstance(diagnostics.get("bootstrap"), Mapping) else {}
    n = int(boot.get("n_resamples", 1000))
    return {"n_resamples": n, "permutations": n, "seed": int(boot.get("seed", 0)),
            "confidence": float(boot.get("confidence", 0.95))}


def _check_blocks(stats: Mapping[tuple[str, str], Any], summary: Any, path: Path) -> None:
    """Every (method, namespace) of ``protein_stats.npz`` is one of the summary beside it (one run's files)."""
    if summary is None:
        return
    listed = set(zip(summary["method"], summary["namespace"]))
    stray = sorted(k for k in stats if k not in listed)
    if stray:
        raise GoevalError(f"{path}: holds {', '.join(f'{m} ({ns})' for m, ns in stray)}, which summary.tsv beside it "
                          "does not list: the two files come from different runs; run the evaluation with "
                          "--bootstrap again.")
