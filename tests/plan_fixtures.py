"""Hand-built IR and in-process tools shared by the plan, executor and store tests.

Platform ``demo`` (secret ``api_key``):

* ``demo.corp(corp_name)`` → ``[Corp]``: ``"solo"`` gives one company, ``"group"`` three, ``"none"``
  none.
* ``demo.filings(corp_code)`` → ``[Filing] at "list"``, paged (``page_no``, ``page_count <= 3``,
  ``total_count``): company ``C1`` has 7 filings, ``C2`` 2, ``C3`` 1.
* ``demo.price(code, day)`` → ``[Price]``: one quote; sleeps a little and logs its start/end
  (``LOG``) so that tests can check that fan branches overlapped.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from typing import Any

from edgedsl import ir
from edgedsl.catalog import Catalog, Paging, Param, Platform, Tool
from edgedsl.reduce.registry import ReduceStep
from edgedsl.source import Span
from edgedsl.types import DATE, FLOAT, INT, STR, CodeType, FieldSpec, RecordType

CORP_CODE = CodeType("demo.CorpCode", r"^C[0-9]$")
FILE = "demo.edge"


def sp(line: int, col: int = 3, width: int = 10) -> Span:
    """A span on ``line`` of demo.edge."""
    return Span(FILE, line * 100 + col, line * 100 + col + width, line, col, line, col + width)


CORP = RecordType(
    "Corp",
    (
        FieldSpec("corp_code", CORP_CODE),
        FieldSpec("corp_name", STR),
        FieldSpec("stock_code", STR, True),
    ),
)
FILING = RecordType(
    "Filing",
    (
        FieldSpec("corp_code", CORP_CODE),
        FieldSpec("report_nm", STR),
        FieldSpec("rcept_dt", DATE),
        FieldSpec("amount", INT),
    ),
)
PRICE = RecordType(
    "Price",
    (
        FieldSpec("code", STR),
        FieldSpec("day", DATE),
        FieldSpec("close", FLOAT),
        FieldSpec("volume", INT),
    ),
)

T_CORP = Tool(
    platform="demo",
    name="corp",
    method="GET",
    path="/corp.json",
    params=(Param("corp_name", STR),),
    record=CORP,
)
T_FILINGS = Tool(
    platform="demo",
    name="filings",
    method="GET",
    path="/list.json",
    params=(Param("corp_code", CORP_CODE), Param("bgn_de", DATE, True)),
    record=FILING,
    at="list",
    paging=Paging(page="page_no", size="page_count", size_limit=3, total="total_count"),
)
T_PRICE = Tool(
    platform="demo", name="price", params=(Param("code", STR), Param("day", DATE)), record=PRICE
)


def catalog() -> Catalog:
    """The demo catalog."""
    tools = {t.name: t for t in (T_CORP, T_FILINGS, T_PRICE)}
    return Catalog(
        platforms={
            "demo": Platform(
                "demo",
                base="https://demo.example/api",
                envelope="dart",
                secret="api_key",
                tools=tools,
            )
        },
        code_types={"demo.CorpCode": CORP_CODE},
    )


# ---------------------------------------------------------------- tools

CORPS = {
    "solo": [{"corp_code": "C1", "corp_name": "Solo", "stock_code": "000001"}],
    "group": [
        {"corp_code": f"C{i}", "corp_name": f"G{i}", "stock_code": f"00000{i}"} for i in (1, 2, 3)
    ],
    "none": [],
}
FILINGS = {
    "C1": [
        {"corp_code": "C1", "report_nm": r, "rcept_dt": d, "amount": a}
        for r, d, a in [
            ("분기보고서", "20241202", "1,000"),
            ("주요사항", "2024-12-05", 250),
            ("분기보고서", "2024.12.09", 300),
            ("감사보고서", "20241211", "50원"),
            ("주요사항", "20241220", 400),
            ("분기보고서", "20241223", 10),
            ("정정신고", "20241223", 5),
        ]
    ],
    "C2": [
        {"corp_code": "C2", "report_nm": "사업보고서", "rcept_dt": "20241130", "amount": 7},
        {"corp_code": "C2", "report_nm": "정정신고", "rcept_dt": "20241201", "amount": 8},
    ],
    "C3": [{"corp_code": "C3", "report_nm": "사업보고서", "rcept_dt": "20241115", "amount": 9}],
}
LOG: list[tuple[str, float, float]] = []
RENDEZVOUS = {"expect": 0, "started": 0}
"""Tests that check overlap set ``expect``: each price call then waits (up to 10 s) until that
many calls have started, so concurrent calls always overlap and serial ones never do, whatever
the machine's load."""


def _arrived() -> float:
    RENDEZVOUS["started"] += 1
    return time.monotonic() + 10.0


def _all_here(deadline: float) -> bool:
    return RENDEZVOUS["started"] >= RENDEZVOUS["expect"] or time.monotonic() > deadline


def corp(corp_name: str, api_key: str | None = None) -> list[dict[str, Any]]:
    """demo.corp."""
    if corp_name == "boom":
        raise ValueError(f"bad corp_name (key {api_key})")
    if corp_name == "down":
        raise ConnectionError("connection reset")
    return CORPS[corp_name]


def filings(
    corp_code: str,
    page_no: int = 1,
    page_count: int = 3,
    bgn_de: Any = None,
    api_key: str | None = None,
) -> dict[str, Any]:
    """demo.filings: an envelope with ``total_count`` and a page of ``list``."""
    rows = FILINGS.get(corp_code, [])
    start = (page_no - 1) * page_count
    return {
        "status": "000",
        "total_count": len(rows),
        "list": rows[start : start + page_count],
        "echo": f"key={api_key}",
    }


