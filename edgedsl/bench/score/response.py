"""RESPONSE: the agent's final answer against the gold answer, compared by the gold's type.

The gold answer is recomputed on the episode's backend (:class:`~edgedsl.bench.episode.GoldRun`),
so a drifting service moves both. Per gold value:

* a **number** matches a number or a text writing one (:func:`~.values.parse_number`: commas,
  ``%``, Korean units ``조``/``억``/``만``/``천``, number words, ``원``) within
  :data:`NUMBER_REL` of the gold, or :data:`NUMBER_ABS` when the gold has a fraction (an answer
  rounded to two places still matches);
* a **date** (a gold text in ISO form) matches a date in any common format
  (:func:`~.values.parse_date`);
* a **text** matches a text equal as a name (:func:`~.values.name_key`: legal forms such as
  ``(주)`` / ``주식회사``, spaces, punctuation and case aside), or numerically when both write
  numbers;
* a **bool** matches a bool or ``예``/``아니오``…; **null** matches null, ``""`` or ``없음``;
* a **list** matches a list with the same elements in any order (a multiset: answers list sets),
  a text listing them (``a, b · c``), or — a one-element gold — that element alone;
* an **object** is matched field by field (field names compared as names); the RESPONSE score is
  the share of gold fields matched, and the episode passes when all are.

An answer given as free text is searched for each gold value in its Korean renderings
(:func:`~edgedsl.recipe.synth.korean.mentioned`). A model judge for free text is optional and
off by default (:mod:`.judge`); its verdict, when one was asked for, is kept in
:attr:`ResponseScore.judge`.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...recipe.synth.korean import korean_forms, mentioned
from .judge import JudgeVerdict
from .values import name_key, parse_bool, parse_date, parse_number

__all__ = ["NUMBER_ABS", "NUMBER_REL", "ResponseScore", "same_value", "score_response"]

NUMBER_REL = 1e-4
"""The relative tolerance of a number (0.01 %)."""

NUMBER_ABS = 0.005
"""The absolute tolerance of a gold number with a fraction (rounding to two places)."""

_SPLIT = re.compile(r"\s*(?:[,·/、;\n]|\s및\s)\s*")
_NULLS = frozenset({"", "없음", "null", "none", "-", "n/a"})


class ResponseScore(BaseModel):
    """The RESPONSE axis of one episode: ``matched`` of ``total`` gold fields, ``ok`` when all
    matched and the episode ended with an answer, and up to five ``mismatches``; ``judge`` the
    model judge's verdict on a free-text answer, when a judge was asked (:mod:`.judge`)."""

    model_config = ConfigDict(extra="forbid")
    ok: bool
    score: float
    matched: int
    total: int
    mismatches: list[str] = Field(default_factory=list)
    judge: JudgeVerdict | None = None


def _num(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v)
    return parse_number(v) if isinstance(v, str) else None


def _close(a: float, g: float) -> bool:
    tol = max(NUMBER_REL * abs(g), 0.0 if float(g).is_integer() else NUMBER_ABS)
    return math.isfinite(a) and abs(a - g) <= tol + 1e-12


def _date(v: Any) -> dt.date | None:
    if isinstance(v, dt.date):
        return v
    if isinstance(v, str):
        return parse_date(v)
    if isinstance(v, int) and not isinstance(v, bool):
        return parse_date(str(v))
    return None


def _multiset(agent: list[Any], gold: list[Any]) -> bool:
    if len(agent) != len(gold):
        return False
    left = list(agent)
    for g in gold:
        hit = next((i for i, a in enumerate(left) if same_value(a, g)), None)
        if hit is None:
            return False
        left.pop(hit)
    return True


def same_value(agent: Any, gold: Any) -> bool:
    """True when the agent's value ``agent`` says what ``gold`` says (module docstring)."""
    if isinstance(agent, dict) and len(agent) == 1 and not isinstance(gold, dict):
        agent = next(iter(agent.values()))
    if gold is None:
        return agent is None or (isinstance(agent, str) and agent.strip().lower() in _NULLS)
    if isinstance(gold, bool):
        return agent is gold or (isinstance(agent, str) and parse_bool(agent) is gold)
    if isinstance(gold, int | float):
        a = _num(agent)
        if a is not None:
            return _close(a, float(gold))
        return isinstance(agent, str) and mentioned(agent, _forms(gold))
    if isinstance(gold, str):
        gd = parse_date(gold)
        if gd is not None and _date(agent) == gd:
            return True
        if isinstance(agent, str):
            if agent.strip() == gold.strip():  # also a text with no name in it ('-', '…')
                return True
            if name_key(agent) == name_key(gold) and name_key(gold):
                return True
            g, a = parse_number(gold), parse_number(agent)
            if g is not None and a is not None and _close(a, g):
                return True
            return gd is None and len(name_key(gold)) >= 2 and name_key(gold) in name_key(agent)
        a = _num(agent)
        g = parse_number(gold)
        return a is not None and g is not None and _close(a, g)
    if isinstance(gold, list):
        if isinstance(agent, list | tuple):
            return _multiset(list(agent), gold)
        if isinstance(agent, str) and len(gold) != 1:
            return _multiset([p for p in _SPLIT.split(agent.strip()) if p], gold)
        return len(gold) == 1 and same_value(agent, gold[0])
    if isinstance(gold, dict):
        score = score_response(agent, gold, answered=True)
        return score.ok
    return bool(agent == gold)


def _field(agent: dict[str, Any], name: str) -> tuple[bool, Any]:
    if name in agent:
        return True, agent[name]
    key = name_key(name)
    for k, v in agent.items():
        if name_key(str(k)) == key:
            return True, v
    return False, None


def _forms(v: Any) -> list[str]:
    d = parse_date(v) if isinstance(v, str) else None
    return korean_forms(d if d is not None else v)


def _in_text(text: str, gold: Any) -> bool:
    values = gold if isinstance(gold, list) else [gold]
    return all(mentioned(text, _forms(v)) for v in values if v is not None)


def score_response(answer: Any, gold: Any, *, answered: bool) -> ResponseScore:
    """The RESPONSE axis of an answer against the gold (module docstring); an episode that
    gave no answer scores 0."""
    fields = list(gold.items()) if isinstance(gold, dict) and gold else [("", gold)]
    matched = 0
    bad: list[str] = []
    for name, g in fields:
        if not answered:
            ok, got = False, None
        elif name == "":
            ok, got = same_value(answer, g), answer
        elif isinstance(answer, dict):
            have, got = _field(answer, name)
            ok = have and same_value(got, g)
        elif isinstance(answer, str):
            got = answer
            ok = same_value(answer, g) if len(fields) == 1 else _in_text(answer, g)
        else:
            ok, got = False, answer
        matched += ok
        if not ok and len(bad) < 5:
            bad.append(f"{name or 'answer'}: got {got!r:.60}, want {g!r:.60}")
    total = len(fields)
    return ResponseScore(ok=answered and matched == total, score=matched / total,
                         matched=matched, total=total, mismatches=bad)
