"""The tool-dependency graph on disk: G (candidates with priors) and G* (after refinement).

One versioned pydantic model, :class:`ToolGraph`, serves both stages; ``stage`` says which.

* :class:`ToolNode` — a tool of the catalog: qualified name, domain, typed parameters and
  output fields (types spelled as in the language: ``CorpCode``, ``str``, ``date``,
  ``enum[Y, N]``), and default candidates for its required parameters (from catalog enums and
  from values observed in responses), so that a path may start at it.
* :class:`GraphEdge` — a candidate edge ``source → target``: the field bindings (an output field
  of the source → an input parameter of the target), default candidates for the target's
  required parameters that no binding fills, the retriever's similarity, the feasibility prior
  (``score`` in [0, 1], who gave it), and its Beta posterior with trial counts.
* :class:`PrunedEdge` — an edge cut by refinement, with the reason and the iteration.
* :class:`IterationStats` — what one refinement iteration saw (trajectory pass rate, step
  success rate, prunes).

Values of defaults are JSON scalars; a date is an ISO ``YYYY-MM-DD`` string (its parameter's
type says it is a date). :func:`graph_to_json` / :func:`load_graph` write and read the file;
a corrupt file or one of another version is a :class:`GraphFileError` with a clear message.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...core.jsonfile import read_json_object, schema_problems, write_atomic

__all__ = [
    "GRAPH_VERSION",
    "Binding",
    "CatalogRef",
    "FailureCounts",
    "GraphEdge",
    "GraphFileError",
    "IterationStats",
    "Port",
    "PrunedEdge",
    "Scalar",
    "ToolGraph",
    "ToolNode",
    "graph_to_json",
    "load_graph",
    "save_graph",
]

GRAPH_VERSION = 1
"""The version of the graph file format; :func:`load_graph` refuses any other."""

Scalar = str | int | float | bool
"""A default value: a JSON scalar (dates as ISO strings)."""

_cfg = ConfigDict(extra="forbid")


class Port(BaseModel):
    """A typed parameter (input) or field (output) of a tool, with its catalog label (the
    Korean name the catalog declares, ``"정류소명"``) when it has one. As in the catalog, the
    label is not part of equality: a G* written before ports had labels still matches its
    catalog."""

    model_config = _cfg
    name: str
    type: str
    code: str | None = None
    optional: bool = False
    label: str | None = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Port):
            return NotImplemented
        return (self.name, self.type, self.code, self.optional) == (
            other.name, other.type, other.code, other.optional)

    __hash__ = None  # type: ignore[assignment]  # mutable, as every pydantic model


class ToolNode(BaseModel):
    """One tool of the catalog, as the graph sees it."""

    model_config = _cfg
    name: str
    domain: str
    doc: str = ""
    params: list[Port] = Field(default_factory=list)
    fields: list[Port] = Field(default_factory=list)
    writes: bool = False
    defaults: dict[str, list[Scalar]] = Field(default_factory=dict)

    @property
    def required(self) -> list[str]:
        """Names of the required parameters, in declaration order."""
        return [p.name for p in self.params if not p.optional]

    def unbound(self, bound: Collection[str]) -> tuple[dict[str, list[Scalar]], list[str]]:
        """The required parameters that ``bound`` leaves open: those with observed
        :attr:`defaults` (name → a fresh list of them), and the names of those with none, in
        declaration order — what a binding plan fills from defaults and what it misses."""
        defaults: dict[str, list[Scalar]] = {}
        missing: list[str] = []
        for name in self.required:
            if name in bound:
                continue
            values = self.defaults.get(name)
            if values:
                defaults[name] = list(values)
            else:
                missing.append(name)
        return defaults, missing


class Binding(BaseModel):
    """An output field of the source bound to an input parameter of the target."""

    model_config = _cfg
    field: str
    param: str
    why: str = ""


class FailureCounts(BaseModel):
    """Failed trials of an edge by kind."""

    model_config = _cfg
    structural: int = 0
    environmental: int = 0


class GraphEdge(BaseModel):
    """A candidate edge with its prior and its Beta posterior."""

    model_config = _cfg
    source: str
    target: str
    bindings: list[Binding]
    defaults: dict[str, list[Scalar]] = Field(default_factory=dict)
    same_domain: bool = True
    similarity: float = 0.0
    score: float = Field(ge=0.0, le=1.0)
    scorer: str = "heuristic"
    alpha: float = Field(default=1.0, gt=0.0)
    beta: float = Field(default=1.0, gt=0.0)
    trials: int = 0
    successes: int = 0
    failures: FailureCounts = Field(default_factory=FailureCounts)
    last_trial: int | None = None

    @property
    def key(self) -> tuple[str, str]:
        """``(source, target)``: an edge's identity in a graph."""
        return self.source, self.target

    @property
    def mean(self) -> float:
        """The posterior mean success rate α / (α + β)."""
        return self.alpha / (self.alpha + self.beta)


