"""The HTML page and Markdown summary: tables, embedded figures, no external reference; Chromium rendering."""

from __future__ import annotations

from report_fixtures import two_methods  # noqa: F401 - fixture

import re
import shutil
import socket
import subprocess
import threading
import typing
from pathlib import Path

import numpy as np
import pytest

from goeval.io.results_dir import read_results_dir
from goeval.report.html import report_html, report_markdown
from goeval.report.style import result_colors
from goeval.report.save import save_report

EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", re.I)


@pytest.fixture(scope="module")
def page(two_methods, tmp_path_factory):
    pytest.importorskip("matplotlib")
    out = tmp_path_factory.mktemp("page") / "report.html"
    written = save_report(two_methods[1], out)
    return out, written


def test_methods_carry_their_figures_colour(two_methods):
    res = read_results_dir(two_methods[1])
    text = report_html(res, {})
    colors = result_colors(res.summary, res.curves)
    for m in ("BLAST", "naive"):
        assert f'<span class="sw" style="background:{colors[m]}"></span>{m}' in text
    from goeval.report.style import BASELINE_COLORS
    assert colors["naive"] == BASELINE_COLORS["naive"]


def test_page_is_self_contained(page):
    out, written = page
    assert sorted(written) == ["report.html", "report.md"]
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert not EXTERNAL.search(text)
    assert "http://" not in text and "https://" not in text
    assert "<link" not in text and "<script" not in text and "@import" not in text and "url(" not in text
    imgs = re.findall(r"<img [^>]*src=\"([^\"]+)\"", text)
    assert len(imgs) == 3 and all(s.startswith("data:image/png;base64,") for s in imgs)  # fig4_MFO, coverage, optima
    for measure in ("Fmax", "weighted Fmax", "Smin (bits)", "weighted Smin (bits)"):
        assert f'<td class="t">{measure}</td>' in text  # the rankings of each
    assert text.count("<table>") >= 4
    assert "27,021 lines read" in text and "421 benchmark proteins" in text  # diagnostics in words
    assert "groundtruth_leafonly_MFO_NK.tsv" in text  # inputs
    assert "not recorded in diagnostics.json" in text  # the run did not store its command line


def test_markdown_summary(two_methods):
    md = report_markdown(read_results_dir(two_methods[1]))
    assert "## MFO: methods ranked" in md and "| Fmax | 1 | BLAST | 0.4856 |" in md
    assert "| MFO | BLAST | **0.4856 \\[" in md  # the headline: the best value marked
    assert "## Diagnostics" in md and "## How these results were produced" in md


def test_page_escapes_text(two_methods):
    res = read_results_dir(two_methods[1])
    res.summary = res.summary.assign(method=res.summary.method.replace("naive", "<b>naive</b>"))
    text = report_html(res, {}, title="a < b")
    assert "<b>naive</b>" not in text and "&lt;b&gt;naive&lt;/b&gt;" in text and "<title>a &lt; b</title>" in text
    assert "No figures" in text


# ------------------------------------------------------------ headless Chromium
def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("Chromium is not installed (apt-get install chromium)")


#: Hosts of the browser's own background services (time, updates, accounts), not requests of the page.
BROWSER_SERVICES = re.compile(rb"(?:^|\.)(?:google\.com|googleapis\.com|gstatic\.com|gvt1\.com)(?::\d+)?$")


#: The probe's own console line (proof that console messages reach the log) and the page's console lines.
PROBE = "goeval-probe:"
CONSOLE = re.compile(r':CONSOLE[^\]]*\] "(.*)", source: ')


class Rendered(typing.NamedTuple):
    """What headless Chromium saw of a page."""

    dom: str
    requests: list[bytes]  # requests of the page that reached the proxy
    console: list[str]  # console messages (console.log/warn/error, uncaught exceptions), the probe's first
    screenshot: Path | None  # the PNG of the window


def _probe(html_path: Path) -> Path:
    """A copy of the page that records, on load, how many images decoded and logs one line of its own."""
    probe = html_path.with_name("probe_" + html_path.name)
    probe.write_text(html_path.read_text().replace(
        "</body>", "<script>window.addEventListener('load',()=>{const i=[...document.images];"
                   "const ok=i.filter(x=>x.complete&&x.naturalWidth>0).length;"
                   "document.body.setAttribute('data-images',ok+'/'+i.length);"
                   f"console.log('{PROBE} '+ok+'/'+i.length+' images')}})</script></body>"))
    return probe


def _serve_proxy() -> tuple[socket.socket, list[bytes], threading.Event, threading.Thread]:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(32)
    srv.settimeout(0.2)
    seen: list[bytes] = []
    done = threading.Event()

    def accept() -> None:
        while not done.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    seen.append(conn.recv(4096))
                except OSError:
                    pass

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    return srv, seen, done, t


