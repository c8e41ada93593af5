"""goeval.io.arrow: Arrow arrays to and from numpy without pandas, equal to pyarrow's own conversions."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from goeval.io.arrow import arrow_array, arrow_scalar, numpy_values, string_array, string_values

SRC = Path(__file__).resolve().parents[2] / "src" / "goeval"

TEXT = st.one_of(st.none(), st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8),
                 st.sampled_from(["GO:0008150", "P12345", "", " x ", "\u00e9t\u00e9"]))
DTYPES = st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64, np.float32,
                          np.float64, np.bool_])


@settings(max_examples=200, deadline=None)
@given(st.lists(TEXT, max_size=40))
def test_a_string_array_is_pyarrows_and_reads_back(values):
    made = string_array(values)
    assert made.equals(pa.array(values, pa.string()))
    assert made.null_count == sum(v is None for v in values)
    back = string_values(made)
    assert back.dtype == object and back.tolist() == values
    assert string_values(made).tolist() == made.to_numpy(zero_copy_only=False).tolist()


def test_a_string_array_takes_numpy_arrays_and_refuses_other_values():
    assert string_array(np.array(["a", "b"])).to_pylist() == ["a", "b"]
    assert string_array(np.array(["a", None], dtype=object)).to_pylist() == ["a", None]
    assert len(string_array([])) == 0 and string_array([]).type == pa.string()
    with pytest.raises(TypeError, match="strings or None; got int"):
        string_array(["a", 3])


@settings(max_examples=200, deadline=None)
@given(DTYPES.flatmap(lambda d: hnp.arrays(d, st.integers(0, 30))), st.integers(0, 3))
def test_a_numeric_array_is_pyarrows_and_reads_back(values, start):
    made, theirs = arrow_array(values), pa.array(values)
    assert made.type == theirs.type and made.null_count == theirs.null_count == 0
    assert made.buffers()[1].to_pybytes()[:values.nbytes] == theirs.buffers()[1].to_pybytes()[:values.nbytes] \
        or values.dtype == np.bool_ and made.to_pylist() == theirs.to_pylist()  # (bits past the end may differ)
    back = numpy_values(made)
    assert back.dtype == values.dtype and np.array_equal(back, values, equal_nan=values.dtype.kind == "f")
    part = made.slice(min(start, len(made)))  # an offset into the buffers
    assert np.array_equal(numpy_values(part), part.to_numpy(zero_copy_only=False),
                          equal_nan=values.dtype.kind == "f")


def test_numpy_values_fills_nulls_and_reads_chunked_arrays():
    with_nulls = pa.array([1, None, 3], pa.int32())
    assert numpy_values(with_nulls, fill=-1).tolist() == [1, -1, 3]
    with pytest.raises(ValueError, match="nulls needs a fill"):
        numpy_values(with_nulls)
    floats = pa.array([0.5, None], pa.float64())
    assert np.array_equal(numpy_values(floats, fill=np.nan), floats.to_numpy(zero_copy_only=False), equal_nan=True)
    chunked = pa.chunked_array([pa.array([1, 2], pa.int64()), pa.array([3], pa.int64())])
    assert numpy_values(chunked).tolist() == [1, 2, 3]
    assert numpy_values(pa.chunked_array([], pa.int32())).dtype == np.int32
    bools = pa.array([True, None, False, True], pa.bool_()).slice(1)
    assert numpy_values(bools, fill=True).tolist() == [True, False, True]
    assert numpy_values(arrow_array(np.arange(6, dtype=">i4"))).tolist() == list(range(6))  # byte order


def test_a_scalar_has_the_type_asked_for():
    for value, kind in ((0, pa.int32()), (-1, pa.int64()), (0.5, pa.float64()), ("", pa.string()),
                        ("\t", pa.large_string()), (True, pa.bool_())):
        made = arrow_scalar(value, kind)
        assert made.type == kind and made.equals(pa.scalar(value, kind))
    assert pc.equal(string_array(["", "a"]), arrow_scalar("", pa.string())).to_pylist() == [True, False]


def test_no_module_of_goeval_makes_arrow_arrays_another_way():
    """``pa.array``, ``pa.scalar`` and Arrow's ``to_numpy`` import pandas (pyarrow asks whether its input is a
    pandas object): goeval makes and reads its arrays through goeval.io.arrow only."""
    pattern = re.compile(r"\bpa\.(array|scalar)\(|zero_copy_only")
    found = [f"{path.relative_to(SRC)}:{no}" for path in SRC.rglob("*.py") if path.name != "arrow.py"
             for no, line in enumerate(path.read_text().splitlines(), 1)
             if pattern.search(line) and not line.lstrip().startswith(("#", ">>>"))]
    assert not found, found


def test_the_helpers_do_not_import_pandas():
    code = ("import sys, numpy as np, pyarrow as pa, pyarrow.compute as pc\n"
            "from goeval.io.arrow import *\n"
            "a = string_array(['b', None, 'a']); v = string_values(pc.dictionary_encode(a).dictionary)\n"
            "n = numpy_values(pc.index_in(a, value_set=string_array(['a'])), fill=-1)\n"
            "b = numpy_values(arrow_array(np.array([True, False]))); s = arrow_scalar('', pa.string())\n"
            "f = numpy_values(pc.fill_null(arrow_array(np.arange(3.0)), arrow_scalar(0.0, pa.float64())))\n"
            "print('pandas' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
