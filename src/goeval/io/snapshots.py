"""The date of an annotation snapshot: from a GAF header line, else from the file name.

A time split needs t1 later than t0. GO annotation files say when they were
made (``!date-generated: 2019-01-14`` in GAF 2.1, ``!Generated: ...`` in
older files); tables derived from them usually carry the date in their name
(``exp_human_2019-01-29.tsv.gz``, ``goa_human_20190129.gaf``).
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from goeval.io.files import PathLike, read_head

__all__ = ["snapshot_date", "strip_date"]

_HEADER = re.compile(r"^!\s*(?:date-generated|generated|date)\s*:\s*(\d{4})-(\d{2})-(\d{2})", re.I | re.M)
_NAME = re.compile(r"(?<!\d)((?:19|20)\d\d)[-_.]?(0[1-9]|1[0-2])[-_.]?(0[1-9]|[12]\d|3[01])(?!\d)")


def _date(groups: tuple[str, ...]) -> dt.date | None:
    try:
        return dt.date(int(groups[0]), int(groups[1]), int(groups[2]))
    except ValueError:
        return None


def snapshot_date(path: PathLike) -> tuple[dt.date, str] | None:
    """The date of the snapshot in ``path`` and where it was read, or None when neither header nor name says.

    Examples
    --------
    >>> snapshot_date("goa/exp_human_2014-10-12.tsv.gz")[0].isoformat()
    '2014-10-12'
    >>> snapshot_date("truth.tsv") is None
    True
    """
    p = Path(path)
    if p.is_file():
        try:
            head, _ = read_head(p, 1 << 14)
        except Exception:  # noqa: BLE001 - the reader of the file says what is wrong with it
            head = b""
        m = _HEADER.search(head.decode("utf-8", "replace"))
        if m and _date(m.groups()):
            return _date(m.groups()), f"its header line {m.group(0).strip()!r}"  # type: ignore[return-value]
    found = [d for d in (_date(m.groups()) for m in _NAME.finditer(p.name)) if d is not None]
    return (found[-1], f"its name {p.name}") if found else None


def strip_date(name: str) -> str:
    """``name`` without the dates :func:`snapshot_date` reads in a file name (``YYYY-MM-DD``, ``YYYYMMDD``...).

    Examples
    --------
    >>> strip_date("exp_human_2019-01-29"), strip_date("goa_human_20190129"), strip_date("human")
    ('exp_human_', 'goa_human_', 'human')
    """
    return _NAME.sub(lambda m: "" if _date(m.groups()) else m.group(0), name)
