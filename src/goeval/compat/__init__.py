"""Compatibility with other evaluators: CAFA-evaluator's API, columns and the Kaggle CAFA 5 score."""

from goeval.compat.cafaeval import *  # noqa: F401,F403
from goeval.compat.cafaeval import __all__  # noqa: F401
