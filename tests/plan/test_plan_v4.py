"""Plan version 5 stores answers and predicates as their queries only; a version 4 plan, which
also stored ``reads`` / ``shape`` / ``whole`` beside them, is migrated on load.

The fixtures are the ``plan.json`` goldens of two examples as the version 4 compiler wrote them
(``tests/fixtures/plans_v4/``: ``school_day`` has ``if`` steps and whole-relation answers,
``market_day`` scalar expressions too)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest

from edgedsl.api import check
from edgedsl.core.diagnostics import CompileError
from edgedsl.plan.compile import compile_program
from edgedsl.plan.model import PLAN_VERSION, load_plan, migrate_v4, plan_to_json
from edgedsl.reduce.answer import facts, predicate_from_json, value_from_json_data

ROOT = Path(__file__).resolve().parents[2]
V4 = ROOT / "tests" / "fixtures" / "plans_v4"
NAMES = ["school_day", "market_day"]


def _v4(name: str) -> dict[str, Any]:
    raw = orjson.loads((V4 / f"{name}.plan.json").read_bytes())
    assert raw["version"] == 4
    return raw


def _answer_fields(raw: dict[str, Any]) -> list[dict[str, Any]]:
    return [f for t in raw["trajectories"] if t.get("answer") for f in t["answer"]["fields"]]


def _predicates(raw: dict[str, Any]) -> list[dict[str, Any]]:
    return [s["predicate"] for t in raw["trajectories"] for s in t["steps"].values()
            if s["kind"] == "if"]


@pytest.mark.parametrize("name", NAMES)
def test_what_v4_stored_is_what_facts_derives(name: str) -> None:
    """Every ``reads`` / ``shape`` / ``whole`` the version 4 compiler stored equals what
    :func:`facts` derives from the query, so dropping them loses nothing."""
    raw = _v4(name)
    fields = _answer_fields(raw)
    assert {f["whole"] for f in fields} >= {"field", "count"}
    for f in fields:
        got = facts(value_from_json_data(f["query"]))
        assert (dict(got.reads), got.shape, got.whole) == (
            {k: tuple(v) for k, v in f["reads"].items()}, f["shape"], f["whole"])
    for p in _predicates(raw):
        got = facts(predicate_from_json(p["query"]))
        assert dict(got.reads) == {k: tuple(v) for k, v in p["reads"].items()}
        assert (got.shape, got.whole) == ("scalar", None)
    assert _predicates(raw) or name != "school_day"


@pytest.mark.parametrize("name", NAMES)
def test_a_v4_plan_loads_as_the_plan_compiled_today(name: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the fixture's spans carry the relative path
    fresh = compile_program(check(Path("examples") / f"{name}.edge").program)
    migrated = load_plan((V4 / f"{name}.plan.json").read_bytes())
    want, got = orjson.loads(plan_to_json(fresh)), orjson.loads(plan_to_json(migrated))
    # `round(x, 0)` is an integer since issue 20; the v4 plan stored `float` as its type (and
    # still formats its answer as it did when compiled): the one difference allowed
    for wt, gt in zip(want["trajectories"], got["trajectories"], strict=True):
        for wf, gf in zip((wt.get("answer") or {}).get("fields", []),
                          (gt.get("answer") or {}).get("fields", []), strict=True):
            if wf["query"]["kind"] == "round" and wf["query"]["digits"] == 0:
                assert (wf["type"], gf["type"]) == ("int", "float") \
                    or wf["type"] == gf["type"]
                gf["type"] = wf["type"]
    assert got == want and migrated.version == PLAN_VERSION


def test_migration_drops_only_the_derived_keys() -> None:
    raw = _v4("school_day")
    before = copy.deepcopy(raw)
    out = migrate_v4(raw)
    assert raw == before  # the input is left as it is
    assert out["version"] == PLAN_VERSION
    assert all(not {"reads", "shape", "whole"} & set(f) for f in _answer_fields(out))
    assert all(set(p) == {"query"} for p in _predicates(out))
    # put the dropped keys back and the input comes out again
    for f, g in zip(_answer_fields(out), _answer_fields(raw), strict=True):
        f.update(reads=g["reads"], shape=g["shape"], whole=g["whole"])
    for p, q in zip(_predicates(out), _predicates(raw), strict=True):
        p["reads"] = q["reads"]
    assert out == {**raw, "version": PLAN_VERSION}


def test_a_v4_plan_with_other_problems_is_still_e401() -> None:
    """Migration drops the three derived keys and nothing else: a v4 answer field with an
    unknown key, or a malformed trajectory, is a schema error as in version 5."""
    raw = _v4("market_day")
    _answer_fields(raw)[0]["colour"] = "red"
    with pytest.raises(CompileError) as e:
        load_plan(orjson.dumps(raw))
    (d,) = e.value.diagnostics
    assert d.code == "E401" and "colour: Extra inputs are not permitted" in d.message
    for bad in ([3], {"trajectories": "x"}, {"trajectories": [{"name": "t", "steps": [1]}]}):
        with pytest.raises(CompileError) as e:
            load_plan(orjson.dumps({"version": 4, **bad} if isinstance(bad, dict)
                                   else {"version": 4, "trajectories": bad}))
        assert e.value.diagnostics[0].code == "E401"


def test_version_5_refuses_the_keys_it_no_longer_has() -> None:
    raw = migrate_v4(_v4("market_day"))
    _answer_fields(raw)[0]["whole"] = "field"
    with pytest.raises(CompileError, match="whole: Extra inputs are not permitted"):
        load_plan(orjson.dumps(raw))
