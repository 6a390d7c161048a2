"""Record field names that cannot be DuckDB columns are check-time errors (issue 16, item 2).

A field named like one of the runtime's own columns used to pass ``check`` and then fail every
run (``__row``, ``__arm``, ``__raw``: R509) or lose the run's recording (``__key``, ``__seq``);
two fields equal up to ASCII case (``Name``/``name``) failed every run with R509. Now every
name beginning with ``__`` is ``E120`` and a case collision is ``E121``, before anything runs.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from edgedsl import api
from edgedsl.core.diagnostics import CompileError
from edgedsl.runtime.python_backend import PythonBackend

ROOT = Path(__file__).resolve().parents[2]


def _program(*fields: str) -> str:
    decls = "".join(f"    {f}: int\n" for f in fields)
    return (f"platform p {{\n  record R {{\n{decls}  }}\n  tool t () -> [R]\n}}\n"
            'trajectory t "q" {\n  x = p.t()\n  answer count(x)\n}\n')


def _codes(text: str) -> list[str]:
    with pytest.raises(CompileError) as info:
        api.compile(text, "columns.edge")
    return [d.code for d in info.value.diagnostics]


def _runtime_columns() -> set[str]:
    """Every ``"__name"`` the runtime and the reduction renderers write in SQL or tables."""
    found: set[str] = set()
    for path in sorted([*(ROOT / "edgedsl" / "runtime").glob("*.py"),
                        *(ROOT / "edgedsl" / "reduce").glob("*.py")]):
        found.update(re.findall(r"\"(__[A-Za-z_]+?)_?[\"{]", path.read_text(encoding="utf-8")))
    return found


def test_the_runtime_columns_are_found() -> None:
    assert {"__row", "__arm", "__raw", "__key", "__seq", "__reduce"} <= _runtime_columns()


@pytest.mark.parametrize("name", sorted(_runtime_columns() | {"__", "___x", "__ROW", "__Key"}))
def test_a_field_named_like_a_runtime_column_is_e120(name: str) -> None:
    assert _codes(_program("a", name)) == ["E120"]


@pytest.mark.parametrize("pair", [("Name", "name"), ("id", "ID"), ("rcept_DT", "RCEPT_dt")])
def test_fields_equal_up_to_case_are_e121(pair: tuple[str, str]) -> None:
    text = _program(*pair)
    with pytest.raises(CompileError) as info:
        api.compile(text, "columns.edge")
    (d,) = info.value.diagnostics
    assert d.code == "E121"
    first, second = (text.index(f"    {f}:") + 4 for f in pair)
    assert d.span is not None and d.span.start == second
    (secondary,) = [label for label in d.labels if not label.primary]
    assert secondary.span.start == first


def test_names_that_are_still_fine() -> None:
    """One leading underscore, a `__` inside a name, Hangul, and names that only look alike."""
    text = _program("_key", "a__row", "이름", "name1", "name_", "Name2")
    plan = api.compile(text, "columns.edge")
    rec = {"_key": 1, "a__row": 2, "이름": 3, "name1": 4, "name_": 5, "Name2": 6}
    (result,) = api.run(plan, PythonBackend({"p.t": lambda **_: [rec]}))
    assert result.ok and result.answer == 1


@pytest.mark.slow
def test_check_and_run_stop_before_anything_is_recorded(tmp_path: Path) -> None:
    path = tmp_path / "keys.edge"
    path.write_text(_program("a", "__key"), encoding="utf-8")
    store = tmp_path / "store.duckdb"
    for command in (["check"], ["compile"], ["run", "--record", str(store)]):
        proc = subprocess.run(
            [sys.executable, "-m", "edgedsl", *command, str(path)],
            capture_output=True, text=True, timeout=120, cwd=tmp_path,
        )
        assert proc.returncode == 1, (command, proc.stderr)
        assert "error[E120]" in proc.stderr
        assert "[ok]" not in proc.stdout
    assert not store.exists()
