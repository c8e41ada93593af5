"""The compiled-ontology cache on the command line: same result files with it (cold, warm) and without."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import goeval
from goeval.cli import main

OUTPUTS = ("summary.tsv", "curves.tsv", "diagnostics.json")


def _inputs(tmp_path: Path) -> list[str]:
    src = Path(goeval.example_path("ontology"))
    obo = tmp_path / src.name
    shutil.copy(src, obo)
    return ["--ontology", str(obo), "--truth", str(goeval.example_path("truth")),
            "--predictions", str(goeval.example_path("predictions")), "--ia", str(goeval.example_path("ia"))]


def _run(args: list[str], out: Path, keep: Path) -> dict[str, bytes]:
    assert main(["evaluate", *args, "--out", str(out), "--thresholds", "0.01", "-q"]) == 0
    shutil.copytree(out, keep)
    return {name: (keep / name).read_bytes() for name in OUTPUTS}


@pytest.mark.parametrize("fork", ["auto", "always", "never"])
def test_evaluate_same_bytes_with_and_without_the_cache(tmp_path, monkeypatch, _private_ontology_cache, fork):
    monkeypatch.setenv("GOEVAL_FORK", fork)
    args = _inputs(tmp_path)
    out = tmp_path / "res"
    cold = _run(args, out, tmp_path / "cold")
    cached = sorted(p.name for p in _private_ontology_cache.iterdir())
    assert len(cached) == 1 and cached[0].endswith(".npz")  # written by the cold run, no temporary file
    warm = _run(args, out, tmp_path / "warm")
    off = _run([*args, "--no-cache"], out, tmp_path / "off")
    assert cold == warm  # the same command line: the same bytes
    for name in ("summary.tsv", "curves.tsv"):
        assert off[name] == cold[name]
    # diagnostics.json records the command line, which differs by --no-cache; everything else is equal
    d_off, d_cold = json.loads(off["diagnostics.json"]), json.loads(cold["diagnostics.json"])
    assert [a for a in d_off.pop("command") if a != "--no-cache"] == d_cold.pop("command") and d_off == d_cold
    timings = json.loads((tmp_path / "warm" / "timings.json").read_text())
    assert "ontology cache load" in timings
    assert "ontology cache load" not in json.loads((tmp_path / "off" / "timings.json").read_text())
    assert sorted(p.name for p in _private_ontology_cache.iterdir()) == cached


def test_evaluate_explicit_cache_file(tmp_path, capsys):
    args = _inputs(tmp_path)
    cache = tmp_path / "mfo.npz"
    out = tmp_path / "res"
    assert main(["evaluate", *args, "--out", str(out), "--ontology-cache", str(cache)]) == 0
    assert "compiled into the cache" in capsys.readouterr().err and cache.is_file()
    assert main(["evaluate", *args, "--out", str(out), "--ontology-cache", str(cache)]) == 0
    assert f"9,571 terms, from the compiled cache {cache}" in capsys.readouterr().err
    cache.write_bytes(cache.read_bytes()[:1000])  # truncated: rebuilt with a notice
    assert main(["evaluate", *args, "--out", str(out), "--ontology-cache", str(cache)]) == 0
    err = capsys.readouterr().err
    assert "goeval: warning: ontology cache" in err and "rebuilding it" in err
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_flags_exclusive(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", *_inputs(tmp_path), "--no-cache", "--ontology-cache", str(tmp_path / "c.npz")])


def test_info_says_whether_the_cache_was_used(tmp_path, capsys, _private_ontology_cache):
    obo = _inputs(tmp_path)[1]
    assert main(["info", obo]) == 0
    assert "compiled into the cache" in capsys.readouterr().err
    assert main(["info", obo]) == 0
    out = capsys.readouterr().err
    assert "read from the compiled cache" in out and str(_private_ontology_cache) in out
    assert main(["info", obo, "--no-cache", "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["cache"]["status"] == "off" and info["cache"]["load_seconds"] >= 0
    assert main(["info", obo, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["cache"]["status"] == "hit"


@pytest.mark.parametrize("command", ["ia", "propagate"])
def test_other_commands_take_the_flags(tmp_path, command, _private_ontology_cache):
    obo = _inputs(tmp_path)[1]
    truth = str(goeval.example_path("truth"))
    io = (["--annotations", truth] if command == "ia" else ["--input", str(goeval.example_path("predictions"))])
    out = tmp_path / "out.tsv"
    assert main([command, "--ontology", obo, *io, "--out", str(out), "--no-cache"]) == 0
    assert list(_private_ontology_cache.iterdir()) == []
    first = out.read_bytes()
    assert main([command, "--ontology", obo, *io, "--out", str(out), "--ontology-cache", str(tmp_path / "c.npz")]) == 0
    assert main([command, "--ontology", obo, *io, "--out", str(out), "--ontology-cache", str(tmp_path / "c.npz")]) == 0
    assert (tmp_path / "c.npz").is_file() and out.read_bytes() == first


def _shuffle_ids(path: Path) -> None:
    """The term ids of a valid cache file shuffled, its structure intact (a crafted file with the public key)."""
    from goeval.ontology import core

    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    ids = core._unpack_strings(arrays, "ids")
    np.random.default_rng(0).shuffle(ids)
    arrays.update(core._pack_strings("ids", ids))
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


@pytest.mark.parametrize("shared", ["group-writable", "another user's"])
def test_planted_cache_in_a_shared_folder_changes_no_result(tmp_path, monkeypatch, capsys, shared):
    """Finding 4: a cache file with shuffled ids under the right name in a shared cache folder is not read."""
    args = _inputs(tmp_path)
    out = tmp_path / "res"
    assert main(["evaluate", *args, "--out", str(out), "--thresholds", "0.01", "-q", "--no-cache"]) == 0
    want = (out / "summary.tsv").read_bytes()
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("GOEVAL_CACHE_DIR", str(folder))
    assert main(["info", args[1]]) == 0
    [planted] = folder.iterdir()
    _shuffle_ids(planted)
    if shared == "group-writable":
        folder.chmod(0o770)
    elif os.getuid() == 0:
        os.chown(folder, 4242, -1)
    else:
        pytest.skip("giving a folder to another user needs root")
    before = planted.read_bytes()
    capsys.readouterr()
    assert main(["evaluate", *args, "--out", str(out), "--thresholds", "0.01", "-q"]) == 0
    err = capsys.readouterr().err
    assert f"goeval: warning: ontology cache folder {folder}: it is " in err
    assert (out / "summary.tsv").read_bytes() == want
    assert main(["info", args[1], "--format", "json"]) == 0
    cache = json.loads(capsys.readouterr().out)["cache"]
    assert cache["status"] == "off" and str(folder) in cache["reason"]
    assert [p.name for p in folder.iterdir()] == [planted.name] and planted.read_bytes() == before
