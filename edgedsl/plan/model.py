"""Stage `plan`: IR → Plan, the compiled, serialisable form of a program.

A :class:`Plan` holds everything a run needs without the source text: a :class:`ToolSpec` per
tool used (wire details, parameter and record types as ``type_to_json`` JSON, paging, the
declaration hash the store keys on) and one :class:`TrajectoryPlan` per trajectory.

A trajectory plan keys its steps by id. Top-level steps keep their IR id (``filings``, the
group id ``day`` of a ``parallel``); the calls of a ``parallel`` group keep their relation id
(``day.meals``) and are run by the group step; the steps of an ``if`` branch are keyed
``<if id>/then/<id>`` or ``<if id>/else/<id>`` (both branches may bind the same name) and run
by the ``if`` step. Every step names the DuckDB table it writes in ``relation``: the relation
id, so that later steps read ``pick`` whichever branch produced it.

``layers`` lists the top-level step ids in topological layers: every step depends only on
steps of earlier layers, so the steps of one layer may run concurrently. ``if`` steps carry the
layers of each branch the same way.

Values (literal arguments, pivots, SQL parameters) are stored as JSON with a tag where JSON has
no type: ``{"$date": "2024-12-01"}`` for a date, ``{"$int": "18446744073709551616"}`` for an
integer beyond 64 bits, ``{"$dict": {...}}`` for an object that would otherwise read as a tag.
:func:`encode_value` / :func:`decode_value` convert, so a reloaded plan binds exactly the same
parameters.

Reductions, ``if`` predicates and answers are typed queries stored as JSON, never SQL text
(:mod:`edgedsl.reduce.query`, :mod:`edgedsl.reduce.answer`); the runtime renders them
(:mod:`edgedsl.reduce.render`) over the relation tables of a run (see
:mod:`edgedsl.runtime.duck` for the table layout). A predicate is one ``SELECT`` returning one
boolean (NULL counts as false); an answer field is one ``SELECT`` returning either the distinct
non-null values of a field in first-occurrence order (a field reference) or one scalar. The plan
stores the query only: what it reads, the shape of its result and whether it is a whole
relation's value are derived from it (:func:`edgedsl.reduce.answer.facts`), never stored beside
it, so they cannot disagree.

Versions: :data:`PLAN_VERSION` is 6. Older plans are migrated on load (:func:`load_plan`): a
version 5 plan has no list arguments holding references (``RequestTemplate.lists``, new in
version 6), so it loads as it is. A version 4 plan differs from version 5 only by storing
``reads`` / ``shape`` / ``whole`` beside each answer's query and ``reads`` beside each
predicate's, all derivable from the query, so they are dropped and the plan runs the same; and
it has no ``run`` settings (version 5 carries the file's ``run { … }`` block), which is what a
version 4 plan meant: none stated. Any other version is E402 (recompile the source).

The compiler itself (IR → these models) lives in :mod:`edgedsl.plan.compile`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import orjson
from pydantic import ConfigDict, Field, TypeAdapter, ValidationError

from ..core.catalog import Catalog, Platform, Tool
from ..core.diagnostics import CompileError, diag
from ..core.jsonfile import read_json_object, schema_problems
from ..core.runsettings import RunSettings
from ..core.source import NO_SPAN, Span, fast_frozen_init
from ..core.types import FieldType, type_from_json, type_to_json
from ..core.values import decode_value, encode_value
from ..reduce.answer import predicate_from_json, value_from_json_data
from ..reduce.query import ReduceQuery

__all__ = [
    "MIGRATED_VERSIONS",
    "PLAN_VERSION",
    "AnswerField",
    "AnswerPlan",
    "CallStep",
    "CompareStep",
    "DrvStep",
    "IfStep",
    "JunctionSpec",
    "ParallelStep",
    "Plan",
    "RequestTemplate",
    "SpanInfo",
    "StepPlan",
    "ToolSpec",
    "TrajectoryPlan",
    "ValueSpec",
    "decode_value",
    "encode_value",
    "load_plan",
    "migrate_v4",
    "plan_to_json",
    "to_data",
    "validated",
    "validated_json",
]

PLAN_VERSION = 6
#: The older versions :func:`load_plan` migrates (see the module docstring).
MIGRATED_VERSIONS = (4, 5)


# ---------------------------------------------------------------- models

_cfg = ConfigDict(extra="forbid")  # every model: unknown keys are schema errors on load


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class SpanInfo:
    """Where a step came from in the source (1-based line and column of both ends)."""

    __pydantic_config__ = _cfg
    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    start: int = 0
    end: int = 0

    @classmethod
    def of(cls, span: Span) -> SpanInfo | None:
        """The SpanInfo of an IR span (None for ``NO_SPAN``)."""
        if span == NO_SPAN:
            return None
        return cls(file=span.file, line=span.line, col=span.col, end_line=span.end_line,
                   end_col=span.end_col, start=span.start, end=span.end)

    def to_span(self) -> Span:
        """Back to a :class:`~edgedsl.core.source.Span` (for diagnostics)."""
        return Span(self.file, self.start, self.end, self.line, self.col, self.end_line,
                    self.end_col)


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ParamSpec:
    """One tool parameter: name, JSON type, optional; its Korean label and unit if declared."""

    __pydantic_config__ = _cfg
    name: str
    type: Any
    optional: bool = False
    label: str | None = None
    unit: str | None = None


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PagingSpec:
    """Wire names of a tool's page / size parameters, the size limit and the total field."""

    __pydantic_config__ = _cfg
    page: str | None = None
    size: str | None = None
    size_limit: int | None = None
    total: str | None = None


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    """Everything needed to call a tool without the source (the secret's *name*, never a value)."""

    __pydantic_config__ = _cfg
    qualname: str
    platform: str
    name: str
    doc: str = ""
    method: str | None = None
    path: str | None = None
    base: str | None = None
    envelope: str | None = None
    secret: str | None = None
    params: list[ParamSpec] = field(default_factory=list)
    record: str = "Record"
    fields: dict[str, Any] = field(default_factory=dict)
    many: bool = True
    at: str | None = None
    paging: PagingSpec | None = None
    declaration_hash: str
    #: record field name → its Korean label / unit, for the fields that declare one
    labels: dict[str, str] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)

    @property
    def has_http(self) -> bool:
        """True when the tool declares a method and a path."""
        return self.method is not None and self.path is not None

    def field_types(self) -> dict[str, FieldType]:
        """Record field name → semantic type."""
        return {k: type_from_json(v) for k, v in self.fields.items()}

    @classmethod
    def of(cls, tool: Tool, catalog: Catalog | None = None) -> ToolSpec:
        """The spec of a catalog tool (platform settings from ``catalog`` when given).

        The validated input of a tool's spec is memoised with the catalog (see
        :meth:`input_of`), so the declaration hash is computed once. Each call still returns a
        fresh model."""
        return validated(cls, cls.input_of(tool, catalog))

    @classmethod
    def input_of(cls, tool: Tool, catalog: Catalog | None = None) -> dict[str, Any]:
        """The input :meth:`of` validates; with a ``catalog``, memoised in it by the tool's
        qualname (``Catalog.derived``; catalogs are shared between compiles of files using the
        same modules) and shared: not to be changed."""
        if catalog is None:
            return cls._input(tool, None)
        plat = catalog.platforms.get(tool.platform)
        hit = catalog.derived.get(tool.qualname)
        if hit is None or hit[0] is not tool or hit[1] is not plat:
            hit = catalog.derived[tool.qualname] = (tool, plat, cls._input(tool, plat))
        return hit[2]

    @staticmethod
    def _input(tool: Tool, plat: Platform | None) -> dict[str, Any]:
        pg = tool.paging
        return {
            "qualname": tool.qualname, "platform": tool.platform, "name": tool.name,
            "doc": tool.doc, "method": tool.method, "path": tool.path,
            "base": plat.base if plat else None, "envelope": plat.envelope if plat else None,
            "secret": plat.secret if plat else None,
            "params": [{"name": p.name, "type": type_to_json(p.type), "optional": p.optional,
                        "label": p.label, "unit": p.unit} for p in tool.params],
            "record": tool.record.name,
            "fields": {f.name: type_to_json(f.type) for f in tool.record.fields},
            "many": tool.many, "at": tool.at,
            "paging": None if pg is None else {"page": pg.page, "size": pg.size,
                                               "size_limit": pg.size_limit, "total": pg.total},
            "declaration_hash": tool.declaration_hash(),
            "labels": {f.name: f.label for f in tool.record.fields if f.label},
            "units": {f.name: f.unit for f in tool.record.fields if f.unit},
        }


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class JunctionSpec:
    """A junction placeholder: the argument takes the distinct values of ``source.field``."""

    __pydantic_config__ = _cfg
    kind: Literal["seq", "fan"]
    source: str
    field: str
    bound: int
    type: Any = "str"
    span: SpanInfo | None = None


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ValueSpec:
    """A literal (encoded JSON) or a Seq junction: a shared argument of a ``parallel`` group,
    or an item of a list argument."""

    __pydantic_config__ = _cfg
    literal: Any = None
    junction: JunctionSpec | None = None


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class RequestTemplate:
    """A call with holes: literal args (encoded JSON), junction placeholders, shared names,
    and list arguments holding references (``lists``: each item a literal or a Seq junction,
    the call given the list of their values; plan version 6)."""

    __pydantic_config__ = _cfg
    tool: str
    literals: dict[str, Any] = field(default_factory=dict)
    junctions: dict[str, JunctionSpec] = field(default_factory=dict)
    shared: dict[str, str] = field(default_factory=dict)
    lists: dict[str, list[ValueSpec]] = field(default_factory=dict)
    pages: int | Literal["all"] | None = None

    @property
    def all_junctions(self) -> list[tuple[str, JunctionSpec]]:
        """Every junction of the request with its parameter: the arguments', then the list
        arguments' items'."""
        return [*self.junctions.items(), *((p, it.junction) for p, items in self.lists.items()
                                           for it in items if it.junction is not None)]


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class _StepBase:
    __pydantic_config__ = _cfg
    id: str
    relation: str | None = None
    deps: list[str] = field(default_factory=list)
    span: SpanInfo | None = None


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CallStep(_StepBase):
    """A tool call; with a fan junction, one call per distinct value, rows tagged ``__arm``."""

    kind: Literal["call"] = "call"
    request: RequestTemplate
    fields: dict[str, Any] = field(default_factory=dict)


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class DrvStep(_StepBase):
    """A reduction: its reducers as written, and the typed query they build
    (:meth:`edgedsl.reduce.query.ReduceQuery.to_json`: the source and one filter per reducer,
    values bound, never text). The runtime renders the query in the form its source needs
    (:mod:`edgedsl.reduce.render`); :func:`load_plan` checks that it reads back."""

    kind: Literal["drv"] = "drv"
    source: str
    reducers: list[dict[str, Any]] = field(default_factory=list)
    query: dict[str, Any]
    fields: dict[str, Any] = field(default_factory=dict)


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ParallelStep(_StepBase):
    """A ``parallel`` group: shared arguments and the ids of its branch call steps."""

    kind: Literal["parallel"] = "parallel"
    shared: dict[str, ValueSpec] = field(default_factory=dict)
    branches: list[str] = field(default_factory=list)


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CompareStep(_StepBase):
    """``compare``: the call once per arm value of ``param``; rows tagged ``__arm``."""

    kind: Literal["compare"] = "compare"
    request: RequestTemplate
    param: str
    values: list[Any] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PredicateSpec:
    """An ``if`` predicate as its typed query (:func:`edgedsl.reduce.answer.to_json` of a
    :data:`~edgedsl.reduce.answer.Predicate`: its literals included, never SQL text; rendered by
    :func:`edgedsl.reduce.render.render_predicate`). The relations and fields it reads are
    derived from the query (:func:`edgedsl.reduce.answer.facts`), not stored."""

    __pydantic_config__ = _cfg
    query: dict[str, Any]


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class IfStep(_StepBase):
    """A conditional: the predicate and the layers of step ids of each branch."""

    kind: Literal["if"] = "if"
    predicate: PredicateSpec
    then: list[list[str]] = field(default_factory=list)
    orelse: list[list[str]] = field(default_factory=list)
    binds: list[str] = field(default_factory=list)


