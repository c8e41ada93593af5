"""goeval.report.outline: the report's sections in reading order, as the page and the Markdown summary show them."""

from __future__ import annotations

from report_fixtures import small_split, two_methods  # noqa: F401 - fixtures

import re

import pandas as pd

from goeval.io.results_dir import read_results_dir
from goeval.report.html import report_html, report_markdown
from goeval.report.outline import HEADLINE_TITLE, Figure, Table, report_outline

#: Stand-ins for rendered figures: the page embeds whatever bytes it is given.
FAKE = b"\x89PNG fake"
FIGURES = {"optima": FAKE, "fig4_MFO": FAKE, "coverage": FAKE, "something_else": FAKE}


def _sections(page: str) -> list[tuple[str, str, str]]:
    """(level, anchor, title) of every h2/h3 of the page after its contents, in order."""
    body = page[page.index("</nav>"):]
    return re.findall(r'<h([23]) id="([^"]+)">(.*?)</h\1>', body)


def _between(page: str, anchor: str) -> str:
    """The text of the section ``anchor`` up to the next heading of any level."""
    start = page.index(f'id="{anchor}"')
    nxt = re.search(r"<h[23] id=", page[start + 1:])
    return page[start:start + 1 + nxt.start()] if nxt else page[start:]


def test_contents_link_every_section_in_the_order_of_the_page(two_methods):
    page = report_html(read_results_dir(two_methods[1]), FIGURES)
    nav = page[page.index('<nav id="contents">'):page.index("</nav>")]
    links = re.findall(r'<a href="#([^"]+)">(.*?)</a>', nav)
    assert links == [(a, t) for _level, a, t in _sections(page)]
    assert len(links) >= 6 and page.index("</nav>") < page.index('id="s1"')


def test_the_headline_comes_first_and_the_diagnostics_and_provenance_last(two_methods):
    page = report_html(read_results_dir(two_methods[1]), FIGURES)
    titles = [t for level, _a, t in _sections(page) if level == "2"]
    assert titles[0] == HEADLINE_TITLE.replace("'", "&#x27;")
    assert titles[1:3] == ["MFO: methods ranked", "Coverage and other measures"]
    assert titles[-3:] == ["Other figures", "Diagnostics: what was read, remapped and dropped",
                           "How these results were produced"]
    assert "<table>" in _between(page, "s1")  # the matrix itself, before any other table
    assert page.index("<table>") > page.index('id="s1"')


def test_each_figure_sits_in_the_section_of_what_it_shows(two_methods):
    page = report_html(read_results_dir(two_methods[1]), FIGURES)
    where = {title: _between(page, anchor) for _level, anchor, title in _sections(page)}
    assert 'id="fig-optima"' in where[HEADLINE_TITLE.replace("'", "&#x27;")]
    assert 'id="fig-fig4_MFO"' in where["MFO: methods ranked"]
    assert 'id="fig-coverage"' in where["Coverage and other measures"]
    assert 'id="fig-something_else"' in where["Other figures"]  # a figure no section takes is still shown
    assert page.count("<figure") == len(FIGURES)


def test_markdown_has_the_sections_of_the_page_in_the_same_order(two_methods):
    res = read_results_dir(two_methods[1])
    page, md = report_html(res, FIGURES), report_markdown(res)
    titles = [t.replace("&#x27;", "'").replace("&amp;", "&") for _level, _a, t in _sections(page)]
    headings = re.findall(r"^#{2,3} (.*)$", md, re.M)
    assert headings[0] == "Contents" and headings[1:] == [t.replace("&", "\\&") for t in titles
                                                         if t != "Other figures"]  # no figure files: no figures
    contents = md[md.index("## Contents"):md.index("## Headline")]
    assert re.findall(r"^ *- (.*)$", contents, re.M)[:2] == [HEADLINE_TITLE, "MFO: methods ranked"]


