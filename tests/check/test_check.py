"""Unit tests of the `check` stage, pass by pass (modules, catalog, resolve, types, graph, lower).

Trajectories are checked against the small test catalogs in ``tests/catalogs``.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from edgedsl.check import PASSES, CheckError, CheckResult, check, ir, load_catalog
from edgedsl.check.typerules import junction_fit, literal_problem
from edgedsl.core.diagnostics import Diagnostic
from edgedsl.core.source import Source
from edgedsl.core.types import DATE, FLOAT, INT, JSON, NUM, STR, CodeType, EnumType, ListType
from edgedsl.syntax import nodes as n
from edgedsl.syntax.build import parse_module

CATALOGS = Path(__file__).resolve().parents[1] / "catalogs"
HEAD = "use dart, krx, neis\n\n"


def run(
    text: str, name: str = "<test>", *, phi: int = 5, paths: tuple[Path, ...] = ()
) -> CheckResult:
    source = Source(name, text)
    return check(parse_module(source), source, search_paths=[*paths, CATALOGS], phi=phi)


def diags(text: str, name: str = "<test>", **kw: object) -> list[Diagnostic]:
    try:
        return run(text, name, **kw).diagnostics  # type: ignore[arg-type]
    except CheckError as err:
        return err.diagnostics


def codes(text: str, **kw: object) -> list[str]:
    return [d.code for d in diags(text, **kw)]


def traj(body: str, head: str = HEAD) -> str:
    return f'{head}trajectory t "질문" {{\n{body}\n}}\n'


CORP = '  corp = dart.corp_code(corp_name: "삼성전자")\n'
FILINGS = CORP + "  filings = dart.disclosures(corp_code: seq corp.corp_code) pages all\n"


# ---------------------------------------------------------------- the pass list


def test_passes_run_from_one_tuple() -> None:
    names = [p.__name__ for p in PASSES]
    assert names == [
        "load_modules",
        "check_run_settings",
        "build_catalog",
        "resolve_names",
        "check_types",
        "check_graph",
        "lower_program",
    ]


def test_clean_program_has_no_diagnostics_and_lowers() -> None:
    result = run(traj(FILINGS + "  latest = drv filings | max rcept_dt\n  answer latest.report_nm"))
    assert result.diagnostics == []
    (t,) = result.program.trajectories
    assert [s.id for s in t.steps] == ["corp", "filings", "latest"]  # type: ignore[union-attr]


def test_errors_raise_one_check_error_with_every_diagnostic() -> None:
    text = traj(
        CORP + '  x = dart.nope()\n  y = dart.corp_code(corp_nme: "a")\n  answer corp.corp_code'
    )
    with pytest.raises(CheckError) as info:
        run(text)
    assert info.value.stage == "check"
    assert [d.code for d in info.value.diagnostics if d.severity == "error"] == ["E111", "E112"]
    assert any(name.endswith("dart.edge") for name in info.value.sources)


# ---------------------------------------------------------------- modules


def test_unknown_module_suggests_a_name() -> None:
    (d,) = diags("use dartt\n")
    assert d.code == "E103" and "did you mean `dart`?" in d.hints


def test_use_cycle_between_two_modules(tmp_path: Path) -> None:
    (tmp_path / "a.edge").write_text("use b\n")
    (tmp_path / "b.edge").write_text("use a\n")
    ds = diags("use a\n", paths=(tmp_path,))
    assert [d.code for d in ds] == ["E104"]
    assert "a → b → a" in ds[0].message
    assert ds[0].span is not None and ds[0].span.file.endswith("b.edge")


def test_module_dir_comes_before_search_paths(tmp_path: Path) -> None:
    (tmp_path / "dart.edge").write_text("platform local_dart {\n}\n")
    main = tmp_path / "main.edge"
    main.write_text("use dart\n")
    result = check(
        parse_module(Source.from_path(main)), Source.from_path(main), search_paths=[CATALOGS]
    )
    assert list(result.catalog.platforms) == ["local_dart"]


def test_each_module_is_loaded_once() -> None:
    cat = run("use dart, krx\n").catalog
    stock = cat.code_types["codes.StockCode"]
    price = cat.tool("krx.stock_price")
    corp = cat.tool("dart.corp_code")
    assert price is not None and corp is not None
    assert price.record.field("srtnCd").type is stock  # type: ignore[union-attr]
    assert corp.record.field("stock_code").type is stock  # type: ignore[union-attr]


def test_syntax_error_in_used_module_points_into_that_file() -> None:
    (d,) = diags("use broken_syntax\n")
    assert d.code == "E002" and d.span is not None
    assert d.span.file.endswith("broken_syntax.edge")


# ---------------------------------------------------------------- catalog


def test_code_types_are_qualified_by_module_and_platform() -> None:
    cat = load_catalog(["dart"], [CATALOGS])
    assert "dart.CorpCode" in cat.code_types and "codes.StockCode" in cat.code_types
    disc = cat.tool("dart.disclosures")
    assert disc is not None
    assert disc.record.name == "dart.Disclosure"
    assert disc.paging is not None and disc.paging.page == "page_no"
    assert disc.paging.size_limit == 100 and disc.paging.total == "total_count"


def test_tool_without_http_is_fine() -> None:
    tool = load_catalog(["krx"], [CATALOGS]).tool("krx.market_index")
    assert tool is not None and not tool.has_http


def test_load_catalog_raises_on_unknown_module() -> None:
    with pytest.raises(CheckError):
        load_catalog(["nope"], [CATALOGS])


def test_dotted_type_names_and_top_level_records_of_used_modules(tmp_path: Path) -> None:
    (tmp_path / "shared.edge").write_text(
        "type Code = code /^[0-9]+$/\nrecord Row {\n  code: Code\n  v: int\n}\n"
    )
    text = (
        "use shared\nplatform p {\n  type Code = code /^[A-Z]+$/\n"
        '  tool a GET "/a" (x: shared.Code, y: Code) -> [Row]\n}\n'
    )
    cat = run(text, paths=(tmp_path,)).catalog
    tool = cat.tool("p.a")
    assert tool is not None
    assert [p.type.name for p in tool.params] == ["shared.Code", "p.Code"]  # type: ignore[union-attr]
    assert tool.record.name == "shared.Row"


def test_catalog_errors() -> None:
    text = (
        'use codes\nplatform p {\n  base "a"\n  base "b"\n'
        "  record R {\n    a: StokCode\n    a: str\n  }\n"
        '  tool t GET "/t" (x: str) -> [Rs] paged(pages: n)\n}\n'
        "platform p {\n}\n"
    )
    assert sorted(codes(text)) == ["E105", "E105", "E106", "E107", "E108", "E108", "E109"]


def test_record_as_field_type_is_an_error() -> None:
    (d,) = diags("record A {\n  x: int\n}\nrecord B {\n  a: A\n}\n")
    assert d.code == "E106" and "is a record" in d.message


# ---------------------------------------------------------------- resolve


def test_unknown_names_get_suggestions() -> None:
    ds = diags(traj(FILINGS + "  latest = drv filing | max rcept_dt\n  answer latest.report_nm"))
    assert [d.code for d in ds] == ["E113"]
    assert ds[0].hints == ("did you mean `filings`?",)


def test_unknown_field_and_tool_and_param() -> None:
    text = traj(
        FILINGS
        + "  x = dart.disclosure()\n  y = dart.disclosures(corp_cod: seq corp.corp_code) pages 1\n"
        "  answer filings.rcept_date"
    )
    got = {d.code: d.hints for d in diags(text)}
    assert got["E111"][0] == "did you mean `disclosures`?"
    assert got["E112"][0] == "did you mean `corp_code`?"
    assert got["E114"][0] == "did you mean `rcept_dt`?"


def test_parallel_branches_and_shared_names() -> None:
    text = traj(
        '  school = neis.school_info(SCHUL_NM: "서울고")\n'
        "  day = parallel (office: seq school.ATPT_OFCDC_SC_CODE,\n"
        "                  code: seq school.SD_SCHUL_CODE) {\n"
        "    meals = neis.meals(ATPT_OFCDC_SC_CODE: office, SD_SCHUL_CODE: cod,\n"
        "                       MLSV_YMD: 2024-05-02)\n"
        "  }\n  answer { a: day.meals.DDISH_NM, b: day.meal.DDISH_NM, c: day.DDISH_NM }"
    )
    assert codes(text) == ["E117", "E114", "E119"]


def test_rebinding_is_an_error_but_both_if_branches_may_bind() -> None:
    ok = traj(
        FILINGS + "  if count(filings) > 1 {\n    p = drv filings | max rcept_dt\n  } else {\n"
        "    p = drv filings | min rcept_dt\n  }\n  answer p.report_nm"
    )
    assert codes(ok) == []
    assert "E115" in codes(
        traj(CORP + '  corp = dart.corp_code(corp_name: "x")\n  answer corp.corp_code')
    )


def test_functions_are_a_closed_set() -> None:
    (d,) = diags(traj(FILINGS + "  answer average(filings.rcept_dt)"))
    assert d.code == "E116" and d.hints == ("did you mean `avg`?",)


# ---------------------------------------------------------------- types


def test_stock_code_into_corp_code_is_a_type_error_before_any_call() -> None:
    text = traj(
        "  prices = krx.stock_price(basDt: 2024-12-30) pages all\n"
        "  top = drv prices | max trqu\n"
        "  filings = dart.disclosures(corp_code: seq top.srtnCd) pages all\n"
        "  answer count(filings)"
    )
    (d,) = diags(text)
    assert d.code == "E203"
    assert "`StockCode`" in d.message and "`CorpCode`" in d.message
    assert any("`dart.corp_by_stock` maps a `StockCode` to a `CorpCode`" in h for h in d.hints)


def test_code_mismatch_without_a_mapping_tool_explains_the_code_systems() -> None:
    text = (
        "platform p {\n  type A = code /^a$/\n  type B = code /^b$/\n  record R {\n    a: A\n  }\n"
        '  tool ta GET "/a" () -> [R]\n  tool tb GET "/b" (b: B) -> [R]\n}\n'
        'trajectory t "q" {\n  x = p.ta()\n  y = p.tb(b: seq x.a)\n  answer count(y)\n}\n'
    )
    (d,) = diags(text)
    assert d.code == "E203" and "different code systems" in d.hints[0]


def test_str_field_into_code_param_is_a_warning() -> None:
    text = traj(
        CORP + "  f = dart.disclosures(corp_code: seq corp.corp_name) pages all\n  answer count(f)"
    )
    assert codes(text) == ["W004"]


def test_literal_rules() -> None:
    corp = CodeType("dart.CorpCode", "^[0-9]{8}$")
    assert literal_problem(n.StringLit(value="00126380"), corp) is None
    assert literal_problem(n.StringLit(value="126380"), corp)[1] == "E202"  # type: ignore[index]
    assert literal_problem(n.DateLit(value=dt.date(2024, 1, 2)), STR) is None
    assert literal_problem(n.StringLit(value="2024-01-02"), DATE)[1] == "E201"  # type: ignore[index]
    assert literal_problem(n.NumberLit(value=1.5), INT) is not None
    assert literal_problem(n.NumberLit(value=1), FLOAT) is None
    assert literal_problem(n.NumberLit(value=2), EnumType(("1", "2"))) is None
    assert literal_problem(n.DictLit(entries=(("a", n.NumberLit(value=1)),)), JSON) is None
    assert literal_problem(n.DictLit(entries=()), STR) is not None
    lst = n.ListLit(items=(n.NumberLit(value=1), n.StringLit(value="x")))
    assert literal_problem(lst, ListType(INT)) is not None


@pytest.mark.parametrize(
    ("src", "dst", "fit"),
    [
        (INT, NUM, "ok"),
        (NUM, INT, "warn"),
        (FLOAT, INT, "error"),
        (STR, DATE, "error"),
        (DATE, STR, "ok"),
        (CodeType("a.A", "x"), STR, "ok"),
        (STR, CodeType("a.A", "x"), "warn"),
        (CodeType("a.A", "x"), CodeType("b.B", "x"), "code"),
        (EnumType(("A",)), EnumType(("A", "B")), "ok"),
        (EnumType(("C",)), EnumType(("A", "B")), "warn"),
        (JSON, INT, "warn"),
        (INT, JSON, "ok"),
        (ListType(INT), ListType(NUM), "ok"),
        (INT, STR, "warn"),
    ],
)
def test_junction_fit(src: object, dst: object, fit: str) -> None:
    assert junction_fit(src, dst) == fit  # type: ignore[arg-type]


def test_reducer_type_rule_suggests_a_date_field() -> None:
    (d,) = diags(
        traj(FILINGS + "  r = drv filings | where report_nm after 2024-12-20\n  answer r.report_nm")
    )
    assert d.code == "E204" and d.message == "reducer `after` needs a date field"
    assert d.hints == ("`after` needs a date field; did you mean `rcept_dt`?",)
    assert d.labels[0].message == "`report_nm` is a str"


def test_pivots_fanout_and_compare() -> None:
    assert codes(
        traj(
            FILINGS + '  r = drv filings | where rcept_dt after "2024-12-20"\n  answer r.report_nm'
        )
    ) == ["E205"]
    prices = "  prices = krx.stock_price(basDt: 2024-12-30) pages all\n"
    assert codes(
        traj(
            prices
            + "  x = krx.stock_price(srtnCd: fan(0) prices.srtnCd) pages 1\n  answer count(x)"
        )
    ) == ["E208"]
    four = traj(
        prices + "  x = krx.stock_price(srtnCd: fan(4) prices.srtnCd) pages 1\n  answer count(x)"
    )
    assert codes(four) == [] and codes(four, phi=3) == ["E208"]
    cmp = traj(
        "  c = compare krx.stock_price(basDt: 2024-12-30) pages 1 over srtnCd in "
        '["005930", "000660", "035420", "005380", "000270", "068270"]\n  answer count(c)'
    )
    assert codes(cmp) == ["E210"]


def test_required_parameters_are_listed() -> None:
    (d,) = diags(traj("  m = neis.meals(MLSV_YMD: 2024-05-02)\n  answer count(m)"))
    assert d.code == "E207"
    assert "`ATPT_OFCDC_SC_CODE` and `SD_SCHUL_CODE`" in d.message


def test_expression_types() -> None:
    text = traj(
        FILINGS + "  answer { a: filings.report_nm * 2, b: avg(filings.rcept_dt), "
        "c: round(count(filings), 1.5), d: count(filings) + 1 }"
    )
    assert codes(text) == ["E213", "E214", "E215"]


def test_if_branches_must_agree_on_the_record_type() -> None:
    text = traj(
        FILINGS + "  if exists(filings) {\n    p = drv filings | max rcept_dt\n  } else {\n"
        '    p = dart.corp_code(corp_name: "x")\n  }\n  answer count(p)'
    )
    (d,) = diags(text)
    assert d.code == "E218" and len(d.labels) == 3


def test_name_bound_in_one_branch_is_usable_inside_it() -> None:
    text = traj(
        FILINGS + "  if exists(filings) {\n    p = drv filings | max rcept_dt\n"
        "    q = drv p | max rcept_no\n  }\n  answer count(filings)"
    )
    assert "E217" not in codes(text)
    after = traj(
        FILINGS + "  if exists(filings) {\n    p = drv filings | max rcept_dt\n  }\n"
        "  answer count(p)"
    )
    assert codes(after) == ["E217"]


# ---------------------------------------------------------------- graph


def test_self_reference_cycle_and_use_before_definition() -> None:
    assert codes(traj("  x = drv x | max clpr\n  answer count(x)")) == ["E301"]
    text = traj(
        "  f = dart.disclosures(corp_code: seq c.corp_code) pages 1\n"
        + CORP.replace("corp =", "c =")
        + "  answer count(f)"
    )
    assert codes(text) == ["E302"]


def test_unused_and_pages_rules() -> None:
    assert codes(
        traj(
            FILINGS + "  _x = drv filings | max rcept_dt\n  y = drv filings | max rcept_dt\n"
            "  answer count(filings)"
        )
    ) == ["W001"]
    assert codes(
        traj(CORP + "  f = dart.disclosures(corp_code: seq corp.corp_code)\n  answer count(f)")
    ) == ["W002"]
    # with an error present, unused bindings are not reported (the error is usually the reason)
    assert codes(
        traj(CORP + '  x = dart.corp_code(corp_name: "a") pages 2\n  answer corp.corp_code')
    ) == ["E304"]
    assert "E303" in codes(
        traj(
            CORP + "  f = dart.disclosures(corp_code: seq corp.corp_code) pages 0\n"
            "  answer count(f)"
        )
    )


def test_answer_and_say_rules() -> None:
    assert codes(traj(CORP)) == ["W003"]
    assert codes(traj(CORP + '  say "x"')) == ["W003", "E306"]
    ok = traj(CORP + '  answer { code: corp.corp_code }\n  say "{{ code }}"')
    assert codes(ok) == []
    assert codes(traj(CORP + '  answer { code: corp.corp_code }\n  say "{{ cod }}"')) == ["W005"]


# ---------------------------------------------------------------- lower


def _program(body: str, head: str = HEAD) -> ir.TrajectoryIR:
    (t,) = run(traj(body, head)).program.trajectories
    return t


def test_lowering_of_fan_and_compare_adds_arm_typed_by_the_parameter() -> None:
    t = _program(
        "  c = compare krx.stock_price(basDt: 2024-12-30) pages all\n"
        '      over srtnCd in ["005930", "000660"]\n'
        "  w = drv c | max fltRt\n"
        "  f = krx.stock_price(srtnCd: fan w.srtnCd, basDt: 2024-12-27) pages all\n"
        "  answer { arm: w.__arm, n: count(f) }"
    )
    cmp, drv, call = t.steps
    assert isinstance(cmp, ir.CompareIR) and cmp.values == ("005930", "000660")
    assert [a.name for a in cmp.call.args] == ["basDt"]
    assert cmp.call.args[0].literal == dt.date(2024, 12, 30)
    assert isinstance(drv, ir.DrvIR) and drv.steps[0].op == "max" and drv.source == "c"
    assert isinstance(call, ir.CallIR)
    fan = call.fan_arg
    assert fan is not None and fan.junction is not None
    assert fan.junction.bound == 5 and fan.junction.source == "w" and fan.junction.field == "srtnCd"
    stock = t.relations["c"]["srtnCd"]
    assert t.relations["c"]["__arm"] == stock == t.relations["f"]["__arm"]
    assert "__arm" in t.relations["w"]


def test_lowering_of_parallel_if_and_literals() -> None:
    head = HEAD + (
        "platform tools {\n  record Out {\n    result: json\n  }\n"
        "  tool make_json (dictionary: json, day: str) -> [Out]\n}\n\n"
    )
    t = _program(
        '  school = neis.school_info(SCHUL_NM: "서울고")\n'
        "  day = parallel (office: seq school.ATPT_OFCDC_SC_CODE,\n"
        "                  code: seq school.SD_SCHUL_CODE) {\n"
        "    meals = neis.meals(ATPT_OFCDC_SC_CODE: office, SD_SCHUL_CODE: code,\n"
        "                       MLSV_YMD: 2024-05-02)\n"
        "  }\n"
        '  if count(day.meals) > 0 {\n    pick = drv day.meals | where CAL_INFO == "1.5"\n'
        "  } else {\n    pick = drv day.meals | most_frequent DDISH_NM\n  }\n"
        '  j = tools.make_json(dictionary: {"a": [1, 2], "b": true}, day: 2024-05-02)\n'
        "  answer { menu: pick.DDISH_NM, j: j.result }",
        head,
    )
    _school, par, cond, j = t.steps
    assert isinstance(par, ir.ParallelIR)
    assert [a.name for a in par.shared] == ["office", "code"]
    assert par.branches[0].id == "day.meals" and par.branches[0].args[0].shared == "office"
    assert isinstance(cond, ir.IfIR) and cond.id == "if#1" and cond.binds == ("pick",)
    assert isinstance(cond.cond, ir.CmpP) and cond.cond.left == ir.CountE(source="day.meals")
    assert isinstance(j, ir.CallIR)
    assert j.args[0].literal == {"a": [1, 2], "b": True}
    assert j.args[1].literal == "2024-05-02"  # a date literal for a str parameter: ISO text
    assert set(t.relations) == {"school", "day.meals", "pick", "j"}
