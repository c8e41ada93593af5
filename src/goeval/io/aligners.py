"""Running a sequence aligner (DIAMOND or NCBI BLAST+) to make a hit table.

:func:`align` validates both FASTA files (:func:`goeval.io.fasta.read_fasta`),
writes them with plain identifiers into a temporary directory, builds the
database, runs the search requesting exactly the columns goeval reads
(:data:`goeval.io.hits.STANDARD_COLUMNS` by default) and writes the hit
table (compressed by extension). The temporary directory is always removed;
the aligner's own progress output is shown only when standard error is a
terminal; on an interrupt or any error the child process is killed before
the error propagates, so no aligner keeps running.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goeval.errors import GoevalError, InvalidParameterError, check_choice
from goeval.io.files import PathLike, open_text_out
from goeval.io.fasta import AMINO_ACIDS, FastaRecords, read_fasta, write_fasta
from goeval.io.hits import KNOWN_COLUMNS, STANDARD_COLUMNS

__all__ = ["AlignerNotFoundError", "AlignerError", "AlignmentResult", "align", "available", "TOOLS"]

#: Supported aligners and the executables each needs.
TOOLS: dict[str, tuple[str, ...]] = {"diamond": ("diamond",), "blastp": ("makeblastdb", "blastp")}

_HINTS = {
    "diamond": "install DIAMOND: 'apt-get install diamond-aligner' (Debian/Ubuntu) or "
               "'conda install -c bioconda diamond'",
    "blastp": "install NCBI BLAST+: 'apt-get install ncbi-blast+' (Debian/Ubuntu) or "
              "'conda install -c bioconda blast'",
}


class AlignerNotFoundError(GoevalError):
    """The aligner's executable is not on the ``PATH``."""


class AlignerError(GoevalError):
    """The aligner ran but failed (non-zero exit status)."""


@dataclass(kw_only=True)
class AlignmentResult:
    """What :func:`align` did.

    Attributes
    ----------
    out : str
        The hit table written.
    tool : str
    version : str
        First line of the aligner's version output.
    commands : list of list of str
        The commands run (temporary paths included).
    columns : tuple of str
        Columns of the hit table, in order.
    hits : int
        Rows written.
    seconds : float
        Wall time of the database build and search.
    counts : dict
        FASTA counts of the query and database files.
    """

    out: str
    tool: str
    version: str
    commands: list[list[str]]
    columns: tuple[str, ...]
    hits: int
    seconds: float
    counts: dict[str, Any] = field(default_factory=dict)


def _executables(tool: str) -> list[str]:
    found = []
    for exe in TOOLS[tool]:
        path = shutil.which(exe)
        if path is None:
            raise AlignerNotFoundError(f"the aligner executable {exe!r} ({tool}) is not on the PATH; {_HINTS[tool]}")
        found.append(path)
    return found


def _version(exe: str, tool: str) -> str:
    args = [exe, "version"] if tool == "diamond" else [exe, "-version"]
    try:
        res = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AlignerError(f"cannot run {exe}: {exc}") from None
    return (res.stdout or res.stderr).strip().splitlines()[0] if (res.stdout or res.stderr).strip() else "unknown"


def _run(cmd: list[str], log: Path) -> None:
    """Run one command; kill it on any exception (KeyboardInterrupt included).

    The child's progress output goes to the terminal when standard error is
    one, else to ``log`` (its tail is quoted if the command fails).
    """
    show = sys.stderr.isatty()
    with open(log, "ab") as fh:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=None if show else fh, stderr=None if show else fh)
        try:
            status = proc.wait()
        except BaseException:
            proc.kill()
            proc.wait()
            raise
    if status != 0:
        tail = log.read_text("utf-8", "replace").strip().splitlines()[-10:] if log.exists() else []
        raise AlignerError(
            f"{Path(cmd[0]).name} failed with exit status {status}: {' '.join(cmd)}"
            + ("\n" + "\n".join(tail) if tail else "")
        )


def _commands(tool: str, exes: list[str], tmp: Path, columns: tuple[str, ...], threads: int,
              evalue: float, sensitive: bool, max_target_seqs: int) -> tuple[list[list[str]], Path]:
    q, d, raw = tmp / "query.fasta", tmp / "db.fasta", tmp / "hits.tsv"
    if tool == "diamond":
        exe = exes[0]
        makedb = [exe, "makedb", "--in", str(d), "--db", str(tmp / "db"), "--threads", str(threads)]
        search = [exe, "blastp", "--db", str(tmp / "db.dmnd"), "--query", str(q), "--out", str(raw),
                  "--outfmt", "6", *columns, "--evalue", repr(float(evalue)), "--threads", str(threads),
                  "--max-target-seqs", str(max_target_seqs), "--tmpdir", str(tmp)]
        if sensitive:
            search.append("--more-sensitive")
        return [makedb, search], raw
    makedb = [exes[0], "-in", str(d), "-dbtype", "prot", "-out", str(tmp / "db")]
    search = [exes[1], "-query", str(q), "-db", str(tmp / "db"), "-out", str(raw),
              "-outfmt", "6 " + " ".join(columns), "-evalue", repr(float(evalue)),
              "-num_threads", str(threads), "-max_target_seqs", str(max_target_seqs)]
    return [makedb, search], raw


