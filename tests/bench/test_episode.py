"""Episodes and results directories: round trips, an interrupted last line, clear errors."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from edgedsl.bench.episode import (
    END_REASONS,
    EndReason,
    Episode,
    EpisodeFileError,
    GoldCall,
    GoldRun,
    RunMeta,
    append_episode,
    read_episodes,
    read_meta,
    write_meta,
)
from edgedsl.bench.toolbox import Budgets


def _episode(task: str, rollout: int) -> Episode:
    return Episode(bundle_hash="ab" * 32, task_id=task, agent="oracle", rollout=rollout, seed=7,
                   answer={"n": 3, "name": "삼성전자"}, answered=True, end_reason="answered",
                   gold=GoldRun(answer={"n": 3}, calls=[GoldCall(
                       tool="dart.company", arguments={"corp_code": "00126380"}, step="c")]))


def test_end_reasons_are_the_closed_set() -> None:
    assert set(END_REASONS) == set(typing.get_args(EndReason))
    assert len(END_REASONS) == len(set(END_REASONS))


def test_episodes_round_trip_in_order(tmp_path: Path) -> None:
    eps = [_episode("a", 0), _episode("a", 1), _episode("b", 0)]
    for ep in eps:
        append_episode(tmp_path, ep)
    back = list(read_episodes(tmp_path))
    assert back == eps
    assert [e.key for e in back] == [("a", 0), ("a", 1), ("b", 0)]


def test_an_interrupted_last_line_is_skipped_and_a_bad_one_is_named(tmp_path: Path) -> None:
    append_episode(tmp_path, _episode("a", 0))
    with (tmp_path / "episodes.jsonl").open("ab") as fh:
        fh.write(b'{"version": 1, "bundle_hash": "x", "task_id": "b", "ag')
    assert [e.task_id for e in read_episodes(tmp_path)] == ["a"]
    (tmp_path / "episodes.jsonl").write_bytes(b'{"task_id": 3}\n' + b"\n")
    with pytest.raises(EpisodeFileError, match=r"episodes.jsonl:1: not an episode"):
        list(read_episodes(tmp_path))


def test_meta_round_trip_and_missing(tmp_path: Path) -> None:
    meta = RunMeta(bundle_hash="cd" * 32, agent="first-page", k=4, seed=1,
                   budgets={"calls": 10})
    write_meta(tmp_path / "r", meta)
    assert read_meta(tmp_path / "r") == meta
    with pytest.raises(EpisodeFileError, match="not a results directory"):
        read_meta(tmp_path / "nowhere")
    with pytest.raises(EpisodeFileError, match=r"no episodes\.jsonl"):
        list(read_episodes(tmp_path / "r"))


def test_budgets_refuse_nonsense() -> None:
    with pytest.raises(ValueError, match="calls"):
        Budgets(calls=0)
    with pytest.raises(ValueError, match="seconds"):
        Budgets(seconds=0)
