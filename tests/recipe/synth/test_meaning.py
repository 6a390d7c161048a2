"""The rules of meaningful programs (issue 18 §2, edgedsl.recipe.synth.meaning): each rule
rejects its bad case and accepts a close good one, judged from the run on the world (seed 1)."""

from __future__ import annotations

import pytest

from edgedsl import api
from edgedsl.recipe.synth.junction import mf_tie
from edgedsl.recipe.synth.meaning import body_key, meaning_rejections, program_facts
from edgedsl.recipe.synth.trace_record import keep_for
from edgedsl.runtime.backends import make_backend
from edgedsl.runtime.executor import run


@pytest.fixture(scope="module")
def world():  # type: ignore[no-untyped-def]
    return make_backend("world", seed=1)


def _facts(text: str, world):  # type: ignore[no-untyped-def]
    plan = api.compile(text)
    (traj,) = api.parse(text).trajectories
    res = run(plan, traj.name, world, keep=keep_for(plan, traj.name))
    assert res.ok, res.diagnostics
    return program_facts(traj, plan, res)


def _program(body: str, use: str) -> str:
    return f'use {use}\n\ntrajectory t "q" {{\n{body}}}\n'


BILLS = """\
  bills = compare assembly.bill_info() pages 1 over BILL_NO in ["2219125", "2218873", "2218610"]
  first = drv bills | min PPSL_DT
  proposers = assembly.proposers(BILL_ID: seq first.BILL_ID) pages 1
  {pick}
  members = assembly.members(MONA_CD: seq pick.NASS_CD) pages 1
  answer {{ born: members.BTH_GBN_NM }}
"""


def test_mf_tie_tells_a_mode_from_a_tie_and_from_all_distinct() -> None:
    assert mf_tie(["a", "a", "b"]) is None
    assert mf_tie(["a", "b", "a", "b"]) == "tie"
    assert mf_tie(["a", "b", "c"]) == "distinct"
    assert mf_tie(["a", "a", None, None]) is None  # one value: nothing to choose
    assert mf_tie([]) is None


def test_most_frequent_over_all_distinct_values_is_rejected(world) -> None:  # type: ignore[no-untyped-def]
    bad = _facts(_program(BILLS.format(pick="pick = drv proposers | most_frequent PPSR_NM"),
                          "assembly"), world)
    assert bad.distinct_mf == ["pick"] and meaning_rejections(bad) == ["distinct_mf"]
    good = _facts(_program(BILLS.format(pick='pick = drv proposers | where REP_DIV == "대표발의"'),
                           "assembly"), world)
    assert meaning_rejections(good) == []


PRICES = """\
  prices = fsc.stock_prices() pages 1
  {body}
"""


def _prices(body: str) -> str:
    return _program(PRICES.format(body=body), "fsc")


def test_a_drv_that_keeps_every_row_is_a_no_op(world) -> None:  # type: ignore[no-untyped-def]
    # every price is of one day: `max basDt` keeps all 2,761 rows
    bad = _facts(_prices("pick = drv prices | max basDt\n  answer { n: count(pick) }"), world)
    assert bad.noop_drv == ["pick"] and meaning_rejections(bad) == ["noop_drv"]
    good = _facts(_prices("pick = drv prices | max vs\n  answer { n: count(pick) }"), world)
    assert meaning_rejections(good) == []


def test_a_drv_that_hands_on_the_value_it_was_given_is_a_no_op(world) -> None:  # type: ignore[no-untyped-def]
    # one day in, the same day out: the rows are fewer but what is read did not change
    bad = _facts(_prices("pick = drv prices | max trPrc\n  answer { day: pick.basDt }"), world)
    assert bad.noop_drv == ["pick"]
    good = _facts(_prices("pick = drv prices | max trPrc\n"
                          "  answer { day: pick.basDt, name: pick.itmsNm }"), world)
    assert meaning_rejections(good) == []


def test_a_most_frequent_that_picks_among_tied_values_is_rejected(world) -> None:  # type: ignore[no-untyped-def]
    # opening prices: several values appear 6 times each (a tie); closing prices: one does
    bad = _facts(_prices("pick = drv prices | most_frequent mkp\n  answer { n: count(pick) }"),
                 world)
    assert bad.tie_drv == ["pick"] and meaning_rejections(bad) == ["tie_drv"]
    good = _facts(_prices("pick = drv prices | most_frequent clpr\n  answer { n: count(pick) }"),
                  world)
    assert meaning_rejections(good) == []


def _branches(other: str) -> str:
    return _prices(f"""if count(prices) > 100 {{
    pick = drv prices | max mrktTotAmt
  }} else {{
    pick = drv prices | {other}
  }}
  answer {{ name: pick.itmsNm }}""")


def test_an_if_whose_branches_hand_on_the_same_values_is_decorative(world) -> None:  # type: ignore[no-untyped-def]
    # the largest company by market value is also the one traded most
    bad = _facts(_branches("max trPrc"), world)
    assert bad.decorative_if == ["if1"] and meaning_rejections(bad) == ["decorative_if"]
    good = _facts(_branches("min trPrc"), world)
    assert meaning_rejections(good) == []


ACADEMIES = """\
  academies = neis.academies(ATPT_OFCDC_SC_CODE: "B10") pages {pages}
  {body}
"""


def _academies(pages: str, body: str) -> str:
    return _program(ACADEMIES.format(pages=pages, body=body), "neis")


