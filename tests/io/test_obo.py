"""The OBO reader: every line parsed or rejected; obonet sees only the tags goeval uses (same result)."""

from __future__ import annotations

from pathlib import Path

import obonet
import pytest
from conftest import shared_path

import goeval
from goeval.cli import main
from goeval.errors import InputFormatError
from goeval.io.obo import parse_obo_text, read_obo, start_read_obo


def _edges_from_obonet(path):
    g = obonet.read_obo(str(path), ignore_obsolete=False)
    return g


@pytest.mark.parametrize("fork", ["never", "always"])
def test_same_terms_and_edges_as_full_obonet_parse(tiny_obo, fork, monkeypatch):
    monkeypatch.setenv("GOEVAL_FORK", fork)
    raw = read_obo(tiny_obo)
    g = _edges_from_obonet(tiny_obo)
    assert sorted(t["id"] for t in raw.terms) == sorted(g.nodes)
    names = raw.names()  # names are parsed apart, on demand
    for t in raw.terms:
        node = g.nodes[t["id"]]
        assert names[t["id"]] == node.get("name")
        for tag in ("namespace", "is_a", "relationship", "alt_id", "replaced_by", "is_obsolete"):
            assert t.get(tag) == node.get(tag), (t["id"], tag)


def test_real_go_matches_obonet_and_parallel_equals_serial(monkeypatch):
    path = shared_path("data", "go", "go_2019-01-29.obo.gz")
    monkeypatch.setenv("GOEVAL_FORK", "never")
    one = read_obo(path)
    monkeypatch.setenv("GOEVAL_FORK", "always")
    two = read_obo(path)
    assert one.terms == two.terms and one.header == two.header and one.typedefs == two.typedefs
    g = obonet.read_obo(str(path), ignore_obsolete=False)
    assert len(one.terms) == g.number_of_nodes() == 47347
    sample = one.terms[::97]
    names = one.names()
    assert len(names) == 47347
    for t in sample:
        node = g.nodes[t["id"]]
        assert names[t["id"]] == node.get("name")
        for tag in ("namespace", "is_a", "relationship", "alt_id", "replaced_by"):
            assert t.get(tag) == node.get(tag)


def test_parse_text_and_header():
    raw = parse_obo_text("format-version: 1.4\ndefault-namespace: x\n\n[Term]\nid: A:1\n")
    assert raw.header["default-namespace"] == ["x"] and raw.terms[0]["id"] == "A:1"


def test_modifiers_and_comments_are_stripped(tmp_path):
    obo = tmp_path / "m.obo"
    obo.write_text("[Term]\nid: A:1\n\n[Term]\nid: A:2\nis_a: A:1 {source=\"x\"} ! the root\n"
                   "relationship: part_of A:1 ! the root\n")
    onto = goeval.load_ontology(obo)
    assert onto.ids[onto.parents_of("A:2")].tolist() == ["A:1"]


# ------------------------------------------------- every line parsed or rejected
DATA = Path(__file__).parent.parent / "data" / "obo"
CLEAN = DATA / "clean.obo"
BASE = "format-version: 1.4\n\n[Term]\nid: A:1\nnamespace: n\n\n[Term]\nid: A:2\nnamespace: n\n"  # 9 lines
HEAD = "format-version: 1.4\ndata-version: x\n\n[Term]\nid: A:1\n"  # header lines 1-2


