"""Property tests of the OBO reader: random bytes and random mutations of a
valid file give a typed error (naming a line when a line is at fault) or an
ontology, never another exception; neutral changes (byte-order mark, CRLF,
trailing whitespace, extra blank lines, indentation) give the same ontology."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from goeval.errors import GoevalError, InputFormatError
from goeval.io.obo import parse_obo_text, read_obo
from goeval.ontology import build_ontology

CLEAN = Path(__file__).resolve().parents[1] / "data" / "obo" / "clean.obo"
SEED = CLEAN.read_text()
FILE_LEVEL = ("the file is empty",)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CHARS = st.sampled_from(
    list("\t \n\r\ufeff\x85\u2028\x0c:!{}[]\"=X0") + ["is_a: ", "id: ", "[Term]\n", "is_obsolete: true\n",
                                                      "replaced_by: X:0000001\n", "alt_id: X:0000002\n"]
)


def signature(onto):
    """What the reader decides: ids, edges, namespaces, alt_id/obsolete mapping, names."""
    coo = onto.parents.tocoo()
    edges = sorted(zip(onto.ids[coo.row].tolist(), onto.ids[coo.col].tolist()))
    ns = [onto.namespaces[j] for j in onto.namespace_of]
    redirect = {k: (onto.ids[v[0]] if v[0] >= 0 else None, v[1]) for k, v in onto._redirect.items()}
    return onto.ids.tolist(), edges, ns, redirect, onto.names.tolist(), onto.diagnostics


def lines_of(text: str) -> list[str]:
    """Lines as the reader numbers them (BOM dropped, CRLF read as LF)."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")


def outcome(text: str):
    """The ontology's signature, or the GoevalError raised (any other exception fails the test)."""
    try:
        return signature(build_ontology(parse_obo_text(text, "fuzz.obo")))
    except GoevalError as exc:
        if isinstance(exc, InputFormatError):
            assert exc.path == "fuzz.obo"
            assert exc.line is not None, exc
            assert 1 <= exc.line <= len(lines_of(text)), exc
            assert exc.text == lines_of(text)[exc.line - 1][:197] or exc.text.endswith("..."), exc
        return exc


@st.composite
def mutated(draw):
    lines = SEED.split("\n")
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(
            ["del_char", "ins_char", "rep_char", "dup_line", "del_line", "swap_lines", "ins_text"]))
        text = "\n".join(lines)
        if kind.endswith("char") or kind == "ins_text":
            i = draw(st.integers(0, len(text) - 1))
            c = "" if kind == "del_char" else draw(CHARS) if kind != "ins_text" else draw(
                st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20))
            text = text[:i] + c + text[i + (kind == "rep_char" or kind == "del_char") :]
            lines = text.split("\n")
        else:
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if kind == "dup_line":
                lines.insert(j, lines[i])
            elif kind == "del_line":
                del lines[i]
            else:
                lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


@SETTINGS
@given(st.binary(max_size=400))
@example(b"\xef\xbb\xbf[Term]\r\nid: A\r\n")
@example(b"[Term]\nid: A\n\xff\n")
@example(b"\n\n  \n")
def test_random_bytes_give_a_typed_error_or_an_ontology(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "random.obo"
        path.write_bytes(data)
        try:
            build_ontology(read_obo(path))
        except GoevalError as exc:
            if isinstance(exc, InputFormatError) and exc.line is None:
                assert any(s in exc.problem for s in FILE_LEVEL), exc


@SETTINGS
@given(mutated())
@example(SEED.replace("is_a: X:0000002 ! child b", "is_a X:0000002 ! child b"))
@example(SEED.replace("replaced_by: X:0000004", "replaced_by: X:0000005"))  # an obsolete term replaced by itself
@example(SEED.replace("alt_id: X:0000012", "alt_id: X:0000002"))  # an alt_id equal to its own term's id
@example(SEED.replace("is_a: X:0000001 {", "is_a: X:0000004 {"))  # a cycle
def test_mutations_give_a_typed_error_naming_a_line_or_an_ontology(text):
    outcome(text)


NEUTRAL = {
    "crlf": lambda text, _r: text.replace("\n", "\r\n"),
    "trailing whitespace": lambda text, r: "\n".join(
        ln + (r.choice([" ", "\t", "  \t"]) if r.random() < 0.5 else "") for ln in text.split("\n")),
    "blank lines": lambda text, r: "\n".join(
        ln + ("\n" * r.randint(1, 2) if r.random() < 0.3 else "") for ln in text.split("\n")),
    "indentation": lambda text, r: "\n".join(
        (r.choice([" ", "\t", "   "]) if r.random() < 0.3 else "") + ln for ln in text.split("\n")),
}


@settings(max_examples=60, deadline=None)
@given(st.sets(st.sampled_from(sorted(NEUTRAL))), st.booleans(), st.randoms(use_true_random=False))
def test_neutral_mutations_give_the_same_ontology(kinds, bom, rnd):
    text = SEED
    for kind in ("blank lines", "indentation", "trailing whitespace", "crlf"):  # CRLF after the spaces
        if kind in kinds:
            text = NEUTRAL[kind](text, rnd)
    if bom:
        text = "\ufeff" + text
    assert outcome(text) == outcome(SEED)
