"""The test suite finds the shared data through ``GOEVAL_SHARED_DATA`` (else ``../shared``) and says so when it
cannot."""

from __future__ import annotations

import pytest
from conftest import SHARED_VARIABLE, shared_path


def test_the_variable_points_the_tests_at_the_shared_folder(tmp_path, monkeypatch):
    (tmp_path / "data").mkdir()
    monkeypatch.setenv("GOEVAL_SHARED_DATA", str(tmp_path))
    assert SHARED_VARIABLE == "GOEVAL_SHARED_DATA"
    try:
        assert shared_path("data") == tmp_path / "data"
    except pytest.skip.Exception as exc:  # a skip here is the failure: the variable was not read
        pytest.fail(f"the variable was not read: {exc}")


def test_a_missing_folder_skips_naming_the_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("GOEVAL_SHARED_DATA", str(tmp_path))
    with pytest.raises(pytest.skip.Exception, match="set GOEVAL_SHARED_DATA to the folder holding data/"):
        shared_path("data")
