"""Exports of a synthesis directory for training: chat SFT, verl RL parquet, per-step items.

A synthesis directory holds ``NAME.edge`` files and ``tasks.jsonl`` (one
:class:`~edgedsl.recipe.synth.record.TaskRecord` per trajectory). :func:`export` reads it and writes
one of three formats (``docs/synth.md`` shows each with an example):

``sft``
    OpenAI-style chat JSONL, one line per task: ``{"messages": [...], "tools": [...]}``. The
    messages are an optional system message, the user's query, then per turn one assistant
    message whose ``tool_calls`` are all the calls of that turn (calls sharing a turn ran in
    parallel), one ``tool`` message per call answering it by ``tool_call_id``, and a final
    assistant message holding the answer as JSON text.
``rl``
    A Parquet file in the layout of verl's RL datasets: ``data_source``, ``prompt`` (system +
    user), ``ability``, ``reward_model`` ``{style: "rule", ground_truth: answer JSON}`` and
    ``extra_info`` (index, name, split, file, structure, calls, turns, the exposed tools and the
    expected tool calls, both as JSON text).
``steps``
    Per-step items JSONL: for each turn of each task the conversation up to that turn's assistant
    message and that message as the ``target``; the final answer is the last step of a task.

**Tool results.** A tool message's content is the JSON text of ``{"records": [...], "count": n,
"truncated": bool}`` (plus ``"total"`` when the service reported one): the first records of the
call's result — a record stores at most :data:`~edgedsl.recipe.synth.record.RESULT_HEAD`, and
``max_result_records`` may keep fewer — and the number the call returned.

Tool schemas, function names (``platform__tool``) and the choice of exposed tools are in
:mod:`edgedsl.recipe.synth.tools_schema`. Every file is written atomically (a temporary file renamed
over the target). JSON text keeps non-ASCII characters as they are (orjson).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict

from ...core.jsonfile import write_atomic
from .record import RESULT_HEAD, CallRecord, RecordFileError, TaskRecord, read_records
from .tools_schema import ExportError, TaskTools, tool_name

__all__ = [
    "DEFAULT_SYSTEM",
    "FORMATS",
    "Chat",
    "ExportError",
    "ExportFormat",
    "ExportSummary",
    "call_id",
    "chat",
    "expected_calls",
    "export",
    "export_rl",
    "export_sft",
    "export_steps",
    "tool_result",
]

ExportFormat = Literal["sft", "rl", "steps"]
FORMATS: tuple[ExportFormat, ...] = ("sft", "rl", "steps")

DEFAULT_SYSTEM = (
    "당신은 한국 공공 API 도구를 호출해 사용자의 질문에 답하는 어시스턴트입니다. "
    "필요한 도구를 호출하고, 서로 독립인 호출은 한 번에 함께 하세요. "
    "도구 결과만을 근거로 최종 답을 JSON으로 답하세요.\n"
    "You answer by calling the Korean public-API tools provided. Make independent calls "
    "together in one turn, and give the final answer as JSON grounded in the tool results."
)
"""The system message of every export unless ``system`` says otherwise (``None``: none)."""

class ExportSummary(BaseModel):
    """What an export wrote: the number of tasks, the file, its format and size in bytes."""

    model_config = ConfigDict(extra="forbid")
    count: int
    path: str
    format: ExportFormat
    bytes: int


# ---------------------------------------------------------------- messages


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


def call_id(task: str, index: int) -> str:
    """The id of the ``index``-th call (0-based, in turn order) of task ``task``."""
    return f"call_{task}_{index}"


def tool_result(call: CallRecord, max_records: int = RESULT_HEAD) -> dict[str, Any]:
    """The content of a call's tool message (before JSON encoding): its first records and their
    count (module docstring)."""
    shown = call.result[:max_records]
    out: dict[str, Any] = {"records": shown, "count": call.records,
                           "truncated": len(shown) < call.records}
    if call.total is not None:
        out["total"] = call.total
    return out


@dataclass(frozen=True)
class Chat:
    """A task as chat messages; ``turns[i]`` is the index in ``messages`` of the assistant
    message of turn ``i``; the last message is the final answer."""

    messages: list[dict[str, Any]]
    turns: list[int]


def _turns(record: TaskRecord) -> list[list[CallRecord]]:
    groups: dict[int, list[CallRecord]] = {}
    for c in record.calls:
        groups.setdefault(c.turn, []).append(c)
    return [groups[t] for t in sorted(groups)]


def chat(record: TaskRecord, *, system: str | None = DEFAULT_SYSTEM,
         max_result_records: int = RESULT_HEAD) -> Chat:
    """The conversation of one task (the ``sft`` layout). Calls are grouped by ``turn`` in
    ascending order, keeping their record order within a turn."""
    messages: list[dict[str, Any]] = []
    if system is not None:
        messages.append({"role": "system", "content": system})
    messages.append({"role": "user", "content": record.query})
    starts: list[int] = []
    index = 0
    for calls in _turns(record):
        ids = [call_id(record.name, index + i) for i in range(len(calls))]
        index += len(calls)
        starts.append(len(messages))
        messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": cid, "type": "function",
             "function": {"name": tool_name(c.tool), "arguments": _json(c.args)}}
            for cid, c in zip(ids, calls, strict=True)]})
        messages += [{"role": "tool", "tool_call_id": cid,
                      "content": _json(tool_result(c, max_result_records))}
                     for cid, c in zip(ids, calls, strict=True)]
    messages.append({"role": "assistant", "content": _json(record.answer)})
    return Chat(messages, starts)


def expected_calls(record: TaskRecord) -> list[dict[str, Any]]:
    """The gold calls for the ACTION axis: ``{"turn", "name", "arguments"}`` in turn order,
    turns numbered 0, 1, … (calls of one turn may run in any order)."""
    return [{"turn": t, "name": tool_name(c.tool), "arguments": c.args}
            for t, calls in enumerate(_turns(record)) for c in calls]


# ---------------------------------------------------------------- output


def _target(directory: str | Path, out_path: str | Path) -> Path:
    out = Path(out_path)
    if out.is_dir():
        raise ExportError(f"output {str(out)!r} is a directory")
    if out.resolve() == (Path(directory) / "tasks.jsonl").resolve():
        raise ExportError(f"output {str(out)!r} would overwrite the task records")
    out.parent.mkdir(parents=True, exist_ok=True)
    return out


def _write_lines(out: Path, lines: list[bytes], fmt: ExportFormat, count: int) -> ExportSummary:
    blob = b"".join(line + b"\n" for line in lines)
    write_atomic(out, blob)
    return ExportSummary(count=count, path=str(out), format=fmt, bytes=len(blob))


def _check_limit(max_result_records: int) -> None:
    if max_result_records < 0:
        raise ExportError(f"max result records must be 0 or more, not {max_result_records}")


def export_sft(records: Iterable[TaskRecord], directory: str | Path, out_path: str | Path, *,
               tools_per_task: int = 8, seed: int = 0, system: str | None = DEFAULT_SYSTEM,
               max_result_records: int = RESULT_HEAD) -> ExportSummary:
    """Write the chat SFT JSONL of ``records`` (one ``{"messages", "tools"}`` line per task) to
    ``out_path``; ``directory`` holds the tasks' ``.edge`` files."""
    _check_limit(max_result_records)
    tools = TaskTools(directory, tools_per_task=tools_per_task, seed=seed)
    out = _target(directory, out_path)
    lines = [orjson.dumps({"messages": chat(r, system=system,
                                            max_result_records=max_result_records).messages,
                           "tools": tools.schemas(r)})
             for r in records]
    return _write_lines(out, lines, "sft", len(lines))


