"""Answers a person wants and chains an analyst would run (issue 18 §3):
edgedsl.recipe.synth.wanted ranks answer fields from the catalog, and
edgedsl.recipe.synth.plausible finds implausible chains from the AST and the catalog."""

from __future__ import annotations

import pytest

from edgedsl import api
from edgedsl.check import load_catalog
from edgedsl.core.source import Source
from edgedsl.core.types import CodeType, EnumType, ScalarType
from edgedsl.recipe.synth.chains import answer_name, ranked_fields, single_fields
from edgedsl.recipe.synth.filters import static_problems
from edgedsl.recipe.synth.junction import Columns
from edgedsl.recipe.synth.plausible import (
    ToolFacts,
    catalog_view,
    dead_end,
    implausible,
    judge,
    plan_view,
)
from edgedsl.recipe.synth.rejections import STAGE_OF
from edgedsl.recipe.synth.wanted import WANTED, answer_key, field_want, is_constant, secondary
from edgedsl.syntax import nodes as n
from edgedsl.syntax.build import parse_module

STR, INT, FLOAT, DATE = (ScalarType("str"), ScalarType("int"), ScalarType("float"),
                         ScalarType("date"))

# ----------------------------------------------------------------------------- wanted


@pytest.mark.parametrize(("name", "ftype", "label", "unit", "want"), [
    ("HG_NM", STR, "의원 이름", None, "name"),
    ("corp_name", STR, "회사명", None, "name"),
    ("dealAmount", INT, "거래금액", "만원", "amount"),
    ("fltRt", FLOAT, "등락률", "%", "amount"),
    ("BTH_DATE", DATE, "생년월일", None, "date"),
    ("AGE", INT, "대수", None, "number"),
    ("CMIT_NM", STR, "위원회", None, "text"),
    ("BTH_GBN_NM", EnumType(("양", "음")), "생일 구분", None, "category"),
    ("lpgYn", ScalarType("bool"), "LPG 충전소 여부", None, "category"),
    ("PPSR_KIND", STR, "제안자 구분", None, "category"),
    ("corp_code", CodeType("codes.CorpCode", "^[0-9]{8}$"), "고유번호", None, "code"),
    ("adres", CodeType("codes.Address", "^.+$"), "주소", None, "text"),  # a place, read as text
    ("lsttmAltrUser", STR, "최종 수정자", None, "constant"),        # who wrote the record
    ("lsttmAltrDttm", DATE, "최종 수정 일시", None, "constant"),    # when (spaces in the label)
    ("LOAD_DTM", DATE, "자료 수정일", None, "constant"),
    ("PUBL_MONA_CD", STR, "공동발의자 코드", None, "code"),
    ("gpsLati", FLOAT, "위도", None, "code"),
    ("조문가지번호", STR, "조문가지번호", None, "code"),
    ("roadNmBubun", STR, "도로명 건물 부번", None, "code"),
    ("buldMnnm", INT, "건물 본번", None, "code"),
    # a field named in Korean is its own label (the law service's; session 35 read "행정규칙
    # 목록의 발령일자와 생성일자를 알려 주세요")
    ("생성일자", DATE, None, None, "constant"),
    ("발령일자", DATE, None, None, "date"),
    ("조문가지번호", STR, None, None, "code"),
])
def test_a_field_is_wanted_by_its_catalog_type_label_and_unit(
        name: str, ftype: object, label: str, unit: str | None, want: str) -> None:
    assert field_want(name, ftype, label, unit) == want  # type: ignore[arg-type]


