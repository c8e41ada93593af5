"""Arrow arrays to and from numpy without pandas.

pyarrow imports pandas, when it is installed, the first time a process calls
``pa.array`` (whatever it is given: it asks whether the object is a pandas
Series) or ``Array.to_numpy`` (0.13-0.15 s on the machines of
``docs/benchmarks.md``, a tenth of a small evaluation). goeval's readers and
writers need neither pandas nor those two calls: Arrow arrays are made from
numpy buffers (:func:`arrow_array`, :func:`string_array`) and read back as
numpy views or Python strings (:func:`numpy_values`, :func:`string_values`),
so that ``goeval evaluate`` imports pandas only where a result is asked for
as a frame. The values are those of the pyarrow calls they replace (tested
against them).

Examples
--------
>>> import numpy as np
>>> numpy_values(arrow_array(np.array([3, 1, 2], dtype=np.int32))).tolist()
[3, 1, 2]
>>> string_values(string_array(["GO:1", "P\\u00e9", None])).tolist()
['GO:1', 'Pé', None]
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import numpy as np
import pyarrow as pa

__all__ = ["arrow_array", "string_array", "arrow_scalar", "numpy_values", "string_values"]

#: The Arrow primitive types made from (and read back as) numpy buffers.
_TYPES = {np.dtype(np.int8): pa.int8(), np.dtype(np.int16): pa.int16(), np.dtype(np.int32): pa.int32(),
          np.dtype(np.int64): pa.int64(), np.dtype(np.uint8): pa.uint8(), np.dtype(np.uint16): pa.uint16(),
          np.dtype(np.uint32): pa.uint32(), np.dtype(np.uint64): pa.uint64(), np.dtype(np.float32): pa.float32(),
          np.dtype(np.float64): pa.float64()}
_DTYPES = {kind: dtype for dtype, kind in _TYPES.items()}


def arrow_array(values: Any) -> pa.Array:
    """An Arrow array of a 1-d numpy array of numbers or booleans (no nulls; a copy only when not contiguous).

    Equal to ``pa.array(values)`` for these dtypes.
    """
    arr = np.ascontiguousarray(values)
    if arr.ndim != 1:
        raise ValueError(f"a 1-d array is needed; got shape {arr.shape}")
    if arr.dtype == np.bool_:
        bits = np.packbits(arr, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), arr.size, [None, pa.py_buffer(bits)])
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    kind = _TYPES.get(arr.dtype)
    if kind is None:
        raise TypeError(f"no Arrow type for numpy dtype {arr.dtype}")
    return pa.Array.from_buffers(kind, arr.size, [None, pa.py_buffer(arr)])


def string_array(values: Iterable[Any]) -> pa.Array:
    """An Arrow string array of Python strings (``None``: a null); ``large_string`` past 2 GiB of text.

    Equal to ``pa.array(list(values), pa.string())``.

    Raises
    ------
    TypeError
        A value that is neither a string nor None.
    """
    items = values.tolist() if isinstance(values, np.ndarray) else list(values)
    n = len(items)
    missing = [i for i, v in enumerate(items) if v is None] if None in items else []
    if missing:
        items = ["" if v is None else v for v in items]
    try:
        text = "".join(items)
    except TypeError:
        bad = next(v for v in items if not isinstance(v, str))
        raise TypeError(f"a string array holds strings or None; got {type(bad).__name__}") from None
    data = text.encode("utf-8")
    if len(data) == len(text):  # ASCII: each string's length in bytes is its length
        lengths = np.fromiter(map(len, items), dtype=np.int64, count=n)
    else:
        encoded = [v.encode("utf-8") for v in items]
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=n)
    ends = np.cumsum(lengths)
    large = bool(n) and int(ends[-1]) >= 2**31
    offsets = np.zeros(n + 1, dtype=np.int64 if large else np.int32)
    offsets[1:] = ends
    validity = None
    if missing:
        mask = np.ones(n, dtype=bool)
        mask[missing] = False
        validity = pa.py_buffer(np.packbits(mask, bitorder="little"))
    kind = pa.large_string() if large else pa.string()
    return pa.Array.from_buffers(kind, n, [validity, pa.py_buffer(offsets), pa.py_buffer(data)],
                                 null_count=len(missing))


def arrow_scalar(value: Any, kind: pa.DataType) -> pa.Scalar:
    """An Arrow scalar of type ``kind`` (a string or primitive type): ``pa.scalar(value, kind)``, which imports
    pandas. Give pyarrow's compute functions these, never Python values (they call ``pa.scalar``), and of the
    array's own type (``fill_null`` converts another type through Python). A text scalar is made once per
    value and type (Arrow scalars are immutable; the writers ask for the same few for every chunk)."""
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return _text_scalar(value, kind)
    return arrow_array(np.array([value], dtype=_dtype(kind)))[0]


@functools.lru_cache(maxsize=64)
def _text_scalar(value: str, kind: pa.DataType) -> pa.Scalar:
    return string_array([value]).cast(kind)[0]


def numpy_values(arr: pa.Array | pa.ChunkedArray, fill: Any = None) -> np.ndarray:
    """The values of a primitive Arrow array (or chunked array) as numpy, a view where Arrow's buffer allows.

    Equal to ``arr.to_numpy(zero_copy_only=False)`` for numbers and booleans; nulls are replaced by ``fill``
    (an error without it).
    """
    if isinstance(arr, pa.ChunkedArray):
        parts = [numpy_values(c, fill) for c in arr.chunks]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=_dtype(arr.type))
    if arr.null_count:
        if fill is None:
            raise ValueError("an Arrow array with nulls needs a fill value")
        arr = arr.fill_null(arrow_scalar(fill, arr.type))
    if pa.types.is_boolean(arr.type):
        bits = np.frombuffer(arr.buffers()[1], dtype=np.uint8)
        return np.unpackbits(bits, bitorder="little", count=arr.offset + len(arr))[arr.offset:].astype(bool)
    dtype = _dtype(arr.type)
    return np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr), offset=arr.offset * dtype.itemsize)


def string_values(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The values of an Arrow string array as a numpy object array of ``str`` (nulls: ``None``).

    Equal to ``arr.to_numpy(zero_copy_only=False)``.
    """
    out = np.empty(len(arr), dtype=object)
    out[:] = arr.to_pylist()
    return out


def _dtype(kind: pa.DataType) -> np.dtype:
    """The numpy dtype of a primitive Arrow type (booleans: ``bool``)."""
    if pa.types.is_boolean(kind):
        return np.dtype(bool)
    try:
        return _DTYPES[kind]
    except KeyError:
        raise TypeError(f"no numpy dtype for Arrow type {kind}") from None
