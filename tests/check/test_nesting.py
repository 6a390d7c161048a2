"""Deep nesting is a diagnostic, never a RecursionError, at every stage of the compiler.

Two limits keep every recursive pass (the builder, the checker, the lowering, the plan compiler,
the formatter, jinja2's template parser and code generator) far from Python's recursion limit:

- the program: at most :data:`edgedsl.syntax.parser.MAX_DEPTH` levels of syntax (``E011``, pointing
  at the construct that goes too deep);
- a ``say`` template: at most :data:`edgedsl.core.say.MAX_TEMPLATE_DEPTH` levels of brackets,
  operators and blocks (``E310`` from the checker, ``R508`` from the renderer), checked on
  jinja2's token stream before jinja2 parses it.

The deepest accepted program of each kind is compiled with a few hundred frames already on the
stack, as a deep caller (a worker, a test runner) would have them.
"""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jinja2 import TemplateError, TemplateSyntaxError

from edgedsl import api
from edgedsl.core.diagnostics import CompileError
from edgedsl.core.say import (
    MAX_TEMPLATE_DEPTH,
    SayTooDeepError,
    _template,
    check_depth,
    parse_say,
    render_say,
)
from edgedsl.runtime.python_backend import PythonBackend
from edgedsl.syntax.parser import MAX_DEPTH
from edgedsl.syntax.printer import format_module

ROOT = Path(__file__).resolve().parents[2]

HEAD = """\
platform p {
  record R {
    f: int
    g: json
  }
  tool t (j: json?, l: [int]?, n: int?) -> [R]
}
"""


def _traj(body: str) -> str:
    return HEAD + 'trajectory t "q" {\n  x = p.t()\n' + body + "\n}\n"


KINDS: dict[str, Callable[[int], str]] = {
    "neg": lambda d: _traj("answer { a: " + "-" * d + "count(x) }"),
    "not": lambda d: _traj("if " + "not " * d + "exists(x) { y = drv x | max f }\nanswer count(x)"),
    "sum": lambda d: _traj("answer " + " + ".join(["count(x)"] * d)),
    "parens": lambda d: _traj("answer " + "(count(x) - " * d + "1" + ")" * d),
    "round": lambda d: _traj("answer " + "round(" * d + "count(x)" + ", 1)" * d),
    "list": lambda d: _traj("y = p.t(j: " + "[" * d + "]" * d + ")\nanswer count(x)"),
    "dict": lambda d: _traj("y = p.t(j: " + '{"a": ' * d + "1" + "}" * d + ")\nanswer count(x)"),
    "ifs": lambda d: _traj("if exists(x) { " * d + "y = drv x | max f " + "}" * d
                           + "\nanswer count(x)"),
    "elifs": lambda d: _traj("if exists(x) { y = drv x | max f }"
                             + " else if exists(x) { y = drv x | max f }" * d
                             + "\nanswer count(x)"),
    "or": lambda d: _traj("if " + "(exists(x) or " * d + "exists(x)" + ")" * d
                          + " { y = drv x | max f }\nanswer count(x)"),
}


def _parses(text: str) -> bool:
    try:
        api.parse(text)
    except CompileError:
        return False
    return True


def _deepest(make: Callable[[int], str]) -> int:
    """The largest nesting ``d`` whose text still parses."""
    lo, hi = 1, 4 * MAX_DEPTH
    assert _parses(make(lo)) and not _parses(make(hi))
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _parses(make(mid)) else (lo, mid)
    return lo


def _with_frames(n: int, fn: Callable[[], Any]) -> Any:
    """Call ``fn`` with ``n`` more frames on the stack."""
    return fn() if n <= 0 else _with_frames(n - 1, fn)


def _every_stage(text: str) -> None:
    """parse → format → parse → check → plan, each stage succeeding."""
    module = api.parse(text, "deep.edge")
    again = api.parse(format_module(module), "deep.edge")
    assert format_module(again) == format_module(module)
    assert api.compile(text, "deep.edge").trajectories


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_deepest_program_goes_through_every_stage(kind: str) -> None:
    make = KINDS[kind]
    deepest = _deepest(make)
    _with_frames(300, lambda: _every_stage(make(deepest)))


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_one_level_deeper_is_e011_at_the_construct(kind: str) -> None:
    make = KINDS[kind]
    text = make(_deepest(make) + 1)
    with pytest.raises(CompileError) as info:
        api.parse(text, "deep.edge")
    (d,) = info.value.diagnostics
    assert d.code == "E011"
    assert d.span is not None and d.span.start > len(HEAD), d.span  # in the trajectory
    assert d.span.end <= len(text)


