"""The compiled-ontology cache: round trips equal a fresh build, keys, damaged and stale files, atomic writes."""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import goeval
from goeval.errors import InvalidParameterError
from goeval.io import ontology_cache as oc
from goeval.io.obo import parse_obo_text, read_obo
from goeval.ontology import Ontology, TermStatus, build_ontology, core

from conftest import DATA

REPO = Path(__file__).resolve().parents[2]
GO_2019 = REPO / "ontologies" / "go_2019-01-29.obo.gz"
TEST_OBOS = sorted(p for p in (DATA / "obo").glob("*.obo") if "cycle" not in p.name) + [DATA / "core" / "tiny.obo"]
RELATION_SETS = [("is_a", "part_of"), ("is_a",), ("part_of", "is_a")]


# ------------------------------------------------------------------ oracle
def assert_same_ontology(got: Ontology, want: Ontology) -> None:
    """Every field and every behaviour of ``got`` equals ``want``'s."""
    assert got.ids.dtype == want.ids.dtype and got.ids.tolist() == want.ids.tolist()
    assert got.namespaces == want.namespaces and got.labels == want.labels
    for name in ("bounds", "generation"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    for name in ("data", "indices", "indptr"):
        a, b = getattr(got.parents, name), getattr(want.parents, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert got.parents.shape == want.parents.shape and got.parents.format == want.parents.format
    assert got.relations == want.relations
    assert got.stats == want.stats
    assert got.diagnostics == want.diagnostics
    assert json.dumps(got.diagnostics) == json.dumps(want.diagnostics)
    assert got.source == want.source and got.data_version == want.data_version
    assert list(got.subsets) == list(want.subsets)
    for name, terms in want.subsets.items():
        assert got.subset(name).dtype == terms.dtype and np.array_equal(got.subset(name), terms), name
    assert got._index == want._index and list(got._index) == list(want._index)
    assert got._redirect == want._redirect and list(got._redirect) == list(want._redirect)
    assert got.names.dtype == want.names.dtype and got.names.tolist() == want.names.tolist()
    assert repr(got) == repr(want) and len(got) == len(want)
    queries = want.ids.tolist() + list(want._redirect) + ["GO:unknown", ""]
    for a, b in zip(got.resolve(queries), want.resolve(queries)):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert np.array_equal(got.roots(), want.roots())
    for j in range(len(want.namespaces)):
        assert np.array_equal(got.roots(j), want.roots(j))
    assert (got.ancestors_csr != want.ancestors_csr).nnz == 0
    assert np.array_equal(got.namespace_of, want.namespace_of)


def _round_trip(onto: Ontology) -> Ontology:
    return Ontology.from_arrays({k: v.copy() for k, v in onto.to_arrays().items()})


def _fresh(path: Path, relations=("is_a", "part_of")) -> Ontology:
    return build_ontology(read_obo(path), relations)


# ------------------------------------------------------- arrays round trip
@pytest.mark.parametrize("relations", RELATION_SETS, ids="+".join)
@pytest.mark.parametrize("path", TEST_OBOS + [goeval.example_path("ontology")], ids=lambda p: p.name)
def test_arrays_round_trip_equals_fresh_build(path, relations):
    assert_same_ontology(_round_trip(_fresh(path, relations)), _fresh(path, relations))


def test_arrays_have_no_python_objects():
    arrays = _fresh(TEST_OBOS[0]).to_arrays()
    assert all(isinstance(v, np.ndarray) and v.dtype != object for v in arrays.values())


def test_go_2019_round_trip_through_the_cache(tmp_path):
    if not GO_2019.exists():
        pytest.skip("GO 2019 not bundled")
    fresh = _fresh(GO_2019)
    cold, rec = oc.load_cached_ontology(GO_2019, cache=tmp_path / "go.npz")
    warm, rec2 = oc.load_cached_ontology(GO_2019, cache=tmp_path / "go.npz")
    assert (rec.status, rec2.status) == ("written", "hit")
    assert_same_ontology(cold, fresh)
    assert_same_ontology(warm, fresh)


_NAME = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="!{}\\"), max_size=12)


