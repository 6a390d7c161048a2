"""The stdlib catalogs and the world agree: every HTTP tool of the ten platforms' catalogs is
served by exactly one world endpoint, on the same path, in the same envelope family, accepting
every parameter the catalog declares and serving every field its record declares."""

from __future__ import annotations

import re
from functools import cache
from urllib.parse import urlsplit

import pytest

from edgedsl.api import check
from edgedsl.core.catalog import Catalog, Tool
from edgedsl.core.resources import stdlib_dir
from edgedsl.world.decl import Endpoint
from edgedsl.world.engine import World

PLATFORM_FILES = ("dart", "fsc", "neis", "law", "assembly", "nec", "ex", "bus", "region",
                  "seoul")
_HUB = {"hub", "neis", "assembly"}


@cache
def catalog() -> Catalog:
    src = "\n".join(f"use {name}" for name in PLATFORM_FILES) + "\n"
    return check(src, "<consistency>", search_paths=[stdlib_dir()]).catalog


@cache
def world() -> World:
    return World(seed=0)


def http_tools() -> list[Tool]:
    return [t for p in catalog().platforms.values() for t in p.tools.values()
            if t.method and t.path]


def _segments(path: str) -> list[str]:
    return [s for s in path.split("?")[0].strip("/").split("/") if s]


def _same_path(catalog_path: str, world_path: str) -> bool:
    a, b = _segments(catalog_path), _segments(world_path)
    # Seoul templates: trailing positional filters may be absent on either side
    if len(a) != len(b):
        return False
    return all(x == y or x.startswith("{") or y.startswith("{") for x, y in zip(a, b, strict=True))


def test_at_least_80_tools_over_ten_platform_files() -> None:
    tools = http_tools()
    assert len(tools) >= 80, len(tools)
    for name in PLATFORM_FILES:
        assert (stdlib_dir() / f"{name}.edge").is_file(), name


def _endpoint(tool: Tool) -> Endpoint:
    eps = [e for e in world().endpoints if e.platform == tool.platform and e.tool == tool.name]
    assert len(eps) == 1, f"{tool.qualname}: {len(eps)} world endpoints"
    return eps[0]


@pytest.mark.parametrize("tool", http_tools(), ids=lambda t: t.qualname)
def test_tool_is_served(tool: Tool) -> None:
    ep = _endpoint(tool)
    plat = catalog().platforms[tool.platform]
    full = urlsplit(plat.base or "").path.rstrip("/") + (tool.path or "")
    assert _same_path(full, ep.path), (full, ep.path)
    family = "hub" if (plat.envelope or "") in _HUB else plat.envelope
    assert family == ep.dialect, (plat.envelope, ep.dialect)
    assert (tool.method or "GET").upper() == ep.method
    # fixed selectors of a shared path are in the catalog path's query
    query = dict(p.partition("=")[::2] for p in (tool.path or "").partition("?")[2].split("&") if p)
    for k, v in ep.fixed.items():
        assert query.get(k, "").lower() == v.lower(), (k, v, query)
    accepted = {f.param for f in ep.filters} | set(ep.required) | set(ep.params) | set(ep.fixed)
    accepted |= set(re.findall(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", ep.path))
    if ep.paging is not None:
        accepted |= {ep.paging.page, ep.paging.size}
    for param in tool.params:
        assert param.name in accepted, f"{tool.qualname}: parameter {param.name} not accepted"
    if tool.paging is not None:
        assert ep.paging is not None, f"{tool.qualname} is paged in the catalog only"
        assert (tool.paging.page, tool.paging.size) == (ep.paging.page, ep.paging.size)
    required = {p.name for p in tool.params if not p.optional}
    assert set(ep.required) <= required | set(ep.fixed) | {"TYPE", "KEY"}, \
        f"{tool.qualname}: the world requires {set(ep.required) - required}"


@pytest.mark.parametrize("tool", http_tools(), ids=lambda t: t.qualname)
def test_record_fields_are_served(tool: Tool) -> None:
    ep = _endpoint(tool)
    if ep.custom is not None or ep.write is not None or not ep.dataset:
        pytest.skip("a bespoke endpoint: checked by its platform's tests")
    ds = world().datasets[ep.dataset]
    if ds.build is None:
        pytest.skip("generated per request: checked by its platform's tests")
    rows = world().rows(ep.dataset)
    assert rows, f"{ep.dataset} is empty"
    served = set(ep.fields) if ep.fields is not None else \
        {k for r in rows[:50] for k in r if not k.startswith("_")}
    missing = [f.name for f in tool.record.fields if f.name not in served]
    assert not missing, f"{tool.qualname}: record fields not served: {missing}"


def test_every_endpoint_has_a_catalog_tool() -> None:
    names = {t.qualname for t in http_tools()}
    orphans = [f"{e.platform}.{e.tool}" for e in world().endpoints
               if f"{e.platform}.{e.tool}" not in names]
    assert not orphans, orphans
