"""`edgedsl.testing.check_trajectory`: the executor against the reference interpreter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgedsl.core.types import DATE, INT, STR, FieldSpec, RecordType
from edgedsl.testing import check_trajectory, records
from tests.profiles import examples

ROOT = Path(__file__).resolve().parents[2]

DEAL = RecordType(
    "Deal",
    (FieldSpec("dealAmount", INT), FieldSpec("dealDate", DATE), FieldSpec("aptNm", STR)),
)

SOURCE = """\
platform realty {
  record Deal {
    dealAmount: int
    dealDate: date
    aptNm: str
  }

  record Apt {
    aptNm: str
    households: int
  }

  tool deals (LAWD_CD: str) -> [Deal]
  tool apt (aptNm: str) -> [Apt]
}

trajectory big "가장 큰 거래는?" {
  deals = realty.deals(LAWD_CD: "11680")
  top = drv deals | where dealAmount >= 50000 | max dealDate
  answer {
    amount: max(top.dealAmount),
    n: count(deals),
    avg: round(avg(deals.dealAmount) / 3, 2),
  }
}

trajectory usual "가장 흔한 단지의 세대수는?" {
  deals = realty.deals(LAWD_CD: "11680")
  usual = drv deals | most_frequent aptNm
  info = realty.apt(aptNm: seq usual.aptNm)
  answer info.households
}

trajectory fanned "최근 거래 단지들의 세대수는?" {
  deals = realty.deals(LAWD_CD: "11680")
  recent = drv deals | where dealDate after 2024-06-01
  infos = realty.apt(aptNm: fan(3) recent.aptNm)
  answer sum(infos.households)
}
"""


def _tools(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def apt(aptNm: str) -> list[dict[str, Any]]:
        return [{"aptNm": aptNm, "households": len(aptNm) * 100 + 7}]

    return {"realty.deals": lambda **kw: rows, "realty.apt": apt}


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(records(DEAL), max_size=25))
def test_executor_agrees_with_reference_on_random_tool_data(rows: list[dict[str, Any]]) -> None:
    check_trajectory(SOURCE, _tools(rows))


def test_agreement_on_a_fixed_relation() -> None:
    rows = [
        {"dealAmount": "120,000", "dealDate": "20240701", "aptNm": "래미안"},
        {"dealAmount": 90000, "dealDate": "2024-07-01", "aptNm": "자이"},
        {"dealAmount": "30,000원", "dealDate": "2024.05.03", "aptNm": "자이"},
    ]
    out = check_trajectory(SOURCE, _tools(rows))
    assert out["big"] == {"amount": 120000, "n": 3, "avg": 26666.67}
    assert out["usual"] == 207  # 자이: 2 deals
    assert out["fanned"] == 307 + 207


def test_structural_failures_must_agree() -> None:
    # `seq usual.aptNm` sees 0 values when every name is null: both sides must fail with R501
    rows = [{"dealAmount": 1, "dealDate": "20240101", "aptNm": None}]
    out = check_trajectory(SOURCE, _tools(rows), trajectory="usual")
    assert getattr(out["usual"], "code", None) == "R501"


def test_disagreement_is_reported() -> None:
    rows = [{"dealAmount": 100, "dealDate": "20240101", "aptNm": "a"}]
    broken = SOURCE.replace("answer info.households", "answer info.households")
    tools = _tools(rows)
    calls = {"n": 0}

    def flaky(aptNm: str) -> list[dict[str, Any]]:  # answers differently on each call
        calls["n"] += 1
        return [{"aptNm": aptNm, "households": calls["n"]}]

    tools["realty.apt"] = flaky
    with pytest.raises(AssertionError, match="answers differ"):
        check_trajectory(broken, tools, trajectory="usual")


def test_examples_agree_with_reference() -> None:
    from edgedsl.runtime.backends import load_python_tools

    tools = load_python_tools(ROOT / "examples" / "tools.py")
    for path in sorted((ROOT / "examples").glob("*.edge")):
        if "trajectory " in path.read_text(encoding="utf-8"):
            check_trajectory(path, tools)
