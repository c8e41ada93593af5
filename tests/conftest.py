"""Shared fixtures and helpers for the goeval test suite."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
DATA = HERE / "data"
#: The environment variable naming the shared folder (the one holding ``data/``, ``external/``, ``cases/``...).
SHARED_VARIABLE = "GOEVAL_SHARED_DATA"


def shared_root() -> Path:
    """The shared folder: ``$GOEVAL_SHARED_DATA``, else ``shared/`` beside the repository (``../shared``)."""
    value = os.environ.get(SHARED_VARIABLE, "").strip()
    return Path(value).expanduser() if value else HERE.parent.parent / "shared"


def shared_path(*parts: str) -> Path:
    """Path under the shared folder (:func:`shared_root`), skipping the test when it is absent."""
    p = shared_root().joinpath(*parts)
    if not p.exists():
        pytest.skip(f"shared data not available: {p} (set {SHARED_VARIABLE} to the folder holding data/, "
                    "external/, cases/)")
    return p


@pytest.fixture
def tiny_obo() -> Path:
    return DATA / "core" / "tiny.obo"


def random_dag_edges(rng: np.random.Generator, n: int, max_parents: int = 3) -> list[tuple[str, str]]:
    """Random DAG on terms t0..t{n-1} (t0 the root; parents are older terms)."""
    edges = []
    for i in range(1, n):
        k = int(rng.integers(1, min(max_parents, i) + 1))
        for p in rng.choice(i, size=k, replace=False):
            edges.append((f"t{i}", f"t{int(p)}"))
    return edges


def ancestors_oracle(edges: list[tuple[str, str]], term: str) -> set[str]:
    """All ancestors of ``term`` (itself included) by plain graph search."""
    parents: dict[str, set[str]] = {}
    for c, p in edges:
        parents.setdefault(c, set()).add(p)
    seen, stack = {term}, [term]
    while stack:
        for p in parents.get(stack.pop(), ()):
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return seen


@pytest.fixture(autouse=True)
def _private_ontology_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own compiled-ontology cache directory (never the user's)."""
    path = tmp_path_factory.mktemp("goeval-cache")
    monkeypatch.setenv("GOEVAL_CACHE_DIR", str(path))
    return path


_SESSION_CACHE: list = []


def pytest_configure(config: pytest.Config) -> None:
    """Doctests (outside this folder) get a private compiled-ontology cache for the session too."""
    import os
    import tempfile

    _SESSION_CACHE.append((os.environ.get("GOEVAL_CACHE_DIR"), tempfile.mkdtemp(prefix="goeval-cache-")))
    os.environ["GOEVAL_CACHE_DIR"] = _SESSION_CACHE[-1][1]


def pytest_unconfigure(config: pytest.Config) -> None:
    import os
    import shutil

    if _SESSION_CACHE:
        old, path = _SESSION_CACHE.pop()
        shutil.rmtree(path, ignore_errors=True)
        if old is None:
            os.environ.pop("GOEVAL_CACHE_DIR", None)
        else:
            os.environ["GOEVAL_CACHE_DIR"] = old
