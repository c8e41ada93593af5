"""Plain-text tables for the terminal."""

from __future__ import annotations

from typing import Any


__all__ = ["format_summary", "format_column", "cafaeval_note", "format_diagnostics", "format_table", "describe_reading", "describe_methods", "describe_ia", "describe_targets", "format_report",
           "plural"]


def format_table(rows: list[list[str]], header: list[str], rule: bool = True) -> str:
    """Left-aligned text table (``rule``: a line of dashes under the header)."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)] if rows else [len(h) for h in header]
    line = lambda r: "  ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header)] + ([line(["-" * w for w in widths])] if rule else []) + [line(r) for r in rows])


def format_group_table(result: Any) -> str:
    """The compact table of a run with groups: per namespace and group (with its benchmark proteins), each
    method's headline optimum (weighted Fmax with IA, else Fmax) and its interval after a bootstrap.

    Empty for a run without groups.
    """
    groups = getattr(result, "groups", None)
    if not groups:
        return ""
    parts = [("all", result), *groups.items()]
    records = [r for _, res in parts for r in res.summary_records]
    measure = "wfmax" if any(r["measure"] == "wfmax" for r in records) else "fmax"
    methods = list(dict.fromkeys(r["method"] for r in records))
    spaces = list(dict.fromkeys(r["namespace"] for r in records if r["measure"] == measure))
    rows = []
    for ns in spaces:
        for name, res in parts:
            n = _benchmark_proteins(res, ns)
            cells = {r["method"]: r for r in res.summary_records if r["namespace"] == ns and r["measure"] == measure}
            rows.append([ns, name, f"{int(n):,}"] + [_cell(cells.get(m)) for m in methods])
    return format_table(rows, ["ns", "group", "proteins", *methods]) + f"\n({measure} per group)"


def _benchmark_proteins(res: Any, ns: str) -> int:
    """A result's benchmark proteins in ``ns``: its diagnostics', else its curves' ``n_proteins`` (pooled runs)."""
    n = res.diagnostics.get("namespaces", {}).get(ns, {}).get("benchmark_proteins")
    if n is not None:
        return int(n)
    import numpy as np  # deferred: this module is read at start-up, before numpy is needed

    cols = res.curve_columns or {}
    if "n_proteins" not in cols or "namespace" not in cols:
        return 0
    sel = np.asarray(cols["namespace"]) == ns
    return int(np.asarray(cols["n_proteins"])[sel].max()) if sel.any() else 0


def _cell(r: dict[str, Any] | None) -> str:
    if r is None:
        return "-"
    ci = _ci(r)
    return f"{r['value']:.4f}" + (f" {ci}" if ci else "")


def format_column(values: Any, decimals: int = 4, missing: str = "") -> list[str]:
    """A column of numbers in one format: ``decimals`` fixed decimals for every value.

    A non-zero value that would print as zero is written ``<0.0001`` (with
    ``decimals`` decimals), so a column never mixes ``0.8``, ``0.6363`` and
    ``2.58e-05``; files keep full precision.

    Parameters
    ----------
    values : iterable of float or None
        The column.
    decimals : int, default 4
    missing : str, default ''
        The text of None and NaN.

    Returns
    -------
    list of str

    Examples
    --------
    >>> format_column([0.8, 0.419, 0.63634, 2.58e-05, None])
    ['0.8000', '0.4190', '0.6363', '<0.0001', '']
    """
    out = []
    tiny = 0.5 * 10.0 ** -decimals
    for v in values:
        if v is None or v != v:
            out.append(missing)
        elif v != 0 and abs(v) < tiny:
            out.append(f"{'-' if v < 0 else ''}<{10.0 ** -decimals:.{decimals}f}")
        else:
            out.append(format(v, f".{decimals}f"))
    return out


def _num(v: Any, fmt: str) -> str:
    return "" if v is None or v != v else format(v, fmt)  # v != v: NaN


