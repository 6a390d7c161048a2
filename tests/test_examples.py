"""Every example under examples/ goes through every stage, and its answers are right.

For each ``examples/*.edge`` file: it parses, checks without errors (warnings are allowed and
listed in the report), is already formatted, compiles to a plan, and every trajectory runs on the
python backend with ``examples/tools.py`` and gives the answer in ``examples/expected.json``.

The expected answers are computed here a second time, *independently of edgedsl*: plain Python
calls the same tool callables (paging by hand) and applies the reference semantics of
LANGUAGE.md (coercion of ``"1,999"`` / ``"812.5 Kcal"`` strings, ties kept, first-occurrence
order of distinct values, most-frequent ties to the smallest value, DuckDB's round half away
from zero). ``expected.json`` is the checked-in golden of those answers; run with
``--update-goldens`` to rewrite it from the reference computation (``tests/goldens.py``).
"""

from __future__ import annotations

import datetime as _dt
import decimal
import json
import math
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from edgedsl.api import check, compile, read_source, run
from edgedsl.runtime.backends import import_file, load_python_tools
from edgedsl.runtime.python_backend import PythonBackend
from edgedsl.syntax.build import parse_module
from edgedsl.syntax.nodes import TypeDecl as n_TypeDecl
from edgedsl.syntax.printer import format_module
from tests.goldens import updating

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
EXPECTED_PATH = EXAMPLES / "expected.json"

EDGE_FILES = sorted(p.name for p in EXAMPLES.glob("*.edge"))
CATALOG_FILES = {"fin.edge", "school.edge", "realty.edge", "assembly.edge"}
TRAJECTORY_FILES = [f for f in EDGE_FILES if f not in CATALOG_FILES]


T = import_file(EXAMPLES / "tools.py")  # the tool data, read directly by the reference

# ====================================================================== reference semantics

_NUM_RE = re.compile(
    r"^\s*([+-]?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?)\s*(?:[%A-Za-z가-힣]+\s*)?$"
)


