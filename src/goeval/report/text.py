"""Plain-text tables for the terminal."""

from __future__ import annotations

from typing import Any


__all__ = ["format_summary", "format_diagnostics", "format_table"]


def format_table(rows: list[list[str]], header: list[str]) -> str:
    """Left-aligned text table."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)] if rows else [len(h) for h in header]
    line = lambda r: "  ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def _num(v: Any, fmt: str) -> str:
    return "" if v is None or v != v else format(v, fmt)  # v != v: NaN


def format_summary(summary: Any) -> str:
    """One line per (method, namespace, measure) with the optimum and its context.

    ``summary``: a list of records or a DataFrame with the summary columns.
    """
    records = summary if isinstance(summary, list) else summary.to_dict("records")
    rows = []
    for r in records:
        rows.append([
            r["method"], r["namespace"], r["measure"], _num(r["value"], ".4f"), _num(r["threshold"], ".4g"),
            _num(r["coverage"], ".3f"), _num(r["precision"], ".3f"), _num(r["recall"], ".3f"),
            _num(r["ru"], ".3f"), _num(r["mi"], ".3f"),
        ])
    return format_table(rows, ["method", "ns", "measure", "value", "tau", "cov", "pr", "rc", "ru", "mi"])


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
