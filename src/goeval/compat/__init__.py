"""Compatibility with other evaluators: CAFA-evaluator's API, columns and the Kaggle CAFA 5 and CAFA 6 scores."""

from goeval.compat.cafa6 import *  # noqa: F401,F403
from goeval.compat.cafa6 import __all__ as _cafa6_all
from goeval.compat.cafaeval import *  # noqa: F401,F403
from goeval.compat.cafaeval import __all__ as _cafaeval_all

__all__ = [*_cafaeval_all, *_cafa6_all]
