"""The trace: what one run of a plan did, step by step.

Every step records its kind, tool, the calls it made (arguments with secret parameters shown as
``"***"``, pages read, the total the service reported, records, store hit/miss), the junctions
it read (the distinct hand-off values — at most :data:`MAX_SHOWN` shown, plus their count — the
observed cardinality and the junction kind it *would* be typed as: ``seq`` for 1, ``fan`` for
2 … φ, ``drv`` for more than φ, ``empty`` for 0), reducer SQL and parameters, the branch an
``if`` took, timing relative to the start of the run, and a classified failure.

The trace also records every *fallback* (:class:`FallbackTrace`): an inline statement of an answer
or an ``if`` predicate that failed, after which the run wrote its relations and ran the statement
on the tables (see :mod:`edgedsl.runtime.relations`). ``fallbacks`` is left out of the JSON form
when empty, so a trace without one reads as before.

Determinacy facts (issue 18 §1), read by :mod:`edgedsl.runtime.determinacy`:

* ``StepTrace.ties`` — on a ``drv`` step, one :class:`TieTrace` per ``most_frequent``, ``max``
  or ``min`` filter: how many values shared the top count (``most_frequent``; ``broken`` when
  more than one did, so the tie-break chose) or how many rows held the extreme (``max`` /
  ``min`` keep them all: a fact, never ``broken``);
* ``StepTrace.complete`` — on a call or ``compare`` step, whether every arm read its whole
  result: False when an arm stopped at its page limit before the total the service reported
  (or, without a total, on a full page); None when the step calls nothing or it cannot be told;
  ``StepTrace.unread`` — the records reported but not read, summed over the arms with a total.

Each is left out of a step's JSON form when empty or None.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr, SerializerFunctionWrapHandler, model_serializer

__all__ = [
    "MAX_SHOWN",
    "CallTrace",
    "Cause",
    "Determinacy",
    "FailureInfo",
    "FallbackTrace",
    "JunctionTrace",
    "StepTrace",
    "TieTrace",
    "Trace",
    "trace_summary",
    "would_be",
]

MAX_SHOWN = 20
REDACTED = "***"


def would_be(cardinality: int, phi: int) -> Literal["empty", "seq", "fan", "drv"]:
    """The junction kind an observed cardinality would be typed as."""
    if cardinality == 0:
        return "empty"
    if cardinality == 1:
        return "seq"
    return "fan" if cardinality <= phi else "drv"


class FailureInfo(BaseModel):
    """A classified failure: structural or environmental, with its diagnostic code."""

    kind: Literal["structural", "environmental", "internal"]
    code: str
    message: str


class JunctionTrace(BaseModel):
    """One junction as observed: values (capped), cardinality, declared and observed kind."""

    param: str
    kind: Literal["seq", "fan"]
    source: str
    field: str
    bound: int
    cardinality: int
    values: list[Any] = Field(default_factory=list)
    would_be: Literal["empty", "seq", "fan", "drv"]
    ok: bool = True


class CallTrace(BaseModel):
    """One backend call (one arm and one page)."""

    arm: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    page: int | None = None
    records: int = 0
    total: int | None = None
    store_hit: bool | None = None
    start_ms: float = 0.0
    duration_ms: float = 0.0
    failure: FailureInfo | None = None


class TieTrace(BaseModel):
    """A tie at one filter of a reduction: ``filter`` is its position among the step's reducers;
    ``tied`` how many distinct values share the top count (``most_frequent``) or how many rows
    hold the extreme (``max`` / ``min``, which keep them all) or the boundary value (``top k`` /
    ``bottom k``: the worst value kept; they keep every row holding it, so more than k rows
    are kept when it is tied); ``broken`` is True when the
    outcome depended on the tie-break (a ``most_frequent`` with ``tied`` > 1)."""

    filter: int
    op: Literal["most_frequent", "max", "min", "top", "bottom"]
    field: str
    tied: int
    broken: bool = False


_OMITTED_WHEN_EMPTY = ("ties", "complete", "unread")
#: facts written only when true (a trace from before them reads the same)
_OMITTED_WHEN_FALSE = ("remembered",)


class StepTrace(BaseModel):
    """One step of the run."""

    id: str
    kind: str
    relation: str | None = None
    tool: str | None = None
    span: dict[str, Any] | None = None
    status: Literal["ok", "failed"] = "ok"
    records: int | None = None
    calls: list[CallTrace] = Field(default_factory=list)
    junctions: list[JunctionTrace] = Field(default_factory=list)
    pages_read: int = 0
    total_reported: int | None = None
    sql: str | None = None
    params: list[Any] | None = None
    #: the kept rows of a ``drv`` were the remembered result of ``sql`` over the same stored
    #: response (replay: :class:`~edgedsl.runtime.columns.StoredColumns`), not executed again
    remembered: bool = False
    branch: Literal["then", "else"] | None = None
    start_ms: float = 0.0
    duration_ms: float = 0.0
    store_hits: int = 0
    store_misses: int = 0
    failure: FailureInfo | None = None
    ties: list[TieTrace] = Field(default_factory=list)
    complete: bool | None = None
    unread: int | None = None
    _arms_read: int = PrivateAttr(default=0)

    @property
    def arms_read(self) -> int:
        """How many arms' reads :func:`edgedsl.runtime.calls.read_fact` folded in (not
        serialised)."""
        return self._arms_read

    @arms_read.setter
    def arms_read(self, n: int) -> None:
        self._arms_read = n

    @model_serializer(mode="wrap")
    def _without_empty_facts(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for k in _OMITTED_WHEN_EMPTY:
            if k in data and data[k] in (None, []):
                del data[k]
        for k in _OMITTED_WHEN_FALSE:
            if data.get(k) is False:
                del data[k]
        return data

    @property
    def store_hit(self) -> bool | None:
        """True when every call came from the store, False when some did not, None if unknown."""
        if self.store_hits == 0 and self.store_misses == 0:
            return None
        return self.store_misses == 0


class FallbackTrace(BaseModel):
    """A fast path that failed: the inline statement of an answer (``step`` None) or of the
    ``if`` predicate of ``step`` raised ``error``; the statement then ran on the tables, and
    ``recovered`` says whether that succeeded (if it did, the two paths disagreed: a bug)."""

    statement: Literal["answer", "predicate"]
    step: str | None = None
    error: str
    recovered: bool = False


class Trace(BaseModel):
    """The trace of one trajectory run."""

    trajectory: str
    backend: str = ""
    phi: int = 5
    steps: list[StepTrace] = Field(default_factory=list)
    duration_ms: float = 0.0
    fallbacks: list[FallbackTrace] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _without_empty_fallbacks(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not self.fallbacks:
            data.pop("fallbacks", None)
        return data

    def step(self, step_id: str) -> StepTrace:
        """The trace of step ``step_id`` (KeyError if it did not run)."""
        for s in self.steps:
            if s.id == step_id:
                return s
        raise KeyError(step_id)


class Cause(BaseModel):
    """One step whose fact leaves the answer undetermined: ``kind`` ``tie`` (a ``most_frequent``
    whose tie-break chose among ``tied`` values) or ``partial`` (a call that left ``unread``
    records unread, or an unknown number when the service reported no total); ``fields`` the
    answer fields it reaches (``""`` for a single-expression answer)."""

    step: str
    kind: Literal["tie", "partial"]
    fields: list[str] = Field(default_factory=list)
    field: str | None = None
    tied: int | None = None
    read: int | None = None
    unread: int | None = None
    pages: int | None = None


class Determinacy(BaseModel):
    """Whether a run's answer is determined, and the causes when it is not (empty when it
    is)."""

    determined: bool
    causes: list[Cause] = Field(default_factory=list)


def trace_summary(trace: Trace) -> str:
    """A readable summary: one line per step (id, tool, records, junction kind, ms, pages,
    a broken tie's count of tied values, a partial read's unread records, store)."""
    lines = [f"trajectory {trace.trajectory} ({trace.backend}, φ={trace.phi}, "
             f"{trace.duration_ms:.1f} ms)"]
    width = max((len(s.id) for s in trace.steps), default=2)
    for s in trace.steps:
        what = s.tool or s.kind
        if s.kind == "if":
            what = f"if → {s.branch}"
        recs = "-" if s.records is None else str(s.records)
        junc = ", ".join(f"{j.kind}:{j.cardinality}→{j.would_be}" for j in s.junctions) or "-"
        store = {None: "", True: " store:hit", False: " store:miss"}[s.store_hit]
        pages = f" pages:{s.pages_read}" if s.pages_read > 1 else ""
        pages += "".join(f" tie:{t.tied}" for t in s.ties if t.broken)
        pages += f" partial:{s.unread if s.unread is not None else '?'} unread" \
            if s.complete is False else ""
        fail = f"  FAILED {s.failure.code}: {s.failure.message}" if s.failure else ""
        lines.append(f"  {s.id:<{width}}  {what:<24} {recs:>6} rec  {junc:<16} "
                     f"{s.duration_ms:8.1f} ms{pages}{store}{fail}")
    return "\n".join(lines)