def num(v: Any) -> int | float | None:
    """A number, or a numeric string with separators and a unit (``"82,500"``, ``"812.5 Kcal"``)."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int | float):
        return v
    m = _NUM_RE.match(str(v))
    if m is None:
        return None
    text = m.group(1).replace(",", "")
    return float(text) if "." in text else int(text)


def fnum(v: Any) -> float | None:
    x = num(v)
    return None if x is None else float(x)


def inum(v: Any) -> int | None:
    x = num(v)
    return None if x is None or x != int(x) else int(x)


def day(v: Any) -> _dt.date | None:
    """``YYYYMMDD`` / ``YYYY-MM-DD`` / ``YYYY.MM.DD`` → date."""
    if v is None:
        return None
    s = str(v).strip()
    for fmt in ("%Y%m%d", "%Y-%m-%d", "%Y.%m.%d"):
        try:
            return _dt.datetime.strptime(s, fmt).date()
        except ValueError:
            pass
    return None


def text(v: Any) -> str | None:
    return None if v is None else str(v)


Conv = Callable[[Any], Any]
Rows = list[dict[str, Any]]


def r_max(rows: Rows, f: str, conv: Conv) -> Rows:
    vals = [conv(r.get(f)) for r in rows]
    present = [v for v in vals if v is not None]
    if not present:
        return []
    best = max(present)
    return [r for r, v in zip(rows, vals, strict=True) if v == best]


def r_min(rows: Rows, f: str, conv: Conv) -> Rows:
    vals = [conv(r.get(f)) for r in rows]
    present = [v for v in vals if v is not None]
    if not present:
        return []
    best = min(present)
    return [r for r, v in zip(rows, vals, strict=True) if v == best]


def r_where(rows: Rows, f: str, conv: Conv, keep: Callable[[Any], bool]) -> Rows:
    out = []
    for r in rows:
        v = conv(r.get(f))
        if v is not None and keep(v):
            out.append(r)
    return out


def r_most_frequent(rows: Rows, f: str, conv: Conv) -> Rows:
    counts = Counter(v for v in (conv(r.get(f)) for r in rows) if v is not None)
    if not counts:
        return []
    top = max(counts.values())
    winner = min(v for v, c in counts.items() if c == top)
    return [r for r in rows if conv(r.get(f)) == winner]


def distinct(rows: Rows, f: str, conv: Conv) -> list[Any]:
    seen: list[Any] = []
    for r in rows:
        v = conv(r.get(f))
        if v is not None and v not in seen:
            seen.append(v)
    return seen


def one(rows: Rows, f: str, conv: Conv = text) -> Any:
    """A ``seq`` junction: exactly one distinct value."""
    vals = distinct(rows, f, conv)
    assert len(vals) == 1, f"seq over {f}: {len(vals)} distinct values"
    return vals[0]


def some(rows: Rows, f: str, bound: int, conv: Conv = text) -> list[Any]:
    """A ``fan`` junction: 1 … bound distinct values."""
    vals = distinct(rows, f, conv)
    assert 1 <= len(vals) <= bound, f"fan over {f}: {len(vals)} distinct values"
    return vals


def _json(v: Any) -> Any:
    if isinstance(v, _dt.date):
        return v.isoformat()
    return v


def field(rows: Rows, f: str, conv: Conv = text) -> Any:
    """An answer ``x.f``: null, the one value, or the distinct values in first-occurrence order."""
    vals = [_json(v) for v in distinct(rows, f, conv)]
    if not vals:
        return None
    return vals[0] if len(vals) == 1 else vals


def agg(fn: str, rows: Rows, f: str, conv: Conv) -> Any:
    vals = [v for v in (conv(r.get(f)) for r in rows) if v is not None]
    if not vals:
        return None
    if fn == "sum":
        return sum(vals)
    if fn == "avg":
        return sum(vals) / len(vals)
    return max(vals) if fn == "max" else min(vals)


def rnd(x: float | None, digits: int) -> float | None:
    """DuckDB's round: the scaled value rounded half away from zero."""
    if x is None:
        return None
    scaled = decimal.Decimal(abs(x) * 10**digits).quantize(
        decimal.Decimal(1), decimal.ROUND_HALF_UP
    )
    return math.copysign(float(scaled), x) / 10**digits


