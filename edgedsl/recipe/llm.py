"""An async client for any OpenAI-compatible chat endpoint, over plain httpx.

Language models are optional in edgedsl: every place that may use one (the feasibility prior of a
candidate edge, query paraphrases, the static filter) has a deterministic default. When a model
is wanted, :class:`LLMClient` talks to ``POST {base_url}/chat/completions`` of any
OpenAI-compatible server (OpenAI, vLLM, llama.cpp, Ollama, LiteLLM, …):

* configuration is one frozen :class:`LLMConfig` (``base_url``, ``model``, ``key_env``,
  ``timeout``, ``max_concurrency``, ``attempts``, …), built from CLI flags by
  :meth:`LLMConfig.from_flags`;
* the API key is read from the environment variable named by ``key_env``
  (``EDGEDSL_LLM_KEY`` by default), sent as ``Authorization: Bearer …`` and scrubbed from every
  error message and log line; when the variable is unset no ``Authorization`` header is sent
  (local servers rarely need one);
* transport errors, HTTP 429 and HTTP 5xx are retried with exponential backoff and jitter
  (``Retry-After`` is honoured); any other HTTP error is refused at once;
* at most ``max_concurrency`` requests are in flight per client (a semaphore);
* :meth:`LLMClient.complete_json` parses the reply as JSON (a ```json fenced block and prose
  around one JSON object are tolerated), validates it with a pydantic model, and on a malformed
  or invalid reply asks again with the validation error appended to the conversation; after
  ``attempts`` replies it raises :class:`LLMError` (``kind="malformed"``);
* usage is counted per call and in total (:class:`LLMUsage`: calls, HTTP requests, retries,
  malformed replies, failures, tokens);
* :meth:`LLMClient.complete_tools` sends a conversation with function ``tools`` (and any
  message an OpenAI conversation holds: assistant ``tool_calls``, ``tool`` results) and returns
  the assistant's message as the endpoint sent it (:class:`ToolReply`), for agents that call
  tools (``edgedsl.bench.agents.openai``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Generic, Literal, TypeVar

import httpx
import orjson
from pydantic import BaseModel, ValidationError

from ..runtime.redact import Redactor, excerpt, remember

__all__ = [
    "DEFAULT_KEY_ENV",
    "ChatClient",
    "Completion",
    "JSONReply",
    "LLMClient",
    "LLMConfig",
    "LLMError",
    "LLMUsage",
    "Message",
    "ReplyError",
    "ToolReply",
    "parse_json_reply",
]

DEFAULT_KEY_ENV = "EDGEDSL_LLM_KEY"
"""The environment variable holding the endpoint's API key unless configured otherwise."""

Message = Mapping[str, str]
"""One chat message: ``{"role": "system" | "user" | "assistant", "content": …}``."""

T = TypeVar("T", bound=BaseModel)

log = logging.getLogger("edgedsl.recipe.llm")

_RETRY_AFTER_CAP = 60.0  # seconds: a longer Retry-After is not waited for in full
_ECHO_LIMIT = 4000       # characters of a rejected reply echoed back into the conversation


