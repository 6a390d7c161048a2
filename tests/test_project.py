"""Project-level checks: the README's two commands, CI, packaging of grammar/ and stdlib/."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from edgedsl.core.resources import grammar_path, stdlib_dir

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", quick)


def test_readme_quick_start_is_exactly_two_commands() -> None:
    cmds = _readme_commands()
    assert len(cmds) == 2, cmds
    assert all("\n" not in c for c in cmds)
    assert "edgedsl run" in cmds[0]
    assert "pytest" in cmds[1]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert _readme_commands()[1] in ci.splitlines()


def test_grammar_and_stdlib_found_from_one_place() -> None:
    assert grammar_path().is_file()
    assert grammar_path().name == "edge.lark"
    assert stdlib_dir().is_dir()
    assert any(stdlib_dir().glob("*.edge"))


def test_wheel_ships_grammar_and_stdlib(tmp_path: Path) -> None:
    pytest.importorskip("hatchling")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    (wheel,) = tmp_path.glob("edgedsl-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "edgedsl/_shipped/grammar/edge.lark" in names
    assert any(n.startswith("edgedsl/_shipped/stdlib/") and n.endswith(".edge") for n in names)
    assert "edgedsl/cli/__init__.py" in names
