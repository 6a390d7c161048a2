"""The exports of a synthesis directory (``edgedsl.recipe.synth.export``): each format written, read
back and checked against the task records it came from."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest

from edgedsl import api
from edgedsl.core.types import CodeType, EnumType, ListType, ScalarType
from edgedsl.plan.model import ParamSpec
from edgedsl.recipe.synth.export import (
    DEFAULT_SYSTEM,
    ExportError,
    call_id,
    chat,
    export,
    export_rl,
    export_sft,
)
from edgedsl.recipe.synth.record import CallRecord, TaskRecord, write_records
from edgedsl.recipe.synth.tools_schema import (
    OPENAI_NAME,
    TaskTools,
    labelled_schema,
    param_schema,
    tool_name,
    tool_qualname,
    tool_schema,
)

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "world"
NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _call(step: str, tool: str, args: dict[str, Any], turn: int, rows: list[dict[str, Any]],
          records: int | None = None, total: int | None = None) -> CallRecord:
    return CallRecord(step=step, tool=tool, args=args, turn=turn,
                      records=len(rows) if records is None else records, total=total,
                      result=rows[:5])


def _records() -> list[TaskRecord]:
    hynix = {"corp_code": "00164779", "corp_name": "SK하이닉스", "jurir_no": "1101110043870"}
    two_bridges = TaskRecord(
        name="two_bridges", file="two_bridges.edge", structure="Sem",
        query="SK하이닉스의 2023년 연결 매출액과 영업이익을 비교해줘.",
        answer={"company": "SK하이닉스", "fsc_sales": 66192960000000, "dart_rows": 26},
        tools=["dart.company", "fsc.corp_outline", "fsc.fs_summary", "dart.single_accounts"],
        calls=[
            _call("company", "dart.company", {"corp_code": "00164779"}, 0, [hynix]),
            _call("outline", "fsc.corp_outline", {"crno": "1101110043870"}, 1,
                  [{"crno": "1101110043870", "fssCorpUnqNo": "00164779"}]),
            _call("fin.fsc_summary", "fsc.fs_summary", {"crno": "1101110043870", "bizYear": 2023},
                  2, [{"fnclDcd": str(110 + i), "enpSaleAmt": i} for i in range(5)], records=8,
                  total=8),
            _call("fin.dart_accounts", "dart.single_accounts",
                  {"corp_code": "00164779", "bsns_year": 2023, "reprt_code": "11011"}, 2,
                  [{"account_nm": "매출액", "fs_div": "CFS"}], records=26),
        ])
    lunch = TaskRecord(
        name="school_lunch", file="school_lunch.edge", structure="Drv",
        query="서울에 있는 중앙고등학교의 2024년 5월 중식 중 열량이 가장 높았던 날은?",
        answer={"day": "2024-05-14", "menu": "제육볶음", "kcal": 951.2},
        tools=["neis.schools", "neis.meals"],
        calls=[
            _call("candidates", "neis.schools", {"SCHUL_NM": "중앙고등학교"}, 0,
                  [{"SD_SCHUL_CODE": "7010084", "LCTN_SC_NM": "서울특별시"}], records=12, total=12),
            _call("meals", "neis.meals",
                  {"ATPT_OFCDC_SC_CODE": "B10", "SD_SCHUL_CODE": "7010084",
                   "MLSV_FROM_YMD": "2024-05-01", "MLSV_TO_YMD": "2024-05-31"}, 1,
                  [{"MLSV_YMD": "2024-05-14", "CAL_INFO": "951.2 Kcal"}], records=60),
        ])
    codes, crnos = ["A196170", "A028300"], ["1101113893820", "1101111594563"]
    peers = TaskRecord(
        name="kosdaq_peer_ranking", file="peers.edge", structure="Mixed",
        query="2024년 12월 27일 코스닥 시가총액 12조 원 이상 종목 가운데 매출액 1위는?",
        answer={"top_company": "에이치엘비", "peers": ["알테오젠", "에이치엘비"]},
        tools=["fsc.stock_prices", "fsc.listed_items", "fsc.corp_outline", "dart.multi_accounts",
               "dart.company"],
        calls=[
            _call("market", "fsc.stock_prices", {"basDt": "2024-12-27", "mrktCls": "KOSDAQ"}, 0,
                  [{"srtnCd": c[1:]} for c in codes], records=1500, total=1500),
            *[_call("listed", "fsc.listed_items", {"likeSrtnCd": c[1:], "basDt": "2024-12-27"}, 1,
                    [{"crno": n}]) for c, n in zip(codes, crnos, strict=True)],
            *[_call("outlines", "fsc.corp_outline", {"crno": n}, 2, [{"fssCorpUnqNo": str(i)}])
              for i, n in enumerate(crnos)],
            *[_call("accounts", "dart.multi_accounts",
                    {"corp_code": str(i), "bsns_year": 2023, "reprt_code": "11011"}, 3, [])
              for i in range(2)],
            _call("winner", "dart.company", {"corp_code": "00000001"}, 4,
                  [{"corp_name": "에이치엘비"}]),
        ])
    return [two_bridges, lunch, peers]


@pytest.fixture(scope="module")
def synth_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("synth")
    shutil.copy(EXAMPLES / "02_two_bridges.edge", d / "two_bridges.edge")
    shutil.copy(EXAMPLES / "06_school_lunch.edge", d / "school_lunch.edge")
    shutil.copy(EXAMPLES / "04_peer_ranking.edge", d / "peers.edge")
    write_records(d / "tasks.jsonl", _records())
    return d


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def _turns(r: TaskRecord) -> list[list[CallRecord]]:
    return [[c for c in r.calls if c.turn == t] for t in sorted({c.turn for c in r.calls})]


# ---------------------------------------------------------------- names and schemas


@pytest.mark.parametrize("qualname", ["dart.company", "fsc.fs_summary", "neis.급식", "법제처.법령",
                                      "a__b.c", "ab_.c", "a_b.__c", "x.y__z"])
def test_tool_name_matches_openai_pattern_and_maps_back(qualname: str) -> None:
    name = tool_name(qualname)
    assert OPENAI_NAME.pattern == NAME_RE.pattern
    assert NAME_RE.fullmatch(name)
    assert tool_qualname(name) == qualname


def test_tool_name_plain_and_errors() -> None:
    assert tool_name("dart.company") == "dart__company"
    assert tool_qualname("dart__single_accounts") == "dart.single_accounts"
    with pytest.raises(ExportError, match="64"):
        tool_name("p." + "가" * 20)
    with pytest.raises(ExportError, match="qualified"):
        tool_name("company")
    with pytest.raises(ValueError):
        tool_qualname("company")


def test_param_schema_types() -> None:
    assert param_schema(ScalarType("int")) == {"type": "integer"}
    assert param_schema("num") == {"type": "number"}
    assert param_schema("bool") == {"type": "boolean"}
    date = param_schema("date")
    assert date["type"] == "string" and date["format"] == "date"
    assert re.fullmatch(date["pattern"], "2024-05-01")
    assert param_schema(EnumType(("1", "2"))) == {"type": "string", "enum": ["1", "2"]}
    code = param_schema(CodeType("codes.CorpCode", "^[0-9]{8}$", "DART 고유번호"))
    assert code == {"type": "string", "pattern": "^[0-9]{8}$", "description": "DART 고유번호"}
    assert param_schema(ListType(ScalarType("str"))) == {"type": "array",
                                                         "items": {"type": "string"}}


def test_tool_schemas_describe_parameters_by_their_catalog_labels() -> None:
    plan = api.compile('use dart, region\ntrajectory t "q" {\n'
                       '  a = dart.single_accounts(corp_code: "00126380", bsns_year: 2023,'
                       ' reprt_code: "11011")\n'
                       '  b = molit.getRTMSDataSvcAptTrade(LAWD_CD: "11680", DEAL_YMD: "202412")\n'
                       '  answer count(a)\n}\n', "t.edge")
    props = tool_schema(plan.tools["dart.single_accounts"])["function"]["parameters"][
        "properties"]
    assert props["bsns_year"] == {"type": "integer", "description": "사업연도"}
    assert props["corp_code"]["description"].startswith("고유번호 — DART 고유번호")
    spec = plan.tools["molit.getRTMSDataSvcAptTrade"]
    assert spec.labels["dealAmount"] == "거래금액" and spec.units["dealAmount"] == "만원"
    unit = ParamSpec(name="amount", type="int", label="거래금액", unit="만원")
    assert labelled_schema(unit) == {"type": "integer", "description": "거래금액 (단위: 만원)"}
    assert labelled_schema(ParamSpec(name="x", type="int")) == {"type": "integer"}


# ---------------------------------------------------------------- sft


def test_sft_round_trip(synth_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "sft.jsonl"
    summary = export(synth_dir, "sft", out)
    assert summary.count == 3 and summary.format == "sft"
    assert summary.bytes == out.stat().st_size and summary.path == str(out)
    lines = _jsonl(out)
    assert len(lines) == 3
    for r, line in zip(_records(), lines, strict=True):
        assert set(line) == {"messages", "tools"}
        msgs, tools = line["messages"], line["tools"]
        assert msgs[0] == {"role": "system", "content": DEFAULT_SYSTEM}
        assert msgs[1] == {"role": "user", "content": r.query}
        names = [t["function"]["name"] for t in tools]
        assert len(names) == len(set(names)) == 8
        assert all(NAME_RE.fullmatch(n) for n in names)
        by_name = {t["function"]["name"]: t["function"] for t in tools}
        assert {tool_qualname(n) for n in names} >= {c.tool for c in r.calls}
        # one assistant message per turn, its tool messages right after it
        assistants = [m for m in msgs[2:-1] if m["role"] == "assistant"]
        assert len(assistants) == r.turns
        answered = [m["tool_call_id"] for m in msgs if m["role"] == "tool"]
        ids = [tc["id"] for m in assistants for tc in m["tool_calls"]]
        assert sorted(answered) == sorted(ids) and len(set(ids)) == len(ids) == len(r.calls)
        assert ids == [call_id(r.name, i) for i in range(len(r.calls))]
        i = 2
        for calls, m in zip(_turns(r), assistants, strict=True):
            assert msgs[i] is not None and msgs[i] == m
            assert [tc["function"]["name"] for tc in m["tool_calls"]] == \
                [tool_name(c.tool) for c in calls]
            for tc, c, reply in zip(m["tool_calls"], calls, msgs[i + 1:], strict=False):
                fn = tc["function"]
                assert tool_qualname(fn["name"]) == c.tool
                assert isinstance(fn["arguments"], str)
                args = orjson.loads(fn["arguments"])
                assert args == c.args
                params = by_name[fn["name"]]["parameters"]
                assert set(args) <= set(params["properties"])
                assert set(params["required"]) <= set(args)
                assert reply == {"role": "tool", "tool_call_id": tc["id"],
                                 "content": reply["content"]}
                content = orjson.loads(reply["content"])
                assert content["records"] == c.result and content["count"] == c.records
                assert content["truncated"] == (len(c.result) < c.records)
            i += 1 + len(calls)
        assert msgs[-1] == {"role": "assistant", "content": orjson.dumps(r.answer).decode()}
        assert orjson.loads(msgs[-1]["content"]) == r.answer
    # parallel calls share one assistant message; non-ASCII stays as is
    bridges = lines[0]["messages"]
    assert [len(m.get("tool_calls", [])) for m in bridges if m["role"] == "assistant"] == \
        [1, 1, 2, 0]
    assert "SK하이닉스" in out.read_text(encoding="utf-8")
    peers = lines[2]["messages"]
    assert [len(m["tool_calls"]) for m in peers if m.get("tool_calls")] == [1, 2, 2, 2, 1]


def test_sft_options(synth_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "sft.jsonl"
    export(synth_dir, "sft", out, system=None, max_result_records=1, tools_per_task=2)
    first = _jsonl(out)[0]
    assert first["messages"][0]["role"] == "user"
    contents = [orjson.loads(m["content"]) for m in first["messages"] if m["role"] == "tool"]
    assert [len(c["records"]) for c in contents] == [1, 1, 1, 1]
    assert contents[2] == {"records": [{"fnclDcd": "110", "enpSaleAmt": 0}], "count": 8,
                           "truncated": True, "total": 8}
    # more called tools than K: all of them, no distractor
    assert len(first["tools"]) == 4


def test_exposed_tools_deterministic(synth_dir: Path) -> None:
    r = _records()
    a = TaskTools(synth_dir, seed=1)
    b = TaskTools(synth_dir, seed=1)
    assert [a.qualnames(x) for x in r] == [b.qualnames(x) for x in r]
    assert a.schemas(r[0]) == b.schemas(r[0])
    other = [TaskTools(synth_dir, seed=s).qualnames(r[0]) for s in range(2, 8)]
    assert any(set(o) != set(a.qualnames(r[0])) for o in other)
    for x in r:
        qs = a.qualnames(x)
        assert set(x.tools) <= set(qs)
        assert {q.partition(".")[0] for q in qs} == {q.partition(".")[0] for q in x.tools}
    # a platform with fewer tools than K: every one of them
    lunch = TaskTools(synth_dir, tools_per_task=100).qualnames(r[1])
    assert len(lunch) == 12 and all(q.startswith("neis.") for q in lunch)


# ---------------------------------------------------------------- rl


def _read_parquet(path: Path) -> list[tuple[Any, ...]]:
    with duckdb.connect() as con:
        return con.execute("SELECT data_source, prompt, ability, reward_model, extra_info "
                           "FROM read_parquet(?) ORDER BY extra_info.index", [str(path)]).fetchall()


def test_rl_parquet_round_trip(synth_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "rl.parquet"
    summary = export(synth_dir, "rl", out, split="train")
    assert summary.count == 3 and summary.bytes == out.stat().st_size > 0
    assert not list(tmp_path.glob(".*tmp"))
    rows = _read_parquet(out)
    assert len(rows) == 3
    for i, (r, (source, prompt, ability, reward, extra)) in enumerate(
            zip(_records(), rows, strict=True)):
        assert source == "edgedsl" and ability == "tool-calling"
        assert prompt == [{"role": "system", "content": DEFAULT_SYSTEM},
                          {"role": "user", "content": r.query}]
        assert reward["style"] == "rule"
        assert orjson.loads(reward["ground_truth"]) == r.answer
        assert extra["index"] == i and extra["name"] == r.name and extra["split"] == "train"
        assert extra["structure"] == r.structure and extra["calls"] == len(r.calls)
        assert extra["turns"] == r.turns and extra["file"] == r.file
        tools = orjson.loads(extra["tools"])
        assert len(tools) == 8
        expected = orjson.loads(extra["expected_calls"])
        assert [(e["name"], e["arguments"]) for e in expected] == \
            [(tool_name(c.tool), c.args) for t in _turns(r) for c in t]
        assert [e["turn"] for e in expected] == \
            [n for n, t in enumerate(_turns(r)) for _ in t]
    with duckdb.connect() as con:
        types = dict(con.execute("SELECT column_name, column_type FROM "
                                 "(DESCRIBE SELECT * FROM read_parquet(?))",
                                 [str(out)]).fetchall())
    assert types["prompt"].endswith("[]") and types["reward_model"].startswith("STRUCT")


def test_rl_path_with_quotes(synth_dir: Path, tmp_path: Path) -> None:
    odd = tmp_path / "it's a \"dir\"; drop table rl; --"
    out = odd / "o'k.parquet"
    records = _records()[:1]
    summary = export_rl(records, synth_dir, out, system=None, data_source="x'y")
    assert summary.count == 1 and out.is_file()
    (source, prompt, *_), = _read_parquet(out)
    assert source == "x'y" and prompt == [{"role": "user", "content": records[0].query}]


def test_rl_empty(synth_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "empty.parquet"
    assert export_rl([], synth_dir, out).count == 0
    assert _read_parquet(out) == []


# ---------------------------------------------------------------- steps


def test_steps(synth_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "steps.jsonl"
    summary = export(synth_dir, "steps", out)
    records = _records()
    items = _jsonl(out)
    assert summary.count == 3
    assert len(items) == sum(r.turns + 1 for r in records)
    sft = {r.name: chat(r).messages for r in records}
    tools = TaskTools(synth_dir)
    for r in records:
        mine = [it for it in items if it["task"] == r.name]
        assert [it["step"] for it in mine] == list(range(r.turns + 1))
        full = sft[r.name]
        for it in mine:
            ctx = it["messages"]
            assert ctx == full[:len(ctx)]
            assert it["target"] == full[len(ctx)]
            assert it["tools"] == tools.schemas(r)
        assert [len(it["target"]["tool_calls"]) for it in mine[:-1]] == \
            [len(t) for t in _turns(r)]
        assert "tool_calls" not in mine[-1]["target"]
        assert orjson.loads(mine[-1]["target"]["content"]) == r.answer
        assert mine[-1]["messages"] + [mine[-1]["target"]] == full


# ---------------------------------------------------------------- errors


def test_missing_tasks_jsonl(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match=r"has no tasks\.jsonl"):
        export(tmp_path, "sft", tmp_path / "out.jsonl")
    with pytest.raises(ExportError, match="no such synthesis directory"):
        export(tmp_path / "nope", "rl", tmp_path / "out.parquet")
    assert not (tmp_path / "out.jsonl").exists()


def test_missing_edge_file_and_bad_input(synth_dir: Path, tmp_path: Path) -> None:
    d = tmp_path / "d"
    d.mkdir()
    shutil.copy(synth_dir / "tasks.jsonl", d / "tasks.jsonl")
    with pytest.raises(ExportError, match=r"task `two_bridges`: its file .* is missing"):
        export(d, "sft", tmp_path / "out.jsonl")
    with pytest.raises(ExportError, match="unknown export format"):
        export(synth_dir, "csv", tmp_path / "out.csv")  # type: ignore[arg-type]
    with pytest.raises(ExportError, match="unknown option"):
        export(synth_dir, "rl", tmp_path / "o.parquet", max_result_records=3)
    with pytest.raises(ExportError, match="overwrite the task records"):
        export(synth_dir, "sft", synth_dir / "tasks.jsonl")
    (d / "tasks.jsonl").write_text("{not json\n")
    with pytest.raises(ExportError, match="not JSON"):
        export(d, "steps", tmp_path / "out.jsonl")
    bad = _records()[1].model_copy(update={"calls": [_call("x", "neis.nope", {}, 0, [])]})
    with pytest.raises(ExportError, match=r"neis\.nope"):
        export_sft([bad], synth_dir, tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()


def test_absolute_file_path(synth_dir: Path, tmp_path: Path) -> None:
    r = _records()[1]
    moved = r.model_copy(update={"file": str(synth_dir / "school_lunch.edge")})
    out = tmp_path / "abs.jsonl"
    export_sft([moved], tmp_path, out)
    assert _jsonl(out)[0]["tools"] == TaskTools(synth_dir).schemas(r)
