"""The one golden-file mechanism of the test suite: compare a snapshot with its checked-in file,
or rewrite the file when updating.

Updating is on when ``EDGEDSL_UPDATE_GOLDENS=1`` or pytest runs with ``--update-goldens``
(``tests/conftest.py`` sets the variable from the option, on xdist workers too). A golden that
does not exist yet is written and the test fails, so that it is looked at before it is checked
in.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ENV = "EDGEDSL_UPDATE_GOLDENS"
ROOT = Path(__file__).resolve().parent.parent


def updating() -> bool:
    """True when goldens are being rewritten rather than compared."""
    return os.environ.get(ENV) == "1"


def check_golden(path: Path, text: str) -> None:
    """Assert that ``path`` holds ``text``; rewrite it instead when :func:`updating`, and write
    it (failing the test) when it is missing."""
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    if updating() or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if not updating():
            pytest.fail(f"golden {shown} was missing and has been written; check it in")
    assert path.read_text(encoding="utf-8") == text, (
        f"{shown} differs; rerun with --update-goldens (or {ENV}=1) if intended")
