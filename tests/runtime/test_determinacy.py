"""Determinacy facts (ties, partial reads) and the determined answer, against the reference."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgedsl.api import compile as compile_source
from edgedsl.core.source import Source
from edgedsl.runtime.determinacy import determinacy
from edgedsl.runtime.executor import run
from edgedsl.runtime.python_backend import PythonBackend
from edgedsl.runtime.trace import Trace
from edgedsl.testing import check_trajectory
from tests.profiles import examples

CATALOG = """\
platform t {
  record R {
    k: str
    v: int
  }

  tool rows () -> [R]
  tool paged () -> [R] at "items" paged (page: pageNo, size: numOfRows <= 3, total: totalCount)
  tool one (k: str) -> [R]
}
"""


def _tools(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def paged(pageNo: int = 1, numOfRows: int = 3) -> dict[str, Any]:
        start = (pageNo - 1) * numOfRows
        return {"items": rows[start:start + numOfRows], "totalCount": len(rows)}

    return {"t.rows": lambda: rows, "t.paged": paged,
            "t.one": lambda k: [{"k": k, "v": len(k)}]}


def _run(body: str, rows: list[dict[str, Any]], **kw: Any) -> Any:
    plan = compile_source(Source("d.edge", CATALOG + 'trajectory a "q" {\n' + body + "}\n"))
    res = run(plan, "a", PythonBackend(_tools(rows)), **kw)
    assert res.ok, res.diagnostics
    return res


TIED = [{"k": "b", "v": 1}, {"k": "a", "v": 2}, {"k": "c", "v": 2}]


def test_most_frequent_tie_is_a_fact_and_a_cause() -> None:
    res = _run("  r = t.rows()\n  m = drv r | most_frequent k\n  answer m.k\n", TIED)
    st = res.trace.step("m")
    assert [(t.op, t.field, t.tied, t.broken) for t in st.ties] == [
        ("most_frequent", "k", 3, True)]
    assert res.answer == "a" and res.determined is False
    [cause] = res.determinacy.causes
    assert (cause.step, cause.kind, cause.tied, cause.fields) == ("m", "tie", 3, [""])
    [w] = res.warnings
    assert w.code == "W006" and w.labels[0].span.line == CATALOG.count("\n") + 3  # the drv
    assert any("where" in h for h in w.hints)
    out = res.to_json()
    assert out["determined"] is False and out["warnings"][0]["code"] == "W006"
    assert "diagnostics" not in out and res.ok  # a warning never fails a run
    assert "kept the smallest" in w.message
    largest = _run("  r = t.rows()\n  m = drv r | most_frequent k\n  answer m.k\n", TIED,
                   tie_break="largest")
    assert largest.answer == "c"
    assert "kept the largest" in largest.warnings[0].message  # the rule the run used


def test_max_keeps_ties_so_they_are_facts_not_causes() -> None:
    res = _run("  r = t.rows()\n  m = drv r | max v\n  answer { n: count(m), k: m.k }\n",
               TIED)
    assert [(t.op, t.tied, t.broken) for t in res.trace.step("m").ties] == [("max", 2, False)]
    assert res.determined is True and res.warnings == [] and "determined" not in res.to_json()


def test_a_single_winner_is_determined() -> None:
    rows = [*TIED, {"k": "c", "v": 5}]
    res = _run("  r = t.rows()\n  m = drv r | where v >= 2 | most_frequent k\n  answer m.k\n",
               rows)
    assert [(t.filter, t.tied, t.broken) for t in res.trace.step("m").ties] == [(1, 1, False)]
    assert res.answer == "c" and res.determined is True


def test_a_tie_the_answer_does_not_read_does_not_count() -> None:
    body = ("  r = t.rows()\n  m = drv r | most_frequent k\n"
            "  answer { n: count(r), top: max(r.v) }\n")
    res = _run(body, TIED)
    assert res.trace.step("m").ties[0].broken and res.determined is True


def test_a_tie_in_the_branch_not_taken_does_not_count() -> None:
    body = ("  r = t.rows()\n  if count(r) > 10 {\n    m = drv r | most_frequent k\n  }\n"
            "  answer count(r)\n")
    res = _run(body, TIED)
    assert res.determined is True


def test_a_tie_reaches_through_a_junction_and_an_if() -> None:
    body = ("  r = t.rows()\n  m = drv r | most_frequent k\n  x = t.one(k: seq m.k)\n"
            "  if count(m) > 0 {\n    y = drv r | max v\n  } else {\n    y = drv r | min v\n  }\n"
            "  answer { v: x.v, n: count(y) }\n")
    res = _run(body, TIED)
    [cause] = res.determinacy.causes
    assert cause.step == "m" and cause.fields == ["v", "n"]


def test_partial_read_is_a_fact_and_reaches_count() -> None:
    rows = [{"k": f"k{i}", "v": i} for i in range(7)]
    res = _run("  r = t.paged()\n  answer count(r)\n", rows)
    st = res.trace.step("r")
    assert (st.complete, st.unread, st.pages_read) == (False, 4, 1)
    assert res.answer == 3 and res.determined is False
    [cause] = res.determinacy.causes
    assert (cause.kind, cause.read, cause.unread, cause.pages) == ("partial", 3, 4, 1)
    assert any("pages all" in h for h in res.warnings[0].hints)
    whole = _run("  r = t.paged() pages all\n  answer count(r)\n", rows)
    assert whole.trace.step("r").complete is True and whole.determined is True
    assert whole.answer == 7


def test_one_page_that_holds_everything_is_complete() -> None:
    res = _run("  r = t.paged()\n  answer count(r)\n", TIED)
    assert res.trace.step("r").complete is True and res.determined is True


def test_partial_read_deciding_an_if_undetermines_the_branch() -> None:
    rows = [{"k": f"k{i}", "v": i} for i in range(7)]
    body = ("  r = t.paged()\n  s = t.rows()\n  if count(r) > 5 {\n    x = drv s | max v\n  }"
            " else {\n    x = drv s | min v\n  }\n  answer x.v\n")
    res = _run(body, rows)
    assert [c.step for c in res.determinacy.causes] == ["r"]


def test_determinacy_reads_a_trace_back_from_json() -> None:
    res = _run("  r = t.rows()\n  m = drv r | most_frequent k\n  answer m.k\n", TIED)
    plan = compile_source(Source("d.edge", CATALOG + 'trajectory a "q" {\n  r = t.rows()\n'
                                 "  m = drv r | most_frequent k\n  answer m.k\n}\n"))
    back = Trace.model_validate(res.trace.model_dump(mode="json"))
    assert determinacy(plan.trajectory("a"), back) == res.determinacy


def test_check_trajectory_can_require_a_determined_answer() -> None:
    src = CATALOG + 'trajectory a "q" {\n  r = t.rows()\n  m = drv r | most_frequent k\n' \
        "  answer m.k\n}\n"
    assert check_trajectory(src, _tools(TIED)) == {"a": "a"}
    with pytest.raises(AssertionError, match="not determined"):
        check_trajectory(src, _tools(TIED), require_determined=True)
    assert check_trajectory(src, _tools([*TIED, {"k": "b", "v": 0}]),
                            require_determined=True) == {"a": "b"}


PROGRAM = CATALOG + """\
trajectory a "q" {
  r = t.paged() pages 2
  m = drv r | where v >= 1 | most_frequent k | max v
  answer { k: m.k, n: count(m) }
}
"""

row = st.fixed_dictionaries({"k": st.sampled_from(["a", "b", "c", "d"]),
                             "v": st.integers(0, 3)})


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(row, max_size=9), st.sampled_from(["smallest", "largest"]))
def test_facts_match_the_reference(rows: list[dict[str, Any]], tie_break: str) -> None:
    # check_trajectory compares ties, complete reads and `determined` with the reference
    check_trajectory(PROGRAM, _tools(rows), tie_break=tie_break)  # type: ignore[arg-type]


SIMPLE = CATALOG + """\
trajectory a "q" {
  r = t.rows()
  m = drv r | most_frequent k
  answer m.k
}
"""


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(row, min_size=1, max_size=8))
def test_the_opposite_tie_break_changes_the_answer_exactly_when_undetermined(
        rows: list[dict[str, Any]]) -> None:
    plan = compile_source(Source("s.edge", SIMPLE))
    base = run(plan, "a", PythonBackend(_tools(rows)))
    other = run(plan, "a", PythonBackend(_tools(rows)), tie_break="largest")
    assert base.ok and other.ok
    assert (base.answer != other.answer) == (base.determined is False)


def test_the_tie_policy_is_plan_data_only_when_perturbed() -> None:
    from edgedsl.reduce.query import Compare, Extreme, Mode, ReduceQuery
    from edgedsl.reduce.render import render, render_ties

    q = ReduceQuery("r", (Compare("v", ">=", "HUGEINT", 1), Mode("k"), Extreme("v", "max")))
    assert q.to_json()["filters"][1] == {"kind": "mode", "field": "k"}  # plans unchanged
    big = q.ties_to("largest")
    assert big.to_json()["filters"][1] == {"kind": "mode", "field": "k", "ties": "largest"}
    assert ReduceQuery.from_json(big.to_json()) == big and big.ties_to("smallest") == q
    assert '"k" DESC' in render(big, "table") and '"k" ASC' in render(q, "table")
    _, params = render_ties(q) or ("", [])
    assert params == [1, 1]  # the prefix entering each of the two tie filters binds the pivot
    assert render_ties(ReduceQuery("r", (Compare("v", ">=", "HUGEINT", 1),))) is None


def test_a_partial_read_the_answer_does_not_depend_on_is_w007() -> None:
    """A call that read fewer records than the service reported is said at run time (W007),
    in the result's warnings and its JSON, even when the answer does not depend on it; a
    partial read the answer depends on is W006 alone (not named twice)."""
    rows = [{"k": f"k{i}", "v": i} for i in range(7)]
    res = _run("  _r = t.paged()\n  s = t.rows()\n  answer count(s)\n", rows)
    assert res.determined is True
    [w] = res.warnings
    assert w.code == "W007" and w.severity == "warning"
    assert w.message == ("`_r` read 3 records while the service reported 7 (4 unread, 1 page "
                         "read)")
    assert "add `pages all`" in w.hints[0] and w.span is not None
    out = res.to_json()
    assert "determined" not in out and [x["code"] for x in out["warnings"]] == ["W007"]
    capped = _run("  _r = t.paged() pages 2\n  s = t.rows()\n  answer count(s)\n", rows)
    assert "`pages 2` stopped before the end" in capped.warnings[0].hints[0]
    both = _run("  r = t.paged()\n  answer count(r)\n", rows)
    assert [w.code for w in both.warnings] == ["W006"]
    whole = _run("  _r = t.paged() pages all\n  s = t.rows()\n  answer count(s)\n", rows)
    assert whole.warnings == []
