"""Exception and warning hierarchy of goeval.

Every error raised on user input derives from :class:`GoevalError`, so the
command line can turn it into a one-paragraph message and exit status 2
instead of a traceback.
"""

from __future__ import annotations

from os import PathLike

__all__ = [
    "GoevalError",
    "OntologyError",
    "InputFormatError",
    "InvalidParameterError",
    "OutputError",
    "GoevalWarning",
    "DuplicateTermError",
]


class GoevalError(Exception):
    """Base class of every error goeval raises on user input."""


class OntologyError(GoevalError):
    """The ontology is unusable (a cycle, no terms, no root, ...)."""


class InvalidParameterError(GoevalError, ValueError):
    """A parameter has a value outside its documented domain.

    Messages follow one template::

        The 'normalization' parameter of evaluate must be one of
        {'cafa', 'pred', 'gt'}; got 'foo'.
    """


class OutputError(GoevalError):
    """A result cannot be written (not a directory, not writable, disk full).

    Raised before any work when the output location is unusable, and while
    writing when the disk fills up; a partly written file is removed.
    """


class InputFormatError(GoevalError):
    """A line of an input file cannot be parsed.

    Parameters
    ----------
    path : str or path-like or None
        File the line comes from (``None`` for in-memory input).
    line : int or None
        1-based line number.
    problem : str
        What is wrong and, where useful, what to do about it.
    text : str or None
        The offending text (truncated to 200 characters).
    """

    def __init__(
        self,
        path: str | PathLike[str] | None,
        line: int | None,
        problem: str,
        text: str | None = None,
    ) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.problem = problem
        self.text = None if text is None else (text if len(text) <= 200 else text[:197] + "...")
        where = self.path or "<input>"
        if line is not None:
            where = f"{where}, line {line}"
        msg = f"{where}: {problem}"
        if self.text is not None:
            msg += f" (got {self.text!r})"
        super().__init__(msg)

    def __reduce__(self):  # noqa: ANN204 - picklable across processes
        return (type(self), (self.path, self.line, self.problem, self.text))


class GoevalWarning(UserWarning):
    """Warning for undefined values and suspicious input that goeval tolerates."""


def check_choice(value: object, name: str, func: str, choices: tuple[object, ...]) -> None:
    """Raise :class:`InvalidParameterError` unless ``value`` is one of ``choices``."""
    if value not in choices:
        opts = "{" + ", ".join(repr(c) for c in choices) + "}"
        raise InvalidParameterError(
            f"The {name!r} parameter of {func} must be one of {opts}; got {value!r}."
        )


class UngroupedPredictionsError(InputFormatError):
    """A protein's prediction lines are not contiguous, so the file cannot be read in batches.

    Raised by :func:`goeval.io.predictions.iter_prediction_batches` when a protein
    reappears after the lines of other proteins in a later batch. Such a file
    can still be read whole (:func:`goeval.io.predictions.read_predictions`), or
    sorted by protein first.

    Parameters
    ----------
    path : str or path-like or None
        The prediction file.
    line : int or None
        1-based line where the protein reappears.
    protein : str
        The protein.
    """

    def __init__(self, path: str | PathLike[str] | None, line: int | None, protein: str) -> None:
        self.protein = protein
        super().__init__(path, line, f"protein {protein!r} reappears after the lines of other proteins; "
                         "reading in batches needs each protein's lines together (sort the file by protein)")

    def __reduce__(self):  # noqa: ANN204 - picklable across processes
        return (type(self), (self.path, self.line, self.protein))


class DuplicateTermError(InputFormatError, OntologyError):
    """An OBO file defines one term by two ``[Term]`` stanzas that differ (an input error of the ontology).

    Raised by :func:`goeval.io.read_obo` at the second stanza's line, naming the first's; two identical
    stanzas are read once instead.
    """
