"""The README's quick start is run by the test suite (issue 20, section 6): its commands are read
from the README itself, each step checked or run as a fresh clone would run it — the virtual
environment and installs checked against pyproject.toml and the installed versions (no network
here), ``edgedsl`` commands run in process on the embedded world, the test-suite command's
pytest options run for real over one small file."""

from __future__ import annotations

import shlex
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

from edgedsl.cli import main

from .blocks import ROOT, blocks, section

README = ROOT / "README.md"


def quick_start() -> list[list[list[str]]]:
    """The quick start's commands: per ```` ```sh ```` block of ``## Quick start``, its steps
    (split at ``&&``), each as its words."""
    text = section(README.read_text(encoding="utf-8"), "Quick start")
    out = []
    for block in blocks(text, "README.md"):
        assert block.lang == "sh", block
        words = shlex.split(block.code, posix=True)
        steps: list[list[str]] = [[]]
        for w in words:
            if w == "&&":
                steps.append([])
            else:
                steps[-1].append(w)
        out.append(steps)
    return out


COMMANDS = quick_start()


def _extras() -> set[str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(data["project"]["optional-dependencies"])


def check_setup(step: list[str]) -> bool:
    """Check a set-up step against the project (True), or say it is not one (False): the venv
    at ``.venv``, ``pip install -e .[extras]`` naming extras that pyproject.toml declares, and
    ``pip install --no-deps NAME==V`` pinning the version installed here."""
    if step == ["python3", "-m", "venv", ".venv"]:
        return True
    if step[:2] != [".venv/bin/pip", "install"]:
        return False
    args = [a for a in step[2:] if a != "-q"]
    if args[:1] == ["-e"]:
        spec = args[1]
        assert spec == "." or spec.startswith(".["), spec
        extras = set(spec[2:-1].split(",")) if spec != "." else set()
        assert extras <= _extras(), extras - _extras()
        assert len(args) == 2, args
        return True
    assert args[:1] == ["--no-deps"], args
    for pin in args[1:]:
        name, _, wanted = pin.partition("==")
        assert wanted and version(name) == wanted, (pin, version(name))
    return True


def test_the_quick_start_is_two_commands_of_known_steps() -> None:
    assert len(COMMANDS) == 2
    for steps in COMMANDS:
        assert check_setup(steps[0]) and check_setup(steps[1])
        for step in steps[2:-1]:
            assert check_setup(step), step
        assert steps[-1][0] in {".venv/bin/edgedsl", ".venv/bin/python"}, steps[-1]


def test_the_setup_check_refuses_what_the_project_lacks() -> None:
    with pytest.raises(AssertionError):
        check_setup([".venv/bin/pip", "install", "-e", ".[nosuchextra]"])
    with pytest.raises(AssertionError):
        check_setup([".venv/bin/pip", "install", "--no-deps", "mpmath==0.1"])
    assert not check_setup(["curl", "https://example.invalid"])


def test_the_main_example_runs_on_the_world(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    [command] = [s[-1] for s in COMMANDS if s[-1][0] == ".venv/bin/edgedsl"]
    assert command[1] == "run"  # the world is the default backend: no network, no key
    monkeypatch.chdir(ROOT)
    assert main(command[1:]) == 0
    out = capsys.readouterr().out
    assert "[ok]" in out and '"company": "삼성전자(주)"' in out, out


@pytest.mark.slow
def test_the_test_suite_command_takes_its_options() -> None:
    # the suite itself cannot run inside the suite: its pytest options (`-n auto` needs the
    # `test` extra's xdist) are run for real, collecting one small file
    [command] = [s[-1] for s in COMMANDS if s[-1][0] == ".venv/bin/python"]
    assert command[1:4] == ["-m", "pytest", "-q"], command
    proc = subprocess.run(
        [sys.executable, *command[1:], "--collect-only", "-p", "no:cacheprovider",
         str(Path(__file__).with_name("test_doc_blocks.py"))],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "test_every_edge_block" in proc.stdout
