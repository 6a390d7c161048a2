"""Episodes: one rollout of one agent on one task, as recorded, and the results directory.

An :class:`Episode` holds everything scoring needs without re-running anything: the agent's
messages, every tool call it made (:class:`CallRecord`), its final answer, why it ended
(:data:`EndReason`, a closed set), tokens and timing, and the gold run made on a fresh backend of
the same kind right after it (:class:`GoldRun`: the gold answer, the gold calls with their place
in the gold dataflow, the world state after the gold). A results directory holds
``episodes.jsonl`` (one episode per line, appended as each finishes) and ``meta.json``
(:class:`RunMeta`: the bundle hash, agent, k, seed, backend); ``edgedsl bench score`` re-scores
it without re-running.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, TypeVar

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.jsonfile import write_atomic

_M = TypeVar("_M", bound=BaseModel)

__all__ = [
    "END_REASONS",
    "EPISODES_FILE",
    "EPISODE_VERSION",
    "META_FILE",
    "CallRecord",
    "EndReason",
    "Episode",
    "EpisodeFileError",
    "GoldCall",
    "GoldRun",
    "RunMeta",
    "TokenUsage",
    "ToolError",
    "ToolErrorKind",
    "append_episode",
    "read_episodes",
    "read_meta",
    "read_models",
    "trim_partial_tail",
    "write_meta",
]

EPISODE_VERSION = 1
"""The version of the episode format (bumped on an incompatible change)."""

EPISODES_FILE = "episodes.jsonl"
"""The episodes of a results directory, one JSON object per line."""

META_FILE = "meta.json"
"""The run's :class:`RunMeta` in a results directory."""

EndReason = Literal[
    "answered",           # the agent gave a final answer
    "no_answer",          # the agent stopped without an answer
    "call_budget",        # the task's call budget was used up
    "time_budget",        # the task's time budget ran out
    "malformed_call",     # a tool call whose arguments are not a JSON object (or no name)
    "unknown_tool",       # a call of a tool the task does not expose
    "invalid_arguments",  # a call whose arguments do not fit the tool's parameters
    "loop",               # the same call repeated past the loop limit
    "agent_error",        # the agent itself failed (an exception, an unusable reply)
    "endpoint_error",     # the model endpoint failed (HTTP error, timeout, bad wire format)
]
"""Why an episode ended: a closed set (:data:`END_REASONS`)."""

END_REASONS: tuple[EndReason, ...] = (
    "answered", "no_answer", "call_budget", "time_budget", "malformed_call", "unknown_tool",
    "invalid_arguments", "loop", "agent_error", "endpoint_error")
"""Every end reason, in a fixed order (reports count them in this order)."""

ToolErrorKind = Literal["unknown_tool", "invalid_arguments", "malformed_call", "call_budget",
                        "time_budget", "loop", "tool_failure"]
"""The class of a failed tool call: the agent's mistake (``unknown_tool``,
``invalid_arguments``, ``malformed_call``), a budget, a ``loop``, or the tool itself failed
(``tool_failure``: the backend's classified failure, its code in :attr:`ToolError.code`)."""


class ToolError(BaseModel):
    """Why one tool call failed: its ``kind``, a diagnostic ``code`` when the backend classified
    it (``R503`` …) with its failure ``failure`` (``structural`` / ``environmental``), and a
    one-line message (secrets scrubbed)."""

    model_config = ConfigDict(extra="forbid")
    kind: ToolErrorKind
    message: str
    code: str | None = None
    failure: Literal["structural", "environmental", "internal"] | None = None


class CallRecord(BaseModel):
    """One tool call of an episode as the toolbox executed it.

    ``tool`` is the qualified name (``dart.company``; the name as called when it is not one the
    task exposes), ``function`` the name as the agent called it, ``arguments`` the arguments
    (JSON, without ``page``): as validated (an integer written ``3.0`` is ``3``, an optional
    ``null`` left out) when they are valid, else as the agent gave them, ``page`` the page
    asked for (None: a tool without paging; a paged tool's default is page 1), ``records``
    the first records returned (at most the toolbox's ``records_shown``), ``count`` how many
    the page held, ``total`` the total the service reported, ``has_more`` whether pages are
    left, ``write`` whether the tool changes state."""

    model_config = ConfigDict(extra="forbid")
    index: int
    tool: str
    function: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    page: int | None = None
    ok: bool = True
    error: ToolError | None = None
    records: list[dict[str, Any]] = Field(default_factory=list)
    count: int = 0
    total: int | None = None
    has_more: bool = False
    write: bool = False
    start_ms: float = 0.0
    duration_ms: float = 0.0


class TokenUsage(BaseModel):
    """Tokens a model spent in an episode (zero for agents without a model)."""

    model_config = ConfigDict(extra="forbid")
    prompt: int = 0
    completion: int = 0


class GoldCall(BaseModel):
    """One call of the gold run: its tool, JSON arguments and page, and its place in the gold
    dataflow — ``step`` (the plan step it belongs to; the calls of one fan or compare step are
    one multiset) and ``after`` (the steps whose calls must come first: the step's dependencies,
    transitively, that make calls)."""

    model_config = ConfigDict(extra="forbid")
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    page: int | None = None
    step: str
    after: list[str] = Field(default_factory=list)
    write: bool = False


class GoldRun(BaseModel):
    """The gold program run on a fresh backend of the episode's kind, right after the episode:
    its answer (``ok`` False when the gold run itself failed, with ``error``), its calls, and the
    world state after it (None for a backend without observable state)."""

    model_config = ConfigDict(extra="forbid")
    ok: bool = True
    answer: Any = None
    error: str | None = None
    calls: list[GoldCall] = Field(default_factory=list)
    state: dict[str, Any] | None = None