def _render(html_path, shot=None, size=(1280, 4000)) -> Rendered:
    """Load the page in headless Chromium behind a local proxy: DOM, requests, console messages, screenshot."""
    srv, seen, done, t = _serve_proxy()
    probe = _probe(Path(html_path))
    shot = Path(shot) if shot is not None else probe.with_suffix(".png")
    shot.unlink(missing_ok=True)
    cmd = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
           f"--proxy-server=http://127.0.0.1:{srv.getsockname()[1]}", "--proxy-bypass-list=<-loopback>",
           "--enable-logging=stderr", "--v=0", "--hide-scrollbars", f"--window-size={size[0]},{size[1]}",
           f"--screenshot={shot}", "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    finally:
        done.set()
        t.join()
        srv.close()
    hosts = [re.search(rb"(?:GET|POST|CONNECT|HEAD) (?:https?://)?([^/ ]+)", r) for r in seen]
    page_requests = [r for r, h in zip(seen, hosts) if not (h and BROWSER_SERVICES.search(h.group(1)))]
    console = [m.group(1) for m in map(CONSOLE.search, run.stderr.splitlines()) if m]
    return Rendered(run.stdout, page_requests, console, shot if shot.exists() else None)


def _rendered(html_path, **kwargs) -> Rendered:
    r = _render(html_path, **kwargs)
    if not r.dom:
        pytest.skip("Chromium did not start in this environment")
    return r


def _page_messages(console: list[str]) -> list[str]:
    """The console messages of the page itself: every one but the probe's line, which must be there."""
    assert any(m.startswith(PROBE) for m in console), f"console messages do not reach the log: {console}"
    return [m for m in console if not m.startswith(PROBE)]


def _blank(png: Path) -> bool:
    """Whether a screenshot is blank: one colour, or next to nothing but its commonest colour."""
    import matplotlib.image as mpimg

    rgb = np.round(mpimg.imread(png)[..., :3] * 255).astype(np.uint8).reshape(-1, 3)
    colours, counts = np.unique(rgb, axis=0, return_counts=True)
    return len(colours) < 16 or counts.max() > 0.995 * len(rgb)


def test_chromium_renders_every_table_and_image_without_network(page, tmp_path):
    out, _ = page
    r = _rendered(out, shot=tmp_path / "report.png")
    assert r.requests == []
    n_img = len(re.findall(r"<img ", out.read_text()))
    assert f'data-images="{n_img}/{n_img}"' in r.dom  # every image decoded
    assert r.dom.count("<table>") == out.read_text().count("<table>") and "BLAST" in r.dom
    assert 'id="contents"' in r.dom and '<h2 id="s1">Headline' in r.dom
    assert _page_messages(r.console) == [] and f"{PROBE} {n_img}/{n_img} images" in r.console  # no console error
    assert r.screenshot is not None and not _blank(r.screenshot)
    import matplotlib.image as mpimg

    assert mpimg.imread(r.screenshot).shape[:2] == (4000, 1280)


def test_the_network_check_can_fail(page, tmp_path):
    """Control: a page with one remote image is caught by the proxy."""
    out, _ = page
    bad = tmp_path / "bad.html"
    bad.write_text(out.read_text().replace("</body>", '<img src="http://example.invalid/x.png"></body>'))
    r = _rendered(bad)
    assert any(b"example.invalid" in req for req in r.requests)
    n_img = len(re.findall(r"<img ", bad.read_text()))
    assert f'data-images="{n_img - 1}/{n_img}"' in r.dom  # and the image counted as not loaded


def test_the_console_and_screenshot_checks_can_fail(page, tmp_path):
    """Controls: an uncaught exception and a console.error are seen; a blank page is called blank."""
    out, _ = page
    bad = tmp_path / "bad.html"
    bad.write_text(out.read_text().replace(
        "</body>", "<script>console.error('drawn wrong');throw new Error('boom')</script></body>"))
    messages = _page_messages(_rendered(bad).console)
    assert "drawn wrong" in messages and any("Uncaught Error: boom" in m for m in messages)
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><head><title>x</title></head><body style=\"background:#fff\"></body></html>")
    r = _rendered(blank, size=(400, 300))
    assert _page_messages(r.console) == [] and r.screenshot is not None and _blank(r.screenshot)


def test_chromium_renders_the_top_bars_rank_and_group_figures(two_methods, tmp_path):
    """A page with the figures papers print (a method that is not a baseline, groups, the reliability figure of
    calibration.tsv): every image decoded, each
    in its section, no request, no console message, a screenshot that is not blank."""
    pytest.importorskip("matplotlib")
    import pandas as pd

    res = read_results_dir(two_methods[1])
    mine = {"BLAST": "mine"}
    res.summary = pd.concat([res.summary.assign(group="all"), res.summary.assign(group="g1", value=0.3)])
    res.summary = res.summary.assign(method=res.summary.method.replace(mine))
    res.curves = pd.concat([res.curves.assign(group="all"), res.curves.assign(group="g1", n_proteins=50)])
    res.curves = res.curves.assign(method=res.curves.method.replace(mine))
    res.calibration = pd.DataFrame(two_methods[0].calibration_columns)  # calibration.tsv: the reliability figure
    res.calibration = res.calibration.assign(method=res.calibration.method.replace(mine))
    out = tmp_path / "report.html"
    save_report(res, out, compare=())
    text = out.read_text()
    for name in ("top_MFO", "groups_fmax", "groups_wfmax", "groups_smin", "optima", "fig4_MFO", "calibration_MFO"):
        assert f'id="fig-{name}"' in text
    assert "Calibration: do the scores read as probabilities?" in text
    r = _rendered(out, shot=tmp_path / "report.png")
    n_img = len(re.findall(r"<img ", text))
    assert n_img == 8 and f'data-images="{n_img}/{n_img}"' in r.dom and r.requests == []
    assert _page_messages(r.console) == [] and r.screenshot is not None and not _blank(r.screenshot)
