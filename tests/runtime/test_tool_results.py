"""What a python tool may hand back, and how each wrong answer fails: the malformed-tool-result
matrix (values that are not JSON data, reported totals that are not counts, records that are
not records), anything a tool raises — ``BaseException`` included — and tools that never
answer (the per-call timeout). Each is a classified failure of the tool with a code and the
offending path, recorded in the trace; none is R509 (a bug in edgedsl), none escapes the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import decimal
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

import edgedsl
from edgedsl import cli
from edgedsl.runtime.backends import MAX_TOTAL, as_count, json_problem
from edgedsl.runtime.executor import run_plan_sync
from edgedsl.runtime.python_backend import PythonBackend

PROGRAM = """
platform p {
  record R {
    a: int
    name: str
  }

  tool t (q: str) -> [R] at "items" paged (page: pageNo, size: rows <= 10, total: total)
}

trajectory x "q" {
  r = p.t(q: "x") pages all
  answer { n: count(r), a: max(r.a), names: r.name }
}
"""
PLAN = edgedsl.compile(PROGRAM)


def run_with(fn: Any, **kw: Any) -> Any:
    (res,) = run_plan_sync(PLAN, PythonBackend({"p.t": fn}, **kw))
    return res


def returning(out: Any) -> Any:
    return lambda **_: out


def _deep(levels: int) -> dict[str, Any]:
    d: dict[str, Any] = {"a": 1}
    for _ in range(levels):
        d = {"x": d}
    return d


def _circular() -> dict[str, Any]:
    d: dict[str, Any] = {"a": 1, "name": "x"}
    d["self"] = d
    return d


OK = {"a": 1, "name": "x"}

MALFORMED = {
    "a None among the records": ({"items": [OK, None]}, "a non-record item at [1]"),
    "a number among the records": ({"items": [OK, 7]}, "a non-record item at [1]"),
    "an integer above 64 bits": ({"items": [{"a": 10**20, "name": "x"}]},
                                 "an integer above 64 bits at `items[0].a`"),
    "bytes": ({"items": [{"a": 1, "name": b"x"}]}, "bytes, which is not JSON data at "
              "`items[0].name`"),
    "a Decimal": ({"items": [{"a": decimal.Decimal("1.5"), "name": "x"}]},
                  "Decimal, which is not JSON data at `items[0].a`"),
    "a lone surrogate": ({"items": [{"a": 1, "name": "\ud800"}]},
                         "a lone surrogate (not UTF-8) at `items[0].name`"),
    "a key that is not text": ({"items": [{1: "a", "name": "x"}]},
                               "a key of type int (keys must be text) at `items[0][1]`"),
    "255 levels of nesting": ({"items": [{"a": 1, "name": "x", "d": _deep(255)}]},
                              "nested more than 200 levels deep"),
    "a circular value": ({"items": [_circular()]}, "a value that contains itself at "
                         "`items[0].self`"),
    "a set": ({"items": [{"a": 1, "name": {1, 2}}]}, "set, which is not JSON data"),
    "a generator": ((x for x in [OK]), "returned a value of type generator, which is not JSON "
                    "data as its answer"),
    "a negative total": ({"items": [OK], "total": -5},
                         "a reported total of -5 is not a count"),
    "a total of 10^30": ({"items": [OK], "total": 10**30}, "an integer above 64 bits at "
                         "`total`"),
    "a total of 2^63": ({"items": [OK], "total": 2**63},
                        "a reported total of 9223372036854775808 is not a count"),
    "a total of 10^30 as text": ({"items": [OK], "total": "1" + "0" * 30},
                                 "is not a count"),
    "a fractional total": ({"items": [OK], "total": 2.5}, "is not a whole number"),
    "a NaN total": ({"items": [OK], "total": float("nan")}, "is not a whole number"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_tool_result_is_a_structural_failure_with_its_path(case: str) -> None:
    out, message = MALFORMED[case]
    res = run_with(returning(out))
    assert not res.ok
    (d,) = res.diagnostics
    assert d.code == "R503", d.message
    assert message in d.message
    call = res.trace.steps[0].calls[-1]
    assert call.failure is not None and call.failure.kind == "structural"
    assert orjson.dumps(res.trace.model_dump(mode="json"))  # the trace still writes


@pytest.mark.parametrize("extra", [{"__row": 5}, {"__arm": "a"}, {"__raw": "x"},
                                   {"__key": "k"}, {"__seq": 1}, {"__kept": 1},
                                   {"Name": "y", "A": 3}])
def test_undeclared_fields_with_reserved_or_colliding_names_are_ignored(
        extra: dict[str, Any]) -> None:
    res = run_with(returning({"items": [{**OK, **extra}]}))
    assert res.ok, res.diagnostics
    assert res.answer == {"n": 1, "a": 1, "names": "x"}


def test_values_that_do_not_coerce_are_null() -> None:
    # LANGUAGE.md: a value that does not coerce is null (an int beyond BIGINT, NaN)
    res = run_with(returning({"items": [{"a": 2**63 + 5, "name": "x"},
                                        {"a": float("nan"), "name": "y"}]}))
    assert res.ok and res.answer["a"] is None


def test_counts() -> None:
    assert as_count("1,234") == 1234 and as_count(" 12 ") == 12 and as_count(3.0) == 3
    assert as_count(MAX_TOTAL) == MAX_TOTAL
    assert as_count("") is None and as_count("n/a") is None and as_count(True) is None
    for bad in (-1, "-3", MAX_TOTAL + 1, 1e30, 0.5):
        with pytest.raises(ValueError):
            as_count(bad)


def test_json_problem_accepts_json_data_and_dates() -> None:
    import datetime as dt

    assert json_problem({"a": [1, 2.5, None, True, "텍스트", dt.date(2024, 1, 2)],
                         "b": {"c": (1, 2)}, "big": 2**64 - 1, "neg": -(2**63)}) is None
    assert json_problem(_deep(150)) is None


# ------------------------------------------------------------------ what a tool raises

def raising(exc: BaseException, *, is_async: bool) -> Any:
    if is_async:
        async def tool(**_: Any) -> Any:
            raise exc
        return tool

    def sync_tool(**_: Any) -> Any:
        raise exc
    return sync_tool


RAISED = {
    "SystemExit": SystemExit(3),
    "KeyboardInterrupt": KeyboardInterrupt(),
    "GeneratorExit": GeneratorExit(),
    "CancelledError": asyncio.CancelledError(),
    "StopIteration": StopIteration(),
    "ValueError": ValueError("bad"),
}


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("name", sorted(RAISED))
def test_anything_a_tool_raises_is_its_failure(name: str, is_async: bool) -> None:
    res = run_with(raising(RAISED[name], is_async=is_async))
    assert not res.ok
    (d,) = res.diagnostics
    assert d.code == "R503" and f"raised {name}" in d.message
    assert res.trace.steps[0].calls[0].failure.code == "R503"


def test_an_oserror_is_environmental() -> None:
    res = run_with(raising(ConnectionResetError("reset"), is_async=False))
    assert res.diagnostics[0].code == "R504"


# ------------------------------------------------------------------ tools that never answer

async def _never(**_: Any) -> Any:
    await asyncio.Event().wait()


async def _stubborn(**_: Any) -> Any:
    while True:  # swallows its cancellation
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(10)


def _blocked(**_: Any) -> Any:
    time.sleep(3600)


@pytest.mark.parametrize("tool", [_never, _stubborn, _blocked],
                         ids=["async", "async-ignoring-cancel", "sync"])
def test_a_tool_that_never_answers_times_out(tool: Any) -> None:
    res = run_with(tool, timeout=0.2)
    assert not res.ok
    (d,) = res.diagnostics
    assert d.code == "R504" and "no answer within 0.2 s" in d.message
    assert res.trace.steps[0].calls[0].failure.kind == "environmental"


def test_the_python_backend_needs_a_positive_timeout() -> None:
    for bad in (0, -1.0):
        with pytest.raises(ValueError):
            PythonBackend({}, timeout=bad)


TOOLS_FILE = """
import asyncio