@pytest.mark.parametrize(
    "text,line,problem",
    [
        (BASE + "is_a A:1\n", 10, "colon"),  # no colon after the tag
        (BASE + "name A two\n", 10, "colon"),  # no colon at all
        ("format-version 1.4\n" + BASE, 1, "colon"),  # in the header
        (BASE + "  is_a A:1\n", 10, "colon"),  # indented and malformed
        (BASE + "is_a : A:1\n", 10, "colon"),  # space before the colon
        (BASE + "relationship: part_of A:1 A:3\n", 10, "one target"),
        (BASE + "relationship: part_of\n", 10, "a relation and a target"),
        (BASE + "relationship: part_of {source=\"x\"} ! c\n", 10, "a relation and a target"),
        (BASE + "relationship:\n", 10, "a relation and a target"),
        (BASE + "is_obsolete: yes\n", 10, "'true' or 'false'"),
        (BASE + "is_obsolete: TRUE\n", 10, "'true' or 'false'"),
        (BASE + "is_obsolete:\n", 10, "'true' or 'false'"),
        (BASE + "namespace:\n", 10, "empty value for 'namespace:'"),
        (BASE + "namespace:   ! a comment only\n", 10, "empty value for 'namespace:'"),
        (BASE + "is_a:\n", 10, "empty value for 'is_a:'"),
        (BASE + "alt_id: \n", 10, "empty value for 'alt_id:'"),
        (BASE + "replaced_by:\t\n", 10, "empty value for 'replaced_by:'"),
        (BASE + "consider:\n", 10, "empty value for 'consider:'"),
        (BASE + "subset:\n", 10, "empty value for 'subset:'"),
        (BASE + "subset: two words\n", 10, "one identifier"),
        (BASE + "[Term]\nid:\n", 11, "empty value for 'id:'"),
        (BASE + "is_a: A:1 A:3\n", 10, "one identifier"),
        (BASE + "is_a: A:1 {source=\"x\"\n", 10, "one identifier"),  # unclosed qualifier block
        (BASE + "namespace: two words\n", 10, "one identifier"),
        ("default-namespace:\n" + BASE, 1, "empty value for 'default-namespace:'"),
        (BASE + "name: a\rb\n", 10, "carriage return"),
        (BASE + "[Term\nid: A:3\n", 10, "stanza header"),
        (BASE + "[]\n", 10, "stanza header"),
        (BASE + "GO:0000001 is_a\n", 10, "stray identifier"),  # an unknown tag must be 'tag: value'
        (BASE + "GO:0000001\n", 10, "stray identifier"),
        (HEAD + "is_a A:1\n", 6, "colon"),
    ],
)
def test_malformed_line_is_an_error_naming_it(text, line, problem):
    with pytest.raises(InputFormatError) as e:
        parse_obo_text(text, "m.obo")
    err = e.value
    assert err.path == "m.obo" and err.line == line and problem in err.problem
    assert err.text == text.split("\n")[line - 1]
    assert f"m.obo, line {line}" in str(err)


def test_malformed_line_in_a_file(tmp_path):
    obo = tmp_path / "bad.obo"
    obo.write_text(CLEAN.read_text().replace("is_a: X:0000002 ! child b", "is_a X:0000002 ! child b"))
    with pytest.raises(InputFormatError) as e:
        read_obo(obo)
    assert e.value.line == 33 and e.value.text == "is_a X:0000002 ! child b" and e.value.path == str(obo)


def test_second_id_in_a_stanza_names_its_line():
    # today's bug: the first term vanished
    text = BASE + "is_a: A:1\nid: A:3\nis_a: A:1\n"
    with pytest.raises(InputFormatError) as e:
        parse_obo_text(text, "d.obo")
    assert e.value.line == 11 and e.value.text == "id: A:3" and "second 'id:'" in e.value.problem
    assert "line 7" in e.value.problem  # the stanza header


@pytest.mark.parametrize(
    "text,line",
    [
        (BASE + "\n[Term]\nname: no id\n\n[Term]\nid: A:4\n", 11),  # inside
        (BASE + "\n[Term]\nname: no id\n", 11),  # last stanza
        ("[Term]\nname: first\n\n[Term]\nid: A:1\n", 1),  # first line of the file
        (BASE + "\n[Typedef]\nname: part of\n", 11),  # any stanza type
        # a stanza without id and another with two: the first problem in file order
        (BASE + "\n[Term]\nname: none\n\n[Term]\nid: A:5\nid: A:6\n", 11),
    ],
)
def test_stanza_without_id_names_its_header_line(text, line):
    with pytest.raises(InputFormatError) as e:
        parse_obo_text(text, "s.obo")
    assert e.value.line == line and e.value.text.startswith("[") and "without an 'id:'" in e.value.problem


