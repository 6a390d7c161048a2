"""The optional model judge for free-text answers (RESPONSE), against the scripted
OpenAI-compatible server on 127.0.0.1: asked only about the free-text answers the typed
comparison fails, every verdict (match, mismatch, malformed reply, failed endpoint) recorded with
the raw reply, a malformed reply never stopping the scoring, and off unless asked for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from edgedsl.bench.episode import Episode, GoldRun, RunMeta, append_episode, write_meta
from edgedsl.bench.score.judge import JUDGE_SYSTEM, JudgeConfig
from edgedsl.bench.score.summary import SCORES_FILE, score_results
from tests.bench.chat_server import ChatScript, Reply, serve_chat

FAKE_KEY = "sk-fake-judge-9Qx-must-not-leak"
GOLD = {"날짜": "2024-12-30", "종가": 2399.49}


def _episode(task: str, answer: Any, *, reason: str = "answered",
             question: str | None = None) -> Episode:
    messages = [{"role": "user", "content": question}] if question else []
    return Episode(bundle_hash="h", task_id=task, agent="openai", answer=answer,
                   answered=reason == "answered", end_reason=reason,  # type: ignore[arg-type]
                   messages=messages, gold=GoldRun(answer=GOLD))


EPISODES = [
    _episode("typed_ok", {"날짜": "2024년 12월 30일", "종가": "2,399.49"}),
    _episode("text_ok", "2024년 12월 30일에 2,399.49로 마감했습니다."),
    _episode("paraphrase", "작년 마지막 거래일에 2천4백 포인트 조금 못 미치게 끝났어요.",
             question="2024년 마지막 거래일 코스피 종가는?"),
    _episode("wrong", "2024년 12월 27일, 2,404.15"),
    _episode("garbled", "아마 12월 말쯤 2400 근처"),
    _episode("refused", "연말 2,400선"),
    _episode("no_answer", None, reason="no_answer"),
]


def _judge_reply(body: dict[str, Any]) -> Reply:
    """The scripted judge: reads the agent's answer from the request and answers by it."""
    assert body["messages"][0] == {"role": "system", "content": JUDGE_SYSTEM}
    user = body["messages"][1]["content"]
    if "작년 마지막 거래일" in user:
        return Reply(content='```json\n{"match": true, "reason": "같은 날, 같은 값"}\n```')
    if "12월 27일" in user:
        return Reply(content='{"match": false, "reason": "날짜가 다르다"}')
    if "아마" in user:
        return Reply(content="네, 맞는 것 같습니다.")  # not the JSON object asked for
    if "연말" in user:
        return Reply(content="no such model", status=400)
    raise AssertionError(f"the judge was asked about {user!r}")


def _results(tmp_path: Path) -> Path:
    out = tmp_path / "results"
    out.mkdir()
    write_meta(out, RunMeta(bundle_hash="h", agent="openai"))
    for ep in EPISODES:
        append_episode(out, ep)
    return out


