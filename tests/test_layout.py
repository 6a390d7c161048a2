"""The package layout holds (issue 17, section 5): the import contracts of pyproject.toml, no
private name imported from another module, and importing a submodule stays cheap."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "edgedsl"


def test_the_import_contracts_hold() -> None:
    pytest.importorskip("importlinter")
    code = "from importlinter.cli import lint_imports_command; lint_imports_command()"
    proc = subprocess.run([sys.executable, "-c", code],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def _private_imports(path: Path) -> list[str]:
    """``from X import _name`` statements of one module (``_name`` not a dunder)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    out.append(f"{path.name}:{node.lineno}: {alias.name}")
    return out


def test_no_private_name_is_imported_across_modules() -> None:
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in _private_imports(path)]
    assert found == []


def test_a_private_import_is_found(tmp_path: Path) -> None:
    bad = tmp_path / "m.py"
    bad.write_text("from .a import public\n\n\ndef f():\n    from .b import _helper, __all__\n",
                   encoding="utf-8")
    assert _private_imports(bad) == ["m.py:5: _helper"]


@pytest.mark.parametrize("module", ["edgedsl", "edgedsl.syntax.nodes", "edgedsl.core.codes"])
def test_importing_a_submodule_loads_neither_lark_nor_the_checker(module: str) -> None:
    code = (f"import sys, {module}; "
            "print(sorted(m for m in ('lark', 'edgedsl.check', 'edgedsl.api', 'duckdb') "
            "if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    assert proc.stdout.strip() == "[]"


def test_the_staged_api_is_there_after_importing_the_check_subpackage() -> None:
    code = ("import edgedsl.check.ir, edgedsl; "
            "print(callable(edgedsl.check), edgedsl.check.__module__)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    assert proc.stdout.split() == ["True", "edgedsl.api"]
