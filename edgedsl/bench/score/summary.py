"""A run's scores: every episode scored, then aggregated per task, platform and structure.

:func:`summarize` turns episode scores into a :class:`Summary`: per task the share of its
rollouts that passed and its pass@1 / pass@k (unbiased estimator), per axis the mean over its
rollouts; over tasks the means with 95 % bootstrap intervals; the same per platform (a task
counts under each platform it uses) and per structure; the end reasons counted.
:func:`score_results` reads a results directory (``meta.json``, ``episodes.jsonl``), scores it
and writes ``scores.jsonl`` (one :class:`~edgedsl.bench.score.EpisodeScore` per line) and
``summary.json`` — what ``edgedsl bench score`` and the end of ``edgedsl bench run`` do; with a
:class:`~.judge.JudgeConfig` it first asks the model judge about the free-text answers the typed
comparison failed (:mod:`.judge`), and the summary records the judge and counts its verdicts.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field

from ...core.jsonfile import write_atomic
from ...runtime.executor import run_sync
from ..episode import END_REASONS, read_meta, read_models
from . import EpisodeFacts, EpisodeScore, read_for_scoring, score_episode
from .judge import JudgeConfig, JudgeItem, judge_answers
from .passk import bootstrap_interval, pass_at_k

__all__ = ["SCORES_FILE", "SUMMARY_FILE", "Estimate", "GroupRow", "Summary", "read_summary",
           "score_results", "summarize"]

SCORES_FILE = "scores.jsonl"
"""Every episode's scores, one JSON object per line, in episode order."""

SUMMARY_FILE = "summary.json"
"""The run's :class:`Summary`."""


class Estimate(BaseModel):
    """A mean over tasks with its 95 % bootstrap interval (``lo``, ``hi``)."""

    model_config = ConfigDict(extra="forbid")
    value: float
    lo: float
    hi: float


class GroupRow(BaseModel):
    """One row of a table: a group (a platform, a structure, or ``all``), its tasks and
    episodes, pass@1, pass@k (None when no task has k rollouts), and the mean of each axis."""

    model_config = ConfigDict(extra="forbid")
    group: str
    tasks: int
    episodes: int
    pass_at_1: float
    pass_at_k: float | None = None
    response: float
    environment: float
    action: float


class Summary(BaseModel):
    """A run's aggregated scores (module docstring)."""

    model_config = ConfigDict(extra="forbid")
    bundle_hash: str = ""
    agent: str = ""
    k: int = 1
    tasks: int = 0
    episodes: int = 0
    pass_at_1: Estimate
    pass_at_k: Estimate | None = None
    response: Estimate
    environment: Estimate
    action: Estimate
    end_reasons: dict[str, int] = Field(default_factory=dict)
    by_platform: list[GroupRow] = Field(default_factory=list)
    by_structure: list[GroupRow] = Field(default_factory=list)
    incomplete: list[str] = Field(default_factory=list)
    judge: dict[str, Any] | None = None
    judge_verdicts: dict[str, int] = Field(default_factory=dict)


class _Task:
    """The scores of one task's rollouts."""

    def __init__(self, scores: list[EpisodeScore]) -> None:
        self.n = len(scores)
        self.c = sum(s.passed for s in scores)
        self.response = sum(s.response.score for s in scores) / self.n
        self.environment = sum(s.environment.ok for s in scores) / self.n
        self.action = sum(s.action.score for s in scores) / self.n
        self.platforms = scores[0].platforms or ["?"]
        self.structure = scores[0].structure or "?"

    def pass_at(self, k: int) -> float | None:
        return pass_at_k(self.n, self.c, k) if self.n >= k else None


def _estimate(values: Sequence[float], seed: int) -> Estimate:
    if not values:
        return Estimate(value=0.0, lo=0.0, hi=0.0)
    lo, hi = bootstrap_interval(values, seed=seed)
    return Estimate(value=sum(values) / len(values), lo=lo, hi=hi)


def _row(group: str, tasks: list[_Task], k: int) -> GroupRow:
    ks = [p for t in tasks if (p := t.pass_at(k)) is not None]
    n = len(tasks)
    return GroupRow(group=group, tasks=n, episodes=sum(t.n for t in tasks),
                    pass_at_1=sum(t.c / t.n for t in tasks) / n,
                    pass_at_k=sum(ks) / len(ks) if ks else None,
                    response=sum(t.response for t in tasks) / n,
                    environment=sum(t.environment for t in tasks) / n,
                    action=sum(t.action for t in tasks) / n)