@dataclass(frozen=True, slots=True)
class LLMConfig:
    """Where and how to reach a chat model; never holds the key itself, only its variable's name.

    ``attempts`` is the number of replies :meth:`LLMClient.complete_json` asks for before it
    gives up on a malformed reply; ``retries`` the number of extra HTTP requests after a
    transport error, 429 or 5xx (delays ``backoff · 2^i`` capped at ``max_backoff``, each
    multiplied by a jitter in [0.5, 1.0)).
    """

    base_url: str
    model: str
    key_env: str = DEFAULT_KEY_ENV
    timeout: float = 60.0
    max_concurrency: int = 4
    attempts: int = 3
    retries: int = 4
    backoff: float = 0.5
    max_backoff: float = 8.0
    temperature: float = 0.0
    max_tokens: int | None = None
    json_mode: bool = True

    def __post_init__(self) -> None:
        url = httpx.URL(self.base_url)
        if url.scheme not in ("http", "https") or not url.host:
            raise ValueError(f"LLM base URL must be an http(s) URL such as "
                             f"http://127.0.0.1:8000/v1, not {_safe_url(self.base_url)!r}")
        if not self.model.strip():
            raise ValueError("LLM model name is empty")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.key_env):
            raise ValueError(f"LLM key variable must be an environment variable name, "
                             f"not {self.key_env!r}")
        checks: list[tuple[bool, str]] = [
            (self.timeout > 0, "timeout must be positive"),
            (self.max_concurrency >= 1, "max_concurrency must be at least 1"),
            (self.attempts >= 1, "attempts must be at least 1"),
            (self.retries >= 0, "retries must not be negative"),
            (self.backoff >= 0 and self.max_backoff >= 0, "backoff must not be negative"),
            (0.0 <= self.temperature <= 2.0, "temperature must be in [0, 2]"),
            (self.max_tokens is None or self.max_tokens >= 1, "max_tokens must be positive"),
        ]
        for ok, msg in checks:
            if not ok:
                raise ValueError(f"LLM configuration: {msg}")

    @classmethod
    def from_flags(cls, url: str | None, model: str | None, **options: Any) -> LLMConfig | None:
        """The configuration of ``--llm-url URL --llm-model NAME`` (plus keyword ``options``
        for the other fields, ``None`` meaning the default); ``None`` when neither flag is
        given; :class:`ValueError` when only one is."""
        if url is None and model is None:
            return None
        if url is None or model is None:
            given, missing = ("--llm-url", "--llm-model") if model is None else \
                ("--llm-model", "--llm-url")
            raise ValueError(f"{given} needs {missing} as well")
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - names)
        if unknown:
            raise ValueError(f"unknown LLM option(s): {', '.join(unknown)}")
        return cls(base_url=url, model=model,
                   **{k: v for k, v in options.items() if v is not None})

    def describe(self) -> dict[str, str | int | float | bool | None]:
        """The configuration as JSON scalars, for reports and graph files (no key, no
        credentials embedded in the URL)."""
        out: dict[str, str | int | float | bool | None] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = _safe_url(value) if f.name == "base_url" else value
        return out


@dataclass(frozen=True, slots=True)
class LLMUsage:
    """Usage counts: calls made, HTTP requests sent, transport/429/5xx retries, malformed or
    invalid replies, calls that failed, and the tokens the endpoint reported."""

    calls: int = 0
    requests: int = 0
    retries: int = 0
    malformed: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: LLMUsage) -> LLMUsage:
        return LLMUsage(**{f.name: getattr(self, f.name) + getattr(other, f.name)
                           for f in fields(self)})

    def to_json(self) -> dict[str, int]:
        """The counts as a JSON object."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, slots=True)
class Completion:
    """One chat reply: its text, the finish reason and model the endpoint reported, and the
    usage of the call that produced it."""

    content: str
    usage: LLMUsage
    finish_reason: str | None = None
    model: str | None = None


@dataclass(frozen=True, slots=True)
class JSONReply(Generic[T]):
    """A validated JSON reply: the value, the number of replies it took, and the call's usage."""

    value: T
    attempts: int
    usage: LLMUsage


@dataclass(frozen=True, slots=True)
class ToolReply:
    """One reply to a conversation with tools: the assistant ``message`` as the endpoint sent it
    (a JSON object with ``role``, ``content`` and perhaps ``tool_calls``; not validated beyond
    being an object), the finish reason and model reported, and the call's usage."""

    message: dict[str, Any]
    usage: LLMUsage
    finish_reason: str | None = None
    model: str | None = None


ErrorKind = Literal["malformed", "transport", "refused", "protocol"]


class LLMError(Exception):
    """A chat call that failed; the message never contains the API key.

    ``kind`` says why: ``malformed`` (no valid reply in the allowed attempts), ``transport``
    (network errors, 429 or 5xx after every retry), ``refused`` (another HTTP error: a wrong
    key, URL or model name), ``protocol`` (the endpoint's reply is not a chat completion).
    ``usage`` holds the counts of the failed call, ``status`` the last HTTP status if any.
    """

    def __init__(self, message: str, *, kind: ErrorKind, usage: LLMUsage | None = None,
                 status: int | None = None) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.usage = usage or LLMUsage()
        self.status = status

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_error, (str(self), self.kind, self.usage, self.status))


