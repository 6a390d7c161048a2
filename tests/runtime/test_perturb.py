"""The perturbation check: which perturbation changes or breaks an answer."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgedsl.api import compile as compile_source
from edgedsl.core.source import Source
from edgedsl.runtime.perturb import check_determinacy, same_answer
from edgedsl.runtime.python_backend import PythonBackend
from tests.runtime.test_determinacy import CATALOG, _tools

ROWS = [{"k": "a", "v": 1}, {"k": "a", "v": 2}, {"k": "a", "v": 3},
        {"k": "b", "v": 4}, {"k": "c", "v": 5}]


def _check(body: str, rows: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    plan = compile_source(Source("p.edge", CATALOG + 'trajectory a "q" {\n' + body + "}\n"))
    got = asyncio.run(check_determinacy(plan, "a", PythonBackend(_tools(rows)), **kw))
    assert got.ok
    return {"stable": got.stable, "changed_by": got.changed_by,
            **{p.name: (p.outcome, p.detail, p.answer, p.code) for p in got.perturbations}}


def test_an_implicit_page_limit_is_lifted() -> None:
    got = _check("  r = t.paged()\n  answer count(r)\n", ROWS)
    assert got["pages_all"] == ("changed", "pages all on `r`", 5, None)
    assert got["page_size"] == ("changed", "t.paged 3→1", 1, None)
    assert got["tie_break"][0] == "same" and got["changed_by"] == ["page_size", "pages_all"]


def test_an_explicit_limit_is_lifted_only_when_asked() -> None:
    body = "  r = t.paged() pages 1\n  answer count(r)\n"
    assert _check(body, ROWS)["pages_all"][0] == "not_applied"
    assert _check(body, ROWS, lift="every")["pages_all"][0] == "changed"
    assert _check("  r = t.paged() pages all\n  answer count(r)\n", ROWS, lift="every") == {
        "stable": True, "changed_by": [], "tie_break": ("same", "most_frequent ties to the "
                                                        "largest value", 5, None),
        "page_size": ("same", "t.paged 3→1", 5, None),
        "pages_all": ("not_applied", "", None, None)}


def test_a_seq_that_more_records_break_is_failed() -> None:
    # the first page holds one k; every page holds three: the seq junction sees 3 values
    got = _check("  r = t.paged()\n  x = t.one(k: seq r.k)\n  answer x.v\n", ROWS)
    assert got["pages_all"][0] == "failed" and got["pages_all"][3] == "R502"
    assert not got["stable"]


def test_a_broken_tie_changes_under_the_opposite_policy() -> None:
    got = _check("  r = t.rows()\n  m = drv r | most_frequent k\n  answer m.k\n",
                 ROWS[2:])
    assert got["tie_break"][:3] == ("changed", "most_frequent ties to the largest value", "c")


def test_same_answer_compares_numbers_within_a_tolerance() -> None:
    assert same_answer({"a": [1.0, 2]}, {"a": [1.0 + 1e-12, 2]})
    assert not same_answer({"a": 1}, {"a": 1, "b": 2}) and not same_answer(True, 1)


# ------------------------------------------------------------------ moot perturbations

MOOT_BODIES = [
    "  r = t.rows()\n  m = drv r | most_frequent k\n  answer m.k\n",
    "  r = t.rows()\n  m = drv r | most_frequent k\n  x = t.one(k: seq m.k)\n  answer x.v\n",
    "  r = t.paged() pages all\n  m = drv r | max v | most_frequent k\n  answer m.k\n",
    "  r = t.paged() pages 1\n  m = drv r | most_frequent k\n  answer count(m)\n",
    "  r = t.paged()\n  m = drv r | most_frequent k\n  answer m.k\n",
    "  r = t.paged() pages 2\n  answer count(r)\n",
    "  r = t.rows()\n  if count(r) > 2 {\n    m = drv r | most_frequent k\n  } else {\n"
    "    m = drv r | min v\n  }\n  answer m.k\n",
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.sampled_from(MOOT_BODIES), lift=st.sampled_from(["implicit", "every"]),
       rows=st.lists(st.fixed_dictionaries({"k": st.sampled_from("abc"),
                                            "v": st.integers(0, 3)}), min_size=1, max_size=7))
def test_a_skipped_perturbation_never_hides_a_change(body: str, lift: str,
                                                     rows: list[dict[str, Any]]) -> None:
    # what skip_moot does not run, the full check finds the same (or does not apply)
    full = _check(body, rows, lift=lift)
    skipped = _check(body, rows, lift=lift, skip_moot=True)
    for name in ("tie_break", "page_size", "pages_all"):
        if skipped[name][1].startswith("moot"):
            assert skipped[name][0] == "not_applied"
            assert full[name][0] in ("same", "not_applied"), (name, full[name])
        else:
            assert skipped[name] == full[name]


def test_moot_perturbations_are_not_run_and_live_ones_are() -> None:
    body = "  r = t.paged() pages 2\n  m = drv r | most_frequent k\n  answer m.k\n"
    whole = [{"k": "a", "v": 1}, {"k": "a", "v": 2}, {"k": "b", "v": 3}]
    got = _check(body, whole, lift="every", skip_moot=True)
    assert got["tie_break"][:2] == ("not_applied", "moot: no most_frequent tie was broken")
    assert got["pages_all"][:2] == ("not_applied", "moot: every call read its whole result")
    assert got["page_size"][0] == "same"
    # a broken tie and a partial read are never moot
    tied = [{"k": k, "v": v} for v, k in enumerate("abcabcc")]  # 2 pages: a, b, c twice
    live = _check(body, tied, lift="every", skip_moot=True)
    assert live["tie_break"][0] == "changed" and live["pages_all"][0] == "changed"
