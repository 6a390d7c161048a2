"""A scripted OpenAI-compatible chat server for tests: real HTTP on 127.0.0.1, the real
chat-completions wire format, ``tool_calls`` in its replies.

A test writes a :class:`ChatScript` — one :class:`Reply` per request, or a function of the
request body that makes one — and serves it with :func:`serve_chat`, which yields the base URL
(``http://127.0.0.1:PORT/v1``). The server answers ``POST /v1/chat/completions`` with the script's
next reply as an OpenAI chat completion (``choices[0].message`` with ``content`` and
``tool_calls``, ``finish_reason``, ``usage``) and ``GET /v1/models`` with the one model.

It is strict about what a client sends, as a real endpoint is: a body that is not a JSON object,
a missing ``model``, messages that are not a list of role/content objects, a ``tool`` message
whose ``tool_call_id`` answers no earlier assistant tool call, a tool call left unanswered
before the next assistant turn, or ``tools`` that are not function schemas are answered 400 with
an OpenAI error body. Every request's body and headers are kept (``script.requests``,
``script.headers``) for the test to inspect. A :class:`Reply` with ``status`` other than 200 is
sent as that HTTP error; a script that runs out answers 500 (the test asked more than it wrote).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson

from edgedsl.world.app import lifespan
from tests.loopback import read_body, respond, serve_asgi

__all__ = ["Call", "ChatScript", "Reply", "serve_chat"]


@dataclass(frozen=True)
class Call:
    """One tool call of a reply: the function name and its arguments (a dict is sent as JSON
    text; a str is sent as is, so a test can send arguments that are not JSON)."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)


@dataclass(frozen=True)
class Reply:
    """One scripted answer: assistant ``content`` and/or tool ``calls``; ``status`` other than
    200 sends an HTTP error with ``content`` as its message; ``usage`` the tokens reported
    (prompt, completion); ``message``, when given, is sent as the assistant message as is (a
    reply some servers send, or a broken one)."""

    content: str | None = None
    calls: tuple[Call, ...] = ()
    status: int = 200
    usage: tuple[int, int] = (20, 5)
    message: dict[str, Any] | None = None


Turn = Reply | Callable[[dict[str, Any]], Reply]
"""A scripted turn: a reply, or a function of the request body that makes one."""


class ChatScript:
    """The replies of one test's chat server, in order; ``repeat_last`` keeps sending the last
    turn once the others are used (an endless tool loop)."""

    def __init__(self, turns: Sequence[Turn], *, repeat_last: bool = False,
                 model: str = "scripted-model") -> None:
        self.turns = list(turns)
        self.repeat_last = repeat_last
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._calls = 0
        self._served = 0

    def next_reply(self, body: dict[str, Any]) -> Reply | None:
        """The reply to the request ``body`` (None when the script has run out)."""
        with self._lock:
            i = self._served
            self._served += 1
            if i >= len(self.turns):
                if not self.repeat_last or not self.turns:
                    return None
                i = len(self.turns) - 1
        turn = self.turns[i]
        return turn(body) if callable(turn) else turn

    def completion(self, reply: Reply) -> dict[str, Any]:
        """``reply`` as an OpenAI chat completion object."""
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.calls:
            calls = []
            for c in reply.calls:
                with self._lock:
                    self._calls += 1
                    n = self._calls
                args = c.arguments if isinstance(c.arguments, str) else \
                    orjson.dumps(c.arguments).decode()
                calls.append({"id": f"call_{n}", "type": "function",
                              "function": {"name": c.name, "arguments": args}})
            message["tool_calls"] = calls
        if reply.message is not None:
            message = reply.message
        prompt, completion = reply.usage
        return {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion",
            "created": 1_700_000_000, "model": self.model,
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion},
        }


def wire_problem(body: Any) -> str | None:
    """What makes ``body`` an invalid chat-completions request (None: valid)."""
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "`model` is required"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "`messages` must be a non-empty list"
    open_calls: set[str] = set()
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in ("system", "user", "assistant", "tool"):
            return f"messages[{i}] has no valid role"
        role = m["role"]
        if role == "tool":
            if m.get("tool_call_id") not in open_calls:
                return f"messages[{i}]: tool message answers no open tool call"
            if not isinstance(m.get("content"), str):
                return f"messages[{i}]: tool content must be a string"
            open_calls.discard(m["tool_call_id"])
            continue
        if open_calls:
            return f"messages[{i}]: tool calls {sorted(open_calls)} were not answered"
        if role == "assistant" and m.get("tool_calls"):
            for c in m["tool_calls"]:
                fn = c.get("function") if isinstance(c, dict) else None
                if not isinstance(fn, dict) or not isinstance(fn.get("arguments"), str) \
                        or not isinstance(c.get("id"), str):
                    return f"messages[{i}]: a malformed tool call"
                open_calls.add(c["id"])
        elif not isinstance(m.get("content"), str):
            return f"messages[{i}]: content must be a string"
    if open_calls:
        return f"tool calls {sorted(open_calls)} were not answered"
    for t in body.get("tools") or []:
        fn = t.get("function") if isinstance(t, dict) else None
        if t.get("type") != "function" or not isinstance(fn, dict) \
                or not isinstance(fn.get("name"), str) \
                or not isinstance(fn.get("parameters"), dict):
            return "`tools` must be function schemas"
    return None


def make_chat_app(script: ChatScript) -> Callable[..., Any]:
    """The ASGI app answering ``script``."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await lifespan(receive, send)
            return
        body = await read_body(receive)

        async def answer(status: int, data: Any) -> None:
            await respond(send, status, orjson.dumps(data))

        def error(message: str, kind: str = "invalid_request_error") -> dict[str, Any]:
            return {"error": {"message": message, "type": kind, "param": None, "code": None}}

        path, method = scope["path"], scope["method"]
        if method == "GET" and path == "/v1/models":
            await answer(200, {"object": "list", "data": [
                {"id": script.model, "object": "model", "owned_by": "test"}]})
            return
        if method != "POST" or path != "/v1/chat/completions":
            await answer(404, error(f"no route {method} {path}", "not_found"))
            return
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            data = None
        script.headers.append({k.decode("latin-1").lower(): v.decode("latin-1")
                               for k, v in scope["headers"]})
        script.requests.append(data if isinstance(data, dict) else {})
        problem = wire_problem(data)
        if problem:
            await answer(400, error(problem))
            return
        reply = script.next_reply(data)
        if reply is None:
            await answer(500, error("the script has no more replies", "server_error"))
        elif reply.status != 200:
            await answer(reply.status, error(reply.content or "scripted error", "server_error"))
        else:
            await answer(200, script.completion(reply))

    return app


@contextmanager
def serve_chat(script: ChatScript) -> Iterator[str]:
    """Serve ``script`` on a free port of 127.0.0.1; yields the base URL (``…/v1``)."""
    with serve_asgi(make_chat_app(script)) as url:
        yield f"{url}/v1"