@pytest.mark.slow
def test_too_deep_program_on_the_command_line(tmp_path: Path) -> None:
    """Every command reports E011 (exit 1), ``parse --tree`` too (lark prints a tree by
    recursion)."""
    path = tmp_path / "deep.edge"
    path.write_text(KINDS["parens"](5000), encoding="utf-8")
    for command in (["parse"], ["parse", "--tree"], ["check"], ["compile"], ["fmt"], ["run"]):
        proc = subprocess.run(
            [sys.executable, "-m", "edgedsl", *command, str(path)],
            capture_output=True, text=True, timeout=120, cwd=tmp_path,
        )
        assert proc.returncode == 1, (command, proc.stderr)
        assert "error[E011]" in proc.stderr, (command, proc.stderr)
        assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


# ---------------------------------------------------------------- say templates

CATALOG = ROOT / "tests" / "catalogs"


def _say(template: str) -> str:
    return (
        'use dart\ntrajectory t "q" {\n  corp = dart.corp_code(corp_name: "삼성전자")\n'
        f"  answer {{ a: corp.corp_name, n: count(corp) }}\n  say {template}\n}}\n"
    )


REPRODUCER = '"' + "{" * 78 + " a " + "}" * 78 + '"'  # 207 bytes: RecursionError before


def _codes(text: str) -> list[str]:
    try:
        result = api.check(text, "say.edge", search_paths=[CATALOG])
    except CompileError as err:
        return [d.code for d in err.diagnostics]
    return [d.code for d in result.diagnostics]


def test_nested_say_template_is_e310_through_the_api() -> None:
    text = _say(REPRODUCER)
    for stage in (api.check, api.compile):
        with pytest.raises(CompileError) as info:
            stage(text, "say.edge", search_paths=[CATALOG])
        codes = [d.code for d in info.value.diagnostics]
        assert codes == ["E310"], codes
        (d,) = info.value.diagnostics
        assert d.span is not None and text[d.span.start:d.span.end].startswith("say ")


@pytest.mark.slow
def test_nested_say_template_is_e310_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "say.edge"
    path.write_text(_say(REPRODUCER), encoding="utf-8")
    for command in ("check", "compile", "run"):
        proc = subprocess.run(
            [sys.executable, "-m", "edgedsl", command, str(path), "--lib", str(CATALOG)],
            capture_output=True, text=True, timeout=120, cwd=tmp_path,
        )
        assert proc.returncode == 1, (command, proc.stderr)
        assert "error[E310]" in proc.stderr
        assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


HOSTILE = {
    "braces": lambda d: "{{ " + "{'k': " * d + "1" + "}" * d + " }}",
    "parens": lambda d: "{{ " + "(" * d + "a" + ")" * d + " }}",
    "lists": lambda d: "{{ " + "[" * d + "]" * d + " }}",
    "nots": lambda d: "{{ " + "not " * d + "a }}",
    "negs": lambda d: "{{ " + "- " * d + "a }}",
    "sums": lambda d: "{{ " + " + ".join(["a"] * (d + 1)) + " }}",
    "attrs": lambda d: "{{ a" + ".b" * d + " }}",
    "filters": lambda d: "{{ a" + "|string" * d + " }}",
    "conds": lambda d: "{{ " + "a if a else " * d + "a }}",
    "ifs": lambda d: "{% if a %}" * d + "x" + "{% endif %}" * d,
    "fors": lambda d: "{% for i in a %}" * d + "x" + "{% endfor %}" * d,
}


def _too_deep(template: str) -> bool:
    try:
        check_depth(template)
    except SayTooDeepError:
        return True
    return False


