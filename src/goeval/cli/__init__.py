"""Command-line interface: ``goeval <command> ...``.

Each subcommand lives in a module of :mod:`goeval.cli` that defines
``add_arguments(parser)`` and ``run(args) -> int``; its one-line help is in
:data:`goeval.cli.COMMANDS`.
User errors (:class:`goeval.errors.GoevalError`, missing files) end with a
one-paragraph message on stderr and exit status 2, never a traceback.

The command modules import the library inside their functions, never at
the top: ``goeval --help`` imports every command module and ``goeval CMD``
imports its own before parsing, so the command starts fast, and ``goeval
evaluate`` forks its prediction reader while the process is still small
(numpy, pandas and pyarrow, which the reader needs, are loaded; scipy and the
pipeline load in this process while the child reads: :class:`goeval.lazy.LazyModule`).

A run that fails or is interrupted (Ctrl-C: status 130; SIGTERM or SIGHUP:
128 + the signal number) unwinds normally: every forked reader is killed
and reaped, temporary output files are removed, and results already in
place are left as they were.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import socket
import sys
import threading
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from goeval import __version__
from goeval.cli.parsing import GoevalParser, add_common_everywhere, move_global_options
from goeval.errors import GoevalError

__all__ = ["get_parser", "main", "console", "COMMANDS"]

#: Command name -> one-line help, in the order ``goeval --help`` lists them.
COMMANDS: dict[str, str] = {
    "demo": "evaluate the bundled CAFA2 MFO BLAST baseline (no arguments needed)",
    "evaluate": "evaluate predictions against a ground truth: curves, Fmax, weighted Fmax, Smin",
    "cafa6": "the Kaggle CAFA 6 score of submissions: NK, LK and PK targets in one run, the final score and its "
             "interval",
    "validate": "check a submission file against the rules of a competition (CAFA 6): every violation with its line",
    "info": "summarize an ontology: terms, roots, edges, alt_ids, obsolete terms per namespace",
    "ia": "estimate information accretion ia(v) = -log2 Pr(v | parents) from annotations",
    "propagate": "propagate annotations (ancestor closure) or predictions (max / fill) through the ontology",
    "retrieval": "term-centric evaluation: TAP-k per GO term, AUC of interpolated P/R, ROC AUC and AP",
    "tapk": "TAP-k (and ROC_n, MAP, TAP curve) of retrieval lists in the reference tool's format",
    "biocreative": "validate a BioCreative II.5 result file and compute its AUC of the interpolated P/R curve",
    "baseline": "baseline predictions: naive, blast, gotcha, diamondscore, knn-identity",
    "align": "align protein sequences with DIAMOND or BLAST+ and write a hit table",
    "benchmark": "benchmarks of the baselines: k-fold cross-validation (Clark & Radivojac 2013) and CAFA time splits",
    "metric-check": "which measures can be gamed on this benchmark: RC and FPS of every measure from the Artificial "
                    "Dilution Series (Plyusnin et al. 2019)",
    "compare": "paired comparison of methods: bootstrap interval of the difference, win fractions (duels), "
               "permutation p-value with Holm's correction",
    "plot": "figures of a results directory: Clark & Radivojac Fig. 4 panels, coverage, Fmax/Smin with CIs, "
            "TAP vs cutoff",
    "report": "one self-contained HTML page and a Markdown summary of a results directory: rankings, CIs, "
              "figures, diagnostics",
}

def _common_options() -> argparse.ArgumentParser:
    """``-v``, ``-q`` and ``--log-level``, shared by every command."""
    p = GoevalParser(add_help=False)
    g = p.add_argument_group("messages (on stderr; results go to files or stdout)")
    g.add_argument("-v", "--verbose", action="store_true", help="also print debugging messages")
    g.add_argument("-q", "--quiet", action="store_true",
                   help="print only warnings and errors: no progress; results (tables on stdout, files) as without")
    g.add_argument("--log-level", choices=("debug", "info", "warning", "error"),
                   help="message level (default info; -v: debug; -q: warning)")
    return p


class _MessageFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        return text if record.levelno < logging.WARNING else f"goeval: {record.levelname.lower()}: {text}"


class _BarSafeHandler(logging.Handler):
    """Messages on stderr, written around a progress bar that is showing (never glued to it)."""

    def emit(self, record: logging.LogRecord) -> None:
        from goeval.progress import write  # stdlib only: cheap

        try:
            write(self.format(record), sys.stderr)
        except Exception:  # noqa: BLE001 - logging's contract: a failing handler reports, never raises
            self.handleError(record)


@contextmanager
def _messages(args: argparse.Namespace) -> Iterator[None]:
    """Route the ``goeval`` loggers to stderr at the level the options ask for."""
    level = args.log_level or ("warning" if args.quiet else "debug" if args.verbose else "info")
    log = logging.getLogger("goeval")
    handler = _BarSafeHandler()
    handler.setFormatter(_MessageFormatter())
    old = (log.level, log.propagate)
    log.addHandler(handler)
    log.setLevel(level.upper())
    log.propagate = False
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.setLevel(old[0])
        log.propagate = old[1]


def _load(name: str):  # noqa: ANN202 - module
    return importlib.import_module(f"goeval.cli.{name.replace('-', '_')}")


def get_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Return the argument parser of the ``goeval`` command.

    Parameters
    ----------
    only : str, optional
        Import and configure only this subcommand (the others are listed
        with their help line; ``""``: none); used by :func:`main` so that a
        command only imports what it needs.
    """
    parser = GoevalParser(
        prog="goeval",
        description="Ontology-aware evaluation of protein function prediction. Every command takes -v, -q and "
                    "--log-level (and --threads where it applies) before or after its name.",
    )
    parser.add_argument("--version", action="version", version=f"goeval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    common = _common_options()
    for name, help_text in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_text, add_help=False)
            continue
        mod = _load(name)
        p = sub.add_parser(name, help=help_text, description=getattr(mod, "DESCRIPTION", help_text), parents=[common])
        mod.add_arguments(p)
        add_common_everywhere(p, common)
        p.set_defaults(_run=mod.run)
    return parser


