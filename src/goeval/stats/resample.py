"""Reproducible resamples of a namespace's benchmark proteins.

Every random draw of :mod:`goeval.stats` comes from one PCG64 stream per
(seed, namespace, benchmark protein list, purpose), so that

* every method of a run gets the same resamples (the comparison is paired):
  the stream depends on the benchmark proteins, never on a method;
* a replicate's draws do not depend on how replicates are batched: replicate
  ``b`` reads the 64-bit outputs ``b * n .. (b + 1) * n - 1`` of the stream
  (:meth:`numpy.random.PCG64.advance` jumps there);
* the draws are the same bits on every platform: only the PCG64 bit
  generator and :class:`numpy.random.SeedSequence` are used (fixed
  algorithms), not the sampling methods of :class:`numpy.random.Generator`.

Seed derivation: ``SeedSequence(seed, spawn_key=(k0, k1, k2, k3, purpose))``
where ``k0..k3`` are the first 16 bytes (four little-endian uint32) of the
SHA-256 of ``namespace + "\\0" + "\\n".join(proteins)`` (UTF-8) and
``purpose`` is 0 for bootstrap resamples, 1 for permutation swaps.

Bootstrap replicate ``b``: index ``j`` of the resample is ``u mod n`` for the
stream's output ``u`` number ``b * n + j`` (the modulo bias is below
``n / 2**64``, under 1e-12 for any benchmark of fewer than 18 million
proteins); the weight of protein ``i`` is the number of ``j`` with index
``i`` (multinomial counts summing to ``n``). Permutation ``r``: protein
``i``'s two methods are swapped when the top bit of output ``r * n + i`` is 1
(probability 1/2, independently).
"""

from __future__ import annotations

import hashlib
import numbers
from typing import Any, Sequence

import numpy as np

from goeval.errors import InvalidParameterError

__all__ = ["resample_key", "resample_indices", "resample_counts", "swap_flags", "check_seed"]

BOOTSTRAP, PERMUTATION = 0, 1


def check_seed(seed: Any, func: str = "bootstrap") -> int:
    """``seed`` as a non-negative int, else the parameter error."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise InvalidParameterError(f"The 'seed' parameter of {func} must be an integer >= 0; got {seed!r}.")
    return int(seed)


def resample_key(namespace: str, proteins: Sequence[str] | np.ndarray) -> tuple[int, int, int, int]:
    """Four uint32 words naming a benchmark: SHA-256 of the namespace and its proteins.

    Examples
    --------
    >>> resample_key("MFO", ["P1", "P2"]) == resample_key("MFO", ["P1", "P2"])
    True
    >>> resample_key("MFO", ["P1", "P2"]) == resample_key("BPO", ["P1", "P2"])
    False
    """
    text = str(namespace) + "\0" + "\n".join(str(p) for p in np.asarray(proteins, dtype=object).tolist())
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return tuple(int(x) for x in np.frombuffer(digest[:16], dtype="<u4"))  # type: ignore[return-value]


def _stream(seed: int, key: tuple[int, ...], purpose: int, skip: int) -> np.random.PCG64:
    bits = np.random.PCG64(np.random.SeedSequence(check_seed(seed), spawn_key=(*key, purpose)))
    if skip:
        bits.advance(skip)
    return bits


def resample_indices(seed: int, key: tuple[int, ...], n: int, start: int, stop: int) -> np.ndarray:
    """Indices drawn with replacement for replicates ``start .. stop - 1``.

    Returns
    -------
    ndarray of int64, shape (stop - start, n)
        Row ``b - start`` is replicate ``b``'s resample of ``range(n)``.
    """
    k = max(0, stop - start)
    if n == 0 or k == 0:
        return np.zeros((k, n), dtype=np.int64)
    raw = _stream(seed, key, BOOTSTRAP, start * n).random_raw(k * n)
    return (raw % np.uint64(n)).astype(np.int64).reshape(k, n)


def resample_counts(seed: int, key: tuple[int, ...], n: int, start: int, stop: int) -> np.ndarray:
    """Bootstrap weights of replicates ``start .. stop - 1``: how often each protein is drawn.

    Returns
    -------
    ndarray of float64, shape (stop - start, n)
        Non-negative integers, each row summing to ``n``.
    """
    idx = resample_indices(seed, key, n, start, stop)
    k = idx.shape[0]
    flat = (idx + (np.arange(k, dtype=np.int64) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=k * n).reshape(k, n).astype(np.float64)


def swap_flags(seed: int, key: tuple[int, ...], n: int, start: int, stop: int) -> np.ndarray:
    """Permutations ``start .. stop - 1``: 1.0 where a protein's two methods swap, else 0.0.

    Returns
    -------
    ndarray of float64, shape (stop - start, n)
    """
    k = max(0, stop - start)
    if n == 0 or k == 0:
        return np.zeros((k, n))
    raw = _stream(seed, key, PERMUTATION, start * n).random_raw(k * n)
    return (raw >> np.uint64(63)).astype(np.float64).reshape(k, n)
