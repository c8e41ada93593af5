"""A [Term] stanza repeated with the same content is read once (and said); one repeated with other content is an
error naming both lines. CAFA-evaluator-PK's example ontology repeats a stanza (the copy differs only by a
trailing space); the reference keeps the later stanza, which is the same term."""

from __future__ import annotations

import pytest

import goeval
from goeval.cli import main
from goeval.errors import DuplicateTermError, InputFormatError, OntologyError
from goeval.io.obo import parse_obo_text, read_obo, start_read_obo

HEAD = "format-version: 1.2\ndefault-namespace: biological_process\n\n"
ROOT = "[Term]\nid: GO:0000001\nname: root\nnamespace: biological_process\n\n"
CHILD = "[Term]\nid: GO:0000002\nname: child\nnamespace: biological_process\nsubset: slim\nis_a: GO:0000001 ! root\n"
COPY = ("[Term]\nid: GO:0000002\nname: child\n! a comment\nnamespace: biological_process\nsubset: slim \n\n"
        "is_a: GO:0000001 ! root\n")
OTHER = "[Term]\nid: GO:0000002\nname: child\nnamespace: biological_process\nis_a: GO:0000003\n"
LEAF = "[Term]\nid: GO:0000003\nname: leaf\nnamespace: biological_process\nis_a: GO:0000001\n\n"


def test_identical_stanzas_are_read_once_with_their_lines(tmp_path, fork, monkeypatch):
    monkeypatch.setenv("GOEVAL_FORK", fork)
    text = HEAD + ROOT + CHILD + "\n" + LEAF + COPY
    path = tmp_path / "dup.obo"
    path.write_text(text)
    for raw in (parse_obo_text(text, path), read_obo(path), start_read_obo(path)()):
        assert [t["id"] for t in raw.terms] == ["GO:0000001", "GO:0000002", "GO:0000003"]
        assert raw.diagnostics["duplicate_stanzas_merged"] == [{"id": "GO:0000002", "lines": [9, 22]}]
    onto = goeval.load_ontology(path, cache=False)
    assert onto.n_terms == 3 and onto.diagnostics["duplicate_stanzas_merged"][0]["lines"] == [9, 22]
    cached = goeval.load_ontology(path, cache=tmp_path / "cache.npz")
    again = goeval.load_ontology(path, cache=tmp_path / "cache.npz")  # read back from the cache
    assert cached.diagnostics == again.diagnostics == onto.diagnostics


def test_a_repeated_id_with_other_content_names_both_lines(tmp_path):
    path = tmp_path / "conflict.obo"
    path.write_text(HEAD + ROOT + CHILD + "\n" + LEAF + OTHER)
    with pytest.raises(DuplicateTermError) as e:
        goeval.load_ontology(path, cache=False)
    assert isinstance(e.value, InputFormatError) and isinstance(e.value, OntologyError)
    assert e.value.line == 22 and "lines 9 and 22" in e.value.problem and e.value.text == "[Term]"
    with pytest.raises(DuplicateTermError, match="lines 9 and 22"):
        parse_obo_text(HEAD + ROOT + CHILD + "\n" + LEAF + OTHER)


def test_the_console_says_the_stanzas_were_merged(tmp_path, capsys):
    obo = tmp_path / "dup.obo"
    obo.write_text(HEAD + ROOT + CHILD + "\n" + LEAF + COPY)
    (tmp_path / "t.tsv").write_text("P1\tGO:0000002\n")
    (tmp_path / "p.tsv").write_text("P1\tGO:0000002\t0.5\n")
    assert main(["evaluate", "--ontology", str(obo), "--truth", str(tmp_path / "t.tsv"), "--predictions",
                 str(tmp_path / "p.tsv"), "--out", str(tmp_path / "out"), "--no-cache"]) == 0
    err = capsys.readouterr().err
    assert "1 repeated [Term] stanza with the same content read once: GO:0000002 (lines 9 and 22)" in err


@pytest.fixture(params=["never", "always"])
def fork(request):
    return request.param
