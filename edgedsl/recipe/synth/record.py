"""The task record: what synthesis knows about one emitted trajectory, beside its ``.edge`` file.

``synth run`` writes ``DIR/NAME.edge`` (the program, formatted) and one :class:`TaskRecord` per
trajectory in ``DIR/tasks.jsonl``. Statistics, filters, exports and the audit read records; a
directory of hand-written ``.edge`` files gets its records by running the files
(:func:`edgedsl.recipe.synth.trace_record.task_record`).

Vocabulary (``docs/synth.md`` has the definitions the statistics use):

* a **call** is one tool call as executed (a ``fan`` over 3 values is 3 calls, a ``compare`` over
  2 arms is 2, each page read is part of the same call);
* a **turn** groups the calls that run together: the calls of one step of the plan — a fan's calls,
  a compare's arms, a parallel group's branches — are one turn; a call alone in its turn is
  *sequential*, a call sharing its turn with others is *parallel*;
* a **junction** hands an upstream field to a downstream parameter; its *kind* is ``seq``, ``fan``,
  or ``drv`` when a ``drv`` node narrowed the upstream records first; its *hand-off cardinality*
  is the number of distinct values of the field in the upstream call's output, before any
  narrowing (a junction is *one-to-many* when that exceeds 1).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...runtime.trace import Determinacy

__all__ = [
    "RECORD_VERSION",
    "RESULT_HEAD",
    "STRUCTURES",
    "CallRecord",
    "EdgeUse",
    "JunctionRecord",
    "ProgramFacts",
    "RecordFileError",
    "Structure",
    "TaskRecord",
    "read_records",
    "write_records",
]

RECORD_VERSION = 1
"""The version of ``tasks.jsonl`` records; readers refuse any other."""

RESULT_HEAD = 5
"""Records of each call's result kept in a record (the rest is counted, not stored)."""

Structure = Literal["Seq", "Fan", "Drv", "Sem", "Cmp", "Cond", "Mixed"]
STRUCTURES: tuple[Structure, ...] = ("Seq", "Fan", "Drv", "Sem", "Cmp", "Cond", "Mixed")
"""The structure types, in the recipe's vocabulary."""

_cfg = ConfigDict(extra="forbid")


class CallRecord(BaseModel):
    """One executed call: its step, tool, arguments (JSON: dates as ISO text), its turn, the
    records it returned (``records``; the first :data:`RESULT_HEAD` in ``result``)."""

    model_config = _cfg
    step: str
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    turn: int
    records: int = 0
    total: int | None = None
    result: list[dict[str, Any]] = Field(default_factory=list)


class JunctionRecord(BaseModel):
    """One hand-off: from ``field`` of the upstream tool's output to ``param`` of ``tool``;
    ``capped`` when the upstream call read fewer records than the service reported (a page
    limit caps ``cardinality``; None in records made before it was recorded)."""

    model_config = _cfg
    tool: str
    param: str
    source_tool: str
    field: str
    kind: Literal["seq", "fan", "drv"]
    cardinality: int
    passed: int
    capped: bool | None = None


class EdgeUse(BaseModel):
    """A G* edge a synthesized trajectory uses, with its posterior when synthesized."""

    model_config = _cfg
    source: str
    target: str
    alpha: float | None = None
    beta: float | None = None


class ProgramFacts(BaseModel):
    """The facts of one run, each a list of step or binding names (what each means:
    :mod:`edgedsl.recipe.synth.meaning`); ``implausible`` lists the plausibility findings and
    ``answer_wants`` the want of each value the answer reads (``name``, ``amount``, ``count``,
    ``code``, ``constant`` …: :func:`edgedsl.recipe.synth.plausible.judge`)."""

    model_config = ConfigDict(extra="forbid")
    noop_drv: list[str] = Field(default_factory=list)
    tie_drv: list[str] = Field(default_factory=list)
    distinct_mf: list[str] = Field(default_factory=list)
    decorative_if: list[str] = Field(default_factory=list)
    page_if: list[str] = Field(default_factory=list)
    page_answer: list[str] = Field(default_factory=list)
    round_trip: list[str] = Field(default_factory=list)
    partial_reads: list[str] = Field(default_factory=list)
    implausible: list[str] = Field(default_factory=list)
    answer_wants: list[str] = Field(default_factory=list)


class TaskRecord(BaseModel):
    """Everything statistics, filters, exports and the audit need about one trajectory."""

    model_config = _cfg
    version: int = RECORD_VERSION
    name: str
    file: str
    query: str
    answer: Any = None
    structure: Structure
    features: list[str] = Field(default_factory=list)
    tools: list[str] = Field(default_factory=list)
    calls: list[CallRecord] = Field(default_factory=list)
    junctions: list[JunctionRecord] = Field(default_factory=list)
    edges: list[EdgeUse] = Field(default_factory=list)
    source_sha: str = ""
    seed: int | None = None
    facts: ProgramFacts | None = None
    body_sha: str = ""
    determinacy: Determinacy | None = None

    @property
    def turns(self) -> int:
        """The number of turns (sequential steps)."""
        return len({c.turn for c in self.calls})


class RecordFileError(Exception):
    """A ``tasks.jsonl`` that cannot be read: a bad line, another version, a schema mismatch."""


def write_records(path: str | Path, records: Iterable[TaskRecord]) -> int:
    """Write records as JSON lines (atomically); the number written."""
    from ...core.jsonfile import write_atomic

    lines = [orjson.dumps(r.model_dump(mode="json")) for r in records]
    write_atomic(Path(path), b"".join(line + b"\n" for line in lines))
    return len(lines)


def read_records(path: str | Path) -> Iterator[TaskRecord]:
    """Records of a ``tasks.jsonl``; :class:`RecordFileError` naming the line on a bad one."""
    with open(path, "rb") as fh:
        for no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                raw = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise RecordFileError(f"{path}:{no}: not JSON ({exc})") from None
            if not isinstance(raw, dict) or raw.get("version") != RECORD_VERSION:
                got = raw.get("version") if isinstance(raw, dict) else None
                raise RecordFileError(f"{path}:{no}: record version {got}, this edgedsl reads "
                                      f"version {RECORD_VERSION}")
            try:
                yield TaskRecord.model_validate(raw)
            except ValidationError as exc:
                from ...core.jsonfile import schema_problems

                raise RecordFileError(f"{path}:{no}: {schema_problems(exc)}") from None