def test_a_number_every_record_holds_alike_is_a_constant_not_an_amount() -> None:
    assert field_want("basIdx", FLOAT, "기준지수", "포인트", constant=True) == "constant"
    assert field_want("basIdx", FLOAT, "기준지수", "포인트") == "amount"
    # a name every record holds alike is the entity's name: still a name
    assert field_want("corp_name", STR, "회사명", None, constant=True) == "name"
    assert is_constant([100.0, 100.0, 100.0], 3)
    assert not is_constant([100.0], 1) and not is_constant([100.0, None], 2)
    assert not is_constant([100.0, 99.5], 2)
    # equal values are one value, as junction typing counts them: "0.00" and "-0.00" of every
    # record of an insider report (session 35 answered it)
    assert is_constant([0.0, -0.0, 0.0], 3)
    assert is_constant([[1], [1]], 2) and not is_constant([[1], [2]], 2)
    # a date every record holds alike is the data's reference date (기준일자 of every item)
    assert field_want("basDt", DATE, "기준일자", None, constant=True) == "constant"
    assert {"code", "category", "constant"}.isdisjoint(WANTED)


@pytest.mark.parametrize(("label", "key"), [
    ("생일 구분", "생일_구분"), ("회사명", "회사명"), ("미세먼지(PM10)", "미세먼지_PM10"),
    ("도공·민자 구분", "도공_민자_구분"), ("1주당 액면가액", "f_1주당_액면가액"),
    ("LPG 가격", "LPG_가격"), ("  ", "value"),
])
def test_an_answer_key_is_the_catalog_label_as_an_identifier(label: str, key: str) -> None:
    assert answer_key(label) == key


def test_answer_keys_parse_as_answer_field_names_and_never_repeat() -> None:
    taken: set[str] = set()
    keys = [answer_name(x, taken) for x in ("생일 구분", "미세먼지(PM10)", "생일 구분", "건수")]
    assert keys == ["생일_구분", "미세먼지_PM10", "생일_구분_2", "건수"]
    fields = ", ".join(f"{k}: x.a" for k in keys)
    mod = parse_module(f'trajectory t "q" {{\n  x = p.t()\n  answer {{ {fields} }}\n}}\n')
    traj = next(i for i in mod.items if isinstance(i, n.Trajectory))
    ans = next(s for s in traj.body if isinstance(s, n.AnswerStmt))
    assert [f.name for f in ans.fields or ()] == keys


MEMBER = {"HG_NM": STR, "BTH_GBN_NM": EnumType(("양", "음")), "MONA_CD": STR,
          "basIdx": FLOAT, "CMIT_NM": STR}


def _specs() -> dict[str, object]:
    from edgedsl.core.types import FieldSpec

    return {"HG_NM": FieldSpec("HG_NM", STR, label="의원 이름"),
            "BTH_GBN_NM": FieldSpec("BTH_GBN_NM", MEMBER["BTH_GBN_NM"], label="생일 구분"),
            "MONA_CD": FieldSpec("MONA_CD", STR, label="국회의원 코드"),
            "basIdx": FieldSpec("basIdx", FLOAT, label="기준지수", unit="포인트"),
            "CMIT_NM": FieldSpec("CMIT_NM", STR, label="위원회")}


def test_answer_fields_rank_names_before_codes_and_categories() -> None:
    rows = [{"HG_NM": "홍길동", "BTH_GBN_NM": "양", "MONA_CD": "ABC1", "basIdx": 100.0,
             "CMIT_NM": "법제사법위원회"}]
    cols = Columns(rows, MEMBER)
    got = ranked_fields(cols, _specs())  # type: ignore[arg-type]
    assert [f for f, _ in got] == ["HG_NM", "basIdx", "CMIT_NM", "BTH_GBN_NM", "MONA_CD"]
    assert single_fields(cols, 5, specs=_specs(), wanted_only=True) == [  # type: ignore[arg-type]
        "HG_NM", "basIdx", "CMIT_NM"]
    # what the call was handed is never an answer; the upstream tool's fields go last
    assert single_fields(cols, 2, echo=frozenset({"홍길동"}), avoid=frozenset({"basIdx"}),
                         specs=_specs()) == ["CMIT_NM", "basIdx"]  # type: ignore[arg-type]


