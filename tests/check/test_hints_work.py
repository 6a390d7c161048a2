"""A hint that names a replacement gives one that compiles: following it removes the error
(issue 20: the string-pivot hint once suggested `55,000원`, a syntax error; `use juso` did not
say that `juso` is a platform of module `region`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from edgedsl.check import check
from edgedsl.core.diagnostics import CompileError
from edgedsl.core.source import Source
from edgedsl.syntax.build import parse_module

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = ROOT / "tests" / "catalogs"


def errors(text: str, paths: list[Path]) -> list:
    source = Source("case.edge", text)
    try:
        result = check(parse_module(source), source, search_paths=paths)
    except CompileError as err:
        return [d for d in err.diagnostics if d.severity == "error"]
    return [d for d in result.diagnostics if d.severity == "error"]


def followed(text: str, paths: list[Path], code: str) -> str:
    """``text`` with the first ``code`` error's span replaced by the last backticked text of its
    first hint."""
    (d,) = [d for d in errors(text, paths) if d.code == code]
    suggestion = re.findall(r"`([^`]+)`", d.hints[0])
    assert d.span is not None and suggestion, d
    replacement = suggestion[-1] if code != "E103" else suggestion[1].removeprefix("use ")
    return text[:d.span.start] + replacement + text[d.span.end:]


PIVOT = """use dart, krx

trajectory t "종가 기준" {{
  prices = krx.stock_price(basDt: 2024-12-30) pages all
  big = drv prices | where {where}
  answer big.itmsNm
}}
"""


@pytest.mark.parametrize(("where", "literal"), [
    ('clpr >= "55,000원"', "55000"),
    ('clpr <= " 1,200 "', "1200"),
    ('basDt after "2024.12.01"', "2024-12-01"),
    ('basDt after "20241201"', "2024-12-01"),
])
def test_the_string_pivot_hint_names_a_literal_that_compiles(where: str, literal: str) -> None:
    text = PIVOT.format(where=where)
    fixed = followed(text, [CATALOGS], "E205")
    assert literal in fixed
    assert errors(fixed, [CATALOGS]) == []


def test_a_pivot_that_reads_as_no_number_gets_the_form_of_one() -> None:
    (d,) = errors(PIVOT.format(where='clpr >= "많이"'), [CATALOGS])
    assert d.code == "E205" and "e.g. `55000`" in d.hints[0]


def test_use_of_a_platform_names_the_module_that_declares_it() -> None:
    text = ('use juso\n\ntrajectory t "주소" {\n'
            '  found = juso.addrLinkApi(keyword: "세종대로 110")\n'
            "  answer found.roadAddr\n}\n")
    (d,) = errors(text, [])
    assert d.code == "E103" and "platform of module `region`" in d.hints[0]
    fixed = followed(text, [], "E103")
    assert fixed.startswith("use region\n") and errors(fixed, []) == []
