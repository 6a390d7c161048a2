"""Where the shipped grammar and standard library are found: one place each.

In a built wheel both directories are shipped inside the package (``edgedsl/_shipped/``, mapped
by the build backend); in a source checkout or an editable install they are the top-level
``grammar/`` and ``stdlib/`` directories of the repository.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PKG = Path(__file__).resolve().parents[1]  # the edgedsl package (this is edgedsl/core/)


def _locate(name: str) -> Path:
    for candidate in (_PKG / "_shipped" / name, _PKG.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"edgedsl installation is incomplete: no `{name}/` directory found")


@cache
def grammar_path() -> Path:
    """The path of ``edge.lark``, the only grammar."""
    return _locate("grammar") / "edge.lark"


@cache
def stdlib_dir() -> Path:
    """The directory holding the standard catalogs (``*.edge``)."""
    return _locate("stdlib")


def stdlib_modules() -> list[str]:
    """The ten-platform catalog's module names: every ``stdlib/*.edge`` module except the shared
    code types (``codes``), sorted."""
    return sorted(p.stem for p in stdlib_dir().glob("*.edge") if p.stem != "codes")