def test_a_time_split_reads_kind_by_kind_with_one_ranking_per_namespace(small_split):
    res = read_results_dir(small_split)
    drawn = [f"{k}_{n}" for k in ("nk", "lk", "pk") for n in ("optima", "fig4_MFO", "coverage")]
    sections = report_outline(res, drawn)
    assert [s.title for s in sections] == [HEADLINE_TITLE, "NK targets", "LK targets", "PK targets",
                                           "Diagnostics: what was read, remapped and dropped",
                                           "How these results were produced"]
    for s, kind in zip(sections[1:4], ("nk", "lk", "pk")):
        assert [c.title for c in s.children] == ["MFO: methods ranked", "Coverage and other measures"]
        assert s.figures() == [f"{kind}_optima", f"{kind}_fig4_MFO", f"{kind}_coverage"]  # its own kind's figures
        assert sum(isinstance(b, Table) for c in s.children for b in c.blocks) == 2
    (matrix,) = [b for b in sections[0].blocks if isinstance(b, Table)]
    assert [r["targets"] for r in matrix.records] == ["NK"] * 2 + ["LK"] * 2 + ["PK"] * 2
    assert not [b for b in sections[0].blocks if isinstance(b, Figure)]  # each kind's optima go to the kind


def test_a_time_split_page_stays_small(small_split):
    """Three kinds, one namespace, two methods: one headline matrix and two tables per kind (before: four
    "ranked by" tables and the other measures per kind, 16 tables and 43 kB), under 40 kB of text."""
    page = report_html(read_results_dir(small_split), {})
    assert page.count("<table>") == 1 + 3 * 2
    assert len(page.encode()) < 40_000


def test_the_paper_figures_sit_in_the_headline_the_rankings_and_the_groups_section(two_methods):
    res = read_results_dir(two_methods[1])
    res.summary = pd.concat([res.summary.assign(group="all"), res.summary.assign(group="human")])
    drawn = ["fig4_MFO", "rank_MFO", "optima", "top_MFO", "groups_fmax", "groups_smin", "coverage"]
    sections = report_outline(res, drawn)
    by_title = {s.title: s for s in sections}
    assert by_title[HEADLINE_TITLE].figures() == ["top_MFO", "optima"]  # the top-N bars first
    assert by_title["MFO: methods ranked"].figures() == ["fig4_MFO", "rank_MFO"]
    groups = by_title["Groups of proteins: each method per group"]
    assert groups.figures() == ["groups_fmax", "groups_smin"] and "Other figures" not in by_title
    assert [s.title for s in sections].index(groups.title) == [s.title for s in sections].index("MFO: methods ranked") + 1
    res.summary = res.summary[res.summary.group == "all"]  # the group 'all' alone: no groups section
    assert "Groups of proteins: each method per group" not in [s.title for s in report_outline(res, drawn)]
    page = report_html(res, {name: FAKE for name in drawn})
    assert "MFO: the best methods by each measure" in page and "MFO: F, weighted F and S at each rank threshold" in page


def test_each_kind_of_a_time_split_has_its_top_bars_in_the_headline(small_split):
    res = read_results_dir(small_split)
    drawn = [f"{k}_{n}" for k in ("nk", "lk", "pk") for n in ("optima", "top_MFO", "groups_fmax")]
    sections = report_outline(res, drawn)
    assert sections[0].figures() == ["nk_top_MFO", "lk_top_MFO", "pk_top_MFO"]
    page = report_html(res, {name: FAKE for name in drawn})
    assert "LK targets: MFO: the best methods by each measure" in page
    assert "PK targets: Fmax of every method in each group" in page  # placed in 'Other figures' (no groups here)


def test_a_retrieval_run_with_a_bootstrap_shows_each_interval_beside_its_value(tmp_path):
    """goeval report of goeval retrieval --bootstrap: ``value [ci_low, ci_high]`` cells, no raw interval columns,
    and the note on how to read them."""
    from goeval.cli import main
    from goeval.data import example_path

    out = tmp_path / "ret"
    assert main(["retrieval", "--ontology", str(example_path("ontology")), "--truth", str(example_path("truth")),
                 "--predictions", str(example_path("predictions")), "-k", "5", "--bootstrap", "20",
                 "--out", str(out), "-q"]) == 0
    s = pd.read_csv(out / "retrieval_summary.tsv", sep="\t").iloc[0]
    md = report_markdown(read_results_dir(out))
    for c in ("tap_5", "ipr_auc", "peak_tap", "macro_roc_auc", "macro_average_precision"):
        assert f"{s[c]:.4g} \\[{s[c + '_ci_low']:.4g}, {s[c + '_ci_high']:.4g}\\]" in md
    assert "ci\\_low" not in md and "\\_se |" not in md
    assert "percentile bootstrap interval" in md