StepPlan = Annotated[
    CallStep | DrvStep | ParallelStep | CompareStep | IfStep, Field(discriminator="kind")
]


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerField:
    """One answer value: its typed query (:func:`edgedsl.reduce.answer.to_json` of a
    :data:`~edgedsl.reduce.answer.Value`, rendered by :func:`edgedsl.reduce.render.render_answer`)
    and JSON type. What the query reads, the shape of its result (a field's distinct values or
    one scalar) and whether it is a whole relation's value (read from the relation's handle when
    it can be) are derived from the query (:func:`edgedsl.reduce.answer.facts`), not stored."""

    __pydantic_config__ = _cfg
    name: str | None = None
    query: dict[str, Any]
    type: Any = None
    span: SpanInfo | None = None


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerPlan:
    """``answer e`` (kind ``expr``, one field) or ``answer {…}`` (kind ``object``)."""

    __pydantic_config__ = _cfg
    kind: Literal["expr", "object"]
    fields: list[AnswerField]


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TrajectoryPlan:
    """One compiled trajectory."""

    __pydantic_config__ = _cfg
    name: str
    query: str = ""
    steps: dict[str, StepPlan] = field(default_factory=dict)
    layers: list[list[str]] = field(default_factory=list)
    answer: AnswerPlan | None = None
    say: str | None = None
    span: SpanInfo | None = None


