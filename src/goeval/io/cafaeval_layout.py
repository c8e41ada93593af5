"""CAFA-evaluator's file layout: ``evaluation_all.tsv`` and ``evaluation_best_<metric>.tsv``.

The frames come from :func:`goeval.compat.cafaeval_frames` (or
:func:`goeval.compat.cafa_eval`): ``df`` indexed by (``filename``, ``ns``,
``tau``) and one frame per metric. The files have cafaeval 1.3.0's header
(the index names first, then its columns in its order), tab-separated, so
``pd.read_csv(path, sep="\\t")`` - what CAFA-evaluator's plotting notebook
does - gives the same frame. One difference: cafaeval rounds every float to
``ceil(-log10(th_step)) + 1`` decimals (``%.3f`` at step 0.01); goeval
writes the shortest text that reads back to the same double (``0.06``, not
``0.060``; ``262.0``, not ``262.000``), so nothing is lost.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from goeval.io.files import PathLike
from goeval.io.results import write_frames

__all__ = ["write_cafaeval_layout", "cafaeval_layout_tables"]


def _columns(frame: Any) -> dict[str, Any]:
    """A DataFrame's index levels, then its columns, as name -> array."""
    flat = frame.reset_index()
    return {str(c): flat[c].to_numpy() for c in flat.columns}


def cafaeval_layout_tables(df: Any, dfs_best: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """File name -> columns of every file of the layout (to write with other files as one set).

    Parameters
    ----------
    df : pandas.DataFrame
        cafaeval's ``df`` (index ``filename``, ``ns``, ``tau``).
    dfs_best : mapping of str to pandas.DataFrame
        cafaeval's ``dfs_best`` (metric -> rows at the optimum, ``cov_max`` last).

    Returns
    -------
    dict
        ``evaluation_all.tsv`` and ``evaluation_best_<metric>.tsv`` for each metric.
    """
    tables = {"evaluation_all.tsv": _columns(df)}
    for metric, frame in dfs_best.items():
        tables[f"evaluation_best_{metric}.tsv"] = _columns(frame)
    return tables


def write_cafaeval_layout(out_dir: PathLike, df: Any, dfs_best: Mapping[str, Any]) -> dict[str, Path]:
    """Write ``evaluation_all.tsv`` and ``evaluation_best_<metric>.tsv`` into ``out_dir`` as one set.

    The directory is created if needed; every file appears, or none changes
    (:func:`~goeval.io.results.write_frames`). Floats are written in
    shortest round-trip form.

    Returns
    -------
    dict of str to Path
        File name -> path.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return write_frames(out, cafaeval_layout_tables(df, dfs_best))