def div(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a / b


# ====================================================================== paging by hand


def _fetch(
    tool: str,
    at: str,
    page_key: str,
    size_key: str,
    size: int,
    total_key: str,
    pages: int | str,
    **kw: Any,
) -> Rows:
    rows: Rows = []
    p = 1
    while True:
        out = T.TOOLS[tool](**kw, **{page_key: p, size_key: size})
        got = out.get(at) or []
        rows.extend(got)
        total = int(out.get(total_key) or 0)
        if not got or len(rows) >= total or (pages != "all" and p >= int(pages)):
            return rows
        p += 1


def dart(tool: str, pages: int | str = "all", **kw: Any) -> Rows:
    return _fetch(tool, "list", "page_no", "page_count", 100, "total_count", pages, **kw)


def gov(tool: str, pages: int | str = "all", **kw: Any) -> Rows:  # data.go.kr family
    return _fetch(tool, "items", "pageNo", "numOfRows", 100, "totalCount", pages, **kw)


def hub(tool: str, pages: int | str = "all", **kw: Any) -> Rows:  # NEIS / 열린국회
    return _fetch(tool, "row", "pIndex", "pSize", 1000, "list_total_count", pages, **kw)


# ====================================================================== the trajectories, in Python

D = _dt.date


def samsung_latest_filing() -> Any:
    corp = T.TOOLS["dart.corp_code"](corp_name="삼성전자")
    filings = dart(
        "dart.disclosures",
        corp_code=one(corp, "corp_code"),
        bgn_de=D(2024, 12, 1),
        end_de=D(2024, 12, 31),
    )
    latest = r_max(filings, "rcept_dt", day)
    price = gov(
        "krx.stock_price", 1, likeSrtnCd=one(corp, "stock_code"), basDt=one(latest, "rcept_dt", day)
    )
    return {
        "report": field(latest, "report_nm"),
        "date": field(latest, "rcept_dt", day),
        "close": field(price, "clpr", inum),
    }


def market_movers() -> Any:
    prices = gov("krx.stock_price", basDt=D(2024, 12, 27))
    top = r_max(r_where(prices, "mrktCtg", text, lambda v: v == "KOSPI"), "fltRt", fnum)
    bottom = r_min(r_where(prices, "mrktCtg", text, lambda v: v == "KOSDAQ"), "fltRt", fnum)
    return {
        "best": field(top, "itmsNm"),
        "best_rate": field(top, "fltRt", fnum),
        "worst": field(bottom, "itmsNm"),
        "worst_rate": field(bottom, "fltRt", fnum),
        "listed": len(prices),
    }


def samsung_vs_hynix() -> Any:
    prices: Rows = []
    for code in ["005930", "000660"]:
        prices += gov("krx.stock_price", 1, basDt=D(2024, 12, 30), likeSrtnCd=code)
    winner = r_max(prices, "fltRt", fnum)
    hi, lo = agg("max", prices, "clpr", inum), agg("min", prices, "clpr", inum)
    caps = agg("max", prices, "mrktTotAmt", inum) + agg("min", prices, "mrktTotAmt", inum)
    return {
        "winner": field(winner, "itmsNm"),
        "gap": hi - lo,
        "ratio": rnd(hi / lo, 2),
        "caps_jo": rnd(caps / 1_000_000_000_000, 1),
    }


def heavy_trading_first_pages() -> Any:
    prices = gov("krx.stock_price", 2, basDt=D(2024, 12, 20))
    heavy = r_where(prices, "trPrc", inum, lambda v: v >= 100_000_000_000)
    return {
        "stocks": len(heavy),
        "avg_rate": rnd(agg("avg", heavy, "fltRt", fnum), 2),
        "value_eok": rnd(div(agg("sum", heavy, "trPrc", inum), 100_000_000), 0),
    }


def rights_offering_companies() -> Any:
    sweep = dart("dart.disclosures", bgn_de=D(2024, 12, 1), end_de=D(2024, 12, 31), pblntf_ty="B")
    hits = r_where(sweep, "report_nm", text, lambda v: v == "주요사항보고서(유상증자결정)")
    info: Rows = [T.TOOLS["dart.company"](corp_code=c) for c in some(hits, "corp_code", 5)]
    prices: Rows = []
    for code in some(info, "stock_code", 5):
        prices += gov("krx.stock_price", 1, likeSrtnCd=code, basDt=D(2024, 12, 30))
    return {
        "companies": field(info, "corp_name"),
        "ceos": field(info, "ceo_nm"),
        "avg_close": rnd(agg("avg", prices, "clpr", inum), 0),
    }


def lunch_and_schedule() -> Any:
    schools = hub("neis.schools", SCHUL_NM="한빛고등학교")
    school = r_where(schools, "ATPT_OFCDC_SC_CODE", text, lambda v: v == "B10")
    office, code = one(school, "ATPT_OFCDC_SC_CODE"), one(school, "SD_SCHUL_CODE")
    meals = hub(
        "neis.meals",
        ATPT_OFCDC_SC_CODE=office,
        SD_SCHUL_CODE=code,
        MMEAL_SC_CODE="2",
        MLSV_YMD=D(2024, 5, 2),
    )
    schedule = hub(
        "neis.schedule", ATPT_OFCDC_SC_CODE=office, SD_SCHUL_CODE=code, AA_YMD=D(2024, 5, 2)
    )
    return {
        "school": field(school, "SCHUL_NM"),
        "menu": field(meals, "DDISH_NM"),
        "kcal": field(meals, "CAL_INFO", fnum),
        "event": field(schedule, "EVENT_NM"),
    }


def late_may_richest_meal() -> Any:
    schools = hub("neis.schools", SCHUL_NM="한빛고등학교", ATPT_OFCDC_SC_CODE="J10")
    meals = hub(
        "neis.meals",
        ATPT_OFCDC_SC_CODE=one(schools, "ATPT_OFCDC_SC_CODE"),
        SD_SCHUL_CODE=one(schools, "SD_SCHUL_CODE"),
        MLSV_FROM_YMD=D(2024, 5, 1),
        MLSV_TO_YMD=D(2024, 5, 31),
    )
    late = r_where(meals, "MLSV_YMD", day, lambda v: v > D(2024, 5, 15))
    rich = r_max(late, "CAL_INFO", fnum)
    return {
        "date": field(rich, "MLSV_YMD", day),
        "meal": field(rich, "MMEAL_SC_NM"),
        "menu": field(rich, "DDISH_NM"),
        "kcal": field(rich, "CAL_INFO", fnum),
        "served": len(meals),
    }


def _may_pick(events: Rows) -> Rows:
    if len(events) > 10:
        return r_most_frequent(events, "EVENT_NM", text)
    return r_max(events, "AA_YMD", day)


def may_schedule_high() -> Any:
    schools = hub("neis.schools", SCHUL_NM="한빛고등학교", ATPT_OFCDC_SC_CODE="B10")
    events = hub(
        "neis.schedule",
        ATPT_OFCDC_SC_CODE=one(schools, "ATPT_OFCDC_SC_CODE"),
        SD_SCHUL_CODE=one(schools, "SD_SCHUL_CODE"),
        AA_FROM_YMD=D(2024, 5, 1),
        AA_TO_YMD=D(2024, 5, 31),
    )
    pick = _may_pick(events)
    return {"events": len(events), "pick": field(pick, "EVENT_NM"), "days": len(pick)}


def may_schedule_elementary() -> Any:
    schools = hub("neis.schools", ATPT_OFCDC_SC_CODE="C10", SCHUL_KND_SC_NM="초등학교")
    first = r_min(schools, "FOND_YMD", day)
    events = hub(
        "neis.schedule",
        ATPT_OFCDC_SC_CODE=one(first, "ATPT_OFCDC_SC_CODE"),
        SD_SCHUL_CODE=one(first, "SD_SCHUL_CODE"),
        AA_FROM_YMD=D(2024, 5, 1),
        AA_TO_YMD=D(2024, 5, 31),
    )
    pick = _may_pick(events)
    return {
        "school": field(first, "SCHUL_NM"),
        "events": len(events),
        "pick": field(pick, "EVENT_NM"),
        "date": field(pick, "AA_YMD", day),
    }


def gangnam_big_deals() -> Any:
    trades = gov("molit.apt_trades", LAWD_CD="11680", DEAL_YMD="202412")
    big = r_where(trades, "dealAmount", inum, lambda v: v >= 300000)
    return {
        "deals": len(big),
        "share_pct": rnd(len(big) * 100 / len(trades), 1),
        "avg_eok": rnd(div(agg("avg", big, "dealAmount", inum), 10000), 2),
        "top_eok": div(agg("max", trades, "dealAmount", inum), 10000),
    }


def bundang_affordable_dong() -> Any:
    trades = gov("molit.apt_trades", LAWD_CD="41135", DEAL_YMD="202411")
    cheap = r_where(trades, "dealAmount", inum, lambda v: v <= 100000)
    dong = r_most_frequent(cheap, "umdNm", text)
    return {
        "dong": field(dong, "umdNm"),
        "deals": len(dong),
        "total_eok": div(agg("sum", dong, "dealAmount", inum), 10000),
        "cheapest": agg("min", dong, "dealAmount", inum),
    }


def seocho_vs_songpa() -> Any:
    trades: Rows = []
    for lawd in ["11650", "11710"]:
        trades += gov("molit.apt_trades", DEAL_YMD="202410", LAWD_CD=lawd)
    top = r_max(trades, "dealAmount", inum)
    return {
        "apt": field(top, "aptNm"),
        "dong": field(top, "umdNm"),
        "price": field(top, "dealAmount", inum),
        "spread": agg("max", trades, "dealAmount", inum) - agg("min", trades, "dealAmount", inum),
        "deals": len(trades),
    }


def road_traffic_passed_proposers() -> Any:
    bills = hub("assembly.bills", AGE="22", BILL_NAME="도로교통법")
    passed = r_where(bills, "PROC_RESULT", text, lambda v: v == "원안가결")
    ppsr: Rows = []
    for bill_id in some(passed, "BILL_ID", 3):
        ppsr += hub("assembly.proposers", BILL_ID=bill_id)
    leads = r_where(ppsr, "REP_DIV", text, lambda v: v == "대표발의")
    return {
        "bills": field(passed, "BILL_NO"),
        "leads": field(leads, "PPSR_NM"),
        "parties": field(leads, "PPSR_POLY_NM"),
        "cosponsors": len(ppsr) - len(leads),
    }


def road_traffic_opposition() -> Any:
    bills = hub("assembly.bills", AGE="22", BILL_NAME="도로교통법")
    last = r_max(r_where(bills, "PROC_RESULT", text, lambda v: v == "원안가결"), "PROC_DT", day)
    votes = hub("assembly.votes", AGE="22", BILL_ID=one(last, "BILL_ID"))
    against = r_where(votes, "RESULT_VOTE_MOD", text, lambda v: v == "반대")
    party = r_most_frequent(against, "POLY_NM", text)
    return {
        "bill": field(last, "BILL_NO"),
        "date": field(last, "PROC_DT", day),
        "party": field(party, "POLY_NM"),
        "party_no": len(party),
        "all_no": len(against),
        "others": len(votes) - len(against),
    }


REFERENCE: dict[str, dict[str, Callable[[], Any]]] = {
    "samsung_filing.edge": {"samsung_latest_filing": samsung_latest_filing},
    "market_day.edge": {
        "market_movers": market_movers,
        "samsung_vs_hynix": samsung_vs_hynix,
        "heavy_trading_first_pages": heavy_trading_first_pages,
    },
    "rights_offering.edge": {"rights_offering_companies": rights_offering_companies},
    "school_day.edge": {
        "lunch_and_schedule": lunch_and_schedule,
        "late_may_richest_meal": late_may_richest_meal,
        "may_schedule_high": may_schedule_high,
        "may_schedule_elementary": may_schedule_elementary,
    },
    "apt_trades.edge": {
        "gangnam_big_deals": gangnam_big_deals,
        "bundang_affordable_dong": bundang_affordable_dong,
        "seocho_vs_songpa": seocho_vs_songpa,
    },
    "bills.edge": {
        "road_traffic_passed_proposers": road_traffic_passed_proposers,
        "road_traffic_opposition": road_traffic_opposition,
    },
}

CASES = [(f, t) for f, trajs in REFERENCE.items() for t in trajs]


def _reference_answers() -> dict[str, dict[str, Any]]:
    return {f: {t: fn() for t, fn in trajs.items()} for f, trajs in REFERENCE.items()}


if updating():
    EXPECTED_PATH.write_text(
        json.dumps(_reference_answers(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
EXPECTED: dict[str, dict[str, Any]] = json.loads(EXPECTED_PATH.read_text(encoding="utf-8"))


# ====================================================================== stage tests


@pytest.mark.parametrize("name", EDGE_FILES)
def test_example_parses_and_is_formatted(name: str) -> None:
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    module = parse_module(read_source(EXAMPLES / name))
    assert format_module(module) == text, f"{name} is not formatted: run `edgedsl fmt`"


@pytest.mark.parametrize("name", EDGE_FILES)
def test_example_checks_clean(name: str) -> None:
    result = check(read_source(EXAMPLES / name))
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert not errors
    warnings = [f"{d.code} {d.message}" for d in result.diagnostics]
    print(f"{name}: {len(warnings)} warning(s)", *warnings, sep="\n  ")


def test_every_trajectory_file_has_a_reference() -> None:
    assert set(TRAJECTORY_FILES) == set(REFERENCE)
    for name in TRAJECTORY_FILES:
        module = parse_module(read_source(EXAMPLES / name))
        assert [t.name for t in module.trajectories] == list(REFERENCE[name]), name
    for name in CATALOG_FILES:
        assert not parse_module(read_source(EXAMPLES / name)).trajectories


def test_expected_json_covers_every_trajectory() -> None:
    assert {f: sorted(ts) for f, ts in EXPECTED.items()} == {
        f: sorted(ts) for f, ts in REFERENCE.items()
    }


@pytest.mark.parametrize(("name", "trajectory"), CASES)
def test_reference_computation_matches_golden(name: str, trajectory: str) -> None:
    assert REFERENCE[name][trajectory]() == EXPECTED[name][trajectory]


_PLANS: dict[str, Any] = {}


def _plan(name: str) -> Any:
    if name not in _PLANS:
        _PLANS[name] = compile(read_source(EXAMPLES / name))
    return _PLANS[name]


@pytest.mark.parametrize("name", TRAJECTORY_FILES)
def test_example_compiles_to_a_plan(name: str) -> None:
    plan = _plan(name)
    assert [t.name for t in plan.trajectories] == list(REFERENCE[name])


@pytest.fixture(scope="module")
def backend() -> PythonBackend:
    return PythonBackend(
        load_python_tools(EXAMPLES / "tools.py"),
        secrets={
            "dart": "test-crtfc-key",
            "krx": "test-service-key",
            "molit": "test-service-key",
            "neis": "test-neis-key",
            "assembly": "test-assembly-key",
        },
    )


@pytest.mark.parametrize(("name", "trajectory"), CASES)
def test_example_runs_and_answers(name: str, trajectory: str, backend: PythonBackend) -> None:
    result = run(_plan(name), backend, trajectory=trajectory)
    assert len(result) == 1
    r = result[0]
    assert r.ok, [f"{d.code} {d.message}" for d in r.diagnostics]
    assert r.answer == EXPECTED[name][trajectory]
    if r.say is not None:
        assert "{{" not in r.say and "None" not in r.say


# ====================================================================== coverage of the language


def _all_text() -> str:
    return "\n".join((EXAMPLES / f).read_text(encoding="utf-8") for f in TRAJECTORY_FILES)


def test_examples_cover_the_language() -> None:
    from edgedsl.syntax import nodes as n

    kinds: set[str] = set()
    reducers: set[str] = set()
    junctions: set[str] = set()
    pages: set[str] = set()
    funcs: set[str] = set()
    ops: set[str] = set()
    answer_block = say = chain = False

    def expr(e: Any) -> None:
        if isinstance(e, n.BinOp):
            ops.add(e.op)
            expr(e.left)
            expr(e.right)
        elif isinstance(e, n.FuncCall):
            funcs.add(e.name)
            for a in e.args:
                expr(a)

    def call(c: n.Call) -> None:
        if c.pages is not None:
            pages.add("all" if c.pages == "all" else "N")
        for a in c.args:
            if isinstance(a.value, n.SeqArg):
                junctions.add("seq")
            elif isinstance(a.value, n.FanArg):
                junctions.add("fan" if a.value.bound is None else "fan(k)")

    def stmts(body: tuple[Any, ...]) -> None:
        nonlocal answer_block, say, chain
        for s in body:
            if isinstance(s, n.Binding):
                node = s.node
                if isinstance(node, n.Call):
                    kinds.add("call")
                    call(node)
                elif isinstance(node, n.Drv):
                    kinds.add("drv")
                    reducers.update(r.op for r in node.steps)
                    chain = chain or len(node.steps) > 1
                elif isinstance(node, n.Parallel):
                    kinds.add("parallel")
                    for a in node.shared:
                        if isinstance(a.value, n.SeqArg):
                            junctions.add("seq")
                    for b in node.branches:
                        call(b.call)
                elif isinstance(node, n.Compare):
                    kinds.add("compare")
                    call(node.call)
            elif isinstance(s, n.IfStmt):
                kinds.add("if/else" if s.orelse else "if")
                stmts(s.then)
                stmts(s.orelse or ())
            elif isinstance(s, n.AnswerStmt):
                if s.fields is not None:
                    answer_block = True
                    for fld in s.fields:
                        expr(fld.expr)
                elif s.expr is not None:
                    expr(s.expr)
            elif isinstance(s, n.SayStmt):
                say = True

    for name in TRAJECTORY_FILES:
        for t in parse_module(read_source(EXAMPLES / name)).trajectories:
            assert re.search("[가-힣]", t.query), f"{t.name}: the query should be Korean"
            stmts(t.body)

    assert kinds >= {"call", "drv", "parallel", "compare", "if/else"}
    assert reducers == {"max", "min", "most_frequent", "ge", "le", "eq", "after"}
    assert chain
    assert junctions == {"seq", "fan", "fan(k)"}
    assert pages == {"all", "N"}
    assert ops == {"+", "-", "*", "/"}
    assert funcs >= {"round", "count", "sum", "avg", "min", "max"}
    assert answer_block and say
    assert "#" in _all_text()
    assert len(CASES) >= 8
    assert any(len(ts) > 1 for ts in REFERENCE.values())


# ====================================================================== what the traces record


def _trace(name: str, trajectory: str, backend: PythonBackend) -> Any:
    [r] = run(_plan(name), backend, trajectory=trajectory)
    assert r.ok and r.trace is not None
    return r.trace


def test_traces_record_real_paging(backend: PythonBackend) -> None:
    n_trades = T.TOOLS["molit.apt_trades"](LAWD_CD="11680", DEAL_YMD="202412")["totalCount"]
    s = _trace("apt_trades.edge", "gangnam_big_deals", backend).step("trades")
    assert (s.pages_read, s.records, s.total_reported) == (
        math.ceil(n_trades / 100),
        n_trades,
        n_trades,
    )
    assert s.pages_read >= 2
    assert [c.page for c in s.calls] == list(range(1, s.pages_read + 1))
    s = _trace("market_day.edge", "market_movers", backend).step("prices")
    assert (s.pages_read, s.records, s.total_reported) == (3, 300, 300)
    s = _trace("market_day.edge", "heavy_trading_first_pages", backend).step("prices")
    assert (s.pages_read, s.records, s.total_reported) == (2, 200, 300)  # `pages 2` stops early


def test_traces_record_junctions_and_branches(backend: PythonBackend) -> None:
    t = _trace("samsung_filing.edge", "samsung_latest_filing", backend)
    [j] = t.step("filings").junctions
    assert (j.kind, j.cardinality, j.would_be) == ("seq", 1, "seq")
    t = _trace("rights_offering.edge", "rights_offering_companies", backend)
    info = t.step("info")
    [j] = info.junctions
    assert (j.kind, j.bound, j.cardinality, j.would_be) == ("fan", 5, 3, "fan")
    assert len(info.calls) == 3 and info.records == 3
    for traj, branch in [("may_schedule_high", "then"), ("may_schedule_elementary", "else")]:
        t = _trace("school_day.edge", traj, backend)
        assert [s.branch for s in t.steps if s.kind == "if"] == [branch]


def test_stdlib_codes_is_formatted_and_declares_the_shared_codes() -> None:
    path = ROOT / "stdlib" / "codes.edge"
    module = parse_module(read_source(path))
    assert format_module(module) == path.read_text(encoding="utf-8")
    check(read_source(path))
    decls = {i.name: i for i in module.items if isinstance(i, n_TypeDecl)}
    assert {
        "StockCode",
        "Isin",
        "Crno",
        "Bizno",
        "LegalDong",
        "LawdCd",
        "NeisOffice",
        "NeisSchool",
        "SgId",
        "CorpCode",  # DART corp_code = FSC fssCorpUnqNo: it links two platforms
    } <= set(decls)
    samples = {
        "CorpCode": "00126380",
        "StockCode": "005930",
        "Isin": "KR7005930003",
        "Crno": "1301110006246",
        "Bizno": "1248100998",
        "LegalDong": "1168010300",
        "LawdCd": "11680",
        "NeisOffice": "B10",
        "NeisSchool": "7010569",
        "SgId": "20240410",
    }
    for name, value in samples.items():
        assert re.search(decls[name].pattern, value), (name, value)
        assert decls[name].doc
    assert not re.search(decls["StockCode"].pattern, "A005930")
    assert not re.search(decls["NeisOffice"].pattern, "b10")
    assert not re.search(decls["SgId"].pattern, "20241310")
