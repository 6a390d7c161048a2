"""The materialisation policy (:mod:`edgedsl.runtime.relations`): where a relation lives, which
form and connection run, and fallbacks recorded in the trace instead of retried silently."""

from __future__ import annotations

import dataclasses
from typing import Any

import orjson
import pytest

import edgedsl
from edgedsl.runtime import PythonBackend, relations
from edgedsl.runtime.executor import run_plan_sync

PROGRAM = """
platform p {
  record R {
    a: int
    name: str
  }

  tool t (q: str) -> [R]
}

trajectory ok "q" {
  r = p.t(q: "x")
  big = drv r | where a >= 2
  if count(big) > 0 {
    s = p.t(q: "y")
  } else {
    s = p.t(q: "z")
  }
  answer { n: count(big), top: max(r.a), s: count(s) }
}

trajectory bad "q" {
  r = p.t(q: "x")
  answer { x: r.a + 1 }
}
"""
PLAN = edgedsl.compile(PROGRAM)
ROWS = [{"a": 1, "name": "x"}, {"a": 2, "name": "y"}, {"a": 3, "name": "z"}]


def _run(name: str) -> Any:
    (res,) = run_plan_sync(PLAN, PythonBackend({"p.t": lambda **_: ROWS}), trajectory=name)
    return res


def test_placement_policy() -> None:
    """Fresh responses are pending whatever their size; small stored ones in memory; one large
    stored response without a fan a view; anything else a table."""
    limit = relations.SETTINGS.in_memory_max_cells
    assert relations.placement([(False, 10**7)], 5, tagged=False) == "pending"
    assert relations.placement([(False, 10**7), (False, 3)], 5, tagged=True) == "pending"
    assert relations.placement([(True, limit // 6)], 5, tagged=False) == "in_memory"
    assert relations.placement([(True, limit // 12), (False, 1)], 5, tagged=True) == "in_memory"
    assert relations.placement([(True, limit)], 5, tagged=False) == "view"
    assert relations.placement([(True, limit)], 5, tagged=True) == "table"
    assert relations.placement([(True, limit), (True, 1)], 5, tagged=False) == "table"


def test_form_and_connection_follow_the_window_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    """The settings are the only thresholds: replacing them moves both decisions."""
    assert relations.reduction_form(128) == "window" and relations.reduction_form(129) == "table"
    assert relations.inline_connection(129, window=True) == "run"
    monkeypatch.setattr(relations, "SETTINGS",
                        dataclasses.replace(relations.SETTINGS, window_max_rows=1000))
    assert relations.reduction_form(129) == "window"
    assert relations.inline_connection(129, window=True) == "scratch"


def test_a_run_without_fallback_keeps_its_json_form() -> None:
    res = _run("ok")
    assert res.ok and res.answer == {"n": 2, "top": 3, "s": 3}
    assert res.trace.fallbacks == []
    assert "fallbacks" not in res.to_json(with_trace=True)["trace"]


@pytest.mark.fallback
def test_a_failing_inline_statement_is_a_fact_in_the_trace(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """Force every inline statement of answers and predicates to fail: the run still answers
    (from the tables), and each fallback is in the trace, counted as unexpected."""
    monkeypatch.setattr(relations, "inline_query",
                        lambda sql, rels: ('SELECT * FROM "__no_such_relation"', []))
    before = relations.unexpected_fallbacks()
    res = _run("ok")
    assert res.ok and res.answer == {"n": 2, "top": 3, "s": 3}
    facts = res.trace.fallbacks
    assert [(f.statement, f.step) for f in facts] == [("predicate", "if#1"), ("answer", None)]
    assert all(f.recovered and "__no_such_relation" in f.error for f in facts)
    assert relations.unexpected_fallbacks() - before == 2
    dumped = orjson.loads(res.to_json_bytes(with_trace=True))["trace"]["fallbacks"]
    assert dumped[0] == {"statement": "predicate", "step": "if#1", "recovered": True,
                         "error": facts[0].error}


def test_a_users_error_is_the_tables_and_not_an_unexpected_fallback() -> None:
    """An answer computing with a field that holds several values is R507, said before any
    statement runs (naming the field and its values), so no inline statement fails and no
    fallback is recorded, let alone counted as a fast-path bug (the conftest check)."""
    res = _run("bad")
    assert [d.code for d in res.diagnostics] == ["R507"]
    assert "as one value, but it holds" in res.diagnostics[0].message
    assert res.trace.fallbacks == []
