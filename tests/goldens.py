"""The one golden-update switch of every snapshot test: ``pytest --update-goldens`` or
``EDGEDSL_UPDATE_GOLDENS=1`` rewrites golden files from the current output instead of comparing.

Snapshot tests import :data:`UPDATE` (read when the test module is imported, after
``tests/conftest.py`` has turned the option into the environment variable, also in xdist
workers) and, to compare, :func:`check_golden`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ENV = "EDGEDSL_UPDATE_GOLDENS"
UPDATE = os.environ.get(ENV) == "1"


def check_golden(path: Path, text: str, *, root: Path) -> None:
    """Compare ``text`` with the golden file ``path``; with :data:`UPDATE`, write it instead. A
    missing golden is written and the test fails, so that it is looked at and checked in."""
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    if UPDATE or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"golden {shown} was missing and has been written; check it in")
    assert path.read_text(encoding="utf-8") == text, (
        f"{shown} differs; rerun with --update-goldens (or {ENV}=1) if intended"
    )