class PrunedEdge(GraphEdge):
    """An edge cut by refinement: why, and in which iteration."""

    reason: str
    pruned_at: int

    def as_edge(self) -> GraphEdge:
        """The edge as it stood when it was cut (reason and iteration dropped)."""
        return GraphEdge(**self.model_dump(exclude={"reason", "pruned_at"}))


class IterationStats(BaseModel):
    """One refinement iteration: paths run, trajectory pass rate, step success rate, prunes,
    edges tried for the first time, edges left."""

    model_config = _cfg
    iteration: int
    paths: int
    passed: int
    steps: int
    steps_ok: int
    environmental: int = 0
    pruned: int = 0
    new_edges: int = 0
    edges: int = 0

    @property
    def pass_rate(self) -> float:
        """Share of the iteration's paths that ran to the end."""
        return self.passed / self.paths if self.paths else 0.0

    @property
    def step_rate(self) -> float:
        """Share of the iteration's attempted steps that succeeded."""
        return self.steps_ok / self.steps if self.steps else 0.0


class CatalogRef(BaseModel):
    """Where the graph's catalog comes from: ``use`` module names and extra search paths."""

    model_config = _cfg
    modules: list[str]
    search_paths: list[str] = Field(default_factory=list)


class ToolGraph(BaseModel):
    """G (``stage="candidates"``) or G* (``stage="refined"``): tools, edges, pruned edges."""

    model_config = _cfg
    version: int = GRAPH_VERSION
    stage: Literal["candidates", "refined"] = "candidates"
    catalog: CatalogRef
    config: dict[str, Scalar | None] = Field(default_factory=dict)
    tools: list[ToolNode]
    edges: list[GraphEdge]
    pruned: list[PrunedEdge] = Field(default_factory=list)
    iterations: list[IterationStats] = Field(default_factory=list)

    def tool(self, name: str) -> ToolNode:
        """The node of tool ``name`` (KeyError naming the closest tools if there is none)."""
        for t in self.tools:
            if t.name == name:
                return t
        raise KeyError(name)

    def on_platforms(self, platforms: Sequence[str]) -> ToolGraph:
        """The same graph on ``platforms`` only: their tools, and the edges and pruned edges
        between them (a smaller synthesis run: a benchmark's smoke size, a light test graph).
        ValueError naming a platform the graph has no tool of."""
        keep = set(platforms)
        have = {t.name.partition(".")[0] for t in self.tools}
        if unknown := sorted(keep - have):
            raise ValueError(f"no tool of platform {', '.join(unknown)} in the graph "
                             f"(it has {', '.join(sorted(have))})")

        def ok(tool: str) -> bool:
            return tool.partition(".")[0] in keep

        return self.model_copy(update={
            "catalog": CatalogRef(modules=list(platforms)),
            "tools": [t for t in self.tools if ok(t.name)],
            "edges": [e for e in self.edges if ok(e.source) and ok(e.target)],
            "pruned": [e for e in self.pruned if ok(e.source) and ok(e.target)],
        })


class GraphFileError(Exception):
    """A graph file that cannot be read: missing, corrupt, another version, or invalid."""


def graph_to_json(graph: ToolGraph) -> bytes:
    """The graph as indented JSON bytes."""
    return orjson.dumps(graph.model_dump(mode="json"), option=orjson.OPT_INDENT_2)


def save_graph(graph: ToolGraph, path: str | Path) -> None:
    """Write ``graph`` to ``path`` atomically (a temporary file renamed over it)."""
    write_atomic(Path(path), graph_to_json(graph))


def load_graph(data: bytes | str | Path) -> ToolGraph:
    """Read a graph from JSON bytes or a file path; :class:`GraphFileError` when it is corrupt,
    of another version, or does not match the schema."""
    raw = read_json_object(data, "graph file", GraphFileError)
    version = raw.get("version")
    if version != GRAPH_VERSION:
        raise GraphFileError(f"graph file version {version}, this edgedsl reads version "
                             f"{GRAPH_VERSION}; rebuild it with `edgedsl graph build`")
    try:
        return ToolGraph.model_validate(raw)
    except ValidationError as exc:
        raise GraphFileError("graph file does not match the schema: "
                             + schema_problems(exc)) from None
