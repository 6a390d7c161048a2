"""The NESTFUL gold sequences, executed directly in Python with examples/nestful/tools.py.

Each of the 13 gold call sequences in examples/nestful/gold.json is run with TOOLS (resolving
``{"ref": label, "field": name}`` arguments against earlier records) and the output of its
final label must equal the gold answer under NESTFUL's rounding rule (``answers_match``).
"""

from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from edgedsl.runtime.backends import import_file

ROOT = Path(__file__).resolve().parents[1]
NESTFUL_DIR = ROOT / "examples" / "nestful"
# the upstream NESTFUL data, copied with its licence (tests/data/external/nestful/)
UPSTREAM = ROOT / "tests" / "data" / "external" / "nestful" / "data_v2"


nt = import_file(NESTFUL_DIR / "tools.py")
TOOLS = nt.TOOLS
answers_match = nt.answers_match
GOLD = json.loads((NESTFUL_DIR / "gold.json").read_text())
SEQS = GOLD["sequences"]


def _is_ref(v: Any) -> bool:
    return isinstance(v, dict) and set(v) == {"ref", "field"}


def _resolve(v: Any, env: dict[str, dict[str, Any]]) -> Any:
    return env[v["ref"]][v["field"]] if _is_ref(v) else v


def _call(call: dict[str, Any], env: dict[str, dict[str, Any]]) -> dict[str, Any]:
    fn = TOOLS[f"nestful.{call['tool']}"]
    record = fn(**{k: _resolve(v, env) for k, v in call["args"].items()})
    assert isinstance(record, dict)
    return record


def run_sequential(seq: dict[str, Any]) -> dict[str, dict[str, Any]]:
    env: dict[str, dict[str, Any]] = {}
    for call in seq["calls"]:
        env[call["label"]] = _call(call, env)
    return env


