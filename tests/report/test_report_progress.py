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