def summarize(scores: Iterable[EpisodeScore], *, k: int = 1, bundle_hash: str = "",
              agent: str = "", seed: int = 0) -> Summary:
    """The :class:`Summary` of episode ``scores`` with pass@``k`` (module docstring);
    ``seed`` seeds the bootstrap."""
    by_task: dict[str, list[EpisodeScore]] = defaultdict(list)
    reasons: Counter[str] = Counter()
    for s in scores:
        by_task[s.task_id].append(s)
        reasons[s.end_reason] += 1
    tasks = {tid: _Task(v) for tid, v in by_task.items()}
    ts = list(tasks.values())
    ks = [p for t in ts if (p := t.pass_at(k)) is not None]
    platforms: dict[str, list[_Task]] = defaultdict(list)
    structures: dict[str, list[_Task]] = defaultdict(list)
    for t in ts:
        for name in t.platforms:
            platforms[name].append(t)
        structures[t.structure].append(t)
    return Summary(
        bundle_hash=bundle_hash, agent=agent, k=k, tasks=len(ts),
        episodes=sum(t.n for t in ts),
        pass_at_1=_estimate([t.c / t.n for t in ts], seed),
        pass_at_k=_estimate(ks, seed) if ks and k > 1 else None,
        response=_estimate([t.response for t in ts], seed),
        environment=_estimate([t.environment for t in ts], seed),
        action=_estimate([t.action for t in ts], seed),
        end_reasons={r: reasons[r] for r in END_REASONS if reasons[r]},
        by_platform=[_row(p, v, k) for p, v in sorted(platforms.items())],
        by_structure=[_row(s, v, k) for s, v in sorted(structures.items())],
        incomplete=sorted(tid for tid, t in tasks.items() if t.n < k))


class _Conversation(BaseModel):
    """What the judge reads of an episode besides its facts: the messages (for the question)."""

    model_config = ConfigDict(extra="ignore")
    task_id: str
    rollout: int = 0
    messages: list[dict[str, Any]] = Field(default_factory=list)


def _needs_judge(ep: EpisodeFacts, score: EpisodeScore) -> bool:
    """A free-text answer whose typed comparison failed against a gold answer."""
    return (score.end_reason == "answered" and ep.answered and isinstance(ep.answer, str)
            and ep.gold is not None and ep.gold.ok and not score.response.ok)


def _question(messages: list[dict[str, Any]]) -> str | None:
    for m in messages:
        if m.get("role") == "user" and isinstance(m.get("content"), str):
            return str(m["content"])
    return None


def _judged(directory: Path, facts: list[EpisodeFacts], scores: list[EpisodeScore],
            judge: JudgeConfig) -> list[EpisodeScore]:
    """``scores`` with the judge's verdict on every free-text answer that needs one (module
    docstring of :mod:`.judge`): a ``match`` passes RESPONSE."""
    todo = [i for i, (ep, s) in enumerate(zip(facts, scores, strict=True)) if _needs_judge(ep, s)]
    if not todo:
        return scores
    wanted = {(facts[i].task_id, facts[i].rollout) for i in todo}
    questions = {(c.task_id, c.rollout): _question(c.messages)
                 for c in read_models(directory, _Conversation) if (c.task_id, c.rollout) in wanted}
    items = []
    for i in todo:
        ep = facts[i]
        assert ep.gold is not None and isinstance(ep.answer, str)
        items.append(JudgeItem(question=questions.get((ep.task_id, ep.rollout)),
                               gold=ep.gold.answer, answer=ep.answer))
    verdicts = run_sync(judge_answers(judge, items))
    out = list(scores)
    for i, v in zip(todo, verdicts, strict=True):
        s = out[i]
        response = s.response.model_copy(update={"judge": v})
        if v.verdict == "match":
            response = response.model_copy(update={"ok": True, "score": 1.0,
                                                   "matched": response.total})
        out[i] = s.model_copy(update={"response": response,
                                      "passed": response.ok and s.environment.ok})
    return out


def score_results(directory: str | Path, *,
                  judge: JudgeConfig | None = None) -> tuple[list[EpisodeScore], Summary]:
    """Score every episode of a results directory and write ``scores.jsonl`` and
    ``summary.json`` there (module docstring); nothing is re-run. ``judge``: ask this model
    judge about the free-text answers the typed comparison failed (off when None)."""
    d = Path(directory)
    meta = read_meta(d)
    if judge is None:
        # streamed: holding every episode's facts at once doubles the cost of reading them
        # (the collector scans them all; benchmarks/bench_score.py)
        scores = [score_episode(ep) for ep in read_for_scoring(d)]
    else:
        facts = list(read_for_scoring(d))
        scores = _judged(d, facts, [score_episode(ep) for ep in facts], judge)
    summary = summarize(scores, k=meta.k, bundle_hash=meta.bundle_hash, agent=meta.agent,
                        seed=meta.seed)
    if judge is not None:
        counts = Counter(s.response.judge.verdict for s in scores if s.response.judge)
        summary = summary.model_copy(update={"judge": judge.describe(),
                                             "judge_verdicts": dict(sorted(counts.items()))})
    write_atomic(d / SCORES_FILE, b"".join(
        orjson.dumps(s.model_dump(mode="json")) + b"\n" for s in scores))
    write_atomic(d / SUMMARY_FILE, orjson.dumps(summary.model_dump(mode="json"),
                                                option=orjson.OPT_INDENT_2) + b"\n")
    return scores, summary


def read_summary(directory: str | Path) -> Summary:
    """The ``summary.json`` of a scored results directory (FileNotFoundError when it was never
    scored)."""
    return Summary.model_validate_json((Path(directory) / SUMMARY_FILE).read_bytes())
