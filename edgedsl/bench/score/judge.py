"""An optional model judge for free-text answers (RESPONSE), off unless asked for.

The typed comparison of :mod:`.response` reads numbers, dates, names and lists out of an
answer; a free-text answer that says the right thing in words it does not read ("작년 12월
말", "삼성전자 쪽이 더 올랐다") fails it. With a judge configured (``edgedsl bench score
--judge-url URL --judge-model NAME``, the same on ``bench run``), every episode that **answered
in free text** (its answer is a string), whose gold run succeeded and whose typed comparison
**failed**, is put to a chat model behind an OpenAI-compatible endpoint: the task's question
(when the episode's conversation holds it), the gold answer as JSON and the agent's answer,
asking for ``{"match": true|false, "reason": "…"}``. A ``match`` passes RESPONSE (score 1,
every field counted matched); anything else leaves the typed result as it was.

Every verdict is recorded in the episode's RESPONSE score (:class:`JudgeVerdict`: ``match``,
``mismatch``, ``malformed`` — the reply was not that JSON object — or ``error`` — the endpoint
failed), with the judge's raw reply (or the error) and the model's name, and the run's
``summary.json`` counts them. A malformed reply or a failed endpoint never stops the scoring.

The judge uses the runner's chat client (:class:`~edgedsl.recipe.llm.LLMClient`: the key from
the environment variable ``key_env``, sent only as a header and scrubbed from errors; transport
errors, 429 and 5xx retried), temperature 0, one request per episode, no re-asking: a judge
that cannot say yes or no plainly is recorded as such.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, StrictBool

from ...recipe.llm import (
    DEFAULT_KEY_ENV,
    LLMClient,
    LLMConfig,
    LLMError,
    ReplyError,
    parse_json_reply,
)

__all__ = ["JUDGE_SYSTEM", "JudgeConfig", "JudgeItem", "JudgeVerdict", "Verdict",
           "judge_answers", "judge_messages"]

Verdict = Literal["match", "mismatch", "malformed", "error"]
"""What a judge said: the answer matches, does not, the reply could not be read, or the
endpoint failed."""

JUDGE_SYSTEM = (
    "You grade answers to questions about Korean public data. You are given the question, the "
    "gold answer (JSON, computed by a program; field names are Korean labels) and an agent's "
    "free-text answer. Decide whether the agent's answer states every value of the gold "
    "answer correctly: numbers may be written with Korean units (조, 억, 만, 원, %) or rounded "
    "sensibly, dates in any format, names with or without legal forms such as (주). Extra "
    "correct information is fine; a missing or wrong gold value is not. Reply with one JSON "
    'object and nothing else: {"match": true or false, "reason": "one short sentence"}.'
)
"""The judge's system message."""

_RAW_LIMIT = 2000  # characters of a judge's reply kept in the record


class JudgeVerdict(BaseModel):
    """One judge's verdict on one answer: ``verdict``, the ``reason`` it gave (for
    ``malformed``: what is wrong with its reply), its ``raw`` reply (for ``error``: the
    endpoint's error), cut at 2,000 characters, and the ``model`` that judged."""

    model_config = ConfigDict(extra="forbid")
    verdict: Verdict
    reason: str = ""
    raw: str = ""
    model: str = ""


class _Reply(BaseModel):
    """What the judge must reply: ``match`` and a ``reason``."""

    model_config = ConfigDict(extra="ignore")
    match: StrictBool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class JudgeConfig:
    """Where the judge is: an OpenAI-compatible ``base_url`` (ending in ``/v1``), the ``model``
    and the variable ``key_env`` holding the key (unset: no ``Authorization`` header);
    ``concurrency`` requests at a time, each bounded by ``timeout`` seconds."""

    base_url: str
    model: str
    key_env: str = DEFAULT_KEY_ENV
    concurrency: int = 4
    timeout: float = 60.0

    def llm(self) -> LLMConfig:
        """The chat client's configuration (temperature 0; raises ValueError when invalid)."""
        return LLMConfig(base_url=self.base_url, model=self.model, key_env=self.key_env,
                         timeout=self.timeout, max_concurrency=self.concurrency,
                         temperature=0.0, json_mode=False)

    def describe(self) -> dict[str, Any]:
        """What a summary records of the judge: endpoint (no credentials), model, key variable."""
        described = self.llm().describe()
        return {"base_url": described["base_url"], "model": self.model,
                "key_env": self.key_env}


@dataclass(frozen=True, slots=True)
class JudgeItem:
    """One answer to judge: the ``question`` (None when unknown), the ``gold`` answer and the
    agent's free-text ``answer``."""

    question: str | None
    gold: Any
    answer: str


def judge_messages(item: JudgeItem) -> list[dict[str, str]]:
    """The conversation that asks the judge about ``item``."""
    gold = orjson.dumps(item.gold, option=orjson.OPT_NON_STR_KEYS).decode()
    parts = [f"Question: {item.question}"] if item.question else []
    parts += [f"Gold answer (JSON): {gold}", f"Agent's answer: {item.answer}"]
    return [{"role": "system", "content": JUDGE_SYSTEM},
            {"role": "user", "content": "\n\n".join(parts)}]


def _cut(text: str) -> str:
    return text if len(text) <= _RAW_LIMIT else text[:_RAW_LIMIT] + "…"


async def _judge(client: LLMClient, model: str, item: JudgeItem) -> JudgeVerdict:
    try:
        reply = await client.complete(judge_messages(item), json_mode=False)
    except LLMError as exc:
        return JudgeVerdict(verdict="error", raw=_cut(str(exc)), model=model)
    try:
        got = parse_json_reply(reply.content, _Reply)
    except ReplyError as exc:
        return JudgeVerdict(verdict="malformed", reason=str(exc), raw=_cut(reply.content),
                            model=model)
    return JudgeVerdict(verdict="match" if got.match else "mismatch", reason=got.reason,
                        raw=_cut(reply.content), model=model)


async def judge_answers(config: JudgeConfig, items: Sequence[JudgeItem]) -> list[JudgeVerdict]:
    """The judge's verdict on each of ``items``, in order (``config.concurrency`` requests at a
    time); never raises for a reply or an endpoint failure (module docstring)."""
    if not items:
        return []
    client = LLMClient(config.llm())
    async with client:
        return list(await asyncio.gather(*(_judge(client, config.model, it) for it in items)))