class Terminated(KeyboardInterrupt):
    """Raised in the main thread by SIGTERM / SIGHUP, so that a run unwinds."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_PENDING: dict[str, float | None] = {"signal": None, "raised": None}


def _raise_terminated(signum: int, frame: object) -> None:
    _PENDING["signal"], _PENDING["raised"] = signum, time.monotonic()
    raise Terminated(signum)


_UNWIND = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


@contextmanager
def _signals_unwind() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`Terminated` (main thread only), restored after.

    A signal may be delivered to any thread (pyarrow's pool, a reader
    thread), and Python runs its handler in the main thread at the next
    bytecode, which may be inside a callback whose exception is ignored (a
    fork hook, a finalizer) while the main thread then blocks in a system
    call. A watcher thread therefore hears every signal through Python's
    wake-up descriptor and pokes the main thread with SIGUSR2 (which
    interrupts a blocked call and raises the pending termination again) at
    once and twice more, a second apart, while the run has not ended.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _PENDING["signal"] = _PENDING["raised"] = None
    old = {s: signal.signal(s, _raise_terminated) for s in (signal.SIGTERM, signal.SIGHUP)}
    old[signal.SIGUSR2] = signal.signal(signal.SIGUSR2, _poked)
    receive, send = socket.socketpair()
    send.setblocking(False)
    done = threading.Event()
    old_wakeup = signal.set_wakeup_fd(send.fileno(), warn_on_full_buffer=False)
    watcher = threading.Thread(target=_forward_to_main, args=(receive, threading.main_thread().ident, done),
                               name="goeval-signals", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        signal.set_wakeup_fd(old_wakeup)
        send.close()  # the watcher's recv returns b"" and it ends
        watcher.join(timeout=1)
        receive.close()
        for s, handler in old.items():
            signal.signal(s, handler)


def _poked(signum: int, frame: object) -> None:
    """SIGUSR2 from the watcher: raise the pending termination again if the last one
    was raised half a second ago or more (it was swallowed: the run is still here);
    a run already unwinding is left to finish its clean-up."""
    pending, raised = _PENDING["signal"], _PENDING["raised"]
    if pending is None or (raised is not None and time.monotonic() - raised < 0.5):
        return
    _PENDING["raised"] = time.monotonic()
    if pending == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(int(pending))


def _forward_to_main(receive: socket.socket, main: int, done: threading.Event) -> None:
    while not done.is_set():
        try:
            data = receive.recv(64)
        except OSError:
            return
        if not data:
            return
        hit = [b for b in data if b in _UNWIND]
        if not hit:
            continue
        if hit[0] == signal.SIGINT and _PENDING["signal"] is None:
            _PENDING["signal"] = signal.SIGINT
            _PENDING["raised"] = time.monotonic()  # Python's own handler raises KeyboardInterrupt
        for _ in range(3):
            try:
                signal.pthread_kill(main, signal.SIGUSR2)
            except (OSError, ProcessLookupError):  # pragma: no cover - the main thread is gone
                return
            if done.wait(1.0):
                return


def _run(args: argparse.Namespace) -> int:
    try:
        if hasattr(args, "plugin"):  # a command that evaluates or reads measures: the plugins' are registered first
            from goeval.cli.common import load_plugins_of

            load_plugins_of(args)
        return int(args._run(args) or 0)
    except GoevalError as exc:
        print(f"goeval {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        name = getattr(exc, "filename", None) or ""
        print(f"goeval {args.command}: error: cannot access {name!s}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except Terminated as exc:
        print(f"goeval: terminated by signal {exc.signum}", file=sys.stderr)
        return 128 + exc.signum
    except KeyboardInterrupt:
        print("goeval: interrupted", file=sys.stderr)
        return 130


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``goeval`` with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    Forked readers still running when the command ends (an error, an
    interruption) are killed and reaped before this returns.
    """
    argv = move_global_options(list(sys.argv[1:] if argv is None else argv), list(COMMANDS))
    names = set(COMMANDS)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    # without a known command (goeval --help, a misspelt command) no command module is imported
    parser = get_parser(only=chosen if chosen in names else "")
    GoevalParser.given = argv
    args = parser.parse_args(argv)
    if not hasattr(args, "_run"):
        parser.print_help()
        return 2
    args._argv = ["goeval", *argv]
    with _signals_unwind(), warnings.catch_warnings(), _messages(args):
        # late, as in the commands: ``import goeval.cli`` (and --help, a parse error) stays small
        from goeval import progress
        from goeval.cli.common import show_warnings

        show_warnings()
        progress.set_enabled(False if args.quiet else None)
        try:
            return _run(args)
        finally:
            progress.set_enabled(None)
            _cancel_children()


def _cancel_children() -> None:
    module = sys.modules.get("goeval.io.background")
    if module is not None:
        module.cancel_all()


def console() -> None:  # pragma: no cover - the installed ``goeval`` command
    """Entry point of the ``goeval`` command: run :func:`main` and exit.

    All output files are closed, every forked reader reaped and the
    standard streams flushed when :func:`main` returns, so the process ends
    with ``os._exit``: tearing down the interpreter (freeing every array and
    module one by one) would only add a noticeable fraction of a second to
    every run.
    """
    code = main()
    _cancel_children()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        code = code or 1
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