async def price(code: str, day: dt.date, api_key: str | None = None) -> dict[str, Any]:
    """demo.price (async): logs its own start and end times."""
    t0 = time.perf_counter()
    deadline = _arrived()
    await asyncio.sleep(0.05)
    while not _all_here(deadline):
        await asyncio.sleep(0.005)
    LOG.append((code, t0, time.perf_counter()))
    close = {"C1": "1,234.5", "C2": 99.0, "C3": "101", "A": 10.5, "B": 12.25}.get(code, 1.0)
    return {"code": code, "day": day.isoformat(), "close": close, "volume": "1,000"}


def sync_price(code: str, day: dt.date, api_key: str | None = None) -> dict[str, Any]:
    """demo.price as a sync callable (run in a worker thread)."""
    t0 = time.perf_counter()
    deadline = _arrived()
    time.sleep(0.05)
    while not _all_here(deadline):
        time.sleep(0.005)
    LOG.append((code, t0, time.perf_counter()))
    return {"code": code, "day": day.isoformat(), "close": 1.5, "volume": 3}


TOOLS = {"demo.corp": corp, "demo.filings": filings, "demo.price": price}

# ---------------------------------------------------------------- IR builders


def lit(name: str, value: object, type_: Any = STR) -> ir.ArgIR:
    """A literal argument."""
    return ir.ArgIR(name=name, type=type_, literal=value, is_literal=True)


def junc(
    name: str, kind: str, source: str, field: str, type_: Any = STR, bound: int = 1, line: int = 0
) -> ir.ArgIR:
    """A seq/fan argument whose junction sits on ``line``."""
    j = ir.Junction(
        kind=kind,
        source=source,
        field=field,
        field_type=type_,
        bound=bound,
        span=sp(line, 20, 15) if line else sp(1),
    )
    return ir.ArgIR(name=name, type=type_, junction=j)


def shared(name: str, shared_name: str, type_: Any = STR) -> ir.ArgIR:
    """An argument taking a ``parallel`` group's shared value."""
    return ir.ArgIR(name=name, type=type_, shared=shared_name)


def call(id_: str, tool: Tool, *args: ir.ArgIR, pages: Any = None, line: int = 1) -> ir.CallIR:
    """A call step."""
    return ir.CallIR(id=id_, tool=tool, args=args, pages=pages, span=sp(line))


def drv(
    id_: str, source: str, types: dict[str, Any], *steps: ReduceStep, line: int = 1
) -> ir.DrvIR:
    """A drv step."""
    return ir.DrvIR(id=id_, source=source, steps=steps, field_types=types, span=sp(line))


def traj(
    name: str, *steps: ir.StepIR, answer: ir.AnswerIR | None = None, say: str | None = None
) -> ir.TrajectoryIR:
    """A trajectory (relations filled in from the steps)."""
    rels: dict[str, dict[str, Any]] = {}

    def walk(ss: tuple[ir.StepIR, ...]) -> None:
        for s in ss:
            if isinstance(s, ir.CallIR):
                rels[s.id] = s.tool.record.field_types()
            elif isinstance(s, ir.DrvIR):
                rels[s.id] = dict(s.field_types)
            elif isinstance(s, ir.CompareIR):
                rels[s.id] = s.call.tool.record.field_types()
            elif isinstance(s, ir.ParallelIR):
                walk(s.branches)
            elif isinstance(s, ir.IfIR):
                walk(s.then)
                walk(s.orelse)

    walk(steps)
    return ir.TrajectoryIR(
        name=name,
        query=f"{name}?",
        steps=steps,
        relations=rels,
        answer=answer,
        say=say,
        source_name=FILE,
        span=sp(1, 1, 5),
    )


def program(*trajs: ir.TrajectoryIR) -> ir.ProgramIR:
    """A program over the demo catalog."""
    return ir.ProgramIR(catalog=catalog(), trajectories=trajs, source_name=FILE)


def field(source: str, name: str, type_: Any = STR) -> ir.FieldE:
    """``source.name``."""
    return ir.FieldE(source=source, field=name, type=type_)


def answer(**fields: ir.ExprIR) -> ir.AnswerIR:
    """``answer { name: e, … }``."""
    return ir.AnswerIR(fields=tuple(fields.items()))


FILING_TYPES = FILING.field_types()
PRICE_TYPES = PRICE.field_types()


def latest_filing(pages: Any = "all", name: str = "latest_filing") -> ir.TrajectoryIR:
    """corp(solo) → filings(seq corp_code) pages … → drv max rcept_dt; a rich answer."""
    return traj(
        name,
        call("corp", T_CORP, lit("corp_name", "solo"), line=3),
        call(
            "filings",
            T_FILINGS,
            junc("corp_code", "seq", "corp", "corp_code", CORP_CODE, line=4),
            pages=pages,
            line=4,
        ),
        drv("latest", "filings", FILING_TYPES, ReduceStep("max", "rcept_dt"), line=5),
        answer=answer(
            report=field("latest", "report_nm"),
            day=field("latest", "rcept_dt", DATE),
            n=ir.CountE(source="filings"),
            total=ir.AggE(fn="sum", source="filings", field="amount", type=INT),
            mean=ir.RoundE(
                operand=ir.AggE(fn="avg", source="filings", field="amount", type=INT), digits=1
            ),
            twice=ir.BinE(op="*", left=ir.CountE(source="latest"), right=ir.LitE(value=2)),
            half=ir.BinE(op="/", left=ir.CountE(source="latest"), right=ir.LitE(value=4)),
        ),
        say="{{ report | join(', ') }} on {{ day }} ({{ n }} filings)",
    )


def day_of(d: dt.date) -> ir.ArgIR:
    """``day: <date>``."""
    return lit("day", d, DATE)