def _write_clean(path: Path, rec: FastaRecords) -> None:
    """Residues without stops and gaps (``*``, ``-``: the FASTA reader refuses any other character), plain
    identifiers."""
    keep = [("".join(c for c in s if c in AMINO_ACIDS) if any(c not in AMINO_ACIDS for c in s) else s)
            for s in rec.sequences]
    write_fasta(path, rec.ids, keep)


def _check(tool: str, threads: int, evalue: float, max_target_seqs: int, columns: tuple[str, ...]) -> None:
    check_choice(tool, "tool", "align", tuple(TOOLS))
    if not isinstance(threads, int) or threads < 1:
        raise InvalidParameterError(f"The 'threads' parameter of align must be an integer >= 1; got {threads!r}.")
    if not (evalue > 0):
        raise InvalidParameterError(f"The 'evalue' parameter of align must be a number > 0; got {evalue!r}.")
    if not isinstance(max_target_seqs, int) or max_target_seqs < 1:
        raise InvalidParameterError(
            f"The 'max_target_seqs' parameter of align must be an integer >= 1; got {max_target_seqs!r}.")
    if columns[:2] != ("qseqid", "sseqid") or any(c not in KNOWN_COLUMNS for c in columns[2:]):
        raise InvalidParameterError(
            f"The 'columns' parameter of align must start with qseqid, sseqid followed by names among "
            f"{', '.join(KNOWN_COLUMNS)}; got {list(columns)!r}.")


def align(
    query: PathLike,
    db: PathLike,
    out: PathLike,
    *,
    tool: str = "diamond",
    threads: int = 1,
    evalue: float = 1e-3,
    sensitive: bool = False,
    max_target_seqs: int = 500,
    columns: tuple[str, ...] = STANDARD_COLUMNS,
) -> AlignmentResult:
    """Align ``query`` against ``db`` and write a tabular hit table to ``out``.

    Parameters
    ----------
    query, db : str or path-like
        Protein FASTA files (``.gz`` accepted); identifiers are reduced as by
        :func:`goeval.io.fasta.read_fasta` (UniProt ``sp|ACC|NAME`` -> ``ACC``).
    out : str or path-like
        Hit table, ``-outfmt 6`` with ``columns``; gzip if it ends in ``.gz``.
    tool : {'diamond', 'blastp'}
        DIAMOND (``diamond makedb`` + ``diamond blastp``) or NCBI BLAST+
        (``makeblastdb`` + ``blastp``).
    threads : int
    evalue : float
        Maximum E-value reported (``--evalue`` / ``-evalue``).
    sensitive : bool
        DIAMOND's ``--more-sensitive`` mode (the mode of the shared all-vs-all
        table); ``blastp`` is always run with its default (sensitive) settings.
    max_target_seqs : int
        Hits kept per query (DIAMOND's default is 25; CAFA-style transfer wants more).
    columns : tuple of str
        Output columns (default: the 12 standard ones, which is what
        :func:`goeval.io.hits.read_hits` reads without ``hit_columns``).

    Returns
    -------
    AlignmentResult

    Raises
    ------
    AlignerNotFoundError
        An executable is missing (the message says how to install it).
    AlignerError
        The aligner failed.
    InputFormatError
        A FASTA file is malformed.
    """
    columns = tuple(columns)
    _check(tool, threads, evalue, max_target_seqs, columns)
    qrec, drec = read_fasta(query), read_fasta(db)  # bad input is said before anything else
    exes = _executables(tool)
    version = _version(exes[-1], tool)
    tmp = Path(tempfile.mkdtemp(prefix="goeval-align-"))
    try:
        _write_clean(tmp / "query.fasta", qrec)
        _write_clean(tmp / "db.fasta", drec)
        cmds, raw = _commands(tool, exes, tmp, columns, threads, evalue, sensitive, max_target_seqs)
        t0 = time.perf_counter()
        for cmd in cmds:
            _run(cmd, tmp / "aligner.log")
        seconds = time.perf_counter() - t0
        n = _copy_hits(raw, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    counts = {"query": dict(qrec.counts, source=qrec.source), "db": dict(drec.counts, source=drec.source)}
    return AlignmentResult(out=str(out), tool=tool, version=version, commands=cmds, columns=columns, hits=n,
                           seconds=seconds, counts=counts)


def _copy_hits(raw: Path, out: PathLike) -> int:
    """Copy the aligner's table to ``out`` (compressed by extension); return its rows."""
    n = 0
    with open(raw, encoding="utf-8", newline="\n") as src, open_text_out(out) as dst:
        while True:
            data = src.read(1 << 22)
            if not data:
                break
            n += data.count("\n")
            dst.write(data)
    return n


def available(tool: str) -> bool:
    """True when every executable of ``tool`` is on the ``PATH`` (tests skip otherwise)."""
    return all(shutil.which(e) is not None for e in TOOLS[tool])