async def hang(**_):
    await asyncio.Event().wait()

def leave(**_):
    raise SystemExit(4)

TOOLS = {"p.t": hang, "p.u": leave}
"""

CLI_PROGRAM = """
platform p {
  record R {
    a: int
  }

  tool t (q: str) -> [R]

  tool u (q: str) -> [R]
}

trajectory hangs "q" {
  r = p.t(q: "x")
  answer { n: count(r) }
}

trajectory exits "q" {
  r = p.u(q: "x")
  answer { n: count(r) }
}
"""


@pytest.fixture
def cli_files(tmp_path: Path) -> tuple[Path, Path]:
    prog, tools = tmp_path / "p.edge", tmp_path / "tools.py"
    prog.write_text(CLI_PROGRAM, encoding="utf-8")
    tools.write_text(TOOLS_FILE, encoding="utf-8")
    return prog, tools


def test_cli_timeout_flag_bounds_a_hanging_tool(cli_files: tuple[Path, Path], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    prog, tools = cli_files
    trace = tmp_path / "t.json"
    code = cli.main(["run", str(prog), "--tools", str(tools), "--timeout", "0.3",
                     "--trajectory", "hangs", "--trace", str(trace)])
    err = capsys.readouterr()
    assert code == 1
    assert "R504" in err.err and "no answer within 0.3 s" in err.err
    assert orjson.loads(trace.read_bytes())["steps"][0]["calls"][0]["failure"]["code"] == "R504"


def test_cli_a_tool_raising_system_exit_is_recorded(cli_files: tuple[Path, Path], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    prog, tools = cli_files
    trace = tmp_path / "t.json"
    code = cli.main(["run", str(prog), "--tools", str(tools), "--trajectory", "exits",
                     "--trace", str(trace)])
    out = capsys.readouterr()
    assert code == 1, out.err
    assert "== exits [FAILED]" in out.out and "raised SystemExit: 4" in out.err
    assert "Traceback" not in out.err
    assert orjson.loads(trace.read_bytes())["steps"][0]["calls"][0]["failure"]["code"] == "R503"


@pytest.mark.parametrize("argv", [["--timeout", "0"], ["--timeout", "-1"],
                                  ["--timeout", "nan"], ["--phi", "0"], ["--phi", "-1"],
                                  ["--max-pages", "0"], ["--max-pages", "-1"]])
def test_cli_refuses_bounds_below_one(argv: list[str], cli_files: tuple[Path, Path],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    prog, tools = cli_files
    assert cli.main(["run", str(prog), "--tools", str(tools), *argv]) == 2
    assert argv[0] in capsys.readouterr().err


@pytest.mark.parametrize("option", ["phi", "max_pages"])
def test_the_api_refuses_bounds_below_one(option: str) -> None:
    with pytest.raises(ValueError, match=option):
        run_plan_sync(PLAN, PythonBackend({"p.t": returning([OK])}), **{option: 0})
    if option == "phi":
        for bad in (0, -1, 2.5):
            with pytest.raises(ValueError, match="phi"):
                edgedsl.check(PROGRAM, phi=bad)  # type: ignore[arg-type]