def test_the_judge_decides_free_text_the_rules_fail(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDGEDSL_LLM_KEY", FAKE_KEY)
    out = _results(tmp_path)
    script = ChatScript([_judge_reply], repeat_last=True, model="judge-model")
    with serve_chat(script) as url:
        config = JudgeConfig(base_url=url, model="judge-model")
        scores, summary = score_results(out, judge=config)
    by = {s.task_id: s for s in scores}
    # asked only about the four free-text answers the typed comparison failed
    assert len(script.requests) == 4
    assert all(b["temperature"] == 0.0 and b["model"] == "judge-model" for b in script.requests)
    for task in ("typed_ok", "text_ok", "no_answer"):
        assert by[task].response.judge is None
    assert by["typed_ok"].passed and by["text_ok"].passed and not by["no_answer"].passed
    para = by["paraphrase"].response
    assert para.judge is not None and para.judge.verdict == "match"
    assert para.judge.reason == "같은 날, 같은 값" and '"match": true' in para.judge.raw
    assert (para.ok, para.score, para.matched) == (True, 1.0, 2) and by["paraphrase"].passed
    wrong = by["wrong"].response
    assert wrong.judge is not None and wrong.judge.verdict == "mismatch"
    assert not wrong.ok and not by["wrong"].passed
    garbled = by["garbled"].response
    assert garbled.judge is not None and garbled.judge.verdict == "malformed"
    assert garbled.judge.raw == "네, 맞는 것 같습니다." and "not valid JSON" in garbled.judge.reason
    assert not garbled.ok and garbled.score == 0.0  # the typed result stands
    refused = by["refused"].response
    assert refused.judge is not None and refused.judge.verdict == "error"
    assert "400" in refused.judge.raw and FAKE_KEY not in refused.judge.raw
    # the question is passed on when the episode's conversation holds it
    asked = [b["messages"][1]["content"] for b in script.requests]
    para_req = next(a for a in asked if "작년 마지막 거래일" in a)
    assert para_req.startswith("Question: 2024년 마지막 거래일 코스피 종가는?")
    assert '"종가":2399.49' in para_req
    assert all(h["authorization"] == f"Bearer {FAKE_KEY}" for h in script.headers)
    # recorded in the results: scores.jsonl and summary.json
    lines = [orjson.loads(x) for x in (out / SCORES_FILE).read_bytes().splitlines()]
    recorded = {x["task_id"]: x["response"]["judge"] for x in lines}
    assert recorded["garbled"]["verdict"] == "malformed"
    assert recorded["garbled"]["raw"] == "네, 맞는 것 같습니다."
    assert recorded["typed_ok"] is None
    assert summary.judge == {"base_url": url, "model": "judge-model",
                             "key_env": "EDGEDSL_LLM_KEY"}
    assert summary.judge_verdicts == {"error": 1, "malformed": 1, "match": 1, "mismatch": 1}
    assert summary.pass_at_1.value == pytest.approx(3 / 7)
    for path in out.iterdir():
        assert FAKE_KEY not in path.read_text(encoding="utf-8")


def test_off_by_default(tmp_path: Path) -> None:
    out = _results(tmp_path)
    scores, summary = score_results(out)
    assert all(s.response.judge is None for s in scores)
    assert [s.task_id for s in scores if s.passed] == ["typed_ok", "text_ok"]
    assert summary.judge is None and summary.judge_verdicts == {}


def test_bench_score_on_the_command_line(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    from edgedsl.cli import main

    out = _results(tmp_path)
    script = ChatScript([_judge_reply], repeat_last=True, model="judge-model")
    with serve_chat(script) as url:
        code = main(["bench", "score", str(out), "--judge-url", url,
                     "--judge-model", "judge-model"])
    assert code == 0 and len(script.requests) == 4
    printed = capsys.readouterr().out
    assert "judge        judge-model: error 1, malformed 1, match 1, mismatch 1" in printed
    summary = orjson.loads((out / "summary.json").read_bytes())
    assert summary["judge"]["model"] == "judge-model"
    code = main(["bench", "score", str(out)])  # re-scored without the judge: none recorded
    assert code == 0
    assert "judge" not in capsys.readouterr().out
    assert orjson.loads((out / "summary.json").read_bytes())["judge"] is None


@pytest.mark.parametrize(("flags", "message"), [
    (["--judge-url", "http://127.0.0.1:9/v1"], "--judge-url needs --judge-model as well"),
    (["--judge-model", "m"], "--judge-model needs --judge-url as well"),
    (["--judge-key-env", "K"], "--judge-key-env needs --judge-url and --judge-model"),
    (["--judge-url", "ftp://x", "--judge-model", "m"], "judge: LLM base URL must be"),
])
def test_judge_flags_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 flags: list[str], message: str) -> None:
    from edgedsl.cli import main

    out = _results(tmp_path)
    assert main(["bench", "score", str(out), *flags]) == 2
    assert message in capsys.readouterr().err


def test_bench_run_with_a_judge(small_bundle: Any, tmp_path: Path) -> None:
    """`bench run --agent openai … --judge-url … --judge-model …`: the same scripted server plays
    the agent's model and the judge; the run's scores carry the verdict."""
    from edgedsl.bench.bundle import save_bundle
    from edgedsl.cli import main

    def serve(body: dict[str, Any]) -> Reply:
        if body["messages"][0].get("content") == JUDGE_SYSTEM:
            return Reply(content='{"match": true, "reason": "ok"}')
        return Reply(content="두 다리 이야기라면, 답은 말로만 하겠습니다.")

    path = tmp_path / "bundle.json"
    save_bundle(small_bundle, path)
    out = tmp_path / "results"
    script = ChatScript([serve], repeat_last=True)
    with serve_chat(script) as url:
        code = main(["bench", "run", str(path), "--agent", "openai", "--base-url", url,
                     "--model", "scripted-model", "--task", "two_bridges", "-q",
                     "--judge-url", url, "--judge-model", "judge-model", "-o", str(out)])
    assert code == 0
    judged = [b for b in script.requests if b["messages"][0].get("content") == JUDGE_SYSTEM]
    assert len(judged) == 1 and judged[0]["model"] == "judge-model"
    (line,) = [orjson.loads(x) for x in (out / SCORES_FILE).read_bytes().splitlines()]
    assert line["response"]["judge"]["verdict"] == "match" and line["passed"]
    summary = orjson.loads((out / "summary.json").read_bytes())
    assert summary["judge_verdicts"] == {"match": 1}
