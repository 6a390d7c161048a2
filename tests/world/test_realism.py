"""Realism: a real third-party client of these APIs, unchanged, against the world on 127.0.0.1.

neispy (PyPI, an aiohttp client of the NEIS open API) is pointed at the world served by uvicorn on
a loopback port — only its host is redirected, as the issue allows — and must return the same
schools, meals and schedules the world holds, parsed by its own typed deserialisers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import orjson
import pytest

from tests.loopback import serve_asgi

neispy = pytest.importorskip("neispy")
uvicorn = pytest.importorskip("uvicorn")

from neispy.http import NeispyRequest  # noqa: E402

from edgedsl.world.app import make_app  # noqa: E402
from edgedsl.world.engine import World  # noqa: E402
from edgedsl.world.platforms import neis  # noqa: E402

KEY = "FAKE-NEIS-KEY-0000"


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[World, str]]:
    world = World(seed=0, modules=[neis])
    with serve_asgi(make_app(world)) as url:
        yield world, f"{url}/hub"


@pytest.fixture
def client_base(served: tuple[World, str], monkeypatch: pytest.MonkeyPatch) -> World:
    world, base = served
    monkeypatch.setattr(NeispyRequest, "BASE", base)  # redirect the host; the code is unchanged
    return world


def _world_rows(world: World, svc: str, **params: str) -> list[dict]:
    body = orjson.loads(world.call("GET", f"/hub/{svc}", {"KEY": KEY, "Type": "json",
                                                          "pSize": "100", **params}).body)
    return body[svc][1]["row"]


async def _with_client(fn):  # type: ignore[no-untyped-def]
    async with neispy.Neispy(KEY=KEY) as client:
        return await fn(client)


def test_school_info(client_base: World) -> None:
    got = asyncio.run(_with_client(lambda c: c.schoolInfo(SCHUL_NM="중앙고등학교")))
    head, rows = got.schoolInfo
    want = _world_rows(client_base, "schoolInfo", SCHUL_NM="중앙고등학교")
    assert head.head[1].RESULT.CODE == "INFO-000"
    assert len(rows.row) == len(want) >= 2  # a 동명 학교 in several regions
    assert [r.SD_SCHUL_CODE for r in rows.row] == [w["SD_SCHUL_CODE"] for w in want]
    assert {r.ATPT_OFCDC_SC_CODE for r in rows.row} == {w["ATPT_OFCDC_SC_CODE"] for w in want}
    assert all("중앙고등학교" in r.SCHUL_NM for r in rows.row)


def test_meals_and_schedule(client_base: World) -> None:
    school = _world_rows(client_base, "schoolInfo", SCHUL_NM="중앙고등학교")[0]
    keys = {"ATPT_OFCDC_SC_CODE": school["ATPT_OFCDC_SC_CODE"],
            "SD_SCHUL_CODE": school["SD_SCHUL_CODE"]}
    meals = asyncio.run(_with_client(lambda c: c.mealServiceDietInfo(
        **keys, MLSV_FROM_YMD="20240401", MLSV_TO_YMD="20240430")))
    want = _world_rows(client_base, "mealServiceDietInfo", **keys,
                       MLSV_FROM_YMD="20240401", MLSV_TO_YMD="20240430")
    rows = meals.mealServiceDietInfo[1].row
    assert len(rows) == len(want) >= 15
    assert [(r.MLSV_YMD, r.DDISH_NM) for r in rows] == [(w["MLSV_YMD"], w["DDISH_NM"])
                                                         for w in want]
    sched = asyncio.run(_with_client(lambda c: c.SchoolSchedule(
        **keys, AA_FROM_YMD="20240301", AA_TO_YMD="20240731")))
    want_s = _world_rows(client_base, "SchoolSchedule", **keys,
                         AA_FROM_YMD="20240301", AA_TO_YMD="20240731")
    assert [r.EVENT_NM for r in sched.SchoolSchedule[1].row] == [w["EVENT_NM"] for w in want_s]


def test_no_data_is_the_clients_own_error(client_base: World) -> None:
    from neispy.error import DataNotFound

    with pytest.raises(DataNotFound):
        asyncio.run(_with_client(lambda c: c.schoolInfo(SCHUL_NM="존재하지않는학교이름")))


def test_a_timetable_before_2023_is_read_through_its_own_service(client_base: World) -> None:
    """Issue 21 §6: neispy calls ``hisTimetablebgs`` (and the other ``…Timetablebgs``) for a year
    before 2023; the world serves them, with the rows its ``hisTimetable`` has for that year."""
    school = _world_rows(client_base, "schoolInfo", SCHUL_NM="고등학교")[0]
    keys = {"ATPT_OFCDC_SC_CODE": school["ATPT_OFCDC_SC_CODE"],
            "SD_SCHUL_CODE": school["SD_SCHUL_CODE"]}
    asked = {**keys, "AY": "2022", "SEM": "1", "GRADE": "1",
             "TI_FROM_YMD": "20220314", "TI_TO_YMD": "20220318"}
    got = asyncio.run(_with_client(lambda c: c.hisTimetable(**asked)))
    want = _world_rows(client_base, "hisTimetable", **asked)
    rows = got.hisTimetable[1].row
    assert len(rows) == len(want) > 0
    assert [(r.ALL_TI_YMD, r.CLASS_NM, r.PERIO, r.ITRT_CNTNT) for r in rows] == [
        (w["ALL_TI_YMD"], w["CLASS_NM"], w["PERIO"], w["ITRT_CNTNT"]) for w in want]