class Episode(BaseModel):
    """One rollout of agent ``agent`` on task ``task_id`` of the bundle ``bundle_hash``.

    ``answer`` is the final answer (``answered`` False when there is none), ``end_reason`` why
    the episode ended with a one-line ``detail``; ``state`` is the world state after the episode
    (None on a backend without one); ``gold`` the gold run it is scored against (None when the
    runner was told not to make one); ``platforms`` and ``structure`` are the task's, copied
    from the bundle so that a report groups without it; ``budgets`` the ``calls`` and
    ``seconds`` the episode ran under (the task's own or the run's). Times are milliseconds."""

    model_config = ConfigDict(extra="forbid")
    version: int = EPISODE_VERSION
    bundle_hash: str
    task_id: str
    agent: str
    rollout: int = 0
    seed: int = 0
    backend: str = "world"
    messages: list[dict[str, Any]] = Field(default_factory=list)
    calls: list[CallRecord] = Field(default_factory=list)
    answer: Any = None
    answered: bool = False
    end_reason: EndReason = "no_answer"
    detail: str = ""
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    started_at: float = 0.0
    duration_ms: float = 0.0
    state: dict[str, Any] | None = None
    gold: GoldRun | None = None
    platforms: list[str] = Field(default_factory=list)
    structure: str = ""
    budgets: dict[str, int | float] = Field(default_factory=dict)

    @property
    def key(self) -> tuple[str, int]:
        """``(task_id, rollout)``: what identifies the episode within a run."""
        return (self.task_id, self.rollout)


class RunMeta(BaseModel):
    """A run's settings, in ``meta.json``: the bundle (hash and path), agent, rollouts per task,
    seed, backend and its options, and the budgets."""

    model_config = ConfigDict(extra="forbid")
    version: int = EPISODE_VERSION
    bundle_hash: str
    bundle: str = ""
    agent: str
    k: int = 1
    seed: int = 0
    backend: str = "world"
    backend_options: dict[str, Any] = Field(default_factory=dict)
    budgets: dict[str, Any] = Field(default_factory=dict)
    agent_options: dict[str, Any] = Field(default_factory=dict)


class EpisodeFileError(Exception):
    """A results directory that cannot be read: no ``meta.json`` or ``episodes.jsonl``, or a
    line that is not an episode (with its line number). The message is one line."""


def append_episode(directory: str | Path, episode: Episode) -> None:
    """Append ``episode`` as one JSON line to ``DIRECTORY/episodes.jsonl`` (flushed at once, so
    an interrupted run keeps every episode that finished)."""
    path = Path(directory) / EPISODES_FILE
    line = orjson.dumps(episode.model_dump(mode="json")) + b"\n"
    with path.open("ab") as fh:
        fh.write(line)
        fh.flush()


def read_models(directory: str | Path, model: type[_M]) -> Iterator[_M]:
    """Each line of ``DIRECTORY/episodes.jsonl`` validated as ``model`` (an :class:`Episode`,
    or a model reading part of one), in file order, streamed. A last line cut short by an
    interrupted write (no newline) is skipped; any other line that is not one is an
    :class:`EpisodeFileError` naming its line."""
    path = Path(directory) / EPISODES_FILE
    if not path.is_file():
        raise EpisodeFileError(f"no {EPISODES_FILE} in {str(directory)!r}")
    with path.open("rb") as fh:
        for i, line in enumerate(fh):
            if not line.strip():
                continue
            try:
                yield model.model_validate_json(line)
            except ValidationError as exc:
                if not line.endswith(b"\n"):
                    return
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first.get("loc", ()))
                raise EpisodeFileError(f"{path}:{i + 1}: not an episode: {where or 'line'}: "
                                       f"{first.get('msg', 'invalid')}") from None


def read_episodes(directory: str | Path) -> Iterator[Episode]:
    """The episodes of ``DIRECTORY/episodes.jsonl`` in file order (:func:`read_models`)."""
    return read_models(directory, Episode)


def trim_partial_tail(directory: str | Path) -> int:
    """Cut a last line that an interrupted write left without its newline off
    ``DIRECTORY/episodes.jsonl`` (so that appending resumes on a clean line); the number of
    bytes cut (0 when the file ends cleanly or does not exist)."""
    path = Path(directory) / EPISODES_FILE
    if not path.is_file():
        return 0
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return 0
    keep = data.rfind(b"\n") + 1
    with path.open("r+b") as fh:
        fh.truncate(keep)
    return len(data) - keep


def write_meta(directory: str | Path, meta: RunMeta) -> None:
    """Write ``DIRECTORY/meta.json`` (atomically; the directory is made when missing)."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    write_atomic(d / META_FILE, orjson.dumps(meta.model_dump(mode="json"),
                                             option=orjson.OPT_INDENT_2) + b"\n")


def read_meta(directory: str | Path) -> RunMeta:
    """The :class:`RunMeta` of a results directory (:class:`EpisodeFileError` when missing or
    not one)."""
    path = Path(directory) / META_FILE
    try:
        return RunMeta.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        raise EpisodeFileError(f"no {META_FILE} in {str(directory)!r}: not a results "
                               "directory of `edgedsl bench run`") from None
    except ValidationError as exc:
        raise EpisodeFileError(f"{path}: not a run's meta: {exc.errors()[0]['msg']}") from None