def run_by_waves(seq: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Run each wave of independent calls concurrently on a thread pool."""
    by_label = {c["label"]: c for c in seq["calls"]}
    env: dict[str, dict[str, Any]] = {}
    with ThreadPoolExecutor(max_workers=4) as pool:
        for wave in seq["waves"]:
            snapshot = dict(env)
            futures = {lab: pool.submit(_call, by_label[lab], snapshot) for lab in wave}
            for lab, fut in futures.items():
                env[lab] = fut.result()
    return env


def _final(seq: dict[str, Any], env: dict[str, dict[str, Any]]) -> Any:
    record = env[seq["final_label"]]
    assert len(record) == 1, record  # NESTFUL tools return exactly one output parameter
    return next(iter(record.values()))


# ------------------------------------------------------------------ the gold sequences


def test_thirteen_sequences_with_unique_ids_and_names() -> None:
    assert len(SEQS) == 13
    assert len({s["id"] for s in SEQS}) == 13
    assert len({s["name"] for s in SEQS}) == 13
    for s in SEQS:
        assert s["name"].isascii() and s["name"].replace("_", "").isalnum()
        assert s["name"] == s["name"].lower()
        assert s["final_label"] == s["calls"][-1]["label"]


@pytest.mark.parametrize("seq", SEQS, ids=[s["name"] for s in SEQS])
def test_gold_sequence_reproduces_gold_answer(seq: dict[str, Any]) -> None:
    env = run_sequential(seq)
    pred = _final(seq, env)
    assert answers_match(pred, seq["gold_answer"]), (pred, seq["gold_answer"])


@pytest.mark.parametrize("seq", SEQS, ids=[s["name"] for s in SEQS])
def test_wave_schedule_is_valid_and_gives_same_answer(seq: dict[str, Any]) -> None:
    labels = [c["label"] for c in seq["calls"]]
    flat = [lab for wave in seq["waves"] for lab in wave]
    assert sorted(flat) == sorted(labels)
    position = {lab: i for i, wave in enumerate(seq["waves"]) for lab in wave}
    for call in seq["calls"]:
        refs = {v["ref"] for v in call["args"].values() if _is_ref(v)}
        assert refs == set(seq["deps"][call["label"]])
        for r in refs:
            assert position[r] < position[call["label"]]
    assert seq["max_parallelism"] == max(len(w) for w in seq["waves"])
    assert answers_match(_final(seq, run_by_waves(seq)), seq["gold_answer"])


def test_some_sequences_have_concurrent_branches() -> None:
    parallel = {s["name"]: s["max_parallelism"] for s in SEQS if s["max_parallelism"] > 1}
    assert parallel == {
        "trench_length": 2,
        "weekly_pay_split": 2,
        "day_crew_box_fraction": 3,
        "objective_test_correct_answers": 2,
        "trip_length": 2,
    }


@pytest.mark.skipif(not UPSTREAM.exists(), reason="upstream NESTFUL data not present")
def test_gold_json_matches_upstream_data() -> None:
    raw = [json.loads(line) for line in (UPSTREAM / "nestful_data_excerpt10.jsonl").open()]
    raw += json.loads((UPSTREAM / "icl_examples.json").read_text())
    assert len(raw) == len(SEQS)
    for sample, seq in zip(raw, SEQS, strict=True):
        assert sample["sample_id"] == seq["sample_id"]
        assert sample["input"] == seq["input"]
        assert sample["gold_answer"] == seq["gold_answer"]
        assert len(sample["output"]) == len(seq["calls"])
        for up, ours in zip(sample["output"], seq["calls"], strict=True):
            assert up["name"] == ours["tool"]
            assert up["label"] == "$" + ours["label"]
            for k, v in up["arguments"].items():
                w = ours["args"][k]
                if _is_ref(w):
                    assert v == f"${w['ref']}.{w['field']}$"
                else:
                    assert v == w
        # every tool the sample calls is documented in its tool list, with our arg names
        docs = {t["name"]: t for t in sample["tools"]}
        for call in seq["calls"]:
            assert set(call["args"]) <= set(docs[call["tool"]]["parameters"])
            fn = TOOLS[f"nestful.{call['tool']}"]
            out = fn(**{k: _resolve(v, run_sequential(seq)) for k, v in call["args"].items()})
            assert set(out) == set(docs[call["tool"]]["output_parameters"])


@pytest.mark.skipif(not UPSTREAM.exists(), reason="upstream NESTFUL data not present")
def test_implemented_tools_use_documented_names() -> None:
    import inspect

    docs: dict[str, dict[str, Any]] = {}
    for line in (UPSTREAM / "nestful_data_excerpt10.jsonl").open():
        for t in json.loads(line)["tools"]:
            docs[t["name"]] = t
    for s in json.loads((UPSTREAM / "icl_examples.json").read_text()):
        for t in s["tools"]:
            docs[t["name"]] = t
    for key, fn in TOOLS.items():
        name = key.removeprefix("nestful.")
        assert name in docs, name
        assert set(inspect.signature(fn).parameters) == set(docs[name]["parameters"]), name
        assert fn.__doc__


# ------------------------------------------------------------------ the rounding rule


def test_answers_match_rule() -> None:
    assert answers_match(40.00000000000001, 40.0)
    assert answers_match(39.96, 40.0)  # rounds to 1 decimal: 40.0
    assert not answers_match(39.94, 40.0)
    assert answers_match(18 / 28, 0.6428571428571429)
    assert not answers_match(0.64285714, 0.6428571428571429)
    assert answers_match(3.0, 3)  # int gold: plain ==, 3.0 == 3
    assert not answers_match(3.0000001, 3)  # no rounding unless both are floats
    assert answers_match(400, 400.0)
    assert answers_match((5, 4), [5, 4])
    assert answers_match({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert not answers_match([4, 5], [5, 4])


# ------------------------------------------------------------------ unit tests


def t(name: str, **kwargs: Any) -> Any:
    record = TOOLS[f"nestful.{name}"](**kwargs)
    assert len(record) == 1
    return next(iter(record.values()))


def test_arithmetic_primitives() -> None:
    assert t("add", arg_0=20, arg_1=20.0) == 40.0
    assert t("subtract", arg_0=36, arg_1=9) == 27
    assert t("multiply", arg_0=0.25, arg_1=80) == 20.0
    assert t("divide", arg_0=25, arg_1=100) == 0.25
    assert t("divide", arg_0=7, arg_1=2) == 3.5  # true division, not integer division
    assert t("inverse", arg_0=10) == 0.1
    assert t("power", arg_0=2, arg_1=10) == 1024
    assert t("remainder", arg_0=17, arg_1=5) == 2 == t("reminder", arg_0=17, arg_1=5)
    assert t("gcd", arg_0=12, arg_1=18.0) == 6
    assert t("lcm", arg_0=4, arg_1=6) == 12
    assert t("factorial", arg_0=5) == 120
    assert t("choose", arg_0=5, arg_1=2) == 10
    assert t("floor", arg_0=3.7) == 3
    assert t("min_number", arg_0=[3, 1.5, 2]) == 1.5
    assert t("negate_prob", arg_0=0.25) == 0.75
    assert t("speed", arg_0=100, arg_1=4) == 25
    assert math.isclose(t("log", arg_0=8, arg_1=2), 3)
    assert math.isclose(t("log", arg_0=math.e), 1)


def test_geometry_primitives() -> None:
    assert t("rectangle_perimeter", arg_0=3, arg_1=4) == 14
    assert t("diagonal", arg_0=3, arg_1=4) == 5
    assert t("square_edge_by_perimeter", arg_0=20) == 5
    assert t("square_edge_by_area", arg_0=49) == 7
    assert math.isclose(t("circumface", arg_0=1), 2 * math.pi)
    assert t("volume_cube", arg_0=3) == 27
    assert t("surface_cube", arg_0=2) == 24
    assert math.isclose(t("volume_sphere", arg_0=3), 36 * math.pi)
    assert math.isclose(t("surface_sphere", arg_0=1), 4 * math.pi)
    assert math.isclose(t("volume_cylinder", arg_0=2, arg_1=5), 20 * math.pi)
    assert math.isclose(t("volume_cone", arg_0=3, arg_1=4), 12 * math.pi)


def test_code_derived_functions() -> None:
    assert t("find_kth_largest", nums=[3, 1, 5, 2, 4], k=1) == 5
    assert t("find_kth_largest", nums=[1, 2, 3], k=4) is None
    assert t("convert_to_float_or_string", input_string="2.5") == 2.5
    assert t("convert_to_float_or_string", input_string="abc") == "abc"
    assert t("unique_common_values", list1=[5, 4, 4, 1], list2=[4, 5]) == [5, 4]
    values = [1, 2, 3]
    assert t("swap_by_index", values=values, i=0, j=2) == [3, 2, 1]
    assert values == [1, 2, 3]  # inputs are not mutated
    assert t("make_json_string", dictionary={"a": 1}) == '{"a": 1}'
    assert t("tokenize_sentence", sentence="Hello, World! {x: 1}.") == [
        "hello",
        "world",
        "{x:",
        "1}",
    ]
    assert t("non_whitespace_substrings", input_str=" a\tb\n c ") == ["a", "b", "c"]
    assert t("count_words_from_sentences", sentences=["a b", "b"]) == {"a": 1, "b": 2}
    assert t("count_runs", numbers=[1, 1, 2]) == [(0, 1, 2), (2, 2, 1)]
    assert t("shorten_list", lst=[1, 2, 1, 3]) == [3, 2, 1]
    assert t("compute_degree", coefficients=[0]) == 0
    assert t("compute_degree", coefficients=[0, 2, 1, 5]) == 2
    assert t("traverse_diagonal", matrix=[[1, 2], [3, 4]]) == [1, 4]
    assert t("list_length", data=[None, 1, "x"]) == 3
    assert t("get_top", arr=[["a", 1], ["b", 3], ["c", 2]], n=2) == {"b": 3, "c": 2}
    assert math.isclose(t("compute_spearman_correlation", array1=[1, 2, 3], array2=[3, 5, 9]), 1)


def test_tools_are_deterministic_and_keyword_only_usage() -> None:
    for seq in SEQS:
        assert run_sequential(seq) == run_sequential(seq)