def test_a_constant_of_several_records_is_not_answered_and_a_sparse_field_is_not_single() -> None:
    rows = [{"HG_NM": "홍길동", "basIdx": 100.0, "CMIT_NM": "법제사법위원회", "MONA_CD": "A"},
            {"HG_NM": "홍길동", "basIdx": 100.0, "CMIT_NM": None, "MONA_CD": "B"}]
    cols = Columns(rows, MEMBER)
    got = dict(ranked_fields(cols, _specs()))  # type: ignore[arg-type]
    assert got == {"HG_NM": "name", "basIdx": "constant"}  # CMIT_NM is missing in one record
    assert single_fields(cols, 2, specs=_specs(), wanted_only=True) == [  # type: ignore[arg-type]
        "HG_NM"]


def test_a_primary_name_comes_before_its_english_or_hanja_form() -> None:
    from edgedsl.core.types import FieldSpec

    types = {"ENG_NM": STR, "HG_NM": STR, "HJ_NM": STR}
    specs = {"ENG_NM": FieldSpec("ENG_NM", STR, label="영문 이름"),
             "HG_NM": FieldSpec("HG_NM", STR, label="의원 이름"),
             "HJ_NM": FieldSpec("HJ_NM", STR, label="한자 이름")}
    cols = Columns([{"ENG_NM": "HONG", "HG_NM": "홍길동", "HJ_NM": "洪吉童"}], types)
    assert single_fields(cols, 3, specs=specs) == ["HG_NM", "ENG_NM", "HJ_NM"]
    assert secondary("영문 법인명") and secondary("한자 이름") and not secondary("법인명")


def test_a_group_branch_answers_a_label_no_other_branch_answers() -> None:
    """Two member services fed one member code both answered 의원 이름 (t00013 of
    `synth run -n 40 --seed 1`): the second branch takes its next wanted field."""
    from edgedsl.recipe.synth.branches import fresh_label

    specs = _specs()
    assert fresh_label(["HG_NM", "CMIT_NM"], specs, {"의원 이름"}) == ["CMIT_NM"]  # type: ignore[arg-type]
    assert fresh_label(["HG_NM"], specs, {"의원 이름"}) == ["HG_NM"]  # type: ignore[arg-type]
    assert fresh_label([], specs, set()) == []  # type: ignore[arg-type]


def test_a_blank_text_is_not_an_answer() -> None:
    """Regression: law records hold `조문이동이전` "" in every record; answered, it made the
    task ungradable (13 of 352 attempts of `synth run -n 40 --seed 1`)."""
    rows = [{"HG_NM": "홍길동", "CMIT_NM": " "}, {"HG_NM": "홍길동", "CMIT_NM": " "}]
    cols = Columns(rows, MEMBER)
    assert single_fields(cols, 2, specs=_specs()) == ["HG_NM"]  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- plausible


def _compile(body: str, use: str) -> tuple[n.Trajectory, object]:
    text = f'use {use}\n\ntrajectory t\n  "q"\n{{\n{body}\n}}\n'
    plan = api.compile(Source("<t>", text))
    traj = next(i for i in parse_module(text).items if isinstance(i, n.Trajectory))
    return traj, plan


MEMBERS_CHAIN = """  plenary_agenda = assembly.plenary_agenda() pages 1
  first = drv plenary_agenda | min LAW_SUBMIT_DT
  proposers = assembly.proposers(BILL_ID: seq first.BILL_ID) pages 1
  lead = drv proposers | where REP_DIV == "대표발의"
  members = assembly.members(MONA_CD: seq lead.NASS_CD) pages 1
"""


