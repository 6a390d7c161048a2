"""MemoBackend: one inner call per distinct call, concurrent askers share it, structural
failures are remembered and environmental ones retried."""

from __future__ import annotations

import asyncio
import datetime as dt
from types import SimpleNamespace

import pytest

from edgedsl.recipe.synth.memo import MemoBackend, call_key
from edgedsl.runtime.backends import Response, ToolFailure


class Inner:
    name = "fake"

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict, int | None]] = []
        self.fail: dict[str, str] = {}

    async def call(self, tool, args, *, page):
        self.calls.append((tool.qualname, dict(args), page))
        await asyncio.sleep(0.01)
        kind = self.fail.get(str(args.get("x")))
        if kind:
            raise ToolFailure(kind, "R503", f"{kind} failure")  # type: ignore[arg-type]
        return Response([{"x": args.get("x"), "i": i} for i in range(3)], total=3)


T = SimpleNamespace(qualname="p.t")


def test_repeated_and_concurrent_calls_reach_the_inner_backend_once() -> None:
    inner = Inner()
    memo = MemoBackend(inner)

    async def main() -> list[Response]:
        return list(await asyncio.gather(*(memo.call(T, {"x": 1}, page=None)  # type: ignore[arg-type]
                                           for _ in range(5))))

    got = asyncio.run(main())
    assert len(inner.calls) == 1 and memo.calls == 1 and memo.hits == 4
    assert all(r.records == got[0].records and r.total == 3 for r in got)
    assert memo.records("p.t", {"x": 1}, None) == got[0].records
    assert memo.head("p.t", {"x": 1}, None, 2) == got[0].records[:2]
    assert memo.records("p.t", {"x": 2}, None) is None


def test_keys_are_canonical() -> None:
    a = call_key("p.t", {"b": 1, "a": dt.date(2024, 1, 2)}, 1)
    assert a == call_key("p.t", {"a": "2024-01-02", "b": 1}, 1)
    assert a != call_key("p.t", {"a": "2024-01-02", "b": 1}, 2)


def test_structural_failures_are_remembered_environmental_ones_retried() -> None:
    inner = Inner()
    inner.fail = {"s": "structural", "e": "environmental"}
    memo = MemoBackend(inner)

    async def ask(x: str) -> None:
        await memo.call(T, {"x": x}, page=None)  # type: ignore[arg-type]

    for _ in range(2):
        with pytest.raises(ToolFailure) as err:
            asyncio.run(ask("s"))
        assert err.value.kind == "structural"
        with pytest.raises(ToolFailure):
            asyncio.run(ask("e"))
    assert [c[1]["x"] for c in inner.calls] == ["s", "e", "e"]


class Paged:
    """A paged service: ``total`` records, three a page."""

    name = "paged"

    def __init__(self, total: int, told: bool = True) -> None:
        self.total, self.told, self.pages = total, told, []

    async def call(self, tool, args, *, page):
        self.pages.append(page)
        start = (page - 1) * 3
        return Response([{"i": i} for i in range(start, min(start + 3, self.total))],
                        total=self.total if self.told else None)


def test_the_read_budget_refuses_pages_of_a_call_that_cannot_fit() -> None:
    async def read(memo: MemoBackend, pages: int) -> list[int]:
        got = []
        for p in range(1, pages + 1):
            got += [r["i"] for r in (await memo.call(T, {}, page=p)).records]  # type: ignore[arg-type]
        return got

    # 7 records need 3 pages: within a budget of 3, every page is read
    inner = Paged(7)
    assert asyncio.run(read(MemoBackend(inner, budget=3), 3)) == list(range(7))
    # 10 records need 4 pages: the second page is refused, only the first was asked for
    inner = Paged(10)
    memo = MemoBackend(inner, budget=3)
    with pytest.raises(ToolFailure) as err:
        asyncio.run(read(memo, 4))
    assert (err.value.kind, err.value.code) == ("structural", "R506")
    assert "10 records need 4 pages" in err.value.message
    assert inner.pages == [1] and memo.calls == 1
    # a page past the budget is refused even without a total; no budget: no limit
    inner = Paged(10, told=False)
    with pytest.raises(ToolFailure):
        asyncio.run(read(MemoBackend(inner, budget=3), 4))
    assert inner.pages == [1, 2, 3]
    assert asyncio.run(read(MemoBackend(Paged(10)), 4)) == list(range(10))


def test_trim_forgets_the_least_recently_used_calls_and_a_forgotten_call_is_made_again() -> None:
    inner = Inner()
    memo = MemoBackend(inner, max_records=6)  # two calls of 3 records fit

    async def ask(x: int) -> list[dict]:
        return (await memo.call(T, {"x": x}, page=None)).records  # type: ignore[arg-type]

    async def main() -> None:
        first = await ask(1)
        await ask(2)
        await ask(3)
        memo.trim()  # never during a batch: three calls are held until now
        assert memo.records("p.t", {"x": 3}, None) is not None
        await ask(2)  # 2 is now the most recently used
        await ask(4)
        memo.trim()
        assert memo.records("p.t", {"x": 1}, None) is None  # forgotten first
        assert memo.records("p.t", {"x": 3}, None) is None
        assert memo.records("p.t", {"x": 2}, None) is not None
        assert memo.forgotten == 2
        again = await ask(1)
        assert again == first  # asked again: made again, the same answer

    asyncio.run(main())
    assert [c[1]["x"] for c in inner.calls] == [1, 2, 3, 4, 1]


def test_an_unbounded_memo_never_forgets() -> None:
    memo = MemoBackend(Inner(), max_records=None)

    async def main() -> None:
        for x in range(5):
            await memo.call(T, {"x": x}, page=None)  # type: ignore[arg-type]
        memo.trim()

    asyncio.run(main())
    assert memo.forgotten == 0 and all(
        memo.records("p.t", {"x": x}, None) is not None for x in range(5))