def format_summary(summary: Any) -> str:
    """One line per (method, namespace, measure) with the optimum and its context.

    ``summary``: a list of records or a DataFrame with the summary columns.
    The threshold column has one format (:func:`format_column`, 4 decimals).
    """
    records = summary if isinstance(summary, list) else summary.to_dict("records")
    with_ci = any("ci_low" in r for r in records)
    rows = []
    taus = format_column([r["threshold"] for r in records])
    for r, tau in zip(records, taus):
        value = r["value"]
        rows.append([
            r["method"], r["namespace"], r["measure"], "nan" if value is not None and value != value else
            _num(value, ".4f"), tau,
            _num(r["coverage"], ".3f"), _num(r["precision"], ".3f"), _num(r["recall"], ".3f"),
            _num(r["ru"], ".3f"), _num(r["mi"], ".3f"),
        ] + ([_ci(r)] if with_ci else []))
    header = ["method", "ns", "measure", "value", "tau", "cov", "pr", "rc", "ru", "mi"]
    return format_table(rows, header + (["CI"] if with_ci else []))


#: Presets that score as CAFA-evaluator does (its thresholds, its counting): no threshold note under them.
CAFAEVAL_PRESETS = ("cafa5", "cafa6")


def cafaeval_note(measures: Any, thresholds: Any, preset: str | None = None) -> list[str]:
    """Footnote lines under a summary table: CAFA-evaluator's names where goeval's mean something else.

    Parameters
    ----------
    measures : iterable of str
        The measures in the table.
    thresholds : 'exact', float or str
        The run's ``thresholds`` option (``'arange:STEP'`` is CAFA-evaluator's own grid).
    preset : str, optional
        The run's preset; under one of :data:`CAFAEVAL_PRESETS` the thresholds are CAFA-evaluator's.

    Returns
    -------
    list of str
        ``smin`` in bits against CAFA-evaluator's ``s`` (``smin_terms``),
        when the table has either; the thresholds when they are not
        CAFA-evaluator's; the pointer to ``docs/cafaeval.md``. Empty when
        nothing differs.

    Examples
    --------
    >>> cafaeval_note(["fmax"], "arange:0.001")
    []
    >>> cafaeval_note(["fmax"], "exact")[0]
    'note: tau: every distinct score (CAFA-evaluator: a 0.01 grid, -th_step).'
    """
    parts = []
    if {"smin", "smin_terms"} & set(measures):
        parts.append("smin is in bits (CAFA-evaluator's s_w); CAFA-evaluator's s counts terms: smin_terms here.")
    grid = not (preset in CAFAEVAL_PRESETS or str(thresholds).startswith("arange:"))
    if grid and thresholds == "exact":
        parts.append("tau: every distinct score (CAFA-evaluator: a 0.01 grid, -th_step).")
    elif str(thresholds).startswith("top:"):
        parts.append("tau: k, the number of best terms kept per protein and namespace before propagation "
                     "(inf: every term); CAFA-evaluator has no rank thresholds.")
    elif grid:
        parts.append(f"tau: exact multiples of {float(thresholds):g} (CAFA-evaluator's np.arange has "
                     "0.48000000000000004 for 0.48).")
    if not parts:
        return []
    lines = [("note: " if i == 0 else "      ") + p for i, p in enumerate(parts)]
    return lines + ["      CAFA-evaluator's names and every difference: docs/cafaeval.md"]


def _ci(r: dict[str, Any]) -> str:
    lo, hi = r.get("ci_low"), r.get("ci_high")
    return "" if lo is None or lo != lo else f"[{lo:.4f}, {hi:.4f}]"