def _deepest_template(make: Callable[[int], str]) -> int:
    """The largest nesting ``d`` of ``make(d)`` that is not too deep."""
    lo, hi = 1, 4 * MAX_TEMPLATE_DEPTH
    assert not _too_deep(make(lo)) and _too_deep(make(hi))
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if _too_deep(make(mid)) else (mid, hi)
    return lo


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_template_depth_limit(kind: str) -> None:
    make = HOSTILE[kind]
    deepest = _deepest_template(make)
    # a `for` counts two levels (Python allows 20 nested loops in the code jinja2 generates)
    assert deepest >= MAX_TEMPLATE_DEPTH // 2, deepest
    assert "E310" not in _codes(_say('"' + make(deepest) + '"'))
    for depth in (deepest + 1, 5 * MAX_TEMPLATE_DEPTH, 3000):
        assert _codes(_say('"' + make(depth) + '"')) == ["E310"], depth


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_deepest_template_renders_at_run_time(kind: str) -> None:
    """A template at the limit also compiles and renders at run time, from a deep stack; one
    level deeper is refused by the renderer too (R508 at run time)."""
    make = HOSTILE[kind]
    deepest = _deepest_template(make)
    context = {"a": [{"b": 1}]}
    try:
        _with_frames(300, lambda: render_say(make(deepest), context))
    except (SyntaxError, RecursionError, TemplateSyntaxError):
        raise
    except (TemplateError, TypeError):  # `-[…]`, an attribute the context lacks: not syntax
        pass
    with pytest.raises(SayTooDeepError):
        render_say(make(deepest + 1), context)


@pytest.mark.slow
def test_blocks_of_every_kind_compile_at_the_limit() -> None:
    """Every block statement, nested in any order as deep as allowed around any leaf, compiles
    (jinja2's recursion, Python's 20 nested loops and 100 indentation levels)."""
    opening = {
        "for": ("{% for i in a %}", "{% endfor %}"),
        "recursive": ("{% for i in a recursive %}{{ loop(i) }}", "{% endfor %}"),
        "if": ("{% if a %}", "{% endif %}"),
        "with": ("{% with b = 1 %}", "{% endwith %}"),
        "filter": ("{% filter upper %}", "{% endfilter %}"),
        "macro": ("{% macro m() %}", "{% endmacro %}"),
        "call": ("{% call m() %}", "{% endcall %}"),
        "set": ("{% set x %}", "{% endset %}"),
        "block": ("{% block b{} %}", "{% endblock %}"),
        "autoescape": ("{% autoescape true %}", "{% endautoescape %}"),
    }
    leaves = ["x", "{% include 'x' ignore missing %}", "{% include 'x' %}",
              "{{ " + "(" * 8 + "a" + ")" * 8 + " }}", "{{ a" + "|string" * 8 + " }}"]
    rng = random.Random(16)
    for _ in range(200):
        kinds = [rng.choice(sorted(opening)) for _ in range(2 * MAX_TEMPLATE_DEPTH)]
        leaf = rng.choice(leaves)

        def make(d: int, kinds: list[str] = kinds, leaf: str = leaf) -> str:
            return ("".join(opening[k][0].replace("{}", str(i)) for i, k in enumerate(kinds[:d]))
                    + leaf + "".join(opening[k][1] for k in reversed(kinds[:d])))

        template = make(_deepest_template(make))
        _with_frames(300, lambda t=template: parse_say(t))
        _with_frames(300, lambda t=template: _template(t))


def test_too_deep_template_in_a_plan_is_r508() -> None:
    """A plan read from anywhere is not checked again: the renderer refuses the template."""
    plan = api.compile(_traj("answer { n: count(x) }\n  say \"{{ n }}\""))
    traj = dataclasses.replace(plan.trajectories[0], say=REPRODUCER.strip('"'))
    plan = dataclasses.replace(plan, trajectories=[traj])
    (result,) = api.run(plan, PythonBackend({"p.t": lambda **_: [{"f": 1, "g": None}]}))
    assert [d.code for d in result.diagnostics] == ["R508"], result.diagnostics
    assert "nested more than 32 levels" in result.diagnostics[0].message


def test_ordinary_templates_pass() -> None:
    for template in [
        '"{{ a }}: {{ n }}건"',
        '"{% if n > 1 %}{{ n }}건{% else %}한 건{% endif %} ({{ a | upper }})"',
        '"{% for x in [a, a] %}{{ loop.index }}. {{ x }}{% endfor %}"',
        '"{{ \\"%.1f\\" | format(n * 100 / (n + 1)) }}%"',
    ]:
        assert _codes(_say(template)) == [], template
