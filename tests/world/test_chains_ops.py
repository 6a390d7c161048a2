"""Example 18 (the operators of issue 20 §1) on the world backend, against a computation made
here independently of edgedsl: the world's wire endpoints called by hand (``World.call``), the
JSON envelopes parsed, and the semantics of docs/language.md §7 and §11 applied in plain Python
(``top k`` keeps every row ranking at most k, ties at the boundary included; ``!=`` never keeps
a null; ``in`` is membership; ``contains`` / ``starts_with`` compare code points; a moved date is
worked out on the calendar; ``count_distinct`` counts distinct non-null values; ``round(x, 0)``
is an integer, half away from zero). A pinned literal is asserted as well, so that a change of
the world's data shows up as a deliberate edit here."""

from __future__ import annotations

import datetime as _dt
from typing import Any

import pytest

from edgedsl.runtime.http import make_world_backend
from edgedsl.world.engine import World
from tests.world import test_chains_c as c

PRICES = "/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo"
WIRE = {"serviceKey": "k", "resultType": "json", "mrktCls": "KOSPI"}


@pytest.fixture(scope="module")
def backend() -> Any:
    return make_world_backend(seed=0)


def _rank(rows: list[dict[str, Any]], key: Any, k: int, top: bool) -> list[dict[str, Any]]:
    """Rows whose rank (1 + rows strictly better) is at most k; nulls never kept."""
    vals = [key(r) for r in rows if key(r) is not None]
    return [r for r in rows if key(r) is not None
            and 1 + sum(1 for v in vals if (v > key(r) if top else v < key(r))) <= k]


def test_18_market_ranks(backend: Any) -> None:
    world: World = backend.world
    result = c.run(backend, "18_market_ranks.edge")
    got = result.answer

    day = c.gateway_all(world, PRICES, 10000, **WIRE, basDt="20241227")
    rate = lambda r: c.num(r["fltRt"])  # noqa: E731
    best = _rank(day, rate, 3, top=True)
    worst = _rank(day, rate, 2, top=False)
    electronics = [r for r in day if "전자" in r["itmsNm"] and r["itmsNm"] != "삼성전자"]
    sk = [r for r in day if r["itmsNm"].startswith("SK")]
    start = _dt.date(2024, 12, 27) - _dt.timedelta(days=6)
    week = c.gateway_all(world, PRICES, 10000, **WIRE, beginBasDt=start.strftime("%Y%m%d"),
                         endBasDt="20241227")
    early = [r for r in week if c.day(r["basDt"]) is not None
             and c.day(r["basDt"]) < _dt.date(2024, 12, 26)
             and r["itmsNm"] in ("삼성전자", "SK하이닉스")]
    closes = [c.num(r["clpr"]) for r in best]
    expected = {
        "best": c.field(best, "itmsNm"),
        "best_rates": c.field(best, "fltRt", c.num),
        "worst": c.field(worst, "itmsNm"),
        "electronics": len(electronics),
        "sk_items": len({r["itmsNm"] for r in sk}),
        "trading_days": len({c.day(r["basDt"]) for r in week} - {None}),
        "early_rows": len(early),
        "best_avg_close": int(c.rnd(sum(closes) / len(closes), 0)),
    }
    assert got == expected
    assert got == {"best": ["풍산옵틱스", "천일파워", "한일세미콘"],
                   "best_rates": [1.87, 1.88, 1.76],
                   "worst": ["한솔메디텍", "누리푸드"], "electronics": 29, "sk_items": 5,
                   "trading_days": 3, "early_rows": 4, "best_avg_close": 14380}
    assert isinstance(got["best_avg_close"], int)
    assert result.trace is not None
    ties = {s.id: [(t.op, t.tied) for t in s.ties] for s in result.trace.steps if s.ties}
    assert ties == {"best": [("top", 1)], "worst": [("bottom", 1)]}
