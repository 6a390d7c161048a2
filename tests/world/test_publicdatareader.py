"""PublicDataReader (PyPI, pinned in the ``test`` extra), a widely used client of data.go.kr and
서울 열린데이터광장, pointed at the world served on 127.0.0.1 with only its base URLs changed
(each class keeps them in a ``meta_dict``/``metaDict``; issue 21): the apartment sales it asks
for under their detailed operation name (§4) in the code in force (§5), the building register
with and without a match (§2: an empty answer must not make it divide by zero), and Seoul's
subway counts paged until the service says there is nothing more (§1: it loops on anything
else)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from edgedsl.world.app import make_app
from edgedsl.world.engine import World
from tests.loopback import serve_asgi

PublicDataReader = pytest.importorskip("PublicDataReader")
pytest.importorskip("lxml")  # its Seoul reader parses XML with BeautifulSoup's lxml-xml

KEY = "FAKE-DATA-GO-KR-KEY"


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[World, str]]:
    world = World(seed=0)
    with serve_asgi(make_app(world)) as url:
        yield world, url


def _rebase(meta: dict[str, Any], old: str, new: str) -> None:
    """Every ``url`` of a PublicDataReader meta dict on ``new`` instead of host ``old``."""
    for value in meta.values():
        if isinstance(value, dict):
            if isinstance(value.get("url"), str):
                value["url"] = value["url"].replace(old, new)
            else:
                _rebase(value, old, new)


def _world_total(world: World, path: str, **params: str) -> int:
    body = orjson.loads(world.call("GET", path, {"serviceKey": KEY, "_type": "json",
                                                 **params}).body)
    return int(body["response"]["body"]["totalCount"])


def test_apartment_sales_through_the_detailed_operation(served: tuple[World, str]) -> None:
    world, url = served
    api = PublicDataReader.TransactionPrice(KEY)
    _rebase(api.meta_dict, "http://apis.data.go.kr", url)
    assert "RTMSDataSvcAptTradeDev" in api.meta_dict["아파트"]["매매"]["url"]
    df = api.get_data(property_type="아파트", trade_type="매매", sigungu_code="11680",
                      year_month="202405")
    want = _world_total(world, "/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade",
                        LAWD_CD="11680", DEAL_YMD="202405")
    assert len(df) == want > 100  # one request of numOfRows=99999, every row read
    assert set(df["법정동시군구코드"].astype(str)) == {"11680"}
    # 춘천시 in 2024 under 강원특별자치도's code, and nothing under the retired one (§5)
    chuncheon = api.get_data(property_type="아파트", trade_type="매매", sigungu_code="51110",
                             year_month="202405")
    retired = api.get_data(property_type="아파트", trade_type="매매", sigungu_code="42110",
                           year_month="202405")
    assert len(chuncheon) > 0 and len(retired) == 0


def test_the_building_register_with_and_without_a_match(served: tuple[World, str]) -> None:
    world, url = served
    api = PublicDataReader.BuildingLedger(KEY)
    _rebase(api.meta_dict, "http://apis.data.go.kr", url)
    df = api.get_data(ledger_type="표제부", sigungu_code="11680", bdong_code="10100",
                      wait_time=0)
    want = _world_total(world, "/1613000/BldRgstHubService/getBrTitleInfo",
                        sigunguCd="11680", bjdongCd="10100")
    assert len(df) == want > 4
    # no building: an empty frame, where an answer with numOfRows 0 made it divide by zero
    empty = api.get_data(ledger_type="표제부", sigungu_code="11680", bdong_code="99999",
                         wait_time=0)
    assert len(empty) == 0


@pytest.mark.filterwarnings("ignore:Call to deprecated method findAll:DeprecationWarning")
def test_seoul_subway_counts_page_to_the_end(served: tuple[World, str]) -> None:
    """The reader pages by 1,000 while the service answers ``INFO-000`` and stops at the
    ``INFO-200`` past the last row (the world answered ``INFO-000`` with no rows there, and
    the reader looped for ever). Its column list is older than the service's current field
    names (``USE_DT``, ``LINE_NUM`` against ``USE_YMD``, ``SBWY_ROUT_LN_NM``, which the world
    and current clients read): the rows arrive, their old-named columns stay empty."""
    world, url = served
    from PublicDataReader.Seoul.transportation import Transportation

    api = Transportation(KEY)
    _rebase(api.metaDict, "http://openapi.seoul.go.kr:8088", url)
    got: list[Any] = []
    reader = threading.Thread(target=lambda: got.append(
        api.read_data("지하철승하차", USE_YMD="20240502")), daemon=True)
    reader.start()
    reader.join(timeout=60)
    assert not reader.is_alive(), "the reader still pages: the world never said INFO-200"
    (df,) = got
    assert not isinstance(df, str), df  # an error comes back as a message
    body = orjson.loads(world.call("GET", f"/{KEY}/json/CardSubwayStatsNew/1/5/20240502",
                                   {}).body)
    assert len(df) == int(body["CardSubwayStatsNew"]["list_total_count"]) > 200
    assert set(df["사용일자"]) == {""}  # its old field name: the column stays empty