def _rebuild_error(message: str, kind: ErrorKind, usage: LLMUsage,
                   status: int | None) -> LLMError:
    return LLMError(message, kind=kind, usage=usage, status=status)


class ReplyError(ValueError):
    """A reply that is not the expected JSON: not JSON at all, or not valid for the schema."""


# ----------------------------------------------------------------------------- JSON replies

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|json5)?[ \t]*\r?\n?(.*?)```", re.DOTALL)


def _json_candidates(content: str) -> list[str]:
    text = content.strip()
    out = [m.group(1).strip() for m in _FENCE.finditer(text)]
    out.append(text)
    first, last = text.find("{"), text.rfind("}")
    if 0 <= first < last:
        out.append(text[first:last + 1])
    return out


def _short(value: object, limit: int = 80) -> str:
    return excerpt(value, limit)  # a live key masked before the text is cut


def _format_validation(exc: ValidationError) -> str:
    errs = exc.errors()
    parts = []
    for e in errs[:8]:
        loc = ".".join(str(p) for p in e["loc"]) or "(top level)"
        parts.append(f"{loc}: {e['msg']} (got {_short(e.get('input'))})")
    more = f"; and {len(errs) - 8} more" if len(errs) > 8 else ""
    return "; ".join(parts) + more


def parse_json_reply(content: str, model: type[T]) -> T:
    """Parse a model's reply as one JSON object and validate it with ``model``.

    The JSON may stand alone, sit in a Markdown code fence (```json … ```), or be surrounded by
    prose (the text from the first ``{`` to the last ``}`` is tried last). Raises
    :class:`ReplyError` with a short message fit to be shown to the model.
    """
    if not content.strip():
        raise ReplyError("the reply is empty; expected a JSON object")
    data: object = None
    parsed = False
    first_error = ""
    for text in _json_candidates(content):
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            first_error = first_error or str(exc)
            continue
        parsed = True
        if isinstance(data, dict):
            break
    if not parsed:
        raise ReplyError(f"the reply is not valid JSON ({first_error})")
    if not isinstance(data, dict):
        raise ReplyError(f"expected a JSON object, got a JSON {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ReplyError("the JSON does not match the expected schema: "
                         + _format_validation(exc)) from None


# ----------------------------------------------------------------------------- the client


def _safe_url(url: str) -> str:
    """``url`` without user name or password."""
    try:
        u = httpx.URL(url)
    except Exception:
        return "<invalid URL>"
    if u.userinfo:
        u = u.copy_with(username=None, password=None)
    return str(u)


def _content_text(content: object) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": …}, …]
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    raise TypeError(type(content).__name__)


class _Tally:
    """Mutable counters of one call (turned into an :class:`LLMUsage` when it ends)."""

    __slots__ = ("completion_tokens", "malformed", "prompt_tokens", "requests", "retries")

    def __init__(self) -> None:
        self.requests = self.retries = self.malformed = 0
        self.prompt_tokens = self.completion_tokens = 0

    def usage(self, failed: bool) -> LLMUsage:
        return LLMUsage(calls=1, requests=self.requests, retries=self.retries,
                        malformed=self.malformed, failures=int(failed),
                        prompt_tokens=self.prompt_tokens,
                        completion_tokens=self.completion_tokens)


def _count_tokens(data: dict[str, Any], tally: _Tally) -> None:
    """Add the tokens a completion's ``usage`` reports to ``tally`` (a missing or odd ``usage``
    counts nothing)."""
    usage = data.get("usage")
    if isinstance(usage, dict):
        for key, attr in (("prompt_tokens", "prompt_tokens"),
                          ("completion_tokens", "completion_tokens")):
            v = usage.get(key)
            if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                setattr(tally, attr, getattr(tally, attr) + v)


class LLMClient:
    """An async client of one OpenAI-compatible chat endpoint and model.

    ``async with client: …`` keeps one connection pool open for the calls inside it (sessions
    nest and are counted); a call made outside any session opens a pool for its own duration, so
    nothing is left open either way. The client may be used from successive event loops (each
    gets its own pool and concurrency cap). ``environ`` replaces ``os.environ`` for looking up
    the key; ``seed`` makes the backoff jitter reproducible.
    """

    def __init__(self, config: LLMConfig, *, environ: Mapping[str, str] | None = None,
                 seed: int | None = None) -> None:
        self.config = config
        env = os.environ if environ is None else environ
        self.__key: str | None = env.get(config.key_env) or None
        if self.__key is not None and not (self.__key.isascii() and self.__key.isprintable()):
            raise ValueError(f"{config.key_env} holds characters an HTTP header cannot carry "
                             "(a key is printable ASCII)")
        remember(self.__key)  # whatever edgedsl writes hides it (edgedsl.runtime.redact)
        self._hidden = Redactor([self.__key] if self.__key else [])
        self._url = config.base_url.rstrip("/") + "/chat/completions"
        self._shown_url = _safe_url(self._url)
        self._rand = random.Random(seed)
        self._usage = LLMUsage()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._http: httpx.AsyncClient | None = None
        self._sem: asyncio.Semaphore | None = None
        self._sessions = 0

    def __repr__(self) -> str:
        key = "set" if self.__key else "unset"
        return (f"LLMClient(model={self.config.model!r}, url={self._shown_url!r}, "
                f"key_env={self.config.key_env!r} ({key}))")

    @property
    def has_key(self) -> bool:
        """True when the key variable was set (an ``Authorization`` header is sent)."""
        return self.__key is not None

    @property
    def usage(self) -> LLMUsage:
        """The usage of every call made through this client so far."""
        return self._usage

    async def __aenter__(self) -> LLMClient:
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._http is None:
            # a pool left open by an earlier, finished loop cannot be closed from this one
            self._http, self._loop, self._sessions = self._new_pool(), loop, 0
            self._sem = asyncio.Semaphore(self.config.max_concurrency)
        self._sessions += 1
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._sessions -= 1
        if self._sessions <= 0:
            await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool now (calls still in flight will fail)."""
        http, self._http, self._loop, self._sem = self._http, None, None, None
        self._sessions = 0
        if http is not None:
            await http.aclose()

    # -- helpers --------------------------------------------------------------------------

    def _scrub(self, text: str) -> str:
        return self._hidden.text(text)  # in every form an endpoint may echo it

    def _error(self, message: str, *, kind: ErrorKind, tally: _Tally,
               status: int | None = None) -> LLMError:
        usage = tally.usage(failed=True)
        self._usage = self._usage + usage
        msg = self._scrub(message)
        log.debug("%s", msg)  # raised, not logged louder: the caller decides what it means
        return LLMError(msg, kind=kind, usage=usage, status=status)

    def _new_pool(self) -> httpx.AsyncClient:
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "User-Agent": "edgedsl"}
        if self.__key:
            headers["Authorization"] = f"Bearer {self.__key}"
        timeout = httpx.Timeout(self.config.timeout, connect=min(10.0, self.config.timeout))
        limits = httpx.Limits(max_connections=self.config.max_concurrency,
                              max_keepalive_connections=self.config.max_concurrency)
        return httpx.AsyncClient(headers=headers, timeout=timeout, limits=limits,
                                 follow_redirects=False, trust_env=False)

    def _delay(self, retry: int, retry_after: str | None) -> float:
        cfg = self.config
        jitter = 0.5 + 0.5 * self._rand.random()
        delay = min(cfg.max_backoff, cfg.backoff * (2 ** retry)) * jitter
        if retry_after:
            try:
                delay = max(delay, min(float(retry_after), _RETRY_AFTER_CAP))
            except ValueError:  # an HTTP date: keep the computed backoff
                return delay
        return delay

    def _body(self, messages: Sequence[Message], json_mode: bool,
              temperature: float | None) -> bytes:
        cfg = self.config
        body: dict[str, Any] = {
            "model": cfg.model,
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
            "temperature": cfg.temperature if temperature is None else temperature,
        }
        if cfg.max_tokens is not None:
            body["max_tokens"] = cfg.max_tokens
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        return orjson.dumps(body)

    async def _post(self, body: bytes, tally: _Tally) -> dict[str, Any]:
        cfg = self.config
        http, sem = self._http, self._sem
        if http is None or sem is None:  # the pool was closed under a running call
            raise self._error("the LLM client was closed", kind="transport", tally=tally)
        retry = 0
        while True:
            retry_after: str | None = None
            status: int | None = None
            async with sem:
                tally.requests += 1
                try:
                    resp = await http.post(self._url, content=body)
                except httpx.TransportError as exc:
                    problem = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                else:
                    status = resp.status_code
                    if status < 300:
                        try:
                            data = orjson.loads(resp.content)
                        except orjson.JSONDecodeError:
                            raise self._error(
                                f"the chat endpoint {self._shown_url} answered HTTP {status} "
                                f"with a body that is not JSON: {_short(resp.text[:200])}",
                                kind="protocol", tally=tally, status=status) from None
                        if not isinstance(data, dict):
                            raise self._error(
                                f"the chat endpoint {self._shown_url} answered a JSON "
                                f"{type(data).__name__}, not a chat completion object",
                                kind="protocol", tally=tally, status=status)
                        return data
                    problem = f"HTTP {status}: {_short(self._scrub(resp.text)[:300])}"
                    if status != 429 and status < 500:
                        hint = ""
                        if status in (401, 403):
                            hint = (f" (is ${cfg.key_env} set to a valid key?"
                                    f"{'' if self.__key else ' it is not set'})")
                        elif status == 404:
                            hint = (f" (is the base URL right, e.g. ending in /v1, and is the "
                                    f"model {cfg.model!r} served there?)")
                        raise self._error(
                            f"the chat endpoint {self._shown_url} refused the request: "
                            f"{problem}{hint}", kind="refused", tally=tally, status=status)
                    retry_after = resp.headers.get("retry-after")
            if retry >= cfg.retries:
                raise self._error(
                    f"the chat endpoint {self._shown_url} failed after {retry + 1} request(s): "
                    f"{problem}", kind="transport", tally=tally, status=status)
            delay = self._delay(retry, retry_after)
            retry += 1
            tally.retries += 1
            log.info("%s", self._scrub(f"chat endpoint {self._shown_url}: {problem}; retry "
                                       f"{retry}/{cfg.retries} in {delay:.2f}s"))
            await asyncio.sleep(delay)

    async def _chat(self, messages: Sequence[Message], json_mode: bool,
                    temperature: float | None, tally: _Tally) -> Completion:
        data = await self._post(self._body(messages, json_mode, temperature), tally)
        _count_tokens(data, tally)
        try:
            choice = data["choices"][0]
            content = _content_text(choice["message"].get("content"))
        except (KeyError, IndexError, TypeError, AttributeError):
            raise self._error(
                f"the chat endpoint {self._shown_url} answered something that is not a chat "
                f"completion (no choices[0].message): {_short(data, 200)}",
                kind="protocol", tally=tally) from None
        reason = choice.get("finish_reason")
        model = data.get("model")
        return Completion(content=content, usage=LLMUsage(),
                          finish_reason=reason if isinstance(reason, str) else None,
                          model=model if isinstance(model, str) else None)

    # -- public calls ---------------------------------------------------------------------

    async def complete(self, messages: Sequence[Message], *, json_mode: bool = False,
                       temperature: float | None = None) -> Completion:
        """One chat completion of ``messages`` (retrying transport errors, 429 and 5xx);
        ``json_mode`` asks for ``response_format: json_object`` (if the configuration allows
        it). Raises :class:`LLMError`."""
        tally = _Tally()
        async with self:
            reply = await self._chat(messages, json_mode and self.config.json_mode,
                                     temperature, tally)
        usage = tally.usage(failed=False)
        self._usage = self._usage + usage
        return Completion(content=reply.content, usage=usage, finish_reason=reply.finish_reason,
                          model=reply.model)

    async def complete_tools(self, messages: Sequence[Mapping[str, Any]],
                             tools: Sequence[Mapping[str, Any]], *,
                             temperature: float | None = None,
                             seed: int | None = None) -> ToolReply:
        """One chat completion of ``messages`` (OpenAI message objects, sent as given) with the
        function ``tools`` offered (``tool_choice: auto``), ``temperature`` (the configuration's
        by default) and ``seed`` passed on; transport errors, 429 and 5xx retried as by
        :meth:`complete`. Raises :class:`LLMError` (``protocol`` when the reply has no
        ``choices[0].message`` object)."""
        cfg = self.config
        body: dict[str, Any] = {
            "model": cfg.model,
            "messages": list(messages),
            "temperature": cfg.temperature if temperature is None else temperature,
        }
        if tools:
            body["tools"] = list(tools)
            body["tool_choice"] = "auto"
        if seed is not None:
            body["seed"] = seed
        if cfg.max_tokens is not None:
            body["max_tokens"] = cfg.max_tokens
        tally = _Tally()
        async with self:
            data = await self._post(orjson.dumps(body), tally)
            _count_tokens(data, tally)
            choice = data.get("choices")
            first = choice[0] if isinstance(choice, list) and choice else None
            message = first.get("message") if isinstance(first, dict) else None
            if not isinstance(message, dict):
                raise self._error(
                    f"the chat endpoint {self._shown_url} answered something that is not a "
                    f"chat completion (no choices[0].message): {_short(data, 200)}",
                    kind="protocol", tally=tally)
        usage = tally.usage(failed=False)
        self._usage = self._usage + usage
        assert isinstance(first, dict)
        reason, model = first.get("finish_reason"), data.get("model")
        return ToolReply(message=message, usage=usage,
                         finish_reason=reason if isinstance(reason, str) else None,
                         model=model if isinstance(model, str) else None)

    async def complete_json_reply(self, messages: Sequence[Message], model: type[T], *,
                                  attempts: int | None = None,
                                  temperature: float | None = None) -> JSONReply[T]:
        """Like :meth:`complete_json`, with the number of replies it took and the usage."""
        n = self.config.attempts if attempts is None else attempts
        if n < 1:
            raise ValueError("attempts must be at least 1")
        tally = _Tally()
        conversation: list[Message] = list(messages)
        async with self:
            return await self._json_loop(conversation, model, n, temperature, tally)

    async def _json_loop(self, conversation: list[Message], model: type[T], n: int,
                         temperature: float | None, tally: _Tally) -> JSONReply[T]:
        last = ""
        for attempt in range(1, n + 1):
            reply = await self._chat(conversation, self.config.json_mode, temperature, tally)
            try:
                value = parse_json_reply(reply.content, model)
            except ReplyError as exc:
                tally.malformed += 1
                last = str(exc)
                log.info("%s", self._scrub(f"model {self.config.model!r}: reply {attempt}/{n} "
                                           f"rejected: {last}"))
                echoed = reply.content if len(reply.content) <= _ECHO_LIMIT else \
                    reply.content[:_ECHO_LIMIT] + " …"
                conversation = [
                    *conversation,
                    {"role": "assistant", "content": echoed},
                    {"role": "user", "content": (
                        f"Your reply could not be used: {last}\n"
                        "Reply again with only one JSON object that follows the requested "
                        "format: no prose, no comments.")},
                ]
                continue
            usage = tally.usage(failed=False)
            self._usage = self._usage + usage
            return JSONReply(value=value, attempts=attempt, usage=usage)
        raise self._error(f"the model {self.config.model!r} gave no valid {model.__name__} "
                          f"reply in {n} attempt(s); last problem: {last}",
                          kind="malformed", tally=tally)

    async def complete_json(self, messages: Sequence[Message], model: type[T], *,
                            attempts: int | None = None,
                            temperature: float | None = None) -> T:
        """Ask for a JSON reply and validate it with the pydantic ``model``.

        A reply that is not JSON or does not validate is answered with the problem and asked
        again, up to ``attempts`` replies in all (the configuration's ``attempts`` by default);
        then :class:`LLMError` with ``kind="malformed"``. Transport problems raise
        :class:`LLMError` with their own kind.
        """
        reply = await self.complete_json_reply(messages, model, attempts=attempts,
                                               temperature=temperature)
        return reply.value


ChatClient = LLMClient
"""Another name of :class:`LLMClient`."""
