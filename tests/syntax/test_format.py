"""Stage `format`: round trip, idempotence, shipped files already formatted, goldens.

Goldens ``tests/fixtures/format/*.in.edge`` → ``*.out.edge`` are rewritten when
``EDGEDSL_UPDATE_GOLDENS=1``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import example, given

from edgedsl.syntax import nodes as n
from edgedsl.syntax.build import parse_module
from edgedsl.syntax.fmt import format_files
from edgedsl.syntax.printer import WIDTH, format_expr, format_module, format_pred, format_text
from tests.ast_strategies import accepted_keywords, keywords, modules
from tests.goldens import UPDATE

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "format"


def _formatted_files() -> list[Path]:
    shipped = sorted([*ROOT.glob("examples/**/*.edge"), *ROOT.glob("stdlib/**/*.edge")])
    samples = sorted(p for p in FIXTURES.glob("*.edge") if not p.name.endswith(".in.edge"))
    return [*shipped, *samples]


# ---------------------------------------------------------------- properties over random ASTs


def _check_round_trip(module: n.Module) -> None:
    text = format_module(module)
    again = parse_module(text)
    assert again == module, text
    assert format_module(again) == text


@given(modules)
@example(n.Module(items=()))
@example(  # a negative literal as the left operand of `*` and a Neg of a binop
    n.Module(
        items=(
            n.Trajectory(
                name="t",
                query="q",
                body=(
                    n.AnswerStmt(
                        expr=n.BinOp(
                            op="*",
                            left=n.NumberLit(value=-5),
                            right=n.Neg(
                                operand=n.BinOp(
                                    op="-", left=n.NameExpr(name="a"), right=n.NumberLit(value=-0.0)
                                )
                            ),
                        )
                    ),
                ),
            ),
        )
    )
)
def test_format_round_trips_and_is_idempotent(module: n.Module) -> None:
    _check_round_trip(module)


# ---------------------------------------------------------------- shipped and sample files


@pytest.mark.parametrize("path", _formatted_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_files_are_formatted(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    module = parse_module(text, str(path))
    assert format_module(module) == text
    assert parse_module(format_module(module)) == module


def test_comment_sample_keeps_every_comment() -> None:
    text = (FIXTURES / "comments.edge").read_text(encoding="utf-8")
    written = [line.split("#", 1)[1] for line in text.splitlines() if "# " in line]
    out = format_text(text)
    assert all(c in out for c in written)
    assert out.count("#") == text.count("#")


# ---------------------------------------------------------------- goldens


@pytest.mark.parametrize("src", sorted(FIXTURES.glob("*.in.edge")), ids=lambda p: p.name)
def test_golden(src: Path) -> None:
    expected_path = src.with_name(src.name.replace(".in.edge", ".out.edge"))
    out = format_text(src.read_text(encoding="utf-8"), str(src))
    if UPDATE or not expected_path.exists():
        expected_path.write_text(out, encoding="utf-8")
    assert out == expected_path.read_text(encoding="utf-8")
    assert format_text(out) == out
    assert parse_module(out) == parse_module(src.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- specific layout rules


def _body(text: str) -> str:
    return format_text(f'trajectory t "q" {{\n{text}\n}}\n')


def test_minimal_parentheses() -> None:
    cases = {
        "a - (b - c)": "a - (b - c)",
        "(a - b) - c": "a - b - c",
        "(a * b) + c": "a * b + c",
        "a * (b + c)": "a * (b + c)",
        "-(a + b)": "-(a + b)",
        "- - a": "--a",
        "-(5)": "-5",
        "a / (b * c)": "a / (b * c)",
    }
    for src, want in cases.items():
        module = parse_module(f'trajectory t "q" {{ answer {src} }}')
        stmt = module.items[0].body[0]  # type: ignore[union-attr]
        assert format_expr(stmt.expr) == want


def test_predicate_parentheses() -> None:
    cases = {
        "(a > 1 and b > 1) or c > 1": "a > 1 and b > 1 or c > 1",
        "a > 1 and (b > 1 or c > 1)": "a > 1 and (b > 1 or c > 1)",
        "not (a > 1 and b > 1)": "not (a > 1 and b > 1)",
        "(not exists(a)) and exists(b)": "not exists(a) and exists(b)",
        "(a > 1 or b > 1) or c > 1": "(a > 1 or b > 1) or c > 1",
    }
    for src, want in cases.items():
        module = parse_module(f'trajectory t "q" {{ if {src} {{}} }}')
        stmt = module.items[0].body[0]  # type: ignore[union-attr]
        assert format_pred(stmt.cond) == want


def test_long_call_breaks_one_argument_per_line() -> None:
    args = ", ".join(f"argument_{i}: {i}" for i in range(10))
    out = _body(f"x = p.t({args}) pages all")
    lines = out.splitlines()
    assert lines[1] == "  x = p.t("
    assert lines[2] == "    argument_0: 0,"
    assert lines[-2] == "  ) pages all"
    assert all(len(line) <= WIDTH for line in lines)


def test_short_call_stays_on_one_line() -> None:
    out = _body("x = p.t(\n a: 1,\n b: seq y.z,\n)")
    assert out.splitlines()[1] == "  x = p.t(a: 1, b: seq y.z)"


def test_else_if_and_nested_block() -> None:
    out = _body("if exists(a) { } else { if exists(b) { } }")
    assert "} else if exists(b) {}" in out
    out = _body("if exists(a) { } else {\n # kept\n if exists(b) { } }")
    assert "} else {\n    # kept\n    if exists(b) {}\n  }" in out


def test_strings_numbers_enums() -> None:
    out = format_text(
        'record R { a: enum[A, "기 타", 1.50, "if", if, "2024-01-01"] }\n'
        'trajectory t "\\u00e9\\/\\n" { x = p.t(a: 1E3, b: -0.0, c: 007, d: 1.5e-7) }\n'
    )
    assert 'enum[A, "기 타", 1.50, if, if, "2024-01-01"]' in out
    assert 'trajectory t "é/\\n" {' in out
    assert "x = p.t(a: 1000.0, b: -0.0, c: 7, d: 1.5e-07)" in out


def test_keyword_probes_can_fail() -> None:
    assert "max" in accepted_keywords("field")
    assert {"if", "answer", "say"} <= keywords()
    with pytest.raises(Exception):  # noqa: B017 - `if` cannot start a binding
        parse_module('trajectory t "q" { if = p.t() }')


# ---------------------------------------------------------------- fmt command


def test_format_files_check_and_write(tmp_path: Path) -> None:
    good = tmp_path / "good.edge"
    good.write_text("use a\n", encoding="utf-8")
    ugly = tmp_path / "ugly.edge"
    ugly.write_text("use   a,b", encoding="utf-8")
    bad = tmp_path / "bad.edge"
    bad.write_text("use", encoding="utf-8")
    missing = tmp_path / "missing.edge"

    changed, diags = format_files([good, ugly, bad, missing], check=True)
    assert changed == [ugly]
    assert ugly.read_text(encoding="utf-8") == "use   a,b"
    assert [d.code for d in diags] == ["E003", "E000"]

    changed, _ = format_files([good, ugly], check=False)
    assert changed == [ugly]
    assert ugly.read_text(encoding="utf-8") == "use a, b\n"
    assert format_files([ugly], check=True) == ([], [])


def test_strategies_build_every_node_type() -> None:
    """Every AST class of nodes.py is built by the strategies, so every one is round-tripped."""
    wanted = {
        name
        for name, obj in vars(n).items()
        if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == n.__name__
    }
    source = (Path(__file__).parents[1] / "ast_strategies.py").read_text(encoding="utf-8")
    assert {w for w in wanted if f"n.{w}(" not in source} == set()