def test_an_if_decided_by_the_count_of_one_page_is_rejected(world) -> None:  # type: ignore[no-untyped-def]
    body = """if count(academies) > 999 {
    pick = drv academies | max REG_YMD
  } else {
    pick = drv academies | min REG_YMD
  }
  answer { name: pick.ACA_NM }"""
    bad = _facts(_academies("1", body), world)  # 1,000 of 6,750 records read
    assert bad.partial_reads == ["academies"]
    assert bad.page_if == ["if1"] and meaning_rejections(bad) == ["page_if"]
    good = _facts(_academies("all", body), world)
    assert good.partial_reads == [] and meaning_rejections(good) == []


def test_an_answer_that_is_a_page_size_is_rejected(world) -> None:  # type: ignore[no-untyped-def]
    bad = _facts(_academies("1", "answer { n: count(academies) }"), world)
    assert bad.page_answer == ["n"] and meaning_rejections(bad) == ["page_answer"]
    good = _facts(_academies("all", "answer { n: count(academies) }"), world)
    assert meaning_rejections(good) == []
    # a field of a partial read is no page size
    field = _facts(_academies("1", "answer { office: academies.ATPT_OFCDC_SC_NM }"), world)
    assert field.partial_reads == ["academies"] and meaning_rejections(field) == []


ROUND = """\
  issue_stat = fsc.issue_stat() pages all
  smallest = drv issue_stat | min onskTisuCnt
  corp_outline = fsc.corp_outline(crno: seq smallest.crno) pages all
  company = dart.company(corp_code: seq corp_outline.fssCorpUnqNo)
  listed_items = fsc.listed_items(crno: seq {via}) pages all
  answer {{ {answer} }}
"""


def test_a_chain_that_hands_back_the_identifier_it_carried_is_a_round_trip(world) -> None:  # type: ignore[no-untyped-def]
    # t00077 of seed 1: the 법인등록번호 goes to 기업개요, out as the 고유번호 to 기업개황, and back
    # as the same 법인등록번호 to the KRX listing: the two calls between only relay it
    answer = "name: listed_items.itmsNm, n: count(listed_items)"
    bad = _facts(_program(ROUND.format(via="company.jurir_no", answer=answer), "dart, fsc"),
                 world)
    assert bad.round_trip == ["listed_items"] and meaning_rejections(bad) == ["round_trip"]
    # the same chain whose answer reads what the relay found is a question about both
    relay_read = _facts(_program(ROUND.format(
        via="company.jurir_no", answer=answer + ", ceo: company.ceo_nm"), "dart, fsc"), world)
    assert relay_read.round_trip == []
    # fed straight from the narrowing, the listing is handed the 법인등록번호 once
    direct = _facts(_program(ROUND.format(via="smallest.crno", answer=answer
                                          + ", ceo: company.ceo_nm"), "dart, fsc"), world)
    assert direct.round_trip == []


BACK = """\
  deals = seoul.tbLnOpendataRtmsV(BLDG_USG: "오피스텔", CGG_NM: "용산구") pages all
  rents = molit.getRTMSDataSvcAptRent(LAWD_CD: seq deals.CGG_CD, DEAL_YMD: "202109") pages all
  one = drv rents | where aptNm == "신창더샵"
  titles = molit.getBrTitleInfo(sigunguCd: seq one.sggCd, bjdongCd: seq one.umdCd) pages all
  oldest = drv titles | min useAprDay
  found = juso.addrLinkApi(keyword: seq oldest.platPlc) pages all
  lawd = std.lawd_cd(admCd: seq found.admCd)
  answer {{ {answer} }}
"""


def test_an_answer_that_is_a_value_its_chain_was_handed_is_a_round_trip(world) -> None:  # type: ignore[no-untyped-def]
    # t00016 of seed 1 (session 36): 용산구's 자치구코드 goes to the rent records, and five
    # calls later the question asks for the 시군구 코드 of the building found — 용산구's again
    bad = _facts(_program(BACK.format(answer="code: lawd.LAWD_CD"), "region, seoul, std"), world)
    assert bad.round_trip == ["answer.code"] and meaning_rejections(bad) == ["round_trip"]
    good = _facts(_program(BACK.format(answer="dong: found.emdNm"), "region, seoul, std"), world)
    assert good.round_trip == [] and meaning_rejections(good) == []


def test_the_duplicate_key_ignores_names_queries_and_comments_only() -> None:
    one = api.parse(_prices("answer { n: count(prices) }")).trajectories[0]
    text = _prices("answer { n: count(prices) }").replace(
        'trajectory t "q"', '# made by hand\ntrajectory u "다른 질문"')
    two = api.parse(text).trajectories[0]
    assert one.name != two.name and body_key(one) == body_key(two)
    other = api.parse(_prices("answer { n: count(prices), m: count(prices) }")).trajectories[0]
    assert body_key(other) != body_key(one)
    # a program that states another value is another program (the widened roots of issue 18
    # §6 rely on it): the key reads the formatted body, literals included
    stated = api.parse(_prices("answer { n: count(prices) }").replace(
        "fsc.stock_prices()", 'fsc.stock_prices(itmsNm: "삼성전자")')).trajectories[0]
    other_name = api.parse(_prices("answer { n: count(prices) }").replace(
        "fsc.stock_prices()", 'fsc.stock_prices(itmsNm: "SK하이닉스")')).trajectories[0]
    assert len({body_key(one), body_key(stated), body_key(other_name)}) == 3