@fast_frozen_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """A compiled program: the tools it calls and its trajectories."""

    __pydantic_config__ = _cfg
    version: int = PLAN_VERSION
    source_name: str = ""
    tools: dict[str, ToolSpec] = field(default_factory=dict)
    trajectories: list[TrajectoryPlan] = field(default_factory=list)
    run: RunSettings = field(default_factory=RunSettings)
    """The file's ``run { … }`` settings (the world's seed, φ, ``max_pages``; plan version 5)."""

    def trajectory(self, name: str) -> TrajectoryPlan:
        """The trajectory called ``name`` (KeyError naming the known ones otherwise)."""
        for t in self.trajectories:
            if t.name == name:
                return t
        known = [t.name for t in self.trajectories]
        raise KeyError(f"no trajectory {name!r}; the plan has {known}")


# ---------------------------------------------------------------- JSON in and out


_M = TypeVar("_M")


_ADAPTERS: dict[type, TypeAdapter[Any]] = {}


def _adapter(cls: type[_M]) -> TypeAdapter[_M]:
    """The validator of a plan model (built on first use: most runs never read a plan)."""
    adapter = _ADAPTERS.get(cls)
    if adapter is None:
        adapter = _ADAPTERS[cls] = TypeAdapter(cls)
    return adapter


