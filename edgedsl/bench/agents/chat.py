"""The tool-calling loop of a chat model, shared by the ``openai`` and ``mcp`` agents.

:func:`chat_loop` talks to an OpenAI-compatible endpoint through the recipe's chat client
(:meth:`~edgedsl.recipe.llm.LLMClient.complete_tools`): it sends the conversation with the
task's tools, executes the tool calls of each reply through a :class:`ToolExecutor` (the
episode's toolbox, or an MCP session), appends their results as ``tool`` messages, and stops on
a final answer. Every way out is a classified end reason
(:data:`~edgedsl.bench.episode.EndReason`):

* ``answered`` — a reply without tool calls whose text is the answer; ``no_answer`` when that
  text is empty;
* ``malformed_call`` / ``unknown_tool`` / ``invalid_arguments`` — the model's mistakes: a call
  whose arguments are not a JSON object (or that has no name), of a tool not exposed, or whose
  arguments do not fit the tool. The error is fed back as the call's result; once more than
  ``mistakes`` calls were mistaken (0 by default: the first one) the episode ends with that
  reason;
* ``call_budget`` / ``time_budget`` / ``loop`` — the toolbox's budgets (the same call repeated
  past its limit is a loop); the time budget also bounds each request to the endpoint;
* ``endpoint_error`` — the endpoint failed (an HTTP error after the client's retries, a
  transport error, a reply that is not a chat completion or whose tool calls are not objects).

The API key is read by the chat client from the environment variable ``key_env`` (by default
``EDGEDSL_LLM_KEY``); it is sent only in the ``Authorization`` header, and every error text the
episode keeps is scrubbed of it. Tokens are summed from each reply's ``usage``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, Protocol

import orjson

from ...recipe.llm import DEFAULT_KEY_ENV, LLMClient, LLMConfig, LLMError
from ...runtime.redact import scrub
from ..episode import EndReason, TokenUsage
from .base import AgentOutcome, TaskView

__all__ = [
    "CHAT_AGENTS",
    "MISTAKES",
    "STOPS",
    "SYSTEM_PROMPT",
    "ChatAgentConfig",
    "Executed",
    "ToolExecutor",
    "chat_loop",
]

SYSTEM_PROMPT = (
    "당신은 한국 공공 API 도구를 사용해 사용자의 질문에 답하는 분석가입니다. "
    "필요한 도구를 호출해 사실을 확인하고, 도구 결과에 근거해서만 답하세요. "
    "페이지가 나뉜 도구는 `page` 인자로 다음 페이지를 읽을 수 있습니다. "
    "최종 답은 도구 호출 없이 답 자체만 간결하게 쓰세요.\n"
    "You answer the user's question with the Korean public-API tools given. Call tools to "
    "establish the facts and answer only from their results; a paged tool reads the next page "
    "with `page`. Give the final answer without a tool call, as the answer alone.")
"""The system message of every chat agent's conversation."""

CHAT_AGENTS: tuple[str, ...] = ("openai", "mcp")
"""The agents that run this loop and take a :class:`ChatAgentConfig`'s options."""

MISTAKES: dict[str, EndReason] = {"malformed_call": "malformed_call",
                                  "unknown_tool": "unknown_tool",
                                  "invalid_arguments": "invalid_arguments"}
"""Error kinds that are the model's own mistakes (fed back, counted against ``mistakes``), and
the end reason each ends an episode with."""

STOPS: dict[str, EndReason] = {"call_budget": "call_budget", "time_budget": "time_budget",
                               "loop": "loop"}
"""Error kinds that end an episode at once (the toolbox's budgets), and their end reasons."""


@dataclass(frozen=True)
class ChatAgentConfig:
    """A chat agent's settings: the endpoint (``base_url``, ``model``, the key's variable
    ``key_env``), ``temperature``, ``seed`` (None: drawn per rollout from the runner's seeded
    generator, so rollouts differ and a re-run repeats them), ``mistakes`` tolerated before a
    mistaken call ends the episode, the per-request ``timeout`` and ``retries`` of the client,
    and ``max_tokens`` per reply."""

    base_url: str
    model: str
    key_env: str = DEFAULT_KEY_ENV
    temperature: float = 0.0
    seed: int | None = None
    mistakes: int = 0
    timeout: float = 120.0
    retries: int = 2
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        if self.mistakes < 0:
            raise ValueError(f"mistakes must not be negative, not {self.mistakes}")
        self.llm()  # the chat client's own checks (URL, model, key variable, temperature …)

    @classmethod
    def of(cls, options: dict[str, Any]) -> ChatAgentConfig:
        """The configuration of an agent factory's keyword ``options`` (``None`` values mean
        the default; ValueError naming a missing endpoint or an unknown option)."""
        opts = {k: v for k, v in options.items() if v is not None}
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(opts) - names)
        if unknown:
            raise ValueError(f"unknown chat agent option(s): {', '.join(unknown)}")
        missing = [f"--{k.replace('_', '-')}" for k in ("base_url", "model") if k not in opts]
        if missing:
            raise ValueError(f"a chat agent needs {' and '.join(missing)}")
        return cls(**opts)

    def llm(self) -> LLMConfig:
        """The chat client's configuration."""
        return LLMConfig(base_url=self.base_url, model=self.model, key_env=self.key_env,
                         timeout=self.timeout, retries=self.retries, max_concurrency=1,
                         temperature=self.temperature, max_tokens=self.max_tokens,
                         json_mode=False)

    def describe(self) -> dict[str, Any]:
        """The settings as JSON scalars for a run's meta (no key, only its variable's name)."""
        out = self.llm().describe()
        out.update(seed=self.seed, mistakes=self.mistakes)
        return out