def _signature(onto):
    """Everything the reader decides: ids, edges, namespaces, alt_id/obsolete mapping, names."""
    coo = onto.parents.tocoo()
    edges = sorted(zip(onto.ids[coo.row].tolist(), onto.ids[coo.col].tolist()))
    ns = [onto.namespaces[j] for j in onto.namespace_of]
    redirect = {k: (onto.ids[v[0]] if v[0] >= 0 else None, v[1]) for k, v in onto._redirect.items()}
    return onto.ids.tolist(), edges, ns, redirect, onto.names.tolist(), onto.data_version, onto.diagnostics


def _load_text(text, tmp_path, name="v.obo", newline="\n"):
    path = tmp_path / name
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return goeval.load_ontology(path)


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(lambda t: t.replace("\n\n[", "\n["), id="no blank lines between stanzas"),
        pytest.param(lambda t: "\ufeff" + t, id="byte-order mark"),
        pytest.param(lambda t: t.replace("\n", "\r\n"), id="CRLF"),
        pytest.param(lambda t: "\ufeff" + t.replace("\n\n[", "\n[").replace("\n", "\r\n"), id="all three"),
        pytest.param(lambda t: t.replace("\nis_a:", "\n  is_a:").replace("\nid:", "\n\tid:"), id="indented tags"),
        pytest.param(lambda t: t.replace("\n[Term]", "\n  [Term]  "), id="indented stanza headers"),
        pytest.param(lambda t: t.replace("\n", "  \n"), id="trailing whitespace"),
        pytest.param(lambda t: t.replace("\nis_a:", "\n\nis_a:"), id="blank lines inside stanzas"),
        pytest.param(lambda t: t.replace("! root process", "  !  root process"), id="spaces before comments"),
        pytest.param(lambda t: t.rstrip("\n"), id="no final newline"),
        pytest.param(lambda t: t.replace("is_a: X:0000001 {", "is_a:X:0000001\t{"), id="no space after colon"),
    ],
)
def test_legal_variants_give_the_same_ontology(variant, tmp_path):
    clean = goeval.load_ontology(CLEAN)
    text = CLEAN.read_text()
    assert variant(text) != text
    assert _signature(_load_text(variant(text), tmp_path)) == _signature(clean)


def test_clean_fixture_is_read_as_written():
    onto = goeval.load_ontology(CLEAN)
    assert onto.labels == ("BPO", "MFO") and onto.data_version == "clean/2024-01-01"
    assert set(onto.ids[onto.parents_of("X:0000004")]) == {"X:0000002", "X:0000003"}
    idx, st = onto.resolve(["X:0000012", "X:0000005", "X:0000006", "X:0000016"])
    assert onto.ids[idx[:2]].tolist() == ["X:0000002", "X:0000004"] and idx[2] == idx[3] == -1
    assert onto.names[onto.index("X:0000011")] == "function child"
    assert onto.diagnostics["unknown_obo_tags"] == {} and onto.diagnostics["relations_not_followed"] == {"regulates": 1}


def test_subset_lines_are_kept_per_live_term(tmp_path):
    onto = goeval.load_ontology(CLEAN)
    assert onto.ids[onto.subset("slim")].tolist() == ["X:0000003"]
    assert onto.subset("gocheck_do_not_annotate").size == 0
    text = CLEAN.read_text().replace("subset: slim\n", "subset: slim {x=\"y\"} ! a comment\nsubset: gocheck_do_not_annotate\n")
    path = tmp_path / "two.obo"
    path.write_text(text)
    onto = goeval.load_ontology(path)
    assert onto.ids[onto.subset("slim")].tolist() == onto.ids[onto.subset("gocheck_do_not_annotate")].tolist() == ["X:0000003"]


