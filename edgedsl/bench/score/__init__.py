"""Scoring episodes on three axes, and pass@k.

:func:`score_episode` scores one recorded :class:`~edgedsl.bench.episode.Episode` against the
gold run it carries — RESPONSE (:mod:`.response`), ENVIRONMENT (:mod:`.environment`), ACTION
(:mod:`.action`) — with nothing re-run. An episode *passes* when RESPONSE and ENVIRONMENT both
pass (the reward the reference recipe trains with); ACTION is reported beside it.
:mod:`.summary` aggregates a run: pass@1 and pass@k with the unbiased estimator
(:mod:`.passk`), 95 % bootstrap intervals over tasks, per platform and structure.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..episode import EndReason, Episode, GoldRun, read_models
from .action import ActionScore, score_action
from .environment import EnvironmentScore, score_environment
from .response import ResponseScore, score_response

__all__ = ["CallFacts", "EpisodeFacts", "EpisodeScore", "read_for_scoring", "score_episode"]


class CallFacts(BaseModel):
    """What scoring reads of a :class:`~edgedsl.bench.episode.CallRecord` (not its records)."""

    model_config = ConfigDict(extra="ignore")
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    page: int | None = None
    ok: bool = True
    write: bool = False


class EpisodeFacts(BaseModel):
    """What scoring reads of an :class:`~edgedsl.bench.episode.Episode`: no messages, no
    records of its calls — validating only these makes reading a results directory about three
    times faster (``benchmarks/bench_score.py``)."""

    model_config = ConfigDict(extra="ignore")
    task_id: str
    rollout: int = 0
    end_reason: EndReason = "no_answer"
    answered: bool = False
    answer: Any = None
    state: dict[str, Any] | None = None
    gold: GoldRun | None = None
    calls: list[CallFacts] = Field(default_factory=list)
    platforms: list[str] = Field(default_factory=list)
    structure: str = ""


def read_for_scoring(directory: str | Path) -> Iterator[EpisodeFacts]:
    """The :class:`EpisodeFacts` of a results directory's episodes, in file order
    (:func:`~edgedsl.bench.episode.read_models`)."""
    return read_models(directory, EpisodeFacts)


class EpisodeScore(BaseModel):
    """The scores of one episode: its key, the three axes and whether it ``passed``."""

    model_config = ConfigDict(extra="forbid")
    task_id: str
    rollout: int
    end_reason: str
    passed: bool
    response: ResponseScore
    environment: EnvironmentScore
    action: ActionScore
    platforms: list[str] = []
    structure: str = ""


def score_episode(ep: Episode | EpisodeFacts) -> EpisodeScore:
    """The three axes of ``ep`` against its gold run (a missing or failed gold run scores every
    axis but ENVIRONMENT 0: there is nothing to be right about)."""
    gold = ep.gold
    answered = ep.answered and ep.end_reason == "answered"
    if gold is None or not gold.ok:
        response = ResponseScore(ok=False, score=0.0, matched=0, total=1, mismatches=[
            "no gold answer: " + ("the run made no gold run" if gold is None
                                  else gold.error or "the gold run failed")])
    else:
        response = score_response(ep.answer, gold.answer, answered=answered)
    environment = score_environment(ep)
    action = score_action(ep.calls, gold.calls if gold is not None else [])
    return EpisodeScore(task_id=ep.task_id, rollout=ep.rollout, end_reason=ep.end_reason,
                        passed=response.ok and environment.ok, response=response,
                        environment=environment, action=action,
                        platforms=list(ep.platforms), structure=ep.structure)