@dataclass(frozen=True)
class Executed:
    """One executed tool call as the loop needs it: the ``content`` of its tool message, the
    error ``kind`` (None: it worked), the end reason it ``stop``-s the episode with (a budget
    or a loop), and a one-line ``detail``."""

    content: str
    kind: str | None = None
    stop: EndReason | None = None
    detail: str = ""


class ToolExecutor(Protocol):
    """Where a chat agent's tool calls go: the episode's toolbox, or an MCP session."""

    async def call(self, name: str, arguments: str | dict[str, Any]) -> Executed:
        """Execute one call (``arguments`` as the model sent them: JSON text, or an object)."""
        ...


def _error_content(kind: str, message: str) -> str:
    return orjson.dumps({"error": {"kind": kind, "message": message}}).decode()


def _text(content: object) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return None


def _calls(message: dict[str, Any]) -> list[dict[str, Any]] | str:
    """The tool calls of an assistant message, each ``{"id", "name", "arguments"}``; a string
    saying what is wrong when they are not objects with a function (a broken reply)."""
    raw = message.get("tool_calls")
    if raw is None:
        return []
    if not isinstance(raw, list):
        return "`tool_calls` is not a list"
    out = []
    for i, c in enumerate(raw):
        fn = c.get("function") if isinstance(c, dict) else None
        if not isinstance(fn, dict):
            return f"tool call {i} has no function object"
        cid = c.get("id")
        out.append({"id": cid if isinstance(cid, str) and cid else f"call_{i}",
                    "name": fn.get("name"), "arguments": fn.get("arguments")})
    return out


async def chat_loop(config: ChatAgentConfig, task: TaskView, tools: list[dict[str, Any]],
                    executor: ToolExecutor, rng: random.Random, *,
                    seconds_left: Callable[[], float]) -> AgentOutcome:
    """Run the conversation of ``task`` with ``tools`` until it ends (module docstring).
    ``seconds_left`` is the episode's remaining time budget."""
    client = LLMClient(config.llm())
    seed = config.seed if config.seed is not None else rng.randrange(2**31)
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT},
                                      {"role": "user", "content": task.query}]
    tokens = TokenUsage()
    mistaken = 0

    def end(reason: EndReason, detail: str = "", answer: Any = None) -> AgentOutcome:
        return AgentOutcome(answer=scrub(answer), answered=reason == "answered",
                            end_reason=reason, detail=scrub(detail)[:500],
                            messages=scrub(messages), tokens=tokens)

    async with client:
        while True:
            left = seconds_left()
            if left <= 0:
                return end("time_budget", "the time budget ran out before the next request")
            try:
                reply = await asyncio.wait_for(client.complete_tools(
                    messages, tools, temperature=config.temperature, seed=seed), timeout=left)
            except TimeoutError:
                return end("time_budget", "the time budget ran out waiting for the model")
            except LLMError as exc:
                return end("endpoint_error", str(exc))
            tokens = TokenUsage(prompt=tokens.prompt + reply.usage.prompt_tokens,
                                completion=tokens.completion + reply.usage.completion_tokens)
            calls = _calls(reply.message)
            content = _text(reply.message.get("content"))
            if isinstance(calls, str):
                messages.append({"role": "assistant", "content": content})
                return end("endpoint_error", f"the reply's tool calls are broken: {calls}")
            said: dict[str, Any] = {"role": "assistant", "content": content}
            if calls:
                said["tool_calls"] = [
                    {"id": c["id"], "type": "function",
                     "function": {"name": c["name"] if isinstance(c["name"], str) else "",
                                  "arguments": c["arguments"]
                                  if isinstance(c["arguments"], str)
                                  else orjson.dumps(c["arguments"]).decode()}}
                    for c in calls]
            messages.append(said)
            if not calls:
                answer = (content or "").strip()
                return end("answered", answer=answer) if answer else \
                    end("no_answer", "the model's final reply is empty")
            for c in calls:
                name, args = c["name"], c["arguments"]
                if not isinstance(name, str) or not name:
                    done = Executed(_error_content("malformed_call", "the call has no name"),
                                    kind="malformed_call", detail="a tool call without a name")
                elif not isinstance(args, str | dict) and args is not None:
                    done = Executed(_error_content("malformed_call",
                                                   "arguments must be a JSON object"),
                                    kind="malformed_call",
                                    detail=f"`{name}`: arguments are a {type(args).__name__}")
                else:
                    done = await executor.call(name, args if args is not None else "{}")
                messages.append({"role": "tool", "tool_call_id": c["id"],
                                 "content": done.content})
                if done.stop is not None:
                    return end(done.stop, done.detail)
                mistake = MISTAKES.get(done.kind or "")
                if mistake is not None:
                    mistaken += 1
                    if mistaken > config.mistakes:
                        return end(mistake, done.detail)