def validated(cls: type[_M], data: Any) -> _M:
    """A plan model (``Plan``, ``ToolSpec``, …) made from JSON-ready ``data`` and validated
    against its schema (pydantic's public ``TypeAdapter``; ``ValidationError`` when it does not
    match). The compiler builds its models directly: its output is valid by construction
    (``tests/plan/test_plan_roundtrip.py``); what is read from outside goes through here."""
    return _adapter(cls).validate_python(data)


def validated_json(cls: type[_M], text: str | bytes) -> _M:
    """:func:`validated` of JSON text (``ValidationError`` for bad JSON too)."""
    return _adapter(cls).validate_json(text)


def to_data(model: object) -> Any:
    """A plan model as JSON-ready data (dicts in field order, every field, defaults included):
    what :func:`validated` reads back into an equal model."""
    return orjson.loads(orjson.dumps(model))


def plan_to_json(plan: Plan) -> bytes:
    """The plan as indented JSON bytes (keys in field order; orjson writes the dataclasses)."""
    return orjson.dumps(plan, option=orjson.OPT_INDENT_2)


def _e401(message: str) -> CompileError:
    return CompileError("plan", [diag("E401", message, hints=["recompile the source"])])


def load_plan(data: bytes | str | Path) -> Plan:
    """Read a plan from JSON bytes, JSON text, or a file path (``Path``, or a ``str`` not
    starting with ``{``). Corrupt JSON or a schema violation → ``CompileError`` E401; a version
    4 or 5 plan is migrated (:func:`migrate_v4`; version 5 reads as it is); another plan
    version → E402."""
    raw = read_json_object(data, "plan", _e401)
    version = raw.get("version")
    if version is None:
        raise _e401("plan has no `version` field")
    if version != PLAN_VERSION:
        if version not in MIGRATED_VERSIONS:
            raise CompileError("plan", [diag(
                "E402", f"plan version {version}, this edgedsl reads version {PLAN_VERSION}; "
                "recompile the source")])
        # a version 5 plan reads as it is (it holds no list of references)
        raw = migrate_v4(raw) if version == 4 else {**raw, "version": PLAN_VERSION}
    try:
        plan = validated(Plan, raw)
    except ValidationError as exc:
        raise _e401("plan does not match the schema: " + schema_problems(exc)) from None
    problems = _validate_refs(plan)
    if problems:
        raise _e401("plan is inconsistent: " + "; ".join(problems[:3]))
    return plan


