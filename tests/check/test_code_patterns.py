"""Code type patterns are RE2: matching a literal never backtracks (issue 16, item 10).

``/^(a+)+$/`` against 35 ``a``s and ``!`` held ``check`` for minutes under Python's ``re``. A
code pattern is now compiled once (cached) by :func:`edgedsl.core.types.code_pattern` with RE2,
which matches in time linear in the text, for both the catalog check and :meth:`CodeType.matches`.
A pattern RE2 cannot compile (backreferences, lookaround), that Python's ``re`` cannot read
(``edgedsl.testing`` draws values from it with Hypothesis), or that nests its groups too deeply
for Python's parser is ``E101`` at its declaration.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgedsl import api
from edgedsl.core.diagnostics import CompileError
from edgedsl.core.types import MAX_PATTERN_GROUPS, CodePatternError, CodeType, code_pattern
from tests.profiles import examples

ROOT = Path(__file__).resolve().parents[2]


def _program(pattern: str, literal: str = "x") -> str:
    return (f"platform p {{\n  type C = code /{pattern}/\n  record R {{\n    a: int\n  }}\n"
            f"  tool t (c: C) -> [R]\n}}\n"
            f'trajectory t "q" {{\n  x = p.t(c: "{literal}")\n  answer count(x)\n}}\n')


def _diagnostics(text: str) -> list[tuple[str, str, list[str]]]:
    try:
        result = api.check(text, "codes.edge")
    except CompileError as err:
        diags = err.diagnostics
    else:
        diags = result.diagnostics
    return [(d.code, d.message, list(d.hints)) for d in diags]


def test_catastrophic_pattern_checks_promptly(tmp_path: Path) -> None:
    """The reproducer, in a subprocess so that a regression fails instead of hanging."""
    path = tmp_path / "redos.edge"
    path.write_text(_program("^(a+)+$", "a" * 35 + "!"), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "edgedsl", "check", str(path)],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr
    assert "error[E202]" in proc.stderr  # the literal does not match: reported, not hung


def test_matches_is_linear_on_hostile_patterns() -> None:
    """CodeType.matches (the checker's literals, the graph's observed values) is RE2's too."""
    code = CodeType("p.C", "^(a+)+$")
    assert not code.matches("a" * 100_000 + "!")
    assert code.matches("a" * 100_000)
    assert not CodeType("p.D", "^(a|aa)+$").matches("a" * 50_000 + "b")


@pytest.mark.parametrize(
    "pattern",
    ["(a)\\1", "^(?P<x>a)(?P=x)$", "(?=a)a", "(?!b)a", "(?<=a)b", "(?<!a)b", "a{1001}"],
)
def test_what_re2_cannot_compile_is_e101(pattern: str) -> None:
    (diag,) = _diagnostics(_program(pattern))
    code, _, hints = diag
    assert code == "E101", diag
    assert "code patterns use RE2 syntax: no backreferences or lookaround" in hints


@pytest.mark.parametrize("pattern", ["\\p{Hangul}+", "\\pN", "\\C"])
def test_what_python_cannot_read_is_e101(pattern: str) -> None:
    """RE2 reads these, Python's re does not (edgedsl.testing draws values with it)."""
    with pytest.raises(CodePatternError):
        code_pattern(pattern)
    (diag,) = _diagnostics(_program(pattern))
    assert diag[0] == "E101", diag


@pytest.mark.parametrize("depth", [MAX_PATTERN_GROUPS + 1, 500, 5000])
def test_deeply_grouped_pattern_is_e101(depth: int) -> None:
    """Python's re parses groups by recursion (500 nested groups: RecursionError)."""
    (diag,) = _diagnostics(_program("(" * depth + "a" + ")" * depth))
    assert diag[0] == "E101", diag
    assert f"more than {MAX_PATTERN_GROUPS}" in diag[1]


def test_as_many_groups_as_allowed_compile() -> None:
    depth = MAX_PATTERN_GROUPS
    assert _diagnostics(_program("^" + "(" * depth + "a" + ")" * depth + "$", "a")) == []


def test_invalid_syntax_is_e101() -> None:
    (diag,) = _diagnostics(_program("^[0-9{6}$"))
    assert diag[0] == "E101", diag


def test_re2_does_not_log_to_stderr(tmp_path: Path) -> None:
    path = tmp_path / "lookaround.edge"
    path.write_text(_program("(?=a)a"), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "edgedsl", "check", str(path)],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith("error[E101]"), proc.stderr
    assert "re2.cc" not in proc.stderr


def _stdlib_code_types() -> list[CodeType]:
    types: dict[str, CodeType] = {}
    for path in sorted((ROOT / "stdlib").glob("*.edge")):
        catalog = api.check(path.read_text(encoding="utf-8"), str(path)).catalog
        types.update(catalog.code_types)
    assert len(types) > 20
    return sorted(types.values(), key=lambda c: c.name)


STDLIB_CODES = _stdlib_code_types()


@pytest.mark.parametrize("code", STDLIB_CODES, ids=[c.name for c in STDLIB_CODES])
def test_every_stdlib_pattern_compiles_and_generates(code: CodeType) -> None:
    """Values Hypothesis draws from the pattern (Python's re, as edgedsl.testing does) match
    it under RE2."""
    code_pattern(code.pattern)

    @settings(max_examples=examples(20), deadline=None, database=None)
    @given(st.from_regex(code.pattern, fullmatch=True))
    def drawn_values_match(value: str) -> None:
        assert code.matches(value), value

    drawn_values_match()
