"""Plain-text tables for the terminal."""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["format_summary", "format_diagnostics", "format_table"]


def format_table(rows: list[list[str]], header: list[str]) -> str:
    """Left-aligned text table."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)] if rows else [len(h) for h in header]
    line = lambda r: "  ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def format_summary(summary: pd.DataFrame) -> str:
    """One line per (method, namespace, measure) with the optimum and its context."""
    rows = []
    for r in summary.itertuples(index=False):
        rows.append([
            r.method, r.namespace, r.measure, f"{r.value:.4f}", f"{r.threshold:.4g}", f"{r.coverage:.3f}",
            f"{r.precision:.3f}", f"{r.recall:.3f}",
            "" if pd.isna(r.ru) else f"{r.ru:.3f}", "" if pd.isna(r.mi) else f"{r.mi:.3f}",
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
