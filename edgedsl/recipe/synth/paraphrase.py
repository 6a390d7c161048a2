"""The optional paraphrase of a template query by a chat model.

:func:`paraphrase` asks a chat model (:class:`~edgedsl.recipe.llm.LLMClient`) to reword the
template query, and falls back to the template query — counting why — when the reply is invalid,
leaks an answer value, drops a literal value of the trajectory, or drops or changes one of its
constraints (:func:`constraint_problems`: a narrowing, an ``if`` comparison, a field the answer
asks for)."""

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
    "constraint_problems",
    "paraphrase",
    "paraphrase_messages",
]

FallbackReason = Literal["invalid_reply", "leak", "dropped_literal", "dropped_constraint"]


PARAPHRASE_SYSTEM = ("You reword questions in natural Korean for a dataset of tasks over "
                     "Korean public APIs. You answer with one JSON object only.")


"""The system message of a paraphrase request."""


ORDER_WORDS: dict[tuple[str, bool], tuple[str, ...]] = {
    ("max", False): ("가장 큰", "가장 높은", "가장 많은", "제일 큰", "제일 높은", "제일 많은",
                     "최대", "최고", "가장 비싼"),
    ("max", True): ("가장 최근", "가장 늦은", "최근", "최신", "마지막", "제일 늦은"),
    ("min", False): ("가장 작은", "가장 낮은", "가장 적은", "제일 작은", "제일 낮은", "제일 적은",
                     "최소", "최저", "가장 싼"),
    ("min", True): ("가장 이른", "가장 오래된", "가장 먼저", "제일 이른", "최초", "처음"),
    ("ge", False): ("이상",), ("ge", True): ("이후", "부터"),
    ("le", False): ("이하",), ("le", True): ("이전", "까지"),
    ("after", False): ("이후",), ("after", True): ("이후", "뒤", "다음"),
    ("most_frequent", False): ("가장 많이", "가장 자주", "제일 많이", "제일 자주", "최빈",
                               "가장 흔한"),
}
"""The words that state a narrowing, by reducer and whether its field is a date (the template
writes the first; a paraphrase may use any). ``eq`` is stated by its field and its value."""

COMPARE_WORDS: dict[tuple[str, bool], tuple[str, ...]] = {
    (">", True): ("많", "넘", "초과"), (">", False): ("크", "넘", "초과", "높"),
    ("<", True): ("적", "미만", "밑"), ("<", False): ("작", "미만", "낮"),
    (">=", True): ("이상",), (">=", False): ("이상",),
    ("<=", True): ("이하",), ("<=", False): ("이하",),
    ("!=", True): ("아니", "아닌", "다른", "제외"), ("!=", False): ("아니", "아닌", "다른", "제외"),
}
"""The words that state an ``if`` comparison (by operator and whether it compares a count;
``==`` is stated by its value, a literal)."""

COUNT_WORDS = ("건수", "개수", "몇 건", "몇 개", "몇")
"""The words that ask for a count."""


def constraint_problems(text: str, context: Mapping[str, Any]) -> list[str]:
    """The constraints of ``context`` (:func:`~edgedsl.recipe.synth.query.query_context`) that
    ``text`` does not state, each as a short note: a narrowing (``reducers``: its field's label
    and a word of its order, :data:`ORDER_WORDS`; an equality is stated by its value), an
    ``if`` comparison (``comparisons``: :data:`COMPARE_WORDS`), a field the answer asks for
    (its label; a count: a word of :data:`COUNT_WORDS`). The literals are checked apart
    (``dropped_literal``)."""
    out: list[str] = []
    for r in context.get("reducers", ()):
        if r["op"] == "eq":  # stated by its value (서울특별시에 있는 …), a literal
            continue
        if not mentioned(text, [r["label"]]):
            out.append(f"the narrowing by {r['label']}")
            continue
        words = ORDER_WORDS.get((r["op"], bool(r["date"])), ())
        if words and not mentioned(text, list(words)):
            out.append(f"{r['label']} {r['word']}")
    for c in context.get("comparisons", ()):
        says = COMPARE_WORDS.get((c["op"], bool(c["count"])), ())
        if says and not any(w in text for w in says):
            out.append(f"the condition's {c['op']}")
    for f in context.get("answer", {}).get("fields", ()):
        if f["count"]:
            if not any(w in text for w in COUNT_WORDS):
                out.append("the count asked for")
        elif f["of"] is not None and not mentioned(text, [f["label"]]):
            out.append(f"{f['label']} asked for")
    return out


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
    the reply shows an answer value (``leak``, :func:`edgedsl.recipe.synth.filters.find_leaks`),
    when it drops a literal value the trajectory uses (``dropped_literal``), or when it drops or
    changes a narrowing, an ``if`` comparison or a field asked for (``dropped_constraint``,
    :func:`constraint_problems`). Errors that are not about one reply (endpoint unreachable,
    request refused) raise :class:`LLMError`."""

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
    lost = constraint_problems(text, context)
    if lost:
        report.fallback("dropped_constraint", f"the paraphrase drops {', '.join(lost)}")
        return query
    report.paraphrased += 1
    return text
