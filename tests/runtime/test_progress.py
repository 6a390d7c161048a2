"""A run tells its :class:`~edgedsl.runtime.progress.Progress` of each page a call reads and
each step that finishes; the CLI's terminal line (tqdm) appears only after its delay, only on
a terminal, and never with ``--quiet``."""

from __future__ import annotations

import io
from typing import Any

import pytest

from edgedsl.cli import main
from edgedsl.cli import progress as cli_progress
from edgedsl.cli.progress import TerminalProgress, progress_for
from edgedsl.runtime.progress import Progress
from tests.cli.test_cli import MAIN, TOOLS
from tests.plan_fixtures import latest_filing
from tests.runtime.test_executor import go


class Recording(Progress):
    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def started(self, trajectory: str, steps: int) -> None:
        self.events.append(("started", trajectory, steps))

    def step_finished(self, trajectory: str, step: str, ok: bool) -> None:
        self.events.append(("step", trajectory, step, ok))

    def page_read(self, trajectory: str, step: str, page: int, records: int,
                  total: int | None) -> None:
        self.events.append(("page", trajectory, step, page, records, total))

    def finished(self, trajectory: str) -> None:
        self.events.append(("finished", trajectory))


def test_a_run_reports_its_pages_and_steps_as_they_finish() -> None:
    seen = Recording()
    res = go(latest_filing(pages="all"), progress=seen)
    assert res.ok, res.diagnostics
    assert seen.events[0] == ("started", "latest_filing", 3)
    assert seen.events[-1] == ("finished", "latest_filing")
    pages = [e[3:] for e in seen.events if e[0] == "page" and e[2] == "filings"]
    assert pages == [(1, 3, 7), (2, 6, 7), (3, 7, 7)]
    steps = [e[2] for e in seen.events if e[0] == "step"]
    assert steps == ["corp", "filings", "latest"]
    assert all(e[3] for e in seen.events if e[0] == "step")


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_line_appears_after_its_delay_and_is_cleared() -> None:
    stream = Tty()
    with TerminalProgress(stream, "x.edge", after=0) as bar:
        bar.started("t", 3)
        bar.page_read("t", "filings", 2, 200, 1280)
        bar.step_finished("t", "filings", True)
    text = stream.getvalue()
    assert "x.edge: 1/3 steps" in text and "t/filings: page 2, 200 of 1,280 records" in text


def test_a_quick_run_draws_nothing() -> None:
    stream = Tty()
    with TerminalProgress(stream, "x.edge", after=60) as bar:
        bar.started("t", 3)
        bar.page_read("t", "filings", 2, 200, None)
        bar.step_finished("t", "filings", True)
    assert stream.getvalue() == ""


def test_no_line_when_quiet_or_not_a_terminal() -> None:
    assert progress_for(io.StringIO(), "x", quiet=False) is None
    assert progress_for(Tty(), "x", quiet=True) is None
    line = progress_for(Tty(), "x", quiet=False)
    assert line is not None
    line.close()


def _run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tty: bool,
         *extra: str) -> str:
    monkeypatch.setattr(cli_progress, "AFTER", 0.0)
    monkeypatch.setattr("sys.stderr", Tty() if tty else io.StringIO())
    import sys

    code = main(["run", MAIN, "--tools", TOOLS, *extra])
    err = sys.stderr.getvalue()  # type: ignore[attr-defined]
    capsys.readouterr()
    assert code == 0
    return err


def test_edgedsl_run_draws_the_line_on_a_terminal_only(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "steps" in _run(capsys, monkeypatch, True)
    assert "steps" not in _run(capsys, monkeypatch, True, "--quiet")
    assert "steps" not in _run(capsys, monkeypatch, False)
