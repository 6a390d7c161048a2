"""Korean labels and units of record fields and tool parameters (issue 18 §3): the syntax
(``dealAmount: int "거래금액" unit "만원"``; ``unit`` is a keyword only before a string), the
checks (``E122`` a label that is not Korean text, ``E123`` a unit that cannot be one), the catalog
and the plan carrying them, and every field and parameter of ``stdlib/`` labelled."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgedsl import api
from edgedsl.check import load_catalog
from edgedsl.core.diagnostics import CompileError
from edgedsl.core.labels import is_korean_label, is_unit, label_of
from edgedsl.core.resources import stdlib_dir

_CATALOG = """platform p {
  record R {
    amount: int "거래금액" unit "만원"
    unit: str "단위"
    공포일자: date
    plain: str
    unit: int
  }
  tool t (year: int "연도", unit: str "단위" unit "원") -> [R]
}
"""


def _program(catalog: str) -> str:
    return catalog + 'trajectory q "q" {\n  x = p.t(year: 2024, unit: "a")\n  answer count(x)\n}\n'


def _codes(text: str) -> list[str]:
    with pytest.raises(CompileError) as info:
        api.compile(text, "labels.edge")
    return [d.code for d in info.value.diagnostics]


def test_labels_and_units_reach_the_catalog_and_the_plan() -> None:
    text = _program(_CATALOG.replace("    unit: int\n", ""))
    result = api.check(text, "labels.edge")
    tool = result.catalog.tool("p.t")
    assert tool is not None
    fields = {f.name: (f.label, f.unit) for f in tool.record.fields}
    assert fields == {"amount": ("거래금액", "만원"), "unit": ("단위", None),
                      "공포일자": (None, None), "plain": (None, None)}
    assert [(p.name, p.label, p.unit) for p in tool.params] == [
        ("year", "연도", None), ("unit", "단위", "원")]
    spec = api.compile(text, "labels.edge").tools["p.t"]
    assert spec.labels == {"amount": "거래금액", "unit": "단위"}
    assert spec.units == {"amount": "만원"}
    assert [(p.label, p.unit) for p in spec.params] == [("연도", None), ("단위", "원")]


def test_labels_leave_the_declaration_hash_alone() -> None:
    bare = _program(_CATALOG.replace("    unit: int\n", "").replace(' "거래금액" unit "만원"', "")
                    .replace(' "연도"', ""))
    labelled = _program(_CATALOG.replace("    unit: int\n", ""))
    h = [api.compile(t, "l.edge").tools["p.t"].declaration_hash for t in (bare, labelled)]
    assert h[0] == h[1]


def test_a_field_may_still_be_called_unit() -> None:
    module = api.parse(_CATALOG)
    record = module.items[0].items[0]
    assert [f.name for f in record.fields] == ["amount", "unit", "공포일자", "plain", "unit"]
    assert api.parse(api.format(module)) == module


@pytest.mark.parametrize("label", ["dealAmount", "", " 거래금액", "거래\\n금액", "123"])
def test_a_label_must_be_korean_text(label: str) -> None:
    assert _codes(_program(f'platform p {{\n  record R {{ a: int "{label}" }}\n'
                           '  tool t (year: int, unit: str) -> [R]\n}\n')) == ["E122"]


@pytest.mark.parametrize("unit", ["", " 원", "원 ", "아주아주아주아주긴단위이름입니다"])
def test_a_unit_must_be_short_one_line_text(unit: str) -> None:
    assert _codes(_program(f'platform p {{\n  record R {{ a: int "금액" unit "{unit}" }}\n'
                           f'  tool t (year: int "연도" unit "{unit}", unit: str) -> [R]\n}}\n')
                  ) == ["E123", "E123"]


def test_units_are_free_text() -> None:
    for unit in ("원", "백만원", "만원", "주", "%", "Kcal", "㎡", "초", "원/㎡", "㎍/㎥", "km/h"):
        assert is_unit(unit)
    assert is_korean_label("당기 금액") and is_korean_label("미세먼지(PM10)")
    assert not is_korean_label("PM10")
    assert label_of("공포일자", None) == "공포일자" and label_of("rcept_dt", None) is None
    assert label_of("rcept_dt", "접수일자") == "접수일자"


def test_every_stdlib_field_and_parameter_has_a_label() -> None:
    """A name that is itself Korean text (the law service's ``공포일자``) is its own label."""
    names = sorted(p.stem for p in stdlib_dir().glob("*.edge"))
    catalog = load_catalog(names)
    missing = [f"{t.qualname}({p.name})" for t in catalog.tools() for p in t.params
               if label_of(p.name, p.label) is None]
    missing += [f"{r.name}.{f.name}" for r in catalog.records.values() for f in r.fields
                if label_of(f.name, f.label) is None]
    assert missing == []
    assert len(catalog.tools()) > 100


def test_units_where_the_services_state_them() -> None:
    catalog = load_catalog(["dart", "fsc", "region", "neis"])

    def unit(qualname: str, field: str) -> str | None:
        tool = catalog.tool(qualname)
        assert tool is not None
        spec = tool.record.field(field)
        assert spec is not None
        return spec.unit

    assert unit("dart.single_accounts", "thstrm_amount") == "원"
    assert unit("molit.getRTMSDataSvcAptTrade", "dealAmount") == "만원"
    assert unit("fsc.stock_prices", "trqu") == "주"
    assert unit("neis.meals", "CAL_INFO") == "Kcal"


def test_the_stdlib_files_are_formatted() -> None:
    for path in sorted(Path(stdlib_dir()).glob("*.edge")):
        text = path.read_text(encoding="utf-8")
        assert api.format(api.parse(text, str(path))) == text, path


def test_diagnostics_name_a_field_with_its_label() -> None:
    text = ('use dart\ntrajectory t "q" {\n'
            '  f = dart.disclosures(corp_code: "00126380", bgn_de: 2024-12-01,'
            ' end_de: 2024-12-31) pages all\n'
            '  g = drv f | max report_nm\n  answer count(g)\n}\n')
    with pytest.raises(CompileError) as info:
        api.compile(text, "t.edge")
    (d,) = [d for d in info.value.diagnostics if d.code == "E204"]
    assert [lb.message for lb in d.labels if lb.primary] == ["`report_nm` (보고서명) is a str"]