@st.composite
def obo_texts(draw) -> str:
    """A random OBO file: DAG, namespaces, part_of, alt_ids, obsolete terms with replacements, odd names."""
    n = draw(st.integers(1, 25))
    namespaces = ["ns_a", "ns_b", "biological_process"][: draw(st.integers(1, 3))]
    lines = ["format-version: 1.2", f"data-version: {draw(st.sampled_from(['r1', 'r/2024']))}",
             "default-namespace: ns_a", ""]
    for i in range(n):
        lines += ["[Term]", f"id: T:{i}"]
        name = draw(_NAME).strip()
        if name:
            lines.append(f"name: {name}")
        if draw(st.booleans()):
            lines.append(f"namespace: {draw(st.sampled_from(namespaces))}")
        for p in draw(st.sets(st.integers(0, max(0, i - 1)), max_size=3)) if i else ():
            rel = draw(st.sampled_from(["is_a", "part_of", "regulates"]))
            lines.append(f"is_a: T:{p}" if rel == "is_a" else f"relationship: {rel} T:{p}")
        for a in draw(st.sets(st.integers(0, 5), max_size=2)):
            lines.append(f"alt_id: A:{a}")
        lines.append("")
    for j in range(draw(st.integers(0, 5))):
        lines += ["[Term]", f"id: O:{j}", "is_obsolete: true"]
        for r in draw(st.lists(st.sampled_from([f"T:{draw(st.integers(0, n - 1))}", f"O:{j + 1}", "A:1", "X:9"]),
                               max_size=2, unique=True)):
            lines.append(f"replaced_by: {r}")
        lines.append("")
    return "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None)
@given(obo_texts(), st.sampled_from(RELATION_SETS))
def test_round_trip_property(text, relations):
    raw = parse_obo_text(text, "random.obo")
    try:
        want = build_ontology(raw, relations)
    except goeval.errors.OntologyError:  # a cycle among replaced_by links: nothing to store
        return
    assert_same_ontology(_round_trip(want), build_ontology(parse_obo_text(text, "random.obo"), relations))
    # what resolve returns for remapped ids survives too
    for tid, (k, status) in want._redirect.items():
        assert status in (TermStatus.ALT_ID, TermStatus.REPLACED, TermStatus.OBSOLETE)
        assert _round_trip(want).resolve([tid])[0][0] == k


def test_damaged_arrays_are_refused():
    arrays = _fresh(TEST_OBOS[0]).to_arrays()
    for key, bad in [("ids_lengths", arrays["ids_lengths"][:-1]), ("parents_indptr", arrays["parents_indptr"][:-1]),
                     ("meta", np.frombuffer(b"{not json", np.uint8)), ("bounds", arrays["bounds"] + 1),
                     ("name_lines_count", arrays["name_lines_count"] + 1)]:
        with pytest.raises(ValueError):
            Ontology.from_arrays({**arrays, key: bad})
    with pytest.raises(ValueError):
        Ontology.from_arrays({k: v for k, v in arrays.items() if k != "name_lines"})


# ------------------------------------------------------------------ cache
@pytest.fixture
def obo(tmp_path) -> Path:
    p = tmp_path / "tiny.obo"
    p.write_bytes((DATA / "core" / "tiny.obo").read_bytes())
    return p


def _files(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir()) if d.exists() else []