#: What a version 4 plan stored beside its queries (derived from them since version 5).
_V4_ANSWER_KEYS = ("reads", "shape", "whole")
_V4_PREDICATE_KEYS = ("reads",)


def migrate_v4(raw: dict[str, Any]) -> dict[str, Any]:
    """A version 4 plan's JSON data as version 5 data (read as version 6): the same plan
    without the ``reads`` / ``shape`` / ``whole`` keys of its answer fields and the ``reads`` of
    its ``if`` predicates, which version 5 derives from each query (a version 4 compiler wrote
    exactly those); its
    missing ``run`` settings load as none stated. Only those keys change (a fresh copy;
    ``raw`` is left as it is); anything malformed is left for
    the schema check to report."""
    out = {**raw, "version": PLAN_VERSION}
    trajectories = raw.get("trajectories")
    if isinstance(trajectories, list):
        out["trajectories"] = [_migrate_trajectory(t) if isinstance(t, dict) else t
                               for t in trajectories]
    return out


def _without(node: object, keys: tuple[str, ...]) -> object:
    return {k: v for k, v in node.items() if k not in keys} if isinstance(node, dict) else node


def _migrate_trajectory(t: dict[str, Any]) -> dict[str, Any]:
    t = dict(t)
    answer = t.get("answer")
    if isinstance(answer, dict) and isinstance(answer.get("fields"), list):
        t["answer"] = {**answer, "fields": [_without(f, _V4_ANSWER_KEYS)
                                            for f in answer["fields"]]}
    steps = t.get("steps")
    if isinstance(steps, dict):
        t["steps"] = {k: {**s, "predicate": _without(s["predicate"], _V4_PREDICATE_KEYS)}
                      if isinstance(s, dict) and s.get("kind") == "if" and "predicate" in s
                      else s for k, s in steps.items()}
    return t


def _validate_refs(plan: Plan) -> list[str]:
    out: list[str] = []
    for t in plan.trajectories:
        nested: list[list[list[str]]] = [t.layers]
        for s in t.steps.values():
            if isinstance(s, CallStep | CompareStep):
                if s.request.tool not in plan.tools:
                    out.append(f"step `{s.id}` calls unknown tool `{s.request.tool}`")
                out += [f"step `{s.id}` gives `{p}` a list item that is a `{it.junction.kind}` "
                        "junction (a list holds Seq junctions)"
                        for p, items in s.request.lists.items() for it in items
                        if it.junction is not None and it.junction.kind != "seq"]
            if isinstance(s, IfStep):
                nested += [s.then, s.orelse]
                try:
                    predicate_from_json(s.predicate.query)
                except ValueError as exc:
                    out.append(f"step `{s.id}` holds a bad predicate: {exc}")
            if isinstance(s, DrvStep):
                try:
                    query = ReduceQuery.from_json(s.query)
                except ValueError as exc:
                    out.append(f"step `{s.id}` holds a bad reduction: {exc}")
                else:
                    if query.source != s.source:
                        out.append(f"step `{s.id}` reduces `{s.source}` but its query reads "
                                   f"`{query.source}`")
            if isinstance(s, ParallelStep):
                nested.append([s.branches])
            out += [f"step `{s.id}` depends on unknown step `{d}`" for d in s.deps
                    if d not in t.steps]
        for f in t.answer.fields if t.answer is not None else ():
            try:
                value_from_json_data(f.query)
            except ValueError as exc:
                out.append(f"trajectory `{t.name}` holds a bad answer: {exc}")
        for layers in nested:
            out += [f"trajectory `{t.name}` lists unknown step `{k}`"
                    for layer in layers for k in layer if k not in t.steps]
    return out
