"""The one golden-file mechanism (``tests/goldens.py``): compare, rewrite when updating, write
and fail when missing; ``--update-goldens`` turns updating on like ``EDGEDSL_UPDATE_GOLDENS=1``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.goldens import ENV, check_golden, updating

ROOT = Path(__file__).resolve().parent.parent


def test_compares_and_rewrites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = tmp_path / "g.txt"
    golden.write_text("old\n", encoding="utf-8")
    monkeypatch.delenv(ENV, raising=False)
    check_golden(golden, "old\n")
    with pytest.raises(AssertionError, match="differs"):
        check_golden(golden, "new\n")
    assert golden.read_text(encoding="utf-8") == "old\n"
    monkeypatch.setenv(ENV, "1")
    check_golden(golden, "new\n")
    assert golden.read_text(encoding="utf-8") == "new\n"


def test_a_missing_golden_is_written_and_fails(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    golden = tmp_path / "sub" / "g.txt"
    with pytest.raises(pytest.fail.Exception, match="was missing"):
        check_golden(golden, "x\n")
    assert golden.read_text(encoding="utf-8") == "x\n"


def test_probe_updating() -> None:
    """Run by the next test in a child pytest: reports whether updating is on."""
    if os.environ.get("EDGEDSL_GOLDENS_PROBE") != "1":
        pytest.skip("only as the child of test_update_goldens_option_turns_updating_on")
    assert updating()


@pytest.mark.slow
def test_update_goldens_option_turns_updating_on() -> None:
    env = {k: v for k, v in os.environ.items() if k != ENV}
    env["EDGEDSL_GOLDENS_PROBE"] = "1"
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
           f"{Path(__file__).name}::test_probe_updating"]
    plain = subprocess.run(cmd, cwd=Path(__file__).parent, env=env, capture_output=True,
                           text=True)
    assert plain.returncode == 1, plain.stdout  # without the option the probe fails
    flagged = subprocess.run([*cmd, "--update-goldens"], cwd=Path(__file__).parent, env=env,
                             capture_output=True, text=True)
    assert flagged.returncode == 0, flagged.stdout + flagged.stderr
