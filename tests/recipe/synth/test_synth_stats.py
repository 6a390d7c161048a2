"""Corpus statistics: exact values on hand-made records, properties on generated ones, and the
rendered table beside the recipe's figures."""

from __future__ import annotations

import math
from collections.abc import Sequence

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgedsl.recipe.synth.record import STRUCTURES, CallRecord, JunctionRecord, TaskRecord
from edgedsl.recipe.synth.stats import (
    REFERENCE,
    SynthStats,
    corpus_stats,
    nearest_rank,
    render_stats,
)


def task(name: str, turns: Sequence[int], cards: Sequence[int] = (), structure: str = "Seq"
         ) -> TaskRecord:
    """A record with one call per entry of ``turns`` (its turn) and one junction per card."""
    return TaskRecord(
        name=name, file=f"{name}.edge", query=name, structure=structure,  # type: ignore[arg-type]
        calls=[CallRecord(step=f"s{i}", tool="p.t", turn=t) for i, t in enumerate(turns)],
        junctions=[JunctionRecord(tool="p.t", param="x", source_tool="p.u", field="f",
                                  kind="seq" if c == 1 else "drv", cardinality=c, passed=1)
                   for c in cards])


def test_exact_values() -> None:
    records = [
        task("a", [1, 2, 3], [1, 1], "Seq"),                  # 3 calls, all sequential
        task("b", [1, 2, 2, 3], [3, 40], "Fan"),              # 4 calls, 2 parallel
        task("c", [1, 1, 1, 2, 3, 4, 5], [1, 200, 7], "Mixed"),  # 7 calls, 3 parallel
        task("d", [], [], "Seq"),                             # 0 calls
    ]
    s = corpus_stats(records)
    assert (s.tasks, s.calls, s.junctions) == (4, 14, 7)
    assert (s.calls_mean, s.calls_median, s.calls_max) == (3.5, 3.5, 7)
    assert (s.steps_le3, s.steps_4_5, s.steps_ge6) == (0.5, 0.25, 0.25)
    assert s.turns_mean == (3 + 3 + 5 + 0) / 4
    assert s.parallel_share == 5 / 14 and s.sequential_share == 9 / 14
    assert s.structures == {"Seq": 0.5, "Fan": 0.25, "Drv": 0.0, "Sem": 0.0, "Cmp": 0.0,
                            "Cond": 0.0, "Mixed": 0.25}
    # cardinalities 1 1 3 40 1 200 7 → sorted 1 1 1 3 7 40 200
    assert s.one_to_many_share == 4 / 7
    assert (s.cardinality_median, s.cardinality_p90, s.cardinality_max) == (3.0, 200, 200)
    assert s.parallel_task_share == 0.5


def test_empty_corpus_has_no_undefined_numbers() -> None:
    s = corpus_stats([])
    assert s.tasks == 0 and s.calls_mean is None and s.one_to_many_share is None
    assert set(s.structures) == set(STRUCTURES) and all(v is None for v in s.structures.values())
    assert "—" in render_stats(s)


def test_nearest_rank() -> None:
    assert nearest_rank([], 0.9) is None
    assert nearest_rank([5], 0.9) == 5
    assert nearest_rank(list(range(1, 11)), 0.9) == 9  # rank ⌈9.0⌉ = 9
    assert nearest_rank(list(range(1, 12)), 0.9) == 10  # rank ⌈9.9⌉ = 10
    assert nearest_rank([3, 1, 2], 0.5) == 2


records_st = st.lists(
    st.builds(
        task,
        name=st.text("abc", min_size=1, max_size=3),
        turns=st.lists(st.integers(1, 6), max_size=12),
        cards=st.lists(st.integers(0, 300), max_size=6),
        structure=st.sampled_from(STRUCTURES),
    ),
    min_size=1, max_size=25,
)


@given(records_st)
def test_properties_of_generated_corpora(records: list[TaskRecord]) -> None:
    s = corpus_stats(records)
    assert s.tasks == len(records)
    assert math.isclose(sum(v or 0 for v in s.structures.values()), 1.0)
    assert math.isclose((s.steps_le3 or 0) + (s.steps_4_5 or 0) + (s.steps_ge6 or 0), 1.0)
    counts = [len(r.calls) for r in records]
    assert s.calls_median is not None and min(counts) <= s.calls_median <= max(counts)
    assert s.calls_max == max(counts)
    if s.calls:
        assert math.isclose((s.sequential_share or 0) + (s.parallel_share or 0), 1.0)
    else:
        assert s.sequential_share is None and s.parallel_share is None
    cards = [j.cardinality for r in records for j in r.junctions]
    if cards:
        assert min(cards) <= (s.cardinality_median or 0) <= (s.cardinality_p90 or 0) \
            <= (s.cardinality_max or 0) == max(cards)
        assert 0.0 <= (s.one_to_many_share or 0) <= 1.0
    assert s.turns_mean is not None and s.turns_mean <= s.calls_mean + 1e-9  # type: ignore[operator]
    # JSON through pydantic, and back
    assert SynthStats.model_validate(orjson.loads(orjson.dumps(s.model_dump()))) == s


def test_render_shows_each_figure_beside_the_reference() -> None:
    s = corpus_stats([task("a", [1, 2, 2, 3], [1, 30], "Drv")])
    text = render_stats(s)
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["quantity", "this", "corpus"]
    row = next(line for line in lines if line.startswith("calls per task, mean"))
    assert row.split()[-5:] == ["4.00", "4.13", "-0.13", "training", "set"]
    row = next(line for line in lines if line.startswith("structure Drv"))
    assert "100.0%" in row and "19.7%" in row and "+80.3 pp" in row
    row = next(line for line in lines if line.startswith("one-to-many junctions"))
    assert "50.0%" in row and "81.2%" in row and "KOPA-Bench" in row
    row = next(line for line in lines if line.startswith("hand-off cardinality, max"))
    assert "224,958" in row
    for label in ("tasks with ≤ 3 calls", "sequential calls", "tasks with parallel calls"):
        assert any(line.startswith(label) for line in lines)
    assert REFERENCE["tasks"] == (1781, "training set")
    shares = [v for k, (v, _) in REFERENCE.items() if k.startswith("structure.")]
    assert len(shares) == 7 and sum(shares) == pytest.approx(1.0, abs=0.001)