def test_default_directory_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("GOEVAL_CACHE_DIR", str(tmp_path / "c"))
    assert oc.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("GOEVAL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert oc.cache_dir() == tmp_path / "x" / "goeval"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert oc.cache_dir() == tmp_path / "home" / ".cache" / "goeval"


def test_written_then_hit_equal_to_fresh(obo, _private_ontology_cache):
    onto, rec = oc.load_cached_ontology(obo)
    assert rec.status == "written" and rec.path.parent == _private_ontology_cache
    assert _files(_private_ontology_cache) == [rec.path.name]
    again, rec2 = oc.load_cached_ontology(obo)
    assert rec2.status == "hit" and rec2.path == rec.path and "ontology cache load" in rec2.timings
    assert_same_ontology(again, _fresh(obo))
    assert_same_ontology(onto, _fresh(obo))
    assert_same_ontology(goeval.load_ontology(obo), _fresh(obo))


def test_hit_imports_neither_obonet_nor_networkx(obo):
    """A run that reads the compiled ontology never parses OBO text: obonet and networkx (about 0.1 s of
    start-up) stay unimported, through the command line's own imports."""
    oc.load_cached_ontology(obo)
    code = ("import sys, goeval.cli.evaluate, goeval.inputs, goeval.api; from goeval.io import ontology_cache as oc; "
            f"onto, rec = oc.load_cached_ontology({str(obo)!r}); onto.ancestors_csr; "
            "print(rec.status, sorted(m for m in ('networkx', 'obonet') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["hit", "[]"]


def test_hit_reads_the_closure_instead_of_computing_it(obo, monkeypatch):
    """The ancestor closure is stored (0.2 s to compute on a 40,000-term ontology of long paths): a hit has it
    without computing it, the same bits as computed; an older store without it still computes it."""
    want = _fresh(obo).ancestors_csr
    oc.load_cached_ontology(obo)

    def refuse(*_args):
        raise AssertionError("the closure was computed")

    monkeypatch.setattr(core, "closure", refuse)
    onto, rec = oc.load_cached_ontology(obo)
    got = onto.ancestors_csr
    assert rec.status == "hit" and (got != want).nnz == 0
    assert got.indices.dtype == want.indices.dtype and got.indptr.dtype == want.indptr.dtype
    arrays = {k: v for k, v in _arrays(rec.path).items() if not k.startswith("closure_")}
    with pytest.raises(AssertionError, match="computed"):
        Ontology.from_arrays(arrays).ancestors_csr  # noqa: B018


def test_same_content_elsewhere_hits_with_its_own_source(obo, tmp_path):
    oc.load_cached_ontology(obo)
    other = tmp_path / "sub" / "copy.obo"
    other.parent.mkdir()
    other.write_bytes(obo.read_bytes())
    onto, rec = oc.load_cached_ontology(other, cache=oc.cache_dir())
    assert rec.status == "written"  # the file name is part of the cache file's name, not of the key
    onto, rec = oc.load_cached_ontology(other, cache=rec.path)
    assert rec.status == "hit" and onto.source == str(other)
    assert_same_ontology(onto, _fresh(other))


def test_key_changes_with_content_relations_and_version(obo, monkeypatch):
    base = oc.cache_key(obo, ("is_a", "part_of"))
    assert oc.cache_key(obo, ("is_a", "part_of")) == base
    assert oc.cache_key(obo, ("is_a",)) != base
    assert oc.cache_key(obo, ("part_of", "is_a")) != base
    obo.write_bytes(obo.read_bytes() + b"! one more comment\n")
    assert oc.cache_key(obo, ("is_a", "part_of"))["obo_sha256"] != base["obo_sha256"]
    monkeypatch.setattr(oc, "FORMAT_VERSION", oc.FORMAT_VERSION + 1)
    assert oc.cache_key(obo, ("is_a", "part_of"))["format_version"] == base["format_version"] + 1


def test_gzip_file_keyed_by_its_bytes_as_stored(obo, tmp_path):
    import gzip

    gz = tmp_path / "tiny.obo.gz"
    gz.write_bytes(gzip.compress(obo.read_bytes()))
    assert oc.cache_key(gz, ("is_a",))["obo_sha256"] == oc.file_sha256(gz) != oc.file_sha256(obo)
    assert oc.load_cached_ontology(gz)[1].status == "written"
    onto, rec = oc.load_cached_ontology(gz)
    assert rec.status == "hit"
    assert_same_ontology(onto, _fresh(gz))


@pytest.mark.parametrize("change", ["content", "relations", "version"])
def test_stale_explicit_file_is_rebuilt_with_a_notice(obo, tmp_path, monkeypatch, caplog, change):
    cache = tmp_path / "onto.npz"
    assert oc.load_cached_ontology(obo, cache=cache)[1].status == "written"
    relations = ("is_a", "part_of")
    if change == "content":
        obo.write_bytes(obo.read_bytes().replace(b"name: b\n", b"name: bee\n"))
    elif change == "relations":
        relations = ("is_a",)
    else:
        monkeypatch.setattr(oc, "FORMAT_VERSION", oc.FORMAT_VERSION + 1)
    with caplog.at_level(logging.WARNING, logger="goeval.cache"):
        onto, rec = oc.load_cached_ontology(obo, relations, cache=cache)
    assert rec.status == "written"
    notices = [r.getMessage() for r in caplog.records if r.name == "goeval.cache"]
    assert len(notices) == 1 and "made for another" in notices[0] and "\n" not in notices[0]
    assert_same_ontology(onto, _fresh(obo, relations))
    assert oc.load_cached_ontology(obo, relations, cache=cache)[1].status == "hit"


def _corrupt(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "garbage":
        path.write_bytes(b"not a cache\n" * 50)
    elif how == "flipped":  # one byte inside the stored arrays: the zip CRC catches it
        i = data.index(b"GO:0000003")
        path.write_bytes(data[:i] + b"X" + data[i + 1 :])
    elif how == "no key":
        with np.load(path) as z:
            arrays = {k: z[k] for k in z.files if k != "cache_key"}
        with open(path, "wb") as fh:
            np.savez(fh, **arrays)
    elif how == "damaged arrays":  # a valid file with the right key, but arrays that do not fit
        with np.load(path) as z:
            arrays = {k: z[k] for k in z.files}
        arrays["ids_lengths"] = arrays["ids_lengths"][:-1]
        with open(path, "wb") as fh:
            np.savez(fh, **arrays)
    elif how == "directory":
        path.unlink()
        path.mkdir()
        (path / "inside").write_text("x")


@pytest.mark.parametrize("how", ["truncated", "empty", "garbage", "flipped", "no key", "damaged arrays"])
def test_corrupt_cache_is_rebuilt_with_a_notice(obo, caplog, how):
    _onto, rec = oc.load_cached_ontology(obo)
    _corrupt(rec.path, how)
    with caplog.at_level(logging.WARNING, logger="goeval.cache"):
        onto, rec2 = oc.load_cached_ontology(obo)
    notices = [r.getMessage() for r in caplog.records if r.name == "goeval.cache"]
    assert len(notices) == 1 and "rebuilding" in notices[0] and "\n" not in notices[0], notices
    assert rec2.status == "written"
    assert_same_ontology(onto, _fresh(obo))
    assert oc.load_cached_ontology(obo)[1].status == "hit"
    assert _files(rec.path.parent) == [rec.path.name]


def test_unreadable_cache_is_rebuilt(obo, tmp_path, caplog):
    cache = tmp_path / "onto.npz"
    oc.load_cached_ontology(obo, cache=cache)
    bad = tmp_path / "bad.npz"
    bad.write_bytes(cache.read_bytes())
    os.chmod(bad, 0)
    if os.access(bad, os.R_OK):  # root reads anything: a file that fails to read instead
        bad.write_bytes(b"\x00" * 10)
    with caplog.at_level(logging.WARNING, logger="goeval.cache"):
        onto, rec = oc.load_cached_ontology(obo, cache=bad)
    assert rec.status == "written" and any("rebuilding" in r.getMessage() for r in caplog.records)
    assert_same_ontology(onto, _fresh(obo))


def test_write_leaves_no_temporary_file(obo, tmp_path):
    d = tmp_path / "cache"
    d.mkdir(mode=0o700)
    _onto, rec = oc.load_cached_ontology(obo, cache=d)
    assert _files(d) == [rec.path.name] and not rec.path.name.startswith(".")
    _onto, rec = oc.load_cached_ontology(obo, cache=d / "explicit.npz")
    assert _files(d) == sorted([rec.path.name, "explicit.npz"]) or len(_files(d)) == 2


def test_interrupted_write_leaves_no_temporary_file(obo, tmp_path, monkeypatch):
    d = tmp_path / "cache"
    d.mkdir(mode=0o700)

    def interrupted(fh, *args, **arrays):  # noqa: ANN001
        fh.write(b"partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(oc.np, "savez", interrupted)
    with pytest.raises(KeyboardInterrupt):
        oc.load_cached_ontology(obo, cache=d)
    assert _files(d) == []


def test_failed_write_is_a_notice_and_leaves_nothing(obo, tmp_path, monkeypatch, caplog):
    d = tmp_path / "cache"
    d.mkdir(mode=0o700)

    def full(fh, *args, **arrays):  # noqa: ANN001
        fh.write(b"partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(oc.np, "savez", full)
    with caplog.at_level(logging.WARNING, logger="goeval.cache"):
        onto, rec = oc.load_cached_ontology(obo, cache=d)
    assert rec.status == "not written" and "No space left" in rec.reason
    assert _files(d) == []
    assert any("continuing without it" in r.getMessage() for r in caplog.records)
    assert_same_ontology(onto, _fresh(obo))


def test_unwritable_cache_directory_is_a_notice(obo, tmp_path, monkeypatch, caplog):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("GOEVAL_CACHE_DIR", str(blocker / "goeval"))
    with caplog.at_level(logging.WARNING, logger="goeval.cache"):
        onto, rec = oc.load_cached_ontology(obo)
    assert rec.status == "not written"
    assert len([r for r in caplog.records if r.name == "goeval.cache"]) == 1
    assert_same_ontology(onto, _fresh(obo))
    assert blocker.read_text() == "not a directory"


def test_no_cache_reads_and_writes_nothing(obo, _private_ontology_cache):
    onto, rec = oc.load_cached_ontology(obo, cache=False)
    assert rec.status == "off" and rec.path is None
    assert _files(_private_ontology_cache) == []
    goeval.load_ontology(obo, cache=False)
    assert _files(_private_ontology_cache) == []
    assert_same_ontology(onto, _fresh(obo))


def test_not_a_regular_file_is_not_cached(obo, tmp_path, _private_ontology_cache):
    import threading

    fifo = tmp_path / "onto.fifo"
    os.mkfifo(fifo)
    text = obo.read_bytes()

    def feed() -> None:
        with open(fifo, "wb") as fh:  # read once, by the parser (the cache does not open a FIFO)
            fh.write(text)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    onto, rec = oc.load_cached_ontology(fifo)
    writer.join(10)
    assert rec.status == "off" and "regular" in rec.reason
    assert _files(_private_ontology_cache) == []
    assert onto.ids.tolist() == _fresh(obo).ids.tolist()


def test_an_ontology_that_fails_to_build_is_not_stored(_private_ontology_cache):
    with pytest.raises(goeval.errors.OntologyError, match="cycle"):
        oc.load_cached_ontology(DATA / "obo" / "replaced_by_cycle.obo")
    assert _files(_private_ontology_cache) == []


def test_cache_file_cannot_be_the_ontology(obo):
    with pytest.raises(InvalidParameterError):
        oc.load_cached_ontology(obo, cache=obo)


def test_obo_changed_while_read_is_not_stored(obo, tmp_path, caplog):
    d = tmp_path / "cache"
    d.mkdir(mode=0o700)
    started = oc.start_ontology(obo, cache=d)
    st = obo.stat()
    os.utime(obo, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    with caplog.at_level(logging.WARNING, logger="goeval.cache"):
        onto = started()
    started.cancel()
    assert started.record.status == "not written" and "changed" in started.record.reason
    assert _files(d) == []
    assert_same_ontology(onto, _fresh(obo))


def test_names_stored_as_lines_until_parsed():
    fresh = _fresh(DATA / "core" / "tiny.obo")
    arrays = fresh.to_arrays()
    assert "name_lines" in arrays and "names" not in arrays  # not parsed yet: stored as their lines
    back = Ontology.from_arrays(arrays)
    assert "names" not in back._cache
    assert back.names.tolist() == fresh.names.tolist() == _fresh(DATA / "core" / "tiny.obo").names.tolist()
    assert "names" in fresh.to_arrays() and "names" in back.to_arrays()  # parsed: stored parsed
    again = Ontology.from_arrays(Ontology.from_arrays(arrays).to_arrays())  # lines stored again, unparsed
    assert_same_ontology(again, fresh)


def test_cache_load_needs_no_obo_file(obo):
    fresh = _fresh(obo)
    oc.load_cached_ontology(obo)
    onto, rec = oc.load_cached_ontology(obo)
    obo.unlink()
    assert rec.status == "hit" and onto.names.tolist() == fresh.names.tolist()
    assert_same_ontology(onto, fresh)


def test_load_time_on_go():
    """Not a benchmark: the read must stay far below a parse (about 0.02 s against 1 s)."""
    if not GO_2019.exists():
        pytest.skip("GO 2019 not bundled")
    oc.load_cached_ontology(GO_2019)
    _onto, rec = oc.load_cached_ontology(GO_2019)
    assert rec.status == "hit" and set(rec.timings) == {"ontology cache key", "ontology cache load"}


# ------------------------------------------- hostile cache files (issue 25, finding 4)
def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def _save(path: Path, arrays: dict[str, np.ndarray]) -> None:
    with open(path, "wb") as fh:  # the file as it was (its owner and mode kept), new bytes
        np.savez(fh, **arrays)


def _parents(arrays: dict[str, np.ndarray], rows: list[list[int]]) -> None:
    """Replace the stored parent rows (a consistent CSR, as a crafted file would have)."""
    arrays["parents_indptr"] = np.r_[0, np.cumsum([len(r) for r in rows])].astype(arrays["parents_indptr"].dtype)
    arrays["parents_indices"] = np.array([p for r in rows for p in r], arrays["parents_indices"].dtype)
    arrays["parents_data"] = np.ones(arrays["parents_indices"].size, bool)
    arrays["parent_relations"] = np.zeros(arrays["parents_indices"].size, np.int8)


def _meta(arrays: dict[str, np.ndarray], **changes) -> None:
    meta = json.loads(arrays["meta"].tobytes())
    meta.update(changes)
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)


def _ids(arrays: dict[str, np.ndarray], name: str, old: str, new: str) -> None:
    arrays[name] = np.frombuffer(arrays[name].tobytes().replace(old.encode(), new.encode()), np.uint8)


# tiny.obo: GO:0000001..5 (BPO: 1 root; 2, 3 under 1; 4 under 2; 5 part_of 3), GO:0000010 > GO:0000011 (MFO);
# redirects GO:0000012 (alt_id of 2), GO:0000006 (replaced by 5), GO:0000007 (obsolete)
HOSTILE = {
    "parents form a cycle": (lambda a: _parents(a, [[3], [0], [0], [1], [2], [], [5]]), "cycle"),
    "a term its own parent": (lambda a: _parents(a, [[0], [0], [0], [1], [2], [], [5]]), "cycle"),
    "parent rows run backwards": (lambda a: a.update(parents_indptr=np.array([0, 2, 1, 2, 3, 4, 4, 5])), "forward"),
    "a parent listed twice": (lambda a: _parents(a, [[], [0], [0], [1, 1], [2], [], [5]]), "twice"),
    "an edge across namespaces": (lambda a: _parents(a, [[], [0], [0], [1], [2], [], [0]]), "across namespaces"),
    "namespace bounds backwards": (lambda a: a.update(bounds=np.array([0, 8, 7])), "forward"),
    "terms out of generation order": (lambda a: a.update(bounds=np.array([0, 7, 7])), "generation order"),
    "redirect to a term out of range": (lambda a: a.update(redirect_targets=np.array([1, 99, -1])), "out of range"),
    "redirect of an unknown kind": (lambda a: a.update(redirect_status=np.array([1, 2, 7], np.int8)), "unknown kind"),
    "an obsolete id mapped to a term": (lambda a: a.update(redirect_targets=np.array([1, 4, 0])), "out of range"),
    "an id stored twice": (lambda a: _ids(a, "ids", "GO:0000003", "GO:0000002"), "twice"),
    "an id with a space": (lambda a: _ids(a, "ids", "GO:0000003", "GO:00 0003"), "space"),
    "a live id also redirected": (lambda a: _ids(a, "redirect_ids", "GO:0000012", "GO:0000003"), "both"),
    "float parent indices": (lambda a: a.update(parents_indices=a["parents_indices"].astype(float)), "types"),
    "unsigned generations": (lambda a: a.update(generation=a["generation"].astype(np.uint32)), "types"),
    "statistics of another namespace": (lambda a: _meta(a, namespaces=["molecular_function", "biological_process"]),
                                        "statistics"),
    "other relations inside": (lambda a: _meta(a, relations=["is_a", "part_of", "regulates"]), "its key says"),
    "a closure without a parent": (lambda a: _closure(a, [[0], [1], [0, 2], [1, 3], [0, 2, 4], [5], [5, 6]]),
                                   "without a term's parent"),
    "a closure without the term itself": (lambda a: _closure(a, [[0], [0], [0, 2], [0, 1, 3], [0, 2, 4], [5], [5]]),
                                          "its own ancestor"),
    "a closure row out of order": (lambda a: _closure(a, [[0], [1, 0], [0, 2], [0, 1, 3], [0, 2, 4], [5], [5, 6]]),
                                   "unsorted"),
    "a closure of a term out of range": (lambda a: _closure(a, [[0], [0, 1], [0, 2], [0, 1, 3], [0, 2, 4], [5],
                                                                 [5, 6, 70]]), "out of range"),
    "a closure row missing": (lambda a: a.update(closure_indptr=a["closure_indptr"][:-1]), "shapes"),
}


def _closure(arrays: dict[str, np.ndarray], rows: list[list[int]]) -> None:
    """The stored closure replaced by ``rows`` (tiny.obo's true closure: [[0], [0, 1], [0, 2], [0, 1, 3],
    [0, 2, 4], [5], [5, 6]])."""
    arrays["closure_indices"] = np.array([t for r in rows for t in r], dtype=arrays["closure_indices"].dtype)
    arrays["closure_indptr"] = np.cumsum([0] + [len(r) for r in rows]).astype(arrays["closure_indptr"].dtype)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_cache_that_no_build_can_make_is_rebuilt_with_a_notice(obo, caplog, hostile):
    """A file with the right key (public: the OBO's SHA-256) whose arrays are not an ontology's is not used."""
    change, reason = HOSTILE[hostile]
    _onto, rec = oc.load_cached_ontology(obo)
    arrays = _arrays(rec.path)
    change(arrays)
    _save(rec.path, arrays)
    with caplog.at_level(logging.WARNING, logger="goeval.cache"):
        onto, rec2 = oc.load_cached_ontology(obo)
    notices = [r.getMessage() for r in caplog.records if r.name == "goeval.cache"]
    assert len(notices) == 1 and "damaged" in notices[0] and reason in notices[0] and str(rec.path) in notices[0]
    assert rec2.status == "written"
    assert_same_ontology(onto, _fresh(obo))
    assert oc.load_cached_ontology(obo)[1].status == "hit"


def _shuffle_ids(path: Path) -> None:
    """Finding 4: the term ids of a valid cache file shuffled (its structure intact), saved under its own name."""
    arrays = _arrays(path)
    ids = core._unpack_strings(arrays, "ids")
    np.random.default_rng(0).shuffle(ids)
    arrays.update(core._pack_strings("ids", ids))
    _save(path, arrays)
    assert Ontology.from_arrays(arrays).ids.tolist() == ids  # a crafted file a structural check cannot tell


OTHER_UID = 4242


def _other_user(path: Path) -> None:
    if os.getuid() != 0:
        pytest.skip("giving a file to another user needs root")
    os.chown(path, OTHER_UID, -1)


@pytest.mark.parametrize("how", ["another user's", "group-writable", "writable by others"])
def test_cache_file_someone_else_can_have_written_is_not_used(obo, caplog, how):
    _onto, rec = oc.load_cached_ontology(obo)
    _shuffle_ids(rec.path)
    if how == "another user's":
        _other_user(rec.path)
    else:
        os.chmod(rec.path, 0o620 if how == "group-writable" else 0o602)
    with caplog.at_level(logging.WARNING, logger="goeval.cache"):
        onto, rec2 = oc.load_cached_ontology(obo)
    notices = [r.getMessage() for r in caplog.records if r.name == "goeval.cache"]
    want = {"another user's": f"owned by user id {OTHER_UID}, not by you", "group-writable": "writable by its group",
            "writable by others": "writable by others"}[how]
    assert len(notices) == 1 and "not trusted" in notices[0] and want in notices[0], notices
    assert rec2.status == "written"  # rebuilt in the user's own folder: the user's file now
    assert_same_ontology(onto, _fresh(obo))
    st = rec.path.stat()
    assert st.st_uid == os.getuid() and stat.S_IMODE(st.st_mode) == 0o600
    assert oc.load_cached_ontology(obo)[1].status == "hit"


@pytest.mark.parametrize("how", ["another user's", "group-writable", "world-writable, sticky"])
def test_cache_folder_someone_else_can_write_is_not_used(obo, tmp_path, monkeypatch, caplog, how):
    """A shared cache folder (GOEVAL_CACHE_DIR or --ontology-cache): neither read nor written, the OBO parsed."""
    own = tmp_path / "own"
    own.mkdir(mode=0o700)
    _onto, rec = oc.load_cached_ontology(obo, cache=own)
    _shuffle_ids(rec.path)  # planted in the shared folder under the name goeval looks for
    shared = tmp_path / "shared"
    shared.mkdir()
    planted = shared / rec.path.name
    os.replace(rec.path, planted)
    if how == "another user's":
        _other_user(shared)
    else:
        os.chmod(shared, 0o770 if how == "group-writable" else 0o1777)
    before = planted.read_bytes()
    monkeypatch.setenv("GOEVAL_CACHE_DIR", str(shared))
    for cache in (True, planted):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="goeval.cache"):
            onto, rec2 = oc.load_cached_ontology(obo, cache=cache)
        notices = [r.getMessage() for r in caplog.records if r.name == "goeval.cache"]
        assert len(notices) == 1 and f"ontology cache folder {shared}:" in notices[0] and "\n" not in notices[0]
        assert ("owned by user id" if how == "another user's" else "writable by") in notices[0]
        assert rec2.status == "off" and rec2.path is None and str(shared) in rec2.reason
        assert_same_ontology(onto, _fresh(obo))
        assert _files(shared) == [planted.name] and planted.read_bytes() == before  # nothing written there


def test_new_cache_folder_and_files_are_the_users_alone(obo, tmp_path, monkeypatch):
    """Made 0700 and 0600 whatever the umask (here 0: everything writable by everyone otherwise)."""
    folder = tmp_path / "home" / ".cache" / "goeval"
    monkeypatch.setenv("GOEVAL_CACHE_DIR", str(folder))
    old = os.umask(0)
    try:
        _onto, rec = oc.load_cached_ontology(obo)
        _onto, explicit = oc.load_cached_ontology(obo, cache=tmp_path / "mine" / "onto.npz")
    finally:
        os.umask(old)
    assert rec.status == explicit.status == "written"
    for d in (folder, explicit.path.parent):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700
    for f in (rec.path, explicit.path):
        assert stat.S_IMODE(f.stat().st_mode) == 0o600 and f.stat().st_uid == os.getuid()
    assert oc.load_cached_ontology(obo)[1].status == "hit"