def _walk(prefix: str, d: Any, out: list[str]) -> None:
    if isinstance(d, dict):
        for k, v in d.items():
            _walk(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(d, (int, float)) and not isinstance(d, bool) and d:
        out.append(f"{prefix}: {d:g}" if isinstance(d, float) else f"{prefix}: {d}")


def format_diagnostics(diag: dict[str, Any], keys: tuple[str, ...] = ()) -> str:
    """Non-zero counts of a diagnostics dictionary, one ``path: value`` per line."""
    out: list[str] = []
    for k, v in diag.items():
        if keys and k not in keys:
            continue
        _walk(k, v, out)
    return "\n".join(out)


# ------------------------------------------------------------ console report
_REMAPS = (("alt_id", "alt_id -> primary id"), ("replaced_by", "obsolete -> replaced_by"))
#: Dropped rows by reason: (key, one, many).
_DROPS = (("unknown", "unknown term", "unknown terms"),
          ("obsolete", "obsolete term (no single replaced_by)", "obsolete terms (no single replaced_by)"))
_SKIPS = (("gaf_rows_NOT_qualifier", "GAF row with a NOT qualifier", "GAF rows with a NOT qualifier"),
          ("gaf_rows_other_evidence", "GAF row with a non-experimental evidence code",
           "GAF rows with a non-experimental evidence code"),
          ("zero_scores_dropped", "score of 0", "scores of 0"),
          ("entries_of_proteins_not_in_truth", "line of a protein without truth", "lines of proteins without truth"))


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def _plural(n: int, word: str) -> str:
    return _count(n, word, word + "s")


def plural(n: int, one: str, many: str | None = None) -> str:
    """``n`` (thousands separated) and ``one`` or ``many`` (default ``one + 's'``): every count on the console.

    Examples
    --------
    >>> plural(1, "line"), plural(12345, "line"), plural(1, "GO line"), plural(2, "entry", "entries")
    ('1 line', '12,345 lines', '1 GO line', '2 entries')
    """
    return _count(n, one, one + "s" if many is None else many)


def describe_reading(label: str, d: dict[str, Any]) -> str:
    """One line saying what was read from a file and what was remapped or dropped, by reason.

    ``d`` is the diagnostics of :func:`goeval.annotations.map_table` (and of
    the evaluation's alignment with the truth, for predictions); without
    ``rows_read`` (annotations built in memory, e.g. a baseline's), the line
    says they were given in memory, not that no line was read.

    Examples
    --------
    >>> describe_reading("naive", {"n_proteins": 421})
    'naive: given in memory, 421 proteins'
    >>> describe_reading("blast", {"rows_read": 1, "n_proteins": 1})
    'blast: 1 line read, 1 protein'
    """
    status = d.get("rows_by_term_status", {})
    read = "rows_read" in d
    parts = [f"{label}: {_plural(int(d['rows_read']), 'line') + ' read' if read else 'given in memory'}"]
    if d.get("n_proteins") is not None:
        parts[0] += f", {_plural(int(d['n_proteins']), 'protein')}"
    remapped = [f"{status[k]:,} {text}" for k, text in _REMAPS if status.get(k)]
    dropped = [_count(int(status[k]), one, many) for k, one, many in _DROPS if status.get(k)]
    dropped += [_count(int(d[k]), one, many) for k, one, many in _SKIPS if d.get(k)]
    if remapped:
        parts.append("remapped: " + ", ".join(remapped))
    if dropped:
        parts.append("dropped: " + ", ".join(dropped))
    if d.get("duplicate_pairs"):  # nothing lost: a pair read again (under another evidence code, say) is one pair
        parts.append(_count(int(d["duplicate_pairs"]), "line repeats", "lines repeat") + " a (protein, term) pair "
                     + ("(maximum score kept)" if "zero_scores_dropped" in d else
                        "already read (e.g. under another evidence code): each pair counted once"))
    if d.get("proteins_not_in_truth"):
        parts.append(f"{_plural(int(d['proteins_not_in_truth']), 'protein')} without truth ignored")
    if d.get("header_lines"):
        parts.append("header line skipped")
    if d.get("space_separated_lines"):
        parts.append(f"{_plural(int(d['space_separated_lines']), 'line')} separated by spaces instead of tabs")
    if d.get("mixed_separator_lines"):
        parts.append(f"{_plural(int(d['mixed_separator_lines']), 'line')} mixing tabs and spaces (split on any "
                     "whitespace)")
    if d.get("text_lines"):
        parts.append(f"{_plural(int(d['text_lines']), 'free-text (Text) line')} skipped (not scored)")
    if d.get("max_terms_total_dropped"):
        parts.append(f"{int(d['max_terms_total_dropped']):,} score(s) beyond {int(d['max_terms_total']):,} terms "
                     "per protein dropped")
    return "; ".join(parts)


def describe_ia(d: dict[str, Any]) -> str:
    """One line about an IA file: terms read, unknown, missing (in the evaluated namespaces)."""
    parts = [f"IA {d.get('source', '')}: {_plural(int(d.get('rows', 0)), 'term')} read"]
    for key, text in (("terms_not_in_ontology", "not in the ontology (ignored)"),
                      ("alt_ids_remapped", "given by alt_id (remapped)"),
                      ("non_finite_set_to_zero", "non-finite value set to 0"),
                      ("duplicate_terms", "listed twice with the same value"),
                      ("ontology_terms_missing_from_file", "evaluated terms missing from the file (ia 0)")):
        if d.get(key):
            parts.append(f"{int(d[key]):,} {text}")
    return "; ".join(parts)


def format_report(diag: dict[str, Any], skip: Any = ()) -> list[str]:
    """The console lines of a run's diagnostics: inputs, drops and remaps by reason.

    Reads the sections a run fills (``skipped_files``, ``truth``, ``ia``,
    ``targets``, ``methods``, ``calibration``); absent sections, and those in ``skip``
    (already said when their stage ended), print nothing.
    """
    lines: list[str] = []
    merged = diag.get("ontology", {}).get("duplicate_stanzas_merged") if isinstance(diag.get("ontology"), dict) else None
    if merged:
        shown = ", ".join(f"{m['id']} (lines {m['lines'][0]} and {m['lines'][1]})" for m in merged[:3])
        lines.append(f"ontology {diag['ontology'].get('source', '')}: {_plural(len(merged), 'repeated [Term] stanza')} "
                     f"with the same content read once: {shown}" + (", ..." if len(merged) > 3 else ""))
    for path, reason in diag.get("skipped_files", []):
        lines.append(f"skipped {path}: {reason}")
    if "truth" in diag and "truth" not in skip:
        lines.append(describe_reading(f"truth {diag['truth'].get('source', '')}", diag["truth"]))
    if isinstance(diag.get("ia"), dict) and "rows" in diag["ia"] and "ia" not in skip:
        lines.append(describe_ia(diag["ia"]))
    tg = diag.get("targets")
    if isinstance(tg, dict) and "listed" in tg and "targets" not in skip:  # (a time split counts per namespace)
        lines.append(describe_targets(tg))
    if "methods" not in skip:
        lines += describe_methods(diag.get("methods", {}))
    if isinstance(diag.get("calibration"), str):  # e.g. rank thresholds: no calibration
        lines.append(diag["calibration"])
    return lines


def describe_methods(methods: dict[str, Any], shown: int = 3) -> list[str]:
    """One line per method; methods whose lines say the same (many sets given in memory) share one line.

    Examples
    --------
    >>> describe_methods({f"s{i}": {"n_proteins": 9} for i in range(5)})
    ['5 methods (s0, s1, s2 and 2 more): given in memory, 9 proteins each']
    >>> describe_methods({"a": {"n_proteins": 9}, "b": {"rows_read": 3, "n_proteins": 2}})
    ['a: given in memory, 9 proteins', 'b: 3 lines read, 2 proteins']
    """
    said: dict[str, list[str]] = {}
    for name, d in methods.items():
        said.setdefault(describe_reading("", d)[2:], []).append(name)
    lines = []
    for text, names in said.items():
        if len(names) <= shown:
            lines += [f"{n}: {text}" for n in names]
        else:
            more = f" and {len(names) - shown} more"
            lines.append(f"{len(names)} methods ({', '.join(names[:shown])}{more}): {text} each")
    return lines


def describe_targets(tg: dict[str, Any]) -> str:
    """One line about the targets: listed, with truth, without truth."""
    return (f"targets: {tg['listed']:,} listed, {tg['listed'] - tg['without_truth']:,} with truth"
            + (f", {tg['without_truth']:,} without truth (ignored)" if tg["without_truth"] else ""))