def test_an_answer_asking_only_for_a_category_is_implausible() -> None:
    traj, plan = _compile(MEMBERS_CHAIN + "  answer { 생일_구분: members.BTH_GBN_NM }",
                          "assembly")
    assert implausible(traj.body, plan_view(plan)) == ["unwanted_answer"]  # type: ignore[arg-type]
    problems = static_problems(traj, plan, "q")  # type: ignore[arg-type]
    assert [r for r, _ in problems if r == "implausible"] == ["implausible"]
    assert STAGE_OF["implausible"] == "static"
    traj, plan = _compile(MEMBERS_CHAIN + "  answer { 의원_이름: members.HG_NM, "
                          "생일_구분: members.BTH_GBN_NM }", "assembly")
    found, wants = judge(traj.body, plan_view(plan))  # type: ignore[arg-type]
    assert found == [] and wants == ["name", "category"]


BUS_CHAIN = """  route_stops = tago.route_stops(cityCode: "31010", routeId: "GGB008300022") pages 1
  south = drv route_stops | min gpslati
  stops_near = tago.stops_near(gpsLati: seq south.gpslati, gpsLong: seq south.gpslong) pages 1
"""


def test_a_walk_of_generic_hand_offs_is_implausible() -> None:
    """Coordinates, then the city code of the stop found there, then a route the call names
    itself: two hand-offs carrying no entity before the answered relation."""
    traj, plan = _compile(BUS_CHAIN + """  near = drv stops_near | max gpslati
  arrivals = tago.route_stops(cityCode: seq near.citycode, routeId: "GGB008300007") pages 1
  answer { 정류소명: arrivals.nodenm }""", "bus")
    # (its narrowings by latitude and its raw route ids are findings of their own)
    assert implausible(traj.body, plan_view(plan)) == [  # type: ignore[arg-type]
        "generic_chain", "odd_narrowing", "internal_input"]


def test_a_count_after_a_hand_off_carrying_no_entity_is_implausible() -> None:
    traj, plan = _compile(BUS_CHAIN + "  answer { 건수: count(stops_near) }", "bus")
    view = plan_view(plan)  # type: ignore[arg-type]
    assert implausible(traj.body, view) == ["count_after_generic", "odd_narrowing",
                                            "internal_input"]
    # the count of the root call (no hand-off) is a question
    traj, plan = _compile(BUS_CHAIN + "  answer { 건수: count(route_stops), "
                          "이름: stops_near.nodenm }", "bus")
    found, wants = judge(traj.body, plan_view(plan), {"stops_near": 3})  # type: ignore[arg-type]
    assert "count_after_generic" not in found and wants[0] == "count"


COMPANY_THEN_DATE = """  outline = fsc.corp_outline(crno: "1311110159755") pages 1
  listed = fsc.listed_items(crno: seq outline.crno) pages 1
  prices = fsc.stock_prices(isinCd: seq listed.isinCd) pages 1
  low = drv prices | min lopr
  basics = fsc.item_basics(basDt: seq low.basDt) pages 1
"""


COMPANY_DATE_COMPANY = """  outline = fsc.corp_outline(crno: "1311110159755") pages 1
  listed = fsc.listed_items(crno: seq outline.crno) pages 1
  prices = fsc.stock_prices(isinCd: seq listed.isinCd) pages 1
  low = drv prices | min lopr
  issued = fsc.issue_stat(basDt: seq low.basDt) pages 1
  most = drv issued | max pfstTisuCnt
  other = fsc.corp_outline(crno: seq most.crno) pages 1
"""


def test_a_chain_that_switches_entities_through_a_date_is_implausible() -> None:
    """A company chain that hands on a date, then a company picked on that date, answers about
    another company than the one it carried."""
    traj, plan = _compile(COMPANY_DATE_COMPANY + "  answer { 법인명: other.corpNm }", "fsc")
    assert implausible(traj.body, plan_view(plan)) == ["entity_dropped"]  # type: ignore[arg-type]


def test_a_chain_that_drops_its_entity_before_the_answer_is_implausible() -> None:
    traj, plan = _compile(COMPANY_THEN_DATE + "  answer { 종목명: basics.isinCdNm }", "fsc")
    assert implausible(traj.body, plan_view(plan)) == ["entity_dropped"]  # type: ignore[arg-type]
    traj, plan = _compile(COMPANY_THEN_DATE.rsplit("\n  basics", 1)[0]
                          + "\n  answer { 종목명: low.itmsNm }", "fsc")
    assert implausible(traj.body, plan_view(plan)) == []  # type: ignore[arg-type]


