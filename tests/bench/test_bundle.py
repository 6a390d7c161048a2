"""Bundles: content hash (stable, changes with content, checked on load), refusals with their
reasons, the exposed tools."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from edgedsl.bench.bundle import (
    Bundle,
    BundleError,
    bundle_hash,
    exposed_tools,
    full_catalog,
    load_bundle,
    make_bundle,
    save_bundle,
)
from edgedsl.bench.toolbox import PAGE_ARG

from .conftest import FIXTURES, WORLD_FILES


def test_the_hash_is_stable_and_follows_the_content(small_bundle: Bundle,
                                                    tmp_path: Path) -> None:
    assert small_bundle.hash == bundle_hash(small_bundle)
    again = save_bundle(small_bundle, tmp_path / "b.json")
    assert again.hash == small_bundle.hash
    assert load_bundle(tmp_path / "b.json") == again
    changed = small_bundle.model_copy(deep=True)
    changed.tasks[0].query += "?"
    assert bundle_hash(changed) != small_bundle.hash
    # a bundle edited after it was made is refused
    data = orjson.loads((tmp_path / "b.json").read_bytes())
    data["tasks"][0]["query"] = "바뀐 질문"
    (tmp_path / "c.json").write_bytes(orjson.dumps(data))
    with pytest.raises(BundleError, match="does not match its content"):
        load_bundle(tmp_path / "c.json")
    data["version"] = 99
    (tmp_path / "d.json").write_bytes(orjson.dumps(data))
    with pytest.raises(BundleError, match="version 99"):
        load_bundle(tmp_path / "d.json")
    with pytest.raises(BundleError, match="cannot read"):
        load_bundle(tmp_path / "missing.json")


def test_making_twice_gives_the_same_hash() -> None:
    a = make_bundle([WORLD_FILES[0]]).sealed()
    b = make_bundle([WORLD_FILES[0]]).sealed()
    assert a.hash == b.hash
    c = make_bundle([WORLD_FILES[0]], tools_per_task=9).sealed()
    assert c.hash != a.hash and len(c.tasks[0].tools) == 9


def test_undetermined_broken_and_duplicate_tasks_are_refused_with_reasons(
        tmp_path: Path) -> None:
    dup = tmp_path / "copy.edge"
    shutil.copy(WORLD_FILES[0], dup)
    bundle = make_bundle([FIXTURES / "refused", WORLD_FILES[0], dup])
    assert [t.id for t in bundle.tasks] == ["two_bridges"]
    why = {(Path(r.file).name, r.reason): r.detail for r in bundle.refused}
    assert why[("partial.edge", "undetermined")] == "`sweep` left 28 records unread"
    assert "no tool `no_such_tool`" in why[("broken.edge", "does_not_compile")]
    assert "already in the bundle" in why[("copy.edge", "duplicate")]
    with pytest.raises(BundleError, match="no such file"):
        make_bundle([tmp_path / "nowhere"])


def test_the_task_carries_its_gold_and_schemas(small_bundle: Bundle) -> None:
    task = small_bundle.task("opinion_on_latest_notice")
    assert task.writes and task.platforms == ["assembly"] and task.structure == "Drv"
    assert task.gold_tools == ["assembly.lawmaking_notices", "assembly.submit_opinion"]
    assert "trajectory opinion_on_latest_notice" in task.program
    assert not small_bundle.task("two_bridges").writes
    for t in small_bundle.tasks:
        assert set(t.gold_tools) <= set(t.tools)
        assert [s["function"]["name"] for s in t.schemas] == [
            q.replace(".", "__") for q in t.tools]
        for q, s in zip(t.tools, t.schemas, strict=True):
            paged = small_bundle.spec(q).paging is not None
            assert (PAGE_ARG in s["function"]["parameters"]["properties"]) == paged
    with pytest.raises(KeyError, match="no task 'nope'"):
        small_bundle.task("nope")


def test_exposed_tools_mix_platforms_and_average_k(small_bundle: Bundle) -> None:
    catalog = full_catalog()
    used = ["dart.company", "fsc.corp_outline"]
    counts = []
    for i in range(200):
        tools = exposed_tools(f"task{i}", used, catalog, seed=0, k=7.5)
        assert set(used) <= set(tools) and len(set(tools)) == len(tools)
        others = [q for q in tools if q not in used]
        assert any(q.split(".")[0] in ("dart", "fsc") for q in others)
        assert any(q.split(".")[0] not in ("dart", "fsc") for q in others)
        counts.append(len(tools))
    assert set(counts) == {7, 8}
    assert abs(sum(counts) / len(counts) - 7.5) < 0.1
    many = [f"dart.{t}" for t in ("company", "corp_codes", "disclosures", "employees")]
    # more gold tools than K: all of them, no distractor
    assert set(exposed_tools("t", many, catalog, seed=0, k=2)) == set(many)
