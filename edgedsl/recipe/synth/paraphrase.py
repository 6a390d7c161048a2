"""The optional paraphrase of a template query by a chat model.

:func:`paraphrase` asks a chat model (:class:`~edgedsl.recipe.llm.LLMClient`) to reword the
template query, and falls back to the template query — counting why — when the reply is invalid,
leaks an answer value, or drops a literal value of the trajectory."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import jinja2
from pydantic import BaseModel, ConfigDict, Field

from ..llm import LLMClient, LLMError, Message
from .filters import find_leaks
from .korean import mentioned, tidy
from .query import prompt_template
from .templates import QueryTemplateError

__all__ = [
    "PARAPHRASE_SYSTEM",
    "FallbackReason",
    "ParaphraseReply",
    "ParaphraseReport",
    "paraphrase",
    "paraphrase_messages",
]

FallbackReason = Literal["invalid_reply", "leak", "dropped_literal"]


PARAPHRASE_SYSTEM = ("You reword questions in natural Korean for a dataset of tasks over "
                     "Korean public APIs. You answer with one JSON object only.")


"""The system message of a paraphrase request."""


class ParaphraseReply(BaseModel):
    """The JSON object the model must reply with: ``{"query": "…"}``."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)
    query: str = Field(min_length=1)


class ParaphraseReport(BaseModel):
    """Paraphrases accepted, fallbacks to the template query by reason, a note per fallback."""

    model_config = ConfigDict(extra="forbid")
    paraphrased: int = 0
    fallbacks: dict[FallbackReason, int] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)

    def fallback(self, reason: FallbackReason, note: str) -> None:
        """Count one fallback to the template query."""
        self.fallbacks[reason] = self.fallbacks.get(reason, 0) + 1
        self.notes.append(f"{reason}: {note}")


def paraphrase_messages(query: str, context: Mapping[str, Any],
                        template: Path | None = None) -> list[Message]:
    """The chat messages of a paraphrase request: ``paraphrase.j2`` (or the file ``template``)
    rendered over ``context`` and ``query``."""
    try:
        prompt = prompt_template(template, "paraphrase.j2").render({**context, "query": query})
    except jinja2.TemplateError as exc:
        raise QueryTemplateError(f"the paraphrase prompt does not render: {exc}") from None
    return [{"role": "system", "content": PARAPHRASE_SYSTEM},
            {"role": "user", "content": prompt.strip() + "\n"}]


async def paraphrase(query: str, context: Mapping[str, Any], client: LLMClient, *,
                     answer: Any, report: ParaphraseReport | None = None,
                     template: Path | None = None, attempts: int | None = None) -> str:
    """A more natural wording of ``query`` by the chat model of ``client``, or ``query`` itself.

    ``context`` is :func:`query_context`'s; ``answer`` the trajectory's answer, read only to
    check the reply. The template query is returned, and the reason counted in ``report``, when
    the model gives no valid ``{"query": "…"}`` reply in its attempts (``invalid_reply``), when
    the reply shows an answer value (``leak``, :func:`edgedsl.recipe.synth.filters.find_leaks`), or
    when it drops a literal value the trajectory uses (``dropped_literal``). Errors that are not
    about one reply (endpoint unreachable, request refused) raise :class:`LLMError`."""

    report = report if report is not None else ParaphraseReport()
    messages = paraphrase_messages(query, context, template)
    try:
        reply = await client.complete_json_reply(messages, ParaphraseReply, attempts=attempts)
    except LLMError as exc:
        if exc.kind != "malformed":
            raise
        report.fallback("invalid_reply", str(exc))
        return query
    text = tidy(reply.value.query)
    literals = [lit for lit in context.get("literals", ()) if lit.get("forms")]
    leaks = find_leaks(text, answer, [f for lit in literals for f in lit["forms"]])
    if leaks:
        report.fallback("leak", f"the paraphrase shows {', '.join(map(repr, leaks))}")
        return query
    dropped = [lit["text"] for lit in literals
               if lit["type"] != "bool" and not mentioned(text, lit["forms"])]
    if dropped:
        report.fallback("dropped_literal", f"the paraphrase drops {', '.join(dropped)}")
        return query
    report.paraphrased += 1
    return text
