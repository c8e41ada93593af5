"""Options and helpers shared by several subcommands."""

from __future__ import annotations

import argparse
import logging
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from goeval.cli.parsing import ExtendValues
from goeval.progress import write  # stdlib only

# The library, and what only a run needs, is imported inside the functions below (start-up: see goeval.cli).

__all__ = [
    "add_ontology",
    "add_cache_options",
    "add_figure_arguments",
    "add_plugin_argument",
    "load_plugins_of",
    "cache_arg",
    "comma_list",
    "show_warnings",
    "add_option_fields",
    "add_run_fields",
    "options_from_args",
    "run_options_from_args",
    "say",
    "show",
    "report_lines",
    "run_output",
    "say_run_output",
    "say_notes",
    "check_measure_names",
    "say_unregistered",
    "read_ontology",
    "read_annotations",
    "read_hit_table",
    "add_groups",
    "groups_from_args",
]


def comma_list(text: str) -> list[str]:
    """``"a,b"`` -> ``["a", "b"]``; an empty item (``"a,,b"``, ``""``) is an error."""
    items = [x.strip() for x in text.split(",")]
    if not text.strip() or any(not x for x in items):
        raise argparse.ArgumentTypeError(f"expected a list of names (comma-separated, no empty item); got {text!r}")
    return items


