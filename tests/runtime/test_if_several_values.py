"""An ``if`` (or arithmetic) over a field holding several values: an error at check time when
the checker can tell (``E220``: a list-returning call, a ``fan``, a ``compare``), and a plain
run-time ``R507`` naming the field and its values otherwise (a ``drv`` that kept ties) — never
DuckDB's text about scalar subqueries."""

from __future__ import annotations

from typing import Any

import pytest

import edgedsl
from edgedsl.check import CheckError
from edgedsl.runtime import PythonBackend, run

HEAD = """
platform p {
  record R {
    code: str
    n: int
  }

  tool search (q: str) -> [R]
  tool one (q: str) -> R
}

"""


def program(body: str) -> str:
    return HEAD + 'trajectory t "q" {\n' + body + "}\n"


BRANCHES = """  if {cond} {{
    a = drv found | max n
  }} else {{
    a = drv found | min n
  }}
  answer a.code
"""


@pytest.mark.parametrize("call", [
    'found = p.search(q: "x")',
    'found = compare p.one() over q in ["x", "y"]',
])
def test_a_relation_known_to_hold_several_rows_is_e220(call: str) -> None:
    with pytest.raises(CheckError) as err:
        edgedsl.compile(program(f"  {call}\n" + BRANCHES.format(cond="found.n + 1 > 3")))
    (d,) = err.value.diagnostics
    assert d.code == "E220" and "`found.n` is compared as one value" in d.message
    assert "max(found.n)" in d.hints[0]


def test_a_single_record_tool_and_aggregates_are_fine() -> None:
    edgedsl.compile(program('  found = p.one(q: "x")\n' + BRANCHES.format(cond="found.n > 3")))
    edgedsl.compile(program('  found = p.search(q: "x")\n'
                            + BRANCHES.format(cond="max(found.n) > 3 and count(found) > 1")))


def ran(body: str, rows: list[dict[str, Any]]) -> Any:
    plan = edgedsl.compile(program(body))
    return run(plan, "t", PythonBackend({"p.search": lambda **_: rows}))


TIES = [{"code": "A", "n": 7}, {"code": "B", "n": 7}, {"code": "C", "n": 1}]


def test_a_drv_that_kept_several_values_fails_plainly_in_an_if() -> None:
    body = ('  found = p.search(q: "x")\n  top = drv found | max n\n'
            "  if top.code == \"A\" {\n    a = drv found | max n\n  } else {\n"
            "    a = drv found | min n\n  }\n  answer a.code\n")
    res = ran(body, TIES)
    assert not res.ok
    (d,) = res.diagnostics
    assert d.code == "R507"
    assert d.message == ("the `if` condition reads `top.code` as one value, but it holds 2 "
                         "distinct values ('A', 'B')")
    assert "scalar" not in d.message and "drv top | max code" in d.hints[0]
    assert res.trace.step("if#1").status == "failed"
    assert ran(body, TIES[1:]).ok  # one row kept: the same program runs


def test_arithmetic_over_several_values_fails_plainly_in_an_answer() -> None:
    res = ran('  found = p.search(q: "x")\n  top = drv found | max n\n'
              "  answer { twice: top.n * 2, codes: top.code }\n",
              [{"code": "A", "n": 7}, {"code": "B", "n": 8}, {"code": "C", "n": 8}])
    assert res.ok  # one distinct n among the ties: arithmetic is fine, codes is a list
    assert res.answer == {"twice": 16, "codes": ["B", "C"]}
    res = ran('  found = p.search(q: "x")\n  top = drv found | max n\n'
              "  answer { next: top.code }\n", TIES)
    assert res.ok and res.answer == {"next": ["A", "B"]}
