"""The execution-grounded filters: decorative chains found in a run's trace, and the
perturbation check that recompiles the emitted text, reruns it on a fresh world and perturbs
what the program leaves to the runtime."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from edgedsl import api
from edgedsl.recipe.synth.resolve import answer_key, decorative_steps, hands_on_only_inputs, resolve
from edgedsl.runtime.backends import make_backend

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "world"

PASS_THROUGH = """use nec

trajectory t "q" {
  elections = nec.elections() pages 1
  latest = drv elections | max num
  gusigun = nec.gusigun(sgId: seq latest.sgId) pages 1
  educations = nec.educations(sgId: seq gusigun.sgId) pages 1
  answer count(educations)
}
"""


@pytest.fixture(scope="module")
def world():  # type: ignore[no-untyped-def]
    return make_backend("world", seed=0)


def _run(text: str, world):  # type: ignore[no-untyped-def]
    m = api.parse(text)
    (res,) = api.run(api.compile(text), world)
    assert res.ok, res.diagnostics
    return m.trajectories[0], res


def test_a_call_that_hands_on_what_it_was_handed_is_decorative(world) -> None:
    traj, res = _run(PASS_THROUGH, world)
    assert decorative_steps(traj, res) == ["gusigun"]
    # read by the answer, the same call is not decorative
    used = PASS_THROUGH.replace("answer count(educations)",
                                "answer { n: count(educations), areas: count(gusigun) }")
    traj, res = _run(used, world)
    assert decorative_steps(traj, res) == []


def test_echoing_a_literal_argument_is_decorative_choosing_by_a_drv_is_not(world) -> None:
    echo = """use nec

trajectory t "q" {
  gusigun = nec.gusigun(sgId: "20240410") pages 1
  educations = nec.educations(sgId: seq gusigun.sgId) pages 1
  answer count(educations)
}
"""
    traj, res = _run(echo, world)
    assert decorative_steps(traj, res) == ["gusigun"]
    chosen = PASS_THROUGH.replace("educations = nec.educations(sgId: seq gusigun.sgId)",
                                  "pick = drv gusigun | most_frequent sgId\n"
                                  "  educations = nec.educations(sgId: seq pick.sgId)")
    traj, res = _run(chosen, world)
    assert decorative_steps(traj, res) == []


def test_the_value_rule() -> None:
    assert hands_on_only_inputs({"a"}, {"a", "b"})
    assert not hands_on_only_inputs({"a", "c"}, {"a", "b"})
    assert not hands_on_only_inputs(set(), {"a"})


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.edge")), ids=lambda p: p.stem)
def test_no_hand_written_example_is_decorative(path: Path, world) -> None:
    m = api.parse(path)
    for r in api.run(api.compile(path), world):
        traj = next(t for t in m.trajectories if t.name == r.trajectory)
        assert decorative_steps(traj, r) == [], path.name


def test_resolve_reproduces_or_names_the_reason(world) -> None:
    _, res = _run(PASS_THROUGH, world)
    fresh = make_backend("world", seed=0)

    async def go(text: str, expected: object) -> list[str]:
        return await resolve(text, "t", expected, fresh)

    assert asyncio.run(go(PASS_THROUGH, res.answer)) == []
    assert asyncio.run(go(PASS_THROUGH, (res.answer or 0) + 1)) == ["resolve_mismatch"]
    assert asyncio.run(go(PASS_THROUGH.replace("nec.gusigun", "nec.nope"), res.answer)) \
        == ["resolve_failed"]
    broken = PASS_THROUGH.replace("pages 1\n  latest", "pages 1\n  latest = 1\n  latest")
    assert asyncio.run(go(broken, res.answer)) == ["resolve_failed"]


TIED = """use nec

trajectory t "q" {
  elections = nec.elections() pages all
  pick = drv elections | most_frequent sgId
  answer pick.sgId
}
"""


def test_resolve_rejects_what_a_perturbation_changes(world) -> None:
    # every election has its own sgId: the most frequent is a tie of all of them, broken by the
    # smallest; the opposite tie-break answers another one, which the re-solve alone never saw
    _, res = _run(TIED, world)
    assert res.determined is False and res.determinacy.causes[0].kind == "tie"
    fresh = make_backend("world", seed=0)
    why = asyncio.run(resolve(TIED, "t", res.answer, fresh))
    assert why == ["perturbed_tie_break"]


def test_answer_keys_ignore_key_order_only() -> None:
    assert answer_key({"a": 1, "b": [1, 2]}) == answer_key({"b": [1, 2], "a": 1})
    assert answer_key([1, 2]) != answer_key([2, 1])
    assert answer_key(1) != answer_key(1.5)