def add_ontology(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("--ontology", required=required, metavar="OBO", help="ontology in OBO format (.obo, .gz, .bz2, .xz)")
    p.add_argument("--relations", type=comma_list, action=ExtendValues, default=("is_a", "part_of"), metavar="R1,R2",
                   help="relations to follow (default: is_a,part_of)")
    add_cache_options(p)


def add_figure_arguments(p: argparse.ArgumentParser) -> None:
    """``--top`` and ``--baselines``: the methods the top-N bars rank and those they draw apart (``goeval plot``,
    ``goeval report``)."""
    p.add_argument("--top", type=positive_int, default=10, metavar="N",
                   help="the number of methods the top-N bars rank per namespace and measure (default 10)")
    p.add_argument("--baselines", type=comma_list, action=ExtendValues, default=(), metavar="NAME[,NAME]",
                   help="methods drawn as baselines (apart, not ranked) besides naive, blast and gotcha (any case)")


def add_plugin_argument(p: argparse.ArgumentParser) -> None:
    """``--plugin MODULE`` (repeatable): measures of a user's module, loaded before the command runs
    (:func:`load_plugins_of`)."""
    p.add_argument("--plugin", action="append", metavar="MODULE",
                   help="load the measures a module registers before the run: an importable module name, or the "
                        "path of a .py file; repeat for several. Installed plugins (entry point group "
                        "goeval.measures) are always loaded. See docs/architecture.md, Share a measure: a plugin")


def load_plugins_of(args: argparse.Namespace) -> None:
    """Load the installed measure plugins and those of ``--plugin``, and say which measures they gave (one line).

    Raises
    ------
    GoevalError
        A plugin that cannot be loaded (named, with its error).
    """
    from goeval.errors import GoevalWarning
    from goeval.metrics.plugins import load_plugins

    plugins = load_plugins(getattr(args, "plugin", None) or ())
    if not plugins:
        return
    said = []
    for p in plugins:
        dist = f"distribution {p.distribution} {p.version}".rstrip() if p.distribution else ""
        where = ", ".join(x for x in (dist, p.loaded_by) if x)
        said.append(f"{', '.join(p.measures) or 'no measure'} from {p.module} ({where})")
        if not p.measures:
            warnings.warn(f"the plugin {p.name!r} ({p.loaded_by}) registered no measure", GoevalWarning,
                          stacklevel=2)
    say(args, "measures of plugins: " + "; ".join(said))


def add_cache_options(p: argparse.ArgumentParser) -> None:
    """``--ontology-cache PATH`` and ``--no-cache`` (the compiled-ontology cache)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--ontology-cache", metavar="PATH", default=None,
                   help="compiled-ontology cache file (or directory) to read, or to write after parsing the OBO "
                        "(default: one file per ontology in $GOEVAL_CACHE_DIR, else ~/.cache/goeval)")
    g.add_argument("--no-cache", action="store_true", default=False,
                   help="parse the OBO file without reading or writing the compiled-ontology cache")


def cache_arg(args: argparse.Namespace):  # noqa: ANN201 - bool or str
    """The ``cache`` argument of :func:`goeval.load_ontology` given by the options (True by default)."""
    if getattr(args, "no_cache", False):
        return False
    return getattr(args, "ontology_cache", None) or True


def _add_fields(p: argparse.ArgumentParser, declared: tuple[Any, ...], *, defaults: bool) -> None:
    """One flag per declared option field: help, choices and metavar from its declaration; the value is
    checked (and converted from its text) by the field's constraint when the options are created.

    ``defaults``: the field's default as the flag's; otherwise an option not given is absent (so that a
    preset's value stands). A list of names (``--namespaces BPO,MFO``) adds the names of each repetition.
    """
    from goeval.options import Names, WangWeights

    for f in declared:
        meta = dict(f.metadata)
        constraint = meta.pop("constraint")
        kwargs: dict[str, Any] = {"dest": f.name, "help": meta.pop("help"),
                                  "default": f.default if defaults else argparse.SUPPRESS}
        flag = "--" + f.name.replace("_", "-")
        if f.type in (bool, "bool"):
            p.add_argument(flag, action="store_true", **kwargs)
        elif isinstance(constraint, (Names, WangWeights)):  # lists: each repetition adds its items
            p.add_argument(flag, type=comma_list, action=ExtendValues, **kwargs, **meta)
        else:
            p.add_argument(flag, **kwargs, **meta)


def add_option_fields(p: argparse.ArgumentParser, skip: tuple[str, ...] = ("relations",)) -> None:
    """Add one flag per field of :class:`~goeval.options.EvaluationOptions` (declared there, so the command
    line cannot drift from the library)."""
    from goeval.options import FIELDS

    _add_fields(p, tuple(f for f in FIELDS if f.name not in skip), defaults=False)


def add_run_fields(p: argparse.ArgumentParser, names: tuple[str, ...]) -> None:
    """Add the flags of these :class:`~goeval.options.RunOptions` fields."""
    from goeval.options import RUN_FIELDS

    _add_fields(p, tuple(f for f in RUN_FIELDS if f.name in names), defaults=True)


def run_options_from_args(args: argparse.Namespace):  # noqa: ANN201 - RunOptions
    """The validated :class:`~goeval.options.RunOptions` of parsed arguments (fields not offered keep defaults)."""
    from goeval.options import RUN_FIELDS, RunOptions

    with _flags_named():
        return RunOptions(**{f.name: getattr(args, f.name) for f in RUN_FIELDS if hasattr(args, f.name)})


def options_from_args(args: argparse.Namespace, with_ia: bool = True):  # noqa: ANN201 - EvaluationOptions
    """The validated :class:`~goeval.options.EvaluationOptions` of parsed arguments.

    Options given on the command line override those of ``--preset``.
    """
    from goeval.options import FIELDS

    values = {f.name: getattr(args, f.name) for f in FIELDS if hasattr(args, f.name)}
    run = run_options_from_args(args)
    with _flags_named():
        return run.options(None, with_ia=with_ia, **values)


@contextmanager
def _flags_named() -> Iterator[None]:
    """An option's error names the flag the user typed (``--bootstrap``), not the parameter of the Python
    function it is checked for (``The 'bootstrap' parameter of evaluate``), whichever command runs."""
    import re

    from goeval.errors import InvalidParameterError

    try:
        yield
    except InvalidParameterError as exc:
        text = re.sub(r"The '(\w+)' parameter of \w+", lambda m: "The option --" + m.group(1).replace("_", "-"),
                      str(exc))
        raise InvalidParameterError(text.replace(" or None; got", "; got")) from exc


def show_warnings() -> None:
    """Print every warning as one line on stderr (``goeval: warning: ...``), each text once."""
    seen: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
        text = str(message)
        if text in seen:
            return
        seen.add(text)
        write(f"goeval: warning: {text}", sys.stderr)

    warnings.showwarning = show  # type: ignore[assignment]
    warnings.simplefilter("always")


def say(args: argparse.Namespace, *lines: str) -> None:
    """Log ``lines`` as messages (stderr; hidden by ``--quiet``, see :mod:`goeval.cli`)."""
    log = logging.getLogger("goeval.cli")
    for line in lines:
        log.info(line)


def show(args: argparse.Namespace, *lines: str) -> None:
    """Print result ``lines`` (tables) on stdout, also under ``--quiet`` (which quiets messages and bars, never
    results: ``goeval evaluate -q --format tsv > out.tsv`` writes the table)."""
    for line in lines:
        print(line)


def report_lines(args: argparse.Namespace, diagnostics: dict[str, Any]) -> None:
    """Say what was read, remapped and dropped (by reason), as messages."""
    from goeval.report.text import format_report

    say(args, *format_report(diagnostics, skip=getattr(diagnostics, "said", ())))


def run_output(args: argparse.Namespace, out: Any):  # noqa: ANN201 - RunOutput
    """The :class:`~goeval.io.manifest.RunOutput` of a command writing the results directory ``out`` (its
    manifest records the command line and where the measures that are not goeval's own came from)."""
    from goeval.io.manifest import RunOutput
    from goeval.metrics.plugins import measure_sources

    return RunOutput(out, getattr(args, "_argv", None) or [], measure_sources())


def _names(names: list[str], shown: int = 6) -> str:
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


def say_run_output(args: argparse.Namespace, run: Any) -> None:
    """Say which files of an earlier run a run removed, and which files it left that no run of it wrote."""
    from goeval.report.text import plural

    if run.removed:
        say(args, f"{run.directory}/: removed {plural(len(run.removed), 'file')} of the earlier run that this run "
                  f"did not write: {_names(run.removed)}")
    if run.foreign:
        say(args, f"{run.directory}/: left {plural(len(run.foreign), 'file')} that this run did not write and no "
                  f"goeval manifest lists (compare, report and plot do not read them): {_names(run.foreign)}")


def say_notes(results: Any) -> None:
    """Warn about what a reader noticed in a results directory (no manifest, no summary), parts included."""
    from goeval.errors import GoevalWarning

    for part in [results, *getattr(results, "parts", {}).values()]:
        for note in part.notes:
            warnings.warn(note, GoevalWarning, stacklevel=2)


def _registered(name: str) -> bool:
    from goeval.errors import InvalidParameterError
    from goeval.metrics.registry import get_measure

    try:
        get_measure(name)
    except InvalidParameterError:
        return False
    return True


def check_measure_names(names: Any, folder: Any) -> None:
    """Refuse a measure asked for (``--measure``, ``--compare``) that the registry does not know but the results
    ``folder`` recorded as a plugin's: the error names the plugin and how to load it (any other unknown name is
    left to the registry's own message, which lists the known names).

    Raises
    ------
    GoevalError
        Naming the measure, the module its run loaded it from, and ``--plugin MODULE`` (or the distribution).
    """
    from pathlib import Path

    from goeval.errors import GoevalError
    from goeval.io.manifest import find_manifest
    from goeval.metrics.plugins import unregistered_measure

    names = [names] if isinstance(names, str) else list(names)
    missing = [n for n in names if not _registered(n)]
    if not missing or not Path(folder).is_dir():
        return
    manifest = find_manifest(folder)
    recorded = manifest.measures if manifest is not None else {}
    for name in missing:
        if name in recorded:
            raise GoevalError(unregistered_measure(name, f"{manifest.directory}/", recorded))


def say_unregistered(results: Any) -> None:
    """Warn about each measure of a results folder's summaries that the registry does not know (its rows are shown
    by name, unranked, in no figure), naming the plugin its run recorded and how to load it."""
    from goeval.errors import GoevalWarning
    from goeval.io.manifest import find_manifest
    from goeval.metrics.plugins import unregistered_measure

    manifest = find_manifest(results.path)
    recorded = manifest.measures if manifest is not None else {}
    for part in [results, *getattr(results, "parts", {}).values()]:
        if part.summary is None:
            continue
        for name in dict.fromkeys(part.summary["measure"].tolist()):
            if not _registered(name):
                warnings.warn(unregistered_measure(name, f"{part.path}/summary.tsv", recorded), GoevalWarning,
                              stacklevel=2)


def number_arg(kind: type, minimum: float, *, strict: bool):  # noqa: ANN201 - argparse type
    """An argparse type: ``kind`` (int or float) ``> minimum`` (``strict``) or ``>= minimum``."""
    word = "an integer" if kind is int else "a number"
    bound = f"> {minimum:g}" if strict else f">= {minimum:g}"

    def parse(text: str):  # noqa: ANN202
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {word}; got {text!r}") from None
        if not (v > minimum if strict else v >= minimum):
            raise argparse.ArgumentTypeError(f"expected {word} {bound}; got {text!r}")
        return v

    return parse


positive_int = number_arg(int, 0, strict=True)
positive_float = number_arg(float, 0, strict=True)
non_negative_float = number_arg(float, 0, strict=False)


def read_ontology(args: argparse.Namespace, relations: Any = None):  # noqa: ANN201 - Ontology
    """``--ontology`` read (or taken from the compiled cache) as a stage: ``ontology PATH: N terms, from ...``."""
    from goeval.io.ontology_cache import load_cached_ontology
    from goeval.progress import stage
    from goeval.report.text import plural

    relations = tuple(args.relations if relations is None else relations)
    with stage(f"reading the ontology {args.ontology}") as st:
        onto, record = load_cached_ontology(args.ontology, relations, cache_arg(args))
        st.line = f"ontology {args.ontology}: {plural(onto.n_terms, 'term')}, {record.describe_short()}"
    return onto


def _files(paths: list[Any]) -> str:
    return str(paths[0]) if len(paths) == 1 else f"{len(paths)} files"


def read_annotations(args: argparse.Namespace, paths: Any, onto: Any, label: str):  # noqa: ANN201 - Annotations
    """Annotation files (TSV or GAF, merged) read as a stage, file by file, its line saying what was dropped.

    With several files each file's own line follows at ``-v``.
    """
    from goeval.annotations import merge_annotations
    from goeval.inputs import load_annotations
    from goeval.progress import stage
    from goeval.report.text import describe_reading

    paths = [paths] if not isinstance(paths, (list, tuple)) else list(paths)
    with stage(f"reading {label}", total=len(paths), unit="file") as st:
        parts = []
        for path in paths:
            parts.append(load_annotations(path, onto))
            st.update()
        ann = parts[0] if len(parts) == 1 else merge_annotations(parts)
        d = {**ann.diagnostics, "n_proteins": int(ann.proteins.size)}
        st.line = describe_reading(f"{label} {_files(paths)}", d)
    if len(parts) > 1:
        log = logging.getLogger("goeval.cli")
        for part in d.get("parts", []):
            log.debug(describe_reading(f"  {part.get('source')}", part))
    return ann


def read_hit_table(args: argparse.Namespace):  # noqa: ANN201 - HitTable or None
    """The hit table of ``--hits`` (None without) read as a stage, its line saying what it holds."""
    if getattr(args, "hits", None) is None:
        return None
    from goeval.io.hits import read_hits
    from goeval.progress import stage
    from goeval.report.text import plural

    with stage(f"reading the hits {args.hits}") as st:
        hits = read_hits(args.hits, args.hit_columns)
        c = hits.counts
        notes = [f"columns {' '.join(c['columns'])}" + (" (from its header line)" if c.get("header_lines") else "")]
        if c.get("comment_lines"):
            notes.append(f"{plural(c['comment_lines'], 'comment line')} skipped")
        st.line = (f"hits {args.hits}: {plural(len(hits), 'hit')}, {plural(hits.queries.size, 'query', 'queries')}, "
                   f"{plural(hits.ids.size, 'sequence')}; " + "; ".join(notes))
    return hits


def add_groups(p: argparse.ArgumentParser, derived: str) -> None:
    """``--groups FILE`` and ``--groups-from KIND`` (``derived``: the kinds this command can derive)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--groups", metavar="FILE",
                   help="evaluate every group of proteins too (protein<TAB>group lines; a protein may be in several "
                        "groups): each group's results are those of a run on its proteins alone (groups.tsv, groups/)")
    g.add_argument("--groups-from", metavar="KIND",
                   help=f"groups derived by goeval: {derived} (docs/conventions.md, Groups of proteins)")


def groups_from_args(args: argparse.Namespace, **sources: Any) -> Any:
    """The :class:`~goeval.benchmarks.groups.ProteinGroups` of ``--groups`` / ``--groups-from``, or None.

    ``sources`` gives what a derivation needs (``files``, ``taxa``: paths; ``depth``: the truth Annotations;
    ``identity``: ``(hits, targets, training)``); a derivation without its source is refused naming the kind.
    """
    from goeval.benchmarks import groups as pg
    from goeval.errors import InvalidParameterError

    if getattr(args, "groups", None):
        return pg.read_groups(args.groups)
    text = getattr(args, "groups_from", None)
    if not text:
        return None
    kind, numbers = pg.parse_groups_from(text)
    if sources.get(kind) is None:
        raise InvalidParameterError(f"--groups-from {kind} is not available in this command; it takes "
                                    f"{', '.join(k for k, v in sources.items() if v is not None) or 'none'}.")
    src = sources[kind]
    if kind == "files":
        return pg.groups_from_files(src)
    if kind == "taxa":
        return pg.groups_from_taxa(src)
    if kind == "depth":
        return pg.depth_groups(src, numbers) if numbers else pg.depth_groups(src)
    hits, targets, training = src
    return pg.identity_groups(hits, targets, training, numbers) if numbers else \
        pg.identity_groups(hits, targets, training)