def export_steps(records: Iterable[TaskRecord], directory: str | Path, out_path: str | Path, *,
                 tools_per_task: int = 8, seed: int = 0, system: str | None = DEFAULT_SYSTEM,
                 max_result_records: int = RESULT_HEAD) -> ExportSummary:
    """Write per-step items JSONL: for turn ``t`` of each task ``{"task", "step": t,
    "messages": the conversation before turn t's assistant message, "tools", "target": that
    message}``, then the final answer as step ``turns``. ``count`` is the number of tasks."""
    _check_limit(max_result_records)
    tools = TaskTools(directory, tools_per_task=tools_per_task, seed=seed)
    out = _target(directory, out_path)
    lines: list[bytes] = []
    count = 0
    for r in records:
        count += 1
        c = chat(r, system=system, max_result_records=max_result_records)
        schemas = tools.schemas(r)
        for step, at in enumerate([*c.turns, len(c.messages) - 1]):
            lines.append(orjson.dumps({"task": r.name, "step": step, "messages": c.messages[:at],
                                       "tools": schemas, "target": c.messages[at]}))
    return _write_lines(out, lines, "steps", count)


_RL_COLUMNS = (
    ("data_source", "VARCHAR"),
    ("prompt", "STRUCT(role VARCHAR, content VARCHAR)[]"),
    ("ability", "VARCHAR"),
    ("reward_model", "STRUCT(style VARCHAR, ground_truth VARCHAR)"),
    ("extra_info", 'STRUCT("index" BIGINT, name VARCHAR, split VARCHAR, file VARCHAR, '
                   "structure VARCHAR, calls BIGINT, turns BIGINT, tools VARCHAR, "
                   "expected_calls VARCHAR)"),
)