def test_a_number_answered_from_several_records_is_a_constant() -> None:
    traj, plan = _compile(COMPANY_THEN_DATE + "  answer { 종목명: basics.isinCdNm }", "fsc")
    body = (*traj.body[:-1], n.AnswerStmt(fields=(n.AnswerField(
        name="기준지수", expr=n.Ref(parts=("prices", "clpr"))),)))
    assert judge(body, plan_view(plan), {"prices": 4})[1] == ["constant"]  # type: ignore[arg-type]
    assert judge(body, plan_view(plan), {"prices": 1})[1] == ["amount"]  # type: ignore[arg-type]
    body = (*traj.body[:-1], n.AnswerStmt(fields=(n.AnswerField(
        name="기준일자", expr=n.Ref(parts=("prices", "basDt"))),)))
    assert judge(body, plan_view(plan), {"prices": 4})[1] == ["constant"]  # type: ignore[arg-type]


GROUP = """trajectory t "q" {
  x = a.root() pages 1
  both = parallel(v: seq x.v) {
    one = a.one(p: v)
    two = b.two(q: v)
  }
  answer { 이름: both.one.name, 금액: both.two.amount }
}
"""


def _view(code: str | None, platform_b: str) -> object:
    facts = {
        "a.root": ToolFacts("a", {"v": (STR, "값", None)}),
        "a.one": ToolFacts("a", {"name": (STR, "이름", None)}, {"p": code}),
        "b.two": ToolFacts(platform_b, {"amount": (INT, "금액", "원")}, {"q": code}),
    }
    return facts.get


@pytest.mark.parametrize(("code", "platform_b", "related"), [
    (None, "b", False),                    # a generic value fed to two services
    ("tago.CityCode", "b", False),         # a generic code: still unrelated
    ("codes.CorpCode", "b", True),         # one company looked up in two services
    (None, "a", True),                     # one service's two tools
])
def test_a_group_of_unrelated_services_is_implausible(code: str | None, platform_b: str,
                                                      related: bool) -> None:
    traj = next(i for i in parse_module(GROUP).items if isinstance(i, n.Trajectory))
    found = implausible(traj.body, _view(code, platform_b))  # type: ignore[arg-type]
    assert (found == []) is related
    assert found in ([], ["unrelated_branches"])


def test_an_edge_that_would_doom_every_answer_downstream_is_a_dead_end() -> None:
    """Generation passes over an edge whose hand-off drops the entity the chain carried, or is
    the second hand-off carrying none (`dead_end`): every relation after it inherits the
    finding, so the chain grown along it could only be thrown away."""
    view = catalog_view(load_catalog(["fsc", "bus"]))
    traj, _ = _compile(COMPANY_THEN_DATE + "  answer { 종목명: basics.isinCdNm }", "fsc")
    body = traj.body[:-2]  # up to `low`
    date_code = view("fsc.item_basics").codes.get("basDt")  # type: ignore[union-attr]
    isin_code = view("fsc.listed_items").codes.get("crno")  # type: ignore[union-attr]
    assert dead_end(body, "low", [date_code], view) == "entity_dropped"
    assert dead_end(body, "low", [isin_code], view) is None
    # the root carried nothing yet: one generic hand-off is a way on, a second is not
    bus, _ = _compile(BUS_CHAIN + "  answer { 건수: count(stops_near) }", "bus")
    city = view("tago.route_stops").codes.get("cityCode")  # type: ignore[union-attr]
    assert dead_end(bus.body[:1], "route_stops", [city], view) is None
    assert dead_end(bus.body[:-1], "stops_near", [city], view) == "generic_chain"
    # and the judgement agrees with the finding of the finished chain
    assert implausible(traj.body, view) == ["entity_dropped"]
