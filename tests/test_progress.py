"""goeval.progress: a bar on a terminal only; silent otherwise; never on stdout."""

from __future__ import annotations

import io

import pytest

from goeval import progress as pg


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _reset(monkeypatch):
    monkeypatch.delenv("GOEVAL_PROGRESS", raising=False)
    pg.set_enabled(None)
    yield
    pg.set_enabled(None)


def test_silent_when_not_a_terminal(capsys):
    assert not pg.enabled(io.StringIO())
    bar = pg.progress(range(3), total=3, stream=io.StringIO())
    assert isinstance(bar, pg.NullBar) and list(bar) == [0, 1, 2]
    with pg.progress(total=2) as b:  # pytest's stderr is no terminal
        b.update(2)
    assert capsys.readouterr() == ("", "")


def test_bar_on_a_terminal_and_switches():
    pytest.importorskip("tqdm")
    tty = Tty()
    assert pg.enabled(tty)
    assert list(pg.progress_iter(range(5), desc="folds", stream=tty)) == [0, 1, 2, 3, 4]
    assert "folds" in tty.getvalue()
    pg.set_enabled(False)  # --quiet
    assert not pg.enabled(tty)
    pg.set_enabled(None)
    import os

    os.environ["GOEVAL_PROGRESS"] = "0"
    try:
        assert not pg.enabled(tty)
    finally:
        del os.environ["GOEVAL_PROGRESS"]


def test_without_tqdm_no_bar(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_tqdm(name, *a, **k):  # noqa: ANN001, ANN002, ANN003
        if name == "tqdm" or name.startswith("tqdm."):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    assert not pg.enabled(Tty())
    assert isinstance(pg.progress(total=1, stream=Tty()), pg.NullBar)


# ------------------------------------------------------------------ stages
def test_stage_line_when_it_ends_through_the_logger(caplog):
    caplog.set_level("INFO", logger="goeval.progress")
    with pg.stage("counting", total=3) as st:
        assert caplog.records == []  # nothing before the stage ends
        for _ in range(3):
            st.update()
        st.note = "3 items"
    (rec,) = caplog.records
    assert rec.name == "goeval.progress" and rec.getMessage().startswith("counting: 3 items (")
    assert rec.getMessage().endswith(" s)") and st.done == 3


def test_stage_line_replaced_quiet_and_min_seconds(caplog):
    caplog.set_level("INFO", logger="goeval.progress")
    with pg.stage("reading") as st:
        st.line = "truth t.tsv: 3 lines read"
    with pg.stage("small", quiet=True):
        pass
    with pg.stage("fast", min_seconds=60):
        pass
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == ["truth t.tsv: 3 lines read"]


def test_stage_line_on_stderr_when_logging_is_not_set_up(monkeypatch, capsys):
    import logging

    monkeypatch.setattr(logging.getLogger("goeval.progress"), "hasHandlers", lambda: False)
    with pg.stage("evaluating") as st:
        st.note = "done"
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("evaluating: done (") and err.endswith(" s)\n")
    pg.set_enabled(False)  # --quiet, GOEVAL_PROGRESS=0
    with pg.stage("evaluating"):
        pass
    assert capsys.readouterr() == ("", "")


def test_stage_line_and_time_format():
    assert pg._seconds(0.123) == "0.12 s" and pg._seconds(12.34) == "12.3 s" and pg._seconds(125) == "2 min 05 s"


def test_stage_bar_on_a_terminal_shows_rate_and_elapsed(monkeypatch):
    pytest.importorskip("tqdm")
    tty = Tty()
    monkeypatch.setattr("sys.stderr", tty)
    with pg.stage("evaluating", total=4, unit="protein") as st:
        st.update(2)
        st.set_total(8)
        st.update(6)
    text = tty.getvalue()
    assert "evaluating" in text and "protein/s" in text and "00:00" in text  # rate and elapsed time


def test_a_stage_without_total_shows_its_time_until_it_counts(monkeypatch):
    """A stage done in one call (a time split's "blast predicting BPO") never reads "0it [00:00, ?it/s]"."""
    pytest.importorskip("tqdm")
    tty = Tty()
    monkeypatch.setattr("sys.stderr", tty)
    with pg.stage("blast predicting BPO", quiet=True) as st:
        st.bar.refresh()
    text = tty.getvalue()
    assert "blast predicting BPO: 00:00" in text and "0it" not in text and "?it/s" not in text
    tty.seek(0)
    tty.truncate()
    with pg.stage("reading", unit="line", quiet=True) as st:  # counted, total unknown: tqdm's count and rate
        st.update(3)
        st.bar.refresh()
    assert "3line" in tty.getvalue() and "line/s" in tty.getvalue()


def test_write_keeps_a_live_bar_whole(monkeypatch):
    pytest.importorskip("tqdm")
    tty = Tty()
    monkeypatch.setattr("sys.stderr", tty)
    with pg.stage("evaluating", total=2, quiet=True) as st:
        st.update()
        pg.write("a message")
    lines = tty.getvalue().replace("\r", "\n").split("\n")
    assert "a message" in lines  # on a line of its own, not glued to the bar