def export_rl(records: Iterable[TaskRecord], directory: str | Path, out_path: str | Path, *,
              tools_per_task: int = 8, seed: int = 0, system: str | None = DEFAULT_SYSTEM,
              data_source: str = "edgedsl", split: str = "train") -> ExportSummary:
    """Write the verl RL dataset of ``records`` as Parquet (through DuckDB; values are bound
    parameters, the path is an argument of the relation API, never SQL text)."""
    import duckdb

    tools = TaskTools(directory, tools_per_task=tools_per_task, seed=seed)
    out = _target(directory, out_path)
    rows: list[list[Any]] = []
    for i, r in enumerate(records):
        prompt = ([{"role": "system", "content": system}] if system is not None else [])
        prompt.append({"role": "user", "content": r.query})
        rows.append([data_source, prompt, "tool-calling",
                     {"style": "rule", "ground_truth": _json(r.answer)},
                     {"index": i, "name": r.name, "split": split, "file": r.file,
                      "structure": r.structure, "calls": len(r.calls), "turns": r.turns,
                      "tools": _json(tools.schemas(r)),
                      "expected_calls": _json(expected_calls(r))}])
    tmp = out.with_name(f".{out.name}.tmp")
    con = duckdb.connect()
    try:
        # the column names and types are constants of this module
        con.execute("CREATE TABLE rl (" + ", ".join(f"{n} {t}" for n, t in _RL_COLUMNS) + ")")
        if rows:
            con.executemany("INSERT INTO rl VALUES (?, ?, ?, ?, ?)", rows)
        con.table("rl").write_parquet(str(tmp))
    except duckdb.Error as exc:
        tmp.unlink(missing_ok=True)
        raise ExportError(f"cannot write {str(out)!r}: {exc}") from None
    finally:
        con.close()
    tmp.replace(out)
    return ExportSummary(count=len(rows), path=str(out), format="rl", bytes=out.stat().st_size)


# ---------------------------------------------------------------- the entry point

_OPTIONS = {
    "sft": {"tools_per_task", "seed", "system", "max_result_records"},
    "steps": {"tools_per_task", "seed", "system", "max_result_records"},
    "rl": {"tools_per_task", "seed", "system", "data_source", "split"},
}


def export(directory: str | Path, fmt: ExportFormat, out_path: str | Path,
           **opts: Any) -> ExportSummary:
    """Export the synthesis directory ``directory`` (its ``tasks.jsonl`` and ``.edge`` files)
    as ``fmt`` to ``out_path``. ``opts`` are the keyword options of :func:`export_sft`,
    :func:`export_rl` or :func:`export_steps`. Raises :class:`ExportError` (a one-line message)
    for an unknown format or option, a directory without ``tasks.jsonl``, an unreadable record,
    a missing or broken ``.edge`` file."""
    if fmt not in _OPTIONS:
        raise ExportError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    unknown = sorted(set(opts) - _OPTIONS[fmt])
    if unknown:
        raise ExportError(f"unknown option(s) for the {fmt} export: {', '.join(unknown)}; "
                          f"known: {', '.join(sorted(_OPTIONS[fmt]))}")
    base = Path(directory)
    if not base.is_dir():
        raise ExportError(f"no such synthesis directory: {str(base)!r}")
    tasks = base / "tasks.jsonl"
    if not tasks.is_file():
        raise ExportError(f"{str(base)!r} has no tasks.jsonl (the task records a synthesis "
                          f"run writes beside its .edge files)")
    try:
        records = list(read_records(tasks))
    except RecordFileError as exc:
        raise ExportError(str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ExportError(f"cannot read {str(tasks)!r}: {exc}") from None
    if fmt == "rl":
        return export_rl(records, base, out_path, **opts)
    if fmt == "steps":
        return export_steps(records, base, out_path, **opts)
    return export_sft(records, base, out_path, **opts)