def test_full_obonet_parse_agrees_on_the_clean_fixture():
    g = obonet.read_obo(str(CLEAN), ignore_obsolete=False)
    raw = read_obo(CLEAN)
    assert sorted(t["id"] for t in raw.terms) == sorted(g.nodes)
    for t in raw.terms:
        for tag in ("namespace", "is_a", "relationship", "alt_id", "replaced_by", "is_obsolete"):
            assert t.get(tag) == g.nodes[t["id"]].get(tag), (t["id"], tag)


def test_names_without_blank_lines_and_with_typedefs():
    text = "[Term]\nid: A:1\nname: one\n[Typedef]\nid: rel\nname: a relation\n[Term]\nid: A:2\nname: two\nis_a: A:1\n"
    raw = parse_obo_text(text)
    assert raw.names() == {"A:1": "one", "A:2": "two"}
    assert [t["id"] for t in raw.terms] == ["A:1", "A:2"] and [t["id"] for t in raw.typedefs] == ["rel"]


def test_header_with_blank_lines_is_read_whole():
    raw = parse_obo_text("format-version: 1.4\n\ndata-version: v1\n\n! c\ndefault-namespace: d\n\n[Term]\nid: A:1\n")
    assert raw.header["format-version"] == "1.4" and raw.header["data-version"] == "v1"
    assert raw.header["default-namespace"] == ["d"]


def test_unknown_tags_and_stanza_types_are_counted_not_silent(tmp_path, capsys):
    text = BASE + "my_tag: some value\nmy_tag: again\n\n[Annotation]\nid: Q:1\nis_a: A:1\n\n[Instance]\nid: I:1\n"
    raw = parse_obo_text(text)
    assert raw.diagnostics["unknown_tags"] == {"my_tag": 2}
    assert raw.diagnostics["unknown_tag_examples"] == ["line 10: my_tag: some value", "line 11: my_tag: again"]
    assert raw.diagnostics["unknown_stanza_types"] == {"Annotation": 1}
    assert [t["id"] for t in raw.terms] == ["A:1", "A:2"]  # [Annotation] and [Instance] are not terms
    path = tmp_path / "u.obo"
    path.write_text(text)
    assert main(["info", str(path)]) == 0
    err = capsys.readouterr().err  # what was read: messages on stderr (the table is on stdout)
    assert "tags OBO does not define, skipped: my_tag 2" in err and "line 10: my_tag: some value" in err
    assert "[Annotation] 1" in err


def test_structural_lines_with_odd_spacing_are_read_like_usual_ones():
    usual = parse_obo_text(BASE + "is_a: A:1 {x=\"1\"} ! c\nrelationship: part_of A:1\n")
    odd = parse_obo_text(BASE + "is_a:  A:1   {x=\"1\"}   !  c  \nrelationship:  part_of \t A:1  ! c\n")
    assert usual.terms == odd.terms
    assert odd.terms[1]["is_a"] == ["A:1"] and odd.terms[1]["relationship"] == ["part_of A:1"]


# ------------------------------------------------------------ background parse
@pytest.mark.parametrize("fork", ["always", "never"])
def test_started_read_can_be_finished_or_cancelled(fork, monkeypatch):
    from goeval.io import background

    monkeypatch.setenv("GOEVAL_FORK", fork)
    serial = parse_obo_text(CLEAN.read_text(), CLEAN)
    pending = start_read_obo(CLEAN)
    assert pending.forked == (fork == "always" and background.should_fork(large=False))
    raw = pending()
    assert raw.terms == serial.terms and raw.header == serial.header and raw.typedefs == serial.typedefs
    assert background.live_children() == []
    pending.cancel()  # idempotent after the result
    again = start_read_obo(CLEAN)
    again.cancel()
    again.cancel()
    assert background.live_children() == []


def test_checking_errors_are_raised_before_anything_is_forked(tmp_path, monkeypatch):
    from goeval.io import background

    monkeypatch.setenv("GOEVAL_FORK", "always")
    bad = tmp_path / "bad.obo"
    bad.write_text(BASE + "is_obsolete: yes\n")
    with pytest.raises(InputFormatError):
        start_read_obo(bad)
    assert background.live_children() == []
